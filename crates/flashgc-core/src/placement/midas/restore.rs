//! Checks of a MiDAS state restored from a checkpoint: everything the write and GC paths
//! index, sum or compare must agree with the restored device, so that a damaged or edited
//! checkpoint is refused instead of panicking or looping.

use super::{Midas, Mode};
use crate::segment::{RestoredDevice, SegState};

impl Midas {
    /// [`crate::placement::Placement::check_restored`] for MiDAS.
    pub(super) fn check_restored_state(&self, dev: &RestoredDevice) -> Result<(), String> {
        // The clock and the HOT residences feed sums and differences on the write path.
        let clock = dev.view.now();
        if self.now > clock || self.hot_open.iter().any(|&t| t > self.now) {
            return Err(format!(
                "a write time after the clock {clock} (MiDAS at {})",
                self.now
            ));
        }
        let sum =
            self.residences.iter().try_fold(
                0u64,
                |a, &r| if r > clock { None } else { a.checked_add(r) },
            );
        if sum != Some(self.residence_sum) || self.residences.len() > self.p.thr_window {
            return Err("HOT residence window".into());
        }
        // Group units and per-stream tables: the GC path indexes them by stream.
        let streams = dev.streams;
        let per_stream = [
            self.unit_of.len(),
            self.next_stream.len(),
            self.stream_pages.len(),
            self.win_victims.len(),
            self.win_reloc.len(),
            self.total_victims.len(),
            self.total_reloc.len(),
            self.ep_victims.len(),
            self.ep_reloc.len(),
        ];
        let units_ok = !self.units.is_empty()
            && self
                .units
                .iter()
                .all(|u| u.lo <= u.hi && (u.hi as usize) < streams);
        if per_stream.iter().any(|&n| n != streams)
            || !units_ok
            || self.unit_of.iter().any(|&u| u as usize >= self.units.len())
            || self.next_stream.iter().any(|&s| s as usize >= streams)
        {
            return Err("group units or per-stream tables".into());
        }
        // The configuration and the sealed queues: relabelling and the sized groups'
        // victims index them by stream and the segment table by their segments.
        let v = &dev.view;
        let groups = self.cfg.groups();
        let queued_ok = self.sealed_q.len() == streams
            && self.sealed_q.iter().enumerate().all(|(g, q)| {
                q.iter().all(|&s| {
                    (s as usize) < v.len()
                        && v.state(s) == SegState::Sealed
                        && v.stream(s) as usize == g
                })
            });
        let mode_ok = match self.mode {
            Mode::Fallback(k) => (k as usize) <= groups,
            _ => true,
        };
        if self.cfg.sizes.len() < 2 || groups >= streams || !mode_ok || !queued_ok {
            return Err("group configuration or sealed-segment queues".into());
        }
        if self.seg_open.len() != v.len()
            || self.logical != dev.logical_pages
            || self.ts.len() as u64 != self.logical
            || self.hot_ctr.len() != (self.logical as usize).div_ceil(4)
        {
            return Err("per-segment or per-LPN tables".into());
        }
        self.uid.check_restored(clock, self.logical)
    }
}
