//! Flows under deferred commit (a priority scheduler or suspend; `driver/host/deferred.rs`):
//! the device decides a request's or a flush's completion after later arrivals, so the
//! flow keeps it in flight and learns its completion later. Each request or flush carries
//! its place among the flow's I/Os (its *order*), which the driver hands back with the
//! completion: `last_was_sync` then sees fio's issue order, and a queued sync knows which
//! writes came before it.
//!
//! * A request holds its closed-loop slot (`PENDING`) until [`FlowSet::completed_later`].
//! * An in-thread or end flush is [`Pending`]: the flow issues nothing until its device
//!   end is known and the flow has no request in flight (its earlier writes' completions
//!   are then known).
//! * A queued sync (io_uring's, [`super::FlowSpec::queued_flush`]) is [`Queued`]: it holds
//!   one slot while the flow goes on issuing into the others, and completes once its
//!   device end and the completions of the flow's writes issued before it are known, at
//!   the later of them, as under fcfs (module `flush`). Several can be in flight at once.

use super::{FlowArrival, FlowSet, PENDING};
use crate::workload::{Op, Request};
use serde::{Deserialize, Serialize};

/// An in-thread or end flush issued under deferred commit, waiting for its end at the
/// device and for the flow's requests in flight.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(super) struct Pending {
    /// When it was issued.
    t: u64,
    /// Its place among the flow's I/Os (`last_was_sync`'s ties).
    order: u64,
    /// It is `fsync_on_close`'s `put_file` flush, which `last_was_sync` does not see.
    close: bool,
    /// Its end at the device, once known.
    device_done: Option<u64>,
}

impl Pending {
    /// A flush issued at `t`, the `order`-th of the flow's I/Os.
    pub(super) fn new(t: u64, order: u64, close: bool) -> Pending {
        Pending {
            t,
            order,
            close,
            device_done: None,
        }
    }
}

/// A queued sync issued under deferred commit, holding one slot of its flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Queued {
    /// When it was issued.
    t: u64,
    /// Its place among the flow's I/Os: it tells the sync's device end apart, and the
    /// writes issued before it.
    order: u64,
    /// Its end at the device, once known.
    device_done: Option<u64>,
    /// The flow's writes issued before it still in flight.
    waits: u32,
    /// The latest completion of the flow's writes issued before it, known so far.
    writes_done: u64,
}

impl Queued {
    /// A sync issued at `t`, the `order`-th of the flow's I/Os, after writes of which
    /// `waits` are in flight and the others completed by `writes_done`.
    pub(super) fn new(t: u64, order: u64, waits: u32, writes_done: u64) -> Queued {
        Queued {
            t,
            order,
            device_done: None,
            waits,
            writes_done,
        }
    }
}

impl FlowSet {
    /// Deferred commit: flow `i`'s request `req` that [`FlowSet::next_arrival_request`]
    /// issued at `t` is in flight; its closed-loop slot waits for
    /// [`FlowSet::completed_later`]. Returns its place among the flow's I/Os, to hand back
    /// with its completion.
    pub fn issued_pending(&mut self, i: usize, req: &Request, t: u64) -> u64 {
        self.inflight[i] += 1;
        let st = &mut self.state[i];
        if req.op == Op::Write {
            st.flush.writes_pending += 1;
        }
        if let FlowArrival::Closed { .. } = self.specs[i].arrival {
            if let Some(s) = st.slots.iter_mut().find(|s| **s == t) {
                *s = PENDING;
            }
        }
        st.issued + st.flush.count
    }

    /// The completion at `done` of flow `i`'s request `req` (arrived at `t`, the
    /// `order`-th of the flow's I/Os) that [`FlowSet::issued_pending`] left in flight: frees
    /// one of its waiting slots (they are interchangeable) and records it.
    pub fn completed_later(&mut self, i: usize, req: &Request, t: u64, done: u64, order: u64) {
        self.inflight[i] = self.inflight[i].saturating_sub(1);
        let st = &mut self.state[i];
        if let FlowArrival::Closed { .. } = self.specs[i].arrival {
            if let Some(s) = st.slots.iter_mut().find(|s| **s == PENDING) {
                *s = done;
            }
        }
        if req.op == Op::Write {
            let fl = &mut st.flush;
            fl.writes_pending = fl.writes_pending.saturating_sub(1);
            for q in fl.queued.iter_mut().filter(|q| q.order > order) {
                q.waits = q.waits.saturating_sub(1);
                q.writes_done = q.writes_done.max(done);
            }
        }
        self.record(i, req, t, done, true, order);
        // Pending flushes wait for the flow's requests in flight.
        self.try_finish_flush(i);
    }

    /// Deferred commit: the device's end `done` of flow `i`'s flush, the `order`-th of
    /// its I/Os (pending or queued).
    pub fn flush_device_done(&mut self, i: usize, done: u64, order: u64) {
        let fl = &mut self.state[i].flush;
        match fl.pending.as_mut() {
            Some(p) if p.order == order => p.device_done = Some(done),
            _ => {
                if let Some(q) = fl.queued.iter_mut().find(|q| q.order == order) {
                    q.device_done = Some(done);
                }
            }
        }
        self.try_finish_flush(i);
    }

    /// Completes flow `i`'s queued syncs whose device end and earlier writes are known (in
    /// issue order), and its pending flush once its device end is known and the flow has
    /// no request in flight.
    pub(super) fn try_finish_flush(&mut self, i: usize) {
        while let Some(k) = self.state[i]
            .flush
            .queued
            .iter()
            .position(|q| q.device_done.is_some() && q.waits == 0)
        {
            let q = self.state[i].flush.queued.remove(k);
            let done = q.device_done.unwrap_or(q.t).max(q.t).max(q.writes_done);
            self.record_flush(i, q.t, q.order, done, false, true);
            // Its slot (slots in flight are interchangeable).
            let st = &mut self.state[i];
            if let Some(s) = st.slots.iter_mut().find(|s| **s == PENDING) {
                *s = done;
            }
        }
        let Some(p) = self.state[i].flush.pending else {
            return;
        };
        if p.device_done.is_none() || self.inflight[i] > 0 {
            return;
        }
        self.state[i].flush.pending = None;
        let done = p.device_done.unwrap_or(p.t).max(p.t);
        let done = done.max(self.state[i].flush.writes_done);
        self.record_flush(i, p.t, p.order, done, p.close, true);
        self.release_flow(i, done);
    }

    /// Queued syncs in flight over all flows (deferred commit; each holds a slot of its
    /// flow until its completion is known).
    pub fn queued_syncs_in_flight(&self) -> usize {
        self.state.iter().map(|st| st.flush.queued.len()).sum()
    }

    /// Deferred commit: per flow, its flushes (pending or queued) whose end at the device
    /// is not known yet.
    pub fn flushes_awaiting_device(&self) -> Vec<u32> {
        self.state
            .iter()
            .map(|st| {
                let fl = &st.flush;
                let pending = fl.pending.is_some_and(|p| p.device_done.is_none());
                let queued = fl.queued.iter().filter(|q| q.device_done.is_none()).count();
                pending as u32 + queued as u32
            })
            .collect()
    }

    /// Whether a restored flow's deferred flush state is consistent: its queued syncs wait
    /// for no more writes than it has in flight, which are among its requests in flight.
    pub(super) fn pending_consistent(&self, i: usize) -> bool {
        let fl = &self.state[i].flush;
        fl.writes_pending <= self.inflight[i]
            && fl.queued.iter().all(|q| q.waits <= fl.writes_pending)
    }
}
