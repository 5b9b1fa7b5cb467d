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
}

pub(super) fn build(_spec: &Spec, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    Ok(Box::new(RandomVictim {
        set: CandidateSet::new(init.segments, init.groups),
        rng: Rng::new(init.seed ^ 0x005e_ed0f_7a2d_0001),
    }))
}

impl VictimPolicy for RandomVictim {
    fn name(&self) -> &'static str {
        "random"
    }
    crate::checkpoint::serde_state!(same: [], len: []);
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
        let n = self.set.len(scope);
        if n == 0 {
            return None;
        }
        let s = self.set.nth(scope, self.rng.below(n as u64) as usize);
        self.set.remove(s, view.stream(s));
        Some(s)
    }
    fn memory_bytes(&self) -> u64 {
        self.set.memory_bytes()
    }
}
