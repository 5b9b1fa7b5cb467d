//! Random victim: a uniformly random sealed segment (the analytic baseline,
//! WAF = alpha / (alpha - 1) under uniform writes).

use super::{CandidateSet, VictimInit, VictimPolicy, VictimScope};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::SegmentId;
use crate::workload::Rng;

/// Uniformly random victim selection.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RandomVictim {
    set: CandidateSet,
    rng: Rng,
    /// `min_garbage` filter: candidates with more valid pages are never drawn.
    max_valid: u32,
}

pub(super) fn build(spec: &Spec, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    Ok(Box::new(RandomVictim {
        set: CandidateSet::new(init.segments, init.groups),
        rng: Rng::new(init.seed ^ 0x005e_ed0f_7a2d_0001),
        max_valid: super::max_valid(spec, &init)?,
    }))
}

impl VictimPolicy for RandomVictim {
    fn name(&self) -> &'static str {
        "random"
    }
    fn max_valid(&self) -> u32 {
        self.max_valid
    }
    crate::checkpoint::serde_state!(same: [max_valid], len: []);
    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        self.set.check_restored(dev)
    }
    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        self.set.insert(seg, view.stream(seg));
    }
    #[inline]
    fn on_invalidate(&mut self, _seg: SegmentId, _view: &SegmentView) {}
    fn select(&mut self, view: &SegmentView, scope: VictimScope) -> Option<SegmentId> {
        let s = if self.max_valid >= view.pages_per_segment() {
            let n = self.set.len(scope);
            if n == 0 {
                return None;
            }
            self.set.nth(scope, self.rng.below(n as u64) as usize)
        } else {
            let c = self.set.filtered(view, scope, self.max_valid);
            if c.is_empty() {
                return None;
            }
            c[self.rng.below(c.len() as u64) as usize]
        };
        self.set.remove(s, view.stream(s));
        Some(s)
    }
    fn remove(&mut self, seg: SegmentId, view: &SegmentView) -> bool {
        if !self.set.contains(seg) {
            return false;
        }
        self.set.remove(seg, view.stream(seg));
        true
    }
    fn memory_bytes(&self) -> u64 {
        self.set.memory_bytes()
    }
}
