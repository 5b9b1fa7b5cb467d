//! Errors. Every user-facing error names what is wrong and where.

use thiserror::Error;

/// Result alias for the core.
pub type Result<T> = std::result::Result<T, Error>;

/// Errors of the simulator core.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A configuration field is missing, out of range or inconsistent.
    #[error("invalid configuration: `{field}`: {message}")]
    Config {
        /// Dotted path of the field, e.g. `device.pages_per_block` or `placement.levels`.
        field: String,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// A policy, preset or workload name that is not registered.
    #[error("unknown {kind} `{name}`; known: {known}")]
    Unknown {
        /// The configuration field that gave the name (`run.placement`), so that a front
        /// end can point at the line of a file that sets it; empty when there is none.
        field: String,
        /// What kind of name (placement, victim, preset, workload).
        kind: &'static str,
        /// The name given.
        name: String,
        /// Comma-separated list of known names.
        known: String,
    },
    /// The workload cannot run on this device (e.g. an LPN beyond the logical capacity).
    #[error("workload error: {0}")]
    Workload(String),
    /// The device ran out of space: GC found no victim that frees anything.
    #[error("device full: {0}")]
    DeviceFull(String),
    /// Input file problems (config files, traces), with the file, line and field.
    #[error("{0}")]
    Input(String),
}

impl Error {
    /// Shorthand for a configuration error.
    pub fn config(field: impl Into<String>, message: impl Into<String>) -> Self {
        let message = message.into();
        Error::Config {
            field: field.into(),
            message: match compact_numbers(&message) {
                std::borrow::Cow::Borrowed(_) => message,
                std::borrow::Cow::Owned(m) => m,
            },
        }
    }
}

/// Digits a number in a message may have before [`compact_numbers`] rewrites it: more
/// than any count or size here prints (`u64::MAX` has 20), fewer than a float that Rust's
/// `{}` writes in full (`1e-300` as 300 zeros and a one, `1e30` as 31 digits).
const LONGEST_PLAIN_NUMBER: usize = 24;

/// `text` with every decimal number longer than [`LONGEST_PLAIN_NUMBER`] characters
/// written in scientific notation (`1e-300`), so that a user's extreme value does not
/// fill an error message with zeros. A run of digits that is part of a word, a path
/// component of letters and digits or a longer number is left alone.
pub fn compact_numbers(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && word(b[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        let ends_number = i == b.len() || !(b[i].is_ascii_alphabetic() || b[i] == b'_');
        if i - start > LONGEST_PLAIN_NUMBER && ends_number {
            if let Ok(x) = text[start..i].parse::<f64>() {
                out.push_str(&text[copied..start]);
                out.push_str(&format!("{x:e}"));
                copied = i;
            }
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_floats_in_messages_are_written_in_scientific_notation() {
        let tiny = format!("{}: must be >= 1", 1e-300);
        assert_eq!(compact_numbers(&tiny), "1e-300: must be >= 1");
        let huge = format!("= {} x 87 ns", 1e30);
        assert_eq!(compact_numbers(&huge), "= 1e30 x 87 ns");
        assert_eq!(
            Error::config("x", format!("{} ok", -1.5e-40)).to_string(),
            "invalid configuration: `x`: -1.5e-40 ok"
        );
        // Ordinary numbers, u64::MAX, digits inside words and paths stay as they are.
        for s in [
            "18446744073709551615 pages, 0.25 GiB",
            "file_123456789012345678901234567890x",
            "/tmp/a123456789012345678901234567890/b",
        ] {
            assert!(
                matches!(compact_numbers(s), std::borrow::Cow::Borrowed(_)),
                "{s}"
            );
        }
    }
}
