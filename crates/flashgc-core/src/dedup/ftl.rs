//! A content-aware page-mapped FTL for deduplication-aware GC (papers/splitgc.txt).
//!
//! Unlike the core [`crate::ftl::Ftl`], a physical page may serve several LPNs for a while,
//! so mapping is two-level:
//!
//! * primary table `l2p[lpn]`: a PPN (MSB 0: the LPN owns that page), or `VFLAG | vpn`
//!   (MSB 1: the LPN is served through the secondary mapping table);
//! * secondary mapping table (SMT): `vpn -> list of PPNs holding the same content`. A VPN is
//!   a *content group*; its list doubles as the fingerprint table's entry for that content
//!   (fingerprint -> group is a hash index, looked up only, never iterated).
//!
//! A physical page is *live* (valid, moved by GC) while an LPN owns it, or while it is the
//! last copy of a group that some LPN is served through (a *pinned* page). So no scheme ever
//! drops the last copy of content still referenced: every read resolves to a live page whose
//! content equals what was last written to the LPN (checked by [`DedupFtl::check`] and the
//! content check of the driver).
//!
//! Schemes:
//! * `greedy`: fewest live pages; every live page relocated. Groups unused.
//! * `splitgc`: groups filled by the read scrub ([`DedupFtl::scrub_step`]). Victim: fewest
//!   non-duplicate live pages per invalid page by default (see [`SplitRule`]). A victim page whose group has a live copy
//!   outside the victim is not moved: its LPN is switched to the group's VPN and queued in
//!   the waiting queue; [`DedupFtl::deferred_step`] writes it back at idle time (all copies
//!   are kept: no deduplication).
//! * `cagc`: fingerprints computed at GC time for each victim page; a page whose content
//!   already has a copy outside the victim only updates metadata (the LPN is served by that
//!   copy for good: deduplication); other pages move, unique ones to the hot frontier
//!   (shared with user writes), shared copies to a cold frontier.
//! * `dagc`: fingerprints of written pages are cached (inline, checksum cache); a write whose
//!   content matches a cached page, live or invalid-but-not-erased, reuses that page
//!   (reviving it) instead of programming. Victim: fewest live + reusable invalid pages.

use super::scrub::{Bloom, ScrubCursor};
use crate::error::{Error, Result};
use crate::types::NONE;
use std::collections::{HashMap, VecDeque};

/// MSB flag of a primary-table entry: the rest is a VPN (content group), not a PPN.
pub const VFLAG: u32 = 1 << 31;

/// The GC scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// Fewest valid pages, relocate all.
    Greedy,
    /// Content-aware GC (Wu et al., IPDPS 2021): dedup at GC time.
    Cagc,
    /// Deduplication-assisted GC (Yen et al., TCAD 2018): reuse invalid pages by checksum.
    Dagc,
    /// SplitGC (papers/splitgc.txt).
    SplitGc,
}

impl Scheme {
    /// All schemes, in report order.
    pub const ALL: [Scheme; 4] = [Scheme::Greedy, Scheme::Cagc, Scheme::Dagc, Scheme::SplitGc];
    /// Parses `greedy`, `cagc`, `dagc`, `splitgc`.
    pub fn parse(field: &str, s: &str) -> Result<Scheme> {
        match s.trim().to_ascii_lowercase().as_str() {
            "greedy" => Ok(Scheme::Greedy),
            "cagc" => Ok(Scheme::Cagc),
            "dagc" => Ok(Scheme::Dagc),
            "splitgc" | "split-gc" => Ok(Scheme::SplitGc),
            o => Err(Error::config(
                field,
                format!("unknown scheme `{o}`; allowed: greedy, cagc, dagc, splitgc, all"),
            )),
        }
    }
    /// Name used in output.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Greedy => "greedy",
            Scheme::Cagc => "cagc",
            Scheme::Dagc => "dagc",
            Scheme::SplitGc => "splitgc",
        }
    }
}

/// How SplitGC ranks victims (the paper leaves the comparison between blocks with and
/// without duplicates open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitRule {
    /// Fewest non-duplicate valid pages over all blocks (a block without known duplicates
    /// counts all its valid pages). Equals the paper's rule whenever the best block
    /// holds duplicates, and is greedy when no block does.
    MinNondup,
    /// Literal reading: any block holding duplicates beats every block without; among those,
    /// fewest non-duplicate valid pages; greedy only when no block holds duplicates.
    DupFirst,
    /// Greedy victims (fewest valid pages); duplicates are still deferred. Total flash
    /// writes stay greedy's (every copy is rewritten at idle time), only their timing moves.
    MinValid,
    /// Fewest non-duplicate valid pages per page the victim frees for good (its invalid
    /// pages: deferred duplicates are written back later, so they free nothing in the end):
    /// `(valid - dup) / (pages - valid)`. Weighs reclaimable space, which the paper's rule
    /// does not: a block full of valid duplicates is never a victim while any other block
    /// frees space. Greedy (same order, same ties) when no block holds known duplicates.
    /// Default (see docs/splitgc.md: the literal rule churns, the paper reports no churn).
    PerFree,
}

impl SplitRule {
    /// Parses `per-free`, `min-nondup`, `dup-first` or `min-valid`.
    pub fn parse(field: &str, s: &str) -> Result<SplitRule> {
        match s.trim().to_ascii_lowercase().as_str() {
            "min-nondup" => Ok(SplitRule::MinNondup),
            "dup-first" => Ok(SplitRule::DupFirst),
            "min-valid" => Ok(SplitRule::MinValid),
            "per-free" => Ok(SplitRule::PerFree),
            o => Err(Error::config(
                field,
                format!("unknown rule `{o}`; allowed: per-free, min-nondup, dup-first, min-valid"),
            )),
        }
    }
}

/// What SplitGC knows about a page it writes back from the waiting queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Writeback {
    /// The new copy is an ordinary write: the fingerprint table learns it (and its
    /// block is marked as holding duplicates) only when the read scrub fingerprints it, as
    /// for host writes. The paper marks blocks from the scrub only (Section 3.2) and its
    /// queue entry holds the content and a target address, nothing that re-enters the table.
    Rescrub,
    /// Default. The new copy joins its content group at once (known duplicate): the FTL
    /// updates the fingerprint table when it relocates a page (paper Section 3.3) and the
    /// write-back is such a relocation. With the `min-nondup` rule a block of written-back duplicates is then the next victim and is
    /// deferred again (churn: WAF 23 on the FIU slice).
    Keep,
    /// As `rescrub`, and the copy is never fingerprinted again until its LPN is rewritten:
    /// a page deferred once is migrated normally by later GCs (no repeated deferral).
    Once,
}

impl Writeback {
    /// Parses `rescrub`, `keep` or `once`.
    pub fn parse(field: &str, s: &str) -> Result<Writeback> {
        match s.trim().to_ascii_lowercase().as_str() {
            "rescrub" => Ok(Writeback::Rescrub),
            "keep" => Ok(Writeback::Keep),
            "once" => Ok(Writeback::Once),
            o => Err(Error::config(
                field,
                format!("unknown write-back mode `{o}`; allowed: rescrub, keep, once"),
            )),
        }
    }
}

/// A flash operation issued by the FTL, for the timing driver (in issue order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DOp {
    /// Page read; `gc`: background (GC, deferred migration, scrub).
    Read {
        /// Physical page.
        ppn: u32,
        /// Background.
        gc: bool,
    },
    /// Page program; `gc`: background.
    Program {
        /// Physical page.
        ppn: u32,
        /// Background.
        gc: bool,
    },
    /// Segment erase.
    Erase {
        /// Segment.
        seg: u32,
    },
    /// Controller computation on the GC path (CAGC fingerprinting), nanoseconds.
    Compute {
        /// Duration.
        ns: u64,
    },
}

/// Event counters, in pages.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct DedupCounters {
    /// User page writes.
    pub user_writes: u64,
    /// User writes that programmed a page (DAGC absorbs the others).
    pub user_programs: u64,
    /// User page reads.
    pub reads: u64,
    /// Reads of unmapped LPNs.
    pub unmapped_reads: u64,
    /// Pages relocated by GC in real time (the paper's "migrated pages").
    pub gc_migrated: u64,
    /// Victims collected.
    pub gc_victims: u64,
    /// SplitGC victims that held known duplicates.
    pub dup_victims: u64,
    /// Segment erases.
    pub erases: u64,
    /// SplitGC duplicate pages put in the waiting queue instead of being moved.
    pub deferred_queued: u64,
    /// Deferred duplicates written back at idle time.
    pub deferred_written: u64,
    /// CAGC victim pages deduplicated (metadata update, no write).
    pub cagc_deduped: u64,
    /// DAGC user writes that reused a cached page instead of programming.
    pub dagc_reused: u64,
    /// DAGC reuses that revived an invalid page.
    pub dagc_revived: u64,
    /// Pages read by the read scrub.
    pub scrub_pages: u64,
    /// Of those, pages fingerprinted (active group).
    pub scrub_fp_pages: u64,
    /// Fingerprints the Bloom filter ruled out (no table access).
    pub bloom_negatives: u64,
    /// Fingerprint table lookups.
    pub table_lookups: u64,
    /// Pages programmed but never committed (power cut between program and commit).
    pub orphan_programs: u64,
}

macro_rules! counters_delta {
    ($a:expr, $b:expr, $($f:ident),*) => { DedupCounters { $($f: $a.$f - $b.$f),* } };
}

impl DedupCounters {
    /// `self - base`, field by field.
    pub fn since(&self, b: &DedupCounters) -> DedupCounters {
        counters_delta!(
            self,
            b,
            user_writes,
            user_programs,
            reads,
            unmapped_reads,
            gc_migrated,
            gc_victims,
            dup_victims,
            erases,
            deferred_queued,
            deferred_written,
            cagc_deduped,
            dagc_reused,
            dagc_revived,
            scrub_pages,
            scrub_fp_pages,
            bloom_negatives,
            table_lookups,
            orphan_programs
        )
    }
}

/// Static layout of the FTL.
#[derive(Debug, Clone, Copy)]
pub struct DedupGeom {
    /// Logical pages.
    pub logical_pages: u64,
    /// Segments (blocks).
    pub segments: u32,
    /// Pages per segment.
    pub pps: u32,
    /// GC starts below this many free segments.
    pub gc_low: u32,
    /// GC restores this many free segments.
    pub gc_high: u32,
    /// GC groups: segment `s` belongs to group `s % planes`, each with its own free pool,
    /// write frontiers, watermarks and victims (one per plane as in SSDsim; 1 = device-wide,
    /// exactly the core FTL). User writes go round robin over the groups.
    pub planes: u32,
}

#[derive(Debug, Clone)]
struct Group {
    fp: u64,
    ppns: Vec<u32>,
    borrowers: u32,
    /// Live members without an owner (kept for the borrowers): lets `unpin` skip the scan
    /// of a large group when there are none.
    pinned: u32,
}

const FREE: u8 = 0;
const OPEN: u8 = 1;
const SEALED: u8 = 2;
const COLLECTING: u8 = 3;

/// Memory of the dedup metadata, bytes (SSD metadata, not simulator state).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct DedupMemory {
    /// Fingerprint table: per content 20 B SHA-1 + 4 B VPN + 4 B count, plus 4 B per PPN listed.
    pub fp_table: u64,
    /// Bloom filter bit array.
    pub bloom: u64,
    /// SMT entries in use (VPN -> list head and length, 8 B; the lists are shared with the
    /// fingerprint table; the primary table's MSB flag costs nothing).
    pub smt: u64,
    /// Waiting queue at its peak (LPN + VPN, 8 B per entry).
    pub queue_peak: u64,
}

/// The content-aware FTL.
#[derive(Clone)]
pub struct DedupFtl {
    scheme: Scheme,
    rule: SplitRule,
    writeback: Writeback,
    g: DedupGeom,
    l2p: Vec<u32>,
    owner: Vec<u32>,
    gid: Vec<u32>,
    pos: Vec<u32>,
    live: Vec<u64>,
    /// Pages written back from the waiting queue under [`Writeback::Once`] (bit per PPN):
    /// the scrub does not fingerprint them.
    once: Vec<u64>,
    pcontent: Vec<u64>,
    valid: Vec<u32>,
    dup: Vec<u32>,
    reuse: Vec<u32>,
    written: Vec<u32>,
    state: Vec<u8>,
    stamp_v: Vec<u64>,
    stamp_k: Vec<u64>,
    seq: u64,
    free: Vec<VecDeque<u32>>,
    open: Vec<u32>,
    rr: u32,
    in_gc: bool,
    groups: Vec<Group>,
    free_groups: Vec<u32>,
    index: HashMap<u64, u32>,
    groups_live: u64,
    members: u64,
    borrowed_groups: u64,
    bloom: Bloom,
    queue: VecDeque<u32>,
    queue_peak: usize,
    scrub: ScrubCursor,
    scrub_groups: u32,
    cagc_fp_ns: u64,
    log_ops: bool,
    ops: Vec<DOp>,
    buf: Vec<u32>,
    /// Counters since creation.
    pub counters: DedupCounters,
}

impl DedupFtl {
    /// An empty FTL. `scrub_groups`: the read scrub fingerprints one of this many groups of
    /// blocks per pass (paper: 10, alpha = 0.1); `bloom_bits`: Bloom bits per physical page
    /// (paper: m = 4.2 n); `cagc_fp_ns`: CAGC's fingerprint time per victim page.
    pub fn new(
        scheme: Scheme,
        rule: SplitRule,
        g: DedupGeom,
        scrub_groups: u32,
        bloom_bits: f64,
        cagc_fp_ns: u64,
    ) -> Result<DedupFtl> {
        let phys = g.segments as u64 * g.pps as u64;
        if phys >= VFLAG as u64 {
            return Err(Error::config(
                "device",
                format!("{phys} physical pages: the dedup FTL supports at most 2^31 - 1 (MSB of a mapping entry is the VPN flag)"),
            ));
        }
        if g.logical_pages >= phys || g.gc_low < 1 || g.gc_high < g.gc_low {
            return Err(Error::config(
                "ftl",
                "the dedup FTL needs logical < physical pages and 1 <= gc_low <= gc_high",
            ));
        }
        if g.planes == 0 || g.segments / g.planes < g.gc_high + 3 {
            return Err(Error::config(
                "ftl",
                format!(
                    "{} GC groups of {} segments: each needs at least gc_high + 3 = {}",
                    g.planes,
                    g.segments / g.planes.max(1),
                    g.gc_high + 3
                ),
            ));
        }
        if scrub_groups == 0 {
            return Err(Error::config("--scrub-groups", "must be at least 1"));
        }
        let n = phys as usize;
        let s = g.segments as usize;
        Ok(DedupFtl {
            scheme,
            rule,
            writeback: Writeback::Keep,
            l2p: vec![NONE; g.logical_pages as usize],
            owner: vec![NONE; n],
            gid: vec![NONE; n],
            pos: vec![0; n],
            live: vec![0; n.div_ceil(64)],
            once: vec![0; n.div_ceil(64)],
            pcontent: vec![0; n],
            valid: vec![0; s],
            dup: vec![0; s],
            reuse: vec![0; s],
            written: vec![0; s],
            state: vec![FREE; s],
            stamp_v: vec![0; s],
            stamp_k: vec![0; s],
            seq: 0,
            free: (0..g.planes)
                .map(|p| (p..g.segments).step_by(g.planes as usize).collect())
                .collect(),
            open: vec![NONE; 2 * g.planes as usize],
            rr: 0,
            in_gc: false,
            groups: Vec::new(),
            free_groups: Vec::new(),
            index: HashMap::new(),
            groups_live: 0,
            members: 0,
            borrowed_groups: 0,
            bloom: Bloom::new(phys, bloom_bits),
            queue: VecDeque::new(),
            queue_peak: 0,
            scrub: ScrubCursor::default(),
            scrub_groups,
            cagc_fp_ns,
            log_ops: false,
            ops: Vec::new(),
            buf: Vec::new(),
            counters: DedupCounters::default(),
            g,
        })
    }

    /// Sets what a page written back from the waiting queue is known as (default
    /// [`Writeback::Keep`]).
    pub fn set_writeback(&mut self, w: Writeback) {
        self.writeback = w;
    }

    /// The SplitGC scheme's write-back mode.
    pub fn writeback(&self) -> Writeback {
        self.writeback
    }

    /// The GC scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }
    /// The layout.
    pub fn geom(&self) -> DedupGeom {
        self.g
    }
    /// Log flash operations for the timing driver.
    pub fn set_op_log(&mut self, on: bool) {
        self.log_ops = on;
        self.ops.clear();
    }
    /// Moves the logged operations into `out`.
    pub fn drain_ops(&mut self, out: &mut Vec<DOp>) {
        out.append(&mut self.ops);
    }
    /// Entries in the waiting queue (including stale ones not yet popped).
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }
    /// LPNs currently served through the SMT (deferred or deduplicated).
    pub fn borrowing_lpns(&self) -> u64 {
        self.l2p
            .iter()
            .filter(|&&x| x != NONE && x & VFLAG != 0)
            .count() as u64
    }
    /// Scrub progress.
    pub fn scrub_cursor(&self) -> ScrubCursor {
        self.scrub
    }
    /// Number of free segments.
    pub fn free_segments(&self) -> usize {
        self.free.iter().map(|f| f.len()).sum()
    }
    /// The next GC group for a host or deferred write (round robin).
    #[inline]
    fn next_plane(&mut self) -> u32 {
        let p = self.rr;
        self.rr = if p + 1 == self.g.planes { 0 } else { p + 1 };
        p
    }
    /// Segment (block) of a PPN.
    #[inline]
    fn seg(&self, ppn: u32) -> u32 {
        ppn / self.g.pps
    }
    #[inline]
    fn is_live(&self, ppn: u32) -> bool {
        self.live[(ppn / 64) as usize] & (1 << (ppn % 64)) != 0
    }
    #[inline]
    fn key(&self, s: usize) -> u32 {
        match self.scheme {
            Scheme::SplitGc if self.rule != SplitRule::MinValid => self.valid[s] - self.dup[s],
            Scheme::Dagc => self.valid[s] + self.reuse[s],
            _ => self.valid[s],
        }
    }
    /// Adjusts a segment's counts; a sealed segment whose rank key changed goes to the back
    /// of its new rank (the core greedy's bucket order: ties go to the earliest arrival).
    #[inline]
    fn adj(&mut self, s: u32, dv: i32, dd: i32, dr: i32) {
        let s = s as usize;
        let (v0, k0) = (self.valid[s], self.key(s));
        self.valid[s] = (self.valid[s] as i32 + dv) as u32;
        self.dup[s] = (self.dup[s] as i32 + dd) as u32;
        self.reuse[s] = (self.reuse[s] as i32 + dr) as u32;
        if self.state[s] == SEALED {
            if self.valid[s] != v0 {
                self.seq += 1;
                self.stamp_v[s] = self.seq;
            }
            if self.key(s) != k0 {
                self.seq += 1;
                self.stamp_k[s] = self.seq;
            }
        }
    }
    #[inline]
    fn is_once(&self, ppn: u32) -> bool {
        self.once[(ppn / 64) as usize] & (1 << (ppn % 64)) != 0
    }
    #[inline]
    fn set_once(&mut self, ppn: u32, on: bool) {
        let w = &mut self.once[(ppn / 64) as usize];
        if on {
            *w |= 1 << (ppn % 64);
        } else {
            *w &= !(1 << (ppn % 64));
        }
    }
    #[inline]
    fn set_live(&mut self, ppn: u32) {
        self.live[(ppn / 64) as usize] |= 1 << (ppn % 64);
        self.adj(self.seg(ppn), 1, 0, 0);
    }
    #[inline]
    fn clear_live(&mut self, ppn: u32) {
        self.live[(ppn / 64) as usize] &= !(1 << (ppn % 64));
        self.adj(self.seg(ppn), -1, 0, 0);
    }

    // ---- content groups (fingerprint table + SMT) ----

    fn new_group(&mut self, fp: u64) -> u32 {
        let grp = Group {
            fp,
            ppns: Vec::new(),
            borrowers: 0,
            pinned: 0,
        };
        let id = match self.free_groups.pop() {
            Some(id) => {
                self.groups[id as usize] = grp;
                id
            }
            None => {
                self.groups.push(grp);
                (self.groups.len() - 1) as u32
            }
        };
        self.index.insert(fp, id);
        self.groups_live += 1;
        id
    }

    fn join(&mut self, ppn: u32, g: u32) {
        debug_assert_eq!(self.gid[ppn as usize], NONE);
        self.gid[ppn as usize] = g;
        let list = &mut self.groups[g as usize].ppns;
        self.pos[ppn as usize] = list.len() as u32;
        list.push(ppn);
        self.members += 1;
        if self.scheme == Scheme::SplitGc {
            let len = self.groups[g as usize].ppns.len();
            if len == 2 {
                let other = self.groups[g as usize].ppns[0];
                self.adj(self.seg(other), 0, 1, 0);
            }
            if len >= 2 {
                self.adj(self.seg(ppn), 0, 1, 0);
            }
        }
    }

    fn leave(&mut self, ppn: u32) {
        let g = self.gid[ppn as usize];
        debug_assert_ne!(g, NONE);
        let len = self.groups[g as usize].ppns.len();
        if self.scheme == Scheme::SplitGc && len >= 2 {
            self.adj(self.seg(ppn), 0, -1, 0);
        }
        let i = self.pos[ppn as usize] as usize;
        let list = &mut self.groups[g as usize].ppns;
        list.swap_remove(i);
        if i < list.len() {
            let moved = list[i];
            self.pos[moved as usize] = i as u32;
        }
        self.gid[ppn as usize] = NONE;
        self.members -= 1;
        if self.scheme == Scheme::SplitGc && len == 2 {
            let other = self.groups[g as usize].ppns[0];
            self.adj(self.seg(other), 0, -1, 0);
        }
        let grp = &self.groups[g as usize];
        if grp.ppns.is_empty() && grp.borrowers == 0 {
            let fp = grp.fp;
            self.index.remove(&fp);
            self.free_groups.push(g);
            self.groups_live -= 1;
        }
    }

    /// A live member of group `g` not in segment `except_seg` (NONE: any segment).
    fn live_member(&self, g: u32, except_seg: u32) -> Option<u32> {
        self.groups[g as usize]
            .ppns
            .iter()
            .copied()
            .find(|&p| self.is_live(p) && (except_seg == NONE || self.seg(p) != except_seg))
    }

    fn borrow(&mut self, lpn: u32, g: u32) {
        self.l2p[lpn as usize] = VFLAG | g;
        let b = &mut self.groups[g as usize].borrowers;
        *b += 1;
        if *b == 1 {
            self.borrowed_groups += 1;
        }
    }

    /// A page's owner or last borrower is gone: it dies unless it is the last live copy of a
    /// group still borrowed from.
    /// Returns true when the page stays (pinned). Call with the owner still set.
    fn maybe_kill(&mut self, ppn: u32) -> bool {
        let g = self.gid[ppn as usize];
        if g != NONE
            && self.groups[g as usize].borrowers > 0
            && self.groups[g as usize]
                .ppns
                .iter()
                .all(|&p| p == ppn || !self.is_live(p))
        {
            return true; // pinned: the last copy the borrowers read
        }
        self.kill(ppn);
        false
    }

    fn kill(&mut self, ppn: u32) {
        let g = self.gid[ppn as usize];
        if g != NONE && self.owner[ppn as usize] == NONE {
            self.groups[g as usize].pinned -= 1;
        }
        self.live[(ppn / 64) as usize] &= !(1 << (ppn % 64));
        if g != NONE && self.scheme == Scheme::Dagc {
            // Invalid but its checksum stays cached: reusable until erased (rank unchanged).
            self.adj(self.seg(ppn), -1, 0, 1);
            return;
        }
        if g != NONE {
            // Leave first: SplitGC's duplicate count never exceeds the valid count.
            self.leave(ppn);
        }
        self.adj(self.seg(ppn), -1, 0, 0);
    }

    /// Group `g` lost its last borrower: its ownerless (pinned) pages die.
    fn unpin(&mut self, g: u32) {
        self.borrowed_groups -= 1;
        if self.groups[g as usize].pinned == 0 {
            return;
        }
        let mut dead = std::mem::take(&mut self.buf);
        dead.clear();
        dead.extend(
            self.groups[g as usize]
                .ppns
                .iter()
                .copied()
                .filter(|&p| self.owner[p as usize] == NONE && self.is_live(p)),
        );
        for &p in &dead {
            self.kill(p);
        }
        self.buf = dead;
        let grp = &self.groups[g as usize];
        if grp.ppns.is_empty() && grp.borrowers == 0 && self.index.get(&grp.fp) == Some(&g) {
            let fp = grp.fp;
            self.index.remove(&fp);
            self.free_groups.push(g);
            self.groups_live -= 1;
        }
    }

    fn release(&mut self, lpn: u32) {
        let x = self.l2p[lpn as usize];
        if x == NONE {
            return;
        }
        self.l2p[lpn as usize] = NONE;
        if x & VFLAG != 0 {
            let g = x & !VFLAG;
            self.groups[g as usize].borrowers -= 1;
            if self.groups[g as usize].borrowers == 0 {
                self.unpin(g);
            }
        } else {
            let kept = self.maybe_kill(x);
            self.owner[x as usize] = NONE;
            if kept {
                self.groups[self.gid[x as usize] as usize].pinned += 1;
            }
        }
    }

    // ---- host operations ----

    /// Writes one user page with content fingerprint `content`.
    pub fn write(&mut self, lpn: u32, content: u64) -> Result<()> {
        self.counters.user_writes += 1;
        self.release(lpn);
        if self.scheme == Scheme::Dagc {
            self.counters.table_lookups += 1;
            if let Some(&g) = self.index.get(&content) {
                if let Some(&p) = self.groups[g as usize].ppns.first() {
                    if !self.is_live(p) {
                        self.live[(p / 64) as usize] |= 1 << (p % 64);
                        self.adj(self.seg(p), 1, 0, -1);
                        self.groups[g as usize].pinned += 1; // live, no owner
                        self.counters.dagc_revived += 1;
                    }
                    self.borrow(lpn, g);
                    self.counters.dagc_reused += 1;
                    return Ok(());
                }
            }
        }
        let plane = self.next_plane();
        let ppn = self.program(plane, 0, content, lpn, false)?;
        self.l2p[lpn as usize] = ppn;
        self.counters.user_programs += 1;
        if self.scheme == Scheme::Dagc {
            let g = match self.index.get(&content) {
                Some(&g) => g,
                None => self.new_group(content),
            };
            self.join(ppn, g);
        }
        Ok(())
    }

    /// Trims one LPN.
    pub fn trim(&mut self, lpn: u32) {
        self.release(lpn);
    }

    /// The page serving `lpn`, if mapped.
    pub fn resolve(&self, lpn: u32) -> Option<u32> {
        let x = self.l2p[lpn as usize];
        if x == NONE {
            None
        } else if x & VFLAG != 0 {
            // Reads are served from the first valid copy in the SMT's list.
            self.live_member(x & !VFLAG, NONE)
        } else {
            Some(x)
        }
    }

    /// Reads one user page: the content fingerprint of the page serving it (None: unmapped).
    pub fn read(&mut self, lpn: u32) -> Option<u64> {
        self.counters.reads += 1;
        match self.resolve(lpn) {
            None => {
                self.counters.unmapped_reads += 1;
                None
            }
            Some(ppn) => {
                if self.log_ops {
                    self.ops.push(DOp::Read { ppn, gc: false });
                }
                Some(self.pcontent[ppn as usize])
            }
        }
    }

    /// Content of the page serving `lpn` without counting a read (for checks).
    pub fn peek(&self, lpn: u32) -> Option<u64> {
        self.resolve(lpn).map(|p| self.pcontent[p as usize])
    }

    // ---- write frontier, segments and GC ----

    fn program(
        &mut self,
        plane: u32,
        stream: usize,
        content: u64,
        owner: u32,
        gc: bool,
    ) -> Result<u32> {
        let f = plane as usize * 2 + stream;
        let mut seg = self.open[f];
        if seg == NONE {
            seg = self.open_segment(plane, f)?;
        }
        let off = self.written[seg as usize];
        let ppn = seg * self.g.pps + off;
        self.owner[ppn as usize] = owner;
        self.pcontent[ppn as usize] = content;
        self.set_once(ppn, false);
        self.set_live(ppn);
        self.written[seg as usize] = off + 1;
        if self.log_ops {
            self.ops.push(DOp::Program {
                ppn,
                gc: gc || self.in_gc,
            });
        }
        if off + 1 == self.g.pps {
            self.state[seg as usize] = SEALED;
            self.seq += 1;
            self.stamp_v[seg as usize] = self.seq;
            self.stamp_k[seg as usize] = self.seq;
            self.open[f] = NONE;
        }
        Ok(ppn)
    }

    #[cold]
    fn open_segment(&mut self, plane: u32, f: usize) -> Result<u32> {
        let mut tries = 0u32;
        loop {
            // A plane full of valid data livelocks: every GC refills the frontier it opened.
            tries += 1;
            if tries > self.g.segments + 2 {
                return Err(Error::DeviceFull(format!(
                    "dedup FTL: plane {plane} makes no progress: its GC victims are full of valid data \
                     (raise op, lower the fill, use more blocks per plane or --gc-scope device)"
                )));
            }
            let seg = self.free[plane as usize].pop_front().ok_or_else(|| {
                Error::DeviceFull("dedup FTL: no free segment (raise op or lower the fill)".into())
            })?;
            self.state[seg as usize] = OPEN;
            self.open[f] = seg;
            if !self.in_gc && self.free[plane as usize].len() < self.g.gc_low as usize {
                self.collect(plane)?;
            }
            let cur = self.open[f];
            if cur != NONE {
                return Ok(cur);
            }
        }
    }

    fn collect(&mut self, plane: u32) -> Result<()> {
        self.in_gc = true;
        let mut picked = 0u64;
        let r = loop {
            if self.free[plane as usize].len() >= self.g.gc_high as usize {
                break Ok(());
            }
            picked += 1;
            if picked > 2 * self.g.segments as u64 + 16 {
                break Err(Error::DeviceFull(
                    "dedup FTL: GC reclaimed no space after visiting every segment".into(),
                ));
            }
            if let Err(e) = self.collect_one(plane) {
                break Err(e);
            }
        };
        self.in_gc = false;
        r
    }

    /// The victim: the sealed segment of lowest rank key, ties to the earliest arrival at
    /// that key.
    fn select(&mut self, plane: u32) -> Option<u32> {
        let mut best: Option<(u32, u64, u32)> = None;
        let mut best_dup: Option<(u32, u64, u32)> = None;
        let use_k = matches!(self.scheme, Scheme::SplitGc | Scheme::Dagc);
        let dup_first = self.scheme == Scheme::SplitGc && self.rule == SplitRule::DupFirst;
        if self.scheme == Scheme::SplitGc && self.rule == SplitRule::PerFree {
            return self.select_per_free(plane);
        }
        for s in (plane as usize..self.g.segments as usize).step_by(self.g.planes as usize) {
            if self.state[s] != SEALED {
                continue;
            }
            let c = if use_k && !dup_first {
                (self.key(s), self.stamp_k[s], s as u32)
            } else {
                (self.valid[s], self.stamp_v[s], s as u32)
            };
            if best.is_none_or(|b| (c.0, c.1) < (b.0, b.1)) {
                best = Some(c);
            }
            if dup_first && self.dup[s] > 0 {
                let d = (self.key(s), self.stamp_k[s], s as u32);
                if best_dup.is_none_or(|b| (d.0, d.1) < (b.0, b.1)) {
                    best_dup = Some(d);
                }
            }
        }
        let pick = best_dup.or(best)?.2;
        if self.scheme == Scheme::SplitGc && self.dup[pick as usize] > 0 {
            self.counters.dup_victims += 1;
        }
        Some(pick)
    }

    /// [`SplitRule::PerFree`]: fewest non-duplicate valid pages per invalid page (exact
    /// rational comparison), ties to the earliest arrival at the rank key; blocks without
    /// invalid pages last (by non-duplicate count).
    fn select_per_free(&mut self, plane: u32) -> Option<u32> {
        let pps = self.g.pps as u64;
        // (non-duplicate valid, freed pages, stamp, segment)
        let mut best: Option<(u64, u64, u64, u32)> = None;
        for s in (plane as usize..self.g.segments as usize).step_by(self.g.planes as usize) {
            if self.state[s] != SEALED {
                continue;
            }
            let n = (self.valid[s] - self.dup[s]) as u64;
            let f = pps - self.valid[s] as u64;
            let c = (n, f, self.stamp_k[s], s as u32);
            let better = match best {
                None => true,
                Some(b) => {
                    let ord = match (c.1 == 0, b.1 == 0) {
                        (true, true) => c.0.cmp(&b.0),
                        (true, false) => std::cmp::Ordering::Greater,
                        (false, true) => std::cmp::Ordering::Less,
                        (false, false) => (c.0 * b.1).cmp(&(b.0 * c.1)),
                    };
                    ord.then(c.2.cmp(&b.2)) == std::cmp::Ordering::Less
                }
            };
            if better {
                best = Some(c);
            }
        }
        let pick = best?.3;
        if self.dup[pick as usize] > 0 {
            self.counters.dup_victims += 1;
        }
        Some(pick)
    }

    /// Moves live page `ppn` to `stream`'s frontier, keeping its owner and group.
    fn relocate(&mut self, ppn: u32, stream: usize, log_read: bool) -> Result<u32> {
        if log_read && self.log_ops {
            self.ops.push(DOp::Read { ppn, gc: true });
        }
        let (content, owner, g) = (
            self.pcontent[ppn as usize],
            self.owner[ppn as usize],
            self.gid[ppn as usize],
        );
        let plane = self.seg(ppn) % self.g.planes;
        let q = self.program(plane, stream, content, owner, true)?;
        if self.is_once(ppn) {
            self.set_once(q, true);
        }
        if owner != NONE {
            self.l2p[owner as usize] = q;
        }
        // Join before leaving so that the group never looks empty.
        if g != NONE {
            self.join(q, g);
        }
        self.owner[ppn as usize] = NONE;
        if g != NONE {
            self.leave(ppn);
        }
        self.clear_live(ppn);
        self.counters.gc_migrated += 1;
        Ok(q)
    }

    fn collect_one(&mut self, plane: u32) -> Result<u32> {
        let victim = self.select(plane).ok_or_else(|| {
            Error::DeviceFull("dedup FTL: GC needs a victim but no segment is sealed".into())
        })?;
        self.state[victim as usize] = COLLECTING;
        self.counters.gc_victims += 1;
        let pps = self.g.pps;
        let base = victim * pps;
        let mut pages = std::mem::take(&mut self.buf);
        pages.clear();
        pages.extend((base..base + pps).filter(|&p| self.is_live(p)));
        for &ppn in &pages {
            if !self.is_live(ppn) {
                continue;
            }
            match self.scheme {
                Scheme::Greedy | Scheme::Dagc => {
                    self.relocate(ppn, 0, true)?;
                }
                Scheme::SplitGc => {
                    let g = self.gid[ppn as usize];
                    if g != NONE && self.live_member(g, victim).is_some() {
                        let o = self.owner[ppn as usize];
                        if o != NONE {
                            self.borrow(o, g);
                            self.queue.push_back(o);
                            self.queue_peak = self.queue_peak.max(self.queue.len());
                            self.counters.deferred_queued += 1;
                        }
                        // Kill with the owner still set: only ownerless pages count as pinned.
                        self.kill(ppn);
                        self.owner[ppn as usize] = NONE;
                    } else {
                        self.relocate(ppn, 0, true)?;
                    }
                }
                Scheme::Cagc => {
                    if self.log_ops {
                        self.ops.push(DOp::Read { ppn, gc: true });
                        self.ops.push(DOp::Compute {
                            ns: self.cagc_fp_ns,
                        });
                    }
                    let fp = self.pcontent[ppn as usize];
                    self.counters.table_lookups += 1;
                    let copy = self
                        .index
                        .get(&fp)
                        .copied()
                        .filter(|&g| self.live_member(g, victim).is_some());
                    match copy {
                        Some(g) => {
                            let o = self.owner[ppn as usize];
                            if o != NONE {
                                self.borrow(o, g);
                            }
                            self.counters.cagc_deduped += 1;
                            self.kill(ppn);
                            self.owner[ppn as usize] = NONE;
                        }
                        None => {
                            let g = self.gid[ppn as usize];
                            // Shared copies are cold (referenced many times), unique pages hot.
                            let shared = g != NONE && self.groups[g as usize].borrowers > 0;
                            let q = self.relocate(ppn, if shared { 1 } else { 0 }, false)?;
                            if self.gid[q as usize] == NONE {
                                let g = match self.index.get(&fp) {
                                    Some(&g) => g,
                                    None => self.new_group(fp),
                                };
                                self.join(q, g);
                            }
                        }
                    }
                }
            }
        }
        // Erase: invalid members still listed (DAGC's reusable pages) leave their groups.
        pages.clear();
        pages.extend(
            (base..base + self.written[victim as usize]).filter(|&p| self.gid[p as usize] != NONE),
        );
        for &p in &pages {
            debug_assert!(!self.is_live(p));
            self.leave(p);
        }
        self.buf = pages;
        if self.log_ops {
            self.ops.push(DOp::Erase { seg: victim });
        }
        let v = victim as usize;
        debug_assert_eq!(self.valid[v], 0);
        self.valid[v] = 0;
        self.dup[v] = 0;
        self.reuse[v] = 0;
        self.written[v] = 0;
        self.state[v] = FREE;
        self.free[plane as usize].push_back(victim);
        self.counters.erases += 1;
        Ok(victim)
    }

    // ---- SplitGC background work ----

    /// Writes back one deferred duplicate from the waiting queue (idle time). With
    /// `crash_after_program`, the page is programmed but power fails before the mapping
    /// commit (see [`DedupFtl::power_cut`]). Returns false when the queue is empty.
    pub fn deferred_step(&mut self, crash_after_program: bool) -> Result<bool> {
        while let Some(lpn) = self.queue.pop_front() {
            let x = self.l2p[lpn as usize];
            if x == NONE || x & VFLAG == 0 {
                continue; // overwritten or trimmed since it was queued
            }
            let g = x & !VFLAG;
            let src = self.live_member(g, NONE).ok_or_else(|| {
                Error::Workload(format!("dedup FTL: VPN {g} has no live copy (LPN {lpn})"))
            })?;
            if self.log_ops {
                self.ops.push(DOp::Read { ppn: src, gc: true });
            }
            let fp = self.groups[g as usize].fp;
            if crash_after_program {
                let plane = self.next_plane();
                let q = self.program(plane, 0, fp, NONE, true)?;
                self.clear_live(q);
                self.counters.orphan_programs += 1;
                self.queue.push_front(lpn);
                return Ok(true);
            }
            let plane = self.next_plane();
            let q = self.program(plane, 0, fp, lpn, true)?;
            // The program may have run GC: resolve the group again (it is kept alive by
            // this LPN's borrow).
            let g = self.l2p[lpn as usize] & !VFLAG;
            match self.writeback {
                Writeback::Keep => self.join(q, g),
                Writeback::Rescrub => {}
                Writeback::Once => self.set_once(q, true),
            }
            self.groups[g as usize].borrowers -= 1;
            self.l2p[lpn as usize] = q;
            if self.groups[g as usize].borrowers == 0 {
                self.unpin(g);
            }
            self.counters.deferred_written += 1;
            return Ok(true);
        }
        Ok(false)
    }

    /// One read-scrub step: reads the next live page of a sealed segment; in the active group
    /// of blocks it is fingerprinted (Bloom prefilter, then the table). Returns the page and
    /// whether it was fingerprinted, or None when the device holds no live sealed page.
    pub fn scrub_step(&mut self) -> Option<(u32, bool)> {
        let segs = self.g.segments;
        let mut visited = 0u64;
        loop {
            let c = self.scrub;
            if c.seg >= segs {
                self.scrub.seg = 0;
                self.scrub.off = 0;
                self.scrub.passes += 1;
                self.scrub.active = (c.active + 1) % self.scrub_groups;
                self.rebuild_bloom();
                visited += 1;
                if visited > 2 {
                    return None;
                }
                continue;
            }
            if self.state[c.seg as usize] != SEALED || c.off >= self.g.pps {
                self.scrub.seg += 1;
                self.scrub.off = 0;
                continue;
            }
            let ppn = c.seg * self.g.pps + c.off;
            self.scrub.off += 1;
            if !self.is_live(ppn) {
                continue;
            }
            self.counters.scrub_pages += 1;
            let fpg = ScrubCursor::group_of(c.seg, segs, self.scrub_groups) == c.active;
            if fpg && self.scheme == Scheme::SplitGc {
                self.counters.scrub_fp_pages += 1;
                if self.gid[ppn as usize] == NONE && !self.is_once(ppn) {
                    self.fingerprint(ppn);
                }
            }
            return Some((ppn, fpg));
        }
    }

    fn fingerprint(&mut self, ppn: u32) {
        let fp = self.pcontent[ppn as usize];
        let g = if !self.bloom.maybe_contains(fp) {
            self.counters.bloom_negatives += 1;
            None
        } else {
            self.counters.table_lookups += 1;
            self.index.get(&fp).copied()
        };
        let g = match g {
            Some(g) => g,
            None => {
                self.bloom.insert(fp);
                match self.index.get(&fp) {
                    // The filter said no but the table has it: impossible for a Bloom
                    // filter rebuilt from the table; kept as a guard.
                    Some(&g) => g,
                    None => self.new_group(fp),
                }
            }
        };
        self.join(ppn, g);
    }

    /// Fingerprints every live page of every sealed segment now (untimed): the state after
    /// enough idle time for the scrub to visit all groups.
    pub fn scrub_all(&mut self) {
        if self.scheme != Scheme::SplitGc {
            return;
        }
        for s in 0..self.g.segments {
            if self.state[s as usize] != SEALED {
                continue;
            }
            for p in s * self.g.pps..(s + 1) * self.g.pps {
                if self.is_live(p) && self.gid[p as usize] == NONE && !self.is_once(p) {
                    self.fingerprint(p);
                }
            }
        }
    }

    fn rebuild_bloom(&mut self) {
        self.bloom.clear();
        for (i, grp) in self.groups.iter().enumerate() {
            if self.index.get(&grp.fp) == Some(&(i as u32)) {
                self.bloom.insert(grp.fp);
            }
        }
    }

    /// Simulated power cut and recovery. Persisted (flushed by the supercapacitor, paper
    /// Section 3.3): primary table, SMT, fingerprint table, segment table. Volatile: the
    /// waiting queue, the Bloom filter, the scrub position inside a segment and any
    /// operation in flight (a page programmed but not committed is garbage). Recovery rebuilds
    /// the queue from the primary table (every LPN with the VPN flag, in LPN order; for CAGC
    /// and DAGC such LPNs are deduplicated for good and stay off the queue) and the Bloom
    /// filter from the fingerprint table.
    pub fn power_cut(&mut self) {
        self.queue.clear();
        self.ops.clear();
        self.scrub.off = 0;
        if self.scheme == Scheme::SplitGc {
            for (lpn, &x) in self.l2p.iter().enumerate() {
                if x != NONE && x & VFLAG != 0 {
                    self.queue.push_back(lpn as u32);
                }
            }
        }
        self.rebuild_bloom();
    }

    /// Share of mapped LPNs whose content is also held by another mapped LPN (from the
    /// simulator's knowledge of content, for the report). O(logical pages).
    pub fn measured_dup_share(&self) -> f64 {
        let mut v: Vec<u64> = (0..self.g.logical_pages as u32)
            .filter_map(|l| self.peek(l))
            .collect();
        if v.is_empty() {
            return 0.0;
        }
        v.sort_unstable();
        let mut dups = 0u64;
        for i in 1..v.len() {
            if v[i] == v[i - 1] {
                dups += 1;
            }
        }
        dups as f64 / v.len() as f64
    }

    /// Memory of the dedup metadata the scheme uses.
    pub fn memory(&self) -> DedupMemory {
        let table = self.groups_live * 28 + self.members * 4;
        match self.scheme {
            Scheme::Greedy => DedupMemory::default(),
            Scheme::SplitGc => DedupMemory {
                fp_table: table,
                bloom: self.bloom.memory_bytes(),
                smt: self.borrowed_groups * 8,
                queue_peak: self.queue_peak as u64 * 8,
            },
            Scheme::Cagc | Scheme::Dagc => DedupMemory {
                fp_table: table,
                bloom: 0,
                smt: self.borrowed_groups * 8,
                queue_peak: 0,
            },
        }
    }

    /// Checks every invariant. O(device); for tests.
    pub fn check(&self) -> std::result::Result<(), String> {
        let pps = self.g.pps;
        let mut borrowers = vec![0u32; self.groups.len()];
        for (lpn, &x) in self.l2p.iter().enumerate() {
            if x == NONE {
                continue;
            }
            if x & VFLAG != 0 {
                let g = (x & !VFLAG) as usize;
                if g >= self.groups.len() || self.index.get(&self.groups[g].fp) != Some(&(g as u32))
                {
                    return Err(format!("LPN {lpn} points at freed VPN {g}"));
                }
                borrowers[g] += 1;
                if self.live_member(g as u32, NONE).is_none() {
                    return Err(format!("LPN {lpn}: VPN {g} has no live copy"));
                }
            } else {
                if !self.is_live(x) {
                    return Err(format!("LPN {lpn} maps to dead PPN {x}"));
                }
                if self.owner[x as usize] != lpn as u32 {
                    return Err(format!(
                        "LPN {lpn} -> PPN {x} owned by {}",
                        self.owner[x as usize]
                    ));
                }
            }
        }
        let mut members = 0u64;
        let mut live_groups = 0u64;
        for (g, grp) in self.groups.iter().enumerate() {
            if self.index.get(&grp.fp) != Some(&(g as u32)) {
                continue;
            }
            live_groups += 1;
            if grp.borrowers != borrowers[g] {
                return Err(format!(
                    "VPN {g}: {} borrowers recorded, {} found",
                    grp.borrowers, borrowers[g]
                ));
            }
            for (i, &p) in grp.ppns.iter().enumerate() {
                members += 1;
                if self.gid[p as usize] != g as u32 || self.pos[p as usize] != i as u32 {
                    return Err(format!("VPN {g}: member {p} back-pointer broken"));
                }
                if self.pcontent[p as usize] != grp.fp {
                    return Err(format!("VPN {g}: member {p} holds other content"));
                }
                if self.scheme != Scheme::Dagc && !self.is_live(p) {
                    return Err(format!("VPN {g}: dead member {p}"));
                }
            }
            if grp.ppns.is_empty() && grp.borrowers == 0 {
                return Err(format!("VPN {g} is empty but indexed"));
            }
            let pinned = grp
                .ppns
                .iter()
                .filter(|&&p| self.is_live(p) && self.owner[p as usize] == NONE)
                .count() as u32;
            if pinned != grp.pinned {
                return Err(format!(
                    "VPN {g}: {} pinned recorded, {pinned} found",
                    grp.pinned
                ));
            }
        }
        if members != self.members || live_groups != self.groups_live {
            return Err("group counters disagree".into());
        }
        for s in 0..self.g.segments {
            let (mut v, mut d, mut r) = (0u32, 0u32, 0u32);
            for p in s * pps..(s + 1) * pps {
                let g = self.gid[p as usize];
                if self.is_live(p) {
                    v += 1;
                    let o = self.owner[p as usize];
                    if o == NONE {
                        if g == NONE || self.groups[g as usize].borrowers == 0 {
                            return Err(format!("PPN {p} live without owner or borrower"));
                        }
                    } else if self.l2p[o as usize] != p {
                        return Err(format!("PPN {p} owner {o} maps elsewhere"));
                    }
                    if g != NONE && self.groups[g as usize].ppns.len() >= 2 {
                        d += 1;
                    }
                } else if g != NONE {
                    r += 1;
                }
                if p - s * pps >= self.written[s as usize] && (self.is_live(p) || g != NONE) {
                    return Err(format!("PPN {p} beyond the write pointer"));
                }
            }
            if v != self.valid[s as usize] {
                return Err(format!(
                    "segment {s}: valid {} but {v} live",
                    self.valid[s as usize]
                ));
            }
            if self.scheme == Scheme::SplitGc && d != self.dup[s as usize] {
                return Err(format!(
                    "segment {s}: dup {} but {d} found",
                    self.dup[s as usize]
                ));
            }
            if self.scheme == Scheme::Dagc && r != self.reuse[s as usize] {
                return Err(format!(
                    "segment {s}: reuse {} but {r} found",
                    self.reuse[s as usize]
                ));
            }
        }
        if self.scheme == Scheme::SplitGc {
            let queued: std::collections::BTreeSet<u32> = self.queue.iter().copied().collect();
            for (lpn, &x) in self.l2p.iter().enumerate() {
                if x != NONE && x & VFLAG != 0 && !queued.contains(&(lpn as u32)) {
                    return Err(format!("deferred LPN {lpn} is not in the waiting queue"));
                }
            }
        }
        Ok(())
    }
}
