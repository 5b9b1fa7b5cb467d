//! Ctrl-C and SIGTERM: the first signal sets the stop flag the runs poll, a second ends
//! the process at once. `run` and `resume` then write a checkpoint (`cmd_checkpoint`); the
//! commands whose runs take no checkpoint (`fio`, `noc`, `dedup`, and `compare`, whose
//! parallel runs all stop) show and save the partial results (`ended_by` = "interrupted")
//! with those already finished, start no further run, and end with 128 + the signal.

use crate::Fail;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The stop flag the runs poll and the signal that set it.
pub(crate) struct Interrupt {
    /// Set by the first SIGINT or SIGTERM.
    pub stop: Arc<AtomicBool>,
    which: Arc<AtomicUsize>,
}

static INTERRUPT: OnceLock<Interrupt> = OnceLock::new();

/// The process's handlers, installed on first use (registering again per run would stack
/// handlers).
pub(crate) fn handlers() -> Result<&'static Interrupt, Fail> {
    if let Some(i) = INTERRUPT.get() {
        return Ok(i);
    }
    let i = Interrupt {
        stop: Arc::new(AtomicBool::new(false)),
        which: Arc::new(AtomicUsize::new(0)),
    };
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use signal_hook::flag;
        for sig in [SIGINT, SIGTERM] {
            // With the flag already set the default action runs: a second signal ends
            // the process.
            flag::register_conditional_default(sig, Arc::clone(&i.stop))
                .and_then(|_| flag::register_usize(sig, Arc::clone(&i.which), sig as usize))
                .and_then(|_| flag::register(sig, Arc::clone(&i.stop)))
                .map_err(|e| Fail(1, format!("cannot install the signal handler: {e}")))?;
        }
    }
    Ok(INTERRUPT.get_or_init(|| i))
}

impl Interrupt {
    /// The signal that set the flag (SIGINT or SIGTERM), if one did.
    pub fn signal(&self) -> Option<i32> {
        match self.which.load(Ordering::Relaxed) {
            0 => None,
            s => Some(s as i32),
        }
    }
}

/// The exit code of a command a signal stopped (130 for Ctrl-C, 143 for SIGTERM), None
/// if none did.
pub(crate) fn exit_code() -> Option<u8> {
    let i = INTERRUPT.get()?;
    if !i.stop.load(Ordering::Relaxed) {
        return None;
    }
    Some(match i.which.load(Ordering::Relaxed) {
        s @ 1..=127 => (128 + s) as u8,
        _ => crate::cmd_checkpoint::EXIT_INTERRUPTED,
    })
}

/// Ends a command that runs its configurations one after another, once its output is
/// written: the interrupted exit code and a message when a signal stopped it, else success.
pub(crate) fn finish() -> Result<(), Fail> {
    finish_with(
        "the last run's result is partial (`ended_by` = \"interrupted\") and the runs after \
         it did not start",
    )
}

/// [`finish`], saying `what` the signal left partial or not started.
pub(crate) fn finish_with(what: &str) -> Result<(), Fail> {
    match exit_code() {
        None => Ok(()),
        Some(code) => Err(Fail(
            code,
            format!(
                "interrupted: {what}; this command takes no checkpoint, so run it again to \
                 complete it"
            ),
        )),
    }
}
