//! The measured-phase bookkeeping every run shares: user pages written, the WAF time
//! series (one point per window, the last one partial) and the warm-up boundary of the
//! steady state.

use super::result::PhaseCounts;
use super::{waf_between, WindowPoint};
use crate::config::{Layout, RunConfig};
use crate::ftl::FtlCounters;
use serde::Serialize;

/// Progress report handed to a callback during a run.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// User pages written so far in the measured phase.
    pub user_pages: u64,
    /// Target user pages (None for a trace that runs to its end).
    pub target_pages: Option<u64>,
    /// Cumulative WAF so far.
    pub waf: f64,
}

/// Bookkeeping of a measured run: the user pages written, the WAF time series (one point
/// per window, the last one partial), and the warm-up boundary of the steady state.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Recorder {
    pub(crate) start: FtlCounters,
    last_window: FtlCounters,
    /// Counters at the start of the last recorded window (to merge a short remainder).
    prev_window: FtlCounters,
    steady_start: Option<FtlCounters>,
    series: Vec<WindowPoint>,
    written: u64,
    window: u64,
    next_window: u64,
    warmup: Option<u64>,
    target: Option<u64>,
    logical: u64,
    lpn_bytes: u64,
}

impl Recorder {
    /// A recorder for a run of `target` user pages (None: until the workload ends), starting
    /// at counters `start`; warm-up and window width come from the run configuration.
    pub fn new(
        r: &RunConfig,
        layout: &Layout,
        target: Option<u64>,
        start: FtlCounters,
    ) -> Recorder {
        let logical = layout.logical_pages;
        let lpn_bytes = layout.lpn_size as u64;
        let warmup = target.map(|t| match r.warmup {
            Some(w) => ((w * logical as f64).round() as u64).min(t),
            None => t / 2,
        });
        let window = match r.window_gib {
            Some(g) => ((g * (1u64 << 30) as f64) / lpn_bytes as f64)
                .round()
                .max(1.0) as u64,
            None => (logical / 4).max(1),
        };
        Recorder {
            steady_start: (warmup == Some(0)).then(|| start.clone()),
            last_window: start.clone(),
            prev_window: start.clone(),
            start,
            series: Vec::new(),
            written: 0,
            window,
            next_window: window,
            warmup,
            target,
            logical,
            lpn_bytes,
        }
    }

    /// User pages written so far in the measured phase.
    #[inline]
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Records one user page write (`c`: the FTL's counters after it). Returns true when the
    /// target volume has been reached.
    #[inline]
    pub fn user_page(&mut self, c: &FtlCounters) -> bool {
        self.written += 1;
        if self.written == self.next_window {
            self.next_window += self.window;
            self.push_point(c);
        }
        if Some(self.written) == self.warmup {
            self.steady_start = Some(c.clone());
        }
        self.target.is_some_and(|t| self.written >= t)
    }

    fn push_point(&mut self, c: &FtlCounters) {
        let (s, l) = (&self.start, &self.last_window);
        self.series.push(WindowPoint {
            user_bytes: self.written * self.lpn_bytes,
            capacity_written: self.written as f64 / self.logical as f64,
            waf_window: waf_between(l, c),
            waf_cumulative: waf_between(s, c),
            erases: c.erases - s.erases,
        });
        self.prev_window = std::mem::replace(&mut self.last_window, c.clone());
    }

    /// Progress so far (`c`: the FTL's counters now).
    pub fn progress(&self, c: &FtlCounters) -> Progress {
        Progress {
            user_pages: self.written,
            target_pages: self.target,
            waf: waf_between(&self.start, c),
        }
    }

    /// Checks a recorder restored from a checkpoint against the run it belongs to
    /// (`target`: the run's volume, `now`: the restored FTL counters): the run must end
    /// where the configuration says, its windows must advance, and every counter snapshot
    /// must lie between the start and now (the results subtract them). `cached`: a timed
    /// run with a write cache, whose FTL has seen fewer user writes than the host sent
    /// (the cache absorbs overwrites and holds the newest ones).
    pub(crate) fn check_restored(
        &self,
        run: &RunConfig,
        layout: &Layout,
        target: Option<u64>,
        now: &FtlCounters,
        cached: bool,
    ) -> std::result::Result<(), String> {
        // Window width and warm-up as the configuration gives them (a huge window would
        // overflow the next window's position).
        let fresh = Recorder::new(run, layout, target, self.start.clone());
        if self.window != fresh.window || self.warmup != fresh.warmup {
            return Err(format!(
                "WAF window {} / warm-up {:?} user pages; the configuration gives {} / {:?}",
                self.window, self.warmup, fresh.window, fresh.warmup
            ));
        }
        if self.target != target {
            return Err(format!(
                "run target {:?} user pages; the configuration gives {target:?}",
                self.target
            ));
        }
        if self.logical != layout.logical_pages || self.lpn_bytes != layout.lpn_size as u64 {
            return Err("recorder sized for another device".into());
        }
        if target.is_some_and(|t| self.written > t) || self.warmup > target {
            return Err(format!(
                "{} user pages written, warm-up {:?}, of a target of {target:?}",
                self.written, self.warmup
            ));
        }
        if self.next_window <= self.written || self.next_window - self.written > self.window {
            return Err("WAF window bookkeeping".into());
        }
        let le = |a: &FtlCounters, b: &FtlCounters| a.not_after(b);
        let snapshots = [
            Some(&self.last_window),
            Some(&self.prev_window),
            self.steady_start.as_ref(),
        ];
        let ordered = le(&self.start, now)
            && snapshots
                .iter()
                .flatten()
                .all(|c| le(&self.start, c) && le(c, now));
        let ftl_writes = |n: &FtlCounters| n.user_writes - self.start.user_writes;
        if !ordered
            || (!cached && ftl_writes(now) != self.written)
            || ftl_writes(now) > self.written
        {
            return Err("counter snapshots do not match the FTL's counters".into());
        }
        Ok(())
    }

    /// Closes the last, partial window and returns (whole run, steady state, warm-up user
    /// pages, series). A remainder shorter than half a window joins the last window rather
    /// than standing as a point of its own (a few pages' WAF is noise).
    pub fn finish(
        mut self,
        end: &FtlCounters,
    ) -> (PhaseCounts, PhaseCounts, u64, Vec<WindowPoint>) {
        let recorded = self
            .series
            .last()
            .map_or(0, |p| p.user_bytes / self.lpn_bytes);
        if self.written > recorded {
            if self.written - recorded < self.window / 2 && !self.series.is_empty() {
                self.series.pop();
                self.last_window = self.prev_window.clone();
            }
            self.push_point(end);
        }
        let total = PhaseCounts::between(&self.start, end, self.logical);
        let steady_from = self
            .steady_start
            .take()
            .unwrap_or_else(|| self.start.clone());
        let steady = PhaseCounts::between(&steady_from, end, self.logical);
        (
            total,
            steady,
            steady_from.user_writes - self.start.user_writes,
            self.series,
        )
    }
}
