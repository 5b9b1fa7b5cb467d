//! NoC controller model and selective copy-back GC (papers/noc-copyback-gc.txt).

mod common;

use flashgc_core::device::noc::{
    GcPath, NocComparison, NocMedia as NocDevice, NocParams, NocReport,
};
use flashgc_core::driver::NocSim;
use flashgc_core::metrics::result::TimingReport;
use flashgc_core::timing::{GcMode, Host, TimingParams};
use flashgc_core::workload::profiles::{Arrival, NocProfile, NocSynthetic};
use flashgc_core::workload::{Op, Request};
use flashgc_core::{Config, RunResult};

fn noc_cfg() -> Config {
    Config::load(Some("noc-ssdc"), None).unwrap()
}

/// The NoC device with parameters `p`, GC per die (the paper's model: a victim's tasks are
/// issued when the triggering write arrives, no device-wide barrier), open loop.
fn noc_sim(cfg: &Config, p: NocParams) -> NocSim {
    let tp = TimingParams {
        gc_mode: GcMode::PerDie,
        host: Host::OpenLoop { time_scale: 1.0 },
        noc: Some(p),
        ..TimingParams::default()
    };
    NocSim::new_noc(cfg, tp).unwrap()
}

fn noc(r: &RunResult) -> &NocReport {
    r.noc.as_ref().expect("noc section")
}

fn timing(r: &RunResult) -> &TimingReport {
    r.timing.as_ref().expect("timing section")
}

/// The paper's Eq. 1: (2^15/4 + 13.5 - 1) x 87 ns = 8204.5 x 87 = 713 791.5 ns.
const T: u64 = 713_792;

#[test]
fn eq1_traversal_is_714_us() {
    let p = NocParams::from_config(&noc_cfg(), GcPath::Conventional);
    assert_eq!(p.page_bits, 1 << 15);
    assert_eq!(p.traversal_ns(), T);
    // Every term is a parameter: 8 KiB pages with 8-bit units and 10 slices.
    let q = NocParams {
        page_bits: 1 << 16,
        transfer_unit_bits: 8,
        avg_slices: 10.0,
        hop_ns: 100.0,
        ..p
    };
    assert_eq!(q.traversal_ns(), (8192 + 9) * 100);
}

#[test]
fn ber_gives_page_error_probability() {
    let p = flashgc_core::device::noc::page_error_prob(1e-9, 1 << 15);
    assert!((p - 3.2767e-5).abs() < 1e-8, "{p}");
    assert_eq!(
        flashgc_core::device::noc::page_error_prob(0.0, 1 << 15),
        0.0
    );
}

/// One relocation on an idle noc-ssdc device, from PPN 0 (segment 0: channel 0) to PPN 64
/// (segment 1: unit 1, channel 1), issued at t = 0:
/// conventional: read 25 us, crossing to the CPU T, ECC 0, crossing back T, program 200 us:
///   end = 25 000 + 2 x 713 792 + 200 000 = 1 652 584 ns;
/// selective, no error: the return crossing is skipped: end = 25 000 + T + 200 000 = 938 792 ns;
/// selective, page with errors: the round trip again, 1 652 584 ns.
#[test]
fn one_relocation_exact_timings() {
    let cfg = noc_cfg();
    for (path, error, want) in [
        (GcPath::Conventional, false, 1_652_584),
        (GcPath::Conventional, true, 1_652_584),
        (GcPath::Selective, false, 938_792),
        (GcPath::Selective, true, 1_652_584),
    ] {
        let mut d = NocDevice::new(&cfg, NocParams::from_config(&cfg, path)).unwrap();
        assert_eq!(d.channel_of(0), 0);
        assert_eq!(d.channel_of(64), 1);
        let r = d.relocate(0, 64, 0, error);
        assert_eq!(r.read_start, 0);
        assert_eq!(r.end, want, "{path:?} error={error}");
        let tasks = d.task_counts();
        // [R_host, R_gc, W_host, W_gc, erase, direct]
        let w_gc = if path == GcPath::Selective && !error {
            0
        } else {
            1
        };
        assert_eq!(tasks, [0, 1, 0, w_gc, 0, 1 - w_gc]);
    }
}

/// A one-channel, one-plane device: 8 blocks of 4 pages, op 1.0 (16 logical pages), no fill,
/// single stream, greedy, GC below 2 free segments. Requests every 10 ms (the device is idle
/// at each arrival). The 25th write opens the 7th segment and triggers GC: the victim is
/// segment 0 holding one valid page (LPN 3 at PPN 3), relocated to PPN 24 (segment 6,
/// offset 0); the user page then goes to PPN 25. At arrival t (everything on channel 0):
/// conventional: GC read t..t+25 us, to CPU +T, back +T, program ends t+225 000+2T; the erase
///   (ready after the read) ends t+925 000+2T; the host write's SRAM (12 us) and crossing
///   (port free at t+25 000+2T) end at t+25 000+3T, before the channel frees, so its program
///   ends at t+1 125 000+2T: latency 1 125 000 + 2T = 2 552 584 ns;
/// selective, no error: everything one T earlier: 1 125 000 + T = 1 838 792 ns.
#[test]
fn ftl_driven_single_page_victim_exact() {
    let mut cfg = noc_cfg();
    cfg.device.channels = 1;
    cfg.device.planes_per_die = 1;
    cfg.device.blocks_per_plane = 8;
    cfg.device.pages_per_block = 4;
    cfg.ftl.op = Some(1.0);
    cfg.run.fill = 0.0;
    let mut lpns: Vec<u64> = vec![0, 1, 2, 3, 0, 1, 2];
    lpns.extend(4..16);
    lpns.extend([5, 6, 9, 10, 0, 1]);
    assert_eq!(lpns.len(), 25);
    let mut lat = Vec::new();
    for (path, p_err) in [
        (GcPath::Conventional, 0.0),
        (GcPath::Selective, 0.0),
        (GcPath::Selective, 1.0),
    ] {
        let mut p = NocParams::from_config(&cfg, path);
        p.error_prob = p_err;
        let mut s = noc_sim(&cfg, p);
        s.simulation_mut().ftl_mut().set_victim_log(true);
        s.start().unwrap();
        let mut last = 0;
        for (i, &lpn) in lpns.iter().enumerate() {
            let t = i as u64 * 10_000_000;
            let r = Request {
                time_ns: t,
                op: Op::Write,
                lpn,
                pages: 1,
                content: 0,
                fua: false,
            };
            last = s.submit(&r).unwrap().unwrap() - t;
            if i < 24 {
                assert_eq!(last, 12_000 + T + 200_000, "write {i} sees an idle device");
            }
        }
        assert_eq!(s.simulation().ftl().victim_log(), &[(0, 1)]);
        let rep = s.finish("writes").unwrap();
        assert_eq!(noc(&rep).copybacks, 1);
        assert_eq!(timing(&rep).write_latency.max_us, last as f64 / 1000.0);
        lat.push(last);
    }
    assert_eq!(lat[0], 1_125_000 + 2 * T);
    assert_eq!(lat[1], 1_125_000 + T);
    assert_eq!(
        lat[2], lat[0],
        "every page erroneous: selective = conventional"
    );
}

use common::configs::noc_small as small_cfg;

fn run(cfg: &Config, path: GcPath, p_err: f64, profile: &str, rate: f64, n: u64) -> RunResult {
    let mut p = NocParams::from_config(cfg, path);
    p.error_prob = p_err;
    let mut s = noc_sim(cfg, p);
    let l = s.simulation().layout().clone();
    let mut wl = NocSynthetic::new(
        NocProfile::by_name("profile", profile).unwrap(),
        Arrival {
            rate_iops: rate,
            ..Arrival::default()
        },
        l.logical_pages,
        l.lpn_size,
        n,
        7,
    )
    .unwrap();
    s.run(&mut wl, &mut |_| {}).unwrap()
}

#[test]
fn selective_never_worse() {
    for profile in ["mysql", "mongodb", "cassandra"] {
        let cfg = small_cfg(0.07);
        let (cr, sr) = (
            run(&cfg, GcPath::Conventional, 1e-2, profile, 200.0, 6000),
            run(&cfg, GcPath::Selective, 1e-2, profile, 200.0, 6000),
        );
        let (c, s) = (noc(&cr), noc(&sr));
        assert!(c.copybacks > 0, "{profile}: the run must exercise GC");
        assert_eq!(c.copybacks, s.copybacks);
        assert_eq!(
            c.error_pages, s.error_pages,
            "same error draws on both paths"
        );
        assert!(s.error_pages > 0);
        assert_eq!(s.tasks.w_gc, s.error_pages, "W_gc only for erroneous pages");
        assert_eq!(c.tasks.w_gc, c.copybacks);
        let (ct, st) = (timing(&cr), timing(&sr));
        for (a, b) in [
            (&ct.read_latency, &st.read_latency),
            (&ct.write_latency, &st.write_latency),
        ] {
            assert_eq!(a.count, b.count);
            assert!(b.mean_us <= a.mean_us, "{profile}: mean");
            assert!(b.max_us <= a.max_us, "{profile}: peak");
            assert!(b.p99_us <= a.p99_us * 1.001, "{profile}: p99");
        }
        assert!(
            st.write_latency.mean_us < ct.write_latency.mean_us,
            "{profile}: strictly better with GC"
        );
    }
}

#[test]
fn error_probability_one_gives_identical_latencies() {
    let cfg = small_cfg(0.07);
    let cr = run(&cfg, GcPath::Conventional, 1.0, "mongodb", 200.0, 6000);
    let sr = run(&cfg, GcPath::Selective, 1.0, "mongodb", 200.0, 6000);
    let (c, s) = (noc(&cr), noc(&sr));
    assert!(c.copybacks > 0);
    assert_eq!(timing(&cr).read_latency, timing(&sr).read_latency);
    assert_eq!(timing(&cr).write_latency, timing(&sr).write_latency);
    assert_eq!(c.relocation_elapsed_us, s.relocation_elapsed_us);
    assert_eq!(c.tasks, s.tasks);
    assert_eq!(c.series, s.series);
}

#[test]
fn error_probability_zero_saves_one_traversal_per_page() {
    let cfg = small_cfg(0.07);
    let cr = run(&cfg, GcPath::Conventional, 0.0, "sqlite", 200.0, 6000);
    let sr = run(&cfg, GcPath::Selective, 0.0, "sqlite", 200.0, 6000);
    let (c, s) = (noc(&cr), noc(&sr));
    assert!(c.copybacks > 1000);
    let t_us = T as f64 / 1000.0;
    let saved = c.relocation_service_us - s.relocation_service_us;
    assert!(
        (saved - c.copybacks as f64 * t_us).abs() < 1e-6 * saved,
        "{saved} vs {} x {t_us}",
        c.copybacks
    );
    assert_eq!(s.tasks.w_gc, 0);
    assert_eq!(s.tasks.direct, s.copybacks);
    // Waiting included, each page's relocation is at least one crossing shorter.
    assert!(c.relocation_elapsed_us - s.relocation_elapsed_us >= saved * (1.0 - 1e-9));
}

#[test]
fn improvement_grows_with_gc_load() {
    // Less spare space = more copy-backs per host write = larger improvement.
    let mut last: Option<(f64, f64)> = None;
    for op in [0.2, 0.12, 0.07] {
        let cfg = small_cfg(op);
        let cr = run(&cfg, GcPath::Conventional, 1e-4, "mysql", 200.0, 6000);
        let sr = run(&cfg, GcPath::Selective, 1e-4, "mysql", 200.0, 6000);
        let c = noc(&cr);
        let load = c.copybacks as f64 / c.tasks.w_host as f64;
        // Absolute saving of mean write latency, us (a relative figure also depends on how
        // far the baseline's queues have grown).
        let (cw, sw) = (&timing(&cr).write_latency, &timing(&sr).write_latency);
        let saved = cw.mean_us - sw.mean_us;
        let cmp = NocComparison::new(
            [0.0, cw.mean_us, 0.0, cw.max_us],
            [0.0, sw.mean_us, 0.0, sw.max_us],
        );
        eprintln!(
            "op {op}: copy-backs per host page write {load:.3}, mean write saved {saved:.1} us ({:.1} %)",
            cmp.write_mean_improvement_pct
        );
        assert!(load > 0.0, "op {op}: the run must exercise GC");
        if let Some((l0, s0)) = last {
            assert!(load > l0, "op {op}: load {load} <= {l0}");
            assert!(saved > s0, "op {op}: saving {saved} <= {s0}");
        }
        last = Some((load, saved));
    }
    // Without GC there is nothing to improve.
    let mut cfg = small_cfg(0.07);
    cfg.run.fill = 0.0;
    let cr = run(&cfg, GcPath::Conventional, 1e-4, "rocksdb", 200.0, 300);
    let sr = run(&cfg, GcPath::Selective, 1e-4, "rocksdb", 200.0, 300);
    assert_eq!(noc(&cr).copybacks, 0);
    assert_eq!(timing(&cr).write_latency, timing(&sr).write_latency);
    assert_eq!(timing(&cr).read_latency, timing(&sr).read_latency);
}

#[test]
fn deterministic_and_bad_input() {
    let cfg = small_cfg(0.07);
    let a = run(&cfg, GcPath::Selective, 1e-3, "dbench", 200.0, 2000);
    let b = run(&cfg, GcPath::Selective, 1e-3, "dbench", 200.0, 2000);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    assert!(NocProfile::by_name("profile", "oracle").is_err());
    assert!(GcPath::parse("path", "both").is_err());
    let mut p = NocParams::from_config(&cfg, GcPath::Selective);
    p.error_prob = 1.5;
    let e = NocDevice::new(&cfg, p).unwrap_err().to_string();
    assert!(e.contains("noc.error_prob"), "{e}");
}

/// The series of Figs. 7-8 adds up: arrivals = requests, copy-backs = total, nothing pending
/// after the last completion, never a negative count.
#[test]
fn series_is_consistent() {
    let cfg = small_cfg(0.07);
    let rr = run(&cfg, GcPath::Selective, 1e-4, "cassandra", 200.0, 3000);
    let r = noc(&rr);
    assert!(r.copybacks > 0);
    let arrivals: u64 = r.series.iter().map(|p| p.host_requests).sum();
    let cb: u64 = r.series.iter().map(|p| p.copybacks).sum();
    assert_eq!(arrivals, timing(&rr).requests);
    assert_eq!(cb, r.copybacks);
    assert!(r
        .series
        .iter()
        .all(|p| p.pending_host >= 0 && p.pending_gc >= 0));
    let last = r.series.last().unwrap();
    assert_eq!((last.pending_host, last.pending_gc), (0, 0));
    assert!(r.series.iter().any(|p| p.pending_gc > 0));
}

/// Every interconnect contention model keeps selective <= conventional.
#[test]
fn never_worse_on_every_interconnect_model() {
    use flashgc_core::device::noc::Interconnect;
    let cfg = small_cfg(0.07);
    for ic in [
        Interconnect::Shared,
        Interconnect::Duplex,
        Interconnect::Port,
    ] {
        let mut out = Vec::new();
        for path in [GcPath::Conventional, GcPath::Selective] {
            let mut p = NocParams::from_config(&cfg, path);
            p.interconnect = ic;
            let mut s = noc_sim(&cfg, p);
            let l = s.simulation().layout().clone();
            let mut wl = NocSynthetic::new(
                NocProfile::by_name("profile", "mongodb").unwrap(),
                Arrival {
                    rate_iops: 50.0,
                    ..Arrival::default()
                },
                l.logical_pages,
                l.lpn_size,
                3000,
                3,
            )
            .unwrap();
            out.push(s.run(&mut wl, &mut |_| {}).unwrap());
        }
        assert!(noc(&out[0]).copybacks > 0);
        let (c, s) = (timing(&out[0]), timing(&out[1]));
        assert!(s.write_latency.mean_us < c.write_latency.mean_us, "{ic:?}");
        assert!(s.write_latency.max_us <= c.write_latency.max_us, "{ic:?}");
        assert!(s.read_latency.mean_us <= c.read_latency.mean_us, "{ic:?}");
        assert!(s.read_latency.max_us <= c.read_latency.max_us, "{ic:?}");
    }
}

/// A real trace (MSR Cambridge hm_0 sample, looped 50 times, compact remap, a device sized
/// to its footprint): GC runs, and selective is never worse.
#[test]
fn real_trace_msr_cambridge() {
    let Some(path) = common::traces::file("msr_cambridge/msr-cambridge1-sample.csv") else {
        return;
    };
    let opts = flashgc_trace::TraceOptions {
        remap: flashgc_trace::Remap::Compact,
        loop_times: 50,
        ..Default::default()
    };
    let fp = flashgc_trace::footprint(&path, &opts, 4096).unwrap();
    let mut cfg = noc_cfg();
    cfg.ftl.logical_gib = Some(fp.distinct_pages as f64 * 4096.0 / (1u64 << 30) as f64);
    let mut out = Vec::new();
    for path_kind in [GcPath::Conventional, GcPath::Selective] {
        let mut s = noc_sim(&cfg, NocParams::from_config(&cfg, path_kind));
        let l = s.simulation().layout().clone();
        let mut wl =
            flashgc_trace::open_workload(&path, &opts, l.lpn_size, l.logical_pages).unwrap();
        out.push(s.run(wl.as_mut(), &mut |_| {}).unwrap());
    }
    assert!(noc(&out[0]).copybacks > 1000, "{}", noc(&out[0]).copybacks);
    let (c, s) = (timing(&out[0]), timing(&out[1]));
    // 1000 records x 50 loops (the reader may split a record into several requests).
    assert!(c.requests >= 50_000);
    assert_eq!(c.requests, s.requests);
    assert!(s.write_latency.mean_us < c.write_latency.mean_us);
    assert!(s.write_latency.max_us <= c.write_latency.max_us);
    assert!(s.read_latency.mean_us <= c.read_latency.mean_us);
    assert!(s.read_latency.max_us <= c.read_latency.max_us);
}

fn run_with(cfg: &Config, path: GcPath, tweak: impl Fn(&mut TimingParams)) -> RunResult {
    let mut tp = TimingParams {
        gc_mode: GcMode::PerDie,
        host: Host::OpenLoop { time_scale: 1.0 },
        noc: Some(NocParams::from_config(cfg, path)),
        ..TimingParams::default()
    };
    tweak(&mut tp);
    let mut s = NocSim::new_noc(cfg, tp).unwrap();
    let l = s.simulation().layout().clone();
    let mut wl = NocSynthetic::new(
        NocProfile::by_name("profile", "mysql").unwrap(),
        Arrival {
            rate_iops: 200.0,
            ..Arrival::default()
        },
        l.logical_pages,
        l.lpn_size,
        4000,
        11,
    )
    .unwrap();
    s.run(&mut wl, &mut |_| {}).unwrap()
}

/// Selective copy-back is a device option: it runs under every placement and victim
/// policy, with the same FTL decisions as the conventional path, and no request finishes
/// later, so no percentile is higher (every request's latency is a max-plus expression the
/// selective path only shortens; percentiles are order statistics).
#[test]
fn selective_copyback_under_every_placement_reports_tail_percentiles() {
    for (placement, victim) in [
        ("single", "greedy"),
        ("sup-gc", "greedy"),
        ("midas", "fifo"),
        ("bf-gc", "cost-benefit"),
    ] {
        let mut cfg = small_cfg(0.1);
        cfg.run.placement = placement.into();
        cfg.run.victim = victim.into();
        let c = run_with(&cfg, GcPath::Conventional, |_| {});
        let s = run_with(&cfg, GcPath::Selective, |_| {});
        assert!(
            noc(&c).copybacks > 0,
            "{placement}: the run must exercise GC"
        );
        assert_eq!(c.total, s.total, "{placement}: same FTL decisions");
        assert_eq!(noc(&c).copybacks, noc(&s).copybacks);
        let (cw, sw) = (&timing(&c).write_latency, &timing(&s).write_latency);
        assert!(cw.count > 0 && cw.count == sw.count);
        assert!(
            cw.p50_us <= cw.p99_us && cw.p99_us <= cw.p999_us && cw.p999_us <= cw.p9999_us,
            "{placement}: percentiles in order"
        );
        assert!(cw.p9999_us <= cw.max_us);
        for (a, b, what) in [
            (cw.mean_us, sw.mean_us, "mean"),
            (cw.p99_us, sw.p99_us, "p99"),
            (cw.p999_us, sw.p999_us, "p99.9"),
            (cw.p9999_us, sw.p9999_us, "p99.99"),
            (cw.max_us, sw.max_us, "max"),
        ] {
            assert!(
                b <= a,
                "{placement}: selective {what} {b} > conventional {a}"
            );
        }
        assert!(
            sw.mean_us < cw.mean_us,
            "{placement}: GC makes selective faster"
        );
    }
}

/// The NoC device under the driver's queued GC modes: GC work waits for idle gaps of the
/// channels instead of delaying the write that triggered it. The FTL's decisions do not
/// depend on time in these modes, so the counts equal the per-die run's.
#[test]
fn noc_under_preemptible_gc_keeps_ftl_decisions() {
    let cfg = small_cfg(0.1);
    let per_die = run_with(&cfg, GcPath::Selective, |_| {});
    let pre = run_with(&cfg, GcPath::Selective, |p| p.gc_mode = GcMode::Preemptible);
    assert!(noc(&pre).copybacks > 0);
    assert_eq!(per_die.total, pre.total);
    assert_eq!(timing(&per_die).requests, timing(&pre).requests);
    assert!(!timing(&pre).timing_dependent_policy);
}

/// Semantics of the one driver the NoC model now shares (docs/noc.md, "Changes in the
/// one-engine refactor"): out-of-order arrival times are served at the previous arrival's
/// time, not earlier (the retired NoC driver served them at their own time), and a request
/// of zero pages is an error (the retired driver accepted it).
#[test]
fn noc_arrivals_are_monotone_and_empty_requests_rejected() {
    let mut cfg = noc_cfg();
    cfg.device.channels = 1;
    cfg.device.planes_per_die = 1;
    cfg.device.blocks_per_plane = 8;
    cfg.device.pages_per_block = 4;
    cfg.ftl.op = Some(1.0);
    cfg.run.fill = 0.0;
    let mut s = noc_sim(&cfg, NocParams::from_config(&cfg, GcPath::Selective));
    s.start().unwrap();
    let w = |t: u64, lpn: u64| Request {
        time_ns: t,
        op: Op::Write,
        lpn,
        pages: 1,
        content: 0,
        fua: false,
    };
    let unloaded = 12_000 + T + 200_000;
    assert_eq!(s.submit(&w(0, 0)).unwrap(), Some(unloaded));
    assert_eq!(
        s.submit(&w(10_000_000, 1)).unwrap(),
        Some(10_000_000 + unloaded)
    );
    // Stamped 5 ms, after the request of 10 ms: it arrives at 10 ms and queues behind that
    // request on the SRAM (12 us), the port (T) and the channel: its crossing starts when
    // the previous one ends, its program when its crossing ends.
    let c = s.submit(&w(5_000_000, 2)).unwrap().unwrap();
    assert_eq!(c, 10_000_000 + unloaded + T);
    let r = s.finish("three writes").unwrap();
    // Latency from the served arrival (10 ms), not from the stamp (which would add 5 ms).
    assert_eq!(
        timing(&r).write_latency.max_us,
        (unloaded + T) as f64 / 1000.0
    );
    let mut empty = w(20_000_000, 3);
    empty.pages = 0;
    let e = s.submit(&empty).unwrap_err().to_string();
    assert!(e.contains("request 4"), "{e}");
}
