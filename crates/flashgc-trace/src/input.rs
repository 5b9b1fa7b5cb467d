//! Opening trace files (plain, gzip, zstd: recognised by their magic bytes, not their
//! names) and splitting them into lines in constant memory.

use crate::error::TraceError;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

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

/// First bytes of a `.fgt` binary trace.
pub const FGT_MAGIC: &[u8; 8] = b"FLASHGCT";

/// What the first bytes of a file say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Text(Compression),
    Fgt,
}

pub(crate) fn sniff(path: &Path) -> Result<Kind, TraceError> {
    let mut f = File::open(path).map_err(|e| io_err(path, 0, &e))?;
    let mut head = [0u8; 8];
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(path, 0, &e)),
        }
    }
    let h = &head[..n];
    if h.starts_with(FGT_MAGIC) {
        return Ok(Kind::Fgt);
    }
    if h.starts_with(&[0x1f, 0x8b]) {
        return Ok(Kind::Text(Compression::Gzip));
    }
    if h.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        return Ok(Kind::Text(Compression::Zstd));
    }
    if h.starts_with(b"BZh") {
        return Err(TraceError::Io {
            file: path.display().to_string(),
            line: 0,
            message: "bzip2-compressed; flashgc reads plain, gzip and zstd files: recompress it \
                      (e.g. `bzcat F | zstd -o F.zst`)"
                .into(),
        });
    }
    if h.starts_with(&[0xfd, b'7', b'z', b'X', b'Z']) {
        return Err(TraceError::Io {
            file: path.display().to_string(),
            line: 0,
            message: "xz-compressed; flashgc reads plain, gzip and zstd files: recompress it \
                      (e.g. `xzcat F | zstd -o F.zst`)"
                .into(),
        });
    }
    Ok(Kind::Text(Compression::None))
}

pub(crate) fn io_err(path: &Path, line: u64, e: &io::Error) -> TraceError {
    let message = match e.kind() {
        io::ErrorKind::UnexpectedEof => {
            "the compressed stream ends early (truncated file?)".to_string()
        }
        io::ErrorKind::NotFound => "no such file".to_string(),
        _ => e.to_string(),
    };
    TraceError::Io {
        file: path.display().to_string(),
        line,
        message,
    }
}

/// Opens `path` as a byte stream, decompressing transparently.
pub(crate) fn open_stream(path: &Path, c: Compression) -> Result<Box<dyn Read + Send>, TraceError> {
    let f = File::open(path).map_err(|e| io_err(path, 0, &e))?;
    Ok(match c {
        Compression::None => Box::new(f),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(
            io::BufReader::with_capacity(1 << 16, f),
        )),
        Compression::Zstd => {
            Box::new(zstd::stream::read::Decoder::new(f).map_err(|e| io_err(path, 0, &e))?)
        }
    })
}

/// Longest accepted line; longer ones mean the file is not a text trace.
const MAX_LINE: usize = 1 << 20;

/// Splits a byte stream into lines (`\n` or `\r\n`), reading 1 MiB at a time.
pub(crate) struct LineReader {
    src: Box<dyn Read + Send>,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// Number of the line returned last (1-based).
    pub line_no: u64,
}

impl LineReader {
    pub fn new(src: Box<dyn Read + Send>) -> Self {
        LineReader {
            src,
            buf: vec![0; 1 << 20],
            pos: 0,
            end: 0,
            eof: false,
            line_no: 0,
        }
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
            if self.pos > 0 {
                self.buf.copy_within(self.pos..self.end, 0);
                self.end -= self.pos;
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
        self.line_no += 1;
        let e = if e > s && self.buf[e - 1] == b'\r' {
            e - 1
        } else {
            e
        };
        Ok(Some((self.line_no, &self.buf[s..e])))
    }
}
