//! The fingerprint store: content groups (the SMT's VPNs), the fingerprint index over them
//! (optionally bounded, LRU or FIFO), and the per-physical-page content state.
//!
//! The store is passive data: the FTL's content mode (`ftl/dedup*.rs`) changes it and keeps
//! the per-segment counters and the victim policy informed; policies read it through
//! [`ContentView`].

use crate::types::{Lpn, Ppn, NONE};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// MSB flag of an L2P entry in content mode: the rest is a VPN (content group), not a PPN.
pub const VFLAG: u32 = 1 << 31;

/// A content group's id, which is also its VPN in the two-level mapping.
pub type GroupId = u32;

/// Which index entry a full fingerprint index drops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Replacement {
    /// The least recently inserted or hit.
    Lru,
    /// The least recently inserted.
    Fifo,
}

/// What a GC-action policy needs from the content layer, declared once at construction.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContentNeeds {
    /// Keep, per segment, the number of live pages whose group has two or more members
    /// (`SegmentView::dup`; SplitGC's victim rule).
    pub dup_counts: bool,
    /// A member page that dies stays in its group (reusable, counted by
    /// `SegmentView::reuse`) until its segment is erased or the index drops the group
    /// (DAGC's checksum cache).
    pub keep_invalid: bool,
    /// Capacity of the fingerprint index in entries; `None`: unbounded.
    pub index_capacity: Option<u64>,
    /// Which entry a full index drops.
    pub replacement: Replacement,
    /// LPNs switched to a VPN by GC are migrated back at idle time (SplitGC's waiting
    /// queue); otherwise a VPN mapping is permanent (deduplication).
    pub defers: bool,
}

impl Default for ContentNeeds {
    fn default() -> Self {
        ContentNeeds {
            dup_counts: false,
            keep_invalid: false,
            index_capacity: None,
            replacement: Replacement::Lru,
            defers: false,
        }
    }
}

/// The member pages of a group: the first inline (most groups have one copy, and need no
/// heap allocation), the others in a vector. Positions are stable under `push` and change
/// only for the element `swap_remove` moves.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Members {
    first: u32,
    rest: Vec<u32>,
}

impl Members {
    pub(crate) fn new() -> Members {
        Members {
            first: NONE,
            rest: Vec::new(),
        }
    }
    #[inline]
    pub(crate) fn len(&self) -> usize {
        if self.first == NONE {
            0
        } else {
            1 + self.rest.len()
        }
    }
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.first == NONE
    }
    #[inline]
    pub(crate) fn first(&self) -> Option<u32> {
        (self.first != NONE).then_some(self.first)
    }
    /// Appends `p`; returns its position.
    #[inline]
    pub(crate) fn push(&mut self, p: u32) -> u32 {
        if self.first == NONE {
            self.first = p;
            0
        } else {
            self.rest.push(p);
            self.rest.len() as u32
        }
    }
    /// Removes the element at position `i` and moves the last one there; returns the
    /// element now at `i`, if any. A list left with its first member alone frees its
    /// vector: GC migrating a group's only copy joins the new copy before the old one
    /// leaves, and the emptied vector kept 32 B of heap per group so migrated (35 MiB more
    /// peak RSS after 2 x capacity of writes on an 8 GiB device under SplitGC, which
    /// neither the report nor the estimate counted).
    pub(crate) fn swap_remove(&mut self, i: usize) -> Option<u32> {
        let now = if i == 0 {
            match self.rest.pop() {
                Some(last) => {
                    self.first = last;
                    Some(last)
                }
                None => {
                    self.first = NONE;
                    None
                }
            }
        } else {
            self.rest.swap_remove(i - 1);
            self.rest.get(i - 1).copied()
        };
        if self.rest.is_empty() && self.rest.capacity() > 0 {
            self.rest = Vec::new();
        }
        now
    }
    /// Capacity a vector grown by pushes to the list beyond the first member's length has
    /// (at least 4 elements, doubling). A model, not `Vec::capacity`: that depends on the
    /// list's history, which a checkpoint does not keep, and a resumed run must report the
    /// same memory as an uninterrupted one.
    pub(crate) fn rest_capacity(&self) -> usize {
        match self.rest.len() {
            0 => 0,
            n => n.next_power_of_two().max(4),
        }
    }
    /// The member at position `i`, if any.
    pub(crate) fn get(&self, i: usize) -> Option<u32> {
        match i {
            0 => (self.first != NONE).then_some(self.first),
            _ => self.rest.get(i - 1).copied(),
        }
    }
    /// The members in position order.
    #[inline]
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.first().into_iter().chain(self.rest.iter().copied())
    }
}

/// One content group: the SMT entry `VPN -> physical copies` and, while indexed, the
/// fingerprint table's entry for its content.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Group {
    pub(crate) fp: u64,
    /// Member pages (live copies; with `keep_invalid` also dead ones not yet erased).
    pub(crate) ppns: Members,
    /// LPNs served through this VPN.
    pub(crate) borrowers: u32,
    /// Live members without an owner (kept for the borrowers): lets an unpin skip the scan
    /// of a large group when there are none.
    pub(crate) pinned: u32,
    /// Whether `fp -> this group` is in the fingerprint index.
    pub(crate) indexed: bool,
    /// In use (not on the free list).
    pub(crate) in_use: bool,
    /// The LPN that borrowed last (a pinned copy has no owner: GC asks the placement where
    /// to move it as if it were this LPN's).
    pub(crate) rep_lpn: u32,
}

/// Hashes a 64-bit content key (already well mixed, or an MD5 prefix) with SplitMix64's
/// finaliser: deterministic and fast. The index is only looked up, never iterated, so
/// results do not depend on its layout.
#[derive(Default, Clone, Copy)]
pub(crate) struct FpHasher(u64);

impl Hasher for FpHasher {
    fn finish(&self) -> u64 {
        super::mix64(self.0)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

pub(crate) type FpIndex = HashMap<u64, GroupId, BuildHasherDefault<FpHasher>>;

/// Per-page content state, content groups and the fingerprint index.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ContentStore {
    pub(crate) needs: ContentNeeds,
    /// Content of each physical page (simulator state: what the flash page holds).
    #[serde(with = "crate::checkpoint::raw")]
    pub(crate) pcontent: Vec<u64>,
    /// Group of each physical page (NONE: not a member).
    #[serde(with = "crate::checkpoint::raw")]
    pub(crate) gid: Vec<u32>,
    /// Position of each member page in its group's list.
    #[serde(with = "crate::checkpoint::raw")]
    pub(crate) pos: Vec<u32>,
    /// Pages the read scrub must not fingerprint (SplitGC `writeback=once`), a bit per page.
    #[serde(with = "crate::checkpoint::raw")]
    pub(crate) noprint: Vec<u64>,
    pub(crate) groups: Vec<Group>,
    pub(crate) free_groups: Vec<GroupId>,
    #[serde(with = "index_serde")]
    pub(crate) index: FpIndex,
    /// Recency order of the indexed groups (head: next to drop), an intrusive list.
    pub(crate) rprev: Vec<u32>,
    pub(crate) rnext: Vec<u32>,
    pub(crate) rhead: u32,
    pub(crate) rtail: u32,
    /// Live groups (in use: members or borrowers).
    pub(crate) groups_live: u64,
    /// Member pages over all groups.
    pub(crate) members: u64,
    /// Groups with at least one borrower (SMT entries in use).
    pub(crate) borrowed_groups: u64,
    /// Indexed groups.
    pub(crate) indexed: u64,
    /// Peak of `indexed`.
    pub(crate) indexed_peak: u64,
    /// Index entries dropped because the index was full.
    pub(crate) evictions: u64,
}

impl ContentStore {
    /// An empty store for `physical` pages.
    pub fn new(physical: u64, needs: ContentNeeds) -> ContentStore {
        let n = physical as usize;
        ContentStore {
            needs,
            pcontent: crate::mem::big_vec(n, 0),
            gid: crate::mem::big_vec(n, NONE),
            pos: crate::mem::big_vec(n, 0),
            noprint: vec![0; n.div_ceil(64)],
            groups: Vec::new(),
            free_groups: Vec::new(),
            index: FpIndex::default(),
            rprev: Vec::new(),
            rnext: Vec::new(),
            rhead: NONE,
            rtail: NONE,
            groups_live: 0,
            members: 0,
            borrowed_groups: 0,
            indexed: 0,
            indexed_peak: 0,
            evictions: 0,
        }
    }

    /// Entries in the fingerprint index.
    pub fn index_len(&self) -> u64 {
        self.indexed
    }
    /// Index entries dropped because the index was full.
    pub fn evictions(&self) -> u64 {
        self.evictions
    }
    /// Content of the page at `ppn`.
    pub fn content_of(&self, ppn: Ppn) -> u64 {
        self.pcontent[ppn as usize]
    }

    /// What the policy declared.
    pub fn needs(&self) -> ContentNeeds {
        self.needs
    }

    #[inline]
    pub(crate) fn is_noprint(&self, ppn: Ppn) -> bool {
        self.noprint[(ppn / 64) as usize] >> (ppn % 64) & 1 == 1
    }
    #[inline]
    pub(crate) fn set_noprint(&mut self, ppn: Ppn, on: bool) {
        let w = &mut self.noprint[(ppn / 64) as usize];
        if on {
            *w |= 1 << (ppn % 64);
        } else {
            *w &= !(1 << (ppn % 64));
        }
    }

    /// A new, empty group for content `fp` (not indexed).
    pub(crate) fn new_group(&mut self, fp: u64) -> GroupId {
        let grp = Group {
            fp,
            ppns: Members::new(),
            borrowers: 0,
            pinned: 0,
            indexed: false,
            in_use: true,
            rep_lpn: 0,
        };
        self.groups_live += 1;
        match self.free_groups.pop() {
            Some(id) => {
                self.groups[id as usize] = grp;
                id
            }
            None => {
                self.groups.push(grp);
                self.rprev.push(NONE);
                self.rnext.push(NONE);
                (self.groups.len() - 1) as GroupId
            }
        }
    }

    /// Puts group `g` in the index (replacing an entry for the same content) at the young
    /// end of the recency order. Returns the group dropped to make room, if the index was
    /// full (the caller dissolves it when nothing borrows from it).
    pub(crate) fn index_insert(&mut self, g: GroupId) -> Option<GroupId> {
        debug_assert!(!self.groups[g as usize].indexed);
        let fp = self.groups[g as usize].fp;
        if let Some(&old) = self.index.get(&fp) {
            self.unindex(old);
        }
        let mut dropped = None;
        if let Some(cap) = self.needs.index_capacity {
            if self.indexed >= cap && self.rhead != NONE {
                let h = self.rhead;
                self.unindex(h);
                self.evictions += 1;
                dropped = Some(h);
            }
        }
        self.index.insert(fp, g);
        self.groups[g as usize].indexed = true;
        self.indexed += 1;
        self.indexed_peak = self.indexed_peak.max(self.indexed);
        self.link_tail(g);
        dropped
    }

    /// Removes group `g`'s index entry (the group itself stays while it has members or
    /// borrowers).
    pub(crate) fn unindex(&mut self, g: GroupId) {
        let grp = &mut self.groups[g as usize];
        if !grp.indexed {
            return;
        }
        grp.indexed = false;
        let fp = grp.fp;
        if self.index.get(&fp) == Some(&g) {
            self.index.remove(&fp);
        }
        self.indexed -= 1;
        self.unlink(g);
    }

    /// A hit on group `g`: with LRU replacement it becomes the most recent entry.
    pub(crate) fn touch(&mut self, g: GroupId) {
        if self.needs.replacement == Replacement::Lru
            && self.groups[g as usize].indexed
            && self.rtail != g
        {
            self.unlink(g);
            self.link_tail(g);
        }
    }

    fn link_tail(&mut self, g: GroupId) {
        self.rprev[g as usize] = self.rtail;
        self.rnext[g as usize] = NONE;
        if self.rtail == NONE {
            self.rhead = g;
        } else {
            self.rnext[self.rtail as usize] = g;
        }
        self.rtail = g;
    }

    fn unlink(&mut self, g: GroupId) {
        let (p, n) = (self.rprev[g as usize], self.rnext[g as usize]);
        if p == NONE {
            self.rhead = n;
        } else {
            self.rnext[p as usize] = n;
        }
        if n == NONE {
            self.rtail = p;
        } else {
            self.rprev[n as usize] = p;
        }
        self.rprev[g as usize] = NONE;
        self.rnext[g as usize] = NONE;
    }

    /// Frees group `g` if nothing uses it any more (no member, no borrower).
    pub(crate) fn maybe_free(&mut self, g: GroupId) {
        let grp = &mut self.groups[g as usize];
        if grp.in_use && grp.ppns.is_empty() && grp.borrowers == 0 {
            grp.in_use = false;
            self.unindex(g);
            self.free_groups.push(g);
            self.groups_live -= 1;
        }
    }

    /// Whether group id `g` is in use.
    pub(crate) fn group_in_use(&self, g: GroupId) -> bool {
        (g as usize) < self.groups.len() && self.groups[g as usize].in_use
    }

    /// Bytes the simulator's store takes: the group table (with the member lists beyond the
    /// first), the index (hash table buckets) and the recency links; the per-page arrays
    /// are counted apart (`per_page_bytes`).
    pub fn simulator_bytes(&self) -> u64 {
        // Lengths, not capacities: a vector's unused capacity is never touched, so it does
        // not count in the resident memory (and capacities depend on a history a
        // checkpoint does not keep).
        let groups = self.groups.len() * std::mem::size_of::<Group>();
        // Each non-empty list beyond the first member is one heap block (16 B of allocator
        // overhead).
        let lists: usize = self
            .groups
            .iter()
            .map(|g| {
                let c = g.ppns.rest_capacity();
                if c > 0 {
                    c * 4 + 16
                } else {
                    0
                }
            })
            .sum();
        // The hash table's buckets for its entries (7/8 load, a power of two): modelled
        // from the length, like the lists, so that a resumed run reports the same.
        let index = match self.index.len() {
            0 => 0,
            n => {
                (n * 8 / 7 + 1).next_power_of_two().max(4)
                    * (std::mem::size_of::<(u64, GroupId)>() + 1)
            }
        };
        let links = (self.rprev.len() + self.rnext.len() + self.free_groups.len()) * 4;
        (groups + lists + index + links) as u64
    }

    /// Bytes of the per-physical-page arrays: content (8 B), group and position (4 + 4 B),
    /// the scrub mark (1 bit).
    pub fn per_page_bytes(&self) -> u64 {
        (self.pcontent.len() * 16 + self.noprint.len() * 8) as u64
    }

    /// Bytes of the SSD metadata the store stands for: the fingerprint table (per indexed
    /// content 20 B SHA-1 + 4 B VPN + 4 B count, plus 4 B per listed copy) and the SMT
    /// entries in use (8 B each; the lists are shared with the table).
    pub fn metadata_bytes(&self) -> (u64, u64) {
        (
            self.groups_live * 28 + self.members * 4,
            self.borrowed_groups * 8,
        )
    }
}

/// The index as a list of (fingerprint, group) pairs sorted by fingerprint (deterministic
/// bytes; the map is rebuilt on load).
mod index_serde {
    use super::{FpIndex, GroupId};
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(m: &FpIndex, s: S) -> Result<S::Ok, S::Error> {
        // The keys alone are sorted (8 B per entry while a checkpoint is written, not 16:
        // the same bytes as the sorted pairs, whose copy peaked 8 % over the estimate).
        let mut keys: Vec<u64> = m.keys().copied().collect();
        keys.sort_unstable();
        s.collect_seq(keys.iter().map(|k| (*k, m[k])))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<FpIndex, D::Error> {
        let v: Vec<(u64, GroupId)> = Vec::deserialize(d)?;
        Ok(v.into_iter().collect())
    }
}

/// Read-only view of the content state that GC-action policies see.
#[derive(Clone, Copy)]
pub struct ContentView<'a> {
    store: &'a ContentStore,
    valid: &'a [u64],
    p2l: &'a [Lpn],
    pps: u32,
}

impl<'a> ContentView<'a> {
    /// A view over `store` with the FTL's validity bitmap and P2L table.
    pub(crate) fn new(store: &'a ContentStore, valid: &'a [u64], p2l: &'a [Lpn], pps: u32) -> Self {
        ContentView {
            store,
            valid,
            p2l,
            pps,
        }
    }
    /// Content of the page at `ppn` (what was last programmed there).
    #[inline]
    pub fn content(&self, ppn: Ppn) -> u64 {
        self.store.pcontent[ppn as usize]
    }
    /// Whether `ppn` is live (valid: owned by an LPN or pinned for a VPN's borrowers).
    #[inline]
    pub fn is_live(&self, ppn: Ppn) -> bool {
        self.valid[(ppn >> 6) as usize] >> (ppn & 63) & 1 == 1
    }
    /// The LPN that owns live page `ppn` (None: pinned, or not live).
    #[inline]
    pub fn owner(&self, ppn: Ppn) -> Option<Lpn> {
        let o = self.p2l[ppn as usize];
        (self.is_live(ppn) && o != NONE).then_some(o)
    }
    /// The content group `ppn` belongs to.
    #[inline]
    pub fn group(&self, ppn: Ppn) -> Option<GroupId> {
        let g = self.store.gid[ppn as usize];
        (g != NONE).then_some(g)
    }
    /// Whether the read scrub must skip `ppn` (SplitGC `writeback=once`).
    #[inline]
    pub fn is_noprint(&self, ppn: Ppn) -> bool {
        self.store.is_noprint(ppn)
    }
    /// The indexed group of content `fp` (the fingerprint table / index lookup).
    #[inline]
    pub fn lookup(&self, fp: u64) -> Option<GroupId> {
        self.store.index.get(&fp).copied()
    }
    /// A live member of group `g` outside segment `except` (NONE: any segment), in list
    /// order.
    pub fn live_copy(&self, g: GroupId, except: u32) -> Option<Ppn> {
        let (lo, hi) = if except == NONE {
            (1, 0)
        } else {
            (except * self.pps, except * self.pps + self.pps)
        };
        self.store.groups[g as usize]
            .ppns
            .iter()
            .find(|&p| (p < lo || p >= hi) && self.is_live(p))
    }
    /// The first member of group `g` (live or not).
    pub fn first_member(&self, g: GroupId) -> Option<Ppn> {
        self.store.groups[g as usize].ppns.first()
    }
    /// Number of member pages of group `g`.
    pub fn members(&self, g: GroupId) -> usize {
        self.store.groups[g as usize].ppns.len()
    }
    /// References to group `g`'s content: LPNs served through its VPN plus LPNs owning one
    /// of its live members (CAGC's reference count).
    pub fn refs(&self, g: GroupId) -> u32 {
        let grp = &self.store.groups[g as usize];
        grp.borrowers + grp.ppns.iter().filter(|&p| self.owner(p).is_some()).count() as u32
    }
    /// LPNs served through group `g`'s VPN.
    pub fn borrowers(&self, g: GroupId) -> u32 {
        self.store.groups[g as usize].borrowers
    }
    /// Content of group `g`.
    pub fn group_content(&self, g: GroupId) -> u64 {
        self.store.groups[g as usize].fp
    }
    /// Calls `f` with the content of every indexed group, in group id order (Bloom filter
    /// rebuilds).
    pub fn for_each_indexed(&self, mut f: impl FnMut(u64)) {
        for grp in &self.store.groups {
            if grp.indexed {
                f(grp.fp);
            }
        }
    }
    /// Entries in the fingerprint index.
    pub fn indexed(&self) -> u64 {
        self.store.indexed
    }
    /// Pages per segment.
    pub fn pages_per_segment(&self) -> u32 {
        self.pps
    }
}

#[cfg(test)]
mod tests {
    use super::Members;

    #[test]
    fn a_list_back_to_one_member_frees_its_vector() {
        // GC migrating a group's only copy: the new copy joins, then the old one leaves.
        let mut m = Members::new();
        m.push(7);
        m.push(9);
        assert!(m.rest.capacity() > 0);
        assert_eq!(m.swap_remove(0), Some(9));
        assert_eq!((m.first(), m.rest.capacity()), (Some(9), 0));
        // From the middle too, and a list still holding copies keeps its vector.
        m.push(11);
        m.push(12);
        assert_eq!(m.swap_remove(1), Some(12));
        assert!(m.rest.capacity() > 0);
        assert_eq!(m.swap_remove(1), None);
        assert_eq!((m.len(), m.rest.capacity()), (1, 0));
    }
}
