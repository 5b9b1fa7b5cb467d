//! Relabelling on a configuration change: a shrunk group's surplus becomes the last
//! group's without being copied (MiDAS's simulator, `change_config_2`).

use super::{Midas, Mode};
use crate::segment::{SegState, SegmentView};
use crate::types::{SegmentId, StreamId};

impl Midas {
    /// The moves of the configuration just adopted (once, at the first GC after it): every
    /// group other than the last gives its oldest sealed segments beyond its new size to
    /// the last group, where they queue as its youngest (the simulator pops the shrunk
    /// group's oldest and pushes them at the young end of the last group's queue); groups
    /// past the new last have size 0 and so give all of theirs (`merge_group`). Open
    /// segments stay: they count toward their group until sealed, as the simulator's
    /// active segments do.
    pub(super) fn take_relabels(&mut self, view: &SegmentView) -> Vec<(SegmentId, StreamId)> {
        if !self.relabel_pending {
            return Vec::new();
        }
        self.relabel_pending = false;
        if self.mode != Mode::Configured {
            return Vec::new();
        }
        if self.pending_rescan {
            self.rescan(view);
            self.pending_rescan = false;
        }
        let last = self.cfg.groups() as StreamId;
        let mut moves = Vec::new();
        for g in 0..self.streams() as StreamId {
            if g == last {
                continue;
            }
            let u = &self.units[self.unit_of[g as usize] as usize];
            let surplus = (u.count - u.size).max(0) as usize;
            let k = surplus.min(self.sealed_q[g as usize].len());
            for _ in 0..k {
                let Some(seg) = self.sealed_q[g as usize].pop_front() else {
                    break;
                };
                debug_assert_eq!(view.state(seg), SegState::Sealed);
                debug_assert_eq!(view.stream(seg), g);
                self.sealed_q[last as usize].push_back(seg);
                moves.push((seg, last));
            }
        }
        if !moves.is_empty() {
            // The units' counts follow the segment table once the FTL has applied them.
            self.pending_rescan = true;
            self.relabelled += moves.len() as u64;
        }
        moves
    }
}
