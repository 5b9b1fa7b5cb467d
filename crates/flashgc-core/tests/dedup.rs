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
