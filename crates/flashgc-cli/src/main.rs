//! `flashgc`: the command line of the flashgc SSD garbage-collection laboratory.
//!
//! A thin layer: it builds a [`Config`] from a preset, a TOML file and flags (one flag
//! vocabulary for every command), opens the workload, runs the core and prints the result.

mod cmd_checkpoint;
mod cmd_dedup;
mod cmd_midas;
mod cmd_noc;
mod cmd_timing;
mod cmd_trace;
mod output;

use clap::{Args, Parser, Subcommand};
use flashgc_core::config::Watermark;
use flashgc_core::workload::{Workload, WorkloadSpec};
use flashgc_core::{placement, victim, Config, Error, RunResult};
use std::io::IsTerminal;
use std::process::ExitCode;

/// flashgc: a fast, faithful laboratory for SSD garbage collection.
#[derive(Parser, Debug)]
#[command(name = "flashgc", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Simulate one configuration and report WAF, erases, GC moves, memory.
    Run(RunArgs),
    /// Continue a run from its checkpoint (`run --checkpoint-every`, or Ctrl-C) with the
    /// flags it was started with; the output equals an uninterrupted run's.
    Resume {
        /// Checkpoint file.
        checkpoint: String,
    },
    /// Simulate several placement x victim combinations on the same workload and seed.
    Compare(RunArgs),
    /// Print analytic WAF models (Desnoyers) for a device; `model midas` for MiDAS's MCAM.
    Model(ModelArgs),
    /// List the embedded device presets, or print one (`presets NAME`).
    Presets {
        /// Preset to print as TOML.
        name: Option<String>,
    },
    /// List the registered placement schemes and victim policies.
    Policies,
    /// Print the effective configuration (preset + file + flags) as TOML.
    Config(CommonArgs),
    /// fio-like timed jobs (randrw, rwmixwrite, bs, numjobs, iodepth); `--paper sup-gc|bf-gc` runs a paper's write-ratio series.
    Fio(Box<cmd_timing::FioArgs>),
    /// NoC SSD controller: conventional vs selective copy-back GC (papers/noc-copyback-gc.txt).
    Noc(Box<cmd_noc::NocArgs>),
    /// Dedup-aware GC: SplitGC vs greedy, CAGC, DAGC on page content (papers/splitgc.txt).
    Dedup(Box<cmd_dedup::DedupArgs>),
    /// Trace tools: statistics, volumes, conversion to the binary .fgt format.
    Trace {
        #[command(subcommand)]
        cmd: cmd_trace::TraceCmd,
    },
    /// Run a parameter sweep on Dask (forwards to `python3 -m flashgc sweep`).
    Sweep {
        /// Arguments for `python3 -m flashgc sweep`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Build an HTML report from results (forwards to `python3 -m flashgc report`).
    Report {
        /// Arguments for `python3 -m flashgc report`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Reproduce a paper's evaluation: its claims beside flashgc's values, with verdicts
    /// (sup-gc, bf-gc, splitgc, noc, midas, all; `--scale quick|full`, `-o DIR`; forwards to
    /// `python3 -m flashgc reproduce`, which runs this binary for every case).
    Reproduce {
        /// Arguments for `python3 -m flashgc reproduce`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// Configuration flags shared by every command. Flags override the config file, which
/// overrides the preset.
#[derive(Args, Debug, Clone, Default)]
struct CommonArgs {
    /// Embedded device preset (see `flashgc presets`).
    #[arg(long)]
    preset: Option<String>,
    /// TOML configuration file (layered over the preset).
    #[arg(long)]
    config: Option<String>,
    /// Workload: uniform | zipf:THETA | hotcold:W/S | seq | trace:PATH.
    #[arg(long)]
    workload: Option<String>,
    /// Over-provisioning as (physical - logical) / logical.
    #[arg(long, allow_negative_numbers = true)]
    op: Option<f64>,
    /// Over-provisioning as (physical - logical) / physical (MQSim's definition).
    #[arg(long, allow_negative_numbers = true)]
    op_of_physical: Option<f64>,
    /// Logical capacity in GiB (sizes the device's blocks per plane).
    #[arg(long, allow_negative_numbers = true)]
    logical_gib: Option<f64>,
    /// Flash pages per block.
    #[arg(long)]
    pages_per_block: Option<u32>,
    /// Flash page size in bytes.
    #[arg(long)]
    page_size: Option<u32>,
    /// Mapping unit (LPN) size in bytes.
    #[arg(long)]
    lpn_size: Option<u32>,
    /// Blocks per segment (1 = block; k = superblock over k parallel units).
    #[arg(long)]
    segment_blocks: Option<u32>,
    /// Blocks per plane (instead of --logical-gib).
    #[arg(long)]
    blocks_per_plane: Option<u32>,
    /// GC starts below this many free segments (N, or X% of all segments).
    #[arg(long)]
    gc_low: Option<String>,
    /// GC runs until this many segments are free (N or X%).
    #[arg(long)]
    gc_high: Option<String>,
    /// User data to write, in multiples of the logical capacity.
    #[arg(long, allow_negative_numbers = true)]
    write_volume: Option<f64>,
    /// Warm-up excluded from the steady-state WAF, in multiples of the logical capacity.
    #[arg(long, allow_negative_numbers = true)]
    warmup: Option<f64>,
    /// Sequential precondition fill, fraction of the logical space (0..1).
    #[arg(long, allow_negative_numbers = true)]
    fill: Option<f64>,
    /// Fraction of requests that are reads (synthetic workloads).
    #[arg(long, allow_negative_numbers = true)]
    read_ratio: Option<f64>,
    /// Pages per request (synthetic workloads).
    #[arg(long)]
    request_pages: Option<u32>,
    /// Random seed.
    #[arg(long)]
    seed: Option<u64>,
    /// WAF time-series window, GiB of user writes.
    #[arg(long, allow_negative_numbers = true)]
    window_gib: Option<f64>,
    /// Placement scheme (`compare`: comma-separated list).
    #[arg(long)]
    placement: Option<String>,
    /// Victim policy (`compare`: comma-separated list).
    #[arg(long)]
    victim: Option<String>,
    /// Refuse runs whose estimated memory exceeds this many GiB (default: the memory the
    /// machine has available; `compare` divides it among its parallel runs).
    #[arg(long, allow_negative_numbers = true)]
    max_memory: Option<f64>,
}

#[derive(Args, Debug)]
struct RunArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    trace: cmd_trace::TraceFlags,
    #[command(flatten)]
    timing: cmd_timing::TimingFlags,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// Print the result as CSV (one row per configuration).
    #[arg(long)]
    csv: bool,
    /// Also write the JSON result to this file (atomically).
    #[arg(long, short = 'o')]
    output: Option<String>,
    /// Check every FTL invariant after each GC victim (slow).
    #[arg(long)]
    check: bool,
    /// Parallel simulations for `compare` (default: number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Write a checkpoint every SIZE of user writes: a size (64GiB, 1TiB) or a multiple of
    /// the logical capacity (2x). Ctrl-C always writes one. `flashgc resume FILE` continues.
    #[arg(long, value_name = "SIZE")]
    checkpoint_every: Option<String>,
    /// Checkpoint file (default: OUTPUT.ckpt next to --output, else ./flashgc-run.ckpt).
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<String>,
}

#[derive(Args, Debug)]
struct ModelArgs {
    #[command(subcommand)]
    sub: Option<ModelSub>,
    /// Over-provisioning (physical - logical) / logical.
    #[arg(long, default_value_t = 0.07, allow_negative_numbers = true)]
    op: f64,
    /// Pages per segment.
    #[arg(long, default_value_t = 256)]
    pages_per_segment: u32,
    /// Hot/cold split W/S as fractions or percents (e.g. 0.8/0.2 or 80/20).
    #[arg(long)]
    hot: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand, Debug)]
enum ModelSub {
    /// MiDAS's MCAM prediction and GCS configuration.
    Midas(cmd_midas::MidasModelArgs),
}

/// A failure with the exit code it maps to: 2 for bad input, 1 for run-time failures.
struct Fail(u8, String);

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        let code = match e {
            Error::Config { .. } | Error::Unknown { .. } | Error::Input(_) => 2,
            _ => 1,
        };
        Fail(code, e.to_string())
    }
}

fn build_config(a: &CommonArgs) -> Result<Config, Fail> {
    let text = match &a.config {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| Fail(2, format!("{path}: cannot read config: {e}")))?,
        ),
        None => None,
    };
    let mut c = Config::load(
        a.preset.as_deref(),
        a.config.as_deref().zip(text.as_deref()),
    )?;
    let d = &mut c.device;
    if let Some(v) = a.pages_per_block {
        d.pages_per_block = v;
    }
    if let Some(v) = a.page_size {
        d.page_size = v;
    }
    if let Some(v) = a.lpn_size {
        d.lpn_size = v;
    }
    if let Some(v) = a.segment_blocks {
        d.segment_blocks = v;
    }
    if let Some(v) = a.blocks_per_plane {
        d.blocks_per_plane = v;
        c.ftl.logical_gib = None;
    }
    if let Some(v) = a.op {
        c.ftl.op = Some(v);
        c.ftl.op_of_physical = None;
    }
    if let Some(v) = a.op_of_physical {
        c.ftl.op_of_physical = Some(v);
        if a.op.is_none() {
            c.ftl.op = None;
        }
    }
    if let Some(v) = a.logical_gib {
        c.ftl.logical_gib = Some(v);
    }
    if let Some(v) = &a.gc_low {
        c.ftl.gc_low = Watermark::parse("--gc-low", v)?;
    }
    if let Some(v) = &a.gc_high {
        c.ftl.gc_high = Some(Watermark::parse("--gc-high", v)?);
    }
    let r = &mut c.run;
    if let Some(v) = &a.workload {
        r.workload = v.clone();
    }
    if let Some(v) = a.write_volume {
        r.write_volume = v;
    }
    if let Some(v) = a.warmup {
        r.warmup = Some(v);
    }
    if let Some(v) = a.fill {
        r.fill = v;
    }
    if let Some(v) = a.read_ratio {
        r.read_ratio = v;
    }
    if let Some(v) = a.request_pages {
        r.request_pages = v;
    }
    if let Some(v) = a.seed {
        r.seed = v;
    }
    if let Some(v) = a.window_gib {
        r.window_gib = Some(v);
    }
    if let Some(v) = &a.placement {
        r.placement = v.clone();
    }
    if let Some(v) = &a.victim {
        r.victim = v.clone();
    }
    r.max_memory_gib = match a.max_memory {
        Some(v) if !(v.is_finite() && v > 0.0) => {
            return Err(Fail(
                2,
                format!("--max-memory {v}: must be a positive number of GiB"),
            ))
        }
        Some(v) => Some(v),
        None => r.max_memory_gib.or_else(output::available_memory_gib),
    };
    // A warm-up beyond a reduced volume would be rejected; keep the default ratio instead.
    if a.write_volume.is_some() && a.warmup.is_none() {
        r.warmup = None;
    }
    Ok(c)
}

/// Opens the configuration's workload (synthetic, or a trace through the trace reader).
fn open_workload(
    cfg: &mut Config,
    trace: &cmd_trace::TraceFlags,
) -> Result<Box<dyn Workload>, Fail> {
    match WorkloadSpec::parse("--workload", &cfg.run.workload)? {
        WorkloadSpec::Synthetic(kind) => {
            let l = cfg.layout()?;
            Ok(Box::new(flashgc_core::workload::Synthetic::new(
                kind,
                l.logical_pages,
                cfg.run.request_pages,
                cfg.run.read_ratio,
                cfg.run.seed,
            )))
        }
        WorkloadSpec::Trace(path) => {
            let l = cfg.layout()?;
            cmd_trace::open_workload(trace, &path, l.lpn_size, l.logical_pages)
                .map_err(|e| Fail(2, e))
        }
    }
}

fn prepare_trace(cfg: &mut Config, trace: &cmd_trace::TraceFlags) -> Result<(), Fail> {
    match WorkloadSpec::parse("--workload", &cfg.run.workload)? {
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

/// Runs one configuration with a progress bar on a terminal.
/// The run loop's progress callback: drives the terminal progress bar, if there is one.
fn bar_progress(
    bar: Option<&indicatif::ProgressBar>,
) -> impl FnMut(&flashgc_core::sim::Progress) + '_ {
    move |p| {
        if let Some(b) = bar {
            if let Some(t) = p.target_pages {
                b.set_length(t);
            }
            b.set_position(p.user_pages);
            b.set_message(format!("WAF {:.3}", p.waf));
        }
    }
}

fn run_one(
    cfg: &Config,
    a: &RunArgs,
    bar: Option<&indicatif::ProgressBar>,
) -> Result<RunResult, Fail> {
    let mut cfg = cfg.clone();
    prepare_trace(&mut cfg, &a.trace)?;
    let mut wl = open_workload(&mut cfg, &a.trace)?;
    let mut progress = bar_progress(bar);
    if a.timing.timing || a.timing.any_timing_flag() {
        return Ok(cmd_timing::run(
            &a.timing,
            &cfg,
            wl.as_mut(),
            &mut progress,
        )?);
    }
    // WAF-only: one simulation (its tables are the run's memory; never build two).
    let mut sim = flashgc_core::Simulation::new(&cfg)?;
    if sim.needs_future() {
        // A future-knowledge placement (the oracle) gets a pre-pass over an identical
        // second instance of the workload.
        let mut future = open_workload(&mut cfg, &a.trace)?;
        sim.prepare_future(future.as_mut())?;
    }
    sim.ftl_mut().set_check_after_gc(a.check);
    Ok(sim.run(wl.as_mut(), &mut progress)?)
}

fn progress_bar(len: u64, unit: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let b = indicatif::ProgressBar::new(len);
    let style = indicatif::ProgressStyle::with_template(&format!(
        "{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{human_pos}}/{{human_len}} {unit} {{per_sec}} ETA {{eta}} {{msg}}"
    ))
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    b.set_style(style);
    Some(b)
}

fn cmd_run(a: RunArgs) -> Result<(), Fail> {
    let cfg = build_config(&a.common)?;
    cfg.layout()?;
    let timed = a.timing.timing || a.timing.any_timing_flag();
    if timed {
        cmd_checkpoint::refuse(&a, "timed runs (--timing)")?;
    }
    let bar = progress_bar(0, "pages");
    let t0 = std::time::Instant::now();
    let out = if timed {
        None
    } else {
        Some(cmd_checkpoint::run_waf(
            &cfg,
            &a,
            bar.as_ref(),
            None,
            cmd_checkpoint::caller_now(),
        )?)
    };
    let r = match &out {
        Some(o) => o.result.clone(),
        None => run_one(&cfg, &a, bar.as_ref())?,
    };
    let secs = t0.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    report(&a, &r, secs, out.as_ref())
}

/// `flashgc resume CHECKPOINT`: the original command line, its directory and the saved
/// state; the output goes where the original run's would have.
fn cmd_resume(path: &str) -> Result<(), Fail> {
    let (reader, abs, args) = cmd_checkpoint::open_for_resume(path)?;
    let caller = reader.meta.caller.clone();
    let a = match Cli::try_parse_from(&args) {
        Ok(Cli { cmd: Cmd::Run(a) }) => a,
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
    let o = cmd_checkpoint::run_waf(&cfg, &a, bar.as_ref(), Some((reader, abs)), caller)?;
    let secs = t0.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let r = o.result.clone();
    report(&a, &r, secs, Some(&o))
}

/// Prints (and writes with `-o`) a run's result; for a run stopped by Ctrl-C, also how to
/// resume it, and exits with [`cmd_checkpoint::EXIT_INTERRUPTED`].
fn report(
    a: &RunArgs,
    r: &RunResult,
    secs: f64,
    out: Option<&cmd_checkpoint::Outcome>,
) -> Result<(), Fail> {
    let json = serde_json::to_string_pretty(r).map_err(|e| Fail(1, e.to_string()))?;
    if let Some(path) = &a.output {
        output::write_atomic(path, json.as_bytes()).map_err(|e| Fail(1, format!("{path}: {e}")))?;
    }
    if a.json {
        println!("{json}");
    } else if a.csv {
        print!("{}", output::csv(std::slice::from_ref(r)));
    } else {
        print!("{}", output::human(r, secs));
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
            print!("{}", cmd_timing::human(t));
        }
    }
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
        return Err(Fail(cmd_checkpoint::EXIT_INTERRUPTED, String::new()));
    }
    Ok(())
}

fn split_list(s: &str) -> Vec<String> {
    // Commas separate schemes, but a spec's own parameters also use commas
    // (`d-choices:d=4`); a part containing '=' without ':' continues the previous spec.
    let mut out: Vec<String> = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part.contains('=') && !part.contains(':') && !out.is_empty() {
            let last = out.last_mut().expect("non-empty");
            last.push(',');
            last.push_str(part);
        } else {
            out.push(part.to_string());
        }
    }
    out
}

/// One `compare` result slot, filled by whichever worker thread runs that combination.
type RunSlot = std::sync::Mutex<Option<Result<(RunResult, f64), Fail>>>;

/// What `compare` runs when neither flags nor a config file say otherwise.
const COMPARE_DEFAULT_WORKLOAD: &str = "zipf:1.0";

fn cmd_compare(a: RunArgs) -> Result<(), Fail> {
    cmd_checkpoint::refuse(&a, "`compare`")?;
    let mut base = build_config(&a.common)?;
    if a.common.config.is_none() {
        if a.common.workload.is_none() {
            base.run.workload = COMPARE_DEFAULT_WORKLOAD.into();
        }
        if a.common.placement.is_none() {
            // Every registered scheme, each with its paper's defaults.
            base.run.placement = placement::names().join(",");
        }
    }
    base.layout()?;
    let placements = split_list(&base.run.placement);
    let victims = split_list(&base.run.victim);
    let jobs_hint = a
        .jobs
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
        .clamp(1, (placements.len() * victims.len()).max(1));
    let mut combos = Vec::new();
    for p in &placements {
        for v in &victims {
            let mut c = base.clone();
            c.run.placement = p.clone();
            c.run.victim = v.clone();
            c.run.max_memory_gib = base.run.max_memory_gib.map(|m| m / jobs_hint as f64);
            // Validate every combination before running any.
            flashgc_core::Simulation::new(&c)?;
            combos.push(c);
        }
    }
    let jobs = a
        .jobs
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
        .clamp(1, combos.len().max(1));
    let bar = progress_bar(combos.len() as u64, "runs");
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<RunSlot> = combos.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= combos.len() {
                    break;
                }
                let t0 = std::time::Instant::now();
                let r = run_one(&combos[i], &a, None).map(|r| (r, t0.elapsed().as_secs_f64()));
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                if let Some(b) = &bar {
                    b.inc(1);
                }
            });
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut done = Vec::new();
    for (i, m) in results.into_iter().enumerate() {
        match m.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(Ok(r)) => done.push(r),
            Some(Err(Fail(code, msg))) => {
                return Err(Fail(
                    code,
                    format!(
                        "{} + {}: {msg}",
                        combos[i].run.placement, combos[i].run.victim
                    ),
                ))
            }
            None => return Err(Fail(1, "a simulation thread died".into())),
        }
    }
    // Classifier cost per user write (wall clock; outside the deterministic results).
    let costs: Vec<Option<f64>> = if a.json {
        vec![None; done.len()]
    } else {
        let l = base.layout()?;
        done.iter()
            .map(|(r, _)| {
                let init = placement::PlacementInit {
                    logical_pages: l.logical_pages,
                    segments: l.segments,
                    pages_per_segment: l.pages_per_segment,
                    seed: r.seed,
                };
                placement::measure_classifier_ns(&r.placement, init, 200_000).ok()
            })
            .collect()
    };
    let rs: Vec<RunResult> = done.iter().map(|d| d.0.clone()).collect();
    let json = serde_json::to_string_pretty(&rs).map_err(|e| Fail(1, e.to_string()))?;
    if let Some(path) = &a.output {
        output::write_atomic(path, json.as_bytes()).map_err(|e| Fail(1, format!("{path}: {e}")))?;
    }
    if a.json {
        println!("{json}");
    } else if a.csv {
        print!("{}", output::csv_with_costs(&rs, &costs));
    } else {
        print!("{}", output::compare_table(&done, &costs));
    }
    Ok(())
}

fn parse_hot(s: &str) -> Result<(f64, f64), Fail> {
    let bad = || {
        Fail(
            2,
            format!("--hot `{s}`: expected W/S, e.g. 0.8/0.2 or 80/20"),
        )
    };
    let (w, f) = s.split_once('/').ok_or_else(bad)?;
    let mut w: f64 = w.trim().parse().map_err(|_| bad())?;
    let mut f: f64 = f.trim().parse().map_err(|_| bad())?;
    if w > 1.0 || f > 1.0 {
        w /= 100.0;
        f /= 100.0;
    }
    if !(w > 0.0 && w < 1.0 && f > 0.0 && f < 1.0) {
        return Err(Fail(
            2,
            format!("--hot `{s}`: both shares must be in (0, 1) or (0, 100)"),
        ));
    }
    Ok((w, f))
}

fn cmd_model(a: ModelArgs) -> Result<(), Fail> {
    if let Some(ModelSub::Midas(m)) = &a.sub {
        let code = cmd_midas::model_midas(m);
        return if code == 0 {
            Ok(())
        } else {
            Err(Fail(code as u8, String::new()))
        };
    }
    if !(a.op.is_finite() && a.op > 0.0 && a.op <= 10.0) {
        return Err(Fail(2, format!("--op {}: allowed range (0, 10]", a.op)));
    }
    if a.pages_per_segment == 0 {
        return Err(Fail(2, "--pages-per-segment: must be at least 1".into()));
    }
    let hot = a.hot.as_deref().map(parse_hot).transpose()?;
    let t = flashgc_core::model::table(a.op, a.pages_per_segment, hot);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&t).map_err(|e| Fail(1, e.to_string()))?
        );
    } else {
        println!(
            "Analytic WAF, uniform random writes (Desnoyers, SYSTOR 2012); op = {} ((physical - logical) / logical), alpha = {:.4}",
            t.op, t.alpha
        );
        for (name, v) in &t.rows {
            println!("  {name:58} {v:>8.4}");
        }
        println!("alpha counts every physical page beyond the logical ones as spare; simulated devices keep free segments in reserve, so compare at the effective alpha `flashgc run` reports.");
    }
    Ok(())
}

fn cmd_presets(name: Option<String>) -> Result<(), Fail> {
    match name {
        Some(n) => print!("{}", Config::preset_text(&n)?),
        None => {
            for n in Config::preset_names() {
                let c = Config::load(Some(n), None)?;
                let l = c.layout()?;
                let first = Config::preset_text(n)?
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches("# ");
                println!(
                    "{n:16} {:>9.2} GiB logical, op {:.4}, {} segments x {} pages  {first}",
                    l.logical_bytes() as f64 / (1u64 << 30) as f64,
                    l.op,
                    l.segments,
                    l.pages_per_segment
                );
            }
        }
    }
    Ok(())
}

fn cmd_policies() {
    println!("placement schemes (--placement):");
    for (n, d, _) in placement::REGISTRY {
        println!("  {n:16} {d}");
    }
    println!("victim policies (--victim):");
    for (n, d, _) in victim::REGISTRY {
        println!("  {n:16} {d}");
    }
}

fn forward_python(sub: &str, args: &[String]) -> Result<(), Fail> {
    let py = std::env::var("FLASHGC_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut cmd = std::process::Command::new(&py);
    // `reproduce` runs this very binary for its cases.
    if let Ok(exe) = std::env::current_exe() {
        cmd.env("FLASHGC_BIN", exe);
    }
    let status = cmd
        .arg("-m")
        .arg("flashgc")
        .arg(sub)
        .args(args)
        .status()
        .map_err(|e| {
            Fail(
                2,
                format!("cannot start {py}: {e} (install the Python package: see docs/python.md)"),
            )
        })?;
    match status.code() {
        Some(0) => Ok(()),
        Some(c) => Err(Fail(c.clamp(1, 255) as u8, String::new())),
        None => Err(Fail(1, format!("{py} -m flashgc {sub} was interrupted"))),
    }
}

fn main() -> ExitCode {
    // Like other Unix tools, end quietly when the reader of our output goes away
    // (`flashgc ... | head`) instead of failing on a broken pipe.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; restores the default action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let r = match cli.cmd {
        Cmd::Run(a) => cmd_run(a),
        Cmd::Resume { checkpoint } => cmd_resume(&checkpoint),
        Cmd::Compare(a) => cmd_compare(a),
        Cmd::Model(a) => cmd_model(a),
        Cmd::Presets { name } => cmd_presets(name),
        Cmd::Policies => {
            cmd_policies();
            Ok(())
        }
        Cmd::Config(a) => build_config(&a).and_then(|c| {
            c.layout()?;
            print!("{}", c.to_toml());
            Ok(())
        }),
        Cmd::Trace { cmd } => {
            let code = cmd_trace::run(cmd);
            if code == 0 {
                Ok(())
            } else {
                Err(Fail(code.clamp(1, 255) as u8, String::new()))
            }
        }
        Cmd::Dedup(a) => cmd_dedup::dedup(&a),
        Cmd::Noc(a) => cmd_noc::noc(&a),
        Cmd::Fio(a) => match cmd_timing::fio(&a) {
            0 => Ok(()),
            code => Err(Fail(code.clamp(1, 255) as u8, String::new())),
        },
        Cmd::Sweep { args } => forward_python("sweep", &args),
        Cmd::Report { args } => forward_python("report", &args),
        Cmd::Reproduce { args } => forward_python("reproduce", &args),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(code, msg)) => {
            if !msg.is_empty() {
                eprintln!("flashgc: error: {msg}");
            }
            ExitCode::from(code)
        }
    }
}
