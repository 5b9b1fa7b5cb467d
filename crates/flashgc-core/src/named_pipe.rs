//! Opening an input path that may be a named pipe (FIFO), without waiting silently.
//!
//! Opening a FIFO for reading blocks until a writer opens it, so `--config f` for a FIFO
//! nobody writes to used to wait with no word said. Here a FIFO is opened without
//! blocking and then waited on with `poll`: when nothing has come after [`QUIET_WAIT`], a
//! notice ([`crate::notice`]) says what the program is waiting for. A signal is left to
//! the program's handlers, as during a blocking open (the command line's default action
//! or its startup watcher ends the process with the exit code of an interrupted run), so
//! an interrupted `poll` is simply resumed. Once input is there the file is switched back
//! to blocking reads, so callers read it as any file. Every other path is opened as it is.

use std::fs::File;
use std::io;
use std::path::Path;
use std::time::Duration;

/// How long a FIFO may stay silent before the notice says the program waits for it: long
/// enough that a process substitution (`<(zcat t.gz)`) that starts writing at once is
/// never announced.
pub const QUIET_WAIT: Duration = Duration::from_secs(2);

/// Opens `path` for reading; a FIFO is waited on as the module describes, with the notice
/// going to [`crate::notice`].
pub fn open(path: &Path) -> io::Result<File> {
    open_with(path, QUIET_WAIT, &crate::notice::tell)
}

/// [`open`] with the quiet time and the notice given (for tests).
#[cfg(target_os = "linux")]
pub fn open_with(path: &Path, quiet: Duration, notice: &dyn Fn(&str)) -> io::Result<File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    use std::os::unix::io::AsRawFd;
    if !std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
        return File::open(path);
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let fd = f.as_raw_fd();
    let mut timeout = i32::try_from(quiet.as_millis()).unwrap_or(i32::MAX);
    loop {
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, owned here, for the duration of the call.
        match unsafe { libc::poll(&mut p, 1, timeout) } {
            // Data, or a writer that came and went (end of input): either way a read now
            // returns what there is.
            n if n > 0 => break,
            0 => {
                notice(&format!(
                    "{}: a named pipe with nothing written to it yet: waiting for its \
                     writer (Ctrl-C stops)",
                    path.display()
                ));
                timeout = -1;
            }
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
    // SAFETY: fcntl on a descriptor this function owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(f)
}

/// [`open`] with the quiet time and the notice given (for tests). Without Linux's `poll`,
/// a FIFO is opened as any file.
#[cfg(not(target_os = "linux"))]
pub fn open_with(path: &Path, _quiet: Duration, _notice: &dyn Fn(&str)) -> io::Result<File> {
    File::open(path)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::sync::Mutex;

    fn fifo(dir: &Path) -> std::path::PathBuf {
        let p = dir.join("f");
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        p
    }

    #[test]
    fn a_silent_fifo_is_announced_then_read_whole_once_written() {
        let dir = tempfile::tempdir().unwrap();
        let p = fifo(dir.path());
        let writer = {
            let p = p.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                let mut w = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
                w.write_all(b"a = 1\n").unwrap();
                std::thread::sleep(Duration::from_millis(100));
                w.write_all(b"b = 2\n").unwrap();
            })
        };
        let told = Mutex::new(Vec::new());
        let mut f = open_with(&p, Duration::from_millis(50), &|m| {
            told.lock().unwrap().push(m.to_string())
        })
        .unwrap();
        let mut s = String::new();
        // Blocking again: the read waits for the second write and the writer's close.
        f.read_to_string(&mut s).unwrap();
        writer.join().unwrap();
        assert_eq!(s, "a = 1\nb = 2\n");
        let told = told.into_inner().unwrap();
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(told[0].contains("waiting for its writer"), "{told:?}");
    }

    #[test]
    fn a_fifo_written_at_once_and_a_file_are_not_announced() {
        let dir = tempfile::tempdir().unwrap();
        let p = fifo(dir.path());
        let writer = {
            let p = p.clone();
            std::thread::spawn(move || {
                let mut w = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
                w.write_all(b"x").unwrap();
            })
        };
        // The writer's open waits for this reader, so the data comes well within the
        // quiet time.
        let mut f = open_with(&p, Duration::from_secs(30), &|m| panic!("told {m}")).unwrap();
        let mut s = String::new();
        f.read_to_string(&mut s).unwrap();
        writer.join().unwrap();
        assert_eq!(s, "x");
        let file = dir.path().join("plain");
        std::fs::write(&file, "y").unwrap();
        let mut s = String::new();
        open_with(&file, Duration::ZERO, &|m| panic!("told {m}"))
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        assert_eq!(s, "y");
    }
}
