//! Flushes of a fio job file's flows: `fsync=N` / `fdatasync=N` and `end_fsync=1` as fio
//! 3.33 issues them, with the device's side given by the driver (docs/flows.md).
//!
//! * `fsync=N`: after every N-th write the flow issues (io_u.c `get_rw_ddir`:
//!   `io_issues[DDIR_WRITE] % fsync_blocks == 0`), its next I/O is a sync, at the time
//!   its next request could go (a free slot, after a think time or a pass's drain). fio
//!   runs it in the job's thread (a synchronous engine, or libaio's `do_io_u_sync`; other
//!   engines are refused by the job file's checks), so the flow issues nothing until the
//!   flush completes; its requests in flight go on.
//! * `end_fsync=1`: `do_io` (backend.c) ends each pass by reaping every request in flight,
//!   then syncs; so a flush after each pass's drain, and one after the flow's last
//!   request has completed (also when its run time ends it). A sync right after another
//!   is skipped (`should_fsync`: `last_was_sync`), so a pass's end flush replaces the
//!   `fsync=N` one due at the same point, and a sync due after the job's last write is
//!   not issued (`do_io` stops first).
//! * The device: a flush completes when the flow's earlier writes have completed and
//!   the write cache, if any, has programmed its dirty pages (`Core::flush_at`). No
//!   command overhead is added (none is measured for the simulated device).
//! * Under deferred commit (a priority scheduler or suspend) the device decides the
//!   flush's programs, and the flow's earlier writes' completions, after later arrivals:
//!   the flush is then pending ([`FlowSet::flush_device_done`] gives the device's end)
//!   and completes, with the same value as above, once the flow has nothing else in
//!   flight; the flow issues nothing meanwhile, as with an immediate flush.
//!
//! Approximation: fio clears `last_was_sync` at any completion, so a mixed job whose
//! reads complete after a sync, with no write issued since, syncs again; flashgc issues
//! one flush per N writes.

use super::{FlowSet, PENDING};
use crate::error::Result;
use crate::metrics::latency::Latencies;
use serde::{Deserialize, Serialize};

/// One flow's flush state (checkpointed with the flow).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Flush {
    /// Writes issued (fio's `io_issues[DDIR_WRITE]`).
    writes: u64,
    /// A flush comes before the flow's next request.
    pub(super) due: bool,
    /// The flush after the flow's last request (`end_fsync`) was issued.
    ended: bool,
    /// The latest completion of the flow's writes: what a flush waits for besides the
    /// write cache.
    writes_done: u64,
    /// Flushes issued.
    pub(super) count: u64,
    /// Their latencies (timed runs, after the ramp).
    pub(super) latency: Latencies,
    /// A flush issued at this time whose completion the device decides later (deferred
    /// commit); the flow issues nothing meanwhile.
    pub(super) pending: Option<u64>,
    /// The pending flush's end at the device, once known.
    device_done: Option<u64>,
}

/// The device's side of a flow's flush at a time: `Some(end)` when the device has made
/// the flow's cached writes durable at `end`, None when it decides that later (deferred
/// commit: [`FlowSet::flush_device_done`] brings the end).
pub type FlushDevice<'a> = dyn FnMut(usize, u64) -> Result<Option<u64>> + 'a;

impl Flush {
    /// Accounts a write issued with `every` = the flow's `fsync=N` (None: none).
    pub(super) fn on_write(&mut self, every: Option<u32>) {
        self.writes += 1;
        if every.is_some_and(|n| self.writes % n.max(1) as u64 == 0) {
            self.due = true;
        }
    }

    /// A write of the flow completed at `done`.
    pub(super) fn write_done(&mut self, done: u64) {
        self.writes_done = self.writes_done.max(done);
    }
}

impl FlowSet {
    /// Whether flow `i` still owes the flush after its last request.
    pub(super) fn final_flush_due(&self, i: usize) -> bool {
        let st = &self.state[i];
        self.specs[i].end_flush && !st.flush.ended && st.issued > 0 && self.finished(i)
    }

    /// When flow `i`'s next flush goes, if one comes before its next request: at the
    /// time its next request could go, rate cap aside (fio paces reads and writes only).
    pub(super) fn flush_at(&self, i: usize) -> Option<u64> {
        let st = &self.state[i];
        if st.flush.pending.is_some() {
            return None;
        }
        if self.final_flush_due(i) {
            // After every request in flight (do_io's final reap).
            let last = *st.slots.iter().max()?;
            return (last != PENDING).then_some(last);
        }
        if !st.flush.due || self.finished(i) {
            return None;
        }
        self.free_at(i)
    }

    /// At the run's end: the flushes the flows owe after their last requests
    /// (`end_fsync`), which the run's volume, reached by those requests, would skip.
    pub fn final_flushes(&mut self, timed: bool, device: &mut FlushDevice<'_>) -> Result<()> {
        for i in 0..self.specs.len() {
            if let Some(t) = self.flush_at(i).filter(|_| self.final_flush_due(i)) {
                self.issue_flush(i, t, timed, device)?;
            }
        }
        Ok(())
    }

    /// Whether a flow still owes its final flush (`end_fsync`) once its requests in flight
    /// have completed (deferred commit: the run's end issues it then).
    pub fn final_flush_owed(&self) -> bool {
        (0..self.specs.len())
            .any(|i| self.final_flush_due(i) || self.state[i].flush.pending.is_some())
    }

    /// Issues flow `i`'s flush at `t`; `device(i, t)` gives when the device has made the
    /// flow's earlier writes durable (its write cache's programs; `t` without one), or None
    /// when it decides that later. The flow issues nothing before the flush completes.
    pub(super) fn issue_flush(
        &mut self,
        i: usize,
        t: u64,
        timed: bool,
        device: &mut FlushDevice<'_>,
    ) -> Result<()> {
        let last = self.final_flush_due(i);
        let dev = device(i, t)?;
        let st = &mut self.state[i];
        st.flush.due = false;
        st.flush.ended |= last;
        st.flush.pending = Some(t);
        st.flush.device_done = dev;
        self.try_finish_flush(i, timed);
        Ok(())
    }

    /// Deferred commit: the device's end `done` of flow `i`'s pending flush.
    pub fn flush_device_done(&mut self, i: usize, done: u64) {
        self.state[i].flush.device_done = Some(done);
        self.try_finish_flush(i, true);
    }

    /// Completes flow `i`'s pending flush once its device end is known and the flow has
    /// no request in flight (its earlier writes' completions are then known).
    pub(super) fn try_finish_flush(&mut self, i: usize, timed: bool) {
        let st = &self.state[i];
        let (Some(t), Some(dev)) = (st.flush.pending, st.flush.device_done) else {
            return;
        };
        if self.inflight[i] > 0 {
            return;
        }
        let done = dev.max(t).max(st.flush.writes_done);
        let ramp = timed && self.ramp_end(i).is_some_and(|e| t < e);
        let st = &mut self.state[i];
        for s in &mut st.slots {
            *s = (*s).max(done);
        }
        // The waits the flush went after (a think time, a pass's drain) are over.
        st.think.stalled = false;
        st.drain.pending = false;
        st.flush.pending = None;
        st.flush.device_done = None;
        st.flush.count += 1;
        if timed && !ramp {
            st.flush.latency.record(done - t);
        }
        st.last_done = st.last_done.max(done);
    }
}
