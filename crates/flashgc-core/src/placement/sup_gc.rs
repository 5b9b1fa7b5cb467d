//! `sup-gc` (papers/sup-gc.txt, Algorithms 1-2): every user write is hot and goes to the
//! hot stream (Algorithm 1: "map LSA_i to a physical address in a hot block"); every page GC
//! relocates is cold and goes to the cold stream (Algorithm 2, lines 5-6). Victims are
//! chosen over all sealed segments, hot and cold alike (Algorithm 2, line 1: greedy over
//! all blocks; pair with `--victim greedy` as the paper does). No per-page state: the only
//! metadata is each segment's hot/cold tag, which the segment's stream already records.

use super::{Placement, PlacementInit};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// Stream of user (hot) writes.
pub const HOT: StreamId = 0;
/// Stream of GC (cold) writes.
pub const COLD: StreamId = 1;

/// SUP-GC placement.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct SupGc;

pub(super) fn build(_spec: &Spec, _init: PlacementInit) -> Result<Box<dyn Placement>> {
    Ok(Box::new(SupGc))
}

impl Placement for SupGc {
    fn name(&self) -> &'static str {
        "sup-gc"
    }
    crate::checkpoint::serde_state!();
    fn streams(&self) -> usize {
        2
    }
    fn gc_streams_per_victim(&self) -> usize {
        1
    }
    fn stream_name(&self, s: StreamId) -> String {
        if s == HOT { "hot" } else { "cold" }.into()
    }
    #[inline]
    fn user_stream(&mut self, _lpn: Lpn, _now: u64) -> StreamId {
        HOT
    }
    #[inline]
    fn gc_stream(&mut self, _lpn: Lpn, _victim: SegmentId, _view: &SegmentView) -> StreamId {
        COLD
    }
    fn gc_stream_of_victim(
        &mut self,
        _victim: SegmentId,
        _pages: u32,
        _view: &SegmentView,
    ) -> Option<StreamId> {
        Some(COLD)
    }
}
