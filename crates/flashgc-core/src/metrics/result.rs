//! The result record: one structure for every command and device model, with optional
//! sections (`timing` for timed runs, `noc` for the NoC controller). Every field is
//! documented in docs/results.md; `schema_version` changes when a field changes meaning.

use super::latency::LatencySummary;
use super::{waf, waf_between, EraseSummary, MemoryItem, WindowPoint};
use crate::config::Layout;
use crate::ftl::FtlCounters;
use crate::timing::{CachePolicy, Host, TimingParams};
use serde::Serialize;

/// Version of the result record's schema (`schema_version` in every result).
pub const SCHEMA_VERSION: u32 = 2;

/// Device summary in a result.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceSummary {
    /// Preset the configuration started from.
    pub preset: Option<String>,
    /// The derived layout.
    #[serde(flatten)]
    pub layout: Layout,
    /// Logical capacity, GiB.
    pub logical_gib: f64,
    /// Physical capacity, GiB.
    pub physical_gib: f64,
}

/// Counts of one phase.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct PhaseCounts {
    /// User page writes.
    pub user_writes: u64,
    /// GC page writes.
    pub gc_writes: u64,
    /// Flash page programs (user + GC + translation writes of a mapping cache).
    pub flash_programs: u64,
    /// Segment erases.
    pub erases: u64,
    /// Victim segments collected.
    pub gc_victims: u64,
    /// GC episodes.
    pub gc_episodes: u64,
    /// User page reads.
    pub reads: u64,
    /// Reads of never-written LPNs.
    pub unmapped_reads: u64,
    /// Trimmed pages.
    pub trims: u64,
    /// WAF = flash programs / user writes (with a mapping cache: translation writes
    /// included; `translation.waf_without_translation` leaves them out).
    pub waf: f64,
    /// Effective alpha: mean pages holding data (valid or not) at victim selection / logical pages.
    pub effective_alpha: Option<f64>,
    /// Content mode: user writes that programmed nothing (reused a cached page, DAGC).
    #[serde(default, skip_serializing_if = "crate::types::is_zero")]
    pub absorbed_writes: u64,
    /// Content mode: pages programmed by background work (deferred migration, SplitGC).
    #[serde(default, skip_serializing_if = "crate::types::is_zero")]
    pub background_writes: u64,
    /// Victims the garbage-proportion trigger collected (`ftl.gc_trigger`; absent when
    /// that trigger is off). `gc_victims` minus this is what the free-segment watermarks
    /// took. (Checkpoints keep phase counts as JSON text, so omitting it is safe.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_garbage_victims: Option<u64>,
    /// Mapping-cache traffic (only with `--mapping-cache`).
    /// (Checkpoints store it apart: absent here, it is not encoded, and a fixed-layout
    /// decoder must not expect it.)
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub translation: Option<TranslationPhase>,
}

/// Mapping-cache figures of one phase (docs/mapping-cache.md).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct TranslationPhase {
    /// Mapping lookups and updates (host reads, writes, trims) whose translation page was cached.
    pub hits: u64,
    /// Lookups and updates whose translation page was not cached.
    pub misses: u64,
    /// hits / (hits + misses); 0 without accesses.
    pub hit_ratio: f64,
    /// Translation pages read from flash (misses of written pages, GC batch updates).
    pub translation_reads: u64,
    /// Translation pages programmed (dirty evictions, GC batch updates); part of `flash_programs`.
    pub translation_writes: u64,
    /// Of the translation reads and writes: GC batch updates (one read + one write each).
    pub gc_batch_updates: u64,
    /// (user + GC writes) / user writes: WAF without the translation writes (GC moves of
    /// translation pages stay in, being GC writes).
    pub waf_without_translation: f64,
}

impl PhaseCounts {
    /// The counts between two snapshots of the FTL's counters (`a` before `b`), with the
    /// effective alpha over `logical` pages.
    pub fn between(a: &FtlCounters, b: &FtlCounters, logical: u64) -> PhaseCounts {
        let uw = b.user_writes - a.user_writes;
        let gw = b.gc_writes - a.gc_writes;
        let tw = b.translation_writes() - a.translation_writes();
        let samples = b.alpha_samples - a.alpha_samples;
        let translation = b.translation.map(|t| {
            let z = Default::default();
            let t0 = a.translation.as_ref().unwrap_or(&z);
            let (hits, misses) = (t.hits - t0.hits, t.misses - t0.misses);
            TranslationPhase {
                hits,
                misses,
                hit_ratio: if hits + misses > 0 {
                    hits as f64 / (hits + misses) as f64
                } else {
                    0.0
                },
                translation_reads: t.reads - t0.reads,
                translation_writes: tw,
                gc_batch_updates: t.gc_updates - t0.gc_updates,
                waf_without_translation: waf(uw, gw),
            }
        });
        PhaseCounts {
            user_writes: uw,
            gc_writes: gw,
            flash_programs: b.programs() - a.programs(),
            erases: b.erases - a.erases,
            gc_victims: b.gc_victims - a.gc_victims,
            gc_episodes: b.gc_episodes - a.gc_episodes,
            reads: b.reads - a.reads,
            unmapped_reads: b.unmapped_reads - a.unmapped_reads,
            trims: b.trims - a.trims,
            waf: waf_between(a, b),
            translation,
            effective_alpha: (samples > 0).then(|| {
                (b.alpha_samples_sum - a.alpha_samples_sum) as f64 / samples as f64 / logical as f64
            }),
            absorbed_writes: b.absorbed_writes - a.absorbed_writes,
            background_writes: b.background_writes - a.background_writes,
            gc_garbage_victims: (b.gc_garbage_victims + b.gc_garbage_idle > 0)
                .then(|| b.gc_garbage_victims - a.gc_garbage_victims),
        }
    }
}

/// An analytic prediction printed next to the simulated WAF where one applies.
#[derive(Debug, Clone, Serialize)]
pub struct ModelCheck {
    /// Which model.
    pub model: String,
    /// alpha the model is evaluated at (the measured effective alpha).
    pub alpha: f64,
    /// Predicted WAF.
    pub waf: f64,
    /// (simulated steady-state WAF - predicted) / predicted.
    pub relative_error: f64,
}

/// Victim valid-ratio histogram: `counts[i]` victims had a valid ratio in [i/100, (i+1)/100).
#[derive(Debug, Clone, Serialize)]
pub struct VictimHistogram {
    /// Width of a bin (valid ratio).
    pub bin_width: f64,
    /// Counts per bin; the last bin is ratio 1.
    pub counts: Vec<u64>,
}

/// Everything a run reports. No wall-clock figures: the same config and seed give the same
/// result bit for bit (timing goes in a separate record).
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    /// Version of this record's schema ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// flashgc version.
    pub flashgc_version: &'static str,
    /// Units of the counts.
    pub units: Units,
    /// Workload description.
    pub workload: String,
    /// Placement spec as given.
    pub placement: String,
    /// Victim spec as given.
    pub victim: String,
    /// The placement as it ran: every parameter it read, with the value used (defaults
    /// included), e.g. `mida:groups=8,hot=filter,hot_threshold=1,...`: which variant ran.
    pub placement_spec: String,
    /// The victim policy as it ran, every parameter spelled out (e.g.
    /// `cost-benefit:formula=lfs,min_garbage=0,impl=auto`).
    pub victim_spec: String,
    /// Seed.
    pub seed: u64,
    /// Device.
    pub device: DeviceSummary,
    /// Stream names of the placement.
    pub streams: Vec<String>,
    /// Precondition (sequential fill) counts; excluded from everything else.
    pub precondition: PhaseCounts,
    /// The whole measured phase.
    pub total: PhaseCounts,
    /// The measured phase after the warm-up: the steady-state figures.
    pub steady_state: PhaseCounts,
    /// User pages excluded from `steady_state` as warm-up.
    pub warmup_user_pages: u64,
    /// Analytic cross-check, when the configuration matches a model's assumptions.
    pub model: Option<ModelCheck>,
    /// WAF per window of user writes.
    pub series: Vec<WindowPoint>,
    /// Victim valid ratios.
    pub victim_valid_ratio: VictimHistogram,
    /// Erase counts per block (a segment's blocks are erased together).
    pub erase_counts: EraseSummary,
    /// Metadata memory by structure: the simulator's, then (a trace run from the CLI or
    /// Python) the workload's own, named `trace ...` ([`crate::workload::Workload::memory`]).
    pub memory: Vec<MemoryItem>,
    /// Total metadata bytes per logical page of the simulator's structures (a trace
    /// replay's are listed in `memory` but not counted here: this compares schemes).
    pub memory_bytes_per_lpn: f64,
    /// Scheme-specific report of the placement (see `Placement::report`).
    pub placement_report: Option<serde_json::Value>,
    /// Why the run ended: `write_volume`, `workload_end`, ... (docs/results.md; a fio job's
    /// steady state: `steady_state`).
    pub ended_by: String,
    /// Remarks (approximations, assumptions) the reader must see.
    pub notes: Vec<String>,
    /// Timing simulation (latency, IOPS, utilization); None for WAF-only runs.
    pub timing: Option<TimingReport>,
    /// The NoC controller model's section (runs on the NoC device).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noc: Option<Box<crate::device::noc::NocReport>>,
    /// Content mode (a GC action other than `move`): which action and variant ran, its
    /// counters (content check, deferred, remapped, reused pages), the measured duplicate
    /// share, the SSD metadata it would take. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dedup: Option<crate::ftl::ContentReport>,
    /// Per-flow statistics of a run of several host flows (docs/flows.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flows: Option<Vec<FlowReport>>,
}

/// One host flow's statistics (docs/flows.md). Rates are over the run's simulated span,
/// so the flows' requests, bytes, IOPS and bandwidth add up to the run's.
#[derive(Debug, Clone, Serialize)]
pub struct FlowReport {
    /// Flow name.
    pub name: String,
    /// Pattern in fio's words.
    pub pattern: String,
    /// Arrival process.
    pub arrival: String,
    /// First arrival, simulated ns.
    pub start_ns: u64,
    /// First byte of the flow's region.
    pub offset_bytes: u64,
    /// Length of the flow's region, bytes.
    pub size_bytes: u64,
    /// Requests served.
    pub requests: u64,
    /// Read requests.
    pub read_requests: u64,
    /// Write requests.
    pub write_requests: u64,
    /// Trim requests.
    pub trim_requests: u64,
    /// Bytes transferred.
    pub bytes: u64,
    /// requests / the run's simulated time (0 WAF-only).
    pub iops: f64,
    /// MB (10^6 bytes) / the run's simulated second (0 WAF-only).
    pub bandwidth_mb_s: f64,
    /// From the flow's first arrival to its last completion, ns.
    pub active_ns: u64,
    /// The flow's requests over its own time (`active_ns`, or from the ramp's end with a
    /// ramp): the figure fio prints per job, which for jobs that run one after another
    /// (`stonewall`) differs from `iops` over the whole run (0 WAF-only).
    pub active_iops: f64,
    /// MB (10^6 bytes) over the flow's own time, as `active_iops` (0 WAF-only).
    pub active_bandwidth_mb_s: f64,
    /// With a ramp (fio's `ramp_time`): the requests issued in it, which latency, `iops`
    /// and `bandwidth_mb_s` leave out (those two are then over the flow's time from the
    /// ramp's end to its last completion); absent without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp_requests: Option<u64>,
    /// Read latency (timed runs).
    pub read_latency: Option<LatencySummary>,
    /// Write latency (timed runs).
    pub write_latency: Option<LatencySummary>,
    /// Read latency histogram, `[upper_us, count]` log bins (timed runs).
    pub read_histogram: Option<Vec<[f64; 2]>>,
    /// Write latency histogram (timed runs).
    pub write_histogram: Option<Vec<[f64; 2]>>,
    /// Flushes the flow issued (a fio job file's `fsync=N`, `fdatasync=N`, `end_fsync`;
    /// absent without any): not requests, so not in `requests`, `iops` or the bandwidth.
    #[serde(default, skip_serializing_if = "crate::types::is_zero")]
    pub flushes: u64,
    /// Flush latency, from the flush's issue until the device has made the flow's earlier
    /// writes durable (timed runs with flushes, after the ramp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_latency: Option<LatencySummary>,
    /// fio's steady-state detection (`ss`, `ss_dur`; absent without), named as fio's JSON
    /// names it (`steadystate`, apart from the run's WAF `steady_state`): the flow's, or
    /// with `group_reporting` its group's (the same on each of the group's flows).
    #[serde(
        default,
        rename = "steadystate",
        skip_serializing_if = "Option::is_none"
    )]
    pub steady_state: Option<SteadyStateReport>,
}

/// A flow's (or its group's) steady state, as fio's JSON `steadystate` object
/// (docs/flows.md, "Steady state").
#[derive(Debug, Clone, Serialize)]
pub struct SteadyStateReport {
    /// The criterion as fio prints it (`iops_slope:0.010000%`).
    pub ss: String,
    /// Its threshold (fio's `ss_limit`).
    pub limit: f64,
    /// Whether the criterion is relative to the window's mean, in percent.
    pub percent: bool,
    /// Samples in the window (`ss_dur`, whole seconds).
    pub duration: u64,
    /// `ss_ramp`, microseconds.
    pub ramp_us: u64,
    /// The flows of a group are one unit (`group_reporting`).
    pub group_reporting: bool,
    /// Whether steady state was attained (the flows then stopped issuing).
    pub attained: bool,
    /// When it was, simulated ns (the sample's time).
    pub attained_ns: Option<u64>,
    /// Samples taken (after the ramp).
    pub samples: u64,
    /// The last criterion computed (0 before the window filled; null when fio's
    /// arithmetic divides by a zero mean).
    pub criterion: f64,
    /// The last largest deviation from the window's mean (deviation criteria).
    pub max_deviation: f64,
    /// The last least-squares slope, per second (slope criteria).
    pub slope: f64,
    /// Integer mean of the window's IOPS samples (fio's `iops_mean`).
    pub iops_mean: u64,
    /// Integer mean of its bandwidth samples, bytes/s (fio's `bw_mean`).
    pub bw_mean: u64,
    /// The window's IOPS samples, oldest first (fio's `data.iops`; 0 where not filled).
    pub iops: Vec<u64>,
    /// Its bandwidth samples, bytes/s (fio's `data.bw`).
    pub bw: Vec<u64>,
}

/// Units used in a result.
#[derive(Debug, Clone, Serialize)]
pub struct Units {
    /// Size of one counted page (mapping unit), bytes.
    pub page_bytes: u32,
    /// Which over-provisioning definition was given.
    pub op_definition: String,
}

/// One point of the timing series (a window of host data volume).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct TimingPoint {
    /// Host data (reads + writes) so far, bytes.
    pub data_bytes: u64,
    /// The same in decimal GB, divided by `volume_scale` (the paper-equivalent volume).
    pub equivalent_gb: f64,
    /// Simulated time at the end of the window, seconds.
    pub time_s: f64,
    /// Requests per second in the window.
    pub iops: f64,
    /// Host MB/s (10^6 bytes) in the window.
    pub bandwidth_mb_s: f64,
    /// Read latency in the window.
    pub read: LatencySummary,
    /// Write latency in the window.
    pub write: LatencySummary,
    /// WAF since the start of the timed phase.
    pub waf_cumulative: f64,
    /// Segment erases since the start of the timed phase.
    pub erases: u64,
    /// GC page moves since the start of the timed phase.
    pub gc_page_moves: u64,
}

/// Write-cache statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheReport {
    /// Policy.
    pub policy: CachePolicy,
    /// Capacity, mapping units.
    pub pages: u64,
    /// Write hits.
    pub write_hits: u64,
    /// Read hits.
    pub read_hits: u64,
    /// Evictions (flash writes).
    pub evictions: u64,
    /// GCaR evictions that skipped the LRU page.
    pub gcar_skips: u64,
    /// Cache entries GCaR's replacement examined: its traversal work, also logged as
    /// `Compute::CacheScan` ops for the controller's firmware-CPU model (no time is charged
    /// for it by the flash model).
    pub scanned_entries: u64,
    /// Dirty pages left in the cache at the end (not flushed, not counted as flash writes).
    pub dirty_at_end: u64,
}

/// The timing section of a run result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimingReport {
    /// Host model.
    pub host: Host,
    /// Parameters.
    pub params: TimingParams,
    /// Whether FTL decisions depended on simulated time (background/idle GC, GCaR).
    pub timing_dependent_policy: bool,
    /// Simulated time from the first arrival to the last completion, ns.
    pub simulated_ns: u64,
    /// Host requests served.
    pub requests: u64,
    /// Host read requests.
    pub read_requests: u64,
    /// Host write requests.
    pub write_requests: u64,
    /// Requests per simulated second.
    pub iops: f64,
    /// Host MB/s (10^6 bytes per second), reads + writes.
    pub bandwidth_mb_s: f64,
    /// Read latency.
    pub read_latency: LatencySummary,
    /// Write latency.
    pub write_latency: LatencySummary,
    /// Read latency distribution: `[upper edge us, count]` per non-empty log bin (20 per
    /// decade), for CDFs.
    pub read_histogram: Vec<[f64; 2]>,
    /// Write latency distribution, as `read_histogram`.
    pub write_histogram: Vec<[f64; 2]>,
    /// Host flushes of the streaming API (`flashgc serve`'s NBD `FLUSH`; absent without
    /// any): not requests, so not in `requests`, `iops` or the bandwidth. A host flow's
    /// flushes (fio's `fsync=N`) are counted in its flow report instead.
    #[serde(default, skip_serializing_if = "crate::types::is_zero")]
    pub flushes: u64,
    /// Their latency: from the flush's arrival until the write cache's dirty pages are
    /// programmed and every earlier write has completed (absent without flushes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_latency: Option<LatencySummary>,
    /// Writes with Force Unit Access (NBD's `FUA` flag; absent without any), counted in
    /// `write_requests` too: each completed when its pages were programmed.
    #[serde(default, skip_serializing_if = "crate::types::is_zero")]
    pub fua_writes: u64,
    /// The flash device's resource report (costs, utilization; flattened into this
    /// section), None on other device models.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub flash: Option<crate::device::flash::FlashReport>,
    /// Victims collected ahead of need by background / idle GC.
    pub proactive_gc_victims: u64,
    /// Write cache.
    pub cache: Option<CacheReport>,
    /// Series over host data volume.
    pub series: Vec<TimingPoint>,
    /// Timing-layer memory, bytes per logical page.
    pub memory_bytes_per_lpn: f64,
    /// The firmware CPU (utilization, CPU time by component, queueing); absent when its
    /// cost model is off (docs/cpu.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<crate::device::cpu::CpuReport>,
}
