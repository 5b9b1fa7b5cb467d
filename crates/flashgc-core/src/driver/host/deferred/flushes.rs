//! Flushes under deferred commit: a flush's programs (the write cache's dirty pages) wait
//! in the scheduler's queues as a request of their own (a request slot with
//! `Inflight::flush`). A flow's flush reports that slot's end to its flow; a flush of the
//! streaming API or of a replayed trace ([`StreamFlush`]) completes once its programs and
//! the writes, trims and flushes in flight at its arrival have, and a replayed trace's
//! flush in a closed loop holds a queue slot until then.

use super::{Core, Host, Inflight, NO_FLOW};
use crate::device::DeviceModel;
use crate::error::Result;
use crate::sim::Simulation;
use crate::workload::{Op, Request};
use std::cmp::Reverse;

/// A streaming flush in flight: it completes once its own programs (its slot) and the
/// writes, trims and flushes in flight when it arrived have completed. A replayed trace's
/// flush in a closed loop holds a queue slot meanwhile (taken from the completion heap at
/// its arrival, given back at its completion), not the same as its own programs' slot.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct StreamFlush {
    /// Its own request slot.
    pub(super) slot: u32,
    /// When it arrived (its latency counts from here).
    pub(super) arrival: u64,
    /// The slots of the requests it waits for, still in flight.
    pub(super) waits: Vec<u32>,
    /// The latest completion so far of its own programs and those requests.
    pub(super) done: u64,
    /// Its own programs have completed.
    pub(super) own: bool,
}

/// The request a flush holds in flight: no pages (it is told apart by `Inflight::flush`).
fn flush_request(t: u64) -> Request {
    Request {
        time_ns: t,
        op: Op::Write,
        lpn: 0,
        pages: 0,
        content: 0,
        fua: false,
    }
}

impl<D: DeviceModel> Core<D> {
    /// Streaming in deferred mode: a host flush arriving at `t` (docs/serve.md,
    /// "Flushes"). The write cache's dirty pages are queued as host programs of a slot of
    /// their own; the flush completes once they and every write, trim and flush in flight
    /// now have completed, and is then counted with its latency in the timing report.
    /// `streaming`: from the streaming API (else a replayed trace's flush).
    pub(in crate::driver::host) fn flush_stream_deferred(
        &mut self,
        sim: &mut Simulation,
        t: u64,
        streaming: bool,
    ) -> Result<()> {
        self.advance_to(t);
        let d = self.deferred.as_mut().expect("deferred mode");
        d.streaming |= streaming;
        // (Every request completed so far completed by `t`: `advance_to` completes only
        // up to it.)
        let waits = d
            .inflight
            .iter()
            .filter(|f| f.flush || f.req.op != Op::Read)
            .map(|f| f.slot)
            .collect();
        let slot = self.queue_flush(sim, t, NO_FLOW, 0)?;
        let d = self.deferred.as_mut().expect("deferred mode");
        d.stream_flushes.push(StreamFlush {
            slot,
            arrival: t,
            waits,
            done: t,
            own: false,
        });
        Ok(())
    }

    /// A request slot of its own for a flush at `t` (of flow `flow`, the `order`-th of its
    /// I/Os, or `NO_FLOW`): the write cache's dirty pages queued as its host programs, the
    /// slot in flight; returns it.
    fn queue_flush(&mut self, sim: &mut Simulation, t: u64, flow: u32, order: u64) -> Result<u32> {
        let slot = self.open_deferred_slot(sim);
        let base = self.flush_at(sim, t)?;
        let f = Inflight {
            slot,
            req: flush_request(t),
            flow,
            arrival: t,
            base,
            flush: true,
            order,
        };
        let d = self.deferred.as_mut().expect("deferred mode");
        d.push_inflight(&self.dev, f);
        Ok(slot)
    }

    /// Streaming flushes: the request on `slot` (`own`: a flush's own programs) completed
    /// at `c`; records the flushes this completes.
    pub(super) fn stream_flush_progress(&mut self, slot: u32, c: u64, own: bool) {
        let d = self.deferred.as_mut().expect("deferred mode");
        // A replayed trace's flush in a closed loop holds a queue slot, freed now.
        let frees_slot = !d.streaming && matches!(self.p.host, Host::ClosedLoop { .. });
        let mut k = 0;
        while k < d.stream_flushes.len() {
            let p = &mut d.stream_flushes[k];
            if own && !p.own && p.slot == slot {
                p.own = true;
                p.done = p.done.max(c);
            } else if let Some(j) = p.waits.iter().position(|&s| s == slot) {
                p.waits.swap_remove(j);
                p.done = p.done.max(c);
            }
            if p.own && p.waits.is_empty() {
                // In arrival order among those completing together (`remove`, not a swap).
                let p = d.stream_flushes.remove(k);
                self.flushes.count += 1;
                self.flushes
                    .latency
                    .record(p.done.saturating_sub(p.arrival));
                if frees_slot {
                    self.stats.heap.push(Reverse(p.done));
                }
                continue;
            }
            k += 1;
        }
    }

    /// Several flows in deferred mode: flow `flow`'s flush at `t` (docs/flows.md,
    /// "Flushes"), the `order`-th of its I/Os. The write cache's dirty pages are queued as
    /// host programs of a request slot of their own, whose end a later
    /// [`Core::settle_flows`] reports to the flow with `order`; without a cache the slot
    /// has no operation and ends at `t`.
    pub(crate) fn flush_deferred(
        &mut self,
        sim: &mut Simulation,
        t: u64,
        flow: usize,
        order: u64,
    ) -> Result<()> {
        self.advance_to(t);
        self.queue_flush(sim, t, flow as u32, order).map(|_| ())
    }
}
