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
    /// Its place in arrival order (the key of `Deferred::watchers`; given again after a
    /// restore).
    #[serde(skip)]
    pub(super) id: u64,
    /// How many of `waits` are still in flight: `waits` keeps every slot it waited for
    /// at its arrival (a completion only counts down here) until a checkpoint keeps only
    /// those still in flight ([`Deferred::for_checkpoint`]).
    #[serde(skip)]
    pub(super) left: u32,
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
        d.build_watchers();
        let id = d.next_flush_id;
        d.next_flush_id += 1;
        let mut waits = Vec::new();
        for f in d
            .inflight
            .iter()
            .filter(|f| f.flush || f.req.op != Op::Read)
        {
            waits.push(f.slot);
            watchers_of(&mut d.watchers, f.slot).push(id);
        }
        let slot = self.queue_flush(sim, t, NO_FLOW, 0)?;
        let d = self.deferred.as_mut().expect("deferred mode");
        set_own(&mut d.own_flush, slot, id);
        d.stream_flushes.push(StreamFlush {
            slot,
            arrival: t,
            left: waits.len() as u32,
            waits,
            done: t,
            own: false,
            id,
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
    /// at `c`; records the flushes this completes. Only the flushes waiting for that slot
    /// are looked at (through `watchers`): a scan of every flush in flight, each with a
    /// search of its waits, made a replay with many flushes in flight quadratic.
    pub(super) fn stream_flush_progress(&mut self, slot: u32, c: u64, own: bool) {
        let d = self.deferred.as_mut().expect("deferred mode");
        d.build_watchers();
        // A replayed trace's flush in a closed loop holds a queue slot, freed now.
        let frees_slot = !d.streaming && matches!(self.p.host, Host::ClosedLoop { .. });
        let mut touched = std::mem::take(watchers_of(&mut d.watchers, slot));
        for &id in &touched {
            if let Some(p) = d.flush_mut(id) {
                p.left -= 1;
                p.done = p.done.max(c);
            }
        }
        if own {
            let id = d.own_flush.get(slot as usize).copied().unwrap_or(u64::MAX);
            if let Some(p) = d.flush_mut(id).filter(|p| !p.own && p.slot == slot) {
                p.own = true;
                p.done = p.done.max(c);
                touched.push(id);
                touched.sort_unstable();
            }
        }
        // In arrival order among those completing together.
        for &id in &touched {
            let Ok(k) = d.stream_flushes.binary_search_by_key(&id, |p| p.id) else {
                continue;
            };
            let p = &d.stream_flushes[k];
            if p.own && p.left == 0 {
                let p = d.stream_flushes.remove(k);
                self.flushes.count += 1;
                self.flushes
                    .latency
                    .record(p.done.saturating_sub(p.arrival));
                if frees_slot {
                    self.stats.heap.push(Reverse(p.done));
                }
            }
        }
        touched.clear();
        // (The emptied list keeps its capacity for the slot's next request.)
        *watchers_of(&mut d.watchers, slot) = touched;
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

/// The list of flushes waiting for the request on `slot`, grown to reach it.
fn watchers_of(w: &mut Vec<Vec<u64>>, slot: u32) -> &mut Vec<u64> {
    let i = slot as usize;
    if w.len() <= i {
        w.resize_with(i + 1, Vec::new);
    }
    &mut w[i]
}

/// Records that `slot` holds the own programs of flush `id`.
fn set_own(o: &mut Vec<u64>, slot: u32, id: u64) {
    let i = slot as usize;
    if o.len() <= i {
        o.resize(i + 1, u64::MAX);
    }
    o[i] = id;
}

impl super::Deferred {
    /// Builds `watchers`, `own_flush` and the flushes' ids from their `waits` (after a
    /// restore, whose `waits` hold only the slots still in flight); nothing once built.
    pub(super) fn build_watchers(&mut self) {
        if self.watch_built {
            return;
        }
        self.watch_built = true;
        self.watchers.iter_mut().for_each(Vec::clear);
        self.own_flush.clear();
        for (i, p) in self.stream_flushes.iter_mut().enumerate() {
            p.id = i as u64;
            p.left = p.waits.len() as u32;
            for &s in &p.waits {
                watchers_of(&mut self.watchers, s).push(p.id);
            }
            if !p.own {
                set_own(&mut self.own_flush, p.slot, p.id);
            }
        }
        self.next_flush_id = self.stream_flushes.len() as u64;
    }

    /// The streaming flush with id `id`, if still in flight (they are kept in id order).
    fn flush_mut(&mut self, id: u64) -> Option<&mut StreamFlush> {
        let k = self
            .stream_flushes
            .binary_search_by_key(&id, |p| p.id)
            .ok()?;
        Some(&mut self.stream_flushes[k])
    }

    /// A copy for a checkpoint: each flush's `waits` keeps only the slots it still waits
    /// for (the format since version 9).
    pub(in crate::driver::host) fn for_checkpoint(&self) -> Self {
        let mut d = self.clone();
        if self.watch_built {
            for p in &mut d.stream_flushes {
                let w = &self.watchers;
                p.waits
                    .retain(|&s| w.get(s as usize).is_some_and(|l| l.contains(&p.id)));
            }
        }
        d
    }
}
