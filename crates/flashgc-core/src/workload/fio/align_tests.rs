//! Tests of `blockalign`, `bs_unaligned` and backwards sequences: offset and length
//! sequences derived by hand from fio 3.33's io_u.c on a region of a few LPNs.

use super::*;
use crate::workload::fio::{BlockSizeMix, Rw, Sizes};

const K: u64 = 1024;
const LPN: u32 = 4096;

fn requests(job: &FioJob, logical_pages: u64, n: usize) -> Vec<Request> {
    let mut w = job.workload(logical_pages, LPN).unwrap();
    let mut v = Vec::new();
    w.fill(&mut v, n).unwrap();
    v
}

fn job(rw: Rw, bs: u64, blockalign: [Option<u64>; 2]) -> FioJob {
    FioJob {
        rw,
        bs,
        numjobs: 1,
        align: Alignment {
            blockalign,
            bs_unaligned: false,
        },
        ..FioJob::default()
    }
}

#[test]
fn blockalign_below_the_block_size_shortens_the_grid_by_what_sticks_out() {
    // bs=8k, blockalign=4k on 64 KiB: lastb = (64k - (8k - 4k)) / 4k = 15, offsets
    // b x 4k for b in 0..15, every request 2 LPNs (the last one ends at the region's end).
    let j = job(Rw::RandWrite, 8 * K, [Some(4 * K), Some(4 * K)]);
    let v = requests(&j, 16, 3000);
    assert!(v.iter().all(|r| r.pages == 2 && r.lpn < 15), "{v:?}");
    let mut seen: Vec<u64> = v.iter().map(|r| r.lpn).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, (0..15).collect::<Vec<_>>());
    // Odd starts exist: the grid is not the block size's.
    assert!(v.iter().any(|r| r.lpn % 2 == 1));
}

#[test]
fn blockalign_above_the_block_size_spaces_the_offsets() {
    // bs=4k, blockalign=16k on 64 KiB: lastb = 64k / 16k = 4: offsets 0, 16k, 32k, 48k.
    let j = job(Rw::RandWrite, 4 * K, [Some(16 * K), Some(16 * K)]);
    let v = requests(&j, 16, 2000);
    assert!(v
        .iter()
        .all(|r| r.pages == 1 && r.lpn % 4 == 0 && r.lpn < 16));
    for b in [0, 4, 8, 12] {
        assert!(v.iter().any(|r| r.lpn == b), "{b}");
    }
}

#[test]
fn blockalign_per_direction_gives_reads_and_writes_grids_of_their_own() {
    // blockalign=4k,16k: reads anywhere, writes on 16 KiB.
    let j = FioJob {
        rwmixwrite: 50.0,
        ..job(Rw::RandRw, 4 * K, [Some(4 * K), Some(16 * K)])
    };
    let v = requests(&j, 16, 4000);
    assert!(v
        .iter()
        .filter(|r| r.op == Op::Write)
        .all(|r| r.lpn % 4 == 0));
    assert!(v.iter().any(|r| r.op == Op::Read && r.lpn % 4 != 0));
    let writes = v.iter().filter(|r| r.op == Op::Write).count();
    assert!((1800..2200).contains(&writes), "{writes}");
}

#[test]
fn the_default_blockalign_changes_nothing() {
    let plain = job(Rw::RandWrite, 8 * K, [None, None]);
    let same = job(Rw::RandWrite, 8 * K, [Some(8 * K), Some(8 * K)]);
    assert_eq!(requests(&plain, 64, 500), requests(&same, 64, 500));
    // Sequential patterns ignore it, as fio (`!td_random`).
    let seq = job(Rw::Write, 4 * K, [Some(16 * K), Some(16 * K)]);
    let lpns: Vec<u64> = requests(&seq, 8, 10).iter().map(|r| r.lpn).collect();
    assert_eq!(lpns, [0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
}

#[test]
fn blockalign_must_be_whole_lpns_and_refuses_the_random_map() {
    let j = job(Rw::RandWrite, 4 * K, [Some(6 * K), Some(6 * K)]);
    let e = j.workload(64, LPN).err().unwrap().to_string();
    assert!(e.contains("fio.blockalign") && e.contains("6144"), "{e}");
    let j = FioJob {
        dist: Dist::RandomMap,
        ..job(Rw::RandWrite, 4 * K, [Some(8 * K), Some(8 * K)])
    };
    let e = j.workload(64, LPN).err().unwrap().to_string();
    assert!(e.contains("turns off randommap"), "{e}");
}

fn back(rw: Rw, bs: u64, back: u64, first: u64) -> FioJob {
    FioJob {
        rw,
        bs,
        numjobs: 1,
        backwards: Some(Backwards { back, first }),
        ..FioJob::default()
    }
}

#[test]
fn backwards_sequences_wrap_to_the_region_end_plus_the_skip() {
    // rw=write:-8k, bs=4k on 32 KiB at offset 0 (get_next_seq_offset): the first request
    // at 0 (pos 0 adds nothing); then pos = 4k - 8k < 0 wraps to 32k - 8k = 24k; then
    // 24k + 4k - 8k = 20k, ... 4k, 0, and again 24k: the region's last block is never
    // written.
    let lpns: Vec<u64> = requests(&back(Rw::Write, 4 * K, 8 * K, 0), 8, 16)
        .iter()
        .map(|r| r.lpn)
        .collect();
    assert_eq!(lpns, [0, 6, 5, 4, 3, 2, 1, 0, 6, 5, 4, 3, 2, 1, 0, 6]);
    // rw=read:-8k, bs=8k: the step is 0; the job reads its first block for ever.
    let v = requests(&back(Rw::Read, 8 * K, 8 * K, 0), 8, 4);
    assert!(v
        .iter()
        .all(|r| r.lpn == 0 && r.pages == 2 && r.op == Op::Read));
    // rw=write:-12k, bs=4k: 0, 32k - 12k = 20k, 20k - 8k = 12k, 4k, then 4k + 4k - 12k < 0.
    let lpns: Vec<u64> = requests(&back(Rw::Write, 4 * K, 12 * K, 0), 8, 6)
        .iter()
        .map(|r| r.lpn)
        .collect();
    assert_eq!(lpns, [0, 5, 3, 1, 5, 3]);
}

#[test]
fn a_backwards_region_away_from_the_start_begins_where_fio_rewinds() {
    // offset=16k, size=32k, -8k: last_pos = size (32k), pos = 32k - 16k - 8k = 8k.
    assert_eq!(Backwards::first_of(16 * K, 32 * K, 8 * K), 8 * K);
    // offset=64k, size=32k: 32k - 64k < 0 wraps: size - 8k = 24k, the region's last block
    // but one.
    assert_eq!(Backwards::first_of(64 * K, 32 * K, 8 * K), 24 * K);
    assert_eq!(Backwards::first_of(0, 32 * K, 8 * K), 0);
    assert_eq!(Backwards::first_of(32 * K, 32 * K, 8 * K), 0);
    let lpns: Vec<u64> = requests(&back(Rw::Write, 4 * K, 8 * K, 8 * K), 8, 4)
        .iter()
        .map(|r| r.lpn)
        .collect();
    assert_eq!(lpns, [2, 1, 0, 6]);
}

#[test]
fn backwards_steps_smaller_than_a_block_are_refused() {
    let e = back(Rw::Write, 8 * K, 4 * K, 0)
        .workload(8, LPN)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("fio.rw") && e.contains("smaller than the block size"),
        "{e}"
    );
}

fn range(rw: Rw, min: u64, max: u64, unaligned: bool) -> FioJob {
    FioJob {
        block_sizes: Some(BlockSizeMix {
            option: "bsrange".into(),
            read: Sizes::Range { min, max },
            write: Sizes::Range { min, max },
        }),
        align: Alignment {
            blockalign: [None, None],
            bs_unaligned: unaligned,
        },
        ..job(rw, min, [None, None])
    }
}

#[test]
fn bs_unaligned_ranges_draw_bytes_and_cover_the_lpns_they_touch() {
    // bsrange=4k-8k: fio's 4k + floor(8k x u) is rounded down to 4k or 8k (half each)
    // without bs_unaligned; with it, it is 4096 only for u < 1/8192, so nearly every
    // request touches 2 LPNs.
    let two = |v: &[Request]| v.iter().filter(|r| r.pages == 2).count();
    let aligned = requests(&range(Rw::RandWrite, 4 * K, 8 * K, false), 1024, 4000);
    let unaligned = requests(&range(Rw::RandWrite, 4 * K, 8 * K, true), 1024, 4000);
    assert!((1800..2200).contains(&two(&aligned)), "{}", two(&aligned));
    assert!(two(&unaligned) >= 3990, "{}", two(&unaligned));
    // Sequential: each request starts at the byte after the last, so consecutive
    // requests share the LPN a partial length ends in.
    let v = requests(&range(Rw::Write, 4 * K, 8 * K, true), 1 << 20, 200);
    let mut shared = 0;
    for w in v.windows(2) {
        let end = w[0].lpn + w[0].pages as u64;
        assert!(w[1].lpn == end || w[1].lpn + 1 == end, "{w:?}");
        shared += (w[1].lpn + 1 == end) as usize;
    }
    assert!(shared > 150, "{shared}");
    assert_eq!(v[0].lpn, 0);
}

#[test]
fn descriptions_name_the_options_only_where_set() {
    let d = back(Rw::Write, 4 * K, 8 * K, 0).describe();
    assert!(d.starts_with("fio rw=write:-8192 bs=4096 numjobs"), "{d}");
    let d = FioJob {
        align: Alignment {
            blockalign: [None, Some(16 * K)],
            bs_unaligned: true,
        },
        ..FioJob::default()
    }
    .describe();
    assert!(
        d.contains("bs=4096 blockalign=,16384 bs_unaligned numjobs"),
        "{d}"
    );
    assert!(!FioJob::default().describe().contains("blockalign"));
}
