//! The terminal progress bar of `flashgc.run` (and `python -m flashgc run`): what the CLI's
//! bar shows (pages written of the target, rate, ETA, WAF so far), drawn on stderr only
//! when it is a terminal, so notebooks, pipes and Dask workers stay quiet.

use flashgc_core::sim::Progress;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar, or nothing when it is not wanted or stderr is no terminal.
pub(crate) struct Bar {
    bar: Option<ProgressBar>,
    /// The target is unknown (a trace replayed to its end): a count without bar or ETA.
    open_ended: bool,
}

impl Bar {
    /// `show`: true or false as the caller asks, None for "on a terminal".
    pub(crate) fn new(show: Option<bool>) -> Bar {
        let terminal = std::io::stderr().is_terminal();
        let bar = show.unwrap_or(terminal).then(|| {
            let b = ProgressBar::new(0);
            b.set_style(style(
                "{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} pages {rate} ETA {eta} {msg}",
            ));
            b
        });
        Bar {
            bar,
            open_ended: false,
        }
    }

    /// Moves the bar to the run loop's report `p`.
    pub(crate) fn update(&mut self, p: &Progress) {
        let Some(b) = &self.bar else { return };
        match p.target_pages {
            Some(t) => b.set_length(t),
            None if !self.open_ended => {
                self.open_ended = true;
                b.set_style(style(
                    "{spinner} [{elapsed_precise}] {human_pos} pages {rate} {msg}",
                ));
            }
            None => {}
        }
        b.set_position(p.user_pages);
        b.set_message(format!("WAF {:.3}", p.waf));
    }
}

impl Drop for Bar {
    /// The bar leaves the terminal when the run ends, however it ends.
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// `template` with a `{rate}` key: pages per second, in k or M past a thousand (indicatif's
/// `{per_sec}` prints four decimals).
fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "rate",
            |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let r = s.per_sec();
                let _ = match r {
                    r if r >= 1e6 => write!(w, "{:.1} M/s", r / 1e6),
                    r if r >= 1e3 => write!(w, "{:.1} k/s", r / 1e3),
                    r => write!(w, "{r:.0}/s"),
                };
            },
        )
}
