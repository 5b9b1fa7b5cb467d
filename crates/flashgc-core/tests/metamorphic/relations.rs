//! The relations every run must satisfy, whatever its configuration.

use crate::draw::Case;
use crate::{run, synthetic};
use flashgc_core::device::policy::ControllerParams;
use flashgc_core::driver::Engine;
use flashgc_core::metrics::result::PhaseCounts;
use flashgc_core::timing::Host;
use flashgc_core::workload::Op;
use flashgc_core::RunResult;
use proptest::prelude::*;

/// Equal up to floating-point rounding.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// The accounting identities of one phase (docs/core.md, "Result fields"; README "Reading
/// the output"; docs/mapping-cache.md, "WAF").
pub(crate) fn phase_identities(p: &PhaseCounts, what: &str) -> Result<(), TestCaseError> {
    let tw = p.translation.as_ref().map_or(0, |t| t.translation_writes);
    prop_assert_eq!(
        p.flash_programs,
        p.user_writes - p.absorbed_writes + p.gc_writes + p.background_writes + tw,
        "{}: programs = user - absorbed + GC + background + translation writes",
        what
    );
    if p.user_writes > 0 {
        let waf = p.flash_programs as f64 / p.user_writes as f64;
        prop_assert!(
            close(p.waf, waf),
            "{}: waf {} != programs / user {}",
            what,
            p.waf,
            waf
        );
        if let Some(t) = &p.translation {
            let without = (p.user_writes + p.gc_writes) as f64 / p.user_writes as f64;
            prop_assert!(
                p.absorbed_writes > 0
                    || p.background_writes > 0
                    || close(t.waf_without_translation, without),
                "{}: waf_without_translation {} != (user + GC) / user {}",
                what,
                t.waf_without_translation,
                without
            );
        }
    }
    prop_assert!(
        p.unmapped_reads <= p.reads,
        "{}: unmapped reads above reads",
        what
    );
    prop_assert!(
        p.gc_episodes <= p.gc_victims,
        "{}: an episode without a victim",
        what
    );
    Ok(())
}

/// Relations between the phases and the device: the steady state is inside the total, and
/// every segment erased was programmed whole while no more was programmed than the device
/// held free at the start plus what erases freed.
pub(crate) fn device_identities(r: &RunResult, case: &Case) -> Result<(), TestCaseError> {
    phase_identities(&r.total, "total")?;
    phase_identities(&r.steady_state, "steady state")?;
    phase_identities(&r.precondition, "precondition")?;
    let (t, s) = (&r.total, &r.steady_state);
    for (name, a, b) in [
        ("user writes", s.user_writes, t.user_writes),
        ("GC writes", s.gc_writes, t.gc_writes),
        ("programs", s.flash_programs, t.flash_programs),
        ("erases", s.erases, t.erases),
        ("victims", s.gc_victims, t.gc_victims),
        ("reads", s.reads, t.reads),
    ] {
        prop_assert!(
            a <= b,
            "steady-state {} {} above the total's {}",
            name,
            a,
            b
        );
    }
    let l = &r.device.layout;
    let pps = l.pages_per_segment as u64;
    let programs = r.precondition.flash_programs + t.flash_programs;
    let erases = r.precondition.erases + t.erases;
    prop_assert!(
        erases * pps <= programs,
        "{} erases of {}-page segments but {} programs",
        erases,
        pps,
        programs
    );
    prop_assert!(
        programs <= erases * pps + l.physical_pages,
        "{} programs but only {} erased pages and {} physical",
        programs,
        erases * pps,
        l.physical_pages
    );
    if case.cfg.run.gc_action == "move" {
        prop_assert_eq!(t.erases, t.gc_victims, "move: each victim is erased once");
    }
    let hist: u64 = r.victim_valid_ratio.counts.iter().sum();
    prop_assert_eq!(
        hist,
        r.precondition.gc_victims + t.gc_victims,
        "victim histogram entries"
    );
    Ok(())
}

/// The final FTL state against a replay of the workload: the LPNs mapped are exactly the
/// filled ones and those the run wrote (the synthetic workloads trim nothing), and without
/// a mapping cache the valid pages are exactly the mapped LPNs (move action: one copy each).
pub(crate) fn live_pages(r: &RunResult, e: &Engine, case: &Case) -> Result<(), TestCaseError> {
    let ftl = e.simulation().ftl();
    let logical = r.device.layout.logical_pages;
    let mut want = vec![false; logical as usize];
    let filled = (logical as f64 * case.cfg.run.fill).round() as usize;
    want[..filled].iter_mut().for_each(|w| *w = true);
    let mut wl = synthetic(&case.cfg);
    let (mut written, mut buf) = (0u64, Vec::new());
    while written < r.total.user_writes {
        buf.clear();
        wl.fill(&mut buf, 1).unwrap();
        let q = buf[0];
        prop_assert!(q.op != Op::Trim, "synthetic workloads trim nothing");
        if q.op == Op::Write {
            // A WAF-only run stops page by page at the exact write volume, inside its
            // last request (driver/run_loop.rs, `serve_waf_only`); a timed run after it.
            let n = if case.timing.is_none() {
                (q.pages as u64).min(r.total.user_writes - written)
            } else {
                q.pages as u64
            };
            (q.lpn..q.lpn + n).for_each(|l| want[l as usize] = true);
            written += n;
        }
    }
    prop_assert_eq!(
        written,
        r.total.user_writes,
        "the run ends after a whole request"
    );
    let mut mapped = 0u64;
    for lpn in 0..logical {
        let m = ftl.mapping().lookup(lpn as u32).is_some();
        prop_assert_eq!(m, want[lpn as usize], "LPN {} mapped: {}", lpn, m);
        mapped += m as u64;
    }
    let view = ftl.view();
    let valid: u64 = (0..view.len() as u32).map(|s| view.valid(s) as u64).sum();
    if case.cfg.ftl.mapping_cache.is_none() {
        prop_assert_eq!(valid, mapped, "valid pages = live logical pages");
    } else {
        prop_assert!(
            valid >= mapped,
            "valid pages {} below live pages {}",
            valid,
            mapped
        );
    }
    prop_assert!(ftl.check().is_ok(), "Ftl::check: {:?}", ftl.check());
    Ok(())
}

/// Counts and bounds of a timed run (docs/timing.md): every request is completed and
/// counted once; the FTL saw what the host sent (or the write cache evicted); no latency
/// beats the unloaded cost of one operation; a closed loop keeps its queue depth
/// outstanding (Little's law); no device programs faster than all its cells at once.
pub(crate) fn timing_relations(r: &RunResult, case: &Case) -> Result<(), TestCaseError> {
    let p = case.timing.as_ref().unwrap();
    let t = r.timing.as_ref().unwrap();
    let rp = case.cfg.run.request_pages as u64;
    prop_assert_eq!(
        t.requests,
        t.read_requests + t.write_requests,
        "requests = reads + writes"
    );
    prop_assert_eq!(t.read_latency.count, t.read_requests, "a latency per read");
    prop_assert_eq!(
        t.write_latency.count,
        t.write_requests,
        "a latency per write"
    );
    match &t.cache {
        None => {
            prop_assert_eq!(
                r.total.user_writes,
                t.write_requests * rp,
                "FTL writes = host write pages"
            );
            prop_assert_eq!(
                r.total.reads,
                t.read_requests * rp,
                "FTL reads = host read pages"
            );
        }
        Some(c) => {
            // Each page written hits or misses; a miss takes a slot, evicting a page when
            // none is free; nothing flushes, so every page cached at the end is dirty.
            prop_assert_eq!(
                r.total.user_writes,
                c.evictions,
                "FTL writes = cache evictions"
            );
            let misses = t.write_requests * rp - c.write_hits;
            prop_assert!(
                c.evictions <= misses,
                "{} evictions for {} misses",
                c.evictions,
                misses
            );
            prop_assert_eq!(
                c.dirty_at_end,
                misses - c.evictions,
                "dirty pages at the end"
            );
            prop_assert!(c.dirty_at_end <= c.pages, "more dirty pages than slots");
            prop_assert_eq!(
                r.total.reads,
                t.read_requests * rp - c.read_hits,
                "FTL reads = read misses"
            );
        }
    }
    let d = &case.cfg.device.timing;
    let xfer_us = case.cfg.device.lpn_size as f64 / d.channel_mb_s;
    if p.noc.is_none() && t.cache.is_none() {
        if t.write_requests > 0 {
            prop_assert!(
                t.write_latency.mean_us >= xfer_us * (1.0 - 1e-9),
                "write mean {} us below one transfer {} us",
                t.write_latency.mean_us,
                xfer_us
            );
        }
        if t.read_requests > 0 && r.total.unmapped_reads == 0 {
            // A read served from the controller's write buffer (deferred commit, its page's
            // host program still running) reads no flash: each such page can make at most
            // one read request faster than tR + transfer.
            let buffered = t
                .flash
                .as_ref()
                .and_then(|f| f.write_buffer_reads)
                .unwrap_or(0)
                .min(t.read_requests);
            let floor = (d.read_us + xfer_us) * (t.read_requests - buffered) as f64
                / t.read_requests as f64;
            prop_assert!(
                t.read_latency.mean_us >= floor * (1.0 - 1e-9),
                "read mean {} us below tR + transfer {} us over the {} of {} read requests \
                 not served from the write buffer",
                t.read_latency.mean_us,
                d.read_us + xfer_us,
                t.read_requests - buffered,
                t.read_requests
            );
        }
    }
    let span_s = t.simulated_ns as f64 / 1e9;
    if let Host::ClosedLoop { queue_depth } = p.host {
        let mean_us = (t.read_latency.mean_us * t.read_requests as f64
            + t.write_latency.mean_us * t.write_requests as f64)
            / t.requests as f64;
        let outstanding = t.iops * mean_us / 1e6;
        let q = queue_depth as f64;
        prop_assert!(
            outstanding <= q * (1.0 + 1e-6),
            "Little: {} outstanding above QD {}",
            outstanding,
            q
        );
        prop_assert!(
            outstanding >= q * 0.95,
            "Little: {} outstanding below QD {}",
            outstanding,
            q
        );
    }
    if p.noc.is_none() {
        let dev = &case.cfg.device;
        let cells = dev.channels * dev.chips_per_channel * dev.dies_per_chip * dev.planes_per_die;
        let units = (dev.page_size / dev.lpn_size) as f64;
        // Units programmed at most: every cell busy programming full pages all the time,
        // plus a page per cell still in its register at the end.
        let most = cells as f64 * units * (span_s * 1e6 / d.program_us + 1.0);
        let at_flash = r.total.user_writes - r.total.absorbed_writes;
        prop_assert!(
            (at_flash as f64) <= most,
            "{} host pages programmed in {} s; {} cells of {} units at {} us allow {}",
            at_flash,
            span_s,
            cells,
            units,
            d.program_us,
            most
        );
    }
    Ok(())
}

/// docs/timing.md, "GC scheduling": foreground, per-die and preemptible GC make
/// timing-independent FTL decisions, and "WAF with timing equals WAF without timing for the
/// same request order"; the controller's options change the order of service, not the
/// FTL's work (docs/controller.md). So without a write cache (which changes what reaches
/// the FTL) and idle-time work (SplitGC's scrub), the phase counts equal the WAF-only run's.
pub(crate) fn one_engine(r: &RunResult, case: &Case) -> Result<(), TestCaseError> {
    let p = case.timing.as_ref().unwrap();
    let t = r.timing.as_ref().unwrap();
    if t.timing_dependent_policy || p.cache_pages > 0 || case.cfg.run.gc_action == "splitgc" {
        return Ok(());
    }
    let untimed = Case {
        timing: None,
        ..case.clone()
    };
    let (w, _) = run(&untimed);
    // A WAF-only run ends, and takes its warm-up snapshot, at the exact page, inside a
    // multi-page request; a timed run at the request that reaches it (docs/timing.md).
    // Where the two fall on different pages, they lie within one request.
    let rp = case.cfg.run.request_pages as u64;
    let phases = [
        ("precondition", &w.precondition, &r.precondition, true),
        (
            "total",
            &w.total,
            &r.total,
            w.total.user_writes == r.total.user_writes,
        ),
        (
            "steady state",
            &w.steady_state,
            &r.steady_state,
            w.warmup_user_pages == r.warmup_user_pages,
        ),
    ];
    for (name, a, b, aligned) in phases {
        if !aligned {
            let (x, y) = (
                a.user_writes.max(b.user_writes),
                a.user_writes.min(b.user_writes),
            );
            prop_assert!(
                rp > 1 && x - y < rp,
                "{}: timed {} user pages, WAF-only {}",
                name,
                b.user_writes,
                a.user_writes
            );
            continue;
        }
        let (a, b) = (
            serde_json::to_string(a).unwrap(),
            serde_json::to_string(b).unwrap(),
        );
        prop_assert!(
            a == b,
            "{} counts differ from the WAF-only run:\n  WAF-only {}\n  timed    {}",
            name,
            a,
            b
        );
    }
    Ok(())
}

/// docs/controller.md: "Every option off (the default) is today's controller". Naming each
/// controller feature off through the one options parser (the CLI's and Python's) leaves
/// a case whose features are off with the very parameters it runs with.
pub(crate) fn features_off_by_name(case: &Case) -> Result<(), TestCaseError> {
    use flashgc_core::timing::TimingOptions;
    let p = case.timing.as_ref().unwrap();
    if p.controller != ControllerParams::default() || p.cpu.is_some() {
        return Ok(());
    }
    let off = r#"{"scheduler": "fcfs", "suspend": "off", "channel": "fifo", "cpu_cost": "off"}"#;
    let mut named = p.clone();
    TimingOptions::from_json(off)
        .and_then(|o| o.apply(&case.cfg, &mut named, &|k| k.to_string()))
        .map_err(|e| TestCaseError::fail(format!("naming the features off: {e}")))?;
    prop_assert_eq!(&named, p, "every controller feature named off");
    Ok(())
}
