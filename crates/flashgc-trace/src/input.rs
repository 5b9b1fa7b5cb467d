//! Opening trace files (plain, gzip, zstd: recognised by their magic bytes, not their
//! names) and splitting them into lines in constant memory.

use crate::error::TraceError;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Compression of a file, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (also concatenated members).
    Gzip,
    /// Zstandard.
    Zstd,
}

/// `BLK_IO_TRACE_MAGIC`: the high 24 bits of every blktrace record's first word.
pub const BLKTRACE_MAGIC: u32 = 0x6561_7400;

/// The byte order of a blktrace record whose first word is `w`: `Some(true)` for
/// little-endian, `Some(false)` for big-endian, `None` when it is not blktrace's magic with
/// version 6 or 7 (the versions blkparse reads).
pub(crate) fn blktrace_endianness(w: [u8; 4]) -> Option<bool> {
    let ok = |m: u32| m & 0xffff_ff00 == BLKTRACE_MAGIC && matches!(m & 0xff, 6 | 7);
    if ok(u32::from_le_bytes(w)) {
        Some(true)
    } else if ok(u32::from_be_bytes(w)) {
        Some(false)
    } else {
        None
    }
}

/// First bytes of a `.fgt` binary trace.
pub const FGT_MAGIC: &[u8; 8] = b"FLASHGCT";

/// What the first bytes of a file say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Text(Compression),
    Fgt,
    /// blktrace binary output (a per-CPU file, or a set named by its prefix).
    Blktrace,
}

/// Where a trace's bytes come from: a file (read streamed; `.fgt` memory-mapped) or a
/// buffer in memory (the same readers: compression detection, line splitting and the `.fgt`
/// reader all run on it; used by the fuzz harnesses and by callers that hold a trace in
/// memory). Errors name the file path, or the given name for a buffer.
#[derive(Debug, Clone)]
pub enum TraceInput {
    /// A file on disk.
    File(PathBuf),
    /// Bytes in memory (shared, so looped replay can rewind without copying).
    Memory {
        /// Name used in error messages in place of a file path.
        name: String,
        /// The trace's bytes, exactly as they would be stored in a file.
        data: Arc<[u8]>,
    },
}

impl TraceInput {
    /// A buffer in memory named `name` in error messages.
    pub fn memory(name: impl Into<String>, data: impl Into<Arc<[u8]>>) -> TraceInput {
        TraceInput::Memory {
            name: name.into(),
            data: data.into(),
        }
    }

    /// The name errors use: the file path, or the buffer's name.
    pub fn name(&self) -> String {
        match self {
            TraceInput::File(p) => p.display().to_string(),
            TraceInput::Memory { name, .. } => name.clone(),
        }
    }
}

impl From<&Path> for TraceInput {
    fn from(p: &Path) -> Self {
        TraceInput::File(p.to_path_buf())
    }
}

impl From<PathBuf> for TraceInput {
    fn from(p: PathBuf) -> Self {
        TraceInput::File(p)
    }
}

/// `Arc<[u8]>` as `AsRef<[u8]>` for [`io::Cursor`].
#[derive(Clone)]
pub(crate) struct SharedBytes(pub Arc<[u8]>);

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Opens a trace file through [`flashgc_core::trace_file`]: a pipe, a device or `-` is
/// read once into a temporary file that this and every later open reads.
pub(crate) fn open_file(path: &Path) -> io::Result<File> {
    flashgc_core::trace_file::open(path)
}

pub(crate) fn sniff(input: &TraceInput) -> Result<Kind, TraceError> {
    match input {
        TraceInput::File(path) => {
            let mut f = open_file(path).map_err(|e| io_err(&input.name(), 0, &e))?;
            let mut head = [0u8; 8];
            let mut n = 0;
            while n < head.len() {
                match f.read(&mut head[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(io_err(&input.name(), 0, &e)),
                }
            }
            classify(&head[..n], input)
        }
        TraceInput::Memory { data, .. } => classify(&data[..data.len().min(8)], input),
    }
}

/// What the first (up to 8) bytes `h` of a trace say.
fn classify(h: &[u8], input: &TraceInput) -> Result<Kind, TraceError> {
    if h.starts_with(FGT_MAGIC) {
        return Ok(Kind::Fgt);
    }
    if h.len() >= 4 && blktrace_endianness([h[0], h[1], h[2], h[3]]).is_some() {
        return Ok(Kind::Blktrace);
    }
    if h.starts_with(&[0x1f, 0x8b]) {
        return Ok(Kind::Text(Compression::Gzip));
    }
    if h.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        return Ok(Kind::Text(Compression::Zstd));
    }
    if h.starts_with(b"BZh") {
        return Err(TraceError::Io {
            file: input.name(),
            line: 0,
            message: "bzip2-compressed; flashgc reads plain, gzip and zstd files: recompress it \
                      (e.g. `bzcat F | zstd -o F.zst`)"
                .into(),
        });
    }
    if h.starts_with(&[0xfd, b'7', b'z', b'X', b'Z']) {
        return Err(TraceError::Io {
            file: input.name(),
            line: 0,
            message: "xz-compressed; flashgc reads plain, gzip and zstd files: recompress it \
                      (e.g. `xzcat F | zstd -o F.zst`)"
                .into(),
        });
    }
    Ok(Kind::Text(Compression::None))
}

pub(crate) fn io_err(file: &str, line: u64, e: &io::Error) -> TraceError {
    let message = match e.kind() {
        io::ErrorKind::UnexpectedEof => {
            "the compressed stream ends early (truncated file?)".to_string()
        }
        io::ErrorKind::NotFound => "no such file".to_string(),
        _ => e.to_string(),
    };
    TraceError::Io {
        file: file.to_string(),
        line,
        message,
    }
}

/// Opens `input` as a line reader, decompressing transparently. Files get the 1 MiB read
/// buffer; buffers in memory a smaller one (grown as lines need, to the same limit), so
/// opening a small in-memory trace costs little.
pub(crate) fn open_lines(input: &TraceInput, c: Compression) -> Result<LineReader, TraceError> {
    let (src, cap) = open_stream(input, c)?;
    Ok(LineReader::with_capacity(src, cap))
}

/// Opens an uncompressed `input` as a byte stream positioned `offset` bytes in.
pub(crate) fn open_at(input: &TraceInput, offset: u64) -> Result<Box<dyn Read + Send>, TraceError> {
    use std::io::Seek;
    Ok(match input {
        TraceInput::File(path) => {
            let mut f = open_file(path).map_err(|e| io_err(&input.name(), 0, &e))?;
            f.seek(io::SeekFrom::Start(offset))
                .map_err(|e| io_err(&input.name(), 0, &e))?;
            Box::new(f)
        }
        TraceInput::Memory { data, .. } => {
            let mut cur = io::Cursor::new(SharedBytes(data.clone()));
            cur.set_position(offset);
            Box::new(cur)
        }
    })
}

/// Opens `input` as a byte stream, decompressing transparently, with the line buffer size
/// that suits it.
pub(crate) fn open_stream(
    input: &TraceInput,
    c: Compression,
) -> Result<(Box<dyn Read + Send>, usize), TraceError> {
    let name = || input.name();
    Ok(match input {
        TraceInput::File(path) => {
            let f = open_file(path).map_err(|e| io_err(&name(), 0, &e))?;
            let src: Box<dyn Read + Send> = match c {
                Compression::None => Box::new(f),
                Compression::Gzip => Box::new(Decoded::gzip(flate2::read::MultiGzDecoder::new(
                    io::BufReader::with_capacity(1 << 16, f),
                ))),
                Compression::Zstd => Box::new(Decoded::zstd(
                    zstd::stream::read::Decoder::new(f).map_err(|e| io_err(&name(), 0, &e))?,
                )),
            };
            (src, MAX_LINE)
        }
        TraceInput::Memory { data, .. } => {
            let cur = io::Cursor::new(SharedBytes(data.clone()));
            match c {
                Compression::None => (Box::new(cur), data.len().saturating_add(1)),
                Compression::Gzip => (
                    Box::new(Decoded::gzip(flate2::bufread::MultiGzDecoder::new(cur))),
                    1 << 16,
                ),
                Compression::Zstd => (
                    Box::new(Decoded::zstd(
                        zstd::stream::read::Decoder::with_buffer(cur)
                            .map_err(|e| io_err(&name(), 0, &e))?,
                    )),
                    1 << 16,
                ),
            }
        }
    })
}

/// A decompressor whose stream errors say the file is not a valid stream of its format,
/// keeping the decoder's detail: zstd's own "Dictionary mismatch" for junk after the magic
/// does not say that the file is the problem.
struct Decoded<R> {
    inner: R,
    format: &'static str,
}

impl<R: Read> Decoded<R> {
    fn gzip(inner: R) -> Self {
        Decoded {
            inner,
            format: "gzip",
        }
    }

    fn zstd(inner: R) -> Self {
        Decoded {
            inner,
            format: "zstd",
        }
    }
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| match e.kind() {
            // The file's own read errors (they carry an OS code) and interruptions pass as
            // they are; a stream that ends early is worded by `io_err` ("truncated file?").
            _ if e.raw_os_error().is_some() => e,
            io::ErrorKind::Interrupted | io::ErrorKind::UnexpectedEof => e,
            _ => io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not a valid {} stream ({e})", self.format),
            ),
        })
    }
}

/// Longest accepted line; longer ones mean the file is not a text trace.
const MAX_LINE: usize = 1 << 20;

/// The UTF-8 byte-order mark, skipped at the start of a text trace.
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Splits a byte stream into lines (`\n` or `\r\n`), reading 1 MiB at a time.
pub(crate) struct LineReader {
    src: Box<dyn Read + Send>,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// Number of the line returned last (1-based).
    pub line_no: u64,
    /// Bytes of the stream up to the end of the line returned last, terminator included
    /// (where a resumed replay of an uncompressed trace starts reading again).
    pub consumed: u64,
    /// Offset in the stream of `buf[0]`: 0 while the buffer still holds the stream from
    /// its start (then, once at its end, the whole stream is in memory).
    base: u64,
}

impl LineReader {
    /// A reader whose buffer starts at `cap` bytes rounded up to a power of two (4 KiB to
    /// 1 MiB), so doubling it meets [`MAX_LINE`] exactly and the line limit stays the same.
    pub fn with_capacity(src: Box<dyn Read + Send>, cap: usize) -> Self {
        let cap = cap.clamp(1 << 12, MAX_LINE).next_power_of_two();
        LineReader {
            src,
            buf: vec![0; cap],
            pos: 0,
            end: 0,
            eof: false,
            line_no: 0,
            consumed: 0,
            base: 0,
        }
    }

    /// Starts over at line 1 without reading the stream again when the buffer holds all
    /// of it (a trace of up to 1 MiB read to its end); false (nothing changed) otherwise.
    /// A short trace looped a million times then costs no open, read or close per pass.
    pub fn rewind_in_buffer(&mut self) -> bool {
        if !(self.eof && self.base == 0) {
            return false;
        }
        self.pos = 0;
        self.line_no = 0;
        self.consumed = 0;
        true
    }

    /// Starts over on `src` (a reopened stream), keeping the buffer: looping a short
    /// trace many times then costs no allocation per pass.
    pub fn restart(&mut self, src: Box<dyn Read + Send>) {
        self.restart_at(src, 0, 0);
    }

    /// Starts over on `src`, a stream positioned `consumed` bytes in, just after line
    /// `line_no` (a resumed replay).
    pub fn restart_at(&mut self, src: Box<dyn Read + Send>, consumed: u64, line_no: u64) {
        self.src = src;
        self.pos = 0;
        self.end = 0;
        self.eof = false;
        self.line_no = line_no;
        self.consumed = consumed;
        self.base = consumed;
    }

    /// The next line without its terminator, or `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, &[u8])>> {
        let (s, e) = loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.pos..self.end]) {
                let s = self.pos;
                self.pos += i + 1;
                break (s, s + i);
            }
            if self.eof {
                if self.pos < self.end {
                    let s = self.pos;
                    self.pos = self.end;
                    break (s, self.end);
                }
                return Ok(None);
            }
            // Moved to the front only when the buffer is full: a stream that fits stays
            // whole from its start (see `rewind_in_buffer`).
            if self.end == self.buf.len() && self.pos > 0 {
                self.buf.copy_within(self.pos..self.end, 0);
                self.end -= self.pos;
                self.base += self.pos as u64;
                self.pos = 0;
            }
            if self.end == self.buf.len() {
                if self.buf.len() >= MAX_LINE {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "line {} is longer than {} bytes: this is not a text trace",
                            self.line_no + 1,
                            MAX_LINE
                        ),
                    ));
                }
                self.buf.resize(self.buf.len() * 2, 0);
            }
            loop {
                match self.src.read(&mut self.buf[self.end..]) {
                    Ok(0) => {
                        self.eof = true;
                        break;
                    }
                    Ok(n) => {
                        self.end += n;
                        break;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            }
        };
        // A UTF-8 byte-order mark (Windows tools write one) is no part of the first
        // line's first field; `consumed` still counts it, as it stays a file offset.
        let at_start = self.line_no == 0 && self.consumed == 0;
        self.line_no += 1;
        self.consumed += (self.pos - s) as u64;
        let s = if at_start && self.buf[s..e].starts_with(UTF8_BOM) {
            s + UTF8_BOM.len()
        } else {
            s
        };
        let e = if e > s && self.buf[e - 1] == b'\r' {
            e - 1
        } else {
            e
        };
        Ok(Some((self.line_no, &self.buf[s..e])))
    }
}

#[cfg(test)]
mod tests {
    use super::TraceInput;

    /// The error opening `data` (named `name`) as a trace, format detected.
    fn open_err(name: &str, data: Vec<u8>) -> String {
        crate::open_input(&TraceInput::memory(name, data), None, None, false)
            .err()
            .expect("refused")
            .to_string()
    }

    #[test]
    fn corrupt_compressed_streams_say_which_format_is_bad() {
        // zstd's magic then junk said only "bad.zst: Dictionary mismatch".
        let e = open_err("bad.zst", b"\x28\xb5\x2f\xfdgarbage".to_vec());
        assert_eq!(e, "bad.zst: not a valid zstd stream (Dictionary mismatch)");
        // A gzip member whose first deflate block has the reserved type 3.
        let mut gz = Vec::new();
        std::io::Write::write_all(
            &mut flate2::write::GzEncoder::new(&mut gz, flate2::Compression::default()),
            b"0,hm,0,Write,0,4096,100\n",
        )
        .unwrap();
        gz[10] = 0b111;
        let e = open_err("bad.gz", gz);
        assert!(e.starts_with("bad.gz: not a valid gzip stream ("), "{e}");
        // A truncated stream keeps its own message.
        let z = zstd::encode_all(&b"0,hm,0,Write,0,4096,100\n".repeat(1000)[..], 3).unwrap();
        let e = open_err("cut.zst", z[..z.len() / 2].to_vec());
        assert!(!e.contains("not a valid"), "{e}");
    }
}
