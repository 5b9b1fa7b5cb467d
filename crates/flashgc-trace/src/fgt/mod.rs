//! The `.fgt` binary trace format (versions 1 to 3): fixed-size little-endian records
//! behind a 64-byte header, a volume-name table at the end, and a CRC-32 over everything
//! after the header. Read memory-mapped. The layout is documented in `docs/traces.md`.
//! Version 2 adds flush records (op 3) and a record flags byte (FUA, preflush); version 3
//! the continuation flag (a write recorded one page per record, `flashgc serve --record`).
//! Writers write the lowest version that holds the trace, so a trace without flushes
//! converts to the same version 1 bytes as before.

use crate::error::TraceError;
use crate::format::{Format, Rec, VolumeKind};

mod write;
use crate::input::{TraceInput, FGT_MAGIC};
use crate::record::{Diagnostics, Record, RecordSource};
use flashgc_core::workload::Op;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
pub use write::{write_fgt, write_fgt_to, write_fgt_until, ConvertReport, FgtWriter};

/// The newest `.fgt` version (read, and written for traces with continuation records).
pub const FGT_VERSION: u16 = 3;
/// The version written for traces with flushes or FUA writes but no continuation records.
pub const FGT_VERSION_FLUSH: u16 = 2;
/// The version written for traces without flushes or FUA writes (also read).
pub const FGT_VERSION_PLAIN: u16 = 1;
/// Record flags byte 23 (version 2): a write with Force Unit Access.
pub const RECORD_FUA: u8 = 1;
/// Record flags byte 23 (version 2): a flush precedes the request.
pub const RECORD_PREFLUSH: u8 = 2;
/// Record flags byte 23 (version 3): this write continues the previous record's request
/// (same time, volume and FUA flag, starting where the previous write ends).
pub const RECORD_CONT: u8 = 4;
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

/// The record flags byte of `rec` (version 2 or 3; 0 for every record of a version 1 file).
fn record_flags(rec: &Rec) -> u8 {
    (if rec.fua { RECORD_FUA } else { 0 })
        | (if rec.preflush { RECORD_PREFLUSH } else { 0 })
        | (if rec.cont { RECORD_CONT } else { 0 })
}

/// Why record `i` (1-based; flags `flags`, op code `op`) cannot continue the record
/// before it (`prev`: its time, op code, volume index, end byte and flags; `None` for the
/// first record); `None` when it can.
fn continuation_problem(
    i: usize,
    time: u64,
    op: u8,
    volume: u16,
    offset: u64,
    flags: u8,
    prev: Option<(u64, u8, u16, u64, u8)>,
) -> Option<String> {
    let Some((pt, pop, pv, pend, pflags)) = prev else {
        return Some(format!(
            "record {i}: a continuation (flags bit 2) needs a write before it, but it is the first record"
        ));
    };
    if op != 1 || pop != 1 || flags & RECORD_PREFLUSH != 0 {
        return Some(format!(
            "record {i}: a continuation (flags bit 2) is a write (op 1) without preflush after a write; found op {op} after op {pop}"
        ));
    }
    if time != pt || volume != pv || offset != pend || (flags ^ pflags) & RECORD_FUA != 0 {
        return Some(format!(
            "record {i}: a continuation (flags bit 2) must have the previous write's time ({pt} ns), volume ({pv}) and FUA flag \
             and start where it ends (byte {pend}); found {time} ns, volume {volume}, byte {offset}"
        ));
    }
    None
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
    let known = if version >= FGT_VERSION {
        RECORD_FUA | RECORD_PREFLUSH | RECORD_CONT
    } else {
        RECORD_FUA | RECORD_PREFLUSH
    };
    if flags & !known != 0 {
        return Some(format!(
            "record {i}: flags byte 23 is {flags:#04x}; version {version} defines only {}",
            if version >= FGT_VERSION {
                "bit 0 (FUA), bit 1 (preflush) and bit 2 (continuation)"
            } else {
                "bit 0 (FUA) and bit 1 (preflush)"
            }
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
    /// 1, 2 (records may be flushes or carry flags) or 3 (continuation records too).
    version: u16,
    /// Continuation records in the file.
    continuations: u64,
    /// [`Self::next_fast`] joins continuation records to the request they continue.
    join: bool,
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
        if !(FGT_VERSION_PLAIN..=FGT_VERSION).contains(&version) {
            return Err(bad(format!(
                "version {version}; this flashgc reads versions {FGT_VERSION_PLAIN} to {FGT_VERSION}"
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
        let mut continuations = 0u64;
        let mut prev = None;
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
            if b[23] & RECORD_CONT != 0 {
                if let Some(m) =
                    continuation_problem(i + 1, time, b[22], vi as u16, offset, b[23], prev)
                {
                    return Err(bad(format!("{m} (at byte {o})")));
                }
                continuations += 1;
            }
            prev = Some((
                time,
                b[22],
                vi as u16,
                offset.saturating_add(len as u64),
                b[23],
            ));
            flushes += (b[22] == OP_FLUSH) as u64;
        }
        let diag = Diagnostics {
            lines: count,
            requests: count - flushes - continuations,
            flushes,
            ..Diagnostics::default()
        };
        Ok(FgtSource {
            file,
            map,
            version,
            continuations,
            join: false,
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
        let mut rec = Rec {
            time_ns: rd8(0),
            op,
            offset: rd8(8),
            len: u32::from_le_bytes([b[16], b[17], b[18], b[19]]) as u64,
            volume,
            content,
            fua: b[23] & RECORD_FUA != 0,
            preflush: b[23] & RECORD_PREFLUSH != 0,
            cont: b[23] & RECORD_CONT != 0,
        };
        if self.join && self.continuations > 0 {
            self.join_continuations(&mut rec);
        }
        Some(Record {
            rec,
            line: self.pos,
        })
    }

    /// Extends `rec` over the continuation records that follow it (validated at open:
    /// each starts where the one before ends). The joined request's pages had a
    /// fingerprint each, which one request cannot carry: its content is unknown.
    #[cold]
    fn join_continuations(&mut self, rec: &mut Rec) {
        let map: &[u8] = &self.map;
        while self.pos < self.count {
            let o = HEADER_BYTES + self.pos as usize * self.rs;
            let Some(b) = map.get(o..o + RECORD_BYTES) else {
                break;
            };
            if b[23] & RECORD_CONT == 0 {
                break;
            }
            rec.len += u32::from_le_bytes([b[16], b[17], b[18], b[19]]) as u64;
            rec.content = 0;
            self.pos += 1;
        }
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

    /// Joins continuation records to the request they continue (a replay without the
    /// FTL's content mode: the requests as the application sent them), or hands each out
    /// on its own (`false`, the default: what `trace stats`, `convert` and the content
    /// mode read).
    pub fn set_join(&mut self, join: bool) {
        self.join = join;
    }

    /// Continuation records in the file (version 3).
    pub fn continuations(&self) -> u64 {
        self.continuations
    }

    /// Marks `n` records as read.
    pub(crate) fn advance(&mut self, n: usize) {
        self.pos = (self.pos + n as u64).min(self.count);
    }

    /// The file's version: 1, 2 (flush records and record flags) or 3 (continuation
    /// records).
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
