//! `flashgc run` (WAF-only or timed) with checkpoints (`--checkpoint-every`,
//! `--checkpoint`), Ctrl-C handling, and `flashgc resume CHECKPOINT`. The state itself is saved and restored by
//! `flashgc_core::checkpoint`; this file maps flags, signals and messages onto it.

use crate::{open_workload, prepare_trace, Fail, RunArgs};
use flashgc_core::checkpoint::CheckpointReader;
use flashgc_core::config::Layout;
use flashgc_core::driver::Engine;
use flashgc_core::sim::{CheckpointInfo, RunControl, RunEnd};
use flashgc_core::{Config, RunResult};
use std::path::{Path, PathBuf};

/// Exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it); SIGTERM
/// gives 143 (128 + 15).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Least `--checkpoint-every`, bytes of user writes: every checkpoint writes the whole
/// state (the mapping table at least), so one per page or per request would turn the run
/// into checkpoint writing.
pub const MIN_EVERY_BYTES: u64 = 1 << 20;

/// `--checkpoint-every SIZE` in user pages: bytes with a unit (`64GiB`, `1TiB`, `512m`) or
/// `Nx` times the logical capacity (`2x`, `0.5x`); at least [`MIN_EVERY_BYTES`] with `floor`
/// (a resumed run keeps what an older version accepted).
pub fn every_pages(s: &str, layout: &Layout, floor: bool) -> Result<u64, Fail> {
    let t = s.trim();
    let pages = if let Some(n) = t.strip_suffix(['x', 'X']) {
        let k: f64 = n.trim().parse().map_err(|_| bad_every(s))?;
        if !(k.is_finite() && k > 0.0) {
            return Err(bad_every(s));
        }
        (k * layout.logical_pages as f64).round()
    } else {
        let b =
            crate::cmd_timing::parse_bytes("--checkpoint-every", t).map_err(|_| bad_every(s))?;
        (b as f64 / layout.lpn_size as f64).ceil()
    };
    let lpn = layout.lpn_size as u64;
    let least = MIN_EVERY_BYTES.div_ceil(lpn);
    if floor && (pages as u64) < least {
        return Err(Fail(
            2,
            format!(
                "--checkpoint-every `{s}`: must be at least 1 MiB of user writes (1MiB, or {}x \
                 of this device's logical capacity)",
                // Rounded up to a readable multiple that passes.
                (least as f64 / layout.logical_pages as f64 * 1e6).ceil() / 1e6
            ),
        ));
    }
    Ok((pages as u64).max(1))
}

fn bad_every(s: &str) -> Fail {
    Fail(
        2,
        format!(
            "--checkpoint-every `{s}`: expected a size of host writes such as 64GiB, 1TiB, 512m, \
             or a multiple of the logical capacity such as 2x"
        ),
    )
}

/// The checkpoint file: `--checkpoint`, else `OUTPUT.ckpt` next to `--output`, else
/// `flashgc-run.ckpt` in the current directory.
pub fn checkpoint_path(a: &RunArgs) -> PathBuf {
    match (&a.checkpoint, &a.output) {
        (Some(p), _) => PathBuf::from(p),
        (None, Some(o)) => PathBuf::from(format!("{o}.ckpt")),
        (None, None) => PathBuf::from("flashgc-run.ckpt"),
    }
}

/// Refuses checkpoint flags where they cannot work (timed runs, `compare`).
pub fn refuse(a: &RunArgs, what: &str) -> Result<(), Fail> {
    if a.checkpoint_every.is_some() || a.checkpoint.is_some() {
        return Err(Fail(
            2,
            format!(
                "--checkpoint-every/--checkpoint: {what} cannot be checkpointed yet; \
                 only `flashgc run` can (see docs/core.md, Checkpoint and resume)"
            ),
        ));
    }
    Ok(())
}

/// How a checkpointed run ended.
pub struct Outcome {
    /// The result (partial when `stopped`).
    pub result: RunResult,
    /// Set when Ctrl-C stopped the run: the checkpoint written.
    pub stopped: Option<CheckpointInfo>,
    /// The checkpoint file in use.
    pub path: PathBuf,
    /// The signal that stopped the run (SIGINT or SIGTERM), if one did.
    pub signal: Option<i32>,
    /// The memory estimate the run was admitted with, bytes.
    pub estimate: u64,
    /// Why the estimate is an upper bound, if it is one.
    pub estimate_bound: Option<&'static str>,
}

impl Outcome {
    /// The exit code of a stopped run: 128 + the signal, as shells and job schedulers
    /// expect (130 for Ctrl-C, 143 for SIGTERM).
    pub fn exit_code(&self) -> u8 {
        match self.signal {
            Some(s) if (1..=127).contains(&s) => (128 + s) as u8,
            _ => EXIT_INTERRUPTED,
        }
    }
}

/// Refuses, before a run, an `-o` that cannot take the result (missing directory,
/// not a regular file, no permission): exit code 2 instead of a lost result at the end.
pub fn check_output(a: &RunArgs) -> Result<(), Fail> {
    crate::output::check_output(a.output.as_deref())
}

/// Refuses, before a run, a checkpoint file that cannot be written when checkpoints were
/// asked for (`--checkpoint`, `--checkpoint-every`): exit code 2 at once rather than a
/// failed run at its first checkpoint. (The default file, for Ctrl-C only, is not checked:
/// a run in a read-only directory without -o still runs; an interrupted one then reports
/// that no checkpoint could be written, with its partial result.)
pub fn check_checkpoint(a: &RunArgs) -> Result<(), Fail> {
    if a.checkpoint.is_none() && a.checkpoint_every.is_none() {
        return Ok(());
    }
    let path = checkpoint_path(a);
    not_the_output(a, &path)?;
    let flag = if a.checkpoint.is_some() {
        "--checkpoint"
    } else {
        "--checkpoint-every: the checkpoint"
    };
    crate::outfile::check_writable(flag, &path.to_string_lossy())
        .map(drop)
        .map_err(|e| Fail(2, e))
}

/// Refuses an output file (`-o`) that is the checkpoint file `ckpt` (after symlinks): the
/// partial result of a stopped run would replace the checkpoint it was just told to
/// resume from, and the work since the start would be lost.
pub fn not_the_output(a: &RunArgs, ckpt: &Path) -> Result<(), Fail> {
    let Some(o) = &a.output else {
        return Ok(());
    };
    let full = |p: &Path| {
        let p = crate::outfile::resolve(p).unwrap_or_else(|_| p.to_path_buf());
        std::path::absolute(&p).unwrap_or(p)
    };
    if full(Path::new(o)) == full(ckpt) {
        return Err(Fail(
            2,
            format!(
                "-o {o} is the checkpoint file {}: a stopped run's partial result would replace \
                 its checkpoint; choose another file for one of them",
                ckpt.display()
            ),
        ));
    }
    Ok(())
}

/// `flashgc resume`: results go to `-o` if given, else to the original file name in the
/// current directory (a checkpoint's stored paths may be someone else's); says so.
pub fn redirect_output(a: &mut RunArgs, given: Option<String>) {
    let stored = a.output.take();
    a.output = match (given, stored) {
        (Some(o), _) => Some(o),
        (None, Some(s)) => {
            let name = Path::new(&s)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "flashgc-result.json".into());
            eprintln!(
                "resume: writing the result to {name} in the current directory (the original run wrote {s}; \
                 -o FILE chooses another file)"
            );
            Some(name)
        }
        (None, None) => None,
    };
}

/// Runs (or, with `resume`, continues) a simulation, WAF-only or timed, with checkpoints
/// and Ctrl-C handling. `caller` is what the checkpoint stores to rebuild these flags;
/// `memory_limit` the memory limit it stores (the one the user gave, None when the run's
/// limit is the machine's available memory: see [`ToResume::memory_limit`]).
pub fn run_waf(
    cfg: &Config,
    a: &RunArgs,
    bar: Option<&indicatif::ProgressBar>,
    resume: Option<(CheckpointReader, PathBuf)>,
    caller: serde_json::Value,
    memory_limit: Option<f64>,
) -> Result<Outcome, Fail> {
    // Ctrl-C or SIGTERM sets the flag; the run stops at its next safe point, and a second
    // signal ends the process (crate::interrupt). Installed first: until the run loop
    // starts, `startup` ends the process instead.
    let signals = crate::interrupt::handlers()?;
    let mut startup = crate::startup::Startup::begin(bar)?;
    let mut cfg = cfg.clone();
    if resume.is_none() {
        startup.phase("reading the trace");
        prepare_trace(&mut cfg, &a.trace)?;
    } else if let Some((r, _)) = &resume {
        cfg = r.meta.config.clone();
    }
    // Checked before the workload is opened or the device filled. A resumed run keeps the
    // interval it was started with, even one below today's floor.
    let every = a
        .checkpoint_every
        .as_deref()
        .map(|s| every_pages(s, &cfg.layout()?, resume.is_none()))
        .transpose()?;
    // The workload: the configuration's, or a fio job from the timing flags.
    let open = |cfg: &mut Config| -> Result<Box<dyn flashgc_core::workload::Workload>, Fail> {
        match crate::cmd_timing::fio_workload(&a.timing, cfg)? {
            Some(f) => Ok(f),
            None => open_workload(cfg, &a.trace),
        }
    };
    startup.phase("opening the workload");
    let mut wl = open(&mut cfg)?;
    let mut caller = caller;
    if let Some(note) = trace_read_once(&cfg) {
        // Its resume reads the trace from standard input (see `open_for_resume`).
        caller[TRACE_READ_ONCE] = true.into();
        if resume.is_none() {
            // The result says so too (a resumed run's stored configuration has the note).
            cfg.notes.push(note);
        }
    }
    startup.phase(if resume.is_some() {
        "restoring the checkpoint"
    } else {
        "building the device"
    });
    let resumed = resume.is_some();
    let (mut engine, path) = match resume {
        Some((r, path)) => (Engine::from_checkpoint(r)?, path),
        None => {
            let timing = crate::cmd_timing::timing_params(&a.timing, &cfg, wl.is_infinite())?;
            let path = checkpoint_path(a);
            crate::outfile::remove_stale_temps(&path);
            (Engine::new(&cfg, timing)?, path)
        }
    };
    if engine.simulation().needs_future() {
        // A future-knowledge placement (the oracle) gets a pre-pass over an identical
        // second instance of the workload (a resumed one recomputes it the same way).
        startup.phase("the oracle's pre-pass over the workload");
        let mut future = open(&mut cfg)?;
        engine.simulation_mut().prepare_future(future.as_mut())?;
    }
    engine
        .simulation_mut()
        .ftl_mut()
        .set_check_after_gc(a.check);
    // Checked against the limit in force; the checkpoints store the user's, so that two
    // identical runs (or a resumed one) write identical bytes.
    engine
        .simulation_mut()
        .set_stored_memory_limit(memory_limit);
    let mut progress = crate::bar_progress(bar);
    // In the unit of `--checkpoint-every 4x` too: a page count alone meant little.
    let logical_pages = cfg.layout()?.logical_pages.max(1) as f64;
    let mut on_ckpt = |i: &CheckpointInfo| {
        let msg = format!(
            "checkpoint: {} after {} user pages ({:.2} x capacity; {:.1} MiB in {:.2} s)",
            i.path.display(),
            i.user_pages,
            i.user_pages as f64 / logical_pages,
            i.bytes as f64 / (1u64 << 20) as f64,
            i.seconds
        );
        match bar {
            Some(b) => b.println(msg),
            None => eprintln!("{msg}"),
        }
    };
    let mut ctl = RunControl {
        checkpoint: Some(path.clone()),
        caller,
        every_user_pages: every,
        stop: Some(&signals.stop),
        stop_after_requests: None,
        on_checkpoint: Some(&mut on_ckpt),
    };
    // The workload's own structures (a trace replay's remap table, docs/traces.md,
    // "Memory") come on top of the engine's, which `Engine::new` checked alone.
    let replay = replay_memory(wl.as_ref(), &cfg)?;
    // A run that writes checkpoints, or was read from one, also holds the file's buffers.
    let io = if every.is_some() || resumed {
        flashgc_core::checkpoint::IO_BYTES
    } else {
        0
    };
    let estimate = engine.memory_estimate() + io + replay.iter().map(|m| m.bytes).sum::<u64>();
    check_limit(&cfg, estimate, &replay)?;
    let estimate_bound = engine.memory_estimate_upper_bound();
    startup.end();
    let end = engine.run_with(wl.as_mut(), &mut progress, &mut ctl)?;
    let with_replay = |mut r: flashgc_core::RunResult| {
        r.memory.extend(replay.iter().cloned());
        r
    };
    let signal = signals.signal();
    Ok(match end {
        RunEnd::Finished(result) => {
            if signal.is_some() {
                // Past the last safe point: the run ends as if no signal came; say why.
                eprintln!(
                    "flashgc: the signal came after the workload's last request, while the device \
                     simulated the requests still in flight; the run finished and its result is complete"
                );
            }
            Outcome {
                result: with_replay(result),
                stopped: None,
                path,
                signal: None,
                estimate,
                estimate_bound,
            }
        }
        RunEnd::Stopped {
            partial,
            checkpoint,
        } => Outcome {
            result: with_replay(partial),
            stopped: checkpoint,
            path,
            signal,
            estimate,
            estimate_bound,
        },
    })
}

/// The workload's memory ([`flashgc_core::workload::Workload::memory`]) as items of the
/// result's `memory` section (per logical page of the device, as the simulator's).
pub(crate) fn replay_memory(
    wl: &dyn flashgc_core::workload::Workload,
    cfg: &Config,
) -> Result<Vec<flashgc_core::metrics::MemoryItem>, Fail> {
    Ok(flashgc_core::metrics::MemoryItem::list(
        wl.memory(),
        cfg.layout()?.logical_pages,
    ))
}

/// Refuses a run whose estimate, the workload's memory included (`estimate` has it), is
/// over `run.max_memory_gib` (the engine checked its own tables alone when it was built).
pub(crate) fn check_limit(
    cfg: &Config,
    estimate: u64,
    replay: &[flashgc_core::metrics::MemoryItem],
) -> Result<(), Fail> {
    let engine = estimate - replay.iter().map(|m| m.bytes).sum::<u64>();
    flashgc_core::driver::check_memory_limit(
        cfg,
        engine,
        replay,
        "use a smaller device or trace (with --remap compact on a device of a given size, \
         the remap table is counted for one entry per logical page; --capacity auto sizes it for the pages the trace touches), \
         or raise the limit (`--max-memory GIB`; by default the memory this machine has available)",
    )
    .map_err(|e| Fail(2, e.to_string()))
}

/// What the checkpoint stores about the command line: the arguments and the directory
/// they are relative to.
pub fn caller_now() -> serde_json::Value {
    let args: Vec<String> = std::env::args().collect();
    let cwd = std::env::current_dir()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    serde_json::json!({ "args": args, "cwd": cwd })
}

/// The key of the stored command line (`caller`) under which a resumed run keeps the
/// trace path as the original run gave it (see [`ToResume::trace_as_given`]).
pub const TRACE_AS_GIVEN: &str = "trace_as_given";

/// The key of the stored command line (`caller`) that says the run read its trace once
/// from a pipe, a device or `-` (`flashgc_core::trace_file`): that input cannot be opened
/// again, so the resumed run reads the same trace from standard input.
pub const TRACE_READ_ONCE: &str = "trace_read_once";

/// When the configuration's trace was read once into a temporary file, the note that
/// says so in the result.
fn trace_read_once(cfg: &Config) -> Option<String> {
    let p = cfg.run.workload.strip_prefix("trace:")?;
    let bytes = flashgc_core::trace_file::copied(Path::new(p))?;
    Some(format!(
        "the trace `{p}` is not a regular file (a pipe or standard input): it was read once \
         into a temporary file ({bytes} bytes)"
    ))
}

/// A checkpoint opened for `flashgc resume`.
pub struct ToResume {
    /// The reader (a relative trace path made absolute against the original directory).
    pub reader: CheckpointReader,
    /// The checkpoint file, absolute.
    pub path: PathBuf,
    /// The original command line.
    pub args: Vec<String>,
    /// The trace path as the original run gave it, when it was made absolute: the name
    /// the result keeps.
    pub trace_as_given: Option<String>,
    /// The memory limit the original run was given (None: it had the machine's available
    /// memory). The resumed run checks the lower of it and this machine's available
    /// memory, and its checkpoints store it as it was.
    pub memory_limit: Option<f64>,
}

/// Opens a checkpoint for `flashgc resume`.
pub fn open_for_resume(path: &str) -> Result<ToResume, Fail> {
    let p = Path::new(path);
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let r = CheckpointReader::open(&abs)?;
    let caller = &r.meta.caller;
    let args: Option<Vec<String>> = caller["args"].as_array().map(|v| {
        v.iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    });
    let args = args.filter(|a| a.len() >= 2).ok_or_else(|| {
        Fail(
            2,
            format!("{path}: the checkpoint holds no `flashgc run` command line (written by another program?)"),
        )
    })?;
    // The run continues in the current directory: nothing is written where the
    // checkpoint says. Relative input paths (the trace) are read from the original run's
    // directory, where they were given.
    let cwd = caller["cwd"].as_str().unwrap_or("").to_string();
    // A resumed run's checkpoints hold the absolute path, and the name as given here.
    let mut trace_as_given = caller[TRACE_AS_GIVEN].as_str().map(str::to_string);
    let mut r = r;
    let memory_limit = r.meta.config.run.max_memory_gib;
    // The stored memory limit was the original machine's: apply this one's too (a
    // checkpoint may describe any device).
    if let Some(avail) = crate::output::available_memory_gib() {
        let m = &mut r.meta.config.run.max_memory_gib;
        *m = Some(m.map_or(avail, |x| x.min(avail)));
    }
    if !cwd.is_empty() {
        let cwd = PathBuf::from(cwd);
        let w = &mut r.meta.config.run.workload;
        if let Some(p) = w.strip_prefix("trace:") {
            if Path::new(p).is_relative() && cwd.join(p).exists() {
                trace_as_given = Some(p.to_string());
                *w = format!("trace:{}", cwd.join(p).display());
                if let Some(t) = r.meta.trace.as_mut() {
                    t.path = cwd.join(&t.path).display().to_string();
                }
            }
        }
    }
    if r.meta.caller[TRACE_READ_ONCE].as_bool() == Some(true) {
        read_trace_from_stdin(path, &r.meta.config.run.workload)?;
    }
    Ok(ToResume {
        reader: r,
        path: abs,
        args,
        trace_as_given,
        memory_limit,
    })
}

/// Reads the trace of a run that read it once (a pipe, `-`) from standard input, as the
/// content of its stored path: the checkpoint's identity check (size, first and last MiB)
/// then refuses a different trace. A terminal is refused rather than waited on.
fn read_trace_from_stdin(ckpt: &str, workload: &str) -> Result<(), Fail> {
    use std::io::IsTerminal;
    let Some(p) = workload.strip_prefix("trace:") else {
        return Ok(());
    };
    if std::io::stdin().is_terminal() {
        return Err(Fail(
            2,
            format!(
                "{ckpt}: the run read its trace `{p}` once, from a pipe or standard input, \
                 and it cannot be opened again: give the same trace on standard input to \
                 resume, e.g. `zcat TRACE.gz | flashgc resume {ckpt}`"
            ),
        ));
    }
    flashgc_core::trace_file::read_stdin_as(Path::new(p))
        .map(|_| ())
        .map_err(|e| {
            Fail(
                2,
                format!("{ckpt}: reading the trace `{p}` from standard input: {e}"),
            )
        })
}
