//! Dedup-aware GC on the core FTL's content mode (papers/splitgc.txt; CAGC, DAGC):
//! differential check against the retired dedup FTL, hand-worked examples for every GC
//! action and victim rule, the end-to-end content check across deferred migrations and
//! power cuts, and checkpoint/resume.

mod common;

use common::dedup::*;
use flashgc_core::workload::Rng;
use flashgc_core::Simulation;

/// Numbers of the retired `dedup/ftl.rs` (commit f514c17, its example `dedup_golden`), on
/// the same device, request stream and background schedule, device-wide GC: migrated,
/// erases, victims, deferred queued, written back, CAGC remaps, DAGC reuses, scrub pages,
/// user programs, and a hash of every LPN's content.
const OLD: &[(&str, f64, [u64; 9], u64)] = &[
    (
        "greedy",
        0.0,
        [134134, 3018, 3018, 0, 0, 0, 0, 0, 75209],
        0x4d79cfdeab4c8cc,
    ),
    (
        "splitgc-per-free",
        0.0,
        [134134, 3018, 3018, 0, 0, 0, 0, 10680, 75209],
        0x4d79cfdeab4c8cc,
    ),
    (
        "splitgc-min-nondup",
        0.0,
        [134134, 3018, 3018, 0, 0, 0, 0, 10680, 75209],
        0x4d79cfdeab4c8cc,
    ),
    (
        "splitgc-dup-first",
        0.0,
        [134134, 3018, 3018, 0, 0, 0, 0, 10680, 75209],
        0x4d79cfdeab4c8cc,
    ),
    (
        "splitgc-min-valid",
        0.0,
        [134134, 3018, 3018, 0, 0, 0, 0, 10680, 75209],
        0x4d79cfdeab4c8cc,
    ),
    (
        "cagc",
        0.0,
        [134134, 3018, 3018, 0, 0, 0, 0, 0, 75209],
        0x4d79cfdeab4c8cc,
    ),
    (
        "dagc",
        0.0,
        [144946, 3187, 3187, 0, 0, 0, 0, 0, 75209],
        0x4d79cfdeab4c8cc,
    ),
    (
        "greedy",
        0.3,
        [134134, 3018, 3018, 0, 0, 0, 0, 0, 75209],
        0x6d7b87d3989da1b,
    ),
    (
        "splitgc-per-free",
        0.3,
        [120724, 2901, 2901, 6577, 5918, 0, 0, 4762, 75209],
        0x6d7b87d3989da1b,
    ),
    (
        "splitgc-min-nondup",
        0.3,
        [121881, 2929, 2929, 7271, 6541, 0, 0, 4139, 75209],
        0x6d7b87d3989da1b,
    ),
    (
        "splitgc-dup-first",
        0.3,
        [240253, 4834, 4834, 11938, 10096, 0, 0, 584, 75209],
        0x6d7b87d3989da1b,
    ),
    (
        "splitgc-min-valid",
        0.3,
        [121305, 2908, 2908, 6343, 5778, 0, 0, 4902, 75209],
        0x6d7b87d3989da1b,
    ),
    (
        "cagc",
        0.3,
        [40606, 1557, 1557, 0, 0, 10102, 0, 0, 75209],
        0x6d7b87d3989da1b,
    ),
    (
        "dagc",
        0.3,
        [17782, 847, 847, 0, 0, 0, 22600, 0, 52609],
        0x6d7b87d3989da1b,
    ),
];

/// The (victim, GC action) pair that stands for an old scheme name.
fn pair(name: &str) -> (&'static str, &'static str) {
    match name {
        "greedy" => ("greedy", "move"),
        "splitgc-per-free" => ("splitgc:rule=per-free", "splitgc"),
        "splitgc-min-nondup" => ("splitgc:rule=min-nondup", "splitgc"),
        "splitgc-dup-first" => ("splitgc:rule=dup-first", "splitgc"),
        "splitgc-min-valid" => ("greedy", "splitgc"),
        "cagc" => ("greedy", "cagc:index=full"),
        "dagc" => ("dagc", "dagc:cache=unbounded"),
        _ => unreachable!(),
    }
}

#[test]
fn the_old_dedup_ftl_is_reproduced_bit_for_bit() {
    for &(name, dup, want, hash) in OLD {
        let (victim, action) = pair(name);
        let mut cfg = small_cfg();
        cfg.run.victim = victim.into();
        cfg.run.gc_action = action.into();
        cfg.content.dup_ratio = dup;
        cfg.content.pool = 64;
        let mut sim = Simulation::new(&cfg).unwrap();
        sim.precondition().unwrap();
        let logical = sim.layout().logical_pages;
        let f = sim.ftl_mut();
        let mut rng = Rng::new(99);
        for i in 0..6 * logical {
            let r = rng.below(100);
            let lpn = rng.below(logical) as u32;
            if r < 25 {
                f.read(lpn);
            } else if r < 27 {
                f.trim(lpn);
            } else {
                f.write(lpn).unwrap();
            }
            if i % 64 == 63 {
                for _ in 0..8 {
                    if f.background_step().unwrap().is_none() {
                        break;
                    }
                }
            }
        }
        f.check().unwrap();
        assert!(f.content_error().is_none());
        let got = snapshot(f);
        eprintln!("{name} {dup}: {got:?}");
        assert_eq!(got.0, want, "{name} at {dup} duplicates");
        if f.content().is_some() {
            assert_eq!(got.1, hash, "{name} at {dup}: contents");
        }
    }
}

/// Writes `(lpn, content)` pairs.
fn w(f: &mut flashgc_core::ftl::Ftl, pairs: &[(u32, u64)]) {
    for &(l, c) in pairs {
        f.write_content(l, c).unwrap();
    }
}

/// The victim a (victim policy, GC action) pair picks on a hand-built state: 4-page
/// segments written in order, then the prescrub learns every duplicate, then one more
/// write opens the last free segment and GC collects one victim.
fn first_victim(victim: &str, action: &str, segments: u32, pairs: &[(u32, u64)]) -> (u32, u32) {
    let mut f = tiny(action, victim, 64, segments, 4, (1, 1));
    w(&mut f, pairs);
    f.after_precondition();
    f.check().unwrap();
    assert_eq!(f.counters.gc_victims, 0);
    w(&mut f, &[(63, 999)]);
    assert_eq!(f.counters.gc_victims, 1, "{victim}");
    f.check().unwrap();
    f.victim_log()[0]
}

// Contents: 1.. are duplicated ones (written twice), 100.. unique.

/// S1. seg0 = a b c d (all duplicates: v4 d4, nothing to free); seg1 = one valid page of
/// four (v1, 3 invalid); seg2 = e f + 1 valid unique (v3 d2, 1 invalid); seg3..5 hold the
/// other copies of a..f with unique pages (v4 d2); seg6 = the overwrites (v4).
/// greedy: seg1 (1 valid). per-free: seg1 (1 non-duplicate / 3 freed; seg2 1/1; the rest
/// free nothing). min-nondup: seg0 (0 non-duplicates). dup-first: seg0 (fewest
/// non-duplicates among blocks holding duplicates).
const S1: &[(u32, u64)] = &[
    (0, 1),
    (1, 2),
    (2, 3),
    (3, 4),
    (4, 100),
    (5, 101),
    (6, 102),
    (7, 103),
    (8, 5),
    (9, 6),
    (10, 104),
    (11, 105),
    (12, 1),
    (13, 2),
    (14, 106),
    (15, 107),
    (16, 3),
    (17, 4),
    (18, 108),
    (19, 109),
    (20, 5),
    (21, 6),
    (22, 110),
    (23, 111),
    (5, 112),
    (6, 113),
    (7, 114),
    (11, 115),
];

/// S2. seg0 = four pages all overwritten (v0); seg1 = a b + 1 valid unique (v3 d2, 1
/// invalid); seg2 = a b + 2 unique (v4 d2); seg3, seg4 = overwrites. greedy, per-free and
/// min-nondup: seg0 (nothing to move); dup-first: seg1 (the literal rule: a block holding
/// duplicates first, here the one with 1 non-duplicate).
const S2: &[(u32, u64)] = &[
    (0, 100),
    (1, 101),
    (2, 102),
    (3, 103),
    (4, 1),
    (5, 2),
    (6, 104),
    (7, 105),
    (8, 1),
    (9, 2),
    (10, 106),
    (11, 107),
    (0, 108),
    (1, 109),
    (2, 110),
    (3, 111),
    (7, 112),
    (12, 113),
    (13, 114),
    (14, 115),
];

/// S3 (papers/splitgc.txt Fig. 5 in miniature). seg0 = a b c + 1 overwritten (v3 d3, 0
/// non-duplicates, 1 freed); seg1 = 1 valid unique of 4 (v1); seg2 = the copies a b c + 1
/// unique (v4 d3); seg3 = overwrites. greedy: seg1. per-free, min-nondup, dup-first: seg0,
/// whose three pages are all deferred (nothing moves in real time).
const S3: &[(u32, u64)] = &[
    (0, 1),
    (1, 2),
    (2, 3),
    (3, 100),
    (4, 101),
    (5, 102),
    (6, 103),
    (7, 104),
    (8, 1),
    (9, 2),
    (10, 3),
    (11, 105),
    (3, 106),
    (5, 107),
    (6, 108),
    (7, 109),
];

#[test]
fn hand_worked_victims_of_every_splitgc_rule() {
    let rules = [
        ("greedy", [1, 0, 1]),
        ("splitgc:rule=per-free", [1, 0, 0]),
        ("splitgc:rule=min-nondup", [0, 0, 0]),
        ("splitgc:rule=dup-first", [0, 1, 0]),
    ];
    for (victim, want) in rules {
        let got = [
            first_victim(victim, "splitgc", 8, S1).0,
            first_victim(victim, "splitgc", 6, S2).0,
            first_victim(victim, "splitgc", 5, S3).0,
        ];
        assert_eq!(got, want, "{victim}: victims in S1, S2, S3");
    }
}

#[test]
fn hand_worked_splitgc_defers_duplicates_and_serves_them_from_the_other_copy() {
    // S3 with SplitGC's rule: seg0's three valid pages are duplicates of seg2's: none
    // moves in real time, all three are deferred and read from seg2 meanwhile.
    let mut f = tiny("splitgc", "splitgc", 64, 5, 4, (1, 1));
    w(&mut f, S3);
    f.after_precondition();
    w(&mut f, &[(63, 999)]);
    assert_eq!(f.victim_log(), &[(0, 3)]);
    assert_eq!(f.counters.gc_writes, 0, "nothing moves in real time");
    let c = f.content().unwrap().counters().clone();
    assert_eq!(c.deferred_queued, 3);
    for (l, want) in [(0, 1), (1, 2), (2, 3), (3, 106)] {
        assert_eq!(peek(&f, l), Some(want), "LPN {l}");
        assert_eq!(
            f.resolve(l).unwrap() / 4,
            if l < 3 { 2 } else { 3 },
            "LPN {l} served from"
        );
    }
    f.check().unwrap();
    // Idle time: the three are written back to pages of their own (read from seg2).
    for _ in 0..3 {
        assert_eq!(
            f.background_step().unwrap(),
            Some(flashgc_core::ftl::Background::Writeback)
        );
    }
    let c = f.content().unwrap().counters().clone();
    assert_eq!(c.deferred_written, 3);
    assert_eq!(f.counters.background_writes, 3);
    for (l, want) in [(0, 1), (1, 2), (2, 3)] {
        assert_eq!(peek(&f, l), Some(want));
        assert_eq!(
            f.resolve(l).unwrap() / 4,
            4,
            "LPN {l} has its own page again"
        );
    }
    f.check().unwrap();
    // Greedy on the same state takes seg1 and moves its one valid page.
    let mut g = tiny("splitgc", "greedy", 64, 5, 4, (1, 1));
    w(&mut g, S3);
    w(&mut g, &[(63, 999)]);
    assert_eq!(g.victim_log(), &[(1, 1)]);
    assert_eq!(g.counters.gc_writes, 1);
}

#[test]
fn hand_worked_dagc_weighs_cached_dead_pages_and_revives_one() {
    // Cache of 2 entries, LRU. seg0 = A B C D, seg1 = E F G H. Overwrites of LPN 4 (E),
    // then 0 (A), then 1 (B): E is dropped from the cache. seg0: 2 valid + 2 cached dead
    // (DAGC key 4); seg1: 3 valid + 1 plain dead (key 3). Greedy takes seg0, DAGC seg1.
    let pairs: &[(u32, u64)] = &[
        (0, 100),
        (1, 101),
        (2, 102),
        (3, 103),
        (4, 104),
        (5, 105),
        (6, 106),
        (7, 107),
        (4, 108),
        (0, 109),
        (1, 110),
        (8, 111),
    ];
    let run = |victim: &str| {
        let mut f = tiny("dagc:cache=2", victim, 64, 4, 4, (1, 1));
        w(&mut f, pairs);
        f.check().unwrap();
        let v = f.view();
        assert_eq!(
            (v.valid(0), v.reuse(0), v.valid(1), v.reuse(1)),
            (2, 2, 3, 0)
        );
        // A write of B's content revives B's page in seg0 (no program), then one more
        // write opens the last free segment.
        let programs = f.counters.programs();
        w(&mut f, &[(9, 101)]);
        assert_eq!(
            f.counters.programs(),
            programs,
            "a cache hit programs nothing"
        );
        assert_eq!(f.resolve(9), Some(1), "LPN 9 now owns B's old page");
        let v = f.view();
        assert_eq!((v.valid(0), v.reuse(0)), (3, 1));
        w(&mut f, &[(63, 999)]);
        f.check().unwrap();
        assert_eq!(peek(&f, 9), Some(101));
        (f.victim_log()[0], f.counters.absorbed_writes)
    };
    // seg0 is now 3 valid + 1 cached (key 4), seg1 3 valid + 0 (key 3): greedy ties at 3
    // valid and takes seg0 (it reached 3 first? no: seg1 reached 3 when E died, before
    // seg0 climbed back to 3 by the revive), DAGC takes seg1.
    assert_eq!(run("greedy").0, (1, 3));
    assert_eq!(run("dagc"), ((1, 3), 1));
}

#[test]
fn hand_worked_cagc_dedups_at_gc_time_and_promotes_the_shared_copy() {
    // seg0 = a u u u, seg1 = a u u u, seg2 and seg3 = overwrites: seg0 keeps only `a` (1
    // valid), seg1 `a` and one unique page (2 valid). GC is forced one victim at a time.
    // GC 1 takes seg0: `a` is not in the index (user writes are never fingerprinted): it
    // moves to the hot region and is indexed. GC 2 takes seg1: `a` hits the index: its LPN
    // is remapped to the moved copy (nothing written for it), whose reference count
    // reaches 2 > threshold 1: the copy is promoted to the cold region (one migration);
    // the unique page moves to the hot region.
    let pairs: &[(u32, u64)] = &[
        (0, 1),
        (1, 100),
        (2, 101),
        (3, 102),
        (4, 1),
        (5, 103),
        (6, 104),
        (7, 105),
        (1, 106),
        (2, 107),
        (3, 108),
        (5, 109),
        (6, 110),
        (8, 111),
        (9, 112),
        (10, 113),
    ];
    let run = |action: &str| {
        let mut f = tiny(action, "greedy", 64, 16, 4, (1, 1));
        w(&mut f, pairs);
        assert!(f.collect_if_below(100).unwrap());
        assert_eq!(f.victim_log(), &[(0, 1)]);
        assert_eq!(f.counters.gc_writes, 1);
        assert!(f.collect_if_below(100).unwrap());
        assert_eq!(f.victim_log()[1], (1, 2));
        assert_eq!(peek(&f, 0), Some(1));
        assert_eq!(peek(&f, 4), Some(1));
        assert_eq!(f.resolve(0), f.resolve(4), "one copy serves both");
        f.check().unwrap();
        f
    };
    let f = run("cagc");
    let c = f.content().unwrap().counters().clone();
    assert_eq!((c.remapped, c.promoted), (1, 1));
    assert_eq!(f.counters.gc_writes, 3, "a, the unique page, the promotion");
    let seg = f.resolve(0).unwrap() / 4;
    assert_eq!(
        f.view().stream(seg),
        1,
        "the shared copy lives in the cold region"
    );
    // The upper-bound variant dedups the same page but does not promote.
    let u = run("cagc:index=full");
    let c = u.content().unwrap().counters().clone();
    assert_eq!((c.remapped, c.promoted), (1, 0));
    assert_eq!(u.counters.gc_writes, 2);
    assert_eq!(u.view().stream(u.resolve(0).unwrap() / 4), 0);
}

#[test]
fn a_bounded_cagc_index_forgets_its_oldest_entries() {
    // Index of 1 entry: after a second content is indexed, the first is found no more.
    let mut f = tiny("cagc:index=1", "greedy", 64, 12, 4, (2, 2));
    let mut rng = Rng::new(5);
    let mut expect = vec![0u64; 64];
    for i in 0..4000u64 {
        let l = rng.below(24) as u32;
        let c = 1 + rng.below(6); // 6 contents: plenty of duplicates
        f.write_content(l, c).unwrap();
        expect[l as usize] = c;
        if i % 97 == 0 {
            f.check().unwrap();
        }
    }
    f.check().unwrap();
    for (l, &c) in expect.iter().enumerate() {
        assert_eq!(peek(&f, l as u32).unwrap_or(0), c);
    }
    let st = f.content().unwrap().store();
    assert!(st.index_len() <= 1);
    assert!(st.evictions() > 0);
}

/// Random writes, reads, trims, background steps and power cuts on a small FTL in content
/// mode, checking every read and, periodically, every LPN and every invariant.
fn fuzz(action: &str, victim: &str, dup: f64, seed: u64) {
    let logical = 1600u64;
    let mut f = tiny(action, victim, logical, 64, 32, (3, 4));
    let mut gen = flashgc_core::content::ContentGen::new(
        flashgc_core::content::ContentParams {
            dup_ratio: dup,
            pool: 20,
            theta: 1.0,
        },
        seed,
    );
    let mut expect = vec![0u64; logical as usize];
    for lpn in 0..1440u32 {
        let c = gen.next_content();
        f.write_content(lpn, c).unwrap();
        expect[lpn as usize] = c;
    }
    f.after_precondition();
    let mut rng = Rng::new(seed);
    let verify = |f: &flashgc_core::ftl::Ftl, expect: &[u64], when: &str| {
        for (lpn, &want) in expect.iter().enumerate() {
            assert_eq!(
                peek(f, lpn as u32).unwrap_or(0),
                want,
                "{action} LPN {lpn} {when}"
            );
        }
        f.check()
            .unwrap_or_else(|e| panic!("{action} / {victim} {when}: {e}"));
        assert!(f.content_error().is_none(), "{:?}", f.content_error());
    };
    let mut cuts = 0;
    for step in 0..40_000u32 {
        let r = rng.below(100);
        let lpn = rng.below(logical) as u32;
        match r {
            0..=54 => {
                let c = gen.next_content();
                f.write_content(lpn, c).unwrap();
                expect[lpn as usize] = c;
            }
            55..=69 => {
                let got = f
                    .read(lpn)
                    .map(|p| f.content().unwrap().store().content_of(p));
                assert_eq!(got.unwrap_or(0), expect[lpn as usize]);
            }
            70..=71 => {
                f.trim(lpn);
                expect[lpn as usize] = 0;
            }
            72..=98 => {
                f.background_step().unwrap();
            }
            _ => {
                f.power_cut();
                cuts += 1;
                verify(&f, &expect, "after a power cut");
            }
        }
        if step % 2000 == 0 {
            verify(&f, &expect, "periodic");
        }
    }
    assert!(cuts > 100);
    assert!(f.content_error().is_none());
    // Drain the deferred queue: every deferred LPN gets a page of its own back.
    while f.content().unwrap().queue_len() > 0 {
        f.background_step().unwrap();
    }
    verify(&f, &expect, "after draining the queue");
    let c = f.content().unwrap().counters().clone();
    if action.starts_with("splitgc") {
        let vpn = f.content_report(&Default::default()).unwrap().vpn_lpns;
        assert_eq!(vpn, 0, "SplitGC keeps a copy per LPN once drained");
    }
    if dup > 0.0 {
        let used = c.deferred_queued + c.remapped + c.revived + c.shared;
        assert!(used > 0, "{action} never used a duplicate");
    }
}

#[test]
fn content_survives_gc_actions_background_work_and_power_cuts() {
    for &dup in &[0.0, 0.5] {
        fuzz("splitgc", "splitgc", dup, 17);
        fuzz("cagc", "greedy", dup, 17);
        fuzz("dagc", "dagc", dup, 17);
        fuzz("cagc:index=full", "greedy", dup, 19);
        fuzz("dagc:cache=unbounded", "dagc", dup, 19);
    }
    fuzz("splitgc", "splitgc:rule=dup-first", 0.3, 23);
    fuzz("splitgc", "splitgc:rule=min-nondup", 0.5, 29);
    fuzz("splitgc:writeback=rescrub", "greedy", 0.3, 31);
    fuzz("splitgc:writeback=once", "splitgc", 0.5, 37);
    fuzz("cagc:index=16,replace=fifo", "greedy", 0.5, 41);
    fuzz("dagc:cache=8,replace=fifo", "dagc", 0.5, 43);
    fuzz("cagc:index=64,threshold=3", "cost-benefit", 0.5, 47);
    fuzz("splitgc", "fifo", 0.5, 53);
}

/// A timed run on the one host driver: the small device, uniform writes with Poisson
/// arrivals at 300 requests/s (idle gaps exist), 6 x the logical capacity, the first 2
/// not in the steady state.
fn timed(scheme: (&str, &str, &str), dup: f64, read_ratio: f64) -> flashgc_core::RunResult {
    use flashgc_core::timing::{Host, TimingParams};
    use flashgc_core::workload::{PoissonArrivals, Synthetic, SyntheticKind};
    let mut cfg = small_cfg();
    cfg.run.read_ratio = read_ratio;
    cfg.run.victim = scheme.1.into();
    cfg.run.gc_action = scheme.2.into();
    cfg.run.write_volume = 6.0;
    cfg.run.warmup = Some(2.0);
    cfg.content.dup_ratio = dup;
    cfg.content.pool = 256;
    let l = cfg.layout().unwrap().logical_pages;
    let wl = Synthetic::new(SyntheticKind::Uniform, l, 1, read_ratio, cfg.run.seed);
    let mut wl = PoissonArrivals::new(Box::new(wl), 300.0, 99).unwrap();
    let p = TimingParams {
        host: Host::OpenLoop { time_scale: 1.0 },
        ..TimingParams::default()
    };
    let mut d = flashgc_core::driver::TimedSim::new(&cfg, p).unwrap();
    let r = d.run(&mut wl, &mut |_| {}).unwrap();
    d.simulation().ftl().check().unwrap();
    r
}

const GREEDY: (&str, &str, &str) = ("greedy", "greedy", "move");
const SPLITGC: (&str, &str, &str) = ("splitgc", "splitgc", "splitgc");
const CAGC: (&str, &str, &str) = ("cagc", "greedy", "cagc");
const DAGC: (&str, &str, &str) = ("dagc", "dagc", "dagc");

/// papers/splitgc.txt Sec. 4 / Fig. 15 directions, where the model supports them:
/// SplitGC migrates fewer pages than greedy with duplicates (the same without), and DAGC
/// more than greedy without duplicates (its victim rule counts cached dead pages as
/// valid); with 30 % duplicates on this device both: DAGC above greedy, SplitGC below
/// DAGC. Pinned difference (docs/splitgc.md): CAGC deduplicates at GC time, which frees
/// space, so with 30 % duplicates it migrates fewer pages than SplitGC (the paper reports
/// SplitGC below every baseline).
#[test]
fn paper_directions_where_the_model_supports_them() {
    let moved = |r: &flashgc_core::RunResult| r.steady_state.gc_writes;
    for &dup in &[0.0, 0.1, 0.3, 0.5] {
        let g = timed(GREEDY, dup, 0.0);
        let s = timed(SPLITGC, dup, 0.0);
        let sd = s.dedup.as_ref().unwrap().counters.clone();
        eprintln!(
            "dup {dup}: greedy {} moves; splitgc {} moves ({} deferred, {} written back, {} scrubbed)",
            moved(&g),
            moved(&s),
            sd.deferred_queued,
            sd.deferred_written,
            sd.scrub_pages
        );
        assert!(moved(&g) > 5_000);
        assert!(s.timing.as_ref().unwrap().timing_dependent_policy);
        if dup == 0.0 {
            assert_eq!(moved(&s), moved(&g));
            assert_eq!(s.steady_state.erases, g.steady_state.erases);
            assert_eq!(sd.deferred_queued, 0);
            assert!(sd.scrub_pages > 0, "the scrub ran at idle time");
            let d = timed(DAGC, dup, 0.0);
            eprintln!("dup 0: dagc {} moves", moved(&d));
            assert!(
                moved(&d) > moved(&g),
                "DAGC {} vs greedy {}",
                moved(&d),
                moved(&g)
            );
        } else {
            assert!(
                moved(&s) < moved(&g),
                "dup {dup}: splitgc {} >= greedy {}",
                moved(&s),
                moved(&g)
            );
            assert!(sd.deferred_queued > 0 && sd.deferred_written > 0);
            // No churn: real-time moves plus idle-time write-backs stay within 5 % of
            // greedy's moves (the literal rule exceeds this on the FIU slice).
            assert!((s.total.gc_writes + sd.deferred_written) * 100 <= g.total.gc_writes * 105);
        }
        if dup == 0.3 {
            let d = timed(DAGC, dup, 0.0);
            eprintln!("dup 0.3: dagc {} moves", moved(&d));
            assert!(
                moved(&s) < moved(&d) && moved(&d) > moved(&g),
                "dup 0.3: splitgc {} < dagc {} > greedy {}",
                moved(&s),
                moved(&d),
                moved(&g)
            );
            let c = timed(CAGC, dup, 0.0);
            eprintln!("dup 0.3: cagc {} moves", moved(&c));
            assert!(
                moved(&c) < moved(&s),
                "pinned: CAGC {} vs SplitGC {}",
                moved(&c),
                moved(&s)
            );
        }
    }
}

#[test]
fn every_scheme_returns_the_last_written_content_on_timed_runs() {
    for s in [GREEDY, SPLITGC, CAGC, DAGC] {
        let r = timed(s, 0.3, 0.3);
        if let Some(d) = &r.dedup {
            assert!(d.counters.checked_reads > 1000, "{}", s.0);
        }
        let t = r.timing.as_ref().unwrap();
        assert!(t.read_latency.count > 0 && t.write_latency.count > 0);
        assert!(t.read_latency.p9999_us >= t.read_latency.p99_us && t.read_latency.p99_us > 0.0);
    }
}

#[test]
fn content_is_right_through_a_write_cache() {
    // A write cache holds recent writes: their content is fixed at the host write and
    // programmed when the cache evicts them; reads of cached pages never reach the FTL.
    use flashgc_core::timing::{Host, TimingParams};
    use flashgc_core::workload::{Synthetic, SyntheticKind};
    for action in [SPLITGC, CAGC, DAGC] {
        let mut cfg = small_cfg();
        cfg.run.read_ratio = 0.3;
        cfg.run.victim = action.1.into();
        cfg.run.gc_action = action.2.into();
        cfg.run.write_volume = 3.0;
        cfg.content.dup_ratio = 0.3;
        cfg.content.pool = 64;
        let l = cfg.layout().unwrap().logical_pages;
        let mut wl = Synthetic::new(SyntheticKind::Zipf { theta: 0.9 }, l, 1, 0.3, 5);
        let p = TimingParams {
            host: Host::ClosedLoop { queue_depth: 8 },
            cache_pages: 2048,
            ..TimingParams::default()
        };
        let mut d = flashgc_core::driver::TimedSim::new(&cfg, p).unwrap();
        let r = d.run(&mut wl, &mut |_| {}).unwrap();
        assert!(
            r.timing
                .as_ref()
                .unwrap()
                .cache
                .as_ref()
                .unwrap()
                .write_hits
                > 0
        );
        assert!(r.dedup.as_ref().unwrap().counters.checked_reads > 1000);
        d.simulation().ftl().check().unwrap();
        d.simulation().ftl().check_all_content().unwrap();
    }
}

/// DAGC absorbs user writes into revived dead pages after the placement routed them; MiDAS
/// counted those pages into its groups' segments until GC named a group with no sealed
/// segment ("device full"). The FTL now hands an absorbed write back (`unroute`), and the
/// counts follow the pages programmed: the run ends.
#[test]
fn midas_keeps_count_of_its_segments_under_dagc() {
    let mut c = flashgc_core::Config::default_preset();
    (c.device.channels, c.device.chips_per_channel) = (2, 2);
    (c.device.dies_per_chip, c.device.planes_per_die) = (1, 2);
    (c.device.pages_per_block, c.device.segment_blocks) = (8, 1);
    c.ftl.logical_gib = Some(1.0 / 64.0);
    c.ftl.op = Some(0.35);
    c.run.placement = "midas:epoch=0.5,check=0.25".into();
    (c.run.victim, c.run.gc_action) = ("fifo".into(), "dagc".into());
    (c.run.request_pages, c.run.write_volume) = (2, 3.0);
    c.run.max_memory_gib = None;
    let mut sim = Simulation::new(&c).unwrap();
    let mut wl = sim.synthetic_workload().unwrap();
    let r = sim.run(&mut wl, &mut |_| {}).unwrap();
    assert!(r.total.absorbed_writes > 0, "DAGC absorbed no write");
}
