//! `flashgc compare`: several placement x victim combinations on the same workload and seed,
//! run in parallel, one table.

use crate::cmd_run::{run_one, RunArgs};
use crate::{build_config, cmd_checkpoint, output, Fail};
use flashgc_core::{placement, RunResult};
use std::sync::atomic::{AtomicU64, Ordering};

/// Splits a comma-separated list of scheme specs (a spec's own parameters also use commas:
/// a part containing '=' without ':' continues the previous spec); an empty entry is an
/// error naming `field`.
pub(crate) fn split_list(field: &str, s: &str) -> Result<Vec<String>, Fail> {
    Ok(flashgc_core::scheme::split_specs(field, s)?)
}

/// One `compare` result slot, filled by whichever worker thread runs that combination.
type RunSlot = std::sync::Mutex<Option<Result<(RunResult, f64), Fail>>>;

/// What `compare` runs when neither flags nor a config file say otherwise.
const COMPARE_DEFAULT_WORKLOAD: &str = "zipf:1.0";

pub(crate) fn cmd_compare(a: RunArgs) -> Result<(), Fail> {
    cmd_checkpoint::refuse(&a, "`compare`")?;
    crate::cmd_timing::warn_synthetic_volume(&a.common, a.timing.wants_fio());
    cmd_checkpoint::check_output(&a)?;
    let mut base = build_config(&a.common)?;
    crate::cmd_mqsim::apply(&a.mqsim, &mut base)?;
    output::not_an_input("-o", a.output.as_deref(), &base, a.common.config.as_deref())?;
    if let Some(o) = &a.output {
        let x = a.mqsim.mqsim_workload.as_deref();
        output::not_the_input("-o", o, "MQSim workload file", x)?;
    }
    // Pairs to run: --scheme as given; else, with neither placement nor victim chosen
    // (flags or config file), every registered scheme with its paper's victim policy;
    // else the cross product of the placement and victim lists.
    let paper_pairs = a.scheme.is_none()
        && a.common.config.is_none()
        && a.common.placement.is_none()
        && a.common.victim.is_none();
    crate::cmd_trace::apply_loop_until(&a.trace, &mut base);
    if a.common.config.is_none() {
        if a.common.workload.is_none() {
            base.run.workload = COMPARE_DEFAULT_WORKLOAD.into();
        }
        if a.common.placement.is_none() {
            // A victim list alone: every registered scheme crossed with it.
            base.run.placement = placement::names().join(",");
        }
    }
    base.layout()?;
    output::warn_advisories(&base);
    let pairs: Vec<(String, String)> = if let Some(s) = &a.scheme {
        crate::args::flag_sets(&["run.placement", "run.victim"]);
        flashgc_core::scheme::parse_pairs("--scheme", s)?
            .into_iter()
            .map(|p| (p.placement, p.victim))
            .collect()
    } else if paper_pairs {
        flashgc_core::scheme::paper_pairs()
            .into_iter()
            .map(|p| (p.placement, p.victim))
            .collect()
    } else {
        let placements = split_list("run.placement", &base.run.placement)?;
        let victims = split_list("run.victim", &base.run.victim)?;
        placements
            .iter()
            .flat_map(|p| victims.iter().map(move |v| (p.clone(), v.clone())))
            .collect()
    };
    let actions = split_list("run.gc_action", &base.run.gc_action)?;
    // An empty list (`--placement ''`, `--victim ,`) would run nothing and print "no
    // configurations" with exit code 0.
    for (field, list) in [
        ("run.placement", &base.run.placement),
        ("run.victim", &base.run.victim),
        ("run.gc_action", &base.run.gc_action),
    ] {
        if split_list(field, list)?.is_empty() && !(a.scheme.is_some() && field != "run.gc_action")
        {
            return Err(flashgc_core::Error::config(
                field,
                format!("`{list}`: give at least one name (see `flashgc policies`)"),
            )
            .into());
        }
    }
    if a.jobs == Some(0) {
        return Err(Fail(
            2,
            "--jobs 0: give at least 1 parallel simulation (default: the number of cores)".into(),
        ));
    }
    // Every combination runs, so the pairs x GC actions bound the parallel simulations.
    let jobs = a
        .jobs
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
        .clamp(1, (pairs.len() * actions.len()).max(1));
    let mut combos = Vec::new();
    for (p, v) in &pairs {
        for g in &actions {
            let mut c = base.clone();
            c.run.placement = p.clone();
            c.run.victim = v.clone();
            c.run.gc_action = g.clone();
            c.run.max_memory_gib = base.run.max_memory_gib.map(|m| m / jobs as f64);
            // Validate every combination before running any; say which one fails.
            flashgc_core::Simulation::new(&c).map_err(|e| {
                let Fail(code, msg) = Fail::from(e);
                let what = if actions.len() > 1 {
                    format!("{p} + {v} + {g}")
                } else {
                    format!("{p} + {v}")
                };
                Fail(code, format!("{what}: {msg}"))
            })?;
            combos.push(c);
        }
    }
    // Ctrl-C or SIGTERM stops every run in progress at its next safe point with its partial
    // result, and the runs not started yet do not start (crate::interrupt).
    let stop = &crate::interrupt::handlers()?.stop;
    let bar = output::runs_bar(combos.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<RunSlot> = combos.iter().map(|_| std::sync::Mutex::new(None)).collect();
    // The bar counts thousandths of runs: each run in progress moves it as it writes, so
    // a compare of long runs shows progress (and an ETA) before its first run ends.
    let shown: Vec<AtomicU64> = combos.iter().map(|_| AtomicU64::new(0)).collect();
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let advance = |i: usize, permille: u64| {
        if let Some(b) = &bar {
            let old = shown[i].fetch_max(permille, Ordering::Relaxed);
            if permille > old {
                b.inc(permille - old);
            }
        }
    };
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= combos.len() {
                    break;
                }
                let t0 = std::time::Instant::now();
                let progress = |p: &flashgc_core::sim::Progress| {
                    if let Some(t) = p.target_pages.filter(|&t| t > 0) {
                        advance(i, p.user_pages.min(t) * 1000 / t);
                    }
                };
                let r = run_one(&combos[i], &a, progress, stop)
                    .map(|r| (r, t0.elapsed().as_secs_f64()));
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                advance(i, 1000);
                let n = finished.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(b) = &bar {
                    b.set_message(format!("{n}/{}", combos.len()));
                }
            });
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let interrupted = crate::interrupt::exit_code().is_some();
    let mut done = Vec::new();
    for (i, m) in results.into_iter().enumerate() {
        match m.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(Ok(r)) => done.push(r),
            Some(Err(Fail(code, msg))) => {
                return Err(Fail(
                    code,
                    format!(
                        "{} + {}{}: {msg}",
                        combos[i].run.placement,
                        combos[i].run.victim,
                        if combos[i].run.gc_action == "move" {
                            String::new()
                        } else {
                            format!(" + {}", combos[i].run.gc_action)
                        }
                    ),
                ))
            }
            // Not started: a signal came first.
            None if interrupted => {}
            None => return Err(Fail(1, "a simulation thread died".into())),
        }
    }
    // Classifier cost per user write (wall clock; outside the deterministic results, so
    // only in the human table).
    let costs: Vec<Option<f64>> = if a.json || a.csv {
        vec![None; done.len()]
    } else {
        let l = base.layout()?;
        done.iter()
            .map(|(r, _)| {
                let init = placement::PlacementInit {
                    logical_pages: l.logical_pages,
                    segments: l.segments,
                    pages_per_segment: l.pages_per_segment,
                    seed: r.seed,
                };
                placement::measure_classifier_ns(&r.placement, init, 200_000).ok()
            })
            .collect()
    };
    let rs: Vec<RunResult> = done.iter().map(|d| d.0.clone()).collect();
    let json = serde_json::to_string_pretty(&rs).map_err(|e| Fail(1, e.to_string()))?;
    if a.json {
        println!("{json}");
    } else if a.csv {
        // No wall-clock column: identical runs give identical bytes.
        print!("{}", output::csv(&rs));
    } else {
        let header = if paper_pairs {
            Some("each placement with the victim policy its paper evaluates it with (`flashgc policies` lists them; --scheme P/V or --placement/--victim to choose)")
        } else if a.scheme.is_some() {
            Some("placement/victim pairs as given by --scheme")
        } else {
            None
        };
        print!(
            "{}",
            crate::compare_table::compare_table(&done, &costs, header)
        );
    }
    // Written after printing: a result that cannot be saved is still shown.
    output::save_printed(a.output.as_deref(), json.as_bytes())?;
    let partial = rs.iter().filter(|r| r.ended_by == "interrupted").count();
    crate::interrupt::finish_with(&format!(
        "{partial} of the {} runs {} partial (`ended_by` = \"interrupted\": stopped in \
         progress), {} finished and {} did not start",
        combos.len(),
        if partial == 1 { "is" } else { "are" },
        rs.len() - partial,
        combos.len() - rs.len()
    ))
}
