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
use crate::workload::flows::FlowSet;
use crate::workload::Op;
use crate::workload::Request;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

// Flushes' request slots, and a streaming or trace flush's wait for earlier requests.
mod flushes;
use flushes::StreamFlush;

/// A request whose completion is not final yet.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Inflight {
    slot: u32,
    req: Request,
    /// Its flow (several flows), or `NO_FLOW`.
    flow: u32,
    arrival: u64,
    /// Completion of its parts that need no flash (cache hits, unmapped reads).
    base: u64,
    /// A flow's flush (its write cache's programs), not a request: reported to the flow
    /// apart and left out of the request statistics.
    flush: bool,
    /// A flow's request or flush: its place among the flow's I/Os, handed back with its
    /// completion (0 outside flows).
    order: u64,
}

/// Requests in flight in deferred mode (saved whole in a checkpoint).
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Deferred {
    inflight: Vec<Inflight>,
    free_slots: Vec<u32>,
    slots: u32,
    /// Several flows: completed requests not yet reported to their flows (flow, request,
    /// arrival, completion, place among the flow's I/Os).
    flow_done: Vec<(u32, Request, u64, u64, u64)>,
    /// Several flows: flushes whose programs completed, not yet reported to their flows
    /// (flow, completion at the device, place among the flow's I/Os).
    flow_flushed: Vec<(u32, u64, u64)>,
    /// Per request slot: the completion of the request's parts that need no flash (the
    /// same as its `Inflight::base`; kept in the checkpoint format since version 3, and checked
    /// on restore).
    base_of: Vec<u64>,
    /// Requests come through the streaming API (no closed-loop slots to refill).
    streaming: bool,
    /// Streaming and replayed trace flushes not complete yet (in a checkpoint since
    /// format version 9: a trace's).
    stream_flushes: Vec<StreamFlush>,
    /// Per request slot: the provisional completion of the request in flight there, while
    /// it waits in `soonest` (`u64::MAX`: not all its operations reserved yet, no request
    /// there, or already taken by a completion pass). Indexed by slot rather than by
    /// position so that completing a request moves nothing here. Kept up to date from the
    /// ends the device pushes ([`DeviceModel::take_ends`]) once `synced`; rebuilt after a
    /// restore.
    #[serde(skip)]
    end: Vec<u64>,
    /// `end` was built from the device's slots (false after a restore).
    #[serde(skip)]
    synced: bool,
    /// Scratch: the ends taken from the device.
    #[serde(skip)]
    taken: Vec<(u32, u64)>,
    /// Per request slot: its index in `inflight` (while in flight; stale after).
    #[serde(skip)]
    pos: Vec<u32>,
    /// The known provisional completions as (completion, slot) packed by [`entry`],
    /// earliest on top; an entry is current while `end` of its slot equals it, else stale
    /// and skipped.
    #[serde(skip)]
    soonest: BinaryHeap<Reverse<u128>>,
    /// Scratch: the (slot, completion) a completion pass completes.
    #[serde(skip)]
    done: Vec<(u32, u64)>,
    /// The order of the writes, trims and flushes in flight for streaming flushes
    /// (flushes.rs, `Frontier`): built afresh by a flush that finds no other in flight.
    #[serde(skip)]
    frontier: Option<Box<flushes::Frontier>>,
}

/// What bringing the provisional completions up to date changed.
enum Synced {
    /// Nothing.
    Same,
    /// Some requests' ends became known, the earliest of them this (never `u64::MAX`:
    /// with none known it is `Same`).
    One(u64),
    /// Possibly all.
    All,
}

const NO_FLOW: u32 = u32::MAX;

/// Completions one pass of [`Core::complete_until`] orders by a linear scan per request;
/// more go through [`Core::complete_many`]'s heap (the same order).
const MANY_DONE: usize = 64;

/// A `soonest` entry: completion `e` of `slot`, ordered as the pair (one integer compare
/// where a pair takes two).
#[inline(always)]
fn entry(e: u64, slot: u32) -> u128 {
    ((e as u128) << 32) | slot as u128
}

/// The (completion, slot) of a `soonest` entry.
#[inline(always)]
fn unpack(k: u128) -> (u64, u32) {
    ((k >> 32) as u64, k as u32)
}

/// The provisional completion on `dev` of the request on `slot` whose parts that need no
/// flash complete at `base` (`u64::MAX`: not all its operations reserved).
#[inline]
fn provisional<D: DeviceModel>(dev: &D, slot: u32, base: u64) -> u64 {
    dev.slot_end(slot).map_or(u64::MAX, |e| e.max(base))
}

impl<D: DeviceModel> Core<D> {
    /// Brings the provisional completions of the requests in flight up to date with the
    /// ends the device pushed: a host commit changes only its own request's end, when it
    /// was the request's last operation, unless it suspended another request's program.
    #[inline]
    fn sync_ends(&mut self) -> Synced {
        match self.deferred.as_ref() {
            Some(d) if d.synced && !self.dev.ends_pending() => Synced::Same,
            _ => self.sync_ends_slow(),
        }
    }

    /// [`Core::sync_ends`] when the device pushed ends (or after a restore).
    #[inline(never)]
    fn sync_ends_slow(&mut self) -> Synced {
        let d = self.deferred.as_mut().expect("deferred mode");
        let moved = self.dev.take_ends(&mut d.taken);
        if !d.synced || moved {
            // Read every end again (a suspension can move an end later, which the heap of
            // the earliest cannot take back).
            d.synced = true;
            let n = d.slots as usize;
            d.end.clear();
            d.end.resize(n, u64::MAX);
            d.pos.clear();
            d.pos.resize(n, u32::MAX);
            d.soonest.clear();
            for i in 0..d.inflight.len() {
                let (slot, base) = (d.inflight[i].slot, d.inflight[i].base);
                d.set_pos(slot, i);
                d.set_end(slot, provisional(&self.dev, slot, base));
            }
            return Synced::All;
        }
        let mut first = u64::MAX;
        for k in 0..d.taken.len() {
            let (slot, e) = d.taken[k];
            let i = d.pos.get(slot as usize).copied().unwrap_or(u32::MAX) as usize;
            // (Only the base is read: no copy of the whole request.)
            if let Some(base) = d.inflight.get(i).filter(|f| f.slot == slot).map(|f| f.base) {
                let e = e.max(base);
                d.set_end(slot, e);
                first = first.min(e);
            }
        }
        if first == u64::MAX {
            Synced::Same
        } else {
            Synced::One(first)
        }
    }

    /// The earliest provisional completion of the requests in flight (None: none known).
    fn earliest_end(&mut self) -> Option<u64> {
        let d = self.deferred.as_mut().expect("deferred mode");
        while let Some(&Reverse(k)) = d.soonest.peek() {
            let (e, slot) = unpack(k);
            if d.end[slot as usize] == e {
                return Some(e);
            }
            d.soonest.pop();
        }
        None
    }

    /// Records in-flight request `i` as completed at `c`.
    fn complete(&mut self, i: usize, c: u64) {
        let d = self.deferred.as_mut().expect("deferred mode");
        if d.frontier.is_none() && !d.stream_flushes.is_empty() {
            // (After a restore: built while the request is still among those in flight.)
            d.build_frontier();
        }
        let f = d.inflight.swap_remove(i);
        if let Some(m) = d.inflight.get(i).map(|m| m.slot) {
            d.set_pos(m, i);
        }
        d.free_slots.push(f.slot);
        self.host_busy_until = self.host_busy_until.max(c);
        let streaming_flush = (d.frontier.is_some() || !d.stream_flushes.is_empty())
            && (f.flush || f.req.op != Op::Read);
        if f.flush {
            if f.flow != NO_FLOW {
                d.flow_flushed.push((f.flow, c, f.order));
            } else {
                self.stream_flush_progress(f.slot, c, true);
            }
            return;
        }
        #[cfg(test)]
        crate::device::audit::end_slot(f.slot, c);
        if f.flow != NO_FLOW {
            d.flow_done.push((f.flow, f.req, f.arrival, c, f.order));
        }
        let closed = f.flow == NO_FLOW && !d.streaming;
        let lat = c.saturating_sub(f.arrival);
        let s = &mut self.stats;
        match f.req.op {
            Op::Read => s.win.rd.record(lat),
            Op::Write => s.win.wr.record(lat),
            Op::Trim | Op::Flush => {}
        }
        if closed {
            if let Host::ClosedLoop { .. } = self.p.host {
                s.heap.push(Reverse(c));
            }
        }
        self.dev.on_request(f.req.op, f.arrival, c);
        if streaming_flush {
            self.stream_flush_progress(f.slot, c, false);
        }
    }

    /// Completes every in-flight request whose completion is known and at most `t` (final
    /// when the device has no decision before `t`).
    fn complete_until(&mut self, t: u64) {
        self.sync_ends();
        let d = self.deferred.as_mut().expect("deferred mode");
        let Some(first) = d.take_current(t) else {
            return;
        };
        // Usually the only one: completed without the scratch list or a search.
        if d.soonest.peek().is_none_or(|r| unpack(r.0).0 > t) {
            let i = d.pos[first.0 as usize] as usize;
            self.complete(i, first.1);
            return;
        }
        let mut done = std::mem::take(&mut d.done);
        done.push(first);
        while let Some(x) = d.take_current(t) {
            done.push(x);
        }
        if done.len() > MANY_DONE {
            self.complete_many(&mut done);
            self.deferred.as_mut().expect("deferred mode").done = done;
            return;
        }
        // In the order of a scan of the requests in flight from the first, each completion
        // moving the last request into its place: always the one at the lowest position.
        while !done.is_empty() {
            let d = self.deferred.as_ref().expect("deferred mode");
            let (k, i) = done
                .iter()
                .enumerate()
                .map(|(k, &(slot, _))| (k, d.pos[slot as usize] as usize))
                .min_by_key(|&(_, i)| i)
                .expect("not empty");
            let c = done.swap_remove(k).1;
            self.complete(i, c);
        }
        self.deferred.as_mut().expect("deferred mode").done = done;
    }

    /// Completes the (slot, completion) pairs of `done` (emptied) in the order of
    /// [`Core::complete_until`]'s scan, the lowest position first, in O(n log n) rather
    /// than its O(n²): draining a run that ends with a long queue (an open-loop flow faster
    /// than the device) completes every request in flight at once, and the quadratic scan
    /// took minutes there, during which a Ctrl-C waited.
    ///
    /// The order is the same because positions change only for the last request in flight,
    /// which a completion moves into the completed request's place: that place was the
    /// lowest of the pairs left, so the moved request, if it is one of them, comes next;
    /// every other pair keeps the position it had when it was queued.
    #[cold]
    fn complete_many(&mut self, done: &mut Vec<(u32, u64)>) {
        let d = self.deferred.as_ref().expect("deferred mode");
        // Per slot: its completion while it is one of `done` and not completed yet.
        let mut when: Vec<Option<u64>> = vec![None; d.pos.len()];
        // (position, slot) packed, the lowest position on top.
        let mut order: BinaryHeap<Reverse<u64>> = BinaryHeap::with_capacity(done.len());
        for &(slot, c) in done.iter() {
            when[slot as usize] = Some(c);
            order.push(Reverse(((d.pos[slot as usize] as u64) << 32) | slot as u64));
        }
        done.clear();
        while let Some(Reverse(k)) = order.pop() {
            let (i, slot) = ((k >> 32) as usize, k as u32);
            // Taken already: it was moved into a completed request's place (below).
            let Some(mut c) = when[slot as usize].take() else {
                continue;
            };
            loop {
                self.complete(i, c);
                let d = self.deferred.as_ref().expect("deferred mode");
                match d.inflight.get(i).and_then(|m| when[m.slot as usize].take()) {
                    Some(next) => c = next,
                    None => break,
                }
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
    pub(super) fn settle_closed(&mut self) {
        let heap_top = self.stats.heap.peek().map(|r| r.0);
        self.settle(heap_top);
        // Every slot held: a request's completion frees one, but a trace's flush frees its
        // slot only once the requests it waits for have completed too, which can take
        // several completions (each pass completes at least one request in flight).
        while self.stats.heap.is_empty() {
            let before = self.deferred.as_ref().map_or(0, |d| d.inflight.len());
            if before == 0 {
                break;
            }
            self.settle(None);
            // (No progress: an inconsistent state, never a hang.)
            if self.deferred.as_ref().map_or(0, |d| d.inflight.len()) == before {
                break;
            }
        }
    }

    /// Advances the device through every decision before the earlier of `bound` and the
    /// earliest known completion, then completes what is final by then.
    fn settle(&mut self, bound: Option<u64>) {
        // The earliest of `bound` and the known completions is `known` when `any` of them
        // is (the minimum of the Options, kept as a plain time for the loop).
        let b = bound.unwrap_or(u64::MAX);
        self.sync_ends();
        let e = self.earliest_end();
        let (mut known, mut any) = (b.min(e.unwrap_or(u64::MAX)), bound.or(e).is_some());
        // One scan of the device's queues: commit the next decision if it comes before the
        // earliest known completion.
        while self.dev.step_before(known).is_some() {
            // Request ends change only on host commits: when the last one only made its
            // own request's end known, the earliest known completion takes it in.
            match self.sync_ends() {
                Synced::Same => {}
                Synced::One(e) => {
                    known = known.min(e);
                    any = true;
                }
                Synced::All => {
                    let e = self.earliest_end();
                    known = b.min(e.unwrap_or(u64::MAX));
                    any = bound.or(e).is_some();
                }
            }
        }
        if any {
            self.complete_until(known);
        }
    }

    /// Several flows: advances the device until either the flows' next arrival or flush or
    /// the earliest completion comes first, and reports every completion that is final by
    /// then to `fs`; false when none was.
    pub(crate) fn settle_flows(&mut self, fs: &mut FlowSet) -> bool {
        self.settle(fs.peek_arrival());
        self.flow_completions(fs)
    }

    /// Several flows: reports the completions (requests and flushes) made final so far to
    /// `fs`; false when there were none.
    pub(crate) fn flow_completions(&mut self, fs: &mut FlowSet) -> bool {
        let Some(d) = self.deferred.as_mut() else {
            return false;
        };
        let any = !d.flow_done.is_empty() || !d.flow_flushed.is_empty();
        for (i, req, t, c, order) in d.flow_done.drain(..) {
            fs.completed_later(i as usize, &req, t, c, order);
        }
        for (i, c, order) in d.flow_flushed.drain(..) {
            fs.flush_device_done(i as usize, c, order);
        }
        any
    }

    /// A free request slot, opened at the device for the host operations queued next.
    fn open_deferred_slot(&mut self, sim: &Simulation) -> u32 {
        let slot = self.deferred.as_mut().expect("deferred mode").take_slot();
        self.dev.open_slot(slot);
        self.dev.set_free_segments(sim.ftl().free_segments() as u64);
        slot
    }

    /// Finishes every request in flight (end of the run).
    pub(crate) fn drain_deferred(&mut self) {
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
        self.issue_deferred(sim, req, t, (NO_FLOW, 0), rec, req.fua)
    }

    /// Several flows in deferred mode: serves flow `flow`'s request arriving at `t` (the
    /// device was settled up to it by [`Core::settle_flows`]); its completion is reported
    /// by a later [`Core::settle_flows`] with `order` (its place among the flow's I/Os).
    /// `durable`: a write of a flow with `sync=1`, which completes once its pages are
    /// programmed ([`Core::write_through`]).
    pub(crate) fn submit_flow_deferred(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
        t: u64,
        (flow, order): (usize, u64),
        durable: bool,
        rec: &mut Recorder,
    ) -> Result<()> {
        self.advance_to(t);
        self.stats.last_arrival = self.stats.last_arrival.max(t);
        self.issue_deferred(sim, req, t, (flow as u32, order), rec, durable)
    }

    /// Streaming API in deferred mode: serves `req` arriving at `t` after advancing the
    /// device to `t`; its completion is recorded once final.
    pub(super) fn submit_stream_deferred(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
        t: u64,
        rec: &mut Recorder,
        fua: bool,
    ) -> Result<()> {
        self.deferred.as_mut().expect("deferred mode").streaming = true;
        self.advance_to(t);
        self.issue_deferred(sim, req, t, (NO_FLOW, 0), rec, fua)
    }

    /// Serves `req` at `t` (of `flow`, the `order`-th of its I/Os, or `NO_FLOW`) with its
    /// host operations queued at the device (`fua`: a write whose pages the write cache
    /// holds dirty programs them in the same request).
    fn issue_deferred(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
        t: u64,
        (flow, order): (u32, u64),
        rec: &mut Recorder,
        fua: bool,
    ) -> Result<()> {
        let slot = self.open_deferred_slot(sim);
        let s = &mut self.stats;
        if s.requests == 0 {
            s.first_t = t;
            s.win.t0 = t;
        }
        let mut base = self.serve(sim, req, t)?;
        #[cfg(test)]
        crate::device::audit::bind_slot(slot);
        if fua && req.op == Op::Write {
            base = base.max(self.write_through(sim, req, t)?);
        }
        self.deferred
            .as_mut()
            .expect("deferred mode")
            .push_inflight(
                &self.dev,
                Inflight {
                    slot,
                    req: *req,
                    flow,
                    arrival: t,
                    base,
                    flush: false,
                    order,
                },
            );
        self.count_served(sim, req, t, rec);
        Ok(())
    }

    /// A resumed run's requests in flight against its workload: every one belongs to a flow
    /// of `flows` (None: not a run of several flows; else the flows' requests in flight and
    /// flushes waiting for their device end), and each flow counts as many in flight as the
    /// driver holds for it.
    pub(crate) fn check_inflight_flows(&self, flows: Option<(&[u32], Vec<u32>)>) -> Result<()> {
        let Some(d) = &self.deferred else {
            return Ok(());
        };
        let n = flows.as_ref().map_or(0, |f| f.0.len());
        let ok = d.check(Some(n)).is_ok()
            && flows
                .as_ref()
                .is_none_or(|f| d.inflight_per_flow(n) == f.0 && d.flushes_per_flow(n) == f.1)
            && (flows.is_some() || (d.flow_done.is_empty() && d.flow_flushed.is_empty()));
        if !ok {
            return Err(Error::Input(
                "checkpoint: the requests in flight do not match the workload's host flows".into(),
            ));
        }
        Ok(())
    }
}

impl Deferred {
    /// A free request slot (a new one when none is free).
    fn take_slot(&mut self) -> u32 {
        self.free_slots.pop().unwrap_or_else(|| {
            self.slots += 1;
            self.slots - 1
        })
    }

    /// Puts `f` in flight, with its provisional completion on `dev`.
    #[inline]
    fn push_inflight<D: DeviceModel>(&mut self, dev: &D, f: Inflight) {
        let (slot, base) = (f.slot, f.base);
        if self.base_of.len() <= slot as usize {
            self.base_of.resize(slot as usize + 1, 0);
        }
        self.base_of[slot as usize] = base;
        if let Some(w) = self.frontier.as_mut() {
            if f.flush || f.req.op != Op::Read {
                w.issue(slot);
            }
        }
        let i = self.inflight.len();
        self.inflight.push(f);
        // Its provisional completion (all its parts may have needed no flash).
        let end = provisional(dev, slot, base);
        self.set_pos(slot, i);
        self.set_end(slot, end);
    }

    /// Sets the provisional completion of the request in flight on `slot` (placed by
    /// [`Deferred::set_pos`]) to `e` and, when known, offers it to the heap of the earliest.
    #[inline]
    fn set_end(&mut self, slot: u32, e: u64) {
        self.end[slot as usize] = e;
        if e != u64::MAX {
            self.soonest.push(Reverse(entry(e, slot)));
        }
    }

    /// Takes the earliest current entry of `soonest` at most `t` as (slot, completion),
    /// dropping the stale ones before it; clearing the slot's end makes a duplicate entry
    /// stale.
    #[inline]
    fn take_current(&mut self, t: u64) -> Option<(u32, u64)> {
        while let Some(&Reverse(k)) = self.soonest.peek() {
            let (e, slot) = unpack(k);
            if e > t {
                return None;
            }
            self.soonest.pop();
            let s = &mut self.end[slot as usize];
            if *s == e {
                *s = u64::MAX;
                return Some((slot, e));
            }
        }
        None
    }

    /// Records that the request on `slot` is in flight at position `i` (and makes room for
    /// the slot in the per-slot tables).
    #[inline]
    fn set_pos(&mut self, slot: u32, i: usize) {
        let s = slot as usize;
        if self.pos.len() <= s {
            self.pos.resize(s + 1, u32::MAX);
            self.end.resize(s + 1, u64::MAX);
        }
        self.pos[s] = i as u32;
    }

    /// Checks a restored state: request slots in range, each either free or in flight
    /// once, flows below `flows` (Some(0): not a run of several flows; None: not known
    /// yet), times in range.
    pub(crate) fn check(&self, flows: Option<usize>) -> std::result::Result<(), String> {
        let n = self.slots as usize;
        let mut seen = vec![false; n];
        for s in self
            .inflight
            .iter()
            .map(|f| f.slot)
            .chain(self.free_slots.iter().copied())
        {
            match seen.get_mut(s as usize) {
                Some(x) if !*x => *x = true,
                _ => return Err("a request slot twice or out of range".into()),
            }
        }
        if seen.iter().any(|x| !x) || self.base_of.len() != n {
            return Err("a request slot neither free nor in flight".into());
        }
        let flow_ok = |f: u32| match flows {
            None => true,
            Some(0) => f == NO_FLOW,
            Some(n) => (f as usize) < n,
        };
        let flush_ok = |f: &Inflight| !f.flush || f.req.pages == 0;
        if !self.inflight.iter().all(|f| flow_ok(f.flow) && flush_ok(f))
            || !self
                .flow_flushed
                .iter()
                .all(|d| flows != Some(0) && flow_ok(d.0))
            || !self
                .flow_done
                .iter()
                .all(|d| flows != Some(0) && flow_ok(d.0))
        {
            return Err("a request of an unknown host flow".into());
        }
        let times = crate::checkpoint::times_ok(
            self.inflight
                .iter()
                .flat_map(|f| [f.arrival, f.base])
                .chain(self.flow_done.iter().flat_map(|d| [d.2, d.3]))
                .chain(self.flow_flushed.iter().map(|d| d.1))
                .chain(self.base_of.iter().copied()),
        );
        if !times || self.flow_done.iter().any(|d| d.3 < d.2) {
            return Err("times out of range".into());
        }
        // A trace's flushes in flight wait for slots in flight, their own among them.
        let slots: std::collections::HashSet<u32> = self.inflight.iter().map(|f| f.slot).collect();
        let in_flight = |s: &u32| slots.contains(s);
        if !self.stream_flushes.iter().all(|p| {
            p.done >= p.arrival && (p.own || in_flight(&p.slot)) && p.waits.iter().all(in_flight)
        }) {
            return Err("a flush waits for a request not in flight".into());
        }
        Ok(())
    }

    /// Request slots used so far.
    pub(crate) fn slot_count(&self) -> u32 {
        self.slots
    }

    /// Requests in flight, per flow (`flows` entries).
    pub(crate) fn inflight_per_flow(&self, flows: usize) -> Vec<u32> {
        let mut n = vec![0u32; flows];
        // (A flow's flush is not one of its requests.)
        for f in self.inflight.iter().filter(|f| !f.flush) {
            if let Some(x) = n.get_mut(f.flow as usize) {
                *x += 1;
            }
        }
        n
    }

    /// Flows' flushes whose device end is not reported yet, per flow (`flows` entries).
    pub(crate) fn flushes_per_flow(&self, flows: usize) -> Vec<u32> {
        let mut n = vec![0u32; flows];
        let own = self.inflight.iter().filter(|f| f.flush).map(|f| f.flow);
        for f in own.chain(self.flow_flushed.iter().map(|d| d.0)) {
            if let Some(x) = n.get_mut(f as usize) {
                *x += 1;
            }
        }
        n
    }

    /// Queue slots held outside flows (a single closed loop's outstanding requests): the
    /// requests in flight and, replaying a trace, its flushes not complete yet (each holds
    /// one slot, whether its own programs are still in flight or not).
    pub(crate) fn inflight_single(&self) -> usize {
        let requests = self
            .inflight
            .iter()
            .filter(|f| f.flow == NO_FLOW && !f.flush);
        let flushes = if self.streaming {
            0
        } else {
            self.stream_flushes.len()
        };
        requests.count() + flushes
    }
}
