//! blktrace's binary output, read directly: the per-CPU files `NAME.blktrace.N` that
//! `blktrace -d DEV -o NAME` writes, merged by time as `blkparse -i NAME` does.
//!
//! Each file is a sequence of `struct blk_io_trace` (48 bytes: magic, sequence, time ns,
//! sector, bytes, action, pid, device, cpu, error, pdu_len) each followed by `pdu_len`
//! bytes of payload (skipped). The magic is `0x65617400 | version` (versions 6 and 7, as
//! blkparse accepts) in the byte order of the machine that traced; each file's order is
//! taken from its first record, so traces from either endianness read the same.
//!
//! Which events are requests: the action code (low 16 bits of `action`, without the cgroup
//! flag) names the event as blkparse's letter does (Q queued, M/F merged, G get request,
//! S sleep, R requeue, D issued to the driver, C completed, P/U/T plug and unplugs, I
//! inserted, X split, B bounce, A remapped). `--blkparse-events` selects them, `D` by
//! default, exactly as for blkparse text. The category bits (high 16 bits) give the
//! operation as blkparse prints RWBS: discard = trim, else write, else read when the event
//! carries bytes; other events (flushes without data, notify records such as process names
//! and messages) are counted as ignored. Device numbers split as the kernel's `dev_t`
//! (major = dev >> 20), so volume names are the `major,minor` of the text output.

use crate::error::TraceError;
use crate::format::{BlkEvents, Format, Rec, VolumeKind, BLK_ACTIONS};
use crate::input::{blktrace_endianness, SharedBytes, TraceInput};
use crate::record::{Diagnostics, Record, RecordSource};
use flashgc_core::workload::Op;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

/// `BLK_IO_TRACE_MAGIC`: the high 24 bits of every record's first word.
pub const MAGIC: u32 = crate::input::BLKTRACE_MAGIC;
/// Bytes of one `struct blk_io_trace` (before its payload).
pub const RECORD_BYTES: usize = 48;
/// Category bit of notify records (process names, timestamps, messages): not I/O.
const TC_NOTIFY: u32 = 1 << (10 + 16);
const TC_WRITE: u32 = 1 << (1 + 16);
const TC_DISCARD: u32 = 1 << (13 + 16);
/// `BLK_TC_FLUSH` (`1 << 2`): a preflush (blkparse's leading `F`; `FN` without data).
const TC_FLUSH: u32 = 1 << (2 + 16);
/// `BLK_TC_FUA` (`1 << 15`): Force Unit Access (blkparse's `F` after the op letter).
const TC_FUA: u32 = 1 << (15 + 16);
/// The cgroup flag newer kernels set in the action code.
const TA_CGROUP: u32 = 1 << 8;

/// The per-CPU files of the trace `path` names: every `NAME.blktrace.N` beside a file
/// named so (in the order of N), or `path` alone. A `path` that does not exist but whose
/// `path.blktrace.0` does names the set by its prefix, as `blkparse -i NAME` does.
pub(crate) fn cpu_files(path: &Path) -> Vec<PathBuf> {
    let (dir, prefix) = match per_cpu_prefix(path) {
        Some(x) => x,
        None => return vec![path.to_path_buf()],
    };
    let mut found: Vec<(u64, PathBuf)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n: u64 = name.strip_prefix(&prefix)?.parse().ok()?;
            Some((n, e.path()))
        })
        .collect();
    found.sort();
    if found.is_empty() {
        return vec![path.to_path_buf()];
    }
    found.into_iter().map(|(_, p)| p).collect()
}

/// (directory, `NAME.blktrace.`) when `path` is one per-CPU file or names the set.
fn per_cpu_prefix(path: &Path) -> Option<(PathBuf, String)> {
    let name = path.file_name()?.to_str()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if let Some(i) = name.rfind(".blktrace.") {
        let tail = &name[i + ".blktrace.".len()..];
        if !tail.is_empty() && tail.bytes().all(|c| c.is_ascii_digit()) {
            return Some((dir, name[..i + ".blktrace.".len()].to_string()));
        }
    }
    if !path.exists() {
        let base = name.strip_suffix(".blktrace").unwrap_or(name);
        let prefix = format!("{base}.blktrace.");
        if dir.join(format!("{prefix}0")).exists() {
            return Some((dir, prefix));
        }
    }
    None
}

/// A file path that names a blktrace set without existing itself (`NAME` for
/// `NAME.blktrace.*`).
pub(crate) fn names_a_set(path: &Path) -> bool {
    !path.exists() && per_cpu_prefix(path).is_some()
}

/// One per-CPU file being read.
struct CpuFile {
    name: String,
    src: Box<dyn Read + Send>,
    little: Option<bool>,
    /// Byte offset of the next record (for errors).
    at: u64,
}

/// One decoded event.
#[derive(Clone, Copy)]
struct Event {
    /// Byte offset of its record in its file (for errors).
    at: u64,
    time: u64,
    sequence: u32,
    sector: u64,
    bytes: u32,
    action: u32,
    device: u32,
}

impl CpuFile {
    /// The next event, `None` at a clean end of file.
    fn next_event(&mut self) -> Result<Option<Event>, TraceError> {
        let mut b = [0u8; RECORD_BYTES];
        match read_full(&mut self.src, &mut b) {
            Ok(0) => return Ok(None),
            Ok(n) if n < RECORD_BYTES => {
                return Err(self.bad(format!(
                    "the file ends inside a record ({n} of {RECORD_BYTES} bytes; truncated?)"
                )))
            }
            Ok(_) => {}
            Err(e) => return Err(self.bad(format!("read error: {e}"))),
        }
        let w: [u8; 4] = [b[0], b[1], b[2], b[3]];
        let little = match (self.little, blktrace_endianness(w)) {
            (None, Some(l)) => {
                self.little = Some(l);
                l
            }
            (Some(l), Some(m)) if l == m => l,
            _ => {
                return Err(self.bad(format!(
                    "bad magic {:02x}{:02x}{:02x}{:02x} (expected blktrace's 0x656174 with version 6 or 7; \
                     corrupt file, or not blktrace output)",
                    b[0], b[1], b[2], b[3]
                )))
            }
        };
        let u32at = |o: usize| {
            let x = [b[o], b[o + 1], b[o + 2], b[o + 3]];
            if little {
                u32::from_le_bytes(x)
            } else {
                u32::from_be_bytes(x)
            }
        };
        let u64at = |o: usize| {
            let x: [u8; 8] = b[o..o + 8].try_into().unwrap_or([0; 8]);
            if little {
                u64::from_le_bytes(x)
            } else {
                u64::from_be_bytes(x)
            }
        };
        let pdu = if little {
            u16::from_le_bytes([b[46], b[47]])
        } else {
            u16::from_be_bytes([b[46], b[47]])
        };
        let e = Event {
            at: self.at,
            sequence: u32at(4),
            time: u64at(8),
            sector: u64at(16),
            bytes: u32at(24),
            action: u32at(28),
            device: u32at(36),
        };
        if pdu > 0 {
            let mut skip = (&mut self.src).take(pdu as u64);
            match io::copy(&mut skip, &mut io::sink()) {
                Ok(n) if n == pdu as u64 => {}
                _ => {
                    return Err(self.bad(format!(
                        "the file ends inside a record's {pdu}-byte payload (truncated?)"
                    )))
                }
            }
        }
        self.at += (RECORD_BYTES + pdu as usize) as u64;
        Ok(Some(e))
    }

    fn bad(&self, message: String) -> TraceError {
        bad_record(&self.name, self.at, message)
    }
}

/// The error about the record at byte `at` of per-CPU file `name`.
fn bad_record(name: &str, at: u64, message: String) -> TraceError {
    TraceError::Blktrace {
        file: name.to_string(),
        message: format!("record at byte {at}: {message}"),
    }
}

/// Reads until `b` is full or the stream ends; the number of bytes read.
fn read_full(r: &mut dyn Read, b: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < b.len() {
        match r.read(&mut b[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// blktrace binary output, one or several per-CPU files merged by time.
pub struct BlktraceSource {
    inputs: Vec<TraceInput>,
    file: String,
    files: Vec<CpuFile>,
    /// The next event of each file, by (time, file index, sequence).
    heap: BinaryHeap<Reverse<(u64, usize, u32, u64)>>,
    pending: Vec<Option<Event>>,
    events: BlkEvents,
    format: Format,
    diag: Diagnostics,
    first_pass: Option<Diagnostics>,
    last_time: Option<u64>,
}

impl BlktraceSource {
    /// Opens the per-CPU files of `input` (see [`cpu_files`]); `events` selects the
    /// actions that become requests.
    pub(crate) fn open(input: &TraceInput, events: BlkEvents) -> Result<Self, TraceError> {
        let inputs: Vec<TraceInput> = match input {
            TraceInput::File(p) => cpu_files(p).into_iter().map(TraceInput::File).collect(),
            m => vec![m.clone()],
        };
        let mut s = BlktraceSource {
            file: input.name(),
            inputs,
            files: Vec::new(),
            heap: BinaryHeap::new(),
            pending: Vec::new(),
            events,
            format: Format::Blkparse(events),
            diag: Diagnostics::default(),
            first_pass: None,
            last_time: None,
        };
        s.start()?;
        Ok(s)
    }

    /// Opens every file and reads its first event.
    fn start(&mut self) -> Result<(), TraceError> {
        self.files.clear();
        self.heap.clear();
        self.pending.clear();
        for inp in &self.inputs {
            let src: Box<dyn Read + Send> = match inp {
                TraceInput::File(p) => {
                    let f = crate::input::open_file(p)
                        .map_err(|e| crate::input::io_err(&inp.name(), 0, &e))?;
                    Box::new(BufReader::with_capacity(1 << 18, f))
                }
                TraceInput::Memory { data, .. } => {
                    Box::new(io::Cursor::new(SharedBytes(data.clone())))
                }
            };
            self.files.push(CpuFile {
                name: inp.name(),
                src,
                little: None,
                at: 0,
            });
        }
        for i in 0..self.files.len() {
            self.pending.push(None);
            self.advance(i)?;
        }
        Ok(())
    }

    /// Reads file `i`'s next event into the merge.
    fn advance(&mut self, i: usize) -> Result<(), TraceError> {
        let e = self.files[i].next_event()?;
        if let Some(e) = e {
            self.heap
                .push(Reverse((e.time, i, e.sequence, self.files[i].at)));
        }
        self.pending[i] = e;
        Ok(())
    }

    /// The next event of the merged stream, with the index of its file.
    fn next_event(&mut self) -> Result<Option<(usize, Event)>, TraceError> {
        let Some(Reverse((_, i, _, _))) = self.heap.pop() else {
            return Ok(None);
        };
        let e = self.pending[i];
        self.advance(i)?;
        Ok(e.map(|e| (i, e)))
    }

    /// The request event `e` of file `file` stands for, `None` for events that are not
    /// requests; an error for a request beyond 2^64 bytes (as text formats refuse it,
    /// rather than saturating the offset). A request event whose action is not selected
    /// is `None` too, its letter noted for the hint of an empty trace.
    fn request(&mut self, file: usize, e: &Event) -> Result<Option<Rec>, TraceError> {
        if e.action & TC_NOTIFY != 0 {
            return Ok(None);
        }
        let code = (e.action & 0xffff & !TA_CGROUP) as usize;
        let Some(&letter) = code.checked_sub(1).and_then(|c| BLK_ACTIONS.get(c)) else {
            return Ok(None);
        };
        if !self.events.has(letter) {
            if e.bytes > 0 {
                self.diag.unselected_actions |= 1 << (letter - b'A');
            }
            return Ok(None);
        }
        let preflush = e.action & TC_FLUSH != 0;
        let op = if e.action & TC_DISCARD != 0 {
            Op::Trim
        } else if e.action & TC_WRITE != 0 {
            Op::Write
        } else if e.bytes > 0 {
            Op::Read
        } else if preflush {
            Op::Flush // blkparse's `FN`
        } else {
            return Ok(None); // blkparse's `N`: no data, no flush
        };
        let volume = ((e.device >> 20) as u64) << 32 | (e.device & 0xf_ffff) as u64;
        if op == Op::Flush || (preflush && e.bytes == 0) {
            // An empty preflush write (`FWS 0 + 0`, what fsync queues) is a flush alone.
            return Ok(Some(crate::format::flush_rec(e.time, volume)));
        }
        let Some(offset) = e.sector.checked_mul(512) else {
            return Err(bad_record(
                &self.files[file].name,
                e.at,
                format!(
                    "sector {} is beyond 2^64 bytes (sectors are 512 bytes)",
                    e.sector
                ),
            ));
        };
        Ok(Some(Rec {
            time_ns: e.time,
            op,
            offset,
            len: e.bytes as u64,
            volume,
            content: 0,
            fua: e.action & TC_FUA != 0 && op == Op::Write,
            preflush,
            cont: false,
        }))
    }
}

impl RecordSource for BlktraceSource {
    fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        loop {
            let Some((i, e)) = self.next_event()? else {
                return Ok(None);
            };
            self.diag.lines += 1;
            let Some(mut rec) = self.request(i, &e)? else {
                self.diag.ignored_lines += 1;
                continue;
            };
            if rec.len == 0 && rec.op != Op::Flush {
                self.diag.zero_length += 1;
                continue;
            }
            if let Some(prev) = self.last_time {
                if rec.time_ns < prev {
                    self.diag.time_backwards += 1;
                    self.diag.max_step_back_ns = self.diag.max_step_back_ns.max(prev - rec.time_ns);
                    rec.time_ns = prev;
                }
            }
            self.last_time = Some(rec.time_ns);
            if rec.op == Op::Flush {
                self.diag.flushes += 1;
            } else {
                self.diag.requests += 1;
            }
            return Ok(Some(Record {
                rec,
                line: self.diag.lines,
            }));
        }
    }

    fn rewind(&mut self) -> Result<(), TraceError> {
        if self.first_pass.is_none() {
            self.first_pass = Some(self.diag.clone());
        }
        self.diag = Diagnostics::default();
        self.last_time = None;
        self.start()
    }

    fn format(&self) -> &Format {
        &self.format
    }

    fn volume_kind(&self) -> VolumeKind {
        VolumeKind::MajMin
    }

    fn volume_name(&self, key: u64) -> String {
        VolumeKind::MajMin.name_of(key)
    }

    fn diagnostics(&self) -> &Diagnostics {
        self.first_pass.as_ref().unwrap_or(&self.diag)
    }

    fn file(&self) -> &str {
        &self.file
    }
}
