//! `pass_summary` (behind the `--loop-until` warning) and `stats` (behind `trace stats`)
//! count the same requests: the trace's own, after the filters, whatever `--remap` does to
//! them. Remapping can split one request into several LPN runs (`compact` when its pages
//! get non-consecutive ids, `modulo` when it wraps past the device's end); those runs are
//! what the simulator receives, not what the trace holds.

use flashgc_trace::{pass_summary, stats, Ops, Remap, TraceOptions, TraceWorkload};
use std::path::PathBuf;

/// Three requests (counted by hand) in MSR format: write page 2; write pages 1..=3 (under
/// `compact`, ids 1, 0, 2: three runs; under `modulo` on 3 logical pages, pages 1, 2, 0:
/// two runs); read page 0.
const TRACE: &str = "\
128166385295514663,hm,0,Write,8192,4096,100
128166385295524663,hm,0,Write,4096,12288,100
128166385295534663,hm,0,Read,0,4096,100
";
const HAND: u64 = 3;

/// The trace in a file of its own per test (`name`): tests run in parallel.
fn trace_in(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-request-counts-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(format!("{name}.msr.csv"));
    std::fs::write(&p, TRACE).unwrap();
    p
}

/// LPN runs one pass hands the simulator.
fn runs(opts: &TraceOptions, logical: u64) -> u64 {
    let mut w = TraceWorkload::open(&trace_in("runs"), opts, 4096, logical).unwrap();
    let mut v = Vec::new();
    loop {
        let n = v.len();
        w.fill_requests(&mut v, 2).unwrap();
        if v.len() == n {
            return n as u64;
        }
    }
}

#[test]
fn pass_summary_and_stats_count_the_trace_requests() {
    let p = trace_in("counts");
    for (remap, logical, want_runs) in [
        (Remap::None, 4, 3),
        (Remap::Compact, 4, 5),
        (Remap::Modulo, 3, 4),
    ] {
        let opts = TraceOptions {
            remap,
            ..TraceOptions::default()
        };
        // The cause: remapping splits a request into several runs.
        assert_eq!(runs(&opts, logical), want_runs, "{remap:?}");
        let s = pass_summary(&p, &opts, 4096, logical, u64::MAX).unwrap();
        assert!(s.complete);
        assert_eq!((s.requests, s.write_pages), (HAND, 4), "{remap:?}");
        assert_eq!(stats(&p, &opts, 4096).unwrap().requests, HAND, "{remap:?}");
    }
    // With a filter both count what passes it.
    let opts = TraceOptions {
        remap: Remap::Compact,
        ops: Ops::Write,
        ..TraceOptions::default()
    };
    let s = pass_summary(&p, &opts, 4096, 4, u64::MAX).unwrap();
    assert_eq!(s.requests, 2);
    assert_eq!(stats(&p, &opts, 4096).unwrap().requests, 2);
}

/// The replay's workload line (and `trace_requests_out`) counts the same requests, however
/// many runs a remap splits them into and however the runs are handed out (two at a time
/// here: a split request's last runs wait for the next call), also over several passes.
#[test]
fn the_workload_line_counts_trace_requests_not_runs() {
    use flashgc_core::workload::Workload;
    let p = trace_in("line");
    for (remap, logical, want_runs) in [
        (Remap::None, 4, 3),
        (Remap::Compact, 4, 5),
        (Remap::Modulo, 3, 4),
    ] {
        for (loops, max) in [(1, 2), (1, 1), (1, 64), (2, 2)] {
            let opts = TraceOptions {
                remap,
                loop_times: loops,
                ..TraceOptions::default()
            };
            let mut w = TraceWorkload::open(&p, &opts, 4096, logical).unwrap();
            let mut v = Vec::new();
            loop {
                let n = v.len();
                w.fill_requests(&mut v, max).unwrap();
                if v.len() == n {
                    break;
                }
            }
            let what = format!("{remap:?} loops {loops} max {max}");
            let loops = loops as u64;
            assert_eq!(v.len() as u64, want_runs * loops, "{what}");
            assert_eq!(w.trace_requests_out(), HAND * loops, "{what}");
            assert_eq!(w.requests_out(), want_runs * loops, "{what}");
            let line = w.describe();
            assert!(
                line.contains(&format!(", {} requests", HAND * loops)),
                "{what}: {line}"
            );
        }
    }
}
