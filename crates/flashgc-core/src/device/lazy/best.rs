//! Finding the best waiting host operation fast: per resource its cached best, a memo of the
//! last decision's host part kept exact across later steps, and a heap of the resources by
//! a lower bound of their best for when the memo no longer holds (docs/controller.md).

use super::{CellQueue, Choice, Lazy, Pend};
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

/// A waiting host operation's order (start, rank, issue order) packed into one integer:
/// start in the high 64 bits, rank in the next 8, issue order in the low [`SEQ_BITS`].
/// Comparing two keys is one integer compare with exactly the order of the tuple, since
/// every field fits its bits: an issue order stays below 2^56 (one per host operation
/// queued: centuries of simulated time at any realistic rate, and a checkpoint's is checked
/// on restore).
pub(super) type Key = u128;

/// No key: no waiting operation (a resource without an entry in the heap). Above every real
/// key (a real key would need rank 255 and the largest start and issue order).
pub(super) const NO_KEY: Key = u128::MAX;

/// Bits of a key holding the issue order.
pub(super) const SEQ_BITS: u32 = 56;

/// The largest issue order a key can hold.
pub(super) const MAX_SEQ: u64 = (1 << SEQ_BITS) - 1;

/// The key of an operation starting at `at` of rank `rank` issued `seq`-th.
#[inline(always)]
pub(super) fn key(at: u64, rank: u8, seq: u64) -> Key {
    debug_assert!(seq <= MAX_SEQ, "issue order beyond a key's bits");
    ((at as u128) << 64) | ((rank as u128) << SEQ_BITS) | seq as u128
}

/// The start time of key `k`.
#[inline(always)]
pub(super) fn key_at(k: Key) -> u64 {
    (k >> 64) as u64
}

/// The rank of key `k`.
#[inline(always)]
pub(super) fn key_rank(k: Key) -> u8 {
    (k >> SEQ_BITS) as u8
}

/// (start, rank) of key `k` as one integer ordered as the pair (start above, rank below).
#[inline(always)]
pub(super) fn key_at_rank(k: Key) -> u128 {
    k >> SEQ_BITS
}

/// (start, rank) as [`key_at_rank`] gives it.
#[inline(always)]
pub(super) fn at_rank(at: u64, rank: u8) -> u128 {
    ((at as u128) << 8) | rank as u128
}

/// A resource's best waiting host operation, valid while the resource's free time and
/// suspend point are the ones it was computed for and its queue is unchanged (a GC commit
/// touches one or two resources; the others keep their answer).
#[derive(Debug, Clone, Copy)]
pub(super) struct CellBest {
    /// Its key (start, rank, issue order).
    pub(super) key: Key,
    pub(super) free: u64,
    pub(super) susp: Option<u64>,
    /// Its class queue (programs: true) and index there.
    pub(super) idx: u32,
    pub(super) write: bool,
    /// As a resource's cached best: still to be used (false: to be computed again).
    pub(super) valid: bool,
}

impl CellBest {
    /// A cache entry to be computed again.
    pub(super) const STALE: CellBest = CellBest {
        key: NO_KEY,
        free: 0,
        susp: None,
        idx: 0,
        write: false,
        valid: false,
    };

    /// This cache entry when it holds for a resource free at `free` with suspend point
    /// `susp` (read in place: the entry is copied out only when it holds).
    #[inline(always)]
    pub(super) fn holds(&self, free: u64, susp: Option<u64>) -> Option<CellBest> {
        (self.valid && self.free == free && self.susp == susp).then_some(*self)
    }

    /// Committing this operation of resource `cell`.
    #[inline(always)]
    pub(super) fn choice(&self, cell: u32) -> Choice {
        Choice::Host {
            cell,
            write: self.write,
            idx: self.idx,
            at: key_at(self.key),
        }
    }
}

/// The best waiting host operation's key found by a decision's scan, its resource, and the
/// best key of the other resources. GC commits only delay host operations, so after one the
/// best of the other resources stays a lower bound of theirs and only the best's own
/// resource needs a new look. Small and without `Option`s (`NO_KEY` stands for none): it is
/// read on every decision.
#[derive(Debug, Clone, Copy)]
pub(super) struct HostBound {
    /// The best key (`NO_KEY`: nothing waits).
    pub(super) best: Key,
    /// The best key of every other resource (`NO_KEY`: none).
    pub(super) second: Key,
    /// The free time of `cell` that `best` was computed for.
    pub(super) free: u64,
    pub(super) cell: u32,
    /// `best` is still `cell`'s own best, to re-read when its free time moves (else a
    /// lower bound, or none).
    pub(super) exact: bool,
}

impl Default for HostBound {
    fn default() -> HostBound {
        HostBound {
            best: NO_KEY,
            second: NO_KEY,
            free: 0,
            cell: 0,
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
    pub(super) idx: u32,
    pub(super) write: bool,
    /// The best's resource queue is unchanged since.
    pub(super) fresh: bool,
}

impl Memo {
    /// Committing the memo's best (its key is not `NO_KEY`).
    #[inline(always)]
    pub(super) fn choice(&self) -> Choice {
        Choice::Host {
            cell: self.bound.cell,
            write: self.write,
            idx: self.idx,
            at: key_at(self.bound.best),
        }
    }
}

/// The best waiting operation of one class queue (`write`: programs) of a resource free at
/// `free` with suspend point `susp`, of rank `rank`: its key (`NO_KEY`: none) and index.
#[inline(always)]
fn class_best(cq: &CellQueue, write: bool, rank: u8, free: u64, susp: Option<u64>) -> (Key, u32) {
    let k = write as usize;
    match cq.q[k].front() {
        None => (NO_KEY, 0),
        // In nondecreasing ready order: the front is the best.
        Some(p) if cq.sorted[k] => (key(start_at(write, p.ready, free, susp), rank, p.seq), 0),
        Some(_) => class_scan(&cq.q[k], write, rank, free, susp),
    }
}

/// [`class_best`] by a scan of the queue `q` (out of line: only unsorted queues, as a
/// mapping cache's translation reads make them). A queue holds its operations in issue
/// order, and an operation's start is `max(ready, e)` for one `e` per resource and class
/// ([`start_at`]): so the first operation ready by `e` is the best, and the scan stops
/// there. Only a queue where nothing is ready by then is read in full (its best is the
/// earliest ready, the first of those). Without the stop, an overloaded device draining a
/// long queue at the end of a run scanned it whole on every decision (quadratic).
#[inline(never)]
pub(super) fn class_scan(
    q: &crate::device::fifo::Fifo<Pend>,
    write: bool,
    rank: u8,
    free: u64,
    susp: Option<u64>,
) -> (Key, u32) {
    let e = start_at(write, 0, free, susp);
    let mut best = (NO_KEY, 0);
    for (idx, p) in q.iter().enumerate() {
        let k = key(start_at(write, p.ready, free, susp), rank, p.seq);
        if p.ready <= e {
            debug_assert!(k < best.0);
            return (k, idx as u32);
        }
        if k < best.0 {
            best = (k, idx as u32);
        }
    }
    best
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
        self.gc_floor.set(super::GcFloor::NONE);
    }
}

impl<M: Media> Scheduled<M> {
    /// The best waiting host operation of `cell` (from its cache when still valid).
    #[inline]
    pub(super) fn cell_best(media: &M, lz: &mut Lazy, cell: usize) -> Option<CellBest> {
        let free = media.cell_free(cell);
        let susp = media.suspend_from(cell);
        Self::cell_best_at(lz, cell, free, susp)
    }

    /// [`Self::cell_best`] for the resource's current free time `free` and suspend point
    /// `susp` (when the caller has read them already). Inlined: on every decision whose
    /// memo went stale, and its result is then not copied through memory.
    #[inline(always)]
    pub(super) fn cell_best_at(
        lz: &mut Lazy,
        cell: usize,
        free: u64,
        susp: Option<u64>,
    ) -> Option<CellBest> {
        if let Some(b) = lz.best[cell].holds(free, susp) {
            return Some(b);
        }
        let best = Self::compute_best(lz, cell, free, susp);
        if let Some(b) = best {
            lz.best[cell] = b;
        }
        best
    }

    /// Resource `cell`'s best waiting host operation computed from its queues (None:
    /// nothing waits), without the cache.
    #[inline(always)]
    fn compute_best(lz: &Lazy, cell: usize, free: u64, susp: Option<u64>) -> Option<CellBest> {
        let cq = &lz.pending[cell];
        let (r, r_idx) = class_best(cq, false, lz.rank(Class::RHost), free, susp);
        let (w, w_idx) = class_best(cq, true, lz.rank(Class::WHost), free, susp);
        // Reads first: a program is the best only when strictly better.
        let (best, at) = if w < r {
            (w, (true, w_idx))
        } else {
            (r, (false, r_idx))
        };
        (best != NO_KEY).then_some(CellBest {
            key: best,
            free,
            susp,
            idx: at.1,
            write: at.0,
            valid: true,
        })
    }

    /// [`Self::cell_best`] for a plain scan: from the cache when valid, else computed
    /// (without filling the cache, so that checking a decision changes nothing).
    #[inline]
    fn cell_best_ro(media: &M, lz: &Lazy, cell: usize) -> Option<CellBest> {
        let free = media.cell_free(cell);
        let susp = media.suspend_from(cell);
        lz.best[cell]
            .holds(free, susp)
            .or_else(|| Self::compute_best(lz, cell, free, susp))
    }

    /// The waiting host operations' best key (`NO_KEY`: none) and what committing it means
    /// (`Choice::Gc` when none); their bound is left in `lz.memo`. From the memo of the
    /// last decision while its best's resource is unchanged or its new best still beats the
    /// runner-up, else from the heap (which refills the memo).
    #[inline]
    pub(super) fn host_best(media: &M, lz: &mut Lazy) -> (Key, Choice) {
        if let Some(m) = lz.memo.as_ref() {
            let b = m.bound.best;
            if b == NO_KEY {
                return (NO_KEY, Choice::Gc);
            }
            let cell = m.bound.cell as usize;
            let free = media.cell_free(cell);
            let susp = media.suspend_from(cell);
            if m.fresh && free == m.bound.free && susp == m.susp {
                return (b, m.choice());
            }
            let second = m.bound.second;
            match Self::cell_best_at(lz, cell, free, susp) {
                // (`NO_KEY` as the runner-up: no other resource has waiting operations.)
                Some(c) if c.key <= second => {
                    let m = lz.memo.as_mut().expect("memo");
                    m.bound.best = c.key;
                    m.bound.free = c.free;
                    m.susp = c.susp;
                    m.write = c.write;
                    m.idx = c.idx;
                    m.fresh = true;
                    return (c.key, c.choice(cell as u32));
                }
                None if second == NO_KEY => {
                    // Its resource is empty and no other had waiting operations.
                    let m = lz.memo.as_mut().expect("memo");
                    m.bound.best = NO_KEY;
                    return (NO_KEY, Choice::Gc);
                }
                _ => {}
            }
        }
        let (bound, best) = Self::host_heap(media, lz);
        lz.memo = Some(Memo {
            bound,
            susp: best.and_then(|b| b.susp),
            idx: best.map_or(0, |b| b.idx),
            write: best.is_some_and(|b| b.write),
            fresh: true,
        });
        match best {
            Some(b) => (b.key, b.choice(bound.cell)),
            None => (NO_KEY, Choice::Gc),
        }
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
                Some(b) if b.key == key => break b,
                Some(b) => {
                    // Its best moved later: the entry is replaced in place (one sift-down
                    // instead of a pop and a push; `second` below does not depend on the
                    // heap's layout, only on its entries).
                    lz.hkey[cell] = b.key;
                    if let Some(mut top) = lz.heap.peek_mut() {
                        *top = Reverse((b.key, c));
                    }
                }
            }
        };
        // Below the top, the smaller of its two children is the least of every other entry
        // (left-over entries included, which only makes the bound lower).
        let h = lz.heap.as_slice();
        bound.cell = h[0].0 .1;
        bound.second = h[1..h.len().min(3)]
            .iter()
            .map(|e| e.0 .0)
            .min()
            .unwrap_or(NO_KEY);
        bound.best = b.key;
        bound.free = b.free;
        (bound, Some(b))
    }

    /// The waiting host operations' best and bound from a scan of every resource with
    /// waiting operations.
    pub(super) fn host_scan(media: &M, lz: &Lazy) -> (HostBound, Option<CellBest>) {
        let mut best: Option<CellBest> = None;
        let mut bound = HostBound::default();
        for &cell in &lz.active {
            if let Some(b) = Self::cell_best_ro(media, lz, cell) {
                match best {
                    Some(x) if x.key < b.key => bound.second = bound.second.min(b.key),
                    _ => {
                        if let Some(x) = best {
                            bound.second = x.key;
                        }
                        best = Some(b);
                        bound.cell = cell as u32;
                    }
                }
            }
        }
        if let Some(b) = best {
            bound.best = b.key;
            bound.free = b.free;
        }
        (bound, best)
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
                lz.lower(cell, b.key);
            }
        }
    }
}
