//! A host program waiting for its wide segment's erase, when a read suspends that erase on
//! another die (docs/controller.md, "How it is modelled": a waiting program is ready when
//! its segment's erase has ended on every die, and a suspension there moves that later).
//! Hand-computed on the flash device itself: the FTL cannot be steered into this state by a
//! short request list.

use flashgc_core::config::DeviceConfig;
use flashgc_core::device::flash::{Alloc, Geometry};
use flashgc_core::device::policy::{ControllerParams, Scheduler, Suspend};
use flashgc_core::device::sched::{Media, Scheduled};
use flashgc_core::device::{Costs, DeviceModel, FlashMedia, GcPolicy, ReadGroup};
use flashgc_core::ops::{FlashOp, Origin};

mod common;

const US: u64 = 1000;

/// 2 channels x 1 die x 1 plane (die A on channel 0, die B on channel 1), 4 blocks of 2
/// pages, segments of one block on each die (4 pages); the hand timing (read 50 us, program
/// 500 us, erase 3000 us, 10 us per transfer); read-first with suspend (20 us / 20 us).
fn device() -> Scheduled<FlashMedia> {
    let d = DeviceConfig {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 4,
        pages_per_block: 2,
        page_size: 4096,
        lpn_size: 4096,
        segment_blocks: 2,
        timing: common::configs::hand_timing(),
    };
    let geo = Geometry::new(&d, 4, "CWDP").expect("geometry");
    let mut m = FlashMedia::new(geo, Costs::new(&d.timing, 4096), false, Alloc::Static, 4);
    let suspend = Some(Suspend {
        suspend_ns: 20 * US,
        resume_ns: 20 * US,
        max_per_op: 4,
    });
    m.set_suspend(suspend);
    let p = ControllerParams {
        scheduler: Scheduler::ReadFirst,
        suspend,
        ..ControllerParams::default()
    };
    Scheduled::with_controller(m, &p)
}

/// Issues request `slot` (`ops`) arriving at `t_us`, after every decision before it.
fn issue(d: &mut Scheduled<FlashMedia>, slot: u32, ops: &[FlashOp], t_us: u64) {
    while d.step_before(t_us * US).is_some() {}
    d.open_slot(slot);
    let gc = GcPolicy {
        now: false,
        barrier: false,
    };
    let mut ready = t_us * US;
    d.schedule(ops, t_us * US, &mut ready, &mut ReadGroup::default(), gc);
}

/// Segment 0's erase (GC) runs on both dies from 0 to 3000 us, and a host write W of a page
/// of segment 0 on die A, issued with it at 0, waits for it: a wide segment's page is
/// programmed once the whole segment is erased. A read RB on die B at 1000 us suspends the
/// erase there: cell 1020-1070, bus 1070-1080 => RB ends at 1080 us; the erase resumes at
/// 1100 with its 2000 us left and ends at 3100, so W is ready at 3100, not at 3000 (when die
/// A's block is erased). A read RA on die A at 3050 us finds die A idle since 3000:
///
/// * RA first (W ready at 3100): cell 3050-3100, bus 3100-3110 => RA ends at 3110 us; W bus
///   3110-3120, cell 3120-3620 => W ends at 3620 us.
/// * Before the fix, W was ranked by die A's erase end (3000 us), decided before RA became
///   ready and then held die A from 3100 (bus 3100-3110, cell 3110-3610); RA suspended it
///   (cell 3130-3180, bus 3180-3190 => RA 3190 us) and W ended at 3710 us.
#[test]
fn a_suspended_erase_delays_the_waiting_programs_of_its_segment() {
    let mut d = device();
    let pages: Vec<(u32, usize)> = (0..8).map(|p| (p, d.media().cell_of(p))).collect();
    let on = |seg: u32, cell: usize| {
        pages
            .iter()
            .find(|&&(p, c)| p / 4 == seg && c == cell)
            .expect("a page of the segment on the die")
            .0
    };
    let (a, b) = (0, 1);
    let host = Origin::Host;
    let w = on(0, a);
    issue(
        &mut d,
        0,
        &[
            FlashOp::Erase {
                seg: 0,
                origin: Origin::Gc,
            },
            FlashOp::Program {
                ppn: w,
                origin: host,
            },
        ],
        0,
    );
    issue(
        &mut d,
        1,
        &[FlashOp::Read {
            ppn: on(1, b),
            origin: host,
        }],
        1000,
    );
    issue(
        &mut d,
        2,
        &[FlashOp::Read {
            ppn: on(1, a),
            origin: host,
        }],
        3050,
    );
    while d.step_before(u64::MAX).is_some() {}
    let end = |slot| d.slot_end(slot).expect("all reserved") / US;
    assert_eq!((end(0), end(1), end(2)), (3620, 1080, 3110));
}
