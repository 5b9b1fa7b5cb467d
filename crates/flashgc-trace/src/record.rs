//! What every trace reader produces: [`Record`]s in common units, the [`Diagnostics`] of
//! reading, and the [`RecordSource`] trait that text, blktrace and `.fgt` readers implement.
//! This module sits below all readers (they import it; it imports none of them).

use crate::error::TraceError;
use crate::format::{Format, Rec, VolumeKind};
use serde::{Deserialize, Serialize};

/// One request read from a trace, in common units (see [`Rec`]), with its line number
/// (record number for `.fgt` files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The request, in common units (absolute ns, bytes).
    pub rec: Rec,
    /// 1-based source line (text) or record number (binary).
    pub line: u64,
}

impl Record {
    /// One past the request's last byte (`u64::MAX` when that byte is the last of 2^64), or
    /// the error for a request whose last byte is beyond 2^64 bytes, naming `file` and the
    /// line: no device or `--remap` addresses it, so `trace stats`, `trace volumes` and
    /// `--capacity auto` refuse it as the replay does.
    pub fn end_byte(&self, file: &str) -> Result<u64, TraceError> {
        match self.rec.offset.checked_add(self.rec.len.saturating_sub(1)) {
            Some(_) => Ok(self.rec.offset.saturating_add(self.rec.len)),
            None => Err(beyond_2_64(file, self.line, self.rec.offset, self.rec.len)),
        }
    }
}

/// The error for a request at `offset` of `len` bytes, line `line` of `file`, whose last
/// byte is beyond 2^64.
pub(crate) fn beyond_2_64(file: &str, line: u64, offset: u64, len: u64) -> TraceError {
    TraceError::Capacity {
        file: file.to_string(),
        line,
        message: format!(
            "request at byte offset {offset} ({len} bytes) ends beyond 2^64 bytes, which no \
             device or --remap addresses (a damaged line? --skip-bad-lines does not skip it; \
             remove it)"
        ),
    }
}

/// Problems found while reading, and what was skipped. Which problems are errors and
/// which are counted warnings is listed in `docs/traces.md`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Diagnostics {
    /// Lines read (text) or records read (binary).
    pub lines: u64,
    /// Requests produced (before filters; flushes not included).
    pub requests: u64,
    /// Flushes read (not requests). Only the message for an empty trace uses it, so it is
    /// left out of the JSON of `trace stats` (which counts flushes itself) and of
    /// checkpoints.
    #[serde(skip)]
    pub flushes: u64,
    /// Valid lines that are not requests (blkparse events not selected, fio open/close/wait,
    /// MiDAS `LOAD_END` and type-2 lines, blkparse summaries and flushes).
    pub ignored_lines: u64,
    /// blkparse/blktrace: the actions (bit `c - 'A'` for letter `c`) of requests with data
    /// that were skipped because `--blkparse-events` does not select them, named by the
    /// message for an empty trace. Not in the JSON or checkpoints, as `flushes`.
    #[serde(skip)]
    pub unselected_actions: u32,
    /// Malformed lines skipped because of `--skip-bad-lines`.
    pub bad_lines: u64,
    /// The first few skipped lines' errors.
    pub bad_line_examples: Vec<String>,
    /// Zero-length requests (skipped, counted warning).
    pub zero_length: u64,
    /// Requests whose timestamp is earlier than the previous one's (kept in file order, their
    /// time clamped to the previous timestamp; counted warning).
    pub time_backwards: u64,
    /// Largest backward step seen, in ns.
    pub max_step_back_ns: u64,
}

impl Diagnostics {
    /// Human-readable warnings (empty when there is nothing to report).
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.bad_lines > 0 {
            w.push(format!(
                "{} malformed lines skipped (--skip-bad-lines); first: {}",
                self.bad_lines,
                self.bad_line_examples
                    .first()
                    .map(String::as_str)
                    .unwrap_or("")
            ));
        }
        if self.zero_length > 0 {
            w.push(format!("{} zero-length requests skipped", self.zero_length));
        }
        if self.time_backwards > 0 {
            w.push(format!(
                "{} timestamps went backwards (largest step back {:.6} s); their times were clamped to the previous request's",
                self.time_backwards,
                self.max_step_back_ns as f64 / 1e9
            ));
        }
        w
    }
}

/// A stream of records from one trace: text lines, blktrace binary events or `.fgt`
/// records, in file order, with the reader's diagnostics and volume names.
pub trait RecordSource: Send {
    /// The next record, `None` at the end.
    fn next_record(&mut self) -> Result<Option<Record>, TraceError>;
    /// Starts over from the first record (for looped replay). Diagnostics keep the first
    /// pass's counts.
    fn rewind(&mut self) -> Result<(), TraceError>;
    /// The format being read (given with `--format` or detected).
    fn format(&self) -> &Format;
    /// How this trace names volumes (numbers, `major,minor`, text, or none).
    fn volume_kind(&self) -> VolumeKind;
    /// Display name of a volume key.
    fn volume_name(&self, key: u64) -> String;
    /// Diagnostics of the (first) pass.
    fn diagnostics(&self) -> &Diagnostics;
    /// The trace file as given (path, or the name of a buffer in memory), for messages.
    fn file(&self) -> &str;
    /// Bytes of the stream up to the end of the record returned last, for a reader that can
    /// seek there (uncompressed text); None for the others.
    fn consumed(&self) -> Option<u64> {
        None
    }
}

/// Where a text reader stands just after a record: what a resumed replay of an
/// uncompressed text trace seeks to instead of re-reading the requests served before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextPos {
    /// Bytes up to the end of the record's line.
    pub offset: u64,
    /// The record's line number.
    pub line: u64,
    /// The record's time (the reader's clamp reference; fio v2's clock).
    pub last_time: Option<u64>,
    /// The reader's diagnostics after the record.
    pub diag: Diagnostics,
    /// Text volume names seen so far.
    pub names: Vec<(u64, String)>,
}
