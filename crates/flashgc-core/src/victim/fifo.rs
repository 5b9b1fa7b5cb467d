//! FIFO (least recently written, the circular log): reclaim the oldest sealed segment.

use super::{SealOrder, VictimInit, VictimPolicy, VictimScope};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::SegmentId;

/// FIFO victim selection.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Fifo {
    order: SealOrder,
    /// `min_garbage` filter: candidates with more valid pages are skipped.
    max_valid: u32,
}

pub(super) fn build(spec: &Spec, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    Ok(Box::new(Fifo {
        order: SealOrder::new(init.groups),
        max_valid: super::max_valid(spec, &init)?,
    }))
}

impl VictimPolicy for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
    fn max_valid(&self) -> u32 {
        self.max_valid
    }
    crate::checkpoint::serde_state!(same: [max_valid], len: []);
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
        let (g, i, _) = *self
            .order
            .oldest_where(view, scope, 1, self.max_valid)
            .first()?;
        Some(self.order.remove(g, i))
    }
    fn remove(&mut self, seg: SegmentId, view: &SegmentView) -> bool {
        self.order.remove_seg(seg, view)
    }
    fn memory_bytes(&self) -> u64 {
        self.order.memory_bytes()
    }
}
