//! fio's random map: the blocks a uniform random job has done in the current pass.
//!
//! fio's default for `random_distribution=random` (without `norandommap`) keeps one bit
//! per block of the job's region (`f->io_axmap`). A drawn block already done gives way to
//! the next free one after it, wrapping at the region's end (`__get_next_rand_offset`,
//! `axmap_next_free`, io_u.c and lib/axmap.c); when no block is free the map is reset and
//! the next pass begins (`get_next_rand_block` with `time_based`, or `keep_running`'s next
//! loop when `io_size` exceeds the region). So each block is done once per pass. Reads and
//! writes of a `randrw` job share the job's map.
//!
//! flashgc draws the block with its own generator (fio's Tausworthe numbers are not
//! reproduced) and applies the map exactly. One bit per block: 32 MiB per job for a 1 TiB
//! region of 4 KiB blocks.

/// The done blocks of one job's current pass.
#[derive(Debug, Clone)]
pub struct RandomMap {
    words: Vec<u64>,
    blocks: u64,
    free: u64,
}

impl RandomMap {
    /// An empty map over `blocks` blocks (at least one).
    pub fn new(blocks: u64) -> RandomMap {
        let blocks = blocks.max(1);
        RandomMap {
            words: vec![0; blocks.div_ceil(64) as usize],
            blocks,
            free: blocks,
        }
    }

    /// The block to do for a draw of `block` (below the map's size): `block` itself when
    /// it is free, else the next free block after it (wrapping at the end). The block is
    /// marked done; a pass that this completes starts the next one with an empty map.
    pub fn take(&mut self, block: u64) -> u64 {
        let got = self.free_at_or_after(block);
        self.mark(got);
        if self.free == 0 {
            self.clear();
        }
        got
    }

    /// Blocks in the map.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Blocks not yet done in this pass.
    pub fn free(&self) -> u64 {
        self.free
    }

    /// The block a draw of `block` lands on without marking it: `block` when free, else
    /// the next free one after it, wrapping (fio's `axmap_next_free`). The map must not
    /// be full.
    pub fn free_at_or_after(&self, block: u64) -> u64 {
        let b = block % self.blocks;
        if self.is_free(b) {
            b
        } else {
            self.next_free_after(b)
        }
    }

    /// Marks a free block done, without starting a new pass when that fills the map (a
    /// job that ends its passes itself: `seq_mix`).
    pub fn mark(&mut self, block: u64) {
        debug_assert!(self.is_free(block));
        self.words[(block / 64) as usize] |= 1 << (block % 64);
        self.free -= 1;
    }

    /// Clears the map (a new pass).
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
        self.free = self.blocks;
    }

    fn is_free(&self, b: u64) -> bool {
        self.words[(b / 64) as usize] & (1 << (b % 64)) == 0
    }

    /// The first free block after `b`, wrapping (callers make sure there is one).
    fn next_free_after(&self, b: u64) -> u64 {
        let start = if b + 1 == self.blocks { 0 } else { b + 1 };
        self.first_free_from(start)
            .or_else(|| self.first_free_from(0))
            .unwrap_or(start)
    }

    /// The first free block at or after `from`, up to the map's end.
    fn first_free_from(&self, from: u64) -> Option<u64> {
        let mut w = (from / 64) as usize;
        // Done bits and the bits below `from` in its word count as taken.
        let mut taken = self.words[w] | ((1u64 << (from % 64)) - 1);
        loop {
            if taken != u64::MAX {
                let b = w as u64 * 64 + (!taken).trailing_zeros() as u64;
                return (b < self.blocks).then_some(b);
            }
            w += 1;
            if w == self.words.len() {
                return None;
            }
            taken = self.words[w];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_block_gives_way_to_the_next_free_one_wrapping() {
        // Hand-worked: 5 blocks; draws 3, 3, 4, 3 take 3, 4, 0, 1; the last free one, 2,
        // ends the pass and the map starts empty.
        let mut m = RandomMap::new(5);
        assert_eq!([3, 3, 4, 3].map(|d| m.take(d)), [3, 4, 0, 1]);
        assert_eq!(m.free(), 1);
        assert_eq!(m.take(0), 2);
        assert_eq!(m.free(), 5);
        assert_eq!(m.take(0), 0);
    }

    #[test]
    fn each_block_once_per_pass_across_word_boundaries() {
        let n = 1000;
        let mut m = RandomMap::new(n);
        let mut rng = crate::workload::Rng::new(7);
        for _pass in 0..3 {
            let mut seen = vec![false; n as usize];
            for _ in 0..n {
                let b = m.take(rng.below(n));
                assert!(!seen[b as usize], "block {b} twice in a pass");
                seen[b as usize] = true;
            }
            assert_eq!(m.free(), n);
        }
        // A draw at the last block of a 64-bit word finds the next word's first free block.
        let mut m = RandomMap::new(130);
        assert_eq!(m.take(63), 63);
        assert_eq!(m.take(63), 64);
        assert_eq!(m.take(129), 129);
        assert_eq!(m.take(129), 0);
    }
}
