//! `sepbit`: SepBIT (Wang et al., "Separating Data via Block Invalidation Time Inference
//! for Write Amplification Reduction in Log-Structured Storage", FAST'22), one of the
//! comparison set of papers/midas.txt (§2.3: "SepBIT employs both the latest update
//! interval and age of a block ... The total number of groups ... is six").
//!
//! Six classes, each its own stream:
//! * User writes (classes 1-2): the written LPN's *lifespan* v = time since its previous
//!   user write (the lifespan of the block this write invalidates). v < ℓ -> class 1
//!   (short-lived), otherwise (and for first writes) class 2.
//! * GC writes (classes 3-6): a page from a class-1 segment -> class 3; otherwise by its
//!   age g = time since its last user write: g < 4ℓ -> class 4, 4ℓ <= g < 16ℓ -> class 5,
//!   g >= 16ℓ -> class 6.
//! * ℓ = average lifespan (creation to reclamation, in user writes) of the most recently
//!   reclaimed class-1 segments; ℓ = ∞ until the first one is reclaimed (so at first every
//!   update is class 1, as in SepBIT's prototype).
//!
//! Parameters (spec `sepbit:key=value,...`):
//! * `window` (default 16): number of recently reclaimed class-1 segments averaged for ℓ
//!   (SepBIT's prototype value).
//! * `age_multiples` (default `4/16`): the GC age thresholds as multiples of ℓ (SepBIT §4).
//! * `group1` (default 0: free): class 1 held at this many segments, the MiDAS paper's
//!   Fig. 3(b) experiment ([`GroupSize`]); the report gives class 1's mean size at the
//!   victims either way (`group1`).
//!
//! Implementation notes: SepBIT infers v with a FIFO of recently written LBAs to bound
//! memory; flashgc keeps an exact last-write timestamp per LPN (8 B per LPN; the FIFO's
//! answer is the same whenever v < ℓ, which is the only comparison user writes need).
//! Class-1 segments fill only with user writes, in order, so a segment's creation time is
//! the clock of the class-1 write that opened it. Reclaimed class-1 segments (including
//! dead ones, which relocate nothing) are detected by a scan of the segment table before
//! each victim pick; a segment found gone was reclaimed right after the previous pick's
//! scan, at that scan's clock (GC does not advance the user-write clock). The scan costs
//! O(segments) per victim.

use super::common::{check_increasing, num_list, GroupSize};
use super::{Placement, PlacementInit, VictimScope};
use crate::error::{Error, Result};
use crate::segment::{SegState, SegmentView};
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};
use std::collections::{BTreeMap, VecDeque};

/// SepBIT placement.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SepBit {
    #[serde(with = "crate::checkpoint::raw")]
    last: Vec<u64>,
    ell: f64,
    window: usize,
    recent: VecDeque<u64>,
    mult: (f64, f64),
    pps: u64,
    c1_writes: u64,
    c1_open_clock: u64,
    /// Open time of each class-1 segment not yet reclaimed, by its seal time. Ordered (a
    /// B-tree, not a hash map) so that a checkpoint saves it in the same order in every
    /// run, a resumed one included: a hash map iterates in a per-process random order.
    c1_opened: BTreeMap<u64, u64>,
    /// Most entries `c1_opened` ever held (its memory figure, 16 B per entry as in a hash
    /// table: a map's allocation depends on its history, which a checkpoint cannot keep).
    c1_peak: usize,
    tracked: Vec<u64>,
    last_scan: u64,
    reclaimed_c1: u64,
    per_class: [u64; 6],
    /// Class 1 held at this many segments (0: free; `group1`).
    group1: u32,
    /// Class 1's size over the run.
    c1_size: GroupSize,
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let window = spec.num::<usize>("window", 16, 1, 1 << 20)?;
    let accepts = "two increasing multiples of ℓ, e.g. 4/16";
    let mult = match num_list(spec, "age_multiples", accepts)? {
        None => (4.0, 16.0),
        Some(v) => {
            if v.len() != 2 || v[0] <= 0.0 {
                return Err(Error::config(
                    spec.path("age_multiples"),
                    format!("expected {accepts}"),
                ));
            }
            check_increasing(spec, "age_multiples", &v, accepts)?;
            (v[0], v[1])
        }
    };
    super::common::check_streams(spec, "(6 classes)", 6, init.segments)?;
    let group1 = spec.num::<u32>("group1", 0, 0, init.segments)?;
    Ok(Box::new(SepBit {
        last: spec.table("", "per-page write times", init.logical_pages, 0)?,
        ell: f64::INFINITY,
        window,
        recent: VecDeque::with_capacity(window),
        mult,
        pps: init.pages_per_segment as u64,
        c1_writes: 0,
        c1_open_clock: 0,
        c1_opened: BTreeMap::new(),
        c1_peak: 0,
        tracked: vec![0; init.segments as usize],
        last_scan: 0,
        reclaimed_c1: 0,
        per_class: [0; 6],
        group1,
        c1_size: GroupSize::default(),
    }))
}

impl SepBit {
    fn reclaimed(&mut self, sealed_at: u64, at: u64) {
        if let Some(opened) = self.c1_opened.remove(&sealed_at) {
            if self.recent.len() == self.window {
                self.recent.pop_front();
            }
            self.recent.push_back(at.saturating_sub(opened));
            self.ell = self.recent.iter().sum::<u64>() as f64 / self.recent.len() as f64;
            self.reclaimed_c1 += 1;
        }
    }
}

/// Classifier work per user write on the simulation host beyond a no-op call, ns: SepBIT's
/// last-write lookup and lifespan comparison. `driver::calibrate::classifier_host_ns` (1 Mi
/// LPNs, 200 k zipf(1.0) writes, median of three runs of `--example cpu_calibrate`, AMD
/// EPYC, 2026-11-24); the firmware-CPU model scales it (docs/cpu.md).
const CLASSIFIER_NS: f64 = 4.1;

impl Placement for SepBit {
    fn name(&self) -> &'static str {
        "sepbit"
    }
    fn classifier_ns(&self) -> f64 {
        CLASSIFIER_NS
    }
    crate::checkpoint::serde_state!(same: [window, mult, pps, group1], len: [last, tracked]);
    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        let now = dev.view.now();
        if self.last.iter().any(|&t| t > now) || self.recent.iter().any(|&t| t > now) {
            return Err(format!(
                "a last-write time or lifespan after the clock {now}"
            ));
        }
        if self.recent.len() > self.window || self.last_scan > now {
            return Err("lifespan window".into());
        }
        if !self.c1_size.matches(&dev.view, 0) {
            return Err("class 1's count of sealed segments differs from the segment table".into());
        }
        Ok(())
    }
    fn streams(&self) -> usize {
        6
    }
    fn stream_name(&self, s: StreamId) -> String {
        format!("class{}", s + 1)
    }
    #[inline]
    fn user_stream(&mut self, lpn: Lpn, now: u64) -> StreamId {
        let prev = std::mem::replace(&mut self.last[lpn as usize], now);
        let short = prev != 0 && ((now - prev) as f64) < self.ell;
        if short {
            self.c1_writes += 1;
            if self.c1_writes % self.pps == 1 || self.pps == 1 {
                self.c1_open_clock = now;
            }
            if self.c1_writes % self.pps == 0 {
                self.c1_opened.insert(now, self.c1_open_clock);
                self.c1_peak = self.c1_peak.max(self.c1_opened.len());
            }
            self.per_class[0] += 1;
            0
        } else {
            self.per_class[1] += 1;
            1
        }
    }
    fn unroute(&mut self, lpn: Lpn, s: StreamId) {
        // Class 1's page count dates its segments' opening and sealing (`reclaimed` finds
        // a victim's open clock by its seal clock): a page never written would date them
        // early, and the victims' lifespans would go unmeasured.
        if s == 0 {
            if self.c1_writes % self.pps == 0 {
                // Its segment was counted sealed at this write's clock; the next class-1
                // page seals it (and holds the peak this entry set).
                self.c1_opened.remove(&self.last[lpn as usize]);
            }
            self.c1_writes -= 1;
        }
    }
    #[inline]
    fn gc_stream(&mut self, lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId {
        let c = if view.stream(victim) == 0 {
            2
        } else {
            let g = view.now().saturating_sub(self.last[lpn as usize]) as f64;
            if g < self.mult.0 * self.ell {
                3
            } else if g < self.mult.1 * self.ell {
                4
            } else {
                5
            }
        };
        self.per_class[c] += 1;
        c as StreamId
    }
    fn victim_scope(&mut self, view: &SegmentView) -> VictimScope {
        let at = self.last_scan;
        for s in 0..view.len() {
            let id = s as SegmentId;
            let tracked = self.tracked[s];
            if view.stream(id) == 0 && view.state(id) == SegState::Sealed {
                let sa = view.sealed_at(id);
                if tracked != sa {
                    if tracked != 0 {
                        self.reclaimed(tracked, at);
                    }
                    self.tracked[s] = sa;
                }
            } else if tracked != 0 {
                self.reclaimed(tracked, at);
                self.tracked[s] = 0;
            }
        }
        self.last_scan = view.now();
        if self.group1 == 0 {
            return VictimScope::All;
        }
        self.c1_size.scope(self.group1, view, 0, (1, 5))
    }
    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        self.c1_size.on_seal(view.stream(seg) == 0);
    }
    fn on_victim(&mut self, seg: SegmentId, view: &SegmentView) {
        self.c1_size.on_victim(view.stream(seg) == 0);
    }
    fn on_trim(&mut self, lpn: Lpn) {
        self.last[lpn as usize] = 0;
    }
    fn memory_bytes(&self) -> u64 {
        (self.last.len() * 8 + self.tracked.len() * 8 + self.c1_peak * 16 + self.window * 8) as u64
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "ell_user_writes": if self.ell.is_finite() { Some(self.ell) } else { None },
            "reclaimed_class1_segments": self.reclaimed_c1,
            "writes_per_class": self.per_class,
            "age_multiples": [self.mult.0, self.mult.1],
            "group1": self.c1_size.report(self.group1),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SepBIT over `pages` LPNs with `pps` pages per segment, ℓ still unmeasured (every
    /// rewrite is class 1).
    fn bare(pages: usize, pps: u64) -> SepBit {
        SepBit {
            last: vec![0; pages],
            ell: f64::INFINITY,
            window: 16,
            recent: VecDeque::new(),
            mult: (4.0, 16.0),
            pps,
            c1_writes: 0,
            c1_open_clock: 0,
            c1_opened: BTreeMap::new(),
            c1_peak: 0,
            tracked: vec![0; 4],
            last_scan: 0,
            reclaimed_c1: 0,
            per_class: [0; 6],
            group1: 0,
            c1_size: GroupSize::default(),
        }
    }

    /// A class-1 write handed back (`unroute`: DAGC absorbed it, so no page was
    /// programmed) must not seal a class-1 segment: the next class-1 write does, and the
    /// segment is dated by the write that opened it. Without `unroute` the handed-back
    /// write sealed the segment at clock 4 and the next one opened another at 5, so a
    /// victim sealed at 5 found no open time and its lifespan went unmeasured.
    #[test]
    fn an_unrouted_class1_write_neither_counts_nor_seals() {
        let mut s = bare(4, 2);
        // First writes of LPNs 0-2 are class 2 (no earlier write).
        for (lpn, t) in [(0, 1), (1, 1), (2, 1)] {
            assert_eq!(s.user_stream(lpn, t), 1);
        }
        assert_eq!(s.user_stream(0, 3), 0); // class 1: opens a segment at clock 3
        assert_eq!(s.user_stream(1, 4), 0); // would seal it at clock 4 ...
        s.unroute(1, 0); // ... but DAGC absorbed it
        assert_eq!(s.c1_writes, 1);
        assert!(s.c1_opened.is_empty(), "{:?}", s.c1_opened);
        assert_eq!(s.user_stream(2, 5), 0); // the page that does seal it
        assert_eq!(s.c1_opened.iter().collect::<Vec<_>>(), [(&5, &3)]);
        // A class-2 write handed back changes no class-1 count.
        assert_eq!(s.user_stream(3, 6), 1);
        s.unroute(3, 1);
        assert_eq!((s.c1_writes, s.c1_opened.len()), (2, 1));
        // The victim sealed at 5 is measured: opened at 3, reclaimed at 9.
        s.reclaimed(5, 9);
        assert_eq!((s.reclaimed_c1, s.ell), (1, 6.0));
    }
}
