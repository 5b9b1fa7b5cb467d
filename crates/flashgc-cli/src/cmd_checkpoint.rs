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
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// `--checkpoint-every SIZE` in user pages: bytes with a unit (`64GiB`, `1TiB`, `512m`) or
/// `Nx` times the logical capacity (`2x`, `0.5x`).
pub fn every_pages(s: &str, layout: &Layout) -> Result<u64, Fail> {
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
}

/// Runs (or, with `resume`, continues) a simulation, WAF-only or timed, with checkpoints
/// and Ctrl-C handling. `caller` is what the checkpoint stores to rebuild these flags.
pub fn run_waf(
    cfg: &Config,
    a: &RunArgs,
    bar: Option<&indicatif::ProgressBar>,
    resume: Option<(CheckpointReader, PathBuf)>,
    caller: serde_json::Value,
) -> Result<Outcome, Fail> {
    let mut cfg = cfg.clone();
    if resume.is_none() {
        prepare_trace(&mut cfg, &a.trace)?;
    } else if let Some((r, _)) = &resume {
        cfg = r.meta.config.clone();
    }
    // The workload: the configuration's, or a fio job from the timing flags.
    let open = |cfg: &mut Config| -> Result<Box<dyn flashgc_core::workload::Workload>, Fail> {
        match crate::cmd_timing::fio_workload(&a.timing, cfg)? {
            Some(f) => Ok(f),
            None => open_workload(cfg, &a.trace),
        }
    };
    let mut wl = open(&mut cfg)?;
    let (mut engine, path) = match resume {
        Some((r, path)) => (Engine::from_checkpoint(r)?, path),
        None => {
            let timing = crate::cmd_timing::timing_params(&a.timing, &cfg, wl.is_infinite())?;
            (Engine::new(&cfg, timing)?, checkpoint_path(a))
        }
    };
    if engine.simulation().needs_future() {
        // A future-knowledge placement (the oracle) gets a pre-pass over an identical
        // second instance of the workload (a resumed one recomputes it the same way).
        let mut future = open(&mut cfg)?;
        engine.simulation_mut().prepare_future(future.as_mut())?;
    }
    engine
        .simulation_mut()
        .ftl_mut()
        .set_check_after_gc(a.check);
    let every = a
        .checkpoint_every
        .as_deref()
        .map(|s| every_pages(s, engine.simulation().layout()))
        .transpose()?;
    // Ctrl-C sets the flag; the run stops at its next safe point. A second Ctrl-C (flag
    // already set) gets the default action and ends the process at once.
    let stop = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    {
        use signal_hook::consts::SIGINT;
        use signal_hook::flag;
        flag::register_conditional_default(SIGINT, Arc::clone(&stop))
            .and_then(|_| flag::register(SIGINT, Arc::clone(&stop)))
            .map_err(|e| Fail(1, format!("cannot install the Ctrl-C handler: {e}")))?;
    }
    let mut progress = crate::bar_progress(bar);
    let mut on_ckpt = |i: &CheckpointInfo| {
        let msg = format!(
            "checkpoint: {} after {} user pages ({:.1} MiB in {:.2} s)",
            i.path.display(),
            i.user_pages,
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
        stop: Some(&stop),
        stop_after_requests: None,
        on_checkpoint: Some(&mut on_ckpt),
    };
    let end = engine.run_with(wl.as_mut(), &mut progress, &mut ctl)?;
    Ok(match end {
        RunEnd::Finished(result) => Outcome {
            result,
            stopped: None,
            path,
        },
        RunEnd::Stopped {
            partial,
            checkpoint,
        } => Outcome {
            result: partial,
            stopped: checkpoint,
            path,
        },
    })
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

/// Opens a checkpoint for `flashgc resume`: its file (absolute, since the working
/// directory changes to the original run's), the original command line and the reader.
pub fn open_for_resume(path: &str) -> Result<(CheckpointReader, PathBuf, Vec<String>), Fail> {
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
    if let Some(cwd) = caller["cwd"].as_str().filter(|c| !c.is_empty()) {
        std::env::set_current_dir(cwd).map_err(|e| {
            Fail(
                2,
                format!("{path}: cannot enter the original run's directory {cwd}: {e}"),
            )
        })?;
    }
    Ok((r, abs, args))
}
