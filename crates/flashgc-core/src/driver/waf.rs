//! WAF-only runs: the driver on the null device model, as methods of [`Simulation`].

use super::host::Core;
use super::run_loop;
use crate::config::Config;
use crate::device::NullDevice;
use crate::error::Result;
use crate::metrics::recorder::Progress;
use crate::metrics::result::RunResult;
use crate::sim::{RunControl, RunEnd, Simulation};
use crate::timing::TimingParams;
use crate::workload::Workload;

impl Simulation {
    /// Runs the configuration's own synthetic workload, WAF-only.
    pub fn run_synthetic(cfg: &Config, progress: &mut dyn FnMut(&Progress)) -> Result<RunResult> {
        let mut sim = Simulation::new(cfg)?;
        if sim.needs_future() {
            // Same seed, same generator: an identical second instance for the oracle's pre-pass.
            let mut future_wl = sim.synthetic_workload()?;
            sim.prepare_future(&mut future_wl)?;
        }
        let mut wl = sim.synthetic_workload()?;
        sim.run(&mut wl, progress)
    }

    /// Preconditions (if not done yet), then serves `wl` WAF-only until the write volume
    /// is reached (infinite workloads) or the workload ends.
    pub fn run(
        &mut self,
        wl: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<RunResult> {
        match self.run_with(wl, progress, &mut RunControl::default())? {
            RunEnd::Finished(r) => Ok(r),
            // Without a stop flag or a request limit the run never stops early.
            RunEnd::Stopped { partial, .. } => Ok(partial),
        }
    }

    /// Like [`Simulation::run`], with periodic checkpoints and a stop request (`ctl`). On a
    /// simulation restored by [`Simulation::from_checkpoint`] it continues where the
    /// checkpoint was taken, after moving `wl` (a fresh instance of the same workload) to
    /// the saved position. After a stop, calling it again with the same workload object
    /// continues the run in memory. Safe points, where checkpoints are taken and stop
    /// requests are honoured, fall between batches of up to
    /// [`super::SAFE_POINT_REQUESTS`] requests.
    pub fn run_with(
        &mut self,
        wl: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
        ctl: &mut RunControl<'_>,
    ) -> Result<RunEnd> {
        let mut core = Core::new(self, NullDevice, TimingParams::default())?;
        run_loop::run(self, &mut core, wl, progress, ctl)
    }
}
