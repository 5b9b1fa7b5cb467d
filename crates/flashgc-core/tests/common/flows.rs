//! Runs of host flows (`[[flow]]` sections) on the timed engine: to the end, and stopped
//! and resumed from a checkpoint.

use flashgc_core::device::policy::{ControllerParams, Scheduler, Suspend};
use flashgc_core::driver::Engine;
use flashgc_core::sim::{RunControl, RunEnd};
use flashgc_core::timing::TimingParams;
use flashgc_core::workload::flows;
use flashgc_core::{Config, RunResult};

/// Runs the flows of `c` to their end under `p`.
pub fn run(c: &Config, p: &TimingParams) -> RunResult {
    let l = c.layout().unwrap();
    let mut fs = flows::from_config(c, &l).unwrap().unwrap();
    let mut e = Engine::new(c, Some(p.clone())).unwrap();
    match e
        .run_with(&mut fs, &mut |_| {}, &mut RunControl::default())
        .unwrap()
    {
        RunEnd::Finished(r) => r,
        RunEnd::Stopped { .. } => unreachable!(),
    }
}

/// Read-first with program/erase suspend (20 us each way, 4 suspensions per operation):
/// the scheduler whose completions the driver learns only later.
pub fn read_first_with_suspend() -> TimingParams {
    TimingParams {
        controller: ControllerParams {
            scheduler: Scheduler::ReadFirst,
            suspend: Some(Suspend {
                suspend_ns: 20_000,
                resume_ns: 20_000,
                max_per_op: 4,
            }),
            ..ControllerParams::default()
        },
        ..TimingParams::default()
    }
}

/// The result's JSON of the flows of `c` under `p`, stopped after each of `stops` requests
/// (checkpoint in the temporary directory, named after `tag`) and resumed from the
/// checkpoint each time: it must be the uninterrupted run's.
pub fn resumed_json(c: &Config, p: &TimingParams, stops: &[u64], tag: &str) -> String {
    let l = c.layout().unwrap();
    resumed_json_of(c, p, stops, tag, &|| {
        flows::from_config(c, &l).unwrap().unwrap()
    })
}

/// [`resumed_json`] of the flows `make` builds (each run and each resume builds them
/// anew, as a fresh process would).
pub fn resumed_json_of(
    c: &Config,
    p: &TimingParams,
    stops: &[u64],
    tag: &str,
    make: &dyn Fn() -> flows::FlowSet,
) -> String {
    resumed_json_probing(c, p, stops, tag, make, &mut |_| {})
}

/// [`resumed_json_of`], showing `probe` the flows as each resume restores them from the
/// checkpoint (the state at the stop, before finishing the partial result drained the
/// device).
pub fn resumed_json_probing(
    c: &Config,
    p: &TimingParams,
    stops: &[u64],
    tag: &str,
    make: &dyn Fn() -> flows::FlowSet,
    probe: &mut (dyn FnMut(&flows::FlowSet) + Send),
) -> String {
    let got = super::resume::resumed(c, p, stops, tag, &mut |e, ctl| {
        let mut wl = Probed {
            fs: make(),
            probe: &mut *probe,
        };
        e.run_with(&mut wl, &mut |_| {}, ctl).unwrap()
    });
    serde_json::to_string_pretty(&got).unwrap()
}

/// Runs the flows `fs` (a job file's plan, say) on the device of `c` to their end under `p`.
pub fn run_of(c: &Config, p: &TimingParams, fs: &mut flows::FlowSet) -> RunResult {
    let mut e = Engine::new(c, Some(p.clone())).unwrap();
    match e
        .run_with(fs, &mut |_| {}, &mut RunControl::default())
        .unwrap()
    {
        RunEnd::Finished(r) => r,
        RunEnd::Stopped { .. } => unreachable!(),
    }
}

/// Flows that show `probe` their state whenever a resume restores it.
struct Probed<'a> {
    fs: flows::FlowSet,
    probe: &'a mut (dyn FnMut(&flows::FlowSet) + Send),
}

impl flashgc_core::workload::Workload for Probed<'_> {
    fn fill(
        &mut self,
        buf: &mut Vec<flashgc_core::workload::Request>,
        max: usize,
    ) -> flashgc_core::Result<()> {
        self.fs.fill(buf, max)
    }
    fn describe(&self) -> String {
        self.fs.describe()
    }
    fn is_infinite(&self) -> bool {
        self.fs.is_infinite()
    }
    fn save_position(&self) -> Option<Vec<u8>> {
        self.fs.save_position()
    }
    fn load_position(&mut self, state: &[u8]) -> flashgc_core::Result<()> {
        self.fs.load_position(state)?;
        (self.probe)(&self.fs);
        Ok(())
    }
    fn as_flows(&mut self) -> Option<&mut flows::FlowSet> {
        Some(&mut self.fs)
    }
}
