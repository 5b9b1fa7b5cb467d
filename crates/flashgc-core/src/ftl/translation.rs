//! The FTL side of the mapping cache ([`super::cmt`]): translation pages in flash, cache
//! misses and write-backs as operations, GC's mapping updates.
//!
//! Translation page `tp` is stored as the hidden LPN `logical_pages + tp`: the L2P grows
//! by one entry per translation page (that entry is the GTD), and translation pages live
//! in segments of their own write stream (the frontier after the placement's streams), so
//! they take physical space, are relocated and erased by GC like data, and count in WAF.
//! Placements never see them.

use super::cmt::{Access, Cmt, CmtParams, TranslationCounters};
use super::{Frontier, Ftl};
use crate::error::Result;
use crate::ops::{FlashOp, Origin};
use crate::types::{Lpn, StreamId, NONE};
use crate::victim::VictimScope;

/// Under a placement that restricts GC to some groups (MiDAS), the translation stream's
/// segments are collected once this many are sealed (they are rewritten often, so mostly
/// invalid); under device-wide scopes they compete with data segments as usual.
pub const TRANSLATION_SEALED_BEFORE_GC: u32 = 2;

impl Ftl {
    /// Turns the mapping cache on (from [`Ftl::with_mapping_cache`]): the L2P has the
    /// translation pages' GTD entries after the logical pages, and a write stream is added
    /// for them.
    pub(super) fn set_mapping_cache(&mut self, p: CmtParams) {
        assert!(
            self.counters.user_writes == 0 && self.cmt.is_none(),
            "set_mapping_cache before the first write"
        );
        debug_assert_eq!(
            self.map.l2p.len(),
            self.p.logical_pages as usize + p.pages as usize
        );
        self.tstream = self.open.len() as StreamId;
        self.open.push(Frontier { seg: NONE });
        self.cmt = Some(Box::new(Cmt::new(p)));
        self.counters.translation = Some(TranslationCounters::default());
    }

    /// The mapping cache, if on.
    pub fn mapping_cache(&self) -> Option<&Cmt> {
        self.cmt.as_deref()
    }

    #[inline]
    fn tcount(&mut self) -> &mut TranslationCounters {
        self.counters
            .translation
            .as_mut()
            .expect("translation counters exist with the mapping cache")
    }

    /// A lookup (`dirty` false) or update of `lpn`'s mapping entry through the cache: a
    /// miss writes back the evicted dirty page and reads the needed one (both before the
    /// host operation that needed the entry, in the op stream).
    #[inline(never)]
    pub(super) fn translate(&mut self, lpn: Lpn, dirty: bool) -> Result<()> {
        if let Some(e) = self.pending_error.take() {
            return Err(e);
        }
        let c = self.cmt.as_mut().expect("mapping cache on");
        let tp = c.page_of(lpn);
        match c.access(tp, dirty) {
            Access::Hit => self.tcount().hits += 1,
            Access::Miss { evicted } => {
                self.tcount().misses += 1;
                if evicted != NONE {
                    self.write_translation(evicted, Origin::Translation)?;
                }
                let ppn = self.map.l2p[self.p.logical_pages as usize + tp as usize];
                if ppn != NONE {
                    self.tcount().reads += 1;
                    self.log.push(FlashOp::Read {
                        ppn,
                        origin: Origin::Translation,
                    });
                }
            }
        }
        Ok(())
    }

    /// [`Ftl::translate`] for reads and trims, whose callers take no error: a failed
    /// write-back (device full) is reported by the next write.
    pub(super) fn translate_deferred(&mut self, lpn: Lpn, dirty: bool) {
        if self.pending_error.is_some() {
            return;
        }
        if let Err(e) = self.translate(lpn, dirty) {
            self.pending_error = Some(e);
        }
    }

    /// Programs translation page `tp` at the translation stream's frontier.
    fn write_translation(&mut self, tp: u32, origin: Origin) -> Result<()> {
        let lpn = (self.p.logical_pages + tp as u64) as Lpn;
        // Open the frontier first: GC may run when it needs a fresh segment, and its batch
        // updates may rewrite translation pages, this one included; its copy must be the
        // old one invalidated here, not one left valid and unmapped.
        if self.open[self.tstream as usize].seg == NONE {
            self.open_segment(self.tstream)?;
        }
        let old = self.map.l2p[lpn as usize];
        if old != NONE {
            self.invalidate(old);
            self.map.l2p[lpn as usize] = NONE;
        }
        self.tcount().writes += 1;
        self.write_page(self.tstream, lpn, NONE, origin)
    }

    /// DFTL's batch update after a victim's moves: each translation page holding moved
    /// entries that is not cached is read and rewritten once (GC work, not the host's).
    #[cold]
    pub(super) fn gc_batch_update(&mut self) -> Result<()> {
        let mut tps = std::mem::take(&mut self.gc_tpages);
        tps.sort_unstable();
        tps.dedup();
        let logical = self.p.logical_pages as usize;
        let mut r = Ok(());
        for &tp in &tps {
            let ppn = self.map.l2p[logical + tp as usize];
            if ppn != NONE {
                self.tcount().reads += 1;
                self.log.push(FlashOp::Read {
                    ppn,
                    origin: Origin::Gc,
                });
            }
            self.tcount().gc_updates += 1;
            r = self.write_translation(tp, Origin::Gc);
            if r.is_err() {
                break;
            }
        }
        tps.clear();
        self.gc_tpages = tps;
        r
    }

    /// The victim scope with the translation stream's segments taken into account.
    #[inline]
    pub(super) fn translation_scope(&self, scope: VictimScope) -> VictimScope {
        if scope != VictimScope::All && self.t_sealed >= TRANSLATION_SEALED_BEFORE_GC {
            VictimScope::Group(self.tstream)
        } else {
            scope
        }
    }

    /// The mapping cache's state for a checkpoint (None when off).
    pub(super) fn cmt_state(&self) -> Result<Option<Vec<u8>>> {
        match &self.cmt {
            None => Ok(None),
            Some(c) => crate::checkpoint::encode(&(c.as_ref(), self.t_sealed)).map(Some),
        }
    }

    /// Restores [`Ftl::cmt_state`]'s bytes.
    pub(super) fn load_cmt_state(&mut self, b: &[u8]) -> std::result::Result<(), String> {
        let p = self
            .cmt
            .as_ref()
            .map(|c| c.params())
            .ok_or("no mapping cache")?;
        let (c, t_sealed): (Cmt, u32) = crate::checkpoint::decode(b).map_err(|e| e.to_string())?;
        if !c.consistent(&p) {
            return Err("mapping cache state does not match its parameters".into());
        }
        if t_sealed > self.p.segments {
            return Err("sealed translation segments beyond the device".into());
        }
        self.cmt = Some(Box::new(c));
        self.t_sealed = t_sealed;
        Ok(())
    }
}
