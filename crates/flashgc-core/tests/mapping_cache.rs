//! The mapping-table cache (DFTL-style CMT, docs/mapping-cache.md): a hand-worked tiny
//! example of hits, misses, translation reads and writes; the exact cost of a miss on an
//! idle device; translation writes in WAF (WAF-only and timed); monotone traffic and
//! latency as the cache shrinks (DFTL's direction); checkpoint/resume byte for byte; bad
//! input.

use flashgc_core::checkpoint::CheckpointReader;
use flashgc_core::config::MappingCacheConfig;
use flashgc_core::driver::{Engine, TimedSim};
use flashgc_core::sim::{RunControl, RunEnd};
use flashgc_core::timing::{Host, TimingParams};
use flashgc_core::workload::{Op, Request};
use flashgc_core::{Config, Simulation};

mod common;

/// 64 MiB logical (16384 LPNs of 4 KiB), 32-page segments, op 0.15.
fn small(cache_bytes: Option<u64>) -> Config {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(1.0 / 16.0);
    c.ftl.op = Some(0.15);
    c.device.pages_per_block = 32;
    c.run.workload = "zipf:0.8".into();
    c.run.read_ratio = 0.5;
    c.run.write_volume = 3.0;
    c.run.warmup = Some(1.0);
    c.run.max_memory_gib = None;
    c.ftl.mapping_cache = cache_bytes.map(|bytes| MappingCacheConfig {
        bytes,
        ..MappingCacheConfig::default()
    });
    c
}

fn run_waf(c: &Config) -> flashgc_core::RunResult {
    let mut sim = Simulation::new(c).unwrap();
    let mut wl = sim.synthetic_workload().unwrap();
    sim.run(&mut wl, &mut |_| {}).unwrap()
}

fn run_timed(c: &Config) -> flashgc_core::RunResult {
    let p = TimingParams {
        host: Host::ClosedLoop { queue_depth: 8 },
        data_volume_bytes: Some(64 << 20),
        ..TimingParams::default()
    };
    let mut d = TimedSim::new(c, p).unwrap();
    let mut wl = d.simulation().synthetic_workload().unwrap();
    d.run(&mut wl, &mut |_| {}).unwrap()
}

#[test]
fn hand_worked_hits_misses_reads_and_writes() {
    // 4 entries of 4 B per 16-byte translation page; 2 pages cached (32 bytes).
    let mut c = small(None);
    // A quarter of the data again in translation pages, which must fit on flash too.
    c.ftl.op = Some(0.45);
    c.ftl.mapping_cache = Some(MappingCacheConfig {
        bytes: 32,
        entry_bytes: 4,
        translation_page_bytes: Some(16),
    });
    let mut sim = Simulation::new(&c).unwrap();
    let logical = sim.layout().logical_pages;
    let f = sim.ftl_mut();
    let cm = f.mapping_cache().unwrap().params();
    assert_eq!((cm.entries_per_page, cm.capacity), (4, 2));
    assert_eq!(cm.pages as u64, logical.div_ceil(4));
    f.write(0).unwrap(); // tp0 miss, never written: no read.   cache [0d]
    f.write(1).unwrap(); // tp0 hit.                             cache [0d]
    f.write(4).unwrap(); // tp1 miss.                            cache [1d 0d]
    f.read(8); //           tp2 miss, evicts dirty tp0: write 1.  cache [2 1d]
    f.read(0); //           tp0 miss, evicts dirty tp1: write 2; tp0 is in flash: read 1.
    f.read(9); //           tp2 hit.                             cache [2 0]
    f.write(12).unwrap(); // tp3 miss, evicts clean tp0: no write. cache [3d 2]
    let t = f.counters.translation.unwrap();
    assert_eq!((t.hits, t.misses, t.reads, t.writes), (2, 5, 1, 2));
    // The translation writes are flash programs: 4 user + 2 translation pages written.
    assert_eq!(f.written_pages(), 6);
    assert_eq!(f.counters.extra_programs(), 2);
    f.check().unwrap();
}

#[test]
fn a_miss_costs_one_translation_read_on_an_idle_device() {
    let mut c = small(Some(4096)); // one translation page cached
    c.run.fill = 1.0;
    let p = TimingParams {
        host: Host::ClosedLoop { queue_depth: 1 },
        ..TimingParams::default()
    };
    let mut d = TimedSim::new(&c, p).unwrap();
    d.start().unwrap();
    let rd = |lpn| Request {
        time_ns: 0,
        op: Op::Read,
        lpn,
        pages: 1,
        content: 0,
        fua: false,
    };
    // Far apart in time: each request finds the device idle. The first miss evicts the
    // page the fill left dirty (a translation write); the next miss evicts a clean page.
    let gap = 1_000_000_000u64;
    d.serve(&rd(5000), gap).unwrap();
    let before = d.simulation().ftl().counters.translation.unwrap();
    // LPN 9000's translation page (1024 entries per page) is not cached.
    let miss = d.serve(&rd(9000), 2 * gap).unwrap() - 2 * gap;
    let hit = d.serve(&rd(9001), 3 * gap).unwrap() - 3 * gap;
    let t = d.simulation().ftl().counters.translation.unwrap();
    let (h, m, r, w) = (
        t.hits - before.hits,
        t.misses - before.misses,
        t.reads - before.reads,
        t.writes - before.writes,
    );
    assert_eq!((h, m, r, w), (1, 1, 1, 0), "{t:?}");
    // A read is read + transfer + SRAM; a miss is the translation page's read, then the data's.
    assert!(hit > 0);
    assert_eq!(miss, 2 * hit, "miss {miss} ns, hit {hit} ns");
}

#[test]
fn translation_writes_count_in_waf_only_runs() {
    let r = run_waf(&small(Some(16 << 10)));
    for ph in [&r.total, &r.steady_state] {
        let t = ph.translation.as_ref().expect("translation section");
        assert!(t.translation_writes > 0 && t.misses > 0);
        assert_eq!(
            ph.flash_programs,
            ph.user_writes + ph.gc_writes + t.translation_writes
        );
        assert!(ph.waf > t.waf_without_translation);
        let w =
            (ph.user_writes + ph.gc_writes + t.translation_writes) as f64 / ph.user_writes as f64;
        assert!((ph.waf - w).abs() < 1e-12);
    }
    // Off: no section, and the same WAF definition as always.
    let off = run_waf(&small(None));
    assert!(off.steady_state.translation.is_none());
    let json = serde_json::to_string(&off).unwrap();
    assert!(!json.contains("translation"), "cache off adds no fields");
    // GC works on: the checker passes after every victim with translation pages around.
    let mut c = small(Some(8 << 10));
    c.run.write_volume = 1.5;
    let mut sim = Simulation::new(&c).unwrap();
    sim.ftl_mut().set_check_after_gc(true);
    let mut wl = sim.synthetic_workload().unwrap();
    let r = sim.run(&mut wl, &mut |_| {}).unwrap();
    assert!(r.total.gc_victims > 0);
}

#[test]
fn smaller_cache_more_translation_traffic_and_latency() {
    // Whole table (16476 LPNs / 1024 per page = 17 pages = 68 KiB), a quarter, one page.
    let sizes = [68u64 << 10, 16 << 10, 4 << 10];
    let mut prev: Option<(f64, u64, f64, f64)> = None;
    let mut rows = Vec::new();
    for &b in &sizes {
        let r = run_timed(&small(Some(b)));
        let t = r.total.translation.clone().unwrap();
        let tm = r.timing.as_ref().unwrap();
        let traffic = t.translation_reads + t.translation_writes;
        let lat = tm.read_latency.mean_us;
        let cur = (t.hit_ratio, traffic, lat, tm.iops);
        rows.push((b, cur));
        if let Some(p) = prev {
            assert!(
                cur.0 <= p.0,
                "hit ratio rises as the cache shrinks: {rows:?}"
            );
            assert!(cur.1 >= p.1, "translation traffic falls: {rows:?}");
            assert!(cur.2 >= p.2, "mean read latency falls: {rows:?}");
            assert!(cur.3 <= p.3, "IOPS rise: {rows:?}");
        }
        prev = Some(cur);
    }
    // The whole table cached: after the cold misses, nothing to read or write back
    // (DFTL's limit: page-level FTL performance).
    let full = &rows[0].1;
    assert!(full.0 > 0.99, "{rows:?}");
    // One page: mostly misses (DFTL Fig. 9 direction: response time grows as the CMT shrinks).
    let one = &rows[2].1;
    assert!(one.0 < 0.5 && one.2 > full.2 * 1.2, "{rows:?}");
    // Cache off equals today's timed run; a whole-table cache costs only cold misses.
    let off = run_timed(&small(None));
    let off_lat = off.timing.as_ref().unwrap().read_latency.mean_us;
    assert!(full.2 >= off_lat, "{} vs {off_lat}", full.2);
}

#[test]
fn deterministic_and_resumes_byte_for_byte() {
    let c = small(Some(8 << 10));
    let p = TimingParams {
        host: Host::ClosedLoop { queue_depth: 4 },
        data_volume_bytes: Some(48 << 20),
        ..TimingParams::default()
    };
    let json = |r: &flashgc_core::RunResult| serde_json::to_string_pretty(r).unwrap();
    let wl = || Simulation::new(&c).unwrap().synthetic_workload().unwrap();
    let want = {
        let mut e = Engine::new(&c, Some(p.clone())).unwrap();
        match e
            .run_with(&mut wl(), &mut |_| {}, &mut RunControl::default())
            .unwrap()
        {
            RunEnd::Finished(r) => json(&r),
            RunEnd::Stopped { .. } => unreachable!(),
        }
    };
    assert!(want.contains("translation_writes"));
    let again = json(&run_timed_with(&c, &p));
    assert_eq!(want, again, "same config, same result");
    let file = std::env::temp_dir().join(format!("flashgc-cmt-{}.ckpt", std::process::id()));
    let got = json(&common::resume::resumed(
        &c,
        &p,
        &[2_000, 2_001, 7_000],
        "cmt",
        &mut |e, ctl| e.run_with(&mut wl(), &mut |_| {}, ctl).unwrap(),
    ));
    assert_eq!(want, got, "resumed run differs");
    // WAF-only too.
    let want = json(&run_waf(&c));
    let mut sim = Simulation::new(&c).unwrap();
    let mut ctl = RunControl {
        checkpoint: Some(file.clone()),
        stop_after_requests: Some(3_000),
        ..RunControl::default()
    };
    assert!(matches!(
        sim.run_with(&mut wl(), &mut |_| {}, &mut ctl).unwrap(),
        RunEnd::Stopped { .. }
    ));
    let mut sim = Simulation::from_checkpoint(CheckpointReader::open(&file).unwrap()).unwrap();
    let got = json(&sim.run(&mut wl(), &mut |_| {}).unwrap());
    let _ = std::fs::remove_file(&file);
    assert_eq!(want, got, "resumed WAF-only run differs");
}

fn run_timed_with(c: &Config, p: &TimingParams) -> flashgc_core::RunResult {
    let mut d = TimedSim::new(c, p.clone()).unwrap();
    let mut wl = d.simulation().synthetic_workload().unwrap();
    d.run(&mut wl, &mut |_| {}).unwrap()
}

#[test]
fn out_of_range_sizes_name_the_field() {
    for (m, field) in [
        (
            MappingCacheConfig {
                bytes: 1 << 30,
                ..Default::default()
            },
            "ftl.mapping_cache.bytes",
        ),
        (
            MappingCacheConfig {
                bytes: 100,
                ..Default::default()
            },
            "ftl.mapping_cache.bytes",
        ),
        (
            MappingCacheConfig {
                entry_bytes: 0,
                ..Default::default()
            },
            "ftl.mapping_cache.entry_bytes",
        ),
        (
            MappingCacheConfig {
                translation_page_bytes: Some(8192),
                ..Default::default()
            },
            "ftl.mapping_cache.translation_page_bytes",
        ),
    ] {
        let mut c = small(None);
        c.ftl.mapping_cache = Some(m);
        match Simulation::new(&c) {
            Ok(_) => panic!("accepted {field}"),
            Err(e) => assert!(e.to_string().contains(field), "{e}"),
        }
    }
}

/// One plane on one channel (every operation takes turns), 16 segments of one 2-page block,
/// 16 logical pages; 4 entries per 16-byte translation page (4 of them), one cached.
fn one_plane_tiny_cache() -> Config {
    let mut c = Config::default_preset();
    c.device = flashgc_core::config::DeviceConfig {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 16,
        pages_per_block: 2,
        page_size: 4096,
        lpn_size: 4096,
        segment_blocks: 1,
        timing: common::configs::hand_timing(),
    };
    c.ftl.op = Some(1.0);
    c.ftl.logical_gib = None;
    c.run.fill = 0.0;
    c.ftl.mapping_cache = Some(MappingCacheConfig {
        bytes: 16,
        entry_bytes: 4,
        translation_page_bytes: Some(16),
    });
    c
}

/// A read whose mapping-cache miss writes back a dirty translation page, whose segment the
/// GC pass it starts frees, and that pass moves the very page the read reads (docs/timing.md,
/// "GC scheduling"). Untimed set-up: LPNs 0..16, then 1, 5, 9, 13, 3, 7 (their translation
/// writes included): 3 segments free (gc_low 3), LPN 8 at PPN 10 (segment 5, whose other
/// page is invalid), translation page 1 cached dirty, the translation frontier full.
///
/// Read LPN 8 at t = 0 (one plane: read 50 + 10 us transfer, program 10 + 500 us, erase
/// 3000 us, in commit order). The miss on translation page 2 evicts tp1: its write-back
/// opens a segment, 2 are left free, GC runs to 3: victim segment 5 moves LPN 8 10 -> 0
/// and is erased; victim segment 8 moves LPN 12 16 -> 1, reads and rewrites the uncached
/// translation page 3 (27 -> 14) and is erased. Then tp1 is written at 15, tp2 read at 26,
/// and LPN 8 read at its new PPN 0.
/// * foreground / per-die (blocking GC, committed in the FTL's order): move read 0-60,
///   write-back 60-570, erase 570-3570; move read 3570-3630, tp3 read 3630-3690,
///   write-back 3690-4200, tp3 write 4200-4710, erase 4710-7710; tp1 write 7710-8220,
///   tp2 read 8220-8280, LPN 8 read 8280-8340 => 8340 us. (Before this rule the GC pass
///   was committed after the call's last operation, so the translation write ran 0-510, tp2
///   read 510-570 and the host read 570-630, before the write-back that programs its page.)
/// * preemptible, pace 0 (GC in idle gaps): tp1 write 0-510, tp2 read 510-570; the read of
///   LPN 8's new page first commits the GC queue through that page's write-back (docs/
///   controller.md, "Reads of a page GC is moving"): move read 570-630, write-back 630-1140,
///   then the read 1140-1200 => 1200 us. (Before that rule it was timed at the new location
///   ahead of the write-back: 570-630 => 630 us.)
#[test]
fn a_read_whose_miss_starts_gc_waits_for_the_move_of_its_page() {
    use flashgc_core::timing::GcMode;
    for (mode, want) in [
        (GcMode::Foreground, 8340),
        (GcMode::PerDie, 8340),
        (GcMode::Preemptible, 1200),
    ] {
        let p = TimingParams {
            gc_mode: mode,
            gc_pace: 0,
            host: Host::OpenLoop { time_scale: 1.0 },
            ..TimingParams::default()
        };
        let mut ts = TimedSim::new(&one_plane_tiny_cache(), p).unwrap();
        let l = ts.simulation().layout().clone();
        assert_eq!(
            (
                l.segments,
                l.pages_per_segment,
                l.logical_pages,
                l.gc_low,
                l.gc_high
            ),
            (16, 2, 16, 3, 3)
        );
        let ftl = ts.simulation_mut().ftl_mut();
        for lpn in (0..16).chain([1, 5, 9, 13, 3, 7]) {
            ftl.write(lpn).unwrap();
        }
        assert_eq!(ftl.free_segments(), 3);
        assert_eq!(ftl.mapping().lookup(8), Some(10));
        let before = ftl.counters.clone();
        ts.start_clock();
        let rd = Request {
            time_ns: 0,
            op: Op::Read,
            lpn: 8,
            pages: 1,
            content: 0,
            fua: false,
        };
        let done = ts.serve(&rd, 0).unwrap();
        assert_eq!(done, want * 1000, "{mode:?}");
        let c = &ts.simulation().ftl().counters;
        let t = c.translation.unwrap();
        let t0 = before.translation.unwrap();
        assert_eq!(
            (c.gc_writes - before.gc_writes, c.erases - before.erases),
            (2, 2),
            "{mode:?}: two pages moved, two segments erased"
        );
        assert_eq!(
            (
                t.writes - t0.writes,
                t.reads - t0.reads,
                t.gc_updates - t0.gc_updates
            ),
            (2, 2, 1),
            "{mode:?}: tp1's write-back and tp2's read, tp3's batch update"
        );
        assert_eq!(ts.simulation().ftl().mapping().lookup(8), Some(0));
    }
}
