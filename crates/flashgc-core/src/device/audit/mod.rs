//! Schedule audit (test builds only): a record of every reservation the flash device makes,
//! and the requests they serve, checked for physical validity by `check` on random
//! configurations (`tests`). Nothing here exists outside `cfg(test)`; the hooks in the
//! device and the driver are `#[cfg(test)]` statements, so normal builds carry no cost.
//!
//! The log is thread-local and off until [`start`]: other unit tests of the crate run the
//! same code without recording.

mod check;
pub(crate) mod cpu;
pub(crate) mod noc;
mod tests;

use crate::ops::Origin;
use std::cell::RefCell;
use std::collections::HashMap;

pub(crate) use check::{check, Rules};

/// What a cell reservation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Cell read plus the transfer out (the die holds the page register until it ends).
    Read,
    /// Transfer in, then the cell program if the unit completes its flash page.
    Program,
    /// One block's erase.
    Erase,
    /// On-die read of a copyback move.
    CopybackRead,
}

/// One reservation of a cell resource (plane, or die without multi-plane operation).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CellOp {
    pub cell: u32,
    pub kind: Kind,
    pub origin: Origin,
    /// A half of a GC page move (src, dst).
    pub mv: Option<(u32, u32)>,
    /// Page (reads, programs) or segment (erases).
    pub ppn: u32,
    pub seg: u32,
    pub start: u64,
    pub end: u64,
    /// The ready time the engine passed for it.
    pub ready: u64,
    /// The cell's next free time before it was reserved.
    pub free_before: u64,
    /// Request it belongs to (host operations; `NO_REQ` otherwise).
    pub req: u64,
    /// A read that suspended the program or erase running on its cell.
    pub suspending: bool,
    /// A program unit that completes its flash page (the cell program runs).
    pub last: bool,
    /// A read sharing the cell read of the unit read just before (same flash page).
    pub shared: bool,
    /// Committed out of the policy's order: GC forced through an erase a program needs,
    /// waiting host operations committed ahead of GC work on their segment, or a host read
    /// of a moved page's old copy reserved when issued.
    pub forced: bool,
}

/// A read suspending the program or erase `target` (index into the cell operations).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Suspension {
    pub target: usize,
    pub read: usize,
    /// When the read asked (at or after the suspendable phase began).
    pub at: u64,
    /// The suspendable phase's start as the media saw it.
    pub from: u64,
    pub old_end: u64,
    pub new_end: u64,
}

/// One bus transfer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Xfer {
    pub ch: u32,
    pub start: u64,
    pub end: u64,
}

/// A host request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Req {
    pub arrival: u64,
    /// Completions reported (exactly one expected).
    pub ends: u32,
    pub done: u64,
}

/// No request.
pub(crate) const NO_REQ: u64 = u64::MAX;

/// Everything recorded during one run.
#[derive(Debug, Default)]
pub(crate) struct Log {
    pub ops: Vec<CellOp>,
    pub xfers: Vec<Xfer>,
    pub suspensions: Vec<Suspension>,
    /// Host reads served from the write buffer: page, when, request (no flash read).
    pub buffered: Vec<(u32, u64, u64)>,
    pub reqs: Vec<Req>,
    /// Host operations queued by deferred commit, and committed.
    pub pushed: u64,
    pub committed: u64,
    /// Queued host operations: issue order -> request.
    seq_req: HashMap<u64, u64>,
    /// Request slot (deferred commit) -> request.
    slot_req: HashMap<u32, u64>,
    /// Per cell: the last program or erase reserved (what a read may suspend).
    last_pe: HashMap<u32, usize>,
    /// Context of the reservation being made.
    origin: Option<Origin>,
    mv: Option<(u32, u32)>,
    cur_req: u64,
    cur_ready: u64,
    /// Depth of forced commits under way.
    forcing: u32,
    /// The NoC controller model's reservations.
    pub noc: noc::NocLog,
    /// The firmware CPU's jobs.
    pub cpu: cpu::CpuLog,
}

thread_local! {
    static LOG: RefCell<Option<Log>> = const { RefCell::new(None) };
}

/// Starts recording on this thread (a fresh log).
pub(crate) fn start() {
    LOG.with(|l| {
        *l.borrow_mut() = Some(Log {
            cur_req: NO_REQ,
            ..Log::default()
        })
    });
}

/// Stops recording and returns the log.
pub(crate) fn take() -> Log {
    LOG.with(|l| l.borrow_mut().take()).expect("audit started")
}

fn with(f: impl FnOnce(&mut Log)) {
    LOG.with(|l| {
        if let Some(log) = l.borrow_mut().as_mut() {
            f(log)
        }
    });
}

/// The media is about to reserve an operation of `origin` (`mv`: a page move's half).
pub(crate) fn context(origin: Origin, mv: Option<(u32, u32)>) {
    with(|l| {
        l.origin = Some(origin);
        l.mv = mv;
    });
}

/// A request arriving at `arrival` is being served: host operations issued now are its.
pub(crate) fn begin_request(arrival: u64) {
    with(|l| {
        l.cur_req = l.reqs.len() as u64;
        l.reqs.push(Req {
            arrival,
            ends: 0,
            done: 0,
        });
    });
}

/// The request served last completed at `done` (first come first served).
pub(crate) fn end_current(done: u64) {
    with(|l| {
        let r = &mut l.reqs[l.cur_req as usize];
        r.ends += 1;
        r.done = done;
    });
}

/// Deferred commit: the request served last holds request slot `slot`.
pub(crate) fn bind_slot(slot: u32) {
    with(|l| {
        l.slot_req.insert(slot, l.cur_req);
    });
}

/// Deferred commit: the request of slot `slot` completed at `done`.
pub(crate) fn end_slot(slot: u32, done: u64) {
    with(|l| {
        let id = l.slot_req.remove(&slot).expect("a bound slot");
        let r = &mut l.reqs[id as usize];
        r.ends += 1;
        r.done = done;
    });
}

/// Deferred commit: the host operation of issue order `seq` waits in a queue.
pub(crate) fn push_host(seq: u64) {
    with(|l| {
        l.pushed += 1;
        l.seq_req.insert(seq, l.cur_req);
    });
}

/// Deferred commit: the host operation of issue order `seq`, ready at `ready`, is being
/// committed. Returns the request served before (restored by [`end_commit`]).
pub(crate) fn commit_host(seq: u64, ready: u64) -> u64 {
    let mut prev = NO_REQ;
    with(|l| {
        l.committed += 1;
        prev = l.cur_req;
        l.cur_req = l.seq_req.remove(&seq).expect("a queued host operation");
        l.cur_ready = ready;
        l.origin = Some(Origin::Host);
        l.mv = None;
    });
    prev
}

/// Deferred commit: the commit is done; `prev` is the request served before.
pub(crate) fn end_commit(prev: u64) {
    with(|l| {
        l.cur_req = prev;
    });
}

/// A host read of `ppn` (of the request being committed) served from the write buffer at
/// `at`.
pub(crate) fn buffered(ppn: u32, at: u64) {
    with(|l| l.buffered.push((ppn, at, l.cur_req)));
}

/// A forced commit begins (`true`) or ends.
pub(crate) fn forcing(on: bool) {
    with(|l| {
        if on {
            l.forcing += 1;
        } else {
            l.forcing -= 1;
        }
    });
}

/// A bus transfer on channel `ch` from `start` to `end`.
pub(crate) fn xfer(ch: usize, start: u64, end: u64) {
    with(|l| {
        l.xfers.push(Xfer {
            ch: ch as u32,
            start,
            end,
        })
    });
}

/// Fields of a cell reservation the media knows.
pub(crate) struct At {
    pub cell: usize,
    pub kind: Kind,
    pub ppn: u32,
    pub seg: u32,
    pub start: u64,
    pub end: u64,
    pub ready: u64,
    pub free_before: u64,
    pub last: bool,
    pub shared: bool,
}

/// A cell reservation.
pub(crate) fn cell(a: At) {
    with(|l| {
        let origin = l.origin.unwrap_or(Origin::Host);
        let op = CellOp {
            cell: a.cell as u32,
            kind: a.kind,
            origin,
            mv: l.mv,
            ppn: a.ppn,
            seg: a.seg,
            start: a.start,
            end: a.end,
            ready: a.ready,
            free_before: a.free_before,
            req: if origin == Origin::Host {
                l.cur_req
            } else {
                NO_REQ
            },
            suspending: false,
            last: a.last,
            shared: a.shared,
            forced: l.forcing > 0,
        };
        if matches!(a.kind, Kind::Erase) || (a.kind == Kind::Program && a.last) {
            l.last_pe.insert(op.cell, l.ops.len());
        }
        l.ops.push(op);
    });
}

/// A host read of `ppn` (segment `seg`) on `cell` suspending the operation running there:
/// asked at `at` (the phase began at `from`), read from `rs` to `re`; the operation's end
/// moves from `old_end` to `new_end`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn suspend(
    cell: usize,
    ppn: u32,
    seg: u32,
    at: u64,
    from: u64,
    (rs, re): (u64, u64),
    old_end: u64,
    new_end: u64,
) {
    with(|l| {
        let target = *l
            .last_pe
            .get(&(cell as u32))
            .expect("a program or erase to suspend");
        let read = l.ops.len();
        l.ops.push(CellOp {
            cell: cell as u32,
            kind: Kind::Read,
            origin: Origin::Host,
            mv: None,
            ppn,
            seg,
            start: rs,
            end: re,
            ready: l.cur_ready,
            free_before: old_end,
            req: l.cur_req,
            suspending: true,
            last: false,
            shared: false,
            forced: l.forcing > 0,
        });
        l.suspensions.push(Suspension {
            target,
            read,
            at,
            from,
            old_end,
            new_end,
        });
    });
}
