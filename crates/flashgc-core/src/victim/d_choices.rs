//! d-choices (Van Houdt, SIGMETRICS 2013): sample d candidates uniformly at random (with
//! replacement) and reclaim the one with the fewest valid pages (ties: first sampled).

use super::{CandidateSet, VictimInit, VictimPolicy, VictimScope};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::SegmentId;
use crate::workload::Rng;

/// d-choices victim selection.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DChoices {
    set: CandidateSet,
    rng: Rng,
    d: u32,
}

pub(super) fn build(spec: &Spec, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    let d = spec.num::<u32>("d", 2, 1, 4096)?;
    Ok(Box::new(DChoices {
        set: CandidateSet::new(init.segments, init.groups),
        rng: Rng::new(init.seed ^ 0x0000_d0c4_0135_0002),
        d,
    }))
}

impl VictimPolicy for DChoices {
    fn name(&self) -> &'static str {
        "d-choices"
    }
    crate::checkpoint::serde_state!(same: [d], len: []);
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
        let n = self.set.len(scope) as u64;
        if n == 0 {
            return None;
        }
        let mut best = self.set.nth(scope, self.rng.below(n) as usize);
        for _ in 1..self.d {
            let s = self.set.nth(scope, self.rng.below(n) as usize);
            if view.valid(s) < view.valid(best) {
                best = s;
            }
        }
        self.set.remove(best, view.stream(best));
        Some(best)
    }
    fn memory_bytes(&self) -> u64 {
        self.set.memory_bytes()
    }
}
