//! A job file's flushes and synchronous writes, as fio 3.33 issues them (the flows' side
//! is module `flows::flush`; docs/flows.md, "Flushes").
//!
//! * `fsync=N` / `fdatasync=N`: fio issues the sync as an I/O of its own (io_u.c
//!   `get_rw_ddir`: whenever the job's writes issued are a multiple of N and the last
//!   completion it reaped was not a sync, `should_fsync`). How it waits for it is the
//!   engine's ([`SyncIssue`]): a synchronous engine runs `fsync(2)` in the job's thread,
//!   and so do `libaio`, `solarisaio`, `windowsaio` and `ime_aio` (their queue functions
//!   sync once nothing is left uncommitted and return `FIO_Q_COMPLETED`); `io_uring`
//!   (`IORING_OP_FSYNC`), `posixaio` (`aio_fsync`, Linux), `null`, `nbd`, `rbd` and
//!   `gfapi_async` queue it beside the other requests. Engines that fail a sync
//!   (`io_uring_cmd`: ENOTSUP, `xnvme`: ENOSYS, `nbd`/`rbd` for fdatasync: EINVAL) or
//!   whose handling is not in fio's source (external engines) are refused.
//! * `end_fsync=1`: after each pass's drain (`do_io`), waited for whatever the engine.
//! * `fsync_on_close=1`: `do_io` syncs at its end for it as for `end_fsync`, and
//!   `put_file` (filesetup.c) syncs again when it closes the file, which happens inside a
//!   pass that runs past the file's end (every pass but the last, fio's byte limit being
//!   `size * loops left`).
//! * `sync=1` (`sync`, `dsync`; `0`/`none` off): the file is opened `O_SYNC`/`O_DSYNC`, so
//!   every write is durable when it completes.
//! * `write_barrier=N`: io_u.c flags every N-th write `IO_U_F_BARRIER` only for engines
//!   with `FIO_BARRIER` (libpmem), and no engine reads the flag: it changes nothing, and
//!   the run's notes say so.

use super::values::{boolean, err, int};
use super::{EngineKind, JobSpec};
use crate::error::Result;

/// How an engine issues the sync of `fsync=N` / `fdatasync=N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncIssue {
    /// In the job's thread: the job issues nothing until it returns (its requests in
    /// flight go on).
    InThread,
    /// Queued beside the other requests, in a slot of the queue.
    Queued,
}

/// Engines that queue their syncs (fio 3.33's queue functions).
const QUEUED_SYNC: &[&str] = &["io_uring", "posixaio", "null", "nbd", "rbd", "gfapi_async"];
/// Asynchronous engines that sync in the job's thread.
const IN_THREAD_SYNC: &[&str] = &["libaio", "solarisaio", "windowsaio", "ime_aio"];
/// Engines that queue `fsync` but answer `fdatasync` with EINVAL.
const NO_DATASYNC: &[&str] = &["nbd", "rbd"];

impl JobSpec {
    /// Applies the sync options (`fsync`, `fdatasync`, `end_fsync`, `fsync_on_close`,
    /// `sync`, `write_barrier`, `sync_file_range`); false when `option` is none of them.
    pub(super) fn set_sync_option(
        &mut self,
        file: &str,
        line: usize,
        option: &str,
        value: Option<&str>,
    ) -> Result<bool> {
        let need = || value.ok_or_else(|| err(file, line, option, "needs a value (option=value)"));
        match option {
            "fsync" | "fdatasync" => {
                let n = int(file, line, option, need()?, 0, u32::MAX as u64)? as u32;
                let other = if option == "fsync" { "fdatasync" } else { "fsync" };
                if n > 0 && self.fsync_blocks > 0 && self.lines.iter().any(|(o, _)| o == other) {
                    return Err(err(file, line, option, format!(
                        "`{other}` is set too: both are one flush command to a block device; set one of them"
                    )));
                }
                self.fsync_blocks = n;
            }
            "end_fsync" => self.end_fsync = boolean(file, line, option, value)?,
            "fsync_on_close" => self.fsync_on_close = boolean(file, line, option, value)?,
            "sync" => {
                // options.c: a string option with these values (O_SYNC, O_DSYNC, off).
                self.sync_writes = match value.map(str::trim) {
                    Some("1" | "sync" | "dsync") => true,
                    Some("0" | "none") => false,
                    v => {
                        return Err(err(
                            file,
                            line,
                            option,
                            format!(
                                "`{}` is not one of fio's values: none, 0, sync, 1, dsync",
                                v.unwrap_or("")
                            ),
                        ))
                    }
                };
            }
            "write_barrier" => {
                self.write_barrier = int(file, line, option, need()?, 0, u32::MAX as u64)? as u32;
            }
            "sync_file_range" => {
                return Err(err(
                    file,
                    line,
                    option,
                    "sync_file_range (page-cache writeback of a byte range) is not modelled; use fsync=N \
                     or fdatasync=N for a flush every N writes",
                ))
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// How the job's engine issues its `fsync=N` syncs.
    pub fn sync_issue(&self) -> SyncIssue {
        if self.engine == EngineKind::Async && QUEUED_SYNC.contains(&self.ioengine.as_str()) {
            SyncIssue::Queued
        } else {
            SyncIssue::InThread
        }
    }

    /// Refuses flushes flashgc would not issue as fio does (`file` names the job file).
    pub(super) fn check_flushes(&self, file: &str) -> Result<()> {
        if self.fsync_blocks == 0 || !self.rw.writes() || self.engine == EngineKind::Sync {
            return Ok(());
        }
        let option = if self.lines.iter().any(|(o, _)| o == "fdatasync") {
            "fdatasync"
        } else {
            "fsync"
        };
        let engine = self.ioengine.as_str();
        let why = if NO_DATASYNC.contains(&engine) && option == "fdatasync" {
            Some(format!(
                "ioengine={engine} answers fdatasync with EINVAL (fio 3.33 handles DDIR_SYNC only), so fio \
                 fails the job; use fsync={}",
                self.fsync_blocks
            ))
        } else if QUEUED_SYNC.contains(&engine) || IN_THREAD_SYNC.contains(&engine) {
            None
        } else if engine == "io_uring_cmd" || engine == "xnvme" {
            Some(format!(
                "ioengine={engine} fails a sync (fio 3.33: {}), so fio fails the job",
                if engine == "xnvme" {
                    "ENOSYS"
                } else {
                    "ENOTSUP"
                }
            ))
        } else {
            Some(format!(
                "how ioengine={engine} issues a sync is not in fio 3.33's source flashgc follows (modelled: \
                 synchronous engines, {}, {})",
                IN_THREAD_SYNC.join(", "),
                QUEUED_SYNC.join(", ")
            ))
        };
        match why {
            Some(w) => Err(err(file, self.line_of(option), option, w)),
            None => Ok(()),
        }
    }

    /// Whether the job's last pass runs past its last request as fio's do_io does when
    /// its byte limit (`loops` x `io_size` or `size`) is not reached when the file's blocks
    /// run out (then the sync due after the last write is issued): jobs of one block size
    /// that are not time based nor bounded by `number_ios`.
    pub fn runs_past_end(&self, r: &super::CloneRegion) -> bool {
        let bs = self.bs.max(1);
        self.block_sizes.is_none()
            && !self.time_based
            && self.number_ios.is_none()
            && self.rw.trim_mode().per_block() == 1
            && self.plain_requests(r).saturating_mul(bs)
                < r.io_bytes.saturating_mul(self.loops.max(1) as u64)
    }

    /// Whether the job flushes at all: it writes (fio's `should_fsync`: `td_write`) and has
    /// `fsync`/`fdatasync`, `end_fsync` or `fsync_on_close`.
    pub fn flushes(&self) -> bool {
        self.rw.writes() && (self.fsync_blocks > 0 || self.end_fsync || self.fsync_on_close)
    }
}
