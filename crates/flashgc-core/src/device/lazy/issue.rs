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
                    self.lazy_push(ppn, false, *host_ready);
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
