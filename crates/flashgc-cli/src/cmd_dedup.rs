//! `flashgc dedup`: deduplication-aware GC, SplitGC vs greedy, CAGC and DAGC
//! (papers/splitgc.txt; model in `flashgc_core::dedup`, docs/splitgc.md).

use crate::{cmd_trace, CommonArgs, Fail};
use flashgc_core::dedup::{DedupParams, DedupReport, DedupSim, Scheme, SplitRule, Writeback};
use flashgc_core::workload::WorkloadSpec;
use flashgc_core::Config;

/// Default arrival rate of untimed workloads, requests/s: below the paper device's write
/// bandwidth under GC, so that idle periods exist.
const DEFAULT_RATE: f64 = 300.0;

/// Flags of `flashgc dedup`.
#[derive(clap::Args, Debug)]
pub struct DedupArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    trace: cmd_trace::TraceFlags,
    /// GC scheme: greedy | cagc | dagc | splitgc | all.
    #[arg(long, default_value = "all")]
    scheme: String,
    /// Share of written pages drawn from the pool of popular contents (pages whose request
    /// carries no content, e.g. synthetic workloads).
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true)]
    dup_ratio: f64,
    /// Distinct popular contents in the pool.
    #[arg(long, default_value_t = 1024)]
    dup_pool: u64,
    /// Zipf exponent of the popularity over the pool.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    dup_theta: f64,
    /// Poisson arrival rate, requests/s, for untimed workloads (default 300; traces keep their times unless given).
    #[arg(long, allow_negative_numbers = true)]
    rate: Option<f64>,
    /// Stop after this many requests.
    #[arg(long)]
    requests: Option<u64>,
    /// Idle detection: no request outstanding for this long, us.
    #[arg(long, default_value_t = 1000.0, allow_negative_numbers = true)]
    idle_us: f64,
    /// Read-scrub ECC check per page, us.
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    ecc_us: f64,
    /// Fingerprint generation per page, us.
    #[arg(long, default_value_t = 80.0, allow_negative_numbers = true)]
    fp_gen_us: f64,
    /// Fingerprint management (Bloom + table) per page, us.
    #[arg(long, default_value_t = 10.0, allow_negative_numbers = true)]
    fp_manage_us: f64,
    /// Groups of blocks; the scrub fingerprints one group per pass (alpha = 1/groups).
    #[arg(long, default_value_t = 10)]
    scrub_groups: u32,
    /// Bloom filter bits per physical page.
    #[arg(long, default_value_t = 4.2, allow_negative_numbers = true)]
    bloom_bits: f64,
    /// SplitGC victim rule: per-free | min-nondup | dup-first | min-valid.
    #[arg(long, default_value = "per-free")]
    rule: String,
    /// SplitGC: a page written back from the waiting queue is a known duplicate at once
    /// (keep), only once the scrub fingerprints it again (rescrub), or never again (once).
    #[arg(long, default_value = "keep")]
    writeback: String,
    /// Do not run the read scrub at idle time.
    #[arg(long)]
    no_scrub: bool,
    /// Do not fingerprint the preconditioned device before the run.
    #[arg(long)]
    no_prescrub: bool,
    /// DAGC checksum lookup on the write path, us.
    #[arg(long, default_value_t = 10.0, allow_negative_numbers = true)]
    dagc_write_us: f64,
    /// Planes of a die operate concurrently (default: one operation per die).
    #[arg(long)]
    multiplane: bool,
    /// GC scope: plane (free blocks, frontier, watermarks and victims per plane, as SSDsim) |
    /// device (one pool, as the core FTL).
    #[arg(long, default_value = "plane")]
    gc_scope: String,
    /// Scaled-down device for quick runs: 128 blocks of 64 pages per plane (paper: 1024 x 512).
    #[arg(long)]
    small: bool,
    /// Print JSON (an array of reports).
    #[arg(long)]
    json: bool,
    /// Also write the JSON to this file.
    #[arg(long, short = 'o')]
    output: Option<String>,
}

fn us(field: &str, v: f64) -> Result<u64, Fail> {
    if v.is_finite() && (0.0..=1e9).contains(&v) {
        Ok((v * 1000.0).round() as u64)
    } else {
        Err(Fail(
            2,
            format!("{field} {v}: must be a number in [0, 1e9]"),
        ))
    }
}

fn params(a: &DedupArgs, scheme: Scheme) -> Result<DedupParams, Fail> {
    let mut p = DedupParams::new(scheme);
    p.content.dup_ratio = a.dup_ratio;
    p.content.pool = a.dup_pool;
    p.content.theta = a.dup_theta;
    p.idle_ns = us("--idle-us", a.idle_us)?;
    p.ecc_ns = us("--ecc-us", a.ecc_us)?;
    p.fp_gen_ns = us("--fp-gen-us", a.fp_gen_us)?;
    p.fp_manage_ns = us("--fp-manage-us", a.fp_manage_us)?;
    p.dagc_write_ns = us("--dagc-write-us", a.dagc_write_us)?;
    p.scrub_groups = a.scrub_groups;
    p.bloom_bits = a.bloom_bits;
    p.rule = SplitRule::parse("--rule", &a.rule)?;
    p.writeback = Writeback::parse("--writeback", &a.writeback)?;
    p.scrub = !a.no_scrub;
    p.prescrub = !a.no_prescrub;
    p.multiplane = a.multiplane;
    p.per_plane = match a.gc_scope.trim() {
        "plane" => true,
        "device" => false,
        o => {
            return Err(Fail(
                2,
                format!("--gc-scope `{o}`: allowed values are plane, device"),
            ))
        }
    };
    p.validate()?;
    Ok(p)
}

fn run_one(a: &DedupArgs, cfg: &Config, scheme: Scheme) -> Result<(DedupReport, f64, u64), Fail> {
    let mut cfg = cfg.clone();
    let p = params(a, scheme)?;
    let mut wl = crate::open_workload(&mut cfg, &a.trace)?;
    let synthetic = matches!(
        WorkloadSpec::parse("--workload", &cfg.run.workload)?,
        WorkloadSpec::Synthetic(_)
    );
    let rate = match (a.rate, synthetic) {
        (Some(r), _) => Some(r),
        (None, true) => Some(DEFAULT_RATE),
        (None, false) => None,
    };
    let volume = cfg.run.write_volume;
    let warmup = cfg.run.warmup.unwrap_or(volume / 2.0);
    let mut sim = DedupSim::new(&cfg, p)?;
    sim.precondition(cfg.run.fill)?;
    let t = std::time::Instant::now();
    sim.run(wl.as_mut(), a.requests, rate, volume, warmup)?;
    let secs = t.elapsed().as_secs_f64();
    sim.check_all_content()?;
    let r = sim.report();
    Ok((r, secs, sim.served()))
}

fn human(r: &DedupReport, secs: f64, reqs: u64) -> String {
    let m = &r.memory_bytes_per_lpn;
    format!(
        "  {:<8} migrated {:>9} | deferred {:>7} (written back {:>7}, pending {:>6}) | erases {:>7} | WAF {:.3}\n\
         \x20          read  avg {:>9.1} us p99 {:>9.1} us p99.99 {:>9.1} us ({} req)\n\
         \x20          write avg {:>9.1} us p99 {:>9.1} us p99.99 {:>9.1} us ({} req)\n\
         \x20          memory B/LPN: fp table {:.3}, Bloom {:.3}, SMT {:.4}, queue {:.4} | scrub {} pages ({} fingerprinted) | content check {} reads OK | {:.0} requests/s simulated (wall clock, warm-up included)\n",
        r.scheme.name(),
        r.migrated_pages,
        r.deferred_queued,
        r.deferred_written,
        r.deferred_pending,
        r.erases,
        r.waf,
        r.read.mean_us,
        r.read.p99_us,
        r.read.p9999_us,
        r.read.count,
        r.write.mean_us,
        r.write.p99_us,
        r.write.p9999_us,
        r.write.count,
        m[0],
        m[1],
        m[2],
        m[3],
        r.counters.scrub_pages,
        r.counters.scrub_fp_pages,
        r.content_checked_reads,
        if secs > 0.0 { reqs as f64 / secs } else { 0.0 },
    )
}

/// Runs `flashgc dedup` (errors: 2 for bad input, 1 for run-time failures).
pub fn dedup(a: &DedupArgs) -> Result<(), Fail> {
    let mut common = a.common.clone();
    if common.preset.is_none() && common.config.is_none() {
        common.preset = Some("ssdsim-splitgc".into());
    }
    let mut cfg = crate::build_config(&common)?;
    crate::output::check_output(a.output.as_deref())?;
    if a.small {
        if common.blocks_per_plane.is_some() || common.pages_per_block.is_some() {
            return Err(Fail(
                2,
                "--small sets the blocks and pages per block; do not combine it with --blocks-per-plane or --pages-per-block".into(),
            ));
        }
        cfg.device.blocks_per_plane = 128;
        cfg.device.pages_per_block = 64;
        cfg.ftl.logical_gib = None;
    }
    if common.write_volume.is_none() {
        // The paper's device holds 60 GiB: two device writes are already long runs.
        cfg.run.write_volume = 2.0;
        cfg.run.warmup = None;
    }
    cfg.layout()?;
    crate::prepare_trace(&mut cfg, &a.trace)?;
    let schemes: Vec<Scheme> = match a.scheme.trim() {
        "all" => Scheme::ALL.to_vec(),
        s => vec![Scheme::parse("--scheme", s)?],
    };
    let l = cfg.layout()?;
    let mut reports = Vec::new();
    let mut text = String::new();
    for &s in &schemes {
        let (r, secs, served) = run_one(a, &cfg, s)?;
        if text.is_empty() {
            text = format!(
                "dedup-aware GC (papers/splitgc.txt): {} logical / {} physical pages (op {:.3} of logical), fill {:.2}\n  workload: {}, dup ratio {} (measured duplicate share at the end: {:.3})\n",
                l.logical_pages,
                l.physical_pages,
                l.op,
                cfg.run.fill,
                r.workload,
                a.dup_ratio,
                r.measured_dup_share
            );
        }
        text += &human(&r, secs, served);
        reports.push(r);
    }
    let json = serde_json::to_string_pretty(&reports).map_err(|e| Fail(1, e.to_string()))?;
    // Printed first, then written: a result that cannot be saved is still shown.
    if a.json {
        println!("{json}");
    } else {
        print!("{text}");
        println!(
            "  approximations: {}",
            flashgc_core::dedup::NOTES.join("; ")
        );
    }
    crate::output::save_printed(a.output.as_deref(), json.as_bytes())
}
