//! fio's `thinktime` on a closed loop of any depth: after every `thinktime_blocks`
//! requests the job stops issuing, waits for every request it has in flight, then idles
//! for the think time (fio 3.33, `backend.c`: `handle_thinktime`, `io_u_quiesce`).
//!
//! What fio counts toward `thinktime_blocks` is set by `thinktime_blocks_type`:
//!
//! * `complete` (its default): completions fio has reaped. fio reaps only when its queue is
//!   full (all `iodepth` requests issued and not reaped) and then one completion per wait
//!   (`iodepth_batch_complete_min=1`); a stall reaps every request in flight, and those
//!   count toward the next stall, since fio takes the count before it waits. So at depth D
//!   the first stall comes after `thinktime_blocks + D - 1` requests, and with
//!   `thinktime_blocks < D` a stall is followed by another one request later.
//! * `issue`: requests issued.
//!
//! fio checks after each request it issues (reads, writes and trims alike). At the end of
//! `ramp_time` fio zeroes its counters but not the count at the last stall
//! (`reset_all_stats`), so after a ramp the job issues without stalls until its count
//! passes that mark again; the counters here restart at the first request issued at or
//! after the ramp's end.
//!
//! Approximation: fio's wait returns every completion ready by then; in simulated time
//! completions rarely coincide, and each wait here reaps one.

use super::spec::ThinkCount;
use serde::{Deserialize, Serialize};

/// One flow's think-time state (checkpointed with the flow).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Think {
    /// Requests issued and not yet reaped (fio's `cur_depth`; `complete` counting).
    held: u32,
    /// fio's block counter: completions reaped, or requests issued.
    count: u64,
    /// The counter at the last stall (fio's `last_thinktime_blocks`).
    last: u64,
    /// The next request waits for every request in flight, then the think time.
    pub(super) stalled: bool,
    /// The counters were restarted at the ramp's end.
    ramp_reset: bool,
    /// fio's `last_thinktime` (`thinktime_iotime`): when the flow last stalled, as fio
    /// reads its clock after a request (None: not yet, fio's start of the job).
    last_time: Option<u64>,
    /// When the flow issued its last request.
    last_issue: u64,
    /// fio's think-time check after the flow's last request was made already (by a flush
    /// that came before the next request, as fio checks before it syncs).
    pub(super) checked: bool,
}

impl Think {
    /// Accounts one request issued at `t` on a closed loop of depth `depth` (`ramp_end`:
    /// the end of the flow's ramp, if it has one); returns whether the flow now stalls.
    pub(super) fn on_issue(
        &mut self,
        t: u64,
        ramp_end: Option<u64>,
        depth: u32,
        blocks: u32,
        count: ThinkCount,
    ) -> bool {
        self.stalled = false;
        if !self.ramp_reset && ramp_end.is_some_and(|e| t >= e) {
            self.ramp_reset = true;
            self.count = 0;
        }
        self.held += 1;
        match count {
            ThinkCount::Issue => self.count += 1,
            ThinkCount::Complete if self.held >= depth => {
                // The queue is full: fio waits for one completion.
                self.held -= 1;
                self.count += 1;
            }
            ThinkCount::Complete => {}
        }
        if self.count >= self.last.saturating_add(blocks as u64) {
            self.last = self.count;
            if count == ThinkCount::Complete {
                // The wait for every request in flight reaps them after the count is taken.
                self.count += self.held as u64;
            }
            self.held = 0;
            self.stalled = true;
        }
        self.stalled
    }

    /// fio's clock when it checks the think time after the flow's last request: the time
    /// the flow could issue the next (`free`: its earliest free slot; its last issue when
    /// a slot was free already, fio then not waiting for a completion).
    pub(super) fn now(&self, free: u64) -> u64 {
        free.max(self.last_issue)
    }

    /// `thinktime_iotime` (`iotime`, with the think time `think`, ns): whether the flow
    /// stalls after its last request by time, at fio's clock `now` (the flow's first
    /// request, at `first`, starts the clock). A stall by count is decided already, and a
    /// check already made is not made again.
    pub(super) fn due_by_time(&self, now: u64, first: u64, iotime: u64, think: u64) -> bool {
        !self.stalled
            && !self.checked
            && now.saturating_sub(self.last_time.unwrap_or(first)) >= iotime + think
    }

    /// fio's think-time check after the flow's last request, made at its clock `now`:
    /// `stall` (by count or by time) restarts the clock there; one `by_time` also takes
    /// its count as a stall by count does (`count`: what counts toward `thinktime_blocks`).
    pub(super) fn check(&mut self, now: u64, stall: bool, by_time: bool, count: ThinkCount) {
        if by_time {
            self.last = self.count;
            if count == ThinkCount::Complete {
                // The wait for every request in flight reaps them after the count is taken.
                self.count += self.held as u64;
            }
            self.held = 0;
        }
        if stall {
            self.last_time = Some(now);
        }
        self.checked = true;
    }

    /// A request issued at `t`: the next check comes after it.
    pub(super) fn issued(&mut self, t: u64) {
        self.last_issue = t;
        self.checked = false;
    }

    /// The flow waited for every request in flight at a pass's end (module `drain`): fio
    /// reaps them there, and with `complete` counting they count toward the next stall.
    pub(super) fn on_drain(&mut self, count: ThinkCount) {
        if count == ThinkCount::Complete {
            self.count += self.held as u64;
        }
        self.held = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The requests (1-based) after which a flow stalls, over its first `n`.
    fn stalls(depth: u32, blocks: u32, count: ThinkCount, ramp_end: Option<u64>) -> Vec<u64> {
        let mut th = Think::default();
        // Request k is issued at time k.
        (1..=40u64)
            .filter(|&k| th.on_issue(k, ramp_end, depth, blocks, count))
            .collect()
    }

    #[test]
    fn depth_one_stalls_after_every_thinktime_blocks_requests() {
        for count in [ThinkCount::Complete, ThinkCount::Issue] {
            assert_eq!(stalls(1, 1, count, None), (1..=40).collect::<Vec<_>>());
            assert_eq!(
                stalls(1, 4, count, None),
                vec![4, 8, 12, 16, 20, 24, 28, 32, 36, 40]
            );
        }
    }

    #[test]
    fn counting_completions_at_depth_d_lags_by_d_minus_one_then_counts_the_drained() {
        // Depth 4, every 8 completions: the queue fills with 4 requests, then each request
        // reaps one: the 8th reap comes with the 11th request; the stall reaps the other 3,
        // which count toward the next 8: 5 more reaps, the first 3 of them requests that
        // fill the queue again without reaping (so 3 + 5 = 8 requests), and so on.
        assert_eq!(
            stalls(4, 8, ThinkCount::Complete, None),
            vec![11, 19, 27, 35]
        );
        // Counting issues: every 8 requests.
        assert_eq!(
            stalls(4, 8, ThinkCount::Issue, None),
            vec![8, 16, 24, 32, 40]
        );
        // thinktime_blocks below the depth: a stall's drained completions reach the next
        // mark at once, so the request after a stall stalls again (as fio does).
        assert_eq!(
            stalls(8, 2, ThinkCount::Complete, None)[..4],
            [9, 10, 18, 19]
        );
    }

    #[test]
    fn the_ramps_end_restarts_the_counters_but_not_the_mark() {
        // Every request at depth 1, ramp ending at request 10: stalls through 9, then the
        // count restarts at 0 while the mark stays at 9, so requests 10..=18 pass without a
        // stall (fio's reset_all_stats) and request 19 stalls again.
        let s = stalls(1, 1, ThinkCount::Complete, Some(10));
        assert_eq!(s[..9], (1..=9).collect::<Vec<_>>()[..]);
        assert_eq!(s[9], 19);
    }
}
