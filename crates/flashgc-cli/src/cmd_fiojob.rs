//! `flashgc fio --job FILE.fio`: a fio job file mapped onto the closed-loop fio model
//! (`flashgc_core::workload::fio::jobfile`). Jobs that differ only in `numjobs` and volume are
//! merged and run through the same driver as the fio flags, so a job file and its
//! equivalent flags give the same result. Jobs of one group that differ in pattern, block
//! size, depth, distribution or region, jobs in several groups (`stonewall`/`new_group`: a
//! group starts when the one before it has ended), and jobs with a `runtime` or a
//! `ramp_time` (each job's clock: `time_based` too) run as host flows, one per job section
//! (its clones `NAME.j`), each with its own statistics in `flows` (docs/flows.md).

use crate::cmd_timing::TimingFlags;
use crate::Fail;
use flashgc_core::timing::Host;
use flashgc_core::workload::fio::jobfile::{self, JobFile, MergedJob};
use flashgc_core::workload::fio::FioJob;
use flashgc_core::workload::flows::{FlowSet, FlowSpec};
use flashgc_core::{Config, RunResult};

/// How a job file runs.
#[derive(Debug, Clone)]
pub enum Plan {
    /// One stream of identical jobs (clones summed), as the fio flags.
    Merged(MergedJob),
    /// One host flow per job section (and clone), each with its own statistics.
    Flows {
        /// The flows.
        specs: Vec<FlowSpec>,
        /// Host data the jobs transfer, bytes (the run ends there or when every flow has
        /// issued its requests).
        data_bytes: u64,
    },
}

/// Whether a job of `jf` has a run time or a ramp (`runtime`, `ramp_time`), a start
/// delay, a rate cap or a think time: those run as host flows, which pace, end and measure
/// each job by its own clock.
fn timed_jobs(jf: &JobFile) -> bool {
    jf.jobs
        .iter()
        .any(|j| j.runtime_ns.is_some() || j.ramp_ns.is_some() || j.paced())
}

/// One flow per job section and clone: its pattern, region (fio's placement of clones:
/// `offset + j x offset_increment`, [`jobfile::CloneRegion`]), depth, group, and as many
/// requests as its volume (`io_size`, `number_ios`, else its region) holds blocks.
fn flows(jf: &JobFile, capacity: u64, seed: u64) -> flashgc_core::Result<(Vec<FlowSpec>, u64)> {
    let mut specs = Vec::new();
    let mut data = 0u64;
    for (k, j) in jf.jobs.iter().enumerate() {
        let regions = (0..j.numjobs)
            .map(|c| j.clone_region(&jf.file, capacity, c))
            .collect::<flashgc_core::Result<Vec<_>>>()?;
        let job = FioJob {
            rw: j.rw,
            rwmixwrite: j.rwmixwrite,
            bs: j.bs,
            size: None,
            numjobs: j.numjobs,
            iodepth: j.iodepth,
            dist: j.dist.clone(),
            seed: seed.wrapping_add(k as u64 * 1000),
        };
        let placed: Vec<(u64, Option<u64>)> =
            regions.iter().map(|r| (r.offset, Some(r.size))).collect();
        for (mut f, r) in FlowSpec::from_fio_clones(&j.name, &job, &placed)
            .into_iter()
            .zip(&regions)
        {
            // `time_based`: the run time alone ends the job.
            f.requests = (!j.time_based).then_some(r.volume.div_ceil(j.bs.max(1)).max(1));
            // `stonewall`/`new_group`: the group starts when the groups before it end.
            f.group = j.group;
            f.runtime_ns = j.runtime_ns;
            f.ramp_ns = j.ramp_ns.unwrap_or(0);
            f.start_ns = j.startdelay_ns;
            f.rate_cap_iops = j.rate_cap_iops;
            f.thinktime_ns = j.thinktime_ns;
            specs.push(f);
            if !j.time_based {
                data = data.saturating_add(r.volume);
            }
        }
        if j.time_based {
            data = u64::MAX;
        }
    }
    Ok((specs, data))
}

/// Reads and parses a job file and plans its run (merged, or as host flows); fio flags
/// given besides it are refused.
pub fn load(path: &str, flags: &TimingFlags, cfg: &Config) -> Result<Plan, Fail> {
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
    // Checked now (regions, sizes), so that a bad job fails before any run, at its line.
    match jf.merge(l.logical_bytes(), cfg.run.seed) {
        Ok(m) if !timed_jobs(&jf) => {
            m.job
                .workload(l.logical_pages, l.lpn_size)
                .map_err(|e| at_line(&jf, e))?;
            Ok(Plan::Merged(m))
        }
        _ => {
            let (specs, data_bytes) = flows(&jf, l.logical_bytes(), cfg.run.seed)?;
            FlowSet::new(specs.clone(), l.logical_pages, l.lpn_size)
                .map_err(|e| at_line(&jf, e))?;
            Ok(Plan::Flows { specs, data_bytes })
        }
    }
}

/// A check of the jobs on the device (naming `fio.OPTION` for the merged job, `flow
/// `NAME`.OPTION` for a section run as a flow) as the parser's own errors read: `FILE:LINE:
/// option `OPTION`: ...`, at the line of the section that sets the option (its header when
/// the value is a default).
fn at_line(jf: &JobFile, e: flashgc_core::Error) -> Fail {
    let flashgc_core::Error::Config { field, message } = &e else {
        return e.into();
    };
    let (job, option) = if let Some(o) = field.strip_prefix("fio.") {
        (jf.jobs.first(), o)
    } else if let Some((name, o)) = field
        .strip_prefix("flow `")
        .and_then(|r| r.split_once("`."))
    {
        // Clones of a section are `NAME.j`.
        let base = match name.rsplit_once('.') {
            Some((b, j)) if j.parse::<u32>().is_ok() => b,
            _ => name,
        };
        (jf.jobs.iter().find(|j| j.name == name || j.name == base), o)
    } else {
        return e.into();
    };
    // The flag's and the flow's `distribution` is the job file's `random_distribution`.
    let option = if option == "distribution" {
        "random_distribution"
    } else {
        option
    };
    match job {
        Some(j) => Fail(
            2,
            format!(
                "{}:{}: option `{option}`: {message}",
                jf.file,
                j.line_of(option)
            ),
        ),
        None => e.into(),
    }
}

/// Runs the planned job file on `cfg` through the one driver (`run_with_bar`: a Ctrl-C or
/// SIGTERM stops it with its partial result).
pub fn run(plan: &Plan, flags: &TimingFlags, cfg: &Config) -> Result<RunResult, Fail> {
    let l = cfg.layout()?;
    let mut p = flags.params(cfg, true)?;
    let m = match plan {
        Plan::Merged(m) => m,
        Plan::Flows { specs, data_bytes } => {
            p.data_volume_bytes = Some(*data_bytes);
            let mut fs = FlowSet::new(specs.clone(), l.logical_pages, l.lpn_size)?;
            return crate::cmd_run::run_with_bar(cfg, Some(p), &mut fs);
        }
    };
    let mut job = m.job.clone();
    job.seed = cfg.run.seed;
    p.host = Host::ClosedLoop {
        queue_depth: job.queue_depth(),
    };
    p.data_volume_bytes = Some(m.data_bytes);
    if job.numjobs > 1 {
        // As the fio flags: each clone is a host flow of its own.
        let specs = FlowSpec::from_fio("job", &job, 0, l.logical_bytes());
        let mut fs = FlowSet::new(specs, l.logical_pages, l.lpn_size)?;
        return crate::cmd_run::run_with_bar(cfg, Some(p), &mut fs);
    }
    let mut wl = job.workload(l.logical_pages, l.lpn_size)?;
    crate::cmd_run::run_with_bar(cfg, Some(p), &mut wl)
}
