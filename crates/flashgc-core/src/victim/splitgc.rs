//! SplitGC's victim rule (papers/splitgc.txt Sec. 3.1): "If such blocks [holding duplicate
//! valid pages] exist, it selects the block with the fewest non-duplicate valid pages as the
//! victim; otherwise, it employs the greedy scheme". Duplicates are what the FTL's content
//! mode counts per segment ([`SegmentView::dup`]: live pages whose content group has two or
//! more members, learnt by the read scrub), so the rule is only meaningful with the
//! `splitgc` GC action; with no known duplicates every rule below is greedy, same order and
//! same ties.
//!
//! `rule=` (the paper leaves open how a block with duplicates compares with one without,
//! and whether the space a victim frees counts):
//! * `per-free` (default): fewest non-duplicate valid pages per page the victim frees for
//!   good, `(valid - dup) / (pages - valid)`, compared exactly (cross-multiplied); blocks
//!   that free nothing rank last (by non-duplicates). Deferred duplicates are written back at
//!   idle time, so only the invalid pages are freed in the end. The literal rules below
//!   churn on the FIU slice (docs/splitgc.md); the paper reports no churn.
//! * `min-nondup`: fewest non-duplicate valid pages over all blocks (a block without known
//!   duplicates counts all its valid pages): the paper's rule whenever the best block holds
//!   duplicates.
//! * `dup-first`: the literal reading: any block holding duplicates beats every block
//!   without; among those the fewest non-duplicates; greedy when none holds duplicates.
//!
//! Ties go to the block that reached its rank key (non-duplicate valid pages) first. Costs:
//! O(1) amortized per pick and update for `min-nondup` and `dup-first` (key buckets),
//! O(log segments) for `per-free` (an ordered set per group), instead of a scan.

use super::keyed::KeyedBuckets;
use super::{VictimInit, VictimPolicy, VictimScope};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{SegmentId, NONE};
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// Which reading of the paper's rule (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SplitRule {
    /// Fewest non-duplicates per freed page.
    PerFree,
    /// Fewest non-duplicates.
    MinNondup,
    /// Blocks with duplicates first.
    DupFirst,
}

/// A per-free rank: `n / f` (non-duplicate valid pages per freed page), then the stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct PerFreeKey {
    n: u32,
    f: u32,
    stamp: u64,
    seg: SegmentId,
}

impl Ord for PerFreeKey {
    fn cmp(&self, o: &Self) -> Ordering {
        let ratio = match (self.f == 0, o.f == 0) {
            (true, true) => self.n.cmp(&o.n),
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => (self.n as u64 * o.f as u64).cmp(&(o.n as u64 * self.f as u64)),
        };
        ratio.then(self.stamp.cmp(&o.stamp))
    }
}
impl PartialOrd for PerFreeKey {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// SplitGC victim selection.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SplitGcVictim {
    rule: SplitRule,
    pps: u32,
    /// `min-nondup`: key valid - dup; `dup-first`: key valid over all candidates.
    main: KeyedBuckets,
    /// `dup-first`: key valid - dup over the candidates holding duplicates.
    dups: Option<KeyedBuckets>,
    /// `per-free`: ordered ranks per group, and each candidate's current rank.
    sets: Vec<BTreeSet<PerFreeKey>>,
    rank: Vec<PerFreeKey>,
    seq: u64,
}

pub(super) fn build(spec: &Spec, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    let rule = match spec
        .choice("rule", "per-free", &["per-free", "min-nondup", "dup-first"])?
        .as_str()
    {
        "min-nondup" => SplitRule::MinNondup,
        "dup-first" => SplitRule::DupFirst,
        _ => SplitRule::PerFree,
    };
    Ok(Box::new(SplitGcVictim::new(init, rule)))
}

impl SplitGcVictim {
    /// A policy with rule `rule` for the given device.
    pub fn new(init: VictimInit, rule: SplitRule) -> SplitGcVictim {
        let groups = init.groups.max(1);
        let pps = init.pages_per_segment;
        let per_free = rule == SplitRule::PerFree;
        SplitGcVictim {
            rule,
            pps,
            main: KeyedBuckets::new(if per_free { 0 } else { init.segments }, groups, pps),
            dups: (rule == SplitRule::DupFirst)
                .then(|| KeyedBuckets::new(init.segments, groups, pps)),
            sets: if per_free {
                vec![BTreeSet::new(); groups]
            } else {
                Vec::new()
            },
            rank: if per_free {
                vec![
                    PerFreeKey {
                        n: 0,
                        f: 0,
                        stamp: 0,
                        seg: NONE
                    };
                    init.segments as usize
                ]
            } else {
                Vec::new()
            },
            seq: 0,
        }
    }

    #[inline]
    fn nondup(view: &SegmentView, seg: SegmentId) -> u32 {
        view.valid(seg) - view.dup(seg).min(view.valid(seg))
    }

    /// Brings `seg`'s rank up to date after any change of its counters.
    fn update(&mut self, seg: SegmentId, view: &SegmentView) {
        match self.rule {
            SplitRule::MinNondup => self.main.rekey(seg, Self::nondup(view, seg)),
            SplitRule::DupFirst => {
                self.main.rekey(seg, view.valid(seg));
                let dups = self.dups.as_mut().expect("dup-first");
                let has = view.dup(seg) > 0;
                match (has, dups.contains(seg)) {
                    (true, true) => dups.rekey(seg, Self::nondup(view, seg)),
                    (true, false) => {
                        dups.insert(seg, view.stream(seg) as usize, Self::nondup(view, seg))
                    }
                    (false, true) => dups.remove(seg),
                    (false, false) => {}
                }
            }
            SplitRule::PerFree => {
                let old = self.rank[seg as usize];
                if old.seg == NONE {
                    return;
                }
                let n = Self::nondup(view, seg);
                let f = self.pps - view.valid(seg);
                if n == old.n && f == old.f {
                    return;
                }
                let stamp = if n != old.n {
                    self.seq += 1;
                    self.seq
                } else {
                    old.stamp
                };
                let new = PerFreeKey { n, f, stamp, seg };
                let set = &mut self.sets[view.stream(seg) as usize];
                set.remove(&old);
                set.insert(new);
                self.rank[seg as usize] = new;
            }
        }
    }
}

impl VictimPolicy for SplitGcVictim {
    fn name(&self) -> &'static str {
        "splitgc"
    }
    crate::checkpoint::serde_state!(same: [rule, pps], len: [sets, rank]);

    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        let view = &dev.view;
        let n = view.len();
        let pps = view.pages_per_segment();
        if self.pps != pps {
            return Err(format!(
                "{} pages per segment, the device has {pps}",
                self.pps
            ));
        }
        let nondup = |s: SegmentId| Self::nondup(view, s);
        match self.rule {
            SplitRule::MinNondup => {
                let c = self.main.check_restored(dev, n, pps, &nondup)?;
                dev.check_candidates(c.into_iter())
            }
            SplitRule::DupFirst => {
                let valid = |s: SegmentId| view.valid(s);
                let c = self.main.check_restored(dev, n, pps, &valid)?;
                dev.check_candidates(c.into_iter())?;
                let dups = self
                    .dups
                    .as_ref()
                    .ok_or("dup-first without its dup buckets")?;
                let d = dups.check_restored(dev, n, pps, &nondup)?;
                // The dup buckets hold exactly the candidates that hold duplicates.
                let want = (0..n as SegmentId)
                    .filter(|&s| {
                        view.state(s) == crate::segment::SegState::Sealed && view.dup(s) > 0
                    })
                    .count();
                if d.len() != want
                    || d.iter().any(|&(_, s)| {
                        view.dup(s) == 0 || view.state(s) != crate::segment::SegState::Sealed
                    })
                {
                    return Err("dup buckets: not the sealed segments holding duplicates".into());
                }
                Ok(())
            }
            SplitRule::PerFree => {
                if self.sets.len() != dev.streams.max(1) || self.rank.len() != n {
                    return Err(format!(
                        "{} rank sets for {} streams, {} ranks for {n} segments",
                        self.sets.len(),
                        dev.streams,
                        self.rank.len()
                    ));
                }
                let mut cands = Vec::new();
                for (g, set) in self.sets.iter().enumerate() {
                    for k in set {
                        let s = k.seg;
                        if s as usize >= n
                            || self.rank[s as usize] != *k
                            || k.n != nondup(s)
                            || k.f != pps - view.valid(s).min(pps)
                            || k.stamp > self.seq
                        {
                            return Err(format!("rank set {g}: segment {s} misplaced"));
                        }
                        cands.push((g, s));
                    }
                }
                let ranked = self.rank.iter().filter(|r| r.seg != NONE).count();
                if ranked != cands.len()
                    || self
                        .rank
                        .iter()
                        .enumerate()
                        .any(|(i, r)| r.seg != NONE && r.seg as usize != i)
                {
                    return Err("ranks without a place in the rank sets".into());
                }
                dev.check_candidates(cands.into_iter())
            }
        }
    }

    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        let g = view.stream(seg) as usize;
        match self.rule {
            SplitRule::MinNondup => self.main.insert(seg, g, Self::nondup(view, seg)),
            SplitRule::DupFirst => {
                self.main.insert(seg, g, view.valid(seg));
                if view.dup(seg) > 0 {
                    let k = Self::nondup(view, seg);
                    self.dups.as_mut().expect("dup-first").insert(seg, g, k);
                }
            }
            SplitRule::PerFree => {
                self.seq += 1;
                let r = PerFreeKey {
                    n: Self::nondup(view, seg),
                    f: self.pps - view.valid(seg),
                    stamp: self.seq,
                    seg,
                };
                self.sets[g].insert(r);
                self.rank[seg as usize] = r;
            }
        }
    }
    fn on_invalidate(&mut self, seg: SegmentId, view: &SegmentView) {
        self.update(seg, view);
    }
    fn on_revalidate(&mut self, seg: SegmentId, view: &SegmentView) {
        self.update(seg, view);
    }
    fn on_counters(&mut self, seg: SegmentId, view: &SegmentView) {
        self.update(seg, view);
    }

    fn select(&mut self, _view: &SegmentView, scope: VictimScope) -> Option<SegmentId> {
        match self.rule {
            SplitRule::MinNondup => self.main.pop_min(scope),
            SplitRule::DupFirst => {
                let dups = self.dups.as_mut().expect("dup-first");
                let s = if dups.any(scope) {
                    let s = dups.pop_min(scope)?;
                    self.main.remove(s);
                    s
                } else {
                    self.main.pop_min(scope)?
                };
                Some(s)
            }
            SplitRule::PerFree => {
                // Lowest rank over the groups in scope; ties to the lower group index.
                let mut best: Option<(PerFreeKey, usize)> = None;
                for g in scope.range(self.sets.len()) {
                    if let Some(&k) = self.sets[g].first() {
                        let better = match &best {
                            None => true,
                            Some((b, _)) => {
                                PerFreeKey { stamp: 0, ..k }.cmp(&PerFreeKey { stamp: 0, ..*b })
                                    == Ordering::Less
                            }
                        };
                        if better {
                            best = Some((k, g));
                        }
                    }
                }
                let (k, g) = best?;
                self.sets[g].remove(&k);
                self.rank[k.seg as usize].seg = NONE;
                Some(k.seg)
            }
        }
    }
    fn remove(&mut self, seg: SegmentId, view: &SegmentView) -> bool {
        match self.rule {
            SplitRule::MinNondup | SplitRule::DupFirst => {
                if !self.main.contains(seg) {
                    return false;
                }
                self.main.remove(seg);
                if let Some(d) = self.dups.as_mut().filter(|d| d.contains(seg)) {
                    d.remove(seg);
                }
                true
            }
            SplitRule::PerFree => {
                let g = view.stream(seg) as usize;
                let r = self.rank[seg as usize];
                if r.seg != seg || g >= self.sets.len() || !self.sets[g].remove(&r) {
                    return false;
                }
                self.rank[seg as usize].seg = NONE;
                true
            }
        }
    }

    fn memory_bytes(&self) -> u64 {
        let per_free: u64 = self.sets.iter().map(|s| s.len() as u64 * 40).sum::<u64>()
            + self.rank.len() as u64 * 24;
        self.main.memory_bytes() + self.dups.as_ref().map_or(0, |d| d.memory_bytes()) + per_free
    }
}
