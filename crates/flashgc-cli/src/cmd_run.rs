//! `flashgc run` and `flashgc resume`: one configuration, WAF-only or timed, with
//! checkpoints; workload opening and progress bars shared with the other commands.

use crate::{cmd_checkpoint, cmd_midas, cmd_timing, cmd_trace, output, CommonArgs, Fail};
use clap::Args;
use flashgc_core::workload::{Workload, WorkloadSpec};
use flashgc_core::{Config, RunResult};

/// Flags of `flashgc run` and `flashgc compare` (a resumed run re-parses its stored ones).
#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) common: CommonArgs,
    #[command(flatten)]
    pub(crate) trace: cmd_trace::TraceFlags,
    #[command(flatten)]
    pub(crate) timing: cmd_timing::TimingFlags,
    #[command(flatten)]
    pub(crate) mqsim: crate::cmd_mqsim::MqsimFlags,
    /// Placement/victim pairs, e.g. `midas/fifo,sepbit/cost-benefit:sqrt` (`compare` runs
    /// exactly these pairs instead of crossing --placement and --victim; `run`: one pair).
    #[arg(long, conflicts_with_all = ["placement", "victim"])]
    pub(crate) scheme: Option<String>,
    /// Print the result as JSON.
    #[arg(long, conflicts_with = "csv")]
    pub(crate) json: bool,
    /// Print the result as CSV (one row per configuration).
    #[arg(long)]
    pub(crate) csv: bool,
    /// Also write the JSON result to this file (atomically).
    #[arg(long, short = 'o')]
    pub(crate) output: Option<String>,
    /// Check every FTL invariant after each GC victim (slow).
    #[arg(long)]
    pub(crate) check: bool,
    /// Parallel simulations for `compare` (default: number of cores).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) jobs: Option<usize>,
    /// Write a checkpoint every SIZE of user writes: a size (64GiB, 1TiB) or a multiple of
    /// the logical capacity (2x); at least 1 MiB. Ctrl-C always writes one. `flashgc resume
    /// FILE` continues.
    #[arg(long, value_name = "SIZE")]
    pub(crate) checkpoint_every: Option<String>,
    /// Checkpoint file (default: OUTPUT.ckpt next to --output, else ./flashgc-run.ckpt).
    #[arg(long, value_name = "FILE")]
    pub(crate) checkpoint: Option<String>,
}

/// Opens the configuration's workload (synthetic, or a trace through the trace reader).
pub(crate) fn open_workload(
    cfg: &mut Config,
    trace: &cmd_trace::TraceFlags,
) -> Result<Box<dyn Workload>, Fail> {
    if !cfg.flow.is_empty() {
        // `[[flow]]` sections are the workload (docs/flows.md).
        let l = cfg.layout()?;
        let fs = flashgc_core::workload::flows::from_config(cfg, &l)?.expect("flows given");
        return Ok(Box::new(fs));
    }
    match WorkloadSpec::parse("run.workload", &cfg.run.workload)? {
        WorkloadSpec::Synthetic(kind) => {
            let l = cfg.layout()?;
            Ok(Box::new(flashgc_core::workload::Synthetic::try_new(
                kind,
                l.logical_pages,
                cfg.run.request_pages,
                cfg.run.read_ratio,
                cfg.run.seed,
            )?))
        }
        WorkloadSpec::Trace(path) => {
            let l = cfg.layout()?;
            let per_page = cfg.run.content_mode();
            cmd_trace::open_workload(trace, &path, l.lpn_size, l.logical_pages, per_page)
                .map_err(|e| Fail(2, e))
        }
    }
}

pub(crate) fn prepare_trace(cfg: &mut Config, trace: &cmd_trace::TraceFlags) -> Result<(), Fail> {
    match WorkloadSpec::parse("run.workload", &cfg.run.workload)? {
        WorkloadSpec::Trace(path) => {
            cmd_trace::prepare(trace, &path, cfg).map_err(|e| Fail(2, e))?
        }
        WorkloadSpec::Synthetic(_) => {
            // Trace flags with a synthetic workload would be silently ignored: refuse them.
            let r = &trace.read;
            let given = [
                ("--format", r.format.is_some()),
                ("--blkparse-events", r.blkparse_events.is_some()),
                ("--volume", r.volume.is_some()),
                ("--ops", r.ops.is_some()),
                ("--time-window", r.time_window.is_some()),
                ("--skip-bad-lines", r.skip_bad_lines),
                ("--remap", trace.remap.is_some()),
                ("--capacity", trace.capacity.is_some()),
                ("--loop-times", trace.loop_times.is_some()),
                ("--loop-until", trace.loop_until.is_some()),
                ("--time-scale", trace.time_scale.is_some()),
                ("--trace-flushes", trace.trace_flushes.is_some()),
            ];
            if let Some((flag, _)) = given.iter().find(|g| g.1) {
                return Err(Fail(
                    2,
                    format!(
                        "{flag} applies to trace workloads (--workload trace:PATH), not to `{}`",
                        cfg.run.workload
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The run loop's progress callback: drives the terminal progress bar, if there is one.
pub(crate) fn bar_progress(
    bar: Option<&indicatif::ProgressBar>,
) -> impl FnMut(&flashgc_core::sim::Progress) + '_ {
    let mut open_ended = false;
    move |p| {
        if let Some(b) = bar {
            match p.target_pages {
                Some(t) => b.set_length(t),
                None if !open_ended => {
                    open_ended = true;
                    b.set_style(output::open_ended_style("pages"));
                }
                None => {}
            }
            b.set_position(p.user_pages);
            b.set_message(format!("WAF {:.3}", p.waf));
        }
    }
}

/// Runs one configuration of `compare`, WAF-only or timed, to its end, or until `stop` is
/// set: then its partial result (`ended_by` = "interrupted"; see [`crate::interrupt`]).
pub(crate) fn run_one(
    cfg: &Config,
    a: &RunArgs,
    mut progress: impl FnMut(&flashgc_core::sim::Progress),
    stop: &std::sync::atomic::AtomicBool,
) -> Result<RunResult, Fail> {
    use flashgc_core::sim::{RunControl, RunEnd};
    let mut cfg = cfg.clone();
    prepare_trace(&mut cfg, &a.trace)?;
    let mut wl = open_workload(&mut cfg, &a.trace)?;
    // A trace replay's own memory, listed in the result as `run` lists it.
    let replay = cmd_checkpoint::replay_memory(wl.as_ref(), &cfg)?;
    let with_replay = |mut r: RunResult| {
        r.memory.extend(replay.iter().cloned());
        r
    };
    let mut ctl = RunControl {
        stop: Some(stop),
        ..RunControl::default()
    };
    if a.timing.timing || a.timing.any_timing_flag() {
        return Ok(with_replay(cmd_timing::run(
            &a.timing,
            &cfg,
            wl.as_mut(),
            &mut progress,
            &mut ctl,
        )?));
    }
    // WAF-only: one simulation (its tables are the run's memory; never build two).
    let mut sim = flashgc_core::Simulation::new(&cfg)?;
    let need = sim.memory_estimate() + replay.iter().map(|m| m.bytes).sum::<u64>();
    cmd_checkpoint::check_limit(&cfg, need, &replay)?;
    if sim.needs_future() {
        // A future-knowledge placement (the oracle) gets a pre-pass over an identical
        // second instance of the workload.
        let mut future = open_workload(&mut cfg, &a.trace)?;
        sim.prepare_future(future.as_mut())?;
    }
    sim.ftl_mut().set_check_after_gc(a.check);
    Ok(with_replay(
        match sim.run_with(wl.as_mut(), &mut progress, &mut ctl)? {
            RunEnd::Finished(r) => r,
            RunEnd::Stopped { partial, .. } => partial,
        },
    ))
}

/// Runs `f` with a progress callback that drives a terminal progress bar of its own
/// (pages written; none when stderr is not a terminal), cleared when `f` returns: the
/// simulations of `fio`, `noc` and `dedup`, which showed no progress at all.
pub(crate) fn with_bar<T>(f: impl FnOnce(&mut dyn FnMut(&flashgc_core::sim::Progress)) -> T) -> T {
    let bar = output::new_bar(0, "pages");
    let r = f(&mut bar_progress(bar.as_ref()));
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    r
}

/// Runs `wl` on `cfg` (timed by `p`, WAF-only when None) to its end under [`with_bar`]:
/// the result, or the partial one of a run a signal stopped (`fio`, `noc` and `dedup` take
/// no checkpoint; see [`crate::interrupt`]: the caller stops its loop when
/// `interrupt::exit_code` says so and ends with `interrupt::finish`). A trace replay's own
/// memory (its remap table and parser) counts against `run.max_memory_gib` and is listed in
/// the result, as `run` does it. Returns the result and the memory estimate the run was
/// admitted with ([`Estimate`]), for the report's memory line.
pub(crate) fn run_with_bar(
    cfg: &Config,
    p: Option<flashgc_core::timing::TimingParams>,
    wl: &mut dyn Workload,
) -> Result<(RunResult, Estimate), Fail> {
    use flashgc_core::sim::{RunControl, RunEnd};
    let stop = &crate::interrupt::handlers()?.stop;
    let replay = cmd_checkpoint::replay_memory(wl, cfg)?;
    let mut engine = flashgc_core::driver::Engine::new(cfg, p)?;
    let need = engine.memory_estimate() + replay.iter().map(|m| m.bytes).sum::<u64>();
    cmd_checkpoint::check_limit(cfg, need, &replay)?;
    let bound = engine.memory_estimate_upper_bound();
    let end = with_bar(|progress| {
        let mut ctl = RunControl {
            stop: Some(stop),
            ..RunControl::default()
        };
        engine.run_with(wl, progress, &mut ctl)
    })?;
    let mut r = match end {
        RunEnd::Finished(r) => r,
        RunEnd::Stopped { partial, .. } => partial,
    };
    r.memory.extend(replay);
    Ok((r, (need, bound)))
}

/// The memory estimate a run was admitted with (bytes; checked against
/// `run.max_memory_gib`) and why it is an upper bound rather than a prediction, if it is
/// one ([`flashgc_core::Simulation::memory_estimate_upper_bound`]).
pub(crate) type Estimate = (u64, Option<&'static str>);

/// A progress bar on a terminal (see [`output::progress_bar`]: integer rates).
pub(crate) fn progress_bar(len: u64, unit: &str) -> Option<indicatif::ProgressBar> {
    output::progress_bar(len, unit)
}

pub(crate) fn cmd_run(a: RunArgs) -> Result<(), Fail> {
    cmd_timing::warn_synthetic_volume(&a.common, a.timing.wants_fio());
    let mut cfg = crate::args::build_config_as_given(&a.common)?;
    // The limit the checkpoints store: the user's, not this moment's available memory.
    let memory_limit = cfg.run.max_memory_gib;
    crate::args::default_memory_limit(&mut cfg);
    crate::cmd_mqsim::apply(&a.mqsim, &mut cfg)?;
    if let Some(s) = &a.scheme {
        let pairs = flashgc_core::scheme::parse_pairs("--scheme", s)?;
        let [p] = pairs.as_slice() else {
            return Err(Fail(
                2,
                format!("--scheme `{s}`: `run` takes one placement/victim pair (`compare` takes several)"),
            ));
        };
        cfg.run.placement = p.placement.clone();
        cfg.run.victim = p.victim.clone();
        crate::args::flag_sets(&["run.placement", "run.victim"]);
    }
    crate::cmd_trace::apply_loop_until(&a.trace, &mut cfg);
    cfg.layout()?;
    content_flags_need_content_mode(&a.common, &cfg)?;
    output::warn_advisories(&cfg);
    cmd_checkpoint::check_output(&a)?;
    cmd_checkpoint::check_checkpoint(&a)?;
    output::not_an_input("-o", a.output.as_deref(), &cfg, a.common.config.as_deref())?;
    output::not_an_input(
        "--checkpoint",
        a.checkpoint.as_deref(),
        &cfg,
        a.common.config.as_deref(),
    )?;
    for (flag, out) in [("-o", &a.output), ("--checkpoint", &a.checkpoint)] {
        if let Some(o) = out {
            let x = a.mqsim.mqsim_workload.as_deref();
            output::not_the_input(flag, o, "MQSim workload file", x)?;
        }
    }
    let bar = progress_bar(0, "pages");
    let t0 = std::time::Instant::now();
    // WAF-only and timed runs alike: checkpoints, Ctrl-C and resume.
    let caller = cmd_checkpoint::caller_now();
    let out = cmd_checkpoint::run_waf(&cfg, &a, bar.as_ref(), None, caller, memory_limit)?;
    let r = out.result.clone();
    let out = Some(out);
    let secs = t0.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    report(&a, &r, secs, out.as_ref())
}

/// `flashgc resume CHECKPOINT [-o FILE]`: the original command line and the saved state;
/// the output goes to the current directory (or `-o`), never where the checkpoint says.
pub(crate) fn cmd_resume(path: &str, output: Option<String>) -> Result<(), Fail> {
    let cmd_checkpoint::ToResume {
        reader,
        path: abs,
        args,
        trace_as_given,
        memory_limit,
    } = cmd_checkpoint::open_for_resume(path)?;
    let mut caller = reader.meta.caller.clone();
    if let Some(t) = &trace_as_given {
        // For the checkpoints this run writes, which hold the absolute path.
        caller[cmd_checkpoint::TRACE_AS_GIVEN] = t.clone().into();
    }
    let mut a = match <crate::Cli as clap::Parser>::try_parse_from(crate::negative_values_attached(
        &args,
    )) {
        Ok(crate::Cli {
            cmd: crate::Cmd::Run(a),
        }) => a,
        _ => {
            return Err(Fail(
                2,
                format!(
                    "{path}: the stored command line is not a valid `flashgc run`: {}",
                    args.join(" ")
                ),
            ))
        }
    };
    a.trace.shown_as = trace_as_given;
    cmd_checkpoint::redirect_output(&mut a, output);
    cmd_checkpoint::check_output(&a)?;
    cmd_checkpoint::not_the_output(&a, &abs)?;
    // (The configuration comes from the checkpoint: its file is not read again.)
    output::not_an_input("-o", a.output.as_deref(), &reader.meta.config, None)?;
    crate::outfile::remove_stale_temps(&abs);
    let cfg = reader.meta.config.clone();
    eprintln!(
        "resuming {} at {} user pages ({} requests): {}",
        abs.display(),
        reader.meta.user_pages,
        reader.meta.requests,
        args[1..].join(" ")
    );
    let bar = progress_bar(0, "pages");
    let t0 = std::time::Instant::now();
    let resume = Some((reader, abs));
    let o = cmd_checkpoint::run_waf(&cfg, &a, bar.as_ref(), resume, caller, memory_limit).map_err(
        |Fail(code, msg)| {
            // Bad input found while resuming is the checkpoint's (its stored configuration,
            // command line or workload position): name the file, as the reader's errors do.
            if code == 2 && !msg.contains(path) {
                Fail(code, format!("{path}: the stored run: {msg}"))
            } else {
                Fail(code, msg)
            }
        },
    )?;
    let secs = t0.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let r = o.result.clone();
    report(&a, &r, secs, Some(&o))
}

/// Prints (then writes with `-o`) a run's result; for a run stopped by Ctrl-C or SIGTERM,
/// also how to resume it, and exits with 128 + the signal (130, 143).
pub(crate) fn report(
    a: &RunArgs,
    r: &RunResult,
    secs: f64,
    out: Option<&cmd_checkpoint::Outcome>,
) -> Result<(), Fail> {
    let json = serde_json::to_string_pretty(r).map_err(|e| Fail(1, e.to_string()))?;
    if a.json {
        println!("{json}");
    } else if a.csv {
        print!("{}", output::csv(std::slice::from_ref(r)));
    } else {
        print!(
            "{}",
            output::human(r, secs, out.map(|o| (o.estimate, o.estimate_bound)))
        );
        if let Some(lines) = r
            .placement_report
            .as_ref()
            .and_then(cmd_midas::history_lines)
        {
            println!("\nMiDAS configuration history:");
            for l in lines {
                println!("  {l}");
            }
        }
        if let Some(t) = &r.timing {
            print!("{}", crate::timing_summary::human(t));
        }
        if let Some(f) = &r.flows {
            print!("{}", output::human_flows(f));
        }
    }
    // Written after printing: a result that cannot be saved is still shown.
    let saved = match &a.output {
        Some(path) => output::save_result(path, json.as_bytes(), true),
        None => Ok(()),
    };
    if let Some(o) = out.filter(|o| o.result.ended_by == "interrupted") {
        let how = match &o.stopped {
            Some(i) => format!(
                "checkpoint written to {} ({:.1} MiB); resume with:\n  flashgc resume {}",
                i.path.display(),
                i.bytes as f64 / (1u64 << 20) as f64,
                i.path.display()
            ),
            None => format!("no checkpoint could be written to {}", o.path.display()),
        };
        eprintln!(
            "flashgc: interrupted: the results above are PARTIAL (ended_by = \"interrupted\"); {how}"
        );
        if let Err(Fail(_, msg)) = saved {
            crate::print_error(&msg);
        }
        return Err(Fail(o.exit_code(), String::new()));
    }
    saved
}

/// Refuses the content mode's flags on a run without it: with the `move` GC action no
/// content is tracked, so `--dup-ratio` and its pool would be dropped without a word.
/// (`compare` and `dedup` choose the GC action per run, so they take them as given.)
fn content_flags_need_content_mode(
    a: &crate::args::CommonArgs,
    cfg: &flashgc_core::Config,
) -> Result<(), Fail> {
    let given: Vec<&str> = [
        ("--dup-ratio", a.dup_ratio.is_some()),
        ("--dup-pool", a.dup_pool.is_some()),
        ("--dup-theta", a.dup_theta.is_some()),
    ]
    .into_iter()
    .filter_map(|(f, g)| g.then_some(f))
    .collect();
    if given.is_empty() || cfg.run.content_mode() {
        return Ok(());
    }
    Err(Fail(
        2,
        format!(
            "{}: options of the content mode, which the GC action `{}` does not use (no \
             content is tracked): give --gc-action splitgc, cagc or dagc, or run flashgc dedup",
            given.join(", "),
            cfg.run.gc_action
        ),
    ))
}
