//! Victim selection: which sealed segment GC reclaims next.
//!
//! Every policy accepts a candidate filter `min_garbage=G` (0 <= G < 1, default 0): a
//! segment whose invalid share is below G is never scored, as in SepBIT's trace simulator
//! (`filterSmallerThanThreshold`, with G = its garbage threshold 0.15). With no candidate
//! left the policy returns none: a garbage-proportion GC check then collects nothing, a
//! free-segment GC fails with a configuration error on `run.victim.min_garbage` ("device
//! full: ... min_garbage filter ... kept GC from freeing space").
//!
//! A policy learns of candidates through [`VictimPolicy::on_seal`] and of valid-count drops
//! through [`VictimPolicy::on_invalidate`]; it answers [`VictimPolicy::select`] and forgets
//! the segment it returns. Adding a policy = one file implementing the trait plus one line
//! in [`REGISTRY`].

use crate::error::{Error, Result};
use crate::segment::{SegState, SegmentView};
use crate::spec::Spec;
use crate::types::{SegmentId, StreamId, NONE};

mod cost_benefit;
mod d_choices;
mod dagc;
mod fifo;
mod greedy;
mod keyed;
mod random;
mod splitgc;
mod windowed;

pub use cost_benefit::{CostBenefit, CostBenefitFormula};
pub use d_choices::DChoices;
pub use dagc::DagcVictim;
pub use fifo::Fifo;
pub use greedy::Greedy;
pub use random::RandomVictim;
pub use splitgc::{SplitGcVictim, SplitRule};
pub use windowed::WindowedGreedy;

/// Which sealed segments a victim may be chosen from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VictimScope {
    /// Every sealed segment.
    All,
    /// The segments of one group (stream).
    Group(StreamId),
    /// The segments of groups `lo..=hi` (e.g. MiDAS's merged groups on fallback).
    Groups(StreamId, StreamId),
    /// This segment, chosen by the placement (which keeps its own order of a group); the
    /// FTL asks the policy to forget it ([`VictimPolicy::remove`]) instead of choosing.
    Segment(SegmentId),
}

impl VictimScope {
    /// The group indices covered, for a policy with `groups` groups.
    #[inline]
    pub fn range(self, groups: usize) -> std::ops::Range<usize> {
        match self {
            VictimScope::All => 0..groups,
            VictimScope::Group(g) => (g as usize).min(groups)..(g as usize + 1).min(groups),
            VictimScope::Groups(lo, hi) => (lo as usize).min(groups)..(hi as usize + 1).min(groups),
            VictimScope::Segment(_) => 0..0,
        }
    }
}

/// Sizes a policy needs at construction.
#[derive(Debug, Clone, Copy)]
pub struct VictimInit {
    /// Segments in the device.
    pub segments: u32,
    /// Pages per segment.
    pub pages_per_segment: u32,
    /// Number of groups (= write streams of the placement policy).
    pub groups: usize,
    /// Seed for randomized policies.
    pub seed: u64,
}

/// A victim selection policy.
pub trait VictimPolicy: Send {
    /// Registered name.
    fn name(&self) -> &'static str;
    /// Most valid pages a candidate may hold under the policy's `min_garbage` filter
    /// (`u32::MAX`: no filter), so that a GC that finds no victim can blame the filter.
    fn max_valid(&self) -> u32 {
        u32::MAX
    }
    /// Segment `seg` became a candidate (sealed); its group is `view.stream(seg)`.
    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView);
    /// A page of sealed segment `seg` was invalidated; `view.valid(seg)` is the new count.
    fn on_invalidate(&mut self, seg: SegmentId, view: &SegmentView);
    /// A dead page of sealed segment `seg` became valid again (`view.valid(seg)` is the new
    /// count, one more than before): the FTL's content mode reuses a page whose content is
    /// cached (DAGC). Policies that order candidates by valid count must implement it;
    /// the default does nothing (right for policies that read the view at each pick).
    fn on_revalidate(&mut self, _seg: SegmentId, _view: &SegmentView) {}
    /// The content counters of sealed segment `seg` (`view.dup`, `view.reuse`) changed.
    /// Policies ranking by them implement it; the default does nothing.
    fn on_counters(&mut self, _seg: SegmentId, _view: &SegmentView) {}
    /// Chooses a victim among the candidates in `scope` and forgets it.
    fn select(&mut self, view: &SegmentView, scope: VictimScope) -> Option<SegmentId>;
    /// Forgets candidate `seg` (the placement chose it: `VictimScope::Segment`). Returns
    /// false if `seg` is not a candidate; the default (a policy that cannot forget a
    /// segment it did not choose) always does, and GC then fails with a clear error.
    fn remove(&mut self, _seg: SegmentId, _view: &SegmentView) -> bool {
        false
    }
    /// Bytes of memory the policy's own structures use.
    fn memory_bytes(&self) -> u64;
    /// One selection's CPU work on the simulation host, ns (the firmware-CPU model scales
    /// it; docs/cpu.md): calibrated by `crate::driver::calibrate::victim_select_host_ns`.
    /// Default: greedy's figure, [`SELECT_HOST_NS`].
    fn select_ns(&self) -> f64 {
        SELECT_HOST_NS
    }
    /// The policy's whole mutable state, for a checkpoint. Most policies derive serde and
    /// write `crate::checkpoint::serde_state!();` in their impl.
    fn save_state(&self, _out: &mut crate::checkpoint::StateOut<'_>) -> Result<()> {
        Err(crate::checkpoint::not_checkpointable(
            "victim policy",
            self.name(),
        ))
    }
    /// Restores what [`VictimPolicy::save_state`] wrote into a policy freshly built from
    /// the same spec and device. Damaged bytes give an error, never a panic.
    fn load_state(&mut self, _state: &mut crate::checkpoint::StateIn<'_>) -> Result<()> {
        Err(crate::checkpoint::not_checkpointable(
            "victim policy",
            self.name(),
        ))
    }
    /// Checks the restored state against the restored segment table (see
    /// [`crate::segment::RestoredDevice::check_candidates`]): the candidates must be
    /// exactly the sealed segments, in their streams' groups. The default accepts
    /// everything; a policy with candidate structures must override it.
    fn check_restored(
        &self,
        _dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        Ok(())
    }
}

type Ctor = fn(&Spec, VictimInit) -> Result<Box<dyn VictimPolicy>>;

/// A victim selection plus re-registering one sealed segment, greedy, on the simulation
/// host, ns: `driver::calibrate::victim_select_host_ns("greedy", 16384, 64, 200_000)`
/// (`--example cpu_calibrate`, AMD EPYC, 2026-11-24; median of three, 24.1-25.6). fifo,
/// random and d-choices measured 22-31 ns, within the noise of it, and keep it.
pub const SELECT_HOST_NS: f64 = 24.7;

/// Most valid pages a candidate may hold under the policy's `min_garbage` filter (pages
/// per segment when there is no filter): a segment qualifies when its invalid share is at
/// least `min_garbage`.
pub(crate) fn max_valid(spec: &Spec, init: &VictimInit) -> Result<u32> {
    let g = spec.num::<f64>("min_garbage", 0.0, 0.0, 0.999_999)?;
    let pps = init.pages_per_segment as f64;
    // A tiny tolerance so that e.g. 0.25 x 64 pages = 16 invalid pages qualifies.
    Ok(((1.0 - g) * pps + 1e-9).floor().clamp(0.0, pps) as u32)
}

/// Registered victim policies: name, one-line description, constructor.
pub const REGISTRY: &[(&str, &str, Ctor)] = &[
    ("greedy", "fewest valid pages; O(1) amortized via valid-count buckets", greedy::build),
    ("fifo", "oldest sealed segment first (LRW / circular log)", fifo::build),
    ("random", "uniformly random sealed segment", random::build),
    ("d-choices", "fewest valid among d random candidates (d=2)", d_choices::build),
    ("windowed-greedy", "fewest valid among the w oldest sealed segments (w=16)", windowed::build),
    (
        "cost-benefit",
        "maximize benefit/cost; formula=lfs|sqrt|femu (default lfs); age in user page writes since seal",
        cost_benefit::build,
    ),
    (
        "splitgc",
        "papers/splitgc.txt: fewest non-duplicate valid pages (rule=per-free|min-nondup|dup-first); with --gc-action splitgc",
        splitgc::build,
    ),
    (
        "dagc",
        "DAGC (Yen et al., TCAD 2018): fewest valid + cached-invalid (reusable) pages; with --gc-action dagc",
        dagc::build,
    ),
];

/// Names of the registered victim policies.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.0).collect()
}

/// Builds a victim policy from a spec string (`field` names the config field in errors).
pub fn build(field: &str, spec: &str, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    build_resolved(field, spec, init).map(|(p, _)| p)
}

/// [`build`], also returning the spec as it ran, every parameter spelled out with its
/// value (see [`Spec::resolved`]).
pub fn build_resolved(
    field: &str,
    spec: &str,
    init: VictimInit,
) -> Result<(Box<dyn VictimPolicy>, String)> {
    let spec = Spec::parse(field, spec)?;
    let entry = REGISTRY
        .iter()
        .find(|r| r.0 == spec.name)
        .ok_or_else(|| Error::Unknown {
            field: field.to_string(),
            kind: "victim policy",
            name: spec.name.clone(),
            known: names().join(", "),
        })?;
    let p = (entry.2)(&spec, init)?;
    spec.finish()?;
    Ok((p, spec.resolved()))
}

/// The set of current candidates, per group, with O(1) insert, remove and uniform sampling.
/// Shared by the random, d-choices and cost-benefit policies.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct CandidateSet {
    #[serde(with = "crate::checkpoint::cap_vecs")]
    groups: Vec<Vec<SegmentId>>,
    pos: Vec<u32>,
}

impl CandidateSet {
    pub(crate) fn new(segments: u32, groups: usize) -> Self {
        CandidateSet {
            groups: vec![Vec::new(); groups.max(1)],
            pos: vec![NONE; segments as usize],
        }
    }
    pub(crate) fn insert(&mut self, seg: SegmentId, group: StreamId) {
        let g = &mut self.groups[group as usize];
        self.pos[seg as usize] = g.len() as u32;
        g.push(seg);
    }
    /// Whether `seg` is a candidate.
    pub(crate) fn contains(&self, seg: SegmentId) -> bool {
        self.pos.get(seg as usize).is_some_and(|&p| p != NONE)
    }
    pub(crate) fn remove(&mut self, seg: SegmentId, group: StreamId) {
        let g = &mut self.groups[group as usize];
        let i = self.pos[seg as usize] as usize;
        let last = *g.last().expect("candidate present");
        g.swap_remove(i);
        if last != seg {
            self.pos[last as usize] = i as u32;
        }
        self.pos[seg as usize] = NONE;
    }
    pub(crate) fn len(&self, scope: VictimScope) -> usize {
        self.groups[scope.range(self.groups.len())]
            .iter()
            .map(Vec::len)
            .sum()
    }
    /// The i-th candidate (in a fixed, deterministic order) within `scope`.
    pub(crate) fn nth(&self, scope: VictimScope, mut i: usize) -> SegmentId {
        for g in &self.groups[scope.range(self.groups.len())] {
            if i < g.len() {
                return g[i];
            }
            i -= g.len();
        }
        unreachable!("index below len")
    }
    /// Iterates the candidates within `scope`.
    pub(crate) fn iter(&self, scope: VictimScope) -> impl Iterator<Item = SegmentId> + '_ {
        self.groups[scope.range(self.groups.len())]
            .iter()
            .flatten()
            .copied()
    }
    pub(crate) fn memory_bytes(&self) -> u64 {
        (self.pos.len() * 4 + self.groups.iter().map(|g| g.capacity() * 4).sum::<usize>()) as u64
    }
    /// The candidates within `scope` holding at most `max_valid` valid pages (O(candidates);
    /// used only when a `min_garbage` filter is set).
    pub(crate) fn filtered(
        &self,
        view: &SegmentView,
        scope: VictimScope,
        max_valid: u32,
    ) -> Vec<SegmentId> {
        self.iter(scope)
            .filter(|&s| view.valid(s) <= max_valid)
            .collect()
    }

    /// Checks a restored set: one group per stream, exactly the sealed segments, and the
    /// position index pointing at each.
    pub(crate) fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        if self.groups.len() != dev.streams.max(1) || self.pos.len() != dev.view.len() {
            return Err("candidate set sized for another device".into());
        }
        let all = self
            .groups
            .iter()
            .enumerate()
            .flat_map(|(g, v)| v.iter().map(move |&s| (g, s)));
        dev.check_candidates(all)?;
        for g in &self.groups {
            for (i, &s) in g.iter().enumerate() {
                if self.pos[s as usize] != i as u32 {
                    return Err(format!("segment {s}: position index"));
                }
            }
        }
        Ok(())
    }
}

/// Segments in sealing order, one queue per group. Shared by FIFO and windowed greedy.
/// A segment leaves its queue only when selected, so every entry is a live candidate.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct SealOrder {
    #[serde(with = "crate::checkpoint::cap_deques")]
    groups: Vec<std::collections::VecDeque<SegmentId>>,
}

impl SealOrder {
    pub(crate) fn new(groups: usize) -> Self {
        SealOrder {
            groups: vec![Default::default(); groups.max(1)],
        }
    }
    pub(crate) fn push(&mut self, seg: SegmentId, view: &SegmentView) {
        self.groups[view.stream(seg) as usize].push_back(seg);
    }
    /// The `w` oldest candidates of `group` (or of all groups), oldest first, as
    /// (group, index in its queue, segment).
    pub(crate) fn oldest(
        &self,
        view: &SegmentView,
        scope: VictimScope,
        w: usize,
    ) -> Vec<(usize, usize, SegmentId)> {
        let mut out: Vec<(usize, usize, SegmentId)> = Vec::with_capacity(w);
        let range = scope.range(self.groups.len());
        let several = range.len() > 1;
        for g in range {
            for (i, &s) in self.groups[g].iter().take(w).enumerate() {
                debug_assert_eq!(view.state(s), SegState::Sealed);
                out.push((g, i, s));
            }
        }
        if several {
            out.sort_by_key(|e| view.seal_seq(e.2));
            out.truncate(w);
        }
        out
    }
    /// Like [`SealOrder::oldest`], skipping candidates with more than `max_valid` valid
    /// pages (a `min_garbage` filter; O(candidates) in the worst case).
    pub(crate) fn oldest_where(
        &self,
        view: &SegmentView,
        scope: VictimScope,
        w: usize,
        max_valid: u32,
    ) -> Vec<(usize, usize, SegmentId)> {
        if max_valid >= view.pages_per_segment() {
            return self.oldest(view, scope, w);
        }
        let mut out: Vec<(usize, usize, SegmentId)> = Vec::with_capacity(w);
        let range = scope.range(self.groups.len());
        let several = range.len() > 1;
        for g in range {
            out.extend(
                self.groups[g]
                    .iter()
                    .enumerate()
                    .filter(|&(_, &s)| view.valid(s) <= max_valid)
                    .take(w)
                    .map(|(i, &s)| (g, i, s)),
            );
        }
        if several {
            out.sort_by_key(|e| view.seal_seq(e.2));
            out.truncate(w);
        }
        out
    }
    /// Removes `seg` from its group's queue wherever it is (front first: FIFO order makes
    /// the oldest the usual case). Returns false if it is not queued.
    pub(crate) fn remove_seg(&mut self, seg: SegmentId, view: &SegmentView) -> bool {
        let Some(q) = self.groups.get_mut(view.stream(seg) as usize) else {
            return false;
        };
        match q.iter().position(|&s| s == seg) {
            Some(i) => {
                q.remove(i);
                true
            }
            None => false,
        }
    }
    pub(crate) fn remove(&mut self, group: usize, index: usize) -> SegmentId {
        self.groups[group]
            .remove(index)
            .expect("index from oldest()")
    }
    pub(crate) fn memory_bytes(&self) -> u64 {
        (self.groups.iter().map(|g| g.capacity()).sum::<usize>() * 4) as u64
    }
    /// Checks a restored order: one queue per stream holding exactly the sealed segments.
    pub(crate) fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        if self.groups.len() != dev.streams.max(1) {
            return Err("seal order sized for another device".into());
        }
        dev.check_candidates(
            self.groups
                .iter()
                .enumerate()
                .flat_map(|(g, q)| q.iter().map(move |&s| (g, s))),
        )
    }
}
