//! A closed-loop host over the streaming engine, for fio jobs with a `runtime` or a
//! `ramp_time` (the core's closed-loop driver stops only at a data volume and counts every
//! request): `queue_depth` requests outstanding, each completion issuing the next, until
//! the data volume or the simulated run time is reached. The result record is the replay
//! of the issued stream through `TimedSim::run` (open loop at the issue times gives the
//! same schedule: issue times are non-decreasing), as for `flashgc serve`; with a ramp
//! time the latency and IOPS figures are recomputed without the ramp.

use crate::engine::{open_loop, Backend, LiveEngine};
use flashgc_core::driver::TimedSim;
use flashgc_core::metrics::latency::Latencies;
use flashgc_core::timing::TimingParams;
use flashgc_core::workload::{Op, Request, Workload};
use flashgc_core::{Config, RunResult};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Limits of a closed-loop run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Requests outstanding.
    pub queue_depth: u32,
    /// Stop once this much host data (reads + writes) has been issued.
    pub data_bytes: u64,
    /// Stop issuing at this simulated time, ns.
    pub runtime_ns: Option<u64>,
    /// Leave requests issued before this time out of latency and IOPS, ns.
    pub ramp_ns: Option<u64>,
}

struct Replay {
    reqs: Vec<Request>,
    pos: usize,
    desc: String,
}

impl Workload for Replay {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> flashgc_core::Result<()> {
        let k = max.min(self.reqs.len() - self.pos);
        buf.extend_from_slice(&self.reqs[self.pos..self.pos + k]);
        self.pos += k;
        Ok(())
    }
    fn describe(&self) -> String {
        self.desc.clone()
    }
}

/// Runs `wl` closed loop on the timed simulator of `cfg` within `lim`.
pub fn run_closed(
    cfg: &Config,
    p: &TimingParams,
    wl: &mut dyn Workload,
    lim: Limits,
) -> Result<RunResult, String> {
    let e = |e: flashgc_core::Error| e.to_string();
    if lim.queue_depth == 0 {
        return Err("the queue depth must be at least 1".into());
    }
    if p.controller.deferred() {
        return Err(
            "a job with `runtime` or `ramp_time` under a priority scheduler or suspend is not supported yet (its closed loop needs each completion when the request is issued); drop runtime/ramp_time or use fcfs without suspend".into(),
        );
    }
    let lpn = cfg.layout().map_err(e)?.lpn_size as u64;
    let mut eng = LiveEngine::new(cfg, &Backend::Timed(Box::new(p.clone()))).map_err(e)?;
    let mut heap: BinaryHeap<Reverse<u64>> = (0..lim.queue_depth).map(|_| Reverse(0)).collect();
    let mut reqs: Vec<Request> = Vec::new();
    let mut buf: Vec<Request> = Vec::with_capacity(4096);
    let mut idx = 0;
    let (mut rd, mut wr) = (Latencies::default(), Latencies::default());
    let (mut data, mut measured_bytes, mut measured) = (0u64, 0u64, 0u64);
    let mut first_measured: Option<u64> = None;
    let mut last_done = 0u64;
    let ramp = lim.ramp_ns.unwrap_or(0);
    let mut ended_by = "data_volume";
    while data < lim.data_bytes {
        let t = heap.peek().map_or(0, |r| r.0);
        if lim.runtime_ns.is_some_and(|r| t >= r) {
            ended_by = "runtime";
            break;
        }
        if idx == buf.len() {
            buf.clear();
            idx = 0;
            wl.fill(&mut buf, 4096).map_err(e)?;
            if buf.is_empty() {
                ended_by = "workload_end";
                break;
            }
        }
        let mut req = buf[idx];
        idx += 1;
        req.time_ns = t;
        let c = eng
            .submit(&req, t)
            .map_err(e)?
            .expect("fcfs: completions are known at submission");
        if let Some(mut top) = heap.peek_mut() {
            *top = Reverse(c);
        }
        reqs.push(req);
        let bytes = req.pages as u64 * lpn;
        data += bytes;
        if t >= ramp {
            first_measured.get_or_insert(t);
            last_done = last_done.max(c);
            measured += 1;
            measured_bytes += bytes;
            match req.op {
                Op::Read => rd.record(c - t),
                Op::Write => wr.record(c - t),
                Op::Trim => {}
            }
        }
    }
    let live = eng.counters();
    drop(eng);
    let mut replay = Replay {
        reqs,
        pos: 0,
        desc: wl.describe(),
    };
    let mut ts = TimedSim::new(cfg, open_loop(p)).map_err(e)?;
    let mut r = ts.run(&mut replay, &mut |_| {}).map_err(e)?;
    if (r.total.user_writes, r.total.gc_writes, r.total.erases)
        != (live.user_writes, live.gc_writes, live.erases)
    {
        return Err(format!(
            "the closed-loop run ({live:?}) and its replay ({:?}) disagree: a bug, please report it",
            r.total
        ));
    }
    r.ended_by = ended_by.into();
    if let Some(t) = r.timing.as_mut() {
        t.host = flashgc_core::timing::Host::ClosedLoop {
            queue_depth: lim.queue_depth,
        };
        t.params.host = t.host;
        if lim.ramp_ns.is_some() {
            let span = last_done.saturating_sub(first_measured.unwrap_or(0)) as f64 / 1e9;
            t.read_latency = rd.summary();
            t.write_latency = wr.summary();
            t.requests = measured;
            t.iops = if span > 0.0 {
                measured as f64 / span
            } else {
                0.0
            };
            t.bandwidth_mb_s = if span > 0.0 {
                measured_bytes as f64 / 1e6 / span
            } else {
                0.0
            };
            r.notes.push(format!(
                "ramp_time: latency, IOPS and bandwidth leave out the requests issued in the first {:.3} s (simulated); WAF, erases and the series count the whole run",
                ramp as f64 / 1e9
            ));
        }
    }
    r.notes.push(format!(
        "closed loop at queue depth {} on the streaming engine, ended by {ended_by}; the record is the replay of the issued requests",
        lim.queue_depth
    ));
    Ok(r)
}
