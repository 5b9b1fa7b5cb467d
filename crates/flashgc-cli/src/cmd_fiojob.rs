//! `flashgc fio --job FILE.fio`: a fio job file mapped onto the closed-loop fio model
//! (`flashgc_core::workload::fio::jobfile`). Jobs that differ only in `numjobs` and volume are
//! merged; a run with `runtime` or `ramp_time` goes through the streaming closed-loop host
//! (`flashgc_serve::closed`), every other one through the same driver as the fio flags, so
//! a job file and its equivalent flags give the same result.

use crate::cmd_timing::TimingFlags;
use crate::Fail;
use flashgc_core::driver::TimedSim;
use flashgc_core::timing::Host;
use flashgc_core::workload::fio::jobfile::{self, MergedJob};
use flashgc_core::{Config, RunResult};

/// Reads, parses and merges a job file; fio flags given besides it are refused.
pub fn load(path: &str, flags: &TimingFlags, cfg: &Config) -> Result<MergedJob, Fail> {
    let given = [
        ("--rw", flags.rw.is_some()),
        ("--rwmixwrite", flags.rwmixwrite.is_some()),
        ("--bs", flags.bs.is_some()),
        ("--size", flags.size.is_some()),
        ("--numjobs", flags.numjobs.is_some()),
        ("--iodepth", flags.iodepth.is_some()),
        ("--distribution", flags.distribution.is_some()),
        ("--paper", flags.paper.is_some()),
        ("--data-gb", flags.data_gb.is_some()),
    ];
    if let Some((f, _)) = given.iter().find(|g| g.1) {
        return Err(Fail(
            2,
            format!("{f}: the job file {path} describes the jobs; drop the flag or edit the file"),
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Fail(2, format!("{path}: cannot read the job file: {e}")))?;
    let jf = jobfile::parse(path, &text)?;
    let l = cfg.layout()?;
    Ok(jf.merge(l.logical_bytes(), cfg.run.seed)?)
}

/// Runs the merged job on `cfg`.
pub fn run(m: &MergedJob, flags: &TimingFlags, cfg: &Config) -> Result<RunResult, Fail> {
    let l = cfg.layout()?;
    let mut job = m.job.clone();
    job.seed = cfg.run.seed;
    let mut p = flags.params(cfg, true)?;
    p.host = Host::ClosedLoop {
        queue_depth: job.queue_depth(),
    };
    p.data_volume_bytes = Some(m.data_bytes);
    let mut wl = job.workload(l.logical_pages, l.lpn_size)?;
    if m.runtime_ns.is_none() && m.ramp_ns.is_none() {
        let mut ts = TimedSim::new(cfg, p)?;
        if job.numjobs > 1 {
            // As the fio flags: each clone is a host flow of its own.
            use flashgc_core::workload::flows::{FlowSet, FlowSpec};
            let specs = FlowSpec::from_fio("job", &job, 0, l.logical_bytes());
            let mut fs = FlowSet::new(specs, l.logical_pages, l.lpn_size)?;
            return Ok(ts.run(&mut fs, &mut |_| {})?);
        }
        return Ok(ts.run(&mut wl, &mut |_| {})?);
    }
    flashgc_serve::closed::run_closed(
        cfg,
        &p,
        &mut wl,
        flashgc_serve::closed::Limits {
            queue_depth: job.queue_depth(),
            data_bytes: m.data_bytes,
            runtime_ns: m.runtime_ns,
            ramp_ns: m.ramp_ns,
        },
    )
    .map_err(|e| Fail(1, e))
}
