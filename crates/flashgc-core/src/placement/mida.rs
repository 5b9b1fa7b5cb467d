//! `mida`: MiDA's age chain (papers/midas.txt, Sec. 2.3; the baseline MiDAS builds on).
//!
//! Groups G1..GN form a chain: every user write goes to G1; a page GC relocates out of a
//! victim of Gi goes to Gi+1, and out of the last group GN back into GN. A page's group
//! therefore records its age (the number of times it survived GC). The groups have no
//! designated sizes: victims are chosen over all sealed segments by the run's victim
//! policy (the paper pairs MiDA with cost-benefit: `--victim cost-benefit`).
//!
//! Parameters: `groups` (default 8, "MiDA maintains up to eight groups by default");
//! `hot` (default `none`): `filter` adds a HOT group in front of the chain, fed by MiDAS's
//! 2-bit hot filter ([`super::midas::hot`]), as MiDAS's own simulator runs its MiDA phase
//! (`hf_check` sends hot writes to group 0 from the start; its segments join the others in
//! one victim queue; GC moves HOT's valid pages to G1). The filter's threshold starts at
//! `hot_threshold` (1.0) x logical capacity, the simulator's initial window, then follows
//! the mean age of the last `thr_window` (16) HOT victims; `hot_hits` (3). papers/midas.txt
//! describes MiDA without HOT (§2.3); this variant is the paper's Fig. 12 "+HotSep" step.
//! `group1` (default 0: free): G1 held at this many segments, the paper's Fig. 3(b)
//! experiment ([`GroupSize`]; without HOT, with at least two groups). The report gives G1's
//! mean size at the victims either way (`group1`).
//! Memory: none beyond the segment table without HOT; with it, 4 B + 2 bits per LPN.

use super::common::GroupSize;
use super::midas::hot::HotFilter;
use super::{Placement, PlacementInit, VictimScope};
use crate::error::{Error, Result};
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// Default number of groups (papers/midas.txt: "MiDA maintains up to eight groups by default").
pub const DEFAULT_GROUPS: u16 = 8;

/// MiDA placement: an age chain of `groups` streams.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Mida {
    groups: u16,
    /// The HOT group's filter (stream 0; G1..GN are then streams 1..=N).
    hot: Option<HotFilter>,
    hot_writes: u64,
    /// G1 held at this many segments (0: free; `group1`).
    group1: u32,
    /// G1's size over the run.
    g1_size: GroupSize,
}

impl Mida {
    /// A chain of `groups` (>= 1) groups.
    pub fn new(groups: u16) -> Mida {
        Mida {
            groups: groups.max(1),
            hot: None,
            hot_writes: 0,
            group1: 0,
            g1_size: GroupSize::default(),
        }
    }

    /// Stream of G1 (1 with a HOT group in front).
    #[inline]
    fn g1(&self) -> StreamId {
        self.hot.is_some() as StreamId
    }
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let groups = spec.num::<u16>("groups", DEFAULT_GROUPS, 1, 64)?;
    let mut m = Mida::new(groups);
    if spec.choice("hot", "none", &["none", "filter"])? == "filter" {
        let thr = spec.num::<f64>("hot_threshold", 1.0, 1e-6, 1e3)?;
        let hits = spec.num::<u8>("hot_hits", 3, 1, 3)?;
        let window = spec.num::<usize>("thr_window", 16, 1, 1 << 16)?;
        m.hot = Some(HotFilter::new(
            init.logical_pages,
            hits,
            thr * init.logical_pages as f64,
            window,
        ));
    }
    m.group1 = spec.num::<u32>("group1", 0, 0, init.segments)?;
    if m.group1 > 0 && (m.hot.is_some() || m.groups < 2) {
        return Err(Error::config(
            spec.path("group1"),
            "holds G1 at a size for MiDA without HOT (hot=none) and with at least two groups: \
             the other groups are the ones that shrink",
        ));
    }
    Ok(Box::new(m))
}

impl Placement for Mida {
    fn name(&self) -> &'static str {
        "mida"
    }
    fn save_state(&self, out: &mut crate::checkpoint::StateOut<'_>) -> Result<()> {
        out.put(self)
    }
    fn load_state(&mut self, state: &mut crate::checkpoint::StateIn<'_>) -> Result<()> {
        let d: Mida = state.get()?;
        let same_hot = match (&d.hot, &self.hot) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same_shape(b),
            _ => false,
        };
        if d.groups != self.groups || !same_hot || d.group1 != self.group1 {
            return Err(crate::checkpoint::inconsistent(
                "MiDA groups, hot filter or group1 differ from the configuration".into(),
            ));
        }
        *self = d;
        Ok(())
    }
    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        if !self.g1_size.matches(&dev.view, self.g1()) {
            return Err("G1's count of sealed segments differs from the segment table".into());
        }
        self.hot
            .as_ref()
            .map_or(Ok(()), |f| f.check_restored(dev.view.now()))
    }
    fn streams(&self) -> usize {
        self.groups as usize + self.g1() as usize
    }
    fn gc_streams_per_victim(&self) -> usize {
        // A victim of Gi relocates only into Gi+1 (or GN into itself).
        1
    }
    fn stream_name(&self, s: StreamId) -> String {
        match (self.g1(), s) {
            (1, 0) => "HOT".into(),
            (g1, s) => format!("G{}", s + 1 - g1),
        }
    }
    #[inline]
    fn user_stream(&mut self, lpn: Lpn, now: u64) -> StreamId {
        match &mut self.hot {
            None => 0,
            Some(f) => {
                if f.on_write(lpn, now) {
                    self.hot_writes += 1;
                    0
                } else {
                    1
                }
            }
        }
    }
    #[inline]
    fn gc_stream(&mut self, _lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId {
        // HOT -> G1, Gi -> Gi+1, GN -> GN.
        (view.stream(victim) + 1).min(self.groups - 1 + self.g1())
    }
    fn gc_stream_of_victim(
        &mut self,
        victim: SegmentId,
        _pages: u32,
        view: &SegmentView,
    ) -> Option<StreamId> {
        Some(self.gc_stream(0, victim, view))
    }
    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        self.g1_size.on_seal(view.stream(seg) == self.g1());
    }
    fn victim_scope(&mut self, view: &SegmentView) -> VictimScope {
        if self.group1 == 0 {
            return VictimScope::All;
        }
        self.g1_size
            .scope(self.group1, view, 0, (1, self.groups as StreamId - 1))
    }
    fn on_victim(&mut self, seg: SegmentId, view: &SegmentView) {
        self.g1_size.on_victim(view.stream(seg) == self.g1());
        if let Some(f) = &mut self.hot {
            if view.stream(seg) == 0 {
                f.on_hot_victim(view.age(seg));
            }
        }
    }
    fn on_trim(&mut self, lpn: Lpn) {
        if let Some(f) = &mut self.hot {
            f.on_trim(lpn);
        }
    }
    fn memory_bytes(&self) -> u64 {
        self.hot.as_ref().map_or(0, HotFilter::memory_bytes)
    }
    fn report(&self) -> Option<serde_json::Value> {
        let mut r = serde_json::json!({ "group1": self.g1_size.report(self.group1) });
        if let Some(f) = &self.hot {
            r["hot"] = "filter (MiDAS's 2-bit hot filter, as MiDAS's simulator runs MiDA)".into();
            r["hot_user_writes"] = self.hot_writes.into();
            r["threshold_user_writes"] = f.threshold().into();
        }
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::Segments;

    #[test]
    fn hot_filter_variant_puts_hot_in_front_of_the_chain() {
        let s = Spec::parse("placement", "mida:groups=3,hot=filter,hot_threshold=0.5").unwrap();
        let init = PlacementInit {
            logical_pages: 100,
            segments: 64,
            pages_per_segment: 4,
            seed: 1,
        };
        let mut m = build(&s, init).unwrap();
        s.finish().unwrap();
        assert_eq!(m.streams(), 4);
        // Threshold 50 writes: LPN 7 every 10 writes is hot on its 4th write.
        let st: Vec<StreamId> = [1, 11, 21, 31]
            .iter()
            .map(|&t| m.user_stream(7, t))
            .collect();
        assert_eq!(st, vec![1, 1, 1, 0]);
        let mut segs = Segments::new(4, 4);
        segs.stream = vec![0, 1, 2, 3];
        let view = SegmentView::new(&segs, 40);
        assert_eq!(m.gc_stream(7, 0, &view), 1, "HOT -> G1");
        assert_eq!(m.gc_stream(7, 2, &view), 3, "G2 -> G3");
        assert_eq!(m.gc_stream(7, 3, &view), 3, "G3 (last) -> itself");
        assert_eq!(m.stream_name(0), "HOT");
        assert_eq!(m.stream_name(3), "G3");
    }

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
