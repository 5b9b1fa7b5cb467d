//! Output files written atomically: into a temporary file beside the target, synced, then
//! renamed over it. A failed write (a full disk, a file-size limit, an interrupted
//! conversion that returns an error) removes the temporary file and leaves whatever was at
//! the path untouched: never a truncated or 0-byte output. A symlink is written through
//! (its target is replaced); a path that exists but is not a regular file (a device such
//! as `/dev/full`, a directory) is refused.

use crate::error::TraceError;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

fn io_error(file: &Path, what: &str, e: std::io::Error) -> TraceError {
    TraceError::Io {
        file: file.display().to_string(),
        line: 0,
        message: format!("{what}: {e}"),
    }
}

/// Where writing `out` must land: `out`, or the file a symlink at `out` points to.
fn resolve(out: &Path) -> Result<PathBuf, TraceError> {
    let mut p = out.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t =
                    std::fs::read_link(&p).map_err(|e| io_error(out, "cannot read the link", e))?;
                p = match p.parent() {
                    Some(d) if t.is_relative() => d.join(t),
                    _ => t,
                };
            }
            Ok(m) if !m.is_file() => {
                return Err(TraceError::Io {
                    file: out.display().to_string(),
                    line: 0,
                    message: "not a regular file; refusing to replace it (give a file path)".into(),
                })
            }
            _ => return Ok(p),
        }
    }
    Err(TraceError::Io {
        file: out.display().to_string(),
        line: 0,
        message: "too many levels of symbolic links".into(),
    })
}

/// Runs `write` on a buffered temporary file beside `out` and renames it to `out` when
/// `write` and the flush succeed; otherwise removes it and returns the error.
pub(crate) fn write_atomically<T>(
    out: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<T, TraceError>,
) -> Result<T, TraceError> {
    let target = resolve(out)?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let f = File::create(&tmp).map_err(|e| io_error(out, "cannot write", e))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let done = write(&mut w).and_then(|v| {
        let f = w
            .into_inner()
            .map_err(|e| io_error(out, "cannot write", e.into_error()))?;
        f.sync_all().map_err(|e| io_error(out, "cannot write", e))?;
        Ok(v)
    });
    match done {
        Ok(v) => match std::fs::rename(&tmp, &target) {
            Ok(()) => Ok(v),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(io_error(out, "cannot move the finished file into place", e))
            }
        },
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}
