//! Reading a user's small text input whole: a configuration file, a fio job file, an MQSim
//! workload file.
//!
//! `std::fs::read_to_string` reads until the end of the file: `/dev/zero` or
//! `/dev/urandom` given as a configuration grew memory until the machine ran out, and
//! a file that is not UTF-8 was refused without saying where. [`read`] stops after
//! [`MAX_TEXT_BYTES`], and names the line and column of the first byte that is not text
//! (invalid UTF-8, or a NUL byte, which no text format here holds and which messages
//! would print invisibly). Traces are not read this way: they are streamed
//! (`flashgc-trace`).

use std::io::{self, Read};

/// The most bytes a configuration, job file or workload file may hold: far above any real
/// one (the largest shipped is a few KiB), far below memory.
pub const MAX_TEXT_BYTES: u64 = 16 << 20;

/// Reads the text file `path` whole. The error's message says what is wrong without the
/// path (callers prefix it, with the kind of file): a read error, a file larger than
/// [`MAX_TEXT_BYTES`], or `line L, column C: ...` for the first byte that is not text.
pub fn read(path: &str) -> io::Result<String> {
    let f = crate::named_pipe::open(std::path::Path::new(path))?;
    let mut bytes = Vec::new();
    f.take(MAX_TEXT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_TEXT_BYTES {
        return Err(io::Error::other(format!(
            "more than {} MiB: not a text file of this kind (a device such as /dev/zero?)",
            MAX_TEXT_BYTES >> 20
        )));
    }
    text(bytes)
}

/// `bytes` as UTF-8 text without NUL bytes; the error names the line and column (both
/// 1-based, the column in bytes) of the first offending byte.
pub fn text(bytes: Vec<u8>) -> io::Result<String> {
    let bad = match std::str::from_utf8(&bytes) {
        Ok(s) => s.find('\0').map(|at| (at, "a NUL byte")),
        Err(e) => Some((e.valid_up_to(), "a byte that is not UTF-8")),
    };
    if let Some((at, what)) = bad {
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = at
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1)
            + 1;
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "line {line}, column {column}: {what} (0x{:02x}); expected UTF-8 text",
                bytes[at]
            ),
        ));
    }
    // Checked just above.
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_line_and_column_of_the_first_bad_byte() {
        let e = text(b"a = 1\nb = \"\xff\"\n".to_vec()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2, column 6: a byte that is not UTF-8 (0xff); expected UTF-8 text"
        );
        let e = text(b"[w]\nrw=randwrite\0\n".to_vec()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2, column 13: a NUL byte (0x00); expected UTF-8 text"
        );
        assert_eq!(text("é = 1\n".as_bytes().to_vec()).unwrap(), "é = 1\n");
    }

    #[cfg(unix)]
    #[test]
    fn an_endless_device_is_refused_after_the_cap() {
        let e = read("/dev/zero").unwrap_err();
        assert!(e.to_string().contains("more than 16 MiB"), "{e}");
    }
}
