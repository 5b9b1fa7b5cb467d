//! Replay options: what to keep (volume, ops, time window), how to map addresses onto the
//! device (remap), how often to replay (loops) and how fast (time scale). Plain data; the
//! CLI's flags and the Python package's mappings convert into [`TraceOptions`].

use crate::error::TraceError;
use crate::input::TraceInput;
use crate::source::{open_input, AnySource};
use flashgc_core::workload::Op;
use std::path::Path;

/// What to do with addresses beyond the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Remap {
    /// Keep addresses; a request beyond the logical capacity is an error.
    #[default]
    None,
    /// Dense renumbering of the pages the trace touches, in order of first touch
    /// (per volume), as the SepBIT artifact does.
    Compact,
    /// Page number modulo the logical capacity.
    Modulo,
}

impl Remap {
    /// Parses `none`, `compact` or `modulo`.
    pub fn parse(s: &str) -> Result<Remap, TraceError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" | "off" => Ok(Remap::None),
            "compact" => Ok(Remap::Compact),
            "modulo" | "mod" => Ok(Remap::Modulo),
            _ => Err(TraceError::Option {
                option: "--remap",
                message: format!("`{s}`; allowed: none, compact, modulo"),
            }),
        }
    }
    /// The option value naming this mode.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Remap::None => "none",
            Remap::Compact => "compact",
            Remap::Modulo => "modulo",
        }
    }
}

/// What replay does with a trace's flushes and FUA writes (`--trace-flushes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flushes {
    /// Flushes (and a preflush request's flush) go to the simulated write cache, FUA
    /// writes complete once programmed (docs/traces.md, "Flushes and FUA writes").
    #[default]
    Replay,
    /// Flushes are dropped and FUA writes replayed as plain writes (the replay of
    /// flashgc before flushes were read).
    Ignore,
}

impl Flushes {
    /// Parses `replay` or `ignore`.
    pub fn parse(s: &str) -> Result<Flushes, TraceError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "replay" => Ok(Flushes::Replay),
            "ignore" => Ok(Flushes::Ignore),
            _ => Err(TraceError::Option {
                option: "--trace-flushes",
                message: format!("`{s}`; allowed: replay, ignore"),
            }),
        }
    }
}

/// Which operations to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ops {
    /// Everything.
    #[default]
    All,
    /// Reads only.
    Read,
    /// Writes only.
    Write,
    /// Writes and trims (no reads).
    NoRead,
}

impl Ops {
    /// Parses `all`, `read`, `write` or `write,trim`.
    pub fn parse(s: &str) -> Result<Ops, TraceError> {
        match s.trim().to_ascii_lowercase().replace(' ', "").as_str() {
            "all" | "rw" | "read,write" | "write,read" => Ok(Ops::All),
            "read" | "r" => Ok(Ops::Read),
            "write" | "w" => Ok(Ops::Write),
            "write,trim" | "trim,write" => Ok(Ops::NoRead),
            _ => Err(TraceError::Option {
                option: "--ops",
                message: format!("`{s}`; allowed: all, read, write, write,trim"),
            }),
        }
    }
    /// Whether requests of `op` are kept.
    #[inline]
    pub(crate) fn keeps(self, op: Op) -> bool {
        match self {
            Ops::All => true,
            Ops::Read => op == Op::Read,
            // Flushes are the writes' (what makes them durable).
            Ops::Write => op == Op::Write || op == Op::Flush,
            Ops::NoRead => op != Op::Read,
        }
    }
}

/// A time window relative to the trace's first request, in ns: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeWindow {
    /// Start (inclusive), ns after the first request.
    pub start_ns: u64,
    /// End (exclusive), ns after the first request.
    pub end_ns: u64,
}

impl TimeWindow {
    /// Parses `START..END` with optional units (`ns us ms s m h`; default `s`), e.g.
    /// `10..60`, `500ms..2s`, `1h..`.
    pub fn parse(s: &str) -> Result<TimeWindow, TraceError> {
        let err = |m: String| TraceError::Option {
            option: "--time-window",
            message: m,
        };
        let (a, b) = s.split_once("..").ok_or_else(|| {
            err(format!(
                "`{s}`: expected START..END, e.g. 10..60 (seconds) or 500ms..2s"
            ))
        })?;
        let one = |t: &str, dflt: u64| -> Result<u64, TraceError> {
            let t = t.trim();
            if t.is_empty() {
                return Ok(dflt);
            }
            let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
            let (num, unit) = t.split_at(split);
            let mul = match unit {
                "ns" => 1.0,
                "us" => 1e3,
                "ms" => 1e6,
                "" | "s" => 1e9,
                "m" | "min" => 60e9,
                "h" => 3600e9,
                _ => {
                    return Err(err(format!(
                        "`{t}`: unknown unit `{unit}`; allowed: ns, us, ms, s, m, h"
                    )))
                }
            };
            let v: f64 = num
                .parse()
                .map_err(|_| err(format!("`{t}` is not a number")))?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(err(format!("`{t}` must be a non-negative time")));
            }
            Ok((v * mul).round().min(u64::MAX as f64) as u64)
        };
        let w = TimeWindow {
            start_ns: one(a, 0)?,
            end_ns: one(b, u64::MAX)?,
        };
        if w.end_ns <= w.start_ns {
            return Err(err(format!("`{s}`: the end must be after the start")));
        }
        Ok(w)
    }
}

/// How to read and replay a trace. Plain data with defaults; the CLI's flags convert into
/// it, and the Python package fills it directly.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceOptions {
    /// `--format`: a format name or column map; `None` = auto-detect.
    pub format: Option<String>,
    /// `--blkparse-events`: blkparse actions to replay (default `D`).
    pub blkparse_events: Option<String>,
    /// `--volume`: keep one volume / device / ASU / LUN (`None` = all).
    pub volume: Option<String>,
    /// `--remap`.
    pub remap: Remap,
    /// `--loop-times`: replay the trace this many times (1 = once).
    pub loop_times: u32,
    /// `--loop-until`: replay until this many times the logical capacity has been
    /// written (overrides `loop_times`).
    pub loop_until: Option<f64>,
    /// `--time-scale`: multiply times (relative to the first request) by this factor
    /// (0.5 = twice as fast).
    pub time_scale: f64,
    /// `--ops`.
    pub ops: Ops,
    /// `--time-window`.
    pub time_window: Option<TimeWindow>,
    /// `--skip-bad-lines`: count and skip malformed lines instead of stopping.
    pub skip_bad_lines: bool,
    /// `--trace-flushes`: replay flushes and FUA writes (default) or ignore them.
    pub flushes: Flushes,
    /// Replay a text or blktrace trace with its parser on a second thread (default true;
    /// used only when the machine has a second core). Results are identical either way;
    /// `false` keeps everything on the caller's thread.
    pub pipeline: bool,
    /// Traces stored in fewer bytes are read on the caller's thread even with `pipeline`
    /// (default [`crate::pipe::PIPE_MIN_BYTES`]: a short pass gives the reader thread
    /// nothing to overlap); 0 pipelines every trace (the tests comparing the two).
    pub pipeline_min_bytes: u64,
    /// Replay a `.fgt` recording's multi-page writes (version 3 continuation records,
    /// `flashgc serve --record`) one page per request, each with its content fingerprint:
    /// what the FTL's content mode needs. `false` (default) replays each as the one
    /// request the application sent, whose content is then unknown.
    pub per_page: bool,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            format: None,
            blkparse_events: None,
            volume: None,
            remap: Remap::None,
            loop_times: 1,
            loop_until: None,
            time_scale: 1.0,
            ops: Ops::All,
            time_window: None,
            skip_bad_lines: false,
            flushes: Flushes::Replay,
            pipeline: true,
            pipeline_min_bytes: crate::pipe::PIPE_MIN_BYTES,
            per_page: false,
        }
    }
}

impl TraceOptions {
    /// Checks value ranges (loop counts, the `--loop-until` multiple, the time scale); the
    /// error names the option.
    pub fn check(&self) -> Result<(), TraceError> {
        if self.loop_times == 0 {
            return Err(TraceError::Option {
                option: "--loop-times",
                message: "must be at least 1".into(),
            });
        }
        if let Some(k) = self.loop_until {
            if !(k.is_finite() && k > 0.0 && k <= 1e6) {
                return Err(TraceError::Option {
                    option: "--loop-until",
                    message: format!("{k}: a multiple of the logical capacity in (0, 1e6]"),
                });
            }
        }
        if !(self.time_scale.is_finite() && self.time_scale >= 0.0 && self.time_scale <= 1e9) {
            return Err(TraceError::Option {
                option: "--time-scale",
                message: format!("{}: a factor in [0, 1e9]", self.time_scale),
            });
        }
        Ok(())
    }

    /// Opens the record source these options describe.
    pub fn open(&self, path: &Path) -> Result<AnySource, TraceError> {
        self.open_input(&TraceInput::from(path))
    }

    /// [`Self::open`] for a file or a buffer in memory.
    pub fn open_input(&self, input: &TraceInput) -> Result<AnySource, TraceError> {
        self.check()?;
        open_input(
            input,
            self.format.as_deref(),
            self.blkparse_events.as_deref(),
            self.skip_bad_lines,
        )
    }
}
