//! Deferred commit: the scheduler's mode for a priority policy or program/erase suspend
//! (docs/controller.md).
//!
//! First come first served needs no queue: each operation is reserved on its resources
//! when it is issued. A priority policy needs to know, when a resource becomes free, every
//! operation waiting for it; so host reads and programs wait in per-resource queues (one
//! per die or plane, one per NoC channel) and GC work in the scheduler's FIFO queue, and
//! the driver advances the device in time order ([`Scheduled::step`]): the next decision
//! is the earliest time at which some resource can start a waiting operation, and at that
//! time the resource takes the waiting operation of the best rank (the policy's class
//! order; ties: earliest issued, host before GC). Operations are then reserved on the
//! media exactly as in the first-come-first-served mode, so every duration and bus
//! transfer is the same model. A request's completion is known once all its operations
//! are reserved and final once no decision before it is left (a later read can still
//! suspend its program until then).
//!
//! Approximations (listed in docs/controller.md): operations of different resources
//! contend for a shared channel in decision order; a host read suspends only the last
//! operation reserved on its die (the one running); GC work keeps its FTL order (only the
//! queue's front competes); a mapping-cache translation read is reserved when issued.
//!
//! A host read the scheduler would start before its page's host program ends is served
//! from the write buffer instead (`buffer.rs`).

mod best;
mod buffer;
mod issue;
mod state;
#[cfg(test)]
mod tests;
mod waiting;

use super::policy::{Class, ControllerParams, Scheduler};
use super::sched::{Media, Scheduled, NO_HINT};
use super::ReadGroup;
use crate::types::Ppn;
use best::{
    at_rank, key, key_at, key_at_rank, key_rank, start_at, CellBest, HostBound, Key, Memo, NO_KEY,
};
pub(crate) use state::LazyState;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A host operation waiting for its resource.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Pend {
    seq: u64,
    ready: u64,
    ppn: Ppn,
    write: bool,
    slot: u32,
    /// The media's hint for committing it ([`Media::host_locate`]; not saved: a restored
    /// operation has none, and the media finds its place again).
    #[serde(skip, default = "no_hint")]
    hint: u32,
}

/// [`NO_HINT`], for a restored [`Pend`].
fn no_hint() -> u32 {
    NO_HINT
}

/// One resource's waiting host operations: reads and programs apart, each in issue order,
/// with a flag per class saying whether their ready times are still nondecreasing. A
/// waiting operation's earliest start only grows with its ready time, so while the flag
/// holds the front is the best of its class (earliest start, then earliest issued) and the
/// scheduler need not scan the rest.
#[derive(Debug, Clone)]
struct CellQueue {
    q: [super::fifo::Fifo<Pend>; 2],
    sorted: [bool; 2],
}

impl Default for CellQueue {
    /// Empty queues, trivially in order (so the scheduler never scans them).
    fn default() -> CellQueue {
        CellQueue {
            q: Default::default(),
            sorted: [true; 2],
        }
    }
}

impl CellQueue {
    fn is_empty(&self) -> bool {
        self.q[0].is_empty() && self.q[1].is_empty()
    }

    fn push(&mut self, p: Pend) {
        let k = p.write as usize;
        match self.q[k].back() {
            None => self.sorted[k] = true,
            Some(b) if p.ready < b.ready => self.sorted[k] = false,
            Some(_) => {}
        }
        self.q[k].push_back(p);
    }

    /// Removes entry `idx` of class `write` (keeping the order). Always inlined: once per
    /// host commit, and the compiler's choice for it varies with unrelated code.
    #[inline(always)]
    fn remove(&mut self, write: bool, idx: usize) -> Pend {
        let k = write as usize;
        let p = if idx == 0 {
            self.q[k].pop_front()
        } else {
            self.q[k].remove(idx)
        }
        .expect("a waiting operation");
        if self.q[k].is_empty() {
            self.sorted[k] = true;
        }
        p
    }

    /// Every waiting operation, reads first, each class in issue order.
    fn iter(&self) -> impl Iterator<Item = &Pend> {
        self.q[0].iter().chain(self.q[1].iter())
    }
}

/// A request's operations (by the driver's slot number).
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
struct Slot {
    open: u32,
    end: u64,
    rg: ReadGroup,
}

/// A decision: when, and what it commits (the waiting host operations' bound at that point
/// is left in the memo, [`Lazy::memo`]).
type Decision = (u64, Choice);

/// What the next decision commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    /// Resource `cell`'s waiting operation `idx` of its reads (`write` false) or programs,
    /// starting at `at` (u32 indices keep a decision small: it is made per operation).
    Host {
        cell: u32,
        idx: u32,
        write: bool,
        at: u64,
    },
    Gc,
}

/// Every class, in [`Class`] index order.
const CLASSES: [Class; 5] = [
    Class::RHost,
    Class::RGc,
    Class::WHost,
    Class::WGc,
    Class::Erase,
];

/// The deferred-commit state of a [`Scheduled`] device.
#[derive(Debug, Clone)]
pub(crate) struct Lazy {
    sched: Scheduler,
    pending: Vec<CellQueue>,
    active: Vec<usize>,
    slots: Vec<Slot>,
    cur: u32,
    seq: u64,
    /// Per resource: the host program reserved last on it ([`buffer::Owner`]).
    owner: Vec<buffer::Owner>,
    urgency: u32,
    urgent: bool,
    /// Each class's rank under `urgent` (by [`Class`] index): read on every decision, so
    /// kept at hand instead of asking the policy.
    ranks: [u8; 5],
    /// Per resource: its best waiting host operation as last computed (`valid` false: to
    /// be computed again).
    best: Vec<CellBest>,
    /// Request ends that host commits made known or moved, not yet taken by the driver, as
    /// (slot, end) (a slot's end changes only on a host commit).
    ends: Vec<(u32, u64)>,
    /// One of `ends` moved an end that was known already (a suspended program's).
    moved: bool,
    /// The last decision's host part (None: to be found from `heap`).
    memo: Option<Memo>,
    /// The resources with waiting host operations by a lower bound of their best's key
    /// (start, rank, issue order): an entry is current while it equals `hkey` of its
    /// resource (else left over, dropped when it reaches the top), and exact once checked
    /// against the resource's best (a resource's best only moves later, except by a new
    /// operation, which lowers its entry).
    heap: BinaryHeap<Reverse<(Key, u32)>>,
    /// Per resource: the key of its current entry in `heap` (`NO_KEY`: none).
    hkey: Vec<Key>,
    /// Reads that suspended a program or erase.
    pub(crate) suspensions: u64,
    /// Host reads served from the write buffer (`buffer.rs`).
    pub(crate) buffered_reads: u64,
    /// What one served from the write buffer costs after its start, ns (the DRAM access of
    /// a write-cache hit).
    hit_ns: u64,
    /// Host programs waiting in `pending`, by page (`buffer.rs`; rebuilt on a restore).
    programs: buffer::WaitingPrograms,
    /// The GC queue's front as last probed: a lower bound of its start while it is still
    /// the front ([`GcFloor`]).
    gc_floor: std::cell::Cell<GcFloor>,
    /// Per segment: host reads and programs waiting in `pending` (GC work on the segment
    /// waits for them, `waiting.rs`; rebuilt on a restore).
    seg_waiting: Vec<u32>,
}

/// The start the GC queue's front entry was found to have when last probed, and its class.
/// Reservations only delay an operation that is still to be reserved (free times, channel
/// gaps, erase times and a victim's read ends never move earlier), so while the same entry
/// is at the front this start is a lower bound of its start now: a decision whose best host
/// operation already beats it needs no new probe. (A write-back waiting behind host
/// operations on a busy resource was probed again at every decision.) Not kept for a
/// program whose resource dynamic allocation has still to choose (`front_unit_fixed`).
#[derive(Debug, Clone, Copy)]
struct GcFloor {
    /// The front entry it is for, by [`super::fifo::Fifo::taken`] (`u64::MAX`: none).
    front: u64,
    at: u64,
    class: Class,
}

impl GcFloor {
    const NONE: GcFloor = GcFloor {
        front: u64::MAX,
        at: 0,
        class: Class::RGc,
    };
}

impl Lazy {
    /// Deferred commit under `p` over `cells` resources; a read served from the write
    /// buffer costs `hit_ns`.
    pub(crate) fn new(p: &ControllerParams, cells: usize, hit_ns: u64) -> Lazy {
        Lazy {
            sched: p.scheduler,
            pending: vec![CellQueue::default(); cells],
            active: Vec::new(),
            slots: Vec::new(),
            cur: 0,
            seq: 0,
            owner: vec![buffer::NO_OWNER; cells],
            urgency: match p.scheduler {
                Scheduler::HostFirst { urgency } => urgency,
                _ => 0,
            },
            urgent: false,
            ranks: CLASSES.map(|c| p.scheduler.rank(c, false)),
            best: vec![CellBest::STALE; cells],
            ends: Vec::new(),
            moved: false,
            memo: None,
            heap: BinaryHeap::new(),
            hkey: vec![NO_KEY; cells],
            suspensions: 0,
            buffered_reads: 0,
            hit_ns,
            programs: Default::default(),
            gc_floor: std::cell::Cell::new(GcFloor::NONE),
            seg_waiting: Vec::new(),
        }
    }

    #[inline(always)]
    fn rank(&self, c: Class) -> u8 {
        self.ranks[c as usize]
    }

    /// Sets host-first's urgency (free segments below its threshold) and the ranks with it.
    fn set_urgent(&mut self, urgent: bool) {
        self.urgent = urgent;
        self.ranks = CLASSES.map(|c| self.sched.rank(c, urgent));
    }
}

impl<M: Media> Scheduled<M> {
    /// Queues a host read or program of `ppn` ready at `ready` for the current slot.
    pub(super) fn lazy_push(&mut self, ppn: Ppn, write: bool, ready: u64) {
        let (cell, hint) = match write {
            true => self.media.host_locate_program(ppn),
            false => self.media.host_locate(ppn),
        };
        let seg = self.media.segment_of(ppn);
        // A program waits for its segment's erase (on every die of a wide segment): it is
        // ranked by when it can start, and a suspension of that erase moves it later
        // (`erase_moved`).
        let mut ready = match write {
            true => ready.max(self.media.erased_by(seg)),
            false => ready,
        };
        let lz = self.lazy.as_mut().expect("deferred mode");
        if write && ppn > 0 && self.media.same_flash_page(ppn - 1, ppn) {
            // The flash page's earlier unit (the FTL writes a page's units in order) may
            // still wait here: its data must reach the page register first, so this unit
            // is ready no earlier, and ties go to the earlier issued.
            if let Some(p) = lz.pending[cell].q[1]
                .iter()
                .rev()
                .find(|p| p.ppn == ppn - 1)
            {
                ready = ready.max(p.ready);
            }
        }
        lz.count_waiting(seg, 1);
        if write {
            lz.program_waits(ppn);
        }
        let slot = lz.cur;
        lz.slots[slot as usize].open += 1;
        if lz.pending[cell].is_empty() {
            lz.active.push(cell);
        }
        lz.seq += 1;
        let seq = lz.seq;
        #[cfg(test)]
        crate::device::audit::push_host(seq);
        // Far out of reach (one per host operation); a restored count is checked.
        debug_assert!(seq <= best::MAX_SEQ);
        let cq = &mut lz.pending[cell];
        cq.push(Pend {
            seq,
            ready,
            ppn,
            write,
            slot,
            hint,
        });
        let k = write as usize;
        let idx = cq.q[k].len() - 1;
        if cq.sorted[k] && idx > 0 {
            // Behind an operation of its class that is ready no later and issued earlier:
            // not its resource's best, so no best or bound changes.
            return;
        }
        lz.best[cell].valid = false;
        let rank = lz.rank(if write { Class::WHost } else { Class::RHost });
        let free = self.media.cell_free(cell);
        let susp = self.media.suspend_from(cell);
        let key = key(start_at(write, ready, free, susp), rank, seq);
        lz.lower(cell, key);
        let Some(m) = lz.memo.as_mut() else {
            return;
        };
        // The memo's best is at most every resource's best (exact while its resource is
        // unchanged), and its runner-up at most every other resource's: a new operation
        // that comes later keeps both true (on another resource it may lower the
        // runner-up); one that comes earlier is its own resource's best and the best of all.
        // (`NO_KEY` is above every key and neutral to `min`: no best, no runner-up.)
        let (b, cell) = (m.bound.best, cell as u32);
        if b < key {
            if cell != m.bound.cell {
                m.bound.second = m.bound.second.min(key);
            }
        } else {
            if cell != m.bound.cell {
                m.bound.second = m.bound.second.min(b);
            }
            m.bound.best = key;
            m.bound.cell = cell;
            m.bound.free = free;
            m.susp = susp;
            m.write = write;
            m.idx = idx as u32;
            m.fresh = true;
        }
    }

    /// Earliest start of the GC queue's front operation and its class.
    #[inline]
    fn gc_front(&self) -> Option<(u64, Class)> {
        let g = *self.queue.front()?;
        Some((self.probe_entry(g), g.op.class()))
    }

    /// The decision between the waiting host operations' best (`host`, its key, `NO_KEY`:
    /// none; `choice`, committing it) and the GC queue's front: GC when it starts earlier,
    /// or at the same time with a better rank. The front is probed only when its floor
    /// ([`GcFloor`]) does not already lose.
    #[inline(always)]
    fn with_gc(&self, host: Key, choice: Choice) -> Option<Decision> {
        let lz = self.lazy.as_ref()?;
        let front = self.queue.taken();
        if host != NO_KEY && !self.queue.is_empty() {
            let f = lz.gc_floor.get();
            if f.front == front && at_rank(f.at, lz.rank(f.class)) >= key_at_rank(host) {
                // The front starts no earlier than when last probed: it loses.
                return Some((key_at(host), choice));
            }
        }
        let gc = self.gc_front();
        if let Some((at, class)) = gc {
            // A program dynamic allocation has still to place is probed where it would go
            // now: no floor (another placement can move it to a resource free earlier).
            let front = if self.front_unit_fixed() {
                front
            } else {
                GcFloor::NONE.front
            };
            lz.gc_floor.set(GcFloor { front, at, class });
        }
        self.pick(host, choice, gc)
    }

    /// The decision between the waiting host operations' best (`host`, `choice`) and the
    /// GC queue's front probed now (`gc`, as [`Self::gc_front`] gives it).
    #[inline(always)]
    fn pick(&self, host: Key, choice: Choice, gc: Option<(u64, Class)>) -> Option<Decision> {
        if let Some((at, class)) = gc {
            let r = self.lazy.as_ref()?.rank(class);
            if host == NO_KEY || at_rank(at, r) < key_at_rank(host) {
                return Some((at, Choice::Gc));
            }
        }
        (host != NO_KEY).then(|| (key_at(host), choice))
    }

    /// The next decision: its time and what it commits (the waiting host operations' bound,
    /// [`HostBound`], is left in the memo).
    fn decide(&mut self) -> Option<Decision> {
        let lz = self.lazy.as_deref_mut()?;
        let (host, choice) = Self::host_best(&self.media, lz);
        self.with_gc(host, choice)
    }

    /// After GC commits, the waiting host operations' best key again (`NO_KEY`: none):
    /// exact while the resource that held the best still holds it (that resource is re-read
    /// when its free time moved; the others can only have moved later), the runner-up's as a
    /// lower bound once it does not. A lower bound is safe: GC commits only while it beats
    /// it, and the next full scan decides the rest.
    fn refresh_bound(&mut self, bound: &mut HostBound) -> Key {
        if !bound.exact {
            return bound.best;
        }
        let cell = bound.cell as usize;
        let free = self.media.cell_free(cell);
        if free == bound.free {
            // Nothing new was reserved on the best's resource.
            return bound.best;
        }
        bound.free = free;
        let lz = self.lazy.as_deref_mut().expect("deferred mode");
        let cq = &lz.pending[cell];
        let now = match cq.q[1].front() {
            // Only programs wait there, in nondecreasing ready order: the front is the best
            // and starts when ready and the resource is free (what `cell_best` computes,
            // without its cache).
            Some(p) if cq.q[0].is_empty() && cq.sorted[1] => {
                key(p.ready.max(free), lz.rank(Class::WHost), p.seq)
            }
            _ => Self::cell_best_at(lz, cell, free, self.media.suspend_from(cell))
                .map_or(NO_KEY, |c| c.key),
        };
        // (Both `NO_KEY`: nothing waits anywhere, and nothing will while GC commits.)
        if now <= bound.second {
            bound.best = now;
        } else {
            bound.best = bound.second;
            bound.exact = false;
        }
        bound.best
    }

    /// The next decision from a plain scan of every resource with waiting operations,
    /// without the memo or the heap (what they are checked against).
    fn scan_decision(&self) -> Option<Decision> {
        let lz = self.lazy.as_ref()?;
        let (bound, best) = Self::host_scan(&self.media, lz);
        // The GC queue's front probed now, not its cached floor: this is what the
        // decisions are checked against.
        let gc = self.gc_front();
        match best {
            Some(b) => self.pick(b.key, b.choice(bound.cell), gc),
            None => self.pick(NO_KEY, Choice::Gc, gc),
        }
    }

    /// Time of the next decision (None: nothing waits).
    pub(super) fn lazy_next(&self) -> Option<u64> {
        self.scan_decision().map(|d| d.0)
    }

    /// Commits the next decision; returns the end of what it reserved.
    pub(super) fn lazy_step(&mut self) -> u64 {
        match self.decide() {
            Some((_, choice)) => self.commit(choice),
            None => 0,
        }
    }

    /// Commits the next decision if it falls before `t` (one scan of the queues instead of
    /// [`Self::lazy_next`] then [`Self::lazy_step`]); returns the end of what it reserved.
    ///
    /// When GC wins, the GC queue's following operations are committed too while each
    /// would still win: a GC reservation only delays the host operations waiting (a
    /// resource's free time and suspend point never move earlier), so the host best found
    /// by this scan stays a lower bound, refreshed where GC used the best's own resource
    /// ([`HostBound`]), and the decisions are exactly those of one scan per operation.
    pub(super) fn lazy_step_before(&mut self, t: u64) -> Option<u64> {
        let (at, choice) = self.decide()?;
        if at >= t {
            return None;
        }
        let Choice::Gc = choice else {
            return Some(self.commit(choice));
        };
        // This decision's host bound (`decide` left it in the memo; a GC commit leaves the
        // memo alone).
        let lz = self.lazy.as_ref().expect("deferred mode");
        let mut bound = lz.memo.map_or(HostBound::default(), |m| m.bound);
        // (None is never exact: no resource to re-read.)
        bound.exact &= bound.best != NO_KEY;
        let ranks = lz.ranks;
        let mut end = self.commit(choice);
        loop {
            // GC's front commits if it starts before `t` and before the best waiting host
            // operation: strictly, or at the same time with a better rank.
            // With no host operation waiting (`NO_KEY`: start u64::MAX, rank 255, above
            // every class's) both limits are `t`.
            let host = self.refresh_bound(&mut bound);
            let (h, hr) = (key_at(host), key_rank(host));
            let (better, other) = (h.saturating_add(1).min(t), h.min(t));
            let limit = |c: Class| {
                Some(if ranks[c as usize] < hr {
                    better
                } else {
                    other
                })
            };
            match self.pump_front(limit) {
                Some(e) => end = end.max(e),
                None => break,
            }
        }
        Some(end)
    }

    /// Commits `choice`; returns the end of what it reserved.
    fn commit(&mut self, choice: Choice) -> u64 {
        match choice {
            Choice::Gc => self.pump_queue(None, 1),
            Choice::Host {
                cell,
                write,
                idx,
                at,
            } => {
                let (cell, idx) = (cell as usize, idx as usize);
                let lz = self.lazy.as_mut().expect("deferred mode");
                let p = lz.pending[cell].remove(write, idx);
                lz.best[cell].valid = false;
                if let Some(m) = lz.memo.as_mut() {
                    if m.bound.cell as usize == cell {
                        m.fresh = false;
                    }
                }
                if lz.pending[cell].is_empty() {
                    let i = lz.active.iter().position(|&c| c == cell).expect("active");
                    lz.active.swap_remove(i);
                }
                let mut rg = lz.slots[p.slot as usize].rg;
                let free = self.media.cell_free(cell);
                #[cfg(test)]
                let prev = crate::device::audit::commit_host(p.seq, p.ready);
                lz.count_waiting(self.media.segment_of(p.ppn), -1);
                let end = if p.write {
                    lz.program_committed(p.ppn);
                    let e = self.media.host_program(p.ppn, p.hint, p.ready);
                    // It ran where it waited (dynamic allocation placed it when queued,
                    // `Media::host_locate_program`): a read suspending it there finds it.
                    debug_assert_eq!(self.media.cell_of(p.ppn), cell);
                    let lz = self.lazy.as_mut().expect("deferred mode");
                    lz.owner[cell] = (p.slot, self.media.cell_free(cell), p.ppn);
                    e
                } else if lz.read_before_program(p.ppn, cell, at, free) {
                    // The page's data is still in the write buffer: no flash read, no
                    // suspension (`buffer.rs`).
                    lz.buffered_reads += 1;
                    #[cfg(test)]
                    crate::device::audit::buffered(p.ppn, at);
                    at + lz.hit_ns
                } else if at < free && self.media.gc_program_running(cell) == Some(p.ppn) {
                    // The running program is GC's write-back of this very page: the read
                    // waits for it instead of suspending it (docs/controller.md, "Reads of
                    // a page GC is moving").
                    self.waits.move_reads += 1;
                    let e = self.media.host_read(p.ppn, p.hint, p.ready, &mut rg);
                    let lz = self.lazy.as_mut().expect("deferred mode");
                    lz.owner[cell] = buffer::NO_OWNER;
                    e
                } else if at < free {
                    let erase = self.media.erase_running(cell);
                    let (e, op_end) = self.media.read_suspending(p.ppn, p.hint, at, &mut rg);
                    if let Some(seg) = erase {
                        self.erase_moved(seg);
                    }
                    let lz = self.lazy.as_mut().expect("deferred mode");
                    lz.suspensions += 1;
                    let (o, o_end, o_ppn) = lz.owner[cell];
                    if o != u32::MAX && o_end == free {
                        // The suspended program is a host request's: it ends later.
                        let s = &mut lz.slots[o as usize];
                        s.end = s.end.max(op_end);
                        lz.owner[cell] = (o, op_end, o_ppn);
                        if s.open == 0 {
                            // Its end was known: the driver takes the new one.
                            lz.ends.push((o, s.end));
                            lz.moved = true;
                        }
                    }
                    e
                } else {
                    let e = self.media.host_read(p.ppn, p.hint, p.ready, &mut rg);
                    let lz = self.lazy.as_mut().expect("deferred mode");
                    lz.owner[cell] = buffer::NO_OWNER;
                    e
                };
                #[cfg(test)]
                crate::device::audit::end_commit(prev);
                let lz = self.lazy.as_mut().expect("deferred mode");
                let s = &mut lz.slots[p.slot as usize];
                s.rg = rg;
                s.open -= 1;
                s.end = s.end.max(end);
                if s.open == 0 {
                    // The request's last operation: its end is known.
                    lz.ends.push((p.slot, s.end));
                }
                end
            }
        }
    }

    /// Makes `slot` the request whose host operations are queued next.
    pub(super) fn lazy_open(&mut self, slot: u32) {
        let lz = self.lazy.as_mut().expect("deferred mode");
        if lz.slots.len() <= slot as usize {
            lz.slots.resize(slot as usize + 1, Slot::default());
        }
        lz.slots[slot as usize] = Slot::default();
        lz.cur = slot;
    }

    /// The end of `slot`'s operations once all are reserved (it may still grow by a
    /// suspension until the device has advanced past it).
    pub(super) fn lazy_slot_end(&self, slot: u32) -> Option<u64> {
        let s = self.lazy.as_ref()?.slots.get(slot as usize)?;
        (s.open == 0).then_some(s.end)
    }

    /// Request slots known.
    pub(super) fn lazy_slots(&self) -> u32 {
        self.lazy.as_ref().map_or(0, |lz| lz.slots.len() as u32)
    }

    /// [`crate::device::DeviceModel::ends_pending`].
    #[inline(always)]
    pub(super) fn lazy_ends_pending(&self) -> bool {
        self.lazy.as_ref().is_some_and(|lz| !lz.ends.is_empty())
    }

    /// [`crate::device::DeviceModel::take_ends`].
    pub(super) fn lazy_take_ends(&mut self, out: &mut Vec<(u32, u64)>) -> bool {
        out.clear();
        let Some(lz) = self.lazy.as_mut() else {
            return false;
        };
        std::mem::swap(out, &mut lz.ends);
        std::mem::take(&mut lz.moved)
    }

    /// Free segments now (host-first's urgency threshold).
    pub(super) fn lazy_free_segments(&mut self, free: u64) {
        if let Some(lz) = self.lazy.as_mut() {
            let urgent = free < lz.urgency as u64;
            if urgent != lz.urgent {
                // Ranks change: every cached best is stale.
                lz.best.iter_mut().for_each(|b| b.valid = false);
                lz.set_urgent(urgent);
                self.rebuild_heap();
            }
        }
    }
}
