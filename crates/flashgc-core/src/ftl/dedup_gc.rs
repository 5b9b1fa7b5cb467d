//! Content mode: GC with GC actions (move, defer, remap), the erase of a victim's cached
//! pages, background work at idle time (deferred migration, read scrub), the prescrub of a
//! preconditioned device and power cuts.

use super::{Background, Ftl};
use crate::content::{ContentView, VFLAG};
use crate::error::{Error, Result};
use crate::gc_action::{PageAction, Target, Writeback};
use crate::ops::{Compute, FlashOp, Origin};
use crate::segment::{SegState, SegmentView};
use crate::types::{Lpn, Ppn, SegmentId, StreamId, NONE};

impl Ftl {
    /// The stream id of relocation target `t` for a page of `lpn` leaving segment `from`.
    fn target_stream(&mut self, t: Target, lpn: Lpn, from: SegmentId) -> StreamId {
        match t {
            Target::Extra(k) => self.cl().extra_base + k,
            Target::Placement => {
                let view = SegmentView::new(&self.segs, self.clock);
                self.placement.gc_stream(lpn, from, &view)
            }
        }
    }

    /// Moves live page `ppn` to target `t`, keeping its owner, group and scrub mark
    /// (one GC copyback in the op stream). Returns the new page.
    pub(crate) fn relocate_page(&mut self, ppn: Ppn, t: Target) -> Result<Ppn> {
        let owner = self.owner_of(ppn);
        let from = ppn / self.p.pages_per_segment;
        // A pinned copy has no owner: the placement classifies it as the LPN that borrowed
        // from its group last (so one victim's pages still go to the streams the
        // placement's GC reserve covers).
        let lpn = if owner != NONE {
            owner
        } else {
            let g = self.cl().store.gid[ppn as usize];
            self.cl().store.groups[g as usize].rep_lpn
        };
        let s = self.target_stream(t, lpn, from);
        let (c, g, noprint) = {
            let st = &self.cl().store;
            (
                st.pcontent[ppn as usize],
                st.gid[ppn as usize],
                st.is_noprint(ppn),
            )
        };
        let q = self.program(s, owner, c, ppn, Origin::Gc)?;
        if noprint {
            self.clm().store.set_noprint(q, true);
        }
        if owner != NONE {
            self.map.l2p[owner as usize] = q;
        }
        // Join before leaving so that the group never looks empty.
        if g != NONE {
            self.join(q, g);
        }
        self.map.p2l[ppn as usize] = NONE;
        if g != NONE {
            self.leave(ppn);
        }
        self.invalidate(ppn);
        self.counters.gc_writes += 1;
        Ok(q)
    }

    /// Handles every valid page of `victim` by the GC action's decision, then drops the
    /// victim's cached (reusable) pages from their groups.
    pub(crate) fn relocate_content(&mut self, victim: SegmentId) -> Result<()> {
        let pps = self.p.pages_per_segment;
        if self.segs.dup[victim as usize] > 0 {
            self.clm().counters.dup_victims += 1;
        }
        let base = victim as u64 * pps as u64;
        let mut pages = std::mem::take(&mut self.clm().buf);
        pages.clear();
        self.map.for_each_valid(base, pps as u64, |p| pages.push(p));
        for &ppn in &pages {
            // An earlier decision may have killed it (an unpinned copy).
            if !self.map.is_valid(ppn) {
                continue;
            }
            let owner = self.owner_of(ppn);
            let decision = {
                let cl = self.content.as_deref_mut().expect("content mode");
                let view = ContentView::new(&cl.store, &self.map.valid, &self.map.p2l, pps);
                let segs = SegmentView::new(&self.segs, self.clock);
                cl.action.on_victim_page(
                    ppn,
                    (owner != NONE).then_some(owner),
                    victim,
                    &segs,
                    &view,
                )
            };
            if self.log.is_on() && self.cl().action.costs().gc_page_ns > 0 {
                // The action fingerprints each page GC reads and looks it up (CAGC).
                for work in [
                    Compute::Fingerprint { pages: 1 },
                    Compute::FingerprintLookup { lookups: 1 },
                ] {
                    self.log.push(FlashOp::Compute {
                        work,
                        origin: Origin::Gc,
                    });
                }
            }
            match decision {
                PageAction::Move { to, index } => {
                    let q = self.relocate_page(ppn, to)?;
                    if index && self.cl().store.gid[q as usize] == NONE {
                        self.insert_page(q);
                    }
                }
                PageAction::Defer { group: g } => {
                    let own = self.cl().store.gid[ppn as usize];
                    if !self.cl().store.group_in_use(g)
                        || self.cview().live_copy(g, victim).is_none()
                        || (own != NONE && own != g)
                    {
                        return Err(self.action_error(&format!(
                            "defers page {ppn} to group {g}, which has no live copy outside the victim \
                             (or the page is a copy of another group)"
                        )));
                    }
                    if owner != NONE {
                        self.borrow(owner, g);
                        let cl = self.clm();
                        cl.queue.push_back(owner);
                        cl.queue_peak = cl.queue_peak.max(cl.queue.len());
                        cl.counters.deferred_queued += 1;
                    }
                    // Kill with the owner still set: only ownerless copies count as pinned.
                    self.kill(ppn);
                    self.map.p2l[ppn as usize] = NONE;
                }
                PageAction::Remap { group, promote } => {
                    let own = self.cl().store.gid[ppn as usize];
                    let ok = self.cl().store.group_in_use(group)
                        && self.cview().live_copy(group, victim).is_some()
                        && (own == NONE || own == group);
                    if !ok {
                        return Err(self.action_error(&format!(
                            "remaps page {ppn} to group {group}, which has no live copy outside the victim \
                             (or the page is a copy of another group) [in use {}, copy {:?}, own {own}]",
                            self.cl().store.group_in_use(group),
                            self.cview().live_copy(group, victim)
                        )));
                    }
                    // Read to be fingerprinted, not written anywhere.
                    self.log.push(FlashOp::Read {
                        ppn,
                        origin: Origin::Gc,
                    });
                    if owner != NONE {
                        self.borrow(owner, group);
                    }
                    self.clm().store.touch(group);
                    self.clm().counters.remapped += 1;
                    self.kill(ppn);
                    self.map.p2l[ppn as usize] = NONE;
                    if let Some(t) = promote {
                        let copy = self
                            .cview()
                            .live_copy(group, victim)
                            .expect("checked above");
                        let lpn = match self.owner_of(copy) {
                            NONE => self.cl().store.groups[group as usize].rep_lpn,
                            o => o,
                        };
                        let want = self.target_stream(t, lpn, copy / pps);
                        if self.segs.stream[(copy / pps) as usize] != want {
                            self.relocate_page(copy, t)?;
                            self.clm().counters.promoted += 1;
                        }
                    }
                }
            }
        }
        // Dead pages still cached (reusable) leave their groups with the erase.
        pages.clear();
        let written = self.segs.written[victim as usize];
        let st = &self.cl().store;
        pages.extend(
            (0..written)
                .map(|o| victim * pps + o)
                .filter(|&p| st.gid[p as usize] != NONE),
        );
        for &p in &pages {
            debug_assert!(!self.map.is_valid(p));
            self.leave(p);
        }
        self.clm().buf = pages;
        self.segs.dup[victim as usize] = 0;
        self.segs.reuse[victim as usize] = 0;
        Ok(())
    }

    /// One unit of idle-time background work: a deferred LPN written back (first), else
    /// one read-scrub page. Content mode; `Ok(None)` when there is nothing to do.
    pub fn background_step(&mut self) -> Result<Option<Background>> {
        if self.content.is_none() || self.in_gc {
            return Ok(None);
        }
        while let Some(lpn) = self.clm().queue.pop_front() {
            let x = self.map.l2p[lpn as usize];
            if x == NONE || x & VFLAG == 0 {
                continue; // overwritten or trimmed since it was queued
            }
            self.writeback(lpn, x & !VFLAG)?;
            return Ok(Some(Background::Writeback));
        }
        let step = {
            let cl = self.content.as_deref_mut().expect("content mode");
            let view = ContentView::new(
                &cl.store,
                &self.map.valid,
                &self.map.p2l,
                self.p.pages_per_segment,
            );
            let segs = SegmentView::new(&self.segs, self.clock);
            cl.action.scrub_step(&segs, &view)
        };
        let Some(step) = step else {
            return Ok(None);
        };
        if !self.map.is_valid(step.ppn) {
            return Err(self.action_error(&format!("scrubs dead page {}", step.ppn)));
        }
        let c = &mut self.clm().counters;
        c.scrub_pages += 1;
        if step.fingerprinted {
            c.scrub_fp_pages += 1;
        }
        if self.log.is_on() {
            // The scrub reads the page and checks its ECC; in the fingerprinted group it
            // also hashes it and probes the Bloom filter and table.
            self.log.push(FlashOp::Read {
                ppn: step.ppn,
                origin: Origin::Background,
            });
            let mut work = vec![Compute::EccDecode {
                pages: 1,
                corrected: false,
            }];
            if step.fingerprinted {
                work.push(Compute::Fingerprint { pages: 1 });
                work.push(Compute::FingerprintLookup { lookups: 1 });
            }
            for w in work {
                self.log.push(FlashOp::Compute {
                    work: w,
                    origin: Origin::Background,
                });
            }
        }
        if step.insert && self.cl().store.gid[step.ppn as usize] == NONE {
            self.clm().counters.scrub_inserted += 1;
            self.insert_page(step.ppn);
        }
        Ok(Some(Background::Scrub {
            ppn: step.ppn,
            fingerprinted: step.fingerprinted,
        }))
    }

    /// Writes deferred `lpn` (served through group `g`) back to a page of its own.
    fn writeback(&mut self, lpn: Lpn, g: u32) -> Result<()> {
        let src = self.cview().live_copy(g, NONE).ok_or_else(|| {
            Error::Workload(format!(
                "content mode: VPN {g} has no live copy (LPN {lpn})"
            ))
        })?;
        let c = self.cl().store.groups[g as usize].fp;
        let s = self.target_stream(Target::Placement, lpn, src / self.p.pages_per_segment);
        let q = self.program(s, lpn, c, src, Origin::Background)?;
        // The program may have run GC; the LPN's borrow kept the group alive.
        let g = self.map.l2p[lpn as usize] & !VFLAG;
        match self.cl().action.writeback() {
            Writeback::Keep => self.join(q, g),
            Writeback::Rescrub => {}
            Writeback::Once => self.clm().store.set_noprint(q, true),
        }
        let b = {
            let grp = &mut self.clm().store.groups[g as usize];
            grp.borrowers -= 1;
            grp.borrowers
        };
        self.map.l2p[lpn as usize] = q;
        if b == 0 {
            self.unpin(g);
        }
        self.counters.background_writes += 1;
        self.clm().counters.deferred_written += 1;
        Ok(())
    }

    /// After the precondition fill: fingerprints the device if the action prescrubs (as if
    /// its read scrub had had the idle time to visit everything). Untimed.
    pub fn after_precondition(&mut self) {
        if self.content.is_none() || !self.cl().action.prescrub() {
            return;
        }
        let pps = self.p.pages_per_segment;
        for s in 0..self.segs.len() as u32 {
            if self.segs.state[s as usize] != SegState::Sealed {
                continue;
            }
            for p in s * pps..(s + 1) * pps {
                if !self.map.is_valid(p) {
                    continue;
                }
                let insert = {
                    let cl = self.content.as_deref_mut().expect("content mode");
                    let view = ContentView::new(&cl.store, &self.map.valid, &self.map.p2l, pps);
                    cl.action.prescrub_page(p, &view)
                };
                if insert && self.cl().store.gid[p as usize] == NONE {
                    self.insert_page(p);
                }
            }
        }
    }

    /// Simulated power cut and recovery (content mode). Persisted (the paper's
    /// supercapacitor flush, papers/splitgc.txt Sec. 3.3): mapping tables, SMT, fingerprint
    /// table, segment table. Volatile: the deferred-migration queue, the action's volatile
    /// state (scrub position, Bloom filter) and any operation in flight. Recovery rebuilds
    /// the queue from the L2P table (every LPN served through a VPN, in LPN order, when the
    /// action defers; otherwise such LPNs are deduplicated for good).
    pub fn power_cut(&mut self) {
        if self.content.is_none() {
            return;
        }
        let on = self.log.is_on();
        self.log.set(on);
        let defers = self.cl().store.needs.defers;
        let mut q = std::collections::VecDeque::new();
        if defers {
            for (lpn, &x) in self.map.l2p.iter().enumerate() {
                if x != NONE && x & VFLAG != 0 {
                    q.push_back(lpn as Lpn);
                }
            }
        }
        self.clm().queue = q;
        let cl = self.content.as_deref_mut().expect("content mode");
        let view = ContentView::new(
            &cl.store,
            &self.map.valid,
            &self.map.p2l,
            self.p.pages_per_segment,
        );
        cl.action.on_power_cut(&view);
    }
}
