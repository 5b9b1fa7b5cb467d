//! Opening trace files by path, with inputs that can be read only once (a pipe such as
//! `<(zcat t.csv.gz)` or a FIFO, a character device, `-` for standard input) read once into
//! a temporary file.
//!
//! A trace is opened many times: the format sniff, `--capacity auto`'s sizing pass, the
//! replay, each loop of a looped replay, the oracle's pre-pass, a checkpoint's identity.
//! A pipe gives its bytes to one reader only, and an open that finds its writer gone waits
//! forever; so the first open of such a path copies its bytes, raw (compression is still
//! recognised afterwards by its magic), into a temporary file in `$TMPDIR`, and every open
//! of the same path, this one included, reads that copy. Every reader of trace files
//! (`flashgc-trace`, the checkpoint's identity) opens through [`open`], so this is the one
//! place that decides; the path as given stays the trace's name everywhere (errors,
//! results, checkpoints).
//!
//! The copy lives until the process ends or [`forget_all`]. On Linux it is an unnamed
//! file from the start (`O_TMPFILE`), reopened through `/proc/self/fd`, so nothing is left
//! behind whatever ends the process (a second Ctrl-C, SIGKILL); elsewhere it is a named
//! file that [`forget_all`] removes (the command line calls it as it ends; a signal that
//! ends the process during the copy leaves the file).

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The path that means standard input.
pub const STDIN: &str = "-";

/// A trace input read once into a temporary file.
struct Spool {
    /// The path as given (the key).
    given: PathBuf,
    /// The pipe or device the path named when it was copied (device and inode numbers),
    /// None for standard input: a path that names another one now (`/dev/fd/N` of a new
    /// pipe, in a long-lived process such as Python's) is copied again.
    object: Option<(u64, u64)>,
    /// Keeps the unnamed file alive (its path below goes through this descriptor).
    _file: File,
    /// Removes a named temporary file when the spool is forgotten (None when unnamed).
    _named: Option<tempfile::TempPath>,
    /// Where each open reads the copy: `/proc/self/fd/N`, or the named file.
    reopen: PathBuf,
    /// Bytes copied.
    bytes: u64,
}

/// Every input read once so far in this process.
static SPOOLS: Mutex<Vec<Arc<Spool>>> = Mutex::new(Vec::new());

/// Whether `path` is read once into a temporary file before use: `-` (standard input), or
/// an existing path that is neither a regular file nor a directory (a FIFO, `/dev/fd/N`
/// of a pipe, `/dev/stdin`, a character device). A path that does not exist (a blktrace
/// per-CPU set's prefix, a missing file) is not: it is opened as it is, and fails there.
pub fn reads_once(path: &Path) -> bool {
    path.as_os_str() == STDIN || std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Opens the trace file `path` for reading: the temporary copy when `path` is read once
/// ([`reads_once`]; the first open makes the copy), else the file itself. Each call gives
/// an independent reader positioned at the start.
pub fn open(path: &Path) -> io::Result<File> {
    match spool(path, path)? {
        Some(s) => File::open(&s.reopen),
        None => File::open(path),
    }
}

/// The size in bytes of the trace file `path` (of its copy when it is read once).
pub fn len(path: &Path) -> io::Result<u64> {
    match spool(path, path)? {
        Some(s) => Ok(s.bytes),
        None => Ok(std::fs::metadata(path)?.len()),
    }
}

/// The size of the copy when `path` has been read once into a temporary file (nothing is
/// read here).
pub fn copied(path: &Path) -> Option<u64> {
    let spools = SPOOLS.lock().unwrap_or_else(|e| e.into_inner());
    spools.iter().find(|s| s.given == path).map(|s| s.bytes)
}

/// Reads standard input once, now, as the content of `path`: every later open of `path`
/// reads it (a resumed run whose trace was a pipe gets the same bytes again this way).
/// Returns the bytes read.
pub fn read_stdin_as(path: &Path) -> io::Result<u64> {
    let mut spools = SPOOLS.lock().unwrap_or_else(|e| e.into_inner());
    spools.retain(|s| s.given != path);
    let s = copy(path, Path::new(STDIN))?;
    let bytes = s.bytes;
    spools.push(Arc::new(s));
    Ok(bytes)
}

/// Drops the temporary copy of `path`, if it has one (see [`forget_all`]).
pub fn forget(path: &Path) {
    let mut spools = SPOOLS.lock().unwrap_or_else(|e| e.into_inner());
    spools.retain(|s| s.given != path);
}

/// Drops every temporary copy (a named one is removed). Later opens of a path read once
/// read it again. Does nothing while another thread is making a copy (it holds the list),
/// so that a process ending on a signal mid-copy is not held up by the pipe.
pub fn forget_all() {
    match SPOOLS.try_lock() {
        Ok(mut s) => s.clear(),
        Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner().clear(),
        Err(std::sync::TryLockError::WouldBlock) => {}
    }
}

/// The copy of `given` (made now from `source` if `given` is read once and has none yet),
/// or None when `given` is opened as it is. The lock is held while copying, so that
/// parallel runs opening the same pipe wait for one copy.
fn spool(given: &Path, source: &Path) -> io::Result<Option<Arc<Spool>>> {
    let mut spools = SPOOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = spools.iter().position(|s| s.given == given) {
        let s = &spools[i];
        match (s.object, object_of(given)) {
            (Some(then), Some(now)) if then != now => {
                spools.swap_remove(i);
            }
            _ => return Ok(Some(s.clone())),
        }
    }
    if !reads_once(given) {
        return Ok(None);
    }
    let s = Arc::new(copy(given, source)?);
    spools.push(s.clone());
    Ok(Some(s))
}

/// Copies all of `source` (`-`: standard input) into a new temporary file in `$TMPDIR`.
/// On error the temporary file is dropped (removed) and the message says which side
/// failed.
fn copy(given: &Path, source: &Path) -> io::Result<Spool> {
    let dir = std::env::temp_dir();
    // `other`: callers map some kinds to their own words ("no such file"), which would
    // hide that the temporary file is the one missing.
    let on_write = |e: io::Error| {
        io::Error::other(format!(
            "not a regular file, so it is read once into a temporary file in {}, which \
                 failed: {e} (set TMPDIR to a directory with room for the whole trace)",
            dir.display()
        ))
    };
    use io::IsTerminal;
    let mut src: Box<dyn Read> = if source.as_os_str() == STDIN {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            return Err(terminal("standard input"));
        }
        Box::new(stdin.lock())
    } else {
        let f = crate::named_pipe::open(source)?;
        if f.is_terminal() {
            return Err(terminal("it"));
        }
        Box::new(f)
    };
    let (mut file, named, reopen) = temporary(&dir).map_err(on_write)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    let mut sniff = Sniff::default();
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        sniff.feed(&buf[..n])?;
        file.write_all(&buf[..n]).map_err(on_write)?;
        bytes += n as u64;
    }
    file.flush().map_err(on_write)?;
    let s = Spool {
        given: given.to_path_buf(),
        object: match source == given && given.as_os_str() != STDIN {
            true => object_of(given),
            false => None,
        },
        _file: file,
        _named: named,
        reopen,
        bytes,
    };
    let what = match (given.as_os_str() == STDIN, source == given) {
        (true, _) => "standard input: read once",
        (false, true) => "not a regular file: read once",
        (false, false) => "read from standard input once",
    };
    crate::notice::tell(&format!(
        "{}{what} into a temporary file in {} ({})",
        match given.as_os_str() == STDIN {
            true => String::new(),
            false => format!("{}: ", given.display()),
        },
        dir.display(),
        human_bytes(bytes)
    ));
    Ok(s)
}

/// Bytes at the start of a read-once input that [`Sniff`] looks at: as long as the longest
/// line a text trace may have (`flashgc-trace` refuses longer ones).
const SNIFF_BYTES: usize = 1 << 20;

/// Refuses, early, a read-once input that is no trace: `/dev/zero` or `/dev/urandom` given
/// as a trace were copied until the disk filled (the readers' own checks come after the
/// copy). Its start must be a binary trace's or a compressed stream's magic, or text: no
/// NUL byte and a line break within [`SNIFF_BYTES`].
#[derive(Default)]
struct Sniff {
    /// The first bytes (up to 8, for the magic).
    head: Vec<u8>,
    /// Bytes looked at so far (at most [`SNIFF_BYTES`]).
    seen: usize,
    /// Whether a line break came within them.
    newline: bool,
    /// Decided: the start is a known magic, or the first [`SNIFF_BYTES`] were text.
    done: bool,
}

impl Sniff {
    fn feed(&mut self, chunk: &[u8]) -> io::Result<()> {
        if self.done {
            return Ok(());
        }
        let part = &chunk[..chunk.len().min(SNIFF_BYTES - self.seen)];
        let want = 8 - self.head.len().min(8);
        self.head.extend_from_slice(&part[..part.len().min(want)]);
        if self.head.len() >= 8 && binary_magic(&self.head) {
            self.done = true;
            return Ok(());
        }
        if self.head.len() >= 8 && (part.contains(&0) || self.head.contains(&0)) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "binary data, not a trace: a NUL byte near its start, and no .fgt, blktrace, \
                 gzip or zstd magic (was it read once from a device such as /dev/zero?)",
            ));
        }
        self.newline |= part.contains(&b'\n');
        self.seen += part.len();
        if self.seen >= SNIFF_BYTES {
            if !self.newline {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "no line break in its first {} bytes and no .fgt, blktrace, gzip or \
                         zstd magic: not a trace",
                        SNIFF_BYTES
                    ),
                ));
            }
            self.done = true;
        }
        Ok(())
    }
}

/// Whether `head` (at least 8 bytes) starts with the magic of an input a reader takes as
/// binary: `.fgt`, a blktrace per-CPU file (`0x65617400 | version`, little-endian), gzip,
/// zstd.
fn binary_magic(head: &[u8]) -> bool {
    head.starts_with(b"FLASHGCT")
        || head[1..4] == [0x74, 0x61, 0x65]
        || head.starts_with(&[0x1f, 0x8b])
        || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
}

/// The device and inode numbers of what `path` names now (None if it names nothing).
fn object_of(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The error for a trace input that is a terminal: waiting for a trace typed by hand
/// would look like a hang.
fn terminal(what: &str) -> io::Error {
    io::Error::other(format!(
        "{what} is a terminal: pipe or redirect the trace into flashgc \
         (`zcat t.csv.gz | flashgc ... -`, `flashgc ... - < t.csv`)"
    ))
}

/// A new temporary file in `dir`: its descriptor, the named file to remove later (None
/// when it has no name), and the path that opens it again.
fn temporary(dir: &Path) -> io::Result<(File, Option<tempfile::TempPath>, PathBuf)> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // Opening `/proc/self/fd/N` of a regular file opens the file anew (its own offset;
        // it can be memory-mapped), unlike a `dup`; it needs /proc mounted.
        let file = tempfile::tempfile_in(dir)?;
        let reopen = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        if File::open(&reopen).is_ok() {
            return Ok((file, None, reopen));
        }
    }
    let (file, path) = tempfile::Builder::new()
        .prefix(".flashgc-input-")
        .tempfile_in(dir)?
        .into_parts();
    let reopen = path.to_path_buf();
    Ok((file, Some(path), reopen))
}

/// `bytes` in B, KiB, MiB or GiB, for the notice.
fn human_bytes(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A character device is read once: every open sees the same bytes, and its length
    /// is the copy's.
    #[test]
    fn a_device_is_read_once_and_opened_as_the_copy() {
        let p = Path::new("/dev/null");
        assert!(reads_once(p));
        assert!(!reads_once(Path::new("/no/such/trace")));
        assert!(!reads_once(Path::new("Cargo.toml")));
        let mut s = String::new();
        open(p).unwrap().read_to_string(&mut s).unwrap();
        assert_eq!(s, "");
        assert_eq!(len(p).unwrap(), 0);
        assert_eq!(copied(p), Some(0));
        // (Not `forget_all`: the other tests' copies are theirs.)
        forget(p);
        assert_eq!(copied(p), None);
    }

    /// A path that names another pipe than when it was copied is copied again (a
    /// long-lived process reusing `/dev/fd/N`); the same pipe is not read twice.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_path_naming_a_new_pipe_is_copied_again() {
        use std::os::fd::{FromRawFd, OwnedFd};
        // A descriptor number nothing else in the test process uses: each pipe's reading
        // end is moved there, so that one path names both in turn.
        const FD: i32 = 900;
        let pipe_at_fd = |bytes: &[u8]| {
            let mut fds = [0; 2];
            // SAFETY: `fds` has room for the two descriptors pipe(2) returns; dup2 moves the
            // reading end to FD, which only this test uses; both ends are closed here.
            unsafe {
                assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
                assert_eq!(libc::dup2(fds[0], FD), FD);
                libc::close(fds[0]);
                File::from(OwnedFd::from_raw_fd(fds[1]))
                    .write_all(bytes)
                    .unwrap();
            }
        };
        let read = |p: &Path| {
            let mut s = String::new();
            open(p).unwrap().read_to_string(&mut s).unwrap();
            s
        };
        let p = PathBuf::from(format!("/dev/fd/{FD}"));
        pipe_at_fd(b"first");
        assert_eq!(read(&p), "first");
        assert_eq!(read(&p), "first", "the same pipe is read from its copy");
        pipe_at_fd(b"second");
        assert_eq!(
            read(&p),
            "second",
            "a new pipe at the same path is read anew"
        );
        forget(&p);
        // SAFETY: FD is this test's.
        unsafe { libc::close(FD) };
    }

    /// `/dev/zero` and `/dev/urandom` as traces were copied until the disk filled; they
    /// are refused within the first MiB. Text and the binary formats' magics pass.
    #[test]
    fn endless_binary_devices_are_refused_early() {
        for dev in ["/dev/zero", "/dev/urandom"] {
            let p = Path::new(dev);
            let e = open(p).unwrap_err();
            assert!(
                e.to_string().contains("binary data, not a trace"),
                "{dev}: {e}"
            );
            assert_eq!(copied(p), None);
        }
        let mut s = Sniff::default();
        assert!(s.feed(b"FLASHGCT\0\0\0").is_ok());
        let mut s = Sniff::default();
        assert!(s.feed(b"1,2").is_ok() && s.feed(b",3\n").is_ok());
        let mut s = Sniff::default();
        assert!(s.feed(&vec![b'a'; SNIFF_BYTES]).is_err(), "no line break");
    }

    #[test]
    fn sizes_are_shown_in_binary_units() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(3 << 20), "3.0 MiB");
    }
}
