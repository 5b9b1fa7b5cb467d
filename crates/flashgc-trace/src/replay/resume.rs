//! A replay's position for a checkpoint: where the reader stands in the file (a byte
//! offset and line for uncompressed text, a record number for `.fgt`) and the replay's own
//! state (remapping, times, counters, requests of a split record not yet handed out). A
//! resumed run seeks there instead of re-reading and re-parsing every request served
//! before the checkpoint. Compressed traces, blktrace binary input and looped replays
//! (`--loop-times`, `--loop-until`) save no position: a resumed run re-reads them.

use super::TraceWorkload;
use crate::error::TraceError;
use crate::input::TraceInput;
use crate::pipe::PipedSource;
use crate::record::{RecordSource, TextPos};
use crate::source::AnySource;
use flashgc_core::workload::{Op, Request};
use serde::{Deserialize, Serialize};

/// Layout version of [`ReplayPos`]; another one is refused by name.
const VERSION: u32 = 2;

/// Where the reader stands.
#[derive(Serialize, Deserialize)]
enum SourcePos {
    /// Uncompressed text, read directly or on the pipeline's thread.
    Text(TextPos),
    /// `.fgt`: records read.
    Fgt(u64),
}

/// What [`TraceWorkload::position`] saves.
#[derive(Serialize, Deserialize)]
struct ReplayPos {
    version: u32,
    /// The trace's size, bytes (the checkpoint also checks the trace's identity).
    size: u64,
    source: SourcePos,
    filter: (Option<u64>, bool, Vec<u64>),
    compact: Vec<((u64, u64), u32)>,
    next_id: u64,
    written: u64,
    written_this_pass: u64,
    first_emit: Option<u64>,
    last_emit: u64,
    emitted_pass0: u64,
    period: u64,
    pending: Vec<Request>,
    done: bool,
    volumes: Vec<u64>,
    last_volume: Option<u64>,
    hash_dropped: u64,
    requests_out: u64,
    /// Flushes handed out and FUA writes read (since layout version 2).
    flushes: (u64, u64),
}

fn size_of(input: &TraceInput) -> Result<u64, TraceError> {
    match input {
        TraceInput::File(p) => {
            flashgc_core::trace_file::len(p).map_err(|e| crate::input::io_err(&input.name(), 0, &e))
        }
        TraceInput::Memory { data, .. } => Ok(data.len() as u64),
    }
}

impl TraceWorkload {
    /// The position to save in a checkpoint, or None when a resumed run must re-read the
    /// trace (see the module documentation).
    pub(super) fn position(&self) -> Option<Vec<u8>> {
        if self.loops > 1 || self.until_pages.is_some() {
            return None;
        }
        let source = match &self.src {
            AnySource::Text(t) => SourcePos::Text(t.position()?),
            AnySource::Piped(p) => SourcePos::Text(p.position()?),
            AnySource::Fgt(f) => SourcePos::Fgt(f.position()),
            AnySource::Blk(_) => return None,
        };
        let mut compact: Vec<((u64, u64), u32)> =
            self.compact.iter().map(|(k, v)| (*k, *v)).collect();
        compact.sort_unstable();
        let mut volumes: Vec<u64> = self.volumes.iter().copied().collect();
        volumes.sort_unstable();
        let p = ReplayPos {
            version: VERSION,
            size: size_of(&self.input).ok()?,
            source,
            filter: self.filter.state(),
            compact,
            next_id: self.next_id,
            written: self.written,
            written_this_pass: self.written_this_pass,
            first_emit: self.first_emit,
            last_emit: self.last_emit,
            emitted_pass0: self.emitted_pass0,
            period: self.period,
            pending: self.pending[self.pending_pos..].to_vec(),
            done: self.done,
            volumes,
            last_volume: self.last_volume,
            hash_dropped: self.hash_dropped,
            requests_out: self.requests_out,
            flushes: (self.flushes_out, self.fua_out),
        };
        flashgc_core::checkpoint::encode(&p).ok()
    }

    /// Continues at a position [`Self::position`] saved, on a replay just opened with the
    /// same trace and options.
    pub(super) fn seek_to(&mut self, state: &[u8]) -> Result<(), TraceError> {
        let file = self.src.file().to_string();
        let bad = |message: String| TraceError::Io {
            file: file.clone(),
            line: 0,
            message,
        };
        let p: ReplayPos = flashgc_core::checkpoint::decode(state).map_err(|e| {
            bad(format!(
                "the checkpoint's position in the trace cannot be read: {e}"
            ))
        })?;
        if p.version != VERSION {
            return Err(bad(format!(
                "the checkpoint's position in the trace has layout version {}; this flashgc reads version {VERSION}",
                p.version
            )));
        }
        let size = size_of(&self.input)?;
        if size != p.size {
            return Err(bad(format!(
                "the trace is {size} bytes, but the checkpoint was taken in a trace of {} bytes",
                p.size
            )));
        }
        // A checkpoint's CRC proves integrity, not consistency: what the replay trusts
        // (pages it hands out, ids it has given, its time span) is checked.
        let logical = self.logical;
        let in_range = |r: &Request| {
            (r.op == Op::Flush && r.pages == 0 && r.lpn == 0)
                || r.pages >= 1
                    && r.lpn
                        .checked_add(r.pages as u64)
                        .is_some_and(|e| e <= logical)
        };
        if p.next_id > logical
            || p.compact.iter().any(|(_, id)| *id as u64 >= p.next_id)
            || !p.pending.iter().all(in_range)
            || p.last_emit < p.first_emit.unwrap_or(0)
        {
            return Err(bad(
                "the checkpoint's position in the trace does not fit this device or itself".into(),
            ));
        }
        match &p.source {
            SourcePos::Text(tp) => {
                let AnySource::Text(mut t) = self.opts.open_input(&self.input)? else {
                    return Err(bad(
                        "the checkpoint was taken in a text trace; this is not one".into(),
                    ));
                };
                if tp.offset > size {
                    return Err(bad(format!(
                        "the checkpoint's position (byte {}) is beyond the trace's end",
                        tp.offset
                    )));
                }
                t.seek(tp)?;
                // The pipeline's thread, if the replay uses one, reads on from there.
                self.src = if matches!(self.src, AnySource::Piped(_)) {
                    let mut piped = PipedSource::spawn(*t, self.loops);
                    piped.resumed_at(tp);
                    AnySource::Piped(Box::new(piped))
                } else {
                    AnySource::Text(t)
                };
            }
            SourcePos::Fgt(pos) => {
                let AnySource::Fgt(f) = &mut self.src else {
                    return Err(bad(
                        "the checkpoint was taken in a .fgt trace; this is not one".into(),
                    ));
                };
                if !f.seek(*pos) {
                    return Err(bad(format!(
                        "the checkpoint's position (record {pos}) is beyond the trace's end"
                    )));
                }
            }
        }
        self.filter.set_state(p.filter);
        // Into the table as sized (`reserve_distinct_pages`): collected anew, it would grow.
        self.compact.clear();
        self.compact.extend(p.compact);
        self.next_id = p.next_id;
        self.written = p.written;
        self.written_this_pass = p.written_this_pass;
        self.first_emit = p.first_emit;
        self.last_emit = p.last_emit;
        self.emitted_pass0 = p.emitted_pass0;
        self.period = p.period;
        self.pending = p.pending;
        self.pending_pos = 0;
        self.done = p.done;
        self.volumes = p.volumes.into_iter().collect();
        self.last_volume = p.last_volume;
        self.hash_dropped = p.hash_dropped;
        self.requests_out = p.requests_out;
        (self.flushes_out, self.fua_out) = p.flushes;
        self.flush_seen = self.flushes_out > 0 || self.pending.iter().any(|r| r.op == Op::Flush);
        // Only a single-pass replay saves a position (see `position`), and there every
        // request read in the pass was handed out (its first run at least).
        self.records_out = p.emitted_pass0;
        self.pending_uncounted = false;
        Ok(())
    }
}
