//! The FTL's part of a checkpoint (see `crate::checkpoint`). Kept out of `ftl/mod.rs` so
//! the hot write path's code generation (inlining, codegen units) is not disturbed.

use super::{Frontier, Ftl, FtlCounters, VICTIM_HIST_BINS};
use crate::checkpoint::{CheckpointReader, CheckpointWriter};
use crate::error::Result;
use crate::segment::Segments;
use crate::types::{SegmentId, NONE};
use std::collections::VecDeque;

/// The FTL's small state in a checkpoint (the large tables are raw sections).
#[derive(serde::Serialize)]
struct FtlStateRef<'a> {
    segs: &'a Segments,
    #[serde(with = "crate::checkpoint::cap_deque")]
    free: &'a VecDeque<SegmentId>,
    open: &'a Vec<Frontier>,
    clock: u64,
    seal_seq: u64,
    written_pages: u64,
    counters: &'a FtlCounters,
    victim_hist: &'a Vec<u64>,
}

/// Owned counterpart of [`FtlStateRef`] (same field order, so the same encoding).
#[derive(serde::Deserialize)]
struct FtlState {
    segs: Segments,
    #[serde(with = "crate::checkpoint::cap_deque")]
    free: VecDeque<SegmentId>,
    open: Vec<Frontier>,
    clock: u64,
    seal_seq: u64,
    written_pages: u64,
    counters: FtlCounters,
    victim_hist: Vec<u64>,
}

impl Ftl {
    /// Writes the FTL's whole state (tables, segments, pool, frontiers, clocks, counters,
    /// placement and victim policy) as checkpoint sections. Only between host operations.
    pub(crate) fn save_checkpoint(&self, w: &mut CheckpointWriter) -> Result<()> {
        debug_assert!(!self.in_gc);
        let scalars = crate::checkpoint::encode(&FtlStateRef {
            segs: &self.segs,
            free: &self.free,
            open: &self.open,
            clock: self.clock,
            seal_seq: self.seal_seq,
            written_pages: self.written_pages,
            counters: &self.counters,
            victim_hist: &self.victim_hist,
        })?;
        w.section(b"FTL ", &scalars)?;
        w.raw(b"L2P ", &self.map.l2p)?;
        w.raw(b"P2L ", &self.map.p2l)?;
        w.raw(b"VALD", &self.map.valid)?;
        w.section(b"PLCY", &self.placement.save_state()?)?;
        w.section(b"VICT", &self.victim.save_state()?)?;
        Ok(())
    }

    /// Restores what [`Ftl::save_checkpoint`] wrote into an FTL freshly built from the same
    /// configuration (same geometry, placement and victim specs).
    pub(crate) fn load_checkpoint(&mut self, r: &mut CheckpointReader) -> Result<()> {
        let b = r.section(b"FTL ")?;
        let st: FtlState =
            crate::checkpoint::decode(&b).map_err(|e| r.damaged(format!("FTL state: {e}")))?;
        let n = self.p.segments as usize;
        let shape_ok = st.segs.len() == n
            && [
                st.segs.written.len(),
                st.segs.state.len(),
                st.segs.stream.len(),
            ]
            .iter()
            .chain(
                [
                    st.segs.sealed_at.len(),
                    st.segs.seal_seq.len(),
                    st.segs.erases.len(),
                ]
                .iter(),
            )
            .all(|&l| l == n)
            && st.segs.pages_per_segment == self.p.pages_per_segment
            && st.open.len() == self.open.len()
            && st.free.len() <= n
            && st.free.iter().all(|&s| (s as usize) < n)
            && st
                .open
                .iter()
                .all(|f| f.seg == NONE || (f.seg as usize) < n)
            && st.victim_hist.len() == VICTIM_HIST_BINS;
        if !shape_ok {
            return Err(r.damaged(
                "FTL state does not match the configured device (segments, streams)".into(),
            ));
        }
        r.raw_into(b"L2P ", &mut self.map.l2p)?;
        r.raw_into(b"P2L ", &mut self.map.p2l)?;
        r.raw_into(b"VALD", &mut self.map.valid)?;
        let physical = self.map.p2l.len() as u64;
        if self
            .map
            .l2p
            .iter()
            .any(|&p| p != NONE && p as u64 >= physical)
        {
            return Err(r.damaged("L2P entry beyond the physical pages".into()));
        }
        let pl = r.section(b"PLCY")?;
        self.placement
            .load_state(&pl)
            .map_err(|e| r.damaged(format!("placement `{}`: {e}", self.placement.name())))?;
        let vi = r.section(b"VICT")?;
        self.victim
            .load_state(&vi)
            .map_err(|e| r.damaged(format!("victim policy `{}`: {e}", self.victim.name())))?;
        self.segs = st.segs;
        self.free = st.free;
        self.open = st.open;
        self.clock = st.clock;
        self.seal_seq = st.seal_seq;
        self.written_pages = st.written_pages;
        self.counters = st.counters;
        self.victim_hist = st.victim_hist;
        self.in_gc = false;
        self.sealed_invalid = (0..self.segs.len())
            .filter(|&i| self.segs.state[i] == crate::segment::SegState::Sealed)
            .map(|i| self.segs.written[i].saturating_sub(self.segs.valid[i]) as u64)
            .sum();
        Ok(())
    }
}
