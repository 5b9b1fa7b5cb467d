//! Segments and the read-only view of them that placement and victim policies see.
//!
//! This module sits below both the FTL and the policies: the FTL owns a [`Segments`] table
//! and mutates it; policies receive a [`SegmentView`] and can only read. Policies never call
//! back into the FTL.

use crate::types::{SegmentId, StreamId};

/// Life-cycle state of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[repr(u8)]
pub enum SegState {
    /// Erased, in the free pool.
    Free = 0,
    /// Being written by a stream (a write frontier).
    Open = 1,
    /// Full; a GC candidate.
    Sealed = 2,
    /// Chosen as a victim, its valid pages being relocated.
    Collecting = 3,
}

/// Per-segment metadata, stored as a structure of arrays for cache efficiency.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Segments {
    pub(crate) pages_per_segment: u32,
    pub(crate) valid: Vec<u32>,
    pub(crate) written: Vec<u32>,
    pub(crate) state: Vec<SegState>,
    pub(crate) stream: Vec<StreamId>,
    pub(crate) sealed_at: Vec<u64>,
    pub(crate) seal_seq: Vec<u64>,
    pub(crate) erases: Vec<u32>,
    /// Content mode: live pages whose content group has two or more members (empty
    /// otherwise; see [`SegmentView::dup`]).
    pub(crate) dup: Vec<u32>,
    /// Content mode: dead pages whose content is still cached for reuse (empty otherwise).
    pub(crate) reuse: Vec<u32>,
}

impl Segments {
    /// A table of `count` free segments of `pages_per_segment` pages.
    pub fn new(count: u32, pages_per_segment: u32) -> Segments {
        let n = count as usize;
        Segments {
            pages_per_segment,
            valid: vec![0; n],
            written: vec![0; n],
            state: vec![SegState::Free; n],
            stream: vec![0; n],
            sealed_at: vec![0; n],
            seal_seq: vec![0; n],
            erases: vec![0; n],
            dup: Vec::new(),
            reuse: Vec::new(),
        }
    }

    /// Allocates the content-mode counters (`dup`, `reuse`).
    pub(crate) fn enable_content_counters(&mut self) {
        let n = self.valid.len();
        self.dup = vec![0; n];
        self.reuse = vec![0; n];
    }

    /// Bytes of metadata per segment.
    pub const BYTES_PER_SEGMENT: u64 = 4 + 4 + 1 + 2 + 8 + 8 + 4;

    /// Number of segments.
    pub fn len(&self) -> usize {
        self.valid.len()
    }

    /// True if there are no segments.
    pub fn is_empty(&self) -> bool {
        self.valid.is_empty()
    }
}

/// What a policy restored from a checkpoint is checked against (see
/// `Placement::check_restored`, `VictimPolicy::check_restored`): the device it runs on
/// and the FTL's restored (already validated) segment table.
#[derive(Clone, Copy)]
pub struct RestoredDevice<'a> {
    /// Logical pages (LPNs) of the device.
    pub logical_pages: u64,
    /// Write streams the FTL keeps open for the placement (= groups of the victim policy).
    pub streams: usize,
    /// The restored segment table, at the restored user-write clock.
    pub view: SegmentView<'a>,
    /// Whether an LPN is mapped (holds data) in the restored mapping.
    pub mapped: &'a dyn Fn(crate::types::Lpn) -> bool,
}

impl RestoredDevice<'_> {
    /// Checks that the sealed segments are exactly `candidates`, each listed once in
    /// the group of its stream (`(group, segment)` pairs): what every victim policy's
    /// candidate structure must hold.
    pub fn check_candidates(
        &self,
        candidates: impl Iterator<Item = (usize, SegmentId)>,
    ) -> Result<(), String> {
        let v = &self.view;
        let mut seen = vec![false; v.len()];
        let mut n = 0usize;
        for (g, s) in candidates {
            if s as usize >= v.len() {
                return Err(format!(
                    "candidate segment {s} beyond the {} segments",
                    v.len()
                ));
            }
            if std::mem::replace(&mut seen[s as usize], true) {
                return Err(format!("segment {s} is listed twice"));
            }
            if v.state(s) != SegState::Sealed {
                return Err(format!(
                    "candidate segment {s} is {:?}, not sealed",
                    v.state(s)
                ));
            }
            if v.stream(s) as usize != g {
                return Err(format!(
                    "segment {s} of stream {} is listed in group {g}",
                    v.stream(s)
                ));
            }
            n += 1;
        }
        let sealed = (0..v.len())
            .filter(|&s| v.state(s as SegmentId) == SegState::Sealed)
            .count();
        if n != sealed {
            return Err(format!("{n} candidates but {sealed} sealed segments"));
        }
        Ok(())
    }
}

/// Read-only view of the segment table at a point in time.
#[derive(Clone, Copy)]
pub struct SegmentView<'a> {
    segs: &'a Segments,
    now: u64,
}

impl<'a> SegmentView<'a> {
    /// A view of `segs` at user-write clock `now`.
    pub fn new(segs: &'a Segments, now: u64) -> Self {
        SegmentView { segs, now }
    }
    /// Number of segments in the device.
    #[inline]
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    /// True if the device has no segments.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    /// Pages (mapping units) per segment.
    #[inline]
    pub fn pages_per_segment(&self) -> u32 {
        self.segs.pages_per_segment
    }
    /// Valid pages in segment `s`.
    #[inline]
    pub fn valid(&self, s: SegmentId) -> u32 {
        self.segs.valid[s as usize]
    }
    /// Valid ratio u in [0, 1] of segment `s`.
    #[inline]
    pub fn utilization(&self, s: SegmentId) -> f64 {
        self.segs.valid[s as usize] as f64 / self.segs.pages_per_segment as f64
    }
    /// Pages written so far into segment `s`.
    #[inline]
    pub fn written(&self, s: SegmentId) -> u32 {
        self.segs.written[s as usize]
    }
    /// State of segment `s`.
    #[inline]
    pub fn state(&self, s: SegmentId) -> SegState {
        self.segs.state[s as usize]
    }
    /// Stream (group) that wrote segment `s`.
    #[inline]
    pub fn stream(&self, s: SegmentId) -> StreamId {
        self.segs.stream[s as usize]
    }
    /// User-write clock when segment `s` was sealed (its youngest page was written).
    #[inline]
    pub fn sealed_at(&self, s: SegmentId) -> u64 {
        self.segs.sealed_at[s as usize]
    }
    /// Global sealing order of segment `s` (strictly increasing per seal).
    #[inline]
    pub fn seal_seq(&self, s: SegmentId) -> u64 {
        self.segs.seal_seq[s as usize]
    }
    /// Age of segment `s` in user page writes since it was sealed.
    #[inline]
    pub fn age(&self, s: SegmentId) -> u64 {
        self.now.saturating_sub(self.segs.sealed_at[s as usize])
    }
    /// Erase count of segment `s`.
    #[inline]
    pub fn erase_count(&self, s: SegmentId) -> u32 {
        self.segs.erases[s as usize]
    }
    /// Live pages of segment `s` known to be duplicates: members of a content group with
    /// two or more members (the FTL's content mode with a policy that asks for it, e.g.
    /// SplitGC; 0 otherwise).
    #[inline]
    pub fn dup(&self, s: SegmentId) -> u32 {
        self.segs.dup.get(s as usize).copied().unwrap_or(0)
    }
    /// Dead pages of segment `s` whose content is still cached for reuse (DAGC; 0
    /// otherwise).
    #[inline]
    pub fn reuse(&self, s: SegmentId) -> u32 {
        self.segs.reuse.get(s as usize).copied().unwrap_or(0)
    }
    /// The user-write clock (user page writes so far, including preconditioning).
    #[inline]
    pub fn now(&self) -> u64 {
        self.now
    }
}
