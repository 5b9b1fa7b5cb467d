//! fio's steady-state detection (`ss`, `ss_dur`, `ss_ramp`; fio 3.33's `steadystate.c`) in
//! simulated time.
//!
//! A *unit* is one flow, or with `group_reporting` the flows of one group. Once a second of
//! the unit's time (its first arrival is second 0) the unit takes a sample: the requests
//! and bytes its flows completed in the second that just ended (fio's `io_blocks` and
//! `io_bytes`, reads, writes and trims, over a `rate_time` of exactly 1000 ms). Samples
//! start once `ss_ramp` plus one second has passed. The last `ss_dur` samples form a
//! window; once it is full, every sample checks the criterion ([`Window::push`], fio's
//! `steadystate_deviation` / `steadystate_slope` operation for operation). When it holds,
//! the unit's flows issue nothing from that second on (fio's `fio_mark_td_terminate`);
//! their requests in flight complete.
//!
//! Named assumption (fio samples by its helper thread's wall clock, whose phase against
//! a job's start is arbitrary): sample k covers the completions in
//! `[start + (k-1) s, start + k s)` and is taken at `start + k s`, before any request
//! arriving then. A flow is sampled while it still has requests to issue: not after its
//! last request, nor at or after its run time's end.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One second, ns.
pub const SECOND_NS: u64 = 1_000_000_000;

/// What fio's steady state measures (`iops...` or `bw...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyMetric {
    /// Requests completed per second.
    Iops,
    /// Bytes completed per second.
    Bw,
}

/// A flow's steady-state settings (fio's `ss`, `ss_dur`, `ss_ramp`, `group_reporting`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadySpec {
    /// IOPS or bandwidth.
    pub metric: SteadyMetric,
    /// `_slope`: the least-squares slope of the window; else its largest deviation from
    /// its mean.
    pub slope: bool,
    /// `%`: the criterion relative to the window's mean, in percent.
    pub percent: bool,
    /// The threshold: steady once the criterion is below it (fio's `ss_limit`).
    pub limit: f64,
    /// Samples in the window: `ss_dur` in whole seconds (fio divides its microseconds by
    /// 10^6), at least 1.
    pub dur: u64,
    /// `ss_ramp`, microseconds (fio's unit): sampling starts one second after it.
    pub ramp_us: u64,
    /// `group_reporting`: the flows of the flow's group are one unit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub group_reporting: bool,
}

impl SteadySpec {
    /// fio's `ss` value as its JSON prints it (`iops_slope:0.010000%`: `%f` of the limit
    /// as a float).
    pub fn describe(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            self.metric_name(),
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.percent { "%" } else { "" }
        )
    }

    fn metric_name(&self) -> &'static str {
        match self.metric {
            SteadyMetric::Iops => "iops",
            SteadyMetric::Bw => "bw",
        }
    }
}

/// fio's ring of the last `dur` samples with its running sums (`struct steadystate_data`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Window {
    dur: u64,
    head: u64,
    tail: u64,
    iops: Vec<u64>,
    bw: Vec<u64>,
    sum_y: u64,
    sum_xy: u64,
    oldest_y: u64,
    full: bool,
    /// The last slope computed (0 before the window is full).
    pub slope: f64,
    /// The last largest deviation from the mean (0 before the window is full).
    pub deviation: f64,
    /// The last criterion computed (0 before the window is full).
    pub criterion: f64,
}

impl Window {
    /// An empty window of `dur` (>= 1) samples.
    pub fn new(dur: u64) -> Window {
        Window {
            dur,
            head: 0,
            tail: 0,
            iops: vec![0; dur as usize],
            bw: vec![0; dur as usize],
            sum_y: 0,
            sum_xy: 0,
            oldest_y: 0,
            full: false,
            slope: 0.0,
            deviation: 0.0,
            criterion: 0.0,
        }
    }

    /// Adds a sample and checks the criterion of `spec` once the window is full (fio's
    /// `steadystate_slope` / `steadystate_deviation`, in their integer and float steps);
    /// true: steady state is attained (the ring then keeps its place, as fio's).
    pub fn push(&mut self, spec: &SteadySpec, iops: u64, bw: u64) -> bool {
        let t = self.tail as usize;
        self.iops[t] = iops;
        self.bw[t] = bw;
        let pick = |w: &Window, k: usize| match spec.metric {
            SteadyMetric::Iops => w.iops[k],
            SteadyMetric::Bw => w.bw[k],
        };
        let new_val = pick(self, t);
        let n = self.dur;
        if self.full || self.tail - self.head == n - 1 {
            if !self.full {
                self.sum_y = 0;
                for i in 0..n as usize {
                    self.sum_y = self.sum_y.wrapping_add(pick(self, i));
                    let j = ((self.head + i as u64) % n) as usize;
                    self.sum_xy = self
                        .sum_xy
                        .wrapping_add((i as u64).wrapping_mul(pick(self, j)));
                }
                self.full = true;
            } else {
                self.sum_y = self.sum_y.wrapping_sub(self.oldest_y).wrapping_add(new_val);
                // The x values shift down by one: sum_xy - sum_y + n * new (u64, as fio).
                self.sum_xy = self
                    .sum_xy
                    .wrapping_sub(self.sum_y)
                    .wrapping_add(n.wrapping_mul(new_val));
            }
            self.oldest_y = pick(self, self.head as usize);
            let attained = if spec.slope {
                let sum_x = n * (n - 1) / 2;
                let sum_x_sq = (n - 1) * n * (2 * n - 1) / 6;
                self.slope = (self.sum_xy as f64 - sum_x as f64 * self.sum_y as f64 / n as f64)
                    / (sum_x_sq as f64 - sum_x as f64 * sum_x as f64 / n as f64);
                // fio divides by the mean in integers here (sum_y / dur).
                self.criterion = if spec.percent {
                    100.0 * self.slope / ((self.sum_y / n) as f64)
                } else {
                    self.slope
                };
                let result = self.criterion * if self.criterion < 0.0 { -1.0 } else { 1.0 };
                result < spec.limit
            } else {
                let mean = self.sum_y as f64 / n as f64;
                self.deviation = 0.0;
                for i in 0..n as usize {
                    let diff = pick(self, i) as f64 - mean;
                    let d = diff * if diff < 0.0 { -1.0 } else { 1.0 };
                    // fio's max(): the later value unless the earlier is larger.
                    self.deviation = if self.deviation > d {
                        self.deviation
                    } else {
                        d
                    };
                }
                self.criterion = if spec.percent {
                    100.0 * self.deviation / mean
                } else {
                    self.deviation
                };
                self.criterion < spec.limit
            };
            if attained {
                return true;
            }
        }
        self.tail = (self.tail + 1) % n;
        if self.tail <= self.head {
            self.head = (self.head + 1) % n;
        }
        false
    }

    /// The window's samples oldest first, as fio's JSON lists them (`data.iops`,
    /// `data.bw`; unfilled places are 0), attained or not.
    pub fn ordered(&self, attained: bool) -> (Vec<u64>, Vec<u64>) {
        let n = self.dur;
        let j = if attained || !self.full {
            self.head
        } else if self.head == 0 {
            n - 1
        } else {
            self.head - 1
        };
        (0..n)
            .map(|l| {
                let k = ((j + l) % n) as usize;
                (self.iops[k], self.bw[k])
            })
            .unzip()
    }

    /// Whether a window read from a checkpoint is one of `dur` samples with its places
    /// in range (so that it cannot index out of its ring).
    pub(super) fn fits(&self, dur: u64) -> bool {
        self.dur == dur
            && dur >= 1
            && self.iops.len() as u64 == dur
            && self.bw.len() as u64 == dur
            && self.head < dur
            && self.tail < dur
            && (self.full || self.head == 0)
    }

    /// fio's `steadystate_iops_mean` / `steadystate_bw_mean`: integer means over the
    /// whole ring.
    pub fn means(&self) -> (u64, u64) {
        let n = self.dur;
        (
            self.iops.iter().fold(0u64, |a, &x| a.wrapping_add(x)) / n,
            self.bw.iter().fold(0u64, |a, &x| a.wrapping_add(x)) / n,
        )
    }
}

/// Per flow: requests and bytes completed per second of its time, for the seconds not
/// sampled yet (checkpointed with the flow).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Buckets {
    seconds: BTreeMap<u64, (u64, u64)>,
}

impl Buckets {
    /// A completion at `done` of `bytes`, in the flow's time from `epoch`.
    pub(super) fn add(&mut self, epoch: u64, done: u64, bytes: u64) {
        let e = self
            .seconds
            .entry(done.saturating_sub(epoch) / SECOND_NS)
            .or_default();
        // (Wrapping: a checkpoint's counts are not trusted to be small.)
        e.0 = e.0.wrapping_add(1);
        e.1 = e.1.wrapping_add(bytes);
    }

    /// Takes second `s`'s (requests, bytes) and drops the seconds before it.
    pub(super) fn take(&mut self, s: u64) -> (u64, u64) {
        let later = self.seconds.split_off(&s);
        self.seconds = later;
        self.seconds.remove(&s).unwrap_or((0, 0))
    }
}

/// A unit's steady-state progress (checkpointed).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct UnitState {
    /// The next sample's second (from 1).
    pub next: u64,
    /// Whether `ss_ramp` + 1 s has passed (fio's `FIO_SS_RAMP_OVER`).
    pub ramp_over: bool,
    /// The window.
    pub window: Window,
    /// When steady state was attained (the flows issue nothing from then on).
    pub attained_at: Option<u64>,
    /// Samples taken.
    pub samples: u64,
}

/// One unit: its flows (file order; the last holds fio's data, `steadystate_setup`) and
/// settings.
#[derive(Debug, Clone)]
pub(super) struct Unit {
    pub flows: Vec<usize>,
    pub spec: SteadySpec,
}

impl Unit {
    /// The units of flows with `specs` (None: no steady state): one per flow, or one per
    /// group of flows with `group_reporting`.
    pub(super) fn of(specs: &[Option<&SteadySpec>], groups: &[u32]) -> Vec<Unit> {
        let mut units: Vec<Unit> = Vec::new();
        for (i, s) in specs.iter().enumerate() {
            let Some(s) = s else { continue };
            if s.group_reporting {
                if let Some(u) = units
                    .iter_mut()
                    .find(|u| u.spec.group_reporting && groups[u.flows[0]] == groups[i])
                {
                    u.flows.push(i);
                    continue;
                }
            }
            units.push(Unit {
                flows: vec![i],
                spec: (*s).clone(),
            });
        }
        units
    }

    pub(super) fn initial(&self) -> UnitState {
        UnitState {
            next: 1,
            ramp_over: self.spec.ramp_us == 0,
            window: Window::new(self.spec.dur),
            attained_at: None,
            samples: 0,
        }
    }
}

#[cfg(test)]
#[path = "steady_tests.rs"]
mod tests;

impl super::FlowSet {
    /// Takes every unit's samples due at or before `t` (the next event's time: every
    /// completion before it is known) and checks them; true when one attained steady
    /// state (its flows then issue nothing at or after that sample).
    pub(super) fn steady_upto(&mut self, t: u64) -> bool {
        let mut ended = false;
        for u in 0..self.units.len() {
            if self.steady[u].attained_at.is_some() || self.steady[u].next == u64::MAX {
                continue;
            }
            // The unit's flows start together (`FlowSet::new` checks it).
            let first = |i: &usize| self.state[*i].first_arrival;
            let Some(epoch) = self.units[u].flows.iter().filter_map(first).min() else {
                continue;
            };
            let due = epoch.saturating_add(self.steady[u].next.saturating_mul(SECOND_NS));
            if due > t {
                // (The common case, checked before anything is copied.)
                continue;
            }
            let flows = self.units[u].flows.clone();
            loop {
                let k = self.steady[u].next;
                let at = epoch.saturating_add(k.saturating_mul(SECOND_NS));
                if at > t {
                    break;
                }
                self.steady[u].next = k + 1;
                let running: Vec<bool> = flows.iter().map(|&i| self.running_at(i, at)).collect();
                if !running.iter().any(|&r| r) {
                    // No flow of the unit issues again: no more samples.
                    self.steady[u].next = u64::MAX;
                    break;
                }
                let spec = &self.units[u].spec;
                // fio's FIO_SS_RAMP_OVER: `ss_ramp` + 1 s since the start, in microseconds.
                if !self.steady[u].ramp_over
                    && k.saturating_mul(1_000_000) >= spec.ramp_us.saturating_add(1_000_000)
                {
                    self.steady[u].ramp_over = true;
                }
                let (mut iops, mut bw) = (0u64, 0u64);
                for (&i, &run) in flows.iter().zip(&running) {
                    // Every flow's second k - 1 ends here; a running one's counts (fio's
                    // 1000 * delta / rate_time with rate_time 1000 ms).
                    let (n, b) = self.state[i].steady.take(k.saturating_sub(1));
                    if run && self.steady[u].ramp_over {
                        iops = iops.wrapping_add(n);
                        bw = bw.wrapping_add(b);
                    }
                }
                // fio checks at the unit's last flow, which holds the window.
                if !running[running.len() - 1] || !self.steady[u].ramp_over {
                    continue;
                }
                let st = &mut self.steady[u];
                st.samples += 1;
                if st.window.push(spec, iops, bw) {
                    st.attained_at = Some(at);
                    ended = true;
                    break;
                }
            }
        }
        ended
    }

    /// Whether flow `i` still has requests to issue at `at` (fio's job is running then):
    /// started, not all issued, before its run time's end.
    fn running_at(&self, i: usize, at: u64) -> bool {
        self.state[i].first_arrival.is_some_and(|f| f <= at)
            && !self.exhausted(i)
            && self.runtime_deadline(i).is_none_or(|d| at < d)
    }

    /// When steady state ended flow `i` (None: not attained, or no steady state).
    pub(super) fn steady_end(&self, i: usize) -> Option<u64> {
        self.steady[self.unit_of[i]?].attained_at
    }

    /// Whether steady state ended a flow (`ended_by` = "steady_state").
    pub fn ended_by_steady_state(&self) -> bool {
        self.steady.iter().any(|s| s.attained_at.is_some())
    }

    /// Flow `i`'s steady-state section of the result (its unit's).
    pub(super) fn steady_report(&self, i: usize) -> Option<SteadyStateReport> {
        let u = self.unit_of[i]?;
        let (spec, st) = (&self.units[u].spec, &self.steady[u]);
        let attained = st.attained_at.is_some();
        let (iops, bw) = st.window.ordered(attained);
        let (iops_mean, bw_mean) = st.window.means();
        Some(SteadyStateReport {
            ss: spec.describe(),
            percent: spec.percent,
            limit: spec.limit,
            duration: spec.dur,
            ramp_us: spec.ramp_us,
            group_reporting: spec.group_reporting,
            attained,
            attained_ns: st.attained_at,
            samples: st.samples,
            criterion: st.window.criterion,
            max_deviation: st.window.deviation,
            slope: st.window.slope,
            iops_mean,
            bw_mean,
            iops,
            bw,
        })
    }
}

use crate::metrics::result::SteadyStateReport;
