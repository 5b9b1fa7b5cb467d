//! Channel arbitration (`--channel fifo|backfill`; docs/timing.md): a hand-worked schedule
//! on two dies sharing a channel, and the queueing artefact that back-fill removes.

mod common;

use flashgc_core::config::DeviceConfig;
use flashgc_core::device::flash::{Alloc, Geometry};
use flashgc_core::device::{Costs, FlashMedia, ReadGroup};

const US: u64 = 1000;

/// 1 channel x 2 chips (dies 0 and 1), one-block segments of 4 pages, 4 KiB pages: read
/// 50 us, program 500 us, 10 us per transfer, no SRAM time. Segment s is on die s % 2.
fn media(backfill: bool) -> FlashMedia {
    let d = DeviceConfig {
        channels: 1,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 8,
        pages_per_block: 4,
        page_size: 4096,
        lpn_size: 4096,
        segment_blocks: 1,
        timing: common::configs::hand_timing(),
    };
    let geo = Geometry::new(&d, 4, "CWDP").unwrap();
    let mut m = FlashMedia::new(geo, Costs::new(&d.timing, 4096), false, Alloc::Static, 16);
    m.set_backfill(backfill);
    m
}

/// Die 0 programs page 0 (transfer 0-10 us, program 10-510 us); a second program to die 0,
/// ready at 0, can only transfer when die 0 is free (510-520 us, program until 1020 us).
/// Then a read of die 1, ready at 0: its cell read ends at 50 us. First in first out, the
/// channel is next free at 520 us, so the read's transfer runs 520-530 us although the bus
/// is idle from 10 to 510 us; back-fill puts it in that gap (50-60 us).
#[test]
fn a_read_back_fills_the_idle_channel_before_a_later_reservation() {
    for (backfill, read_end) in [(false, 530 * US), (true, 60 * US)] {
        let mut m = media(backfill);
        assert_eq!(m.program(0, 0, false, false), 510 * US);
        assert_eq!(m.program(1, 0, false, false), 1020 * US);
        // Page 4 is segment 1's first page: die 1.
        assert_eq!(m.cell_of_ppn(4), 1);
        let end = m.read(4, 0, false, &mut ReadGroup::default());
        assert_eq!(end, read_end, "backfill {backfill}");
        // Die 1 held the data in its register until its transfer ended; die 0 is unchanged.
        assert_eq!(m.cell_busy(), vec![1020 * US, read_end]);
        // A program to die 1 ready at 0 finds the channel's next gap after die 1 frees:
        // FIFO behind everything booked (530 us); back-fill at 60 us.
        let p = m.program(5, 0, false, false);
        assert_eq!(p, read_end + 10 * US + 500 * US, "backfill {backfill}");
    }
}

/// A transfer never overlaps another on its channel, whatever order they are booked in:
/// many reads of die 1 interleaved with programs of die 0, each read's transfer a 10 us
/// slot of its own.
#[test]
fn back_filled_transfers_never_overlap() {
    let mut m = media(true);
    let mut xfers = Vec::new();
    for i in 0..4u32 {
        let e = m.program(i, 0, false, false);
        xfers.push(e - 500 * US - 10 * US); // the program's transfer start
        let r = m.read(
            4 + (i % 4),
            (i as u64) * 7 * US,
            false,
            &mut ReadGroup::default(),
        );
        xfers.push(r - 10 * US);
    }
    xfers.sort_unstable();
    assert!(
        xfers.windows(2).all(|w| w[1] >= w[0] + 10 * US),
        "overlapping transfers: {xfers:?}"
    );
    assert_eq!(m.ch_busy(), vec![80 * US]);
}
