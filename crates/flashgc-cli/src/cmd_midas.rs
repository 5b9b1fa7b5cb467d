//! `flashgc model midas`: MiDAS's models without a simulation. Builds a UID from a workload
//! (a synthetic spec or a trace), prints MCAM's predicted WAF for a given group
//! configuration, and the configuration GCS chooses (papers/midas.txt, Sec. 4.3-4.5).

use crate::cmd_trace;
use flashgc_core::placement::midas::{
    self, gcs::GcsParams, mcam::GroupConfig, uid::HotModel, ModelReport,
};
use flashgc_core::workload::{Synthetic, Workload, WorkloadSpec};
use flashgc_core::Config;

/// Arguments of `flashgc model midas`.
#[derive(Debug, Clone, clap::Args)]
pub struct MidasModelArgs {
    /// Device preset the geometry starts from.
    #[arg(long, default_value = "midas-128g")]
    preset: String,
    /// Logical capacity in GiB (default: the preset's).
    #[arg(long)]
    logical_gib: Option<f64>,
    /// Over-provisioning (physical - logical) / logical (default: the preset's).
    #[arg(long)]
    op: Option<f64>,
    /// Flash pages per block (default: the preset's).
    #[arg(long)]
    pages_per_block: Option<u32>,
    /// Flash page size in bytes (default: the preset's).
    #[arg(long)]
    page_size: Option<u32>,
    /// Blocks per segment (default: the preset's).
    #[arg(long)]
    segment_blocks: Option<u32>,
    /// Workload the UID is built from: uniform | zipf:THETA | hotcold:W/S | trace:PATH.
    #[arg(long, default_value = "zipf:1.0")]
    workload: String,
    /// User writes after the sequential fill, x logical capacity (synthetic workloads; a trace
    /// stops earlier at its end).
    #[arg(long, default_value_t = 8.0)]
    volume: f64,
    /// UID window: the last EPOCH x capacity of user writes (MiDAS's epoch; 0 = all).
    #[arg(long, default_value_t = 4.0)]
    epoch: f64,
    /// Sequential precondition fill, fraction of the logical space.
    #[arg(long, default_value_t = 1.0)]
    fill: f64,
    /// UID interval unit in page writes (default: one segment).
    #[arg(long)]
    unit: Option<u64>,
    /// One LPN in SAMPLE is tracked (paper: 100).
    #[arg(long, default_value_t = 100)]
    sample: u32,
    /// Short intervals in a row before a page is hot (paper: 3).
    #[arg(long, default_value_t = 3)]
    hot_hits: u8,
    /// Intervals the UID counts: all (every write's; flashgc's default) | sampled (the
    /// sampled LPNs' only, the paper).
    #[arg(long, default_value = "all")]
    uid_counts: String,
    /// A trimmed version's life counts as an interval: count (the authors' simulator;
    /// flashgc's default) | ignore (flashgc before 2026-11-28).
    #[arg(long, value_enum, default_value = "count")]
    uid_trims: UidTrims,
    /// HOT admission model: joint (flashgc) | paper (Sec. 4.4 approximation).
    #[arg(long, default_value = "joint")]
    hot_model: String,
    /// Group configuration to evaluate: segments of HOT/G1/.../GN (GN is resized to the budget).
    #[arg(long)]
    groups: Option<String>,
    /// Segments the groups share (default: all segments minus the FTL's free reserve for
    /// 1 + max_groups streams).
    #[arg(long)]
    budget: Option<u32>,
    /// Largest number of groups GCS may create.
    #[arg(long, default_value_t = 8)]
    max_groups: usize,
    /// How GCS sizes a split's new group: full (every size, the authors' simulator) | greedy
    /// (grown one segment at a time while the WAF drops; flashgc before 2026-11-28).
    #[arg(long, value_enum, default_value_t = SplitScan::Full)]
    split_scan: SplitScan,
    /// Seed of the synthetic workload.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    trace: cmd_trace::TraceFlags,
}

/// GCS's sizing of a split's new group (`--split-scan`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
enum SplitScan {
    /// Every size (the authors' simulator).
    Full,
    /// Grown while the WAF drops.
    Greedy,
}

/// Whether a trimmed version's life counts as a UID interval (`--uid-trims`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
enum UidTrims {
    /// Counted (the authors' simulator).
    Count,
    /// Left out.
    Ignore,
}

/// Runs `flashgc model midas`; returns the exit code.
pub fn model_midas(args: &MidasModelArgs) -> i32 {
    match run(args) {
        Ok(()) => 0,
        Err((code, msg)) => {
            crate::print_error(&msg);
            code
        }
    }
}

fn run(a: &MidasModelArgs) -> Result<(), (i32, String)> {
    let bad = |m: String| (2, m);
    let mut cfg = Config::load(Some(&a.preset), None).map_err(|e| bad(e.to_string()))?;
    if let Some(v) = a.logical_gib {
        cfg.ftl.logical_gib = Some(v);
    }
    if let Some(v) = a.op {
        cfg.ftl.op = Some(v);
        cfg.ftl.op_of_physical = None;
    }
    if let Some(v) = a.pages_per_block {
        cfg.device.pages_per_block = v;
    }
    if let Some(v) = a.page_size {
        cfg.device.page_size = v;
    }
    if let Some(v) = a.segment_blocks {
        cfg.device.segment_blocks = v;
    }
    if !(a.volume.is_finite() && a.volume > 0.0) {
        return Err(bad(format!("--volume {}: must be > 0", a.volume)));
    }
    if !(a.epoch.is_finite() && a.epoch >= 0.0) {
        return Err(bad(format!("--epoch {}: must be >= 0", a.epoch)));
    }
    if !(0.0..=1.0).contains(&a.fill) {
        return Err(bad(format!("--fill {}: allowed range 0..=1", a.fill)));
    }
    if !(1..=3).contains(&a.hot_hits) {
        return Err(bad(format!(
            "--hot-hits {}: allowed range 1..=3",
            a.hot_hits
        )));
    }
    // The ranges of the `midas:` placement's `sample` and `unit` (params.rs): 0 was taken
    // as 1 or printed "1 LPN in 0".
    if !(1..=1 << 20).contains(&a.sample) {
        return Err(bad(format!(
            "--sample {}: allowed range 1..={}",
            a.sample,
            1 << 20
        )));
    }
    if let Some(u) = a.unit.filter(|u| !(1..=1 << 40).contains(u)) {
        return Err(bad(format!("--unit {u}: allowed range 1..={}", 1u64 << 40)));
    }
    if a.max_groups == 0 || a.max_groups > 256 {
        return Err(bad(format!(
            "--max-groups {}: allowed range 1..=256",
            a.max_groups
        )));
    }
    let hot_model = match a.hot_model.as_str() {
        "joint" => HotModel::Joint,
        "paper" => HotModel::Paper,
        o => {
            return Err(bad(format!(
                "--hot-model `{o}` is not one of: joint, paper"
            )))
        }
    };
    let all_intervals = match a.uid_counts.as_str() {
        "all" => true,
        "sampled" => false,
        v => {
            return Err(bad(format!(
                "--uid-counts: `{v}` is not one of: all, sampled"
            )))
        }
    };
    let given = a
        .groups
        .as_deref()
        .map(GroupConfig::parse)
        .transpose()
        .map_err(|e| bad(format!("--groups {e}")))?;
    let spec = WorkloadSpec::parse("--workload", &a.workload).map_err(|e| bad(e.to_string()))?;
    if let WorkloadSpec::Trace(p) = &spec {
        cmd_trace::prepare(&a.trace, p, &mut cfg).map_err(bad)?;
    }
    let layout = cfg.layout().map_err(|e| bad(e.to_string()))?;
    let pps = layout.pages_per_segment;
    let logical = layout.logical_pages;
    let streams = a.max_groups as u32 + 1;
    let reserve = layout.gc_high.max(streams + 1) + 1;
    let budget = a.budget.unwrap_or(layout.segments.saturating_sub(reserve));
    if budget < 2 || budget > layout.segments {
        return Err(bad(format!(
            "--budget {budget}: allowed range 2..={}",
            layout.segments
        )));
    }
    if let Some(g) = &given {
        if g.groups() > a.max_groups {
            return Err(bad(format!(
                "--groups has {} groups; --max-groups is {}",
                g.groups(),
                a.max_groups
            )));
        }
    }
    let mut wl: Box<dyn Workload> = match &spec {
        WorkloadSpec::Synthetic(kind) => Box::new(Synthetic::new(*kind, logical, 1, 0.0, a.seed)),
        WorkloadSpec::Trace(p) => {
            cmd_trace::open_workload(&a.trace, p, layout.lpn_size, logical, false).map_err(bad)?
        }
    };
    let writes = (a.volume * logical as f64).round() as u64;
    let epoch = (a.epoch * logical as f64).round() as u64;
    let unit = a.unit.unwrap_or(pps as u64).max(1);
    let o = midas::UidOptions {
        fill: a.fill,
        writes,
        epoch,
        unit,
        sample: a.sample,
        hot_hits: a.hot_hits,
        all_intervals,
        count_trims: a.uid_trims == UidTrims::Count,
    };
    // A damaged trace read while sampling is bad input (2), as everywhere else; it was 1.
    let uid = midas::uid_from_workload(wl.as_mut(), logical, &o)
        .map_err(|e| {
            let crate::Fail(code, msg) = e.into();
            (code as i32, msg)
        })?
        .with_hot_model(hot_model);
    let gp = GcsParams {
        max_groups: a.max_groups,
        full_scan: a.split_scan == SplitScan::Full,
        ..GcsParams::default()
    };
    let rep = midas::model(&uid, given.as_ref(), budget, pps, &gp);
    let fit = Fit {
        logical,
        segments: layout.segments,
        reserve,
    };
    let infeasible = (!rep.gcs.prediction.waf.is_finite()).then(|| fit.reason(a, &rep));
    if a.json {
        let out = JsonOut {
            report: &rep,
            logical_pages: logical,
            feasible: infeasible.is_none(),
            infeasible_reason: infeasible.as_deref(),
        };
        let v = serde_json::to_string_pretty(&out).map_err(|e| (1, e.to_string()))?;
        println!("{v}");
    } else {
        print_text(a, &layout, &rep, infeasible.as_deref());
    }
    Ok(())
}

/// `flashgc model midas --json`: the report, then whether any configuration fits. JSON has
/// no infinity (serde writes an infinite WAF as null): `feasible` and `infeasible_reason`
/// say so explicitly.
#[derive(serde::Serialize)]
struct JsonOut<'a> {
    #[serde(flatten)]
    report: &'a ModelReport,
    logical_pages: u64,
    feasible: bool,
    infeasible_reason: Option<&'a str>,
}

/// What decides whether any configuration fits: the device's size and the groups' reserve.
struct Fit {
    logical: u64,
    segments: u32,
    /// Segments kept out of the groups' default budget (the FTL's free reserve and the open
    /// streams).
    reserve: u32,
}

impl Fit {
    /// Why GCS found no configuration with a finite WAF (every configuration's last group
    /// overflows even with every victim full).
    fn reason(&self, a: &MidasModelArgs, r: &ModelReport) -> String {
        let budget = r.budget_segments;
        let pages = budget as u64 * r.pages_per_segment as u64;
        if pages < self.logical {
            let head = format!(
                "no configuration fits: the groups' budget of {budget} segments ({pages} pages) \
                 is below the logical space of {} pages",
                self.logical
            );
            if a.budget.is_some() {
                return format!(
                    "{head}; raise --budget (at most the device's {} segments)",
                    self.segments
                );
            }
            return format!(
                "{head}; the device has too few segments for its reserve ({} of its {} \
                 segments: the FTL's free reserve and 1 + --max-groups {} open streams) — use \
                 smaller segments (--segment-blocks/--pages-per-block), more OP (--op), fewer \
                 --max-groups or a larger --budget",
                self.reserve, self.segments, a.max_groups
            );
        }
        format!(
            "no configuration fits: in every configuration GCS tried ({} MCAM evaluations) the \
             last group cannot hold the data entering it, even with every victim full (budget \
             {pages} pages; the UID's mean interval, about the live pages, is {:.0}); raise \
             --budget or --op",
            r.gcs.evaluations, r.uid.mean
        )
    }
}

fn print_text(
    a: &MidasModelArgs,
    l: &flashgc_core::config::Layout,
    r: &ModelReport,
    infeasible: Option<&str>,
) {
    println!("MiDAS models (papers/midas.txt): UID -> MCAM -> GCS");
    println!(
        "device: {} logical pages, {} segments x {} pages, budget {} segments for the groups",
        l.logical_pages, l.segments, l.pages_per_segment, r.budget_segments
    );
    println!(
        "UID of `{}`: {} intervals (1 LPN in {}), unit {} page writes, mean interval {:.0} page writes",
        a.workload, r.uid.samples, a.sample, r.uid.unit, r.uid.mean
    );
    // The CDF's points come as the report lists them (powers of 4, then multiples of the
    // segment size): in order of the interval, they read as one distribution.
    let mut cdf = r.uid.cdf.clone();
    cdf.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (x, p) in &cdf {
        println!("  P(interval < {:>12.0}) = {:.4}", x, p);
    }
    if let Some((c, p)) = &r.given {
        println!("given configuration HOT/G1/../GN = {c}");
        print_prediction(p);
    }
    match infeasible {
        None => println!(
            "GCS: {} groups, HOT/G1/../GN = {} ({} MCAM evaluations)",
            r.gcs.config.groups(),
            r.gcs.config,
            r.gcs.evaluations
        ),
        Some(why) => {
            println!(
                "GCS: no configuration has a finite WAF ({} MCAM evaluations; the last \
                 tried, HOT/G1/../GN = {}, below)",
                r.gcs.evaluations, r.gcs.config
            );
            println!("  {why}");
        }
    }
    print_prediction(&r.gcs.prediction);
    println!(
        "note: MCAM's HOT model is `{}`; predictions assume a stationary workload and FIFO victims",
        a.hot_model
    );
}

fn print_prediction(p: &midas::mcam::Prediction) {
    println!(
        "  MCAM predicted WAF {:.4} (closed form {:.4}){}",
        p.waf,
        p.waf_closed_form,
        if p.waf.is_finite() {
            ""
        } else {
            ": the last group cannot hold the data entering it, even with every victim full"
        }
    );
    println!(
        "  HOT threshold {:.0} page writes, share of user writes to HOT {:.4}",
        p.threshold, p.hot_share
    );
    let v: Vec<String> = p.v.iter().map(|x| format!("{x:.4}")).collect();
    println!("  victim valid ratio HOT, G1.. : {}", v.join(" "));
}

/// Text lines of MiDAS's configuration history from a run's `placement_report` (None for
/// other schemes), for `flashgc run`'s text output: time, event, group count, sizes,
/// predicted and measured WAF.
#[allow(dead_code)] // called by main.rs's run output once wired
pub fn history_lines(report: &serde_json::Value) -> Option<Vec<String>> {
    if report.get("scheme")?.as_str()? != "midas" {
        return None;
    }
    let f = |v: &serde_json::Value| v.as_f64().map_or("-".to_string(), |x| format!("{x:.3}"));
    let mut out = vec![format!(
        "MiDAS configuration history ({} adoptions, {} fallbacks):",
        report["adoptions"], report["fallbacks"]
    )];
    out.push("  capacities  event                               groups  predicted  measured* sizes HOT/G1/../GN".into());
    for e in report["history"].as_array()? {
        let sizes: Vec<String> = e["sizes"]
            .as_array()
            .map_or(Vec::new(), |a| a.iter().map(|x| x.to_string()).collect());
        let mut line = format!(
            "  {:>10.2}  {:<34}  {:>6}  {:>9}  {:>8}  {}",
            e["capacity_written"].as_f64().unwrap_or(0.0),
            e["event"].as_str().unwrap_or(""),
            e["groups"],
            f(&e["predicted_waf"]),
            f(&e["measured_waf"]),
            if sizes.is_empty() {
                "(MiDA chain)".to_string()
            } else {
                sizes.join("/")
            }
        );
        if let Some(c) = e.get("checks_from").and_then(|c| c.as_f64()) {
            // When every sized group had given a victim: the irregularity checks start.
            line.push_str(&format!("  [checks from {c:.2}]"));
        }
        if let Some(i) = e.get("irregular").filter(|i| i.get("transition").is_some()) {
            line.push_str(&format!(
                "  [{} predicted {} measured {}]",
                i["transition"].as_str().unwrap_or(""),
                f(&i["predicted"]),
                f(&i["measured"])
            ));
        }
        out.push(line);
    }
    // The two WAF columns describe different periods; reading them as one pair misleads.
    out.push(
        "  * measured: the WAF of the epoch that ends at this entry, which ran the previous \
         entry's configuration; predicted: MCAM's WAF for the configuration in force from here"
            .into(),
    );
    Some(out)
}
