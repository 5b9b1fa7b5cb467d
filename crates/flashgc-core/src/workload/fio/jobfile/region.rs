//! Where a job's clones address the device, as fio places them: `offset`,
//! `offset_increment` (clone j starts at `offset + j x offset_increment`), `size` and
//! `io_size`, percentages included.
//!
//! fio's sources: `get_start_offset` (filesetup.c) for the start, `setup_files` for the
//! region's size and the volume. On a block device fio does not extend a region past the
//! device's end; an I/O there fails, so flashgc refuses such a job when it is read.

use super::{err, JobSpec, SizeSpec};
use crate::error::Result;

/// One clone's part of the device, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloneRegion {
    /// First byte the clone addresses.
    pub offset: u64,
    /// Bytes from `offset` the clone addresses.
    pub size: u64,
    /// Bytes the clone transfers (`io_size`, else `size`; `number_ios`, a request count,
    /// is applied by the caller, which knows the lengths of the job's requests).
    pub io_bytes: u64,
    /// Bytes from `offset` to the device's end.
    pub room: u64,
}

impl JobSpec {
    /// Whether the job's clones start at different offsets (`offset_increment` > 0 with
    /// more than one clone).
    pub fn clones_spread(&self, capacity: u64) -> bool {
        self.numjobs > 1 && self.offset_increment.bytes(capacity) > 0
    }

    /// Clone `j`'s region on a device of `capacity` bytes (`file` names the job file in
    /// errors).
    ///
    /// * Start: `offset + j x offset_increment`. When either is a percentage of the device,
    ///   fio rounds the start up to a multiple of `offset_align`, by default the block size
    ///   (`get_start_offset`'s `align`).
    /// * Size: `size` in bytes as given; `size=P%` is P % of the device, at most what lies
    ///   past the start, rounded down to the block size (`setup_files`); no `size` is
    ///   everything past the start.
    /// * Volume: `io_size` in bytes, or as a percentage of the region; else the region.
    /// * A sequential job of one block size whose `size` is not a whole number of blocks
    ///   addresses its last block in full where the device has room, as fio does; its
    ///   volume stays `size`.
    pub fn clone_region(&self, file: &str, capacity: u64, j: u32) -> Result<CloneRegion> {
        let inc = self.offset_increment.bytes(capacity);
        let percent = |s: SizeSpec| matches!(s, SizeSpec::Percent(_));
        let align = percent(self.offset) || percent(self.offset_increment);
        let mut offset = self
            .offset
            .bytes(capacity)
            .saturating_add((j as u64).saturating_mul(inc));
        // fio's `td_min_bs`: the smallest length the job issues.
        let min_bs = self
            .block_sizes
            .as_ref()
            .map_or(self.bs, |m| m.read.min().min(m.write.min()))
            .max(1);
        if align {
            let to = self.offset_align.unwrap_or(min_bs).max(1);
            offset = offset.div_ceil(to).saturating_mul(to);
        }
        // The option that put the clone there, for the error.
        let at = if j > 0 && inc > 0 {
            "offset_increment"
        } else {
            "offset"
        };
        if offset >= capacity {
            return Err(err(
                file,
                self.line_of(at),
                at,
                format!(
                    "job `{}` clone {j} starts at byte {offset}, at or past the device's end ({capacity} bytes)",
                    self.name
                ),
            ));
        }
        let room = capacity - offset;
        let size = match self.size {
            _ if self.fill_device => room,
            None => room,
            Some(SizeSpec::Bytes(b)) => b,
            Some(SizeSpec::Percent(p)) => {
                let s = ((capacity as f64 * p / 100.0) as u64).min(room);
                s - s % min_bs
            }
        };
        if size > room {
            return Err(err(
                file,
                self.line_of("size"),
                "size",
                format!(
                    "job `{}` clone {j}: {size} bytes from byte {offset} run past the device's end ({capacity} bytes; \
                     fio's I/O there would fail)",
                    self.name
                ),
            ));
        }
        if size < min_bs {
            // Without a size the block is what does not fit.
            let at = if self.size.is_some() { "size" } else { "bs" };
            return Err(err(
                file,
                self.line_of(at),
                at,
                format!(
                    "job `{}` clone {j}: its region of {size} bytes from byte {offset} holds no block of {} bytes",
                    self.name, min_bs
                ),
            ));
        }
        let io_bytes = match self.io_size {
            None => size,
            Some(SizeSpec::Bytes(b)) => b,
            Some(SizeSpec::Percent(p)) => (size as f64 * p / 100.0) as u64,
        };
        // A sequential pass issues blocks until it has done `size` bytes, so its last block
        // runs past the region's end where the device has room (fio's
        // `get_next_seq_offset` bounds the offset by the device, not the region); where
        // the device ends, the pass ends a block earlier (`fill_io_u` refuses the block).
        let bs = self.bs.max(1);
        let whole = size.div_ceil(bs).saturating_mul(bs);
        let size = if self.rw.sequential() && self.block_sizes.is_none() && whole <= room {
            whole
        } else {
            size
        };
        Ok(CloneRegion {
            offset,
            size,
            io_bytes,
            room,
        })
    }
}
