//! Issuing an FTL call's operations under deferred commit: host reads and programs go to
//! their resources' queues, GC work to the GC queue (docs/controller.md).

use crate::device::sched::{Media, Scheduled};
use crate::ops::Origin;
use crate::types::Ppn;

impl<M: Media> Scheduled<M> {
    /// [`crate::device::DeviceModel::schedule`] in deferred mode: host reads and programs
    /// wait in their resources' queues, GC work in the GC queue; a mapping-cache
    /// translation read is reserved now (the host operation waits for it) and a dirty
    /// translation write-back too (nobody waits for it). Returns `t`: ends come later.
    ///
    /// The GC queue ends up as [`Self::push`] of each GC operation would leave it, but a
    /// victim's write-backs are queued straight behind its reads once something closes it
    /// (its erase, a host or translation program, the end of the batch) instead of going
    /// through `moves` one by one: nothing else here reads the GC queue or `moves` in
    /// between (host reads touch neither; a translation read looks there for its page's GC
    /// write-back, and queues the batch's write-backs first when they hold it), so the
    /// order is the same.
    pub(in crate::device) fn schedule_lazy(
        &mut self,
        ops: &[crate::ops::FlashOp],
        t: u64,
        host_ready: &mut u64,
    ) -> u64 {
        use crate::device::gc_queue::{Entry, Queued};
        use crate::ops::FlashOp;
        let cb = self.media.copyback_enabled();
        // `ops[open..]` may hold write-backs or GC programs not queued yet (`writes`).
        let (mut open, mut writes) = (0, false);
        for (i, &op) in ops.iter().enumerate() {
            let closes = match op {
                FlashOp::Read {
                    ppn,
                    origin: Origin::Host,
                } => {
                    // A page whose GC write-back is still queued is read where its data
                    // is: the old copy, before the victim's erase (`read_old_copy`).
                    let batch = if writes { &ops[open..i] } else { &[][..] };
                    match self.old_copy(ppn, batch, cb) {
                        Some(src) => self.read_old_copy(src, *host_ready),
                        None => self.lazy_push(ppn, false, *host_ready),
                    }
                    false
                }
                FlashOp::Read {
                    ppn,
                    origin: Origin::Translation,
                } => {
                    // A translation page this batch's GC moved: its write-back is queued
                    // first, so that the read can wait for it (`pump_until_moved`).
                    if writes && writes_back(&ops[open..i], ppn, cb) {
                        self.queue_write_backs(&ops[open..i], t);
                        writes = false;
                        open = i;
                    }
                    self.translation_read(ppn, host_ready);
                    false
                }
                FlashOp::Copyback { src, dst, .. } => {
                    self.gc_reads(src);
                    if cb {
                        self.gc_writes(dst);
                    }
                    let e = |op| Entry { op, issued: t };
                    self.queue.push_back(e(Queued::MoveRead { src, dst }));
                    if cb {
                        // Copyback pairs stay together in the queue.
                        self.queue.push_back(e(Queued::MoveWrite { src, dst }));
                    } else {
                        writes = true;
                    }
                    false
                }
                FlashOp::Program {
                    origin: Origin::Gc | Origin::Background,
                    ..
                } => {
                    writes = true;
                    false
                }
                FlashOp::Program { .. } | FlashOp::Erase { .. } => true,
                _ => {
                    self.push(op, t);
                    false
                }
            };
            if !closes {
                continue;
            }
            if writes {
                self.queue_write_backs(&ops[open..i], t);
                writes = false;
            }
            open = i + 1;
            match op {
                FlashOp::Program {
                    ppn,
                    origin: Origin::Host,
                } => {
                    self.flush_moves();
                    // The write needs a block whose erase is still queued: force GC on.
                    self.pump_until_erased_forced(self.media.segment_of(ppn));
                    self.pump_until_placed(ppn);
                    self.lazy_push(ppn, true, *host_ready);
                }
                FlashOp::Program { ppn, .. } => self.translation_write(ppn, *host_ready),
                _ => self.push(op, t),
            }
        }
        if writes {
            self.queue_write_backs(&ops[open..], t);
        }
        self.flush_moves();
        t
    }
}

impl<M: Media> Scheduled<M> {
    /// Where a host read of `ppn` finds its data when GC has moved the page and its
    /// write-back is not committed yet (`batch`: the issuing batch's write-backs not queued
    /// yet, `cb`: copyback on): the move's source page, which keeps the data until the
    /// victim's erase, and the erase comes after the write-back in the GC queue. A page moved
    /// twice before either write-back was committed is followed back to the first source,
    /// which may be `ppn` itself in its segment's earlier generation. None: the page holds
    /// its data (or nothing GC wrote).
    #[inline(always)]
    fn old_copy(&self, ppn: Ppn, batch: &[crate::ops::FlashOp], cb: bool) -> Option<Ppn> {
        // Only the emptiness tests are inlined: most reads find no GC write uncommitted.
        if batch.is_empty() && self.queue.is_empty() && self.moves.is_empty() {
            return None;
        }
        self.find_old_copy(ppn, batch, cb)
    }

    /// The out-of-line part of [`Self::old_copy`]: searches the batch, the held
    /// write-backs, then the queue, each from its back (the latest write of a page is the one
    /// of the generation the FTL mapped the read to), and each earlier copy only before the
    /// move found.
    #[inline(never)]
    fn find_old_copy(&self, ppn: Ppn, batch: &[crate::ops::FlashOp], cb: bool) -> Option<Ppn> {
        use crate::device::gc_queue::Queued;
        use crate::ops::FlashOp;
        // Whether a move was followed: the chain can come back to `ppn` itself (moved out
        // and back again, its segment erased in between), whose earlier copy is then the
        // one that holds the data (the audit's models draw on seed 31, case 416).
        let (mut page, mut followed) = (ppn, false);
        let mut end = batch.len();
        while let Some((k, src)) =
            batch[..end]
                .iter()
                .enumerate()
                .rev()
                .find_map(|(k, op)| match *op {
                    FlashOp::Copyback { src, dst, .. } if !cb && dst == page => Some((k, src)),
                    _ => None,
                })
        {
            (page, end, followed) = (src, k, true);
        }
        let moved = |e: &crate::device::gc_queue::Entry, page: Ppn| match e.op {
            Queued::MoveWrite { src, dst } if dst == page => Some(src),
            _ => None,
        };
        // The held write-backs were issued after the queue's; the per-segment record of
        // uncommitted GC writes rules most pages out at once.
        for entries in [self.moves.as_slice(), self.queue.as_slice()] {
            let mut end = entries.len();
            while self.gc_write_maybe_queued(page) {
                let Some((k, src)) = entries[..end]
                    .iter()
                    .enumerate()
                    .rev()
                    .find_map(|(k, e)| moved(e, page).map(|s| (k, s)))
                else {
                    break;
                };
                (page, end, followed) = (src, k, true);
            }
        }
        followed.then_some(page)
    }

    /// A host read of a page GC has moved, served from the old copy at `src` (see
    /// [`Self::old_copy`]) and reserved when issued, as a translation read is, so that the
    /// victim's erase, still queued, comes after it on that resource: it starts as a decision
    /// would start it now (it may suspend the running operation there) and goes ahead of the
    /// operations still waiting there (docs/controller.md, "Reads of a page GC is moving").
    fn read_old_copy(&mut self, src: Ppn, ready: u64) {
        #[cfg(test)]
        crate::device::audit::forcing(true);
        self.waits.move_reads += 1;
        self.lazy_push(src, false, ready);
        let (cell, _) = self.media.host_locate(src);
        let lz = self.lazy.as_ref().expect("deferred mode");
        let idx = lz.pending[cell].q[0].len() - 1;
        let slot = lz.cur;
        let at = super::best::start_at(
            false,
            ready,
            self.media.cell_free(cell),
            self.media.suspend_from(cell),
        );
        self.commit(super::Choice::Host {
            cell: cell as u32,
            idx: idx as u32,
            write: false,
            at,
        });
        // The request is being issued: the driver reads its end once all its operations
        // are, not from the ends pushed for requests in flight.
        let lz = self.lazy.as_mut().expect("deferred mode");
        if lz.ends.last().is_some_and(|&(s, _)| s == slot) {
            lz.ends.pop();
        }
        #[cfg(test)]
        crate::device::audit::forcing(false);
    }
}

/// Whether `ops` (a batch's operations not queued yet) write `ppn` back for GC: a page
/// move's write-back (without copyback, `cb`) or a GC or background program.
fn writes_back(ops: &[crate::ops::FlashOp], ppn: Ppn, cb: bool) -> bool {
    use crate::ops::FlashOp;
    ops.iter().any(|&op| match op {
        FlashOp::Copyback { dst, .. } => !cb && dst == ppn,
        FlashOp::Program {
            ppn: p,
            origin: Origin::Gc | Origin::Background,
        } => p == ppn,
        _ => false,
    })
}
