//! `oracle`: ORA of papers/midas.txt (§3.1-3.2): offline analysis gives every written block
//! its invalidation time, and blocks with similar invalidation times share a segment group.
//! It needs the future, so it is a bound, not a scheme an SSD can run: on the same run no
//! online scheme should beat it beyond noise.
//!
//! How flashgc realises it:
//! * A backward pre-pass over an identical second instance of the workload (including the
//!   precondition fill, whose writes also pass through the placement) gives each user
//!   write its *invalidation time*: the user-write clock of the next write (or TRIM) of the
//!   same LPN, or never (beyond the end of the run). See [`Future`] and
//!   `Simulation::prepare_future`.
//! * Every write, user **and** GC relocation, goes to the stream of its class of *remaining
//!   lifetime* `invalidation time - now`: GC relocations are re-classed with the same
//!   future knowledge.
//! * Class boundaries: k-means on log2(remaining lifetime) of all user writes (the paper:
//!   "we perform k-means clustering over the traces"), or given explicitly.
//!
//! Parameters (spec `oracle:key=value,...`):
//! * `classes` (default 6; ORA's six groups C1-C6 of Table 1 in papers/midas.txt): number
//!   of streams. The last stream holds data never invalidated within the run; the others
//!   are the finite-lifetime clusters. Range 2..=64.
//! * `bounds` (default: from k-means): explicit class boundaries `a/b/...` in multiples of
//!   the logical capacity of user writes (e.g. `0.05/0.25/1/4`); gives `len + 2` classes.
//! * `iterations` (default 100): Lloyd iterations of the k-means (deterministic start at
//!   equal-count quantiles).
//!
//! `oracle:fk` is SepBIT's future-knowledge separator FK (Wang et al., FAST'22, and its
//! public trace simulator's `placement/FK.java`): the same remaining lifetime, but classes
//! of one segment of user writes each, `class = min(remaining / pages_per_segment,
//! classes - 1)`, data never invalidated in the last class with the long-lived (default
//! 6 classes, the simulator's 6 open segments). What it bounds: separation by remaining
//! lifetime at segment granularity with a fixed class count, i.e. what a perfect SepBIT-like
//! classifier could reach on the same victim policy. The default `oracle` (k-means
//! boundaries over the whole lifetime range, a class of its own for never-invalidated
//! data) is a different and, on skewed workloads, stronger bound: its classes follow the
//! workload's lifetime distribution instead of stopping at 5 segments.
//!
//! What the paper does that flashgc does not: ORA also sizes each group empirically, and
//! victim selection is left to the victim policy. flashgc leaves group sizes to the chosen
//! victim policy (greedy over all segments by default), so this is the placement half of
//! ORA; the report says so.
//!
//! Memory: 12 B per user write of the whole run (the future, and its LPN to check that
//! the run replays the pre-pass) + 8 B per LPN (the invalidation time of each live page).
//! Not implementable in a device; reported anyway. A run that does not replay the
//! pre-pass write for write fails with an error instead of giving a wrong bound.

use super::{Placement, PlacementInit};
use crate::error::{Error, Result};
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// Never invalidated within the run.
pub const NEVER: u64 = u64::MAX;

/// Future knowledge for an oracle: for the user write with clock `i` (1-based, counting the
/// precondition fill), `next_write[i - 1]` is the clock of the next write or TRIM of the
/// same LPN (a TRIM after write `c` counts as time `c + 1`), or [`NEVER`].
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Future {
    /// Invalidation time of each user write.
    pub next_write: Vec<u64>,
    /// The LPN of each user write (the oracle checks the run against it).
    pub lpns: Vec<Lpn>,
}

/// A write or TRIM event of the pre-pass, in issue order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FutureEvent {
    /// A user page write.
    Write(Lpn),
    /// A TRIM of a page.
    Trim(Lpn),
}

impl Future {
    /// Backward pass over the events of a run.
    pub fn from_events(events: &[FutureEvent], logical_pages: u64) -> Future {
        let writes = events
            .iter()
            .filter(|e| matches!(e, FutureEvent::Write(_)))
            .count();
        let mut next = vec![NEVER; logical_pages as usize];
        let mut out = vec![NEVER; writes];
        let mut lpns = vec![0; writes];
        // `c` = number of writes at or before the current event.
        let mut c = writes as u64;
        for e in events.iter().rev() {
            match *e {
                FutureEvent::Trim(l) => next[l as usize] = c + 1,
                FutureEvent::Write(l) => {
                    out[c as usize - 1] = next[l as usize];
                    lpns[c as usize - 1] = l;
                    next[l as usize] = c;
                    c -= 1;
                }
            }
        }
        Future {
            next_write: out,
            lpns,
        }
    }

    /// Backward pass over `lpns`, the LPN of each user write in order, with TRIMs given
    /// apart as (writes issued before it, LPN) in order. Takes the LPN table over (the
    /// future keeps it), so the pass needs only the invalidation times and one transient
    /// 8 B entry per LPN beside it.
    pub fn from_writes_and_trims(
        lpns: Vec<Lpn>,
        trims: &[(u64, Lpn)],
        logical_pages: u64,
    ) -> Future {
        let writes = lpns.len();
        let mut next = vec![NEVER; logical_pages as usize];
        let mut out = vec![NEVER; writes];
        let mut t = trims.len();
        for c in (1..=writes).rev() {
            // TRIMs issued after write `c` (and before write `c + 1`) come first backward.
            while t > 0 && trims[t - 1].0 >= c as u64 {
                next[trims[t - 1].1 as usize] = trims[t - 1].0 + 1;
                t -= 1;
            }
            let l = lpns[c - 1] as usize;
            out[c - 1] = next[l];
            next[l] = c as u64;
        }
        Future {
            next_write: out,
            lpns,
        }
    }

    /// Future of a stream of writes only.
    pub fn from_writes(lpns: &[Lpn], logical_pages: u64) -> Future {
        let ev: Vec<FutureEvent> = lpns.iter().map(|&l| FutureEvent::Write(l)).collect();
        Future::from_events(&ev, logical_pages)
    }
}

/// The oracle placement.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Oracle {
    classes: usize,
    /// SepBIT's FK: one-segment classes, never-invalidated data in the last one.
    fk: bool,
    explicit: Option<Vec<f64>>,
    iterations: u32,
    logical: u64,
    /// Upper bounds (exclusive) of remaining lifetime per finite class, user writes.
    bounds: Vec<u64>,
    /// Not checkpointed: a resumed run recomputes the future with its pre-pass.
    #[serde(skip)]
    future: Vec<u64>,
    #[serde(skip)]
    lpns: Vec<Lpn>,
    mismatch: Option<(u64, Lpn, Lpn)>,
    #[serde(with = "crate::checkpoint::raw")]
    inv: Vec<u64>,
    ready: bool,
    user_class: Vec<u64>,
    gc_class: Vec<u64>,
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let fk = match spec.raw("_") {
        None => false,
        Some(v) => {
            spec.choice("_", v, &["fk"])?;
            true
        }
    };
    if fk {
        let classes = spec.num::<usize>("classes", 6, 2, 64)?;
        super::common::check_streams(spec, "classes", classes, init.segments)?;
        let pps = init.pages_per_segment as u64;
        return Ok(Box::new(Oracle {
            classes,
            fk: true,
            explicit: None,
            iterations: 0,
            logical: init.logical_pages,
            bounds: (1..classes as u64).map(|k| k * pps).collect(),
            future: Vec::new(),
            lpns: Vec::new(),
            mismatch: None,
            inv: vec![NEVER; init.logical_pages as usize],
            ready: false,
            user_class: vec![0; classes],
            gc_class: vec![0; classes],
        }));
    }
    let explicit =
        super::common::num_list(spec, "bounds", "capacity multiples like 0.05/0.25/1/4")?;
    let classes = match &explicit {
        Some(b) => {
            super::common::check_increasing(
                spec,
                "bounds",
                b,
                "capacity multiples like 0.05/0.25/1/4",
            )?;
            if b.is_empty() || b[0] <= 0.0 {
                return Err(Error::config(spec.path("bounds"), "boundaries must be > 0"));
            }
            if spec.raw("classes").is_some() {
                return Err(Error::config(
                    spec.path("classes"),
                    "give either `classes` (k-means) or `bounds` (explicit), not both",
                ));
            }
            b.len() + 2
        }
        None => spec.num::<usize>("classes", 6, 2, 64)?,
    };
    let iterations = spec.num::<u32>("iterations", 100, 1, 100_000)?;
    super::common::check_streams(
        spec,
        if explicit.is_some() {
            "bounds"
        } else {
            "classes"
        },
        classes,
        init.segments,
    )?;
    Ok(Box::new(Oracle {
        classes,
        fk: false,
        explicit,
        iterations,
        logical: init.logical_pages,
        bounds: Vec::new(),
        future: Vec::new(),
        lpns: Vec::new(),
        mismatch: None,
        inv: vec![NEVER; init.logical_pages as usize],
        ready: false,
        user_class: vec![0; classes],
        gc_class: vec![0; classes],
    }))
}

/// Histogram resolution of the k-means: bins per octave of lifetime.
const BINS_PER_OCTAVE: f64 = 16.0;

impl Oracle {
    #[inline]
    fn class_of(&self, remaining: u64) -> usize {
        // FK's bounds cover classes 0..classes-1, so never-invalidated data (the largest
        // remaining lifetime) lands in the last class through the scan below.
        if remaining == NEVER {
            return self.classes - 1;
        }
        // Few classes: a linear scan beats a binary search.
        self.bounds.iter().take_while(|&&b| remaining >= b).count()
    }

    /// k-means (Lloyd, 1-D) on log2 of the finite remaining lifetimes of user writes,
    /// computed on a fine histogram so it costs O(bins) per iteration.
    fn kmeans_bounds(&self) -> Vec<u64> {
        let k = self.classes - 1;
        let nbins = (64.0 * BINS_PER_OCTAVE) as usize + 1;
        let mut hist = vec![0u64; nbins];
        for (i, &t) in self.future.iter().enumerate() {
            if t != NEVER {
                let rem = t - (i as u64 + 1);
                let b = (libm::log2(rem.max(1) as f64) * BINS_PER_OCTAVE) as usize;
                hist[b.min(nbins - 1)] += 1;
            }
        }
        let total: u64 = hist.iter().sum();
        if total == 0 || k == 1 {
            return Vec::new();
        }
        let x = |b: usize| b as f64 + 0.5;
        // Start at equal-count quantiles.
        let mut centers = Vec::with_capacity(k);
        let mut acc = 0u64;
        let mut next_q = 1;
        for (b, &h) in hist.iter().enumerate() {
            acc += h;
            while next_q <= k && acc as f64 >= total as f64 * (next_q as f64 - 0.5) / k as f64 {
                centers.push(x(b));
                next_q += 1;
            }
        }
        while centers.len() < k {
            centers.push(*centers.last().unwrap_or(&0.0) + 1.0);
        }
        for _ in 0..self.iterations {
            let mut sum = vec![0.0; k];
            let mut cnt = vec![0u64; k];
            let mut c = 0;
            for (b, &h) in hist.iter().enumerate() {
                if h == 0 {
                    continue;
                }
                while c + 1 < k && (x(b) - centers[c + 1]).abs() < (x(b) - centers[c]).abs() {
                    c += 1;
                }
                sum[c] += x(b) * h as f64;
                cnt[c] += h;
            }
            let mut moved = false;
            for j in 0..k {
                if cnt[j] > 0 {
                    let n = sum[j] / cnt[j] as f64;
                    if n != centers[j] {
                        moved = true;
                    }
                    centers[j] = n;
                }
            }
            centers.sort_by(|a, b| a.total_cmp(b));
            if !moved {
                break;
            }
        }
        let mut out: Vec<u64> = centers
            .windows(2)
            .map(|w| libm::exp2((w[0] + w[1]) / 2.0 / BINS_PER_OCTAVE).round() as u64)
            .collect();
        out.dedup();
        out
    }
}

impl Placement for Oracle {
    fn name(&self) -> &'static str {
        "oracle"
    }
    fn save_state(&self, out: &mut crate::checkpoint::StateOut<'_>) -> Result<()> {
        out.put(self)
    }
    fn load_state(&mut self, state: &mut crate::checkpoint::StateIn<'_>) -> Result<()> {
        // Keep the future `set_future` gave (or will give) this instance. Its own table
        // goes before the saved one arrives (one copy at a time; a failed load leaves the
        // instance unusable, and every caller discards it).
        let inv_len = self.inv.len();
        self.inv = Vec::new();
        let mut o: Oracle = state.get()?;
        // Fixed by the spec and device (bounds: by the future, when this instance has it).
        let same = (o.classes, o.fk, &o.explicit, o.iterations, o.logical)
            == (self.classes, self.fk, &self.explicit, self.iterations, self.logical)
            && o.inv.len() == inv_len
            && o.user_class.len() == self.classes
            && o.gc_class.len() == self.classes
            && o.bounds.len() < self.classes
            // FK's bounds are fixed by the spec (one segment per class) from the start.
            && (!(self.ready || self.fk) || o.bounds == self.bounds);
        if !same {
            return Err(crate::checkpoint::inconsistent(
                "oracle classes, bounds or tables differ from the configuration".into(),
            ));
        }
        o.future = std::mem::take(&mut self.future);
        o.lpns = std::mem::take(&mut self.lpns);
        *self = o;
        Ok(())
    }
    fn streams(&self) -> usize {
        self.classes
    }
    fn stream_name(&self, s: StreamId) -> String {
        if self.fk {
            return if s as usize == self.classes - 1 {
                format!(">={s}seg")
            } else {
                format!("<{}seg", s + 1)
            };
        }
        if s as usize == self.classes - 1 {
            "never".into()
        } else {
            format!("C{}", s + 1)
        }
    }
    fn needs_future(&self) -> bool {
        true
    }
    fn set_future(&mut self, future: Future) {
        self.future = future.next_write;
        self.lpns = future.lpns;
        self.bounds = match &self.explicit {
            _ if self.fk => std::mem::take(&mut self.bounds),
            Some(b) => b
                .iter()
                .map(|&m| (m * self.logical as f64).round().max(1.0) as u64)
                .collect(),
            None => self.kmeans_bounds(),
        };
        self.ready = true;
    }
    #[inline]
    fn user_stream(&mut self, lpn: Lpn, now: u64) -> StreamId {
        // Past the pre-pass (a caller that writes more than it announced): unknown = never.
        let i = now as usize - 1;
        let t = self.future.get(i).copied().unwrap_or(NEVER);
        // The run must replay the pre-pass exactly, or the "future" is someone else's.
        if self.lpns.get(i).is_some_and(|&l| l != lpn) && self.mismatch.is_none() {
            self.mismatch = Some((now, self.lpns[i], lpn));
        }
        self.inv[lpn as usize] = t;
        let c = self.class_of(if t == NEVER { NEVER } else { t - now });
        self.user_class[c] += 1;
        c as StreamId
    }
    #[inline]
    fn gc_stream(&mut self, lpn: Lpn, _victim: SegmentId, view: &SegmentView) -> StreamId {
        let t = self.inv[lpn as usize];
        let c = self.class_of(if t == NEVER {
            NEVER
        } else {
            t.saturating_sub(view.now())
        });
        self.gc_class[c] += 1;
        c as StreamId
    }
    fn consistency_error(&self) -> Option<String> {
        self.mismatch.map(|(t, want, got)| {
            format!(
                "oracle: user write {t} wrote LPN {got} but the pre-pass had LPN {want}; \
                 the workload given to prepare_future was not identical to the one run"
            )
        })
    }
    fn on_trim(&mut self, lpn: Lpn) {
        self.inv[lpn as usize] = NEVER;
    }
    fn memory_bytes(&self) -> u64 {
        (self.future.len() * 12 + self.inv.len() * 8 + self.bounds.len() * 8) as u64
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "future_known": self.ready,
            "variant": if self.fk { "fk (SepBIT's future-knowledge separator: one-segment remaining-lifetime classes)" } else { "ora (k-means remaining-lifetime classes)" },
            "boundaries_source": if self.fk { "fk: multiples of one segment" } else if self.explicit.is_some() { "explicit" } else { "k-means on log2 remaining lifetime of user writes" },
            "bounds_user_writes": self.bounds,
            "bounds_capacity_multiples": self.bounds.iter().map(|&b| b as f64 / self.logical as f64).collect::<Vec<_>>(),
            "user_writes_per_class": self.user_class,
            "gc_writes_per_class": self.gc_class,
            "note": "placement half of ORA (papers/midas.txt): group sizes are left to the victim policy, not tuned per run",
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::Segments;

    #[test]
    fn fk_classes_are_one_segment_of_remaining_lifetime_wide() {
        // 4-page segments, 3 classes: remaining < 4 -> 0, < 8 -> 1, else (and never) -> 2.
        let s = Spec::parse("placement", "oracle:fk,classes=3").unwrap();
        let init = PlacementInit {
            logical_pages: 8,
            segments: 64,
            pages_per_segment: 4,
            seed: 1,
        };
        let mut o = build(&s, init).unwrap();
        s.finish().unwrap();
        // Writes at clocks 1..=8 of LPNs 0 1 0 2 3 4 5 1: LPN 0 at t=1 is rewritten at 3
        // (remaining 2), LPN 1 at t=2 at 8 (6), the others never.
        let lpns = [0, 1, 0, 2, 3, 4, 5, 1];
        o.set_future(Future::from_writes(&lpns, 8));
        let got: Vec<StreamId> = lpns
            .iter()
            .enumerate()
            .map(|(i, &l)| o.user_stream(l, i as u64 + 1))
            .collect();
        assert_eq!(got, vec![0, 1, 2, 2, 2, 2, 2, 2]);
        assert_eq!(o.stream_name(0), "<1seg");
        assert_eq!(o.stream_name(2), ">=2seg");
        // A GC relocation is re-classed at the time it moves: LPN 1 (written at 2,
        // invalid at 8) relocated at clock 5 has 3 writes left: class 0.
        let mut o2 = build(
            &Spec::parse("placement", "oracle:fk,classes=3").unwrap(),
            init,
        )
        .unwrap();
        o2.set_future(Future::from_writes(&lpns, 8));
        for (i, &l) in lpns.iter().take(2).enumerate() {
            o2.user_stream(l, i as u64 + 1);
        }
        let segs = Segments::new(2, 4);
        let view = SegmentView::new(&segs, 5);
        assert_eq!(o2.gc_stream(1, 0, &view), 0);
        let view = SegmentView::new(&segs, 3);
        assert_eq!(o2.gc_stream(1, 0, &view), 1, "5 writes left at clock 3");
        // Bad variant names are errors.
        assert!(build(&Spec::parse("placement", "oracle:fq").unwrap(), init).is_err());
    }
}

#[cfg(test)]
mod future_tests {
    use super::*;

    #[test]
    fn writes_with_trims_apart_give_the_same_future_as_events() {
        let mut rng = crate::workload::Rng::new(7);
        for _ in 0..50 {
            let logical = 1 + rng.below(40);
            let mut ev = Vec::new();
            let (mut lpns, mut trims) = (Vec::new(), Vec::new());
            for _ in 0..rng.below(300) {
                let l = rng.below(logical) as Lpn;
                if rng.below(5) == 0 {
                    ev.push(FutureEvent::Trim(l));
                    trims.push((lpns.len() as u64, l));
                } else {
                    ev.push(FutureEvent::Write(l));
                    lpns.push(l);
                }
            }
            let a = Future::from_events(&ev, logical);
            let b = Future::from_writes_and_trims(lpns, &trims, logical);
            assert_eq!(a.next_write, b.next_write);
            assert_eq!(a.lpns, b.lpns);
        }
    }
}
