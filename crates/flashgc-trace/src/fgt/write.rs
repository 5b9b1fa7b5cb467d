//! Writing `.fgt` files: a whole trace converted (`flashgc trace convert`), or a stream
//! pushed one record at a time (`flashgc serve --record`). The layout and its checks are in
//! the parent module.

use super::{
    continuation_problem, op_code, record_flags, FGT_VERSION, FGT_VERSION_FLUSH, FGT_VERSION_PLAIN,
    FLAG_CONTENT, HEADER_BYTES, RECORD_BYTES, RECORD_BYTES_CONTENT,
};
use crate::error::TraceError;
use crate::format::{Rec, VolumeKind};
use crate::input::FGT_MAGIC;
use crate::record::{Diagnostics, RecordSource};
use flashgc_core::workload::Op;
use std::collections::HashMap;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// The `.fgt` version written: 3 when the trace has continuation records, 2 when it
    /// has flushes or FUA writes, else 1.
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
    /// A flush or a flagged record was written: the file is version 2 (or 3).
    v2: bool,
    /// A continuation record was written: the file is version 3.
    v3: bool,
    /// The last record's time, op code, volume index, end byte and flags (what a
    /// continuation must follow).
    prev: Option<(u64, u8, u16, u64, u8)>,
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
            v3: false,
            prev: None,
        })
    }

    /// The version the file gets: 3 once a continuation was pushed, 2 once a flush or a
    /// FUA / preflush record was.
    pub fn version(&self) -> u16 {
        if self.v3 {
            FGT_VERSION
        } else if self.v2 {
            FGT_VERSION_FLUSH
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
        let flags = record_flags(rec);
        if rec.cont {
            if let Some(m) = continuation_problem(
                self.n as usize + 1,
                rec.time_ns,
                op_code(rec.op),
                vi,
                rec.offset,
                flags,
                self.prev,
            ) {
                return Err(TraceError::Capacity {
                    file: file.to_string(),
                    line,
                    message: m,
                });
            }
            self.v3 = true;
        }
        self.prev = Some((
            rec.time_ns,
            op_code(rec.op),
            vi,
            rec.offset.saturating_add(rec.len),
            flags,
        ));
        let mut buf = [0u8; RECORD_BYTES_CONTENT];
        buf[0..8].copy_from_slice(&rec.time_ns.to_le_bytes());
        buf[8..16].copy_from_slice(&rec.offset.to_le_bytes());
        buf[16..20].copy_from_slice(&len.to_le_bytes());
        buf[20..22].copy_from_slice(&vi.to_le_bytes());
        buf[22] = op_code(rec.op);
        buf[23] = flags;
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
