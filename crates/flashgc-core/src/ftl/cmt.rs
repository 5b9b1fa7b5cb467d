//! The cached mapping table (CMT) of a demand-paged L2P (DFTL, Gupta et al., ASPLOS 2009;
//! MQSim's `Cached_Mapping_Table`).
//!
//! The full L2P lives in flash as translation pages of `entries_per_page` entries each
//! (translation page bytes / entry bytes); the controller's DRAM holds the global
//! translation directory (GTD: where each translation page is) and a cache of whole
//! translation pages with least-recently-used replacement. A lookup or update of an LPN
//! whose translation page is cached is a hit. A miss evicts the least recently used page
//! (a dirty one is written back: a translation write) and reads the needed page from
//! flash (a translation read; none when the page was never written). Updates mark the page
//! dirty. GC relocations update cached pages in place; for uncached ones DFTL's batch
//! update reads and rewrites each translation page once per victim.
//!
//! Caching whole translation pages (rather than MQSim's single entries) is what the issue
//! asks for and what page-granular CMTs (TPFTL, DFTL's "translation page" unit) do; it
//! makes the hit ratio depend on spatial locality as in those papers.
//!
//! This module is the replacement bookkeeping only: an intrusive LRU list over translation
//! page numbers (arrays indexed by page, 9 bytes per translation page). The FTL turns its
//! answers into flash operations.

use crate::types::NONE;

/// Parameters of the mapping cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CmtParams {
    /// Translation pages the cache holds.
    pub capacity: u32,
    /// Mapping entries per translation page.
    pub entries_per_page: u32,
    /// Translation pages of the whole table (logical pages / entries per page, rounded up).
    pub pages: u32,
}

const CACHED: u8 = 1;
const DIRTY: u8 = 2;

/// Counters of the mapping cache (the FTL keeps them with its other counters).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TranslationCounters {
    /// Lookups and updates whose translation page was cached.
    pub hits: u64,
    /// Lookups and updates whose translation page was not cached.
    pub misses: u64,
    /// Translation pages read from flash (cache misses of written pages, GC batch updates).
    pub reads: u64,
    /// Translation pages programmed (dirty evictions, GC batch updates).
    pub writes: u64,
    /// Of `reads` and `writes`: the pairs of GC batch updates.
    pub gc_updates: u64,
}

/// LRU bookkeeping over translation pages.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Cmt {
    p: CmtParams,
    prev: Vec<u32>,
    next: Vec<u32>,
    flags: Vec<u8>,
    /// Most recently used.
    head: u32,
    /// Least recently used.
    tail: u32,
    len: u32,
}

/// What an access did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The page was cached.
    Hit,
    /// The page was loaded; `evicted` is the dirty page written back to make room, if any.
    Miss {
        /// Dirty translation page evicted ([`NONE`] when none was).
        evicted: u32,
    },
}

impl Cmt {
    /// An empty cache.
    pub fn new(p: CmtParams) -> Cmt {
        let n = p.pages as usize;
        Cmt {
            p,
            prev: vec![NONE; n],
            next: vec![NONE; n],
            flags: vec![0; n],
            head: NONE,
            tail: NONE,
            len: 0,
        }
    }

    /// The parameters.
    pub fn params(&self) -> CmtParams {
        self.p
    }

    /// Translation page of `lpn`.
    #[inline]
    pub fn page_of(&self, lpn: u32) -> u32 {
        lpn / self.p.entries_per_page
    }

    /// Whether translation page `tp` is cached.
    #[inline]
    pub fn cached(&self, tp: u32) -> bool {
        self.flags[tp as usize] & CACHED != 0
    }

    /// Pages cached now.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Dirty pages cached now.
    pub fn dirty(&self) -> u64 {
        self.flags.iter().filter(|&&f| f & DIRTY != 0).count() as u64
    }

    fn unlink(&mut self, tp: u32) {
        let (p, n) = (self.prev[tp as usize], self.next[tp as usize]);
        if p == NONE {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    fn push_front(&mut self, tp: u32) {
        self.prev[tp as usize] = NONE;
        self.next[tp as usize] = self.head;
        if self.head != NONE {
            self.prev[self.head as usize] = tp;
        }
        self.head = tp;
        if self.tail == NONE {
            self.tail = tp;
        }
    }

    /// Accesses translation page `tp` (a lookup, or an update when `dirty`): moves it to
    /// the most-recently-used end, loading it (and evicting the least recently used page
    /// when full) on a miss.
    #[inline]
    pub fn access(&mut self, tp: u32, dirty: bool) -> Access {
        let f = self.flags[tp as usize];
        let d = if dirty { DIRTY } else { 0 };
        if f & CACHED != 0 {
            if self.head != tp {
                self.unlink(tp);
                self.push_front(tp);
            }
            self.flags[tp as usize] = f | d;
            return Access::Hit;
        }
        let mut evicted = NONE;
        if self.len == self.p.capacity {
            let v = self.tail;
            self.unlink(v);
            if self.flags[v as usize] & DIRTY != 0 {
                evicted = v;
            }
            self.flags[v as usize] = 0;
            self.len -= 1;
        }
        self.push_front(tp);
        self.flags[tp as usize] = CACHED | d;
        self.len += 1;
        Access::Miss { evicted }
    }

    /// Marks a cached page dirty without touching its recency (a GC relocation updates the
    /// cached copy; it is not a host access). Returns false when `tp` is not cached.
    #[inline]
    pub fn update_in_place(&mut self, tp: u32) -> bool {
        let f = &mut self.flags[tp as usize];
        if *f & CACHED == 0 {
            return false;
        }
        *f |= DIRTY;
        true
    }

    /// Whether the restored state fits the parameters (checkpoint validation).
    pub fn consistent(&self, p: &CmtParams) -> bool {
        let n = p.pages as usize;
        if self.p != *p || self.prev.len() != n || self.next.len() != n || self.flags.len() != n {
            return false;
        }
        // Walk the list: it must visit exactly the cached pages, without cycles.
        let mut seen = 0u32;
        let mut cur = self.head;
        let mut last = NONE;
        while cur != NONE {
            if cur as usize >= n || self.flags[cur as usize] & CACHED == 0 || seen > self.len {
                return false;
            }
            if self.prev[cur as usize] != last {
                return false;
            }
            seen += 1;
            last = cur;
            cur = self.next[cur as usize];
        }
        let cached = self.flags.iter().filter(|&&f| f & CACHED != 0).count() as u32;
        last == self.tail && seen == self.len && cached == self.len && self.len <= p.capacity
    }

    /// Bytes of the cache's bookkeeping (the cached pages' contents are the L2P the
    /// simulator keeps anyway; their DRAM is the configured cache size).
    pub fn memory_bytes(&self) -> u64 {
        self.p.pages as u64 * 9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmt(capacity: u32, pages: u32) -> Cmt {
        Cmt::new(CmtParams {
            capacity,
            entries_per_page: 4,
            pages,
        })
    }

    #[test]
    fn lru_order_and_dirty_evictions() {
        let mut c = cmt(2, 8);
        assert_eq!(c.access(0, false), Access::Miss { evicted: NONE });
        assert_eq!(c.access(1, true), Access::Miss { evicted: NONE });
        assert_eq!(c.access(0, false), Access::Hit);
        // 1 is least recently used and dirty.
        assert_eq!(c.access(2, false), Access::Miss { evicted: 1 });
        // 0 is LRU now, clean.
        assert_eq!(c.access(3, false), Access::Miss { evicted: NONE });
        assert!(c.cached(2) && c.cached(3) && !c.cached(0) && !c.cached(1));
        assert!(c.update_in_place(3));
        assert!(!c.update_in_place(0));
        assert_eq!(c.access(5, false), Access::Miss { evicted: NONE });
        assert_eq!(c.access(6, false), Access::Miss { evicted: 3 });
        assert!(c.consistent(&c.params()));
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn damaged_lists_are_rejected() {
        let mut c = cmt(3, 8);
        for tp in [0, 1, 2] {
            c.access(tp, false);
        }
        assert!(c.consistent(&c.params()));
        let mut d = c.clone();
        d.next[2] = 2;
        assert!(!d.consistent(&c.params()));
        let mut d = c.clone();
        d.flags[7] = CACHED;
        assert!(!d.consistent(&c.params()));
    }
}
