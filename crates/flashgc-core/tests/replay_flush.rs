//! A replayed workload's flushes and FUA writes ([`Op::Flush`] requests and
//! [`Request::fua`]: what trace replay hands the simulator for blkparse `FN` / `WF`, fio
//! `sync` and `.fgt` flush records) reach the write cache through the streaming API's code
//! (`driver/host/flush.rs`), timed by hand on the one-plane device of
//! [`common::configs::one_plane_hand`] (a program holds the plane 510 us): the schedules
//! of `tests/streaming_flush.rs`, replayed as a request list.

mod common;

use common::requests::Requests;
use flashgc_core::driver::TimedSim;
use flashgc_core::timing::{Host, TimingParams};
use flashgc_core::workload::{Op, Request};
use flashgc_core::RunResult;

const PROGRAM_NS: u64 = 510_000;
const MS: u64 = 1_000_000;

fn req(op: Op, lpn: u64, t: u64) -> Request {
    Request {
        time_ns: t,
        op,
        lpn,
        pages: 1,
        content: 0,
        fua: false,
    }
}

fn write(lpn: u64, t: u64) -> Request {
    req(Op::Write, lpn, t)
}

fn fua(lpn: u64, t: u64) -> Request {
    Request {
        fua: true,
        ..write(lpn, t)
    }
}

fn flush(t: u64) -> Request {
    Request {
        time_ns: t,
        ..Request::untimed(Op::Flush, 0, 0)
    }
}

/// Replays `reqs` open loop at their times with a write cache of `cache_pages` pages
/// (`read_first`: under the read-first scheduler, deferred commit); returns the result
/// and the user pages programmed.
fn replay(reqs: Vec<Request>, cache_pages: u64, read_first: bool) -> (RunResult, u64) {
    let p =
        common::configs::cached_timing(cache_pages, Host::OpenLoop { time_scale: 1.0 }, read_first);
    let mut d = TimedSim::new(&common::configs::one_plane_hand(), p).unwrap();
    let r = d.run(&mut Requests::new(reqs), &mut |_| {}).unwrap();
    let programs = r.total.user_writes;
    (r, programs)
}

/// Three writes stay in the cache; the flush at 1 us programs them one after another and
/// completes at 1 us + 3 x 510 us (latency 1530 us). A FUA write at 10 ms programs its own
/// page: 510 us. A flush at 20 ms finds nothing dirty: latency 0. The flushes count apart
/// from the four requests.
#[test]
fn a_replayed_flush_programs_the_cache_and_a_fua_write_its_own_page() {
    let reqs = vec![
        write(7, 0),
        write(3, 1),
        write(9, 2),
        flush(1_000),
        fua(2, 10 * MS),
        flush(20 * MS),
    ];
    let (r, programs) = replay(reqs, 64, false);
    assert_eq!(programs, 4);
    let tr = r.timing.as_ref().unwrap();
    assert_eq!((tr.flushes, tr.fua_writes, tr.requests), (2, 1, 4));
    let l = tr.flush_latency.as_ref().unwrap();
    let us = |ns: u64| ns as f64 / 1e3;
    assert_eq!((l.count, l.max_us, l.mean_us), (2, 1530.0, 765.0));
    assert_eq!(l.max_us, us(3 * PROGRAM_NS));
    assert_eq!(tr.write_latency.max_us, us(PROGRAM_NS));
    assert_eq!(tr.cache.as_ref().unwrap().dirty_at_end, 0);
}

/// The same writes without the flush and the FUA flag: everything stays in the cache
/// (what replay did before flushes were read, and does with `--trace-flushes ignore`).
#[test]
fn without_the_flushes_the_writes_stay_cached() {
    let reqs = vec![write(7, 0), write(3, 1), write(9, 2), write(2, 10 * MS)];
    let (r, programs) = replay(reqs, 64, false);
    assert_eq!(programs, 0);
    let tr = r.timing.as_ref().unwrap();
    assert_eq!((tr.flushes, tr.fua_writes), (0, 0));
    assert!(tr.flush_latency.is_none());
    assert_eq!(tr.cache.as_ref().unwrap().dirty_at_end, 4);
}

/// Without a cache a write completes when its program does (510 us); a flush at 1 us
/// waits for it: 509 us.
#[test]
fn without_a_cache_a_replayed_flush_waits_for_the_earlier_writes() {
    let (r, programs) = replay(vec![write(5, 0), flush(1_000)], 0, false);
    assert_eq!(programs, 1);
    let tr = r.timing.unwrap();
    assert_eq!(tr.flushes, 1);
    assert_eq!(tr.flush_latency.unwrap().max_us, 509.0);
}

/// Under read-first (deferred commit) the streaming test's session replayed: the flush's
/// programs wait in the scheduler's queues, the read at 2 us goes before two of them
/// (569 us), the flush completes at 1591 us (1590 us), a second flush at 3 us waits for
/// it (1588 us), and a FUA write at 2 ms programs its own page (510 us).
#[test]
fn under_read_first_a_replayed_flush_waits_in_the_queues() {
    let reqs = vec![
        write(7, 0),
        write(3, 1),
        write(9, 2),
        flush(1_000),
        req(Op::Read, 100, 2_000),
        flush(3_000),
        fua(2, 2 * MS),
    ];
    let (r, programs) = replay(reqs, 64, true);
    assert_eq!(programs, 4);
    let tr = r.timing.as_ref().unwrap();
    assert_eq!((tr.flushes, tr.fua_writes, tr.requests), (2, 1, 5));
    let l = tr.flush_latency.as_ref().unwrap();
    assert_eq!((l.max_us, l.mean_us), (1590.0, 1589.0));
    assert_eq!(tr.read_latency.max_us, 569.0);
    assert_eq!(tr.write_latency.max_us, 510.0);
    assert_eq!(tr.cache.as_ref().unwrap().dirty_at_end, 0);
}

/// WAF-only there is no write cache: a flush changes nothing and a FUA write is a write.
#[test]
fn untimed_a_flush_changes_nothing() {
    let cfg = common::configs::one_plane_hand();
    let run = |reqs: Vec<Request>| {
        let mut ctl = flashgc_core::sim::RunControl::default();
        let end = flashgc_core::driver::run(
            &cfg,
            None,
            &mut Requests::new(reqs),
            None,
            &mut |_| {},
            &mut ctl,
        )
        .unwrap();
        match end {
            flashgc_core::sim::RunEnd::Finished(r) => r,
            flashgc_core::sim::RunEnd::Stopped { partial, .. } => partial,
        }
    };
    let with = run(vec![write(7, 0), flush(1), fua(3, 2), flush(3)]);
    let without = run(vec![write(7, 0), write(3, 2)]);
    assert_eq!(with.total.user_writes, 2);
    assert_eq!(with.total, without.total);
}

/// The result of replaying `reqs` on `cfg` with `p` without a stop.
fn uninterrupted(cfg: &flashgc_core::Config, p: &TimingParams, reqs: &[Request]) -> RunResult {
    use flashgc_core::driver::Engine;
    use flashgc_core::sim::{RunControl, RunEnd};
    let mut e = Engine::new(cfg, Some(p.clone())).unwrap();
    match e
        .run_with(
            &mut Requests::new(reqs.to_vec()),
            &mut |_| {},
            &mut RunControl::default(),
        )
        .unwrap()
    {
        RunEnd::Finished(r) => r,
        RunEnd::Stopped { .. } => unreachable!("no stop requested"),
    }
}

/// A replay with flushes and FUA writes stopped at checkpoints (a flush's programs in
/// flight among them under read-first) and resumed from them writes the uninterrupted
/// run's result byte for byte: the flush counts, latencies and writes-done time are in
/// the checkpoint (format version 9), with the flushes in flight under deferred commit.
#[test]
fn a_replay_with_flushes_resumes_byte_for_byte() {
    let reqs: Vec<Request> = (0..3000u64)
        .map(|i| {
            let t = i * 300_000;
            match i % 10 {
                4 => flush(t),
                7 => fua(i * 13 % 4096, t),
                3 => req(Op::Read, i * 5 % 4096, t),
                _ => write(i * 13 % 4096, t),
            }
        })
        .collect();
    let cfg = common::configs::one_plane_hand();
    let json = |r: &RunResult| serde_json::to_string(r).unwrap();
    for read_first in [false, true] {
        let p = common::configs::cached_timing(64, Host::OpenLoop { time_scale: 1.0 }, read_first);
        let want = json(&uninterrupted(&cfg, &p, &reqs));
        let v: serde_json::Value = serde_json::from_str(&want).unwrap();
        assert_eq!(v["timing"]["flushes"], 300, "{}", v["timing"]);
        assert_eq!(v["timing"]["fua_writes"], 300);
        // Stops just before and after a flush (request 5 of each ten is one).
        let got = common::resume::resumed(
            &cfg,
            &p,
            &[1004, 1005, 2201],
            &format!("replay-flush-{read_first}"),
            &mut |e, ctl| {
                e.run_with(&mut Requests::new(reqs.clone()), &mut |_| {}, ctl)
                    .unwrap()
            },
        );
        let got = json(&got);
        assert!(
            got == want,
            "read-first {read_first}: resumed result differs"
        );
    }
}

/// A workload that hands out no flushes or FUA writes ([`Workload::may_flush`] false) is
/// served by the batch loop without their tests: the same result, byte for byte, as
/// through the loop with them, WAF-only and timed (open and closed loop, fcfs and
/// read-first, with a write cache).
#[test]
fn a_workload_without_flushes_gives_the_same_result_through_either_loop() {
    use flashgc_core::driver::Engine;
    use flashgc_core::sim::{RunControl, RunEnd};
    use flashgc_core::workload::Workload;
    let reqs: Vec<Request> = (0..3000u64)
        .map(|i| match i % 5 {
            3 => req(Op::Read, i * 7 % 4096, i * 300_000),
            4 if i % 3 == 0 => req(Op::Trim, i * 11 % 4096, i * 300_000),
            _ => write(i * 13 % 4096, i * 300_000),
        })
        .collect();
    assert!(Requests::new(vec![]).may_flush());
    assert!(!Requests::without_flushes(vec![]).may_flush());
    let cfg = common::configs::one_plane_hand();
    let timed =
        |host: Host, read_first: bool| Some(common::configs::cached_timing(64, host, read_first));
    let open = Host::OpenLoop { time_scale: 1.0 };
    let closed = Host::ClosedLoop { queue_depth: 4 };
    for timing in [
        None,
        timed(open, false),
        timed(closed, false),
        timed(open, true),
        timed(closed, true),
    ] {
        let run = |w: &mut Requests| {
            let mut e = Engine::new(&cfg, timing.clone()).unwrap();
            match e
                .run_with(w, &mut |_| {}, &mut RunControl::default())
                .unwrap()
            {
                RunEnd::Finished(r) => serde_json::to_string(&r).unwrap(),
                RunEnd::Stopped { .. } => unreachable!("no stop requested"),
            }
        };
        let with = run(&mut Requests::new(reqs.clone()));
        let without = run(&mut Requests::without_flushes(reqs.clone()));
        assert!(with == without, "{timing:?}: the results differ");
        // Every request was served: 2200 writes (600 reads, 200 trims).
        let v: serde_json::Value = serde_json::from_str(&with).unwrap();
        match timing {
            None => assert_eq!(v["total"]["user_writes"], 2200),
            Some(_) => assert_eq!(v["timing"]["write_requests"], 2200, "{timing:?}"),
        }
    }
}

/// A flush from a workload that said it hands out none is an error naming the request,
/// not a request served without pages (nor skipped), WAF-only and timed.
#[test]
fn a_flush_from_a_workload_without_flushes_is_an_error() {
    use flashgc_core::driver::Engine;
    use flashgc_core::sim::RunControl;
    let cfg = common::configs::one_plane_hand();
    let timing = TimingParams {
        host: Host::OpenLoop { time_scale: 1.0 },
        ..TimingParams::default()
    };
    for timing in [None, Some(timing)] {
        let mut e = Engine::new(&cfg, timing.clone()).unwrap();
        let mut w = Requests::without_flushes(vec![write(1, 0), write(2, 1), flush(2)]);
        let err = e
            .run_with(&mut w, &mut |_| {}, &mut RunControl::default())
            .err()
            .unwrap_or_else(|| panic!("{timing:?}: the flush was served"))
            .to_string();
        assert!(
            err.contains("request 3: a flush from a workload that hands out none"),
            "{timing:?}: {err}"
        );
    }
}

/// An overloaded open-loop replay (a request every 100 us, a program takes 510 us) keeps
/// hundreds of flushes in flight, each waiting for the requests before it: stopped at
/// checkpoints deep in that backlog and resumed (the flushes' waits rebuilt from the
/// checkpoint into the frontier of `deferred/flushes.rs`), it writes the uninterrupted
/// run's result byte for byte.
#[test]
fn an_overloaded_replay_resumes_with_hundreds_of_flushes_in_flight() {
    let reqs: Vec<Request> = (0..4000u64)
        .map(|i| {
            let t = i * 100_000;
            match i % 5 {
                2 => flush(t),
                4 => req(Op::Read, i * 7 % 4096, t),
                _ => write(i * 13 % 4096, t),
            }
        })
        .collect();
    let cfg = common::configs::one_plane_hand();
    let json = |r: &RunResult| serde_json::to_string(r).unwrap();
    let p = common::configs::cached_timing(16, Host::OpenLoop { time_scale: 1.0 }, true);
    let want = json(&uninterrupted(&cfg, &p, &reqs));
    let v: serde_json::Value = serde_json::from_str(&want).unwrap();
    assert_eq!(v["timing"]["flushes"], 800, "{}", v["timing"]);
    // The backlog: a flush waits on average for seconds (hundreds of them in flight).
    let mean = v["timing"]["flush_latency"]["mean_us"].as_f64().unwrap();
    assert!(
        mean > 100_000.0,
        "not overloaded: mean flush latency {mean} us"
    );
    let got = common::resume::resumed(
        &cfg,
        &p,
        &[1502, 2603, 3997],
        "replay-flush-overloaded",
        &mut |e, ctl| {
            e.run_with(&mut Requests::new(reqs.clone()), &mut |_| {}, ctl)
                .unwrap()
        },
    );
    assert!(json(&got) == want, "resumed result differs");
}
