//! Timed driver of the dedup-aware GC schemes (papers/splitgc.txt), on the core FTL's
//! content mode and the shared device model ([`crate::timing::device`]).
//!
//! Interim: the one host driver of the engine (issue 14) takes over arrivals, idle-time
//! background work and timing; this driver keeps `flashgc dedup`'s timed runs (and their
//! numbers) until then. It holds no FTL logic: every scheme is a GC action and a victim
//! policy of the core FTL, the same objects `flashgc run`/`compare` use.
//!
//! Requests arrive at their trace times (or Poisson at `rate` for untimed synthetic
//! workloads) and are served in arrival order, open loop. The flash operations each host
//! page operation causes are reserved on the channels and dies in issue order: GC reads
//! ready at the request's arrival, each relocation program ready when its read (plus the
//! action's fingerprint time, CAGC) ends, the erase when the victim's reads and programs
//! end; the host's own read or program ready at arrival (plus the action's write-path
//! lookup, DAGC). A request's latency is its last page's end minus its arrival.
//!
//! Idle time: once no host request has been outstanding for `idle_ns`, background work
//! ([`Ftl::background_step`]) runs until the next arrival (an operation that starts before
//! the arrival runs to its end): deferred write-backs first, then the read scrub, whose
//! ECC (and fingerprint) time runs on one controller scrub engine.

use crate::config::{Config, Layout};
use crate::error::{Error, Result};
use crate::ftl::{Background, ContentCounters, ContentReport, FlashOp, Ftl, FtlCounters};
use crate::gc_action::ActionCosts;
use crate::timing::device::{Costs, Device, ReadGroup};
use crate::timing::geometry::{Alloc, Geometry};
use crate::timing::{Latencies, LatencySummary};
use crate::workload::{Op, Request, Rng, Workload};
use crate::Simulation;
use serde::Serialize;

/// What the model approximates (printed with the results).
pub const NOTES: &[&str] = &[
    "GC is device-wide (one free pool and frontier, the core FTL); the paper's SSDsim collects per plane",
    "content fingerprints are 64-bit (FIU: first 8 bytes of the MD5); the table's memory is counted at 20 B per SHA-1",
    "the read scrub's ECC and fingerprint time run on one controller scrub engine",
    "host requests are never preempted by background work already started",
];

/// A dedup scheme: a victim policy and a GC action of the core FTL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Scheme {
    /// Name in output.
    pub name: String,
    /// Victim policy spec.
    pub victim: String,
    /// GC action spec.
    pub gc_action: String,
}

impl Scheme {
    /// A scheme from its parts.
    pub fn new(name: &str, victim: &str, gc_action: &str) -> Scheme {
        Scheme {
            name: name.into(),
            victim: victim.into(),
            gc_action: gc_action.into(),
        }
    }
}

/// Parameters of the timed driver.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DedupParams {
    /// Idle detection: no host request outstanding for this long, ns.
    pub idle_ns: u64,
    /// Planes of a die run operations concurrently (otherwise one operation per die).
    pub multiplane: bool,
}

impl Default for DedupParams {
    fn default() -> Self {
        DedupParams {
            idle_ns: 1_000_000,
            multiplane: false,
        }
    }
}

/// Results of one run (measured after the warm-up).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DedupReport {
    /// Scheme.
    pub scheme: Scheme,
    /// Workload description.
    pub workload: String,
    /// Driver parameters.
    pub params: DedupParams,
    /// Logical pages.
    pub logical_pages: u64,
    /// Physical pages.
    pub physical_pages: u64,
    /// Host requests measured.
    pub requests: u64,
    /// Pages relocated by GC in real time (the paper's migrated pages).
    pub migrated_pages: u64,
    /// Erases.
    pub erases: u64,
    /// Flash programs / user page writes.
    pub waf: f64,
    /// Read request latency.
    pub read: LatencySummary,
    /// Write request latency.
    pub write: LatencySummary,
    /// All requests.
    pub all: LatencySummary,
    /// The scheme's SSD metadata per logical page, by structure (empty for `move`).
    pub memory_bytes_per_lpn: Vec<(String, f64)>,
    /// Simulated time of the measured part, seconds.
    pub simulated_s: f64,
    /// Content-mode report (None for `move`).
    pub dedup: Option<ContentReport>,
    /// FTL counters of the measured part.
    pub counters: FtlCounters,
}

/// The timed dedup simulator.
pub struct DedupSim {
    scheme: Scheme,
    p: DedupParams,
    sim: Simulation,
    dev: Device,
    costs: ActionCosts,
    ops: Vec<FlashOp>,
    rd: Latencies,
    wr: Latencies,
    all: Latencies,
    last_done: u64,
    scrub_free: u64,
    base: FtlCounters,
    cbase: ContentCounters,
    t_start: u64,
    t_end: u64,
    requests: u64,
    served: u64,
    workload: String,
}

impl DedupSim {
    /// Builds the FTL (with the scheme's victim and GC action) and the device of `cfg`.
    pub fn new(cfg: &Config, scheme: Scheme, p: DedupParams) -> Result<DedupSim> {
        let mut cfg = cfg.clone();
        cfg.run.victim = scheme.victim.clone();
        cfg.run.gc_action = scheme.gc_action.clone();
        // Each write frontier may need a fresh segment within one victim's relocation (CAGC
        // has two): every scheme gets the same floor of 3 so that a comparison runs with the
        // same watermarks.
        let l0 = cfg.layout()?;
        if l0.gc_low < 3 {
            use crate::config::Watermark;
            cfg.ftl.gc_low = Watermark::Segments(3);
            cfg.ftl.gc_high = Some(Watermark::Segments(
                l0.gc_high.max(3) + (l0.gc_high - l0.gc_low),
            ));
        }
        let layout = cfg.layout()?;
        if layout.lpn_size != cfg.device.page_size {
            return Err(Error::config(
                "device.lpn_size",
                "the dedup driver needs lpn_size = page_size (one fingerprint per flash page)",
            ));
        }
        let sim = Simulation::new(&cfg)?;
        let geo = Geometry::new(&cfg.device, layout.pages_per_segment, "CWDP")?;
        let dcosts = Costs::new(&cfg.device.timing, layout.lpn_size);
        let dev = Device::new(geo, dcosts, p.multiplane, Alloc::Static, layout.segments);
        let costs = sim
            .ftl()
            .content()
            .map(|c| c.action().costs())
            .unwrap_or_default();
        Ok(DedupSim {
            scheme,
            p,
            sim,
            dev,
            costs,
            ops: Vec::new(),
            rd: Latencies::default(),
            wr: Latencies::default(),
            all: Latencies::default(),
            last_done: 0,
            scrub_free: 0,
            base: FtlCounters::default(),
            cbase: ContentCounters::default(),
            t_start: 0,
            t_end: 0,
            requests: 0,
            served: 0,
            workload: String::new(),
        })
    }

    /// The FTL.
    pub fn ftl(&self) -> &Ftl {
        self.sim.ftl()
    }
    /// The layout (after watermark adjustment).
    pub fn layout(&self) -> &Layout {
        self.sim.layout()
    }
    /// Requests served by [`DedupSim::run`], warm-up included (for speed figures).
    pub fn served(&self) -> u64 {
        self.served
    }

    /// The precondition fill (and the action's prescrub), untimed and not measured.
    pub fn precondition(&mut self) -> Result<()> {
        self.sim.precondition()
    }

    fn ftl_mut(&mut self) -> &mut Ftl {
        self.sim.ftl_mut()
    }

    /// Reserves the logged operations; returns (end of the host's own operations, end of
    /// the background ones).
    fn time_ops(&mut self, t: u64, host_ready: u64) -> (u64, u64) {
        let mut chain = t;
        let mut vic = t;
        let mut bg = t;
        let mut host = host_ready;
        for i in 0..self.ops.len() {
            match self.ops[i] {
                FlashOp::Read { ppn, gc: true } => {
                    let e = self.dev.read(ppn, t, true, &mut ReadGroup::default());
                    // CAGC fingerprints each page GC reads before writing it.
                    chain = e + self.costs.gc_page_ns;
                    vic = vic.max(e);
                    bg = bg.max(e);
                }
                FlashOp::Program { ppn, gc: true } => {
                    let e = self.dev.program(ppn, chain, true, false);
                    vic = vic.max(e);
                    bg = bg.max(e);
                }
                FlashOp::Erase { seg } => {
                    bg = bg.max(self.dev.erase(seg, vic));
                    vic = t;
                }
                FlashOp::Read { ppn, gc: false } => {
                    let e = self
                        .dev
                        .read(ppn, host_ready, false, &mut ReadGroup::default());
                    host = host.max(e);
                }
                FlashOp::Program { ppn, gc: false } => {
                    let e = self.dev.program(ppn, host_ready, false, false);
                    host = host.max(e);
                }
            }
        }
        self.ops.clear();
        (host, bg)
    }

    /// Background work in the idle window before `next` (ns). Returns pages handled.
    fn idle(&mut self, next: u64) -> Result<u64> {
        let start = self.last_done.saturating_add(self.p.idle_ns);
        if start >= next {
            return Ok(0);
        }
        let mut n = 0u64;
        while let Some(w) = self.ftl_mut().background_step()? {
            n += 1;
            match w {
                Background::Writeback => {
                    let mut ops = std::mem::take(&mut self.ops);
                    self.ftl_mut().drain_ops(&mut ops);
                    self.ops = ops;
                    let (_, end) = self.time_ops(start, start);
                    if end >= next {
                        break;
                    }
                }
                Background::Scrub { ppn, fingerprinted } => {
                    let e = self.dev.read(ppn, start, true, &mut ReadGroup::default());
                    let s = e.max(self.scrub_free);
                    let work = self.costs.scrub_ecc_ns
                        + if fingerprinted {
                            self.costs.scrub_fp_ns
                        } else {
                            0
                        };
                    self.scrub_free = s + work;
                    if self.scrub_free >= next || e >= next {
                        break;
                    }
                }
            }
        }
        Ok(n)
    }

    /// Serves one request arriving at `t`; returns its completion time.
    fn serve(&mut self, req: &Request, t: u64) -> Result<u64> {
        let logical = self.layout().logical_pages;
        if req.pages == 0 || req.lpn + req.pages as u64 > logical {
            return Err(Error::Workload(format!(
                "request at LPN {} ({} pages) is beyond the {logical} logical pages",
                req.lpn, req.pages
            )));
        }
        let content_mode = self.ftl().content().is_some();
        let mut done = t;
        for i in 0..req.pages as u64 {
            let lpn = (req.lpn + i) as u32;
            let ready = match req.op {
                Op::Read => {
                    self.ftl_mut().read(lpn);
                    t
                }
                Op::Write => {
                    if req.content != 0 && content_mode {
                        let c = crate::content::page_content(req.content, i);
                        self.ftl_mut().write_content(lpn, c)?;
                    } else {
                        self.ftl_mut().write(lpn)?;
                    }
                    t + self.costs.write_ns
                }
                Op::Trim => {
                    self.ftl_mut().trim(lpn);
                    continue;
                }
            };
            let mut ops = std::mem::take(&mut self.ops);
            self.ftl_mut().drain_ops(&mut ops);
            self.ops = ops;
            done = done.max(self.time_ops(t, ready).0);
        }
        if let Some(e) = self.ftl().content_error() {
            return Err(Error::Workload(e.to_string()));
        }
        Ok(done)
    }

    /// Runs `wl`: stops when it ends, after `max_requests`, or (for endless workloads) when
    /// `volume` x logical pages have been written. The first `warmup` x logical pages of
    /// writes are not measured. `rate`: Poisson arrivals at this many requests/s instead of
    /// the requests' own times.
    pub fn run(
        &mut self,
        wl: &mut dyn Workload,
        max_requests: Option<u64>,
        rate: Option<f64>,
        volume: f64,
        warmup: f64,
    ) -> Result<()> {
        if let Some(r) = rate {
            if !(r.is_finite() && r > 0.0) {
                return Err(Error::config("--rate", format!("{r} must be > 0")));
            }
        }
        self.workload = wl.describe();
        self.ftl_mut().set_op_log(true);
        let logical = self.layout().logical_pages as f64;
        let stop_writes = (volume * logical).round() as u64;
        let warm_writes = (warmup * logical).round() as u64;
        let pool = self.sim_content_pool();
        let mut rng = Rng::new(0x0A77_17A1 ^ pool);
        let mut clock = 0u64;
        let mut t0: Option<u64> = None;
        let mut buf = Vec::with_capacity(4096);
        let w0 = self.ftl().counters.user_writes;
        let mut measuring = warm_writes == 0;
        let mut first = true;
        self.snapshot_base();
        'outer: loop {
            buf.clear();
            wl.fill(&mut buf, 4096)?;
            if buf.is_empty() {
                break;
            }
            for req in &buf {
                if max_requests.is_some_and(|m| self.served >= m) {
                    break 'outer;
                }
                let written = self.ftl().counters.user_writes - w0;
                if wl.is_infinite() && written >= stop_writes {
                    break 'outer;
                }
                if !measuring && written >= warm_writes {
                    measuring = true;
                    self.snapshot_base();
                    self.rd = Latencies::default();
                    self.wr = Latencies::default();
                    self.all = Latencies::default();
                    self.requests = 0;
                    first = true;
                }
                let t = match rate {
                    Some(r) => {
                        let u = rng.unit();
                        clock += (-libm::log(1.0 - u) / r * 1e9) as u64;
                        clock
                    }
                    None => {
                        let z = *t0.get_or_insert(req.time_ns);
                        req.time_ns.saturating_sub(z)
                    }
                };
                if !first || self.served > 0 {
                    self.idle(t)?;
                }
                if first {
                    self.t_start = t;
                    first = false;
                }
                let done = self.serve(req, t)?;
                let lat = done - t;
                match req.op {
                    Op::Read => self.rd.record(lat),
                    Op::Write => self.wr.record(lat),
                    Op::Trim => {}
                }
                self.all.record(lat);
                self.last_done = self.last_done.max(done);
                self.t_end = self.t_end.max(done);
                self.requests += 1;
                self.served += 1;
            }
        }
        self.ftl().check_all_content()
    }

    /// The synthetic content pool size (seeds the arrival process as the retired driver
    /// did, so arrival times are unchanged).
    fn sim_content_pool(&self) -> u64 {
        self.sim.config().content.pool
    }

    fn snapshot_base(&mut self) {
        self.base = self.ftl().counters.clone();
        if let Some(c) = self.ftl().content() {
            self.cbase = c.counters().clone();
        }
    }

    /// The report of the measured part.
    pub fn report(&self) -> DedupReport {
        let f = self.ftl();
        let c = &f.counters;
        let b = &self.base;
        let l = self.layout();
        let counters = FtlCounters {
            user_writes: c.user_writes - b.user_writes,
            gc_writes: c.gc_writes - b.gc_writes,
            erases: c.erases - b.erases,
            gc_victims: c.gc_victims - b.gc_victims,
            gc_episodes: c.gc_episodes - b.gc_episodes,
            reads: c.reads - b.reads,
            unmapped_reads: c.unmapped_reads - b.unmapped_reads,
            trims: c.trims - b.trims,
            alpha_samples_sum: c.alpha_samples_sum - b.alpha_samples_sum,
            alpha_samples: c.alpha_samples - b.alpha_samples,
            absorbed_writes: c.absorbed_writes - b.absorbed_writes,
            background_writes: c.background_writes - b.background_writes,
        };
        let dedup = f.content_report(&self.cbase);
        let memory = f
            .content_ssd_metadata()
            .into_iter()
            .map(|(n, b)| (n, b as f64 / l.logical_pages as f64))
            .collect();
        DedupReport {
            scheme: self.scheme.clone(),
            workload: self.workload.clone(),
            params: self.p.clone(),
            logical_pages: l.logical_pages,
            physical_pages: l.physical_pages,
            requests: self.requests,
            migrated_pages: counters.gc_writes,
            erases: counters.erases,
            waf: crate::metrics::waf_between(&FtlCounters::default(), &counters),
            read: self.rd.summary(),
            write: self.wr.summary(),
            all: self.all.summary(),
            memory_bytes_per_lpn: memory,
            simulated_s: self.t_end.saturating_sub(self.t_start) as f64 / 1e9,
            dedup,
            counters,
        }
    }
}
