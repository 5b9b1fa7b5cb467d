//! Content mode: invariant checker, end-to-end content check, memory, report, checkpoint.

use super::{ContentCounters, Ftl};
use crate::checkpoint::{CheckpointReader, CheckpointWriter, StateIn, StateOut};
use crate::content::{ContentGen, ContentStore, VFLAG};
use crate::error::{Error, Result};
use crate::segment::SegState;
use crate::types::{Lpn, NONE};
use std::collections::VecDeque;

/// What a run in content mode reports (the `dedup` section of a result).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ContentReport {
    /// The GC action and its parameters, e.g. whether an upper-bound variant ran.
    pub gc_action: String,
    /// Counters of the measured phase (content check, deferred pages, remaps, revives...).
    pub counters: ContentCounters,
    /// Deferred LPNs still served through a VPN at the end (not yet written back).
    pub deferred_pending: u64,
    /// LPNs served through a VPN at the end (deferred or deduplicated).
    pub vpn_lpns: u64,
    /// Share of mapped LPNs whose content another mapped LPN also holds, at the end.
    pub measured_dup_share: f64,
    /// Fingerprint-index entries at the end and at the peak; entries dropped (full index).
    pub index_entries: u64,
    /// Peak of the index.
    pub index_peak: u64,
    /// Index entries dropped because it was full.
    pub index_evictions: u64,
    /// The policy's own counters.
    pub policy: Option<serde_json::Value>,
    /// SSD metadata of the content mode in bytes per structure (as the SSD would store it,
    /// unlike `memory`, which is what the simulator holds).
    pub ssd_metadata: Vec<(String, u64)>,
}

/// The content layer's state in a checkpoint (everything but the action, saved apart).
#[derive(serde::Serialize, serde::Deserialize)]
struct ContentState {
    store: ContentStore,
    gen: ContentGen,
    queue: VecDeque<Lpn>,
    queue_peak: usize,
    #[serde(with = "crate::checkpoint::raw")]
    expect: Vec<u64>,
    #[serde(with = "crate::checkpoint::raw")]
    staged: Vec<u64>,
    counters: ContentCounters,
    error: Option<String>,
}

impl Ftl {
    /// Verifies every LPN's content against its last write (O(logical pages)).
    pub fn check_all_content(&self) -> Result<()> {
        let Some(cl) = self.content.as_deref() else {
            return Ok(());
        };
        for (lpn, &want) in cl.expect.iter().enumerate() {
            if cl.staged[lpn / 64] >> (lpn % 64) & 1 == 1 {
                continue; // written by the host, still in a write cache
            }
            let got = self
                .resolve(lpn as Lpn)
                .map(|p| cl.store.pcontent[p as usize]);
            if got.unwrap_or(0) != want {
                return Err(Error::Workload(format!(
                    "content check: LPN {lpn} holds {got:?}, last written {want:#x} ({})",
                    cl.action.name()
                )));
            }
        }
        Ok(())
    }

    /// Memory of the content mode by structure, as the simulator holds it.
    pub(crate) fn content_memory(&self) -> Vec<(&'static str, u64)> {
        let Some(cl) = self.content.as_deref() else {
            return Vec::new();
        };
        vec![
            (
                "content groups, fingerprint index, recency links (simulator; the SSD's table: dedup.ssd_metadata)",
                cl.store.simulator_bytes(),
            ),
            (
                "page contents, group links (16 B per physical page)",
                cl.store.per_page_bytes(),
            ),
            (
                "content check: last-written content (8 B per LPN) and staged bits",
                cl.expect.len() as u64 * 8 + cl.staged.len() as u64 * 8,
            ),
            // Its peak length, not the capacity (a resumed run must report the same).
            ("deferred-migration queue", cl.queue_peak as u64 * 4),
            ("GC action (e.g. Bloom filter)", cl.action.memory_bytes()),
            (
                "segment content counters (8 B per segment)",
                self.segs.len() as u64 * 8,
            ),
        ]
    }

    /// What the content mode's metadata would take in the SSD, by structure: the
    /// fingerprint table (28 B per content: 20 B SHA-1 + 4 B VPN + 4 B count, plus 4 B per
    /// listed copy), the SMT entries in use (8 B each; the L2P's MSB flags a VPN), the
    /// deferred queue at its peak (8 B per entry) and the action's own structures.
    pub fn content_ssd_metadata(&self) -> Vec<(String, u64)> {
        let Some(cl) = self.content.as_deref() else {
            return Vec::new();
        };
        let (table, smt) = cl.store.metadata_bytes();
        vec![
            ("fingerprint table".into(), table),
            ("SMT".into(), smt),
            ("deferred queue (peak)".into(), cl.queue_peak as u64 * 8),
            ("GC action (Bloom filter)".into(), cl.action.memory_bytes()),
        ]
    }

    /// The content report; `base`: the counters at the start of the measured phase.
    pub fn content_report(&self, base: &ContentCounters) -> Option<ContentReport> {
        let cl = self.content.as_deref()?;
        let vpn_lpns = self
            .map
            .l2p
            .iter()
            .filter(|&&x| x != NONE && x & VFLAG != 0)
            .count() as u64;
        // Sized up front: grown by doubling, the vector was copied at each step while its
        // old block was still resident (a 32 MiB jump of the peak RSS at 8 GiB instead of
        // 16 MiB; the memory estimate counts 8 B per LPN).
        let mut v: Vec<u64> = Vec::with_capacity(self.map.l2p.len());
        v.extend(
            (0..self.map.l2p.len() as Lpn)
                .filter_map(|l| self.resolve(l).map(|p| cl.store.pcontent[p as usize])),
        );
        v.sort_unstable();
        let dups = v.windows(2).filter(|w| w[0] == w[1]).count();
        Some(ContentReport {
            gc_action: cl.action.variant(),
            counters: cl.counters.since(base),
            deferred_pending: if cl.store.needs.defers { vpn_lpns } else { 0 },
            vpn_lpns,
            measured_dup_share: if v.is_empty() {
                0.0
            } else {
                dups as f64 / v.len() as f64
            },
            index_entries: cl.store.indexed,
            index_peak: cl.store.indexed_peak,
            index_evictions: cl.store.evictions,
            policy: cl.action.report(),
            ssd_metadata: self.content_ssd_metadata(),
        })
    }

    /// Writes the content layer's checkpoint sections.
    pub(crate) fn save_content(&self, w: &mut CheckpointWriter) -> Result<()> {
        let Some(cl) = self.content.as_deref() else {
            return Ok(());
        };
        #[derive(serde::Serialize)]
        struct Ref<'a> {
            store: &'a ContentStore,
            gen: &'a ContentGen,
            queue: &'a VecDeque<Lpn>,
            queue_peak: usize,
            #[serde(with = "crate::checkpoint::raw")]
            expect: &'a [u64],
            #[serde(with = "crate::checkpoint::raw")]
            staged: &'a [u64],
            counters: &'a ContentCounters,
            error: &'a Option<String>,
        }
        w.value(
            b"CONT",
            &Ref {
                store: &cl.store,
                gen: &cl.gen,
                queue: &cl.queue,
                queue_peak: cl.queue_peak,
                expect: &cl.expect,
                staged: &cl.staged,
                counters: &cl.counters,
                error: &cl.error,
            },
        )?;
        let mut out = StateOut::section(w, b"GACT");
        cl.action.save_state(&mut out)?;
        out.finish("the GC action")?;
        Ok(())
    }

    /// Restores what [`Ftl::save_content`] wrote (the FTL already rebuilt in content mode).
    pub(crate) fn load_content(&mut self, r: &mut CheckpointReader) -> Result<()> {
        if self.content.is_none() {
            return Ok(());
        }
        // The saved tables replace the fresh layer's whole: free those first, or both are
        // resident at once (a resumed SplitGC run peaked 15 % over its estimate). A load
        // that fails leaves them empty, and the run is not built.
        {
            let cl = self.clm();
            for t in [&mut cl.store.pcontent, &mut cl.expect] {
                *t = Vec::new();
            }
            for t in [&mut cl.store.gid, &mut cl.store.pos] {
                *t = Vec::new();
            }
        }
        let st: ContentState = r.value(b"CONT", "content layer")?;
        let phys = self.map.p2l.len();
        let ok = st.store.pcontent.len() == phys
            && st.store.gid.len() == phys
            && st.store.pos.len() == phys
            && st.store.noprint.len() == phys.div_ceil(64)
            && st.expect.len() == self.map.l2p.len()
            && st.staged.len() == self.map.l2p.len().div_ceil(64)
            && st.store.rprev.len() == st.store.groups.len()
            && st.store.rnext.len() == st.store.groups.len()
            && st.store.needs == self.cl().store.needs
            && st.gen.same_model(&self.cl().gen);
        if !ok {
            return Err(r.damaged(
                "content layer does not match the configured device and GC action".into(),
            ));
        }
        let name = self.cl().action.name();
        let mut ga = StateIn::section(r, b"GACT")?;
        let loaded = self
            .clm()
            .action
            .load_state(&mut ga)
            .and_then(|_| ga.finish());
        loaded.map_err(|e| r.damaged(format!("GC action `{name}`: {e}")))?;
        let cl = self.clm();
        cl.store = st.store;
        cl.gen = st.gen;
        cl.queue = st.queue;
        cl.queue_peak = st.queue_peak;
        cl.expect = st.expect;
        cl.staged = st.staged;
        cl.counters = st.counters;
        cl.error = st.error;
        if let Err(e) = self.check_content() {
            return Err(r.damaged(format!("content layer inconsistent: {e}")));
        }
        // Every LPN must hold what was last written to it (the check each read makes): an
        // edited table would otherwise surface mid-run as a content error without the file.
        if let Err(e) = self.check_all_content() {
            return Err(r.damaged(format!("content layer inconsistent: {e}")));
        }
        Ok(())
    }

    /// The content store's links are in bounds and agree with each other (page -> group ->
    /// member, recency list, free list, waiting queue): what [`Ftl::check_content`] and the
    /// hot path index with, checked first so a damaged checkpoint cannot make them panic.
    fn check_content_links(&self) -> std::result::Result<(), String> {
        let cl = self.cl();
        let st = &cl.store;
        let (groups, physical) = (st.groups.len(), self.map.p2l.len());
        for (g, grp) in st.groups.iter().enumerate() {
            if grp.in_use {
                if let Some(p) = grp.ppns.iter().find(|&p| p as usize >= physical) {
                    return Err(format!("VPN {g}: member {p} beyond the physical pages"));
                }
            }
        }
        for (p, &g) in st.gid.iter().enumerate() {
            if g != NONE
                && ((g as usize) >= groups
                    || !st.groups[g as usize].in_use
                    || st.groups[g as usize].ppns.get(st.pos[p] as usize) != Some(p as u32))
            {
                return Err(format!("PPN {p}: group {g} does not list it"));
            }
        }
        // The recency order links exactly the indexed groups.
        let (mut g, mut prev, mut n) = (st.rhead, NONE, 0u64);
        while g != NONE {
            n += 1;
            if g as usize >= groups
                || n > groups as u64
                || st.rprev[g as usize] != prev
                || !st.groups[g as usize].indexed
            {
                return Err(format!("recency order broken at VPN {g}"));
            }
            prev = g;
            g = st.rnext[g as usize];
        }
        if st.rtail != prev || n != st.indexed {
            return Err(format!("recency order: {n} linked, {} indexed", st.indexed));
        }
        let mut free = vec![false; groups];
        for &g in &st.free_groups {
            if g as usize >= groups || st.groups[g as usize].in_use || free[g as usize] {
                return Err(format!("free VPN {g} out of range, in use or listed twice"));
            }
            free[g as usize] = true;
        }
        if st.free_groups.len() as u64 + st.groups_live != groups as u64 {
            return Err("free VPNs and live VPNs do not add up".into());
        }
        if let Some(&l) = cl.queue.iter().find(|&&l| l as usize >= self.map.l2p.len()) {
            return Err(format!("queued LPN {l} beyond the logical pages"));
        }
        Ok(())
    }

    /// Checks every invariant of the content mode. O(device); for tests and `--check`.
    pub(crate) fn check_content(&self) -> std::result::Result<(), String> {
        self.check_content_links()?;
        let cl = self.cl();
        let st = &cl.store;
        let pps = self.p.pages_per_segment;
        let valid = |p: u32| self.map.is_valid(p);
        let mut borrowers = vec![0u32; st.groups.len()];
        for (lpn, &x) in self.map.l2p.iter().enumerate() {
            if x == NONE {
                continue;
            }
            if x & VFLAG != 0 {
                let g = (x & !VFLAG) as usize;
                if !st.group_in_use(g as u32) {
                    return Err(format!("LPN {lpn} points at unused VPN {g}"));
                }
                borrowers[g] += 1;
                if !st.groups[g].ppns.iter().any(valid) {
                    return Err(format!("LPN {lpn}: VPN {g} has no live copy"));
                }
            } else {
                if x as usize >= self.map.p2l.len() || !valid(x) {
                    return Err(format!("LPN {lpn} maps to dead PPN {x}"));
                }
                if self.map.p2l[x as usize] != lpn as u32 {
                    return Err(format!(
                        "LPN {lpn} -> PPN {x} owned by {}",
                        self.map.p2l[x as usize]
                    ));
                }
            }
        }
        let (mut members, mut live_groups, mut indexed, mut borrowed) = (0u64, 0u64, 0u64, 0u64);
        for (g, grp) in st.groups.iter().enumerate() {
            if !st.group_in_use(g as u32) {
                if grp.indexed {
                    return Err(format!("unused VPN {g} is indexed"));
                }
                continue;
            }
            live_groups += 1;
            if grp.borrowers > 0 {
                borrowed += 1;
            }
            if grp.indexed {
                indexed += 1;
                if st.index.get(&grp.fp) != Some(&(g as u32)) {
                    return Err(format!("VPN {g} marked indexed but the index disagrees"));
                }
            }
            // The placement classifies a pinned copy by this LPN (an index into its tables).
            if grp.rep_lpn as usize >= self.map.l2p.len() {
                return Err(format!(
                    "VPN {g}: representative LPN {} out of range",
                    grp.rep_lpn
                ));
            }
            if grp.borrowers != borrowers[g] {
                return Err(format!(
                    "VPN {g}: {} borrowers recorded, {} found",
                    grp.borrowers, borrowers[g]
                ));
            }
            for (i, p) in grp.ppns.iter().enumerate() {
                members += 1;
                if st.gid[p as usize] != g as u32 || st.pos[p as usize] != i as u32 {
                    return Err(format!("VPN {g}: member {p} back-pointer broken"));
                }
                if st.pcontent[p as usize] != grp.fp {
                    return Err(format!("VPN {g}: member {p} holds other content"));
                }
                if !st.needs.keep_invalid && !valid(p) {
                    return Err(format!("VPN {g}: dead member {p}"));
                }
            }
            let pinned = grp
                .ppns
                .iter()
                .filter(|&p| valid(p) && self.map.p2l[p as usize] == NONE)
                .count() as u32;
            if pinned != grp.pinned {
                return Err(format!(
                    "VPN {g}: {} pinned recorded, {pinned} found",
                    grp.pinned
                ));
            }
        }
        if st.index.len() as u64 != indexed || st.indexed != indexed {
            return Err(format!(
                "index holds {} entries, {} groups marked, counter {}",
                st.index.len(),
                indexed,
                st.indexed
            ));
        }
        if let Some(cap) = st.needs.index_capacity {
            if indexed > cap {
                return Err(format!("index holds {indexed} entries, capacity {cap}"));
            }
        }
        if members != st.members || live_groups != st.groups_live || borrowed != st.borrowed_groups
        {
            return Err("group counters disagree".into());
        }
        let mut written_total = 0u64;
        let mut states = [0usize; 4];
        for s in 0..self.segs.len() as u32 {
            let (mut v, mut d, mut r) = (0u32, 0u32, 0u32);
            let w = self.segs.written[s as usize];
            for p in s * pps..(s + 1) * pps {
                let g = st.gid[p as usize];
                if valid(p) {
                    v += 1;
                    let o = self.map.p2l[p as usize];
                    if o == NONE {
                        if g == NONE || st.groups[g as usize].borrowers == 0 {
                            return Err(format!("PPN {p} live without owner or borrower"));
                        }
                    } else if self.map.l2p[o as usize] != p {
                        return Err(format!("PPN {p} owner {o} maps elsewhere"));
                    }
                    if g != NONE && st.groups[g as usize].ppns.len() >= 2 {
                        d += 1;
                    }
                } else if g != NONE {
                    r += 1;
                }
                if p - s * pps >= w && (valid(p) || g != NONE) {
                    return Err(format!("PPN {p} beyond the write pointer"));
                }
            }
            if v != self.segs.valid[s as usize] {
                return Err(format!(
                    "segment {s}: valid {} but {v} live",
                    self.segs.valid[s as usize]
                ));
            }
            if st.needs.dup_counts && d != self.segs.dup[s as usize] {
                return Err(format!(
                    "segment {s}: dup {} but {d} found",
                    self.segs.dup[s as usize]
                ));
            }
            if r != self.segs.reuse[s as usize] {
                return Err(format!(
                    "segment {s}: reuse {} but {r} found",
                    self.segs.reuse[s as usize]
                ));
            }
            let state = self.segs.state[s as usize];
            states[state as usize] += 1;
            if state == SegState::Sealed && w != pps {
                return Err(format!("sealed segment {s} is not full"));
            }
            written_total += w as u64;
        }
        if written_total != self.written_pages {
            return Err("written-page counter disagrees".into());
        }
        if states[SegState::Free as usize] != self.free.len() {
            return Err("free pool disagrees with the free segments".into());
        }
        if states[SegState::Open as usize] != self.open.iter().filter(|f| f.seg != NONE).count() {
            return Err("open segments disagree with the frontiers".into());
        }
        if st.needs.defers {
            let queued: std::collections::BTreeSet<Lpn> = cl.queue.iter().copied().collect();
            for (lpn, &x) in self.map.l2p.iter().enumerate() {
                if x != NONE && x & VFLAG != 0 && !queued.contains(&(lpn as Lpn)) {
                    return Err(format!("deferred LPN {lpn} is not in the waiting queue"));
                }
            }
        }
        Ok(())
    }
}
