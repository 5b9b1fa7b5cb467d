//! flashgc trace readers.
//!
//! Streaming readers (constant memory; gzip and zstd read transparently, recognised by
//! their magic bytes) for the block-trace formats researchers use, a generic
//! column-mapped reader, auto-detection, trace statistics, and the `.fgt` binary format
//! that is read memory-mapped.
//!
//! ```text
//! file -> source (text parser | .fgt mmap) -> filter (volume, ops, time window)
//!      -> TraceWorkload (split into LPNs, remap, loop, time scale) -> Request stream
//! ```
//!
//! Entry points for the CLI and the Python package: [`open_workload`], [`stats()`],
//! [`volumes`], [`footprint`], [`convert`]. Formats, units and the `.fgt` layout are
//! documented in `docs/traces.md`. A trace held in memory reads through the same readers
//! with [`TraceInput::memory`] and the `*_input` variants ([`open_input`],
//! [`TraceWorkload::open_input`], [`stats_input`], [`volumes_input`], [`footprint_input`]).

#![deny(missing_docs)]

mod atomic;
pub mod blktrace;
pub mod error;
pub mod fgt;
mod filter;
pub mod format;
#[doc(hidden)]
pub mod fuzzing;
mod input;
mod options;
pub mod pipe;
mod record;
pub mod replay;
mod runs;
pub mod source;
pub mod stats;
mod text;

pub use error::TraceError;
pub use fgt::ConvertReport;
pub use format::{BlkEvents, Format, Rec, VolumeKind, FORMAT_NAMES};
pub use input::TraceInput;
pub use options::{Flushes, Ops, Remap, TimeWindow, TraceOptions};
pub use record::{Diagnostics, Record, RecordSource};
pub use replay::TraceWorkload;
pub use source::{open_any, open_input, open_source, AnySource};
pub use stats::{
    footprint, footprint_input, stats, stats_input, volumes, volumes_input, Footprint, TraceStats,
    VolumeInfo,
};

use std::path::Path;

/// Opens `path` as a workload for a device of `logical_pages` pages of `lpn_size` bytes.
///
/// Errors name the file, line and field; an empty trace (after filters) is an error.
/// See [`TraceWorkload`] for looping and [`TraceOptions`] for the options.
pub fn open_workload(
    path: &Path,
    opts: &TraceOptions,
    lpn_size: u32,
    logical_pages: u64,
) -> Result<Box<dyn flashgc_core::workload::Workload>, TraceError> {
    Ok(Box::new(TraceWorkload::open(
        path,
        opts,
        lpn_size,
        logical_pages,
    )?))
}

/// Converts `path` (any readable format; the volume / op / time-window options are not
/// applied, so the `.fgt` file holds the whole trace) to the `.fgt` binary format at `out`.
///
/// `out` must not be one of the files the trace reads (after symlinks and hard links; every
/// per-CPU file of a blktrace set): the finished file is renamed over `out`, so the trace
/// would be replaced by its conversion.
pub fn convert(path: &Path, opts: &TraceOptions, out: &Path) -> Result<ConvertReport, TraceError> {
    convert_until(path, opts, out, &std::sync::atomic::AtomicBool::new(false))
}

/// [`convert`] that stops when `stop` is set (Ctrl-C): the error says so, and nothing is
/// written (the temporary file is removed; whatever `out` held stays).
pub fn convert_until(
    path: &Path,
    opts: &TraceOptions,
    out: &Path,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<ConvertReport, TraceError> {
    for input in blktrace::cpu_files(path) {
        if input == out || same_file(&input, out) {
            return Err(TraceError::Option {
                option: "-o",
                message: format!(
                    "{} is the trace file {} (the same file): the conversion would replace \
                     the trace; choose another output",
                    out.display(),
                    input.display()
                ),
            });
        }
    }
    let mut src = opts.open(path)?;
    let content = src.format().has_content();
    fgt::write_fgt_until(&mut src, out, content, stop)
}

/// True when `a` and `b` both exist and are one file (symlinks followed, hard links
/// included): an output that would replace an input (`trace convert`, the CLI's outputs).
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
    }
}

/// What one pass of a trace (after the filters, as replayed) hands the simulator: see
/// [`pass_summary`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassSummary {
    /// Requests of the trace read (those that pass the filters), as `trace stats` counts
    /// them. Not the LPN runs handed to the simulator: `--remap compact` or `modulo` can
    /// split one request into several runs, and counting those made the `--loop-until`
    /// warning disagree with `trace stats` on the same trace.
    pub requests: u64,
    /// Pages written.
    pub write_pages: u64,
    /// True when the whole pass was read; false when counting stopped at `stop_pages`.
    pub complete: bool,
}

/// Counts what one pass of `path` writes, stopping early once `stop_pages` pages are
/// written (so the cost is bounded for long traces). `--loop-until` uses it to warn, before
/// a run, when a trace writes so little that the target needs an absurd number of passes.
/// The loop options of `opts` are ignored; the other options apply as in a replay.
pub fn pass_summary(
    path: &Path,
    opts: &TraceOptions,
    lpn_size: u32,
    logical_pages: u64,
    stop_pages: u64,
) -> Result<PassSummary, TraceError> {
    let once = TraceOptions {
        loop_times: 1,
        loop_until: None,
        pipeline: false,
        ..opts.clone()
    };
    let mut w = TraceWorkload::open(path, &once, lpn_size, logical_pages)?;
    let mut s = PassSummary {
        requests: 0,
        write_pages: 0,
        complete: false,
    };
    let mut buf = Vec::with_capacity(4096);
    loop {
        buf.clear();
        w.fill_requests(&mut buf, 4096)?;
        s.requests = w.pass_requests();
        if buf.is_empty() {
            s.complete = true;
            return Ok(s);
        }
        s.write_pages += buf
            .iter()
            .filter(|r| r.op == flashgc_core::workload::Op::Write)
            .map(|r| r.pages as u64)
            .sum::<u64>();
        if s.write_pages >= stop_pages {
            return Ok(s);
        }
    }
}
