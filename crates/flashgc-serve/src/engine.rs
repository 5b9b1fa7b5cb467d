//! The simulator behind the server, seen through a streaming interface: submit a host
//! request arriving at simulated time `t`, get its completion time; at the end, a result
//! record.
//!
//! **Adapter over the core's per-request steps.** The live engine serves each request
//! through the FTL (`Ftl::write/read/trim`, content staged first in the FTL's content mode,
//! `--gc-action`) or the timed driver (`TimedSim::serve`), for completion times, pacing
//! and live statistics; the result record is made at shutdown by replaying the served
//! stream, as recorded in `.fgt`, through the driver `flashgc run` uses: the result is by
//! construction what `flashgc run --workload trace:REC.fgt` gives. The live and replayed
//! FTL counters are compared at the end; a difference is reported as an error. When the
//! core's streaming host driver lands, [`LiveEngine`] wraps it and the replay goes away.

use flashgc_core::driver::TimedSim;
use flashgc_core::ftl::FtlCounters;
use flashgc_core::timing::{Host, TimingParams};
use flashgc_core::workload::{Op, Request, Workload};
use flashgc_core::{Config, Error, Result, RunResult, Simulation};
use serde::Serialize;
use std::path::Path;

/// Which driver serves the requests.
#[derive(Debug, Clone)]
pub enum Backend {
    /// The FTL alone (WAF, erases, GC moves; every request completes at its arrival).
    Waf,
    /// The FTL with flash timing (`--timing` and its flags); the host model is open loop.
    Timed(Box<TimingParams>),
}

impl Backend {
    /// True when completion times come from a timing model.
    pub fn timed(&self) -> bool {
        !matches!(self, Backend::Waf)
    }
}

/// The result record at shutdown: the record `flashgc run` writes for the replayed stream
/// (with its `dedup` section in the FTL's content mode).
pub type ServeResult = RunResult;

/// Counters shown live and compared with the replay.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LiveCounters {
    /// User page writes since the precondition.
    pub user_writes: u64,
    /// GC page writes (relocations).
    pub gc_writes: u64,
    /// Segment erases.
    pub erases: u64,
    /// Victims collected.
    pub gc_victims: u64,
}

impl LiveCounters {
    /// WAF = (user + GC writes) / user writes (0 without writes).
    pub fn waf(&self) -> f64 {
        if self.user_writes == 0 {
            0.0
        } else {
            (self.user_writes + self.gc_writes) as f64 / self.user_writes as f64
        }
    }
}

enum Inner {
    Waf(Box<Simulation>),
    Timed(Box<TimedSim>),
}

/// The simulator serving requests one at a time.
pub struct LiveEngine {
    inner: Inner,
    base: FtlCounters,
    logical: u64,
}

fn no_future(placement: &str) -> Error {
    Error::config(
        "run.placement",
        format!("`{placement}` needs future knowledge of the workload, which a server cannot have; pick an online scheme"),
    )
}

impl LiveEngine {
    /// Builds and preconditions (`run.fill`, untimed, not measured) the simulator of `cfg`.
    pub fn new(cfg: &Config, backend: &Backend) -> Result<LiveEngine> {
        let logical = cfg.layout()?.logical_pages;
        // The workload is what clients will send: never the configuration's synthetic one
        // (a future-knowledge placement would otherwise be handed that workload's future).
        let mut served = cfg.clone();
        served.run.workload = "trace:served-stream".into();
        let cfg = &served;
        let inner = match backend {
            Backend::Waf => {
                let mut sim = Simulation::new(cfg)?;
                if sim.needs_future() {
                    return Err(no_future(&cfg.run.placement));
                }
                sim.precondition()?;
                Inner::Waf(Box::new(sim))
            }
            Backend::Timed(p) => {
                let mut ts = TimedSim::new(cfg, open_loop(p))?;
                if ts.simulation().needs_future() {
                    return Err(no_future(&cfg.run.placement));
                }
                ts.simulation_mut().precondition()?;
                ts.start_clock();
                Inner::Timed(Box::new(ts))
            }
        };
        let mut e = LiveEngine {
            inner,
            base: FtlCounters::default(),
            logical,
        };
        e.base = e.ftl_counters();
        Ok(e)
    }

    /// Logical pages of the device.
    pub fn logical_pages(&self) -> u64 {
        self.logical
    }

    fn ftl_counters(&self) -> FtlCounters {
        match &self.inner {
            Inner::Waf(s) => s.ftl().counters.clone(),
            Inner::Timed(t) => t.simulation().ftl().counters.clone(),
        }
    }

    /// Serves `req` arriving at simulated time `t` (ns, non-decreasing from call to call);
    /// returns its completion time (`t` without a timing model).
    pub fn submit(&mut self, req: &Request, t: u64) -> Result<u64> {
        let end = req.lpn.saturating_add(req.pages as u64);
        if req.pages == 0 || end > self.logical {
            return Err(Error::Workload(format!(
                "pages {}..{end} are beyond the {} logical pages",
                req.lpn, self.logical
            )));
        }
        match &mut self.inner {
            Inner::Waf(sim) => {
                let ftl = sim.ftl_mut();
                let content = ftl.content().is_some() && req.op == Op::Write;
                for lpn in req.lpn..end {
                    if content {
                        // The FTL's content mode (`--gc-action`): the page's content hash.
                        let c = flashgc_core::content::page_content(req.content, lpn - req.lpn);
                        ftl.stage_content(lpn as u32, c);
                    }
                    match req.op {
                        Op::Write => ftl.write(lpn as u32)?,
                        Op::Read => {
                            ftl.read(lpn as u32);
                        }
                        Op::Trim => ftl.trim(lpn as u32),
                    }
                }
                Ok(t)
            }
            Inner::Timed(ts) => ts.serve(req, t),
        }
    }

    /// Counters since the precondition.
    pub fn counters(&self) -> LiveCounters {
        let c = self.ftl_counters();
        LiveCounters {
            user_writes: c.user_writes - self.base.user_writes,
            gc_writes: c.gc_writes - self.base.gc_writes,
            erases: c.erases - self.base.erases,
            gc_victims: c.gc_victims - self.base.gc_victims,
        }
    }
}

/// The timing parameters of a served (or replayed) stream: open loop at the recorded
/// arrival times, no volume limit (the stream ends when the server stops).
pub fn open_loop(p: &TimingParams) -> TimingParams {
    TimingParams {
        host: Host::OpenLoop { time_scale: 1.0 },
        data_volume_bytes: None,
        ..p.clone()
    }
}

/// A workload without requests (a session that served nothing).
struct Empty;

impl Workload for Empty {
    fn fill(&mut self, _buf: &mut Vec<Request>, _max: usize) -> Result<()> {
        Ok(())
    }
    fn describe(&self) -> String {
        "served stream (no requests)".into()
    }
}

/// Replays the recorded stream `trace` (a `.fgt` file of `records` records) through the
/// driver `flashgc run` uses with the same configuration, and returns
/// its result and FTL counters after the precondition.
pub fn replay(
    cfg: &Config,
    backend: &Backend,
    trace: &Path,
    records: u64,
) -> std::result::Result<(ServeResult, LiveCounters), String> {
    let l = cfg.layout().map_err(|e| e.to_string())?;
    let mut cfg = cfg.clone();
    cfg.run.workload = format!("trace:{}", trace.display());
    let mut wl: Box<dyn Workload> = if records == 0 {
        Box::new(Empty)
    } else {
        flashgc_trace::open_workload(
            trace,
            &flashgc_trace::TraceOptions::default(),
            l.lpn_size,
            l.logical_pages,
        )
        .map_err(|e| e.to_string())?
    };
    let err = |e: Error| e.to_string();
    match backend {
        Backend::Waf => {
            let mut sim = Simulation::new(&cfg).map_err(err)?;
            let r = sim.run(wl.as_mut(), &mut |_| {}).map_err(err)?;
            let c = counters_of(&r);
            Ok((r, c))
        }
        Backend::Timed(p) => {
            let mut ts = TimedSim::new(&cfg, open_loop(p)).map_err(err)?;
            let r = ts.run(wl.as_mut(), &mut |_| {}).map_err(err)?;
            let c = counters_of(&r);
            Ok((r, c))
        }
    }
}

fn counters_of(r: &RunResult) -> LiveCounters {
    LiveCounters {
        user_writes: r.total.user_writes,
        gc_writes: r.total.gc_writes,
        erases: r.total.erases,
        gc_victims: r.total.gc_victims,
    }
}
