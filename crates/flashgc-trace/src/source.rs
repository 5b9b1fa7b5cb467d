//! Record sources: a text trace read line by line, or a memory-mapped `.fgt` file.

use crate::error::TraceError;
use crate::fgt::FgtSource;
use crate::format::{detect, BlkEvents, Format, LineParser, Parsed, Rec, VolumeKind};
use crate::input::{
    io_err, open_lines, open_stream, sniff, Compression, Kind, LineReader, TraceInput,
};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// One request read from a trace, in common units (see [`Rec`]), with its line number
/// (record number for `.fgt` files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The request.
    pub rec: Rec,
    /// 1-based source line (text) or record number (binary).
    pub line: u64,
}

/// Problems found while reading, and what was skipped. Which problems are errors and
/// which are counted warnings is listed in `docs/traces.md`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Diagnostics {
    /// Lines read (text) or records read (binary).
    pub lines: u64,
    /// Requests produced (before filters).
    pub requests: u64,
    /// Valid lines that are not requests (blkparse events not selected, fio open/close/wait,
    /// MiDAS `LOAD_END` and type-2 lines, blkparse summaries and flushes).
    pub ignored_lines: u64,
    /// Malformed lines skipped because of `--skip-bad-lines`.
    pub bad_lines: u64,
    /// The first few skipped lines' errors.
    pub bad_line_examples: Vec<String>,
    /// Zero-length requests (skipped, counted warning).
    pub zero_length: u64,
    /// Requests whose timestamp is earlier than the previous one's (kept in file order, their
    /// time clamped to the previous timestamp; counted warning).
    pub time_backwards: u64,
    /// Largest backward step seen, in ns.
    pub max_step_back_ns: u64,
}

impl Diagnostics {
    /// Human-readable warnings (empty when there is nothing to report).
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.bad_lines > 0 {
            w.push(format!(
                "{} malformed lines skipped (--skip-bad-lines); first: {}",
                self.bad_lines,
                self.bad_line_examples
                    .first()
                    .map(String::as_str)
                    .unwrap_or("")
            ));
        }
        if self.zero_length > 0 {
            w.push(format!("{} zero-length requests skipped", self.zero_length));
        }
        if self.time_backwards > 0 {
            w.push(format!(
                "{} timestamps went backwards (largest step back {:.6} s); their times were clamped to the previous request's",
                self.time_backwards,
                self.max_step_back_ns as f64 / 1e9
            ));
        }
        w
    }
}

/// A stream of records.
pub trait RecordSource: Send {
    /// The next record, `None` at the end.
    fn next_record(&mut self) -> Result<Option<Record>, TraceError>;
    /// Starts over from the first record (for looped replay). Diagnostics keep the first
    /// pass's counts.
    fn rewind(&mut self) -> Result<(), TraceError>;
    /// The format read.
    fn format(&self) -> &Format;
    /// How volumes are named.
    fn volume_kind(&self) -> VolumeKind;
    /// Display name of a volume key.
    fn volume_name(&self, key: u64) -> String;
    /// Diagnostics of the (first) pass.
    fn diagnostics(&self) -> &Diagnostics;
    /// The file.
    fn file(&self) -> &str;
}

/// A text trace, parsed line by line in constant memory.
pub struct TextSource {
    input: TraceInput,
    file: String,
    compression: Compression,
    lines: LineReader,
    parser: LineParser,
    skip_bad: bool,
    diag: Diagnostics,
    first_pass: Option<Diagnostics>,
    last_time: Option<u64>,
    kind: VolumeKind,
    names: HashMap<u64, String>,
    last_vol: Option<u64>,
}

impl TextSource {
    fn new(
        input: &TraceInput,
        c: Compression,
        format: Format,
        skip_bad: bool,
    ) -> Result<TextSource, TraceError> {
        let kind = format.volume_kind();
        Ok(TextSource {
            input: input.clone(),
            file: input.name(),
            compression: c,
            lines: open_lines(input, c)?,
            parser: LineParser::new(format),
            skip_bad,
            diag: Diagnostics::default(),
            first_pass: None,
            last_time: None,
            kind,
            names: HashMap::new(),
            last_vol: None,
        })
    }
}

impl RecordSource for TextSource {
    fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        loop {
            let (line_no, line) = match self.lines.next_line() {
                Ok(Some(l)) => l,
                Ok(None) => return Ok(None),
                Err(e) => return Err(io_err(&self.file, self.lines.line_no, &e)),
            };
            self.diag.lines += 1;
            match self.parser.parse(line) {
                Ok(Parsed::Rec(mut rec)) => {
                    if rec.len == 0 {
                        self.diag.zero_length += 1;
                        continue;
                    }
                    if let Some(prev) = self.last_time {
                        if rec.time_ns < prev {
                            self.diag.time_backwards += 1;
                            self.diag.max_step_back_ns =
                                self.diag.max_step_back_ns.max(prev - rec.time_ns);
                            rec.time_ns = prev;
                        }
                    }
                    self.last_time = Some(rec.time_ns);
                    if self.kind == VolumeKind::Text && self.last_vol != Some(rec.volume) {
                        self.last_vol = Some(rec.volume);
                        if !self.names.contains_key(&rec.volume) {
                            self.names.insert(rec.volume, self.parser.volume_name(line));
                        }
                    }
                    self.diag.requests += 1;
                    return Ok(Some(Record { rec, line: line_no }));
                }
                Ok(Parsed::Blank) => {}
                Ok(Parsed::Ignored) => self.diag.ignored_lines += 1,
                Err(fe) => {
                    let (column, field_no, found) = if fe.index == usize::MAX {
                        let t = String::from_utf8_lossy(&line[..line.len().min(60)]).into_owned();
                        (1, 1, t)
                    } else {
                        let t = self.parser.field_text(line, fe.index);
                        (
                            self.parser.field_start(fe.index) + 1,
                            fe.index + 1,
                            String::from_utf8_lossy(&t[..t.len().min(40)]).into_owned(),
                        )
                    };
                    let err = TraceError::Parse {
                        file: self.file.clone(),
                        line: line_no,
                        column,
                        field_no,
                        field: fe.field,
                        expected: format!("{} [format {}]", fe.expected, self.parser.format.name()),
                        found,
                    };
                    if !self.skip_bad {
                        return Err(err);
                    }
                    self.diag.bad_lines += 1;
                    if self.diag.bad_line_examples.len() < 5 {
                        let m = err.to_string();
                        let m = m.trim_end_matches(
                            " (pass --skip-bad-lines to count and skip such lines)",
                        );
                        self.diag.bad_line_examples.push(m.to_string());
                    }
                }
            }
        }
    }

    fn rewind(&mut self) -> Result<(), TraceError> {
        if self.first_pass.is_none() {
            self.first_pass = Some(self.diag.clone());
        }
        let (src, _) = open_stream(&self.input, self.compression)?;
        self.lines.restart(src);
        self.parser.reset();
        self.last_time = None;
        Ok(())
    }

    fn format(&self) -> &Format {
        &self.parser.format
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

/// A text or binary source with static dispatch (the replay hot path).
// The binary source stays inline: it is what the hot loop reads.
#[allow(clippy::large_enum_variant)]
pub enum AnySource {
    /// Text trace.
    Text(Box<TextSource>),
    /// `.fgt` binary trace.
    Fgt(FgtSource),
}

impl RecordSource for AnySource {
    #[inline]
    fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        match self {
            AnySource::Text(t) => t.next_record(),
            AnySource::Fgt(f) => f.next_record(),
        }
    }
    fn rewind(&mut self) -> Result<(), TraceError> {
        match self {
            AnySource::Text(t) => t.rewind(),
            AnySource::Fgt(f) => f.rewind(),
        }
    }
    fn format(&self) -> &Format {
        match self {
            AnySource::Text(t) => t.format(),
            AnySource::Fgt(f) => f.format(),
        }
    }
    fn volume_kind(&self) -> VolumeKind {
        match self {
            AnySource::Text(t) => t.volume_kind(),
            AnySource::Fgt(f) => f.volume_kind(),
        }
    }
    fn volume_name(&self, key: u64) -> String {
        match self {
            AnySource::Text(t) => t.volume_name(key),
            AnySource::Fgt(f) => f.volume_name(key),
        }
    }
    fn diagnostics(&self) -> &Diagnostics {
        match self {
            AnySource::Text(t) => t.diagnostics(),
            AnySource::Fgt(f) => f.diagnostics(),
        }
    }
    fn file(&self) -> &str {
        match self {
            AnySource::Text(t) => t.file(),
            AnySource::Fgt(f) => f.file(),
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
    match sniff(input)? {
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
