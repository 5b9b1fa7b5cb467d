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
    /// `min_garbage` filter: candidates with more valid pages are never sampled.
    max_valid: u32,
}

pub(super) fn build(spec: &Spec, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    let d = spec.num::<u32>("d", 2, 1, 4096)?;
    Ok(Box::new(DChoices {
        set: CandidateSet::new(init.segments, init.groups),
        rng: Rng::new(init.seed ^ 0x0000_d0c4_0135_0002),
        d,
        max_valid: super::max_valid(spec, &init)?,
    }))
}

impl VictimPolicy for DChoices {
    fn name(&self) -> &'static str {
        "d-choices"
    }
    fn max_valid(&self) -> u32 {
        self.max_valid
    }
    crate::checkpoint::serde_state!(same: [d, max_valid], len: []);
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
        let filtered = (self.max_valid < view.pages_per_segment())
            .then(|| self.set.filtered(view, scope, self.max_valid));
        let n = filtered.as_ref().map_or(self.set.len(scope), Vec::len) as u64;
        if n == 0 {
            return None;
        }
        let pick = |i: usize| match &filtered {
            Some(c) => c[i],
            None => self.set.nth(scope, i),
        };
        let mut best = pick(self.rng.below(n) as usize);
        for _ in 1..self.d {
            let s = pick(self.rng.below(n) as usize);
            if view.valid(s) < view.valid(best) {
                best = s;
            }
        }
        self.set.remove(best, view.stream(best));
        Some(best)
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
