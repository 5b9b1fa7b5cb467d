//! Flushes and FUA writes of the streaming API (`Driver::flush`, `Driver::submit_fua`:
//! `flashgc serve`'s NBD FLUSH and FUA; `driver/host/flush.rs`), under fcfs and under
//! read-first (deferred commit), timed by hand on the
//! one-plane device of [`common::configs::one_plane_hand`]: a program holds the plane
//! 510 us (10 us over the channel, 500 us to program), one after another.

mod common;

use flashgc_core::device::policy::Scheduler;
use flashgc_core::driver::TimedSim;
use flashgc_core::timing::{Host, TimingParams};
use flashgc_core::workload::{Op, Request};

const PROGRAM_NS: u64 = 510_000;

fn sim(cache_pages: u64) -> TimedSim {
    let p = TimingParams {
        cache_pages,
        host: Host::OpenLoop { time_scale: 1.0 },
        ..TimingParams::default()
    };
    let mut d = TimedSim::new(&common::configs::one_plane_hand(), p).unwrap();
    d.start().unwrap();
    d
}

fn write(lpn: u64, t: u64) -> Request {
    Request {
        time_ns: t,
        op: Op::Write,
        lpn,
        pages: 1,
        content: 0,
        fua: false,
    }
}

fn programs(d: &TimedSim) -> u64 {
    d.simulation().ftl().counters.user_writes
}

/// With a 64-page cache, three writes complete in DRAM and program nothing; a flush at
/// 1 us programs the three dirty pages one after another: done at 1 us + 3 x 510 us. A
/// second flush at 2 us (the first's programs still running) waits for them; a third
/// after everything is done takes no time. The record counts the three flushes and their
/// latencies, beside (not among) the requests.
#[test]
fn a_flush_programs_the_caches_dirty_pages_and_waits_for_them() {
    let mut d = sim(64);
    let before = programs(&d);
    for (i, lpn) in [7u64, 3, 9].into_iter().enumerate() {
        let c = d.submit(&write(lpn, i as u64)).unwrap().unwrap();
        assert!(c < 1_000, "a cached write completes in DRAM: {c}");
    }
    assert_eq!(programs(&d), before, "cached: nothing programmed yet");
    let t = 1_000;
    assert_eq!(d.flush(t).unwrap(), Some(t + 3 * PROGRAM_NS));
    assert_eq!(programs(&d), before + 3);
    assert_eq!(d.flush(2_000).unwrap(), Some(t + 3 * PROGRAM_NS));
    let late = 10 * PROGRAM_NS;
    assert_eq!(d.flush(late).unwrap(), Some(late));
    assert_eq!(
        programs(&d),
        before + 3,
        "clean pages are not programmed again"
    );
    let r = d.finish("streamed").unwrap();
    let tr = r.timing.as_ref().unwrap();
    assert_eq!((tr.flushes, tr.requests, tr.fua_writes), (3, 3, 0));
    let l = tr.flush_latency.as_ref().unwrap();
    assert_eq!(l.count, 3);
    assert_eq!(l.max_us, 1530.0);
    assert_eq!(tr.cache.as_ref().unwrap().dirty_at_end, 0);
    assert_eq!(r.total.user_writes, 3);
}

/// Without a cache a write completes when its program does (510 us), and a flush at 1 us
/// completes when that earlier write has; one after it takes no time.
#[test]
fn without_a_cache_a_flush_waits_for_the_earlier_writes() {
    let mut d = sim(0);
    assert_eq!(d.submit(&write(5, 0)).unwrap(), Some(PROGRAM_NS));
    assert_eq!(d.flush(1_000).unwrap(), Some(PROGRAM_NS));
    assert_eq!(d.flush(PROGRAM_NS + 5).unwrap(), Some(PROGRAM_NS + 5));
    let tr = d.finish("streamed").unwrap().timing.unwrap();
    assert_eq!(tr.flushes, 2);
    assert_eq!(tr.flush_latency.unwrap().max_us, 509.0);
}

/// A FUA write with the cache completes when its own page is programmed (510 us), the
/// other dirty page staying cached; a plain write does not wait. The write latency
/// records the FUA write's 510 us.
#[test]
fn a_fua_write_programs_its_own_pages() {
    let mut d = sim(64);
    let before = programs(&d);
    let plain = d.submit(&write(1, 0)).unwrap().unwrap();
    assert!(plain < 1_000);
    assert_eq!(d.submit_fua(&write(2, 0)).unwrap(), Some(PROGRAM_NS));
    assert_eq!(programs(&d), before + 1);
    // A FUA write of a page already clean in the cache (a hit that dirties it again)
    // programs it again, after the plane's previous program.
    assert_eq!(d.submit_fua(&write(2, 10)).unwrap(), Some(2 * PROGRAM_NS));
    let r = d.finish("streamed").unwrap();
    let tr = r.timing.as_ref().unwrap();
    assert_eq!((tr.fua_writes, tr.write_requests, tr.flushes), (2, 3, 0));
    assert!(tr.flush_latency.is_none());
    assert_eq!(tr.write_latency.max_us, (2 * PROGRAM_NS - 10) as f64 / 1e3);
    assert_eq!(tr.cache.as_ref().unwrap().dirty_at_end, 1);
}

/// Under read-first completions are decided by later arrivals: flushes and FUA writes
/// return None and enter the record once final. Three cached writes; a flush at 1 us
/// queues their programs; a read of a flash page at 2 us waits for the program running
/// (until 511 us) and then goes before the other two (511-571 us: 569 us), which end at
/// 1081 and 1591 us: the flush's latency is 1590 us. A second flush at 3 us has nothing
/// to program but waits for the first (1588 us). A FUA write at 2 ms programs its own page
/// (2000-2510 us: 510 us).
#[test]
fn under_read_first_flushes_wait_in_the_queues_and_complete_later() {
    let mut p = TimingParams {
        cache_pages: 64,
        host: Host::OpenLoop { time_scale: 1.0 },
        ..TimingParams::default()
    };
    p.controller.scheduler = Scheduler::ReadFirst;
    let mut d = TimedSim::new(&common::configs::one_plane_hand(), p).unwrap();
    d.start().unwrap();
    let before = programs(&d);
    for (i, lpn) in [7u64, 3, 9].into_iter().enumerate() {
        assert_eq!(d.submit(&write(lpn, i as u64)).unwrap(), None);
    }
    assert_eq!(d.flush(1_000).unwrap(), None);
    let read = Request {
        op: Op::Read,
        ..write(100, 2_000)
    };
    assert_eq!(d.submit(&read).unwrap(), None);
    assert_eq!(d.flush(3_000).unwrap(), None);
    assert_eq!(d.submit_fua(&write(2, 2_000_000)).unwrap(), None);
    let r = d.finish("streamed").unwrap();
    assert_eq!(programs(&d) - before, 4);
    let tr = r.timing.as_ref().unwrap();
    assert_eq!((tr.flushes, tr.fua_writes, tr.requests), (2, 1, 5));
    let l = tr.flush_latency.as_ref().unwrap();
    assert_eq!((l.max_us, l.mean_us), (1590.0, 1589.0));
    assert_eq!(tr.read_latency.max_us, 569.0);
    assert_eq!(tr.write_latency.max_us, 510.0);
    assert_eq!(tr.cache.as_ref().unwrap().dirty_at_end, 0);
}
