//! `gn_model=greedy`: the last group's never-invalidated data, set aside from MCAM's model
//! as MiDAS's simulator does (model.cpp, `making_group_configuration3`: `no_access_lba`).
//!
//! A greedy (or cost-benefit) victim policy never picks a segment whose pages are all still
//! valid, so static data (written once, never overwritten) stops costing copies once it
//! sits in the last group; a FIFO policy copies it again at every lap. The simulator counts
//! the last groups' segments with no invalid page, takes off 5 % of the last group's
//! segments (full segments just sealed are not static yet), and sets the rest aside when it
//! is at least 20 % of the device. Counting needs the segment view, which an epoch's end
//! (reached in `user_stream`) does not have: the end is run at the next call that has one
//! (the next seal or GC, a few user writes later).

use super::params::GnModel;
use super::uid::Uid;
use super::Midas;
use crate::segment::{SegState, SegmentView};
use crate::types::{SegmentId, StreamId};

impl Midas {
    /// Whether an epoch's end needs the segment view (to count static segments).
    pub(super) fn epoch_needs_view(&self) -> bool {
        self.p.gn_model == GnModel::Greedy
    }

    /// Runs an epoch end deferred for want of the segment view, if one is due.
    pub(super) fn run_due_epoch(&mut self, view: &SegmentView) {
        if self.epoch_due {
            self.epoch_due = false;
            self.static_segs = self.count_static(view);
            self.end_epoch();
        }
    }

    /// Static segments of the last group: its sealed segments with every page still valid,
    /// less `gn_static_margin` of its sealed segments; 0 below `gn_static_min` of the device.
    /// The last group is the unit the run's victim policy chooses in (the simulator's groups
    /// from `naive_start` on): `G_N` once configured, the merged groups in a MiDA phase or
    /// a fallback; HOT's segments are never counted.
    fn count_static(&self, view: &SegmentView) -> u32 {
        let Some(u) = self.units.last() else {
            return 0;
        };
        let (lo, hi) = (u.lo.max(1), u.hi);
        let last = |st: StreamId| st >= lo && st <= hi;
        let pps = view.pages_per_segment();
        let (mut sealed, mut full) = (0u64, 0u64);
        for s in 0..view.len() as SegmentId {
            if view.state(s) != SegState::Sealed || !last(view.stream(s)) {
                continue;
            }
            sealed += 1;
            if view.written(s) == pps && view.valid(s) == pps {
                full += 1;
            }
        }
        // The simulator takes 5 % of the last group's segments, and in a MiDA phase 5 % of
        // each of the first four MiDA groups' too: flashgc takes the share of all it counted.
        let margin = libm::floor(sealed as f64 * self.p.gn_static_margin) as u64;
        let n = full.saturating_sub(margin);
        if (n as f64) < self.p.gn_static_min * self.segments as f64 {
            0
        } else {
            n as u32
        }
    }

    /// The UID and the segment budget MCAM and GCS plan with: under `gn_model=greedy` the
    /// static segments counted at this epoch's end are set aside from both.
    pub(super) fn planning(&self, uid: Uid, budget: u32) -> (Uid, u32) {
        if self.p.gn_model != GnModel::Greedy {
            return (uid, budget);
        }
        let pages = self.static_segs as f64 * self.pps as f64;
        let budget = budget.saturating_sub(self.static_segs).max(1);
        (uid.set_aside(pages), budget)
    }
}
