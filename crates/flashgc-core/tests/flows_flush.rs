//! Flushes of fio job files (`fsync=N`, `fdatasync=N`, `end_fsync=1`; docs/flows.md,
//! module `workload::flows::flush`): when a flow issues them, what they wait for on a
//! one-plane device with and without the DRAM write cache, the cache's dirty bits, and a
//! resume from a checkpoint.

mod common;

use flashgc_core::metrics::result::FlowReport;
use flashgc_core::timing::TimingParams;
use flashgc_core::workload::fio::jobfile::{self, JobPlan};
use flashgc_core::workload::flows::{FlowSet, FlowSpec};
use flashgc_core::{Config, RunResult};

/// The device of [`common::configs::one_plane_hand`].
fn config() -> Config {
    common::configs::one_plane_hand()
}

fn plan(text: &str) -> flashgc_core::Result<Vec<FlowSpec>> {
    let l = config().layout().unwrap();
    let jf = jobfile::parse("f.fio", text)?;
    match jf.plan(l.logical_pages, l.lpn_size, 5)? {
        JobPlan::Flows { specs, .. } => Ok(specs),
        JobPlan::Merged(_) => panic!("{text}: merged, not flows"),
    }
}

fn specs(text: &str) -> Vec<FlowSpec> {
    plan(text).unwrap()
}

/// Runs `specs` with a write cache of `cache_pages` pages (0: none).
fn run(specs: Vec<FlowSpec>, cache_pages: u64) -> RunResult {
    run_bounded(specs, cache_pages, None)
}

/// [`run`] ended by a data volume (bytes), as a job file's run is by its jobs' volume.
fn run_bounded(specs: Vec<FlowSpec>, cache_pages: u64, volume: Option<u64>) -> RunResult {
    let c = config();
    let l = c.layout().unwrap();
    let mut fs = FlowSet::new(specs, l.logical_pages, l.lpn_size).unwrap();
    let p = TimingParams {
        cache_pages,
        data_volume_bytes: volume,
        ..TimingParams::default()
    };
    common::flows::run_of(&c, &p, &mut fs)
}

fn flow(r: &RunResult) -> &FlowReport {
    &r.flows.as_ref().unwrap()[0]
}

/// The flows' JSON and the flash programs of `s` on `c` under controller `p` with a
/// write cache of `cache_pages`.
fn flows_and_programs(
    c: &Config,
    s: &[FlowSpec],
    cache_pages: u64,
    p: TimingParams,
) -> (String, u64) {
    let l = c.layout().unwrap();
    let mut fs = FlowSet::new(s.to_vec(), l.logical_pages, l.lpn_size).unwrap();
    let p = TimingParams { cache_pages, ..p };
    let r = common::flows::run_of(c, &p, &mut fs);
    (
        serde_json::to_string(&r.flows).unwrap(),
        r.total.flash_programs,
    )
}

fn writer(opts: &str) -> String {
    format!(
        "[w]\nioengine=libaio\nrw=write\nbs=4k\n{}\n",
        opts.replace(' ', "\n")
    )
}

/// Six writes at depth 2 with `fsync=2`, no cache. W1 and W2 go at 0 and complete at
/// 510 and 1020 us. After W2 the flush goes when a slot frees (510) and completes when
/// the flow's earlier writes have (1020): 510 us. The flow issues nothing before it, so
/// W3 and W4 go at 1020 (done 1530, 2040), the second flush at 1530 (done 2040, 510 us),
/// W5 and W6 at 2040 (done 2550, 3060). The sync due after W6 is not issued: the job
/// ends first (fio's do_io stops at its volume). Write latencies 510, 1020, 510, 1020,
/// 510, 1020: mean 765 us, where the job without flushes has 510, then 1020 five times.
#[test]
fn fsync_waits_for_the_flows_earlier_writes_and_blocks_the_flow() {
    for (opts, flushes, mean_us) in [("size=24k fsync=2", 2, 765.0), ("size=24k", 0, 935.0)] {
        // A second job after it (stonewall) makes the lone job without flushes a flow.
        let after = "[o]\nrw=read\nbs=4k\nsize=4k\nstonewall\n";
        let s = specs(&format!("{}{after}", writer(&format!("iodepth=2 {opts}"))));
        let r = run(s, 0);
        let f = flow(&r);
        assert_eq!(f.active_ns, 3_060_000, "{opts}");
        assert_eq!(f.flushes, flushes, "{opts}");
        assert_eq!(f.write_latency.as_ref().unwrap().mean_us, mean_us, "{opts}");
        if flushes > 0 {
            let l = f.flush_latency.as_ref().unwrap();
            assert_eq!((l.mean_us, l.max_us), (510.0, 510.0));
        } else {
            assert!(f.flush_latency.is_none());
        }
    }
    // fdatasync is the same flush command to a block device.
    let s = specs(&writer("iodepth=2 size=24k fdatasync=2"));
    assert_eq!(flow(&run(s, 0)).flushes, 2);
}

/// `end_fsync` flushes after each pass's drain and after the last request; without a
/// cache every write it waits for has completed by then, so it takes no time.
#[test]
fn end_fsync_flushes_after_each_pass_without_a_cache_at_once() {
    let s = specs(&writer("iodepth=2 size=8k loops=2 end_fsync=1"));
    assert_eq!(s[0].drain_every, Some(2));
    let r = run(s, 0);
    let f = flow(&r);
    assert_eq!(f.flushes, 2);
    assert_eq!(f.flush_latency.as_ref().unwrap().max_us, 0.0);
    // Two passes of two writes, the second after the first's drain: 2040 us as without
    // flushes (the plane is busy throughout).
    assert_eq!(f.active_ns, 2_040_000);
}

/// With the write cache, writes complete in DRAM and the flush programs the dirty pages:
/// four pages, one after another on the plane, 4 x 510 = 2040 us after the flush goes.
/// The end flush comes also when the last write ends the run's data volume (as the CLI
/// bounds a job file's run).
#[test]
fn with_the_cache_a_flush_programs_the_dirty_pages() {
    for volume in [None, Some(16 << 10)] {
        let s = specs(&writer("iodepth=2 size=16k end_fsync=1"));
        let r = run_bounded(s, 64, volume);
        let end = if volume.is_some() {
            "data_volume"
        } else {
            "workload_end"
        };
        assert_eq!(r.ended_by, end);
        let f = flow(&r);
        assert_eq!(f.flushes, 1, "{volume:?}");
        assert_eq!(f.flush_latency.as_ref().unwrap().max_us, 2040.0);
        assert_eq!(r.total.flash_programs, 4);
        let w = f.write_latency.as_ref().unwrap();
        assert!(w.max_us < 10.0, "writes complete in DRAM: {w:?}");
        assert!(r.notes.iter().all(|n| !n.contains("dirty cached pages")));
    }
}

/// A flushed page stays cached, clean: evicting it writes nothing. A cache of 4 pages,
/// 8 sequential writes at depth 1 with `fsync=4` and `end_fsync=1`: the first flush
/// programs pages 0-3, writes 4-7 evict them clean, the end flush programs 4-7: 8
/// programs (12 if evictions wrote the clean pages again).
#[test]
fn evicting_a_flushed_page_writes_nothing() {
    let s = specs(&writer("iodepth=1 size=32k fsync=4 end_fsync=1"));
    let r = run(s, 4);
    assert_eq!(flow(&r).flushes, 2);
    assert_eq!(r.total.flash_programs, 8);
    assert_eq!(r.total.user_writes, 8);
}

/// Stopped and resumed from its checkpoint, a flushing flow beside a reading one (with
/// and without the cache, whose dirty bits are saved; under fcfs, and under deferred
/// commit with a flush pending at some stops, the reader going on meanwhile) ends with
/// the uninterrupted run's JSON.
#[test]
fn a_flushing_flow_resumes_byte_for_byte() {
    let s = specs(
        "[m]\nioengine=libaio\nrw=randrw\nrwmixwrite=70\nbs=4k\nsize=400k\niodepth=8\nloops=3\n\
         fsync=16\nend_fsync=1\nfsync_on_close=1\nsync=1\n[r]\nioengine=libaio\nrw=randread\nbs=4k\nsize=400k\niodepth=2\n",
    );
    assert_eq!((s[0].flush_every, s[0].end_flush), (Some(16), true));
    let c = config();
    let l = c.layout().unwrap();
    for (cache_pages, p) in [
        (0, TimingParams::default()),
        (64, TimingParams::default()),
        (0, common::flows::read_first_with_suspend()),
        (64, common::flows::read_first_with_suspend()),
    ] {
        let p = TimingParams { cache_pages, ..p };
        let make = || FlowSet::new(s.clone(), l.logical_pages, l.lpn_size).unwrap();
        let want = common::flows::resumed_json_of(&c, &p, &[], "flush-whole", &make);
        // Many stops: under deferred commit some fall while a flush is pending.
        let stops = [37, 100, 151, 199, 257, 301];
        let got = common::flows::resumed_json_of(&c, &p, &stops, "flush", &make);
        assert!(want.contains("\"flushes\""));
        assert_eq!(want, got, "resumed run differs (cache {cache_pages})");
    }
}

/// What is refused, and jobs that do not flush.
#[test]
fn flushes_fio_would_not_issue_so_are_refused_or_absent() {
    for (text, what) in [
        (
            writer("ioengine=io_uring_cmd iodepth=4 size=64k fsync=8"),
            "ENOTSUP",
        ),
        (
            writer("ioengine=nbd iodepth=4 size=64k fdatasync=8"),
            "EINVAL",
        ),
        (
            writer("ioengine=external:/x.so iodepth=4 size=64k fsync=8"),
            "not in fio 3.33's source",
        ),
        (writer("size=64k fsync=8 fdatasync=4"), "set one of them"),
        (writer("size=64k sync=yes"), "none, 0, sync, 1, dsync"),
        (writer("size=64k sync_file_range=write:8"), "not modelled"),
        (writer("size=64k write_barrier=x"), "write_barrier"),
    ] {
        let e = plan(&text).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains(what) && e.contains("f.fio:"), "{text}: {e}");
    }
    // fio's should_fsync: a job that does not write never syncs.
    let s =
        specs("[r]\nrw=randread\nbs=4k\nsize=64k\nend_fsync=1\nfsync=2\n[o]\nrw=write\nsize=4k\n");
    assert_eq!((s[0].flush_every, s[0].end_flush), (None, false));
    // Engines that queue their syncs, and fsync_on_close as end flushes.
    let s = specs(&writer("ioengine=io_uring iodepth=4 size=64k fsync=8"));
    assert!(s[0].queued_flush);
    assert!(!specs(&writer("iodepth=4 size=64k fsync=8"))[0].queued_flush);
    let s = specs(&writer("size=64k fsync_on_close=1 sync=dsync"));
    assert!(s[0].end_flush && s[0].close_flush && s[0].sync_writes);
}

/// Under deferred commit (read-first with suspend) a flow that only writes has nothing
/// to reorder: its flushes, with and without the cache, come out as under fcfs.
#[test]
fn under_deferred_commit_a_writing_flow_flushes_as_under_fcfs() {
    let c = config();
    for (opts, cache_pages, flushes) in [
        ("iodepth=2 size=24k fsync=2", 0, 2),
        ("iodepth=2 size=8k loops=2 end_fsync=1", 0, 2),
        ("iodepth=2 size=16k end_fsync=1", 64, 1),
        ("iodepth=1 size=32k fsync=4 end_fsync=1", 4, 2),
        ("iodepth=4 size=64k fsync=3 end_fsync=1", 8, 6),
        ("iodepth=2 size=16k loops=3 fsync=2 fsync_on_close=1", 8, 8),
        (
            "iodepth=2 size=16k loops=2 fsync=3 end_fsync=1 fsync_on_close=1",
            0,
            5,
        ),
        ("iodepth=3 size=24k sync=1 end_fsync=1", 16, 1),
    ] {
        let s = specs(&writer(opts));
        let flows_of = |p| flows_and_programs(&c, &s, cache_pages, p);
        let fcfs = flows_of(TimingParams::default());
        let deferred = flows_of(common::flows::read_first_with_suspend());
        assert!(
            fcfs.0.contains(&format!("\"flushes\":{flushes}")),
            "{opts}: {}",
            fcfs.0
        );
        assert_eq!(fcfs, deferred, "{opts}, cache {cache_pages}");
    }
}

/// Read-first reorders a flush's programs behind reads. The writer's four writes
/// complete in the cache at 0 and its end flush programs them from 0; a reader (depth
/// 1, two reads of flash pages) starts at 100 us. fcfs: the programs hold the plane
/// 0-2040 us (flush 2040 us), the reads follow (2040-2100, 2100-2160: 2000 and 60 us,
/// mean 1030). Read-first without suspend: the first read waits for the program running
/// (510-570, 470 us), the second goes next (570-630, 60 us; mean 265), the other three
/// programs after it: the flush ends at 2160 us.
#[test]
fn read_first_puts_reads_before_a_flushs_programs() {
    let c = config();
    let l = c.layout().unwrap();
    let text = format!(
        "{}[r]\nrw=read\nbs=4k\nsize=8k\noffset=1m\nstartdelay=100us\n",
        writer("iodepth=1 size=16k end_fsync=1")
    );
    let s = specs(&text);
    let mut read_first = TimingParams::default();
    read_first.controller.scheduler = flashgc_core::device::policy::Scheduler::ReadFirst;
    for (p, flush_us, read_us) in [
        (TimingParams::default(), 2040.0, [2000.0, 1030.0]),
        (read_first, 2160.0, [470.0, 265.0]),
    ] {
        let mut fs = FlowSet::new(s.clone(), l.logical_pages, l.lpn_size).unwrap();
        let p = TimingParams {
            cache_pages: 64,
            ..p
        };
        let r = common::flows::run_of(&c, &p, &mut fs);
        let f = r.flows.as_ref().unwrap();
        assert_eq!(f[0].flushes, 1);
        assert_eq!(f[0].flush_latency.as_ref().unwrap().max_us, flush_us);
        let rd = f[1].read_latency.as_ref().unwrap();
        assert_eq!(
            (rd.max_us, rd.mean_us),
            (read_us[0], read_us[1]),
            "{flush_us}"
        );
        assert_eq!(r.total.flash_programs, 4);
    }
}

/// io_uring queues its syncs (IORING_OP_FSYNC) in slots of the queue, and fio issues one
/// whenever a slot frees before a sync's completion was reaped (`last_was_sync`). Six
/// writes at depth 3 with `fsync=2`, no cache: W1 and W2 go at 0 (done 510, 1020); the
/// third slot is free at 0, so S1 goes at 0 and completes with the writes before it at
/// 1020; W1's slot frees at 510 with W1 reaped last: S2 at 510, done 1020. At 1020 S2 is
/// the last completion (issued after W2): W3, W4, W5 go at 1020 (done 1530, 2040, 2550);
/// after W4 no completion has been reaped since S2, so no sync; W6 at 1530 (done 3060);
/// none after the job's last write. Flush latencies 1020 and 510. libaio syncs in the
/// job's thread instead: one flush (at 0, 1020 us), the flow held until it completes.
#[test]
fn io_uring_queues_its_syncs_in_free_slots_until_one_completes() {
    for (engine, flushes, mean_us, max_us) in [
        ("io_uring", 2, 765.0, 1020.0),
        ("libaio", 1, 1020.0, 1020.0),
    ] {
        let s = specs(&writer(&format!(
            "ioengine={engine} iodepth=3 size=24k fsync=2"
        )));
        let r = run(s, 0);
        let f = flow(&r);
        assert_eq!(f.flushes, flushes, "{engine}");
        let l = f.flush_latency.as_ref().unwrap();
        assert_eq!((l.mean_us, l.max_us), (mean_us, max_us), "{engine}");
        assert_eq!(f.active_ns, 3_060_000, "{engine}");
        assert_eq!(f.write_requests, 6);
    }
    // Without a clock every completion is at its issue: one sync per two writes.
    let c = config();
    let l = c.layout().unwrap();
    let s = specs(&writer("ioengine=io_uring iodepth=3 size=24k fsync=2"));
    let mut fs = FlowSet::new(s, l.logical_pages, l.lpn_size).unwrap();
    let mut e = flashgc_core::driver::Engine::new(&c, None).unwrap();
    let end = e.run_with(
        &mut fs,
        &mut |_| {},
        &mut flashgc_core::sim::RunControl::default(),
    );
    let Ok(flashgc_core::sim::RunEnd::Finished(r)) = end else {
        panic!("did not finish")
    };
    assert_eq!(flow(&r).flushes, 2);
}

/// `fsync_on_close=1` as fio 3.33: `do_io` syncs at each pass's end as for `end_fsync`,
/// and in a pass that runs past the file's end (every pass but the last) `put_file`
/// syncs when it closes the file, before `do_io`'s sync: two passes of 10 writes at
/// depth 1 flush 3 times (fio's log shows the 2 syncs of `do_io`; `put_file`'s is a plain
/// fsync(2)). With `fsync=5` the pass's end is a sync already, so both are skipped, and
/// the next pass starts with a sync (`clear_io_state` clears `last_was_sync`, 10 writes
/// are a multiple of 5): S5 S10 | S S15, then the end flush: 5, as fio's log.
#[test]
fn fsync_on_close_flushes_at_each_pass_end_and_at_each_close() {
    for (opts, flushes) in [
        ("fsync_on_close=1", 3),
        ("end_fsync=1", 2),
        ("fsync=5 fsync_on_close=1", 5),
        ("fsync=5 end_fsync=1", 5),
        ("fsync=5", 4),
        ("fsync=3 end_fsync=1", 8),
        ("fsync=4", 4),
    ] {
        let s = specs(&writer(&format!("iodepth=1 size=40k loops=2 {opts}")));
        assert_eq!(flow(&run(s, 0)).flushes, flushes, "{opts}");
    }
}

/// `sync=1` (O_SYNC): with the write cache each write is programmed before it completes
/// (write-through): two writes at depth 1 take 510 us each on the plane, and no page is
/// left dirty; without `sync` they complete in DRAM. Without the cache nothing changes.
#[test]
fn sync_writes_go_through_the_cache() {
    let s = specs(&writer("iodepth=1 size=8k sync=1 end_fsync=1"));
    let r = run(s, 64);
    let f = flow(&r);
    let w = f.write_latency.as_ref().unwrap();
    assert!(
        (w.mean_us - 510.0).abs() < 10.0 && (w.max_us - 510.0).abs() < 10.0,
        "{w:?}"
    );
    assert_eq!(r.total.flash_programs, 2);
    // The end flush finds nothing dirty.
    assert_eq!(f.flush_latency.as_ref().unwrap().max_us, 0.0);
    let s = specs(&writer("iodepth=1 size=8k end_fsync=1"));
    let w = flow(&run(s, 64)).write_latency.clone().unwrap();
    assert!(w.max_us < 10.0, "{w:?}");
    let with = flow(&run(
        specs(&writer("iodepth=1 size=8k sync=1 end_fsync=1")),
        0,
    ))
    .clone();
    let without = flow(&run(specs(&writer("iodepth=1 size=8k end_fsync=1")), 0)).clone();
    assert_eq!(with.active_ns, without.active_ns);
}

/// A flow with queued syncs and the pass-end phases resumes byte for byte, beside a
/// reading flow: under fcfs, and under deferred commit (read-first with suspend) with
/// queued syncs in flight at some stops (several at once at some), with and without the
/// cache.
#[test]
fn a_flow_with_queued_syncs_resumes_byte_for_byte() {
    let s = specs(
        "[m]\nioengine=io_uring\nrw=randrw\nrwmixwrite=70\nbs=4k\nsize=400k\niodepth=8\nloops=3\n\
         fsync=4\nfsync_on_close=1\nend_fsync=1\nsync=1\n\
         [r]\nioengine=libaio\nrw=randread\nbs=4k\nsize=400k\niodepth=2\n",
    );
    let c = config();
    let l = c.layout().unwrap();
    for (cache_pages, p) in [
        (0, TimingParams::default()),
        (64, TimingParams::default()),
        (0, common::flows::read_first_with_suspend()),
        (64, common::flows::read_first_with_suspend()),
    ] {
        let deferred = p.controller.suspend.is_some();
        let p = TimingParams { cache_pages, ..p };
        let make = || FlowSet::new(s.clone(), l.logical_pages, l.lpn_size).unwrap();
        let want = common::flows::resumed_json_of(&c, &p, &[], "qflush-whole", &make);
        let stops = [37, 100, 151, 199, 257, 301, 333];
        let mut in_flight = Vec::new();
        let mut probe = |fs: &FlowSet| in_flight.push(fs.queued_syncs_in_flight());
        let got = common::flows::resumed_json_probing(&c, &p, &stops, "qflush", &make, &mut probe);
        assert!(want.contains("\"flushes\""));
        assert_eq!(want, got, "resumed run differs (cache {cache_pages})");
        if deferred {
            // Some stops fall while queued syncs are in flight, several at once at some.
            assert!(in_flight.iter().max() > Some(&1), "{in_flight:?}");
            assert!(in_flight.contains(&0), "{in_flight:?}");
        } else {
            assert!(in_flight.iter().all(|&n| n == 0), "{in_flight:?}");
        }
    }
}

#[test]
fn under_deferred_commit_queued_syncs_flush_as_under_fcfs() {
    let c = config();
    {
        for (opts, cache_pages) in [
            ("iodepth=1 size=24k fsync=2", 0),
            ("iodepth=2 size=24k fsync=2", 0),
            ("iodepth=3 size=24k fsync=2", 0),
            ("iodepth=4 size=64k fsync=3 end_fsync=1", 0),
            ("iodepth=4 size=64k fsync=3 end_fsync=1", 8),
            ("iodepth=8 size=128k fsync=1", 0),
            ("iodepth=8 size=128k fsync=5", 64),
            ("iodepth=3 size=32k fsync=4 end_fsync=1", 4),
            ("iodepth=2 size=16k loops=3 fsync=2 fsync_on_close=1", 8),
            ("iodepth=4 size=16k loops=2 fsync=3 end_fsync=1", 0),
            ("iodepth=6 size=48k loops=2 fsync=2 sync=1", 16),
            ("iodepth=4 size=200k rw=randwrite fsync=7 end_fsync=1", 32),
        ] {
            let s = specs(&writer(&format!("ioengine=io_uring {opts}")));
            assert!(s[0].queued_flush, "{opts}");
            let flows_of = |p| flows_and_programs(&c, &s, cache_pages, p);
            let fcfs = flows_of(TimingParams::default());
            let deferred = flows_of(common::flows::read_first_with_suspend());
            assert!(!fcfs.0.contains("\"flushes\":0"), "{opts}: {}", fcfs.0);
            assert_eq!(fcfs, deferred, "{opts}, cache {cache_pages}");
        }
    }
}

/// Read-first puts a read before a queued sync's programs, while the flow goes on writing
/// into its other slot. The writer (io_uring, depth 2, `fsync=4`, eight writes) writes W1-W4
/// into the cache at 0 (they complete there at once); S1 then goes at 0 into a free slot
/// and programs their four pages from 0; the other slot is free at 0 and S1 has not
/// completed, so S2 goes there (nothing dirty left: done at 0, 0 us); S2 reaped last, W5-W8
/// go at 0 into that slot while S1 holds the other, and complete in the cache (no sync
/// after the job's last write). A reader (depth 1, two reads of flash pages) starts at 100
/// us. fcfs: the programs hold the plane 0-2040 us (S1 2040 us, mean with S2 1020), the
/// reads follow (2040-2100, 2100-2160: 2000 and 60 us, mean 1030). Read-first: the first
/// read waits for the program running (510-570, 470 us), the second goes next (570-630,
/// 60 us; mean 265), the other three programs after it: S1 ends at 2160 us (mean 1080).
/// libaio syncs in the job's thread: S1 alone, W5-W8 after it into the cache, the reads
/// as with io_uring.
#[test]
fn read_first_puts_reads_before_a_queued_syncs_programs() {
    let c = config();
    let l = c.layout().unwrap();
    let mut read_first = TimingParams::default();
    read_first.controller.scheduler = flashgc_core::device::policy::Scheduler::ReadFirst;
    for engine in ["io_uring", "libaio"] {
        let text = format!(
            "{}[r]\nrw=read\nbs=4k\nsize=8k\noffset=1m\nstartdelay=100us\n",
            writer(&format!("ioengine={engine} iodepth=2 size=32k fsync=4"))
        );
        let s = specs(&text);
        assert_eq!(s[0].queued_flush, engine == "io_uring");
        for (p, flush_us, read_us) in [
            (TimingParams::default(), 2040.0, [2000.0, 1030.0]),
            (read_first.clone(), 2160.0, [470.0, 265.0]),
        ] {
            let mut fs = FlowSet::new(s.clone(), l.logical_pages, l.lpn_size).unwrap();
            let p = TimingParams {
                cache_pages: 64,
                ..p
            };
            let r = common::flows::run_of(&c, &p, &mut fs);
            let f = r.flows.as_ref().unwrap();
            let (flushes, mean_us) = match engine {
                "io_uring" => (2, flush_us / 2.0),
                _ => (1, flush_us),
            };
            assert_eq!(
                (f[0].flushes, f[0].write_requests),
                (flushes, 8),
                "{engine}"
            );
            let fl = f[0].flush_latency.as_ref().unwrap();
            assert_eq!((fl.max_us, fl.mean_us), (flush_us, mean_us), "{engine}");
            let rd = f[1].read_latency.as_ref().unwrap();
            assert_eq!(
                (rd.max_us, rd.mean_us),
                (read_us[0], read_us[1]),
                "{engine}"
            );
            let w = f[0].write_latency.as_ref().unwrap();
            assert_eq!(w.max_us, 0.0, "{engine} {flush_us}");
            assert_eq!(r.total.flash_programs, 4);
        }
    }
}

/// The flow's side of queued syncs under deferred commit, driven by hand (the device's
/// ends given, as the driver would report them): each I/O carries its place among the
/// flow's I/Os, so a sync waits for the writes issued before it, and only for them,
/// whatever order their completions come in. io_uring at depth 4, `fsync=2`, four writes:
/// at 0 W1 (1st), W2 (2nd), then a sync into each free slot, S1 (3rd) and S2 (4th). S2's
/// device end is 0 (nothing to program), W2 completes at 700, W1 at 500: S2 completes
/// with the writes before it, at 700; S1's end at the device is 1000. At 500 (W1 reaped
/// last) a sync is due again: S3 (5th); at 700 S2 is reaped last, so W3 (6th) and W4
/// (7th) go. W3 completes at 1100 before S3's device end, 900: S3 completes at 900 (not at
/// W3's 1100: W3 came after it). Flush latencies 1000, 700 and 400 us.
#[test]
fn a_queued_sync_waits_for_the_writes_issued_before_it_only() {
    use flashgc_core::workload::flows::FlowEvent;
    let c = config();
    let l = c.layout().unwrap();
    let s = specs(&writer("ioengine=io_uring iodepth=4 size=16k fsync=2"));
    let mut fs = FlowSet::new(s, l.logical_pages, l.lpn_size).unwrap();
    let us = 1000;
    // Issues the flow's next event: a request (returned with its place) or a flush.
    let next = |fs: &mut FlowSet| -> Option<(u64, u64)> {
        match fs
            .next_event(true, true, &mut |_, _, _| Ok(None))
            .unwrap()?
        {
            FlowEvent::Request(0, req, t) => Some((t, fs.issued_pending(0, &req, t))),
            FlowEvent::Request(..) => unreachable!(),
            FlowEvent::Flush => Some((u64::MAX, 0)),
            FlowEvent::SteadyState => unreachable!("the flow has no steady-state criterion"),
        }
    };
    let write = flashgc_core::workload::Request {
        time_ns: 0,
        op: flashgc_core::workload::Op::Write,
        lpn: 0,
        pages: 1,
        content: 0,
        fua: false,
    };
    let flush = Some((u64::MAX, 0));
    assert_eq!([next(&mut fs), next(&mut fs)], [Some((0, 1)), Some((0, 2))]);
    assert_eq!(
        [next(&mut fs), next(&mut fs), next(&mut fs)],
        [flush, flush, None]
    );
    assert_eq!(fs.queued_syncs_in_flight(), 2);
    fs.flush_device_done(0, 0, 4);
    fs.completed_later(0, &write, 0, 700 * us, 2);
    assert_eq!(fs.queued_syncs_in_flight(), 2, "S2 waits for W1");
    fs.completed_later(0, &write, 0, 500 * us, 1);
    assert_eq!(fs.queued_syncs_in_flight(), 1, "S2 completed");
    fs.flush_device_done(0, 1000 * us, 3);
    assert_eq!(fs.queued_syncs_in_flight(), 0);
    assert_eq!(next(&mut fs), flush);
    assert_eq!(next(&mut fs), Some((700 * us, 6)));
    assert_eq!(next(&mut fs), Some((700 * us, 7)));
    assert_eq!(next(&mut fs), None);
    fs.completed_later(0, &write, 700 * us, 1100 * us, 6);
    fs.flush_device_done(0, 900 * us, 5);
    fs.completed_later(0, &write, 700 * us, 1200 * us, 7);
    let f = &fs.report(1200 * us, true)[0];
    let fl = f.flush_latency.as_ref().unwrap();
    assert_eq!((f.flushes, fl.max_us, fl.mean_us), (3, 1000.0, 700.0));
}
