//! Cost-benefit victim selection in the variants the literature uses. With u the valid
//! ratio and age the number of user page writes since the segment was sealed (the write
//! time of its youngest page, as LFS defines it), the candidate with the highest score wins:
//!
//! * `lfs`  (Rosenblum & Ousterhout 1992): `(1 - u) * age / (1 + u)`
//! * `sqrt` (SepBIT FAST'22, MiDAS FAST'24 simulators): `(1 - u) / u * sqrt(age)`
//! * `femu` (FEMU's bbssd): `age * (1 - u) / (2 u)`
//!
//! A segment with u = 0 scores infinity under `sqrt` and `femu`. Ties go to the earlier
//! candidate in the set's order. Selection scans the candidates (O(segments) per pick),
//! as the reference implementations do.

use super::{CandidateSet, VictimInit, VictimPolicy, VictimScope};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::SegmentId;

/// Which cost-benefit formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// Cost-benefit victim selection.
#[derive(Debug, Clone)]
pub struct CostBenefit {
    set: CandidateSet,
    formula: CostBenefitFormula,
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
    Ok(Box::new(CostBenefit {
        set: CandidateSet::new(init.segments, init.groups),
        formula,
    }))
}

impl CostBenefit {
    /// A cost-benefit policy with the given formula.
    pub fn new(init: VictimInit, formula: CostBenefitFormula) -> Self {
        CostBenefit {
            set: CandidateSet::new(init.segments, init.groups),
            formula,
        }
    }
}

impl VictimPolicy for CostBenefit {
    fn name(&self) -> &'static str {
        "cost-benefit"
    }
    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        self.set.insert(seg, view.stream(seg));
    }
    #[inline]
    fn on_invalidate(&mut self, _seg: SegmentId, _view: &SegmentView) {}
    fn select(&mut self, view: &SegmentView, scope: VictimScope) -> Option<SegmentId> {
        let mut best: Option<(f64, SegmentId)> = None;
        for s in self.set.iter(scope) {
            let score = self.formula.score(view.utilization(s), view.age(s) as f64);
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, s));
            }
        }
        let s = best?.1;
        self.set.remove(s, view.stream(s));
        Some(s)
    }
    fn memory_bytes(&self) -> u64 {
        self.set.memory_bytes()
    }
}
