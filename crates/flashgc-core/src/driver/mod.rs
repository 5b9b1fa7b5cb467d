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
        let media = FlashMedia::build(cfg, &l, p.alloc, &p.striping, p.multiplane, p.copyback)?;
        Driver::with_device(sim, FlashDevice::new(media), p)
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
        let media = NocMedia::new(cfg, n)?;
        Driver::with_device(sim, NocDevice::new(media), p)
    }
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
    /// completion time.
    pub fn submit(&mut self, req: &Request) -> Result<u64> {
        self.core.submit(&mut self.sim, req, req.time_ns)
    }

    /// Streaming API: the result of everything submitted (`workload` describes the
    /// source). Queued GC runs after the last request; the driver can keep serving.
    pub fn finish(&mut self, workload: &str) -> Result<RunResult> {
        self.core
            .finish(&mut self.sim, workload.to_string(), "workload_end")
    }
}

/// Runs `cfg` on workload `wl`: WAF-only when `timing` is None, else on the device model
/// `timing` selects (flash, or the NoC controller when `timing.noc` is set). A
/// future-knowledge placement gets its pre-pass from `future` (a second instance of the
/// workload), WAF-only.
pub fn run(
    cfg: &Config,
    timing: Option<TimingParams>,
    wl: &mut dyn Workload,
    future: Option<&mut dyn Workload>,
    progress: &mut dyn FnMut(&Progress),
    ctl: &mut RunControl<'_>,
) -> Result<RunEnd> {
    match timing {
        None => {
            let mut sim = Simulation::new(cfg)?;
            if sim.needs_future() {
                if let Some(f) = future {
                    sim.prepare_future(f)?;
                }
            }
            sim.run_with(wl, progress, ctl)
        }
        Some(p) if p.noc.is_some() => Driver::new_noc(cfg, p)?.run_with(wl, progress, ctl),
        Some(p) => TimedSim::new(cfg, p)?.run_with(wl, progress, ctl),
    }
}
