//! DAGC's victim rule (Yen, Chang & Chang, "Lightweight, integrated data deduplication for
//! write stress reduction of mobile flash storage", IEEE TCAD 37(11), 2018; as
//! papers/splitgc.txt Sec. 4 describes it): invalid pages whose checksum is still cached may
//! be reused by a later write of the same content, so DAGC "weighs these invalid data the
//! same way as valid data" and takes the block with the fewest valid plus cached-invalid
//! pages ([`SegmentView::reuse`], kept by the FTL's content mode under the `dagc` GC action;
//! without it this policy is greedy).
//!
//! Key buckets as greedy's: O(1) amortized; ties to the block that reached its key first.

use super::keyed::KeyedBuckets;
use super::{VictimInit, VictimPolicy, VictimScope};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::SegmentId;

/// DAGC victim selection: fewest valid + reusable pages.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DagcVictim {
    b: KeyedBuckets,
}

pub(super) fn build(_spec: &Spec, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    Ok(Box::new(DagcVictim {
        b: KeyedBuckets::new(init.segments, init.groups, init.pages_per_segment),
    }))
}

impl DagcVictim {
    #[inline]
    fn key(view: &SegmentView, seg: SegmentId) -> u32 {
        view.valid(seg) + view.reuse(seg)
    }
}

impl VictimPolicy for DagcVictim {
    fn name(&self) -> &'static str {
        "dagc"
    }
    crate::checkpoint::serde_state!();

    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        let view = &dev.view;
        let key = |s: SegmentId| Self::key(view, s);
        let c = self
            .b
            .check_restored(dev, view.len(), view.pages_per_segment(), &key)?;
        dev.check_candidates(c.into_iter())
    }

    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        self.b
            .insert(seg, view.stream(seg) as usize, Self::key(view, seg));
    }
    fn on_invalidate(&mut self, seg: SegmentId, view: &SegmentView) {
        self.b.rekey(seg, Self::key(view, seg));
    }
    fn on_revalidate(&mut self, seg: SegmentId, view: &SegmentView) {
        self.b.rekey(seg, Self::key(view, seg));
    }
    fn on_counters(&mut self, seg: SegmentId, view: &SegmentView) {
        self.b.rekey(seg, Self::key(view, seg));
    }
    fn select(&mut self, _view: &SegmentView, scope: VictimScope) -> Option<SegmentId> {
        self.b.pop_min(scope)
    }
    fn remove(&mut self, seg: SegmentId, _view: &SegmentView) -> bool {
        let ok = self.b.contains(seg);
        if ok {
            self.b.remove(seg);
        }
        ok
    }
    fn memory_bytes(&self) -> u64 {
        self.b.memory_bytes()
    }
}
