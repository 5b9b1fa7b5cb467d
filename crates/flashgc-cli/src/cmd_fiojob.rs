//! `flashgc fio --job FILE.fio`: a fio job file planned onto the engine by the core
//! (`flashgc_core::workload::fio::jobfile::JobPlan`). Jobs that differ only in `numjobs`
//! and volume are merged and run through the same driver as the fio flags, so a job file
//! and its equivalent flags give the same result. Jobs of one group that differ in
//! pattern, block size, depth, distribution or region, jobs in several groups
//! (`stonewall`/`new_group`: a group starts when the one before it has ended), and jobs
//! with a `runtime`, a `ramp_time` or pacing run as host flows, one per job section (its
//! clones `NAME.j`), each with its own statistics in `flows` (docs/flows.md).

use crate::cmd_timing::TimingFlags;
use crate::Fail;
use flashgc_core::timing::Host;
use flashgc_core::workload::fio::jobfile::{JobFile, JobPlan};
use flashgc_core::{Config, RunResult};

/// Reads and parses a job file and plans its run (merged, or as host flows); fio flags
/// given besides it are refused.
/// Returns the plan and the notes its runs add to their results.
pub fn load(path: &str, flags: &TimingFlags, cfg: &Config) -> Result<(JobPlan, Vec<String>), Fail> {
    let given = [
        ("--rw", flags.rw.is_some()),
        ("--rwmixwrite", flags.rwmixwrite.is_some()),
        ("--bs", flags.bs.is_some()),
        ("--size", flags.size.is_some()),
        ("--numjobs", flags.numjobs.is_some()),
        ("--iodepth", flags.iodepth.is_some()),
        ("--distribution", flags.distribution.is_some()),
        ("--bssplit", flags.bssplit.is_some()),
        ("--paper", flags.paper.is_some()),
        ("--data-gb", flags.data_gb.is_some()),
    ];
    if let Some((f, _)) = given.iter().find(|g| g.1) {
        return Err(Fail(
            2,
            format!("{f}: the job file {path} describes the jobs; drop the flag or edit the file"),
        ));
    }
    let l = cfg.layout()?;
    // Checked now (regions, sizes), so that a bad job fails before any run, at its line.
    if path.trim().is_empty() {
        return Err(Fail(
            2,
            "the job file: an empty path; give a file name".into(),
        ));
    }
    let jf = JobFile::read(path)?;
    let plan = jf.plan(l.logical_pages, l.lpn_size, cfg.run.seed)?;
    let mut notes = jf.notes();
    notes.extend_from_slice(plan.notes());
    Ok((plan, notes))
}

/// Runs the planned job file on `cfg` through the one driver (`run_with_bar`: a Ctrl-C or
/// SIGTERM stops it with its partial result).
pub fn run(
    (plan, notes): &(JobPlan, Vec<String>),
    flags: &TimingFlags,
    cfg: &Config,
) -> Result<(RunResult, crate::cmd_run::Estimate), Fail> {
    let mut cfg = cfg.clone();
    cfg.notes.extend(notes.iter().cloned());
    let cfg = &cfg;
    let l = cfg.layout()?;
    let mut p = flags.params(cfg, true)?;
    let mut planned = plan.start(l.logical_pages, l.lpn_size, cfg.run.seed)?;
    if let Some(queue_depth) = planned.queue_depth {
        p.host = Host::ClosedLoop { queue_depth };
    }
    p.data_volume_bytes = Some(planned.data_bytes);
    crate::cmd_run::run_with_bar(cfg, Some(p), planned.workload.as_mut())
}
