//! `flashgc noc`: the network-on-chip SSD controller model and selective copy-back GC
//! (papers/noc-copyback-gc.txt; model in `flashgc_core::noc`, docs/noc.md).

use crate::{cmd_trace, CommonArgs, Fail};
use flashgc_core::noc::workload::{Arrival, NocProfile, NocSynthetic};
use flashgc_core::noc::{
    page_error_prob, GcPath, Interconnect, NocComparison, NocParams, NocReport, NocSim,
};
use flashgc_core::workload::{Workload, WorkloadSpec};
use flashgc_core::Config;

/// Flags of `flashgc noc`.
#[derive(clap::Args, Debug)]
pub struct NocArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    trace: cmd_trace::TraceFlags,
    /// GC data path: conventional | selective | both.
    #[arg(long, default_value = "both")]
    path: String,
    /// Probability that a relocated page has errors (paper: 1e-4).
    #[arg(long, allow_negative_numbers = true)]
    error_prob: Option<f64>,
    /// Derive the page error probability from this bit error rate and the page size.
    #[arg(long, allow_negative_numbers = true)]
    ber: Option<f64>,
    /// Synthetic equivalent of one of the paper's traces (Table 3): cassandra, dbench, mysql,
    /// sqlite, mongodb, rocksdb. Default when no --workload is given: cassandra.
    #[arg(long)]
    profile: Option<String>,
    /// Arrival rate, requests/s: the profile's long-run rate, or a fixed rate for untimed
    /// workloads (uniform, zipf, ...; default 200); traces keep their own times unless given.
    #[arg(long, allow_negative_numbers = true)]
    rate: Option<f64>,
    /// Requests to serve (synthetic workloads; traces: cap).
    #[arg(long)]
    requests: Option<u64>,
    /// Requests per burst (bursty profiles).
    #[arg(long, default_value_t = 256)]
    burst_len: u32,
    /// Rate inside a burst, multiple of --rate (bursty profiles).
    #[arg(long, default_value_t = 8.0, allow_negative_numbers = true)]
    burst_factor: f64,
    /// Which interconnect crossings share a link: port (per channel and direction) | duplex | shared.
    #[arg(long, default_value = "port")]
    interconnect: String,
    /// Delay between neighbouring routing slices, ns (paper: 87).
    #[arg(long, allow_negative_numbers = true)]
    hop_ns: Option<f64>,
    /// Average slices a transfer unit passes (paper: 13.5).
    #[arg(long, allow_negative_numbers = true)]
    avg_slices: Option<f64>,
    /// Bits per transfer unit (paper: 4).
    #[arg(long)]
    unit_bits: Option<u32>,
    /// ECC check time per page on the CPU, us (default 0).
    #[arg(long, allow_negative_numbers = true)]
    ecc_check_us: Option<f64>,
    /// Extra LDPC correction time for an erroneous page, us (default 0).
    #[arg(long, allow_negative_numbers = true)]
    ecc_correct_us: Option<f64>,
    /// Time-series window, ms (doubled as needed to keep at most 65 536 windows).
    #[arg(long, default_value_t = 100.0, allow_negative_numbers = true)]
    window_ms: f64,
    /// Print JSON (a comparison for --path both, else one report).
    #[arg(long)]
    json: bool,
    /// Also write the JSON to this file.
    #[arg(long, short = 'o')]
    output: Option<String>,
}

fn us_to_ns(field: &str, v: Option<f64>) -> Result<Option<u64>, Fail> {
    match v {
        None => Ok(None),
        Some(x) if x.is_finite() && x >= 0.0 => Ok(Some((x * 1000.0).round() as u64)),
        Some(x) => Err(Fail(2, format!("{field} {x}: must be a number >= 0"))),
    }
}

fn params(a: &NocArgs, cfg: &Config, path: GcPath) -> Result<NocParams, Fail> {
    let mut p = NocParams::from_config(cfg, path);
    p.interconnect = Interconnect::parse("--interconnect", &a.interconnect)?;
    if let Some(v) = a.hop_ns {
        p.hop_ns = v;
    }
    if let Some(v) = a.avg_slices {
        p.avg_slices = v;
    }
    if let Some(v) = a.unit_bits {
        p.transfer_unit_bits = v;
    }
    if let Some(v) = us_to_ns("--ecc-check-us", a.ecc_check_us)? {
        p.ecc_check_ns = v;
    }
    if let Some(v) = us_to_ns("--ecc-correct-us", a.ecc_correct_us)? {
        p.ecc_correct_ns = v;
    }
    match (a.error_prob, a.ber) {
        (Some(_), Some(_)) => {
            return Err(Fail(
                2,
                "give either --error-prob or --ber, not both".into(),
            ))
        }
        (Some(e), None) => {
            if !(e.is_finite() && (0.0..=1.0).contains(&e)) {
                return Err(Fail(2, format!("--error-prob {e}: must be in [0, 1]")));
            }
            p.error_prob = e
        }
        (None, Some(b)) => {
            if !(b.is_finite() && (0.0..=1.0).contains(&b)) {
                return Err(Fail(2, format!("--ber {b}: must be in [0, 1]")));
            }
            p.error_prob = page_error_prob(b, p.page_bits);
        }
        (None, None) => {}
    }
    if !(a.window_ms.is_finite() && a.window_ms > 0.0) {
        return Err(Fail(2, format!("--window-ms {}: must be > 0", a.window_ms)));
    }
    p.window_ns = (a.window_ms * 1e6).round().max(1.0) as u64;
    p.validate()?;
    Ok(p)
}

/// A workload, the fixed arrival rate to apply (None: its own times) and a request cap.
type Opened = (Box<dyn Workload>, Option<f64>, Option<u64>);

/// Opens the workload: a Table 3 profile, or the common `--workload` (synthetic or trace).
fn workload(a: &NocArgs, cfg: &mut Config) -> Result<Opened, Fail> {
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
            rate_iops: a.rate.unwrap_or(Arrival::default().rate_iops),
            burst_len: a.burst_len,
            burst_factor: a.burst_factor,
        };
        let wl = NocSynthetic::new(
            prof,
            arrival,
            l.logical_pages,
            l.lpn_size,
            a.requests.unwrap_or(20_000),
            cfg.run.seed,
        )?;
        return Ok((Box::new(wl), None, None));
    }
    match WorkloadSpec::parse("--workload", &cfg.run.workload)? {
        WorkloadSpec::Synthetic(_) => {
            let wl = crate::open_workload(cfg, &a.trace)?;
            Ok((
                wl,
                Some(a.rate.unwrap_or(200.0)),
                Some(a.requests.unwrap_or(20_000)),
            ))
        }
        WorkloadSpec::Trace(_) => {
            let wl = crate::open_workload(cfg, &a.trace)?;
            Ok((wl, a.rate, a.requests))
        }
    }
}

fn run_path(a: &NocArgs, cfg: &Config, path: GcPath) -> Result<NocReport, Fail> {
    let mut cfg = cfg.clone();
    let p = params(a, &cfg, path)?;
    let (mut wl, rate, max) = workload(a, &mut cfg)?;
    let mut sim = NocSim::new(&cfg, p)?;
    sim.run(wl.as_mut(), max, rate)?;
    Ok(sim.report())
}

fn human(r: &NocReport) -> String {
    format!(
        "  {:<12} read mean {:>10.1} us max {:>11.1} us ({} req) | write mean {:>10.1} us max {:>11.1} us ({} req)\n\
         \x20              copy-backs {} (errors {}), W_gc tasks {}, direct write-backs {}, erases {}, WAF {:.3}, relocation {:.1} us/page, simulated {:.3} s\n",
        r.path.name(),
        r.read.mean_us,
        r.read.max_us,
        r.read.count,
        r.write.mean_us,
        r.write.max_us,
        r.write.count,
        r.copybacks,
        r.error_pages,
        r.tasks.w_gc,
        r.tasks.direct,
        r.erases,
        r.waf,
        if r.copybacks > 0 {
            r.relocation_elapsed_us / r.copybacks as f64
        } else {
            0.0
        },
        r.simulated_s
    )
}

/// Runs `flashgc noc` (errors: 2 for bad input, 1 for run-time failures).
pub fn noc(a: &NocArgs) -> Result<(), Fail> {
    let mut common = a.common.clone();
    if common.preset.is_none() && common.config.is_none() {
        common.preset = Some("noc-ssdc".into());
    }
    let mut cfg = crate::build_config(&common)?;
    cfg.layout()?;
    crate::prepare_trace(&mut cfg, &a.trace)?;
    let paths: Vec<GcPath> = match a.path.trim() {
        "both" => vec![GcPath::Conventional, GcPath::Selective],
        s => vec![GcPath::parse("--path", s).map_err(|_| {
            Fail(
                2,
                format!("--path `{s}`: allowed values are conventional, selective, both"),
            )
        })?],
    };
    let mut reports = Vec::new();
    for &p in &paths {
        reports.push(run_path(a, &cfg, p)?);
    }
    let (json, text) = if reports.len() == 2 {
        let s = reports.pop().unwrap_or_else(|| unreachable!());
        let c = reports.pop().unwrap_or_else(|| unreachable!());
        let cmp = NocComparison::new(c, s);
        let mut t = format!(
            "NoC SSD controller (papers/noc-copyback-gc.txt), interconnect {:.2} us/page ({:?}), page error prob {:e}\n  workload: {}\n",
            cmp.conventional.traversal_us,
            cmp.conventional.params.interconnect,
            cmp.conventional.params.error_prob,
            cmp.conventional.workload
        );
        t += &human(&cmp.conventional);
        t += &human(&cmp.selective);
        t += &format!(
            "  selective vs conventional: mean read -{:.2} %, mean write -{:.2} %, peak read -{:.2} %, peak write -{:.2} %\n",
            cmp.read_mean_improvement_pct,
            cmp.write_mean_improvement_pct,
            cmp.read_max_improvement_pct,
            cmp.write_max_improvement_pct
        );
        (serde_json::to_string_pretty(&cmp), t)
    } else {
        let r = &reports[0];
        let mut t = format!(
            "NoC SSD controller, interconnect {:.2} us/page, page error prob {:e}\n  workload: {}\n",
            r.traversal_us, r.params.error_prob, r.workload
        );
        t += &human(r);
        (serde_json::to_string_pretty(r), t)
    };
    let json = json.map_err(|e| Fail(1, e.to_string()))?;
    if let Some(path) = &a.output {
        crate::output::write_atomic(path, json.as_bytes())
            .map_err(|e| Fail(1, format!("{path}: {e}")))?;
    }
    if a.json {
        println!("{json}");
    } else {
        print!("{text}");
        println!("  approximations: {}", flashgc_core::noc::NOTES.join("; "));
    }
    Ok(())
}
