//! `flashgc._flashgc`: the thin Python binding of the flashgc core.
//!
//! The boundary is deliberately narrow and text-based: configurations cross it as TOML
//! text (exact floats, the same parser as the CLI) plus a JSON object of overrides;
//! results come back as the JSON of [`flashgc_core::RunResult`]. Request arrays cross as
//! little-endian byte buffers, so the crate needs no numpy bindings. Everything else
//! (DataFrames, sweeps, reports) lives in the Python package `flashgc`.

use flashgc_core::driver::Engine;
use flashgc_core::sim::{RunControl, RunEnd};
use flashgc_core::timing::{TimingOptions, TimingParams};
use flashgc_core::workload::{Op, Request, Workload, WorkloadSpec};
use flashgc_core::{Config, Error, Simulation};
use flashgc_trace::TraceOptions;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

mod config;
mod progress;
mod trace_options;

use config::{build_config, config_from_toml};
use trace_options::trace_options;

create_exception!(
    _flashgc,
    FlashgcError,
    PyValueError,
    "An error of the flashgc core (bad configuration, unknown scheme, workload or input error), \
     with the core's message naming the field, file or line."
);

fn py_err(e: Error) -> PyErr {
    FlashgcError::new_err(e.to_string())
}

fn input_err(msg: impl Into<String>) -> PyErr {
    FlashgcError::new_err(msg.into())
}

/// Resolves a configuration: returns `(toml, json)` of the effective values.
///
/// Layers: `preset` (default: the one the TOML names, else `default`), `toml_text`
/// (a file's text; `origin` names it in errors), `overrides_json` (a JSON object of
/// sections, e.g. `{"run": {"seed": 2}}`; a null resets a field to its default).
/// Unknown fields are errors. With `complete`, `toml_text` is a whole configuration (as
/// returned here) and is not merged over a preset.
#[pyfunction]
#[pyo3(signature = (preset=None, toml_text=None, origin="config", overrides_json=None, complete=false))]
fn resolve_config(
    preset: Option<&str>,
    toml_text: Option<&str>,
    origin: &str,
    overrides_json: Option<&str>,
    complete: bool,
) -> PyResult<(String, String)> {
    let cfg = build_config(preset, toml_text, origin, overrides_json, complete)?;
    let json = serde_json::to_string(&cfg).map_err(|e| input_err(e.to_string()))?;
    Ok((cfg.to_toml().map_err(py_err)?, json))
}

/// Validates a configuration (TOML text) and returns its derived layout as JSON.
#[pyfunction]
fn layout(config_toml: &str) -> PyResult<String> {
    let cfg = config_from_toml(config_toml)?;
    let l = cfg.layout().map_err(py_err)?;
    serde_json::to_string(&l).map_err(|e| input_err(e.to_string()))
}

/// Puts one IO scenario of an MQSim workload file (`path`; `scenario` from 1, default the
/// file's only one) into a complete configuration as its `[[flow]]` sections and notes, as
/// the CLI's `--mqsim-workload FILE --scenario N` does (`flashgc_core::workload::mqsim`);
/// returns `(toml, json)` as `resolve_config` does. A configuration with flows of its own
/// is refused.
#[pyfunction]
#[pyo3(signature = (config_toml, path, scenario=None))]
fn mqsim_config(
    config_toml: &str,
    path: &str,
    scenario: Option<usize>,
) -> PyResult<(String, String)> {
    let mut cfg = config_from_toml(config_toml)?;
    if !cfg.flow.is_empty() {
        return Err(input_err(format!(
            "mqsim_workload `{path}`: the configuration already has [[flow]] sections; \
             give the flows one way"
        )));
    }
    flashgc_core::workload::mqsim::MqsimWorkload::apply(&mut cfg, path, scenario)
        .map_err(py_err)?;
    let json = serde_json::to_string(&cfg).map_err(|e| input_err(e.to_string()))?;
    Ok((cfg.to_toml().map_err(py_err)?, json))
}

/// Validates a configuration as a run would before it starts (layout, workload spec,
/// placement and victim specs, the segment reserve of their streams), without running it;
/// returns the layout as JSON.
#[pyfunction]
fn validate(config_toml: &str) -> PyResult<String> {
    let cfg = config_from_toml(config_toml)?;
    let l = flashgc_core::validate::validate(&cfg).map_err(py_err)?;
    serde_json::to_string(&l).map_err(|e| input_err(e.to_string()))
}

/// A workload replaying requests given as arrays (from numpy on the Python side).
#[derive(Clone)]
struct ArrayWorkload {
    reqs: Vec<Request>,
    pos: usize,
    name: String,
}

impl Workload for ArrayWorkload {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> flashgc_core::Result<()> {
        let end = (self.pos + max).min(self.reqs.len());
        buf.extend_from_slice(&self.reqs[self.pos..end]);
        self.pos = end;
        Ok(())
    }
    fn describe(&self) -> String {
        self.name.clone()
    }
}

fn u64s(name: &str, b: &[u8]) -> PyResult<Vec<u64>> {
    if b.len() % 8 != 0 {
        return Err(input_err(format!(
            "requests: `{name}` buffer of {} bytes is not a whole number of u64",
            b.len()
        )));
    }
    Ok(b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

/// Decodes request arrays: `ops` one byte each (0 read, 1 write, 2 trim), `lpns`, `pages`,
/// `times_ns` and `contents` little-endian u64 (the last two may be empty = all zero).
fn decode_requests(
    name: String,
    ops: &[u8],
    lpns: &[u8],
    pages: &[u8],
    times_ns: &[u8],
    contents: &[u8],
) -> PyResult<ArrayWorkload> {
    let n = ops.len();
    let lpns = u64s("lpn", lpns)?;
    let pages = u64s("pages", pages)?;
    let times = u64s("time_ns", times_ns)?;
    let contents = u64s("content", contents)?;
    for (col, len) in [("lpn", lpns.len()), ("pages", pages.len())] {
        if len != n {
            return Err(input_err(format!(
                "requests: column `{col}` has {len} rows, `op` has {n}"
            )));
        }
    }
    for (col, len) in [("time_ns", times.len()), ("content", contents.len())] {
        if len != 0 && len != n {
            return Err(input_err(format!(
                "requests: column `{col}` has {len} rows, `op` has {n}"
            )));
        }
    }
    let mut reqs = Vec::with_capacity(n);
    for i in 0..n {
        let op = match ops[i] {
            0 => Op::Read,
            1 => Op::Write,
            2 => Op::Trim,
            o => {
                return Err(input_err(format!(
                "requests: row {i} (request {}): op {o} is not allowed; allowed 0 (read), 1 (write), 2 (trim)",
                i + 1
            )))
            }
        };
        let p = pages[i];
        if p == 0 || p > u32::MAX as u64 {
            return Err(input_err(format!(
                "requests: row {i} (request {}): pages {p} must be in 1..={}",
                i + 1,
                u32::MAX
            )));
        }
        reqs.push(Request {
            time_ns: times.get(i).copied().unwrap_or(0),
            op,
            lpn: lpns[i],
            pages: p as u32,
            content: contents.get(i).copied().unwrap_or(0),
            fua: false,
        });
    }
    Ok(ArrayWorkload { reqs, pos: 0, name })
}

/// Runs one simulation and returns the `RunResult` as JSON.
///
/// `config_toml` is a full configuration (from `resolve_config`). The workload is, in
/// order of precedence: the request arrays (when `ops` is given; `requests_name` describes
/// them), else `workload` (a spec such as `zipf:1.0` or `trace:PATH`), else the
/// configuration's `run.workload`. `trace_options_json` holds trace replay options (see
/// `trace_options`). `timing_json` turns the timing layer on (see `timing_params`).
/// `fio_job` (a path to a fio job file) is the workload instead, planned as `flashgc fio
/// --job` plans it (`JobPlan`), always timed: `timing_json` then holds the device's timing
/// options, not the host's (`fio_timing`); `fio_job_text`, when given, is the file's text
/// (a sweep's workers need not see the file; `fio_job` then only names it in errors).
/// `memory_jobs` is how many simulations run at once, this one included (see
/// `apply_memory_limit`); `memory_cap_gib`, when given, caps the limit that leaves this
/// run (a Dask worker's own memory limit per thread: above it the worker's nanny would kill
/// the process). The GIL is released while the simulation runs.
#[pyfunction]
#[pyo3(signature = (config_toml, workload=None, ops=None, lpns=None, pages=None, times_ns=None, contents=None, requests_name="requests", trace_options_json=None, timing_json=None, fio_job=None, fio_job_text=None, memory_jobs=1, memory_cap_gib=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    config_toml: &str,
    workload: Option<&str>,
    ops: Option<&[u8]>,
    lpns: Option<&[u8]>,
    pages: Option<&[u8]>,
    times_ns: Option<&[u8]>,
    contents: Option<&[u8]>,
    requests_name: &str,
    trace_options_json: Option<&str>,
    timing_json: Option<&str>,
    fio_job: Option<&str>,
    fio_job_text: Option<&str>,
    memory_jobs: usize,
    memory_cap_gib: Option<f64>,
    progress: Option<bool>,
) -> PyResult<String> {
    let mut cfg = config_from_toml(config_toml)?;
    apply_memory_limit(&mut cfg, memory_jobs, memory_cap_gib)?;
    if let Some(path) = fio_job {
        if workload.is_some() || ops.is_some() || trace_options_json.is_some() {
            return Err(input_err(
                "fio_job: the job file is the workload; give it or workload (and trace_options), not both",
            ));
        }
        if !cfg.flow.is_empty() {
            return Err(input_err(format!(
                "fio_job `{path}`: the configuration already has [[flow]] sections; \
                 the job file's jobs would replace them (remove them or drop fio_job)"
            )));
        }
        let timing = fio_timing(&cfg, timing_json).map_err(py_err)?;
        let (path, text) = (path.to_string(), fio_job_text.map(str::to_string));
        return py
            .detach(move || {
                run_fio_job(&cfg, timing, &path, text.as_deref()).map_err(|e| e.to_string())
            })
            .map_err(FlashgcError::new_err);
    }
    let topts = trace_options(trace_options_json).map_err(input_err)?;
    // The CLI's default host: a trace (and `[[flow]]` sections, whose flows set their own
    // arrivals) replays open loop at its timestamps; synthetic workloads and request
    // tables run a closed loop of 32.
    // What the workload is, decided once: request arrays, else `[[flow]]` sections, else the
    // spec (a trace or a synthetic generator). The flows replace `run.workload`
    // (docs/flows.md), so a workload given beside them is refused, as the CLI refuses it,
    // rather than one of the two silently dropped.
    if !cfg.flow.is_empty() && (workload.is_some() || ops.is_some()) {
        let given = workload.map_or("a request table".to_string(), |w| format!("`{w}`"));
        return Err(input_err(format!(
            "workload {given}: the configuration's {} [[flow]] section(s) are the workload; \
             give one or the other",
            cfg.flow.len()
        )));
    }
    let uses_flows = ops.is_none() && workload.is_none() && !cfg.flow.is_empty();
    let spec = WorkloadSpec::parse("run.workload", workload.unwrap_or(&cfg.run.workload));
    let from_spec = ops.is_none() && !uses_flows;
    let trace = from_spec && matches!(spec, Ok(WorkloadSpec::Trace(_)));
    let synthetic = from_spec && matches!(spec, Ok(WorkloadSpec::Synthetic(_)));
    let replay = trace || uses_flows;
    if !trace && trace_options::given(trace_options_json) {
        let what = if ops.is_some() {
            "a request table".to_string()
        } else if uses_flows {
            "the configuration's [[flow]] sections".to_string()
        } else {
            format!("the synthetic `{}`", workload.unwrap_or(&cfg.run.workload))
        };
        return Err(input_err(format!(
            "trace_options: options of a trace's replay, but the workload is {what}; \
             drop them or give a trace (\"trace:PATH\")"
        )));
    }
    let timing = timing_params(&cfg, timing_json, replay).map_err(py_err)?;
    let arrays = match ops {
        Some(ops) => Some(decode_requests(
            requests_name.to_string(),
            ops,
            lpns.unwrap_or_default(),
            pages.unwrap_or_default(),
            times_ns.unwrap_or_default(),
            contents.unwrap_or_default(),
        )?),
        None => None,
    };
    if let Some(w) = workload {
        cfg.run.workload = w.to_string();
    }
    let interrupted = AtomicBool::new(false);
    let result = py.detach(|| -> Result<String, String> {
        // One engine, built once: its estimate is the one the limit is checked against and
        // the one the result reports (`memory_estimate`, as the CLI's memory line prints it).
        let mut engine = Engine::new(&cfg, timing).map_err(|e| e.to_string())?;
        let sim = engine.simulation();
        // The workload, built twice for a future-knowledge placement (the oracle's
        // pre-pass reads an identical second instance, as the CLI's does).
        let make = || -> Result<Box<dyn Workload>, String> {
            if let Some(a) = &arrays {
                return Ok(Box::new(a.clone()));
            }
            // `[[flow]]` sections are the workload unless one is given (docs/flows.md).
            if uses_flows {
                if let Some(f) = flashgc_core::workload::flows::from_config(&cfg, sim.layout())
                    .map_err(|e| e.to_string())?
                {
                    return Ok(Box::new(f));
                }
            }
            open_workload(sim, &cfg, &topts)
        };
        let mut wl = make()?;
        // A trace replay's own memory, listed in the result as the CLI lists it
        // (docs/traces.md, "Memory").
        let replay =
            flashgc_core::metrics::MemoryItem::list(wl.memory(), sim.layout().logical_pages);
        // Its limit counts them too (the engine checks its own tables alone).
        let estimate = engine.memory_estimate();
        let bound = engine.memory_estimate_upper_bound();
        flashgc_core::driver::check_memory_limit(
            &cfg,
            estimate,
            &replay,
            "use a smaller device or trace (trace={'remap': 'compact'} counts one remap entry per \
             logical page of the device), or raise max_memory_gib (by default the memory this machine has available)",
        )
        .map_err(|e| e.to_string())?;
        // Simulation::new took the future of a synthetic `run.workload` already; a request
        // table or flows replace it (a trace has none yet), as `driver::run` does it.
        if sim.ftl().placement().needs_future() && !synthetic {
            let mut future = make()?;
            engine
                .simulation_mut()
                .prepare_future(future.as_mut())
                .map_err(|e| e.to_string())?;
        }
        let stop = AtomicBool::new(false);
        // Ctrl-C reaches Python only between bytecodes: poll for it at each progress report
        // (every few thousand requests) and stop the run at its next safe point.
        let mut bar = progress::Bar::new(progress);
        let mut progress = |p: &flashgc_core::sim::Progress| {
            bar.update(p);
            if Python::attach(|py| py.check_signals()).is_err() {
                stop.store(true, Ordering::Relaxed);
                interrupted.store(true, Ordering::Relaxed);
            }
        };
        let end = engine
            .run_with(
                wl.as_mut(),
                &mut progress,
                &mut RunControl {
                    stop: Some(&stop),
                    ..RunControl::default()
                },
            )
            .map_err(|e| e.to_string())?;
        let mut r = match end {
            RunEnd::Finished(r) => r,
            RunEnd::Stopped { partial, .. } => partial,
        };
        r.memory.extend(replay.iter().cloned());
        let need = estimate + replay.iter().map(|m| m.bytes).sum::<u64>();
        with_estimate(&r, need, bound).map_err(|e| e.to_string())
    });
    if interrupted.load(Ordering::Relaxed) {
        return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(
            "the run was interrupted (its partial result is discarded)",
        ));
    }
    result.map_err(FlashgcError::new_err)
}

/// Sets `run.max_memory_gib` as the CLI does: the configuration's limit, else the memory
/// the machine has available, shared among `jobs` simulations running at once (the CLI's
/// `compare --jobs`). Without a limit a device too large for the machine aborts the Python
/// process on a failed allocation; with it the run is refused before allocating, with an
/// error naming `run.max_memory_gib`. `cap` (GiB, finite and positive) bounds the share.
fn apply_memory_limit(cfg: &mut Config, jobs: usize, cap: Option<f64>) -> PyResult<()> {
    if jobs == 0 {
        return Err(input_err("jobs: must be at least 1"));
    }
    if let Some(c) = cap.filter(|c| !(c.is_finite() && *c > 0.0)) {
        return Err(input_err(format!(
            "memory_cap_gib: {c} is not a positive number of GiB"
        )));
    }
    let limit = cfg
        .run
        .max_memory_gib
        .or_else(flashgc_core::driver::available_memory_gib)
        .map(|m| m / jobs as f64);
    cfg.run.max_memory_gib = match (limit, cap) {
        (Some(l), Some(c)) => Some(l.min(c)),
        (l, c) => l.or(c),
    };
    Ok(())
}

/// The timing parameters of a fio job file's run: `timing_json`'s device options on the
/// defaults, as `flashgc fio --job` takes its flags. The job file sets the host (queue
/// depths, volumes), so the host's options are refused here, as the CLI refuses `--iodepth`
/// and `--data-gb` beside `--job`.
fn fio_timing(cfg: &Config, json: Option<&str>) -> flashgc_core::Result<TimingParams> {
    let o = TimingOptions::from_json(json.unwrap_or("{}"))?;
    let host = [
        ("queue_depth", o.queue_depth.is_some()),
        ("data_volume_bytes", o.data_volume_bytes.is_some()),
        ("rate_iops", o.rate_iops.is_some()),
        ("open_loop_time_scale", o.open_loop_time_scale.is_some()),
    ];
    if let Some((k, _)) = host.iter().find(|h| h.1) {
        return Err(Error::config(
            format!("timing.{k}"),
            "the fio job file describes the host (iodepth, size, rate); drop it or edit the file",
        ));
    }
    let mut p = TimingParams::default();
    o.apply(cfg, &mut p, &|k| format!("timing.{k}"))?;
    Ok(p)
}

/// Runs the fio job file at `path` (or its `text`) on `cfg` with timing `p`, as `flashgc
/// fio --job` does.
fn run_fio_job(
    cfg: &Config,
    mut p: TimingParams,
    path: &str,
    text: Option<&str>,
) -> flashgc_core::Result<String> {
    use flashgc_core::workload::fio::jobfile::{self, JobFile};
    let l = cfg.layout()?;
    let jf = match text {
        Some(t) => jobfile::parse(path, t)?,
        None => JobFile::read(path)?,
    };
    let plan = jf.plan(l.logical_pages, l.lpn_size, cfg.run.seed)?;
    let mut cfg = cfg.clone();
    cfg.notes.extend(jf.notes());
    cfg.notes.extend_from_slice(plan.notes());
    let cfg = &cfg;
    let mut planned = plan.start(l.logical_pages, l.lpn_size, cfg.run.seed)?;
    if let Some(queue_depth) = planned.queue_depth {
        p.host = flashgc_core::timing::Host::ClosedLoop { queue_depth };
    }
    p.data_volume_bytes = Some(planned.data_bytes);
    let mut engine = Engine::new(cfg, Some(p))?;
    let (estimate, bound) = (
        engine.memory_estimate(),
        engine.memory_estimate_upper_bound(),
    );
    let end = engine.run_with(
        planned.workload.as_mut(),
        &mut |_| {},
        &mut RunControl::default(),
    )?;
    let r = match end {
        RunEnd::Finished(r) => r,
        RunEnd::Stopped { partial, .. } => partial,
    };
    with_estimate(&r, estimate, bound).map_err(|e| Error::Input(format!("result as JSON: {e}")))
}

/// A result as JSON with the memory estimate its run was admitted with: `memory_estimate`
/// = `{"bytes": N, "upper_bound": null | "why"}` (the CLI prints the same in its memory
/// line; it is not part of the core's result record, whose JSON the CLI writes).
fn with_estimate(
    r: &flashgc_core::RunResult,
    bytes: u64,
    upper_bound: Option<&str>,
) -> serde_json::Result<String> {
    let mut v = serde_json::to_value(r)?;
    if let serde_json::Value::Object(m) = &mut v {
        m.insert(
            "memory_estimate".into(),
            serde_json::json!({ "bytes": bytes, "upper_bound": upper_bound }),
        );
    }
    serde_json::to_string(&v)
}

/// Timing parameters from a JSON object of options: the keys of
/// `flashgc_core::timing::TimingOptions` (`gc_mode`, `alloc`, `striping`, `multiplane`,
/// `copyback`, `cache_pages`, `cache_policy`, `gcar_window`, `queue_depth`,
/// `open_loop_time_scale`, `rate_iops`, `checkpoint_bytes`, `data_volume_bytes`,
/// `volume_scale`, `bg_free`, `idle_us`, `gc_pace`, `max_requests`, `device`, `noc_path`
/// and the NoC parameters), parsed by the same code as the CLI's flags. `None` = a
/// WAF-only run. `replay`: the workload is a trace (or flows), whose host defaults to an
/// open-loop replay at its timestamps, as the CLI's `--host` does.
fn timing_params(
    cfg: &Config,
    json: Option<&str>,
    replay: bool,
) -> flashgc_core::Result<Option<TimingParams>> {
    let Some(json) = json else { return Ok(None) };
    let o = TimingOptions::from_json(json)?;
    let mut p = TimingParams::default();
    let host_given =
        o.queue_depth.is_some() || o.open_loop_time_scale.is_some() || o.rate_iops.is_some();
    if replay && !host_given {
        p.host = flashgc_core::timing::Host::OpenLoop { time_scale: 1.0 };
    }
    o.apply(cfg, &mut p, &|k| format!("timing.{k}"))?;
    Ok(Some(p))
}

/// The configuration's workload: a synthetic generator from the core, or a trace file
/// (`trace:PATH`) opened by the trace crate with `opts`.
fn open_workload(
    sim: &Simulation,
    cfg: &Config,
    opts: &TraceOptions,
) -> Result<Box<dyn Workload>, String> {
    match WorkloadSpec::parse("run.workload", &cfg.run.workload).map_err(|e| e.to_string())? {
        WorkloadSpec::Trace(path) => {
            let l = sim.layout();
            // The content mode needs a recording's pages one at a time, with their fingerprints.
            let opts = TraceOptions {
                per_page: cfg.run.content_mode(),
                ..opts.clone()
            };
            flashgc_trace::open_workload(Path::new(&path), &opts, l.lpn_size, l.logical_pages)
                .map_err(|e| e.to_string())
        }
        WorkloadSpec::Synthetic(_) => Ok(Box::new(
            sim.synthetic_workload().map_err(|e| e.to_string())?,
        )),
    }
}

/// Names of the embedded presets.
#[pyfunction]
fn presets() -> Vec<&'static str> {
    Config::preset_names()
}

/// TOML text of an embedded preset.
#[pyfunction]
fn preset_text(name: &str) -> PyResult<&'static str> {
    Config::preset_text(name).map_err(py_err)
}

/// Registered placement schemes as `(name, description)`.
#[pyfunction]
fn placements() -> Vec<(&'static str, &'static str)> {
    flashgc_core::placement::REGISTRY
        .iter()
        .map(|r| (r.0, r.1))
        .collect()
}

/// Placement/victim pairs parsed from `P/V,P/V,...` by the core's parser (the CLI's
/// `compare --scheme`); unknown names or a malformed pair raise an error listing the known
/// names.
#[pyfunction]
fn parse_schemes(text: &str) -> PyResult<Vec<(String, String)>> {
    flashgc_core::scheme::parse_pairs("schemes", text)
        .map(|v| v.into_iter().map(|p| (p.placement, p.victim)).collect())
        .map_err(py_err)
}

/// Every registered placement with the victim policy its paper evaluates it with.
#[pyfunction]
fn paper_schemes() -> Vec<(String, String)> {
    flashgc_core::scheme::paper_pairs()
        .into_iter()
        .map(|p| (p.placement, p.victim))
        .collect()
}

/// Registered victim policies as `(name, description)`.
#[pyfunction]
fn victims() -> Vec<(&'static str, &'static str)> {
    flashgc_core::victim::REGISTRY
        .iter()
        .map(|r| (r.0, r.1))
        .collect()
}

/// Desnoyers' analytic WAF for uniform writes: `victim` is `fifo`, `greedy` (needs
/// `pages_per_segment`) or `random`; with `hot=(r, f)` the hot/cold models (fifo, greedy).
#[pyfunction]
#[pyo3(signature = (victim, alpha, pages_per_segment=None, hot=None))]
fn model_waf(
    victim: &str,
    alpha: f64,
    pages_per_segment: Option<f64>,
    hot: Option<(f64, f64)>,
) -> PyResult<f64> {
    use flashgc_core::model::*;
    if !(alpha.is_finite() && alpha > 1.0) {
        return Err(input_err(format!(
            "alpha {alpha} must be > 1 (alpha = physical / logical = 1 + op)"
        )));
    }
    if let Some(n) = pages_per_segment.filter(|n| !(n.is_finite() && *n >= 1.0)) {
        return Err(input_err(format!(
            "pages_per_segment {n} must be a finite number >= 1"
        )));
    }
    let np = || pages_per_segment.ok_or_else(|| input_err("greedy needs pages_per_segment >= 1"));
    if let Some((r, f)) = hot {
        // The models divide by r, f, 1 - r and 1 - f: both shares strictly inside (0, 1).
        for (name, v) in [("r (write share)", r), ("f (space share)", f)] {
            if !(v > 0.0 && v < 1.0) {
                return Err(input_err(format!(
                    "hot=(r, f): {name} {v} must be in (0, 1), e.g. hot=(0.8, 0.2)"
                )));
            }
        }
    }
    match (victim, hot) {
        ("fifo", None) => Ok(waf_fifo(alpha)),
        ("greedy", None) => Ok(waf_greedy(alpha, np()?)),
        ("random", None) => Ok(waf_random(alpha)),
        ("fifo", Some((r, f))) => Ok(waf_hotcold_fifo(alpha, r, f)),
        ("greedy", Some((r, f))) => Ok(waf_hotcold_greedy(alpha, r, f, np()?)),
        (v, h) => Err(input_err(format!(
            "no model for victim `{v}`{}; allowed fifo, greedy, random (uniform) and fifo, greedy (hot/cold)",
            if h.is_some() { " with hot/cold" } else { "" }
        ))),
    }
}

/// The extension module.
#[pymodule]
fn _flashgc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FlashgcError", m.py().get_type::<FlashgcError>())?;
    m.add_function(wrap_pyfunction!(resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(layout, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(mqsim_config, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(preset_text, m)?)?;
    m.add_function(wrap_pyfunction!(placements, m)?)?;
    m.add_function(wrap_pyfunction!(victims, m)?)?;
    m.add_function(wrap_pyfunction!(parse_schemes, m)?)?;
    m.add_function(wrap_pyfunction!(paper_schemes, m)?)?;
    m.add_function(wrap_pyfunction!(model_waf, m)?)?;
    Ok(())
}
