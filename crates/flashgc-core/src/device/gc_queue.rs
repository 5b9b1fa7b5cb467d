//! The GC queue of the [`Scheduled`] device models: GC and background operations waiting
//! to be committed, first in first out, and the loops that commit them.
//!
//! A victim's page moves are queued as a controller issues them: the reads of all its moves
//! first, then the write-backs in the same order (held back in `moves` until the victim's
//! erase, a host program or the end of the batch closes the victim), then the erase. A
//! write-back is ready when the read at the front of `read_ends` has delivered its data.
//! Both scheduling modes share this queue: first come first served pumps it into idle gaps
//! or drains it for blocking GC, deferred commit (`device::lazy`) lets its front compete
//! with the waiting host operations. The code lives apart from `sched.rs` to keep files
//! short; the checkpoint still stores the queue as a list of [`Entry`] (`SchedState`).

use super::policy::Class;
use super::sched::{Media, Scheduled};
use super::ReadGroup;
use crate::ops::{FlashOp, Origin};
use crate::types::{Ppn, SegmentId};

/// A queued GC or background operation.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(super) enum Queued {
    MoveRead { src: Ppn, dst: Ppn },
    MoveWrite { src: Ppn, dst: Ppn },
    Read { ppn: Ppn, origin: Origin },
    Program { ppn: Ppn, origin: Origin },
    Erase { seg: SegmentId },
}

impl Queued {
    /// Its class under a priority scheduler.
    #[inline(always)]
    pub(super) fn class(self) -> Class {
        match self {
            Queued::MoveRead { .. } | Queued::Read { .. } => Class::RGc,
            Queued::MoveWrite { .. } | Queued::Program { .. } => Class::WGc,
            Queued::Erase { .. } => Class::Erase,
        }
    }
}

/// A queued operation and when it was issued (it is ready then at the earliest).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(super) struct Entry {
    pub(super) op: Queued,
    pub(super) issued: u64,
}

/// A segment's queued GC writes (`Scheduled::gc_wrote`).
#[derive(Debug, Clone, Copy)]
pub(super) struct GcWrote {
    /// The unit of the latest GC write queued into the segment (`Ppn::MAX`: none).
    pub(super) last: Ppn,
    /// The highest unit GC wrote into the segment since its count was last zero: the
    /// latest is not enough, since a segment GC filled can be picked, erased and written
    /// again while its first writes still wait in the queue.
    pub(super) high: Ppn,
    /// Its GC writes queued and not committed yet.
    pub(super) queued: u32,
}

impl GcWrote {
    /// No GC write queued.
    pub(super) const NONE: GcWrote = GcWrote {
        last: Ppn::MAX,
        high: 0,
        queued: 0,
    };
}

/// What host and translation operations waited for in the GC queue, for the report
/// (`FlashReport::gc_move_reads`, `gc_page_waits`, `gc_page_wait_ops`).
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct GcWaits {
    /// Host and translation reads that waited for their page's GC write-back
    /// ([`Scheduled::pump_until_moved`]) or read its old copy (deferred commit,
    /// `read_old_copy`).
    pub(super) move_reads: u64,
    /// Host and translation programs of a flash page's later unit that waited for GC's
    /// queued write of its earlier unit ([`Scheduled::pump_until_placed`]).
    pub(super) page_waits: u64,
    /// The GC operations those waits committed, each wait's own write included: the queue
    /// is one FIFO, so all that was queued before that write went first.
    pub(super) page_wait_ops: u64,
}

impl<M: Media> Scheduled<M> {
    /// Appends the held write-backs (`moves`) to the queue: the victim they belong to is
    /// closed.
    pub(super) fn flush_moves(&mut self) {
        if !self.moves.is_empty() {
            self.queue.extend(self.moves.drain(..));
        }
    }

    /// Queues one GC or background operation issued at `t`.
    pub(super) fn push(&mut self, op: FlashOp, t: u64) {
        let e = |op| Entry { op, issued: t };
        match op {
            FlashOp::Erase { seg, .. } => {
                self.gc_touches(seg, true);
                self.flush_moves();
                self.media.set_erase_pending(seg, true);
                self.queue.push_back(e(Queued::Erase { seg }));
            }
            FlashOp::Copyback { src, dst, .. } => {
                self.gc_reads(src);
                self.gc_writes(dst);
                self.queue.push_back(e(Queued::MoveRead { src, dst }));
                let w = e(Queued::MoveWrite { src, dst });
                if self.media.copyback_enabled() {
                    self.queue.push_back(w);
                } else {
                    self.moves.push(w);
                }
            }
            FlashOp::Read { ppn, origin } => {
                self.gc_reads(ppn);
                self.queue.push_back(e(Queued::Read { ppn, origin }))
            }
            FlashOp::Program { ppn, origin } => {
                self.gc_writes(ppn);
                self.moves.push(e(Queued::Program { ppn, origin }))
            }
            FlashOp::Compute { .. } => {}
        }
    }

    /// Commits the GC queue up to and including the queued erase(s) of segment `seg`
    /// (a program needs that block): first in first out, as one-by-one pumping would.
    pub(super) fn pump_until_erased(&mut self, seg: SegmentId) {
        #[cfg(test)]
        crate::device::audit::forcing(true);
        while self.media.erase_pending(seg) {
            // With copyback a read-write pair is one step: count steps one by one there.
            let n = match self.media.copyback_enabled() {
                true => 1,
                false => self.queued_through_erase(seg),
            };
            self.pump_queue(None, n);
        }
        #[cfg(test)]
        crate::device::audit::forcing(false);
    }

    /// A program of `ppn` (a host or translation write, reserved or queued when issued) is
    /// about to be placed while the unit just before it in its flash page, written by GC, is
    /// still queued: commits the GC queue through that write, first in first out, so that
    /// a flash page's units reach its register in the FTL's order (the last one starts the
    /// cell program) and, under dynamic allocation, the page is placed once, with its first
    /// unit. Held write-backs (`moves`) must have been flushed.
    #[inline(always)]
    pub(super) fn pump_until_placed(&mut self, ppn: Ppn) {
        // Only the emptiness test is inlined (into first come first served's `schedule`).
        if !self.queue.is_empty() {
            self.pump_placed(ppn);
        }
    }

    /// The out-of-line part of [`Self::pump_until_placed`].
    #[inline(never)]
    fn pump_placed(&mut self, ppn: Ppn) {
        // The FTL writes a flash page's units in order, so only the unit just before can
        // still be queued: an earlier one was committed when that unit was written (here, or
        // with the queue in order when GC wrote it too).
        if ppn == 0 || !self.media.same_flash_page(ppn - 1, ppn) {
            return;
        }
        let seg = self.media.segment_of(ppn) as usize;
        if self.gc_wrote.get(seg).map(|w| w.last) != Some(ppn - 1) {
            return;
        }
        // Usually queued last or nearly: search from the back.
        let Some(i) = self.queue.iter().rposition(|e| match e.op {
            Queued::MoveWrite { dst: p, .. } | Queued::Program { ppn: p, .. } => p == ppn - 1,
            _ => false,
        }) else {
            return;
        };
        self.waits.page_waits += 1;
        self.waits.page_wait_ops += i as u64 + 1;
        self.pump_through(i);
    }

    /// Commits the GC queue through entry `i`, first in first out (with copyback a
    /// read-write pair is one step): a forced commit.
    fn pump_through(&mut self, i: usize) {
        #[cfg(test)]
        crate::device::audit::forcing(true);
        let rest = self.queue.len() - (i + 1);
        while self.queue.len() > rest {
            self.pump_queue(None, 1);
        }
        #[cfg(test)]
        crate::device::audit::forcing(false);
    }

    /// Whether a GC write of `ppn` may still be queued or held (the per-segment record,
    /// [`Self::note_gc_write`]): a segment's pages are written in order, so a page above
    /// every GC write queued since the segment's count was last zero is not one of them.
    /// (Not the latest write's: the queue may hold the writes of two of the segment's
    /// generations, the second starting over at its first page.)
    #[inline]
    pub(in crate::device) fn gc_write_maybe_queued(&self, ppn: Ppn) -> bool {
        self.gc_wrote
            .get(self.media.segment_of(ppn) as usize)
            .is_some_and(|w| w.queued > 0 && ppn <= w.high)
    }

    /// A GC write of `ppn` is being queued: remembered as its segment's latest, and
    /// counted until committed ([`Self::pump_until_placed`] and [`Self::pump_until_moved`]
    /// look there before searching the queue).
    #[inline(always)]
    pub(super) fn note_gc_write(&mut self, ppn: Ppn) {
        let s = self.media.segment_of(ppn) as usize;
        // Sized for every segment when built: no resize on this path.
        if let Some(w) = self.gc_wrote.get_mut(s) {
            w.last = ppn;
            w.high = match w.queued {
                0 => ppn,
                _ => w.high.max(ppn),
            };
            w.queued += 1;
        }
    }

    /// A queued GC write of `ppn` was committed: no longer counted.
    #[inline(always)]
    fn gc_write_done(&mut self, ppn: Ppn) {
        let s = self.media.segment_of(ppn) as usize;
        if let Some(w) = self.gc_wrote.get_mut(s) {
            w.queued = w.queued.saturating_sub(1);
        }
    }

    /// A host or translation read of `ppn` is issued, reserved at once (first come first
    /// served, or a translation read): when GC has moved that page and its write-back is
    /// still queued, or held with its victim's, commits the GC queue through that
    /// write-back, first in first out (a victim's held write-backs queued first, as a host
    /// program closes a victim) and counts the read; the read, reserved next on the page's
    /// resource, then starts after it (docs/controller.md, "Reads of a page GC is moving").
    #[inline(always)]
    pub(in crate::device) fn pump_until_moved(&mut self, ppn: Ppn) {
        // Only the emptiness tests are inlined.
        if !self.queue.is_empty() || !self.moves.is_empty() {
            self.pump_moved(ppn);
        }
    }

    /// The out-of-line part of [`Self::pump_until_moved`].
    #[inline(never)]
    fn pump_moved(&mut self, ppn: Ppn) {
        if !self.gc_write_maybe_queued(ppn) {
            return;
        }
        if self.moves.iter().any(|e| writes(e, ppn)) {
            self.flush_moves();
        }
        // The latest: the one of the page's generation the FTL mapped the read to.
        let Some(i) = self.queue.iter().rposition(|e| writes(e, ppn)) else {
            return;
        };
        self.pump_through(i);
        self.waits.move_reads += 1;
    }

    /// Rebuilds [`Self::note_gc_write`]'s record from the queued GC writes (after a
    /// restore). A write committed before the checkpoint is not remembered, which changes
    /// nothing: [`Self::pump_until_placed`] would not find it queued.
    pub(super) fn renote_gc_writes(&mut self) {
        self.gc_wrote.fill(GcWrote::NONE);
        let writes: Vec<Ppn> = (self.queue.iter().chain(&self.moves))
            .filter_map(|e| match e.op {
                Queued::MoveWrite { dst: p, .. } | Queued::Program { ppn: p, .. } => Some(p),
                _ => None,
            })
            .collect();
        for p in writes {
            self.note_gc_write(p);
        }
    }

    /// [`Self::pump_until_erased`] for deferred commit, where a host program needing a
    /// block runs most of a victim's write-backs: without copyback through
    /// [`Self::pump_forced`]. (First come first served keeps the plain loop: it is inlined
    /// into its `schedule`, which a bigger body there makes slower.)
    #[inline(always)]
    pub(super) fn pump_until_erased_forced(&mut self, seg: SegmentId) {
        // Most host programs find no erase queued: only that test is inlined.
        if self.media.erase_pending(seg) {
            self.pump_erased_forced(seg);
        }
    }

    /// The out-of-line part of [`Self::pump_until_erased_forced`].
    #[inline(never)]
    fn pump_erased_forced(&mut self, seg: SegmentId) {
        if self.media.copyback_enabled() {
            return self.pump_until_erased(seg);
        }
        #[cfg(test)]
        crate::device::audit::forcing(true);
        while self.media.erase_pending(seg) {
            let n = self.queued_through_erase(seg);
            self.pump_forced(n);
        }
        #[cfg(test)]
        crate::device::audit::forcing(false);
    }

    /// Earliest start of entry `g` as the queue's front: the one place that says what a
    /// queued operation waits for before it can start (a write-back for the read at the
    /// front of `read_ends`, an erase for its victim's reads and write-backs).
    #[inline(always)]
    pub(super) fn probe_entry(&self, g: Entry) -> u64 {
        match g.op {
            Queued::MoveRead { src: ppn, .. } | Queued::Read { ppn, .. } => {
                self.media.probe_read(ppn, g.issued)
            }
            Queued::MoveWrite { dst, .. } => {
                let ready = g.issued.max(self.read_ends.front().copied().unwrap_or(0));
                self.media.probe_program(dst, ready)
            }
            Queued::Program { ppn, .. } => self.media.probe_program(ppn, g.issued),
            Queued::Erase { seg } => self.media.probe_erase(seg, g.issued.max(self.victim_end)),
        }
    }

    /// Whether the probe of the queue's front ([`Self::probe_entry`]) is for the resource it
    /// will run on whatever is placed meanwhile: not a program whose flash page dynamic
    /// allocation has still to place (its probe follows the unit the allocation would
    /// choose now, which other placements move).
    #[inline]
    pub(super) fn front_unit_fixed(&self) -> bool {
        match self.queue.front().map(|g| g.op) {
            Some(Queued::MoveWrite { dst: p, .. } | Queued::Program { ppn: p, .. }) => {
                self.media.program_unit_fixed(p)
            }
            _ => true,
        }
    }

    /// Operations from the queue's front through the first queued erase of `seg` (1 if
    /// none is queued).
    #[inline(always)]
    fn queued_through_erase(&self, seg: SegmentId) -> usize {
        self.queue
            .iter()
            .position(|e| matches!(e.op, Queued::Erase { seg: s } if s == seg))
            .map_or(1, |i| i + 1)
    }

    /// [`Self::pump_queue`]`(None, n)` without copyback (checked by the caller): nothing is
    /// probed or paired, so each operation is popped and reserved in one step. This is the
    /// loop a host program needing a block runs through most of a victim's write-backs, so
    /// it avoids `pump_front`'s front-then-pop and its per-operation copyback test; every
    /// reservation and its order are the same.
    fn pump_forced(&mut self, n: usize) {
        debug_assert!(!self.media.copyback_enabled());
        for _ in 0..n {
            let Some(g) = self.queue.pop_front() else {
                break;
            };
            self.commit_entry(g);
        }
    }

    /// Reserves entry `g`, just taken off the queue's front, without probing and without
    /// copyback pairing: the one place that says how each queued operation is reserved
    /// (what it waits for, what it leaves for the erase). Returns its end.
    #[inline(always)]
    fn commit_entry(&mut self, g: Entry) -> u64 {
        match g.op {
            Queued::MoveRead { src, dst } => {
                let rg = &mut self.gc_rg;
                let e = self.media.move_read(src, dst, g.issued, g.issued, rg);
                self.read_ends.push_back(e);
                self.victim_end = self.victim_end.max(e);
                e
            }
            Queued::MoveWrite { src, dst } => {
                let ready = g.issued.max(self.read_ends.pop_front().unwrap_or(0));
                let e = self.media.move_write(src, dst, ready, g.issued);
                self.gc_write_done(dst);
                if M::ERASE_AFTER_WRITES {
                    self.victim_end = self.victim_end.max(e);
                }
                e
            }
            Queued::Read { ppn, origin } => {
                let e = self.media.read(ppn, g.issued, origin, &mut self.gc_rg);
                self.victim_end = self.victim_end.max(e);
                e
            }
            Queued::Program { ppn, origin } => {
                let e = self.media.program(ppn, g.issued, origin);
                self.gc_write_done(ppn);
                if M::ERASE_AFTER_WRITES {
                    self.victim_end = self.victim_end.max(e);
                }
                e
            }
            Queued::Erase { seg } => {
                let ready = g.issued.max(self.victim_end);
                self.media.set_erase_pending(seg, false);
                let e = self.media.erase(seg, ready, g.issued);
                self.victim_end = 0;
                self.gc_rg = ReadGroup::default();
                e
            }
        }
    }

    /// Queues the write-backs and GC programs of `ops` (write-backs only without copyback,
    /// which queues them with their reads), after the held ones: what [`Self::push`] of
    /// each then [`Self::flush_moves`] would leave, for a batch whose reads are queued and
    /// that nothing between closes (see `schedule_lazy`), without the round trip through
    /// `moves`.
    pub(super) fn queue_write_backs(&mut self, ops: &[FlashOp], t: u64) {
        self.flush_moves();
        let cb = self.media.copyback_enabled();
        for &op in ops {
            let op = match op {
                FlashOp::Copyback { src, dst, .. } if !cb => Queued::MoveWrite { src, dst },
                FlashOp::Program { ppn, origin }
                    if matches!(origin, Origin::Gc | Origin::Background) =>
                {
                    Queued::Program { ppn, origin }
                }
                _ => continue,
            };
            if let Queued::MoveWrite { dst: ppn, .. } | Queued::Program { ppn, .. } = op {
                self.gc_writes(ppn);
            }
            self.queue.push_back(Entry { op, issued: t });
        }
    }

    /// Commits up to `max_ops` operations from the GC queue's front, first in first out,
    /// stopping at the first that would not start before `limit` (None: no limit, and no
    /// probing). Returns the latest end.
    ///
    /// Kept out of line (as it was compiled before it moved here): inlined into its callers
    /// it made them slower.
    #[inline(never)]
    pub(super) fn pump_queue(&mut self, limit: Option<u64>, max_ops: usize) -> u64 {
        let mut last = 0;
        for _ in 0..max_ops {
            match self.pump_front(|_| limit) {
                Some(e) => last = last.max(e),
                None => break,
            }
        }
        last
    }

    /// Commits the GC queue's front operation if it would start before `limit` of its
    /// class (None: unlimited, not probed); returns its end (None: nothing committed).
    #[inline(always)]
    pub(super) fn pump_front(&mut self, limit: impl Fn(Class) -> Option<u64>) -> Option<u64> {
        let g = *self.queue.front()?;
        // Probing costs a location lookup: only with a limit.
        Some(match g.op {
            Queued::MoveRead { src, dst } => {
                let ready = g.issued;
                let lim = limit(Class::RGc);
                let pair = self.media.copyback_enabled()
                    && matches!(self.queue.get(1), Some(Entry { op: Queued::MoveWrite { src: s, dst: d }, .. })
                        if *s == src && *d == dst && self.media.copyback_possible(src, dst));
                let e = if pair {
                    if lim.is_some_and(|t| self.media.probe_read(src, ready) >= t) {
                        return None;
                    }
                    self.queue.pop_front();
                    self.gc_write_done(dst);
                    self.media.copyback(src, dst, ready)
                } else {
                    let Some(t) = lim else {
                        self.queue.pop_front();
                        return Some(self.commit_entry(g));
                    };
                    let rg = &mut self.gc_rg;
                    let e = self
                        .media
                        .move_read_before(src, dst, ready, g.issued, rg, t)?;
                    self.read_ends.push_back(e);
                    e
                };
                self.queue.pop_front();
                self.victim_end = self.victim_end.max(e);
                e
            }
            Queued::MoveWrite { src, dst } => {
                let ready = g.issued.max(self.read_ends.front().copied().unwrap_or(0));
                let Some(t) = limit(Class::WGc) else {
                    self.queue.pop_front();
                    return Some(self.commit_entry(g));
                };
                let e = self.media.move_write_before(src, dst, ready, g.issued, t)?;
                self.queue.pop_front();
                self.gc_write_done(dst);
                self.read_ends.pop_front();
                if M::ERASE_AFTER_WRITES {
                    self.victim_end = self.victim_end.max(e);
                }
                e
            }
            Queued::Read { .. } | Queued::Program { .. } | Queued::Erase { .. } => {
                if limit(g.op.class()).is_some_and(|t| self.probe_entry(g) >= t) {
                    return None;
                }
                self.queue.pop_front();
                self.commit_entry(g)
            }
        })
    }
}

/// Whether queued entry `e` writes page `ppn` (a move's write-back or a GC program).
#[inline]
fn writes(e: &Entry, ppn: Ppn) -> bool {
    match e.op {
        Queued::MoveWrite { dst: p, .. } | Queued::Program { ppn: p, .. } => p == ppn,
        _ => false,
    }
}
