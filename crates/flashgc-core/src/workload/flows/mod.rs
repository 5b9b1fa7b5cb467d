//! Several host flows in one run (fio's job sections and `numjobs`, MQSim's IO scenarios):
//! each flow has its own pattern (a [`FioJob`]: rw, rwmixwrite, bs, distribution), its own
//! region of the logical space (offset and size), its own arrival process (closed loop
//! with a queue depth, or a fixed rate), a start time, an optional request limit, and its
//! own statistics (docs/flows.md).
//!
//! A [`FlowSet`] is a [`Workload`] the driver recognises ([`Workload::as_flows`]): instead
//! of taking requests in file order, the driver asks it for the next arrival over all
//! flows ([`FlowSet::next_arrival_request`]: the earliest next arrival; ties go to the flow with fewer
//! requests issued, then the lower index) and reports each completion back
//! ([`FlowSet::completed`]), which frees a closed-loop slot of that flow. Without a timed
//! device (WAF-only) completions are instantaneous, so closed-loop flows take turns and
//! rate flows interleave by their rates; a mix that would starve a flow is refused
//! ([`FlowSet::check_untimed`]).

pub use crate::config::{ByteSize, FlowConfig};
pub use sections::from_config;

mod checks;
mod drain;
mod flush;
mod issue;
mod pending;
mod position;
mod report;
mod sections;
mod spec;
mod steady;
mod think;
use crate::error::{Error, Result};
use crate::metrics::latency::Latencies;
use crate::workload::fio::{FioJob, FioWorkload};
use crate::workload::{Op, Request};
pub use flush::FlushDevice;
pub use issue::FlowEvent;
use serde::{Deserialize, Serialize};

pub use spec::{FlowArrival, FlowSpec, ThinkCount};
pub use steady::{SteadyMetric, SteadySpec, Window, SECOND_NS};

/// What the driver measures of one flow (and the flow's arrival state).
#[derive(Clone, Serialize, Deserialize)]
struct FlowState {
    issued: u64,
    /// Closed loop: the completion times of the slots (sorted when saved).
    slots: Vec<u64>,
    rd: Latencies,
    wr: Latencies,
    reads: u64,
    writes: u64,
    trims: u64,
    bytes: u64,
    first_arrival: Option<u64>,
    last_done: u64,
    /// Requests issued in the ramp (`ramp_ns`), left out of the statistics above but
    /// counted in `issued`, `reads`/`writes`/`trims` and `bytes`.
    ramp_requests: u64,
    /// Their bytes.
    ramp_bytes: u64,
    /// fio's think-time stalls (closed loops with a think time).
    think: think::Think,
    /// fio's drain at the end of a pass (flows with [`FlowSpec::drain_every`]).
    drain: drain::Drain,
    /// fio's flushes (`fsync=N`, `end_fsync`, `fsync_on_close`; module `flush`).
    flush: flush::Flush,
    /// Completions per second not sampled yet (flows with steady state; module `steady`).
    steady: steady::Buckets,
}

/// Several flows as one workload (see the module docs).
pub struct FlowSet {
    specs: Vec<FlowSpec>,
    gens: Vec<FioWorkload>,
    /// (first LPN, region pages) of each flow.
    regions: Vec<(u64, u64)>,
    state: Vec<FlowState>,
    /// Per flow: bytes issued (for [`FlowSpec::bytes`]); not checkpointed: a resume
    /// replays the flow's requests and sums them again.
    issued_bytes: Vec<u64>,
    /// Per flow: requests issued whose completion is not known yet (a priority scheduler
    /// or suspend decides completions later; always 0 otherwise, so never checkpointed).
    inflight: Vec<u32>,
    buf: Vec<Request>,
    lpn_size: u32,
    /// Steady-state units (module `steady`) and each flow's.
    units: Vec<steady::Unit>,
    unit_of: Vec<Option<usize>>,
    /// Each unit's progress (checkpointed).
    steady: Vec<steady::UnitState>,
}

/// A closed-loop slot whose request is in flight with its completion not known yet.
const PENDING: u64 = u64::MAX;

/// Most requests all closed-loop flows together keep outstanding (fio's numjobs x iodepth
/// over every flow): the bound of the fio flags (`timing.iodepth`).
pub const MAX_OUTSTANDING: u64 = 1 << 20;

/// Most flows one run has (fio's `numjobs` summed over a job file's sections, or `[[flow]]`
/// copies): each has its own generator and statistics.
pub const MAX_FLOWS: usize = 1 << 12;

impl FlowSet {
    /// The flows of `specs` on a device of `logical_pages` LPNs of `lpn_size` bytes.
    pub fn new(specs: Vec<FlowSpec>, logical_pages: u64, lpn_size: u32) -> Result<FlowSet> {
        if specs.is_empty() {
            return Err(Error::config("flow", "at least one flow"));
        }
        if specs.len() > MAX_FLOWS {
            return Err(Error::config(
                "flow",
                format!(
                    "{} flows (numjobs summed over the flows); at most {MAX_FLOWS}",
                    specs.len()
                ),
            ));
        }
        // Every closed-loop slot is state, scanned per request: 1024 copies at iodepth 65536
        // (each allowed alone) took 1.5 GiB and minutes for ten requests each. The bound of
        // the fio flags' numjobs x iodepth.
        let depth = |s: &FlowSpec| match s.arrival {
            FlowArrival::Closed { queue_depth } => queue_depth as u64,
            FlowArrival::Rate { .. } => 0,
        };
        let outstanding: u64 = specs.iter().map(depth).sum();
        if outstanding > MAX_OUTSTANDING {
            // Named by the deepest flow, so that a file's error points at an `iodepth` line.
            let deepest = specs.iter().max_by_key(|s| depth(s)).expect("not empty");
            return Err(Error::config(
                format!("flow `{}`.iodepth", deepest.name),
                format!(
                    "{} here, {outstanding} requests outstanding over all flows (iodepth x \
                     numjobs, summed); at most {MAX_OUTSTANDING}",
                    depth(deepest)
                ),
            ));
        }
        for s in specs.iter().filter(|s| s.group > 0) {
            if let Some(u) = specs
                .iter()
                .find(|u| u.group < s.group && !u.bounded() && u.runtime_ns.is_none())
            {
                return Err(Error::config(
                    format!("flow `{}`.group", s.name),
                    format!(
                        "starts after the flows of earlier groups end, but flow `{}` of group {} has no request count, byte volume or run time (it would never end)",
                        u.name, u.group
                    ),
                ));
            }
        }
        let mut gens = Vec::new();
        let mut regions = Vec::new();
        let mut state = Vec::new();
        for s in &specs {
            let (off, region) = s.validate(logical_pages, lpn_size)?;
            let job = FioJob {
                size: Some(region * lpn_size as u64),
                numjobs: 1,
                ..s.job.clone()
            };
            let gen = job
                .workload(region, lpn_size)
                .map_err(|e| flow_error(e, |k| format!("flow `{}`.{k}", s.name)))?;
            gens.push(match s.repeat_every {
                Some(n) => gen.repeating(n, job, region, lpn_size),
                None => gen,
            });
            regions.push((off, region));
            let slots = match s.arrival {
                FlowArrival::Closed { queue_depth } => vec![s.start_ns; queue_depth as usize],
                FlowArrival::Rate { .. } => Vec::new(),
            };
            state.push(FlowState {
                issued: 0,
                slots,
                rd: Latencies::default(),
                wr: Latencies::default(),
                reads: 0,
                writes: 0,
                trims: 0,
                bytes: 0,
                first_arrival: None,
                last_done: 0,
                ramp_requests: 0,
                ramp_bytes: 0,
                think: think::Think::default(),
                drain: drain::Drain::default(),
                flush: flush::Flush::default(),
                steady: steady::Buckets::default(),
            });
        }
        let groups: Vec<u32> = specs.iter().map(|s| s.group).collect();
        let units = steady::Unit::of(
            &specs.iter().map(|s| s.steady.as_ref()).collect::<Vec<_>>(),
            &groups,
        );
        let mut unit_of = vec![None; specs.len()];
        for (u, unit) in units.iter().enumerate() {
            let first = &specs[unit.flows[0]];
            for &i in &unit.flows {
                unit_of[i] = Some(u);
                let s = &specs[i];
                if s.start_ns != first.start_ns || s.steady != first.steady {
                    return Err(Error::config(
                        format!("flow `{}`.steadystate", s.name),
                        format!("the flows of a steady-state group (group_reporting) must start together with the same steady-state settings, as flow `{}`", first.name),
                    ));
                }
            }
            if unit.spec.dur == 0 {
                return Err(Error::config(
                    format!("flow `{}`.ss_dur", first.name),
                    "must be at least 1 s",
                ));
            }
        }
        let steady = units.iter().map(|u| u.initial()).collect();
        Ok(FlowSet {
            units,
            unit_of,
            steady,
            inflight: vec![0; specs.len()],
            issued_bytes: vec![0; specs.len()],
            specs,
            gens,
            regions,
            state,
            buf: Vec::new(),
            lpn_size,
        })
    }

    /// The flows.
    pub fn specs(&self) -> &[FlowSpec] {
        &self.specs
    }

    /// Whether flow `i` has issued all its requests.
    fn exhausted(&self, i: usize) -> bool {
        let s = &self.specs[i];
        s.requests.is_some_and(|n| self.state[i].issued >= n)
            || s.bytes.is_some_and(|b| self.issued_bytes[i] >= b)
    }

    /// The end of flow `i`'s ramp (`ramp_ns` after its first arrival; None before it).
    fn ramp_end(&self, i: usize) -> Option<u64> {
        let f = self.state[i].first_arrival?;
        Some(f.saturating_add(self.specs[i].ramp_ns))
    }

    /// When flow `i` stops issuing by its run time (None: no run time, or not started).
    fn runtime_deadline(&self, i: usize) -> Option<u64> {
        let r = self.specs[i].runtime_ns?;
        Some(self.ramp_end(i)?.saturating_add(r))
    }

    /// When flow `i` stops issuing: its run time's end or its steady state, the earlier.
    fn deadline(&self, i: usize) -> Option<u64> {
        match (self.runtime_deadline(i), self.steady_end(i)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether flow `i` will issue nothing more: all its requests issued, or its next
    /// arrival at or after its run time's end.
    fn finished(&self, i: usize) -> bool {
        self.exhausted(i)
            || self
                .deadline(i)
                .is_some_and(|d| self.arrival_after_start(i).is_some_and(|t| t >= d))
    }

    /// Whether a flow ended by its run time (`ended_by` = "runtime").
    pub fn ended_by_runtime(&self) -> bool {
        (0..self.specs.len())
            .any(|i| !self.exhausted(i) && self.finished(i) && self.steady_end(i).is_none())
    }

    /// When the groups before `group` have ended (the last completion of their flows), or
    /// None while one of their flows still has requests to issue.
    fn barrier(&self, group: u32) -> Option<u64> {
        let mut end = 0;
        for (j, s) in self.specs.iter().enumerate() {
            if s.group < group {
                let fl = &self.state[j].flush;
                let pending = fl.pending.is_some() || !fl.queued.is_empty();
                let flushing = self.final_flush_due(j) || pending;
                if !self.finished(j) || self.inflight[j] > 0 || flushing {
                    return None;
                }
                end = end.max(self.state[j].last_done);
            }
        }
        Some(end)
    }

    /// Next arrival time of flow `i` (None when it has issued all its requests or reached
    /// its run time's end, its group has not started yet, or it waits for a pending flush).
    fn next_arrival(&self, i: usize) -> Option<u64> {
        if self.exhausted(i) || self.state[i].flush.pending.is_some() {
            return None;
        }
        let t = self.arrival_after_start(i)?;
        match self.deadline(i) {
            Some(d) if t >= d => None,
            _ => Some(t),
        }
    }

    /// [`FlowSet::next_arrival`] without the run time's end.
    fn arrival_after_start(&self, i: usize) -> Option<u64> {
        let (s, st) = (&self.specs[i], &self.state[i]);
        Some(match s.arrival {
            FlowArrival::Closed { .. } => {
                let start = self.start_of(i)?;
                let due = s.rate_cap_iops.map_or(start, |iops| {
                    start + libm::round(st.issued as f64 * 1e9 / iops) as u64
                });
                self.free_at(i)?.max(due)
            }
            FlowArrival::Rate { iops } => {
                self.start_of(i)? + libm::round(st.issued as f64 * 1e9 / iops) as u64
            }
        })
    }

    /// When flow `i` starts: its start time, and for a later group not before the groups
    /// before it end (None: they have not).
    fn start_of(&self, i: usize) -> Option<u64> {
        let s = &self.specs[i];
        if s.group > 0 {
            Some(self.barrier(s.group)?.max(s.start_ns))
        } else {
            Some(s.start_ns)
        }
    }

    /// fio's clock at its think-time check after closed-loop flow `i`'s last request, and
    /// whether `thinktime_iotime` stalls the flow there ((0, false) without it; None while
    /// the flow's earliest free slot is not known).
    fn think_by_time(&self, i: usize) -> Option<(u64, bool)> {
        let (s, st) = (&self.specs[i], &self.state[i]);
        let (Some(io), Some(first)) = (s.thinktime_iotime_ns, st.first_arrival) else {
            return Some((0, false));
        };
        let free = *st.slots.iter().min().expect("queue depth >= 1");
        if free == PENDING {
            return None;
        }
        let now = st.think.now(free);
        Some((now, st.think.due_by_time(now, first, io, s.thinktime_ns)))
    }

    /// When closed-loop flow `i` could issue next, its rate cap aside: a free slot, or
    /// after a think time or a pass's drain every slot (None: a slot's completion is not
    /// known yet, or the flow has not started).
    fn free_at(&self, i: usize) -> Option<u64> {
        let (s, st) = (&self.specs[i], &self.state[i]);
        let start = self.start_of(i)?;
        Some(match s.arrival {
            FlowArrival::Closed { .. } => {
                let stalled = st.think.stalled || self.think_by_time(i)?.1;
                let free = if stalled || st.drain.pending {
                    // A think time or a pass's end: after every request in flight (then
                    // the think time, if the flow thinks now).
                    let last = *st.slots.iter().max().expect("queue depth >= 1");
                    if last == PENDING {
                        return None;
                    }
                    let think = if stalled { s.thinktime_ns } else { 0 };
                    last + think
                } else {
                    *st.slots.iter().min().expect("queue depth >= 1")
                };
                if free == PENDING {
                    // Every slot waits for a completion.
                    return None;
                }
                free.max(start)
            }
            FlowArrival::Rate { .. } => start,
        })
    }

    /// Requests in flight per flow (whose completion deferred commit has not decided).
    pub fn inflight(&self) -> &[u32] {
        &self.inflight
    }

    /// The earliest next arrival or flush over all flows, without issuing it (None: no
    /// flow can issue now).
    pub fn peek_arrival(&mut self) -> Option<u64> {
        (0..self.specs.len())
            .filter_map(|i| {
                self.next_flush(i)
                    .map(|f| f.0)
                    .or_else(|| self.next_arrival(i))
            })
            .min()
    }

    /// Flow `i`'s request `req`, arrived at `t`, completed at `done` (`done == t` without
    /// a timed device): frees its closed-loop slot and records it.
    pub fn completed(&mut self, i: usize, req: &Request, t: u64, done: u64, timed: bool) {
        let st = &mut self.state[i];
        if let FlowArrival::Closed { .. } = self.specs[i].arrival {
            // The slot that issued this request is the earliest one (its arrival); it frees
            // at the completion (a think time stalls the flow instead: `think`).
            if let Some(s) = st.slots.iter_mut().filter(|s| **s == t).min() {
                *s = done;
            }
        }
        let order = self.state[i].issued + self.state[i].flush.count;
        self.record(i, req, t, done, timed, order);
    }

    /// Records flow `i`'s request `req`, arrived at `t`, completed at `done`, the `order`-th
    /// of the flow's I/Os.
    pub(super) fn record(
        &mut self,
        i: usize,
        req: &Request,
        t: u64,
        done: u64,
        timed: bool,
        order: u64,
    ) {
        let ramp = timed && self.ramp_end(i).is_some_and(|e| t < e);
        let spec = &self.specs[i];
        let st = &mut self.state[i];
        if spec.flush_every.is_some() || spec.end_flush {
            // fio's `last_was_sync` follows every completion (module `flush`).
            st.flush.completes(done, order, false);
        }
        st.last_done = st.last_done.max(done);
        let bytes = req.pages as u64 * self.lpn_size as u64;
        st.bytes += bytes;
        if let (Some(_), Some(f)) = (self.unit_of[i], st.first_arrival) {
            st.steady.add(f, done, bytes);
        }
        if ramp {
            st.ramp_requests += 1;
            st.ramp_bytes += bytes;
        }
        let lat = done - t;
        match req.op {
            Op::Read => {
                st.reads += 1;
                if timed && !ramp {
                    st.rd.record(lat);
                }
            }
            Op::Write => {
                st.writes += 1;
                st.flush.write_done(done);
                if timed && !ramp {
                    st.wr.record(lat);
                }
            }
            Op::Trim => st.trims += 1,
            // Flows' flushes are not requests (they go through the flow's flush state).
            Op::Flush => {}
        }
    }
}

/// `ns` in milliseconds, for messages.
fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// A check of a flow's fio job (naming `fio.KEY`) as an error of the flow's own field
/// (`field(KEY)`), instead of one configuration error nested in another.
fn flow_error(e: Error, field: impl Fn(&str) -> String) -> Error {
    match e {
        Error::Config { field: f, message } => {
            Error::config(field(f.strip_prefix("fio.").unwrap_or(&f)), message)
        }
        e => e,
    }
}
