//! fio's `random_generator=lfsr` for uniform random offsets: a linear-feedback shift
//! register whose cycle visits every block of the region once, in the same order every
//! pass (fio 3.33's `write_iolog` of `rw=randwrite size=40k bs=4k io_size=80k
//! random_generator=lfsr`: 12 36 8 20 4 32 0 16 24 28 KiB, then the same ten again).
//!
//! GC sees that very differently from the random map: each block is rewritten exactly one
//! pass after its last write, so blocks die in the order they were written, as under a
//! sequential pattern. [`BlockCycle`] keeps that property with its own permutation, an
//! affine bijection `(a x i + b) mod blocks` (seeded, `a` coprime with `blocks`), not
//! fio's LFSR taps: the order within a pass differs from fio's, the rewrite distance and
//! the repetition do not.

use crate::workload::synthetic::scatter_multiplier;
use crate::workload::Rng;

/// One permutation of `blocks` blocks, repeated pass after pass.
#[derive(Debug, Clone)]
pub struct BlockCycle {
    blocks: u64,
    a: u64,
    b: u64,
    /// Position in the pass.
    i: u64,
}

impl BlockCycle {
    /// The cycle over `blocks` blocks (at least 1) drawn from `seed`.
    pub fn new(blocks: u64, seed: u64) -> BlockCycle {
        let blocks = blocks.max(1);
        let mut rng = Rng::new(seed ^ 0x6c66_7372);
        let a = scatter_multiplier(&mut rng, blocks);
        let b = rng.below(blocks);
        BlockCycle { blocks, a, b, i: 0 }
    }

    /// Blocks left in the current pass (1..=blocks).
    pub fn left(&self) -> u64 {
        self.blocks - self.i
    }

    /// Whether the next block starts a pass.
    pub fn at_start(&self) -> bool {
        self.i == 0
    }

    /// The next block.
    pub fn next_block(&mut self) -> u64 {
        let x = (self.a as u128 * self.i as u128 + self.b as u128) % self.blocks as u128;
        self.i = (self.i + 1) % self.blocks;
        x as u64
    }
}

#[cfg(test)]
mod tests {
    use super::BlockCycle;

    #[test]
    fn every_block_once_per_pass_in_the_same_order_each_pass() {
        for (blocks, seed) in [(1u64, 1u64), (10, 2), (64, 3), (1000, 4), (4096, 5)] {
            let mut c = BlockCycle::new(blocks, seed);
            let first: Vec<u64> = (0..blocks).map(|_| c.next_block()).collect();
            let mut sorted = first.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..blocks).collect::<Vec<_>>(), "{blocks} blocks");
            for _ in 0..2 {
                let again: Vec<u64> = (0..blocks).map(|_| c.next_block()).collect();
                assert_eq!(
                    again, first,
                    "{blocks} blocks: the next pass repeats the first"
                );
            }
        }
        // Scattered, not sequential.
        let mut c = BlockCycle::new(1000, 7);
        let v: Vec<u64> = (0..10).map(|_| c.next_block()).collect();
        assert!(v.windows(2).any(|w| w[1] != w[0] + 1), "{v:?}");
    }
}
