//! The request stream of a fio job with a block-size mix ([`BlockSizeMix`]): per request
//! the direction, then the offset on that direction's grid of its smallest size, then the
//! length ([`LengthDraw`], fio's `get_next_buflen`) that fits before the region's end.
//! Jobs without a mix never come here, so their streams are unchanged.

use super::block_sizes::LengthDraw;
use super::{Alignment, BlockSizeMix, Dist, FioJob, FioWorkload, Inner, Rw};
use crate::error::{Error, Result};
use crate::workload::{Op, Request, Rng, Workload};

/// Seeds of the mixed stream's parts, derived from the job's seed so that the parts are
/// independent (fio seeds its `bsrange_state` apart from the offset state too).
const READ_OFFSETS: u64 = 0x5244_4f46; // "RDOF"
const WRITE_OFFSETS: u64 = 0x5752_4f46; // "WROF"
const LENGTHS: u64 = 0x4253_4c45; // "BSLE"

/// Offsets of one direction: a random generator over `region / min` blocks of `min`
/// LPNs that draws this direction only.
pub(super) type Offsets = Box<dyn Workload + Send>;

/// Where the requests of a mixed job start.
pub(super) enum Placement {
    /// Random, one grid (the directions' smallest sizes are equal, or the job draws one
    /// direction): the plain job's stream of that size gives the direction and the block.
    Shared(Offsets),
    /// Random, a grid per direction (their smallest sizes differ): the direction from
    /// `rng`, the block from that direction's generator (so reads and writes have hot
    /// sets of their own with a skewed distribution).
    Random {
        rng: Rng,
        read_ratio: f64,
        read: (Offsets, u64),
        write: (Offsets, u64),
    },
    /// Sequential: one cursor (LPN) per job, served round robin, each advancing by the
    /// length it just issued; with `unaligned` (the LPN size, `bs_unaligned`) the cursors
    /// count bytes, and a request covers every LPN its bytes touch.
    Seq {
        op: Op,
        cursors: Vec<u64>,
        next_job: usize,
        unaligned: Option<u64>,
    },
}

/// A mixed-size job's stream (infinite; the run or the flow's byte volume ends it).
pub struct MixedStream {
    placement: Placement,
    lengths: LengthDraw,
    region: u64,
    buf: Vec<Request>,
}

impl MixedStream {
    pub(super) fn new(placement: Placement, lengths: LengthDraw, region: u64) -> MixedStream {
        MixedStream {
            placement,
            lengths,
            region,
            buf: Vec::with_capacity(1),
        }
    }

    /// The seed of a part (`READ_OFFSETS`, `WRITE_OFFSETS`, `LENGTHS`) of a job seeded
    /// with `seed`.
    pub(super) fn seeds(seed: u64) -> (u64, u64, u64) {
        (seed ^ READ_OFFSETS, seed ^ WRITE_OFFSETS, seed ^ LENGTHS)
    }

    fn next(&mut self) -> Result<Request> {
        match &mut self.placement {
            Placement::Shared(gen) => {
                self.buf.clear();
                gen.fill(&mut self.buf, 1)?;
                let (op, lpn) = self.buf.first().map_or((Op::Write, 0), |r| (r.op, r.lpn));
                let len = self.lengths.next(op, self.region - lpn);
                Ok(Request::untimed(op, lpn, len as u32))
            }
            Placement::Random {
                rng,
                read_ratio,
                read,
                write,
            } => {
                let op = rng.read_or_write(*read_ratio);
                let (gen, min) = match op {
                    Op::Read => read,
                    _ => write,
                };
                self.buf.clear();
                gen.fill(&mut self.buf, 1)?;
                // The block generator's requests start on its grid (blockalign, LPNs).
                let lpn = self.buf.first().map_or(0, |r| r.lpn);
                let len = self.lengths.next(op, self.region - lpn);
                debug_assert!(lpn % *min == 0);
                Ok(Request::untimed(op, lpn, len as u32))
            }
            Placement::Seq {
                op,
                cursors,
                next_job,
                unaligned: Some(lpn),
            } => {
                let (op, lpn) = (*op, *lpn);
                let region = self.region * lpn;
                let c = &mut cursors[*next_job];
                if *c + self.lengths.min_pages(op) * lpn > region {
                    *c = 0;
                }
                let len = self.lengths.next_bytes(op, region - *c);
                let first = *c / lpn;
                let req = Request::untimed(op, first, ((*c + len).div_ceil(lpn) - first) as u32);
                *c += len;
                *next_job = (*next_job + 1) % cursors.len();
                Ok(req)
            }
            Placement::Seq {
                op,
                cursors,
                next_job,
                unaligned: None,
            } => {
                let op = *op;
                let min = self.lengths.min_pages(op);
                let c = &mut cursors[*next_job];
                if *c + min > self.region {
                    // fio: the smallest size does not fit, the pass ends; the next starts
                    // at the region's start.
                    *c = 0;
                }
                let len = self.lengths.next(op, self.region - *c);
                let req = Request::untimed(op, *c, len as u32);
                *c += len;
                *next_job = (*next_job + 1) % cursors.len();
                Ok(req)
            }
        }
    }
}

impl Workload for MixedStream {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()> {
        for _ in 0..max {
            let r = self.next()?;
            buf.push(r);
        }
        Ok(())
    }
    fn describe(&self) -> String {
        String::new()
    }
    fn is_infinite(&self) -> bool {
        true
    }
}

impl FioJob {
    /// The stream of a job with a block-size mix (checked): per direction a plain job of
    /// that direction's smallest size places the requests (its checks are the job's), the
    /// mix's [`LengthDraw`] sizes them (module `mixed`).
    pub(super) fn mixed_workload(
        &self,
        mix: &BlockSizeMix,
        logical_pages: u64,
        lpn_size: u32,
    ) -> Result<FioWorkload> {
        if matches!(self.dist, Dist::RandomMap | Dist::RandomMapFresh) {
            // fio's map marks every block a request covers and checks only the first;
            // that is not modelled for requests of several lengths.
            return Err(Error::config(
                "fio.random_distribution",
                "fio's random map with a block-size mix is not modelled (give norandommap)",
            ));
        }
        if matches!(self.dist, Dist::Lfsr | Dist::LfsrFresh) {
            // fio itself repeats blocks then (its documentation of random_generator).
            return Err(Error::config(
                "fio.random_generator",
                "lfsr with a block-size mix is not modelled (fio's lfsr works with one block size)",
            ));
        }
        if self.backwards.is_some() {
            return Err(Error::config(
                "fio.rw",
                "backwards sequential offsets are modelled with one block size",
            ));
        }
        let lpn = lpn_size as u64;
        let (reads, writes) = self.directions();
        let (read_seed, write_seed, length_seed) = MixedStream::seeds(self.seed);
        let lengths = LengthDraw::new(mix, lpn_size, length_seed, self.align.bs_unaligned);
        // A sequential cursor counts bytes when lengths need not be whole LPNs.
        let unit = if self.align.bs_unaligned { lpn } else { 1 };
        // Each direction's grid: its blockalign (default: its smallest length).
        let grid = |op: Op| {
            let d = (op != Op::Read) as usize;
            self.align.blockalign[d].unwrap_or(mix.of(op).min())
        };
        let plain = |rw: Rw, op: Op, seed: u64| -> Result<(Offsets, u64)> {
            let job = FioJob {
                rw,
                bs: mix.of(op).min(),
                block_sizes: None,
                align: Alignment {
                    blockalign: [Some(grid(op)); 2],
                    bs_unaligned: false,
                },
                seed,
                ..self.clone()
            };
            Ok((
                Box::new(job.workload(logical_pages, lpn_size)?),
                grid(op) / lpn,
            ))
        };
        let region = self.size.map_or(logical_pages, |b| b / lpn);
        let placement = match self.rw {
            Rw::Read | Rw::Write => {
                let op = if self.rw == Rw::Write {
                    Op::Write
                } else {
                    Op::Read
                };
                // Checks the region against the smallest size, as a plain job.
                plain(self.rw, op, self.seed)?;
                let min = lengths.min_pages(op);
                let slots = region / min;
                let per = (slots / self.numjobs as u64).max(1);
                Placement::Seq {
                    op,
                    cursors: (0..self.numjobs as u64)
                        .map(|j| (j * per) % slots * min * unit)
                        .collect(),
                    next_job: 0,
                    unaligned: self.align.bs_unaligned.then_some(lpn),
                }
            }
            // One grid for the directions the job draws: one offset stream, as the plain
            // job's (one hot set for reads and writes, the direction drawn first).
            _ if !(reads && writes)
                || (mix.read.min() == mix.write.min() && grid(Op::Read) == grid(Op::Write)) =>
            {
                let op = if writes { Op::Write } else { Op::Read };
                Placement::Shared(plain(self.rw, op, self.seed)?.0)
            }
            // Grids of their own (fio's `blockalign` per direction): a stream each.
            _ => Placement::Random {
                rng: Rng::new(self.seed),
                read_ratio: 1.0 - self.rwmixwrite / 100.0,
                read: plain(Rw::RandRead, Op::Read, read_seed)?,
                write: plain(Rw::RandWrite, Op::Write, write_seed)?,
            },
        };
        Ok(FioWorkload {
            inner: Inner::Mixed(MixedStream::new(placement, lengths, region)),
            desc: self.describe(),
        })
    }
}
