//! The page-mapped FTL: mapping, segments, write streams, free pool and GC.
//!
//! Write path: the placement chooses a stream; the old copy (if any) is invalidated; the
//! page is programmed at the stream's write frontier. When a write needs a fresh segment
//! and taking it leaves fewer than `gc_low` free segments, GC reclaims victims until
//! `gc_high` segments are free. With a garbage-proportion trigger
//! ([`FtlParams::gc_garbage`], SepBIT's log-structured setting) GC also reclaims one
//! victim after any user write that leaves more than that share of the written pages
//! invalid in sealed segments; the free-segment watermark stays as a backstop. GC asks the placement for the victim group, the victim
//! policy for the segment, and the placement for each relocated page's stream. Policies
//! see segments only through [`SegmentView`].

mod check;
pub mod cmt;
mod dedup;
mod dedup_check;
mod dedup_gc;
pub mod mapping;
mod reclaim;
mod state;
mod translation;

use crate::error::{Error, Result};
pub use crate::ops::FlashOp;
use crate::ops::{OpLog, Origin};
use crate::placement::Placement;
use crate::segment::{SegState, SegmentView, Segments};
use crate::types::{Lpn, Ppn, SegmentId, StreamId, NONE};
use crate::victim::{VictimPolicy, VictimScope};
pub use cmt::{Cmt, CmtParams, TranslationCounters};
pub use dedup::{Background, ContentCounters, ContentLayer};
pub use dedup_check::ContentReport;
pub use mapping::Mapping;
use std::collections::VecDeque;

/// Number of bins of the victim valid-ratio histogram (bin i holds ratios in [i/100, (i+1)/100), the last bin ratio 1).
pub const VICTIM_HIST_BINS: usize = 101;

/// Event counters of the FTL. All counts are in mapping units (LPN-sized pages).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FtlCounters {
    /// User page writes.
    pub user_writes: u64,
    /// Pages programmed by GC relocations.
    pub gc_writes: u64,
    /// Segment erases.
    pub erases: u64,
    /// Victims collected (GC invocations, one per victim segment).
    pub gc_victims: u64,
    /// GC episodes (a run of victims triggered by the low watermark).
    pub gc_episodes: u64,
    /// User page reads.
    pub reads: u64,
    /// Reads of unmapped LPNs.
    pub unmapped_reads: u64,
    /// Trimmed pages that were mapped.
    pub trims: u64,
    /// Victims collected by the garbage-proportion trigger (included in `gc_victims`).
    #[serde(default)]
    pub gc_garbage_victims: u64,
    /// Garbage-proportion checks that found no candidate (e.g. none past the victim
    /// policy's `min_garbage` filter) and collected nothing.
    #[serde(default)]
    pub gc_garbage_idle: u64,
    /// Sum over victim picks of the pages holding data (for the effective alpha).
    pub alpha_samples_sum: u128,
    /// Number of effective-alpha samples.
    pub alpha_samples: u64,
    /// Content mode: user page writes that programmed nothing (their content reused a
    /// cached page, DAGC).
    #[serde(default)]
    pub absorbed_writes: u64,
    /// Content mode: pages programmed by background work (deferred migration at idle time,
    /// SplitGC).
    #[serde(default)]
    pub background_writes: u64,
    /// Mapping-cache counters (None without a mapping cache).
    pub translation: Option<TranslationCounters>,
}

impl FtlCounters {
    /// Flash page programs: user writes that programmed (content mode: not those
    /// absorbed), GC, background and translation writes.
    #[inline]
    pub fn programs(&self) -> u64 {
        self.user_writes - self.absorbed_writes + self.extra_programs()
    }

    /// Translation pages programmed (0 without a mapping cache).
    #[inline]
    pub fn translation_writes(&self) -> u64 {
        self.translation.map_or(0, |t| t.writes)
    }

    /// Pages programmed besides user writes: GC page moves, background writes (content
    /// mode) and translation writes.
    #[inline]
    pub fn extra_programs(&self) -> u64 {
        self.gc_writes + self.background_writes + self.translation_writes()
    }

    /// Whether these counters could come from a run (a restored checkpoint's are checked):
    /// absorbed writes among the user writes, and the program count representable.
    pub fn consistent(&self) -> bool {
        self.absorbed_writes <= self.user_writes
            && self
                .gc_writes
                .checked_add(self.background_writes)
                .and_then(|x| x.checked_add(self.translation_writes()))
                .and_then(|x| x.checked_add(self.user_writes))
                .is_some()
    }

    /// Whether every count of `self` is at most the same count of `later` (a snapshot
    /// taken before it), the program count included.
    pub fn not_after(&self, later: &FtlCounters) -> bool {
        let (a, b) = (self, later);
        a.consistent()
            && b.consistent()
            && a.user_writes <= b.user_writes
            && a.gc_writes <= b.gc_writes
            && a.erases <= b.erases
            && a.gc_victims <= b.gc_victims
            && a.gc_episodes <= b.gc_episodes
            && a.reads <= b.reads
            && a.unmapped_reads <= b.unmapped_reads
            && a.trims <= b.trims
            && a.alpha_samples_sum <= b.alpha_samples_sum
            && a.alpha_samples <= b.alpha_samples
            && a.absorbed_writes <= b.absorbed_writes
            && a.background_writes <= b.background_writes
            && a.translation_writes() <= b.translation_writes()
            && a.programs() <= b.programs()
    }
}

/// Static parameters of an FTL instance.
#[derive(Debug, Clone, Copy)]
pub struct FtlParams {
    /// Logical pages.
    pub logical_pages: u64,
    /// Segments.
    pub segments: u32,
    /// Pages per segment.
    pub pages_per_segment: u32,
    /// GC starts below this many free segments.
    pub gc_low: u32,
    /// GC restores this many free segments.
    pub gc_high: u32,
    /// Garbage-proportion trigger (SepBIT's simulator): after a user write, if invalid
    /// pages in sealed segments exceed this share of all pages holding data, GC reclaims
    /// one victim. `None`: free-segment watermarks only.
    pub gc_garbage: Option<f64>,
}

/// Open write frontier of a stream.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Frontier {
    seg: SegmentId,
}

/// The FTL.
pub struct Ftl {
    p: FtlParams,
    pub(crate) map: Mapping,
    pub(crate) segs: Segments,
    free: VecDeque<SegmentId>,
    open: Vec<Frontier>,
    placement: Box<dyn Placement>,
    /// The placement's [`Placement::wants_prefetch`], asked once.
    placement_prefetch: bool,
    victim: Box<dyn VictimPolicy>,
    clock: u64,
    seal_seq: u64,
    in_gc: bool,
    written_pages: u64,
    /// Invalid pages in sealed segments (the garbage the garbage-proportion trigger sees).
    sealed_invalid: u64,
    /// Counters since creation (callers snapshot them to measure intervals).
    pub counters: FtlCounters,
    /// Victim valid-ratio histogram (see [`VICTIM_HIST_BINS`]).
    pub victim_hist: Vec<u64>,
    /// Optional hook called after each GC'd victim (the invariant checker uses it).
    check_after_gc: bool,
    /// The operation sink (off unless a timed device model drains it).
    pub(crate) log: OpLog,
    victim_log: Option<Vec<(SegmentId, u32)>>,
    gc_buf: Vec<Lpn>,
    /// Content mode (deduplication-aware GC actions), see `ftl/dedup.rs`.
    pub(crate) content: Option<Box<ContentLayer>>,
    /// The mapping cache (None: the whole L2P in DRAM, today's model).
    pub(crate) cmt: Option<Box<Cmt>>,
    /// Write stream of translation pages (the frontier after the placement's).
    tstream: StreamId,
    /// Sealed segments of the translation stream.
    t_sealed: u32,
    /// Translation pages of a victim's relocated pages that were not cached.
    gc_tpages: Vec<u32>,
    /// An error of a mapping-cache write-back during a read or trim (which return no
    /// error), reported by the next write.
    pending_error: Option<Error>,
}

impl Ftl {
    /// A fresh, empty FTL.
    pub fn new(p: FtlParams, placement: Box<dyn Placement>, victim: Box<dyn VictimPolicy>) -> Ftl {
        Ftl::with_mapping_cache(p, placement, victim, None)
    }

    /// A fresh, empty FTL with a mapping cache (`cmt`; None: the whole L2P in DRAM). The
    /// victim policy needs one group more than the placement has streams when `cmt` is set
    /// (the translation pages' stream).
    pub fn with_mapping_cache(
        p: FtlParams,
        placement: Box<dyn Placement>,
        victim: Box<dyn VictimPolicy>,
        cmt: Option<CmtParams>,
    ) -> Ftl {
        let physical = p.segments as u64 * p.pages_per_segment as u64;
        let streams = placement.streams();
        // The L2P holds the translation pages' GTD entries after the logical pages.
        let l2p_len = p.logical_pages + cmt.map_or(0, |c| c.pages as u64);
        let mut f = Ftl {
            map: Mapping::new(l2p_len, physical),
            segs: Segments::new(p.segments, p.pages_per_segment),
            free: (0..p.segments).collect(),
            open: vec![Frontier { seg: NONE }; streams],
            placement_prefetch: placement.wants_prefetch(),
            placement,
            victim,
            clock: 0,
            seal_seq: 0,
            in_gc: false,
            written_pages: 0,
            sealed_invalid: 0,
            counters: FtlCounters::default(),
            victim_hist: vec![0; VICTIM_HIST_BINS],
            check_after_gc: false,
            log: OpLog::default(),
            victim_log: None,
            gc_buf: Vec::new(),
            content: None,
            cmt: None,
            tstream: NONE as StreamId,
            t_sealed: 0,
            gc_tpages: Vec::new(),
            pending_error: None,
            p,
        };
        if let Some(c) = cmt {
            f.set_mapping_cache(c);
        }
        f
    }

    /// Static parameters.
    pub fn params(&self) -> FtlParams {
        self.p
    }
    /// Read-only view of the segments.
    pub fn view(&self) -> SegmentView<'_> {
        SegmentView::new(&self.segs, self.clock)
    }
    /// The mapping tables.
    pub fn mapping(&self) -> &Mapping {
        &self.map
    }
    /// Number of free segments.
    pub fn free_segments(&self) -> usize {
        self.free.len()
    }
    /// The placement scheme.
    pub fn placement(&self) -> &dyn Placement {
        self.placement.as_ref()
    }
    /// The victim policy.
    pub fn victim_policy(&self) -> &dyn VictimPolicy {
        self.victim.as_ref()
    }
    /// User-write clock.
    pub fn clock(&self) -> u64 {
        self.clock
    }
    /// Run the invariant checker after every victim (slow; for tests and `--check`).
    pub fn set_check_after_gc(&mut self, on: bool) {
        self.check_after_gc = on;
    }

    /// Logs controller CPU work done on the FTL's behalf outside it (e.g. the write cache's
    /// replacement scan) so that the device model can charge it; nothing when logging is off.
    pub fn log_compute(&mut self, work: crate::ops::Compute, origin: Origin) {
        self.log.push(FlashOp::Compute { work, origin });
    }

    /// Log every physical operation into the op stream ([`crate::ops`]) for a device
    /// model. Off by default: WAF-only runs pay one predictable branch per page.
    pub fn set_op_log(&mut self, on: bool) {
        self.log.set(on);
    }

    /// Whether the op stream is on.
    pub fn op_log_on(&self) -> bool {
        self.log.is_on()
    }

    /// Moves the logged operations into `out` (in issue order) and clears the log.
    #[inline]
    pub fn drain_ops(&mut self, out: &mut Vec<FlashOp>) {
        self.log.drain_into(out);
    }

    /// Record every victim and the number of valid pages it moved (for tests and teaching).
    pub fn set_victim_log(&mut self, on: bool) {
        self.victim_log = on.then(Vec::new);
    }

    /// The victims collected since [`Ftl::set_victim_log`]: (segment, pages relocated).
    pub fn victim_log(&self) -> &[(SegmentId, u32)] {
        self.victim_log.as_deref().unwrap_or(&[])
    }

    /// Writes one user page.
    #[inline]
    pub fn write(&mut self, lpn: Lpn) -> Result<()> {
        if self.content.is_some() {
            return self.write_content(lpn, 0);
        }
        if self.cmt.is_some() {
            self.translate(lpn, true)?;
        }
        self.clock += 1;
        let s = self.placement.user_stream(lpn, self.clock);
        let old = self.map.l2p[lpn as usize];
        if old != NONE {
            self.invalidate(old);
            // Unmapped until the new copy is programmed, so a GC run in between (and the
            // invariant checker after it) sees a consistent state.
            self.map.l2p[lpn as usize] = NONE;
        }
        self.counters.user_writes += 1;
        self.write_page(s, lpn, NONE, Origin::Host)?;
        if let Some(g) = self.p.gc_garbage {
            if !self.in_gc && self.sealed_invalid as f64 > g * self.written_pages as f64 {
                self.collect_garbage()?;
            }
        }
        Ok(())
    }

    /// One victim for the garbage-proportion trigger (SepBIT's simulator collects one
    /// segment per check). No candidate (e.g. none passes a `min_garbage` filter): nothing.
    #[cold]
    fn collect_garbage(&mut self) -> Result<()> {
        self.in_gc = true;
        let r = self.collect_one_or_none();
        self.in_gc = false;
        match r? {
            Some(_) => self.counters.gc_garbage_victims += 1,
            None => self.counters.gc_garbage_idle += 1,
        }
        Ok(())
    }

    /// Invalid pages in sealed segments.
    pub fn sealed_invalid_pages(&self) -> u64 {
        self.sealed_invalid
    }

    /// Prefetch hint for an upcoming operation on `lpn` (callers that know the next
    /// requests, like the simulation loop, call this a few requests ahead).
    #[inline(always)]
    pub fn prefetch(&self, lpn: Lpn) {
        self.map.prefetch(lpn);
        if self.placement_prefetch {
            self.placement.prefetch(lpn);
        }
    }

    /// Second prefetch hint for `lpn`, given a few requests after [`Ftl::prefetch`]: the
    /// validity word of its current copy, which the write invalidates.
    #[inline(always)]
    pub fn prefetch_old_copy(&self, lpn: Lpn) {
        self.map.prefetch_valid_word(lpn);
    }

    /// Reads one user page (WAF mode: counted only). Returns the PPN if mapped.
    #[inline]
    pub fn read(&mut self, lpn: Lpn) -> Option<Ppn> {
        if self.content.is_some() {
            return self.read_content(lpn);
        }
        if self.cmt.is_some() {
            self.translate_deferred(lpn, false);
        }
        self.counters.reads += 1;
        let p = self.map.lookup(lpn);
        match p {
            None => self.counters.unmapped_reads += 1,
            Some(ppn) => self.log.push(FlashOp::Read {
                ppn,
                origin: Origin::Host,
            }),
        }
        p
    }

    /// Trims (discards) one page.
    pub fn trim(&mut self, lpn: Lpn) {
        if self.content.is_some() {
            return self.trim_content(lpn);
        }
        if self.cmt.is_some() {
            self.translate_deferred(lpn, true);
        }
        let old = self.map.l2p[lpn as usize];
        if old != NONE {
            self.invalidate(old);
            self.map.l2p[lpn as usize] = NONE;
            self.counters.trims += 1;
        }
        self.placement.on_trim(lpn);
    }

    #[inline(always)]
    fn invalidate(&mut self, ppn: Ppn) {
        self.map.clear_valid(ppn);
        let seg = ppn / self.p.pages_per_segment;
        self.segs.valid[seg as usize] -= 1;
        if self.segs.state[seg as usize] == SegState::Sealed {
            self.sealed_invalid += 1;
            let view = SegmentView::new(&self.segs, self.clock);
            self.victim.on_invalidate(seg, &view);
        }
    }

    /// Programs `lpn` at stream `s`'s frontier, opening a segment (and running GC) if needed.
    /// `src` is the page a GC move relocates from ([`NONE`] for a user write): the op
    /// stream then gets one [`FlashOp::Copyback`] instead of a program.
    // Always inlined: the per-page hot path of both user writes and GC moves.
    #[inline(always)]
    fn write_page(&mut self, s: StreamId, lpn: Lpn, src: Ppn, origin: Origin) -> Result<()> {
        let mut seg = self.open[s as usize].seg;
        if seg == NONE {
            seg = self.open_segment(s)?;
        }
        let pps = self.p.pages_per_segment;
        let off = self.segs.written[seg as usize];
        let ppn = seg * pps + off;
        self.map.l2p[lpn as usize] = ppn;
        self.map.p2l[ppn as usize] = lpn;
        self.map.set_valid(ppn);
        self.segs.valid[seg as usize] += 1;
        self.segs.written[seg as usize] = off + 1;
        self.written_pages += 1;
        if self.log.is_on() {
            self.log.push(if src == NONE {
                FlashOp::Program { ppn, origin }
            } else {
                FlashOp::Copyback {
                    src,
                    dst: ppn,
                    origin,
                }
            });
        }
        if off + 1 == pps {
            self.seal(s, seg);
        }
        Ok(())
    }

    fn seal(&mut self, s: StreamId, seg: SegmentId) {
        self.seal_seq += 1;
        self.segs.state[seg as usize] = SegState::Sealed;
        self.segs.sealed_at[seg as usize] = self.clock;
        self.segs.seal_seq[seg as usize] = self.seal_seq;
        self.sealed_invalid +=
            (self.segs.written[seg as usize] - self.segs.valid[seg as usize]) as u64;
        self.open[s as usize].seg = NONE;
        if s == self.tstream {
            self.t_sealed += 1;
        }
        let view = SegmentView::new(&self.segs, self.clock);
        self.victim.on_seal(seg, &view);
        self.placement.on_seal(seg, &view);
    }

    #[cold]
    fn open_segment(&mut self, s: StreamId) -> Result<SegmentId> {
        let mut tries = 0u32;
        loop {
            // A device too full to make progress livelocks: each GC episode frees a
            // segment and then fills the frontier it opened with relocated pages.
            tries += 1;
            if tries > self.p.segments + 2 {
                return Err(Error::DeviceFull(format!(
                    "stream {s} makes no progress: every GC victim is full of valid data{} \
                     (raise op or lower the fill)",
                    self.translation_hint()
                )));
            }
            let seg = self.free.pop_front().ok_or_else(|| {
                Error::DeviceFull(format!(
                    "no free segment for stream {s}: every candidate victim is full of valid data{} \
                     (raise op or lower the fill)",
                    self.translation_hint()
                ))
            })?;
            self.segs.state[seg as usize] = SegState::Open;
            self.segs.stream[seg as usize] = s;
            self.open[s as usize].seg = seg;
            if !self.in_gc && self.free.len() < self.p.gc_low as usize {
                self.collect()?;
            }
            // GC may have filled and sealed this stream's segment with relocated pages.
            let cur = self.open[s as usize].seg;
            if cur != NONE {
                return Ok(cur);
            }
        }
    }

    /// The end of a "device full" message with a mapping cache: GC's translation
    /// write-backs may take more than a nearly full victim frees (docs/mapping-cache.md,
    /// "Where GC cannot keep up").
    fn translation_hint(&self) -> &'static str {
        match self.cmt.is_some() {
            true => ", or GC's translation write-backs (mapping cache) take the space it frees",
            false => "",
        }
    }

    /// Runs GC until `gc_high` segments are free.
    fn collect(&mut self) -> Result<()> {
        self.in_gc = true;
        self.counters.gc_episodes += 1;
        let mut picked: u64 = 0;
        let result = loop {
            if self.free.len() >= self.p.gc_high as usize {
                break Ok(());
            }
            picked += 1;
            if picked > 2 * self.p.segments as u64 + 16 {
                // With a mapping cache, GC's translation write-backs may take more than a
                // nearly full victim frees (docs/mapping-cache.md, "Where GC cannot keep up").
                break Err(Error::DeviceFull(format!(
                    "GC reclaimed no space after visiting every segment (all data valid? or \
                     a group held at a size, `group1`, that leaves the others no room{})",
                    self.translation_hint()
                )));
            }
            if let Err(e) = self.collect_one().and_then(|_| self.check_if_asked()) {
                break Err(e);
            }
        };
        self.in_gc = false;
        result
    }

    fn check_if_asked(&self) -> Result<()> {
        if self.check_after_gc {
            if let Err(e) = self.check() {
                return Err(Error::Workload(format!("invariant violated after GC: {e}")));
            }
        }
        Ok(())
    }

    /// Collects one victim now if fewer than `target` segments are free (background and
    /// idle-time GC driven by the timing layer). Returns whether a victim was collected.
    pub fn collect_if_below(&mut self, target: u32) -> Result<bool> {
        if self.in_gc || self.free.len() >= target as usize {
            return Ok(false);
        }
        self.in_gc = true;
        let r = self.collect_one().and_then(|_| self.check_if_asked());
        self.in_gc = false;
        r?;
        // The victim's pages may have opened GC frontiers out of the `gc_low` reserve (the
        // write path's GC does not run inside GC), and foreground GC, which needs that
        // reserve for its own frontiers, would find the free list empty: restore it now.
        if self.free.len() < self.p.gc_low as usize {
            self.collect()?;
        }
        Ok(true)
    }

    /// Reclaims one victim. Returns the victim's segment id.
    pub(crate) fn collect_one(&mut self) -> Result<SegmentId> {
        self.apply_relabels()?;
        let view = SegmentView::new(&self.segs, self.clock);
        let mut scope = self.placement.victim_scope(&view);
        if self.cmt.is_some() {
            scope = self.translation_scope(scope);
        }
        let victim = self.select(scope).ok_or_else(|| self.no_victim(scope))?;
        self.reclaim(victim)?;
        Ok(victim)
    }

    /// Reclaims one victim if the victim policy offers one.
    fn collect_one_or_none(&mut self) -> Result<Option<SegmentId>> {
        self.apply_relabels()?;
        let view = SegmentView::new(&self.segs, self.clock);
        let mut scope = self.placement.victim_scope(&view);
        if self.cmt.is_some() {
            scope = self.translation_scope(scope);
        }
        match self.select(scope) {
            Some(v) => self.reclaim(v).map(|_| Some(v)),
            None => Ok(None),
        }
    }

    /// Moves the sealed segments the placement relabels into their new groups (see
    /// [`Placement::relabels`]): no data moves, the victim policy forgets each one under
    /// its old group and registers it under the new.
    fn apply_relabels(&mut self) -> Result<()> {
        let moves = self
            .placement
            .relabels(&SegmentView::new(&self.segs, self.clock));
        if moves.is_empty() {
            // Every victim of every run asks; only a configuration change answers.
            return Ok(());
        }
        let streams = self.placement.streams();
        for (seg, to) in moves {
            let s = seg as usize;
            let ok = s < self.segs.len()
                && self.segs.state[s] == SegState::Sealed
                && (self.segs.stream[s] as usize) < streams
                && (to as usize) < streams;
            if !ok {
                // A scheme's bug, not the user's input: refuse rather than corrupt the table.
                return Err(Error::config(
                    "placement",
                    format!(
                        "`{}` relabelled segment {seg} to stream {to}, which is not a sealed \
                         segment of its own streams moving to one of them",
                        self.placement.name()
                    ),
                ));
            }
            if !self
                .victim
                .remove(seg, &SegmentView::new(&self.segs, self.clock))
            {
                return Err(Error::config(
                    "victim",
                    format!(
                        "`{}` cannot forget a segment it did not choose \
                         (`VictimPolicy::remove`), which `{}` needs to move segments between \
                         groups; use another victim policy, or the placement's relabel=off",
                        self.victim.name(),
                        self.placement.name()
                    ),
                ));
            }
            self.segs.stream[s] = to;
            self.victim
                .on_seal(seg, &SegmentView::new(&self.segs, self.clock));
        }
        Ok(())
    }

    /// The victim in `scope`: the victim policy's choice, or the segment the placement
    /// named (which the policy then forgets).
    fn select(&mut self, scope: VictimScope) -> Option<SegmentId> {
        let view = SegmentView::new(&self.segs, self.clock);
        match scope {
            VictimScope::Segment(s) => {
                let ok = (s as usize) < self.segs.len()
                    && self.segs.state[s as usize] == SegState::Sealed
                    && self.victim.remove(s, &view);
                ok.then_some(s)
            }
            _ => self.victim.select(&view, scope),
        }
    }

    /// Pages currently holding data (valid or invalid) in non-free segments.
    pub fn written_pages(&self) -> u64 {
        self.written_pages
    }

    /// The placement scheme (mutable; a resumed oracle receives its future through it).
    pub(crate) fn placement_mut(&mut self) -> &mut dyn Placement {
        self.placement.as_mut()
    }

    /// Metadata memory by structure: (name, bytes).
    pub fn memory(&self) -> Vec<(&'static str, u64)> {
        let (l2p, p2l, valid) = self.map.memory_bytes();
        let mut v = vec![
            ("L2P (4 B per LPN)", l2p),
            ("P2L (4 B per physical page)", p2l),
            ("validity bitmap (1 bit per physical page)", valid),
            (
                "segment table",
                self.segs.len() as u64 * Segments::BYTES_PER_SEGMENT
                    + self.free.capacity() as u64 * 4,
            ),
            ("victim policy", self.victim.memory_bytes()),
            ("placement", self.placement.memory_bytes()),
        ];
        if let Some(c) = &self.cmt {
            // The GTD's 4 B per translation page are in the L2P's bytes above.
            v.push(("mapping cache (9 B per translation page)", c.memory_bytes()));
        }
        v.extend(self.content_memory());
        v
    }
}
