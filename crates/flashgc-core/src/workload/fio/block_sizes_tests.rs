//! Block-size mixes: parsing as fio's `bssplit_ddir`, draws as `get_next_buflen`, and the
//! mixed stream's offsets and region end (see block_sizes.rs).

use super::*;
use crate::workload::fio::{FioJob, Rw};
use crate::workload::{Request, Workload};

const K: u64 = 1024;

fn split(v: &str) -> Vec<(u64, u32)> {
    match split_list(v).unwrap() {
        Sizes::Split(e) => e.iter().map(|e| (e.bs, e.perc)).collect(),
        Sizes::Fixed(b) => vec![(b, 100)],
        s => panic!("{s:?}"),
    }
}

#[test]
fn bssplit_lists_share_blanks_and_sort_as_fio() {
    // Sorted by percentage ascending (fio's bs_cmp).
    assert_eq!(
        split("4k/50:64k/30:256k/20"),
        vec![(256 * K, 20), (64 * K, 30), (4 * K, 50)]
    );
    // Blanks share (100 - 60) / 2 = 20 each; a 0 is a blank (fio: `perc = -1U`).
    assert_eq!(
        split("4k/60:8k:16k/0"),
        vec![(8 * K, 20), (16 * K, 20), (4 * K, 60)]
    );
    // Three blanks: 33 each (integer division; the rest goes to the last entry).
    assert_eq!(
        split("4k:8k:16k"),
        vec![(4 * K, 33), (8 * K, 33), (16 * K, 33)]
    );
    // A trailing `:` ends the list.
    assert_eq!(split("4k/100:"), vec![(4 * K, 100)]);
    // One size is a plain size (fio: min_bs == max_bs draws nothing).
    assert_eq!(split_list("8k").unwrap(), Sizes::Fixed(8 * K));
    assert_eq!(split_list("8k/40:8k/60").unwrap(), Sizes::Fixed(8 * K));
    // One entry under 100 is still every request (fio's draw falls through to the last).
    assert_eq!(split_list("4k/50").unwrap(), Sizes::Fixed(4 * K));
}

#[test]
fn bssplit_refuses_what_fio_cannot_mean() {
    for (v, why) in [
        ("4k/60:8k/50", "add up to 110"),
        ("4k/100:8k/1", "add up to 101"),
        // fio clamps a share over 100 to 100; flashgc names it instead.
        ("4k/200", "`4k/200`: the percentage 200 is over 100"),
        ("4k/50:8k/200", "`8k/200`: the percentage 200 is over 100"),
        ("4k/150:", "the percentage 150 is over 100"),
        ("0/50:4k/50", "must be positive"),
        ("4x/50", "not a size"),
        ("4k/abc", "not a whole number"),
        ("4k/-5", "not a whole number"),
        ("", "expected SIZE/PERC"),
        (":4k", "expected SIZE/PERC"),
    ] {
        let e = split_list(v).unwrap_err();
        assert!(e.contains(why), "`{v}`: {e}");
    }
    let e = BlockSizeMix::parse_bssplit("4k,8k,16k,32k", 4096).unwrap_err();
    assert!(e.contains("at most three"), "{e}");
    assert!(BlockSizeMix::parse_bssplit(",", 4096)
        .unwrap_err()
        .contains("no size"));
}

#[test]
fn bssplit_directions_and_ranges() {
    let m = BlockSizeMix::parse_bssplit("4k/100,64k/100", 8192).unwrap();
    assert_eq!(
        (m.read.clone(), m.write.clone()),
        (Sizes::Fixed(4 * K), Sizes::Fixed(64 * K))
    );
    // An empty part keeps the job's bs for that direction; the trim part is ignored.
    let m = BlockSizeMix::parse_bssplit(",4k/50:8k/50,16k", 8192).unwrap();
    assert_eq!(m.read, Sizes::Fixed(8192));
    assert_eq!(m.write.min(), 4 * K);
    assert_eq!(m.describe(), "bssplit=8192,4096/50:8192/50");
    assert_eq!(
        range("4k-64k").unwrap(),
        Sizes::Range {
            min: 4 * K,
            max: 64 * K
        }
    );
    assert_eq!(range("8k-8k").unwrap(), Sizes::Fixed(8 * K));
    assert!(range("64k-4k").unwrap_err().contains("above the maximum"));
    assert!(range("4k").unwrap_err().contains("MIN-MAX"));
    assert!(range("0-4k").unwrap_err().contains("positive"));
}

#[test]
fn lengths_must_be_lpn_multiples() {
    let m = BlockSizeMix::parse_bssplit("4k/50:6k/50", 4096).unwrap();
    let e = m.check(4096).unwrap_err().to_string();
    assert!(
        e.contains("fio.bssplit") && e.contains("6144") && e.contains("LPN size 4096"),
        "{e}"
    );
    let job = FioJob {
        block_sizes: Some(m),
        ..FioJob::default()
    };
    let e = job.workload(1 << 16, 4096).err().unwrap().to_string();
    assert!(e.contains("fio.bssplit"), "{e}");
}

fn mixed_job(rw: Rw, v: &str, seed: u64) -> FioJob {
    FioJob {
        rw,
        rwmixwrite: 30.0,
        block_sizes: Some(BlockSizeMix::parse_bssplit(v, 4096).unwrap()),
        numjobs: 1,
        seed,
        ..FioJob::default()
    }
}

fn requests(job: &FioJob, pages: u64, n: usize) -> Vec<Request> {
    let mut w = job.workload(pages, 4096).unwrap();
    let mut buf = Vec::new();
    w.fill(&mut buf, n).unwrap();
    buf
}

/// `|count - n p| < 4.5 sqrt(n p (1 - p))`.
fn within(count: u64, n: u64, p: f64, what: &str) {
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    assert!(
        (count as f64 - n as f64 * p).abs() < 4.5 * sd.max(1e-9),
        "{what}: {count} of {n}, expected share {p} (sd {sd})"
    );
}

#[test]
fn drawn_lengths_follow_the_split_and_offsets_align_to_the_smallest() {
    // 1 GiB region: the end barely matters for 1e5 draws (checked separately below).
    let pages = 1 << 18;
    let job = mixed_job(Rw::RandWrite, "4k/50:64k/30:256k/20", 7);
    let reqs = requests(&job, pages, 100_000);
    let n = reqs.len() as u64;
    let count = |p: u32| reqs.iter().filter(|r| r.pages == p).count() as u64;
    // Offsets near the end can refuse the longest size; not at 1 GiB over 1e5 draws,
    // but the shares are tested where nothing was refused.
    within(count(1), n, 0.5, "4k");
    within(count(16), n, 0.3, "64k");
    within(count(64), n, 0.2, "256k");
    assert_eq!(count(1) + count(16) + count(64), n);
    // Offsets on the 4k grid (the smallest size, fio's blockalign default), and every
    // block of it used: 64k-aligned offsets are only 1/16 of them.
    assert!(reqs.iter().all(|r| r.lpn + r.pages as u64 <= pages));
    within(
        reqs.iter().filter(|r| r.lpn % 16 == 0).count() as u64,
        n,
        1.0 / 16.0,
        "64k-aligned offsets",
    );
    // Same seed, same requests; another seed, others.
    assert_eq!(requests(&job, pages, 1000), reqs[..1000].to_vec());
    assert_ne!(
        requests(
            &mixed_job(Rw::RandWrite, "4k/50:64k/30:256k/20", 8),
            pages,
            1000
        ),
        reqs[..1000].to_vec()
    );
}

#[test]
fn reads_and_writes_draw_from_their_own_mix_on_their_own_grid() {
    let pages = 1 << 18;
    // rwmixwrite 30: reads 4k, writes 64k/50 : 128k/50.
    let job = mixed_job(Rw::RandRw, "4k,64k/50:128k/50", 11);
    let reqs = requests(&job, pages, 100_000);
    let n = reqs.len() as u64;
    let writes: Vec<&Request> = reqs.iter().filter(|r| r.op == Op::Write).collect();
    within(writes.len() as u64, n, 0.3, "writes");
    assert!(reqs
        .iter()
        .filter(|r| r.op == Op::Read)
        .all(|r| r.pages == 1));
    // Writes start on the 64k grid (their own smallest size).
    assert!(writes
        .iter()
        .all(|r| r.lpn % 16 == 0 && (r.pages == 16 || r.pages == 32)));
    within(
        writes.iter().filter(|r| r.pages == 16).count() as u64,
        writes.len() as u64,
        0.5,
        "64k writes",
    );
}

#[test]
fn bsrange_is_uniform_over_multiples_of_the_minimum() {
    // fio: min + floor(max * u) rounded down to min: 4k..=64k, 16 values, 1/16 each.
    let pages = 1 << 18;
    let mut job = mixed_job(Rw::RandWrite, "4k", 5);
    job.block_sizes = Some(BlockSizeMix {
        option: "bsrange".into(),
        read: range("4k-64k").unwrap(),
        write: range("4k-64k").unwrap(),
    });
    let reqs = requests(&job, pages, 100_000);
    let n = reqs.len() as u64;
    for p in 1..=16u32 {
        within(
            reqs.iter().filter(|r| r.pages == p).count() as u64,
            n,
            1.0 / 16.0,
            &format!("{p} pages"),
        );
    }
    assert!(
        job.describe().contains("bsrange=4096-65536"),
        "{}",
        job.describe()
    );
}

#[test]
fn no_request_crosses_the_region_end() {
    // 40 pages: 256k (64 pages) never fits, 64k (16) only in the first 24 pages.
    let pages = 40;
    for rw in [Rw::RandWrite, Rw::Write] {
        let job = mixed_job(rw, "4k/50:64k/30:256k/20", 3);
        let reqs = requests(&job, pages, 20_000);
        assert!(
            reqs.iter().all(|r| r.lpn + r.pages as u64 <= pages),
            "{rw:?}: a request past the region"
        );
        assert!(reqs.iter().all(|r| r.pages == 1 || r.pages == 16));
        assert!(
            reqs.iter().any(|r| r.pages == 16),
            "{rw:?}: 64k fits sometimes"
        );
    }
    // fio's retry: at lpn 30 only 4k fits, so every request there is 4k.
    let job = mixed_job(Rw::RandWrite, "4k/50:64k/30:256k/20", 3);
    let reqs = requests(&job, pages, 20_000);
    assert!(reqs.iter().filter(|r| r.lpn > 24).all(|r| r.pages == 1));
}

#[test]
fn sequential_jobs_advance_by_the_length_just_issued() {
    let job = mixed_job(Rw::Write, "4k/50:8k/50", 9);
    let reqs = requests(&job, 1 << 12, 500);
    let mut at = 0;
    for r in &reqs {
        if at + 1 > 1 << 12 {
            at = 0;
        }
        assert_eq!(r.lpn, at);
        at += r.pages as u64;
    }
}

#[test]
fn a_mix_of_one_length_is_the_plain_stream() {
    // `bs=4k,64k` on a write job is `bs=64k`: the same requests, nothing drawn.
    let mut job = mixed_job(Rw::RandWrite, "4k/100,64k/100", 4);
    let plain = FioJob {
        bs: 64 * K,
        block_sizes: None,
        ..job.clone()
    };
    assert_eq!(
        requests(&job, 1 << 14, 2000),
        requests(&plain, 1 << 14, 2000)
    );
    job.rw = Rw::RandRw;
    assert_ne!(
        requests(&job, 1 << 14, 2000),
        requests(&plain, 1 << 14, 2000)
    );
}

#[test]
fn one_size_parser_reads_fios_suffixes() {
    use crate::workload::fio::parse_size;
    for (v, b) in [
        ("4096", 4096),
        ("4k", 4096),
        ("4K", 4096),
        ("4kb", 4096),
        ("4KiB", 4096),
        ("1.5m", 3 << 19),
        ("2g", 2 << 30),
        ("1t", 1 << 40),
        (" 16k ", 16384),
        ("0", 0),
    ] {
        assert_eq!(parse_size(v), Some(b), "{v}");
    }
    for v in ["", "k", "4x", "-4k", "4kk", "nan", "20000000t"] {
        assert_eq!(parse_size(v), None, "{v}");
    }
}

#[test]
fn one_grid_keeps_the_plain_jobs_directions_and_offsets() {
    // Reads and writes share the smallest size (4k): the plain 4k job's stream gives the
    // direction and the offset (one hot set for both), the mix only the length.
    let mut job = mixed_job(Rw::RandRw, "4k/50:64k/50", 12);
    job.dist = crate::workload::fio::Dist::Zipf(0.9);
    let plain = FioJob {
        bs: 4 * K,
        block_sizes: None,
        ..job.clone()
    };
    let pages = 1 << 14;
    let (a, b) = (requests(&job, pages, 5000), requests(&plain, pages, 5000));
    let key = |r: &Request| (r.op, r.lpn);
    assert_eq!(
        a.iter().map(key).collect::<Vec<_>>(),
        b.iter().map(key).collect::<Vec<_>>()
    );
    assert!(a.iter().any(|r| r.pages == 16) && b.iter().all(|r| r.pages == 1));
}

/// fio rounds every chosen length down to a multiple of the smallest unless
/// `bs_unaligned` (io_u.c `get_next_buflen`: `buflen -= buflen % minbs`, or the mask when
/// minbs is a power of two): `8k/50:12k/50` issues only 8k requests, and with
/// `bs_unaligned` both sizes, half each.
#[test]
fn bssplit_sizes_round_down_to_the_smallest_unless_bs_unaligned() {
    let pages = 1 << 16;
    let job = mixed_job(Rw::RandWrite, "8k/50:12k/50", 3);
    let reqs = requests(&job, pages, 4000);
    assert!(
        reqs.iter().all(|r| r.pages == 2),
        "a 12k request was issued"
    );
    let mut unaligned = job.clone();
    unaligned.align.bs_unaligned = true;
    let reqs = requests(&unaligned, pages, 4000);
    let n = reqs.len() as u64;
    let twelve = reqs.iter().filter(|r| r.pages == 3).count() as u64;
    within(twelve, n, 0.5, "12k with bs_unaligned");
    assert_eq!(
        reqs.iter().filter(|r| r.pages == 2).count() as u64 + twelve,
        n
    );
}
