//! The simulator behind the server, seen through the core driver's streaming interface
//! (`Driver::start` / `submit` / `finish`): each request served is submitted at its
//! simulated arrival time and answered with its completion time; at shutdown the driver's
//! result record of everything submitted is the session's record, the same record `flashgc
//! run` builds (WAF-only on the null device model, or timed on the flash device). The
//! served stream is also recorded as `.fgt`, and `flashgc run --workload trace:REC.fgt`
//! replays it to the same numbers (tested).

use flashgc_core::device::NullDevice;
use flashgc_core::driver::{Driver, TimedSim};
use flashgc_core::ftl::FtlCounters;
use flashgc_core::timing::{Host, TimingParams};
use flashgc_core::workload::Request;
use flashgc_core::{Config, Error, Result, RunResult, Simulation};
use serde::Serialize;

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

    /// True when completions are decided after later arrivals (a priority scheduler or
    /// program/erase suspend): a request's completion is not known when it is submitted.
    pub fn deferred(&self) -> bool {
        matches!(self, Backend::Timed(p) if p.controller.deferred())
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
    Waf(Box<Driver<NullDevice>>),
    Timed(Box<TimedSim>),
}

/// The simulator serving requests one at a time.
pub struct LiveEngine {
    inner: Inner,
    base: FtlCounters,
    logical: u64,
    /// The backend has a write cache (flushes and FUA program its pages).
    cache: bool,
    /// Flushes served (simulated or not).
    flushes: u64,
    /// FUA requests served (simulated or not).
    fua: u64,
    /// The FTL is in its content mode (each written page needs its own fingerprint).
    content_mode: bool,
}

fn no_future(placement: &str) -> Error {
    Error::config(
        "run.placement",
        format!("`{placement}` needs future knowledge of the workload, which a server cannot have; pick an online scheme"),
    )
}

impl LiveEngine {
    /// Builds and preconditions (`run.fill`, untimed, not measured) the simulator of `cfg`
    /// and starts its clock.
    pub fn new(cfg: &Config, backend: &Backend) -> Result<LiveEngine> {
        let logical = cfg.layout()?.logical_pages;
        // The workload is what clients will send: never the configuration's synthetic one
        // (a future-knowledge placement would otherwise be handed that workload's future).
        let mut served = cfg.clone();
        served.run.workload = "trace:served-stream".into();
        let cfg = &served;
        let inner = match backend {
            Backend::Waf => {
                let sim = Simulation::new(cfg)?;
                if sim.needs_future() {
                    return Err(no_future(&cfg.run.placement));
                }
                let mut d = Driver::with_device(sim, NullDevice, TimingParams::default())?;
                d.start()?;
                Inner::Waf(Box::new(d))
            }
            Backend::Timed(p) => {
                let mut ts = TimedSim::new(cfg, open_loop(p))?;
                if ts.simulation().needs_future() {
                    return Err(no_future(&cfg.run.placement));
                }
                ts.start()?;
                Inner::Timed(Box::new(ts))
            }
        };
        let mut e = LiveEngine {
            inner,
            base: FtlCounters::default(),
            logical,
            cache: matches!(backend, Backend::Timed(p) if p.cache_pages > 0),
            flushes: 0,
            fua: 0,
            content_mode: cfg.run.content_mode(),
        };
        e.base = e.ftl_counters();
        Ok(e)
    }

    /// True when the FTL is in its content mode: a write is then served a page at a time,
    /// each page with its fingerprint (otherwise as the one request the client sent).
    pub fn content_mode(&self) -> bool {
        self.content_mode
    }

    /// Logical pages of the device.
    pub fn logical_pages(&self) -> u64 {
        self.logical
    }

    fn ftl_counters(&self) -> FtlCounters {
        match &self.inner {
            Inner::Waf(d) => d.simulation().ftl().counters.clone(),
            Inner::Timed(t) => t.simulation().ftl().counters.clone(),
        }
    }

    /// Serves `req` arriving at simulated time `t` (ns, non-decreasing from call to call);
    /// returns its completion time (`t` without a timing model), or None when later
    /// arrivals decide it ([`Backend::deferred`]; it enters the record once final). `fua`
    /// (NBD's FUA flag): a write completes once its pages are programmed, the write cache's
    /// copies first (`Driver::submit_fua`).
    pub fn submit(&mut self, req: &Request, t: u64, fua: bool) -> Result<Option<u64>> {
        let end = req.lpn.saturating_add(req.pages as u64);
        if req.pages == 0 || end > self.logical {
            return Err(Error::Workload(format!(
                "pages {}..{end} are beyond the {} logical pages",
                req.lpn, self.logical
            )));
        }
        let mut r = *req;
        r.time_ns = t;
        match (&mut self.inner, fua) {
            (Inner::Waf(d), false) => d.submit(&r),
            (Inner::Waf(d), true) => d.submit_fua(&r),
            (Inner::Timed(ts), false) => ts.submit(&r),
            (Inner::Timed(ts), true) => ts.submit_fua(&r),
        }
    }

    /// Counts one NBD request with the FUA flag (its pieces go through [`Self::submit`]).
    pub fn count_fua(&mut self) {
        self.fua += 1;
    }

    /// A flush (NBD's FLUSH) arriving at `t`: the write cache's dirty pages are programmed
    /// and it completes when they are and every earlier write has completed
    /// (`Driver::flush`); returns that time (`t` without a timing model), or None when
    /// later arrivals decide it ([`Backend::deferred`]; it enters the record once final).
    pub fn flush(&mut self, t: u64) -> Result<Option<u64>> {
        self.flushes += 1;
        match &mut self.inner {
            Inner::Waf(d) => d.flush(t),
            Inner::Timed(ts) => ts.flush(t),
        }
    }

    /// Flushes served so far.
    pub fn flushes(&self) -> u64 {
        self.flushes
    }

    /// What the result's notes say of the flushes and FUA requests served (nothing
    /// without any, or with a write cache). A recording holds them (`.fgt` version 2).
    /// A timed record has the driver's own note (the same words, counting FUA writes as
    /// its report does), which a replay of the recording prints too.
    fn flush_notes(&self) -> Vec<String> {
        let mut v = Vec::new();
        if (self.flushes == 0 && self.fua == 0) || matches!(self.inner, Inner::Timed(_)) {
            return v;
        }
        let what = format!("{} flushes and {} FUA requests", self.flushes, self.fua);
        if !self.cache {
            v.push(format!(
                "{what}: without a write cache the device holds no data a flush must program (a flush waits for the earlier writes only)"
            ));
        }
        v
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

impl LiveEngine {
    /// The result record of everything served so far (`workload` describes the stream):
    /// the driver's own record, as `flashgc run` builds it, with notes on the flushes and
    /// FUA requests.
    pub fn finish(&mut self, workload: &str) -> Result<RunResult> {
        let mut r = match &mut self.inner {
            Inner::Waf(d) => d.finish(workload),
            Inner::Timed(ts) => ts.finish(workload),
        }?;
        r.notes.extend(self.flush_notes());
        Ok(r)
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
