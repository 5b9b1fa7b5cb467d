//! Trace errors. Every error names the file, and where it applies the line, the column
//! and the field that was expected.

use std::fmt;

/// An error reading, checking or converting a trace.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceError {
    /// The file cannot be opened or read (including truncated compressed streams).
    Io {
        /// The trace file.
        file: String,
        /// Last line read completely before the failure (0 when none).
        line: u64,
        /// What went wrong.
        message: String,
    },
    /// A malformed line.
    Parse {
        /// The trace file.
        file: String,
        /// 1-based line number.
        line: u64,
        /// 1-based character column where the offending field starts.
        column: usize,
        /// 1-based field (column of the table) number.
        field_no: usize,
        /// The field's name in the format, e.g. `offset`.
        field: &'static str,
        /// What was expected, e.g. `a non-negative integer (bytes)`.
        expected: String,
        /// The text found (shortened).
        found: String,
    },
    /// The format cannot be detected, or a `--format` spec is invalid.
    Format {
        /// The trace file (empty for a spec error without a file).
        file: String,
        /// What is wrong and which `--format` to pass.
        message: String,
    },
    /// A request does not fit the device (addresses beyond the logical capacity).
    Capacity {
        /// The trace file.
        file: String,
        /// 1-based line (text) or record number (binary).
        line: u64,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The trace (after filters) holds no requests.
    Empty {
        /// The trace file.
        file: String,
        /// Why, and what the file did contain.
        message: String,
    },
    /// An invalid option value (volume, time window, ...).
    Option {
        /// Option name, e.g. `--time-window`.
        option: &'static str,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// A corrupt or incompatible `.fgt` binary trace.
    Binary {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A corrupt blktrace binary file (one per-CPU `NAME.blktrace.N` file).
    Blktrace {
        /// The per-CPU file.
        file: String,
        /// What is wrong, starting with the byte offset of the record.
        message: String,
    },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Io { file, line, message } => {
                if *line > 0 {
                    write!(f, "{file}: read error after line {line}: {message}")
                } else {
                    write!(f, "{file}: {message}")
                }
            }
            TraceError::Parse {
                file,
                line,
                column,
                field_no,
                field,
                expected,
                found,
            } => write!(
                f,
                "{file}:{line}:{column}: field {field_no} `{field}`: expected {expected}, found `{found}` \
                 (pass --skip-bad-lines to count and skip such lines)"
            ),
            TraceError::Format { file, message } => {
                if file.is_empty() {
                    write!(f, "--format: {message}")
                } else {
                    write!(f, "{file}: {message}")
                }
            }
            TraceError::Capacity { file, line, message } => write!(f, "{file}:{line}: {message}"),
            TraceError::Empty { file, message } => write!(f, "{file}: {message}"),
            TraceError::Option { option, message } => write!(f, "{option}: {message}"),
            TraceError::Binary { file, message } => write!(f, "{file}: invalid .fgt trace: {message}"),
            TraceError::Blktrace { file, message } => {
                write!(f, "{file}: invalid blktrace file: {message}")
            }
        }
    }
}

impl std::error::Error for TraceError {}

impl From<TraceError> for flashgc_core::Error {
    fn from(e: TraceError) -> Self {
        flashgc_core::Error::Input(e.to_string())
    }
}

/// A field-level parse problem, before the file and line are known.
#[derive(Debug, Clone)]
pub(crate) struct FieldError {
    /// 0-based field index (usize::MAX: the line as a whole, e.g. too few fields).
    pub index: usize,
    pub field: &'static str,
    pub expected: String,
}

impl FieldError {
    pub fn new(index: usize, field: &'static str, expected: impl Into<String>) -> Self {
        FieldError {
            index,
            field,
            expected: expected.into(),
        }
    }
}

/// The first `most` bytes of `text` as a message quotes them: invalid UTF-8 replaced, and
/// control characters other than a tab escaped (`\u{0}`, `\r`; a byte-order mark too), so
/// that a NUL byte or a carriage return in a damaged line shows instead of making
/// `found `4096`` look valid.
pub(crate) fn shown(text: &[u8], most: usize) -> String {
    String::from_utf8_lossy(&text[..text.len().min(most)])
        .chars()
        .map(|c| match c {
            '\t' => c.to_string(),
            '\r' | '\n' => c.escape_debug().to_string(),
            // A byte-order mark (spreadsheets write one) is invisible too.
            c if c.is_control() || c == '\u{feff}' => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn shown_text_makes_control_bytes_visible() {
        assert_eq!(super::shown(b"40\x0096\r", 40), "40\\u{0}96\\r");
        assert_eq!(super::shown(b"a\tb\xff", 40), "a\tb\u{fffd}");
        assert_eq!(super::shown(b"abcdef", 3), "abc");
        assert_eq!(super::shown("\u{feff}1,W".as_bytes(), 40), "\\u{feff}1,W");
    }
}
