//! A replayed trace's flush holds a queue slot in a closed loop (`--host closed`), from its
//! arrival until its completion, as an NVMe Flush command or a block-layer flush request
//! holds a submission-queue entry (`driver/host/flush.rs`, `Core::flush_next`). Timed by
//! hand on the one-plane device of [`common::configs::one_plane_hand`] with a 64-page
//! write cache: a cached write completes at once (no DRAM time on this device), a read
//! holds the plane 60 us (50 us + 10 us over the channel), a program 510 us (10 us + 500
//! us). LPNs 100 and 200 are mapped (the device is filled), so reading them takes the
//! plane. The traces are blkparse text written to a temporary file, one `D` event each.
//!
//! Also: resume from checkpoints with a flush in flight, byte for byte; `--trace-flushes
//! ignore` is the trace without its flushes; the streaming API (`flashgc serve`) holds no
//! slot for its flushes.

mod common;

use common::requests::Requests;
use flashgc_core::device::policy::Suspend;
use flashgc_core::driver::TimedSim;
use flashgc_core::timing::{Host, TimingParams};
use flashgc_core::workload::{Op, Request};
use flashgc_core::RunResult;
use flashgc_trace::{Flushes, TraceOptions};

/// blkparse text of `events` (RWBS and sectors; 8 sectors are one 4 KiB LPN), 1 ms apart
/// (a closed loop does not read the times).
fn blkparse(events: &[&str]) -> String {
    let mut s = String::new();
    for (i, e) in events.iter().enumerate() {
        s.push_str(&format!("  8,0 0 {} 0.{:03}000000 1 D {e} [a]\n", i + 1, i));
    }
    s
}

fn timing(read_first: bool, host: Host) -> TimingParams {
    common::configs::cached_timing(64, host, read_first)
}

/// Replays `text` (written to a file named `name`) closed loop at `qd` with the 64-page
/// cache, under fcfs or read-first.
fn replay(name: &str, text: &str, qd: u32, read_first: bool, flushes: Flushes) -> RunResult {
    let d = std::env::temp_dir().join(format!("flashgc-replay-slot-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let path = d.join(name);
    std::fs::write(&path, text).unwrap();
    let cfg = common::configs::one_plane_hand();
    let l = cfg.layout().unwrap();
    let opts = TraceOptions {
        flushes,
        ..TraceOptions::default()
    };
    let mut wl = flashgc_trace::open_workload(&path, &opts, l.lpn_size, l.logical_pages).unwrap();
    let p = timing(read_first, Host::ClosedLoop { queue_depth: qd });
    let mut sim = TimedSim::new(&cfg, p).unwrap();
    let r = sim.run(&mut *wl, &mut |_| {}).unwrap();
    let _ = std::fs::remove_file(&path);
    r
}

/// (requests, span us, flush latency us, read latencies (count, mean, max) us, writes'
/// max latency us, user pages programmed) of a result.
fn numbers(r: &RunResult) -> (u64, f64, f64, (u64, f64, f64), f64, u64) {
    let t = r.timing.as_ref().unwrap();
    assert_eq!(t.flushes, 1, "one flush, counted apart from the requests");
    let f = t.flush_latency.as_ref().unwrap();
    let rd = &t.read_latency;
    (
        t.requests,
        t.simulated_ns as f64 / 1e3,
        f.max_us,
        (rd.count, rd.mean_us, rd.max_us),
        t.write_latency.max_us,
        r.total.user_writes,
    )
}

/// QD 1: writes 7 and 3, read 100, a flush, write 9, read 200.
///
/// fcfs: W7 and W3 arrive at 0 and complete at 0 (cached); R100 arrives at 0, holds the
/// plane 0-60. The flush arrives at 60 (R100's completion frees the slot) and programs
/// the dirty pages 7 and 3 at 60-570 and 570-1080: it completes at 1080 (1020 us) and
/// holds the only slot until then. W9 arrives at 1080 (cached: 0 us), R200 at 1080 and
/// reads at 1080-1140 (60 us). The run spans 0-1140 us.
/// (Before a flush held a slot, W9 and R200 arrived at 60, and R200 waited behind both
/// programs: 60-1140, 1080 us.)
///
/// read-first: the same numbers. The flush's programs wait in the scheduler's queues, but
/// at QD 1 nothing else is queued while they do (the slot is the flush's), so there is
/// nothing for the scheduler to put before them.
#[test]
fn at_qd1_the_request_after_a_flush_waits_for_its_completion() {
    let text = blkparse(&[
        "W 56 + 8",
        "W 24 + 8",
        "R 800 + 8",
        "FN",
        "W 72 + 8",
        "R 1600 + 8",
    ]);
    for read_first in [false, true] {
        let r = replay("qd1.blkparse.txt", &text, 1, read_first, Flushes::Replay);
        assert_eq!(
            numbers(&r),
            (5, 1140.0, 1020.0, (2, 60.0, 60.0), 0.0, 2),
            "read-first {read_first}"
        );
    }
}

/// QD 2: writes 7, 3 and 9, a flush, write 2, reads 100 and 200.
///
/// fcfs: the three writes arrive at 0 and complete at 0 (cached). The flush arrives at 0
/// and programs 7, 3, 9 at 0-510, 510-1020, 1020-1530 (reserved at its arrival): it
/// completes at 1530 (1530 us), holding one slot; the other slot is free at 0. W2 arrives
/// at 0 while the flush is in flight (they overlap) and completes at 0 (cached, a page the
/// flush does not program). R100 arrives at 0 and waits for the programs: 1530-1590
/// (1590 us). The slots free at 1530 (the flush) and 1590 (R100): R200 arrives at 1530
/// and reads at 1590-1650 (120 us). Reads: mean 855 us, max 1590 us; span 1650 us.
/// (Before a flush held a slot, R200 arrived at 0: 1650 us.)
///
/// read-first: the numbers differ, because the flush's programs wait in the scheduler's
/// queues rather than being reserved at its arrival, and reads go first. W2 arrives at 0
/// and completes at 0, R100 arrives at 0 and is read at 0-60 before the programs (60
/// us). With both slots held (R100, the flush), R100's completion at 60 frees one: R200
/// arrives at 60, before the plane's next choice, and is read at 60-120 (60 us). The
/// programs run at 120-630, 630-1140, 1140-1650: the flush completes at 1650 (1650 us),
/// later than under fcfs, as the reads went before its programs. Span 1650 us.
#[test]
fn at_qd2_a_flush_and_a_write_overlap() {
    let events = [
        "W 56 + 8",
        "W 24 + 8",
        "W 72 + 8",
        "FN",
        "W 16 + 8",
        "R 800 + 8",
        "R 1600 + 8",
    ];
    let text = blkparse(&events);
    let r = replay("qd2.blkparse.txt", &text, 2, false, Flushes::Replay);
    assert_eq!(numbers(&r), (6, 1650.0, 1530.0, (2, 855.0, 1590.0), 0.0, 3));
    let r = replay("qd2.blkparse.txt", &text, 2, true, Flushes::Replay);
    assert_eq!(numbers(&r), (6, 1650.0, 1650.0, (2, 60.0, 60.0), 0.0, 3));
}

/// `--trace-flushes ignore` replays the trace as if it held no flush: its timing section
/// is the one of the same trace without the `FN` event (closed loop, both schedulers).
#[test]
fn ignored_flushes_replay_as_the_trace_without_them() {
    let with = ["W 56 + 8", "R 800 + 8", "FN", "W 16 + 8", "R 1600 + 8"];
    let without: Vec<&str> = with.iter().copied().filter(|e| *e != "FN").collect();
    for read_first in [false, true] {
        let timing = |r: RunResult| serde_json::to_string(&r.timing).unwrap();
        let a = replay(
            "ignore-a.blkparse.txt",
            &blkparse(&with),
            1,
            read_first,
            Flushes::Ignore,
        );
        assert_eq!(a.timing.as_ref().unwrap().flushes, 0);
        let b = replay(
            "ignore-b.blkparse.txt",
            &blkparse(&without),
            1,
            read_first,
            Flushes::Replay,
        );
        assert_eq!(timing(a), timing(b), "read-first {read_first}");
    }
}

fn req(op: Op, lpn: u64) -> Request {
    Request::untimed(op, lpn, 1)
}

fn flush() -> Request {
    Request::untimed(Op::Flush, 0, 0)
}

/// A closed-loop replay with flushes (and FUA writes) stopped at checkpoints just after a
/// flush (its programs in flight: under deferred commit still queued, its slot held) and
/// resumed from them writes the uninterrupted run's result byte for byte, at QD 1 and 4,
/// under fcfs, read-first and fcfs with program suspend (deferred commit too).
#[test]
fn a_closed_loop_replay_resumes_with_a_flush_in_flight() {
    use flashgc_core::driver::Engine;
    use flashgc_core::sim::{RunControl, RunEnd};
    let reqs: Vec<Request> = (0..2000u64)
        .map(|i| match i % 10 {
            4 => flush(),
            7 => Request {
                fua: true,
                ..req(Op::Write, i * 13 % 4096)
            },
            3 => req(Op::Read, i * 5 % 4096),
            _ => req(Op::Write, i * 13 % 4096),
        })
        .collect();
    let cfg = common::configs::one_plane_hand();
    let json = |r: &RunResult| serde_json::to_string(r).unwrap();
    for qd in [1, 4] {
        for (read_first, suspend) in [(false, false), (true, false), (false, true)] {
            let mut p = timing(read_first, Host::ClosedLoop { queue_depth: qd });
            if suspend {
                p.controller.suspend = Some(Suspend {
                    suspend_ns: 20_000,
                    resume_ns: 20_000,
                    max_per_op: 4,
                });
            }
            let mut run = |e: &mut Engine, ctl: &mut RunControl| {
                e.run_with(&mut Requests::new(reqs.clone()), &mut |_| {}, ctl)
                    .unwrap()
            };
            let mut e = Engine::new(&cfg, Some(p.clone())).unwrap();
            let RunEnd::Finished(want) = run(&mut e, &mut RunControl::default()) else {
                unreachable!("no stop requested")
            };
            let t = want.timing.as_ref().unwrap();
            assert_eq!((t.flushes, t.requests), (200, 1800));
            // Request 5 of each ten is a flush: stopped just after three of them, and
            // just before one.
            let tag = format!("replay-slot-{qd}-{read_first}-{suspend}");
            let got = common::resume::resumed(&cfg, &p, &[5, 1005, 1014, 1575], &tag, &mut run);
            assert!(
                json(&got) == json(&want),
                "QD {qd}, read-first {read_first}, suspend {suspend}: resumed result differs"
            );
        }
    }
}

/// The streaming API (`flashgc serve`'s NBD FLUSH) holds no slot for a flush, whatever
/// the timing parameters' host: with a closed loop at QD 1 configured, a write submitted
/// at 2 us, during a flush that arrived at 1 us and programs three dirty pages until
/// 1531 us, completes at once (cached), and every number of the session equals the one
/// of the same session with an open-loop host (fcfs and read-first).
#[test]
fn the_streaming_api_holds_no_slot_for_a_flush() {
    let at = |op, lpn, t| Request {
        time_ns: t,
        ..req(op, lpn)
    };
    let session = |read_first: bool, host: Host| {
        let mut d =
            TimedSim::new(&common::configs::one_plane_hand(), timing(read_first, host)).unwrap();
        d.start().unwrap();
        for (i, lpn) in [7u64, 3, 9].into_iter().enumerate() {
            d.submit(&at(Op::Write, lpn, i as u64)).unwrap();
        }
        let f = d.flush(1_000).unwrap();
        let w = d.submit(&at(Op::Write, 2, 2_000)).unwrap();
        if !read_first {
            assert_eq!((f, w), (Some(1_531_000), Some(2_000)));
        }
        let mut r = d.finish("session").unwrap();
        r.timing.as_mut().unwrap().host = Host::OpenLoop { time_scale: 1.0 };
        r.timing.as_mut().unwrap().params.host = Host::OpenLoop { time_scale: 1.0 };
        r.notes.clear();
        serde_json::to_string(&r).unwrap()
    };
    for read_first in [false, true] {
        let closed = session(read_first, Host::ClosedLoop { queue_depth: 1 });
        let open = session(read_first, Host::OpenLoop { time_scale: 1.0 });
        assert_eq!(closed, open, "read-first {read_first}");
        let v: serde_json::Value = serde_json::from_str(&closed).unwrap();
        assert_eq!(v["timing"]["flushes"], 1);
        assert_eq!(v["timing"]["flush_latency"]["max_us"], 1530.0);
        assert_eq!(v["timing"]["write_latency"]["max_us"], 0.0);
    }
}
