//! Pipelined reading: a text (or blktrace) reader runs on its own thread and hands records
//! to the replay in batches, so parsing overlaps the simulation and a text trace replays
//! about as fast as its `.fgt` copy (on a machine with a second core).
//!
//! The replay sees exactly what the reader on its own thread would give it: the same
//! records in the same order, the same error after the same records, and the same
//! diagnostics at every point. For the latter, the reader thread sends, with each batch,
//! the diagnostics as they stood when each record was read, but only where they differ
//! from the previous record's beyond the line and request counters (the receiver derives
//! those two from the records themselves). Looping: the thread rewinds by itself at the
//! end of a pass and reads on; the replay may stop consuming at any time.
//!
//! Shutdown: dropping the [`PipedSource`] raises a stop flag and closes the channel; the
//! thread notices at its next record or at its next send (a blocked send fails at once),
//! and the drop joins it. A reader that panics closes the channel: the replay then gets
//! an error, never a hang.

use crate::error::TraceError;
use crate::format::{Format, VolumeKind};
use crate::record::{Diagnostics, Record, RecordSource, TextPos};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Records per batch: large enough that channel traffic is negligible, small enough that
/// the first records arrive quickly and memory stays small (56 B per record).
const BATCH: usize = 4096;
/// Batches in flight between the threads (bounds the reader's lead and the memory).
const IN_FLIGHT: usize = 4;

/// Whether a reader thread can overlap the replay: the machine has a second core.
pub fn worth_it() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

/// Traces stored in fewer bytes are read on the replay's thread: a pass of a few hundred
/// lines at most gives the reader thread little parsing to overlap, and each pass costs
/// two hand-overs between the threads. Measured on a 5-line MSR trace looped 100,000
/// times: 1.2 s piped, 0.1 s direct; at 300 and 1000 lines the two were within noise.
pub const PIPE_MIN_BYTES: u64 = 16 << 10;

/// [`worth_it`], and `input` holds at least `min_bytes` (a size that cannot be known, such
/// as a blktrace per-CPU set's, counts as large).
pub(crate) fn worth_it_for(input: &crate::input::TraceInput, min_bytes: u64) -> bool {
    let size = match input {
        crate::input::TraceInput::File(p) => flashgc_core::trace_file::len(p).unwrap_or(u64::MAX),
        crate::input::TraceInput::Memory { data, .. } => data.len() as u64,
    };
    size >= min_bytes && worth_it()
}

/// What the reader thread sends.
enum Msg {
    /// Records in file order, with the diagnostics changes that go with them.
    Batch(Batch),
    /// The pass ended after the records sent so far; the diagnostics at its end and the
    /// text volume names seen so far.
    EndOfPass(Box<Diagnostics>, HashMap<u64, String>),
    /// Reading failed after the records sent so far (diagnostics at the failure).
    Failed(TraceError, Box<Diagnostics>),
}

/// A batch of records.
#[derive(Default)]
struct Batch {
    records: Vec<Record>,
    /// `(i, d)`: from record `i` of this batch on, the diagnostics (apart from `lines` and
    /// `requests`) are `d`.
    changes: Vec<(usize, Diagnostics)>,
    /// Text volume names first seen in this batch.
    names: Vec<(u64, String)>,
    /// For each record, the reader's [`RecordSource::consumed`] after it (`u64::MAX`:
    /// none), so that the replay knows where it stands for a checkpoint.
    ends: Vec<u64>,
}

/// A record source read on its own thread (see the module documentation).
pub struct PipedSource {
    rx: Receiver<Msg>,
    /// Emptied batch buffers going back to the reader (no allocation per batch).
    recycle: SyncSender<Vec<Record>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    cur: Vec<Record>,
    pos: usize,
    ends: Vec<u64>,
    /// Bytes up to the end of the record taken last (`u64::MAX`: not known), and its time.
    last_end: u64,
    last_time: Option<u64>,
    changes: Vec<(usize, Diagnostics)>,
    next_change: usize,
    diag: Diagnostics,
    first_pass: Option<Diagnostics>,
    /// The pass being read ended (the thread is already reading the next one).
    at_end: bool,
    failed: Option<TraceError>,
    names: HashMap<u64, String>,
    format: Format,
    kind: VolumeKind,
    file: String,
}

/// Diagnostics equal apart from the counters the receiver derives from the records.
fn same_rare(a: &Diagnostics, b: &Diagnostics) -> bool {
    a.ignored_lines == b.ignored_lines
        && a.bad_lines == b.bad_lines
        && a.zero_length == b.zero_length
        && a.time_backwards == b.time_backwards
        && a.max_step_back_ns == b.max_step_back_ns
        && a.bad_line_examples.len() == b.bad_line_examples.len()
}

impl PipedSource {
    /// Starts reading `src` on a new thread. `passes` bounds the passes read ahead (the
    /// replay's loop count; `u32::MAX` for `--loop-until`).
    pub fn spawn<S: RecordSource + 'static>(src: S, passes: u32) -> PipedSource {
        let format = src.format().clone();
        let kind = src.volume_kind();
        let file = src.file().to_string();
        let (tx, rx) = mpsc::sync_channel(IN_FLIGHT);
        let (recycle, back) = mpsc::sync_channel(IN_FLIGHT + 2);
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("flashgc-trace-reader".into())
            .spawn(move || read_loop(src, passes, tx, back, flag))
            .ok();
        let mut p = PipedSource {
            rx,
            recycle,
            stop,
            thread,
            cur: Vec::new(),
            pos: 0,
            ends: Vec::new(),
            last_end: 0,
            last_time: None,
            changes: Vec::new(),
            next_change: 0,
            diag: Diagnostics::default(),
            first_pass: None,
            at_end: false,
            failed: None,
            names: HashMap::new(),
            format,
            kind,
            file,
        };
        if p.thread.is_none() {
            p.failed = Some(TraceError::Io {
                file: p.file.clone(),
                line: 0,
                message: "cannot start the trace reader thread".into(),
            });
        }
        p
    }

    /// Takes the next message; false when the pass ended or reading failed.
    fn receive(&mut self) -> bool {
        match self.rx.recv() {
            Ok(Msg::Batch(b)) => {
                let old = std::mem::replace(&mut self.cur, b.records);
                if old.capacity() > 0 {
                    let mut old = old;
                    old.clear();
                    let _ = self.recycle.try_send(old);
                }
                self.pos = 0;
                self.ends = b.ends;
                self.changes = b.changes;
                self.next_change = 0;
                for (k, n) in b.names {
                    self.names.entry(k).or_insert(n);
                }
                true
            }
            Ok(Msg::EndOfPass(d, names)) => {
                self.diag = *d;
                for (k, n) in names {
                    self.names.entry(k).or_insert(n);
                }
                self.at_end = true;
                false
            }
            Ok(Msg::Failed(e, d)) => {
                self.diag = *d;
                self.failed = Some(e);
                false
            }
            Err(_) => {
                self.failed = Some(TraceError::Io {
                    file: self.file.clone(),
                    line: self.diag.lines,
                    message: "the trace reader thread stopped unexpectedly".into(),
                });
                false
            }
        }
    }

    /// The diagnostics as the replay would see them after taking `r`.
    #[inline]
    fn account(&mut self, r: &Record) {
        let i = self.pos - 1;
        if let Some((at, d)) = self.changes.get(self.next_change) {
            if *at == i {
                let (lines, requests, flushes) =
                    (self.diag.lines, self.diag.requests, self.diag.flushes);
                self.diag = d.clone();
                self.diag.lines = lines;
                self.diag.requests = requests;
                self.diag.flushes = flushes;
                self.next_change += 1;
            }
        }
        self.diag.lines = r.line;
        if r.rec.op == flashgc_core::workload::Op::Flush {
            self.diag.flushes += 1;
        } else {
            self.diag.requests += 1;
        }
        self.last_end = self.ends.get(i).copied().unwrap_or(u64::MAX);
        self.last_time = Some(r.rec.time_ns);
    }

    /// Where the reader stood just after the record taken last (see
    /// [`crate::text::TextSource::position`]): None when that is not known (a compressed
    /// trace, a later pass, a pass that ended or failed).
    pub(crate) fn position(&self) -> Option<TextPos> {
        if self.last_end == u64::MAX
            || self.first_pass.is_some()
            || self.at_end
            || self.failed.is_some()
        {
            return None;
        }
        let mut names: Vec<(u64, String)> =
            self.names.iter().map(|(k, v)| (*k, v.clone())).collect();
        names.sort_unstable();
        Some(TextPos {
            offset: self.last_end,
            line: self.diag.lines,
            last_time: self.last_time,
            diag: self.diag.clone(),
            names,
        })
    }

    /// Takes `p`'s diagnostics and names as its own: a reader seeked to `p` was spawned.
    pub(crate) fn resumed_at(&mut self, p: &TextPos) {
        self.diag = p.diag.clone();
        self.names = p.names.iter().cloned().collect();
        self.last_end = p.offset;
        self.last_time = p.last_time;
    }
}

impl RecordSource for PipedSource {
    #[inline]
    fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        loop {
            if let Some(&r) = self.cur.get(self.pos) {
                self.pos += 1;
                self.account(&r);
                return Ok(Some(r));
            }
            if let Some(e) = &self.failed {
                return Err(e.clone());
            }
            if self.at_end {
                return Ok(None);
            }
            if !self.receive() {
                if let Some(e) = &self.failed {
                    return Err(e.clone());
                }
                return Ok(None);
            }
        }
    }

    fn rewind(&mut self) -> Result<(), TraceError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.first_pass.is_none() {
            self.first_pass = Some(self.diag.clone());
        }
        // Records of this pass not consumed yet (a caller rewinding early) are skipped.
        while !self.at_end {
            self.cur.clear();
            if !self.receive() {
                if let Some(e) = &self.failed {
                    return Err(e.clone());
                }
            }
        }
        self.at_end = false;
        self.cur.clear();
        self.pos = 0;
        Ok(())
    }

    fn format(&self) -> &Format {
        &self.format
    }

    fn volume_kind(&self) -> VolumeKind {
        self.kind
    }

    fn volume_name(&self, key: u64) -> String {
        match self.names.get(&key) {
            Some(n) => n.clone(),
            None => self.kind.name_of(key),
        }
    }

    fn diagnostics(&self) -> &Diagnostics {
        self.first_pass.as_ref().unwrap_or(&self.diag)
    }

    fn file(&self) -> &str {
        &self.file
    }
}

impl Drop for PipedSource {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Unblock a send waiting for room: drain what is queued, then close our end.
        while self.rx.try_recv().is_ok() {}
        let (_, dead) = mpsc::sync_channel(0);
        self.rx = dead;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The reader thread: reads passes, sends batches, stops when told or when nobody listens.
fn read_loop<S: RecordSource>(
    mut src: S,
    passes: u32,
    tx: SyncSender<Msg>,
    back: Receiver<Vec<Record>>,
    stop: Arc<AtomicBool>,
) {
    let mut seen_names: std::collections::HashSet<u64> = std::collections::HashSet::new();
    let text_names = src.volume_kind() == VolumeKind::Text;
    let mut pass = 0u32;
    loop {
        let mut last = src.diagnostics().clone();
        let mut batch = Batch {
            records: back
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(BATCH)),
            ..Batch::default()
        };
        loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            match src.next_record() {
                Ok(Some(r)) => {
                    if pass == 0 {
                        let d = src.diagnostics();
                        if !same_rare(d, &last) {
                            batch.changes.push((batch.records.len(), d.clone()));
                            last = d.clone();
                        }
                        if text_names
                            && seen_names.len() < 100_000
                            && seen_names.insert(r.rec.volume)
                        {
                            batch
                                .names
                                .push((r.rec.volume, src.volume_name(r.rec.volume)));
                        }
                    }
                    batch.records.push(r);
                    batch.ends.push(src.consumed().unwrap_or(u64::MAX));
                    if batch.records.len() >= BATCH {
                        let next = Batch {
                            records: back
                                .try_recv()
                                .unwrap_or_else(|_| Vec::with_capacity(BATCH)),
                            ..Batch::default()
                        };
                        if tx
                            .send(Msg::Batch(std::mem::replace(&mut batch, next)))
                            .is_err()
                        {
                            return;
                        }
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    let d = Box::new(src.diagnostics().clone());
                    if !batch.records.is_empty() && tx.send(Msg::Batch(batch)).is_err() {
                        return;
                    }
                    let _ = tx.send(Msg::Failed(e, d));
                    return;
                }
            }
        }
        let d = Box::new(src.diagnostics().clone());
        if !batch.records.is_empty() && tx.send(Msg::Batch(batch)).is_err() {
            return;
        }
        let names = if text_names {
            seen_names
                .iter()
                .map(|&k| (k, src.volume_name(k)))
                .collect()
        } else {
            HashMap::new()
        };
        if tx.send(Msg::EndOfPass(d, names)).is_err() {
            return;
        }
        pass += 1;
        if pass >= passes {
            return;
        }
        if let Err(e) = src.rewind() {
            let d = Box::new(src.diagnostics().clone());
            let _ = tx.send(Msg::Failed(e, d));
            return;
        }
    }
}
