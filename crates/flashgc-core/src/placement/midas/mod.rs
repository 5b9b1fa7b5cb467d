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
//! Every `epoch` x logical capacity of user writes (4), a new [`uid::Uid`] is built from a
//! sampled timestamp table and [`gcs::search`] chooses the number and sizes of the groups
//! with [`mcam::predict`]. The new configuration is adopted if MCAM predicts a WAF more than
//! `adopt_gain` (5 %) below the current configuration's (both evaluated on the new UID: the
//! paper compares against the old UID's prediction, which hides a workload change). Every
//! `check` x capacity of user writes, the measured transition probability of each Gk -> Gk+1
//! is compared with MCAM's; an error above `irr_threshold` (10 %) merges Gk..GN and falls
//! back to MiDA (an age chain in the merged groups, victims over all of them) until the
//! next epoch. The first epoch runs MiDA over `mida_groups` (8) groups.
//!
//! Victim selection inside the chosen group is the run's victim policy; MiDAS is designed
//! for FIFO (`--victim fifo`), which takes the oldest sealed segment of the group, as MCAM
//! assumes. In the MiDA phases (first epoch, fallback) the victim policy chooses among all
//! merged groups: the paper uses cost-benefit there, which a per-run victim flag cannot
//! switch to; with `--victim fifo` those phases run MiDA with FIFO (see docs/midas.md).
//!
//! Parameters (`midas:key=value,...`, paper defaults): `max_groups=8` (streams = 1 +
//! max_groups, fixed for a run; the paper sets no limit), `mida_groups=8`, `epoch=4`, `unit` (UID interval unit in
//! page writes; default one segment, the paper's 16 Ki blocks for 64 MiB segments),
//! `sample=100`, `uid_counts=all|sampled` (intervals of every user write, default, or of the
//! sampled LPNs only, the paper; see [`uid`]), `hot_hits=3`, `hot_model=joint|paper` (see [`uid::HotModel`]), `thr_window=16`, `adopt_gain=0.05`, `irr_threshold=0.1`,
//! `irr_floor=0.1` (relative errors are taken against max(predicted, irr_floor)),
//! `irr_min_victims=16`, `check=1` (x capacity), `split_gain=0.005`, `split_patience=5`,
//! `fixed=H/G1/../GN` (segments; pins a configuration: no search, no fallback, GN takes
//! the rest of the space; for model validation).
//!
//! Memory: 4 B of last-write time (wrapping 32-bit user-write clock) + 2 bits of hot counter
//! per LPN (the paper keeps only the 2 bits and derives the interval from segment
//! timestamps, which a placement in flashgc does not see), the sampled timestamp table
//! (8 B per sampled LPN) and the interval count tables (8 B per unit of the epoch per row).

pub mod gcs;
pub mod mcam;
pub mod uid;

use super::{Placement, PlacementInit, VictimScope};
use crate::error::{Error, Result};
use crate::segment::{SegState, SegmentView};
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};
use crate::workload::{Op, Request, Workload};
use gcs::{GcsParams, GcsResult};
use mcam::{GroupConfig, Prediction};
use serde_json::json;
use std::collections::VecDeque;
use uid::{HotModel, Uid, UidBuilder};

const NEVER: u32 = u32::MAX;
/// Fewest update intervals an epoch's UID needs before GCS may act on it.
const MIN_UID_SAMPLES: u64 = 1000;
/// Stream of the HOT group.
pub const HOT: StreamId = 0;

/// MiDAS's parameters (see the module docs; defaults from papers/midas.txt).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MidasParams {
    /// Largest number of cold groups (streams = 1 + max_groups).
    pub max_groups: u16,
    /// Groups of the MiDA chain in the first epoch and after a fallback.
    pub mida_groups: u16,
    /// Epoch length, x logical capacity of user writes.
    pub epoch: f64,
    /// UID interval unit, user page writes.
    pub unit: u64,
    /// One LPN in `sample` is tracked for the UID.
    pub sample: u32,
    /// The UID's interval counts come from every user write (`uid_counts=all`, default) or
    /// only from the sampled LPNs (`sampled`, the paper); see [`uid`]'s module docs.
    pub uid_counts_all: bool,
    /// Short intervals in a row before a page is hot.
    pub hot_hits: u8,
    /// How MCAM models HOT admission (`joint`, or the paper's approximation `paper`).
    pub hot_model: HotModel,
    /// Reclaimed HOT segments averaged for the threshold time.
    pub thr_window: usize,
    /// Adopt a new configuration when it predicts this much lower WAF.
    pub adopt_gain: f64,
    /// Fall back when a transition probability is off by more than this (relative).
    pub irr_threshold: f64,
    /// Floor of the denominator of the relative error.
    pub irr_floor: f64,
    /// Victims of a group needed in a check window before its error is judged.
    pub irr_min_victims: u32,
    /// Irregularity check interval, x logical capacity of user writes.
    pub check: f64,
    /// GCS parameters.
    pub gcs: GcsParams,
    /// A pinned configuration (no search, no fallback).
    pub fixed: Option<GroupConfig>,
}

impl MidasParams {
    /// The paper's defaults for a device with `pps` pages per segment.
    pub fn defaults(pps: u32) -> MidasParams {
        MidasParams {
            max_groups: 8,
            mida_groups: 8,
            epoch: 4.0,
            unit: pps as u64,
            sample: uid::DEFAULT_SAMPLE,
            uid_counts_all: true,
            hot_hits: 3,
            hot_model: HotModel::Joint,
            thr_window: 16,
            adopt_gain: 0.05,
            irr_threshold: 0.10,
            irr_floor: 0.10,
            irr_min_victims: 16,
            check: 1.0,
            gcs: GcsParams {
                max_groups: 8,
                ..GcsParams::default()
            },
            fixed: None,
        }
    }

    fn from_spec(spec: &Spec, init: &PlacementInit) -> Result<MidasParams> {
        let d = MidasParams::defaults(init.pages_per_segment);
        let max_groups = spec.num::<u16>("max_groups", d.max_groups, 1, 256)?;
        let fixed = match spec.raw("fixed") {
            None => None,
            Some(s) => {
                let c = GroupConfig::parse(s).map_err(|e| Error::config(spec.path("fixed"), e))?;
                if c.groups() > max_groups as usize {
                    return Err(Error::config(
                        spec.path("fixed"),
                        format!("{} groups exceed max_groups = {max_groups}", c.groups()),
                    ));
                }
                if c.total() > init.segments as u64 {
                    return Err(Error::config(
                        spec.path("fixed"),
                        format!(
                            "{} segments exceed the device's {}",
                            c.total(),
                            init.segments
                        ),
                    ));
                }
                Some(c)
            }
        };
        Ok(MidasParams {
            max_groups,
            mida_groups: spec
                .num::<u16>("mida_groups", d.mida_groups, 1, 256)?
                .min(max_groups),
            epoch: spec.num::<f64>("epoch", d.epoch, 0.05, 1000.0)?,
            unit: spec.num::<u64>("unit", d.unit, 1, 1 << 40)?,
            sample: spec.num::<u32>("sample", d.sample, 1, 1 << 20)?,
            uid_counts_all: spec.choice("uid_counts", "all", &["all", "sampled"])? == "all",
            hot_hits: spec.num::<u8>("hot_hits", d.hot_hits, 1, 3)?,
            hot_model: match spec
                .choice("hot_model", "joint", &["joint", "paper"])?
                .as_str()
            {
                "paper" => HotModel::Paper,
                _ => HotModel::Joint,
            },
            thr_window: spec.num::<usize>("thr_window", d.thr_window, 1, 1 << 16)?,
            adopt_gain: spec.num::<f64>("adopt_gain", d.adopt_gain, 0.0, 1.0)?,
            irr_threshold: spec.num::<f64>("irr_threshold", d.irr_threshold, 0.0, 100.0)?,
            irr_floor: spec.num::<f64>("irr_floor", d.irr_floor, 1e-9, 1.0)?,
            irr_min_victims: spec.num::<u32>("irr_min_victims", d.irr_min_victims, 1, 1 << 30)?,
            check: spec.num::<f64>("check", d.check, 0.01, 1000.0)?,
            gcs: GcsParams {
                max_groups: max_groups as usize,
                min_gain: spec.num::<f64>("split_gain", d.gcs.min_gain, 0.0, 1.0)?,
                patience: spec.num::<usize>("split_patience", d.gcs.patience, 1, 1000)?,
            },
            fixed,
        })
    }
}

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

/// One entry of the configuration history.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct HistoryEntry {
    user_writes: u64,
    capacity_written: f64,
    #[serde(deserialize_with = "crate::checkpoint::leak_str")]
    event: &'static str,
    mode: String,
    groups: usize,
    sizes: Vec<u32>,
    #[serde(deserialize_with = "crate::checkpoint::f64_or_inf")]
    threshold: f64,
    predicted_waf: Option<f64>,
    measured_waf: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    current_on_new_uid: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    irregular: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gcs_choice: Option<serde_json::Value>,
    /// Valid ratio of victims per group over the epoch (HOT, G1, ...; null = no victim).
    #[serde(skip_serializing_if = "Option::is_none")]
    measured_v: Option<Vec<Option<f64>>>,
    /// MCAM's transition probabilities for the configuration in force.
    #[serde(skip_serializing_if = "Option::is_none")]
    predicted_v: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uid_samples: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gcs_evaluations: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    budget_segments: Option<u32>,
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
    // UID and epochs.
    uid: UidBuilder,
    epoch_len: u64,
    next_epoch: u64,
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
    /// pages relocated, to detect picks that free nothing.
    gc_now: u64,
    gc_picks: u64,
    gc_reloc: u64,
    stalls: u64,
    now: u64,
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let p = MidasParams::from_spec(spec, &init)?;
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
            ts: vec![NEVER; logical as usize],
            hot_ctr: vec![0; (logical as usize).div_ceil(4)],
            live_pages: 0,
            threshold: 0.0,
            hot_open: VecDeque::new(),
            residences: VecDeque::new(),
            residence_sum: 0,
            uid,
            epoch_len,
            next_epoch: epoch_len,
            ep_user: 0,
            ep_gc: 0,
            budget_sum: 0,
            budget_n: 0,
            check_len,
            next_check: u64::MAX,
            check_armed: false,
            win_victims: vec![0; streams],
            win_reloc: vec![0; streams],
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
            stalls: 0,
            now: 0,
            p,
        };
        if let Some(c) = m.p.fixed.clone() {
            m.threshold = c.sizes[0] as f64 * m.pps as f64;
            m.cfg = c;
            m.mode = Mode::Configured;
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
        match self.mode {
            Mode::Mida => {
                let m = self.p.mida_groups.min(max);
                units.push(unit(HOT, HOT, 0));
                units.push(unit(1, max, 0));
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
                units.push(unit(HOT, HOT, self.cfg.sizes[0] as i64));
                for g in 1..k {
                    units.push(unit(g, g, self.cfg.sizes[g as usize] as i64));
                }
                units.push(unit(k, max, 0));
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
        let sp = &mut self.stream_pages[s as usize];
        // A mask where segments hold a power of two of pages (they do in practice): this
        // runs for every user and GC page, and a 64-bit division costs more than the rest.
        let seg_start = if pps.is_power_of_two() {
            *sp & (pps - 1) == 0
        } else {
            *sp % pps == 0
        };
        if seg_start {
            self.units[self.unit_of[s as usize] as usize].count += 1;
            if s == HOT {
                self.hot_open.push_back(self.now);
            }
        }
        *sp += 1;
    }

    #[inline]
    fn is_open(&self, s: StreamId) -> bool {
        self.stream_pages[s as usize] % self.pps as u64 != 0
    }

    fn sealed(&self, u: &Unit) -> i64 {
        u.count - (u.lo..=u.hi).filter(|&s| self.is_open(s)).count() as i64
    }

    fn hot_enabled(&self) -> bool {
        self.mode != Mode::Mida && self.cfg.sizes[0] > 0
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

    fn mode_name(&self) -> String {
        match self.mode {
            Mode::Mida => "mida".into(),
            Mode::Configured => "configured".into(),
            Mode::Fallback(k) => format!("fallback(G{k}..G{} merged)", self.cfg.groups()),
        }
    }

    fn entry(&self, event: &'static str) -> HistoryEntry {
        let (groups, sizes) = match self.mode {
            Mode::Mida => (self.p.mida_groups as usize, Vec::new()),
            _ => (self.cfg.groups(), self.cfg.sizes.clone()),
        };
        HistoryEntry {
            user_writes: self.now,
            capacity_written: self.now as f64 / self.logical as f64,
            event,
            mode: self.mode_name(),
            groups,
            sizes,
            threshold: self.threshold,
            predicted_waf: None,
            measured_waf: None,
            current_on_new_uid: None,
            irregular: None,
            gcs_choice: None,
            measured_v: None,
            predicted_v: None,
            uid_samples: None,
            gcs_evaluations: None,
            budget_segments: None,
        }
    }

    fn end_epoch(&mut self) {
        let samples = self.uid.samples();
        let uid = self
            .uid
            .finish(self.now, self.live_pages)
            .with_hot_model(self.p.hot_model);
        let budget = self.learned_budget();
        let measured =
            (self.ep_user > 0).then(|| (self.ep_user + self.ep_gc) as f64 / self.ep_user as f64);
        let pps = self.pps as f64;
        let measured_v: Vec<Option<f64>> = (0..=self.cfg.groups())
            .map(|s| {
                (self.ep_victims[s] > 0)
                    .then(|| self.ep_reloc[s] as f64 / (self.ep_victims[s] as f64 * pps))
            })
            .collect();
        self.ep_victims.iter_mut().for_each(|c| *c = 0);
        self.ep_reloc.iter_mut().for_each(|c| *c = 0);
        self.ep_user = 0;
        self.ep_gc = 0;
        self.budget_sum = 0;
        self.budget_n = 0;
        if self.p.fixed.is_some() {
            let eff = self.effective(&self.cfg, budget);
            let pred = mcam::predict(&uid, &eff, self.pps);
            let mut e = self.entry("epoch");
            e.predicted_waf = Some(pred.waf);
            e.measured_waf = measured;
            e.uid_samples = Some(samples);
            e.budget_segments = Some(budget);
            e.measured_v = Some(measured_v);
            e.predicted_v = Some(pred.v.clone());
            self.history.push(e);
            self.pred = Some(pred);
            return;
        }
        let found: GcsResult = gcs::search(&uid, budget, self.pps, &self.p.gcs);
        let current = match self.mode {
            Mode::Configured => {
                Some(mcam::predict(&uid, &self.effective(&self.cfg, budget), self.pps).waf)
            }
            _ => None,
        };
        if !found.prediction.waf.is_finite() || samples < MIN_UID_SAMPLES {
            // The UID admits no feasible configuration (typically an epoch straddling a
            // workload change): run MiDA until the next epoch.
            self.mode = Mode::Mida;
            self.apply_layout();
            let mut e = self.entry(if samples < MIN_UID_SAMPLES {
                "too few intervals in the UID: MiDA"
            } else {
                "no feasible configuration: MiDA"
            });
            e.measured_waf = measured;
            e.measured_v = Some(measured_v);
            e.uid_samples = Some(samples);
            e.gcs_evaluations = Some(found.evaluations);
            e.budget_segments = Some(budget);
            self.history.push(e);
            return;
        }
        let adopt = match current {
            None => true,
            Some(c) => !c.is_finite() || found.prediction.waf < c * (1.0 - self.p.adopt_gain),
        };
        let event = if adopt {
            let ev = match self.mode {
                Mode::Mida if self.adoptions == 0 => "first configuration",
                Mode::Mida | Mode::Fallback(_) => "configuration after fallback",
                Mode::Configured => "reconfiguration",
            };
            self.cfg = found.config.clone();
            self.threshold = found.prediction.threshold;
            self.pred = Some(found.prediction.clone());
            self.mode = Mode::Configured;
            self.adoptions += 1;
            self.apply_layout();
            self.arm_checks();
            ev
        } else {
            "keep"
        };
        let mut e = self.entry(event);
        e.predicted_waf = Some(if adopt {
            found.prediction.waf
        } else {
            self.pred.as_ref().map_or(f64::NAN, |p| p.waf)
        });
        if !adopt {
            // Not adopted: the configuration GCS found is reported next to the kept one.
            e.gcs_choice = Some(
                json!({ "gcs_sizes": found.config.sizes, "gcs_predicted_waf": found.prediction.waf }),
            );
        }
        e.measured_waf = measured;
        e.measured_v = Some(measured_v);
        e.current_on_new_uid = current;
        e.uid_samples = Some(samples);
        e.gcs_evaluations = Some(found.evaluations);
        e.budget_segments = Some(budget);
        self.history.push(e);
    }

    fn arm_checks(&mut self) {
        self.next_check = self.now + self.check_len;
        self.check_armed = false;
        self.win_victims.iter_mut().for_each(|c| *c = 0);
        self.win_reloc.iter_mut().for_each(|c| *c = 0);
    }

    fn check_irregular(&mut self) {
        self.next_check = self.now + self.check_len;
        if self.mode != Mode::Configured || self.p.fixed.is_some() {
            return;
        }
        let armed = self.check_armed;
        self.check_armed = true;
        let mut hit = None;
        if armed {
            if let Some(pred) = &self.pred {
                let n = self.cfg.groups();
                for k in 1..n {
                    let vict = self.win_victims[k];
                    if vict < self.p.irr_min_victims as u64 {
                        continue;
                    }
                    let measured = self.win_reloc[k] as f64 / (vict as f64 * self.pps as f64);
                    let predicted = pred.v[k];
                    let err = (measured - predicted).abs() / predicted.max(self.p.irr_floor);
                    if err > self.p.irr_threshold {
                        hit = Some((k, predicted, measured, err, vict));
                        break;
                    }
                }
            }
        }
        self.win_victims.iter_mut().for_each(|c| *c = 0);
        self.win_reloc.iter_mut().for_each(|c| *c = 0);
        if let Some((k, predicted, measured, err, vict)) = hit {
            self.mode = Mode::Fallback(k as u16);
            self.fallbacks += 1;
            self.apply_layout();
            let mut e = self.entry("fallback");
            e.predicted_waf = self.pred.as_ref().map(|p| p.waf);
            e.irregular = Some(json!({
                "transition": format!("G{k}->G{}", k + 1),
                "predicted": predicted,
                "measured": measured,
                "relative_error": err,
                "victims": vict,
            }));
            self.history.push(e);
        }
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

    fn record_hot_residence(&mut self) {
        if let Some(t) = self.hot_open.pop_front() {
            let r = self.now.saturating_sub(t);
            self.residences.push_back(r);
            self.residence_sum += r;
            if self.residences.len() > self.p.thr_window {
                self.residence_sum -= self.residences.pop_front().unwrap_or(0);
            }
            if self.hot_enabled() {
                self.threshold = self.residence_sum as f64 / self.residences.len() as f64;
            }
        }
    }
}

impl Placement for Midas {
    fn name(&self) -> &'static str {
        "midas"
    }
    crate::checkpoint::serde_state!(same: [p, logical, segments, pps], len: [ts, hot_ctr]);
    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        // The clock and the HOT residences feed sums and differences on the write path.
        let clock = dev.view.now();
        if self.now > clock || self.hot_open.iter().any(|&t| t > self.now) {
            return Err(format!(
                "a write time after the clock {clock} (MiDAS at {})",
                self.now
            ));
        }
        let sum =
            self.residences.iter().try_fold(
                0u64,
                |a, &r| if r > clock { None } else { a.checked_add(r) },
            );
        if sum != Some(self.residence_sum) || self.residences.len() > self.p.thr_window {
            return Err("HOT residence window".into());
        }
        // Group units and per-stream tables: the GC path indexes them by stream.
        let streams = dev.streams;
        let per_stream = [
            self.unit_of.len(),
            self.next_stream.len(),
            self.stream_pages.len(),
            self.win_victims.len(),
            self.win_reloc.len(),
            self.total_victims.len(),
            self.total_reloc.len(),
            self.ep_victims.len(),
            self.ep_reloc.len(),
        ];
        let units_ok = !self.units.is_empty()
            && self
                .units
                .iter()
                .all(|u| u.lo <= u.hi && (u.hi as usize) < streams);
        if per_stream.iter().any(|&n| n != streams)
            || !units_ok
            || self.unit_of.iter().any(|&u| u as usize >= self.units.len())
            || self.next_stream.iter().any(|&s| s as usize >= streams)
        {
            return Err("group units or per-stream tables".into());
        }
        self.uid.check_restored(clock, self.logical)
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
            crate::ftl::mapping::prefetch_ptr(t as *const u32 as *const i8);
        }
        if let Some(h) = self.hot_ctr.get(lpn as usize >> 2) {
            crate::ftl::mapping::prefetch_ptr(h as *const u8 as *const i8);
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
        if now >= self.next_epoch {
            self.next_epoch = now + self.epoch_len;
            self.end_epoch();
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

    fn gc_stream(&mut self, _lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId {
        self.gc_reloc += 1;
        let src = view.stream(victim) as usize;
        let u = &self.units[self.unit_of[src] as usize];
        if u.lo == u.hi {
            // Per-group statistics only where victims are counted per group.
            self.win_reloc[src] += 1;
            self.total_reloc[src] += 1;
            self.ep_reloc[src] += 1;
        }
        self.ep_gc += 1;
        let d = self.next_stream[src];
        self.note_write(d);
        d
    }

    fn victim_scope(&mut self, view: &SegmentView) -> VictimScope {
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
        if self.gc_now != self.now {
            self.gc_now = self.now;
            self.gc_picks = 0;
            self.gc_reloc = 0;
        }
        self.gc_picks += 1;
        // Safety net: group sizes are enforced by moving the oldest segments of groups over
        // their size down the chain; if those are all valid (e.g. right after a
        // reconfiguration shrank groups full of never-overwritten data) such picks free
        // nothing. After 2 x streams picks of this GC episode that freed less than one
        // segment, let the victim policy choose over all groups.
        let pps = self.pps as u64;
        if self.gc_picks > 2 * self.streams() as u64 && self.gc_picks * pps - self.gc_reloc < pps {
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
            self.win_victims[lo as usize] += 1;
            self.total_victims[lo as usize] += 1;
            self.ep_victims[lo as usize] += 1;
            if lo == HOT {
                self.record_hot_residence();
            }
            VictimScope::Group(lo)
        } else {
            VictimScope::Groups(lo, hi)
        }
    }

    fn on_trim(&mut self, lpn: Lpn) {
        let l = lpn as usize;
        if self.ts[l] != NEVER {
            self.ts[l] = NEVER;
            self.live_pages -= 1;
        }
        self.set_hot_counter(l, 0);
        self.uid.on_trim(lpn as u64);
    }

    fn memory_bytes(&self) -> u64 {
        (self.ts.len() * 4 + self.hot_ctr.len()) as u64
            + self.uid.memory_bytes()
            + (self.hot_open.capacity() + self.residences.capacity()) as u64 * 8
            + self.streams() as u64 * 48
    }

    fn report(&self) -> Option<serde_json::Value> {
        let measured_v: Vec<Option<f64>> = (0..self.streams())
            .map(|s| {
                (self.total_victims[s] > 0).then(|| {
                    self.total_reloc[s] as f64 / (self.total_victims[s] as f64 * self.pps as f64)
                })
            })
            .collect();
        Some(json!({
            "scheme": "midas",
            "params": self.p,
            "mode": self.mode_name(),
            "config": self.cfg.sizes,
            "threshold": self.threshold,
            "prediction": self.pred,
            "adoptions": self.adoptions,
            "fallbacks": self.fallbacks,
            "stalled_gc_picks": self.stalls,
            "victims_per_stream": self.total_victims,
            "measured_valid_ratio_per_stream": measured_v,
            "history": self.history,
            "notes": [
                "victims inside a group come from the run's victim policy; MiDAS assumes fifo",
                "MCAM's HOT admission model is params.hot_model: joint (flashgc: the hot filter's statistic, pages may survive HOT) or paper (Sec. 4.4: HOT admits the writes whose own interval is below the threshold, all die in HOT)",
                "UID interval counts: params.uid_counts_all = true counts every user write's interval (flashgc), false only the sampled LPNs' (the paper)",
                "epochs count every user write, the precondition fill included"
            ],
        }))
    }
}

/// How [`uid_from_workload`] builds a UID.
#[derive(Debug, Clone, Copy)]
pub struct UidOptions {
    /// Sequential fill first, fraction of the logical space (a run's precondition).
    pub fill: f64,
    /// User page writes after the fill (or until the workload ends).
    pub writes: u64,
    /// Intervals are counted over the last `epoch` page writes (0 = the whole stream).
    pub epoch: u64,
    /// Interval unit, page writes.
    pub unit: u64,
    /// One LPN in `sample` is tracked.
    pub sample: u32,
    /// Short intervals in a row for HOT admission (the joint HOT model's statistic).
    pub hot_hits: u8,
    /// Count every write's interval (MiDAS's `uid_counts=all`), not only the sampled LPNs'.
    pub all_intervals: bool,
}

/// Builds a UID from a request stream: sequentially fills `o.fill` of the logical space (as
/// a run's precondition does), then feeds the workload's writes and trims until `o.writes`
/// user page writes or the workload's end, counting intervals over the last `o.epoch`.
pub fn uid_from_workload(wl: &mut dyn Workload, logical_pages: u64, o: &UidOptions) -> Result<Uid> {
    let UidOptions {
        fill,
        writes,
        epoch,
        unit,
        sample,
        hot_hits,
        all_intervals,
    } = *o;
    let filled = ((logical_pages as f64 * fill.clamp(0.0, 1.0)).round() as u64).min(logical_pages);
    let total = filled + writes;
    let window = if epoch == 0 { total } else { epoch.min(total) };
    let mut b = UidBuilder::new(logical_pages, unit, sample, window.max(unit), hot_hits);
    if all_intervals {
        b = b.count_all_intervals();
    }
    // Last write time per LPN (0 = not live), for every write's interval.
    let mut last = vec![
        0u64;
        if all_intervals {
            logical_pages as usize
        } else {
            0
        }
    ];
    let mut live = vec![false; logical_pages as usize];
    let mut n_live = 0u64;
    let mut now = 0u64;
    let start = total - window;
    for lpn in 0..filled {
        now += 1;
        b.on_write(lpn, now);
        if all_intervals {
            last[lpn as usize] = now;
        }
        live[lpn as usize] = true;
        n_live += 1;
        if now == start {
            b.finish(now, n_live);
        }
    }
    let mut buf: Vec<Request> = Vec::with_capacity(4096);
    'outer: while now < total {
        buf.clear();
        wl.fill(&mut buf, 4096)?;
        if buf.is_empty() {
            break;
        }
        for r in &buf {
            let end = r.lpn.saturating_add(r.pages as u64);
            if end > logical_pages {
                return Err(Error::Workload(format!(
                    "request at LPN {}..{end} exceeds the logical capacity of {logical_pages} pages",
                    r.lpn
                )));
            }
            for lpn in r.lpn..end {
                match r.op {
                    Op::Write => {
                        now += 1;
                        b.on_write(lpn, now);
                        if all_intervals {
                            let l = &mut last[lpn as usize];
                            if *l != 0 {
                                b.on_interval(now - *l);
                            }
                            *l = now;
                        }
                        if !live[lpn as usize] {
                            live[lpn as usize] = true;
                            n_live += 1;
                        }
                        if now == start {
                            b.finish(now, n_live);
                        }
                        if now >= total {
                            break 'outer;
                        }
                    }
                    Op::Trim => {
                        b.on_trim(lpn);
                        if all_intervals {
                            last[lpn as usize] = 0;
                        }
                        if live[lpn as usize] {
                            live[lpn as usize] = false;
                            n_live -= 1;
                        }
                    }
                    Op::Read => {}
                }
            }
        }
    }
    Ok(b.finish(now, n_live))
}

/// What `flashgc model midas` prints: the UID's summary, MCAM's prediction for a given
/// configuration, and GCS's choice.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModelReport {
    /// Pages per segment.
    pub pages_per_segment: u32,
    /// Segments the groups share.
    pub budget_segments: u32,
    /// The UID (survival function summary).
    pub uid: UidSummary,
    /// The given configuration and MCAM's prediction for it.
    pub given: Option<(GroupConfig, Prediction)>,
    /// GCS's configuration.
    pub gcs: GcsResult,
}

/// A UID in a few numbers.
#[derive(Debug, Clone, serde::Serialize)]
pub struct UidSummary {
    /// Interval unit, page writes.
    pub unit: f64,
    /// Intervals counted.
    pub samples: u64,
    /// Mean update interval, page writes.
    pub mean: f64,
    /// `P(I < x)` at x = 1, 4, 16, 64, 256 units and 1x, 2x, 4x the budget in pages.
    pub cdf: Vec<(f64, f64)>,
}

/// MCAM's prediction for `given` (GN resized to the budget) and GCS's choice on `uid`.
pub fn model(
    uid: &Uid,
    given: Option<&GroupConfig>,
    budget: u32,
    pps: u32,
    gcs_params: &GcsParams,
) -> ModelReport {
    let given = given.map(|g| {
        let mut c = g.clone();
        let n = c.groups();
        let others: u64 = c.sizes[..n].iter().map(|&s| s as u64).sum();
        c.sizes[n] = (budget as u64).saturating_sub(others).max(1) as u32;
        let p = mcam::predict(uid, &c, pps);
        (c, p)
    });
    let pages = budget as f64 * pps as f64;
    let xs = [1.0, 4.0, 16.0, 64.0, 256.0]
        .map(|k| k * uid.unit)
        .into_iter()
        .chain([pages, 2.0 * pages, 4.0 * pages]);
    ModelReport {
        pages_per_segment: pps,
        budget_segments: budget,
        uid: UidSummary {
            unit: uid.unit,
            samples: uid.samples,
            mean: uid.mean,
            cdf: xs.map(|x| (x, uid.below(x))).collect(),
        },
        given,
        gcs: gcs::search(uid, budget, pps, gcs_params),
    }
}
