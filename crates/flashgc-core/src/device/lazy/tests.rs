//! The memo and the heap (`best.rs`) against a plain scan: on random mixes of host
//! operations over many resources, GC work, suspend and host-first's urgency flips, every
//! decision they make is the one a scan of every resource would make.

use super::*;
use crate::config::{DeviceConfig, TimingConfig};
use crate::device::flash::{Alloc, Costs, FlashMedia, Geometry};
use crate::device::policy::Suspend;
use crate::device::DeviceModel;
use crate::ops::FlashOp;
use proptest::prelude::*;

const US: u64 = 1000;

/// 2 channels x 2 dies x 2 planes (8 resources), 8 blocks of 4 pages each, one block per
/// segment: 64 segments, 256 pages; `wide`: segments of one block on each resource (8
/// segments of 32 pages, whose programs wait for the erase on every resource), where `alloc`
/// chooses a new flash page's resource.
fn device(scheduler: Scheduler, suspend: bool, wide: bool, alloc: Alloc) -> Scheduled<FlashMedia> {
    let d = DeviceConfig {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 2,
        planes_per_die: 2,
        blocks_per_plane: 8,
        pages_per_block: 4,
        page_size: 4096,
        lpn_size: 4096,
        segment_blocks: if wide { 8 } else { 1 },
        timing: TimingConfig {
            read_us: 50.0,
            program_us: 500.0,
            erase_us: 3000.0,
            channel_mb_s: 409.6,
            sram_us: 0.0,
            copyback: false,
        },
    };
    let (pps, segs) = if wide { (32, 8) } else { (4, 64) };
    let geo = Geometry::new(&d, pps, "CWDP").expect("geometry");
    let mut m = FlashMedia::new(geo, Costs::new(&d.timing, 4096), true, alloc, segs);
    let susp = suspend.then_some(Suspend {
        suspend_ns: 20 * US,
        resume_ns: 20 * US,
        max_per_op: 2,
    });
    m.set_suspend(susp);
    let p = ControllerParams {
        scheduler,
        suspend: susp,
        ..ControllerParams::default()
    };
    Scheduled::with_controller(m, &p)
}

/// What the test does next.
#[derive(Debug, Clone)]
enum Act {
    /// A request of `n` host operations on pages from `ppn` (stride 5), ready `delay_us`
    /// after now.
    Host {
        ppn: u32,
        n: u32,
        write: bool,
        delay_us: u64,
    },
    /// A victim: `moves` page moves from segment `seg` to segment `dst`, then its erase.
    Gc { seg: u32, dst: u32, moves: u32 },
    /// Free segments now (host-first's urgency threshold is 3).
    Free(u64),
    /// Advance the device through every decision before now + `us`.
    Advance(u64),
}

fn act() -> impl Strategy<Value = Act> {
    prop_oneof![
        5 => (0u32..256, 1u32..4, any::<bool>(), 0u64..800).prop_map(|(ppn, n, write, delay_us)| {
            Act::Host { ppn, n, write, delay_us }
        }),
        1 => (0u32..64, 0u32..64, 1u32..4).prop_map(|(seg, dst, moves)| Act::Gc { seg, dst, moves }),
        1 => (0u64..6).prop_map(Act::Free),
        3 => (0u64..1500).prop_map(Act::Advance),
    ]
}

/// Runs `acts` on a device with static allocation ([`check_on`]).
fn check(
    scheduler: Scheduler,
    suspend: bool,
    wide: bool,
    acts: &[Act],
) -> Result<(), TestCaseError> {
    check_on(device(scheduler, suspend, wide, Alloc::Static), wide, acts)
}

/// Runs `acts` on device `s` (`wide`: as built by [`device`]), checking before every
/// commit that the memo and heap decide as the scan, and that a host program is decided no
/// earlier than its segment's erase ends (a suspension of that erase on another resource
/// moves its ready time).
fn check_on(mut s: Scheduled<FlashMedia>, wide: bool, acts: &[Act]) -> Result<(), TestCaseError> {
    let (mut now, mut slot) = (0u64, 0u32);
    let (pps, segs) = if wide { (32, 8) } else { (4, 64) };
    let step = |s: &mut Scheduled<FlashMedia>, t: u64| -> Result<bool, TestCaseError> {
        let want = s.scan_decision().map(|d| (d.0, d.1));
        let got = s.decide().map(|d| (d.0, d.1));
        prop_assert_eq!(got, want);
        if let Some((
            at,
            Choice::Host {
                cell,
                idx,
                write: true,
                ..
            },
        )) = got
        {
            let lz = s.lazy.as_ref().expect("deferred mode");
            let p = lz.pending[cell as usize].q[1]
                .get(idx as usize)
                .expect("waiting");
            let erased = s.media.erased_by(s.media.segment_of(p.ppn));
            prop_assert!(
                at >= erased,
                "program of {} decided at {at} before its erase ends at {erased}",
                p.ppn
            );
        }
        Ok(s.lazy_step_before(t).is_some())
    };
    for a in acts {
        match *a {
            Act::Host {
                ppn,
                n,
                write,
                delay_us,
            } => {
                s.open_slot(slot);
                slot += 1;
                for k in 0..n {
                    let ppn = (ppn + 5 * k) % 256;
                    if write {
                        // As `schedule_lazy`: a program needing a block whose erase is
                        // still queued forces GC through that erase first.
                        s.pump_until_erased_forced(s.media.segment_of(ppn));
                    }
                    s.lazy_push(ppn, write, now + delay_us * US);
                }
            }
            Act::Gc { seg, dst, moves } => {
                // Issued within a later request, as the FTL issues GC (its waiting host
                // operations on the victim are committed first, `waiting.rs`).
                s.open_slot(slot);
                slot += 1;
                let (seg, dst) = (seg % segs, dst % segs);
                let mut ops: Vec<FlashOp> = (0..moves)
                    .map(|k| FlashOp::Copyback {
                        src: seg * pps + k,
                        dst: dst * pps + k,
                        origin: crate::ops::Origin::Gc,
                    })
                    .collect();
                ops.push(FlashOp::Erase {
                    seg,
                    origin: crate::ops::Origin::Gc,
                });
                s.enqueue(&ops, now);
            }
            Act::Free(f) => s.set_free_segments(f),
            Act::Advance(us) => {
                now += us * US;
                while step(&mut s, now)? {}
            }
        }
    }
    while step(&mut s, u64::MAX)? {}
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn read_first_decides_as_a_scan(acts in prop::collection::vec(act(), 1..120)) {
        check(Scheduler::ReadFirst, false, false, &acts)?;
    }

    #[test]
    fn read_first_with_suspend_decides_as_a_scan(acts in prop::collection::vec(act(), 1..120)) {
        check(Scheduler::ReadFirst, true, false, &acts)?;
    }

    #[test]
    fn host_first_with_urgency_decides_as_a_scan(acts in prop::collection::vec(act(), 1..120)) {
        check(Scheduler::HostFirst { urgency: 3 }, true, false, &acts)?;
    }

    /// Wide segments: a read suspending an erase moves the ready time of its segment's
    /// waiting programs on every resource (`erase_moved`).
    #[test]
    fn wide_segments_with_suspend_decide_as_a_scan(acts in prop::collection::vec(act(), 1..120)) {
        check(Scheduler::ReadFirst, true, true, &acts)?;
    }

    /// Dynamic allocation: a queued write-back whose flash page is not placed yet is probed
    /// on the resource the allocation would choose now, which host programs placed
    /// meanwhile move in wide segments (no floor is kept for it there; one-block segments
    /// keep it: their pages have one resource to go to).
    #[test]
    fn dynamic_allocation_decides_as_a_scan(
        acts in prop::collection::vec(act(), 1..120),
        rr in any::<bool>(),
        suspend in any::<bool>(),
        wide in prop::bool::weighted(0.75),
    ) {
        let alloc = if rr { Alloc::RoundRobin } else { Alloc::FirstIdle };
        check_on(device(Scheduler::ReadFirst, suspend, wide, alloc), wide, &acts)?;
    }
}

/// The best of a class queue by the definition: the least key over every waiting operation.
fn class_min(
    q: &crate::device::fifo::Fifo<Pend>,
    write: bool,
    free: u64,
    susp: Option<u64>,
) -> (Key, u32) {
    let mut best = (NO_KEY, 0);
    for (idx, p) in q.iter().enumerate() {
        let k = best::key(best::start_at(write, p.ready, free, susp), 1, p.seq);
        if k < best.0 {
            best = (k, idx as u32);
        }
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The scan of an unsorted class queue (it stops at the first operation ready by the
    /// resource's start) finds the least key of all, for reads with and without a suspend
    /// point and for programs.
    #[test]
    fn an_unsorted_queue_scan_stops_at_the_best(
        readies in prop::collection::vec(0u64..40, 0..24),
        free in 0u64..40,
        susp in prop::option::of(0u64..40),
        write in any::<bool>(),
    ) {
        let mut q = crate::device::fifo::Fifo::new();
        for (i, &ready) in readies.iter().enumerate() {
            q.push_back(Pend { seq: 3 * i as u64 + 1, ready, ppn: 0, write, slot: 0, hint: NO_HINT });
        }
        prop_assert_eq!(best::class_scan(&q, write, 1, free, susp), class_min(&q, write, free, susp));
    }
}

/// Read-first with round-robin allocation, hand-computed (1 channel x 2 dies, A and B;
/// segments of one block on each; read 50 us, program 500 us, 10 us per transfer). Host
/// programs H1 and H2 (ready 0) and H3 (ready 10 ms) are placed when queued, at the cursor:
/// A, B, A, which leaves the cursor at B. H1 runs on A 0-510 us (transfer 0-10), H2 on B
/// 10-520. A host read R of a page on B waits from 100 us; GC's queued program W, of a
/// flash page not placed yet whose static unit is A, will be placed at the cursor: B. W
/// must be decided where it runs: B is free at 520, where R (a better rank) starts first,
/// 520-580 (transfer 570-580), and W follows, 580-1090. Probed at its static unit (A,
/// free at 510), W won at 510, was placed on B and held it 520-1030 while R waited there,
/// ready since 100 us (R ended at 1090).
#[test]
fn a_queued_gc_program_is_decided_on_the_resource_allocation_gives_it() {
    let d = DeviceConfig {
        channels: 1,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 8,
        pages_per_block: 4,
        page_size: 4096,
        lpn_size: 4096,
        segment_blocks: 2,
        timing: TimingConfig {
            read_us: 50.0,
            program_us: 500.0,
            erase_us: 3000.0,
            channel_mb_s: 409.6,
            sram_us: 0.0,
            copyback: false,
        },
    };
    let geo = Geometry::new(&d, 8, "CWDP").expect("geometry");
    let m = FlashMedia::new(geo, Costs::new(&d.timing, 4096), true, Alloc::RoundRobin, 8);
    let p = ControllerParams {
        scheduler: Scheduler::ReadFirst,
        ..ControllerParams::default()
    };
    let mut s = Scheduled::with_controller(m, &p);
    // Offsets: even on A, odd on B (static); page 1 (segment 0) holds data on B.
    let (w, r) = (8, 1);
    let (a, b) = (s.media.cell_of_ppn(w), s.media.cell_of_ppn(r));
    assert_ne!(a, b);
    for (slot, (ppn, write, ready)) in [(16, true, 0), (17, true, 0), (24, true, 10_000)]
        .into_iter()
        .chain([(r, false, 100)])
        .enumerate()
    {
        s.open_slot(slot as u32);
        s.lazy_push(ppn, write, ready * US);
    }
    assert_eq!(
        [16, 17, 24].map(|p| s.media.cell_of_ppn(p)),
        [a, b, a],
        "placed at the cursor"
    );
    s.enqueue(
        &[FlashOp::Program {
            ppn: w,
            origin: crate::ops::Origin::Gc,
        }],
        0,
    );
    while s.lazy_step_before(5_000 * US).is_some() {}
    assert_eq!(s.media.cell_of_ppn(w), b, "W placed at the cursor");
    assert_eq!(s.lazy_slot_end(3), Some(580 * US), "R's end");
    assert_eq!(s.media.cell_free(b), 1090 * US, "W's end");
}
