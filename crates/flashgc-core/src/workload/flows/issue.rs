//! The next event over a [`FlowSet`]'s flows: a request at its arrival time, or a flush
//! that comes first (module `flush`), with each flow's per-request upkeep (think times,
//! pass ends, the writes its `fsync=N` counts).

use super::{flush, FlowArrival, FlowSet};
use crate::error::Result;
use crate::workload::{Op, Request, Workload};

/// What [`FlowSet::next_event`] issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowEvent {
    /// Flow `.0`'s request `.1`, arriving at `.2`.
    Request(usize, Request, u64),
    /// A flush (completed, or pending at the device).
    Flush,
    /// Steady state ended a flow; nothing issued (module `steady`).
    SteadyState,
}

impl FlowSet {
    /// The next request over all flows: (flow, request, arrival time); None when every
    /// flow has issued all its requests (or, with completions decided later, waits for
    /// one).
    pub fn next_arrival_request(&mut self) -> Result<Option<(usize, Request, u64)>> {
        self.next_arrival_request_with(false, &mut |_, t, _| Ok(Some(t)))
    }

    /// [`FlowSet::next_arrival_request`] issuing the flows' flushes that come first
    /// (module `flush`): `flush(i, t)` is when the device has made what it caches durable
    /// for flow `i`'s flush at `t`, or None when it decides that later (`timed`: a timed
    /// run, whose flush latencies are recorded).
    pub fn next_arrival_request_with(
        &mut self,
        timed: bool,
        flush: &mut flush::FlushDevice<'_>,
    ) -> Result<Option<(usize, Request, u64)>> {
        Ok(match self.next_event(timed, false, flush)? {
            Some(FlowEvent::Request(i, req, t)) => Some((i, req, t)),
            _ => None,
        })
    }

    /// The next event over all flows, the flushes that come first issued through `flush`
    /// as in [`FlowSet::next_arrival_request_with`]: the next request, or with
    /// `stop_at_flush` the first flush issued (deferred commit settles the device before
    /// the next event); None when every flow has issued all its requests (or, with
    /// completions decided later, waits for one).
    pub fn next_event(
        &mut self,
        timed: bool,
        stop_at_flush: bool,
        flush: &mut flush::FlushDevice<'_>,
    ) -> Result<Option<FlowEvent>> {
        let (t, i) = loop {
            // (time, is a request, requests issued, flow): at one time a flush goes first.
            let mut best: Option<(u64, bool, u64, usize)> = None;
            let mut kind = flush::Kind::Every;
            for i in 0..self.specs.len() {
                let event = match self.next_flush(i) {
                    Some((t, k)) => Some((t, false, k)),
                    None => self.next_arrival(i).map(|t| (t, true, kind)),
                };
                if let Some((t, request, k)) = event {
                    let key = (t, request, self.state[i].issued, i);
                    if best.is_none_or(|b| key < b) {
                        best = Some(key);
                        kind = k;
                    }
                }
            }
            // fio's steady-state samples up to this event (module `steady`): a flow they
            // end issues nothing from then on, so the next event is chosen again (with
            // completions decided later, after the device has settled up to it).
            if let Some((t, ..)) = best {
                if self.steady_upto(t) {
                    if stop_at_flush {
                        return Ok(Some(FlowEvent::SteadyState));
                    }
                    continue;
                }
            }
            match best {
                None => return Ok(None),
                Some((t, false, _, i)) => {
                    self.issue_flush(i, t, kind, timed, flush)?;
                    if stop_at_flush {
                        return Ok(Some(FlowEvent::Flush));
                    }
                }
                Some((t, true, _, i)) => break (t, i),
            }
        };
        self.buf.clear();
        self.gens[i].fill(&mut self.buf, 1)?;
        let Some(mut req) = self.buf.pop() else {
            return Ok(None);
        };
        req.lpn += self.regions[i].0;
        req.time_ns = t;
        self.issued_bytes[i] += req.pages as u64 * self.lpn_size as u64;
        // fio's think-time check after the flow's last request (before the slots change).
        let (now, by_time) = self.think_by_time(i).unwrap_or((t, false));
        let count = self.specs[i].thinktime_count;
        let st = &mut self.state[i];
        let stalled = st.think.stalled || by_time;
        if self.specs[i].thinktime_iotime_ns.is_some() {
            if !st.think.checked {
                st.think.check(now, stalled, by_time, count);
            }
            st.think.issued(t);
        }
        if stalled || st.drain.pending {
            // After a stall or a drain every slot is free from this arrival on (none
            // earlier).
            for s in &mut st.slots {
                *s = (*s).max(t);
            }
        }
        if let Some(s) = st.slots.iter_mut().min() {
            // A slot that waited for its group's start now holds that arrival, so that
            // `completed` finds it.
            *s = (*s).max(t);
        }
        st.issued += 1;
        st.first_arrival.get_or_insert(t);
        let spec = &self.specs[i];
        if let (FlowArrival::Closed { queue_depth }, true) = (spec.arrival, spec.thinktime_ns > 0) {
            let ramp_end = self.ramp_end(i).filter(|_| spec.ramp_ns > 0);
            let (blocks, count) = (spec.thinktime_blocks, spec.thinktime_count);
            let st = &mut self.state[i];
            st.think.on_issue(t, ramp_end, queue_depth, blocks, count);
        }
        // After the think time's check, as fio's `do_io` checks its think time after each
        // request and ends its pass at the top of its loop.
        let st = &mut self.state[i];
        let flushes = spec.flush_every.is_some() || spec.end_flush;
        if flushes {
            st.flush.begin_pass(t);
        }
        if req.op == Op::Write {
            st.flush.on_write();
        }
        if st.drain.on_issue(st.issued, spec.drain_every) {
            st.think.on_drain(spec.thinktime_count);
            if flushes {
                // The sync due after the pass's last request, then its end flushes.
                st.flush.phase = flush::Phase::RunPast;
            }
        }
        Ok(Some(FlowEvent::Request(i, req, t)))
    }
}
