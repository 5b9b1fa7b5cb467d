//! The FTL's content mode: two-level mapping and content groups for the GC actions of
//! `crate::gc_action` (SplitGC, CAGC, DAGC).
//!
//! * The L2P entry of an LPN is a PPN (the LPN *owns* that page, P2L points back) or
//!   `VFLAG | vpn`: the LPN is served through content group `vpn`, whose list of copies is
//!   its SMT entry (reads use the first live copy). P2L of a live page without owner is
//!   NONE.
//! * A physical page is live (valid, moved by GC) while an LPN owns it or while it is the
//!   last live copy of a group some LPN is served through (a *pinned* page). No scheme can
//!   drop the last copy of content still referenced: every read resolves to a live page
//!   whose content equals what was last written to the LPN, which the content check
//!   verifies on every read (and `check_all_content` for every LPN).
//! * Per-segment counters for victim policies (`SegmentView::dup`, `SegmentView::reuse`)
//!   are kept here and every change is reported to the victim policy (`on_counters`,
//!   `on_invalidate`, `on_revalidate`).
//!
//! This file: the layer's state, group bookkeeping and host operations. GC and background
//! work: `dedup_gc.rs`; invariants, checkpoints, reports: `dedup_check.rs`.

use super::Ftl;
use crate::content::{ContentGen, ContentStore, ContentView, GroupId, VFLAG};
use crate::error::{Error, Result};
use crate::gc_action::{GcAction, WriteAction};
use crate::ops::{Compute, FlashOp, Origin};
use crate::segment::{SegState, SegmentView};
use crate::types::{Lpn, Ppn, SegmentId, NONE};
use std::collections::VecDeque;

/// Counters of the content mode, in pages.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContentCounters {
    /// Victim pages whose LPN was switched to a VPN and queued (SplitGC).
    pub deferred_queued: u64,
    /// Deferred LPNs written back at idle time.
    pub deferred_written: u64,
    /// Victim pages dropped because their LPN is served by another copy for good (CAGC).
    pub remapped: u64,
    /// Shared copies migrated to the action's own stream out of turn (CAGC's promotion to
    /// the cold region; also counted as GC writes).
    pub promoted: u64,
    /// User writes that revived a dead page holding their content (DAGC).
    pub revived: u64,
    /// User writes served through an existing copy's VPN (DAGC upper-bound variant).
    pub shared: u64,
    /// Victims that held known duplicates (SplitGC).
    pub dup_victims: u64,
    /// Pages read by the read scrub.
    pub scrub_pages: u64,
    /// Of those, pages in the fingerprinted group of blocks.
    pub scrub_fp_pages: u64,
    /// Pages the scrub added to the fingerprint store.
    pub scrub_inserted: u64,
    /// Reads whose content was compared with the last write to their LPN.
    pub checked_reads: u64,
}

macro_rules! counters_delta {
    ($a:expr, $b:expr, $($f:ident),*) => {
        ContentCounters { $($f: $a.$f.saturating_sub($b.$f)),* }
    };
}

macro_rules! counters_le {
    ($a:expr, $b:expr, $($f:ident),*) => { true $(&& $a.$f <= $b.$f)* };
}

impl ContentCounters {
    /// `self - base`, field by field.
    pub fn since(&self, b: &ContentCounters) -> ContentCounters {
        counters_delta!(
            self,
            b,
            deferred_queued,
            deferred_written,
            remapped,
            promoted,
            revived,
            shared,
            dup_victims,
            scrub_pages,
            scrub_fp_pages,
            scrub_inserted,
            checked_reads
        )
    }

    /// Whether every count of `self` is at most the same count of `later` (a restored
    /// checkpoint's base of the measured phase against the layer's counters).
    pub fn not_after(&self, later: &ContentCounters) -> bool {
        counters_le!(
            self,
            later,
            deferred_queued,
            deferred_written,
            remapped,
            promoted,
            revived,
            shared,
            dup_victims,
            scrub_pages,
            scrub_fp_pages,
            scrub_inserted,
            checked_reads
        )
    }
}

/// Background work done by [`Ftl::background_step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Background {
    /// A deferred LPN was written back (its flash read and program are in the op log).
    Writeback,
    /// The read scrub read live page `ppn` (the driver times the read, the ECC check and,
    /// when `fingerprinted`, the fingerprint).
    Scrub {
        /// The page.
        ppn: Ppn,
        /// In the fingerprinted group of blocks.
        fingerprinted: bool,
    },
}

/// The content layer of the FTL: the fingerprint store, the GC action, the synthetic
/// content source, the deferred-migration queue and the end-to-end content check.
pub struct ContentLayer {
    pub(crate) store: ContentStore,
    pub(crate) action: Box<dyn GcAction>,
    pub(crate) gen: ContentGen,
    /// Deferred LPNs in arrival order (stale entries are skipped when popped).
    pub(crate) queue: VecDeque<Lpn>,
    pub(crate) queue_peak: usize,
    /// Content last written to each LPN (0: none), for the content check.
    pub(crate) expect: Vec<u64>,
    /// LPNs whose host write set `expect` but is not on flash yet (a write cache holds
    /// it): their next flash write programs that content (a bit per LPN).
    pub(crate) staged: Vec<u64>,
    pub(crate) counters: ContentCounters,
    /// The first content mismatch, if any (the driver turns it into an error).
    pub(crate) error: Option<String>,
    /// First stream id of the action's own streams.
    pub(crate) extra_base: u16,
    pub(crate) buf: Vec<Ppn>,
}

impl ContentLayer {
    /// A layer for `logical` LPNs and `physical` pages.
    pub fn new(logical: u64, physical: u64, action: Box<dyn GcAction>, gen: ContentGen) -> Self {
        ContentLayer {
            store: ContentStore::new(physical, action.needs()),
            action,
            gen,
            queue: VecDeque::new(),
            queue_peak: 0,
            expect: crate::mem::big_vec(logical as usize, 0),
            staged: vec![0; (logical as usize).div_ceil(64)],
            counters: ContentCounters::default(),
            error: None,
            extra_base: 0,
            buf: Vec::new(),
        }
    }
    /// The GC action.
    pub fn action(&self) -> &dyn GcAction {
        self.action.as_ref()
    }
    /// Counters since creation.
    pub fn counters(&self) -> &ContentCounters {
        &self.counters
    }
    /// The fingerprint store.
    pub fn store(&self) -> &ContentStore {
        &self.store
    }
    /// Entries in the deferred-migration queue (stale ones included).
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }
}

impl Ftl {
    /// Switches the FTL to content mode with `layer` (before any write). The action's own
    /// streams get frontiers after the placement's.
    pub fn enable_content(&mut self, mut layer: ContentLayer) {
        layer.extra_base = self.open.len() as u16;
        let extra = layer.action.extra_streams();
        self.open
            .extend(std::iter::repeat_n(super::Frontier { seg: NONE }, extra));
        self.segs.enable_content_counters();
        self.content = Some(Box::new(layer));
    }

    /// Whether the FTL has idle-time background work for a timed driver (content mode with
    /// an action that scrubs or defers).
    pub fn has_background_work(&self) -> bool {
        self.content
            .as_deref()
            .is_some_and(|c| c.action.background())
    }

    /// The content layer, if the FTL is in content mode.
    pub fn content(&self) -> Option<&ContentLayer> {
        self.content.as_deref()
    }

    #[inline]
    pub(crate) fn cl(&self) -> &ContentLayer {
        self.content.as_deref().expect("content mode")
    }
    #[inline]
    pub(crate) fn clm(&mut self) -> &mut ContentLayer {
        self.content.as_deref_mut().expect("content mode")
    }

    /// Adds `dd`/`dr` to segment `seg`'s duplicate/reusable counts and tells the victim
    /// policy (sealed segments).
    pub(crate) fn seg_counters(&mut self, seg: SegmentId, dd: i32, dr: i32) {
        let s = seg as usize;
        self.segs.dup[s] = (self.segs.dup[s] as i32 + dd) as u32;
        self.segs.reuse[s] = (self.segs.reuse[s] as i32 + dr) as u32;
        if self.segs.state[s] == SegState::Sealed {
            let view = SegmentView::new(&self.segs, self.clock);
            self.victim.on_counters(seg, &view);
        }
    }

    /// Page `ppn` becomes valid again (`dr`: change of its segment's reusable count, made
    /// before the victim policy hears of it).
    pub(crate) fn revalidate(&mut self, ppn: Ppn, dr: i32) {
        self.map.set_valid(ppn);
        let seg = ppn / self.p.pages_per_segment;
        let s = seg as usize;
        self.segs.valid[s] += 1;
        self.segs.reuse[s] = (self.segs.reuse[s] as i32 + dr) as u32;
        if self.segs.state[s] == SegState::Sealed {
            self.sealed_invalid -= 1;
            let view = SegmentView::new(&self.segs, self.clock);
            self.victim.on_revalidate(seg, &view);
        }
    }

    /// Page `ppn` dies but stays a reusable member of its group (one change of the valid
    /// and reusable counts, then one notification).
    pub(crate) fn invalidate_reusable(&mut self, ppn: Ppn) {
        self.map.clear_valid(ppn);
        let seg = ppn / self.p.pages_per_segment;
        let s = seg as usize;
        self.segs.valid[s] -= 1;
        self.segs.reuse[s] += 1;
        if self.segs.state[s] == SegState::Sealed {
            self.sealed_invalid += 1;
            let view = SegmentView::new(&self.segs, self.clock);
            self.victim.on_invalidate(seg, &view);
        }
    }

    /// The content view policies see.
    pub(crate) fn cview(&self) -> ContentView<'_> {
        ContentView::new(
            &self.cl().store,
            &self.map.valid,
            &self.map.p2l,
            self.p.pages_per_segment,
        )
    }

    /// The owner of live page `ppn` (NONE: pinned).
    #[inline]
    pub(crate) fn owner_of(&self, ppn: Ppn) -> Lpn {
        self.map.p2l[ppn as usize]
    }

    // ---- content groups ----

    /// Page `ppn` joins group `g`.
    pub(crate) fn join(&mut self, ppn: Ppn, g: GroupId) {
        let pps = self.p.pages_per_segment;
        let st = &mut self.clm().store;
        debug_assert_eq!(st.gid[ppn as usize], NONE);
        st.gid[ppn as usize] = g;
        let list = &mut st.groups[g as usize].ppns;
        st.pos[ppn as usize] = list.push(ppn);
        let len = list.len();
        let first = list.first().expect("just pushed");
        st.members += 1;
        if st.needs.dup_counts {
            if len == 2 {
                self.seg_counters(first / pps, 1, 0);
            }
            if len >= 2 {
                self.seg_counters(ppn / pps, 1, 0);
            }
        }
    }

    /// Page `ppn` leaves its group; the group is freed when nothing uses it any more.
    pub(crate) fn leave(&mut self, ppn: Ppn) {
        let pps = self.p.pages_per_segment;
        let (g, len, dup) = {
            let st = &self.cl().store;
            let g = st.gid[ppn as usize];
            debug_assert_ne!(g, NONE);
            (g, st.groups[g as usize].ppns.len(), st.needs.dup_counts)
        };
        if dup && len >= 2 {
            self.seg_counters(ppn / pps, -1, 0);
        }
        let st = &mut self.clm().store;
        let i = st.pos[ppn as usize] as usize;
        let list = &mut st.groups[g as usize].ppns;
        if let Some(moved) = list.swap_remove(i) {
            st.pos[moved as usize] = i as u32;
        }
        let other = list.first();
        st.gid[ppn as usize] = NONE;
        st.members -= 1;
        if dup && len == 2 {
            if let Some(o) = other {
                self.seg_counters(o / pps, -1, 0);
            }
        }
        self.clm().store.maybe_free(g);
    }

    /// A dead member `ppn` leaves its group (no longer reusable).
    pub(crate) fn leave_dead(&mut self, ppn: Ppn) {
        self.leave(ppn);
        self.seg_counters(ppn / self.p.pages_per_segment, 0, -1);
    }

    /// Group `g` lost its index entry: unless LPNs are served through it, its members
    /// leave it (their content is no longer known).
    pub(crate) fn forget_group(&mut self, g: GroupId) {
        if self.cl().store.groups[g as usize].borrowers > 0 {
            return;
        }
        let mut pages = std::mem::take(&mut self.clm().buf);
        pages.clear();
        pages.extend(self.cl().store.groups[g as usize].ppns.iter());
        for &p in &pages {
            if self.map.is_valid(p) {
                self.leave(p);
            } else {
                self.leave_dead(p);
            }
        }
        self.clm().buf = pages;
    }

    /// Puts live page `ppn` in the group of its content (creating and indexing one).
    pub(crate) fn insert_page(&mut self, ppn: Ppn) {
        let fp = self.cl().store.pcontent[ppn as usize];
        let g = match self.cl().store.index.get(&fp).copied() {
            Some(g) => {
                self.clm().store.touch(g);
                g
            }
            None => self.new_indexed_group(fp),
        };
        self.join(ppn, g);
    }

    /// A new group for `fp`, indexed (a full index drops its oldest entry).
    pub(crate) fn new_indexed_group(&mut self, fp: u64) -> GroupId {
        let st = &mut self.clm().store;
        let g = st.new_group(fp);
        if let Some(e) = st.index_insert(g) {
            self.forget_group(e);
        }
        g
    }

    /// `lpn` is served through group `g`.
    pub(crate) fn borrow(&mut self, lpn: Lpn, g: GroupId) {
        self.map.l2p[lpn as usize] = VFLAG | g;
        let st = &mut self.clm().store;
        let grp = &mut st.groups[g as usize];
        grp.rep_lpn = lpn;
        grp.borrowers += 1;
        if grp.borrowers == 1 {
            st.borrowed_groups += 1;
        }
    }

    /// Whether `ppn` is the last live copy of a group LPNs are served through.
    fn is_last_borrowed_copy(&self, ppn: Ppn) -> bool {
        let st = &self.cl().store;
        let g = st.gid[ppn as usize];
        if g == NONE || st.groups[g as usize].borrowers == 0 {
            return false;
        }
        let list = &st.groups[g as usize].ppns;
        if !st.needs.keep_invalid {
            // Every member is live: `ppn` is the last copy when it is the only member.
            return list.len() == 1;
        }
        list.iter().all(|p| p == ppn || !self.map.is_valid(p))
    }

    /// Live page `ppn` dies (call with its owner still set; the caller clears P2L).
    pub(crate) fn kill(&mut self, ppn: Ppn) {
        let g = self.cl().store.gid[ppn as usize];
        if g != NONE && self.owner_of(ppn) == NONE {
            self.clm().store.groups[g as usize].pinned -= 1;
        }
        if g != NONE && self.cl().store.needs.keep_invalid {
            self.invalidate_reusable(ppn);
            return;
        }
        if g != NONE {
            // Leave first: a duplicate count never exceeds the valid count.
            self.leave(ppn);
        }
        self.invalidate(ppn);
    }

    /// Group `g` lost its last borrower: its ownerless (pinned) copies die.
    pub(crate) fn unpin(&mut self, g: GroupId) {
        self.clm().store.borrowed_groups -= 1;
        if self.cl().store.groups[g as usize].pinned > 0 {
            let mut dead = std::mem::take(&mut self.clm().buf);
            dead.clear();
            dead.extend(
                self.cl().store.groups[g as usize]
                    .ppns
                    .iter()
                    .filter(|&p| self.owner_of(p) == NONE && self.map.is_valid(p)),
            );
            for &p in &dead {
                self.kill(p);
            }
            self.clm().buf = dead;
        }
        self.clm().store.maybe_free(g);
    }

    /// Drops `lpn`'s current data (overwrite or trim).
    pub(crate) fn release(&mut self, lpn: Lpn) -> bool {
        let x = self.map.l2p[lpn as usize];
        if x == NONE {
            return false;
        }
        self.map.l2p[lpn as usize] = NONE;
        if x & VFLAG != 0 {
            let g = x & !VFLAG;
            let b = {
                let grp = &mut self.clm().store.groups[g as usize];
                grp.borrowers -= 1;
                grp.borrowers
            };
            if b == 0 {
                self.unpin(g);
            }
            return true;
        }
        if self.is_last_borrowed_copy(x) {
            // Pinned: the last copy LPNs served through its VPN read.
            self.map.p2l[x as usize] = NONE;
            let g = self.cl().store.gid[x as usize];
            self.clm().store.groups[g as usize].pinned += 1;
            return true;
        }
        let cache = self.cl().store.gid[x as usize] == NONE && self.cl().action.caches_dead_pages();
        if cache {
            self.cache_dead(x);
        } else {
            self.kill(x);
        }
        self.map.p2l[x as usize] = NONE;
        true
    }

    /// Live, ungrouped page `ppn` dies and its content enters the cache of reusable dead
    /// pages (DAGC): one entry per content, the newest dead copy.
    fn cache_dead(&mut self, ppn: Ppn) {
        let fp = self.cl().store.pcontent[ppn as usize];
        if let Some(old) = self.cl().store.index.get(&fp).copied() {
            self.clm().store.unindex(old);
            self.forget_group(old);
        }
        let g = self.new_indexed_group(fp);
        // Join while the page is still live, then one combined count change.
        let st = &mut self.clm().store;
        st.gid[ppn as usize] = g;
        st.pos[ppn as usize] = st.groups[g as usize].ppns.push(ppn);
        st.members += 1;
        self.invalidate_reusable(ppn);
    }

    // ---- host operations ----

    /// A host write of `content` to `lpn` (0: the synthetic source's next content) that
    /// reaches flash later (a write cache holds it): the content check expects it from
    /// now on, and the LPN's next flash write programs it. Content mode only (no-op
    /// otherwise).
    pub fn stage_content(&mut self, lpn: Lpn, content: u64) {
        let Some(cl) = self.content.as_deref_mut() else {
            return;
        };
        let c = if content == 0 {
            cl.gen.next_content()
        } else {
            content
        };
        cl.expect[lpn as usize] = c;
        cl.staged[(lpn / 64) as usize] |= 1 << (lpn % 64);
    }

    /// Writes one user page with content `content` (0: the content staged for it by
    /// [`Ftl::stage_content`], else the synthetic source's next content). Content mode
    /// only.
    pub fn write_content(&mut self, lpn: Lpn, content: u64) -> Result<()> {
        self.clock += 1;
        let s = self.placement.user_stream(lpn, self.clock);
        self.counters.user_writes += 1;
        let c = {
            let cl = self.clm();
            let w = &mut cl.staged[(lpn / 64) as usize];
            let bit = 1u64 << (lpn % 64);
            if content != 0 {
                *w &= !bit;
                content
            } else if *w & bit != 0 {
                *w &= !bit;
                cl.expect[lpn as usize]
            } else {
                cl.gen.next_content()
            }
        };
        self.release(lpn);
        self.clm().expect[lpn as usize] = c;
        let wa = {
            let cl = self.content.as_deref_mut().expect("content mode");
            let view = ContentView::new(
                &cl.store,
                &self.map.valid,
                &self.map.p2l,
                self.p.pages_per_segment,
            );
            cl.action.on_write(lpn, c, &view)
        };
        if self.log.is_on() && self.cl().action.costs().write_ns > 0 {
            // The action's checksum lookup on the write path (DAGC).
            self.log.push(FlashOp::Compute {
                work: Compute::FingerprintLookup { lookups: 1 },
                origin: Origin::Host,
            });
        }
        match wa {
            WriteAction::Program { index } => {
                let ppn = self.program(s, lpn, c, NONE, Origin::Host)?;
                self.map.l2p[lpn as usize] = ppn;
                if index {
                    self.insert_page(ppn);
                }
            }
            WriteAction::Revive { ppn } => {
                self.check_reuse(ppn, c, false)?;
                // Read and compared before it is reused (the checksum may collide).
                self.log.push(FlashOp::Read {
                    ppn,
                    origin: Origin::Host,
                });
                self.leave(ppn);
                self.revalidate(ppn, -1);
                self.map.p2l[ppn as usize] = lpn;
                self.map.l2p[lpn as usize] = ppn;
                self.counters.absorbed_writes += 1;
                self.placement.unroute(lpn, s);
                self.clm().counters.revived += 1;
            }
            WriteAction::Share { group } => {
                let p = self.cl().store.groups[group as usize]
                    .ppns
                    .first()
                    .ok_or_else(|| self.action_error("shares an empty group"))?;
                self.check_reuse(p, c, true)?;
                if !self.map.is_valid(p) {
                    self.revalidate(p, -1);
                    self.map.p2l[p as usize] = NONE;
                    self.clm().store.groups[group as usize].pinned += 1;
                }
                self.clm().store.touch(group);
                self.borrow(lpn, group);
                self.counters.absorbed_writes += 1;
                self.placement.unroute(lpn, s);
                self.clm().counters.shared += 1;
            }
        }
        Ok(())
    }

    /// A write reuses page `ppn`: it must hold the same content and (for a revive) be dead.
    fn check_reuse(&self, ppn: Ppn, c: u64, may_live: bool) -> Result<()> {
        let st = &self.cl().store;
        if (ppn as usize) >= st.pcontent.len()
            || st.pcontent[ppn as usize] != c
            || (!may_live && self.map.is_valid(ppn))
            || st.gid[ppn as usize] == NONE
        {
            return Err(self.action_error(&format!(
                "reuses page {ppn}, which is not a cached copy of the written content"
            )));
        }
        Ok(())
    }

    pub(crate) fn action_error(&self, what: &str) -> Error {
        Error::Workload(format!(
            "GC action `{}` {what} (a bug in the policy)",
            self.cl().action.name()
        ))
    }

    /// Programs a page of content `c` owned by `owner` (NONE: pinned) at stream `s`'s
    /// frontier (opening a segment and running GC if needed), a host program when `src` is
    /// NONE, else a move of page `src` (GC or background). L2P is the caller's.
    pub(crate) fn program(
        &mut self,
        s: u16,
        owner: Lpn,
        c: u64,
        src: Ppn,
        origin: Origin,
    ) -> Result<Ppn> {
        let mut seg = self.open[s as usize].seg;
        if seg == NONE {
            seg = self.open_segment(s)?;
        }
        let pps = self.p.pages_per_segment;
        let off = self.segs.written[seg as usize];
        let ppn = seg * pps + off;
        self.map.p2l[ppn as usize] = owner;
        self.map.set_valid(ppn);
        self.segs.valid[seg as usize] += 1;
        self.segs.written[seg as usize] = off + 1;
        self.written_pages += 1;
        {
            let st = &mut self.clm().store;
            st.pcontent[ppn as usize] = c;
            st.set_noprint(ppn, false);
        }
        if self.log.is_on() {
            self.log.push(if src == NONE {
                FlashOp::Program { ppn, origin }
            } else {
                FlashOp::Copyback {
                    src,
                    dst: ppn,
                    origin,
                }
            });
        }
        if off + 1 == pps {
            self.seal(s, seg);
        }
        Ok(ppn)
    }

    /// The page serving `lpn`, if mapped.
    pub fn resolve(&self, lpn: Lpn) -> Option<Ppn> {
        let x = self.map.l2p[lpn as usize];
        if x == NONE {
            None
        } else if x & VFLAG != 0 && self.content.is_some() {
            self.cview().live_copy(x & !VFLAG, NONE)
        } else {
            Some(x)
        }
    }

    /// Reads one user page in content mode and checks its content.
    pub(crate) fn read_content(&mut self, lpn: Lpn) -> Option<Ppn> {
        self.counters.reads += 1;
        let p = self.resolve(lpn);
        let got = p.map(|p| self.cl().store.pcontent[p as usize]).unwrap_or(0);
        let want = self.cl().expect[lpn as usize];
        match p {
            None => self.counters.unmapped_reads += 1,
            Some(ppn) => self.log.push(FlashOp::Read {
                ppn,
                origin: Origin::Host,
            }),
        }
        let cl = self.clm();
        cl.counters.checked_reads += 1;
        if got != want && cl.error.is_none() {
            cl.error = Some(format!(
                "content check: a read of LPN {lpn} returned {} but {} was written last ({})",
                if p.is_some() {
                    format!("{got:#x}")
                } else {
                    "nothing".into()
                },
                if want != 0 {
                    format!("{want:#x}")
                } else {
                    "nothing".into()
                },
                cl.action.name()
            ));
        }
        p
    }

    /// Trims one page in content mode.
    pub(crate) fn trim_content(&mut self, lpn: Lpn) {
        if self.release(lpn) {
            self.counters.trims += 1;
        }
        let cl = self.clm();
        cl.expect[lpn as usize] = 0;
        cl.staged[(lpn / 64) as usize] &= !(1 << (lpn % 64));
        self.placement.on_trim(lpn);
    }

    /// The first content-check failure, if any.
    pub fn content_error(&self) -> Option<&str> {
        self.content.as_deref().and_then(|c| c.error.as_deref())
    }
}
