//! The driver's side of deferred commit (a priority scheduler or suspend; see
//! `device::lazy`): a request's completion is known only once the device has reserved all
//! its operations, and final once the device has no decision left before it. The driver
//! keeps such requests in flight and records their latency when they become final; a
//! closed loop's next arrival is the earliest final completion.

use super::{Core, Host};
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::metrics::recorder::Recorder;
use crate::sim::Simulation;
use crate::workload::{Op, Request};
use std::cmp::Reverse;

/// A request whose completion is not final yet.
#[derive(Debug, Clone, Copy)]
struct Inflight {
    slot: u32,
    op: Op,
    arrival: u64,
    /// Completion of its parts that need no flash (cache hits, unmapped reads).
    base: u64,
}

/// Requests in flight in deferred mode.
#[derive(Debug, Default)]
pub(crate) struct Deferred {
    inflight: Vec<Inflight>,
    free_slots: Vec<u32>,
    slots: u32,
}

impl<D: DeviceModel> Core<D> {
    /// The provisional completion of in-flight request `i` (None: not all reserved).
    fn provisional(&self, f: &Inflight) -> Option<u64> {
        self.dev.slot_end(f.slot).map(|e| e.max(f.base))
    }

    /// Records in-flight request `i` as completed at `c`.
    fn complete(&mut self, i: usize, c: u64) {
        let d = self.deferred.as_mut().expect("deferred mode");
        let f = d.inflight.swap_remove(i);
        d.free_slots.push(f.slot);
        let lat = c - f.arrival;
        let s = &mut self.stats;
        match f.op {
            Op::Read => s.win.rd.record(lat),
            Op::Write => s.win.wr.record(lat),
            Op::Trim => {}
        }
        if let Host::ClosedLoop { .. } = self.p.host {
            s.heap.push(Reverse(c));
        }
        self.dev.on_request(f.op, f.arrival, c);
        self.host_busy_until = self.host_busy_until.max(c);
    }

    /// Completes every in-flight request whose completion is known and at most `t` (final
    /// when the device has no decision before `t`).
    fn complete_until(&mut self, t: u64) {
        let mut i = 0;
        while i < self.deferred.as_ref().map_or(0, |d| d.inflight.len()) {
            let f = self.deferred.as_ref().expect("deferred mode").inflight[i];
            match self.provisional(&f) {
                Some(c) if c <= t => self.complete(i, c),
                _ => i += 1,
            }
        }
    }

    /// Advances the device through every decision before `t` and completes what is final.
    pub(super) fn advance_to(&mut self, t: u64) {
        while self.dev.step_before(t).is_some() {}
        self.complete_until(t);
    }

    /// Closed loop: advances the device until the earliest completion is final, so that
    /// the completion heap's top is the next arrival.
    fn settle_closed(&mut self) {
        let heap_top = self.stats.heap.peek().map(|r| r.0);
        let mut epoch = None;
        let mut known = heap_top;
        loop {
            // Slot ends change only when the device commits a host operation: recompute the
            // earliest known completion only then (GC commits leave it as it is).
            let now = self.dev.host_commits();
            if epoch != Some(now) {
                epoch = Some(now);
                known = heap_top;
                for f in &self.deferred.as_ref().expect("deferred mode").inflight {
                    if let Some(c) = self.provisional(f) {
                        known = Some(known.map_or(c, |k| k.min(c)));
                    }
                }
            }
            // One scan of the device's queues: commit the next decision if it comes
            // before the earliest known completion.
            if self.dev.step_before(known.unwrap_or(u64::MAX)).is_none() {
                if let Some(k) = known {
                    self.complete_until(k);
                }
                return;
            }
        }
    }

    /// Finishes every request in flight (end of the run).
    pub(super) fn drain_deferred(&mut self) {
        if self.deferred.is_none() {
            return;
        }
        while self.dev.next_decision().is_some() {
            self.dev.step();
        }
        self.complete_until(u64::MAX);
        debug_assert!(self.deferred.as_ref().is_none_or(|d| d.inflight.is_empty()));
    }

    /// [`Core::submit_next`] in deferred mode.
    pub(super) fn submit_deferred(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
        rec: &mut Recorder,
    ) -> Result<()> {
        let closed = matches!(self.p.host, Host::ClosedLoop { .. });
        if closed {
            self.settle_closed();
        }
        let t = self.arrival(req);
        if closed {
            self.stats.heap.pop();
        } else {
            self.advance_to(t);
        }
        let d = self.deferred.as_mut().expect("deferred mode");
        let slot = d.free_slots.pop().unwrap_or_else(|| {
            d.slots += 1;
            d.slots - 1
        });
        self.dev.open_slot(slot);
        self.dev.set_free_segments(sim.ftl().free_segments() as u64);
        let s = &mut self.stats;
        if s.requests == 0 {
            s.first_t = t;
            s.win.t0 = t;
        }
        let base = self.serve(sim, req, t)?;
        self.deferred
            .as_mut()
            .expect("deferred mode")
            .inflight
            .push(Inflight {
                slot,
                op: req.op,
                arrival: t,
                base,
            });
        self.count_served(sim, req, t, rec);
        Ok(())
    }

    /// The error for host models deferred mode does not support yet.
    pub(super) fn deferred_unsupported(&self, what: &str) -> Result<()> {
        if self.deferred.is_some() {
            return Err(Error::config(
                "timing.scheduler",
                format!("a priority scheduler or suspend does not support {what} yet (use fcfs without suspend)"),
            ));
        }
        Ok(())
    }
}
