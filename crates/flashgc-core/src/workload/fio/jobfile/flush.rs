//! A job file's flushes (`fsync=N` / `fdatasync=N`, `end_fsync=1`) checked where flashgc
//! models them the way fio 3.33 issues them (module `flows::flush`).
//!
//! fio issues the sync of `fsync=N` as an I/O of its own (io_u.c `get_rw_ddir`: after every
//! N writes issued, unless the last completion was a sync), and how it waits for it is the
//! engine's: a synchronous engine runs `fsync(2)` in the job's thread; `libaio` too
//! (engines/libaio.c `fio_libaio_queue`: `do_io_u_sync` once nothing is left uncommitted),
//! so the job issues nothing until the flush returns while its requests in flight go on.
//! `io_uring`, `posixaio` and other engines queue the sync asynchronously beside other
//! requests, which flashgc does not model: `fsync=N` is refused there. `end_fsync` comes
//! after `do_io` has reaped every request in flight and is waited for, whatever the engine.

use super::{err, EngineKind, JobSpec};
use crate::error::Result;

impl JobSpec {
    /// Refuses flushes flashgc would not issue as fio does (`file` names the job file).
    pub(super) fn check_flushes(&self, file: &str) -> Result<()> {
        if self.fsync_blocks > 0 && self.engine == EngineKind::Async && self.ioengine != "libaio" {
            let option = if self.lines.iter().any(|(o, _)| o == "fdatasync") {
                "fdatasync"
            } else {
                "fsync"
            };
            return Err(err(
                file,
                self.line_of(option),
                option,
                format!(
                    "ioengine={} queues its sync beside other requests, which is not modelled; flashgc \
                     models the sync fio runs in the job's thread (a synchronous engine, or libaio)",
                    self.ioengine
                ),
            ));
        }
        Ok(())
    }

    /// Whether the job flushes at all: it writes (fio's `should_fsync`: `td_write`) and has
    /// `fsync`/`fdatasync` or `end_fsync`.
    pub fn flushes(&self) -> bool {
        self.rw.writes() && (self.fsync_blocks > 0 || self.end_fsync)
    }
}
