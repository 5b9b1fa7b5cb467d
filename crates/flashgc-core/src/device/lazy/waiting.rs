//! Host operations still waiting in deferred commit's queues, per segment: GC work issued
//! after them must not reach the flash before them. A victim's page moves and a lone GC
//! read would read pages whose host programs have not run yet, and its erase would erase
//! them, or the pages a waiting host read was issued to read (the FTL has moved them since).
//!
//! The FTL issues a victim's moves only after the host operations that filled and read it;
//! first come first served reserves them in that order. Deferred commit queues host
//! operations and GC work apart, and GC (its queue's front, or a host write's forced pump)
//! could otherwise be reserved ahead of them. So when GC work on a segment is queued, that
//! segment's waiting host programs (and, for its erase, reads) are committed first, in issue
//! order, as first come first served would have reserved them.

use super::{Choice, Lazy};
use crate::device::sched::{Media, Scheduled};
use crate::types::{Ppn, SegmentId};

impl Lazy {
    /// A host read or program of `seg` starts (`+1`) or stops (`-1`) waiting.
    #[inline(always)]
    pub(super) fn count_waiting(&mut self, seg: SegmentId, delta: i32) {
        let s = seg as usize;
        if self.seg_waiting.len() <= s {
            self.seg_waiting.resize(s + 1, 0);
        }
        let n = &mut self.seg_waiting[s];
        *n = n.wrapping_add_signed(delta);
    }
}

impl<M: Media> Scheduled<M> {
    /// A GC read of `ppn` (a page move's, or a lone one) is being queued (see the module's
    /// comment).
    #[inline(always)]
    pub(in crate::device) fn gc_reads(&mut self, ppn: Ppn) {
        if self.lazy.is_some() {
            self.gc_touches(self.media.segment_of(ppn), false);
        }
    }

    /// GC work on segment `seg` is being queued (`erase`: its erase): its waiting host
    /// programs, and before an erase its reads, are committed first. Not the current
    /// request's: its end is pushed once all its operations are queued, and the FTL does
    /// not pick a victim among pages the request being issued has just written or read.
    #[inline(always)]
    pub(in crate::device) fn gc_touches(&mut self, seg: SegmentId, erase: bool) {
        let Some(lz) = self.lazy.as_ref() else {
            return;
        };
        if lz.seg_waiting.get(seg as usize).is_some_and(|&n| n > 0) {
            self.commit_waiting_of(seg, erase);
        }
    }

    /// A GC write of `ppn` is being queued: when the earlier unit of its flash page is a
    /// waiting host program (a stream shared by host and GC writes), that segment's waiting
    /// host programs are committed first, so that the page's units reach its register in
    /// the FTL's order (the last one starts the cell program).
    #[inline(always)]
    pub(in crate::device) fn gc_writes(&mut self, ppn: Ppn) {
        self.note_gc_write(ppn);
        let Some(lz) = self.lazy.as_ref() else {
            return;
        };
        if ppn == 0 || !self.media.same_flash_page(ppn - 1, ppn) {
            return;
        }
        let seg = self.media.segment_of(ppn);
        if lz.seg_waiting.get(seg as usize).is_some_and(|&n| n > 0) {
            let (cell, _) = self.media.host_locate(ppn - 1);
            if lz.pending[cell].q[1].iter().any(|p| p.ppn == ppn - 1) {
                self.commit_waiting_of(seg, false);
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn commit_waiting_of(&mut self, seg: SegmentId, reads: bool) {
        #[cfg(test)]
        crate::device::audit::forcing(true);
        loop {
            let lz = self.lazy.as_ref().expect("deferred mode");
            let mut first: Option<(u64, usize, bool, usize)> = None;
            for &cell in &lz.active {
                let cq = &lz.pending[cell];
                let classes = if reads { &cq.q[..] } else { &cq.q[1..] };
                for q in classes {
                    // A queue is in issue order: its first match is its earliest, so the
                    // search stops there (a full scan per commit made committing a victim's
                    // k waiting programs from a queue of n cost k x n: 200 000 queued writes
                    // took seconds where fcfs takes a tenth).
                    let m = q
                        .iter()
                        .enumerate()
                        .find(|(_, p)| p.slot != lz.cur && self.media.segment_of(p.ppn) == seg);
                    if let Some((idx, p)) = m {
                        if first.is_none_or(|f| p.seq < f.0) {
                            first = Some((p.seq, cell, p.write, idx));
                        }
                    }
                }
            }
            let Some((_, cell, write, idx)) = first else {
                #[cfg(test)]
                crate::device::audit::forcing(false);
                return;
            };
            let p = *lz.pending[cell].q[write as usize]
                .get(idx)
                .expect("found above");
            // Where a decision would start it now (a read may suspend the running operation).
            let at = super::best::start_at(
                write,
                p.ready,
                self.media.cell_free(cell),
                self.media.suspend_from(cell),
            );
            self.commit(Choice::Host {
                cell: cell as u32,
                idx: idx as u32,
                write,
                at,
            });
        }
    }

    /// A read has suspended the erase of `seg`, which now ends later: its waiting host
    /// programs (a wide segment's, on every die) are ready no earlier than that end, as a
    /// controller does not issue a program into a block still being erased (MQSim: a
    /// transaction waiting for an erase is issued once the erase completes). Each resource
    /// whose programs moved has its cached best, its class order and the memo (when it
    /// holds the memo's best) looked at again; its heap entry and the memo's runner-up stay
    /// lower bounds (its best only moved later).
    #[cold]
    #[inline(never)]
    pub(super) fn erase_moved(&mut self, seg: SegmentId) {
        let Some(lz) = self.lazy.as_deref_mut() else {
            return;
        };
        if lz.seg_waiting.get(seg as usize).is_none_or(|&n| n == 0) {
            return;
        }
        let end = self.media.erased_by(seg);
        let super::Lazy {
            active,
            pending,
            best,
            memo,
            ..
        } = lz;
        for &cell in active.iter() {
            let q = &mut pending[cell].q[1];
            let mut moved = false;
            for p in q.iter_mut() {
                if p.ready < end && self.media.segment_of(p.ppn) == seg {
                    p.ready = end;
                    moved = true;
                }
            }
            if !moved {
                continue;
            }
            let s = q.as_slice();
            pending[cell].sorted[1] = s.windows(2).all(|w| w[0].ready <= w[1].ready);
            best[cell].valid = false;
            if let Some(m) = memo.as_mut() {
                if m.bound.cell as usize == cell {
                    m.fresh = false;
                }
            }
        }
    }

    /// Recounts the waiting host operations per segment (after a restore).
    pub(in crate::device) fn recount_waiting(&mut self) {
        let Some(lz) = self.lazy.as_mut() else {
            return;
        };
        lz.seg_waiting.clear();
        let pages: Vec<Ppn> = lz
            .pending
            .iter()
            .flat_map(|q| q.iter().map(|p| p.ppn))
            .collect();
        for ppn in pages {
            let seg = self.media.segment_of(ppn);
            self.lazy
                .as_mut()
                .expect("deferred mode")
                .count_waiting(seg, 1);
        }
    }
}
