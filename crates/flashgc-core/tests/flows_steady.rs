//! fio's steady-state detection in job files (`ss`, `ss_dur`, `ss_ramp`,
//! `group_reporting`; docs/flows.md, module `workload::flows::steady`), timed on a one-plane
//! device where a rate-capped reader completes exactly its rate each simulated second (a
//! read holds the plane 60 us, requests 10 ms apart): when a flow attains steady state,
//! the requests it issued by then, a flow that never does, a group, and a resume from a
//! checkpoint, under first-come-first-served and under read-first with suspend.

mod common;

use common::flows::read_first_with_suspend;
use flashgc_core::metrics::result::{FlowReport, SteadyStateReport};
use flashgc_core::timing::TimingParams;
use flashgc_core::workload::fio::jobfile::{self, JobPlan};
use flashgc_core::workload::flows::{FlowSet, FlowSpec};
use flashgc_core::RunResult;

fn specs(text: &str) -> Vec<FlowSpec> {
    let l = common::configs::one_plane_hand().layout().unwrap();
    let jf = jobfile::parse("f.fio", text).unwrap();
    match jf.plan(l.logical_pages, l.lpn_size, 5).unwrap() {
        JobPlan::Flows { specs, .. } => specs,
        JobPlan::Merged(_) => panic!("{text}: merged, not flows"),
    }
}

fn run(text: &str, p: &TimingParams) -> RunResult {
    let c = common::configs::one_plane_hand();
    let l = c.layout().unwrap();
    let mut fs = FlowSet::new(specs(text), l.logical_pages, l.lpn_size).unwrap();
    common::flows::run_of(&c, p, &mut fs)
}

fn schedulers() -> [TimingParams; 2] {
    [TimingParams::default(), read_first_with_suspend()]
}

fn steady(f: &FlowReport) -> &SteadyStateReport {
    f.steady_state.as_ref().expect("a steady-state section")
}

/// A reader at 100 IOPS for up to 20 s.
const READER: &str = "[global]\nrw=randread\nbs=4k\nrate_iops=100\nruntime=20s\ntime_based\n";

/// Every second holds 100 completions. With `ss_ramp=1` sampling starts one second after
/// the ramp: the first sample is taken at 2 s (the second [1 s, 2 s)); the window of 3 is
/// full at 4 s, with no deviation, so the flow issues nothing from 4 s on: 400 requests
/// (arrivals 0, 10 ms, ..., 3.99 s). A ramp of 1.5 s starts sampling at 3 s (3 s >= 2.5
/// s), so steady state comes at 5 s. `bw` checks the same window in bytes.
#[test]
fn a_steady_flow_stops_issuing_at_the_sample_that_attains_it() {
    for p in schedulers() {
        for (ss, ramp, at) in [
            ("iops:1", "1", 4),
            ("iops:1", "1500ms", 5),
            ("bw:1", "1", 4),
            ("iops_slope:0.01%", "0", 3),
            ("bw_slope:1", "0", 3),
        ] {
            let r = run(
                &format!("{READER}[a]\nss={ss}\nss_dur=3\nss_ramp={ramp}\n"),
                &p,
            );
            assert_eq!(r.ended_by, "steady_state", "{ss} {ramp}");
            let f = &r.flows.as_ref().unwrap()[0];
            assert_eq!(f.requests, 100 * at, "{ss} {ramp}");
            let s = steady(f);
            assert!(s.attained);
            assert_eq!(s.attained_ns, Some(at * 1_000_000_000));
            assert_eq!(s.samples, 3);
            assert_eq!(s.iops, [100, 100, 100]);
            assert_eq!(s.bw, [409_600; 3]);
            assert_eq!((s.iops_mean, s.bw_mean), (100, 409_600));
            assert_eq!((s.criterion, s.max_deviation, s.slope), (0.0, 0.0, 0.0));
        }
    }
}

/// A criterion that cannot hold (a deviation below 0): the flow runs its 5 s, sampled at
/// 1, 2, 3 and 4 s (not at its run time's end), and reports attained = false with the
/// last three samples.
#[test]
fn a_flow_that_never_attains_ends_by_its_runtime() {
    for p in schedulers() {
        let r = run(
            "[global]\nrw=randread\nbs=4k\nrate_iops=100\nruntime=5s\ntime_based\n\
             [a]\nss=iops:0\nss_dur=3\n",
            &p,
        );
        assert_eq!(r.ended_by, "runtime");
        let f = &r.flows.as_ref().unwrap()[0];
        assert_eq!(f.requests, 500);
        let s = steady(f);
        assert!(!s.attained);
        assert_eq!(s.attained_ns, None);
        assert_eq!(s.samples, 4);
        assert_eq!(s.iops, [100, 100, 100]);
        assert_eq!(s.criterion, 0.0);
        assert_eq!(s.ss, "iops:0.000000");
    }
}

/// Three readers at 100 IOPS: b stops after 150 requests (1.49 s). Each alone: c and a
/// are steady at 2 s (200 requests each); b, sampled once, is not. With
/// `group_reporting` the group is one unit sampled at its last job (a): 300 at 1 s (all
/// three), 200 at 2 s (b has no requests left), 200 at 3 s: steady at 3 s, which ends c
/// and a (300 requests each), and the group's section is on each of its flows.
#[test]
fn group_reporting_samples_and_ends_the_group() {
    let jobs = "[global]\nrw=randread\nbs=4k\nrate_iops=100\nruntime=20s\ntime_based\nss=iops:1\n\
                ss_dur=2\n{gr}[b]\nnumber_ios=150\ntime_based=0\n[c]\n[a]\n";
    for p in schedulers() {
        let r = run(&jobs.replace("{gr}", ""), &p);
        let f = r.flows.as_ref().unwrap();
        let n: Vec<u64> = f.iter().map(|f| f.requests).collect();
        assert_eq!(n, [150, 200, 200]);
        assert!(!steady(&f[0]).attained);
        assert_eq!(steady(&f[0]).samples, 1);
        assert_eq!(steady(&f[0]).iops, [100, 0]);
        assert!(steady(&f[1]).attained && steady(&f[2]).attained);
        let r = run(&jobs.replace("{gr}", "group_reporting\n"), &p);
        let f = r.flows.as_ref().unwrap();
        let n: Vec<u64> = f.iter().map(|f| f.requests).collect();
        assert_eq!(n, [150, 300, 300]);
        for f in f {
            let s = steady(f);
            assert!(s.attained && s.group_reporting);
            assert_eq!(s.attained_ns, Some(3_000_000_000));
            assert_eq!(s.samples, 3);
            assert_eq!(s.iops, [200, 200]);
        }
    }
}

/// Stopped mid-window, just before and after steady state, and resumed from the
/// checkpoint each time, the group ends with the uninterrupted run's JSON.
#[test]
fn steady_state_resumes_byte_for_byte() {
    let s = specs(
        "[global]\nrw=randread\nbs=4k\nrate_iops=100\nruntime=20s\ntime_based\nss=iops_slope:1%\n\
         ss_dur=2\ngroup_reporting\n[b]\nnumber_ios=150\ntime_based=0\n[c]\n[a]\n",
    );
    let c = common::configs::one_plane_hand();
    let l = c.layout().unwrap();
    for p in schedulers() {
        let make = || FlowSet::new(s.clone(), l.logical_pages, l.lpn_size).unwrap();
        let want = common::flows::resumed_json_of(&c, &p, &[], "steady-whole", &make);
        assert!(want.contains("\"attained\": true"), "{want}");
        let got = common::flows::resumed_json_of(&c, &p, &[120, 449, 701], "steady", &make);
        assert_eq!(want, got, "resumed run differs");
    }
}

/// `ss_dur` under a second is no detection at all (fio's window of 0 samples), and a
/// job file without the options has none.
#[test]
fn a_window_under_a_second_is_off() {
    assert!(specs(&format!("{READER}[a]\nss_dur=999ms\n"))[0]
        .steady
        .is_none());
    assert!(specs(&format!("{READER}[a]\n"))[0].steady.is_none());
    // fio's default criterion with ss_dur alone.
    let s = specs(&format!("{READER}[a]\nss_dur=1500ms\n"))[0]
        .steady
        .clone()
        .unwrap();
    assert_eq!(
        (s.describe(), s.dur),
        ("iops_slope:0.010000%".to_string(), 1)
    );
}
