//! Block orders that come in passes (fio's random map, its LFSR) and the draw loop over
//! them: when a pass ends the job's generator is restored to how it started, as fio
//! reseeds its generators at each pass (`randrepeat=1`, `clear_io_state`), so every pass
//! repeats the first's draws.

use super::{BlockCycle, RandomMap};
use crate::error::Result;
use crate::workload::{Request, Synthetic, Workload};

/// Where each drawn request's block comes from, pass by pass.
pub(crate) trait PassOrder {
    /// Blocks left before the current pass ends (at least 1).
    fn left(&self) -> u64;
    /// The block for a request whose generator drew `block`.
    fn place(&mut self, block: u64) -> u64;
    /// Whether the next block starts a pass.
    fn at_start(&self) -> bool;
}

impl PassOrder for RandomMap {
    fn left(&self) -> u64 {
        self.free()
    }
    fn place(&mut self, block: u64) -> u64 {
        self.take(block)
    }
    fn at_start(&self) -> bool {
        self.free() == self.blocks()
    }
}

impl PassOrder for BlockCycle {
    fn left(&self) -> u64 {
        BlockCycle::left(self)
    }
    fn place(&mut self, _block: u64) -> u64 {
        self.next_block()
    }
    fn at_start(&self) -> bool {
        BlockCycle::at_start(self)
    }
}

/// Adds `max` requests drawn by `gen` to `buf`, each at the block `order` gives for its
/// draw (`pages` pages per block). With `first` (the generator as it started), a pass ends
/// exactly at its last block and `gen` starts the next one as `first`; without, the draws
/// run on (`randrepeat=0`, `time_based`).
pub(crate) fn fill_passes(
    gen: &mut Synthetic,
    first: Option<&Synthetic>,
    order: &mut impl PassOrder,
    pages: u64,
    buf: &mut Vec<Request>,
    max: usize,
) -> Result<()> {
    let mut n = 0;
    while n < max {
        let want = match first {
            Some(_) => (max - n).min(order.left() as usize),
            None => max - n,
        };
        let from = buf.len();
        gen.fill(buf, want)?;
        for r in &mut buf[from..] {
            r.lpn = order.place(r.lpn / pages) * pages;
        }
        let got = buf.len() - from;
        n += got;
        if let Some(f) = first {
            if order.at_start() {
                *gen = f.clone();
            }
        }
        if got == 0 {
            break;
        }
    }
    Ok(())
}
