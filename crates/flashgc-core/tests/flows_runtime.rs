//! fio's `runtime`, `ramp_time` and `time_based` on host flows (docs/flows.md), checked
//! against runs bounded by a request count instead: a closed-loop flow of depth 1 issues
//! each request when the one before it completes, so the arrival of its k-th request is
//! the last completion (`active_ns`) of the same flow bounded at k - 1 requests. A run time
//! R after a ramp M then stops the flow exactly at the first arrival at or after M + R, and
//! the ramp holds exactly the requests that arrive before M, under every scheduler.

mod common;

use flashgc_core::device::policy::{ControllerParams, Scheduler};
use flashgc_core::metrics::result::FlowReport;
use flashgc_core::sim::RunControl;
use flashgc_core::timing::TimingParams;
use flashgc_core::workload::flows;
use flashgc_core::{Config, RunResult};

/// 64 MiB logical, 32-page segments, with one `[[flow]]` section of `extra` keys.
fn config(extra: &str) -> Config {
    let text = format!(
        "[device]\npages_per_block = 32\n[ftl]\nlogical_gib = 0.0625\nop = 0.15\n\
         [run]\nwrite_volume = 2.0\nmax_memory_gib = 64.0\n\
         [[flow]]\nname = \"w\"\nrw = \"randrw\"\nrwmixwrite = 70\niodepth = 1\n{extra}"
    );
    Config::load(None, Some(("test.toml", &text))).unwrap()
}

fn run(c: &Config, p: &TimingParams) -> RunResult {
    common::flows::run(c, p)
}

fn flow(r: &RunResult) -> &FlowReport {
    &r.flows.as_ref().unwrap()[0]
}

/// The arrival of the flow's k-th request (1-based): 0 for the first, else the last
/// completion of the flow bounded at k - 1 requests.
fn arrival(p: &TimingParams, k: u64) -> u64 {
    if k <= 1 {
        return 0;
    }
    flow(&run(&config(&format!("requests = {}\n", k - 1)), p)).active_ns
}

fn check(p: &TimingParams) {
    let (ramp_ms, runtime_ms) = (2.0, 10.0);
    let c = config(&format!("runtime_ms = {runtime_ms}\nramp_ms = {ramp_ms}\n"));
    let r = run(&c, p);
    assert_eq!(r.ended_by, "runtime");
    let f = flow(&r);
    let (n, m) = (f.requests, f.ramp_requests.expect("a ramp"));
    assert!(n > 10 && m > 0 && m < n, "{n} requests, {m} in the ramp");
    let deadline = ((ramp_ms + runtime_ms) * 1e6) as u64;
    let ramp_end = (ramp_ms * 1e6) as u64;
    // The n-th request arrived before the deadline, the (n+1)-th would not have.
    assert!(
        arrival(p, n) < deadline,
        "request {n} arrives before the end"
    );
    assert!(
        arrival(p, n + 1) >= deadline,
        "request {} is not issued",
        n + 1
    );
    // The ramp holds the requests that arrived before its end.
    assert!(arrival(p, m) < ramp_end);
    assert!(arrival(p, m + 1) >= ramp_end);
    // The same run as the one bounded at n requests; only the ramp's statistics differ.
    let bounded = run(&config(&format!("requests = {n}\n")), p);
    assert_eq!(r.total, bounded.total);
    assert_eq!(f.active_ns, flow(&bounded).active_ns);
    let count = |f: &FlowReport| {
        f.read_latency.as_ref().unwrap().count + f.write_latency.as_ref().unwrap().count
    };
    assert_eq!(count(f), n - m);
    assert_eq!(count(flow(&bounded)), n);
    // Rates over the time after the ramp, of the requests after it.
    let secs = (f.active_ns - ramp_end) as f64 / 1e9;
    assert!((f.iops - (n - m) as f64 / secs).abs() < 1e-6 * f.iops);
    assert!(r.notes.iter().any(|n| n.contains("ramp_time")));
}

#[test]
fn runtime_and_ramp_under_fcfs() {
    check(&TimingParams::default());
}

#[test]
fn runtime_and_ramp_under_read_first_with_suspend() {
    check(&common::flows::read_first_with_suspend());
}

#[test]
fn a_run_time_needs_a_clock_and_a_valid_value() {
    // WAF-only: refused before the run, naming the field.
    let c = config("runtime_ms = 5.0\n");
    let l = c.layout().unwrap();
    let mut fs = flows::from_config(&c, &l).unwrap().unwrap();
    let mut sim = flashgc_core::Simulation::new(&c).unwrap();
    let Err(e) = sim.run_with(&mut fs, &mut |_| {}, &mut RunControl::default()) else {
        panic!("a WAF-only run with a run time was accepted");
    };
    assert!(e.to_string().contains("flow `w`.runtime_ms"), "{e}");
    for bad in ["runtime_ms = -1.0\n", "ramp_ms = 1e13\n"] {
        let c = config(bad);
        let l = c.layout().unwrap();
        let Err(e) = flows::from_config(&c, &l) else {
            panic!("accepted {bad}");
        };
        assert!(e.to_string().contains("flow[0]."), "{bad}: {e}");
    }
}

/// Stopped twice (once inside the ramp) and resumed from its checkpoint, a run with a run
/// time and a ramp ends with the uninterrupted run's JSON.
#[test]
fn a_run_time_and_a_ramp_resume_byte_for_byte() {
    let c = config("runtime_ms = 10.0\nramp_ms = 2.0\n");
    let p = TimingParams {
        controller: ControllerParams {
            scheduler: Scheduler::ReadFirst,
            ..ControllerParams::default()
        },
        ..TimingParams::default()
    };
    let json = |r: &RunResult| serde_json::to_string_pretty(r).unwrap();
    let want = json(&run(&c, &p));
    let first = flow(&run(&c, &p)).ramp_requests.unwrap();
    let got = common::flows::resumed_json(&c, &p, &[first / 2, first + 3], "runtime");
    assert!(want.contains("\"ramp_requests\""));
    assert_eq!(want, got, "resumed run differs");
}
