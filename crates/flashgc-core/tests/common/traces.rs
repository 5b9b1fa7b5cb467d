//! Where the real traces are: `$FLASHGC_TRACES`, else `../shared/traces` next to the
//! repository (they are never copied into it).

use std::path::PathBuf;

/// The traces folder.
pub fn dir() -> PathBuf {
    std::env::var_os("FLASHGC_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"))
}

/// A trace file under the folder, or None (with a SKIPPED message) when it is absent.
pub fn file(rel: &str) -> Option<PathBuf> {
    let p = dir().join(rel);
    if p.is_file() {
        Some(p)
    } else {
        eprintln!(
            "SKIPPED: trace {} is absent (set FLASHGC_TRACES to point at the traces folder)",
            p.display()
        );
        None
    }
}
