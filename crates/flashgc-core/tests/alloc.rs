//! Round-robin page allocation (`--alloc round-robin`, Cosmos+'s die rotation;
//! docs/timing.md): hand-worked unit choices, the precondition fill placed in write order,
//! and the property it exists for: a placement's streams no longer change which die a
//! write lands on.

mod common;

use flashgc_core::config::DeviceConfig;
use flashgc_core::device::flash::{Alloc, Geometry};
use flashgc_core::device::{Costs, FlashMedia};
use flashgc_core::driver::TimedSim;
use flashgc_core::timing::{GcMode, Host, TimingParams};
use flashgc_core::workload::fio::{FioJob, Rw};
use flashgc_core::{Config, RunResult};

/// 2 channels x 2 chips (4 dies, one plane each), `ppb` pages of 4 KiB per block,
/// superblock segments of 4 blocks (one per die).
fn device(ppb: u32) -> DeviceConfig {
    DeviceConfig {
        channels: 2,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 16,
        pages_per_block: ppb,
        page_size: 4096,
        lpn_size: 4096,
        segment_blocks: 4,
        timing: common::configs::hand_timing(),
    }
}

fn media(alloc: Alloc, ppb: u32) -> FlashMedia {
    media_k(alloc, ppb, 4)
}

/// The media of [`device`] with segments of `k` blocks.
fn media_k(alloc: Alloc, ppb: u32, k: u32) -> FlashMedia {
    let mut d = device(ppb);
    d.segment_blocks = k;
    let geo = Geometry::new(&d, k * ppb, "CWDP").unwrap();
    FlashMedia::new(geo, Costs::new(&d.timing, 4096), false, alloc, 16)
}

/// Two segments written in turn, one page each, as two streams do. Static striping puts
/// page n of every superblock on unit n % 4 (both segments start on unit 0), so the two
/// streams write units 0, 0, 1, 1, ...; round-robin hands out units 0, 1, 2, 3, 0, ...
/// whatever the segment.
#[test]
fn round_robin_rotates_over_units_whatever_the_segment() {
    let ppb = 4;
    let pps = 4 * ppb;
    // Segment 1's blocks: global blocks 4..8, on units 0..4 (4 units): it also starts on 0.
    let order: Vec<u32> = (0..4).flat_map(|i| [i, pps + i]).collect();
    let mut st = media(Alloc::Static, ppb);
    let mut rr = media(Alloc::RoundRobin, ppb);
    let (mut us, mut ur) = (Vec::new(), Vec::new());
    for &ppn in &order {
        st.program(ppn, 0, false, false);
        rr.program(ppn, 0, false, false);
        us.push(st.unit_of(ppn));
        ur.push(rr.unit_of(ppn));
    }
    assert_eq!(us, [0, 0, 1, 1, 2, 2, 3, 3]);
    assert_eq!(ur, [0, 1, 2, 3, 0, 1, 2, 3]);
}

/// Blocks of 2 pages. With superblocks over every unit, a page takes the cursor's unit
/// even when the segment's block there is full (Cosmos+ would open the die's next block);
/// with superblocks of 2 blocks, a segment only has units 0-1 (segment 0) or 2-3
/// (segment 1), so a page goes to the first of its units with room at or after the
/// cursor, and a full block is skipped.
#[test]
fn round_robin_follows_the_cursor_and_skips_only_outside_the_segment() {
    let ppb = 2;
    let mut rr = media(Alloc::RoundRobin, ppb);
    let pps = 4 * ppb;
    // Two segments written unevenly; the cursor runs 0, 1, 2, 3, 0, ... regardless. The
    // last page of segment 0 comes at cursor 0, where its block already holds 2 pages: it
    // still goes to unit 0.
    let seq = [0, 1, pps, 2, 3, pps + 1, pps + 2, pps + 3, 4];
    assert_eq!(program_all(&mut rr, &seq), [0, 1, 2, 3, 0, 1, 2, 3, 0]);

    // Segments of 2 blocks (4 pages): segment 0 on units 0-1, segment 1 on units 2-3.
    // Cursor 0: segment 0 -> unit 0; 1: -> 1; 2: segment 0 has no block on 2 or 3, so the
    // scan wraps to unit 0 (its block there is now full); 3: segment 1 -> 3; 0: segment 1
    // has no block on 0 or 1 -> 2; 1: segment 0 -> 1.
    let mut rr = media_k(Alloc::RoundRobin, ppb, 2);
    let pps = 2 * ppb;
    let units = program_all(&mut rr, &[0, 1, 2, pps, pps + 1, 3]);
    assert_eq!(units, [0, 1, 0, 3, 2, 1]);
    // Segment 1 again at cursor 2 and 3: units 2 and 3, both blocks now full.
    rr.program(pps + 2, 0, false, false);
    rr.program(pps + 3, 0, false, false);
    assert_eq!((rr.unit_of(pps + 2), rr.unit_of(pps + 3)), (2, 3));
}

/// Programs the pages `seq` in turn; the unit each went to.
fn program_all(m: &mut FlashMedia, seq: &[u32]) -> Vec<u32> {
    seq.iter()
        .map(|&p| {
            m.program(p, 0, false, false);
            m.unit_of(p)
        })
        .collect()
}

fn config(placement: &str, ppb: u32) -> Config {
    let mut c = Config::default_preset();
    c.device = device(ppb);
    c.device.blocks_per_plane = 64;
    c.ftl.op = Some(0.25);
    c.ftl.logical_gib = None;
    c.run.placement = placement.into();
    c.run.victim = "greedy".into();
    c
}

fn writes(placement: &str, alloc: Alloc, fill: f64, rwmixwrite: f64, volume: u64) -> RunResult {
    let mut c = config(placement, 256);
    c.run.fill = fill;
    let l = c.layout().unwrap();
    let job = FioJob {
        rw: Rw::RandRw,
        rwmixwrite,
        bs: 4096,
        block_sizes: None,
        numjobs: 1,
        iodepth: 4,
        seed: 7,
        ..FioJob::default()
    };
    let p = TimingParams {
        gc_mode: GcMode::Foreground,
        host: Host::ClosedLoop { queue_depth: 4 },
        data_volume_bytes: Some(volume),
        alloc,
        ..TimingParams::default()
    };
    let mut ts = TimedSim::new(&c, p).unwrap();
    let mut wl = job.workload(l.logical_pages, l.lpn_size).unwrap();
    ts.run(&mut wl, &mut |_| {}).unwrap()
}

fn timing(r: &RunResult) -> (f64, f64, f64, Vec<f64>) {
    let t = r.timing.as_ref().unwrap();
    let cells = t
        .flash
        .as_ref()
        .expect("a flash report")
        .cell_utilization
        .clone();
    (
        t.iops,
        t.read_latency.mean_us,
        t.write_latency.mean_us,
        cells,
    )
}

/// Random writes after a half fill, no GC: mhf sends them to two streams (two open
/// segments), single to one. With round-robin allocation the n-th write goes to the same
/// die either way, so the two runs time identically; with static striping they differ
/// (the comparison the sup-gc paper's 1 %-write point needs; docs/cpu.md).
#[test]
fn round_robin_makes_the_timing_independent_of_the_streams() {
    let vol = 2 << 20; // 512 writes: no GC
    let single = writes("single", Alloc::RoundRobin, 0.5, 100.0, vol);
    let mhf = writes("mhf", Alloc::RoundRobin, 0.5, 100.0, vol);
    assert_eq!(single.total.gc_victims + mhf.total.gc_victims, 0);
    assert_eq!(timing(&single), timing(&mhf));
    let single_s = writes("single", Alloc::Static, 0.5, 100.0, vol);
    let mhf_s = writes("mhf", Alloc::Static, 0.5, 100.0, vol);
    assert_ne!(
        timing(&single_s),
        timing(&mhf_s),
        "static striping: the streams' segments put writes on other dies"
    );
}

/// The precondition fill is untimed; round-robin still places its pages, in the order
/// they were written, so a read-only run after the fill is timed the same whichever
/// streams the placement wrote the fill into (static striping: it is not).
#[test]
fn round_robin_places_the_precondition_fill_in_write_order() {
    let vol = 4 << 20;
    let reads = |p: &str, a: Alloc| timing(&writes(p, a, 0.5, 0.0, vol));
    let base = reads("single", Alloc::RoundRobin);
    // One stream, sequential fill: static striping rotates the same way.
    assert_eq!(base, reads("single", Alloc::Static));
    for p in ["mhf", "bf-gc", "mbf"] {
        assert_eq!(reads(p, Alloc::RoundRobin), base, "{p}");
    }
    // mhf's classifier sends part of the fill to a second stream: other dies, statically.
    assert_ne!(reads("mhf", Alloc::Static), base);
}
