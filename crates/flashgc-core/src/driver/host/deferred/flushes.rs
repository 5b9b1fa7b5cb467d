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
    /// The sequence number of its own slot in the [`Frontier`]: it waits for the
    /// requests numbered below it. (`waits` is filled for a checkpoint only.)
    #[serde(skip)]
    pub(super) q: u64,
    /// Every request it waits for has completed (`done` counts them).
    #[serde(skip)]
    pub(super) covered: bool,
}

/// The writes, trims and flushes in flight, numbered in issue order, while streaming
/// flushes are in flight. A flush waits for exactly the requests numbered below its own
/// slot, so the flushes' waits are nested and satisfied in arrival order: a frontier (the
/// lowest number still in flight) replaces a list of slots per flush, which cost a scan of
/// every flush and a search of its list at each completion (quadratic when many requests
/// and flushes are in flight; in memory too, a slot per flush and request).
#[derive(Debug, Clone, Default)]
pub(crate) struct Frontier {
    /// Per request slot: the number of the request on it.
    num: Vec<u64>,
    /// From number `base` on: `u64::MAX` while in flight, else its completion.
    win: std::collections::VecDeque<u64>,
    base: u64,
    /// The latest completion numbered below `base`.
    max_below: u64,
    /// Index in `stream_flushes` of the first flush not yet covered.
    next: usize,
}

impl Frontier {
    /// Numbers the request now on `slot` (issued in flight).
    pub(super) fn issue(&mut self, slot: u32) -> u64 {
        let q = self.base + self.win.len() as u64;
        let i = slot as usize;
        if self.num.len() <= i {
            self.num.resize(i + 1, u64::MAX);
        }
        self.num[i] = q;
        self.win.push_back(u64::MAX);
        q
    }

    /// A number that is already complete (a restored flush whose own programs were done).
    fn issue_done(&mut self) -> u64 {
        self.win.push_back(0);
        self.base + self.win.len() as u64 - 1
    }

    /// The request on `slot` completed at `c`.
    fn complete(&mut self, slot: u32, c: u64) {
        let Some(&q) = self.num.get(slot as usize) else {
            return;
        };
        if let Some(x) = q
            .checked_sub(self.base)
            .and_then(|i| self.win.get_mut(i as usize))
        {
            *x = c;
        }
    }
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
        if d.stream_flushes.is_empty() {
            // No flush waits: number afresh from the requests in flight now. (Dropped only
            // here, so nothing between this and the push below can leave the flush's own
            // slot unnumbered.)
            d.frontier = None;
        }
        d.build_frontier();
        let slot = self.queue_flush(sim, t, NO_FLOW, 0)?;
        let d = self.deferred.as_mut().expect("deferred mode");
        let q = d
            .frontier
            .as_ref()
            .and_then(|w| w.num.get(slot as usize).copied());
        d.stream_flushes.push(StreamFlush {
            slot,
            arrival: t,
            waits: Vec::new(),
            done: t,
            own: false,
            q: q.expect("a streaming flush's slot is numbered"),
            covered: false,
        });
        let mut touched = Vec::new();
        d.advance_frontier(&mut touched);
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
    /// at `c`; records the flushes this completes, in arrival order among those completing
    /// together.
    pub(super) fn stream_flush_progress(&mut self, slot: u32, c: u64, own: bool) {
        let d = self.deferred.as_mut().expect("deferred mode");
        d.build_frontier();
        // A replayed trace's flush in a closed loop holds a queue slot, freed now.
        let frees_slot = !d.streaming && matches!(self.p.host, Host::ClosedLoop { .. });
        let mut touched = Vec::new();
        if own {
            let q = d
                .frontier
                .as_ref()
                .and_then(|w| w.num.get(slot as usize).copied());
            if let Some(k) = q.and_then(|q| d.stream_flushes.binary_search_by_key(&q, |p| p.q).ok())
            {
                let p = &mut d.stream_flushes[k];
                if !p.own && p.slot == slot {
                    p.own = true;
                    p.done = p.done.max(c);
                    touched.push(k);
                }
            }
        }
        if let Some(w) = d.frontier.as_mut() {
            w.complete(slot, c);
        }
        d.advance_frontier(&mut touched);
        touched.sort_unstable();
        touched.dedup();
        let mut removed = 0;
        for k in touched {
            let k = k - removed;
            let p = &d.stream_flushes[k];
            if p.own && p.covered {
                let p = d.stream_flushes.remove(k);
                removed += 1;
                if let Some(w) = d.frontier.as_mut() {
                    w.next -= 1; // (a covered flush lies before it)
                }
                self.flushes.count += 1;
                self.flushes
                    .latency
                    .record(p.done.saturating_sub(p.arrival));
                if frees_slot {
                    self.stats.heap.push(Reverse(p.done));
                }
            }
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

impl super::Deferred {
    /// Builds the frontier when streaming flushes start (or after a restore, from their
    /// `waits`); nothing while it stands.
    pub(super) fn build_frontier(&mut self) {
        if self.frontier.is_some() {
            return;
        }
        let mut w = Frontier::default();
        let covered = |f: &Inflight| f.flush || f.req.op != Op::Read;
        // Restored flushes wait for nested sets: number the requests the first waits for,
        // then its own slot, then those the second adds, and so on; then the rest.
        let mut rank: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
        let own: std::collections::HashSet<u32> = self
            .stream_flushes
            .iter()
            .filter(|p| !p.own)
            .map(|p| p.slot)
            .collect();
        for (k, p) in self.stream_flushes.iter().enumerate() {
            for &s in &p.waits {
                rank.entry(s).or_insert(k);
            }
        }
        let n = self.stream_flushes.len();
        let mut by_rank: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
        for f in self
            .inflight
            .iter()
            .filter(|f| covered(f) && !own.contains(&f.slot))
        {
            by_rank[rank.get(&f.slot).copied().unwrap_or(n).min(n)].push(f.slot);
        }
        for (k, p) in self.stream_flushes.iter_mut().enumerate() {
            for &s in &by_rank[k] {
                w.issue(s);
            }
            p.q = if p.own {
                w.issue_done()
            } else {
                w.issue(p.slot)
            };
            p.covered = false;
            p.waits.clear();
        }
        for &s in &by_rank[n] {
            w.issue(s);
        }
        self.frontier = Some(Box::new(w));
        let mut touched = Vec::new();
        self.advance_frontier(&mut touched);
    }

    /// Moves the frontier past the completed requests, marking the flushes it reaches as
    /// covered (their `done` takes the latest completion below them) into `touched`.
    fn advance_frontier(&mut self, touched: &mut Vec<usize>) {
        let Some(w) = self.frontier.as_mut() else {
            return;
        };
        loop {
            while let Some(p) = self
                .stream_flushes
                .get_mut(w.next)
                .filter(|p| p.q <= w.base)
            {
                p.covered = true;
                p.done = p.done.max(w.max_below);
                touched.push(w.next);
                w.next += 1;
            }
            match w.win.front() {
                Some(&c) if c != u64::MAX => {
                    w.max_below = w.max_below.max(c);
                    w.win.pop_front();
                    w.base += 1;
                }
                _ => break,
            }
        }
    }

    /// A copy for a checkpoint: each streaming flush with the slots it still waits for
    /// (`waits`) and the latest completion among those it waited for that completed
    /// (`done`), as the format has kept them since version 9.
    pub(in crate::driver::host) fn for_checkpoint(&self) -> Self {
        let mut d = self.clone();
        d.frontier = None;
        let Some(w) = self.frontier.as_ref() else {
            return d; // (as restored: nothing changed since)
        };
        for p in d.stream_flushes.iter_mut().filter(|p| !p.covered) {
            let below = |q: u64| q < p.q;
            p.waits = self
                .inflight
                .iter()
                .filter(|f| (f.flush || f.req.op != Op::Read) && f.slot != p.slot)
                .filter(|f| {
                    w.num
                        .get(f.slot as usize)
                        .is_some_and(|&q| q >= w.base && below(q))
                })
                .map(|f| f.slot)
                .collect();
            let upto = p.q.saturating_sub(w.base) as usize;
            let done = w.win.iter().take(upto).filter(|&&c| c != u64::MAX).max();
            p.done = p.done.max(w.max_below).max(done.copied().unwrap_or(0));
        }
        d
    }
}
