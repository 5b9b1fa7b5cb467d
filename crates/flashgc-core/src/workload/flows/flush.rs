//! Flushes of a fio job file's flows: `fsync=N` / `fdatasync=N`, `end_fsync=1` and
//! `fsync_on_close=1` as fio 3.33 issues them, with the device's side given by the driver
//! (docs/flows.md, "Flushes"; the engines' side is the job file's module `flush`).
//!
//! * fio's `last_was_sync` (io_u.c `io_completed`): set by the completion of a sync,
//!   cleared by the completion of any other request and at the start of each pass
//!   (`clear_io_state`). The flow keeps its completions in flight with their issue order
//!   and counts those up to a time as reaped (fio reaps when its queue is full, so at the
//!   completion that frees a slot; ties go by issue order).
//! * `fsync=N`: whenever the writes the flow issued are a multiple of N (and more than
//!   none) and the last completion reaped was not a sync (`get_rw_ddir`, `should_fsync`),
//!   its next I/O is a sync, at the time its next request could go (a free slot, after a
//!   think time or a pass's drain). So a job whose reads complete after a sync, with no
//!   write issued since, syncs again; and an engine that queues its syncs
//!   ([`FlowSpec::queued_flush`]: io_uring, ...) issues one in every slot that frees
//!   before one of them has completed. An in-thread sync (synchronous engines, libaio)
//!   holds the flow until it completes; a queued one holds one slot.
//! * A pass that is not the job's last runs past its last request in fio (its byte limit
//!   is `size` times the loops left), so the sync due after that request is issued; then
//!   the drain, then `end_fsync`'s flush and `fsync_on_close`'s two (`put_file`'s, unseen
//!   by `last_was_sync`, and `do_io`'s), unless the last completion was a sync. The job's
//!   last pass stops at its volume: no sync after its last write, and one end flush
//!   (`fsync_on_close`'s `put_file` then follows a sync).
//! * The device: a flush completes when the flow's earlier writes have completed and the
//!   write cache, if any, has programmed the pages dirty when the flush is issued
//!   (`Core::flush_at`). No command overhead is added (none is measured for the
//!   simulated device).
//! * Under deferred commit (a priority scheduler or suspend) the device decides the
//!   flush's programs, and the flow's earlier writes' completions, after later arrivals
//!   (module `pending`): an in-thread or end flush is then pending and completes, with
//!   the same value as above, once the flow has nothing else in flight; the flow issues
//!   nothing meanwhile, as with an immediate flush. A queued sync holds its slot until
//!   its device end and the completions of the flow's writes issued before it are known,
//!   then completes with the same value too; the flow goes on issuing into its other
//!   slots meanwhile. Completions reach `last_was_sync` when they are final, each with its
//!   place among the flow's I/Os (the driver hands it back with the completion).

use super::pending::{Pending, Queued};
use super::{FlowSet, PENDING};
use crate::error::Result;
use crate::metrics::latency::Latencies;
use serde::{Deserialize, Serialize};

/// Where a flow is between two of fio's passes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Phase {
    /// Inside a pass.
    #[default]
    Running,
    /// A pass's last request was issued: the sync due after it (fio's run past the
    /// pass), then the end flushes.
    RunPast,
    /// The pass's end flushes left to issue (after its drain).
    Ends(u8),
    /// A new pass starts: fio forgets that the last completion was a sync.
    NewPass,
}

/// What a flush is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `fsync=N`'s.
    Every,
    /// `fsync_on_close`'s at a file close (`put_file`: a plain `fsync(2)`, which
    /// `last_was_sync` does not see).
    Close,
    /// `end_fsync`'s (`do_io`'s end, waited for whatever the engine).
    End,
}

/// One flow's flush state (checkpointed with the flow).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Flush {
    /// Writes issued (fio's `io_issues[DDIR_WRITE]`).
    writes: u64,
    /// Where the flow is between passes.
    pub(super) phase: Phase,
    /// The flush after the flow's last request (`end_fsync`) was issued, or skipped.
    ended: bool,
    /// The latest completion of the flow's writes: what a flush waits for besides the
    /// write cache.
    pub(super) writes_done: u64,
    /// Completions not reaped at the flow's last issue: (time, issue order, a sync).
    in_flight: Vec<(u64, u64, bool)>,
    /// The latest completion reaped (as `in_flight`; None: none since the pass began).
    last: Option<(u64, u64, bool)>,
    /// Flushes issued.
    pub(super) count: u64,
    /// Their latencies (timed runs, after the ramp).
    pub(super) latency: Latencies,
    /// A flush whose completion the device decides later (deferred commit); the flow
    /// issues nothing meanwhile.
    pub(super) pending: Option<Pending>,
    /// Deferred commit: queued syncs (io_uring's) in flight, in issue order, each holding
    /// a slot of the flow.
    pub(super) queued: Vec<Queued>,
    /// Deferred commit: the flow's writes in flight (what a queued sync issued now waits
    /// for).
    pub(super) writes_pending: u32,
}

/// The device's side of a flow's flush: `device(flow, t, order)` for flow `flow`'s flush
/// at `t`, the `order`-th of its I/Os, is `Some(end)` when the device has made the flow's
/// cached writes durable at `end`, None when it decides that later (deferred commit:
/// [`FlowSet::flush_device_done`] brings the end, with `order` to tell the flush).
pub type FlushDevice<'a> = dyn FnMut(usize, u64, u64) -> Result<Option<u64>> + 'a;

impl Flush {
    /// Accounts a write issued.
    pub(super) fn on_write(&mut self) {
        self.writes += 1;
    }

    /// A write of the flow completed at `done`.
    pub(super) fn write_done(&mut self, done: u64) {
        self.writes_done = self.writes_done.max(done);
    }

    /// An I/O of the flow (issued `order`-th) completes at `done`.
    pub(super) fn completes(&mut self, done: u64, order: u64, sync: bool) {
        self.in_flight.push((done, order, sync));
    }

    /// Reaps the completions up to `t`.
    fn reap(&mut self, t: u64) {
        let last = &mut self.last;
        self.in_flight.retain(|&e| {
            if e.0 > t {
                return true;
            }
            if last.is_none_or(|l| (e.0, e.1) > (l.0, l.1)) {
                *last = Some(e);
            }
            false
        });
    }

    /// fio's `last_was_sync` at `t`: whether the latest completion up to `t` is a sync's.
    fn last_was_sync(&self, t: u64) -> bool {
        let mut best = self.last;
        for &e in self.in_flight.iter().filter(|e| e.0 <= t) {
            if best.is_none_or(|b| (e.0, e.1) > (b.0, b.1)) {
                best = Some(e);
            }
        }
        best.is_some_and(|b| b.2)
    }

    /// The flow issues its first I/O at `t` since the pass's last request: a new pass
    /// begins, which forgets the last sync (`clear_io_state`).
    pub(super) fn begin_pass(&mut self, t: u64) {
        if self.phase != Phase::Running {
            self.reap(t);
            self.last = None;
            self.phase = Phase::Running;
        }
    }

    /// Whether `fsync=N` (`every`) owes a sync now (writes a multiple of N).
    fn every_due(&self, every: Option<u32>) -> bool {
        every.is_some_and(|n| self.writes > 0 && self.writes % n.max(1) as u64 == 0)
    }
}

impl FlowSet {
    /// Whether flow `i` writes synchronously (`sync=1`).
    pub fn sync_writes(&self, i: usize) -> bool {
        self.specs[i].sync_writes
    }

    /// Whether flow `i` still owes the flush after its last request: after every request
    /// in flight, unless the last of them was a sync.
    pub(super) fn final_flush_due(&self, i: usize) -> bool {
        let st = &self.state[i];
        if !self.specs[i].end_flush || st.flush.ended || st.issued == 0 || !self.finished(i) {
            return false;
        }
        let last = st.slots.iter().copied().max().unwrap_or(st.last_done);
        last == PENDING || !st.flush.last_was_sync(last)
    }

    /// When flow `i`'s next flush goes, if one comes before its next request, and what
    /// it is for; passes over the pass-end steps that issue nothing.
    pub(super) fn next_flush(&mut self, i: usize) -> Option<(u64, Kind)> {
        if self.state[i].flush.pending.is_some() {
            return None;
        }
        if self.final_flush_due(i) {
            // After every request in flight (do_io's final reap).
            let last = *self.state[i].slots.iter().max()?;
            return (last != PENDING).then_some((last, Kind::End));
        }
        let every = self.specs[i].flush_every;
        loop {
            let fl = &self.state[i].flush;
            // The job's end stops the flow, but for the sync due after a last pass that
            // runs past its last request.
            let past =
                self.specs[i].runs_past_end && matches!(fl.phase, Phase::Running | Phase::RunPast);
            match fl.phase {
                _ if self.finished(i) && !past => return None,
                Phase::Running | Phase::NewPass => {
                    if !fl.every_due(every) {
                        return None;
                    }
                    let t = self.free_at(i)?;
                    let fl = &self.state[i].flush;
                    let sync = fl.phase == Phase::Running && fl.last_was_sync(t);
                    return (!sync).then_some((t, Kind::Every));
                }
                Phase::RunPast => {
                    if fl.every_due(every) {
                        let t = self.free_at(i)?;
                        if !self.state[i].flush.last_was_sync(t) {
                            return Some((t, Kind::Every));
                        }
                    }
                    let s = &self.specs[i];
                    let ends = s.end_flush as u8 + (s.end_flush && s.close_flush) as u8;
                    self.state[i].flush.phase = Phase::Ends(ends);
                }
                Phase::Ends(n) => {
                    let t = self.free_at(i)?;
                    if n == 0 || self.state[i].flush.last_was_sync(t) {
                        self.state[i].flush.phase = Phase::NewPass;
                        continue;
                    }
                    let close = n == 2;
                    return Some((t, if close { Kind::Close } else { Kind::End }));
                }
            }
        }
    }

    /// At the run's end: the flushes the flows that issued all their requests owe after
    /// them (`end_fsync`, a last pass's run past its end), which the run's volume, reached
    /// by those requests, would skip.
    pub fn final_flushes(&mut self, timed: bool, device: &mut FlushDevice<'_>) -> Result<()> {
        for i in 0..self.specs.len() {
            if !self.finished(i) || self.state[i].issued == 0 {
                continue;
            }
            // The sync of a last pass that runs past its end, then the end flush (under
            // deferred commit one at a time: the next waits for the pending one).
            while let Some((t, kind)) = self.next_flush(i) {
                self.issue_flush(i, t, kind, timed, device)?;
            }
        }
        Ok(())
    }

    /// Whether a flow still owes a flush at the run's end, or has one pending (deferred
    /// commit: the run's end issues them once the flows' requests in flight complete).
    pub fn final_flush_owed(&mut self) -> bool {
        (0..self.specs.len()).any(|i| {
            let owes = self.finished(i) && self.state[i].issued > 0 && self.next_flush(i).is_some();
            owes || self.state[i].flush.pending.is_some()
        })
    }

    /// Issues flow `i`'s flush at `t`; `device(i, t)` gives when the device has made the
    /// flow's earlier writes durable (its write cache's programs; `t` without one), or None
    /// when it decides that later (deferred commit: the flush is pending). An in-thread or
    /// end flush holds the flow until it completes; a queued one a slot.
    pub(super) fn issue_flush(
        &mut self,
        i: usize,
        t: u64,
        kind: Kind,
        timed: bool,
        device: &mut FlushDevice<'_>,
    ) -> Result<()> {
        if self.specs[i].thinktime_iotime_ns.is_some() {
            // fio checks its think time after a request before it syncs: the check after
            // the flow's last request is made here (a stall by time came before `t`).
            let (now, by_time) = self.think_by_time(i).unwrap_or((t, false));
            let count = self.specs[i].thinktime_count;
            let th = &mut self.state[i].think;
            if !th.checked {
                let stall = th.stalled || by_time;
                th.check(now, stall, by_time, count);
            }
        }
        let last = self.final_flush_due(i);
        let queued = kind == Kind::Every && self.specs[i].queued_flush;
        let st = &mut self.state[i];
        // The flow's I/Os in issue order: its requests and flushes so far, this one too.
        let order = st.issued + st.flush.count + 1;
        let dev = device(i, t, order)?;
        let fl = &mut st.flush;
        match (kind, fl.phase) {
            (Kind::Every, Phase::NewPass) => fl.begin_pass(t),
            (Kind::Every, _) => fl.reap(t),
            (_, Phase::Ends(n)) => {
                fl.reap(t);
                fl.phase = Phase::Ends(n.saturating_sub(1));
            }
            _ => fl.reap(t),
        }
        fl.count += 1;
        fl.ended |= last;
        let close = kind == Kind::Close;
        match dev {
            Some(end) => {
                let done = end.max(t).max(fl.writes_done);
                self.record_flush(i, t, order, done, close, timed);
                if queued {
                    self.hold_slot(i, t, done);
                } else {
                    self.release_flow(i, done);
                }
            }
            None if queued => {
                // Deferred commit: the sync holds a slot until its completion is known.
                self.hold_slot(i, t, PENDING);
                let fl = &mut self.state[i].flush;
                let q = Queued::new(t, order, fl.writes_pending, fl.writes_done);
                fl.queued.push(q);
            }
            None => fl.pending = Some(Pending::new(t, order, close)),
        }
        Ok(())
    }

    /// A queued sync of flow `i` issued at `t` takes one slot until `until` (`PENDING`:
    /// its completion is not known yet). After a think time or a drain every slot is free
    /// by `t`; a pass's drain goes on, to wait for this sync too.
    fn hold_slot(&mut self, i: usize, t: u64, until: u64) {
        let st = &mut self.state[i];
        if st.think.stalled || st.drain.pending {
            for s in &mut st.slots {
                *s = (*s).max(t);
            }
        }
        st.think.stalled = false;
        if let Some(s) = st.slots.iter_mut().min() {
            *s = until;
        }
    }

    /// An in-thread or end flush of flow `i` completed at `done`: the flow, held until
    /// then, may go on; the waits the flush went after (a think time, a pass's drain) are
    /// over.
    pub(super) fn release_flow(&mut self, i: usize, done: u64) {
        let st = &mut self.state[i];
        for s in &mut st.slots {
            *s = (*s).max(done);
        }
        st.think.stalled = false;
        st.drain.pending = false;
    }

    /// Records flow `i`'s flush issued at `t`, the `order`-th of its I/Os, as completed at
    /// `done` (`close`: `fsync_on_close`'s `put_file` flush, which `last_was_sync` does
    /// not see).
    pub(super) fn record_flush(
        &mut self,
        i: usize,
        t: u64,
        order: u64,
        done: u64,
        close: bool,
        timed: bool,
    ) {
        let ramp = timed && self.ramp_end(i).is_some_and(|e| t < e);
        let st = &mut self.state[i];
        if !close {
            st.flush.completes(done, order, true);
        }
        if timed && !ramp {
            st.flush.latency.record(done - t);
        }
        st.last_done = st.last_done.max(done);
    }
}

#[cfg(test)]
mod tests {
    use super::Flush;

    #[test]
    fn the_latest_completion_reaped_decides_and_ties_go_by_issue_order() {
        let mut f = Flush::default();
        f.completes(10, 1, false);
        f.completes(20, 2, true);
        f.completes(20, 3, false);
        assert!(!f.last_was_sync(5));
        assert!(!f.last_was_sync(10));
        assert!(
            !f.last_was_sync(20),
            "the write issued after the sync reaped last"
        );
        f.reap(15);
        f.completes(30, 4, true);
        assert!(f.last_was_sync(30));
        assert_eq!(f.in_flight.len(), 3);
        f.reap(30);
        assert!(f.in_flight.is_empty() && f.last_was_sync(31));
    }
}
