//! The request stream of a fio job with a block-size mix ([`BlockSizeMix`]): per request
//! the direction, then the offset on that direction's grid of its smallest size, then the
//! length ([`LengthDraw`], fio's `get_next_buflen`) that fits before the region's end.
//! Jobs without a mix never come here, so their streams are unchanged.

use super::block_sizes::LengthDraw;
use crate::error::Result;
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
    /// length it just issued.
    Seq {
        op: Op,
        cursors: Vec<u64>,
        next_job: usize,
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
                // The block generator's requests are `min` LPNs at a multiple of `min`.
                let lpn = self.buf.first().map_or(0, |r| r.lpn);
                let len = self.lengths.next(op, self.region - lpn);
                debug_assert!(lpn % *min == 0);
                Ok(Request::untimed(op, lpn, len as u32))
            }
            Placement::Seq {
                op,
                cursors,
                next_job,
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
