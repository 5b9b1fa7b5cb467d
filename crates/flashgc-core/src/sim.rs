//! A configured simulation: the FTL with its placement and victim policies built from a
//! configuration, the precondition fill, the oracle's future, checkpoint files, and the
//! result record of a run. The run loop itself is the host driver's
//! ([`crate::driver`]; [`Simulation::run`] is its WAF-only entry point).

mod content;
mod future;
mod model_check;

use future::future_of;

use crate::checkpoint::{CheckpointReader, CheckpointWriter, Meta, TraceIdentity};
use crate::config::{Config, Layout};
use crate::error::{Error, Result};
use crate::ftl::{CmtParams, ContentCounters, Ftl, FtlCounters, FtlParams, VICTIM_HIST_BINS};
pub use crate::metrics::recorder::{Progress, Recorder};
pub use crate::metrics::result::{
    DeviceSummary, ModelCheck, PhaseCounts, RunResult, Units, VictimHistogram, SCHEMA_VERSION,
};
use crate::metrics::{EraseSummary, MemoryItem, WindowPoint};
use crate::placement::{self, PlacementInit};
use crate::validate::cmt_params;
use crate::victim::{self, VictimInit};
use crate::workload::{Synthetic, Workload, WorkloadSpec};
use serde::Serialize;
use std::path::{Path, PathBuf};

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

/// Where a measured run stands between two safe points: its bookkeeping, the requests
/// served, and its target volume.
#[derive(Clone)]
pub(crate) struct RunState {
    /// WAF series and phase bookkeeping.
    pub(crate) rec: Recorder,
    /// Requests handed out so far.
    pub(crate) requests: u64,
    /// User pages to write (None: until the workload ends).
    pub(crate) target: Option<u64>,
}

/// The run-level state in a checkpoint (`SIM ` section).
#[derive(Clone, serde::Deserialize)]
pub(crate) struct SimState {
    #[serde(with = "json_field")]
    pre: PhaseCounts,
    /// `pre.translation`, apart: a phase's translation section is left out of its
    /// encoding when absent (the result JSON), which the checkpoint's fixed layout cannot do.
    pre_translation: Option<crate::metrics::result::TranslationPhase>,
    pub(crate) rec: Recorder,
    pub(crate) requests: u64,
    pub(crate) target: Option<u64>,
    pub(crate) workload: Option<Vec<u8>>,
    content_base: ContentCounters,
}

/// Borrowed counterpart of [`SimState`] (same field order, same encoding).
#[derive(Serialize)]
struct SimStateRef<'a> {
    #[serde(serialize_with = "json_field::serialize")]
    pre: &'a PhaseCounts,
    pre_translation: Option<crate::metrics::result::TranslationPhase>,
    rec: &'a Recorder,
    requests: u64,
    target: Option<u64>,
    workload: Option<Vec<u8>>,
    content_base: &'a ContentCounters,
}

/// A field encoded as JSON text inside the binary checkpoint: [`PhaseCounts`] omits its
/// content-mode fields when zero (its JSON output is unchanged for plain runs), which a
/// non-self-describing encoding cannot skip.
mod json_field {
    use serde::{de::DeserializeOwned, Deserialize, Deserializer, Serialize, Serializer};
    pub fn serialize<S: Serializer, T: Serialize>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        let t = serde_json::to_string(v).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&t)
    }
    pub fn deserialize<'de, D: Deserializer<'de>, T: DeserializeOwned>(
        d: D,
    ) -> Result<T, D::Error> {
        let t = String::deserialize(d)?;
        serde_json::from_str(&t).map_err(serde::de::Error::custom)
    }
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
    pub(crate) resumed: Option<SimState>,
    /// Where a stopped run continues when `run_with` is called again with the same
    /// workload object.
    pub(crate) paused: Option<RunState>,
    /// Content mode: the content counters when the measured phase started.
    pub(crate) content_base: ContentCounters,
    /// Bytes the run is estimated to need (see [`memory_estimate`]).
    estimate: u64,
    /// The part of `estimate` beside the FTL's tables and the policies: the content
    /// mode's and the mapping cache's (kept when the policies' part is recomputed).
    estimate_other: u64,
    /// Why `estimate` is an upper bound, if it is one (see
    /// [`Simulation::memory_estimate_upper_bound`]).
    estimate_bound: Option<&'static str>,
    /// The placement and victim specs as they run, every parameter spelled out.
    resolved: (String, String),
}

impl Simulation {
    /// Validates `cfg` and builds the FTL with its placement and victim policies.
    pub fn new(cfg: &Config) -> Result<Simulation> {
        let mut layout = cfg.layout()?;
        // The placement's tables are checked against the limit before they are allocated
        // (an allocation beyond the process's memory aborts it), next to the FTL's own.
        let (mut pl, placement_spec) = placement::build_within(
            "run.placement",
            &cfg.run.placement,
            PlacementInit {
                logical_pages: layout.logical_pages,
                segments: layout.segments,
                pages_per_segment: layout.pages_per_segment,
                seed: cfg.run.seed,
            },
            cfg.run.max_memory_gib,
            memory_estimate(&layout, 0),
        )?;
        // An oracle on a synthetic workload: the pre-pass runs on a second generator from
        // the same seed (traces need `prepare_future`).
        let mut future_ready = false;
        if pl.needs_future() {
            if let Ok(WorkloadSpec::Synthetic(kind)) =
                WorkloadSpec::parse("run.workload", &cfg.run.workload)
            {
                let r = &cfg.run;
                let mut wl = Synthetic::try_new(
                    kind,
                    layout.logical_pages,
                    r.request_pages,
                    r.read_ratio,
                    r.seed,
                )?;
                pl.set_future(future_of(layout.logical_pages, r, &mut wl)?);
                future_ready = true;
            }
        }
        let cmt = cmt_params(cfg, &layout)?;
        let action = content::action(cfg, &layout, cmt.is_some())?;
        let extra = action.as_ref().map_or(0, |a| a.extra_streams());
        let streams = pl.streams() + extra;
        let (vic, victim_spec) = victim::build_resolved(
            "run.victim",
            &cfg.run.victim,
            VictimInit {
                segments: layout.segments,
                pages_per_segment: layout.pages_per_segment,
                // The mapping cache's translation pages are a group of their own.
                groups: streams + cmt.is_some() as usize,
                seed: cfg.run.seed,
            },
        )?;
        crate::validate::reserve_streams(
            &mut layout,
            pl.as_ref(),
            &cfg.run.placement,
            cmt.is_some() as usize + extra,
        )?;
        let content_estimate = content::memory_estimate(action.as_deref(), &layout, cfg);
        let estimate_other = content_estimate.map_or(0, |e| e.bytes) + cmt.map_or(0, cmt_memory);
        let estimate = memory_estimate(
            &layout,
            pl.memory_bytes() + vic.memory_bytes() + estimate_other,
        );
        if let Some(limit) = cfg.run.max_memory_gib {
            let limit_bytes = limit * (1u64 << 30) as f64;
            if estimate as f64 > limit_bytes {
                return Err(Error::config(
                    "run.max_memory_gib",
                    format!(
                        "this run needs about {:.2} GiB ({:.2} B per logical page{}) but the limit is {limit:.2} GiB; \
                         use a smaller device or raise the limit (`--max-memory GIB` on the command line, `max_memory_gib` in Python; \
                         by default the memory this machine has available)",
                        estimate as f64 / (1u64 << 30) as f64,
                        estimate as f64 / layout.logical_pages as f64,
                        content_estimate
                            .and_then(|e| e.upper_bound)
                            .map_or(String::new(), |why| format!("; an upper bound: {why}"))
                    ),
                ));
            }
        }
        let mut ftl = Ftl::with_mapping_cache(
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
            cmt,
        );
        if let Some(a) = action {
            content::enable(&mut ftl, a, &layout, cfg);
        }
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
            content_base: ContentCounters::default(),
            estimate,
            estimate_other,
            estimate_bound: content_estimate.and_then(|e| e.upper_bound),
            resolved: (placement_spec, victim_spec),
        })
    }

    /// The memory the run is estimated to need, computed before its tables are allocated
    /// (and again once a future-knowledge placement has its future): what `--max-memory`
    /// is checked against and what the CLI prints next to the measured peak.
    pub fn memory_estimate(&self) -> u64 {
        self.estimate
    }

    /// Why [`Simulation::memory_estimate`] is an upper bound rather than a prediction, if
    /// it is one: a structure whose size depends on the run itself (CAGC's unbounded
    /// index) or on a trace's contents is counted at its largest.
    pub fn memory_estimate_upper_bound(&self) -> Option<&'static str> {
        self.estimate_bound
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Sets the memory limit the configuration keeps, which checkpoints store (the limit
    /// was checked when the simulation was built). A front end that defaulted
    /// `run.max_memory_gib` to the memory the machine has available, a figure that changes
    /// from one run to the next, stores the user's limit instead (None when none was
    /// given), so that identical runs write identical checkpoints.
    pub fn set_stored_memory_limit(&mut self, gib: Option<f64>) {
        self.cfg.run.max_memory_gib = gib;
    }
    /// Counts of the precondition fill (zero before it ran).
    pub fn precondition_counts(&self) -> &PhaseCounts {
        &self.pre
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
        self.ftl.after_precondition();
        self.pre = PhaseCounts::between(&before, &self.ftl.counters, self.layout.logical_pages);
        if let Some(c) = self.ftl.content() {
            self.content_base = c.counters().clone();
        }
        self.preconditioned = true;
        Ok(())
    }

    /// The synthetic workload of the configuration (errors for `trace:` specs, which the
    /// CLI and Python layers open).
    pub fn synthetic_workload(&self) -> Result<Synthetic> {
        match WorkloadSpec::parse("run.workload", &self.cfg.run.workload)? {
            WorkloadSpec::Synthetic(kind) => Synthetic::try_new(
                kind,
                self.layout.logical_pages,
                self.cfg.run.request_pages,
                self.cfg.run.read_ratio,
                self.cfg.run.seed,
            ),
            WorkloadSpec::Trace(p) => Err(Error::config(
                "run.workload",
                format!("`trace:{p}` must be opened by a trace reader (flashgc CLI or Python), not the core"),
            )),
        }
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
            self.refresh_estimate();
            return Ok(());
        }
        if self.preconditioned || self.ftl.counters.user_writes > 0 {
            return Err(Error::config(
                "run.placement",
                "prepare_future must be called before the first write",
            ));
        }
        let future = future_of(self.layout.logical_pages, &self.cfg.run, wl)?;
        let cmt = cmt_params(&self.cfg, &self.layout)?;
        let l = &self.layout;
        let (mut pl, _) = placement::build_within(
            "run.placement",
            &self.cfg.run.placement,
            PlacementInit {
                logical_pages: l.logical_pages,
                segments: l.segments,
                pages_per_segment: l.pages_per_segment,
                seed: self.cfg.run.seed,
            },
            self.cfg.run.max_memory_gib,
            memory_estimate(l, 0),
        )?;
        pl.set_future(future);
        let vic = victim::build(
            "run.victim",
            &self.cfg.run.victim,
            VictimInit {
                segments: l.segments,
                pages_per_segment: l.pages_per_segment,
                groups: pl.streams() + cmt.is_some() as usize,
                seed: self.cfg.run.seed,
            },
        )?;
        self.ftl = Ftl::with_mapping_cache(self.ftl.params(), pl, vic, cmt);
        self.future_ready = true;
        self.refresh_estimate();
        Ok(())
    }

    /// Recomputes the memory estimate from the policies' current size (an oracle's
    /// future is known only after the pre-pass).
    fn refresh_estimate(&mut self) {
        self.estimate = memory_estimate(
            &self.layout,
            self.ftl.placement().memory_bytes()
                + self.ftl.victim_policy().memory_bytes()
                + self.estimate_other,
        );
    }

    /// Writes the whole state at a safe point to `path` (atomically).
    pub(crate) fn write_checkpoint(
        &self,
        path: &Path,
        caller: &serde_json::Value,
        run: &RunState,
        wl: &dyn Workload,
        driver: Option<(&crate::timing::TimingParams, Vec<u8>)>,
    ) -> Result<CheckpointInfo> {
        let (rec, requests, target) = (&run.rec, run.requests, run.target);
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
            timing: driver.as_ref().map(|d| d.0.clone()),
        };
        let mut w = CheckpointWriter::create(path)?;
        let meta = serde_json::to_vec(&meta)
            .map_err(|e| Error::Input(format!("cannot encode checkpoint metadata: {e}")))?;
        w.section(b"META", &meta)?;
        let mut pre = self.pre.clone();
        let pre_translation = pre.translation.take();
        let st = SimStateRef {
            pre: &pre,
            pre_translation,
            rec,
            requests,
            target,
            workload: wl.save_position(),
            content_base: &self.content_base,
        };
        w.section(b"SIM ", &crate::checkpoint::encode(&st)?)?;
        self.ftl.save_checkpoint(&mut w)?;
        if let Some((_, state)) = &driver {
            w.section(b"DRV ", state)?;
        }
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
        if r.meta.timing.is_some() {
            return Err(Error::Input(format!(
                "{}: a timed run's checkpoint: resume it with its timing parameters (driver::Engine::from_checkpoint)",
                r.path().display()
            )));
        }
        let sim = Simulation::load_checkpoint_sections(&mut r)?;
        r.finish()?;
        Ok(sim)
    }

    /// Rebuilds the simulation from a checkpoint's `SIM ` and FTL sections, leaving the
    /// reader at the next section.
    pub(crate) fn load_checkpoint_sections(r: &mut CheckpointReader) -> Result<Simulation> {
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
        sim.ftl.load_checkpoint(r)?;
        // The run's own state must fit the restored FTL and the configuration: a wrong
        // target would make the run stop early or never; a wrong counter snapshot would
        // underflow in the results.
        let logical = sim.layout.logical_pages;
        // `[[flow]]` sections replace `run.workload`, and flows that all have a request
        // count are finite.
        let synthetic = cfg.flow.is_empty()
            && matches!(
                WorkloadSpec::parse("run.workload", &cfg.run.workload),
                Ok(WorkloadSpec::Synthetic(_))
            );
        // The run loop's target: the configured volume for an endless workload (synthetic,
        // looped trace, fio job, flows without a request count), none for a trace read to
        // its end, flows that all have a request count, or a timed run bounded by its data
        // volume.
        let volume = (cfg.run.write_volume * logical as f64).round() as u64;
        let by_data = r
            .meta
            .timing
            .as_ref()
            .is_some_and(|p| p.data_volume_bytes.is_some());
        let cached = r.meta.timing.as_ref().is_some_and(|p| p.cache_pages > 0);
        let check = || -> std::result::Result<(), String> {
            let fits = match st.target {
                Some(t) => t == volume,
                None => !synthetic || by_data,
            };
            if !fits {
                return Err(format!(
                    "run target {:?} user pages; the configuration gives {volume}",
                    st.target
                ));
            }
            st.rec
                .check_restored(&cfg.run, &sim.layout, st.target, &sim.ftl.counters, cached)?;
            // The measured phase starts where the precondition fill ended.
            if st.pre.user_writes != st.rec.start.user_writes
                || st.pre.flash_programs
                    != st
                        .pre
                        .user_writes
                        .wrapping_sub(st.pre.absorbed_writes)
                        .wrapping_add(st.pre.gc_writes)
                        .wrapping_add(st.pre.background_writes)
                        .wrapping_add(
                            st.pre_translation
                                .as_ref()
                                .map_or(0, |t| t.translation_writes),
                        )
            {
                return Err("precondition counts".into());
            }
            let content_ok = match sim.ftl.content() {
                Some(c) => st.content_base.not_after(c.counters()),
                None => st.content_base == ContentCounters::default(),
            };
            if !content_ok {
                return Err("content counters at the start of the measured phase".into());
            }
            Ok(())
        };
        check().map_err(|e| {
            Error::Input(format!(
                "{}: damaged checkpoint: inconsistent run state: {e}",
                r.path().display()
            ))
        })?;
        sim.pre = st.pre.clone();
        sim.content_base = st.content_base.clone();
        sim.pre.translation = st.pre_translation.clone();
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
        let mut notes = self.cfg.advisories();
        if total.user_writes == 0 {
            notes.push("no user writes: WAF is reported as 0".to_string());
        } else if total.gc_victims == 0 {
            notes.push(
                "no garbage collection ran in the measured phase: WAF, erases and GC moves show no GC \
                 (write more data, or use a fuller or smaller device)"
                    .to_string(),
            );
        } else if total.gc_writes == 0 {
            notes.push(format!(
                "GC collected {} victims but relocated no page (every victim held only invalid data)",
                total.gc_victims
            ));
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
        let mut streams: Vec<String> = (0..self.ftl.placement().streams())
            .map(|s| self.ftl.placement().stream_name(s as u16))
            .collect();
        let dedup = content::report(&self.ftl, &self.content_base, &mut streams, &mut notes);
        RunResult {
            schema_version: SCHEMA_VERSION,
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
            placement_spec: self.resolved.0.clone(),
            victim_spec: self.resolved.1.clone(),
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
            noc: None,
            dedup,
            flows: None,
        }
    }
}

/// Number of victim histogram bins (re-exported for consumers).
pub const VICTIM_BINS: usize = VICTIM_HIST_BINS;

/// Bytes of the mapping cache's structures: the GTD entries (4 B per translation page, in
/// the L2P) and the LRU bookkeeping (9 B per translation page).
pub fn cmt_memory(p: CmtParams) -> u64 {
    p.pages as u64 * (4 + 9)
}

/// Bytes a simulation of `layout` will allocate: the FTL's tables (L2P, P2L, validity bitmap,
/// segment table, free pool) plus `policies` (what the placement and victim policy report
/// after construction), plus a fixed allowance for the process itself. Computed before the
/// large tables are allocated, so a run that cannot fit is refused up front.
pub fn memory_estimate(layout: &Layout, policies: u64) -> u64 {
    let ftl = layout.logical_pages * 4
        + layout.physical_pages * 4
        + layout.physical_pages.div_ceil(64) * 8
        + layout.segments as u64 * (crate::segment::Segments::BYTES_PER_SEGMENT + 4);
    // Binary, stack, allocator slack and the request buffers: measured 7.2-7.6 MiB peak RSS
    // for the CLI on a 0.02 GiB device (2026-11-28; 4.8 MiB when first measured, before the
    // binary grew), so 7 MiB (BENCHMARKS.md, Memory).
    const PROCESS: u64 = 7 << 20;
    ftl + policies + PROCESS
}
