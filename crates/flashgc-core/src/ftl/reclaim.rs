//! GC relocation: moving a victim's valid pages to the placement's streams and erasing it.

use super::Ftl;
use crate::error::{Error, Result};
use crate::ops::{FlashOp, Origin};
use crate::segment::{SegState, SegmentView};
use crate::types::{Lpn, Ppn, SegmentId, StreamId, NONE};
use crate::victim::VictimScope;

/// How many pages ahead of the one being relocated GC prefetches the L2P entry (random
/// stores on large devices). 16, 32 and 64, and write-intent prefetches, measured no
/// faster (BENCHMARKS.md, "GC relocation in runs").
const GC_AHEAD: usize = 8;

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
        // Translation pages (mapping cache) take their own stream: per page.
        let one = if self.cmt.is_none() {
            let view = SegmentView::new(&self.segs, self.clock);
            self.placement
                .gc_stream_of_victim(victim, pages.len() as u32, &view)
        } else {
            None
        };
        let r = match one {
            Some(s) => self.relocate_to(s, &pages),
            None => self.relocate_each(victim, &pages),
        };
        self.gc_buf = pages;
        r?;
        if !self.gc_tpages.is_empty() {
            self.gc_batch_update()?;
        }
        self.erase(victim);
        Ok(())
    }

    /// Relocates `pages` (the victim's valid LPNs, in PPN order) to stream `s`, one run per
    /// destination segment: the same writes, seals and op stream as [`Ftl::relocate_each`]
    /// with every page going to `s`, and the segment table updated once per run.
    fn relocate_to(&mut self, s: StreamId, pages: &[Lpn]) -> Result<()> {
        let pps = self.p.pages_per_segment;
        let mut i = 0;
        while i < pages.len() {
            let mut seg = self.open[s as usize].seg;
            if seg == NONE {
                seg = self.open_segment(s)?;
            }
            let off = self.segs.written[seg as usize];
            let take = ((pps - off) as usize).min(pages.len() - i);
            let first = seg * pps + off;
            let run = &pages[i..i + take];
            if self.log.is_on() {
                for (k, &lpn) in run.iter().enumerate() {
                    let src = self.map.l2p[lpn as usize];
                    self.log.push(FlashOp::Copyback {
                        src,
                        dst: first + k as Ppn,
                        origin: Origin::Gc,
                    });
                }
            }
            let next = pages.get(i + GC_AHEAD..).unwrap_or(&[]);
            self.map.map_run(run, next, first);
            let n = take as u32;
            self.segs.valid[seg as usize] += n;
            self.segs.written[seg as usize] = off + n;
            self.written_pages += take as u64;
            if off + n == pps {
                self.seal(s, seg);
            }
            self.counters.gc_writes += take as u64;
            i += take;
        }
        Ok(())
    }

    /// Relocates `pages` (the victim's valid LPNs, in PPN order) one by one, each to the
    /// stream the placement names for it.
    fn relocate_each(&mut self, victim: SegmentId, pages: &[Lpn]) -> Result<()> {
        for (i, &lpn) in pages.iter().enumerate() {
            if let Some(&next) = pages.get(i + GC_AHEAD) {
                self.map.prefetch(next);
            }
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

    /// The error of a GC that found no victim in `scope`, with what the user needs to see
    /// why: how many segments were sealed there and the most garbage any of them held,
    /// against the victim policy that declined them (typically a `min_garbage` filter
    /// above what the device's over-provisioning leaves in a segment).
    pub(super) fn no_victim(&self, scope: VictimScope) -> Error {
        let groups = self.placement.streams() + usize::from(self.cmt.is_some());
        let in_scope = |s: usize| match scope {
            VictimScope::Segment(v) => s == v as usize,
            _ => scope
                .range(groups)
                .contains(&(self.segs.stream[s] as usize)),
        };
        let (sealed, fewest_valid) = (0..self.segs.len())
            .filter(|&s| self.segs.state[s] == SegState::Sealed && in_scope(s))
            .fold((0u64, u32::MAX), |(n, v), s| {
                (n + 1, v.min(self.segs.valid[s]))
            });
        let pps = self.p.pages_per_segment;
        let place = match scope {
            VictimScope::All => "the device".to_string(),
            VictimScope::Group(g) => format!("stream {g}"),
            VictimScope::Groups(lo, hi) => format!("streams {lo}..={hi}"),
            VictimScope::Segment(v) => format!("segment {v}, the placement's choice"),
        };
        let filter = self.victim.max_valid();
        if sealed > 0 && filter < pps && fewest_valid > filter {
            // Not the device's fault: the user's filter declined every sealed segment.
            let garbage = 100.0 * f64::from(pps - fewest_valid) / f64::from(pps);
            return Error::config(
                "run.victim.min_garbage",
                format!(
                    "device full: the victim policy `{}`'s min_garbage filter (a victim needs at \
                     least {} of {pps} pages invalid) kept GC from freeing space: {sealed} \
                     segments of {place} are sealed and the most garbage any holds is \
                     {garbage:.1} % ({} of {pps} pages invalid); lower min_garbage (--victim \
                     {}:min_garbage=G) or give the device more over-provisioning",
                    self.victim.name(),
                    pps - filter,
                    pps - fewest_valid,
                    self.victim.name()
                ),
            );
        }
        let why = if sealed == 0 {
            format!(
                "no segment of {place} is sealed (the placement's open streams hold the \
                 free space: use fewer streams or a larger device)"
            )
        } else {
            let garbage = 100.0 * f64::from(pps - fewest_valid) / f64::from(pps);
            format!(
                "{sealed} segments of {place} are sealed and the most garbage any holds is \
                 {garbage:.1} % ({} of {pps} pages invalid), but the victim policy `{}` took \
                 none of them (a `min_garbage` filter above that share: lower it or give the \
                 device more over-provisioning)",
                pps - fewest_valid,
                self.victim.name()
            )
        };
        Error::DeviceFull(format!("GC needs a victim but none qualifies: {why}"))
    }
}
