//! `mida`: MiDA's age chain (papers/midas.txt, Sec. 2.3; the baseline MiDAS builds on).
//!
//! Groups G1..GN form a chain: every user write goes to G1; a page GC relocates out of a
//! victim of Gi goes to Gi+1, and out of the last group GN back into GN. A page's group
//! therefore records its age (the number of times it survived GC). The groups have no
//! designated sizes: victims are chosen over all sealed segments by the run's victim
//! policy (the paper pairs MiDA with cost-benefit: `--victim cost-benefit`).
//!
//! Parameter: `groups` (default 8, "MiDA maintains up to eight groups by default").
//! Memory: none beyond the segment table (a segment's group is its stream).

use super::{Placement, PlacementInit};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// Default number of groups (papers/midas.txt: "MiDA maintains up to eight groups by default").
pub const DEFAULT_GROUPS: u16 = 8;

/// MiDA placement: an age chain of `groups` streams.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Mida {
    groups: u16,
}

impl Mida {
    /// A chain of `groups` (>= 1) groups.
    pub fn new(groups: u16) -> Mida {
        Mida {
            groups: groups.max(1),
        }
    }
}

pub(super) fn build(spec: &Spec, _init: PlacementInit) -> Result<Box<dyn Placement>> {
    let groups = spec.num::<u16>("groups", DEFAULT_GROUPS, 1, 64)?;
    Ok(Box::new(Mida::new(groups)))
}

impl Placement for Mida {
    fn name(&self) -> &'static str {
        "mida"
    }
    crate::checkpoint::serde_state!(same: [groups], len: []);
    fn streams(&self) -> usize {
        self.groups as usize
    }
    fn gc_streams_per_victim(&self) -> usize {
        // A victim of Gi relocates only into Gi+1 (or GN into itself).
        1
    }
    fn stream_name(&self, s: StreamId) -> String {
        format!("G{}", s + 1)
    }
    #[inline]
    fn user_stream(&mut self, _lpn: Lpn, _now: u64) -> StreamId {
        0
    }
    #[inline]
    fn gc_stream(&mut self, _lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId {
        (view.stream(victim) + 1).min(self.groups - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::Segments;

    #[test]
    fn chain_moves_pages_one_group_older_and_last_group_into_itself() {
        let mut m = Mida::new(3);
        assert_eq!(m.user_stream(5, 1), 0);
        let mut segs = Segments::new(3, 4);
        segs.stream = vec![0, 1, 2];
        let view = SegmentView::new(&segs, 10);
        assert_eq!(m.gc_stream(1, 0, &view), 1);
        assert_eq!(m.gc_stream(1, 1, &view), 2);
        assert_eq!(m.gc_stream(1, 2, &view), 2);
    }
}
