//! fio drains a job's queue at the end of every pass (`loops`, `io_size` beyond a pass):
//! `do_io` reaps every request in flight before it returns (docs/flows.md; module
//! `workload::flows::drain`). Checked on a hand-worked schedule on one plane, by which
//! jobs the plan gives passes that drain, and by a resume from a checkpoint taken while a
//! flow drains.

mod common;

use common::flows::read_first_with_suspend;
use flashgc_core::metrics::result::FlowReport;
use flashgc_core::timing::TimingParams;
use flashgc_core::workload::fio::jobfile::{self, JobPlan};
use flashgc_core::workload::flows::{FlowSet, FlowSpec};
use flashgc_core::{Config, RunResult};

/// The device of [`common::configs::one_plane_hand`].
fn config() -> Config {
    common::configs::one_plane_hand()
}

/// The flows the job file `text` plans on the device of [`config`].
fn specs(text: &str) -> Vec<FlowSpec> {
    let l = config().layout().unwrap();
    let jf = jobfile::parse("d.fio", text).unwrap();
    match jf.plan(l.logical_pages, l.lpn_size, 5).unwrap() {
        JobPlan::Flows { specs, .. } => specs,
        JobPlan::Merged(_) => panic!("{text}: merged, not flows"),
    }
}

fn run(specs: Vec<FlowSpec>, p: &TimingParams) -> RunResult {
    let c = config();
    let l = c.layout().unwrap();
    let mut fs = FlowSet::new(specs, l.logical_pages, l.lpn_size).unwrap();
    common::flows::run_of(&c, p, &mut fs)
}

fn flow<'a>(r: &'a RunResult, name: &str) -> &'a FlowReport {
    r.flows
        .as_ref()
        .unwrap()
        .iter()
        .find(|f| f.name == name)
        .unwrap()
}

/// Job `a` reads 4 blocks at depth 2 (in passes of 2 with `loops=2`, else one pass); job
/// `b` reads 2 at depth 1; every read holds the one plane 60 us, served in arrival order.
///
/// At t = 0 the arrivals tie and go to the flow with fewer requests issued, then the lower
/// index: A1, B1, A2, run 0-60, 60-120, 120-180. A's slot frees at 60 and B's at 120.
///
/// * One pass (no drain): A3 arrives at 60, B2 at 120, A4 at 180 (A2's completion): they
///   run 180-240, 240-300, 300-360. B ends at 300 us; A's latencies are 60, 180, 180
///   (60 to 240), 180 (180 to 360): mean 150 us.
/// * Two passes: A2 ends A's first pass, so A3 waits for A2 too (180): B2 (120) runs first,
///   180-240, then A3 and A4 (both at 180), 240-300 and 300-360. B ends 60 us earlier, at
///   240 us; A's latencies are 60, 180, 120, 180: mean 135 us. The run still ends at 360.
#[test]
fn a_pass_boundary_waits_for_every_request_in_flight() {
    let b = "[b]\nioengine=libaio\nrw=randread\nbs=4k\nsize=8k\niodepth=1\n";
    let a = |pass: &str| {
        format!("[global]\nstartdelay=0\n[a]\nioengine=libaio\nrw=randread\nbs=4k\niodepth=2\n{pass}\n{b}")
    };
    let p = TimingParams::default();
    let two_passes = specs(&a("size=8k\nloops=2"));
    assert_eq!(two_passes[0].drain_every, Some(2));
    let one_pass = specs(&a("size=16k"));
    assert_eq!(one_pass[0].drain_every, None);
    for (s, b_end_us, a_mean_us) in [(one_pass, 300.0, 150.0), (two_passes, 240.0, 135.0)] {
        let r = run(s, &p);
        let (fa, fb) = (flow(&r, "a"), flow(&r, "b"));
        assert_eq!((fa.requests, fb.requests), (4, 2));
        assert_eq!(fb.active_ns as f64 / 1e3, b_end_us);
        assert_eq!(fa.active_ns, 360_000);
        let lat = fa.read_latency.as_ref().unwrap();
        assert_eq!((lat.mean_us, lat.max_us), (a_mean_us, 180.0));
    }
}

/// Alone on one plane, a drain changes when the next pass's requests are issued (their
/// latencies) but not when they complete: the plane serves the pass's last request before
/// the next pass's first either way. Two loops of 2 at depth 2: latencies 60, 120, 60, 120
/// (mean 90 us) instead of 60, 120, 120, 120 (mean 105 us); the span is 240 us both ways.
#[test]
fn alone_on_one_plane_a_drain_moves_issues_not_completions() {
    let mut s = specs("[r]\nioengine=libaio\nrw=randread\nbs=4k\nsize=8k\niodepth=2\nloops=2\n");
    let p = TimingParams::default();
    let drained = run(s.clone(), &p);
    s[0].drain_every = None;
    let undrained = run(s, &p);
    for (r, mean) in [(drained, 90.0), (undrained, 105.0)] {
        let f = flow(&r, "r");
        assert_eq!(f.active_ns, 240_000);
        assert_eq!(f.read_latency.as_ref().unwrap().mean_us, mean);
    }
}

/// Which jobs drain, and after how many requests: each pass of `loops` or of `io_size`
/// beyond a pass; not a single pass, a depth of 1 (a synchronous engine caps it there),
/// or `time_based` (fio's offsets wrap inside its one pass).
#[test]
fn passes_drain_where_fio_ends_do_io() {
    let job = |opts: &str| {
        specs(&format!(
            "[x]\nbs=4k\nsize=64k\n{}\n[other]\nrw=read\nsize=4k\n",
            opts.replace(' ', "\n")
        ))[0]
            .drain_every
    };
    for (opts, want) in [
        ("ioengine=libaio rw=randwrite iodepth=4 loops=3", Some(16)),
        ("ioengine=libaio rw=write iodepth=4 loops=2", Some(16)),
        (
            "ioengine=libaio rw=randwrite iodepth=4 io_size=160k",
            Some(16),
        ),
        // With replacement on an asynchronous engine: passes of `size` bytes, but a job
        // that writes passes over the larger of `size` and `io_size` (do_io's
        // `total_bytes`): one pass here.
        (
            "ioengine=libaio rw=randread norandommap iodepth=4 io_size=128k",
            Some(16),
        ),
        (
            "ioengine=libaio rw=randwrite norandommap iodepth=4 io_size=128k",
            None,
        ),
        ("ioengine=libaio rw=randwrite iodepth=4", None),
        ("ioengine=libaio rw=randwrite iodepth=1 loops=3", None),
        ("ioengine=psync rw=randwrite iodepth=4 loops=3", None),
        (
            "ioengine=libaio rw=randwrite iodepth=4 loops=3 time_based runtime=1",
            None,
        ),
    ] {
        assert_eq!(job(opts), want, "{opts}");
    }
}

/// A job with loops alone in its file runs as a host flow (each clone drains on its own),
/// not on the merged closed loop.
#[test]
fn a_lone_job_with_loops_runs_as_a_flow() {
    let s = specs(
        "[w]\nioengine=libaio\nrw=randwrite\nbs=4k\nsize=64k\niodepth=8\nnumjobs=2\nloops=2\n",
    );
    assert_eq!(s.len(), 2);
    assert!(s.iter().all(|f| f.drain_every == Some(16)));
}

/// Stopped right after a pass's last request (the flow drains) and mid-pass, and resumed
/// from its checkpoint each time, a draining flow ends with the uninterrupted run's JSON;
/// a run without the drain differs, so the saved drain state matters.
#[test]
fn a_draining_flow_resumes_byte_for_byte() {
    let s = specs(
        "[m]\nioengine=libaio\nrw=randrw\nrwmixwrite=70\nbs=4k\nsize=400k\niodepth=8\nloops=4\n\
         [r]\nioengine=libaio\nrw=randread\nbs=4k\nsize=1m\niodepth=2\nrate_iops=5000\n\
         stonewall\n",
    );
    assert_eq!(s[0].drain_every, Some(100));
    let c = config();
    let l = c.layout().unwrap();
    for p in [TimingParams::default(), read_first_with_suspend()] {
        let make = |s: &Vec<FlowSpec>| {
            let s = s.clone();
            move || FlowSet::new(s.clone(), l.logical_pages, l.lpn_size).unwrap()
        };
        let want = common::flows::resumed_json_of(&c, &p, &[], "drain-whole", &make(&s));
        // Stops right after the first pass's last request (the flow drains), mid-pass, and
        // after the third pass's last.
        let got = common::flows::resumed_json_of(&c, &p, &[100, 203, 300], "drain", &make(&s));
        assert_eq!(want, got, "resumed run differs");
        let mut undrained = s.clone();
        undrained[0].drain_every = None;
        let other = common::flows::resumed_json_of(&c, &p, &[], "drain-off", &make(&undrained));
        assert_ne!(want, other, "the drain changes nothing here");
    }
}
