//! Finding the best waiting host operation fast: per resource its cached best, a memo of the
//! last decision's host part kept exact across later steps, and a heap of the resources by
//! a lower bound of their best for when the memo no longer holds (docs/controller.md).

use super::{Choice, Lazy, Pend};
use crate::device::policy::Class;
use crate::device::sched::{Media, Scheduled};
use std::cmp::Reverse;

/// When a waiting host operation (a program, or a read) ready at `ready` could start on a
/// resource free at `free` whose running operation a read may suspend from `susp`.
#[inline(always)]
pub(super) fn start_at(write: bool, ready: u64, free: u64, susp: Option<u64>) -> u64 {
    if write || ready >= free {
        ready.max(free)
    } else {
        match susp {
            Some(from) if ready.max(from) < free => ready.max(from),
            _ => free,
        }
    }
}

/// A waiting host operation's order: (start, rank, issue order).
pub(super) type Key = (u64, u8, u64);

/// No key (a resource without an entry in the heap).
pub(super) const NO_KEY: Key = (u64::MAX, u8::MAX, u64::MAX);

/// A resource's best waiting host operation, valid while the resource's free time and
/// suspend point are the ones it was computed for and its queue is unchanged (a GC commit
/// touches one or two resources; the others keep their answer).
#[derive(Debug, Clone, Copy)]
pub(super) struct CellBest {
    pub(super) free: u64,
    pub(super) susp: Option<u64>,
    pub(super) at: u64,
    pub(super) rank: u8,
    pub(super) seq: u64,
    pub(super) write: bool,
    pub(super) idx: usize,
}

impl CellBest {
    /// Committing this operation of resource `cell`.
    #[inline(always)]
    pub(super) fn choice(&self, cell: usize) -> Choice {
        Choice::Host {
            cell,
            write: self.write,
            idx: self.idx,
            at: self.at,
        }
    }
}

/// The best waiting host operation's (start, rank, issue order) found by a decision's scan,
/// its resource, and the best of the other resources. GC commits only delay host
/// operations, so after one the best of the other resources stays a lower bound of theirs
/// and only the best's own resource needs a new look.
#[derive(Debug, Clone, Copy)]
pub(super) struct HostBound {
    pub(super) best: Option<(u64, u8, u64)>,
    pub(super) cell: usize,
    /// The free time of `cell` that `best` was computed for.
    pub(super) free: u64,
    pub(super) second: Option<(u64, u8, u64)>,
    /// `best` is still exact (else a lower bound).
    pub(super) exact: bool,
}

impl Default for HostBound {
    fn default() -> HostBound {
        HostBound {
            best: None,
            cell: 0,
            free: 0,
            second: None,
            exact: true,
        }
    }
}

/// The host part of the last full decision, kept exact across later steps: a host push
/// updates it in place, and a change on its best's own resource (a commit there, a new free
/// time or suspend point) re-reads only that resource against the runner-up ([`HostBound`]'s
/// argument: every other resource's best only moves later). Only a full scan fills it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Memo {
    pub(super) bound: HostBound,
    /// The suspend point of the best's resource it was computed for.
    pub(super) susp: Option<u64>,
    /// The best's class queue and index there.
    pub(super) write: bool,
    pub(super) idx: usize,
    /// The best's resource queue is unchanged since.
    pub(super) fresh: bool,
}

impl Lazy {
    /// Lowers resource `cell`'s entry in the heap to `key` (when lower).
    #[inline(always)]
    pub(super) fn lower(&mut self, cell: usize, key: Key) {
        if key < self.hkey[cell] {
            self.hkey[cell] = key;
            self.heap.push(Reverse((key, cell as u32)));
        }
    }

    /// Drops the heap (ranks changed, or a restore): refilled by `Scheduled::rebuild_heap`.
    pub(super) fn clear_heap(&mut self) {
        self.heap.clear();
        self.hkey.iter_mut().for_each(|k| *k = NO_KEY);
        self.memo = None;
    }
}

impl<M: Media> Scheduled<M> {
    /// The best waiting host operation of `cell` (from its cache when still valid).
    pub(super) fn cell_best(media: &M, lz: &Lazy, cell: usize) -> Option<CellBest> {
        let free = media.cell_free(cell);
        let susp = media.suspend_from(cell);
        if let Some(b) = lz.best[cell].get() {
            if b.free == free && b.susp == susp {
                return Some(b);
            }
        }
        let mut best: Option<CellBest> = None;
        let (rank_r, rank_w) = (lz.rank(Class::RHost), lz.rank(Class::WHost));
        let cq = &lz.pending[cell];
        let mut consider = |write: bool, idx: usize, p: &Pend| {
            let at = start_at(p.write, p.ready, free, susp);
            let rank = if p.write { rank_w } else { rank_r };
            if best.is_none_or(|b| (at, rank, p.seq) < (b.at, b.rank, b.seq)) {
                best = Some(CellBest {
                    free,
                    susp,
                    at,
                    rank,
                    seq: p.seq,
                    write,
                    idx,
                });
            }
        };
        for write in [false, true] {
            let k = write as usize;
            if cq.sorted[k] {
                // A class in nondecreasing ready order: its front is its best.
                if let Some(p) = cq.q[k].front() {
                    consider(write, 0, p);
                }
            } else {
                for (idx, p) in cq.q[k].iter().enumerate() {
                    consider(write, idx, p);
                }
            }
        }
        lz.best[cell].set(best);
        best
    }

    /// The waiting host operations' best and bound, and what committing the best means:
    /// from the memo of the last decision while its best's resource is unchanged or its new
    /// best still beats the runner-up, else from a scan of every resource with waiting
    /// operations (which refills the memo).
    #[inline]
    pub(super) fn host_best(media: &M, lz: &mut Lazy) -> (HostBound, Option<Choice>) {
        if let Some(m) = lz.memo.as_mut() {
            let Some(b) = m.bound.best else {
                return (m.bound, None);
            };
            let cell = m.bound.cell;
            let free = media.cell_free(cell);
            let susp = media.suspend_from(cell);
            if m.fresh && free == m.bound.free && susp == m.susp {
                let choice = Choice::Host {
                    cell,
                    write: m.write,
                    idx: m.idx,
                    at: b.0,
                };
                return (m.bound, Some(choice));
            }
            let second = m.bound.second;
            match Self::cell_best(media, lz, cell) {
                Some(c) if second.is_none_or(|s| (c.at, c.rank, c.seq) <= s) => {
                    let m = lz.memo.as_mut().expect("memo");
                    m.bound.best = Some((c.at, c.rank, c.seq));
                    m.bound.free = c.free;
                    m.susp = c.susp;
                    m.write = c.write;
                    m.idx = c.idx;
                    m.fresh = true;
                    return (m.bound, Some(c.choice(cell)));
                }
                None if second.is_none() => {
                    // Its resource is empty and no other had waiting operations.
                    let m = lz.memo.as_mut().expect("memo");
                    m.bound.best = None;
                    return (m.bound, None);
                }
                _ => {}
            }
        }
        let (bound, best) = Self::host_heap(media, lz);
        lz.memo = Some(Memo {
            bound,
            susp: best.and_then(|b| b.susp),
            write: best.is_some_and(|b| b.write),
            idx: best.map_or(0, |b| b.idx),
            fresh: true,
        });
        (bound, best.map(|b| b.choice(bound.cell)))
    }

    /// The waiting host operations' best and bound from the heap: its top entry is checked
    /// against its resource's best (and moved down when that is later) until it is exact;
    /// the entries below it bound every other resource.
    pub(super) fn host_heap(media: &M, lz: &mut Lazy) -> (HostBound, Option<CellBest>) {
        let mut bound = HostBound::default();
        let b = loop {
            let Some(&Reverse((key, c))) = lz.heap.peek() else {
                return (bound, None);
            };
            let cell = c as usize;
            if lz.hkey[cell] != key {
                lz.heap.pop();
                continue;
            }
            match Self::cell_best(media, lz, cell) {
                None => {
                    lz.hkey[cell] = NO_KEY;
                    lz.heap.pop();
                }
                Some(b) if (b.at, b.rank, b.seq) == key => break b,
                Some(b) => {
                    lz.heap.pop();
                    lz.hkey[cell] = NO_KEY;
                    lz.lower(cell, (b.at, b.rank, b.seq));
                }
            }
        };
        // Below the top, the smaller of its two children is the least of every other entry
        // (left-over entries included, which only makes the bound lower).
        let h = lz.heap.as_slice();
        let cell = h[0].0 .1 as usize;
        bound.second = h[1..h.len().min(3)].iter().map(|e| e.0 .0).min();
        bound.best = Some((b.at, b.rank, b.seq));
        bound.cell = cell;
        bound.free = b.free;
        (bound, Some(b))
    }

    /// The waiting host operations' best and bound from a scan of every resource with
    /// waiting operations.
    pub(super) fn host_scan(media: &M, lz: &Lazy) -> (HostBound, Option<CellBest>) {
        let mut best: Option<(CellBest, usize)> = None;
        let mut bound = HostBound::default();
        for &cell in &lz.active {
            if let Some(b) = Self::cell_best(media, lz, cell) {
                let key = (b.at, b.rank, b.seq);
                match best {
                    Some((x, _)) if (x.at, x.rank, x.seq) < key => {
                        if bound.second.is_none_or(|s| key < s) {
                            bound.second = Some(key);
                        }
                    }
                    _ => {
                        if let Some((x, _)) = best {
                            bound.second = Some((x.at, x.rank, x.seq));
                        }
                        best = Some((b, cell));
                    }
                }
            }
        }
        if let Some((b, cell)) = best {
            bound.best = Some((b.at, b.rank, b.seq));
            bound.cell = cell;
            bound.free = b.free;
        }
        (bound, best.map(|b| b.0))
    }

    /// Refills the heap of resources from their waiting operations (after the ranks
    /// changed, or a restore).
    pub(in crate::device) fn rebuild_heap(&mut self) {
        let Some(lz) = self.lazy.as_deref_mut() else {
            return;
        };
        lz.clear_heap();
        for i in 0..lz.active.len() {
            let cell = lz.active[i];
            if let Some(b) = Self::cell_best(&self.media, lz, cell) {
                lz.lower(cell, (b.at, b.rank, b.seq));
            }
        }
    }
}
