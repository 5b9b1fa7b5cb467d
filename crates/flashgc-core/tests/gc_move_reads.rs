//! A read of a page GC has moved but not yet written back never reads a flash page that
//! holds no data yet (docs/controller.md, "Reads of a page GC is moving"). Hand-computed on
//! the flash device itself: under first come first served with GC queued (the preemptible
//! modes) the queued write-back is committed first and the read waits for it, as MQSim
//! holds a read of an LPA that GC has locked until the GC write completes; under deferred
//! commit a read issued while the write-back is still queued reads the old copy, which
//! keeps the data until the victim's erase, and a read does not suspend the running
//! write-back of its own page. Before, these reads ran ahead of the write-back, on a flash
//! page that held no data yet.

use flashgc_core::config::DeviceConfig;
use flashgc_core::device::flash::{Alloc, Geometry};
use flashgc_core::device::policy::{ControllerParams, Scheduler, Suspend};
use flashgc_core::device::sched::Scheduled;
use flashgc_core::device::{Costs, DeviceModel, DeviceReport, FlashMedia, GcPolicy, ReadGroup};
use flashgc_core::ops::{FlashOp, Origin};

mod common;

const US: u64 = 1000;

/// GC queued, not committed with the FTL call (a preemptible mode).
const QUEUED: GcPolicy = GcPolicy {
    now: false,
    barrier: false,
};

/// One channel, one die, one plane, 4 blocks of 2 pages, segments of one block; the hand
/// timing (read 50 us, program 500 us, 10 us per 4 KiB transfer, no controller memory
/// time). Every page is on the one die: a read holds it 50 us and the bus 10 us after, a
/// program holds the bus 10 us and then the die 500 us.
fn device(p: Option<ControllerParams>) -> Scheduled<FlashMedia> {
    device_on(1, p)
}

/// [`device`] on `channels` channels of one die each: with one-block segments, segment `s`
/// (pages `2s` and `2s + 1`) is on channel `s % channels`.
fn device_on(channels: u32, p: Option<ControllerParams>) -> Scheduled<FlashMedia> {
    let d = DeviceConfig {
        channels,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 4,
        pages_per_block: 2,
        page_size: 4096,
        lpn_size: 4096,
        segment_blocks: 1,
        timing: common::configs::hand_timing(),
    };
    let geo = Geometry::new(&d, 2, "CWDP").expect("geometry");
    let mut m = FlashMedia::new(geo, Costs::new(&d.timing, 4096), false, Alloc::Static, 4);
    match p {
        Some(p) => {
            m.set_suspend(p.suspend);
            Scheduled::with_controller(m, &p)
        }
        None => Scheduled::new(m),
    }
}

fn read_first(suspend: Option<Suspend>) -> Option<ControllerParams> {
    Some(ControllerParams {
        scheduler: Scheduler::ReadFirst,
        suspend,
        ..ControllerParams::default()
    })
}

/// Issues request `slot` (`ops`) arriving at `t_us`, after every decision before it
/// (deferred commit); returns what `schedule` returns (first come first served: the
/// request's end).
fn issue(d: &mut Scheduled<FlashMedia>, slot: u32, ops: &[FlashOp], t_us: u64) -> u64 {
    if d.deferred() {
        while d.step_before(t_us * US).is_some() {}
        d.open_slot(slot);
    }
    let mut ready = t_us * US;
    d.schedule(
        ops,
        t_us * US,
        &mut ready,
        &mut ReadGroup::default(),
        QUEUED,
    )
}

/// GC moves page 0 to page 4 (its read, then its write-back), issued with a host write of
/// page 6.
fn move_and_write() -> [FlashOp; 2] {
    [
        FlashOp::Copyback {
            src: 0,
            dst: 4,
            origin: Origin::Gc,
        },
        FlashOp::Program {
            ppn: 6,
            origin: Origin::Host,
        },
    ]
}

fn read(ppn: u32, origin: Origin) -> FlashOp {
    FlashOp::Read { ppn, origin }
}

fn move_reads(d: &Scheduled<FlashMedia>) -> u64 {
    match d.report(1) {
        Some(DeviceReport::Flash(f)) => f.gc_move_reads,
        _ => panic!("a flash report"),
    }
}

/// First come first served with GC queued: the host write takes the die at once (bus 0-10,
/// die 10-510: 510 us) and the move waits for an idle gap. A host read of page 4 at 100 us
/// commits it first: its read (die 510-560, bus 560-570), its write-back (bus 570-580, die
/// 580-1080), then the read (die 1080-1130, bus 1130-1140): 1140 us. Before, the read took
/// the die at 510 (die 510-560, bus 560-570: 570 us) with the move still queued. A
/// translation read of page 4 waits the same way, and the host read after it (page 7) runs
/// once it has ended: die 1140-1190, bus 1190-1200.
#[test]
fn under_first_come_first_served_a_read_commits_its_pages_queued_move_first() {
    let mut d = device(None);
    assert_eq!(issue(&mut d, 0, &move_and_write(), 0) / US, 510);
    assert_eq!(issue(&mut d, 1, &[read(4, Origin::Host)], 100) / US, 1140);
    assert_eq!(move_reads(&d), 1);
    let mut d = device(None);
    issue(&mut d, 0, &move_and_write(), 0);
    let ops = [read(4, Origin::Translation), read(7, Origin::Host)];
    assert_eq!(issue(&mut d, 1, &ops, 100) / US, 1200);
    assert_eq!(move_reads(&d), 1);
}

/// Read-first with suspend (20 us / 20 us): the move alone at 0 us runs its read (die 0-50,
/// bus 50-60) and its write-back (bus 60-70, die 70-570). A host read of page 4 at 100 us
/// finds that write-back running: it waits for it (die 570-620, bus 620-630: 630 us)
/// instead of suspending it (suspend 100-120, die 120-170, bus 170-180: 180 us, before the
/// page held data). A read of page 5 at 100 us suspends it as before and ends at 180 us.
#[test]
fn a_read_does_not_suspend_the_write_back_of_its_own_page() {
    let suspend = Some(Suspend {
        suspend_ns: 20 * US,
        resume_ns: 20 * US,
        max_per_op: 4,
    });
    let only_move = [FlashOp::Copyback {
        src: 0,
        dst: 4,
        origin: Origin::Gc,
    }];
    for (page, want, waited) in [(4, 630, 1), (5, 180, 0)] {
        let mut d = device(read_first(suspend));
        issue(&mut d, 0, &only_move, 0);
        issue(&mut d, 1, &[read(page, Origin::Host)], 100);
        while d.step_before(u64::MAX).is_some() {}
        assert_eq!(d.slot_end(1).map(|e| e / US), Some(want), "page {page}");
        assert_eq!(move_reads(&d), waited, "page {page}");
    }
}

/// Read-first on two channels (segment `s` on channel `s % 2`). GC moves page 0 (channel 0)
/// to page 2 (channel 1) and erases segment 0, issued at 0 us with a host write of page 6
/// (channel 1). The move's read goes first (die 0 0-50, bus 0 50-60), then the host write
/// (bus 1 0-10, die 1 10-510); the write-back can start only at 510. A host read of page 2
/// at 100 us finds it still queued and reads the old copy, page 0, on the idle channel 0:
/// die 100-150, bus 150-160: 160 us. Before, it was timed at page 2, ahead of its
/// write-back: die 1 510-560, bus 560-570: 570 us. At 600 us the write-back has been
/// decided (bus 510-520, die 520-1020): the read goes to page 2 and waits for it (die
/// 1020-1070, bus 1070-1080). A move issued in the read's own request (page 4, channel 0,
/// to page 2) is found in the batch: the read takes the old copy at page 4 on channel 0
/// (die 100-150, bus 150-160). A page moved again before either write-back (page 2 to page
/// 4 at 50 us) is followed back to the first source: a read of page 4 at 100 us reads page
/// 0, die 100-150, bus 150-160.
#[test]
fn under_deferred_commit_a_read_of_a_page_whose_write_back_is_queued_reads_the_old_copy() {
    let moved = [
        FlashOp::Copyback {
            src: 0,
            dst: 2,
            origin: Origin::Gc,
        },
        FlashOp::Erase {
            seg: 0,
            origin: Origin::Gc,
        },
        FlashOp::Program {
            ppn: 6,
            origin: Origin::Host,
        },
    ];
    for (at, want, old_copy) in [(100, 160, 1), (600, 1080, 0)] {
        let mut d = device_on(2, read_first(None));
        issue(&mut d, 0, &moved, 0);
        issue(&mut d, 1, &[read(2, Origin::Host)], at);
        while d.step_before(u64::MAX).is_some() {}
        assert_eq!(d.slot_end(1).map(|e| e / US), Some(want), "read at {at} us");
        assert_eq!(move_reads(&d), old_copy, "read at {at} us");
    }
    let mut d = device_on(2, read_first(None));
    issue(&mut d, 0, &moved[2..], 0);
    let ops = [
        FlashOp::Copyback {
            src: 4,
            dst: 2,
            origin: Origin::Gc,
        },
        read(2, Origin::Host),
    ];
    issue(&mut d, 1, &ops, 100);
    while d.step_before(u64::MAX).is_some() {}
    assert_eq!(d.slot_end(1).map(|e| e / US), Some(160));
    assert_eq!(move_reads(&d), 1);
    let mut d = device_on(2, read_first(None));
    issue(&mut d, 0, &moved, 0);
    let again = [FlashOp::Copyback {
        src: 2,
        dst: 4,
        origin: Origin::Gc,
    }];
    issue(&mut d, 1, &again, 50);
    issue(&mut d, 2, &[read(4, Origin::Host)], 100);
    while d.step_before(u64::MAX).is_some() {}
    assert_eq!(d.slot_end(2).map(|e| e / US), Some(160));
    assert_eq!(move_reads(&d), 1);
}

/// Deferred commit, read-first, two channels: GC work (`gc`, with segment 1 erased after its
/// first two moves) queued at 1 us behind a host write of page 4 that holds channel 0 (bus
/// 0-10, die 10-510); the work's first read needs that channel, so none of it starts before
/// 510 us. Pages `2s`, `2s + 1` are segment `s`, on channel `s % 2`. Then a host read of
/// `page` at 100 us: returns its end (us) and the reads of a moved page.
fn read_behind_queued_gc(gc: [FlashOp; 3], page: u32) -> (Option<u64>, u64) {
    let mut d = device_on(2, read_first(None));
    let write = [FlashOp::Program {
        ppn: 4,
        origin: Origin::Host,
    }];
    issue(&mut d, 0, &write, 0);
    let erase = FlashOp::Erase {
        seg: 1,
        origin: Origin::Gc,
    };
    issue(&mut d, 1, &[gc[0], gc[1], erase, gc[2]], 1);
    issue(&mut d, 2, &[read(page, Origin::Host)], 100);
    while d.step_before(u64::MAX).is_some() {}
    (d.slot_end(2).map(|e| e / US), move_reads(&d))
}

fn copyback(src: u32, dst: u32) -> FlashOp {
    FlashOp::Copyback {
        src,
        dst,
        origin: Origin::Gc,
    }
}

/// A segment GC filled is picked, erased and written again while its first writes still
/// wait: page 0 is moved to page 3 (segment 1), page 3 on to page 5, segment 1 erased, and
/// page 1 moved to page 2 (segment 1 again), all queued. A host read of page 5 at 100 us
/// follows its data back through page 3, whose write-back is queued too, to page 0 on
/// channel 0, busy until 510: die 510-560, bus 560-570. Before, the per-segment record of
/// queued GC writes kept only segment 1's latest write, page 2, so page 3 looked written
/// and the read took it on the idle channel 1 (die 100-150, bus 150-160: 160 us), before the
/// page held data (the schedule audit's models draw on seed 22, case 1001).
#[test]
fn a_read_follows_a_move_through_a_segment_written_again() {
    let gc = [copyback(0, 3), copyback(3, 5), copyback(1, 2)];
    assert_eq!(read_behind_queued_gc(gc, 5), (Some(570), 1));
}

/// A page moved out and back again, its segment erased in between (page 3 to page 5,
/// segment 1 erased, page 5 back to page 3), all queued behind a move of page 0 and so
/// behind the host write on channel 0. A host read of page 3 at 100 us finds its data
/// in page 3's earlier copy, before the queued erase: it is the old copy, reserved when
/// issued on channel 1 (idle: die 100-150, bus 150-160). Before, the chain coming back to
/// the read's own page counted as no move at all and the read waited as an ordinary one:
/// here read-first still runs it first, but a policy that lets GC win (host-first when free
/// space is short) could decide the erase and the new write-back before it (the audit's
/// models draw on seed 31, case 416).
#[test]
fn a_read_of_a_page_moved_out_and_back_reads_its_earlier_copy() {
    let gc = [copyback(0, 7), copyback(3, 5), copyback(5, 3)];
    assert_eq!(read_behind_queued_gc(gc, 3), (Some(160), 1));
}
