//! GC relocation: moving a victim's valid pages to the placement's streams and erasing it.

use super::Ftl;
use crate::error::Result;
use crate::ops::{FlashOp, Origin};
use crate::segment::{SegState, SegmentView};
use crate::types::{SegmentId, NONE};

impl Ftl {
    /// Relocates the valid pages of `victim` (just returned by the victim policy) and
    /// erases it.
    pub(super) fn reclaim(&mut self, victim: SegmentId) -> Result<()> {
        debug_assert_eq!(self.segs.state[victim as usize], SegState::Sealed);
        self.placement
            .on_victim(victim, &SegmentView::new(&self.segs, self.clock));
        self.sealed_invalid -=
            (self.segs.written[victim as usize] - self.segs.valid[victim as usize]) as u64;
        self.segs.state[victim as usize] = SegState::Collecting;
        if self.segs.stream[victim as usize] == self.tstream {
            self.t_sealed -= 1;
        }
        self.counters.gc_victims += 1;
        self.counters.alpha_samples_sum += self.written_pages as u128;
        self.counters.alpha_samples += 1;
        let pps = self.p.pages_per_segment;
        let valid = self.segs.valid[victim as usize];
        if let Some(log) = &mut self.victim_log {
            log.push((victim, valid));
        }
        self.victim_hist[(valid as u64 * 100 / pps as u64) as usize] += 1;
        let base = victim as u64 * pps as u64;
        if self.content.is_some() {
            self.relocate_content(victim)?;
            self.erase(victim);
            return Ok(());
        }
        // Collect the valid pages first: relocation writes must not race the bitmap scan.
        let mut pages = std::mem::take(&mut self.gc_buf);
        pages.clear();
        let p2l = &self.map.p2l;
        self.map
            .for_each_valid(base, pps as u64, |ppn| pages.push(p2l[ppn as usize]));
        const AHEAD: usize = 8;
        for i in 0..pages.len() {
            if let Some(&next) = pages.get(i + AHEAD) {
                self.map.prefetch(next);
            }
            let lpn = pages[i];
            // The source page only matters to the op stream (an L2P load WAF-only runs skip).
            let src = if self.log.is_on() {
                self.map.l2p[lpn as usize]
            } else {
                NONE
            };
            if self.cmt.is_some() && lpn as u64 >= self.p.logical_pages {
                // A translation page: the GTD (in DRAM) follows it; no placement decision.
                self.write_page(self.tstream, lpn, src, Origin::Gc)?;
                self.counters.gc_writes += 1;
                continue;
            }
            let view = SegmentView::new(&self.segs, self.clock);
            let s = self.placement.gc_stream(lpn, victim, &view);
            self.write_page(s, lpn, src, Origin::Gc)?;
            self.counters.gc_writes += 1;
            if let Some(c) = &mut self.cmt {
                let tp = c.page_of(lpn);
                if !c.update_in_place(tp) {
                    self.gc_tpages.push(tp);
                }
            }
        }
        self.gc_buf = pages;
        if !self.gc_tpages.is_empty() {
            self.gc_batch_update()?;
        }
        self.erase(victim);
        Ok(())
    }

    /// Erases victim `victim` (all its pages relocated or dropped) into the free pool.
    pub(super) fn erase(&mut self, victim: SegmentId) {
        let pps = self.p.pages_per_segment;
        let base = victim as u64 * pps as u64;
        self.log.push(FlashOp::Erase {
            seg: victim,
            origin: Origin::Gc,
        });
        self.map.clear_range(base, pps as u64);
        self.written_pages -= self.segs.written[victim as usize] as u64;
        self.segs.valid[victim as usize] = 0;
        self.segs.written[victim as usize] = 0;
        self.segs.erases[victim as usize] += 1;
        self.segs.state[victim as usize] = SegState::Free;
        self.free.push_back(victim);
        self.counters.erases += 1;
    }
}
