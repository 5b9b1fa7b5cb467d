//! Cost-benefit victim selection in the variants the literature uses. With u the valid
//! ratio and age the number of user page writes since the segment was sealed (the write
//! time of its youngest page, as LFS defines it), the candidate with the highest score wins:
//!
//! * `lfs`  (Rosenblum & Ousterhout 1992): `(1 - u) * age / (1 + u)`
//! * `sqrt` (SepBIT FAST'22, MiDAS FAST'24 simulators): `(1 - u) / u * sqrt(age)`
//! * `femu` (FEMU's bbssd): `age * (1 - u) / (2 u)`
//!
//! A segment with u = 0 scores infinity under `sqrt` and `femu`. Ties go to the older
//! segment (smaller seal sequence).
//!
//! Two exact implementations, chosen by size. With few segments, a pick scans all
//! candidates (as the reference simulators do). With many, candidates sit in buckets by
//! valid count, each ordered by seal time: for a fixed u every formula grows with age, so the
//! best candidate of a bucket is its oldest, and a pick compares one candidate per bucket:
//! O(pages per segment) instead of O(segments), at O(log n) per invalidation. Both modes
//! pick the same segment.

use super::{CandidateSet, VictimInit, VictimPolicy, VictimScope};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::SegmentId;
use std::collections::BTreeSet;

/// Which cost-benefit formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CostBenefitFormula {
    /// `(1-u)*age/(1+u)`.
    Lfs,
    /// `(1-u)/u*sqrt(age)`.
    Sqrt,
    /// `age*(1-u)/(2u)`.
    Femu,
}

impl CostBenefitFormula {
    /// Score of a segment with valid ratio `u` and age `age`.
    #[inline]
    pub fn score(self, u: f64, age: f64) -> f64 {
        match self {
            CostBenefitFormula::Lfs => (1.0 - u) * age / (1.0 + u),
            CostBenefitFormula::Sqrt => {
                if u == 0.0 {
                    f64::INFINITY
                } else {
                    (1.0 - u) / u * libm::sqrt(age)
                }
            }
            CostBenefitFormula::Femu => {
                if u == 0.0 {
                    f64::INFINITY
                } else {
                    age * (1.0 - u) / (2.0 * u)
                }
            }
        }
    }
}

/// Candidates in buckets by (group, valid count), each ordered by (seal time, seal sequence).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Buckets {
    per_group: usize,
    sets: Vec<BTreeSet<(u64, u64, SegmentId)>>,
}

/// Cost-benefit victim selection.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CostBenefit {
    set: CandidateSet,
    buckets: Option<Buckets>,
    formula: CostBenefitFormula,
    /// `min_garbage` filter: candidates with more valid pages are never scored.
    max_valid: u32,
}

pub(super) fn build(spec: &Spec, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    // Accept both `cost-benefit:sqrt` and `cost-benefit:formula=sqrt`.
    let f = match spec.raw("_") {
        Some(v) => spec.choice("_", v, &["lfs", "sqrt", "femu"])?,
        None => spec.choice("formula", "lfs", &["lfs", "sqrt", "femu"])?,
    };
    let formula = match f.as_str() {
        "sqrt" => CostBenefitFormula::Sqrt,
        "femu" => CostBenefitFormula::Femu,
        _ => CostBenefitFormula::Lfs,
    };
    let mut p = CostBenefit::new(init, formula);
    p.max_valid = super::max_valid(spec, &init)?;
    // `impl=scan|buckets` forces an implementation (both exact; for verification).
    match spec
        .choice("impl", "auto", &["auto", "scan", "buckets"])?
        .as_str()
    {
        "scan" => p.buckets = None,
        "buckets" if p.buckets.is_none() => {
            let per_group = init.pages_per_segment as usize + 1;
            p.buckets = Some(Buckets {
                per_group,
                sets: vec![BTreeSet::new(); per_group * init.groups.max(1)],
            });
        }
        _ => {}
    }
    Ok(Box::new(p))
}

impl CostBenefit {
    /// A cost-benefit policy with the given formula.
    pub fn new(init: VictimInit, formula: CostBenefitFormula) -> Self {
        let per_group = init.pages_per_segment as usize + 1;
        let groups = init.groups.max(1);
        // Buckets pay off when one candidate per bucket is far fewer than all candidates.
        let buckets = (per_group * groups * 4 < init.segments as usize).then(|| Buckets {
            per_group,
            sets: vec![BTreeSet::new(); per_group * groups],
        });
        CostBenefit {
            set: CandidateSet::new(init.segments, init.groups),
            buckets,
            formula,
            max_valid: init.pages_per_segment,
        }
    }

    fn key(view: &SegmentView, seg: SegmentId) -> (u64, u64, SegmentId) {
        (view.sealed_at(seg), view.seal_seq(seg), seg)
    }

    /// Is (score, seal_seq) better than the best so far? Higher score; ties to the older.
    #[inline]
    fn better(score: f64, seq: u64, best: Option<(f64, u64, SegmentId)>) -> bool {
        match best {
            None => true,
            Some((b, bseq, _)) => score > b || (score == b && seq < bseq),
        }
    }
}

/// One selection's CPU work on the simulation host, ns: greedy's calibration with
/// `cost-benefit` (16 Ki segments: the bucketed implementation; `--example cpu_calibrate`,
/// AMD EPYC, 2026-11-24). Firmware that scans every segment per pick costs more.
const SELECT_NS: f64 = 594.0;

impl VictimPolicy for CostBenefit {
    fn name(&self) -> &'static str {
        "cost-benefit"
    }
    fn max_valid(&self) -> u32 {
        self.max_valid
    }
    fn select_ns(&self) -> f64 {
        SELECT_NS
    }
    crate::checkpoint::serde_state!(same: [formula, max_valid], len: []);
    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        self.set.check_restored(dev)?;
        let Some(b) = &self.buckets else {
            return Ok(());
        };
        let view = &dev.view;
        let groups = dev.streams.max(1);
        if b.per_group != view.pages_per_segment() as usize + 1
            || b.sets.len() != b.per_group * groups
        {
            return Err("buckets sized for another device".into());
        }
        // Every candidate in the bucket of its stream and valid count, under its key.
        let mut n = 0;
        for (i, set) in b.sets.iter().enumerate() {
            for &(sealed_at, seq, s) in set {
                if s as usize >= view.len()
                    || view.state(s) != crate::segment::SegState::Sealed
                    || Self::key(view, s) != (sealed_at, seq, s)
                    || view.stream(s) as usize * b.per_group + view.valid(s) as usize != i
                {
                    return Err(format!(
                        "bucket {i}: entry of segment {s} does not match it"
                    ));
                }
                n += 1;
            }
        }
        if n != self.set.len(VictimScope::All) {
            return Err("buckets and candidate set disagree".into());
        }
        Ok(())
    }
    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        self.set.insert(seg, view.stream(seg));
        if let Some(b) = &mut self.buckets {
            let i = view.stream(seg) as usize * b.per_group + view.valid(seg) as usize;
            b.sets[i].insert(Self::key(view, seg));
        }
    }
    #[inline]
    fn on_invalidate(&mut self, seg: SegmentId, view: &SegmentView) {
        if let Some(b) = &mut self.buckets {
            let i = view.stream(seg) as usize * b.per_group + view.valid(seg) as usize;
            let k = Self::key(view, seg);
            b.sets[i + 1].remove(&k);
            b.sets[i].insert(k);
        }
    }
    fn on_revalidate(&mut self, seg: SegmentId, view: &SegmentView) {
        if let Some(b) = &mut self.buckets {
            let i = view.stream(seg) as usize * b.per_group + view.valid(seg) as usize;
            let k = Self::key(view, seg);
            b.sets[i - 1].remove(&k);
            b.sets[i].insert(k);
        }
    }
    fn select(&mut self, view: &SegmentView, scope: VictimScope) -> Option<SegmentId> {
        let mut best: Option<(f64, u64, SegmentId)> = None;
        match &self.buckets {
            None => {
                for s in self.set.iter(scope) {
                    if view.valid(s) > self.max_valid {
                        continue;
                    }
                    let score = self.formula.score(view.utilization(s), view.age(s) as f64);
                    let seq = view.seal_seq(s);
                    if Self::better(score, seq, best) {
                        best = Some((score, seq, s));
                    }
                }
            }
            Some(b) => {
                let groups = b.sets.len() / b.per_group;
                let pps = (b.per_group - 1) as f64;
                for g in scope.range(groups) {
                    for v in 0..b.per_group.min(self.max_valid as usize + 1) {
                        if let Some(&(sealed_at, seq, s)) = b.sets[g * b.per_group + v].first() {
                            let age = view.now().saturating_sub(sealed_at) as f64;
                            let score = self.formula.score(v as f64 / pps, age);
                            if Self::better(score, seq, best) {
                                best = Some((score, seq, s));
                            }
                        }
                    }
                }
            }
        }
        let s = best?.2;
        self.set.remove(s, view.stream(s));
        if let Some(b) = &mut self.buckets {
            let i = view.stream(s) as usize * b.per_group + view.valid(s) as usize;
            b.sets[i].remove(&Self::key(view, s));
        }
        Some(s)
    }
    fn remove(&mut self, seg: SegmentId, view: &SegmentView) -> bool {
        if !self.set.contains(seg) {
            return false;
        }
        self.set.remove(seg, view.stream(seg));
        if let Some(b) = &mut self.buckets {
            let i = view.stream(seg) as usize * b.per_group + view.valid(seg) as usize;
            b.sets[i].remove(&Self::key(view, seg));
        }
        true
    }
    fn memory_bytes(&self) -> u64 {
        // BTreeSet nodes hold about 11 keys of 24 B in 300-odd bytes: ~32 B per candidate.
        self.set.memory_bytes()
            + self.buckets.as_ref().map_or(0, |b| {
                (b.sets.len() * 24) as u64 + self.set.len(VictimScope::All) as u64 * 32
            })
    }
}
