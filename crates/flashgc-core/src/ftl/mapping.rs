//! Page-level mapping: L2P (LPN -> PPN), P2L (PPN -> LPN) and a validity bitmap over PPNs.
//!
//! 4 bytes per LPN + 4 bytes per physical page + 1 bit per physical page. A P2L entry is
//! meaningful only while its validity bit is set, so invalidation touches the bitmap only.

use crate::mem::{big_vec, prefetch_ptr};
use crate::types::{Lpn, Ppn, NONE};

/// The mapping tables.
#[derive(Debug, Clone)]
pub struct Mapping {
    pub(crate) l2p: Vec<Ppn>,
    pub(crate) p2l: Vec<Lpn>,
    pub(crate) valid: Vec<u64>,
}

impl Mapping {
    /// Empty mapping for `logical` LPNs and `physical` pages.
    pub fn new(logical: u64, physical: u64) -> Mapping {
        Mapping {
            l2p: big_vec(logical as usize, NONE),
            p2l: big_vec(physical as usize, NONE),
            valid: big_vec((physical as usize).div_ceil(64), 0),
        }
    }
    /// PPN of `lpn`, or `None` if unmapped.
    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        let p = self.l2p[lpn as usize];
        (p != NONE).then_some(p)
    }
    /// LPN stored at `ppn` if that page is valid.
    #[inline]
    pub fn reverse(&self, ppn: Ppn) -> Option<Lpn> {
        self.is_valid(ppn).then(|| self.p2l[ppn as usize])
    }
    /// Hints the CPU to fetch `lpn`'s L2P entry: random L2P accesses miss the cache on
    /// large devices, and independent misses issued early overlap instead of queueing.
    #[inline(always)]
    pub fn prefetch(&self, lpn: Lpn) {
        if let Some(e) = self.l2p.get(lpn as usize) {
            prefetch_ptr(e as *const Ppn as *const i8);
        }
    }
    /// Hints the CPU to fetch the validity word of `lpn`'s current page, the word a write or
    /// trim of `lpn` clears (a miss per user write on large devices). Reads the L2P entry,
    /// so it pays only a few requests after [`Mapping::prefetch`] of the same LPN, once
    /// that entry has arrived.
    #[inline(always)]
    pub fn prefetch_valid_word(&self, lpn: Lpn) {
        if let Some(&ppn) = self.l2p.get(lpn as usize) {
            if let Some(w) = self.valid.get((ppn >> 6) as usize) {
                prefetch_ptr(w as *const u64 as *const i8);
            }
        }
    }
    /// Maps the `lpns` (relocated in order) to the consecutive pages starting at `first`,
    /// all in one segment and unwritten, and marks them valid: GC's relocation of a run of
    /// pages to one stream. `next[k]` is the LPN relocated a few pages after `lpns[k]`,
    /// whose L2P entry is prefetched meanwhile (random stores on large devices).
    #[inline]
    pub(crate) fn map_run(&mut self, lpns: &[Lpn], next: &[Lpn], first: Ppn) {
        let first = first as usize;
        for (k, &lpn) in lpns.iter().enumerate() {
            if let Some(&n) = next.get(k) {
                self.prefetch(n);
            }
            self.l2p[lpn as usize] = (first + k) as Ppn;
        }
        self.p2l[first..first + lpns.len()].copy_from_slice(lpns);
        self.set_valid_range(first as u64, lpns.len() as u64);
    }
    /// Is physical page `ppn` valid?
    #[inline]
    pub fn is_valid(&self, ppn: Ppn) -> bool {
        self.valid[(ppn >> 6) as usize] >> (ppn & 63) & 1 == 1
    }
    #[inline]
    pub(crate) fn set_valid(&mut self, ppn: Ppn) {
        self.valid[(ppn >> 6) as usize] |= 1 << (ppn & 63);
    }
    #[inline]
    pub(crate) fn clear_valid(&mut self, ppn: Ppn) {
        self.valid[(ppn >> 6) as usize] &= !(1 << (ppn & 63));
    }
    /// Sets the validity bits of pages `[start, start + len)`.
    pub(crate) fn set_valid_range(&mut self, start: u64, len: u64) {
        for_each_word(start, len, |w, mask| self.valid[w] |= mask);
    }
    /// Clears the validity bits of pages `[start, start + len)`.
    pub(crate) fn clear_range(&mut self, start: u64, len: u64) {
        for_each_word(start, len, |w, mask| self.valid[w] &= !mask);
    }
    /// Calls `f(ppn)` for each valid page in `[start, start + len)`, in PPN order.
    #[inline]
    pub(crate) fn for_each_valid(&self, start: u64, len: u64, mut f: impl FnMut(Ppn)) {
        let end = start + len;
        let mut p = start;
        // The loop of `for_each_word`, written out: through its closure GC's hot loop
        // compiled to 1 % more instructions in all (cachegrind, 0.5 GiB uniform greedy).
        while p < end {
            let (w, mask, n) = word_span(p, end);
            let mut word = self.valid[w] & mask;
            while word != 0 {
                let b = word.trailing_zeros() as u64;
                f(((w as u64) << 6 | b) as Ppn);
                word &= word - 1;
            }
            p += n;
        }
    }
    /// Bytes used by (L2P, P2L, validity bitmap).
    pub fn memory_bytes(&self) -> (u64, u64, u64) {
        (
            self.l2p.len() as u64 * 4,
            self.p2l.len() as u64 * 4,
            self.valid.len() as u64 * 8,
        )
    }
}

/// Calls `f(word, mask)` for each 64-bit word of a bitmap that pages `[start, start + len)`
/// touch, `mask` holding their bits in it.
#[inline]
fn for_each_word(start: u64, len: u64, mut f: impl FnMut(usize, u64)) {
    let end = start + len;
    let mut p = start;
    while p < end {
        let (w, mask, n) = word_span(p, end);
        f(w, mask);
        p += n;
    }
}

/// The bitmap word holding page `p`, the mask of the pages from `p` up to `end` (or the
/// word's end) in it, and how many pages that is.
#[inline(always)]
fn word_span(p: u64, end: u64) -> (usize, u64, u64) {
    let bit = p & 63;
    let n = (64 - bit).min(end - p);
    let mask = if n == 64 {
        u64::MAX
    } else {
        ((1u64 << n) - 1) << bit
    };
    ((p >> 6) as usize, mask, n)
}
