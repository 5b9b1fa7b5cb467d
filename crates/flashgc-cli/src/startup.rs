//! Ctrl-C and SIGTERM before a run's loop starts. The startup phases (the `--capacity auto`
//! scan of a trace, opening and restoring a checkpoint, the oracle's pre-pass over the
//! workload) do not poll the run's stop flag, and nothing has been written yet: a signal
//! then ends the process at once, with a message and the exit code of an interrupted run.

use crate::Fail;
use std::sync::{Arc, Mutex};

/// The startup phase under way, shown if a signal ends it (None once the run has started).
type Phase = Arc<Mutex<Option<&'static str>>>;

/// Watches for SIGINT/SIGTERM from [`Startup::begin`] until [`Startup::end`] (or drop).
pub struct Startup {
    phase: Phase,
    #[cfg(unix)]
    watcher: Option<(signal_hook::iterator::Handle, std::thread::JoinHandle<()>)>,
}

impl Startup {
    /// Starts watching; `bar` is cleared before the message. The run's own handlers
    /// (the stop flag) must already be installed, so that a signal after [`Startup::end`]
    /// is not lost.
    pub fn begin(bar: Option<&indicatif::ProgressBar>) -> Result<Startup, Fail> {
        let phase: Phase = Arc::new(Mutex::new(Some("starting")));
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGINT, SIGTERM};
            let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
                .map_err(|e| Fail(1, format!("cannot install the signal handler: {e}")))?;
            let handle = signals.handle();
            let watched = Arc::clone(&phase);
            let bar = bar.cloned();
            let thread = std::thread::spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    // Held while exiting: the run cannot start (and write) meanwhile.
                    let phase = watched.lock().unwrap_or_else(|p| p.into_inner());
                    if let Some(what) = *phase {
                        if let Some(b) = &bar {
                            b.finish_and_clear();
                        }
                        eprintln!(
                            "flashgc: interrupted before the run started ({what}): nothing was written"
                        );
                        std::process::exit(128 + sig);
                    }
                }
            });
            Ok(Startup {
                phase,
                watcher: Some((handle, thread)),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = bar;
            Ok(Startup { phase })
        }
    }

    /// Names the phase now under way (for the message).
    pub fn phase(&self, what: &'static str) {
        let mut p = self.phase.lock().unwrap_or_else(|p| p.into_inner());
        if p.is_some() {
            *p = Some(what);
        }
    }

    /// The run starts: from now on a signal is the run's to handle (its stop flag).
    pub fn end(&mut self) {
        *self.phase.lock().unwrap_or_else(|p| p.into_inner()) = None;
        #[cfg(unix)]
        if let Some((handle, thread)) = self.watcher.take() {
            handle.close();
            let _ = thread.join();
        }
    }
}

impl Drop for Startup {
    fn drop(&mut self) {
        self.end();
    }
}
