//! The one host driver: every run of every command goes through it.
//!
//! It owns what happens above the FTL and below the caller: arrivals (open loop at trace
//! timestamps with time scaling, a fixed rate, or closed loop with a queue depth), the
//! write cache, the GC scheduling modes, idle-time background work, latency histograms
//! (HDR, every percentile), the WAF and timing series, progress, safe points with
//! checkpoints and stop requests. Below it, a device model ([`crate::device`]) times the
//! FTL's op stream; the null model makes the same loop a WAF-only run, with its timed code
//! compiled away ([`DeviceModel::TIMED`]).
//!
//! Entry points:
//!
//! * [`crate::Simulation::run`] / [`crate::Simulation::run_with`]: WAF-only (the null device).
//! * [`Driver`]: a simulation plus a timed device model; [`TimedSim`] (flash) and
//!   [`NocSim`] (NoC controller) name the two. [`Driver::run`] serves a workload.
//! * [`run`]: builds the right driver from [`TimingParams`] (None = WAF-only) and runs it;
//!   the CLI and the Python binding call this.
//! * The streaming API ([`Driver::start`], [`Driver::submit`], [`Driver::finish`]): one
//!   request at a time with its arrival time, for callers that own the request source
//!   (an NBD server).
//!
//! Requests are served in arrival order (ties: issue order), each completely before the
//! next: a device model reserves its resources for the request's operations when it is
//! served, so its completion time is known at once. That makes every run deterministic.

pub mod cache;
pub mod calibrate;
mod gc;
mod host;
mod run_loop;
mod waf;

pub use gc::IdleWork;
pub use run_loop::SAFE_POINT_REQUESTS;

use crate::config::Config;
use crate::device::{DeviceModel, FlashDevice, FlashMedia, NocDevice, NocMedia};
use crate::error::{Error, Result};
use crate::metrics::recorder::Progress;
use crate::metrics::result::RunResult;
use crate::sim::{RunControl, RunEnd, Simulation};
use crate::timing::TimingParams;
use crate::workload::{Request, Workload};
use host::Core;

/// A timed run on the flash device (channels, dies, planes).
pub type TimedSim = Driver<FlashDevice>;
/// A timed run on the NoC controller model.
pub type NocSim = Driver<NocDevice>;

/// A simulation (configuration, FTL, policies) driven through a device model.
pub struct Driver<D: DeviceModel> {
    sim: Simulation,
    core: Core<D>,
}

impl Driver<FlashDevice> {
    /// Builds the FTL of `cfg` and the flash device model with timing parameters `p`
    /// (`p.noc` must be None; [`run`] picks the device from `p`).
    pub fn new(cfg: &Config, p: TimingParams) -> Result<TimedSim> {
        if p.noc.is_some() {
            return Err(Error::config(
                "timing.device",
                "NoC parameters given to the flash device; use NocSim::new_noc or driver::run",
            ));
        }
        let sim = Simulation::new(cfg)?;
        let l = sim.layout().clone();
        p.validate(l.logical_pages)?;
        let mut media = FlashMedia::build(cfg, &l, p.alloc, &p.striping, p.multiplane, p.copyback)?;
        media.set_suspend(p.controller.suspend);
        media.set_backfill(p.controller.channel == crate::device::policy::ChannelArb::Backfill);
        let dev = FlashDevice::with_controller(media, &p.controller);
        Driver::with_device(sim, dev, p)
    }
}

impl Driver<NocDevice> {
    /// Builds the FTL of `cfg` and the NoC controller model (`p.noc`, or the paper's
    /// parameters for `cfg` with conventional copy-back when None).
    pub fn new_noc(cfg: &Config, mut p: TimingParams) -> Result<NocSim> {
        let n = p
            .noc
            .get_or_insert_with(|| {
                crate::device::NocParams::from_config(cfg, crate::device::noc::GcPath::Conventional)
            })
            .clone();
        let sim = Simulation::new(cfg)?;
        p.validate(sim.layout().logical_pages)?;
        flash_only_options(&p)?;
        let media = NocMedia::new(cfg, n)?;
        let dev = NocDevice::with_controller(media, &p.controller);
        Driver::with_device(sim, dev, p)
    }
}

/// Refuses the flash device's options on the NoC model, which has its own interconnect,
/// copy-back paths and page mapping: given there, they would be ignored silently.
fn flash_only_options(p: &TimingParams) -> Result<()> {
    let refuse = |field: &str, what: &str| {
        Err(Error::config(
            field,
            format!("{what} is modelled on the flash device only (the NoC model has its own interconnect and page mapping)"),
        ))
    };
    if p.controller.suspend.is_some() {
        return refuse("timing.suspend", "program/erase suspend");
    }
    if p.controller.channel != crate::device::policy::ChannelArb::Fifo {
        return refuse("timing.channel", "channel back-fill");
    }
    if p.alloc != crate::device::flash::Alloc::Static {
        return refuse("timing.alloc", "dynamic page allocation");
    }
    if !p.striping.eq_ignore_ascii_case("CWDP") {
        return refuse("timing.striping", "the striping order");
    }
    if !p.multiplane {
        return refuse("timing.multiplane", "multiplane off");
    }
    if p.copyback.is_some() {
        return refuse(
            "timing.copyback",
            "on-die copyback (the NoC model has its own copy-back path, `noc_path`)",
        );
    }
    Ok(())
}

impl<D: DeviceModel> Driver<D> {
    /// A driver of `sim` on device model `dev` with parameters `p`.
    pub fn with_device(sim: Simulation, dev: D, p: TimingParams) -> Result<Driver<D>> {
        let core = Core::new(&sim, dev, p)?;
        Ok(Driver { sim, core })
    }

    /// The simulation (layout, FTL).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// The simulation, mutable (tests precondition or inspect the FTL through it).
    pub fn simulation_mut(&mut self) -> &mut Simulation {
        &mut self.sim
    }

    /// The device model.
    pub fn device(&self) -> &D {
        &self.core.dev
    }

    /// The timing parameters.
    pub fn params(&self) -> &TimingParams {
        &self.core.p
    }

    /// Runs `work` during host idle periods (see [`IdleWork`]).
    pub fn set_idle_work(&mut self, work: Box<dyn IdleWork>) {
        self.core.idle_work = Some(work);
    }

    /// Starts timed operation: from now on the FTL logs its operations for the device
    /// model (anything written before is untimed set-up). [`Driver::run`] and
    /// [`Driver::start`] call it after the precondition; tests that drive
    /// [`Driver::serve`] directly call it themselves.
    pub fn start_clock(&mut self) {
        self.sim.ftl_mut().set_op_log(D::TIMED);
    }

    /// Serves one host request arriving at `t` and returns its completion time. Nothing
    /// is recorded (tests; the streaming API's [`Driver::submit`] records).
    pub fn serve(&mut self, req: &Request, t: u64) -> Result<u64> {
        self.core.serve(&mut self.sim, req, t)
    }

    /// Preconditions (untimed), then serves `wl` until the data volume, the request limit,
    /// the config's write volume (infinite workloads) or the end of the workload.
    pub fn run(
        &mut self,
        wl: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<RunResult> {
        match self.run_with(wl, progress, &mut RunControl::default())? {
            RunEnd::Finished(r) => Ok(r),
            RunEnd::Stopped { partial, .. } => Ok(partial),
        }
    }

    /// Like [`Driver::run`], with stop requests and checkpoints (see
    /// [`Simulation::run_with`]).
    pub fn run_with(
        &mut self,
        wl: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
        ctl: &mut RunControl<'_>,
    ) -> Result<RunEnd> {
        run_loop::run(&mut self.sim, &mut self.core, wl, progress, ctl)
    }

    /// Streaming API: preconditions and starts the clock. Then [`Driver::submit`] each
    /// request, and [`Driver::finish`] for the result.
    pub fn start(&mut self) -> Result<()> {
        self.core.start(&mut self.sim)
    }

    /// Streaming API: serves one request arriving at `t` (arrivals earlier than the
    /// previous one are served at the previous one's time) and records it; returns its
    /// completion time, or None under a priority scheduler or suspend (deferred commit:
    /// later arrivals decide it; it is recorded once final, at the latest by
    /// [`Driver::finish`]).
    pub fn submit(&mut self, req: &Request) -> Result<Option<u64>> {
        self.core.submit(&mut self.sim, req, req.time_ns, false)
    }

    /// Streaming API: [`Driver::submit`] with Force Unit Access (NBD's `FUA` flag): a write
    /// completes only once its pages are programmed, the write cache's copies of them
    /// programmed first if dirty (other requests are served as by [`Driver::submit`]).
    pub fn submit_fua(&mut self, req: &Request) -> Result<Option<u64>> {
        self.core.submit(&mut self.sim, req, req.time_ns, true)
    }

    /// Streaming API: a host flush (NBD's `FLUSH`) arriving at `t` (earlier than the
    /// previous arrival: at its time). The write cache's dirty pages are programmed (least
    /// recently used first; they stay cached, clean), and the flush completes when the last
    /// program ends and every write or trim submitted before it has completed; returns that
    /// time (`t` WAF-only), or None under a priority scheduler or suspend, where later
    /// arrivals decide it (as [`Driver::submit`]). Counted, with its latency, in the timing
    /// report (`flushes`, `flush_latency`) once complete; not a request.
    pub fn flush(&mut self, t: u64) -> Result<Option<u64>> {
        self.core.flush(&mut self.sim, t)
    }

    /// Streaming API: the result of everything submitted (`workload` describes the
    /// source). Queued GC runs after the last request; the driver can keep serving.
    pub fn finish(&mut self, workload: &str) -> Result<RunResult> {
        self.core
            .finish(&mut self.sim, workload.to_string(), "workload_end")
    }
}

impl<D: DeviceModel> Driver<D> {
    /// The memory the run is estimated to need: the simulation's
    /// ([`Simulation::memory_estimate`]) plus the device model, cache and driver.
    pub fn memory_estimate(&self) -> u64 {
        self.sim.memory_estimate() + self.core.memory_estimate()
    }

    /// Why [`Driver::memory_estimate`] is an upper bound rather than a prediction, if it is
    /// one: the simulation's reason ([`Simulation::memory_estimate_upper_bound`]), else the
    /// device model's.
    pub fn memory_estimate_upper_bound(&self) -> Option<&'static str> {
        self.sim
            .memory_estimate_upper_bound()
            .or_else(|| self.core.memory_estimate_upper_bound())
    }

    /// Rebuilds a timed run from a checkpoint whose driver section the reader is at (after
    /// the simulation's sections), on device model `dev` built from the stored options.
    fn resume(
        mut r: crate::checkpoint::CheckpointReader,
        build: impl FnOnce(&Simulation, &TimingParams) -> Result<D>,
    ) -> Result<Driver<D>> {
        let p = r
            .meta
            .timing
            .clone()
            .ok_or_else(|| r.damaged("no timing parameters for a timed run".into()))?;
        let mut sim = Simulation::load_checkpoint_sections(&mut r)?;
        // The stored parameters are checked as the options parser checks them.
        p.validate(sim.layout().logical_pages)
            .map_err(|e| r.damaged(format!("timing parameters: {e}")))?;
        let state = r.section(b"DRV ")?;
        let dev = build(&sim, &p)?;
        let mut core = Core::new(&sim, dev, p)?;
        core.load_checkpoint_state(&mut sim, &state)
            .map_err(|e| r.damaged(format!("driver state: {e}")))?;
        r.finish()?;
        Ok(Driver { sim, core })
    }
}

/// A run of any kind, chosen by configuration: WAF-only (the null device) or timed on the
/// flash or NoC device. What the CLI and the Python binding build.
pub enum Engine {
    /// WAF-only.
    Waf(Box<Simulation>),
    /// Timed on the flash device.
    Flash(Box<TimedSim>),
    /// Timed on the NoC controller model.
    Noc(Box<NocSim>),
}

impl Engine {
    /// WAF-only when `timing` is None, else the device model `timing` selects (the NoC
    /// controller when `timing.noc` is set, else flash).
    pub fn new(cfg: &Config, timing: Option<TimingParams>) -> Result<Engine> {
        let e = match timing {
            None => return Ok(Engine::Waf(Box::new(Simulation::new(cfg)?))),
            Some(p) if p.noc.is_some() => Engine::Noc(Box::new(Driver::new_noc(cfg, p)?)),
            Some(p) => Engine::Flash(Box::new(TimedSim::new(cfg, p)?)),
        };
        // The simulation checked its own tables against the limit; the device model,
        // cache and driver come on top.
        if let Some(limit) = cfg.run.max_memory_gib {
            let need = e.memory_estimate() as f64;
            if need > limit * (1u64 << 30) as f64 {
                return Err(Error::config(
                    "run.max_memory_gib",
                    format!(
                        "this timed run needs about {:.2} GiB (FTL, policies, device model, cache) but the limit is {limit:.2} GiB; \
                         use a smaller device or cache, or raise the limit (`--max-memory GIB` on the command line, `max_memory_gib` in Python; \
                         by default the memory this machine has available)",
                        need / (1u64 << 30) as f64
                    ),
                ));
            }
        }
        Ok(e)
    }

    /// Rebuilds a run from a checkpoint (opened with
    /// [`crate::checkpoint::CheckpointReader::open`]): the stored configuration and timing
    /// parameters build it, then the saved state is loaded. Continue with
    /// [`Engine::run_with`] on a fresh instance of the same workload.
    pub fn from_checkpoint(r: crate::checkpoint::CheckpointReader) -> Result<Engine> {
        let cfg = r.meta.config.clone();
        Ok(match r.meta.timing.clone() {
            None => Engine::Waf(Box::new(Simulation::from_checkpoint(r)?)),
            Some(p) if p.noc.is_some() => Engine::Noc(Box::new(Driver::resume(r, |_, p| {
                let n = p.noc.clone().expect("checked");
                flash_only_options(p)
                    .map_err(|e| Error::Input(format!("checkpoint of a NoC run: {e}")))?;
                Ok(NocDevice::with_controller(
                    NocMedia::new(&cfg, n)?,
                    &p.controller,
                ))
            })?)),
            Some(_) => Engine::Flash(Box::new(Driver::resume(r, |sim, p| {
                let media = FlashMedia::build(
                    &cfg,
                    sim.layout(),
                    p.alloc,
                    &p.striping,
                    p.multiplane,
                    p.copyback,
                )?;
                let mut media = media;
                media.set_suspend(p.controller.suspend);
                media.set_backfill(
                    p.controller.channel == crate::device::policy::ChannelArb::Backfill,
                );
                Ok(FlashDevice::with_controller(media, &p.controller))
            })?)),
        })
    }

    /// The simulation (configuration, FTL).
    pub fn simulation(&self) -> &Simulation {
        match self {
            Engine::Waf(s) => s,
            Engine::Flash(d) => d.simulation(),
            Engine::Noc(d) => d.simulation(),
        }
    }

    /// The memory the run is estimated to need (see [`Simulation::memory_estimate`] and
    /// [`Driver::memory_estimate`]).
    pub fn memory_estimate(&self) -> u64 {
        match self {
            Engine::Waf(s) => s.memory_estimate(),
            Engine::Flash(d) => d.memory_estimate(),
            Engine::Noc(d) => d.memory_estimate(),
        }
    }

    /// Why [`Engine::memory_estimate`] is an upper bound rather than a prediction, if it is
    /// one (see [`Driver::memory_estimate_upper_bound`]).
    pub fn memory_estimate_upper_bound(&self) -> Option<&'static str> {
        match self {
            Engine::Waf(s) => s.memory_estimate_upper_bound(),
            Engine::Flash(d) => d.memory_estimate_upper_bound(),
            Engine::Noc(d) => d.memory_estimate_upper_bound(),
        }
    }

    /// The simulation, mutable (e.g. to turn the FTL's invariant checker on).
    pub fn simulation_mut(&mut self) -> &mut Simulation {
        match self {
            Engine::Waf(s) => s,
            Engine::Flash(d) => d.simulation_mut(),
            Engine::Noc(d) => d.simulation_mut(),
        }
    }

    /// Runs or continues the run (see [`Simulation::run_with`]).
    pub fn run_with(
        &mut self,
        wl: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
        ctl: &mut RunControl<'_>,
    ) -> Result<RunEnd> {
        match self {
            Engine::Waf(s) => s.run_with(wl, progress, ctl),
            Engine::Flash(d) => d.run_with(wl, progress, ctl),
            Engine::Noc(d) => d.run_with(wl, progress, ctl),
        }
    }
}

/// Runs `cfg` on workload `wl`: WAF-only when `timing` is None, else on the device model
/// `timing` selects (flash, or the NoC controller when `timing.noc` is set). A
/// future-knowledge placement gets its pre-pass from `future` (a second instance of the
/// workload).
pub fn run(
    cfg: &Config,
    timing: Option<TimingParams>,
    wl: &mut dyn Workload,
    future: Option<&mut dyn Workload>,
    progress: &mut dyn FnMut(&Progress),
    ctl: &mut RunControl<'_>,
) -> Result<RunEnd> {
    let mut e = Engine::new(cfg, timing)?;
    // A future-knowledge placement reads `future` in its pre-pass, replacing the one
    // `Simulation::new` took from a synthetic `run.workload` (a request table given with
    // the configuration's default workload would otherwise be planned on that).
    if let Some(f) = future {
        if e.simulation().ftl().placement().needs_future() {
            e.simulation_mut().prepare_future(f)?;
        }
    }
    e.run_with(wl, progress, ctl)
}

/// Memory the process can have now, in GiB: the machine's available memory (Linux
/// `MemAvailable`), lowered to what is left under the process's address-space limit
/// (`ulimit -v`) and its cgroup's memory limit where those are set; None where the machine's
/// cannot be read. Front ends (the CLI, the Python binding) default `run.max_memory_gib` to
/// it, so that a device or table too large for the machine is refused before it is
/// allocated instead of aborting the process on a failed allocation.
pub fn available_memory_gib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = |text: &str, key: &str| -> Option<f64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    let mut bytes = kib(&s, "MemAvailable:")? * 1024.0;
    if let Some(left) = address_space_left() {
        bytes = bytes.min(left);
    }
    if let Some(left) = cgroup_memory_left() {
        bytes = bytes.min(left);
    }
    Some(bytes / (1u64 << 30) as f64)
}

/// Bytes of address space left under `RLIMIT_AS` (None when unlimited or unreadable).
#[cfg(target_os = "linux")]
fn address_space_left() -> Option<f64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let used: f64 = line.split_whitespace().nth(1)?.parse::<f64>().ok()? * 1024.0;
    Some((lim.rlim_cur as f64 - used).max(0.0))
}

#[cfg(not(target_os = "linux"))]
fn address_space_left() -> Option<f64> {
    None
}

/// Bytes left under the process's cgroup (v2) `memory.max` (None when unlimited or not
/// readable). The cgroup's page cache (`file` in `memory.stat`) is counted as free, as
/// `MemAvailable` counts it: the kernel reclaims it before the limit bites, and a build
/// that just read many files would otherwise look like a full cgroup.
fn cgroup_memory_left() -> Option<f64> {
    let cg = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cg.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = format!("/sys/fs/cgroup{}", path.trim_end());
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
    let max: f64 = read("memory.max")?.trim().parse().ok()?;
    let current: f64 = read("memory.current")?.trim().parse().ok()?;
    let file: f64 = read("memory.stat")
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("file "))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0.0);
    Some((max - (current - file).max(0.0)).max(0.0))
}

/// Refuses a run whose estimate (`estimate`: the engine's tables, policies and device) with
/// its workload's own memory (`replay`: a trace replay's remap table and parser; nothing to
/// check when empty, since the engine checked its own part when it was built) is over
/// `run.max_memory_gib`. `hint` says, in the front end's words, how to shrink the run or
/// raise the limit.
pub fn check_memory_limit(
    cfg: &Config,
    estimate: u64,
    replay: &[crate::metrics::MemoryItem],
    hint: &str,
) -> Result<()> {
    let (Some(limit), false) = (cfg.run.max_memory_gib, replay.is_empty()) else {
        return Ok(());
    };
    let gib = (1u64 << 30) as f64;
    let need = estimate + replay.iter().map(|m| m.bytes).sum::<u64>();
    if need as f64 <= limit * gib {
        return Ok(());
    }
    let items: Vec<String> = replay
        .iter()
        .map(|m| {
            format!(
                "{} {:.1} MiB",
                m.structure,
                m.bytes as f64 / (1u64 << 20) as f64
            )
        })
        .collect();
    Err(Error::config(
        "run.max_memory_gib",
        format!(
            "this run needs about {:.2} GiB (the simulator's tables and policies, and the trace replay's: {}) \
             but the limit is {limit:.2} GiB; {hint}",
            need as f64 / gib,
            items.join(", ")
        ),
    ))
}
