//! Timing layer: hand-computed schedules, GC effects on latency, paper directions, and
//! WAF invariance under timing.

mod common;

use flashgc_core::config::DeviceConfig;
use flashgc_core::driver::TimedSim;
use flashgc_core::timing::{GcMode, Host, TimingOptions, TimingParams, MIN_CHECKPOINT_BYTES};
use flashgc_core::workload::{Op, Request};
use flashgc_core::{Config, Simulation};

const US: u64 = 1000;

/// 2 channels x 1 chip x 1 die x 1 plane; blocks of 2 pages of 4 KiB; segments are
/// superblocks of 2 blocks (one per channel): 8 segments x 4 pages, 16 logical pages.
/// Read 50 us, program 500 us, erase 3000 us, 409.6 MB/s = 10 us per 4 KiB transfer.
fn tiny() -> Config {
    let mut c = Config::default_preset();
    c.device = DeviceConfig {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 8,
        pages_per_block: 2,
        page_size: 4096,
        lpn_size: 4096,
        segment_blocks: 2,
        timing: common::configs::hand_timing(),
    };
    c.ftl.op = Some(1.0);
    c.ftl.logical_gib = None;
    c.run.fill = 0.0;
    c
}

fn req(op: Op, lpn: u64) -> Request {
    Request {
        time_ns: 0,
        op,
        lpn,
        pages: 1,
        content: 0,
        fua: false,
    }
}

/// Untimed set-up: LPNs 0..16 fill segments 0-3; rewriting 0,1,4,5,8,9,12,13 fills segments
/// 4 and 5 and leaves 2 valid pages in each of segments 0-3; segments 6 and 7 stay free.
fn setup(mode: GcMode, gc_pace: u32) -> TimingParams {
    TimingParams {
        gc_mode: mode,
        gc_pace,
        host: Host::OpenLoop { time_scale: 1.0 },
        ..TimingParams::default()
    }
}

fn tiny_sim(p: TimingParams) -> TimedSim {
    let mut ts = TimedSim::new(&tiny(), p).unwrap();
    let l = ts.simulation().layout().clone();
    assert_eq!(
        (
            l.segments,
            l.pages_per_segment,
            l.logical_pages,
            l.gc_low,
            l.gc_high
        ),
        (8, 4, 16, 2, 2)
    );
    let ftl = ts.simulation_mut().ftl_mut();
    for lpn in (0..16).chain([0, 1, 4, 5, 8, 9, 12, 13]) {
        ftl.write(lpn).unwrap();
    }
    assert_eq!(ftl.free_segments(), 2);
    ts.start_clock();
    ts
}

/// Page placement (static, CWDP): flash page fp of segment s is on unit (2s + fp % 2) % 2 = fp % 2,
/// i.e. even offsets on channel 0, odd offsets on channel 1.
///
/// R0 read LPN 0 at t=0: LPN 0 lives at PPN 16 (segment 4, offset 0, channel 0):
///   cell 0-50, bus 50-60 => 60 us.
/// R1 write LPN 2 at t=0: invalidates PPN 2, opens segment 6 (1 free < gc_low 2) => GC.
///   Victim (greedy) segment 0 with one valid page, LPN 3 at PPN 3 (channel 1).
///   GC read PPN 3: cell 0-50, bus 50-60 (ch1). GC program to PPN 24 (ch0): bus 60-70,
///   program 70-570. Erase of segment 0 (both blocks) once its pages are moved: 570-3570
///   on both units. The user page goes to PPN 25 (ch1).
///   foreground: the write waits for the GC episode: bus 3570-3580, program 3580-4080 => 4080 us.
///   preemptible: GC queued; bus 0-10, program 10-510 => 510 us.
/// R2 read LPN 4 at t=100: PPN 18 (segment 4, offset 2, ch0).
///   foreground: behind the erase on ch0's chip: cell 3570-3620, bus 3620-3630 => 3630 us.
///   preemptible: GC has not started (its first op could start only at 510 >= 100):
///   cell 100-150, bus 150-160 => 160 us.
/// R3 read LPN 15 at t=100: PPN 15 (segment 3, offset 3, ch1).
///   foreground: behind erase and R1's program: cell 4080-4130, bus 4130-4140 => 4140 us.
///   preemptible: behind R1's program: cell 510-560, bus 560-570 => 570 us.
/// Preemptible with a GC pace of 1 (one queued GC operation per host arrival, host I/O
/// between them): at R2's arrival the GC read runs (cell 510-560, bus 560-570), R2 as
/// above; at R3's arrival the GC program runs (bus 570-580, cell 580-1080), so R3 reads
/// after the GC read: cell 570-620, bus 620-630 => 630 us.
#[test]
fn hand_computed_two_channel_schedule() {
    for (mode, pace, expect) in [
        (GcMode::Foreground, 8, [60, 4080, 3630, 4140]),
        // per-die: no barrier, but R1's own unit (ch1) is erased 570-3570 like the other, so
        // R1 programs at 3570 and every time is the same as foreground's
        (GcMode::PerDie, 8, [60, 4080, 3630, 4140]),
        // pace 0: GC runs only in idle gaps, here after the last request
        (GcMode::Preemptible, 0, [60, 510, 160, 570]),
        (GcMode::Preemptible, 1, [60, 510, 160, 630]),
    ] {
        let mut ts = tiny_sim(setup(mode, pace));
        let reqs = [
            (0, req(Op::Read, 0)),
            (0, req(Op::Write, 2)),
            (100, req(Op::Read, 4)),
            (100, req(Op::Read, 15)),
        ];
        let got: Vec<u64> = reqs
            .iter()
            .map(|(t, r)| ts.serve(r, t * US).unwrap())
            .collect();
        let want: Vec<u64> = expect.iter().map(|e| e * US).collect();
        assert_eq!(got, want, "{mode:?}");
        let c = &ts.simulation().ftl().counters;
        assert_eq!(
            (c.gc_writes, c.erases),
            (1, 1),
            "{mode:?}: one page moved, one segment erased"
        );
    }
}

/// Uniform random 4 KiB writes, closed loop, on a small device: the timing run's WAF equals
/// the WAF-only run's bit for bit for timing-independent GC modes.
#[test]
fn waf_is_unchanged_by_timing() {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(0.125);
    c.run.write_volume = 3.0;
    c.run.read_ratio = 0.3;
    c.run.fill = 1.0;
    let plain = Simulation::run_synthetic(&c, &mut |_| {}).unwrap();
    for mode in [GcMode::Foreground, GcMode::PerDie, GcMode::Preemptible] {
        for qd in [1, 32] {
            let p = TimingParams {
                gc_mode: mode,
                host: Host::ClosedLoop { queue_depth: qd },
                ..TimingParams::default()
            };
            let mut ts = TimedSim::new(&c, p).unwrap();
            let mut wl = ts.simulation().synthetic_workload().unwrap();
            let r = ts.run(&mut wl, &mut |_| {}).unwrap();
            assert_eq!(r.total, plain.total, "{mode:?} QD {qd}");
            assert!(r.total.gc_writes > 0);
            let t = r.timing.unwrap();
            assert!(!t.timing_dependent_policy);
            assert!(t.write_latency.count > 0 && t.read_latency.count > 0);
        }
    }
}

/// A workload of timestamped requests (for the open-loop replay test).
/// Open loop at a low rate: requests never queue, so each read costs exactly tR + transfer
/// and each write transfer + tPROG when no GC interferes.
#[test]
fn open_loop_unloaded_latencies_are_device_latencies() {
    let mut c = tiny();
    c.run.fill = 0.0;
    let p = TimingParams {
        host: Host::OpenLoop { time_scale: 1.0 },
        ..TimingParams::default()
    };
    let mut ts = TimedSim::new(&c, p).unwrap();
    // 8 writes then 8 reads of the same pages, 10 ms apart: no GC (only 2 segments used).
    let reqs: Vec<Request> = (0..16)
        .map(|i| Request {
            time_ns: i * 10_000 * US,
            op: if i < 8 { Op::Write } else { Op::Read },
            lpn: i % 8,
            pages: 1,
            content: 0,
            fua: false,
        })
        .collect();
    let r = ts
        .run(&mut common::requests::Requests::new(reqs), &mut |_| {})
        .unwrap();
    let t = r.timing.unwrap();
    assert_eq!(t.write_latency.max_us, 510.0);
    assert!(
        (t.write_latency.p50_us - 510.0).abs() <= 0.51,
        "{}",
        t.write_latency.p50_us
    );
    assert_eq!(t.read_latency.max_us, 60.0);
    assert_eq!(t.simulated_ns, 15 * 10_000 * US + 60 * US);
    assert_eq!(t.flash.as_ref().unwrap().gc_time_share, 0.0);
}

use flashgc_core::workload::fio::{Dist, FioJob, Rw};
use flashgc_core::RunResult;

fn fio_run(c: &Config, job: &FioJob, volume_x: f64, checkpoints: u32, mode: GcMode) -> RunResult {
    let l = c.layout().unwrap();
    let bytes = l.logical_bytes();
    let volume = (bytes as f64 * volume_x) as u64;
    let p = TimingParams {
        gc_mode: mode,
        host: Host::ClosedLoop {
            queue_depth: job.queue_depth(),
        },
        data_volume_bytes: Some(volume),
        checkpoint_bytes: volume / checkpoints as u64,
        ..TimingParams::default()
    };
    let mut ts = TimedSim::new(c, p).unwrap();
    let mut wl = job.workload(l.logical_pages, l.lpn_size).unwrap();
    ts.run(&mut wl, &mut |_| {}).unwrap()
}

/// Fill sweep from an empty device: random 4 KiB writes at QD 32. While free space lasts no
/// GC runs; once it starts, IOPS fall and the write tail grows.
#[test]
fn fill_sweep_degrades_when_gc_starts() {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(0.25);
    c.device.pages_per_block = 64;
    c.device.segment_blocks = 8;
    c.run.fill = 0.0;
    let job = FioJob {
        rw: Rw::RandWrite,
        bs: 4096,
        numjobs: 1,
        iodepth: 32,
        ..FioJob::default()
    };
    let r = fio_run(&c, &job, 3.0, 12, GcMode::Foreground);
    let s = &r.timing.as_ref().unwrap().series;
    assert_eq!(s.len(), 12);
    let first = &s[0];
    let last = s.last().unwrap();
    assert_eq!(
        (first.erases, first.gc_page_moves),
        (0, 0),
        "no GC in the first quarter of the fill"
    );
    assert!(last.gc_page_moves > 0);
    assert!(
        last.iops < 0.8 * first.iops,
        "IOPS {} -> {}",
        first.iops,
        last.iops
    );
    assert!(
        last.write.p99_us > first.write.p99_us,
        "p99 {} -> {}",
        first.write.p99_us,
        last.write.p99_us
    );
    assert!(last.write.mean_us > first.write.mean_us);
    let t = r.timing.as_ref().unwrap();
    let f = t.flash.as_ref().unwrap();
    assert!(f.gc_time_share > 0.0 && f.gc_time_share < 1.0);
    for u in f.channel_utilization.iter().chain(&f.cell_utilization) {
        assert!((0.0..=1.0).contains(u), "utilization {u}");
    }
}

/// Write-back cache: every flash user write is an eviction, hits cost no flash time, and
/// with a cache as large as the hot set most hot writes hit.
#[test]
fn write_cache_absorbs_hot_overwrites() {
    use flashgc_core::timing::CachePolicy;
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(0.125);
    c.run.workload = "hotcold:90/5".into();
    c.run.write_volume = 2.0;
    c.run.fill = 1.0;
    let hot_pages = (c.layout().unwrap().logical_pages as f64 * 0.05) as u64;
    for policy in [CachePolicy::Lru, CachePolicy::Gcar] {
        let p = TimingParams {
            cache_pages: hot_pages * 2,
            cache_policy: policy,
            host: Host::ClosedLoop { queue_depth: 8 },
            ..TimingParams::default()
        };
        let mut ts = TimedSim::new(&c, p).unwrap();
        let mut wl = ts.simulation().synthetic_workload().unwrap();
        let r = ts.run(&mut wl, &mut |_| {}).unwrap();
        let t = r.timing.unwrap();
        let cache = t.cache.unwrap();
        assert_eq!(
            r.total.user_writes, cache.evictions,
            "{policy:?}: flash user writes are evictions"
        );
        assert_eq!(
            cache.write_hits + cache.evictions + cache.dirty_at_end,
            t.write_requests,
            "{policy:?}"
        );
        assert!(
            cache.write_hits as f64 > 0.8 * t.write_requests as f64,
            "{policy:?}: {} hits",
            cache.write_hits
        );
        assert!(
            t.write_latency.p50_us == 0.0,
            "{policy:?}: a hit completes at once"
        );
        assert_eq!(t.timing_dependent_policy, policy == CachePolicy::Gcar);
    }
}

/// Scaled-down Cosmos+ OpenSSD that keeps the parts the tail latency depends on: the real
/// block (128 pages of 16 KiB) and MLC timings; 8 channels x 4 ways (32 dies instead of 64),
/// 32 blocks per die instead of 8192, superblocks of 8 blocks (die-interleaved writes as
/// Cosmos+'s page FTL stripes slices over dies): 128 segments of 16 MiB, 2 GiB physical.
fn cosmos_real_blocks(placement: &str) -> Config {
    let mut c = Config::load(Some("cosmos-openssd"), None).unwrap();
    c.device.chips_per_channel = 4;
    c.device.blocks_per_plane = 32;
    c.device.segment_blocks = 8;
    c.run.placement = placement.into();
    c.run.victim = "greedy".into();
    c.run.fill = 1.0;
    c
}

/// papers/sup-gc.txt Figs. 16-18: at 50-99 % writes SUP-GC (user writes hot, GC writes
/// cold) beats Cosmos+ (single stream, greedy) in IOPS, erases, GC page moves and p99
/// latency. fio randrw 4 KiB, 10 jobs, zipf 0.8 offsets (the paper ran fio through a file
/// system; under uniform offsets pages have no temperature to separate), blocking GC as the
/// Cosmos+ firmware runs it, one logical capacity of writes after a full precondition.
///
/// Why the p99 drops (docs/timing.md, "SUP-GC and the tail"): each GC episode of the single
/// stream reclaims one victim, and its relocations refill the user's open segment, so
/// episodes come every (1 - u) segments of user writes; SUP-GC's relocations go to the cold
/// stream, so the user stream needs a whole free segment and one episode reclaims about
/// 1/(1 - u) victims, once per segment of user writes. Same GC work, fewer and longer
/// stalls: with 128-page blocks fewer than 1 % of the requests wait behind an episode, so
/// SUP-GC's p99 is a flash latency while the baseline's is a GC stall; its p99.9 (requests
/// behind its longer episodes) is worse, which is asserted too. With blocks shrunk to 8
/// pages episodes come 16x as often and the p99 direction reverses (documented).
#[test]
fn sup_gc_beats_cosmos_baseline_at_high_write_ratios() {
    for mix in [50.0, 75.0, 99.0] {
        let job = FioJob {
            rw: Rw::RandRw,
            rwmixwrite: mix,
            bs: 4096,
            block_sizes: None,
            numjobs: 10,
            iodepth: 1,
            dist: Dist::Zipf(0.8),
            ..FioJob::default()
        };
        let vol = 1.0 / (mix / 100.0);
        let base = fio_run(
            &cosmos_real_blocks("single"),
            &job,
            vol,
            4,
            GcMode::Foreground,
        );
        let sup = fio_run(
            &cosmos_real_blocks("sup-gc"),
            &job,
            vol,
            4,
            GcMode::Foreground,
        );
        let (b, s) = (base.timing.as_ref().unwrap(), sup.timing.as_ref().unwrap());
        let per_episode = |r: &RunResult| r.total.gc_victims as f64 / r.total.gc_episodes as f64;
        eprintln!(
            "mix {mix}: WAF {:.3} vs {:.3}; IOPS {:.0} vs {:.0}; write mean {:.0} vs {:.0} us, p99 {:.0} vs {:.0}, p99.9 {:.0} vs {:.0}; read p99 {:.0} vs {:.0}; victims per episode {:.2} vs {:.2}",
            base.total.waf,
            sup.total.waf,
            b.iops,
            s.iops,
            b.write_latency.mean_us,
            s.write_latency.mean_us,
            b.write_latency.p99_us,
            s.write_latency.p99_us,
            b.write_latency.p999_us,
            s.write_latency.p999_us,
            b.read_latency.p99_us,
            s.read_latency.p99_us,
            per_episode(&base),
            per_episode(&sup),
        );
        assert!(!b.timing_dependent_policy && !s.timing_dependent_policy);
        assert!(sup.total.waf < 0.95 * base.total.waf, "mix {mix}: WAF");
        assert!(
            sup.total.erases < base.total.erases && sup.total.gc_writes < base.total.gc_writes,
            "mix {mix}: erases, GC moves"
        );
        assert!(
            s.iops > 1.1 * b.iops,
            "mix {mix}: IOPS {} vs {}",
            s.iops,
            b.iops
        );
        assert!(
            s.write_latency.mean_us < b.write_latency.mean_us,
            "mix {mix}: mean"
        );
        assert!(
            s.write_latency.p99_us < 0.5 * b.write_latency.p99_us
                && s.read_latency.p99_us < 0.5 * b.read_latency.p99_us,
            "mix {mix}: p99"
        );
        // The mechanism, and its price further out in the tail.
        assert!(
            per_episode(&base) < 1.5 && per_episode(&sup) > 3.0,
            "mix {mix}: batching"
        );
        assert!(
            s.write_latency.p999_us > b.write_latency.p999_us,
            "mix {mix}: p99.9"
        );
    }
}

/// Every real trace with timestamps in ../shared/traces replays open loop (at its own
/// timestamps) on the default device with compact remapping.
#[test]
fn timed_replay_of_real_traces() {
    let dir = common::traces::dir();
    // (file, format when auto-detection is ambiguous; `blkparse:C`: a blkparse file holding
    // only completion events)
    let files = [
        ("msr_cambridge/msr-cambridge1-sample.csv", None),
        ("mqsim_umass_tpcc/wsrch-small.trace", Some("mqsim")),
        ("mqsim_umass_tpcc/tpcc-small.trace", Some("mqsim")),
        (
            "fiu/cheetah.cs.fiu.edu-110108-113008.2.head10008.blkparse",
            None,
        ),
        ("blktrace/leveldb_ram0.blkparse.txt", Some("blkparse:C")),
        ("blktrace/ycsb_btrfs.blkparse.txt", None),
        ("blktrace/ycsb_ext4.blkparse.txt.gz", None),
        ("blktrace/ycsb_f2fs.blkparse.txt.gz", None),
        ("blktrace/apress_hadoop_java_sdb.blkparse.txt.gz", None),
        (
            "converted_mqsim/MSR_trace-only-write.mqsim.trace",
            Some("mqsim"),
        ),
        (
            "converted_mqsim/ssdTrace-only-write.mqsim.trace.gz",
            Some("mqsim"),
        ),
        (
            "converted_mqsim/systor17_2016021612-LUN3.mqsim.trace.gz",
            Some("mqsim"),
        ),
        ("systor17/systor17-traces-sample.csv", None),
        ("systor17/systor17-additional-sample.csv", None),
        ("tencent_cbs/cloud_storage-sample.csv.gz", None),
    ];
    for (f, format) in files {
        let path = dir.join(f);
        if !path.exists() {
            panic!(
                "{}: missing (the traces live in ../shared/traces)",
                path.display()
            );
        }
        let (format, events) = match format {
            Some("blkparse:C") => (None, Some("C".to_string())),
            f => (f.map(str::to_string), None),
        };
        let opts = flashgc_trace::TraceOptions {
            remap: flashgc_trace::Remap::Compact,
            format,
            blkparse_events: events,
            ..Default::default()
        };
        // A device 1.25x the trace's footprint, filled, so every read hits flash.
        let fp =
            flashgc_trace::footprint(&path, &opts, 4096).unwrap_or_else(|e| panic!("{f}: {e}"));
        let mut c = Config::default_preset();
        c.ftl.logical_gib =
            Some((fp.distinct_pages as f64 * 4096.0 * 1.25 / (1u64 << 30) as f64).max(0.25));
        c.run.fill = 1.0;
        let l = c.layout().unwrap();
        let mut wl = flashgc_trace::open_workload(&path, &opts, l.lpn_size, l.logical_pages)
            .unwrap_or_else(|e| panic!("{f}: {e}"));
        let p = TimingParams {
            host: Host::OpenLoop { time_scale: 1.0 },
            ..TimingParams::default()
        };
        let mut ts = TimedSim::new(&c, p).unwrap();
        let r = ts
            .run(wl.as_mut(), &mut |_| {})
            .unwrap_or_else(|e| panic!("{f}: {e}"));
        let t = r.timing.unwrap();
        eprintln!(
            "{f}: {} requests over {:.3} s, {:.0} IOPS, read p99 {:.0} us, write p99 {:.0} us",
            t.requests,
            t.simulated_ns as f64 / 1e9,
            t.iops,
            t.read_latency.p99_us,
            t.write_latency.p99_us
        );
        assert!(t.requests > 0, "{f}");
        assert!(t.simulated_ns > 0, "{f}: timestamps spread the requests");
        // Every request costs at least one transfer (the device is full: every read hits flash).
        if t.write_latency.count > 0 {
            assert!(t.write_latency.max_us >= 10.0, "{f}");
        }
        if t.read_latency.count > 0 {
            assert!(
                t.read_latency.p50_us >= 50.0,
                "{f}: a read costs tR at least"
            );
        }
    }
}

/// Per-die GC has no device-wide barrier: with single-block segments (each victim on one
/// unit) a write whose own unit has no GC work does not wait for the episode on the other
/// unit, while the FTL's decisions are the same as under foreground GC.
#[test]
fn per_die_gc_blocks_only_the_collecting_unit() {
    let run = |mode: GcMode| {
        let mut c = tiny();
        c.device.segment_blocks = 1;
        let mut ts = TimedSim::new(&c, setup(mode, 8)).unwrap();
        let ftl = ts.simulation_mut().ftl_mut();
        for lpn in (0..16).chain([0, 1, 4, 5, 8, 9, 12, 13]) {
            ftl.write(lpn).unwrap();
        }
        ts.start_clock();
        let got: Vec<u64> = (0..12u64)
            .map(|i| {
                ts.serve(&req(Op::Write, (i * 5) % 16), i * 10 * US)
                    .unwrap()
                    / US
            })
            .collect();
        (got, ts.simulation().ftl().counters.clone())
    };
    let (fg, cf) = run(GcMode::Foreground);
    let (pd, cp) = run(GcMode::PerDie);
    eprintln!("foreground {fg:?}\nper-die    {pd:?}");
    assert_eq!(cf, cp, "same FTL decisions");
    assert!(cf.erases > 0, "GC ran");
    assert!(pd.iter().zip(&fg).all(|(p, f)| p <= f));
    assert!(pd.iter().zip(&fg).any(|(p, f)| p < f));
}

/// Regression: with a multi-stream placement under non-blocking GC, the GC queue lags the
/// FTL so far that a segment is erased, refilled by queued write-backs, sealed and picked
/// again before the queue has run them. The device must count the segment's queued
/// erases (a mark was overwritten: debug builds panicked, release builds wrapped a time
/// and programmed before the erase). Every program must start after its segment's last
/// erase, so no write completes faster than a program.
#[test]
fn repeated_erases_of_a_segment_queued_under_nonblocking_gc() {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(1.0 / 32.0);
    c.ftl.op = Some(0.2);
    c.device.pages_per_block = 16;
    c.run.placement = "sepbit".into();
    c.run.workload = "zipf:1.0".into();
    c.run.fill = 1.0;
    c.run.max_memory_gib = None;
    for mode in [GcMode::Preemptible, GcMode::Idle] {
        let p = TimingParams {
            gc_mode: mode,
            host: Host::ClosedLoop { queue_depth: 8 },
            data_volume_bytes: Some(96 << 20),
            ..TimingParams::default()
        };
        let mut d = TimedSim::new(&c, p).unwrap();
        let mut wl = d.simulation().synthetic_workload().unwrap();
        let r = d.run(&mut wl, &mut |_| {}).unwrap();
        let t = r.timing.as_ref().unwrap();
        assert!(r.total.erases > 0, "{mode:?}: GC ran");
        let program_us = c.device.timing.program_us;
        assert!(
            t.write_latency.p50_us >= program_us && t.write_latency.max_us < 1e9,
            "{mode:?}: write latency p50 {} max {} us with {program_us} us programs",
            t.write_latency.p50_us,
            t.write_latency.max_us
        );
    }
}

/// The Python binding's `checkpoint_bytes` has the CLI's floor: a point per request flooded
/// the result. 0 (no series) and exactly 1 MiB are taken.
#[test]
fn checkpoint_bytes_below_1_mib_are_refused() {
    let c = tiny();
    let apply = |v: u64| {
        let o = TimingOptions::from_json(&format!(r#"{{"checkpoint_bytes": {v}}}"#)).unwrap();
        let mut p = TimingParams::default();
        o.apply(&c, &mut p, &|k| format!("timing.{k}"))
            .map(|()| p.checkpoint_bytes)
            .map_err(|e| e.to_string())
    };
    for v in [1, 4096, MIN_CHECKPOINT_BYTES - 1] {
        let e = apply(v).unwrap_err();
        assert!(
            e.contains("timing.checkpoint_bytes") && e.contains("at least 1048576"),
            "{v}: {e}"
        );
    }
    assert_eq!(apply(0), Ok(0));
    assert_eq!(apply(MIN_CHECKPOINT_BYTES), Ok(MIN_CHECKPOINT_BYTES));
}

/// `data_volume_bytes` = 2^64 - 1 was taken and the run went on for ever; a write cache of
/// 2^63 pages was refused under the field `timing.cache`, a name no user gives.
#[test]
fn data_volume_has_a_named_bound_and_cache_pages_its_own_name() {
    let c = tiny();
    let apply = |json: &str| {
        let o = TimingOptions::from_json(json).unwrap();
        let mut p = TimingParams::default();
        o.apply(&c, &mut p, &|k| format!("timing.{k}"))
            .map(|()| p)
            .map_err(|e| e.to_string())
    };
    let e = apply(&format!(r#"{{"data_volume_bytes": {}}}"#, u64::MAX)).unwrap_err();
    assert!(
        e.contains("`timing.data_volume_bytes`: 18446744073709551615 bytes: allowed 0..=1152921504606846976"),
        "{e}"
    );
    let most = flashgc_core::timing::MAX_DATA_VOLUME_BYTES;
    let p = apply(&format!(r#"{{"data_volume_bytes": {most}}}"#)).unwrap();
    assert_eq!(p.data_volume_bytes, Some(most));
    let e = apply(&format!(r#"{{"cache_pages": {}}}"#, 1u64 << 63)).unwrap_err();
    assert!(
        e.contains("`timing.cache_pages`: 9223372036854775808 pages: allowed 0..="),
        "{e}"
    );
    // Parameters built without the options (a front end's own) are checked the same way.
    let p = TimingParams {
        cache_pages: 1 << 63,
        ..Default::default()
    };
    let e = p.validate(1024).unwrap_err().to_string();
    assert!(
        e.contains("`timing.cache_pages`") && e.contains("allowed 0..=1024"),
        "{e}"
    );
}

/// In the content mode an L2P entry may name a content group instead of a page. Two
/// places of the timed driver took such an entry for a page: GCaR, which asks whether the
/// chip of a cached page's flash copy is collecting (a wrong chip with static allocation,
/// with dynamic allocation an index past the device's per-page table: "index out of bounds:
/// the len is 4592 but the index is 2147483952"; found by tests/metamorphic/), and
/// round-robin allocation's placing of the precondition fill, where a shared page also
/// came twice. Both look pages up through the content mode now (`Ftl::resolve`).
#[test]
fn timed_driver_finds_the_page_of_a_deduplicated_lpn() {
    use flashgc_core::timing::CachePolicy;
    let mut c = Config::default_preset();
    c.device.channels = 1;
    c.device.chips_per_channel = 1;
    c.device.pages_per_block = 8;
    c.ftl.logical_gib = Some(1.0 / 64.0);
    c.ftl.op = Some(0.12);
    c.run.placement = "mida".into();
    c.run.write_volume = 2.0;
    c.run.max_memory_gib = None;
    use flashgc_core::timing::Alloc;
    for (action, alloc) in [
        ("splitgc", Alloc::FirstIdle),
        ("cagc", Alloc::FirstIdle),
        ("dagc:cache=unbounded", Alloc::FirstIdle),
        ("dagc:cache=unbounded", Alloc::RoundRobin),
    ] {
        c.run.gc_action = action.into();
        let p = TimingParams {
            cache_pages: 64,
            cache_policy: CachePolicy::Gcar,
            alloc,
            host: Host::ClosedLoop { queue_depth: 1 },
            ..TimingParams::default()
        };
        let mut ts = TimedSim::new(&c, p).unwrap();
        let mut wl = ts.simulation().synthetic_workload().unwrap();
        let r = ts.run(&mut wl, &mut |_| {}).unwrap();
        let cache = r.timing.as_ref().unwrap().cache.as_ref().unwrap();
        assert!(cache.scanned_entries > 0, "{action}: GCaR scanned");
        let dedup = r.dedup.as_ref().unwrap();
        assert_eq!(r.total.user_writes, cache.evictions, "{action}: {dedup:?}");
    }
}

/// Background GC collects a victim without the write path's GC (it runs inside GC), so
/// its relocations could open GC frontiers out of the `gc_low` reserve and leave the next
/// foreground episode no free segment for its own ("device full"; found by the randomized
/// test, `META_SEED=3`). The reserve is restored after every background victim.
#[test]
fn background_gc_keeps_the_reserve_for_foreground_gc() {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(1.0 / 64.0);
    c.device.pages_per_block = 8;
    c.ftl.op = Some(0.12);
    c.ftl.gc_low = flashgc_core::config::Watermark::Segments(2);
    c.ftl.gc_high = Some(c.ftl.gc_low);
    (c.run.placement, c.run.victim) = ("mbf".into(), "random".into());
    (c.run.seed, c.run.write_volume, c.run.warmup) = (370, 2.0, Some(1.5));
    c.run.max_memory_gib = None;
    let p = TimingParams {
        gc_mode: GcMode::Background,
        host: Host::ClosedLoop { queue_depth: 14 },
        noc: Some(flashgc_core::device::noc::NocParams::from_config(
            &c,
            flashgc_core::device::noc::GcPath::Selective,
        )),
        ..TimingParams::default()
    };
    let mut e = flashgc_core::driver::Engine::new(&c, Some(p)).unwrap();
    let mut wl = e.simulation().synthetic_workload().unwrap();
    let end = e.run_with(&mut wl, &mut |_| {}, &mut Default::default());
    assert!(end.is_ok(), "{:?}", end.err());
}
