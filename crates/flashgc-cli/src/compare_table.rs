//! `compare`'s human-readable table: one row per configuration, what ran, and the legend.

use crate::output::{gc_trigger_note, p99_cell};
use flashgc_core::RunResult;
use std::fmt::Write as _;

/// The GC action's registered name (the part of its spec before `:`).
fn action_name(r: &RunResult) -> &str {
    r.dedup
        .as_ref()
        .map(|d| d.gc_action.split(':').next().unwrap_or(""))
        .unwrap_or("move")
}

/// `compare`'s table: one row per configuration; `costs` = measured classifier ns per
/// user write; `pairing` = how the pairs were chosen (the header's `schemes:` line).
pub fn compare_table(
    rs: &[(RunResult, f64)],
    costs: &[Option<f64>],
    pairing: Option<&str>,
) -> String {
    let mut s = String::new();
    let partial = |r: &RunResult| r.ended_by == "interrupted";
    // The header's volume written: a finished run's, when there is one.
    let Some((first, _)) = rs.iter().find(|r| !partial(&r.0)).or(rs.first()) else {
        return "no configurations\n".into();
    };
    let l = &first.device.layout;
    let _ = writeln!(
        s,
        "flashgc {} compare | workload {} | seed {} | {:.2} GiB logical, op {:.4} ({}) | {} pages/segment | {:.2} x capacity written, steady state after {:.2} x",
        first.flashgc_version,
        first.workload,
        first.seed,
        first.device.logical_gib,
        l.op,
        l.op_given_as,
        l.pages_per_segment,
        first.total.user_writes as f64 / l.logical_pages as f64,
        first.warmup_user_pages as f64 / l.logical_pages as f64
    );
    if let Some(p) = pairing {
        let _ = writeln!(s, "schemes: {p}");
    }
    let t = gc_trigger_note(first);
    if !t.is_empty() {
        let _ = writeln!(s, "GC trigger:{}", t.trim_start_matches(';'));
    }
    // Columns as wide as the longest spec (parameters included).
    let wp = rs
        .iter()
        .map(|(r, _)| r.placement.len())
        .max()
        .unwrap_or(0)
        .max(22);
    // The victim cell carries the GC action (` +splitgc`) in the content mode.
    let victim_cell = |r: &RunResult| match &r.dedup {
        Some(_) => format!("{} +{}", r.victim, action_name(r)),
        None => r.victim.clone(),
    };
    let wv = rs
        .iter()
        .map(|(r, _)| victim_cell(r).len())
        .max()
        .unwrap_or(0)
        .max(20);
    // Timed runs (`--timing`) add their throughput and tails: without them the table of a
    // timed comparison showed no timing figure at all.
    let timed = rs.iter().any(|(r, _)| r.timing.is_some());
    let timing_head = if timed {
        format!(" {:>10} {:>11} {:>11}", "IOPS", "rd p99 us", "wr p99 us")
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "{:<wp$} {:<wv$} {:>9} {:>9} {:>13} {:>10} {:>9} {:>10} {:>12}{timing_head} {:>8}",
        "placement",
        "victim",
        "WAF(ss)",
        "WAF(all)",
        "GC writes",
        "erases",
        "B/LPN",
        "cls ns/w",
        "model WAF",
        "secs"
    );
    for (i, (r, secs)) in rs.iter().enumerate() {
        let model = r
            .model
            .as_ref()
            .map(|m| format!("{:.4}", m.waf))
            .unwrap_or_else(|| "-".into());
        let cost = costs
            .get(i)
            .copied()
            .flatten()
            .map(|c| format!("{c:.1}"))
            .unwrap_or_else(|| "-".into());
        let timing_cells = match (&r.timing, timed) {
            (Some(t), _) => format!(
                " {:>10.0} {:>11} {:>11}",
                t.iops,
                p99_cell(&t.read_latency),
                p99_cell(&t.write_latency)
            ),
            (None, true) => format!(" {:>10} {:>11} {:>11}", "-", "-", "-"),
            (None, false) => String::new(),
        };
        let _ = writeln!(
            s,
            "{:<wp$} {:<wv$} {:>9.4} {:>9.4} {:>13} {:>10} {:>9.2} {:>10} {:>12}{timing_cells} {:>8.2}{}",
            r.placement,
            victim_cell(r),
            r.steady_state.waf,
            r.total.waf,
            r.total.gc_writes,
            r.total.erases,
            r.memory_bytes_per_lpn,
            cost,
            model,
            secs,
            if partial(r) {
                format!(
                    "  PARTIAL ({:.2} x capacity)",
                    r.total.user_writes as f64 / r.device.layout.logical_pages as f64
                )
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(
        s,
        "as run (every parameter, defaults included; the timing section of --json says which cache policy and GC mode):"
    );
    // One line per pair: the GC actions crossed with a pair share its specs (their
    // variants are listed below), and repeating the line for each told nothing new.
    let mut listed: Vec<String> = Vec::new();
    for (r, _) in rs {
        let line = format!(
            "  {} / {}: {} | {}",
            r.placement, r.victim, r.placement_spec, r.victim_spec
        );
        if !listed.contains(&line) {
            let _ = writeln!(s, "{line}");
            listed.push(line);
        }
    }
    let _ = writeln!(
        s,
        "WAF = flash page programs / user page writes; pages are {} B; GC writes in pages, erases in segments; B/LPN = metadata bytes per logical page;\n\
         cls ns/w = classifier CPU time per user write (wall-clock micro-benchmark on this machine, not part of the results); secs = wall clock.",
        l.lpn_size
    );
    if timed {
        let _ = writeln!(
            s,
            "IOPS = host requests per simulated second; rd/wr p99 us = 99th-percentile read/write latency, \
             simulated microseconds (`-`: no such requests); the whole distributions are in --json."
        );
    }
    // A result's approximations that bear on its row's figures (the one GC FIFO's waits).
    for (r, _) in rs {
        for n in r.notes.iter().filter(|n| n.starts_with("approximate:")) {
            let _ = writeln!(s, "  {} / {}: {n}", r.placement, victim_cell(r));
        }
    }
    if rs.iter().any(|r| partial(&r.0)) {
        let _ = writeln!(
            s,
            "PARTIAL = stopped by Ctrl-C or SIGTERM (`ended_by` = \"interrupted\"): its figures \
             cover only the user writes it made (x capacity), not the whole run."
        );
    }
    // Which variant of each content-aware GC action ran (bounded or upper bound).
    let mut seen: Vec<&str> = Vec::new();
    for (r, _) in rs {
        if let Some(d) = &r.dedup {
            if !seen.contains(&d.gc_action.as_str()) {
                seen.push(&d.gc_action);
            }
        }
    }
    if !seen.is_empty() {
        let _ = writeln!(
            s,
            "+ACTION = GC action in the FTL's content mode (docs/splitgc.md); variants that ran: {}; \
             every read was checked against the content last written",
            seen.join("; ")
        );
    }
    s
}
