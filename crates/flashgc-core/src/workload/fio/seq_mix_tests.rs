//! Tests of the sequential picks: each rule of the module docs on small regions, and the
//! request counts fio 3.33's logs give where they do not depend on its random numbers.

use super::*;

const BS: u64 = 4096;

fn mix(pct: [u8; 2], every: u32) -> SeqMix {
    SeqMix {
        random_pct: pct,
        every,
        pass_bytes: None,
        region_at_end: false,
        reseed: true,
        time_based: false,
        identical: false,
    }
}

fn stream(m: SeqMix, order: PickOrder, blocks: u64, read_ratio: f64, seed: u64) -> SeqMixStream {
    SeqMixStream::new(m, order, blocks, 1, BS, read_ratio, seed)
}

/// The blocks of one pass (until the pass ends).
fn pass(s: &mut SeqMixStream) -> Vec<u64> {
    std::iter::from_fn(|| s.step().map(|r| r.lpn)).collect()
}

fn drawn(s: &mut SeqMixStream, n: usize) -> Vec<Request> {
    let mut v = Vec::new();
    s.fill(&mut v, n).unwrap();
    v
}

#[test]
fn without_random_picks_a_job_runs_through_its_region() {
    // percentage_random=0: fio's log is 0 1 ... 15 on a 64 KiB region.
    let mut s = stream(mix([0, 0], 1), PickOrder::Map, 16, 0.0, 1);
    assert_eq!(pass(&mut s), (0..16).collect::<Vec<_>>());
}

#[test]
fn only_every_nth_request_may_be_random() {
    // rw=randwrite:3 (fio: 0 1 2 11 12 13 13 14 15 7 8 9 ...): requests 1, 4, 7, ... are
    // random, the others continue from the request before.
    for seed in 1..20 {
        let mut s = stream(mix([100, 100], 3), PickOrder::Free, 1 << 20, 0.0, seed);
        let v = drawn(&mut s, 300);
        for k in 1..v.len() {
            if k % 3 != 0 {
                assert_eq!(v[k].lpn, v[k - 1].lpn + 1, "seed {seed} request {k}");
            }
        }
        // The random ones are not all a continuation (a 2^-20 chance each).
        assert!((3..v.len())
            .step_by(3)
            .any(|k| v[k].lpn != v[k - 1].lpn + 1));
    }
}

#[test]
fn the_countdown_carries_across_passes() {
    // rw=randwrite:3 with passes of 16 (libaio, size=64k): the 17th request is the
    // second after a hit, so the pass starts sequential from block 0 (fio: "0 1" then
    // the first pass again).
    let m = SeqMix {
        pass_bytes: Some(16 * BS),
        ..mix([100, 100], 3)
    };
    let mut s = stream(m, PickOrder::Map, 16, 0.0, 5);
    let first = pass(&mut s);
    assert_eq!(first.len(), 16);
    s.new_pass();
    let second = pass(&mut s);
    assert_eq!(&second[..2], &[0, 1]);
    assert_eq!(&second[2..], &first[..14]);
}

#[test]
fn each_direction_continues_where_it_left_off() {
    // randrw with percentage_random=0,100: reads are 0 1 2 ... whatever the writes do.
    let mut s = stream(mix([0, 100], 1), PickOrder::Free, 1 << 20, 0.5, 3);
    let v = drawn(&mut s, 400);
    let reads: Vec<u64> = v
        .iter()
        .filter(|r| r.op == Op::Read)
        .map(|r| r.lpn)
        .collect();
    assert!(reads.len() > 100);
    assert_eq!(reads, (0..reads.len() as u64).collect::<Vec<_>>());
    let writes = v.iter().filter(|r| r.op == Op::Write).count();
    assert!(writes > 100);
}

#[test]
fn the_share_of_random_picks_is_the_percentage() {
    // With replacement on a large region a sequential pick is exactly "last + 1" and a
    // random one almost never is.
    for pct in [10u8, 50, 90] {
        let mut s = stream(mix([pct, pct], 1), PickOrder::Free, 1 << 40, 0.0, 7);
        let v = drawn(&mut s, 100_000);
        let random = (1..v.len())
            .filter(|&k| v[k].lpn != v[k - 1].lpn + 1)
            .count();
        let share = random as f64 / (v.len() - 1) as f64;
        assert!(
            (share - pct as f64 / 100.0).abs() < 0.01,
            "{pct} %: {share}"
        );
    }
}

#[test]
fn sequential_picks_are_not_marked_in_the_map() {
    // A synchronous pass runs until every block has been a random pick: longer than the
    // region (fio: 35 requests on 16 blocks at percentage_random=50), each block random
    // once; then the next pass repeats the first (reseeded).
    let m = SeqMix {
        region_at_end: true,
        ..mix([50, 50], 1)
    };
    let mut s = stream(m, PickOrder::Map, 16, 0.0, 11);
    let first = pass(&mut s);
    assert!(first.len() > 16, "{first:?}");
    s.new_pass();
    assert_eq!(pass(&mut s), first);
}

#[test]
fn a_sequential_pick_off_the_region_ends_the_pass_or_falls_back() {
    // The region ends before the device: the pick after block 15 ends the pass.
    let mut s = stream(mix([100, 100], 100), PickOrder::Map, 16, 0.0, 2);
    let p = pass(&mut s);
    assert_eq!(p, (p[0]..16).collect::<Vec<_>>());
    // At the device's end it takes a random block instead, unmarked: the map stays
    // empty, so requests go on.
    let m = SeqMix {
        region_at_end: true,
        ..mix([0, 0], 1)
    };
    let mut s = stream(m, PickOrder::Map, 16, 0.0, 2);
    let v: Vec<u64> = (0..40)
        .map(|_| s.step().expect("no pass end").lpn)
        .collect();
    assert_eq!(&v[..16], &(0..16).collect::<Vec<_>>()[..]);
    // A time-based job wraps to the region's start.
    let m = SeqMix {
        time_based: true,
        reseed: false,
        ..mix([0, 0], 1)
    };
    let mut s = stream(m, PickOrder::Map, 4, 0.0, 2);
    let v: Vec<u64> = (0..10).map(|_| s.step().unwrap().lpn).collect();
    assert_eq!(v, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]);
}

#[test]
fn request_counts_follow_fio_logs() {
    // fio 3.33, psync, rw=randwrite:100 size=64k bs=4k on a 256 KiB file, randrepeat=0:
    // the first (random) block b, then b+1 ... 15, and the job ends: 16 - b requests
    // (seeds 1..6: 15, 8, 8, 16, 14, 12). With io_size=96k a new pass runs from block 0
    // (the countdown lets no random pick through) up to 24 requests.
    for seed in 1..30 {
        let s = stream(mix([100, 100], 100), PickOrder::Map, 16, 0.0, seed);
        let b = s.clone().step().unwrap().lpn;
        assert_eq!(
            s.job_requests(64 * 1024, false, 1, None),
            16 - b,
            "seed {seed}"
        );
        assert_eq!(s.job_requests(96 * 1024, true, 1, None), 24, "seed {seed}");
        // Two loops: two passes, whatever each one's length (fio, seed 2: 8 ... 15, then
        // 0 ... 15).
        let two = s.job_requests(64 * 1024, false, 2, None);
        assert_eq!(two, (16 - b) + 16u64.min(32 - (16 - b)), "seed {seed}");
    }
    // libaio, percentage_random=50, size=64k, io_size=192k on a 64 KiB file: three
    // passes of 16, each the first again.
    let m = SeqMix {
        pass_bytes: Some(64 * 1024),
        region_at_end: true,
        ..mix([50, 50], 1)
    };
    let s = stream(m, PickOrder::Map, 16, 0.0, 4);
    assert_eq!(s.job_requests(192 * 1024, true, 1, None), 48);
    let mut run = s.clone();
    let v = drawn(&mut run, 48);
    assert_eq!(v[..16], v[16..32]);
    // number_ios caps the count per loop.
    assert_eq!(s.job_requests(192 * 1024, true, 2, Some(10)), 20);
}

#[test]
fn the_lfsr_cycle_ends_a_pass_when_spent() {
    // Every block is a random pick once per pass, in the cycle's order.
    let m = SeqMix {
        region_at_end: true,
        ..mix([50, 50], 1)
    };
    let mut s = stream(m, PickOrder::Lfsr, 10, 0.0, 3);
    let p = pass(&mut s);
    assert!(p.len() >= 10);
    s.new_pass();
    assert_eq!(pass(&mut s), p);
}

#[test]
fn a_synchronous_pass_lasts_until_the_map_is_full() {
    // percentage_random=50 on 16 blocks (the region the whole file): a pass ends at the
    // 17th random pick, so it issues about 2 x 17 - 1 = 33 requests on average (a
    // negative binomial; a sequential pick off the end that finds the map full ends it a
    // little earlier). fio 3.33, psync, randrepeat=0, randseed 1..40: 33.6 on average
    // (its debug log's "rand offset failed").
    let m = SeqMix {
        region_at_end: true,
        ..mix([50, 50], 1)
    };
    let n = 2000u64;
    let total: usize = (0..n)
        .map(|seed| pass(&mut stream(m.clone(), PickOrder::Map, 16, 0.0, seed)).len())
        .sum();
    let mean = total as f64 / n as f64;
    assert!((mean - 33.0).abs() < 0.8, "{mean}");
}

#[test]
fn identical_sequencing_repeats_each_random_offset() {
    // rw=randwrite:4 with rw_sequencer=identical (get_next_block's RW_SEQ_IDENT): the
    // countdown (1 at the start, init.c) lets the 1st, 5th, ... request through; the
    // three after each repeat its offset, so each random offset is used 4 times.
    let m = SeqMix {
        identical: true,
        ..mix([100, 100], 4)
    };
    let mut s = stream(m, PickOrder::Free, 1 << 20, 0.0, 3);
    let v: Vec<u64> = drawn(&mut s, 40).iter().map(|r| r.lpn).collect();
    for k in 0..v.len() {
        assert_eq!(v[k], v[k / 4 * 4], "request {k}: {v:?}");
    }
    assert!((4..40).step_by(4).any(|k| v[k] != v[k - 1]), "{v:?}");
    // Reads and writes keep a last start each (the region's start before the first).
    let m = SeqMix {
        identical: true,
        ..mix([100, 100], 2)
    };
    let mut s = stream(m, PickOrder::Map, 1 << 20, 0.5, 8);
    let v = drawn(&mut s, 200);
    let mut last: [Option<u64>; 2] = [None; 2];
    for (k, r) in v.iter().enumerate() {
        let d = (r.op == Op::Write) as usize;
        if k % 2 == 1 {
            assert_eq!(r.lpn, last[d].unwrap_or(0), "request {k}");
        }
        last[d] = Some(r.lpn);
    }
}
