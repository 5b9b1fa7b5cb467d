//! Opening a trace as a record source: `.fgt` files by their magic bytes, blktrace binary
//! per-CPU files by theirs (or a `NAME` whose `NAME.blktrace.0` exists), text traces with a given `--format` or auto-detection. [`AnySource`]
//! dispatches statically to the reader (the replay hot path).

use crate::blktrace::BlktraceSource;
use crate::error::TraceError;
use crate::fgt::FgtSource;
use crate::format::{detect, BlkEvents, Format, VolumeKind};
use crate::input::{io_err, open_lines, sniff, Kind, LineReader, TraceInput};
use crate::pipe::PipedSource;
use crate::record::{Diagnostics, Record, RecordSource};
use crate::text::TextSource;
use std::path::Path;

/// A text or binary source with static dispatch (the replay hot path).
// The binary source stays inline: it is what the hot loop reads.
#[allow(clippy::large_enum_variant)]
pub enum AnySource {
    /// Text trace.
    Text(Box<TextSource>),
    /// `.fgt` binary trace.
    Fgt(FgtSource),
    /// blktrace binary per-CPU files, merged by time.
    Blk(Box<BlktraceSource>),
    /// A text trace read on its own thread (see [`crate::pipe`]).
    Piped(Box<PipedSource>),
}

impl AnySource {
    /// Whether this trace can hold flushes, FUA writes or preflush requests: its format
    /// can express them ([`Format::carries_flushes`]), and a `.fgt` file is version 2.
    pub fn carries_flushes(&self) -> bool {
        match self {
            AnySource::Fgt(f) => f.version() != crate::fgt::FGT_VERSION_PLAIN,
            other => other.format().carries_flushes(),
        }
    }
}

impl RecordSource for AnySource {
    #[inline]
    fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        match self {
            AnySource::Text(t) => t.next_record(),
            AnySource::Fgt(f) => f.next_record(),
            AnySource::Blk(b) => b.next_record(),
            AnySource::Piped(p) => p.next_record(),
        }
    }
    fn rewind(&mut self) -> Result<(), TraceError> {
        match self {
            AnySource::Text(t) => t.rewind(),
            AnySource::Fgt(f) => f.rewind(),
            AnySource::Blk(b) => b.rewind(),
            AnySource::Piped(p) => p.rewind(),
        }
    }
    fn format(&self) -> &Format {
        match self {
            AnySource::Text(t) => t.format(),
            AnySource::Fgt(f) => f.format(),
            AnySource::Blk(b) => b.format(),
            AnySource::Piped(p) => p.format(),
        }
    }
    fn volume_kind(&self) -> VolumeKind {
        match self {
            AnySource::Text(t) => t.volume_kind(),
            AnySource::Fgt(f) => f.volume_kind(),
            AnySource::Blk(b) => b.volume_kind(),
            AnySource::Piped(p) => p.volume_kind(),
        }
    }
    fn volume_name(&self, key: u64) -> String {
        match self {
            AnySource::Text(t) => t.volume_name(key),
            AnySource::Fgt(f) => f.volume_name(key),
            AnySource::Blk(b) => b.volume_name(key),
            AnySource::Piped(p) => p.volume_name(key),
        }
    }
    fn diagnostics(&self) -> &Diagnostics {
        match self {
            AnySource::Text(t) => t.diagnostics(),
            AnySource::Fgt(f) => f.diagnostics(),
            AnySource::Blk(b) => b.diagnostics(),
            AnySource::Piped(p) => p.diagnostics(),
        }
    }
    fn file(&self) -> &str {
        match self {
            AnySource::Text(t) => t.file(),
            AnySource::Fgt(f) => f.file(),
            AnySource::Blk(b) => b.file(),
            AnySource::Piped(p) => p.file(),
        }
    }
}

/// Opens a trace: `.fgt` files by their magic bytes, text traces with `format` (a
/// `--format` value) or auto-detection.
pub fn open_source(
    path: &Path,
    format: Option<&str>,
    blkparse_events: Option<&str>,
    skip_bad_lines: bool,
) -> Result<Box<dyn RecordSource>, TraceError> {
    Ok(Box::new(open_any(
        path,
        format,
        blkparse_events,
        skip_bad_lines,
    )?))
}

/// [`open_source`] with static dispatch.
pub fn open_any(
    path: &Path,
    format: Option<&str>,
    blkparse_events: Option<&str>,
    skip_bad_lines: bool,
) -> Result<AnySource, TraceError> {
    open_input(
        &TraceInput::from(path),
        format,
        blkparse_events,
        skip_bad_lines,
    )
}

/// [`open_any`] for a file or a buffer in memory: the same readers and error messages.
pub fn open_input(
    input: &TraceInput,
    format: Option<&str>,
    blkparse_events: Option<&str>,
    skip_bad_lines: bool,
) -> Result<AnySource, TraceError> {
    let file = input.name();
    let blk = match blkparse_events {
        Some(s) => BlkEvents::parse(s).map_err(|m| TraceError::Option {
            option: "--blkparse-events",
            message: m,
        })?,
        None => BlkEvents::default(),
    };
    let given = match format {
        Some(f) => Some(Format::parse(f, blk).map_err(|message| TraceError::Format {
            file: String::new(),
            message,
        })?),
        None => None,
    };
    let kind = match input {
        TraceInput::File(p) if crate::blktrace::names_a_set(p) => Kind::Blktrace,
        _ => sniff(input)?,
    };
    match kind {
        Kind::Blktrace => {
            let events = match given {
                None => blk,
                Some(Format::Blkparse(e)) => e,
                Some(g) => {
                    return Err(TraceError::Format {
                        file,
                        message: format!(
                            "this is blktrace binary output (per-CPU `NAME.blktrace.N` files), but --format {} was given; \
                             drop --format (choose events with --blkparse-events)",
                            g.name()
                        ),
                    })
                }
            };
            Ok(AnySource::Blk(Box::new(BlktraceSource::open(
                input, events,
            )?)))
        }
        Kind::Fgt => {
            if let Some(g) = &given {
                if *g != Format::Fgt {
                    return Err(TraceError::Format {
                        file,
                        message: format!(
                            "this is a .fgt binary trace, but --format {} was given; drop --format",
                            g.name()
                        ),
                    });
                }
            }
            Ok(AnySource::Fgt(FgtSource::open_input(input)?))
        }
        Kind::Text(c) => {
            let fmt = match given {
                Some(Format::Fgt) => {
                    return Err(TraceError::Format {
                        file,
                        message: "--format fgt was given, but the file does not start with the .fgt magic `FLASHGCT`".into(),
                    })
                }
                Some(f) => f,
                None => {
                    let mut lr: LineReader = open_lines(input, c)?;
                    let mut head = Vec::new();
                    while head.len() < 64 {
                        match lr.next_line() {
                            Ok(Some((_, l))) => head.push(l.to_vec()),
                            Ok(None) => break,
                            Err(e) => return Err(io_err(&file, lr.line_no, &e)),
                        }
                    }
                    detect(&head, blk).map_err(|message| TraceError::Format { file: file.clone(), message })?
                }
            };
            Ok(AnySource::Text(Box::new(TextSource::new(
                input,
                c,
                fmt,
                skip_bad_lines,
            )?)))
        }
    }
}
