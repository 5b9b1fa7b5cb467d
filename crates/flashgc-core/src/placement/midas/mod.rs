//! `midas`: MiDAS (Oh et al., FAST'24; papers/midas.txt).
//!
//! Groups HOT, G1..GN form a chain of FIFO segment queues. A user write goes to HOT when its
//! LPN was rewritten within the threshold time `hot_hits` (3) times in a row (a 2-bit counter
//! per LPN), else to G1. GC takes its victim from a group that holds more segments than its
//! designated size (the one over by most; GN holds whatever the others leave) and relocates
//! its valid pages one group down the chain: HOT -> G1, Gi -> Gi+1, GN -> GN. The threshold
//! time is the average residence time of the last `thr_window` (16) HOT segments GC reclaimed
//! (SepBIT's "average lifespan of recently reclaimed Class-1 segments").
//!
//! Every `epoch` x logical capacity of user writes (4), after a UID warm-up of `uid_skip`
//! (2) capacities (MiDAS's simulator starts its model after the load plus one capacity), a
//! new [`uid::Uid`] is built from a sampled timestamp table and [`gcs::search`] chooses the
//! number and sizes of the groups with [`mcam::predict`]. The new configuration is adopted
//! if its predicted WAF is below the WAF measured over the last capacity (`adopt=measured`,
//! the simulator's rule, also for the first configuration) and, when a configuration is in
//! force, MCAM predicts it more than `adopt_gain` (5 %) below the current configuration's
//! (both evaluated on the new UID: the paper compares against the old UID's prediction,
//! which hides a workload change). Once every sized group has given a victim under the
//! new configuration (`irr_start=collected`, the simulator's `commit_bit`), every `check`
//! x capacity of user writes (0.3 x `epoch`) the measured transition probability of each
//! Gk -> Gk+1 (its victims' valid ratio) is compared with MCAM's; one that exceeds it by
//! `irr_threshold` (0.1, `irr_error=over`: the simulator's one-sided test) merges Gk..GN
//! and falls back to MiDA (an age chain in the merged groups, victims over all of them)
//! until the next epoch. The first epoch runs MiDA over `mida_groups` (8) groups, with the HOT
//! stream fed by the hot filter (`mida_hot=filter`, as the simulator does).
//!
//! Groups with a designated size (HOT, G1..G(N-1)) are FIFO queues whatever the run's
//! victim policy: MiDAS names their oldest sealed segment (`sized_victims=fifo`, the
//! simulator and MCAM). The run's victim policy chooses in GN and, in the MiDA phases
//! (first epoch, fallback), among all merged groups: the paper uses cost-benefit there
//! (`--victim cost-benefit:sqrt`); with `--victim fifo` those phases run MiDA with FIFO
//! (see docs/midas.md). `hot`, `grpconf`, `irrhand` (`on`/`off`) switch the paper's Fig. 12
//! components.
//!
//! Parameters (`midas:key=value,...`, paper defaults): `max_groups=8` (streams = 1 +
//! max_groups, fixed for a run; the paper sets no limit), `mida_groups=8`, `epoch=4`, `unit` (UID interval unit in
//! page writes; default one segment, the paper's 16 Ki blocks for 64 MiB segments),
//! `sample=100`, `uid_counts=all|sampled` (intervals of every user write, default, or of the
//! sampled LPNs only, the paper; see [`uid`]), `hot_hits=3`, `hot_model=joint|paper` (see [`uid::HotModel`]), `thr_window=16`, `adopt_gain=0.05`, `irr_threshold=0.1`,
//! `irr_error=over|relative`, `irr_start=collected|window`, `irr_after_fallback=check|stop`
//! (flashgc's earlier rule: `relative,window,stop` with `check=1`), `irr_floor=0.1` (relative errors are taken against
//! max(predicted, irr_floor)), `irr_min_victims=16`, `check` (x capacity; default 0.3 x
//! `epoch`), `split_gain=0.005`, `split_patience=5`, `split_scan=full|greedy` (how a split's new
//! group is sized: every size, as the authors' simulator, or grown while the WAF drops),
//! `uid_trims=count|ignore` (a trimmed version's life counts as an interval, as the authors'
//! simulator does, or is left out), `fixed=H/G1/../GN` (segments; pins a configuration: no search, no fallback, GN takes
//! the rest of the space; for model validation), `gn_model=fifo|greedy` (GN as the paper's
//! text models it, or as the authors' simulator does, with never-invalidated segments set
//! aside: see [`GnModel`]; `gn_static_min=0.2`, `gn_static_margin=0.05`).
//!
//! Memory: 4 B of last-write time (wrapping 32-bit user-write clock) + 2 bits of hot counter
//! per LPN (the paper keeps only the 2 bits and derives the interval from segment
//! timestamps, which a placement in flashgc does not see), the sampled timestamp table
//! (8 B per sampled LPN) and the interval count tables (8 B per unit of the epoch per row).

mod epoch;
pub mod gcs;
pub mod hot;
pub mod mcam;
mod offline;
mod params;
mod relabel;
mod report;
mod restore;
mod static_data;
pub mod uid;

pub use offline::{model, uid_from_workload, ModelReport, UidOptions, UidSummary};
pub use params::{GnModel, MidasParams};

use super::{Placement, PlacementInit, VictimScope};
use crate::error::Result;
use crate::segment::{SegState, SegmentView};
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};
use epoch::HistoryEntry;
use mcam::{GroupConfig, Prediction};
use std::collections::VecDeque;
use uid::UidBuilder;

const NEVER: u32 = u32::MAX;
/// Fewest update intervals an epoch's UID needs before GCS may act on it.
const MIN_UID_SAMPLES: u64 = 1000;
/// Stream of the HOT group.
pub const HOT: StreamId = 0;

/// Operating mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Mode {
    /// MiDA over the whole chain (first epoch).
    Mida,
    /// A configuration from GCS (or pinned).
    Configured,
    /// Gk..GN merged into a MiDA chain after an irregularity at Gk -> Gk+1.
    Fallback(u16),
}

/// A set of streams GC treats as one group.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Unit {
    lo: StreamId,
    hi: StreamId,
    /// Designated size in segments (ignored for the last unit, which takes the rest).
    size: i64,
    /// Segments (open or sealed) of its streams.
    count: i64,
}

/// The MiDAS placement.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Midas {
    p: MidasParams,
    logical: u64,
    segments: u32,
    pps: u32,
    mode: Mode,
    cfg: GroupConfig,
    pred: Option<Prediction>,
    units: Vec<Unit>,
    unit_of: Vec<u16>,
    next_stream: Vec<StreamId>,
    stream_pages: Vec<u64>,
    pending_rescan: bool,
    /// A configuration was adopted and its relabelling (`relabel=on`) has not run yet.
    relabel_pending: bool,
    /// Segments relabelled into the last group over the run.
    relabelled: u64,
    // HOT filter and threshold.
    #[serde(with = "crate::checkpoint::raw")]
    ts: Vec<u32>,
    #[serde(with = "crate::checkpoint::raw")]
    hot_ctr: Vec<u8>,
    live_pages: u64,
    threshold: f64,
    #[serde(with = "crate::checkpoint::cap_deque")]
    hot_open: VecDeque<u64>,
    #[serde(with = "crate::checkpoint::cap_deque")]
    residences: VecDeque<u64>,
    residence_sum: u64,
    /// When each segment was opened (user-write clock; HOT segments only): HOT's residence
    /// time is measured per victim, whichever way it was chosen.
    seg_open: Vec<u64>,
    /// Sealed segments of each stream in sealing order (the FIFO victims of sized groups).
    #[serde(with = "crate::checkpoint::cap_deques")]
    sealed_q: Vec<VecDeque<SegmentId>>,
    // UID and epochs.
    uid: UidBuilder,
    /// False until the UID warm-up (`uid_skip`) has passed.
    uid_started: bool,
    epoch_len: u64,
    next_epoch: u64,
    /// WAF of the last whole capacity of user writes (what `adopt=measured` compares with).
    last_cap_waf: Option<f64>,
    cap_user: u64,
    cap_gc: u64,
    next_cap: u64,
    ep_user: u64,
    ep_gc: u64,
    budget_sum: u64,
    budget_n: u64,
    // Irregularity checks.
    check_len: u64,
    next_check: u64,
    check_armed: bool,
    win_victims: Vec<u64>,
    win_reloc: Vec<u64>,
    /// Per stream of the configuration in force: still to give its first victim since the
    /// adoption (`irr_start=collected`: the checks start when none is left; empty then).
    #[serde(default)]
    uncollected: Vec<bool>,
    /// Index in `history` of the last adoption's entry.
    #[serde(default)]
    adopted_entry: usize,
    // Report.
    #[serde(with = "crate::checkpoint::json_text")]
    history: Vec<HistoryEntry>,
    adoptions: u32,
    fallbacks: u32,
    total_victims: Vec<u64>,
    total_reloc: Vec<u64>,
    ep_victims: Vec<u64>,
    ep_reloc: Vec<u64>,
    /// GC episode bookkeeping (an episode runs within one user write): victims picked and
    /// pages relocated since the episode began or last freed a segment's worth of pages, to
    /// detect picks that free nothing.
    gc_now: u64,
    gc_picks: u64,
    gc_reloc: u64,
    stalls: u64,
    now: u64,
    /// An epoch's end is due and waits for the segment view (`gn_model=greedy`).
    #[serde(default)]
    epoch_due: bool,
    /// Static segments of the last group counted at the last epoch end (`gn_model=greedy`).
    #[serde(default)]
    static_segs: u32,
    /// MCAM evaluations since the firmware-CPU model last asked (drained after every host
    /// page operation, so nothing is pending at a checkpoint's safe point).
    #[serde(skip)]
    cpu_evals: u64,
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let p = MidasParams::from_spec(spec, &init)?;
    p.check_memory(spec, &init)?;
    Ok(Box::new(Midas::new(p, init)))
}

impl Midas {
    /// A MiDAS placement with parameters `p` for the device `init` describes.
    pub fn new(p: MidasParams, init: PlacementInit) -> Midas {
        let streams = p.max_groups as usize + 1;
        let logical = init.logical_pages;
        let epoch_len = ((p.epoch * logical as f64).round() as u64).max(1);
        let check_len = ((p.check * logical as f64).round() as u64).max(1);
        let mut uid = UidBuilder::new(logical, p.unit, p.sample, epoch_len, p.hot_hits);
        if p.uid_counts_all {
            uid = uid.count_all_intervals();
        }
        let skip = (p.uid_skip * logical as f64).round() as u64;
        let mut m = Midas {
            logical,
            segments: init.segments,
            pps: init.pages_per_segment,
            mode: Mode::Mida,
            cfg: GroupConfig {
                sizes: vec![0, init.segments],
            },
            pred: None,
            units: Vec::new(),
            unit_of: vec![0; streams],
            next_stream: vec![0; streams],
            stream_pages: vec![0; streams],
            pending_rescan: false,
            relabel_pending: false,
            relabelled: 0,
            ts: vec![NEVER; logical as usize],
            hot_ctr: vec![0; (logical as usize).div_ceil(4)],
            live_pages: 0,
            threshold: 0.0,
            hot_open: VecDeque::new(),
            residences: VecDeque::new(),
            residence_sum: 0,
            seg_open: vec![0; init.segments as usize],
            sealed_q: vec![VecDeque::new(); streams],
            uid,
            uid_started: skip == 0,
            epoch_len,
            next_epoch: if skip > 0 { skip } else { epoch_len },
            last_cap_waf: None,
            cap_user: 0,
            cap_gc: 0,
            next_cap: logical.max(1),
            ep_user: 0,
            ep_gc: 0,
            budget_sum: 0,
            budget_n: 0,
            check_len,
            next_check: u64::MAX,
            check_armed: false,
            win_victims: vec![0; streams],
            win_reloc: vec![0; streams],
            uncollected: Vec::new(),
            adopted_entry: 0,
            history: Vec::new(),
            adoptions: 0,
            fallbacks: 0,
            total_victims: vec![0; streams],
            total_reloc: vec![0; streams],
            ep_victims: vec![0; streams],
            ep_reloc: vec![0; streams],
            gc_now: u64::MAX,
            gc_picks: 0,
            gc_reloc: 0,
            epoch_due: false,
            static_segs: 0,
            cpu_evals: 0,
            stalls: 0,
            now: 0,
            p,
        };
        if let Some(c) = m.p.fixed.clone() {
            m.threshold = c.sizes[0] as f64 * m.pps as f64;
            m.cfg = c;
            m.mode = Mode::Configured;
        } else if m.p.mida_hot {
            // The simulator's hot filter starts with a one-capacity time window.
            m.threshold = m.p.mida_hot_threshold * logical as f64;
        }
        m.apply_layout();
        m.pending_rescan = false;
        m
    }

    fn streams(&self) -> usize {
        self.p.max_groups as usize + 1
    }

    /// Rebuilds the units and the relocation chain for the current mode.
    fn apply_layout(&mut self) {
        let max = self.p.max_groups;
        let mut units = Vec::new();
        let mut next = vec![0 as StreamId; self.streams()];
        next[0] = 1;
        let unit = |lo: StreamId, hi: StreamId, size: i64| Unit {
            lo,
            hi,
            size,
            count: 0,
        };
        // With the hot filter on in a MiDA phase, HOT segments are candidates among the
        // merged groups' (the simulator pushes them into the same victim queue).
        let merged_hot = self.p.hot && self.p.mida_hot;
        match self.mode {
            Mode::Mida => {
                let m = self.p.mida_groups.min(max);
                if merged_hot {
                    units.push(unit(HOT, max, 0));
                } else {
                    units.push(unit(HOT, HOT, 0));
                    units.push(unit(1, max, 0));
                }
                for (s, n) in next.iter_mut().enumerate().skip(1) {
                    *n = (s as StreamId + 1).min(m);
                }
            }
            Mode::Configured => {
                let n = self.cfg.groups() as StreamId;
                units.push(unit(HOT, HOT, self.cfg.sizes[0] as i64));
                for g in 1..n {
                    units.push(unit(g, g, self.cfg.sizes[g as usize] as i64));
                }
                for g in n + 1..=max {
                    units.push(unit(g, g, 0));
                }
                units.push(unit(n, n, 0));
                for (s, nx) in next.iter_mut().enumerate().skip(1) {
                    *nx = (s as StreamId + 1).min(n);
                }
            }
            Mode::Fallback(k) => {
                let n = self.cfg.groups() as StreamId;
                if k == 1 && merged_hot {
                    // Everything merged: HOT joins the MiDA chain's candidates.
                    units.push(unit(HOT, max, 0));
                } else {
                    units.push(unit(HOT, HOT, self.cfg.sizes[0] as i64));
                    for g in 1..k {
                        units.push(unit(g, g, self.cfg.sizes[g as usize] as i64));
                    }
                    units.push(unit(k, max, 0));
                }
                for (s, nx) in next.iter_mut().enumerate().skip(1) {
                    *nx = (s as StreamId + 1).min(n.max(k));
                }
            }
        }
        for (i, u) in units.iter().enumerate() {
            for s in u.lo..=u.hi {
                self.unit_of[s as usize] = i as u16;
            }
        }
        self.units = units;
        self.next_stream = next;
        self.pending_rescan = true;
    }

    /// Recounts the segments of each unit from the segment table (after a layout change).
    fn rescan(&mut self, view: &SegmentView) {
        for u in &mut self.units {
            u.count = 0;
        }
        for s in 0..view.len() as SegmentId {
            if view.state(s) != SegState::Free {
                let st = view.stream(s) as usize;
                if st < self.unit_of.len() {
                    self.units[self.unit_of[st] as usize].count += 1;
                }
            }
        }
    }

    /// Counts a page written to stream `s` (a new segment opens every `pps` pages).
    #[inline]
    fn note_write(&mut self, s: StreamId) {
        let pps = self.pps as u64;
        let sp = self.stream_pages[s as usize];
        // A mask where segments hold a power of two of pages (they do in practice): this
        // runs for every user and GC page, and a 64-bit division costs more than the rest.
        let seg_start = if pps.is_power_of_two() {
            sp & (pps - 1) == 0
        } else {
            sp % pps == 0
        };
        if seg_start {
            self.units[self.unit_of[s as usize] as usize].count += 1;
            if s == HOT {
                self.hot_open.push_back(self.now);
            }
        }
        self.stream_pages[s as usize] = sp + 1;
    }

    /// `n` pages relocated out of a victim of group `src` (each one `gc_stream` call): the
    /// counters, and the destination, which depends only on the group.
    #[inline]
    fn relocations(&mut self, src: usize, n: u64) -> StreamId {
        self.gc_reloc += n;
        let d = match self.unit_of.get(src) {
            Some(&ui) => {
                let u = &self.units[ui as usize];
                if u.lo == u.hi {
                    // Per-group statistics only where victims are counted per group.
                    self.win_reloc[src] += n;
                    self.total_reloc[src] += n;
                    self.ep_reloc[src] += n;
                }
                self.next_stream[src]
            }
            // A GC action's own stream (CAGC's cold region), none of MiDAS's groups (as in
            // `on_victim` and `rescan`): its pages go where the chain ends.
            None => *self.next_stream.last().expect("MiDAS has streams"),
        };
        self.ep_gc += n;
        self.cap_gc += n;
        for _ in 0..n {
            self.note_write(d);
        }
        d
    }

    #[inline]
    fn is_open(&self, s: StreamId) -> bool {
        self.stream_pages[s as usize] % self.pps as u64 != 0
    }

    fn sealed(&self, u: &Unit) -> i64 {
        u.count - (u.lo..=u.hi).filter(|&s| self.is_open(s)).count() as i64
    }

    fn hot_enabled(&self) -> bool {
        self.p.hot
            && match self.mode {
                Mode::Mida => self.p.mida_hot,
                _ => self.cfg.sizes[0] > 0,
            }
    }

    /// HOT shares a unit with other groups (a MiDA phase with the hot filter on): its
    /// victims come from the victim policy, not from its own FIFO.
    fn hot_merged(&self) -> bool {
        self.units
            .get(self.unit_of[HOT as usize] as usize)
            .is_some_and(|u| u.hi > HOT)
    }

    /// Adds a HOT segment's residence (user writes) to the threshold's running mean.
    fn push_residence(&mut self, r: u64) {
        self.residences.push_back(r);
        self.residence_sum += r;
        if self.residences.len() > self.p.thr_window {
            self.residence_sum -= self.residences.pop_front().unwrap_or(0);
        }
        if self.hot_enabled() {
            self.threshold = self.residence_sum as f64 / self.residences.len() as f64;
        }
    }

    fn learned_budget(&self) -> u32 {
        if self.budget_n > 0 {
            (self.budget_sum as f64 / self.budget_n as f64).round() as u32
        } else {
            self.segments.saturating_sub(self.streams() as u32 + 3)
        }
    }

    /// The configuration with GN resized so the sizes add up to `budget`.
    fn effective(&self, cfg: &GroupConfig, budget: u32) -> GroupConfig {
        let mut c = cfg.clone();
        let n = c.groups();
        let others: u64 = c.sizes[..n].iter().map(|&s| s as u64).sum();
        c.sizes[n] = (budget as u64).saturating_sub(others).max(1) as u32;
        c
    }

    #[inline]
    fn hot_counter(&self, lpn: usize) -> u8 {
        (self.hot_ctr[lpn >> 2] >> ((lpn & 3) * 2)) & 3
    }

    #[inline]
    fn set_hot_counter(&mut self, lpn: usize, v: u8) {
        let sh = (lpn & 3) * 2;
        let b = &mut self.hot_ctr[lpn >> 2];
        *b = (*b & !(3 << sh)) | (v << sh);
    }
}

/// Classifier work per user write on the simulation host beyond a no-op call, ns: MiDAS's
/// UID upkeep per write (sampled last-write times, interval counts, HOT check); MCAM/GCS
/// per epoch is not priced. `driver::calibrate::classifier_host_ns` (1 Mi LPNs, 200 k
/// zipf(1.0) writes, median of three runs of `--example cpu_calibrate`, AMD EPYC,
/// 2026-11-24); the firmware-CPU model scales it (docs/cpu.md).
const CLASSIFIER_NS: f64 = 21.6;

/// One MCAM evaluation of the group-configuration search at an epoch's end, ns on the
/// simulation host: `driver::calibrate::mcam_eval_host_ns()` (GCS on a two-class zipf-like
/// UID of 4000 bins, 1 Mi pages, 64-page segments; `--example cpu_calibrate`, AMD EPYC,
/// 2026-11-24; median of three, 547-579 us). An epoch costs (GCS evaluations + 1) of these.
const MCAM_EVAL_NS: f64 = 557_000.0;

impl Placement for Midas {
    fn name(&self) -> &'static str {
        "midas"
    }
    fn classifier_ns(&self) -> f64 {
        CLASSIFIER_NS
    }
    fn take_cpu_work_ns(&mut self) -> f64 {
        let ns = self.cpu_evals as f64 * MCAM_EVAL_NS;
        self.cpu_evals = 0;
        ns
    }
    crate::checkpoint::serde_state!(same: [p, logical, segments, pps], len: [ts, hot_ctr]);
    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        self.check_restored_state(dev)
    }
    fn streams(&self) -> usize {
        self.p.max_groups as usize + 1
    }
    fn gc_streams_per_victim(&self) -> usize {
        // A victim's pages all go to the next group of its own group (the chain is fixed
        // while GC runs: configurations change only at user writes).
        1
    }
    fn stream_name(&self, s: StreamId) -> String {
        if s == HOT {
            "HOT".into()
        } else {
            format!("G{s}")
        }
    }

    fn wants_prefetch(&self) -> bool {
        true
    }

    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        // The last-write time and hot counter of the LPN: random accesses into tables of
        // 4 B and 2 bits per logical page, the two cache misses of every user write here.
        if let Some(t) = self.ts.get(lpn as usize) {
            crate::mem::prefetch_ptr(t as *const u32 as *const i8);
        }
        if let Some(h) = self.hot_ctr.get(lpn as usize >> 2) {
            crate::mem::prefetch_ptr(h as *const u8 as *const i8);
        }
    }

    fn user_stream(&mut self, lpn: Lpn, now: u64) -> StreamId {
        self.now = now;
        let l = lpn as usize;
        let now32 = (now as u32).min(NEVER - 1);
        let last = self.ts[l];
        let short = last != NEVER && (now32.wrapping_sub(last) as f64) < self.threshold;
        if last == NEVER {
            self.live_pages += 1;
        } else {
            self.uid.on_interval(now32.wrapping_sub(last) as u64);
        }
        self.ts[l] = now32;
        let c = if short {
            (self.hot_counter(l) + 1).min(3)
        } else {
            0
        };
        self.set_hot_counter(l, c);
        self.uid.on_write(lpn as u64, now);
        self.ep_user += 1;
        self.cap_user += 1;
        if now >= self.next_cap {
            self.last_cap_waf = Some((self.cap_user + self.cap_gc) as f64 / self.cap_user as f64);
            self.cap_user = 0;
            self.cap_gc = 0;
            self.next_cap = now + self.logical.max(1);
        }
        if now >= self.next_epoch {
            self.next_epoch = now + self.epoch_len;
            if self.epoch_needs_view() {
                self.epoch_due = true;
            } else {
                self.end_epoch();
            }
        }
        if now >= self.next_check {
            self.check_irregular();
        }
        let s = if self.hot_enabled() && c >= self.p.hot_hits {
            HOT
        } else {
            1
        };
        self.note_write(s);
        s
    }

    fn unroute(&mut self, _lpn: Lpn, s: StreamId) {
        // `note_write` undone: the group's segment count follows the pages programmed, so
        // GC never names a group whose segments exist only in the count.
        let sp = self.stream_pages[s as usize] - 1;
        self.stream_pages[s as usize] = sp;
        if sp % self.pps as u64 == 0 {
            self.units[self.unit_of[s as usize] as usize].count -= 1;
            if s == HOT {
                self.hot_open.pop_back();
            }
        }
    }

    fn gc_stream(&mut self, _lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId {
        self.relocations(view.stream(victim) as usize, 1)
    }

    fn gc_stream_of_victim(
        &mut self,
        victim: SegmentId,
        pages: u32,
        view: &SegmentView,
    ) -> Option<StreamId> {
        Some(self.relocations(view.stream(victim) as usize, pages as u64))
    }

    fn victim_scope(&mut self, view: &SegmentView) -> VictimScope {
        self.run_due_epoch(view);
        if self.pending_rescan {
            self.rescan(view);
            self.pending_rescan = false;
        }
        self.budget_sum += self
            .units
            .iter()
            .map(|u| u.count.max(0) as u64)
            .sum::<u64>();
        self.budget_n += 1;
        // Pages the picks of the window have freed (all of them relocated by now).
        let pps = self.pps as u64;
        let freed = self.gc_picks * pps - self.gc_reloc;
        // The window restarts with each GC episode and whenever it has freed a segment's
        // worth of pages: an episode that made some progress and then stalls must still
        // trip the net below.
        if self.gc_now != self.now || freed >= pps {
            self.gc_now = self.now;
            self.gc_picks = 0;
            self.gc_reloc = 0;
        }
        // Safety net: group sizes are enforced by moving the oldest segments of groups over
        // their size down the chain, and GN relocates into itself; if those victims are all
        // valid (e.g. right after a reconfiguration shrank groups full of never-overwritten
        // data, or when a greedy MiDA phase left GN only full segments and the garbage sits
        // in groups below their size) such picks free nothing. After 2 x streams picks that
        // freed less than one segment, let the victim policy choose over all groups. The
        // test counts completed picks only: counting this one, not yet relocated, as fully
        // freed meant the net never fired, and GC ended in "device full".
        let stalled =
            self.gc_picks >= 2 * self.streams() as u64 && self.gc_picks * pps - self.gc_reloc < pps;
        self.gc_picks += 1;
        if stalled {
            self.stalls += 1;
            self.pending_rescan = true;
            return VictimScope::All;
        }
        // A group over its designated size (the most over first); else the last group,
        // which holds the rest of the space; else any group with a sealed segment.
        let last = self.units.len() - 1;
        let mut pick: Option<(usize, i64)> = None;
        for (i, u) in self.units[..last].iter().enumerate() {
            let over = u.count - u.size;
            if over > 0 && self.sealed(u) > 0 && pick.is_none_or(|(_, o)| over > o) {
                pick = Some((i, over));
            }
        }
        let chosen = match pick {
            Some((i, _)) => Some(i),
            None if self.sealed(&self.units[last]) > 0 => Some(last),
            None => {
                let mut best: Option<(usize, i64)> = None;
                for (i, u) in self.units.iter().enumerate() {
                    let over = u.count - u.size;
                    if self.sealed(u) > 0 && best.is_none_or(|(_, o)| over > o) {
                        best = Some((i, over));
                    }
                }
                best.map(|b| b.0)
            }
        };
        let Some(i) = chosen else {
            return VictimScope::All;
        };
        self.units[i].count -= 1;
        let (lo, hi) = (self.units[i].lo, self.units[i].hi);
        if lo == hi {
            // Groups with a designated size are FIFO queues (the paper, its simulator and
            // MCAM); the run's victim policy chooses only in the last group.
            if self.p.sized_victims_fifo && i != last {
                if let Some(seg) = self.sealed_q[lo as usize].pop_front() {
                    return VictimScope::Segment(seg);
                }
            }
            VictimScope::Group(lo)
        } else {
            VictimScope::Groups(lo, hi)
        }
    }

    fn relabels(&mut self, view: &SegmentView) -> Vec<(SegmentId, StreamId)> {
        self.take_relabels(view)
    }

    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        self.run_due_epoch(view);
        let s = view.stream(seg);
        if let Some(q) = self.sealed_q.get_mut(s as usize) {
            q.push_back(seg);
        }
        if s == HOT {
            // One HOT stream: its segments seal in the order they opened.
            self.seg_open[seg as usize] = self.hot_open.pop_front().unwrap_or(view.now());
        }
    }

    fn on_victim(&mut self, seg: SegmentId, view: &SegmentView) {
        let s = view.stream(seg);
        // Per-group victim counts where `gc_stream` counts the relocations (units of one
        // stream), for every victim however it was chosen: counted in `victim_scope`, the
        // safety net's picks (`VictimScope::All`) added their relocated pages but not
        // themselves, and inflated the measured valid ratios the irregularity check uses.
        let si = s as usize;
        if si < self.unit_of.len() {
            let u = &self.units[self.unit_of[si] as usize];
            if u.lo == u.hi {
                self.win_victims[si] += 1;
                self.total_victims[si] += 1;
                self.ep_victims[si] += 1;
            }
        }
        self.note_collected(si);
        if let Some(q) = self.sealed_q.get_mut(s as usize) {
            // Popped already when MiDAS named it; else the policy chose it: drop it here.
            if q.front() == Some(&seg) {
                q.pop_front();
            } else if let Some(i) = q.iter().position(|&x| x == seg) {
                q.remove(i);
            }
        }
        if s == HOT {
            if self.hot_merged() {
                // The simulator's hot-filter window: the age (since sealing) of HOT victims.
                self.push_residence(view.age(seg));
            } else {
                // SepBIT's residence (open to reclaim), MCAM's threshold fixed point.
                self.push_residence(view.now().saturating_sub(self.seg_open[seg as usize]));
            }
        }
    }

    fn on_trim(&mut self, lpn: Lpn) {
        let l = lpn as usize;
        let last = self.ts[l];
        if last != NEVER {
            self.ts[l] = NEVER;
            self.live_pages -= 1;
            if self.p.uid_count_trims {
                let now32 = (self.now as u32).min(NEVER - 1);
                self.uid.on_interval(now32.wrapping_sub(last) as u64);
            }
        }
        self.set_hot_counter(l, 0);
        self.uid
            .on_trim(lpn as u64, self.now.max(1), self.p.uid_count_trims);
    }

    fn memory_bytes(&self) -> u64 {
        self.memory_estimate()
    }

    fn report(&self) -> Option<serde_json::Value> {
        Some(self.report_json())
    }
}
