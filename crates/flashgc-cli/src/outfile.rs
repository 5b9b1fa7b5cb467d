//! Result files (`-o FILE`) and checkpoint files: where they really go and what may be
//! replaced there.
//!
//! A result is written to a temporary file in the target's directory, fsynced and renamed
//! over the target, so a reader never sees half a file. Renaming replaces whatever the
//! path names, so the target is resolved first: a symlink is followed (its target gets the
//! result, the link stays), and anything that is not a regular file (a device node such as
//! `/dev/full`, a FIFO, a directory) is refused instead of being replaced. A failed write
//! removes its temporary file; temporary files of processes that no longer run (a
//! `kill -9` mid-write) are removed when the next run or resume uses the same target.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The file a write to `path` must replace: `path` itself, or the end of its symlink chain.
/// Errors when that is not a regular file, or when its directory does not exist.
pub fn resolve(path: &Path) -> Result<PathBuf, String> {
    let mut p = path.to_path_buf();
    // Follow a chain of symlinks (bounded, like the kernel's limit).
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to =
                    std::fs::read_link(&p).map_err(|e| format!("cannot read the symlink: {e}"))?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            Ok(m) if m.is_file() => return Ok(p),
            Ok(m) => {
                let what = if m.is_dir() {
                    "a directory"
                } else {
                    "a device, FIFO or socket"
                };
                return Err(format!(
                    "not a regular file ({what}); results are written to regular files only"
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let dir = dir_of(&p);
                return match std::fs::metadata(dir) {
                    Ok(m) if m.is_dir() => Ok(p),
                    Ok(_) => Err(format!("{} is not a directory", dir.display())),
                    Err(e) => Err(format!("its directory {}: {e}", dir.display())),
                };
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    Err("too many levels of symbolic links".into())
}

fn dir_of(p: &Path) -> &Path {
    p.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The temporary name a process writing `target` uses: `.NAME.tmpPID` beside it.
pub fn temp_name(target: &Path, pid: u32) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    dir_of(target).join(format!(".{name}.tmp{pid}"))
}

/// Checks before a run that `path` (given with option `flag`, e.g. `-o`) can take a
/// result: resolvable to a regular file (or a new one) in a directory where a file can be
/// created. Returns the resolved target.
pub fn check_writable(flag: &str, path: &str) -> Result<PathBuf, String> {
    // An empty path would only fail when the result is written, after the whole run.
    if path.trim().is_empty() {
        return Err(format!("{flag}: an empty path; give a file name"));
    }
    let target = resolve(Path::new(path)).map_err(|e| format!("{flag} {path}: {e}"))?;
    // Creating the temporary file is the real test (permissions, read-only file system).
    let probe = temp_name(&target, std::process::id());
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(target)
        }
        Err(e) => Err(format!(
            "{flag} {path}: cannot create a file in {}: {e}",
            dir_of(&target).display()
        )),
    }
}

/// Writes `bytes` to `path` atomically (temporary file, fsync, rename, directory fsync),
/// through symlinks; refuses targets that are not regular files. A failure leaves no
/// temporary file.
pub fn write_atomic(path: &str, bytes: &[u8]) -> Result<(), String> {
    let target = resolve(Path::new(path))?;
    let tmp = temp_name(&target, std::process::id());
    let written = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &target)?;
        #[cfg(unix)]
        if let Ok(d) = std::fs::File::open(dir_of(&target)) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        e.to_string()
    })
}

/// Removes the temporary files that processes which no longer run left beside `target`
/// (`.NAME.tmpPID`, from a kill during a write). Files of live processes are kept.
pub fn remove_stale_temps(target: &Path) {
    let Some(name) = target.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let prefix = format!(".{name}.tmp");
    let Ok(entries) = std::fs::read_dir(dir_of(target)) else {
        return;
    };
    for e in entries.flatten() {
        let f = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = f.strip_prefix(&prefix).and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !process_runs(pid) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// True if a process with this id runs (or may: when unsure, keep its files).
fn process_runs(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(p) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only checks that the process exists; nothing is sent.
        let r = unsafe { libc::kill(p, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dangling_symlink_resolves_to_its_target_path() {
        let d = std::env::temp_dir().join(format!("flashgc-outfile-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let link = d.join("l");
        let _ = std::fs::remove_file(&link);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("new.json", &link).unwrap();
            assert_eq!(resolve(&link).unwrap(), d.join("new.json"));
            write_atomic(link.to_str().unwrap(), b"x").unwrap();
            assert_eq!(std::fs::read(d.join("new.json")).unwrap(), b"x");
            assert!(std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink());
        }
        assert!(resolve(&d).unwrap_err().contains("directory"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
