//! fio's `blockalign` (random offsets on a grid of their own), `bs_unaligned` (lengths
//! not restricted to multiples of the smallest size) and backwards sequential offsets
//! (`rw=write:-SKIP`), as [`Alignment`] and [`Backwards`] on a [`FioJob`].
//!
//! What follows fio 3.33, read from its source:
//!
//! * `blockalign=A[,A]` (options.c `ba`, init.c `fixup_options`, io_u.c `last_block`,
//!   `get_next_block`): a random offset of direction d is `b x ba[d]` with b uniform in
//!   `[0, lastb)`, `lastb = (size - (min_bs[d] - ba[d] if min_bs[d] > ba[d])) / ba[d]`;
//!   so the smallest length always fits. Its default is `min_bs[d]`, and fio resets it to
//!   that on sequential patterns (`!td_random`). Any other value turns the random map off
//!   ("fio: Any use of blockalign= turns off randommap"): offsets are drawn with
//!   replacement, as with `norandommap`.
//! * `bs_unaligned` (io_u.c `get_next_buflen`): `bsrange` lengths are `min + floor(max x
//!   u)` capped at max, not rounded down to a multiple of min; `bssplit` entries are used
//!   as written. One length (`min_bs == max_bs`) is unaffected.
//! * `rw=read:-SKIP` (options.c `str_rw_cb`: a signed `ddir_seq_add`; io_u.c
//!   `get_next_seq_offset`): the next request starts `bs - SKIP` after the last one; a
//!   start before the region's start wraps to `size - SKIP`. The first request of a pass
//!   is at the region's start when it starts at byte 0 of the device; for a region at
//!   offset X > 0, fio's rewind sets its last position to `size` (a relative value where an
//!   absolute one is expected), so the first request starts at `size - X - SKIP` (relative)
//!   when that is not negative, else at `size - SKIP` ([`Backwards::first_of`]).
//!
//! What flashgc's pages force: lengths and offsets are whole LPNs. `blockalign` must be a
//! multiple of the LPN size (fio takes any byte count). An unaligned length of n bytes
//! writes every LPN its bytes touch (`o / L ..= (o + n - 1) / L`, as trace requests do:
//! docs/traces.md), so a partly covered LPN counts as a whole page write and host bytes
//! count whole LPNs.

use super::{BlockSizeMix, FioJob, Inner, Rw, Sizes};
use crate::error::{Error, Result};
use crate::workload::fio::Dist;
use crate::workload::{Op, Request, Workload};

/// fio's `blockalign` and `bs_unaligned` for one job.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Alignment {
    /// Grid of random offsets per direction (reads, writes), bytes; None: the direction's
    /// smallest length (fio's default).
    pub blockalign: [Option<u64>; 2],
    /// `bs_unaligned`: `bsrange` and `bssplit` lengths are not rounded down to a multiple
    /// of the smallest length.
    pub bs_unaligned: bool,
}

impl Alignment {
    /// Whether nothing is set (serialised jobs leave it out).
    pub fn is_default(&self) -> bool {
        *self == Alignment::default()
    }
}

/// A backwards sequential job (`rw=write:-SKIP`, a negative `ddir_seq_add`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Backwards {
    /// SKIP, bytes: each request starts `bs - back` after the last one (at least `bs`, so
    /// the job moves backwards or, at `bs`, stays).
    pub back: u64,
    /// Where each pass's first request starts, bytes from the region's start
    /// ([`Backwards::first_of`]).
    pub first: u64,
}

impl Backwards {
    /// The first request's start, bytes from the region's start, of a pass over a region
    /// of `size` bytes at byte `offset` of the device (io_u.c `get_next_seq_offset`: the
    /// rewind on `last_pos == file_offset`, then `pos - file_offset + ddir_seq_add`, a
    /// negative result wrapping to `size + ddir_seq_add`).
    pub fn first_of(offset: u64, size: u64, back: u64) -> u64 {
        if offset == 0 || size == offset {
            return 0;
        }
        match (size as i128 - offset as i128) - back as i128 {
            q if q < 0 => size.saturating_sub(back),
            q => q as u64,
        }
    }
}

impl FioJob {
    /// The smallest length of direction `op`, bytes (fio's `min_bs`).
    fn min_bs(&self, op: Op) -> u64 {
        self.block_sizes
            .as_ref()
            .map_or(self.bs, |m| m.of(op).min())
    }

    /// The grid of direction `op`'s random offsets, bytes (fio's `ba`).
    pub fn blockalign_of(&self, op: Op) -> u64 {
        let d = (op != Op::Read) as usize;
        self.align.blockalign[d].unwrap_or_else(|| self.min_bs(op))
    }

    /// Whether a direction the job uses places its random offsets on a grid other than
    /// its smallest length (sequential patterns ignore `blockalign`, as fio).
    pub fn realigned(&self) -> bool {
        let random = matches!(self.rw, Rw::RandRw | Rw::RandRead | Rw::RandWrite);
        let (reads, writes) = self.directions();
        random
            && [(reads, Op::Read), (writes, Op::Write)]
                .iter()
                .any(|&(used, op)| used && self.blockalign_of(op) != self.min_bs(op))
    }

    /// The backwards step and the first request's LPN of a sequential job over `region`
    /// LPNs in requests of `pages` LPNs of `lpn_size` bytes; None: the job goes forwards.
    pub(super) fn backwards_pages(
        &self,
        region: u64,
        pages: u64,
        lpn_size: u32,
    ) -> Result<Option<(u64, u64)>> {
        let Some(b) = self.backwards else {
            return Ok(None);
        };
        let lpn = lpn_size as u64;
        let refuse = |why: String| Err(Error::config("fio.rw", why));
        if b.back % lpn != 0 || b.first % lpn != 0 {
            return refuse(format!(
                "a skip of -{} bytes must be a multiple of the LPN size {lpn_size}",
                b.back
            ));
        }
        let (back, first) = (b.back / lpn, b.first / lpn);
        if back < pages {
            // fio moves forwards then, each request overlapping the last.
            return refuse(format!(
                "a backwards skip of {} bytes is smaller than the block size {}: the job would move forwards                  over overlapping requests, which flashgc does not model",
                b.back, self.bs
            ));
        }
        if back > region || first + pages > region {
            return refuse(format!(
                "a backwards skip of {} bytes does not fit the region of {} bytes",
                b.back,
                region * lpn
            ));
        }
        if self.numjobs > 1 {
            return Err(Error::config(
                "fio.numjobs",
                "each fio job keeps its own backwards position: run the clones as host flows",
            ));
        }
        Ok(Some((back, first)))
    }

    /// The stream of a random job whose offsets are realigned ([`FioJob::realigned`]):
    /// one grid for the directions it uses places them through a plain job of that grid's
    /// length over the region less `min_bs - ba` (fio's `last_block`), each request then
    /// resized; grids that differ per direction, or a block-size mix, go to the mixed
    /// stream, which places each direction on its own grid.
    pub(super) fn aligned_workload(
        &self,
        logical_pages: u64,
        lpn_size: u32,
    ) -> Result<super::FioWorkload> {
        let lpn = lpn_size as u64;
        let (reads, writes) = self.directions();
        let used: Vec<Op> = [(reads, Op::Read), (writes, Op::Write)]
            .into_iter()
            .filter(|u| u.0)
            .map(|u| u.1)
            .collect();
        for &op in &used {
            let a = self.blockalign_of(op);
            if a == 0 || a % lpn != 0 {
                return Err(Error::config(
                    "fio.blockalign",
                    format!(
                        "{a} must be a positive multiple of the LPN size {lpn_size} (flashgc addresses whole LPNs)"
                    ),
                ));
            }
        }
        if matches!(self.dist, Dist::RandomMap | Dist::RandomMapFresh) {
            return Err(Error::config(
                "fio.blockalign",
                "fio turns the random map off with blockalign (\"Any use of blockalign= turns off randommap\"): \
                 give norandommap",
            ));
        }
        if matches!(self.dist, Dist::Lfsr | Dist::LfsrFresh) {
            // fio's LFSR counts blocks of `min_bs` while the offset multiplies by `ba`.
            return Err(Error::config(
                "fio.blockalign",
                "lfsr with a blockalign other than the block size is not modelled (fio's lfsr counts blocks of the \
                 block size, its offsets multiply by blockalign)",
            ));
        }
        let (_, mix) = self.resolved();
        let grids_differ =
            reads && writes && self.blockalign_of(Op::Read) != self.blockalign_of(Op::Write);
        if mix.is_some() || grids_differ {
            let mix = mix.unwrap_or_else(|| BlockSizeMix {
                option: "bs".into(),
                read: Sizes::Fixed(self.bs),
                write: Sizes::Fixed(self.bs),
            });
            mix.check(lpn_size)?;
            return self.mixed_workload(&mix, logical_pages, lpn_size);
        }
        // One length and one grid for the directions used.
        let op = used.first().copied().unwrap_or(Op::Write);
        let bs = self.min_bs(op);
        if bs == 0 || bs % lpn != 0 || bs / lpn > 1 << 16 {
            return Err(Error::config(
                "fio.bs",
                format!("{bs} must be a positive multiple of the LPN size {lpn_size}, at most 65536 LPNs"),
            ));
        }
        let a = self.blockalign_of(op);
        let region = self.size.map_or(logical_pages, |b| b / lpn);
        let pages = bs / lpn;
        if region < pages {
            return Err(Error::config(
                "fio.size",
                "the region is smaller than one block",
            ));
        }
        // fio's `last_block`: the region less what the smallest length sticks out past
        // the grid, so that every block's request fits.
        let grid_region = region - pages.saturating_sub(a / lpn);
        let grid = FioJob {
            bs: a,
            block_sizes: None,
            size: Some(grid_region * lpn),
            align: Default::default(),
            ..self.clone()
        };
        let inner = grid.workload(logical_pages, lpn_size)?;
        Ok(super::FioWorkload {
            inner: Inner::Resized {
                inner: Box::new(inner),
                pages: pages as u32,
            },
            desc: self.describe(),
        })
    }
}

/// The requests of `inner` (on a grid of blockalign), each `pages` LPNs long.
pub(super) fn fill_resized(
    inner: &mut super::FioWorkload,
    pages: u32,
    buf: &mut Vec<Request>,
    max: usize,
) -> Result<()> {
    let from = buf.len();
    inner.fill(buf, max)?;
    for r in &mut buf[from..] {
        r.pages = pages;
    }
    Ok(())
}

#[cfg(test)]
#[path = "align_tests.rs"]
mod tests;
