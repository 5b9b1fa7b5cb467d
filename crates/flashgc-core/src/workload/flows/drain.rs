//! fio drains a job's queue at the end of every pass: `thread_main` (fio 3.33, `backend.c`)
//! calls `do_io` once per pass (`keep_running`: each of `loops`, and each further pass
//! while `io_size` is not reached), and `do_io`, once its loop ends, reaps every request
//! still in flight (`io_u_queued_complete(td, td->cur_depth)`) before it returns. So the
//! next pass's first request is issued only after the last one of the pass before has
//! completed, however deep the queue.
//!
//! What does not drain, as in fio:
//!
//! * `time_based` jobs: their offsets wrap inside one `do_io` (io_u.c,
//!   `get_next_seq_offset` and `get_next_rand_block` reset the file when `time_based`), so
//!   their only pass ends with the run time.
//! * Depth 1 (any synchronous engine, or `iodepth=1`): the one request in flight completes
//!   before the next is issued anyway, so a drain changes nothing; the plan leaves it out.
//! * Open-loop flows (`rate_iops` without `iodepth` in a `[[flow]]` section) have no
//!   passes. Every fio job is a closed loop, with or without `rate_iops`, and a
//!   rate-capped job file's flow drains as any other (the rate's schedule runs on across
//!   passes: `clear_io_state(td, 0)` keeps fio's rate counters).
//!
//! The drain counts as reaping for `thinktime_blocks_type=complete`: fio's completion
//! counter (`io_blocks`) counts what `do_io` reaps at the pass's end (module `think`).

use serde::{Deserialize, Serialize};

/// One flow's pass state (checkpointed with the flow).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Drain {
    /// The last request issued ended a pass: the next waits for every request in flight.
    pub(super) pending: bool,
}

impl Drain {
    /// Accounts the flow's `issued`-th request (1-based) on a flow whose passes are
    /// `every` requests long; returns whether it ends a pass (the flow now drains).
    pub(super) fn on_issue(&mut self, issued: u64, every: Option<u64>) -> bool {
        self.pending = every.is_some_and(|p| issued % p.max(1) == 0);
        self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::Drain;

    #[test]
    fn a_pass_ends_after_every_pass_length_requests() {
        let mut d = Drain::default();
        let ends: Vec<u64> = (1..=10).filter(|&k| d.on_issue(k, Some(3))).collect();
        assert_eq!(ends, vec![3, 6, 9]);
        let mut d = Drain::default();
        assert!(!(1..=10).any(|k| d.on_issue(k, None)));
    }
}
