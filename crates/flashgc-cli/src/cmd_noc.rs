//! `flashgc noc`: a shortcut for timed runs on the network-on-chip SSD controller model
//! with conventional and selective copy-back GC (papers/noc-copyback-gc.txt; the model is
//! `flashgc_core::device::noc`, docs/noc.md). Equivalent to `flashgc run --timing --device
//! noc --noc-path PATH` with the paper's defaults: the `noc-ssdc` preset, GC per die (a
//! victim's tasks are issued when the write that triggers it arrives), open-loop arrivals,
//! and one of the paper's Table 3 workload profiles.

use crate::cmd_timing::TimingFlags;
use crate::{cmd_trace, CommonArgs, Fail};
use flashgc_core::device::noc::NocComparison;
use flashgc_core::workload::profiles::{Arrival, NocProfile, NocSynthetic};
use flashgc_core::workload::{Workload, WorkloadSpec};
use flashgc_core::{Config, RunResult};

/// Requests of a run when `--requests` is not given: enough for the default profile on
/// the default device to relocate pages (GC with copy-backs), a few seconds per path.
const DEFAULT_REQUESTS: u64 = 100_000;

/// Flags of `flashgc noc`.
#[derive(clap::Args, Debug)]
pub struct NocArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    trace: cmd_trace::TraceFlags,
    #[command(flatten)]
    timing: TimingFlags,
    /// GC data path: conventional | selective | both.
    #[arg(long, default_value = "both")]
    path: String,
    /// Synthetic equivalent of one of the paper's traces (Table 3): cassandra, dbench, mysql,
    /// sqlite, mongodb, rocksdb. Default when no --workload is given: cassandra.
    #[arg(long)]
    profile: Option<String>,
    /// Requests per burst (bursty profiles).
    #[arg(long, default_value_t = 256)]
    burst_len: u32,
    /// Rate inside a burst, multiple of --rate (bursty profiles).
    #[arg(long, default_value_t = 8.0, allow_negative_numbers = true)]
    burst_factor: f64,
    /// Print JSON: an array of result records, one per path.
    #[arg(long)]
    json: bool,
    /// Also write the JSON to this file.
    #[arg(long, short = 'o')]
    output: Option<String>,
}

/// Opens the workload: a Table 3 profile, or the common `--workload` (synthetic or trace).
/// Returns it with the rate to impose (synthetic workloads carry no timestamps).
fn workload(a: &NocArgs, cfg: &mut Config) -> Result<(Box<dyn Workload>, Option<f64>), Fail> {
    let l = cfg.layout()?;
    let profile = match (&a.profile, &a.common.workload) {
        (Some(_), Some(_)) => {
            return Err(Fail(
                2,
                "give either --profile or --workload, not both".into(),
            ))
        }
        (Some(p), None) => Some(p.clone()),
        (None, None) => Some("cassandra".to_string()),
        (None, Some(_)) => None,
    };
    if let Some(name) = profile {
        let prof = NocProfile::by_name("--profile", &name)?;
        let arrival = Arrival {
            rate_iops: a.timing.rate.unwrap_or(Arrival::default().rate_iops),
            burst_len: a.burst_len,
            burst_factor: a.burst_factor,
        };
        let wl = NocSynthetic::new(
            prof,
            arrival,
            l.logical_pages,
            l.lpn_size,
            a.timing.requests.unwrap_or(DEFAULT_REQUESTS),
            cfg.run.seed,
        )?;
        // The profile generates its own arrival times at --rate.
        return Ok((Box::new(wl), None));
    }
    let wl = crate::open_workload(cfg, &a.trace)?;
    match WorkloadSpec::parse("run.workload", &cfg.run.workload)? {
        WorkloadSpec::Synthetic(_) => Ok((wl, Some(a.timing.rate.unwrap_or(200.0)))),
        WorkloadSpec::Trace(_) => Ok((wl, a.timing.rate)),
    }
}

fn run_path(
    a: &NocArgs,
    cfg: &Config,
    path: &str,
) -> Result<(RunResult, crate::cmd_run::Estimate), Fail> {
    let mut cfg = cfg.clone();
    let (mut wl, rate) = workload(a, &mut cfg)?;
    let mut flags = a.timing.clone();
    flags.timing = true;
    flags.device = Some("noc".into());
    flags.noc_path = Some(path.into());
    flags.rate = rate;
    if flags.gc_mode.is_none() {
        flags.gc_mode = Some("per-die".into());
    }
    if wl.is_infinite() && flags.requests.is_none() {
        flags.requests = Some(DEFAULT_REQUESTS);
    }
    let p = flags.params(&cfg, false)?;
    crate::cmd_run::run_with_bar(&cfg, Some(p), wl.as_mut())
}

fn human(r: &RunResult, estimate: crate::cmd_run::Estimate, alone: bool) -> String {
    let (Some(t), Some(n)) = (&r.timing, &r.noc) else {
        return String::new();
    };
    let lat = |name: &str, l: &flashgc_core::metrics::latency::LatencySummary| {
        if l.count == 0 {
            // Zeros would read as instant service.
            return format!("    {name:5} us: no requests\n");
        }
        format!(
            "    {name:5} us: mean {:>11.1} | p99 {:>11.1} | p99.9 {:>11.1} | p99.99 {:>11.1} | max {:>11.1}  ({} req)\n",
            l.mean_us, l.p99_us, l.p999_us, l.p9999_us, l.max_us, l.count
        )
    };
    let mut s = format!("  {}\n", n.path.name());
    s += &lat("read", &t.read_latency);
    s += &lat("write", &t.write_latency);
    s += &format!(
        "    copy-backs {} (errors {}), W_gc tasks {}, direct write-backs {}, erases {}, WAF {:.3}, relocation {:.1} us/page, simulated {:.3} s\n",
        n.copybacks,
        n.error_pages,
        n.tasks.w_gc,
        n.tasks.direct,
        r.total.erases,
        r.total.waf,
        if n.copybacks > 0 {
            n.relocation_elapsed_us / n.copybacks as f64
        } else {
            0.0
        },
        n.simulated_s
    );
    s += "    ";
    s += &crate::output::memory_line(r, Some(estimate), alone);
    s
}

fn summary(r: &RunResult) -> [f64; 4] {
    let t = r.timing.as_ref().expect("timed run");
    [
        t.read_latency.mean_us,
        t.write_latency.mean_us,
        t.read_latency.max_us,
        t.write_latency.max_us,
    ]
}

/// Runs `flashgc noc` (errors: 2 for bad input, 1 for run-time failures).
pub fn noc(a: &NocArgs) -> Result<(), Fail> {
    let mut common = a.common.clone();
    if common.preset.is_none() && common.config.is_none() {
        common.preset = Some("noc-ssdc".into());
    }
    let mut cfg = crate::build_config(&common)?;
    cfg.layout()?;
    crate::output::check_output(a.output.as_deref())?;
    crate::output::not_an_input("-o", a.output.as_deref(), &cfg, common.config.as_deref())?;
    crate::prepare_trace(&mut cfg, &a.trace)?;
    // `run --timing --device noc`'s own options would be overridden here, silently.
    for (flag, given) in [
        ("--device", a.timing.device.is_some()),
        ("--noc-path", a.timing.noc_path.is_some()),
    ] {
        if given {
            return Err(Fail(
                2,
                format!(
                    "{flag} does not apply to `flashgc noc`, which always simulates the NoC device; \
                     choose its GC paths with --path conventional|selective|both"
                ),
            ));
        }
    }
    // The profile or --workload is the workload: a fio job's flags were ignored silently
    // (a NaN --rwmixwrite ran as if not given).
    let t = &a.timing;
    if t.wants_fio() || t.size.is_some() {
        return Err(Fail(
            2,
            "fio flags (--rw, --rwmixwrite, --bs, --bssplit, --size, --distribution, --paper) \
             do not apply to `flashgc noc`: its workload is --profile or --workload"
                .into(),
        ));
    }
    let paths: Vec<&str> = match a.path.trim() {
        "both" => vec!["conventional", "selective"],
        s @ ("conventional" | "selective") => vec![s],
        s => {
            return Err(Fail(
                2,
                format!("--path `{s}`: allowed values are conventional, selective, both"),
            ))
        }
    };
    let mut results = Vec::new();
    let mut estimates = Vec::new();
    for p in &paths {
        let (r, e) = run_path(a, &cfg, p)?;
        results.push(r);
        estimates.push(e);
        if crate::interrupt::exit_code().is_some() {
            break;
        }
    }
    let json = serde_json::to_string_pretty(&results).map_err(|e| Fail(1, e.to_string()))?;
    // Printed first, then written: a result that cannot be saved is still shown.
    if a.json {
        println!("{json}");
        crate::output::save_printed(a.output.as_deref(), json.as_bytes())?;
        return crate::interrupt::finish();
    }
    let first = &results[0];
    let n = first.noc.as_ref().expect("noc section");
    print!(
        "NoC SSD controller (papers/noc-copyback-gc.txt), interconnect {:.2} us/page ({:?}), page error prob {:e}\n  workload: {}\n  placement {} + victim {}, {}\n",
        n.traversal_us,
        n.params.interconnect,
        n.params.error_prob,
        first.workload,
        first.placement,
        first.victim,
        first.timing.as_ref().map_or(String::new(), |t| format!("GC {:?}", t.params.gc_mode)),
    );
    for (r, e) in results.iter().zip(&estimates) {
        print!("{}", human(r, *e, results.len() == 1));
    }
    if results.len() > 1 {
        print!("  {}", crate::output::peak_line(results.len()));
    }
    if results.len() == 2 {
        let cmp = NocComparison::new(summary(&results[0]), summary(&results[1]));
        // Signed changes of selective against conventional (an improvement is a
        // reduction: a slower selective path printed as "--3.00 %"); "-" for a direction
        // without requests, whose 0/0 printed as "-0.00 %".
        let count = |read: bool| {
            results.iter().map(move |r| {
                r.timing.as_ref().map_or(0, |t| {
                    if read {
                        t.read_latency.count
                    } else {
                        t.write_latency.count
                    }
                })
            })
        };
        let change = |improvement_pct: f64, read: bool| {
            if count(read).any(|n| n == 0) {
                "-".to_string()
            } else {
                // `+ 0.0` turns the negative zero of `-0.0` into "+0.00".
                format!("{:+.2} %", -improvement_pct + 0.0)
            }
        };
        println!(
            "  selective vs conventional: mean read {}, mean write {}, peak read {}, peak write {}",
            change(cmp.read_mean_improvement_pct, true),
            change(cmp.write_mean_improvement_pct, false),
            change(cmp.read_max_improvement_pct, true),
            change(cmp.write_max_improvement_pct, false)
        );
    }
    for note in &first.notes {
        println!("  note: {note}");
    }
    println!("  approximations: {}", n.notes.join("; "));
    crate::output::save_printed(a.output.as_deref(), json.as_bytes())?;
    crate::interrupt::finish()
}
