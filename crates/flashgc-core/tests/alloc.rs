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

/// 1 channel x 2 dies (one plane each), 16 blocks of 4 flash pages of two 4 KiB units,
/// segments of one block per die (a flash page may go to either die): `alloc`'s media.
fn two_unit_pages(alloc: Alloc) -> FlashMedia {
    let d = DeviceConfig {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 2,
        planes_per_die: 1,
        blocks_per_plane: 16,
        pages_per_block: 4,
        page_size: 8192,
        lpn_size: 4096,
        segment_blocks: 2,
        timing: common::configs::hand_timing(),
    };
    let geo = Geometry::new(&d, 2 * 4 * 2, "CWDP").unwrap();
    FlashMedia::new(geo, Costs::new(&d.timing, 4096), false, alloc, 16)
}

/// Open finding (a) of the schedule audit, fixed: with the mapping cache, GC's translation
/// write of a flash page's first unit waits in the GC queue (preemptible GC) while the host
/// path's translation write of its second unit is reserved when issued. Dynamic allocation
/// placed the second unit first and then placed the page again for the first (on the
/// other, idle die): the page's units ended up on two dies. Now the GC queue is committed
/// through the earlier unit first, and the page is placed once, on one die.
#[test]
fn a_flash_page_is_placed_once_when_gc_queued_its_first_unit() {
    use flashgc_core::device::sched::Scheduled;
    use flashgc_core::device::{DeviceModel, GcPolicy, ReadGroup};
    use flashgc_core::ops::{FlashOp, Origin};
    for alloc in [Alloc::FirstIdle, Alloc::RoundRobin] {
        let mut dev = Scheduled::new(two_unit_pages(alloc));
        let queued = GcPolicy {
            now: false,
            barrier: false,
        };
        let (mut ready, mut rg) = (0, ReadGroup::default());
        let gc = [FlashOp::Program {
            ppn: 0,
            origin: Origin::Gc,
        }];
        dev.schedule(&gc, 0, &mut ready, &mut rg, queued);
        let host = [FlashOp::Program {
            ppn: 1,
            origin: Origin::Translation,
        }];
        dev.schedule(&host, 0, &mut ready, &mut rg, queued);
        dev.pump(None, usize::MAX);
        let busy = dev.media().cell_busy();
        assert_eq!(
            busy.iter().filter(|&&b| b > 0).count(),
            1,
            "{alloc:?}: the flash page's units on one die, busy {busy:?}"
        );
        // Both transfers, then one cell program.
        assert_eq!(dev.media().makespan(), 2 * 10_000 + 500_000, "{alloc:?}");
    }
}

/// Open finding of the schedule audit, fixed: with static placement, GC's write-back of a
/// flash page's first unit waits in the GC queue (preemptible GC, a stream shared by host
/// and GC writes) while a host or translation write of the page's second unit is reserved
/// when issued (first come first served) or decided first (read-first ranks host writes
/// before GC writes). It completed the page, starting its cell program at 10 us, before
/// the first unit had reached the page register (its transfer ran at 510-520 us, after the
/// program). Now the GC queue is committed through the earlier unit first: unit 0's
/// transfer 0-10 us, unit 1's 10-20 us, then the page's one cell program until 520 us.
#[test]
fn static_placement_programs_a_flash_page_after_gc_queued_its_first_unit() {
    use flashgc_core::device::policy::{ControllerParams, Scheduler};
    use flashgc_core::device::sched::Scheduled;
    use flashgc_core::device::{DeviceModel, GcPolicy, ReadGroup};
    use flashgc_core::ops::{FlashOp, Origin};
    const US: u64 = 1000;
    let queued = GcPolicy {
        now: false,
        barrier: false,
    };
    let ops = |origin| {
        [
            FlashOp::Program {
                ppn: 0,
                origin: Origin::Gc,
            },
            FlashOp::Program { ppn: 1, origin },
        ]
    };
    // First come first served: the host write is reserved when issued, the translation
    // write (which the host does not wait for) too.
    for origin in [Origin::Host, Origin::Translation] {
        let mut dev = Scheduled::new(two_unit_pages(Alloc::Static));
        let (mut ready, mut rg) = (0, ReadGroup::default());
        let end = dev.schedule(&ops(origin), 0, &mut ready, &mut rg, queued);
        if origin == Origin::Host {
            assert_eq!(end, 520 * US, "the host write completes the page");
        }
        assert!(
            !dev.queued(),
            "{origin:?}: GC's earlier unit committed first"
        );
        assert_eq!(
            dev.pump(None, usize::MAX),
            0,
            "{origin:?}: nothing left to pump"
        );
        assert_eq!(dev.media().makespan(), 520 * US, "{origin:?}");
    }
    // Deferred commit: read-first would decide the waiting host write first.
    let p = ControllerParams {
        scheduler: Scheduler::ReadFirst,
        ..ControllerParams::default()
    };
    let mut dev = Scheduled::with_controller(two_unit_pages(Alloc::Static), &p);
    let (mut ready, mut rg) = (0, ReadGroup::default());
    dev.open_slot(0);
    dev.schedule(&ops(Origin::Host), 0, &mut ready, &mut rg, queued);
    while dev.next_decision().is_some() {
        dev.step();
    }
    assert!(!dev.queued(), "GC's earlier unit committed");
    assert_eq!(
        dev.slot_end(0),
        Some(520 * US),
        "the host write completes the page"
    );
    assert_eq!(dev.media().makespan(), 520 * US);
}

/// The one-FIFO approximation, counted and said: GC has queued a whole flash page on die 1
/// (units 2 and 3) and then unit 0 of a page on die 0; a host write of unit 1 must wait for
/// unit 0, and the one GC queue commits die 1's page first. Hand-computed on the shared
/// channel: transfers of 2 and 3 at 0-20 us and die 1's program at 20-520, unit 0's
/// transfer at 20-30, the host unit's at 30-40 and die 0's program at 40-540 (520 us if
/// only unit 0 were committed). The report counts one wait that committed three GC
/// operations, and the result's note says the write's latency is an upper bound.
#[test]
fn a_host_write_waiting_for_gc_s_earlier_unit_is_counted_with_the_fifo_s_work() {
    use flashgc_core::device::sched::Scheduled;
    use flashgc_core::device::{DeviceModel, DeviceReport, GcPolicy, ReadGroup};
    use flashgc_core::ops::{FlashOp, Origin};
    const US: u64 = 1000;
    let queued = GcPolicy {
        now: false,
        barrier: false,
    };
    let gc = |ppn| FlashOp::Program {
        ppn,
        origin: Origin::Gc,
    };
    let host = FlashOp::Program {
        ppn: 1,
        origin: Origin::Host,
    };
    let mut dev = Scheduled::new(two_unit_pages(Alloc::Static));
    let (mut ready, mut rg) = (0, ReadGroup::default());
    let end = dev.schedule(&[gc(2), gc(3), gc(0), host], 0, &mut ready, &mut rg, queued);
    assert_eq!(end, 540 * US, "die 1's page went first");
    let Some(DeviceReport::Flash(f)) = dev.report(end) else {
        panic!("a flash report");
    };
    assert_eq!((f.gc_page_waits, f.gc_page_wait_ops), (1, 3));
    let note = f.one_fifo_note().expect("a note");
    assert!(
        note.starts_with("approximate: 1 host or translation writes waited")
            && note.contains("committed 3 GC"),
        "{note}"
    );
    // Without GC's earlier unit queued there is no wait, no count and no note.
    let mut dev = Scheduled::new(two_unit_pages(Alloc::Static));
    dev.schedule(&[gc(2), gc(3), gc(0)], 0, &mut ready, &mut rg, queued);
    dev.pump(None, usize::MAX);
    dev.schedule(&[host], 0, &mut ready, &mut rg, queued);
    let Some(DeviceReport::Flash(f)) = dev.report(540 * US) else {
        panic!("a flash report");
    };
    assert_eq!((f.gc_page_waits, f.gc_page_wait_ops), (0, 0));
    assert!(f.one_fifo_note().is_none());
}

/// Open finding (b) of the schedule audit, fixed: under deferred commit (read-first with
/// suspend), dynamic allocation chooses a host program's die when the program is queued,
/// so it waits, is decided and can be suspended where it runs. One die is busy
/// programming; a host write of a flash page whose static die is that one is placed on the
/// idle die and starts at once; a host read on the idle die at 100 us suspends it. (Before,
/// it waited at the busy die until that die was free, then ran on the other die after the
/// read: no suspension, and a program that waited for a die it did not use.)
#[test]
fn a_waiting_program_is_placed_when_queued_and_suspended_where_it_runs() {
    use flashgc_core::device::policy::{ControllerParams, Scheduler, Suspend};
    use flashgc_core::device::sched::Scheduled;
    use flashgc_core::device::{DeviceModel, GcPolicy, ReadGroup};
    use flashgc_core::ops::{FlashOp, Origin};
    const US: u64 = 1000;
    let mut m = two_unit_pages(Alloc::FirstIdle);
    let susp = Suspend {
        suspend_ns: 20 * US,
        resume_ns: 20 * US,
        max_per_op: 2,
    };
    m.set_suspend(Some(susp));
    // Segment 1's first flash page (units 16, 17) lives on die `d` statically; die `d` is
    // busy with a flash page of segment 2 (placed there statically) until 520 us.
    let d = m.geo.unit_static(16);
    let busy_ppn = (32..48)
        .step_by(2)
        .find(|&p| m.geo.unit_static(p) == d)
        .unwrap();
    m.alloc = Alloc::Static;
    m.program(busy_ppn, 0, false, false);
    let busy_end = m.program(busy_ppn + 1, 0, false, false);
    m.alloc = Alloc::FirstIdle;
    assert_eq!(busy_end, 520 * US);
    let p = ControllerParams {
        scheduler: Scheduler::ReadFirst,
        suspend: Some(susp),
        ..ControllerParams::default()
    };
    let mut dev = Scheduled::with_controller(m, &p);
    let gc = GcPolicy {
        now: true,
        barrier: true,
    };
    let (mut ready, mut rg) = (0, ReadGroup::default());
    dev.open_slot(0);
    let write = [16, 17].map(|ppn| FlashOp::Program {
        ppn,
        origin: Origin::Host,
    });
    dev.schedule(&write, 0, &mut ready, &mut rg, gc);
    while dev.next_decision().is_some_and(|t| t < 100 * US) {
        dev.step();
    }
    // A read of precondition data on the other die (segment 3, statically there).
    let other = (48..64)
        .find(|&p| dev.media().geo.unit_static(p) != d)
        .unwrap();
    dev.open_slot(1);
    let mut ready = 100 * US;
    let read = [FlashOp::Read {
        ppn: other,
        origin: Origin::Host,
    }];
    dev.schedule(&read, 100 * US, &mut ready, &mut rg, gc);
    while dev.next_decision().is_some() {
        dev.step();
    }
    let (w, r) = (dev.slot_end(0).unwrap(), dev.slot_end(1).unwrap());
    assert_eq!(dev.suspensions(), 1, "write ends {w}, read ends {r}");
    assert!(r < w, "the read suspended the write: read {r}, write {w}");
    // The write's own program started at once (its transfer after die 0's on the channel)
    // and did not wait for die 0.
    assert!(w < busy_end + 200 * US, "write ends {w}");
}
