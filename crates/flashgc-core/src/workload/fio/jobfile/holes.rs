//! Holes in a sequential job (`rw=write:SKIP`, fio's `ddir_seq_add`): each request starts
//! `bs + SKIP` after the one before it.
//!
//! fio 3.33 (io_u.c `get_next_seq_offset`, `get_next_offset`; its logs): the first request
//! of a pass is at the region's start; a start at or past the region's end fails, which
//! ends the pass and, without `io_size`, the job (`keep_running`: the file is done; a
//! 40 KiB region with `rw=write:4k` issues 0 8 16 24 32 KiB and stops). Only a region
//! that is the whole device wraps instead (fio compares the next start with the device's
//! size first and goes back to the start), so its pass ends where an engine's passes end:
//! at `size` bytes with an asynchronous engine, at the volume with a synchronous one;
//! unless a sweep's last request ends exactly at the device's end, where the next start
//! fails (`last_pos` at the file's size) and the pass ends as in a smaller region
//! (64 MiB + 1 block of 4 KiB blocks with `rw=write:4k`: 8237 requests, one sweep).
//! A backwards sequence (`rw=write:-SKIP`) always wraps (to the region's end), so its
//! passes end as a wrapping region's do.

use super::{CloneRegion, EngineKind, JobSpec, SizeSpec};
use crate::error::Result;

impl JobSpec {
    /// Where a sweep's last request ends, bytes from the region's start.
    fn sweep_end(&self, r: &CloneRegion) -> u64 {
        let stride = self.bs.max(1) + self.seq_skip;
        (r.size.div_ceil(stride) - 1) * stride + self.bs
    }

    /// Whether the clone's holes wrap at the device's end instead of ending a pass.
    fn holes_wrap(&self, r: &CloneRegion) -> bool {
        // A backwards sequence wraps to the region's end and never fails.
        self.seq_back > 0 || r.offset == 0 && r.size >= r.room && self.sweep_end(r) < r.size
    }

    /// The requests in a pass of a job with holes (Some(None): the pass runs to the
    /// volume); None for a job without.
    pub(super) fn holed_pass(&self, r: &CloneRegion) -> Option<Option<u64>> {
        if (self.seq_skip == 0 && self.seq_back == 0) || !self.rw.sequential() {
            return None;
        }
        let bs = self.bs.max(1);
        Some(if self.holes_wrap(r) {
            (self.engine == EngineKind::Async && !self.time_based).then(|| r.size.div_ceil(bs))
        } else {
            Some(r.size.div_ceil(bs + self.seq_skip))
        })
    }

    /// Requests of a job with holes whose passes end on a failed start and that has no
    /// `io_size`: its `loops` passes, as fio stops once the file is done; None otherwise
    /// (the usual count applies).
    pub(super) fn holed_requests(&self, r: &CloneRegion) -> Option<u64> {
        let pass = self.holed_pass(r)??;
        if self.holes_wrap(r) || self.io_size.is_some() {
            return None;
        }
        let loops = self.loops.max(1) as u64;
        let n = pass
            .saturating_mul(loops)
            .min(r.io_bytes.saturating_mul(loops).div_ceil(self.bs.max(1)));
        Some(
            self.number_ios
                .map_or(n, |k| n.min(k.saturating_mul(loops)))
                .max(1),
        )
    }

    /// Requests after which a holed stream starts over before it wraps: an asynchronous
    /// engine's pass of `size` bytes on the whole device.
    pub(super) fn holed_repeat(&self, r: &CloneRegion) -> Option<u64> {
        self.holes_wrap(r)
            .then(|| self.holed_pass(r))
            .flatten()
            .flatten()
    }

    /// Refuses holes where they are not modelled: several block sizes, and a region that
    /// is not whole blocks (where fio's bound is the region's byte, not its last block).
    pub(super) fn check_holes(&self, file: &str, r: &CloneRegion) -> Result<()> {
        self.check_backwards(file, r)?;
        if self.seq_skip == 0 || !self.rw.sequential() {
            return Ok(());
        }
        let why = if self.block_sizes.is_some() {
            "holes are modelled with one block size"
        } else if r.offset == 0 && r.size >= r.room && self.sweep_end(r) > r.size {
            "a sweep's last request would run past the device's end"
        } else if r.size % self.bs != 0
            || matches!(self.size, Some(SizeSpec::Bytes(b)) if b % self.bs != 0)
        {
            "holes need a region of whole blocks"
        } else {
            return Ok(());
        };
        Err(self.rw_error(file, why))
    }
}
