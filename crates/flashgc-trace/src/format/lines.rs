//! The per-format line parsers: one method of [`LineParser`] per format family, each
//! turning the fields of one line into a [`Rec`] in common units (ns, bytes) or saying why
//! the line is not a request. Field splitting and number parsing live in `fields.rs`.

use super::fields::{eq_ic, parse_hash, parse_uint, LineParser};
use super::generic::GenericSpec;
use super::{fnv1a, BlkEvents, Parsed, Rec};
use crate::error::FieldError;
use flashgc_core::workload::Op;

/// The header line some MSR Cambridge copies start with:
/// `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` (any case and spacing).
pub(super) fn is_msr_header(line: &[u8]) -> bool {
    let norm: Vec<u8> = line
        .iter()
        .filter(|c| !c.is_ascii_whitespace())
        .map(u8::to_ascii_lowercase)
        .collect();
    norm.starts_with(b"timestamp,hostname,disknumber,type,offset,size")
}

/// A flush at `time_ns` on `volume`: no data.
pub(crate) fn flush_rec(time_ns: u64, volume: u64) -> Rec {
    Rec {
        time_ns,
        op: Op::Flush,
        offset: 0,
        len: 0,
        volume,
        content: 0,
        fua: false,
        preflush: false,
        cont: false,
    }
}

/// The request of a blkparse RWBS field as (op, FUA, preflush), as blkparse 1.3 prints
/// it (`fill_rwbs` in blkparse_fmt.c, from the kernel's `BLK_TC_*` categories): `F`
/// (`BLK_TC_FLUSH`, preflush), then `D` discard, `W` write, `R` read or `N` no data, then
/// `F` (`BLK_TC_FUA`), `A`, `S`, `M`. `FN` is a flush ([`Op::Flush`]); `N` alone is no
/// request (None). Without an `F`, the op is read as before flushes were (a `D`, else a
/// `W`, else an `R` anywhere in the field), so odd fields keep their meaning.
pub(super) fn rwbs_request(rwbs: &[u8]) -> Option<(Op, bool, bool)> {
    let preflush = rwbs.first() == Some(&b'F');
    let rest = if preflush { &rwbs[1..] } else { rwbs };
    let fua = rest.get(1) == Some(&b'F');
    if preflush || fua {
        let op = match rest.first() {
            Some(b'D') => Op::Trim,
            Some(b'W') => Op::Write,
            Some(b'R') => Op::Read,
            _ if preflush => Op::Flush,
            _ => return None,
        };
        return Some((op, fua, preflush));
    }
    let op = if rwbs.contains(&b'D') {
        Op::Trim
    } else if rwbs.contains(&b'W') {
        Op::Write
    } else if rwbs.contains(&b'R') {
        Op::Read
    } else {
        return None;
    };
    Some((op, false, false))
}

impl LineParser {
    /// MSR Cambridge CSV: FILETIME ticks, host and disk naming the volume, bytes.
    #[inline(always)]
    pub(super) fn msr(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        // Some copies of the MSR traces carry a header line (SNIA's column names).
        if self.lines == 1 && is_msr_header(line) {
            return Ok(Parsed::Blank);
        }
        let time_ns = self.scaled(line, 0, "timestamp", "100 ns Windows FILETIME ticks", 100)?;
        let t = self.get(line, 3, "type")?;
        let op = if eq_ic(t, b"Write") {
            Op::Write
        } else if eq_ic(t, b"Read") {
            Op::Read
        } else {
            return Err(FieldError::new(3, "type", "`Read` or `Write`"));
        };
        let offset = self.uint(line, 4, "offset", "bytes")?;
        let len = self.length(line, 5, "size", "bytes", 1)?;
        let host = self.get(line, 1, "hostname")?;
        let disk = self.get(line, 2, "disknumber")?;
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &c in host.iter().chain(b"_".iter()).chain(disk.iter()) {
            h ^= c as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume: h,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }

    /// FIU: ns, 512 B sectors, `major,minor` volume, optional MD5 content hash.
    #[inline(always)]
    pub(super) fn fiu(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        if self.n != 8 && self.n != 9 {
            return Err(FieldError::new(
                usize::MAX,
                "line",
                format!("8 fields, or 9 with the MD5 (ts pid process lba size R|W major minor [md5]); found {}", self.n),
            ));
        }
        let time_ns = self.time(line, 0, 1, "ns")?;
        let offset = self.scaled(line, 3, "lba", "512 B sectors", 512)?;
        let len = self.length(line, 4, "size", "512 B sectors", 512)?;
        let op = match self.get(line, 5, "op")? {
            b"W" | b"w" => Op::Write,
            b"R" | b"r" => Op::Read,
            _ => return Err(FieldError::new(5, "op", "`R` or `W`")),
        };
        let maj = self.uint(line, 6, "major", "device major number")?;
        let min = self.uint(line, 7, "minor", "device minor number")?;
        let content = if self.n == 9 {
            parse_hash(self.get(line, 8, "md5")?)
                .ok_or_else(|| FieldError::new(8, "md5", "a 32-digit hexadecimal MD5"))?
        } else {
            0
        };
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume: (maj << 32) | (min & 0xffff_ffff),
            content,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }

    /// Alibaba block traces: device id, R/W, bytes, microseconds.
    #[inline(always)]
    pub(super) fn alibaba(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let volume = self.uint(line, 0, "device_id", "volume number")?;
        let op = match self.get(line, 1, "opcode")? {
            b"W" | b"w" => Op::Write,
            b"R" | b"r" => Op::Read,
            _ => return Err(FieldError::new(1, "opcode", "`R` or `W`")),
        };
        let offset = self.uint(line, 2, "offset", "bytes")?;
        let len = self.length(line, 3, "length", "bytes", 1)?;
        let time_ns = self.time(line, 4, 1_000, "microseconds")?;
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }

    /// Tencent CBS: Unix seconds, 512 B sectors, 0/1 op code, volume id.
    #[inline(always)]
    pub(super) fn tencent(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let time_ns = self.time(line, 0, 1_000_000_000, "Unix seconds")?;
        let offset = self.scaled(line, 1, "offset", "512 B sectors", 512)?;
        let len = self.length(line, 2, "size", "512 B sectors", 512)?;
        let op = match self.get(line, 3, "iotype")? {
            b"1" => Op::Write,
            b"0" => Op::Read,
            _ => return Err(FieldError::new(3, "iotype", "`0` (read) or `1` (write)")),
        };
        let volume = self.uint(line, 4, "volume", "volume id")?;
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }

    /// SPC / UMass: ASU, 512 B sector LBA, byte size, r/w, seconds.
    #[inline(always)]
    pub(super) fn spc(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let volume = self.uint(line, 0, "asu", "application storage unit number")?;
        let offset = self.scaled(line, 1, "lba", "512 B sectors", 512)?;
        let len = self.length(line, 2, "size", "bytes", 1)?;
        let op = match self.get(line, 3, "opcode")? {
            b"W" | b"w" => Op::Write,
            b"R" | b"r" => Op::Read,
            _ => return Err(FieldError::new(3, "opcode", "`r` or `w`")),
        };
        let time_ns = self.time(line, 4, 1_000_000_000, "seconds")?;
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }

    /// Systor'17: header line, Unix seconds, R/W, LUN, bytes.
    #[inline(always)]
    pub(super) fn systor(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        if self.lines == 1 && line.starts_with(b"Timestamp") {
            return Ok(Parsed::Blank);
        }
        let time_ns = self.time(line, 0, 1_000_000_000, "Unix seconds")?;
        let t = self.get(line, 2, "iotype")?;
        let op = match t.first() {
            Some(b'W') | Some(b'w') => Op::Write,
            Some(b'R') | Some(b'r') => Op::Read,
            _ => return Err(FieldError::new(2, "iotype", "`R` or `W`")),
        };
        let volume = self.uint(line, 3, "lun", "LUN number")?;
        let offset = self.uint(line, 4, "offset", "bytes")?;
        let len = self.length(line, 5, "size", "bytes", 1)?;
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }

    /// MQSim and SSDSim ASCII: ns, device, 512 B sectors, 0 = write, 1 = read.
    #[inline(always)]
    pub(super) fn mqsim(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let time_ns = self.time(line, 0, 1, "ns")?;
        let volume = self.uint(line, 1, "device", "device number")?;
        let offset = self.scaled(line, 2, "lba", "512 B sectors", 512)?;
        let len = self.length(line, 3, "size", "512 B sectors", 512)?;
        // Both simulators: 0 = write, 1 = read (MQSim's `Trace_Type`, SSDSim's `ope`).
        let op = match self.get(line, 4, "type")? {
            b"0" => Op::Write,
            b"1" => Op::Read,
            _ => return Err(FieldError::new(4, "type", "`0` (write) or `1` (read)")),
        };
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }

    /// DiskSim ASCII: ms, devno, 512 B sectors, flags bit 0 = read.
    #[inline(always)]
    pub(super) fn disksim(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let time_ns = self.time(line, 0, 1_000_000, "milliseconds")?;
        let volume = self.uint(line, 1, "devno", "device number")?;
        let offset = self.scaled(line, 2, "blkno", "512 B sectors", 512)?;
        let len = self.length(line, 3, "size", "512 B sectors", 512)?;
        let flags = self.uint(line, 4, "flags", "DiskSim flags, bit 0 = read")?;
        let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }

    /// MiDAS simulator input: seconds, type 0-3, 4 KiB page LBA, bytes.
    #[inline(always)]
    pub(super) fn midas(&self, line: &[u8], first: usize) -> Result<Parsed, FieldError> {
        if line[first..].starts_with(b"LOAD_END") {
            return Ok(Parsed::Ignored);
        }
        if self.n != 4 {
            return Err(FieldError::new(
                usize::MAX,
                "line",
                format!("4 fields (timestamp type lba size); found {}", self.n),
            ));
        }
        let time_ns = self.time(line, 0, 1_000_000_000, "seconds")?;
        let op = match self.get(line, 1, "type")? {
            b"0" => Op::Read,
            b"1" => Op::Write,
            b"2" => return Ok(Parsed::Ignored),
            b"3" => Op::Trim,
            _ => {
                return Err(FieldError::new(
                    1,
                    "type",
                    "`0` (read), `1` (write), `2` (other) or `3` (trim)",
                ))
            }
        };
        let offset = self.scaled(line, 2, "lba", "4 KiB pages", 4096)?;
        let len = self.length(line, 3, "size", "bytes", 1)?;
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume: 0,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }

    /// fio iolog v2 (clock from `wait` actions) and v3 (µs timestamps).
    #[inline(always)]
    pub(super) fn fio(&mut self, line: &[u8], v3: bool) -> Result<Parsed, FieldError> {
        if self.lines == 1 && line.starts_with(b"fio version") {
            let want: &[u8] = if v3 {
                b"fio version 3 iolog"
            } else {
                b"fio version 2 iolog"
            };
            if line.trim_ascii_end() != want {
                return Err(FieldError::new(
                    usize::MAX,
                    "header",
                    format!(
                        "`{}` (the header of this iolog version)",
                        String::from_utf8_lossy(want)
                    ),
                ));
            }
            return Ok(Parsed::Blank);
        }
        let b = if v3 { 1 } else { 0 };
        let time_ns = if v3 {
            // fio 3.31+ write `utime_since_now` of the log's start and replay the
            // differences as microsecond delays (iolog.c `log_io_u`, `iolog_delay`).
            self.time(line, 0, 1_000, "microseconds")?
        } else {
            self.fio_clock
        };
        let file = self.get(line, b, "filename")?;
        let volume = fnv1a(file);
        let act = self.get(line, b + 1, "action")?;
        let op = match act {
            b"read" => Op::Read,
            b"write" => Op::Write,
            b"trim" => Op::Trim,
            b"add" | b"open" | b"close" => return Ok(Parsed::Ignored),
            // fio's `sync` (fsync) and `datasync` (fdatasync): a flush of the device's
            // cache (the file system's metadata writes of an fsync are not in the log).
            // fio 3.33 writes them as `FILE sync OFFSET 0` (the offset of the last I/O).
            b"sync" | b"datasync" => {
                if self.n > b + 2 {
                    self.uint(line, b + 2, "offset", "bytes")?;
                }
                if self.n > b + 3 && self.uint(line, b + 3, "length", "bytes")? != 0 {
                    return Err(FieldError::new(
                        b + 3,
                        "length",
                        "0: a flush (`sync` / `datasync`) carries no data",
                    ));
                }
                return Ok(Parsed::Rec(flush_rec(time_ns, volume)));
            }
            b"wait" => {
                let us = self.uint(line, b + 2, "delay", "microseconds")?;
                if !v3 {
                    // Saturating, the clock stopped at 2^64 ns and every later request
                    // replayed at that one instant.
                    self.fio_clock = us
                        .checked_mul(1000)
                        .and_then(|ns| self.fio_clock.checked_add(ns))
                        .ok_or_else(|| {
                            FieldError::new(
                                b + 2,
                                "delay",
                                "a delay that keeps the log's clock (the waits summed) below \
                                 2^64 ns, about 584 years",
                            )
                        })?;
                }
                return Ok(Parsed::Ignored);
            }
            _ => {
                return Err(FieldError::new(
                    b + 1,
                    "action",
                    "one of read, write, trim, wait, add, open, close, sync, datasync",
                ))
            }
        };
        let offset = self.uint(line, b + 2, "offset", "bytes")?;
        let len = self.length(line, b + 3, "length", "bytes", 1)?;
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }

    /// blkparse default text output: the selected actions become requests.
    #[inline(always)]
    pub(super) fn blkparse(&self, line: &[u8], ev: BlkEvents) -> Result<Parsed, FieldError> {
        // Event lines start with `maj,min`; everything else (per-CPU summaries) is not an event.
        let dev = self.get(line, 0, "device")?;
        let Some(c) = memchr::memchr(b',', dev) else {
            return Ok(Parsed::Ignored);
        };
        let (Some(maj), Some(min)) = (parse_uint(&dev[..c]), parse_uint(&dev[c + 1..])) else {
            return Ok(Parsed::Ignored);
        };
        if self.n < 7 {
            return Ok(Parsed::Ignored);
        }
        let act = self.get(line, 5, "action")?;
        if act.len() != 1 {
            return Ok(Parsed::Ignored);
        }
        let rwbs = self.get(line, 6, "rwbs")?;
        let Some((op, fua, preflush)) = rwbs_request(rwbs) else {
            // Data-less requests that are not flushes (`N`).
            return Ok(Parsed::Ignored);
        };
        if !ev.has(act[0]) {
            return Ok(if act[0].is_ascii_uppercase() {
                Parsed::Unselected(act[0])
            } else {
                Parsed::Ignored
            });
        }
        let volume = (maj << 32) | (min & 0xffff_ffff);
        // `C WS 1950885322 [0]`: blkparse prints no `+ N` for an event without data (the
        // flush half of a sync write's completion, or a flush `FN`): a zero-length
        // request, counted, unless it is a flush.
        let no_size =
            (self.n >= 8 && self.n < 10 || (self.n >= 10 && self.get(line, 8, "+")? != b"+")) && {
                let next = self.get(line, 8.min(self.n - 1), "+")?;
                self.n == 8 || next.first() == Some(&b'[')
            };
        if no_size || (self.n == 7 && op == Op::Flush) {
            let time_ns = self.time(line, 3, 1_000_000_000, "seconds")?;
            if op == Op::Flush || preflush {
                return Ok(Parsed::Rec(flush_rec(time_ns, volume)));
            }
            let offset = self.scaled(line, 7, "sector", "512 B sectors", 512)?;
            return Ok(Parsed::Rec(Rec {
                time_ns,
                op,
                offset,
                len: 0,
                volume,
                content: 0,
                fua: false,
                preflush: false,
                cont: false,
            }));
        }
        if self.n < 10 || self.get(line, 8, "+")? != b"+" {
            return Err(FieldError::new(
                7.min(self.n.saturating_sub(1)),
                "sector",
                "`SECTOR + NSECTORS` after the RWBS field",
            ));
        }
        let time_ns = self.time(line, 3, 1_000_000_000, "seconds")?;
        let offset = self.scaled(line, 7, "sector", "512 B sectors", 512)?;
        let len = self.length(line, 9, "nsectors", "512 B sectors", 512)?;
        if op == Op::Flush && len > 0 {
            return Err(FieldError::new(
                9,
                "nsectors",
                "0 sectors: a flush (RWBS `FN`) carries no data",
            ));
        }
        if op == Op::Flush || (preflush && len == 0) {
            // `Q FWS 0 + 0`: an empty preflush bio (what fsync sends) is a flush alone.
            return Ok(Parsed::Rec(flush_rec(time_ns, volume)));
        }
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume,
            content: 0,
            fua: fua && op == Op::Write,
            preflush,
            cont: false,
        }))
    }

    /// The generic column map.
    #[inline(always)]
    pub(super) fn generic(&self, line: &[u8], g: &GenericSpec) -> Result<Parsed, FieldError> {
        if self.lines <= g.header {
            return Ok(Parsed::Blank);
        }
        for (c, vals) in &g.keep {
            let t = self.get(line, *c, "keep")?;
            if !vals.iter().any(|v| v.as_slice() == t) {
                return Ok(Parsed::Ignored);
            }
        }
        let time_ns = match g.ts {
            Some(i) => self.time(line, i, g.ts_unit_ns, "trace time units")?,
            None => 0,
        };
        let t = self.get(line, g.op, "op")?;
        let is = |set: &Vec<Vec<u8>>| set.iter().any(|v| eq_ic(v, t));
        let op = if is(&g.write) {
            Op::Write
        } else if is(&g.trim) {
            Op::Trim
        } else if g.read.is_empty() || is(&g.read) {
            Op::Read
        } else {
            let list = |s: &Vec<Vec<u8>>| {
                s.iter()
                    .map(|v| String::from_utf8_lossy(v).into_owned())
                    .collect::<Vec<_>>()
                    .join("|")
            };
            return Err(FieldError::new(
                g.op,
                "op",
                format!(
                    "write={}, read={}{}",
                    list(&g.write),
                    list(&g.read),
                    if g.trim.is_empty() {
                        String::new()
                    } else {
                        format!(", trim={}", list(&g.trim))
                    }
                ),
            ));
        };
        let offset = self.scaled(line, g.offset, "offset", "offset_unit", g.offset_unit)?;
        let len = self.length(line, g.size, "size", "size_unit", g.size_unit)?;
        let volume = match g.volume {
            Some(i) => fnv1a(self.get(line, i, "volume")?),
            None => 0,
        };
        let content = match g.hash {
            Some(i) => parse_hash(self.get(line, i, "hash")?)
                .ok_or_else(|| FieldError::new(i, "hash", "at least 16 hexadecimal digits"))?,
            None => 0,
        };
        Ok(Parsed::Rec(Rec {
            time_ns,
            op,
            offset,
            len,
            volume,
            content,
            fua: false,
            preflush: false,
            cont: false,
        }))
    }
}
