//! Micro-benchmarks that calibrate the firmware-CPU cost model where no paper gives a
//! number: what a scheme's classifier, a victim selection and a GCaR cache-scan step cost
//! on the machine running the simulation. They are wall-clock measurements, so they never
//! run inside a simulation (results must not depend on the machine): their figures were
//! taken once, by `cargo run --release -p flashgc-core --example cpu_calibrate`, and are
//! constants next to the code they price (each placement's `classifier_ns`, each victim
//! policy's `select_ns`, [`crate::device::cpu::GCAR_SCAN_HOST_NS`], MiDAS's
//! `MCAM_EVAL_NS`). The firmware-CPU model multiplies them by its `scale` (controller-core
//! ns per host ns).

use crate::driver::cache::WriteCache;
use crate::error::Result;
use crate::placement::midas::gcs;
use crate::placement::midas::uid::Uid;
use crate::placement::{self, PlacementInit};
use crate::segment::{SegState, SegmentView, Segments};
use crate::timing::CachePolicy;
use crate::victim::{self, VictimInit, VictimScope};
use crate::workload::Rng;
use std::time::Instant;

/// Best of `passes` timings of `f` (after one untimed warm-up call), ns per `per` units.
fn best_of(passes: u32, per: u64, mut f: impl FnMut() -> u64) -> f64 {
    std::hint::black_box(f());
    let mut best = f64::INFINITY;
    for _ in 0..passes {
        let t = Instant::now();
        std::hint::black_box(f());
        best = best.min(t.elapsed().as_nanos() as f64 / per.max(1) as f64);
    }
    best
}

/// A scheme's classifier work per user write beyond a no-op classifier call: the
/// difference of [`placement::measure_classifier_ns`] (zipf(1.0) writes, best of three
/// passes) between `spec` and `single` (a virtual call that does nothing, the harness
/// overhead), never below 0.
pub fn classifier_host_ns(spec: &str, init: PlacementInit, writes: u64) -> Result<f64> {
    let base = placement::measure_classifier_ns("single", init, writes)?;
    let ns = placement::measure_classifier_ns(spec, init, writes)?;
    Ok((ns - base).max(0.0))
}

/// One MCAM evaluation of MiDAS's group-configuration search (what an epoch's end costs
/// per evaluation): GCS with default parameters on a two-class UID (80 % of the writes to
/// 20 % of 1 Mi pages: `Uid::mixture(64, 4000, ...)`, the shape of gcs.rs's skew test) with
/// 64-page segments and 7 % spare; search time divided by its evaluations, best of three.
pub fn mcam_eval_host_ns() -> f64 {
    let n = (1u64 << 20) as f64;
    let uid = Uid::mixture(64.0, 4000, &[(0.8, 0.2 * n / 0.8), (0.2, 0.8 * n / 0.2)]);
    let budget = (n / 64.0 * 1.07).round() as u32;
    let p = gcs::GcsParams::default();
    let evals = gcs::search(&uid, budget, 64, &p).evaluations.max(1);
    best_of(3, evals, || gcs::search(&uid, budget, 64, &p).evaluations)
}

/// One victim selection of `policy` plus re-registering the victim as a sealed candidate
/// with a new valid count (the bookkeeping a real GC pass does around the choice), on
/// `segments` sealed segments of `pages` pages with uniformly random valid counts: mean
/// ns over `rounds` selections, best of three passes.
pub fn victim_select_host_ns(policy: &str, segments: u32, pages: u32, rounds: u64) -> Result<f64> {
    let init = VictimInit {
        segments,
        pages_per_segment: pages,
        groups: 1,
        seed: 1,
    };
    let mut rng = Rng::new(7);
    let mut segs = Segments::new(segments, pages);
    for s in 0..segments as usize {
        segs.state[s] = SegState::Sealed;
        segs.written[s] = pages;
        segs.valid[s] = (rng.next_u64() % pages as u64) as u32;
        segs.seal_seq[s] = s as u64;
    }
    let mut v = victim::build("victim", policy, init)?;
    {
        let view = SegmentView::new(&segs, 0);
        for s in 0..segments {
            v.on_seal(s, &view);
        }
    }
    let mut now = segments as u64;
    Ok(best_of(3, rounds, || {
        let mut acc = 0u64;
        for _ in 0..rounds {
            let view = SegmentView::new(&segs, now);
            let Some(s) = v.select(&view, VictimScope::All) else {
                break;
            };
            acc = acc.wrapping_add(s as u64);
            segs.valid[s as usize] = (rng.next_u64() % pages as u64) as u32;
            now += 1;
            segs.seal_seq[s as usize] = now;
            segs.sealed_at[s as usize] = now;
            let view = SegmentView::new(&segs, now);
            v.on_seal(s, &view);
        }
        acc
    }))
}

/// One step of a GCaR replacement scan: examining one cached page (its LRU link, its
/// mapping entry and whether its chip is collecting) in a cache of `cache_pages` over
/// `logical_pages`. Measured as the difference between evictions that scan a whole window
/// of `window` collecting pages and evictions that stop at the first, divided by
/// `window - 1`; mean ns per entry, best of three passes.
pub fn gcar_scan_host_ns(cache_pages: u32, logical_pages: u64, window: u32, evictions: u64) -> f64 {
    let window = window.max(2);
    let mut rng = Rng::new(3);
    // The closure's lookups: a mapping entry per LPN and a busy-until time per chip.
    let l2p: Vec<u32> = (0..logical_pages)
        .map(|_| (rng.next_u64() % logical_pages) as u32)
        .collect();
    let busy: Vec<u64> = (0..64).map(|i| i * 1000).collect();
    let run = |w: u32, collecting: bool| {
        let mut c = WriteCache::new(cache_pages, logical_pages, CachePolicy::Gcar, w);
        let mut rng = Rng::new(5);
        for _ in 0..cache_pages {
            let l = (rng.next_u64() % logical_pages) as u32;
            if !c.contains(l) {
                c.insert(l, |_| false);
            }
        }
        let (l2p, busy) = (&l2p, &busy);
        best_of(3, evictions, move || {
            let mut acc = 0u64;
            for _ in 0..evictions {
                let l = (rng.next_u64() % logical_pages) as u32;
                if c.touch(l) {
                    continue;
                }
                let probe = |x: u32| {
                    let p = l2p[x as usize];
                    (busy[(p & 63) as usize] < u64::MAX) == collecting
                };
                acc = acc.wrapping_add(c.insert(l, probe).unwrap_or(0) as u64);
            }
            acc
        })
    };
    let full = run(window, true);
    let first = run(window, false);
    ((full - first) / (window - 1) as f64).max(0.0)
}
