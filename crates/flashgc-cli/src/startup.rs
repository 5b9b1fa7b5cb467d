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
    watcher: Option<(
        signal_hook::iterator::Handle,
        std::thread::JoinHandle<signal_hook::iterator::Signals>,
    )>,
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
            // The thread hands `signals` back rather than dropping it: `Handle::close`
            // wakes it with a `send` on a socket whose reading end `signals` owns, and a
            // thread that saw the closed flag first and dropped that end made the send
            // raise SIGPIPE, which (default action, see `main`) killed a refused run
            // before it printed its error, about once in 3000 runs.
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
                        // (A trace's temporary copy has no name on Linux; elsewhere it is
                        // removed here.)
                        flashgc_core::trace_file::forget_all();
                        std::process::exit(128 + sig);
                    }
                }
                signals
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
            // Dropped here, after `close` has sent its wake-up.
            drop(thread.join());
        }
    }
}

impl Drop for Startup {
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::Startup;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// A run refused right after its startup watcher began (the common bad-input path)
    /// ends the watcher at once; that must never raise SIGPIPE, which kills the process
    /// under the command line's default action. The race needed the watcher thread to
    /// run between `close`'s flag and its wake-up; many rounds make it likely.
    #[test]
    fn ending_the_watcher_at_once_raises_no_sigpipe() {
        let raised = Arc::new(AtomicBool::new(false));
        let id =
            signal_hook::flag::register(signal_hook::consts::SIGPIPE, Arc::clone(&raised)).unwrap();
        for _ in 0..40_000 {
            let Ok(mut s) = Startup::begin(None) else {
                panic!("cannot install the watcher");
            };
            s.end();
        }
        signal_hook::low_level::unregister(id);
        assert!(!raised.load(Ordering::Relaxed), "SIGPIPE raised");
    }
}
