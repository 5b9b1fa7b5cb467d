//! The `.fgt` binary trace format (versions 1 and 2): fixed-size little-endian records
//! behind a 64-byte header, a volume-name table at the end, and a CRC-32 over everything
//! after the header. Read memory-mapped. The layout is documented in `docs/traces.md`.
//! Version 2 adds flush records (op 3) and a record flags byte (FUA, preflush); writers
//! write it only for traces that have them, so a trace without flushes converts to the
//! same version 1 bytes as before.

use crate::error::TraceError;
use crate::format::{Format, Rec, VolumeKind};
use crate::input::{TraceInput, FGT_MAGIC};
use crate::record::{Diagnostics, Record, RecordSource};
use flashgc_core::workload::Op;
use std::collections::HashMap;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The newest `.fgt` version (read, and written for traces with flushes or FUA writes).
pub const FGT_VERSION: u16 = 2;
/// The version written for traces without flushes or FUA writes (also read).
pub const FGT_VERSION_PLAIN: u16 = 1;
/// Record flags byte 23 (version 2): a write with Force Unit Access.
pub const RECORD_FUA: u8 = 1;
/// Record flags byte 23 (version 2): a flush precedes the request.
pub const RECORD_PREFLUSH: u8 = 2;
/// Record op code of a flush (version 2).
const OP_FLUSH: u8 = 3;
/// Header size in bytes.
pub const HEADER_BYTES: usize = 64;
/// Record size without content fingerprints.
pub const RECORD_BYTES: usize = 24;
/// Record size with content fingerprints.
pub const RECORD_BYTES_CONTENT: usize = 32;

const FLAG_CONTENT: u32 = 1;
/// Reserved header bytes (must be 0 in version 1): after the volume kind, and after the
/// header CRC.
const RESERVED_HEADER_A: std::ops::Range<usize> = 33..48;
const RESERVED_HEADER_B: std::ops::Range<usize> = 56..64;

fn op_code(op: Op) -> u8 {
    match op {
        Op::Read => 0,
        Op::Write => 1,
        Op::Trim => 2,
        Op::Flush => OP_FLUSH,
    }
}

/// The record flags byte of `rec` (version 2; 0 for every record of a version 1 file).
fn record_flags(rec: &Rec) -> u8 {
    (if rec.fua { RECORD_FUA } else { 0 }) | (if rec.preflush { RECORD_PREFLUSH } else { 0 })
}

/// Checks the op code, flags and length of version-`version` record `i` (1-based);
/// `None` when they are valid.
fn record_problem(version: u16, i: usize, op: u8, flags: u8, len: u32) -> Option<String> {
    if version == FGT_VERSION_PLAIN {
        return (op > 2 || len == 0)
            .then(|| format!("record {i}: op code {op} (0 read, 1 write, 2 trim), length {len}"));
    }
    if op > OP_FLUSH {
        return Some(format!(
            "record {i}: op code {op} (0 read, 1 write, 2 trim, 3 flush)"
        ));
    }
    if flags & !(RECORD_FUA | RECORD_PREFLUSH) != 0 {
        return Some(format!(
            "record {i}: flags byte 23 is {flags:#04x}; version 2 defines only bit 0 (FUA) and bit 1 (preflush)"
        ));
    }
    if op == OP_FLUSH {
        return (len != 0 || flags != 0).then(|| {
            format!("record {i}: a flush (op 3) has no data and no flags, found length {len}, flags {flags:#04x}")
        });
    }
    if len == 0 {
        return Some(format!(
            "record {i}: length 0 (only a flush, op 3, has no data)"
        ));
    }
    (flags & RECORD_FUA != 0 && op != 1)
        .then(|| format!("record {i}: FUA (flags bit 0) on op code {op}: only a write (1) has FUA"))
}

/// What a conversion wrote.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ConvertReport {
    /// Records written.
    pub records: u64,
    /// Output size in bytes.
    pub bytes: u64,
    /// Distinct volumes, i.e. entries of the file's volume table.
    pub volumes: usize,
    /// Whether records carry content fingerprints.
    pub content: bool,
    /// Diagnostics of reading the source.
    pub diagnostics: Diagnostics,
    /// The `.fgt` version written: 2 when the trace has flushes or FUA writes, else 1.
    #[serde(skip)]
    pub version: u16,
}

/// Writes every record of `src` to `out` as a `.fgt` file. `content` chooses the 32-byte
/// records that keep content fingerprints.
pub fn write_fgt(
    src: &mut dyn RecordSource,
    out: &Path,
    content: bool,
) -> Result<ConvertReport, TraceError> {
    write_fgt_until(src, out, content, &AtomicBool::new(false))
}

/// [`write_fgt`] that stops when `stop` is set: an error, and no file written.
pub fn write_fgt_until(
    src: &mut dyn RecordSource,
    out: &Path,
    content: bool,
    stop: &AtomicBool,
) -> Result<ConvertReport, TraceError> {
    let ofile = out.display().to_string();
    crate::atomic::write_atomically(out, |w| write_records(src, w, &ofile, content, stop))
}

/// [`write_fgt`] to any seekable writer (e.g. an `io::Cursor<Vec<u8>>`), starting at its
/// current position 0; `name` is used in write errors. The writer must be empty: readers
/// refuse bytes after the volume table, and this cannot truncate a longer one.
pub fn write_fgt_to<W: Write + Seek>(
    src: &mut dyn RecordSource,
    w: &mut W,
    name: &str,
    content: bool,
) -> Result<ConvertReport, TraceError> {
    write_records(src, w, name, content, &AtomicBool::new(false))
}

/// [`write_fgt_to`], stopping with an error when `stop` is set.
fn write_records<W: Write + Seek>(
    src: &mut dyn RecordSource,
    w: &mut W,
    name: &str,
    content: bool,
    stop: &AtomicBool,
) -> Result<ConvertReport, TraceError> {
    let mut fw = FgtWriter::new(w, name, content, src.volume_kind())?;
    while let Some(r) = src.next_record()? {
        fw.push(&r.rec, r.line, src.file())?;
        // A relaxed load per record costs nothing next to parsing one.
        if stop.load(Ordering::Relaxed) {
            return Err(TraceError::Io {
                file: name.to_string(),
                line: 0,
                message: format!("interrupted after {} records; nothing was written", fw.n),
            });
        }
    }
    let version = fw.version();
    let (n, bytes, volumes) = fw.finish(|k| src.volume_name(k))?;
    Ok(ConvertReport {
        records: n,
        bytes,
        volumes,
        content,
        diagnostics: src.diagnostics().clone(),
        version,
    })
}

/// A `.fgt` file written one record at a time (push style: `flashgc serve --record`
/// appends the requests it serves as they arrive). Records must come in time order;
/// [`FgtWriter::finish`] writes the volume table and the header.
pub struct FgtWriter<W: Write + Seek> {
    w: W,
    name: String,
    content: bool,
    kind: VolumeKind,
    crc: crc32fast::Hasher,
    vols: HashMap<u64, u16>,
    order: Vec<u64>,
    n: u64,
    last_time: u64,
    /// A flush or a flagged record was written: the file is version 2.
    v2: bool,
}

impl<W: Write + Seek> FgtWriter<W> {
    /// Starts a `.fgt` stream on `w` (at position 0) with records of 32 bytes when
    /// `content` (content fingerprints) or 24 bytes; `name` is used in write errors.
    pub fn new(
        mut w: W,
        name: &str,
        content: bool,
        kind: VolumeKind,
    ) -> Result<FgtWriter<W>, TraceError> {
        w.write_all(&[0u8; HEADER_BYTES])
            .map_err(|e| write_err(name, e))?;
        Ok(FgtWriter {
            w,
            name: name.to_string(),
            content,
            kind,
            crc: crc32fast::Hasher::new(),
            vols: HashMap::new(),
            order: Vec::new(),
            n: 0,
            last_time: 0,
            v2: false,
        })
    }

    /// The version the file gets: 2 once a flush or a FUA / preflush record was pushed.
    pub fn version(&self) -> u16 {
        if self.v2 {
            FGT_VERSION
        } else {
            FGT_VERSION_PLAIN
        }
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.n
    }

    /// Appends one record (`line` and `file` name its source in errors). A record earlier
    /// than the previous one is an error (readers refuse such files).
    pub fn push(&mut self, rec: &Rec, line: u64, file: &str) -> Result<(), TraceError> {
        let len = u32::try_from(rec.len).map_err(|_| TraceError::Capacity {
            file: file.to_string(),
            line,
            message: format!(
                "request of {} bytes: .fgt records hold at most 4 GiB - 1 per request",
                rec.len
            ),
        })?;
        // A request past 2^64 bytes would be written, then refused by every replay.
        if rec.offset.checked_add(rec.len.saturating_sub(1)).is_none() {
            return Err(crate::record::beyond_2_64(file, line, rec.offset, rec.len));
        }
        let flush = rec.op == Op::Flush;
        if rec.time_ns < self.last_time || (len == 0) != flush || (flush && record_flags(rec) != 0)
        {
            return Err(TraceError::Capacity {
                file: file.to_string(),
                line,
                message: format!(
                    "record at {} ns of {len} bytes after one at {} ns: .fgt records are in time order and non-empty \
                     (flushes: empty, without FUA or preflush)",
                    rec.time_ns, self.last_time
                ),
            });
        }
        self.v2 |= flush || record_flags(rec) != 0;
        self.last_time = rec.time_ns;
        let vi = match self.vols.get(&rec.volume) {
            Some(&i) => i,
            None => {
                if self.order.len() >= u16::MAX as usize {
                    return Err(TraceError::Capacity {
                        file: file.to_string(),
                        line,
                        message: "more than 65535 volumes: .fgt v1 cannot hold them; select one with --volume".into(),
                    });
                }
                let i = self.order.len() as u16;
                self.vols.insert(rec.volume, i);
                self.order.push(rec.volume);
                i
            }
        };
        let mut buf = [0u8; RECORD_BYTES_CONTENT];
        buf[0..8].copy_from_slice(&rec.time_ns.to_le_bytes());
        buf[8..16].copy_from_slice(&rec.offset.to_le_bytes());
        buf[16..20].copy_from_slice(&len.to_le_bytes());
        buf[20..22].copy_from_slice(&vi.to_le_bytes());
        buf[22] = op_code(rec.op);
        buf[23] = record_flags(rec);
        buf[24..32].copy_from_slice(&rec.content.to_le_bytes());
        let rs = self.record_bytes();
        self.crc.update(&buf[..rs]);
        self.w
            .write_all(&buf[..rs])
            .map_err(|e| write_err(&self.name, e))?;
        self.n += 1;
        Ok(())
    }

    fn record_bytes(&self) -> usize {
        if self.content {
            RECORD_BYTES_CONTENT
        } else {
            RECORD_BYTES
        }
    }

    /// Writes the volume table and the header (`volume_name` names each volume key) and
    /// flushes; returns (records, file bytes, volumes).
    pub fn finish(
        mut self,
        volume_name: impl Fn(u64) -> String,
    ) -> Result<(u64, u64, usize), TraceError> {
        let werr = |e: std::io::Error| write_err(&self.name, e);
        let rs = self.record_bytes();
        let table_offset = HEADER_BYTES as u64 + self.n * rs as u64;
        let mut table = Vec::new();
        table.extend_from_slice(&(self.order.len() as u32).to_le_bytes());
        for &k in &self.order {
            let name = volume_name(k);
            let nb = name.as_bytes();
            let nb = &nb[..nb.len().min(u16::MAX as usize)];
            table.extend_from_slice(&k.to_le_bytes());
            table.extend_from_slice(&(nb.len() as u16).to_le_bytes());
            table.extend_from_slice(nb);
        }
        self.crc.update(&table);
        self.w.write_all(&table).map_err(werr)?;
        let mut h = [0u8; HEADER_BYTES];
        h[0..8].copy_from_slice(FGT_MAGIC);
        h[8..10].copy_from_slice(&self.version().to_le_bytes());
        h[10..12].copy_from_slice(&(rs as u16).to_le_bytes());
        h[12..16].copy_from_slice(&(if self.content { FLAG_CONTENT } else { 0 }).to_le_bytes());
        h[16..24].copy_from_slice(&self.n.to_le_bytes());
        h[24..32].copy_from_slice(&table_offset.to_le_bytes());
        h[32] = self.kind.code();
        h[48..52].copy_from_slice(&self.crc.clone().finalize().to_le_bytes());
        let hcrc = crc32fast::hash(&h[0..52]);
        h[52..56].copy_from_slice(&hcrc.to_le_bytes());
        self.w.seek(SeekFrom::Start(0)).map_err(werr)?;
        self.w.write_all(&h).map_err(werr)?;
        self.w.flush().map_err(werr)?;
        Ok((self.n, table_offset + table.len() as u64, self.order.len()))
    }
}

fn write_err(name: &str, e: std::io::Error) -> TraceError {
    TraceError::Io {
        file: name.to_string(),
        line: 0,
        message: format!("cannot write: {e}"),
    }
}

/// A `.fgt` volume table: the keys by index, their names, and the byte where it ends.
type VolumeTable = (Vec<u64>, HashMap<u64, String>, usize);

/// The volume table of `map` starting at byte `o`: the keys by index, their names, and the
/// byte where the table ends. Bounds-checked, so it is safe on a file whose data checksum
/// does not hold (the caller decides which error to report first).
fn volume_table(map: &[u8], mut o: usize) -> Result<VolumeTable, String> {
    let past_end = || "volume table runs past the end of the file".to_string();
    let bytes = |o: usize, k: usize| {
        o.checked_add(k)
            .and_then(|e| map.get(o..e))
            .ok_or_else(past_end)
    };
    let b = bytes(o, 4)?;
    let nv = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
    o += 4;
    // Each entry takes at least 10 bytes: check before reserving room for them (a corrupt
    // count would otherwise ask for up to 32 GiB).
    if nv > (map.len() - o) / 10 {
        return Err(format!(
            "the volume table promises {nv} volumes, but only {} bytes follow",
            map.len() - o
        ));
    }
    let mut keys = Vec::with_capacity(nv);
    let mut names = HashMap::new();
    for _ in 0..nv {
        let b = bytes(o, 10)?;
        let k = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let l = u16::from_le_bytes([b[8], b[9]]) as usize;
        o += 10;
        names.insert(k, String::from_utf8_lossy(bytes(o, l)?).into_owned());
        o += l;
        keys.push(k);
    }
    Ok((keys, names, o))
}

/// The bytes of a `.fgt` trace: a read-only file mapping, or a buffer in memory.
enum Backing {
    Map(memmap2::Mmap),
    Memory(Arc<[u8]>),
}

impl std::ops::Deref for Backing {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        match self {
            Backing::Map(m) => m,
            Backing::Memory(b) => b,
        }
    }
}

/// A `.fgt` trace, memory-mapped (or in memory).
pub struct FgtSource {
    file: String,
    map: Backing,
    /// 1, or 2 (records may be flushes or carry flags).
    version: u16,
    count: u64,
    rs: usize,
    pos: u64,
    kind: VolumeKind,
    keys: Vec<u64>,
    names: HashMap<u64, String>,
    diag: Diagnostics,
    format: Format,
}

impl FgtSource {
    /// Opens and verifies (header, sizes, CRC-32) a `.fgt` file.
    pub fn open(path: &Path) -> Result<FgtSource, TraceError> {
        let file = path.display().to_string();
        let f = crate::input::open_file(path).map_err(|e| TraceError::Io {
            file: file.clone(),
            line: 0,
            message: e.to_string(),
        })?;
        // SAFETY: the mapping is read-only; a file truncated or rewritten by another process
        // while mapped is outside what a trace reader can defend against (documented).
        let map = unsafe { memmap2::Mmap::map(&f) }.map_err(|e| TraceError::Io {
            file: file.clone(),
            line: 0,
            message: format!("cannot map: {e}"),
        })?;
        Self::verify(file, Backing::Map(map))
    }

    /// Opens and verifies a `.fgt` trace held in memory (`name` is used in errors).
    pub fn from_memory(name: &str, data: Arc<[u8]>) -> Result<FgtSource, TraceError> {
        Self::verify(name.to_string(), Backing::Memory(data))
    }

    /// Opens a `.fgt` file or buffer.
    pub(crate) fn open_input(input: &TraceInput) -> Result<FgtSource, TraceError> {
        match input {
            TraceInput::File(p) => Self::open(p),
            TraceInput::Memory { name, data } => Self::from_memory(name, data.clone()),
        }
    }

    /// Checks the header, sizes, CRC-32 and every record of `map`.
    fn verify(file: String, map: Backing) -> Result<FgtSource, TraceError> {
        let bad = |m: String| TraceError::Binary {
            file: file.clone(),
            message: m,
        };
        if map.len() < HEADER_BYTES || &map[0..8] != FGT_MAGIC {
            return Err(bad(
                "shorter than the 64-byte header or missing the `FLASHGCT` magic".into(),
            ));
        }
        let u16at = |o: usize| u16::from_le_bytes([map[o], map[o + 1]]);
        let u32at = |o: usize| u32::from_le_bytes(map[o..o + 4].try_into().unwrap_or([0; 4]));
        let u64at = |o: usize| u64::from_le_bytes(map[o..o + 8].try_into().unwrap_or([0; 8]));
        if crc32fast::hash(&map[0..52]) != u32at(52) {
            return Err(bad("header checksum mismatch (corrupt header)".into()));
        }
        let version = u16at(8);
        if version != FGT_VERSION && version != FGT_VERSION_PLAIN {
            return Err(bad(format!(
                "version {version}; this flashgc reads versions {FGT_VERSION_PLAIN} and {FGT_VERSION}"
            )));
        }
        // Reserved bytes must be 0: a reader that ignored them could not tell a file written
        // by a future writer that gives them a meaning (or a damaged file whose header CRC
        // was recomputed) from a version 1 file.
        for range in [RESERVED_HEADER_A, RESERVED_HEADER_B] {
            if let Some(o) = range.clone().find(|&o| map[o] != 0) {
                return Err(bad(format!(
                    "header byte {o} is {:#04x}, but bytes {}..{} are reserved and must be 0",
                    map[o], range.start, range.end
                )));
            }
        }
        let rs = u16at(10) as usize;
        let flags = u32at(12);
        if flags & !FLAG_CONTENT != 0 {
            return Err(bad(format!(
                "header field `flags` (byte 12) is {flags:#x}; version {version} defines only bit 0 (content fingerprints)"
            )));
        }
        let want_rs = if flags & FLAG_CONTENT != 0 {
            RECORD_BYTES_CONTENT
        } else {
            RECORD_BYTES
        };
        if rs != want_rs {
            return Err(bad(format!(
                "record size {rs} does not match the flags (expected {want_rs})"
            )));
        }
        let count = u64at(16);
        let table = u64at(24);
        let kind = VolumeKind::from_code(map[32])
            .ok_or_else(|| bad(format!("unknown volume kind {}", map[32])))?;
        let expect_table = count
            .checked_mul(rs as u64)
            .and_then(|b| b.checked_add(HEADER_BYTES as u64))
            .ok_or_else(|| bad("record count overflows".into()))?;
        if table != expect_table || table > map.len() as u64 {
            return Err(bad(format!(
                "the header promises {count} records ending at byte {expect_table}, but the file has {} bytes (truncated?)",
                map.len()
            )));
        }
        let parsed = volume_table(&map, table as usize);
        let trailing = |end: usize| {
            format!(
                "{} trailing bytes after the volume table, which ends at byte {end} (the file has {} bytes)",
                map.len() - end,
                map.len()
            )
        };
        if crc32fast::hash(&map[HEADER_BYTES..]) != u32at(48) {
            // Bytes appended to a good file break the checksum too: say so when the checksum
            // holds up to the end of the volume table, rather than call the file corrupt.
            if let Ok((_, _, end)) = &parsed {
                if *end < map.len() && crc32fast::hash(&map[HEADER_BYTES..*end]) == u32at(48) {
                    return Err(bad(trailing(*end)));
                }
            }
            return Err(bad(
                "data checksum mismatch (corrupt or truncated file)".into()
            ));
        }
        let (keys, names, end) = parsed.map_err(bad)?;
        // The volume table is the last thing in a file: bytes after it are no part of the
        // format (e.g. a file appended to, or two files concatenated), so refuse them rather
        // than replay a trace that is not what was written.
        if end != map.len() {
            return Err(bad(trailing(end)));
        }
        // Validate every record once (op codes, volume indices, lengths, time order: the
        // writer stores text traces' times already clamped), so the replay path cannot
        // meet a bad record.
        let mut last_time = 0u64;
        let mut flushes = 0u64;
        for i in 0..count as usize {
            let o = HEADER_BYTES + i * rs;
            let b = &map[o..o + RECORD_BYTES];
            let time = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
            if time < last_time {
                return Err(bad(format!(
                    "record {}: time {time} ns is before the previous record's {last_time} ns \
                     (.fgt records are in time order)",
                    i + 1
                )));
            }
            last_time = time;
            let len = u32::from_le_bytes([b[16], b[17], b[18], b[19]]);
            let offset = u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
            if offset.checked_add(len.saturating_sub(1) as u64).is_none() {
                return Err(bad(format!(
                    "record {}: offset {offset} + length {len} ends beyond 2^64 bytes (at byte {o})",
                    i + 1
                )));
            }
            let vi = u16::from_le_bytes([b[20], b[21]]) as usize;
            if version == FGT_VERSION_PLAIN && b[23] != 0 {
                return Err(bad(format!(
                    "record {} (at byte {o}): reserved byte 23 is {:#04x}, must be 0 (version 1)",
                    i + 1,
                    b[23]
                )));
            }
            if vi >= keys.len() {
                return Err(bad(format!(
                    "record {}: volume index {vi} of {}",
                    i + 1,
                    keys.len()
                )));
            }
            if let Some(m) = record_problem(version, i + 1, b[22], b[23], len) {
                return Err(bad(format!("{m} (at byte {o})")));
            }
            flushes += (b[22] == OP_FLUSH) as u64;
        }
        let diag = Diagnostics {
            lines: count,
            requests: count - flushes,
            flushes,
            ..Diagnostics::default()
        };
        Ok(FgtSource {
            file,
            map,
            version,
            count,
            rs,
            pos: 0,
            kind,
            keys,
            names,
            diag,
            format: Format::Fgt,
        })
    }

    /// The next record; records were validated at open, so this cannot fail.
    #[inline]
    pub fn next_fast(&mut self) -> Option<Record> {
        if self.pos >= self.count {
            return None;
        }
        let o = HEADER_BYTES + self.pos as usize * self.rs;
        let map: &[u8] = &self.map;
        let b = <&[u8; RECORD_BYTES]>::try_from(map.get(o..o + RECORD_BYTES)?).ok()?;
        let rd8 = |i: usize| {
            u64::from_le_bytes([
                b[i],
                b[i + 1],
                b[i + 2],
                b[i + 3],
                b[i + 4],
                b[i + 5],
                b[i + 6],
                b[i + 7],
            ])
        };
        let op = match b[22] {
            0 => Op::Read,
            1 => Op::Write,
            2 => Op::Trim,
            _ => Op::Flush,
        };
        let vi = u16::from_le_bytes([b[20], b[21]]) as usize;
        let volume = self.keys.get(vi).copied().unwrap_or(0);
        let content = if self.rs == RECORD_BYTES_CONTENT {
            map.get(o + 24..o + 32).map_or(0, |c| {
                u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
            })
        } else {
            0
        };
        self.pos += 1;
        Some(Record {
            rec: Rec {
                time_ns: rd8(0),
                op,
                offset: rd8(8),
                len: u32::from_le_bytes([b[16], b[17], b[18], b[19]]) as u64,
                volume,
                content,
                fua: b[23] & RECORD_FUA != 0,
                preflush: b[23] & RECORD_PREFLUSH != 0,
            },
            line: self.pos,
        })
    }

    /// Up to `max` unread records as raw bytes, and the record size (the replay hot loop
    /// decodes them in place; records were validated at open).
    pub(crate) fn remaining(&self, max: usize) -> (&[u8], usize) {
        let left = (self.count - self.pos).min(max as u64) as usize;
        let o = HEADER_BYTES + self.pos as usize * self.rs;
        let map: &[u8] = &self.map;
        (map.get(o..o + left * self.rs).unwrap_or(&[]), self.rs)
    }

    /// Volume keys by index.
    pub(crate) fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Records read so far (where a resumed replay continues).
    pub(crate) fn position(&self) -> u64 {
        self.pos
    }

    /// Continues at record `pos` (a resumed replay); false when the file has fewer.
    pub(crate) fn seek(&mut self, pos: u64) -> bool {
        if pos > self.count {
            return false;
        }
        self.pos = pos;
        true
    }

    /// Marks `n` records as read.
    pub(crate) fn advance(&mut self, n: usize) {
        self.pos = (self.pos + n as u64).min(self.count);
    }

    /// The file's version: 1, or 2 (flush records and record flags).
    pub fn version(&self) -> u16 {
        self.version
    }

    /// Number of records in the file (each one request).
    pub fn len(&self) -> u64 {
        self.count
    }

    /// True when the file holds no records.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes of the trace that are resident while it is replayed: the whole file (its
    /// mapping's pages are touched by the CRC check at open, and the kernel counts them in
    /// the process's resident set) or the buffer holding it.
    pub fn resident_bytes(&self) -> u64 {
        self.map.len() as u64
    }
}

impl RecordSource for FgtSource {
    #[inline]
    fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        Ok(self.next_fast())
    }

    fn rewind(&mut self) -> Result<(), TraceError> {
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
        self.names
            .get(&key)
            .cloned()
            .unwrap_or_else(|| self.kind.name_of(key))
    }

    fn diagnostics(&self) -> &Diagnostics {
        &self.diag
    }

    fn file(&self) -> &str {
        &self.file
    }
}
