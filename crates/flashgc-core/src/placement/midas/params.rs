//! MiDAS's parameters (`midas:key=value,...`).

use super::gcs::GcsParams;
use super::mcam::GroupConfig;
use super::uid::{self, HotModel};
use crate::error::{Error, Result};
use crate::placement::PlacementInit;
use crate::spec::Spec;

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
    /// A trimmed version's life (write to trim) is counted as an interval (`uid_trims=count`,
    /// default: MiDAS's simulator, model.cpp's `REMOVE` mode); `ignore`: flashgc's earlier
    /// rule, deaths by trim left out of the UID (what a checkpoint written then resumes with).
    #[serde(default)]
    pub uid_count_trims: bool,
    /// Short intervals in a row before a page is hot.
    pub hot_hits: u8,
    /// How MCAM models HOT admission (`joint`, or the paper's approximation `paper`).
    pub hot_model: HotModel,
    /// Reclaimed HOT segments averaged for the threshold time.
    pub thr_window: usize,
    /// Adopt a new configuration when it predicts this much lower WAF.
    pub adopt_gain: f64,
    /// Fall back when a group's measured victim valid ratio (its transition probability)
    /// is off by more than this: an absolute difference under `irr_error=over`, a relative
    /// error under `relative`.
    pub irr_threshold: f64,
    /// Floor of the denominator of the relative error (`irr_error=relative`).
    pub irr_floor: f64,
    /// Victims of a group needed in a check window before its error is judged.
    pub irr_min_victims: u32,
    /// Irregularity check interval, x logical capacity of user writes (default 0.3 x
    /// `epoch`: the simulator's `err_write > real_tw * 0.3`).
    pub check: f64,
    /// How a check window's error is judged (see [`IrrError`]).
    #[serde(default = "IrrError::earlier")]
    pub irr_error: IrrError,
    /// When the checks start after an adoption (see [`IrrStart`]).
    #[serde(default = "IrrStart::earlier")]
    pub irr_start: IrrStart,
    /// In a fallback at Gk, the checks go on judging G1..G(k-1), and an error there merges
    /// further (`irr_after_fallback=check`, default: the simulator keeps `err_flag` set and
    /// merges again in `err_handling`; the paper's Fig. 14 counts five IrrHand invocations
    /// per epoch). `stop` (flashgc's earlier rule): no check until the next adoption.
    #[serde(default)]
    pub irr_recheck: bool,
    /// GCS parameters.
    pub gcs: GcsParams,
    /// A pinned configuration (no search, no fallback).
    pub fixed: Option<GroupConfig>,
    /// The MiDA phases (first epoch, fallback to G1) keep the HOT stream fed by the hot
    /// filter, its segments among the merged groups' candidates, as MiDAS's simulator does
    /// (`mida_hot=filter`, default); `none`: no HOT before the first configuration.
    pub mida_hot: bool,
    /// Threshold time of the hot filter before the first HOT victim is measured, x logical
    /// capacity (the simulator's initial one capacity).
    pub mida_hot_threshold: f64,
    /// What a new configuration must beat (see [`Adopt`]).
    pub adopt: Adopt,
    /// User writes before the first epoch's UID starts, x logical capacity (the simulator
    /// starts after the load plus one capacity: 2 with a full precondition fill).
    pub uid_skip: f64,
    /// Victims of the groups with a designated size (HOT, G1..G(N-1)) are their oldest
    /// segments whatever the run's victim policy (`sized_victims=fifo`, default: MiDAS's
    /// simulator and MCAM); `policy`: the run's victim policy inside those groups too.
    pub sized_victims_fifo: bool,
    /// A configuration change relabels segments instead of copying them down the chain
    /// (`relabel=on`, default): each group left over its new size gives its oldest sealed
    /// segments to the last group, and groups past the new last are merged into it, as
    /// MiDAS's simulator does (`change_config_2`, `move_margin_seg`, `merge_group`; the
    /// paper: "only pointers ... are moved", §5.1). `off`: flashgc's earlier rule, the
    /// surplus is reclaimed one group per GC (the reconfiguration transient, docs/midas.md).
    pub relabel: bool,
    /// How MCAM models the last group (see [`GnModel`]).
    #[serde(default)]
    pub gn_model: GnModel,
    /// `gn_model=greedy`: never-invalidated data is set aside only when it is at least this
    /// share of the device's pages (model.cpp: `SEGNUM * PPS * 0.2`).
    #[serde(default = "default_gn_static_min")]
    pub gn_static_min: f64,
    /// `gn_model=greedy`: share of the last group's sealed segments that may be full of
    /// valid pages without being static (just sealed), subtracted from the count
    /// (model.cpp: `TOTAL_GNUM[GN] * 0.05`).
    #[serde(default = "default_gn_static_margin")]
    pub gn_static_margin: f64,
    /// Fig. 12 breakdown switches: the HOT group (+HotSep), the group configuration by
    /// UID + MCAM + GCS (+GrpConf), the irregularity fallback (+IrrHand).
    pub hot: bool,
    /// See `hot`.
    pub grpconf: bool,
    /// See `hot`.
    pub irrhand: bool,
}

/// How MCAM models the last group `G_N`, which relocates into itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GnModel {
    /// The paper's text (§4.1, §4.4): `G_N`'s victims are its oldest segments, modelled by
    /// Desnoyers' FIFO fixed point over the UID (every live page, the never-rewritten ones
    /// too, goes round the group again at each lap). Default.
    #[default]
    Fifo,
    /// MiDAS's simulator (model.cpp, `#define DES 2`, run with greedy or cost-benefit
    /// victims in `G_N`): `G_N`'s sealed segments that no write has invalidated hold static
    /// data a greedy victim policy never picks, so MCAM sets them aside (`no_access_lba`):
    /// their pages leave the UID's live pages older than its window and their segments
    /// leave the budget; the rest of `G_N` is modelled by the FIFO fixed point with
    /// Desnoyers' greedy correction (a group `1 + 1/(2 pps)` larger, its WAF divided by
    /// that factor). Pair it with `--victim greedy` or `cost-benefit`.
    Greedy,
}

fn default_gn_static_min() -> f64 {
    0.2
}

fn default_gn_static_margin() -> f64 {
    0.05
}

/// The adoption rule at an epoch end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Adopt {
    /// MiDAS's simulator (`check_applying_config`): a configuration is adopted only if its
    /// predicted WAF is below the WAF measured over the last capacity of user writes (less
    /// `adopt_gain`); when a configuration is in force, also below its own prediction on the
    /// new UID (the paper's 5 % rule). Default.
    Measured,
    /// flashgc's earlier rule: the first configuration (and the first after a fallback) is
    /// adopted unconditionally, later ones when they beat the current configuration's
    /// prediction on the new UID by `adopt_gain`. For ablations.
    Predicted,
}

/// How the irregularity check judges a group's measured victim valid ratio against MCAM's
/// prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IrrError {
    /// MiDAS's simulator (`error_cmp`): an error when the measured ratio exceeds the
    /// predicted one by at least `irr_threshold` (absolute; the two-sided test is commented
    /// out there). Fewer victims survive than predicted is no error: the group does better
    /// than planned. Default.
    Over,
    /// flashgc's earlier rule: |measured - predicted| / max(predicted, `irr_floor`) above
    /// `irr_threshold`, either way. For ablations.
    Relative,
}

impl IrrError {
    /// The rule before `irr_error` existed (what a checkpoint written then resumes with).
    fn earlier() -> IrrError {
        IrrError::Relative
    }
}

/// When the irregularity checks start after a configuration is adopted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IrrStart {
    /// MiDAS's simulator (`checking_config_apply`, `commit_bit`): once every group with a
    /// designated size (HOT, G1..GN) has given a victim since the adoption, i.e. has filled
    /// to its new size; the first window starts then. A group still growing towards its
    /// size holds the reconfiguration's transient, which no window judges. Default.
    Collected,
    /// flashgc's earlier rule: the first whole window after the adoption is skipped, later
    /// windows are judged. For ablations.
    Window,
}

impl IrrStart {
    /// The rule before `irr_start` existed.
    fn earlier() -> IrrStart {
        IrrStart::Window
    }
}

/// The irregularity check interval as a share of the epoch (the simulator's
/// `err_write > real_tw * 0.3`).
const CHECK_PER_EPOCH: f64 = 0.3;

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
            uid_count_trims: true,
            hot_hits: 3,
            hot_model: HotModel::Joint,
            thr_window: 16,
            adopt_gain: 0.05,
            irr_threshold: 0.10,
            irr_floor: 0.10,
            irr_min_victims: 16,
            check: CHECK_PER_EPOCH * 4.0,
            irr_error: IrrError::Over,
            irr_start: IrrStart::Collected,
            irr_recheck: true,
            gcs: GcsParams {
                max_groups: 8,
                ..GcsParams::default()
            },
            fixed: None,
            mida_hot: true,
            mida_hot_threshold: 1.0,
            adopt: Adopt::Measured,
            uid_skip: 2.0,
            sized_victims_fifo: true,
            relabel: true,
            gn_model: GnModel::Fifo,
            gn_static_min: default_gn_static_min(),
            gn_static_margin: default_gn_static_margin(),
            hot: true,
            grpconf: true,
            irrhand: true,
        }
    }

    /// Refuses, before any is allocated, tables larger than the memory limit: the
    /// per-page tables and the UID's interval counts, whose size grows with
    /// `epoch / unit` (`unit=1,epoch=1000` asks for ~10^3 bins per logical page).
    pub(super) fn check_memory(&self, spec: &Spec, init: &PlacementInit) -> Result<()> {
        let logical = init.logical_pages;
        let epoch_len = ((self.epoch * logical as f64).round() as u64).max(1);
        let bins = epoch_len.div_ceil(self.unit.max(1)).max(1);
        // Interval bins of the merged table: 4 per octave (uid::M_PER_OCTAVE) up to `bins`
        // units, plus the first two edges.
        let mbins = 4 * (64 - bins.leading_zeros() as u64) + 2;
        let counts = (mbins + 1).saturating_mul(bins + 1);
        let sampled = logical.div_ceil(self.sample.max(1) as u64);
        // Builder and the UID finished from it at an epoch end (uid.rs memory_bytes and
        // finish_working_bytes), the per-page write times and HOT counters.
        let bytes = counts
            .saturating_mul(16)
            .saturating_add((bins + 1).saturating_mul(8 * (6 + self.uid_counts_all as u64)))
            .saturating_add(sampled * 25)
            .saturating_add(logical * 5);
        let what = format!("UID tables ({bins} interval bins: epoch / unit)");
        spec.check_memory("unit", &what, bytes)?;
        // The builder allocates infallibly: its largest table is tried first.
        if !crate::mem::can_allocate(counts.saturating_mul(8)) {
            return Err(spec.alloc_error("unit", &what, bytes));
        }
        Ok(())
    }

    pub(super) fn from_spec(spec: &Spec, init: &PlacementInit) -> Result<MidasParams> {
        let d = MidasParams::defaults(init.pages_per_segment);
        let max_groups = spec.num::<u16>("max_groups", d.max_groups, 1, 256)?;
        let on =
            |key: &str| -> Result<bool> { Ok(spec.choice(key, "on", &["on", "off"])? == "on") };
        let hot = on("hot")?;
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
        let epoch = spec.num::<f64>("epoch", d.epoch, 0.05, 1000.0)?;
        Ok(MidasParams {
            max_groups,
            mida_groups: spec
                .num::<u16>("mida_groups", d.mida_groups, 1, 256)?
                .min(max_groups),
            epoch,
            unit: spec.num::<u64>("unit", d.unit, 1, 1 << 40)?,
            sample: spec.num::<u32>("sample", d.sample, 1, 1 << 20)?,
            uid_counts_all: spec.choice("uid_counts", "all", &["all", "sampled"])? == "all",
            uid_count_trims: spec.choice("uid_trims", "count", &["count", "ignore"])? == "count",
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
            check: spec.num::<f64>("check", CHECK_PER_EPOCH * epoch, 0.01, 1000.0)?,
            irr_error: match spec
                .choice("irr_error", "over", &["over", "relative"])?
                .as_str()
            {
                "relative" => IrrError::Relative,
                _ => IrrError::Over,
            },
            irr_start: match spec
                .choice("irr_start", "collected", &["collected", "window"])?
                .as_str()
            {
                "window" => IrrStart::Window,
                _ => IrrStart::Collected,
            },
            irr_recheck: spec.choice("irr_after_fallback", "check", &["check", "stop"])? == "check",
            gcs: GcsParams {
                max_groups: max_groups as usize,
                min_gain: spec.num::<f64>("split_gain", d.gcs.min_gain, 0.0, 1.0)?,
                patience: spec.num::<usize>("split_patience", d.gcs.patience, 1, 1000)?,
                hot,
                full_scan: spec.choice("split_scan", "full", &["full", "greedy"])? == "full",
            },
            fixed,
            mida_hot: spec.choice("mida_hot", "filter", &["filter", "none"])? == "filter",
            mida_hot_threshold: spec.num::<f64>(
                "mida_hot_threshold",
                d.mida_hot_threshold,
                1e-6,
                1e3,
            )?,
            adopt: match spec
                .choice("adopt", "measured", &["measured", "predicted"])?
                .as_str()
            {
                "predicted" => Adopt::Predicted,
                _ => Adopt::Measured,
            },
            uid_skip: spec.num::<f64>("uid_skip", d.uid_skip, 0.0, 1000.0)?,
            sized_victims_fifo: spec.choice("sized_victims", "fifo", &["fifo", "policy"])?
                == "fifo",
            relabel: on("relabel")?,
            gn_model: match spec
                .choice("gn_model", "fifo", &["fifo", "greedy"])?
                .as_str()
            {
                "greedy" => GnModel::Greedy,
                _ => GnModel::Fifo,
            },
            gn_static_min: spec.num::<f64>("gn_static_min", d.gn_static_min, 0.0, 1.0)?,
            gn_static_margin: spec.num::<f64>("gn_static_margin", d.gn_static_margin, 0.0, 1.0)?,
            hot,
            grpconf: on("grpconf")?,
            irrhand: on("irrhand")?,
        })
    }
}
