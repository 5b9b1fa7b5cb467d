//! Host reads served from the controller's write buffer (docs/controller.md, "Reads of a
//! page still being programmed").
//!
//! Deferred commit lets a host read overtake its page's host program (the program still
//! waits in its resource's queue) or suspend it (the program is running): the flash page
//! holds no data yet. A controller keeps a written page in its DRAM write buffer until its
//! program ends and serves such a read from there. So when the scheduler takes a host read
//! that would start before its page's host program has ended, the read reserves nothing
//! on the flash and completes one controller memory access after that start. A read the
//! scheduler places after the program reads the flash as before, which is always the case
//! under first come first served without suspend (the read queues behind the program on
//! the same resource), so those results do not change.
//!
//! Only the host programs in flight are tracked: the waiting ones by page in a small map
//! (bounded by the host operations waiting, like the queues themselves), and the running
//! one per resource in [`Owner`].

use super::Lazy;
use crate::types::Ppn;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The host program reserved last on a resource: its request slot (`u32::MAX`: none, or a
/// host read came after it), its end (moved later by each suspension), and its page.
pub(super) type Owner = (u32, u64, Ppn);

/// No host program reserved last.
pub(super) const NO_OWNER: Owner = (u32::MAX, 0, 0);

/// Hashes a page number with one multiplication (keys are page numbers, not attacker
/// controlled; the map's index takes the product's low bits, its tags the high ones).
#[derive(Default, Clone, Copy)]
pub(super) struct PageHasher(u64);

impl Hasher for PageHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    #[inline(always)]
    fn write_u32(&mut self, n: u32) {
        self.0 = (n as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Host programs waiting in the queues, by page (a count: a page is programmed once
/// between erases, and its segment's erase waits for them, but the count keeps this exact
/// whatever the order).
pub(super) type WaitingPrograms = HashMap<Ppn, u32, BuildHasherDefault<PageHasher>>;

impl Lazy {
    /// A host program of `ppn` starts waiting.
    #[inline(always)]
    pub(super) fn program_waits(&mut self, ppn: Ppn) {
        *self.programs.entry(ppn).or_insert(0) += 1;
    }

    /// A waiting host program of `ppn` is committed.
    #[inline(always)]
    pub(super) fn program_committed(&mut self, ppn: Ppn) {
        if let Some(n) = self.programs.get_mut(&ppn) {
            *n -= 1;
            if *n == 0 {
                self.programs.remove(&ppn);
            }
        }
    }

    /// Whether a host read of `ppn` on resource `cell` (free at `free`) starting at `at`
    /// would start before its page's host program ends: that program still waits (it
    /// would be committed after the read, so it starts later), or it is the operation
    /// running on `cell` and the read would suspend it (`at < free`).
    #[inline(always)]
    pub(super) fn read_before_program(&self, ppn: Ppn, cell: usize, at: u64, free: u64) -> bool {
        if !self.programs.is_empty() && self.programs.contains_key(&ppn) {
            return true;
        }
        let (o, end, page) = self.owner[cell];
        at < free && o != u32::MAX && end == free && page == ppn
    }

    /// Rebuilds the waiting programs from the queues (after a restore).
    pub(super) fn recount_programs(&mut self) {
        self.programs.clear();
        let pages: Vec<Ppn> = self
            .pending
            .iter()
            .flat_map(|q| q.q[1].iter().map(|p| p.ppn))
            .collect();
        for ppn in pages {
            self.program_waits(ppn);
        }
    }
}
