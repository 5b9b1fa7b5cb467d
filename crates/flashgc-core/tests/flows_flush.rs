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
         fsync=16\nend_fsync=1\n[r]\nioengine=libaio\nrw=randread\nbs=4k\nsize=400k\niodepth=2\n",
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
            writer("ioengine=io_uring iodepth=4 size=64k fsync=8"),
            "ioengine=io_uring",
        ),
        (writer("size=64k fsync=8 fdatasync=4"), "set one of them"),
        (writer("size=64k sync=1"), "not modelled"),
    ] {
        let e = plan(&text).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains(what), "{text}: {e}");
    }
    // fio's should_fsync: a job that does not write never syncs.
    let s =
        specs("[r]\nrw=randread\nbs=4k\nsize=64k\nend_fsync=1\nfsync=2\n[o]\nrw=write\nsize=4k\n");
    assert_eq!((s[0].flush_every, s[0].end_flush), (None, false));
    // end_fsync at io_uring is waited for after the drain: accepted.
    assert!(specs(&writer("ioengine=io_uring iodepth=4 size=64k end_fsync=1"))[0].end_flush);
}

/// Under deferred commit (read-first with suspend) a flow that only writes has nothing
/// to reorder: its flushes, with and without the cache, come out as under fcfs.
#[test]
fn under_deferred_commit_a_writing_flow_flushes_as_under_fcfs() {
    let c = config();
    let l = c.layout().unwrap();
    for (opts, cache_pages, flushes) in [
        ("iodepth=2 size=24k fsync=2", 0, 2),
        ("iodepth=2 size=8k loops=2 end_fsync=1", 0, 2),
        ("iodepth=2 size=16k end_fsync=1", 64, 1),
        ("iodepth=1 size=32k fsync=4 end_fsync=1", 4, 2),
        ("iodepth=4 size=64k fsync=3 end_fsync=1", 8, 6),
    ] {
        let s = specs(&writer(opts));
        let flows_of = |p: TimingParams| {
            let mut fs = FlowSet::new(s.clone(), l.logical_pages, l.lpn_size).unwrap();
            let p = TimingParams { cache_pages, ..p };
            let r = common::flows::run_of(&c, &p, &mut fs);
            (
                serde_json::to_string(&r.flows).unwrap(),
                r.total.flash_programs,
            )
        };
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
