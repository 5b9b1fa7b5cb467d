//! Metamorphic tests over random configurations: small devices drawn across the run space
//! (every registered placement and victim policy, the GC actions, triggers and watermarks,
//! the mapping cache, workloads, and in timed runs the GC modes, schedulers, suspend, the
//! write cache, channel arbitration, allocation, the firmware CPU and the NoC model), each
//! checked against relations that hold whatever the configuration (docs/core.md,
//! "Randomized checks across the run space"): determinism, checkpoint/resume identity, the
//! accounting identities, one engine for timed and WAF-only runs, and bounds every schedule
//! must respect. A fixed proptest seed keeps CI deterministic; `META_SEED=N` draws other
//! cases and `META_CASES=N` sets how many per test (to explore, not for CI).

mod draw;
mod relations;

use draw::{case, Case};
use flashgc_core::checkpoint::CheckpointReader;
use flashgc_core::driver::Engine;
use flashgc_core::sim::{RunControl, RunEnd};
use flashgc_core::workload::Workload;
use flashgc_core::{Config, RunResult, Simulation};
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, RngSeed};
use relations::*;

/// The configuration's synthetic workload, a fresh instance.
pub(crate) fn synthetic(c: &Config) -> Box<dyn Workload> {
    Box::new(Simulation::new(c).unwrap().synthetic_workload().unwrap())
}

/// A result as the CLI writes it (`--json`).
pub(crate) fn json(r: &RunResult) -> String {
    serde_json::to_string_pretty(r).unwrap()
}

/// A fresh engine for `case`, given the oracle's future when its placement needs one.
pub(crate) fn engine(case: &Case) -> Engine {
    let mut e = Engine::new(&case.cfg, case.timing.clone())
        .unwrap_or_else(|e| panic!("the configuration is refused: {e}\n{case:?}"));
    if e.simulation().needs_future() {
        e.simulation_mut()
            .prepare_future(synthetic(&case.cfg).as_mut())
            .unwrap();
    }
    e
}

/// Runs `case` to its end; returns the result and the engine (its final FTL state).
pub(crate) fn try_run(case: &Case) -> flashgc_core::Result<(RunResult, Engine)> {
    let mut e = engine(case);
    match e.run_with(
        synthetic(&case.cfg).as_mut(),
        &mut |_| {},
        &mut RunControl::default(),
    )? {
        RunEnd::Finished(r) => Ok((r, e)),
        RunEnd::Stopped { .. } => unreachable!("no stop was asked for"),
    }
}

/// [`try_run`], failing the test on an error.
pub(crate) fn run(case: &Case) -> (RunResult, Engine) {
    try_run(case).unwrap_or_else(|e| panic!("run failed: {e}\n{case:?}"))
}

/// The first run of a case: every configuration runs to its end, except two documented
/// ways GC can stop making room on these small devices, set aside as proptest rejects
/// (bounded by proptest's limit): GC's translation write-backs outrunning what it frees
/// (docs/mapping-cache.md, "Where GC cannot keep up"), and DAGC's victim rule, which counts
/// cached dead pages as valid, taking victims that free nothing (docs/splitgc.md).
pub(crate) fn first_run(case: &Case) -> Result<(RunResult, Engine), TestCaseError> {
    match try_run(case) {
        Ok(x) => Ok(x),
        Err(flashgc_core::Error::DeviceFull(m))
            if case.cfg.ftl.mapping_cache.is_some() && m.contains("translation write-backs") =>
        {
            Err(TestCaseError::reject(m))
        }
        Err(flashgc_core::Error::DeviceFull(m))
            if case.cfg.run.victim == "dagc" && case.cfg.run.gc_action == "dagc" =>
        {
            Err(TestCaseError::reject(m))
        }
        Err(e) => Err(TestCaseError::fail(format!("run failed: {e}"))),
    }
}

/// Runs `case` stopped after `at` requests with a checkpoint, then resumed from the file
/// alone by a new engine (as `flashgc resume` does); None when the run ended first.
pub(crate) fn interrupted(case: &Case, at: u64, tag: &str) -> Option<String> {
    let file = std::env::temp_dir().join(format!("flashgc-meta-{}-{tag}.ckpt", std::process::id()));
    let mut e = engine(case);
    let mut stop = Some(at);
    let out = loop {
        let mut ctl = RunControl {
            checkpoint: Some(file.clone()),
            stop_after_requests: stop.take(),
            ..RunControl::default()
        };
        match e
            .run_with(synthetic(&case.cfg).as_mut(), &mut |_| {}, &mut ctl)
            .unwrap()
        {
            RunEnd::Finished(r) => break (ctl.stop_after_requests.is_none()).then(|| json(&r)),
            RunEnd::Stopped { checkpoint, .. } => {
                assert!(checkpoint.is_some(), "stopped without a checkpoint");
                drop(e);
                e = Engine::from_checkpoint(CheckpointReader::open(&file).unwrap()).unwrap();
                if e.simulation().needs_future() {
                    e.simulation_mut()
                        .prepare_future(synthetic(&case.cfg).as_mut())
                        .unwrap();
                }
            }
        }
    };
    let _ = std::fs::remove_file(&file);
    out
}

/// The first line where two results differ, for the failure message.
pub(crate) fn first_diff(a: &str, b: &str) -> String {
    match a
        .lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
    {
        Some((i, (x, y))) => format!("line {i}:\n  want {x}\n  got  {y}"),
        None => format!("lengths {} / {}", a.len(), b.len()),
    }
}

/// `n` cases (or `META_CASES`) from a fixed seed (or `META_SEED`), without a regressions
/// file.
fn cases(n: u32) -> PtConfig {
    fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
        std::env::var(name).ok().and_then(|s| s.parse().ok())
    }
    PtConfig {
        cases: env("META_CASES").unwrap_or(n),
        rng_seed: RngSeed::Fixed(env("META_SEED").unwrap_or(0x4d45_5441)),
        failure_persistence: None,
        ..PtConfig::default()
    }
}

proptest! {
    #![proptest_config(cases(600))]

    /// WAF-only runs: determinism, resume identity, accounting, the final state.
    #[test]
    fn untimed_runs(case in case(false)) {
        let (r, e) = first_run(&case)?;
        let want = json(&r);
        prop_assert_eq!(&want, &json(&run(&case).0), "the same configuration and seed twice");
        device_identities(&r, &case)?;
        if case.cfg.run.gc_action == "move" {
            live_pages(&r, &e, &case)?;
        }
        let c = &case.cfg.run;
        let requests = (r.total.user_writes as f64 / c.request_pages as f64 / (1.0 - c.read_ratio)) as u64;
        let at = ((requests as f64 * case.stop) as u64).max(1);
        let got = interrupted(&case, at, "untimed");
        prop_assert!(got.is_some(), "the run ended before the stop after {} requests", at);
        let got = got.unwrap();
        prop_assert!(got == want, "resumed after {} requests: {}", at, first_diff(&want, &got));
    }
}

proptest! {
    #![proptest_config(cases(400))]

    /// Timed runs: determinism, resume identity, accounting, the final state, the timing
    /// bounds, and the same FTL decisions as the WAF-only run where docs/timing.md says so.
    #[test]
    fn timed_runs(case in case(true)) {
        let (r, e) = first_run(&case)?;
        let want = json(&r);
        prop_assert_eq!(&want, &json(&run(&case).0), "the same configuration and seed twice");
        device_identities(&r, &case)?;
        let p = case.timing.as_ref().unwrap();
        if case.cfg.run.gc_action == "move" && p.cache_pages == 0 {
            live_pages(&r, &e, &case)?;
        }
        timing_relations(&r, &case)?;
        one_engine(&r, &case)?;
        features_off_by_name(&case)?;
        let t = r.timing.as_ref().unwrap();
        let at = ((t.requests as f64 * case.stop) as u64).max(1);
        let got = interrupted(&case, at, "timed");
        prop_assert!(got.is_some(), "the run ended before the stop after {} requests", at);
        let got = got.unwrap();
        prop_assert!(got == want, "resumed after {} requests: {}", at, first_diff(&want, &got));
    }
}
