//! The FTL's part of a checkpoint (see `crate::checkpoint`). Kept out of `ftl/mod.rs` so
//! the hot write path's code generation (inlining, codegen units) is not disturbed.

use super::{Frontier, Ftl, FtlCounters, VICTIM_HIST_BINS};
use crate::checkpoint::{CheckpointReader, CheckpointWriter, StateIn, StateOut};
use crate::error::Result;
use crate::segment::{RestoredDevice, SegState, Segments};
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
        let mut out = StateOut::section(w, b"PLCY");
        self.placement.save_state(&mut out)?;
        out.finish("the placement")?;
        let mut out = StateOut::section(w, b"VICT");
        self.victim.save_state(&mut out)?;
        out.finish("the victim policy")?;
        if let Some(b) = self.cmt_state()? {
            w.section(b"CMT ", &b)?;
        }
        self.save_content(w)?;
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
            .chain(
                [
                    if self.content.is_some() {
                        st.segs.dup.len()
                    } else {
                        n
                    },
                    if self.content.is_some() {
                        st.segs.reuse.len()
                    } else {
                        n
                    },
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
        let content = self.content.is_some();
        if self.map.l2p.iter().any(|&p| {
            p != NONE && p as u64 >= physical && !(content && p & crate::content::VFLAG != 0)
        }) {
            return Err(r.damaged("L2P entry beyond the physical pages".into()));
        }
        let mut pl = StateIn::section(r, b"PLCY")?;
        let loaded = self.placement.load_state(&mut pl).and_then(|_| pl.finish());
        loaded.map_err(|e| r.damaged(format!("placement `{}`: {e}", self.placement.name())))?;
        let mut vi = StateIn::section(r, b"VICT")?;
        let loaded = self.victim.load_state(&mut vi).and_then(|_| vi.finish());
        loaded.map_err(|e| r.damaged(format!("victim policy `{}`: {e}", self.victim.name())))?;
        if self.cmt.is_some() {
            let b = r.section(b"CMT ")?;
            self.load_cmt_state(&b)
                .map_err(|e| r.damaged(format!("mapping cache: {e}")))?;
            if st.counters.translation.is_none() {
                return Err(r.damaged("mapping cache on but no translation counters".into()));
            }
        } else if st.counters.translation.is_some() {
            return Err(r.damaged("translation counters without a mapping cache".into()));
        }
        self.segs = st.segs;
        self.free = st.free;
        self.open = st.open;
        self.clock = st.clock;
        self.seal_seq = st.seal_seq;
        self.written_pages = st.written_pages;
        self.counters = st.counters;
        self.victim_hist = st.victim_hist;
        self.in_gc = false;
        self.load_content(r)?;
        self.sealed_invalid = (0..self.segs.len())
            .filter(|&i| self.segs.state[i] == crate::segment::SegState::Sealed)
            .map(|i| self.segs.written[i].saturating_sub(self.segs.valid[i]) as u64)
            .sum();
        self.check_restored()
            .map_err(|e| r.damaged(format!("inconsistent state: {e}")))
    }

    /// Checks a restored state before anything runs on it: the segment table and pool
    /// (every value the write and GC paths index with), the invariants of [`Ftl::check`]
    /// (mapping tables, valid counts), then the placement's and victim policy's own
    /// state against them. A checkpoint's CRC only proves the bytes were not damaged in
    /// storage; a file written (or edited, CRC recomputed) by anyone may hold anything.
    fn check_restored(&self) -> std::result::Result<(), String> {
        let n = self.segs.len();
        let pps = self.p.pages_per_segment;
        let streams = self.open.len();
        // The mapping cache adds the translation pages' stream after the placement's; a
        // GC action in content mode its own streams (never both: Simulation::new).
        let extra = self
            .content
            .as_deref()
            .map_or(0, |c| c.action.extra_streams());
        let own = self.cmt.is_some() as usize + extra;
        if self.placement.streams() + own != streams {
            return Err(format!(
                "placement `{}` has {} streams{}; the FTL keeps {streams} open",
                self.placement.name(),
                self.placement.streams(),
                if self.cmt.is_some() {
                    " and the mapping cache 1".to_string()
                } else if extra > 0 {
                    format!(" and the GC action {extra}")
                } else {
                    String::new()
                }
            ));
        }
        if self.cmt.is_some() && self.tstream as usize != streams - 1 {
            return Err(format!("translation stream {} of {streams}", self.tstream));
        }
        for s in 0..n {
            let (w, v) = (self.segs.written[s], self.segs.valid[s]);
            if w > pps || v > w {
                return Err(format!(
                    "segment {s}: {v} valid of {w} written pages, {pps} per segment"
                ));
            }
            if self.segs.stream[s] as usize >= streams {
                return Err(format!(
                    "segment {s}: stream {} of {streams}",
                    self.segs.stream[s]
                ));
            }
            if self.segs.sealed_at[s] > self.clock {
                return Err(format!(
                    "segment {s} sealed at {} after the clock {}",
                    self.segs.sealed_at[s], self.clock
                ));
            }
            match self.segs.state[s] {
                SegState::Collecting => {
                    return Err(format!("segment {s} is being collected at a safe point"))
                }
                SegState::Open if w == pps => return Err(format!("open segment {s} is full")),
                _ => {}
            }
        }
        let mut in_pool = vec![false; n];
        for &s in &self.free {
            if std::mem::replace(&mut in_pool[s as usize], true) {
                return Err(format!("segment {s} is twice in the free pool"));
            }
            if self.segs.state[s as usize] != SegState::Free {
                return Err(format!("segment {s} in the free pool is not free"));
            }
        }
        let mut open_seen = vec![false; n];
        for (i, f) in self.open.iter().enumerate() {
            if f.seg == NONE {
                continue;
            }
            let s = f.seg as usize;
            if std::mem::replace(&mut open_seen[s], true)
                || self.segs.state[s] != SegState::Open
                || self.segs.stream[s] as usize != i
            {
                return Err(format!(
                    "stream {i}'s frontier, segment {s}, is not its open segment"
                ));
            }
        }
        // Valid bits past the last physical page would be counted by no segment.
        let physical = n as u64 * pps as u64;
        if physical % 64 != 0 {
            let last = self.map.valid.last().copied().unwrap_or(0);
            if last >> (physical % 64) != 0 {
                return Err("valid bits beyond the last physical page".into());
            }
        }
        let logical = self.p.logical_pages;
        // Translation pages are mapped after the logical pages (their GTD entries).
        let mapped_pages = self.map.l2p.len() as u64;
        for (ppn, &lpn) in self.map.p2l.iter().enumerate() {
            // Content mode: a live copy kept only for its group's borrowers has no owner.
            let pinned = lpn == NONE && self.content.is_some();
            if self.map.is_valid(ppn as u32) && lpn as u64 >= mapped_pages && !pinned {
                return Err(format!(
                    "P2L[{ppn}] = {lpn} is beyond the {mapped_pages} mapped pages"
                ));
            }
        }
        // Each GC erase counts once per segment and once in total (a per-segment count
        // near its type's limit would also overflow at the segment's next erase).
        let erases: u64 = self.segs.erases.iter().map(|&e| e as u64).sum();
        if erases != self.counters.erases {
            return Err(format!(
                "segments' erase counts sum to {erases}, the counters say {}",
                self.counters.erases
            ));
        }
        if self.victim_hist.len() != VICTIM_HIST_BINS {
            return Err("victim histogram size".into());
        }
        if self.counters.user_writes
            < self
                .written_pages
                .saturating_sub(self.counters.extra_programs())
        {
            return Err("fewer writes counted than pages written".into());
        }
        self.check()?;
        let mapped = |lpn: crate::types::Lpn| self.map.lookup(lpn).is_some();
        let dev = RestoredDevice {
            logical_pages: logical,
            streams: streams - own,
            view: self.view(),
            mapped: &mapped,
        };
        self.placement
            .check_restored(&dev)
            .map_err(|e| format!("placement `{}`: {e}", self.placement.name()))?;
        // The victim policy keeps a group per FTL stream, the translation stream included.
        let dev = RestoredDevice { streams, ..dev };
        self.victim
            .check_restored(&dev)
            .map_err(|e| format!("victim policy `{}`: {e}", self.victim.name()))
    }
}
