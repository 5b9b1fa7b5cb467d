//! Runs one configuration end to end: precondition, workload, measurement.

use crate::checkpoint::{CheckpointReader, CheckpointWriter, Meta, TraceIdentity};
use crate::config::{Config, Layout, RunConfig};
use crate::error::{Error, Result};
use crate::ftl::{Ftl, FtlCounters, FtlParams, VICTIM_HIST_BINS};
use crate::metrics::{waf, EraseSummary, MemoryItem, WindowPoint};
use crate::placement::{self, Future, FutureEvent, PlacementInit};
use crate::victim::{self, VictimInit};
use crate::workload::{Op, Request, Synthetic, Workload, WorkloadSpec};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Progress report handed to a callback during a run.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// User pages written so far in the measured phase.
    pub user_pages: u64,
    /// Target user pages (None for a trace that runs to its end).
    pub target_pages: Option<u64>,
    /// Cumulative WAF so far.
    pub waf: f64,
}

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
    /// Flash page programs (user + GC).
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
    /// WAF = flash programs / user writes.
    pub waf: f64,
    /// Effective alpha: mean pages holding data (valid or not) at victim selection / logical pages.
    pub effective_alpha: Option<f64>,
    /// Victims the garbage-proportion trigger collected (`ftl.gc_trigger`; absent when
    /// that trigger never fired in the run). `gc_victims` minus this is what the
    /// free-segment watermarks took.
    // No `skip_serializing_if`: phase counts are also in checkpoints (bincode, which is
    // not self-describing), so the field is always written (`null` without the trigger).
    pub gc_garbage_victims: Option<u64>,
}

impl PhaseCounts {
    pub(crate) fn between(a: &FtlCounters, b: &FtlCounters, logical: u64) -> PhaseCounts {
        let uw = b.user_writes - a.user_writes;
        let gw = b.gc_writes - a.gc_writes;
        let samples = b.alpha_samples - a.alpha_samples;
        PhaseCounts {
            user_writes: uw,
            gc_writes: gw,
            flash_programs: uw + gw,
            erases: b.erases - a.erases,
            gc_victims: b.gc_victims - a.gc_victims,
            gc_episodes: b.gc_episodes - a.gc_episodes,
            reads: b.reads - a.reads,
            unmapped_reads: b.unmapped_reads - a.unmapped_reads,
            trims: b.trims - a.trims,
            waf: waf(uw, gw),
            effective_alpha: (samples > 0).then(|| {
                (b.alpha_samples_sum - a.alpha_samples_sum) as f64 / samples as f64 / logical as f64
            }),
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
    /// flashgc version.
    pub flashgc_version: &'static str,
    /// Units of the counts.
    pub units: Units,
    /// Workload description.
    pub workload: String,
    /// Placement spec.
    pub placement: String,
    /// Victim spec.
    pub victim: String,
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
    /// Metadata memory by structure.
    pub memory: Vec<MemoryItem>,
    /// Total metadata bytes per logical page.
    pub memory_bytes_per_lpn: f64,
    /// Scheme-specific report of the placement (see `Placement::report`).
    pub placement_report: Option<serde_json::Value>,
    /// Why the run ended: `write_volume` or `workload_end`.
    pub ended_by: String,
    /// Remarks (approximations, assumptions) the reader must see.
    pub notes: Vec<String>,
    /// Timing simulation (latency, IOPS, utilization); None for WAF-only runs.
    pub timing: Option<crate::timing::TimingReport>,
}

/// Units used in a result.
#[derive(Debug, Clone, Serialize)]
pub struct Units {
    /// Size of one counted page (mapping unit), bytes.
    pub page_bytes: u32,
    /// Which over-provisioning definition was given.
    pub op_definition: String,
}

/// Bookkeeping of a measured run, shared by the WAF-only and the timed drivers: the user
/// pages written, the WAF time series (one point per window, the last one partial), and
/// the warm-up boundary of the steady state.
#[derive(Clone, Serialize, serde::Deserialize)]
pub(crate) struct Recorder {
    start: FtlCounters,
    last_window: FtlCounters,
    /// Counters at the start of the last recorded window (to merge a short remainder).
    prev_window: FtlCounters,
    steady_start: Option<FtlCounters>,
    series: Vec<WindowPoint>,
    written: u64,
    window: u64,
    next_window: u64,
    warmup: Option<u64>,
    target: Option<u64>,
    logical: u64,
    lpn_bytes: u64,
}

impl Recorder {
    /// A recorder for a run of `target` user pages (None: until the workload ends), starting
    /// at counters `start`; warm-up and window width come from the run configuration.
    pub(crate) fn new(
        r: &crate::config::RunConfig,
        layout: &Layout,
        target: Option<u64>,
        start: FtlCounters,
    ) -> Recorder {
        let logical = layout.logical_pages;
        let lpn_bytes = layout.lpn_size as u64;
        let warmup = target.map(|t| match r.warmup {
            Some(w) => ((w * logical as f64).round() as u64).min(t),
            None => t / 2,
        });
        let window = match r.window_gib {
            Some(g) => ((g * (1u64 << 30) as f64) / lpn_bytes as f64)
                .round()
                .max(1.0) as u64,
            None => (logical / 4).max(1),
        };
        Recorder {
            steady_start: (warmup == Some(0)).then(|| start.clone()),
            last_window: start.clone(),
            prev_window: start.clone(),
            start,
            series: Vec::new(),
            written: 0,
            window,
            next_window: window,
            warmup,
            target,
            logical,
            lpn_bytes,
        }
    }

    /// User pages written so far in the measured phase.
    #[inline]
    pub(crate) fn written(&self) -> u64 {
        self.written
    }

    /// Records one user page write (`c`: the FTL's counters after it). Returns true when the
    /// target volume has been reached.
    #[inline]
    pub(crate) fn user_page(&mut self, c: &FtlCounters) -> bool {
        self.written += 1;
        if self.written == self.next_window {
            self.next_window += self.window;
            self.push_point(c);
        }
        if Some(self.written) == self.warmup {
            self.steady_start = Some(c.clone());
        }
        Some(self.written) == self.target
    }

    fn push_point(&mut self, c: &FtlCounters) {
        let (s, l) = (&self.start, &self.last_window);
        self.series.push(WindowPoint {
            user_bytes: self.written * self.lpn_bytes,
            capacity_written: self.written as f64 / self.logical as f64,
            waf_window: waf(c.user_writes - l.user_writes, c.gc_writes - l.gc_writes),
            waf_cumulative: waf(c.user_writes - s.user_writes, c.gc_writes - s.gc_writes),
            erases: c.erases - s.erases,
        });
        self.prev_window = std::mem::replace(&mut self.last_window, c.clone());
    }

    /// Progress so far (`c`: the FTL's counters now).
    pub(crate) fn progress(&self, c: &FtlCounters) -> Progress {
        Progress {
            user_pages: self.written,
            target_pages: self.target,
            waf: waf(
                c.user_writes - self.start.user_writes,
                c.gc_writes - self.start.gc_writes,
            ),
        }
    }

    /// Closes the last, partial window and returns (whole run, steady state, warm-up user
    /// pages, series). A remainder shorter than half a window joins the last window rather
    /// than standing as a point of its own (a few pages' WAF is noise).
    pub(crate) fn finish(
        mut self,
        end: &FtlCounters,
    ) -> (PhaseCounts, PhaseCounts, u64, Vec<WindowPoint>) {
        let recorded = self
            .series
            .last()
            .map_or(0, |p| p.user_bytes / self.lpn_bytes);
        if self.written > recorded {
            if self.written - recorded < self.window / 2 && !self.series.is_empty() {
                self.series.pop();
                self.last_window = self.prev_window.clone();
            }
            self.push_point(end);
        }
        let total = PhaseCounts::between(&self.start, end, self.logical);
        let steady_from = self
            .steady_start
            .take()
            .unwrap_or_else(|| self.start.clone());
        let steady = PhaseCounts::between(&steady_from, end, self.logical);
        (
            total,
            steady,
            steady_from.user_writes - self.start.user_writes,
            self.series,
        )
    }
}

/// Requests served between two safe points (checkpoints, stop requests).
pub const SAFE_POINT_REQUESTS: usize = 4096;

/// Checkpoints and stop requests of a run (see [`Simulation::run_with`]).
#[derive(Default)]
pub struct RunControl<'a> {
    /// Checkpoint file (written atomically; each checkpoint replaces the previous one).
    pub checkpoint: Option<PathBuf>,
    /// The caller's own data, stored in the checkpoint (the CLI stores its command line).
    pub caller: serde_json::Value,
    /// Write a checkpoint each time the measured phase passes a multiple of this many
    /// user pages.
    pub every_user_pages: Option<u64>,
    /// Polled at each safe point; when set, the run writes a checkpoint (if `checkpoint`
    /// is set) and stops with a partial result (a Ctrl-C handler sets it).
    pub stop: Option<&'a std::sync::atomic::AtomicBool>,
    /// Stop (as for `stop`) once exactly this many requests have been served.
    pub stop_after_requests: Option<u64>,
    /// Called after each checkpoint is written.
    pub on_checkpoint: Option<&'a mut dyn FnMut(&CheckpointInfo)>,
}

/// A checkpoint that was written.
#[derive(Debug, Clone)]
pub struct CheckpointInfo {
    /// Its file.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// Wall-clock seconds it took to write.
    pub seconds: f64,
    /// User pages of the measured phase written before it.
    pub user_pages: u64,
    /// Requests served before it.
    pub requests: u64,
}

/// How [`Simulation::run_with`] ended.
#[derive(Debug)]
pub enum RunEnd {
    /// The run finished.
    Finished(RunResult),
    /// The run was stopped at a safe point: a partial result (`ended_by` = `interrupted`,
    /// with a note) and the checkpoint written, if any.
    Stopped {
        /// Results so far.
        partial: RunResult,
        /// The checkpoint to resume from.
        checkpoint: Option<CheckpointInfo>,
    },
}

/// The run-level state in a checkpoint (`SIM ` section).
#[derive(Clone, serde::Deserialize)]
struct SimState {
    pre: PhaseCounts,
    rec: Recorder,
    requests: u64,
    target: Option<u64>,
    workload: Option<Vec<u8>>,
}

/// Borrowed counterpart of [`SimState`] (same field order, same encoding).
#[derive(Serialize)]
struct SimStateRef<'a> {
    pre: &'a PhaseCounts,
    rec: &'a Recorder,
    requests: u64,
    target: Option<u64>,
    workload: Option<Vec<u8>>,
}

/// Moves `wl` past the first `n` requests (a resumed trace workload).
fn skip_requests(wl: &mut dyn Workload, n: u64) -> Result<()> {
    let mut buf: Vec<Request> = Vec::with_capacity(SAFE_POINT_REQUESTS);
    let mut left = n;
    while left > 0 {
        buf.clear();
        wl.fill(&mut buf, left.min(SAFE_POINT_REQUESTS as u64) as usize)?;
        if buf.is_empty() || buf.len() as u64 > left {
            return Err(Error::Input(format!(
                "the workload does not replay the {n} requests served before the checkpoint \
                 (it ended or changed after {} of them)",
                n - left
            )));
        }
        left -= buf.len() as u64;
    }
    Ok(())
}

/// A configured simulation.
pub struct Simulation {
    cfg: Config,
    layout: Layout,
    ftl: Ftl,
    preconditioned: bool,
    pre: PhaseCounts,
    future_ready: bool,
    /// Where a run restored from a checkpoint continues (taken by the next `run_with`).
    resumed: Option<SimState>,
    /// Where a stopped run continues when `run_with` is called again with the same
    /// workload object: (recorder, requests served, target).
    paused: Option<(Recorder, u64, Option<u64>)>,
}

impl Simulation {
    /// Validates `cfg` and builds the FTL with its placement and victim policies.
    pub fn new(cfg: &Config) -> Result<Simulation> {
        let mut layout = cfg.layout()?;
        let mut pl = placement::build(
            "run.placement",
            &cfg.run.placement,
            PlacementInit {
                logical_pages: layout.logical_pages,
                segments: layout.segments,
                pages_per_segment: layout.pages_per_segment,
                seed: cfg.run.seed,
            },
        )?;
        // An oracle on a synthetic workload: the pre-pass runs on a second generator from
        // the same seed (traces need `prepare_future`).
        let mut future_ready = false;
        if pl.needs_future() {
            if let Ok(WorkloadSpec::Synthetic(kind)) =
                WorkloadSpec::parse("run.workload", &cfg.run.workload)
            {
                let r = &cfg.run;
                let mut wl = Synthetic::new(
                    kind,
                    layout.logical_pages,
                    r.request_pages,
                    r.read_ratio,
                    r.seed,
                );
                pl.set_future(future_of(layout.logical_pages, r, &mut wl)?);
                future_ready = true;
            }
        }
        let streams = pl.streams();
        let vic = victim::build(
            "run.victim",
            &cfg.run.victim,
            VictimInit {
                segments: layout.segments,
                pages_per_segment: layout.pages_per_segment,
                groups: streams,
                seed: cfg.run.seed,
            },
        )?;
        // Each stream may need a fresh segment within one victim's relocation; the reserve
        // must cover all of them. Raise the watermarks when the config's are too low.
        let min_low = pl.gc_streams_per_victim().clamp(1, streams) as u32 + 1;
        if layout.gc_low < min_low {
            layout.gc_high = layout.gc_high.max(min_low) + (layout.gc_high - layout.gc_low);
            layout.gc_low = min_low;
        }
        let used = layout
            .logical_pages
            .div_ceil(layout.pages_per_segment as u64);
        if (layout.segments as u64) < used + layout.gc_high as u64 + streams as u64 + 1 {
            return Err(Error::config(
                "ftl.op",
                format!(
                    "{} segments cannot hold {used} segments of data, {} free segments in reserve and {streams} open streams; \
                     raise op or use fewer streams",
                    layout.segments, layout.gc_high
                ),
            ));
        }
        let estimate = memory_estimate(&layout, pl.memory_bytes() + vic.memory_bytes());
        if let Some(limit) = cfg.run.max_memory_gib {
            let limit_bytes = limit * (1u64 << 30) as f64;
            if estimate as f64 > limit_bytes {
                return Err(Error::config(
                    "run.max_memory_gib",
                    format!(
                        "this run needs about {:.2} GiB ({:.2} B per logical page) but the limit is {limit:.2} GiB;                          use a smaller device or raise the limit",
                        estimate as f64 / (1u64 << 30) as f64,
                        estimate as f64 / layout.logical_pages as f64
                    ),
                ));
            }
        }
        let ftl = Ftl::new(
            FtlParams {
                logical_pages: layout.logical_pages,
                segments: layout.segments,
                pages_per_segment: layout.pages_per_segment,
                gc_low: layout.gc_low,
                gc_high: layout.gc_high,
                gc_garbage: layout.gc_garbage,
            },
            pl,
            vic,
        );
        let pre = PhaseCounts::between(&FtlCounters::default(), &FtlCounters::default(), 1);
        Ok(Simulation {
            cfg: cfg.clone(),
            layout,
            ftl,
            preconditioned: false,
            pre,
            future_ready,
            resumed: None,
            paused: None,
        })
    }

    /// The derived layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// The FTL (read-only).
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }
    /// The FTL (mutable, for tests and drivers that issue page operations directly).
    pub fn ftl_mut(&mut self) -> &mut Ftl {
        &mut self.ftl
    }

    /// Sequentially writes `run.fill` of the logical space (not counted in results).
    pub fn precondition(&mut self) -> Result<()> {
        if self.preconditioned {
            return Ok(());
        }
        if self.needs_future() {
            return Err(Error::config(
                "run.placement",
                format!(
                    "`{}` needs future knowledge: call Simulation::prepare_future with a second, identical \
                     instance of the workload before running (run_synthetic does this itself)",
                    self.cfg.run.placement
                ),
            ));
        }
        let n = (self.layout.logical_pages as f64 * self.cfg.run.fill).round() as u64;
        let before = self.ftl.counters.clone();
        for lpn in 0..n {
            self.ftl.write(lpn as u32)?;
        }
        self.pre = PhaseCounts::between(&before, &self.ftl.counters, self.layout.logical_pages);
        self.preconditioned = true;
        Ok(())
    }

    /// The synthetic workload of the configuration (errors for `trace:` specs, which the
    /// CLI and Python layers open).
    pub fn synthetic_workload(&self) -> Result<Synthetic> {
        match WorkloadSpec::parse("run.workload", &self.cfg.run.workload)? {
            WorkloadSpec::Synthetic(kind) => Ok(Synthetic::new(
                kind,
                self.layout.logical_pages,
                self.cfg.run.request_pages,
                self.cfg.run.read_ratio,
                self.cfg.run.seed,
            )),
            WorkloadSpec::Trace(p) => Err(Error::config(
                "run.workload",
                format!("`trace:{p}` must be opened by a trace reader (flashgc CLI or Python), not the core"),
            )),
        }
    }

    /// Runs the configuration's own synthetic workload.
    pub fn run_synthetic(cfg: &Config, progress: &mut dyn FnMut(&Progress)) -> Result<RunResult> {
        let mut sim = Simulation::new(cfg)?;
        if sim.needs_future() {
            // Same seed, same generator: an identical second instance for the oracle's pre-pass.
            let mut future_wl = sim.synthetic_workload()?;
            sim.prepare_future(&mut future_wl)?;
        }
        let mut wl = sim.synthetic_workload()?;
        sim.run(&mut wl, progress)
    }

    /// True if the placement needs future knowledge that has not been given yet (see
    /// [`Simulation::prepare_future`]).
    pub fn needs_future(&self) -> bool {
        self.ftl.placement().needs_future() && !self.future_ready
    }

    /// Gives a future-knowledge placement (the `oracle`) its future: a pre-pass over `wl`,
    /// which must be a second instance of the workload `run` will serve, identical request
    /// for request (for traces: open the file twice). The pre-pass covers the precondition
    /// fill and stops where `run` will stop. Must be called before `precondition`/`run`;
    /// it rebuilds the FTL, so FTL options set earlier through `ftl_mut` are reset.
    pub fn prepare_future(&mut self, wl: &mut dyn Workload) -> Result<()> {
        if self.resumed.is_some() && !self.future_ready {
            // Restored from a checkpoint: the placement's state is loaded; only the future
            // (never saved) is recomputed, from the beginning of the workload.
            let future = future_of(self.layout.logical_pages, &self.cfg.run, wl)?;
            self.ftl.placement_mut().set_future(future);
            self.future_ready = true;
            return Ok(());
        }
        if self.preconditioned || self.ftl.counters.user_writes > 0 {
            return Err(Error::config(
                "run.placement",
                "prepare_future must be called before the first write",
            ));
        }
        let future = future_of(self.layout.logical_pages, &self.cfg.run, wl)?;
        let l = &self.layout;
        let mut pl = placement::build(
            "run.placement",
            &self.cfg.run.placement,
            PlacementInit {
                logical_pages: l.logical_pages,
                segments: l.segments,
                pages_per_segment: l.pages_per_segment,
                seed: self.cfg.run.seed,
            },
        )?;
        pl.set_future(future);
        let vic = victim::build(
            "run.victim",
            &self.cfg.run.victim,
            VictimInit {
                segments: l.segments,
                pages_per_segment: l.pages_per_segment,
                groups: pl.streams(),
                seed: self.cfg.run.seed,
            },
        )?;
        self.ftl = Ftl::new(self.ftl.params(), pl, vic);
        self.future_ready = true;
        Ok(())
    }

    /// Preconditions (if not done yet), then serves `wl` until the write volume is reached
    /// (infinite workloads) or the workload ends.
    pub fn run(
        &mut self,
        wl: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<RunResult> {
        match self.run_with(wl, progress, &mut RunControl::default())? {
            RunEnd::Finished(r) => Ok(r),
            // Without a stop flag or a request limit the run never stops early.
            RunEnd::Stopped { partial, .. } => Ok(partial),
        }
    }

    /// Like [`Simulation::run`], with periodic checkpoints and a stop request (`ctl`). On a
    /// simulation restored by [`Simulation::from_checkpoint`] it continues where the
    /// checkpoint was taken, after moving `wl` (a fresh instance of the same workload) to
    /// the saved position. After a stop, calling it again with the same workload object
    /// continues the run in memory. Safe points, where checkpoints are taken and stop
    /// requests are honoured, fall between batches of up to [`SAFE_POINT_REQUESTS`] requests.
    pub fn run_with(
        &mut self,
        wl: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
        ctl: &mut RunControl<'_>,
    ) -> Result<RunEnd> {
        let logical = self.layout.logical_pages;
        let (mut rec, mut request_index, target) = match self.resumed.take() {
            _ if self.paused.is_some() => self.paused.take().expect("checked"),
            Some(st) => {
                match &st.workload {
                    Some(pos) => wl.load_position(pos)?,
                    None => skip_requests(wl, st.requests)?,
                }
                (st.rec, st.requests, st.target)
            }
            None => {
                self.precondition()?;
                let target = wl
                    .is_infinite()
                    .then(|| (self.cfg.run.write_volume * logical as f64).round() as u64);
                let rec = Recorder::new(
                    &self.cfg.run,
                    &self.layout,
                    target,
                    self.ftl.counters.clone(),
                );
                (rec, 0, target)
            }
        };
        // Periodic checkpoints at multiples of the interval, so a resumed run keeps the
        // original schedule.
        let every = ctl.every_user_pages.filter(|&e| e > 0);
        let next_after = |w: u64| every.map(|e| (w / e + 1) * e);
        let mut next_ckpt = next_after(rec.written());
        let mut buf: Vec<Request> = Vec::with_capacity(SAFE_POINT_REQUESTS);
        let mut next_progress: u64 = rec.written() + (1 << 20);
        let mut ended_by = "workload_end";
        'outer: loop {
            // Safe point: every request handed out so far has been served completely.
            let stop = ctl
                .stop
                .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
                || ctl.stop_after_requests.is_some_and(|n| request_index >= n);
            if stop {
                let info = match &ctl.checkpoint {
                    Some(path) => Some(self.write_checkpoint(
                        path,
                        &ctl.caller,
                        &rec,
                        request_index,
                        target,
                        wl,
                    )?),
                    None => None,
                };
                if let (Some(i), Some(cb)) = (&info, ctl.on_checkpoint.as_mut()) {
                    cb(i);
                }
                let end = self.ftl.counters.clone();
                self.paused = Some((rec.clone(), request_index, target));
                let (total, steady_state, warmup_pages, series) = rec.finish(&end);
                let mut partial = self.result(
                    wl.describe(),
                    total,
                    steady_state,
                    warmup_pages,
                    series,
                    "interrupted",
                );
                partial.notes.push(format!(
                    "PARTIAL result: the run was stopped after {} user pages ({request_index} requests){}",
                    end.user_writes - self.pre.user_writes,
                    if info.is_some() { "; `flashgc resume CHECKPOINT` finishes it" } else { "" }
                ));
                return Ok(RunEnd::Stopped {
                    partial,
                    checkpoint: info,
                });
            }
            if let (Some(n), Some(path)) = (next_ckpt, &ctl.checkpoint) {
                if rec.written() >= n {
                    let info =
                        self.write_checkpoint(path, &ctl.caller, &rec, request_index, target, wl)?;
                    if let Some(cb) = ctl.on_checkpoint.as_mut() {
                        cb(&info);
                    }
                    next_ckpt = next_after(rec.written());
                }
            }
            buf.clear();
            let want = match ctl.stop_after_requests {
                Some(n) => (n - request_index).min(SAFE_POINT_REQUESTS as u64) as usize,
                None => SAFE_POINT_REQUESTS,
            };
            wl.fill(&mut buf, want)?;
            if buf.is_empty() {
                break;
            }
            const AHEAD: usize = 16;
            for (j, req) in buf.iter().enumerate() {
                if let Some(n) = buf.get(j + AHEAD) {
                    if n.lpn < logical {
                        self.ftl.prefetch(n.lpn as u32);
                    }
                }
                request_index += 1;
                let end = req.lpn.saturating_add(req.pages as u64);
                if req.pages == 0 || end > logical {
                    return Err(Error::Workload(format!(
                        "request {request_index}: pages {}..{} exceed the logical capacity of {logical} pages \
                         (use a larger device, or remap the trace)",
                        req.lpn, end
                    )));
                }
                match req.op {
                    Op::Write => {
                        for lpn in req.lpn..end {
                            self.ftl.write(lpn as u32)?;
                            if rec.user_page(&self.ftl.counters) {
                                ended_by = "write_volume";
                                break 'outer;
                            }
                        }
                    }
                    Op::Read => {
                        for lpn in req.lpn..end {
                            self.ftl.read(lpn as u32);
                        }
                    }
                    Op::Trim => {
                        for lpn in req.lpn..end {
                            self.ftl.trim(lpn as u32);
                        }
                    }
                }
            }
            if rec.written() >= next_progress {
                next_progress = rec.written() + (1 << 20);
                progress(&rec.progress(&self.ftl.counters));
            }
        }
        if target == Some(0) {
            ended_by = "write_volume";
        }
        if let Some(e) = self.ftl.placement().consistency_error() {
            return Err(Error::Workload(e));
        }
        let end = self.ftl.counters.clone();
        let (total, steady_state, warmup_pages, series) = rec.finish(&end);
        Ok(RunEnd::Finished(self.result(
            wl.describe(),
            total,
            steady_state,
            warmup_pages,
            series,
            ended_by,
        )))
    }

    /// Writes the whole state at a safe point to `path` (atomically).
    fn write_checkpoint(
        &self,
        path: &Path,
        caller: &serde_json::Value,
        rec: &Recorder,
        requests: u64,
        target: Option<u64>,
        wl: &dyn Workload,
    ) -> Result<CheckpointInfo> {
        let t0 = std::time::Instant::now();
        let trace = match WorkloadSpec::parse("run.workload", &self.cfg.run.workload) {
            Ok(WorkloadSpec::Trace(p)) => Some(TraceIdentity::of(&p)?),
            _ => None,
        };
        let meta = Meta {
            config: self.cfg.clone(),
            caller: caller.clone(),
            trace,
            user_pages: rec.written(),
            requests,
        };
        let mut w = CheckpointWriter::create(path)?;
        let meta = serde_json::to_vec(&meta)
            .map_err(|e| Error::Input(format!("cannot encode checkpoint metadata: {e}")))?;
        w.section(b"META", &meta)?;
        let st = SimStateRef {
            pre: &self.pre,
            rec,
            requests,
            target,
            workload: wl.save_position(),
        };
        w.section(b"SIM ", &crate::checkpoint::encode(&st)?)?;
        self.ftl.save_checkpoint(&mut w)?;
        let bytes = w.finish()?;
        Ok(CheckpointInfo {
            path: path.to_path_buf(),
            bytes,
            seconds: t0.elapsed().as_secs_f64(),
            user_pages: rec.written(),
            requests,
        })
    }

    /// Rebuilds a simulation from a checkpoint (opened with [`CheckpointReader::open`]):
    /// the configuration it holds builds the FTL and policies, then their saved state is
    /// loaded and the CRC checked. Continue with [`Simulation::run_with`] on a fresh
    /// instance of the same workload (an oracle first needs [`Simulation::prepare_future`]
    /// when [`Simulation::needs_future`] says so). A trace workload must be the same file
    /// (size and the CRCs of its first and last MiB are compared).
    pub fn from_checkpoint(mut r: CheckpointReader) -> Result<Simulation> {
        let cfg = r.meta.config.clone();
        let mut sim = Simulation::new(&cfg).map_err(|e| {
            Error::Input(format!(
                "{}: the stored configuration: {e}",
                r.path().display()
            ))
        })?;
        if let Ok(WorkloadSpec::Trace(p)) = WorkloadSpec::parse("run.workload", &cfg.run.workload) {
            let now = TraceIdentity::of(&p)?;
            if r.meta.trace.as_ref() != Some(&now) {
                return Err(Error::Input(format!(
                    "{}: the trace {p} is not the file the checkpoint was taken on (size {} bytes now, {} then; \
                     or its first/last MiB changed)",
                    r.path().display(),
                    now.size,
                    r.meta.trace.as_ref().map_or("unknown".to_string(), |t| t.size.to_string())
                )));
            }
        }
        let b = r.section(b"SIM ")?;
        let st: SimState =
            crate::checkpoint::decode(&b).map_err(|e| r.damaged(format!("run state: {e}")))?;
        sim.ftl.load_checkpoint(&mut r)?;
        r.finish()?;
        sim.pre = st.pre.clone();
        sim.preconditioned = true;
        sim.resumed = Some(st);
        Ok(sim)
    }

    pub(crate) fn result(
        &self,
        workload: String,
        total: PhaseCounts,
        steady_state: PhaseCounts,
        warmup_user_pages: u64,
        series: Vec<WindowPoint>,
        ended_by: &str,
    ) -> RunResult {
        let l = &self.layout;
        let gib = (1u64 << 30) as f64;
        let memory: Vec<MemoryItem> = self
            .ftl
            .memory()
            .into_iter()
            .map(|(name, bytes)| MemoryItem {
                structure: name.to_string(),
                bytes,
                bytes_per_lpn: bytes as f64 / l.logical_pages as f64,
            })
            .collect();
        let mem_total: u64 = memory.iter().map(|m| m.bytes).sum();
        let mut notes = Vec::new();
        if total.user_writes == 0 {
            notes.push("no user writes: WAF is reported as 0".to_string());
        }
        let model = self.model_check(&workload, &steady_state);
        if let Some(m) = &model {
            notes.push(format!(
                "{} evaluated at the effective alpha {:.4} (nominal 1 + op = {:.4}): reserved free segments and open frontiers hold no data",
                m.model,
                m.alpha,
                1.0 + l.op
            ));
        }
        let streams = (0..self.ftl.placement().streams())
            .map(|s| self.ftl.placement().stream_name(s as u16))
            .collect();
        RunResult {
            flashgc_version: env!("CARGO_PKG_VERSION"),
            units: Units {
                page_bytes: l.lpn_size,
                op_definition: if l.op_given_as == "op" {
                    "op = (physical - logical) / logical".into()
                } else {
                    "op_of_physical = (physical - logical) / physical (MQSim)".into()
                },
            },
            workload,
            placement: self.cfg.run.placement.clone(),
            victim: self.cfg.run.victim.clone(),
            seed: self.cfg.run.seed,
            device: DeviceSummary {
                preset: self.cfg.preset.clone(),
                layout: l.clone(),
                logical_gib: l.logical_pages as f64 * l.lpn_size as f64 / gib,
                physical_gib: l.physical_pages as f64 * l.lpn_size as f64 / gib,
            },
            streams,
            precondition: self.pre.clone(),
            total,
            steady_state,
            warmup_user_pages,
            model,
            series,
            victim_valid_ratio: VictimHistogram {
                bin_width: 0.01,
                counts: self.ftl.victim_hist.clone(),
            },
            erase_counts: EraseSummary::of(&self.ftl.segs.erases),
            memory_bytes_per_lpn: mem_total as f64 / l.logical_pages as f64,
            memory,
            placement_report: self.ftl.placement().report(),
            ended_by: ended_by.to_string(),
            notes,
            timing: None,
        }
    }

    /// Desnoyers' model for this run, when its assumptions hold: single stream, uniform or
    /// hot/cold writes without reads mixed in, FIFO/greedy/random victims.
    fn model_check(&self, workload: &str, ss: &PhaseCounts) -> Option<ModelCheck> {
        use crate::model::*;
        let alpha = ss.effective_alpha?;
        if self.ftl.placement().name() != "single"
            || self.cfg.run.request_pages != 1
            || ss.user_writes == 0
        {
            return None;
        }
        let np = self.layout.pages_per_segment as f64;
        let victim = self.ftl.victim_policy().name();
        let spec = WorkloadSpec::parse("run.workload", workload).ok()?;
        let (name, waf) = match (spec, victim) {
            (WorkloadSpec::Synthetic(crate::workload::SyntheticKind::Uniform), "fifo") => {
                ("Desnoyers Eq. 4 (FIFO)".to_string(), waf_fifo(alpha))
            }
            (WorkloadSpec::Synthetic(crate::workload::SyntheticKind::Uniform), "greedy") => (
                format!("Desnoyers Eq. 12 (greedy, Np={np})"),
                waf_greedy(alpha, np),
            ),
            (WorkloadSpec::Synthetic(crate::workload::SyntheticKind::Uniform), "random") => (
                "random victim alpha/(alpha-1)".to_string(),
                waf_random(alpha),
            ),
            (
                WorkloadSpec::Synthetic(crate::workload::SyntheticKind::HotCold {
                    write_share,
                    space_share,
                }),
                "fifo",
            ) => (
                "Desnoyers Eq. 14 (hot/cold FIFO)".to_string(),
                waf_hotcold_fifo(alpha, write_share, space_share),
            ),
            (
                WorkloadSpec::Synthetic(crate::workload::SyntheticKind::HotCold {
                    write_share,
                    space_share,
                }),
                "greedy",
            ) => (
                format!("Desnoyers Eq. 16 (hot/cold greedy, Np={np})"),
                waf_hotcold_greedy(alpha, write_share, space_share, np),
            ),
            _ => return None,
        };
        Some(ModelCheck {
            model: name,
            alpha,
            waf,
            relative_error: (ss.waf - waf) / waf,
        })
    }
}

/// The write/TRIM sequence `precondition` + `run` will issue, and its backward pass.
fn future_of(logical: u64, run: &RunConfig, wl: &mut dyn Workload) -> Result<Future> {
    let fill = (logical as f64 * run.fill).round() as u64;
    let target = wl
        .is_infinite()
        .then(|| (run.write_volume * logical as f64).round() as u64);
    let mut ev: Vec<FutureEvent> = Vec::with_capacity((fill + target.unwrap_or(0)) as usize);
    ev.extend((0..fill).map(|l| FutureEvent::Write(l as u32)));
    let mut buf: Vec<Request> = Vec::with_capacity(4096);
    let mut written: u64 = 0;
    'outer: loop {
        buf.clear();
        wl.fill(&mut buf, 4096)?;
        if buf.is_empty() || target == Some(0) {
            break;
        }
        for req in &buf {
            let end = req.lpn.saturating_add(req.pages as u64).min(logical);
            for lpn in req.lpn..end {
                match req.op {
                    Op::Write => {
                        ev.push(FutureEvent::Write(lpn as u32));
                        written += 1;
                        if Some(written) == target {
                            break 'outer;
                        }
                    }
                    Op::Trim => ev.push(FutureEvent::Trim(lpn as u32)),
                    Op::Read => {}
                }
            }
        }
    }
    Ok(Future::from_events(&ev, logical))
}

/// Number of victim histogram bins (re-exported for consumers).
pub const VICTIM_BINS: usize = VICTIM_HIST_BINS;

/// Bytes a simulation of `layout` will allocate: the FTL's tables (L2P, P2L, validity bitmap,
/// segment table, free pool) plus `policies` (what the placement and victim policy report
/// after construction), plus a fixed allowance for the process itself. Computed before the
/// large tables are allocated, so a run that cannot fit is refused up front.
pub fn memory_estimate(layout: &Layout, policies: u64) -> u64 {
    let ftl = layout.logical_pages * 4
        + layout.physical_pages * 4
        + layout.physical_pages.div_ceil(64) * 8
        + layout.segments as u64 * (crate::segment::Segments::BYTES_PER_SEGMENT + 4);
    // Binary, stack, allocator slack and the request buffers: a few MiB.
    const PROCESS: u64 = 8 << 20;
    ftl + policies + PROCESS
}
