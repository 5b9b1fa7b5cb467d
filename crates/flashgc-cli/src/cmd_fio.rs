//! The `flashgc fio` subcommand: fio-like closed-loop jobs (flags or a job file) on one or
//! more placement x victim schemes, with the sup-gc / bf-gc write-ratio series. The flags
//! are `cmd_timing`'s; job files are `cmd_fiojob`'s.

use crate::cmd_timing::{fio_job_workload, warn_synthetic_volume, TimingFlags};
use crate::timing_summary::series_table;
use flashgc_core::RunResult;

/// `flashgc fio`: fio-like closed-loop jobs on one or more placement x victim schemes.
#[derive(Debug, clap::Args)]
pub struct FioArgs {
    #[command(flatten)]
    common: crate::CommonArgs,
    #[command(flatten)]
    timing: TimingFlags,
    /// A fio job file ([global] and job sections; rw, rwmixwrite/rwmixread, bs (or
    /// bs=READS,WRITES), bsrange, bssplit, size, offset, numjobs, iodepth, random_distribution, io_size, number_ios, runtime,
    /// ramp_time, stonewall/new_group) instead of the fio flags.
    #[arg(long, value_name = "FILE.fio")]
    job: Option<String>,
    /// Print the results as JSON (an array, one per scheme).
    #[arg(long)]
    json: bool,
    /// Also write the JSON results to this file.
    #[arg(long, short = 'o')]
    output: Option<String>,
}

/// Runs `flashgc fio`; returns the exit code (2: bad input, 1: run-time failure).
pub fn fio(args: &FioArgs) -> i32 {
    match fio_inner(args) {
        Ok(()) => 0,
        Err(crate::Fail(code, msg)) => {
            if !msg.is_empty() {
                crate::print_error(&msg);
            }
            code as i32
        }
    }
}

fn fio_inner(args: &FioArgs) -> std::result::Result<(), crate::Fail> {
    warn_synthetic_volume(&args.common, true);
    let base = crate::build_config(&args.common)?;
    base.layout()?;
    crate::output::check_output(args.output.as_deref())?;
    crate::output::not_an_input(
        "-o",
        args.output.as_deref(),
        &base,
        args.common.config.as_deref(),
    )?;
    // The result over the job file replaced it without a word.
    crate::output::distinct_files(&[
        ("--job", args.job.as_deref()),
        ("-o", args.output.as_deref()),
    ])?;
    let mut flags = args.timing.clone();
    flags.timing = true;
    let jobfile = match &args.job {
        Some(path) => Some(crate::cmd_fiojob::load(path, &flags, &base)?),
        None => None,
    };
    if !flags.wants_fio() {
        flags.rw = Some("randwrite".into());
    }
    let mut results = Vec::new();
    let victims = crate::split_list("run.victim", &base.run.victim)?;
    'pairs: for p in crate::split_list("run.placement", &base.run.placement)? {
        for v in &victims {
            let mut c = base.clone();
            c.run.placement = p.clone();
            c.run.victim = v.clone();
            let r = match &jobfile {
                Some(m) => crate::cmd_fiojob::run(m, &flags, &c)?,
                None => {
                    let params = flags.params(&c, true)?;
                    let mut wl = fio_job_workload(&flags, &c)?;
                    crate::cmd_run::run_with_bar(&c, Some(params), wl.as_mut())?
                }
            };
            results.push((format!("{p}+{v}"), r.0, r.1));
            if crate::interrupt::exit_code().is_some() {
                break 'pairs;
            }
        }
    }
    let rs: Vec<&RunResult> = results.iter().map(|r| &r.1).collect();
    let json = serde_json::to_string_pretty(&rs).map_err(|e| crate::Fail(1, e.to_string()))?;
    // Printed first, then written: a result that cannot be saved is still shown.
    if args.json {
        println!("{json}");
        crate::output::save_printed(args.output.as_deref(), json.as_bytes())?;
        return crate::interrupt::finish();
    }
    let first = &results[0].1;
    println!(
        "{} on {} ({:.2} GiB logical)",
        first.workload,
        first.device.preset.as_deref().unwrap_or("custom"),
        first.device.logical_gib
    );
    let mut rows = Vec::new();
    for (name, r, estimate) in &results {
        let t = r.timing.as_ref().expect("timed run");
        println!(
            "{name:22} IOPS {:>9.0}  MB/s {:>8.1}  read p99 {:>9} us  write p99 {:>9} us  WAF {:.3}  erases {}  GC moves {}",
            t.iops, t.bandwidth_mb_s, crate::output::p99_cell(&t.read_latency), crate::output::p99_cell(&t.write_latency), r.total.waf, r.total.erases, r.total.gc_writes
        );
        rows.push((name.as_str(), t));
        let alone = results.len() == 1;
        print!(
            "  {}",
            crate::output::memory_line(r, Some(*estimate), alone)
        );
        if let Some(f) = &r.flows {
            print!("{}", crate::output::human_flows(f));
        }
    }
    if results.len() > 1 {
        print!("{}", crate::output::peak_line(results.len()));
    }
    if rows.iter().any(|r| !r.1.series.is_empty()) {
        println!("\nseries over host data volume (GB(eq): paper-equivalent GB when --paper scales the volume)");
        print!("{}", series_table(&rows));
    }
    for n in &first.notes {
        println!("note: {n}");
    }
    crate::output::save_printed(args.output.as_deref(), json.as_bytes())?;
    crate::interrupt::finish()
}
