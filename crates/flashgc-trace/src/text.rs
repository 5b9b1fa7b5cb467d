//! The text-trace reader: a line reader (plain, gzip or zstd) feeding the format's line
//! parser, with the per-file checks every text format shares (zero-length requests, times
//! that step back, malformed lines skipped or reported with file, line and field).

use crate::error::TraceError;
use crate::format::{Format, LineParser, Parsed, VolumeKind};
use crate::input::{io_err, open_at, open_lines, open_stream, Compression, LineReader, TraceInput};
use crate::record::{Diagnostics, Record, RecordSource, TextPos};
use flashgc_core::workload::Op;
use std::collections::HashMap;

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
    pub(crate) fn new(
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

impl TextSource {
    /// Where this reader stands, for a resumed replay to seek to: None for a compressed
    /// trace (no seeking) or after a rewind (looped replay re-reads instead).
    pub(crate) fn position(&self) -> Option<TextPos> {
        if self.compression != Compression::None || self.first_pass.is_some() {
            return None;
        }
        let mut names: Vec<(u64, String)> =
            self.names.iter().map(|(k, v)| (*k, v.clone())).collect();
        names.sort_unstable();
        Some(TextPos {
            offset: self.lines.consumed,
            line: self.lines.line_no,
            last_time: self.last_time,
            diag: self.diag.clone(),
            names,
        })
    }

    /// Continues reading at `p` (from [`Self::position`] on the same file).
    pub(crate) fn seek(&mut self, p: &TextPos) -> Result<(), TraceError> {
        if self.compression != Compression::None {
            return Err(TraceError::Io {
                file: self.file.clone(),
                line: p.line,
                message: "a compressed trace cannot be resumed at a byte offset".into(),
            });
        }
        let src = open_at(&self.input, p.offset)?;
        self.lines.restart_at(src, p.offset, p.line);
        self.parser.resume_at(p.line, p.last_time);
        self.diag = p.diag.clone();
        self.first_pass = None;
        self.last_time = p.last_time;
        self.names = p.names.iter().cloned().collect();
        self.last_vol = None;
        Ok(())
    }
}

impl RecordSource for TextSource {
    fn consumed(&self) -> Option<u64> {
        (self.compression == Compression::None).then_some(self.lines.consumed)
    }

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
                    if rec.len == 0 && rec.op != Op::Flush {
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
                    if rec.op == Op::Flush {
                        self.diag.flushes += 1;
                    } else {
                        self.diag.requests += 1;
                    }
                    return Ok(Some(Record { rec, line: line_no }));
                }
                Ok(Parsed::Blank) => {}
                Ok(Parsed::Ignored) => self.diag.ignored_lines += 1,
                Ok(Parsed::Unselected(c)) => {
                    self.diag.ignored_lines += 1;
                    self.diag.unselected_actions |= 1 << (c - b'A');
                }
                Err(fe) => {
                    let (column, field_no, found) = if fe.index == usize::MAX {
                        let t = crate::error::shown(line, 60);
                        (1, 1, t)
                    } else {
                        let t = self.parser.field_text(line, fe.index);
                        (
                            self.parser.field_start(fe.index) + 1,
                            fe.index + 1,
                            crate::error::shown(t, 40),
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
        if !self.lines.rewind_in_buffer() {
            let (src, _) = open_stream(&self.input, self.compression)?;
            self.lines.restart(src);
        }
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
