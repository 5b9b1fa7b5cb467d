//! Windowed greedy (Hu et al., SYSTOR 2009): the fewest valid pages among the `w` oldest
//! sealed segments. w = 1 is FIFO; w = all segments is greedy. Ties go to the older segment.

use super::{SealOrder, VictimInit, VictimPolicy, VictimScope};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::SegmentId;

/// Windowed greedy victim selection.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct WindowedGreedy {
    order: SealOrder,
    window: usize,
    /// `min_garbage` filter: candidates with more valid pages are not in the window.
    max_valid: u32,
}

pub(super) fn build(spec: &Spec, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    let w = spec.num::<u32>("w", 16, 1, 1 << 20)?;
    Ok(Box::new(WindowedGreedy {
        order: SealOrder::new(init.groups),
        window: w as usize,
        max_valid: super::max_valid(spec, &init)?,
    }))
}

/// One selection's CPU work on the simulation host, ns: greedy's calibration with
/// `windowed-greedy` (w=16; `--example cpu_calibrate`, AMD EPYC, 2026-11-24).
const SELECT_NS: f64 = 59.0;

impl VictimPolicy for WindowedGreedy {
    fn name(&self) -> &'static str {
        "windowed-greedy"
    }
    fn max_valid(&self) -> u32 {
        self.max_valid
    }
    fn select_ns(&self) -> f64 {
        SELECT_NS
    }
    crate::checkpoint::serde_state!(same: [window, max_valid], len: []);
    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        self.order.check_restored(dev)
    }
    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        self.order.push(seg, view);
    }
    #[inline]
    fn on_invalidate(&mut self, _seg: SegmentId, _view: &SegmentView) {}
    fn select(&mut self, view: &SegmentView, scope: VictimScope) -> Option<SegmentId> {
        let cands = self
            .order
            .oldest_where(view, scope, self.window, self.max_valid);
        let best = cands.iter().min_by_key(|c| view.valid(c.2))?;
        let (g, i, _) = *best;
        Some(self.order.remove(g, i))
    }
    fn remove(&mut self, seg: SegmentId, view: &SegmentView) -> bool {
        self.order.remove_seg(seg, view)
    }
    fn memory_bytes(&self) -> u64 {
        self.order.memory_bytes()
    }
}
