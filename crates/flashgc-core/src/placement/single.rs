//! `single`: one write stream shared by user writes and GC relocations, as in a plain
//! page-mapped FTL (the PageFTL / Cosmos+ baseline, and the setting of Desnoyers' models).

use super::{Placement, PlacementInit};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// One stream for everything.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Single;

pub(super) fn build(_spec: &Spec, _init: PlacementInit) -> Result<Box<dyn Placement>> {
    Ok(Box::new(Single))
}

impl Placement for Single {
    fn name(&self) -> &'static str {
        "single"
    }
    crate::checkpoint::serde_state!();
    fn streams(&self) -> usize {
        1
    }
    fn gc_streams_per_victim(&self) -> usize {
        1
    }
    fn stream_name(&self, _s: StreamId) -> String {
        "all".into()
    }
    #[inline]
    fn user_stream(&mut self, _lpn: Lpn, _now: u64) -> StreamId {
        0
    }
    #[inline]
    fn gc_stream(&mut self, _lpn: Lpn, _victim: SegmentId, _view: &SegmentView) -> StreamId {
        0
    }
    fn gc_stream_of_victim(
        &mut self,
        _victim: SegmentId,
        _pages: u32,
        _view: &SegmentView,
    ) -> Option<StreamId> {
        Some(0)
    }
}
