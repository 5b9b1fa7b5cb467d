//! `flashgc dedup`: a preset over the core FTL's dedup-aware schemes (papers/splitgc.txt):
//! greedy, CAGC, DAGC and SplitGC, each a victim policy and a GC action of the one FTL
//! (`flashgc run/compare --gc-action` run the same objects), timed by the one host driver
//! with idle-time background work (docs/splitgc.md).

use crate::{cmd_trace, split_list, CommonArgs, Fail};
use flashgc_core::timing::{Host, TimingParams};
use flashgc_core::workload::{PoissonArrivals, WorkloadSpec};
use flashgc_core::{Config, RunResult};

/// A scheme of the preset: a victim policy and a GC action of the core FTL.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Scheme {
    /// Name in output.
    pub name: String,
    /// Victim policy spec.
    pub victim: String,
    /// GC action spec.
    pub gc_action: String,
}

impl Scheme {
    fn new(name: &str, victim: &str, gc_action: &str) -> Scheme {
        Scheme {
            name: name.into(),
            victim: victim.into(),
            gc_action: gc_action.into(),
        }
    }
}

/// One scheme's result: the scheme and the run's result record.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DedupRun {
    /// The scheme.
    pub scheme: Scheme,
    /// The run (timing and dedup sections included).
    pub result: RunResult,
}

/// Default arrival rate of untimed workloads, requests/s: below the paper device's write
/// bandwidth under GC, so that idle periods exist.
const DEFAULT_RATE: f64 = 300.0;

/// What the preset approximates (printed with the results).
const NOTE: &str = "counts and latencies cover the whole measured phase (after the precondition); GC is device-wide (the core FTL; the paper's SSDsim collects per plane); \
fingerprints are 64-bit (FIU: the MD5's first 8 bytes), the table's memory is counted at 20 B per SHA-1; \
controller compute (ECC, fingerprints, checksum lookups) costs time only with --cpu-cost on";

/// Flags of `flashgc dedup`.
#[derive(clap::Args, Debug)]
pub struct DedupArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    trace: cmd_trace::TraceFlags,
    /// Schemes, comma-separated: greedy | cagc | dagc | splitgc, each optionally with GC
    /// action parameters (`cagc:index=full`, `dagc:cache=unbounded`: the upper-bound
    /// variants); `all` = greedy,cagc,dagc,splitgc; `bounds` = cagc:index=full,dagc:cache=unbounded.
    #[arg(long, default_value = "all")]
    scheme: String,
    /// Poisson arrival rate, requests/s, for untimed workloads (default 300; traces keep their times unless given).
    #[arg(long, allow_negative_numbers = true)]
    rate: Option<f64>,
    /// Stop after this many requests.
    #[arg(long)]
    requests: Option<u64>,
    /// Idle detection: no request outstanding for this long, us.
    #[arg(long, default_value_t = 1000.0, allow_negative_numbers = true)]
    idle_us: f64,
    /// Read-scrub ECC check per page, us (SplitGC).
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    ecc_us: f64,
    /// Fingerprint generation per page, us (SplitGC's scrub, CAGC's GC).
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
    /// SplitGC victim rule: per-free | min-nondup | dup-first | min-valid (greedy victims).
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
    /// Firmware CPU cost model: on or off (default off; docs/cpu.md). On, the controller
    /// compute of the schemes (the scrub's ECC checks and fingerprints, CAGC's fingerprint
    /// per GC page, DAGC's checksum lookup per write) runs on the controller cores at the
    /// times of --ecc-us, --fp-gen-us and --fp-manage-us, and flash operations wait for it.
    #[arg(long)]
    cpu_cost: Option<String>,
    /// Firmware CPU: controller cores (default 1; implies --cpu-cost on).
    #[arg(long, allow_negative_numbers = true)]
    cpu_cores: Option<i64>,
    /// Firmware CPU: controller-core ns per host ns for costs calibrated on the simulation
    /// host (victim selection; default 4; implies --cpu-cost on).
    #[arg(long, allow_negative_numbers = true)]
    cpu_scale: Option<f64>,
    /// Firmware CPU: explicit costs in controller-core ns, over the flags' (keys as `run`'s
    /// --cpu-ns; implies --cpu-cost on).
    #[arg(long, allow_hyphen_values = true)]
    cpu_ns: Option<String>,
    /// Planes of a die operate concurrently (default: one operation per die).
    #[arg(long)]
    multiplane: bool,
    /// Channel arbitration: fifo (default) or backfill (docs/timing.md).
    #[arg(long)]
    channel: Option<String>,
    /// GC scope: device (one free pool, the core FTL). `plane` (SSDsim's per-plane GC) is
    /// not modelled by the core FTL.
    #[arg(long, default_value = "device")]
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

fn us(field: &str, v: f64) -> Result<f64, Fail> {
    if v.is_finite() && (0.0..=1e9).contains(&v) {
        Ok(v)
    } else {
        Err(Fail(
            2,
            format!("{field} {v}: must be a number in [0, 1e9]"),
        ))
    }
}

/// The firmware-CPU model of `--cpu-cost` and its flags, priced with the paper's compute
/// times as the dedup flags give them (`--cpu-ns` overrides them key by key).
fn cpu_params(a: &DedupArgs, p: &mut TimingParams) -> Result<(), Fail> {
    let flag = |k: &str| format!("--{}", k.replace('_', "-"));
    flashgc_core::device::cpu::apply_options(
        &mut p.cpu,
        a.cpu_cost.as_deref(),
        a.cpu_cores,
        a.cpu_scale,
        a.cpu_ns.as_deref(),
        &flag,
    )?;
    let Some(c) = p.cpu.as_mut() else {
        return Ok(());
    };
    // DAGC's checksum lookup and SplitGC's/CAGC's fingerprint-store update are one kind of
    // firmware work (`Compute::FingerprintLookup`), priced once.
    if c.ns.fingerprint_lookup.is_none() && a.dagc_write_us != a.fp_manage_us {
        return Err(Fail(
            2,
            format!(
                "--dagc-write-us {} and --fp-manage-us {}: with --cpu-cost on both price one \
                 fingerprint-store lookup on the controller (fingerprint_lookup); give them one \
                 value, or set it with --cpu-ns fingerprint_lookup=NS",
                a.dagc_write_us, a.fp_manage_us
            ),
        ));
    }
    c.ns.fingerprint.get_or_insert(a.fp_gen_us * 1e3);
    c.ns.fingerprint_lookup.get_or_insert(a.fp_manage_us * 1e3);
    c.ns.ecc_decode.get_or_insert(a.ecc_us * 1e3);
    Ok(())
}

/// The schemes named by `--scheme`, with the flags' parameters.
fn schemes(a: &DedupArgs) -> Result<Vec<Scheme>, Fail> {
    let rule = a.rule.trim().to_ascii_lowercase();
    if !["per-free", "min-nondup", "dup-first", "min-valid"].contains(&rule.as_str()) {
        return Err(Fail(
            2,
            format!(
                "--rule `{rule}`: allowed values are per-free, min-nondup, dup-first, min-valid"
            ),
        ));
    }
    let wb = a.writeback.trim().to_ascii_lowercase();
    if !["keep", "rescrub", "once"].contains(&wb.as_str()) {
        return Err(Fail(
            2,
            format!("--writeback `{wb}`: allowed values are keep, rescrub, once"),
        ));
    }
    let (ecc, fp, fpm) = (
        us("--ecc-us", a.ecc_us)?,
        us("--fp-gen-us", a.fp_gen_us)?,
        us("--fp-manage-us", a.fp_manage_us)?,
    );
    let dagc_us = us("--dagc-write-us", a.dagc_write_us)?;
    let yn = |b: bool| if b { "yes" } else { "no" };
    let mut names: Vec<String> = Vec::new();
    for s in split_list("--scheme", &a.scheme)? {
        match s.as_str() {
            "all" => names.extend(["greedy", "cagc", "dagc", "splitgc"].map(String::from)),
            "bounds" => names.extend(["cagc:index=full", "dagc:cache=unbounded"].map(String::from)),
            _ => names.push(s),
        }
    }
    let mut out = Vec::new();
    for n in names {
        let (base, params) = match n.split_once(':') {
            Some((b, p)) => (b.trim().to_ascii_lowercase(), format!(",{p}")),
            None => (n.trim().to_ascii_lowercase(), String::new()),
        };
        let scheme = match base.as_str() {
            "greedy" if params.is_empty() => Scheme::new("greedy", "greedy", "move"),
            "splitgc" | "split-gc" => {
                let victim = if rule == "min-valid" {
                    "greedy".to_string()
                } else {
                    format!("splitgc:rule={rule}")
                };
                let action = format!(
                    "splitgc:groups={},bloom_bits={},writeback={wb},prescrub={},scrub={},ecc_us={ecc},fp_us={fp},fpm_us={fpm}{params}",
                    a.scrub_groups,
                    a.bloom_bits,
                    yn(!a.no_prescrub),
                    yn(!a.no_scrub)
                );
                let name = if rule == "per-free" {
                    "splitgc".to_string()
                } else {
                    format!("splitgc ({rule})")
                };
                Scheme::new(&format!("{name}{}", params.replacen(',', ":", 1)), &victim, &action)
            }
            "cagc" => Scheme::new(
                &n,
                "greedy",
                &format!("cagc:fp_us={fp},fpm_us={fpm}{params}"),
            ),
            "dagc" => Scheme::new(&n, "dagc", &format!("dagc:lookup_us={dagc_us}{params}")),
            _ => {
                return Err(Fail(
                    2,
                    format!(
                        "--scheme `{n}`: allowed schemes are greedy, cagc, dagc, splitgc (cagc/dagc/splitgc with :PARAMS), all, bounds"
                    ),
                ))
            }
        };
        out.push(scheme);
    }
    if out.is_empty() {
        // An empty list would run nothing and print only the notes.
        return Err(Fail(
            2,
            format!(
                "--scheme `{}`: give at least one scheme: greedy, cagc, dagc, splitgc, all, bounds",
                a.scheme
            ),
        ));
    }
    Ok(out)
}

/// Runs one scheme through the one host driver: open loop at the trace's times, or Poisson
/// arrivals at `--rate` for synthetic workloads; foreground GC; idle-time background work.
/// Returns the result and the wall-clock seconds of the run.
fn run_one(a: &DedupArgs, cfg: &Config, scheme: &Scheme) -> Result<(RunResult, f64), Fail> {
    let mut cfg = cfg.clone();
    cfg.run.victim = scheme.victim.clone();
    cfg.run.gc_action = scheme.gc_action.clone();
    let wl = crate::open_workload(&mut cfg, &a.trace)?;
    let synthetic = matches!(
        WorkloadSpec::parse("run.workload", &cfg.run.workload)?,
        WorkloadSpec::Synthetic(_)
    );
    let rate = match (a.rate, synthetic) {
        (Some(r), _) => Some(r),
        (None, true) => Some(DEFAULT_RATE),
        (None, false) => None,
    };
    let mut wl: Box<dyn flashgc_core::workload::Workload> = match rate {
        // Seeded as the retired dedup driver seeded its arrival process.
        Some(r) => Box::new(PoissonArrivals::new(wl, r, 0x0A77_17A1 ^ cfg.content.pool)?),
        None => wl,
    };
    let mut p = TimingParams {
        host: Host::OpenLoop { time_scale: 1.0 },
        multiplane: a.multiplane,
        idle_us: us("--idle-us", a.idle_us)?,
        max_requests: a.requests,
        ..TimingParams::default()
    };
    flashgc_core::device::policy::apply_options(
        &mut p.controller,
        flashgc_core::device::policy::Options {
            scheduler: None,
            suspend: None,
            suspend_us: None,
            resume_us: None,
            max_suspends: None,
            dram_ns: None,
            channel: a.channel.as_deref(),
        },
        &|k| format!("--{}", k.replace('_', "-")),
    )?;
    cpu_params(a, &mut p)?;
    let t = std::time::Instant::now();
    let (r, _) = crate::cmd_run::run_with_bar(&cfg, Some(p), wl.as_mut())?;
    Ok((r, t.elapsed().as_secs_f64()))
}

fn human(s: &Scheme, r: &RunResult, secs: f64) -> String {
    let d = r.dedup.as_ref();
    let c = d.map(|d| d.counters.clone()).unwrap_or_default();
    let t = r.timing.as_ref();
    let (rd, wr) = match t {
        Some(t) => (t.read_latency.clone(), t.write_latency.clone()),
        None => {
            let z = flashgc_core::metrics::latency::Latencies::default().summary();
            (z.clone(), z)
        }
    };
    let mem: Vec<String> = d
        .map(|d| {
            d.ssd_metadata
                .iter()
                .filter(|(_, b)| *b > 0)
                .map(|(n, b)| {
                    format!(
                        "{n} {:.3}",
                        *b as f64 / r.device.layout.logical_pages as f64
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    // A direction without requests says so: its zeros would read as instant service.
    let lat = |name: &str, l: &flashgc_core::metrics::latency::LatencySummary| {
        if l.count == 0 {
            format!("{name:5} no requests")
        } else {
            format!(
                "{name:5} avg {:>9.1} us p99 {:>9.1} us p99.99 {:>9.1} us ({} req)",
                l.mean_us, l.p99_us, l.p9999_us, l.count
            )
        }
    };
    format!(
        "  {:<22} migrated {:>9} | deferred {:>7} (written back {:>7}, pending {:>6}) | remapped {:>7} | reused writes {:>7} | erases {:>7} | WAF {:.3}\n\
         \x20                        {}\n\
         \x20                        {}\n\
         \x20                        {} | SSD metadata B/LPN: {} | scrub {} pages ({} fingerprinted) | content check {} reads OK | {:.0} requests/s simulated (wall clock)\n",
        s.name,
        r.total.gc_writes,
        c.deferred_queued,
        c.deferred_written,
        d.map_or(0, |d| d.deferred_pending),
        c.remapped,
        c.revived + c.shared,
        r.total.erases,
        r.total.waf,
        lat("read", &rd),
        lat("write", &wr),
        d.map_or("move (no content tracking)".to_string(), |d| d.gc_action.clone()),
        if mem.is_empty() { "-".into() } else { mem.join(", ") },
        c.scrub_pages,
        c.scrub_fp_pages,
        c.checked_reads,
        t.map_or(0.0, |t| t.requests as f64) / secs.max(1e-9),
    ) + &cpu_line(r)
}

/// The firmware CPU's line of a scheme's table (empty with the cost model off).
fn cpu_line(r: &RunResult) -> String {
    let Some(c) = r.timing.as_ref().and_then(|t| t.cpu.as_ref()) else {
        return String::new();
    };
    let busy = c.utilization.iter().sum::<f64>() / c.utilization.len().max(1) as f64;
    let ms = |ns: u64| ns as f64 / 1e6;
    format!(
        "\x20                        firmware CPU busy {:.1} % ({} core(s)): fingerprints {:.1} ms, lookups {:.1} ms, ECC {:.1} ms | CPU queueing {:.1} us per request\n",
        busy * 100.0,
        c.cores,
        ms(c.time_ns.fingerprint),
        ms(c.time_ns.fingerprint_lookup),
        ms(c.time_ns.ecc),
        c.queueing_us_per_request,
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
    crate::output::not_an_input("-o", a.output.as_deref(), &cfg, common.config.as_deref())?;
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
    match a.gc_scope.trim() {
        "device" => {}
        "plane" => return Err(Fail(
            2,
            "--gc-scope plane: per-plane GC (SSDsim) is not modelled by the core FTL; use device"
                .into(),
        )),
        o => {
            return Err(Fail(
                2,
                format!("--gc-scope `{o}`: allowed value is device"),
            ))
        }
    }
    if common.gc_action.is_some() || common.victim.is_some() {
        return Err(Fail(
            2,
            "flashgc dedup chooses the victim and GC action per scheme (--scheme); use flashgc run/compare --victim/--gc-action for other pairs".into(),
        ));
    }
    cfg.layout()?;
    crate::prepare_trace(&mut cfg, &a.trace)?;
    let schemes = schemes(a)?;
    // Each scheme replaces the file's victim and GC action.
    crate::args::flag_sets(&["run.victim", "run.gc_action"]);
    let l = cfg.layout()?;
    // Each write frontier may need a fresh segment within one victim's relocation (CAGC
    // has two): every scheme gets the same floor of 3 so that a comparison runs with the
    // same reserve.
    if l.gc_low < 3 {
        use flashgc_core::config::Watermark;
        cfg.ftl.gc_low = Watermark::Segments(3);
        cfg.ftl.gc_high = Some(Watermark::Segments(
            l.gc_high.max(3) + (l.gc_high - l.gc_low),
        ));
    }
    let l = cfg.layout()?;
    let mut reports = Vec::new();
    let mut text = String::new();
    for s in &schemes {
        let (r, secs) = run_one(a, &cfg, s)?;
        if text.is_empty() {
            text = format!(
                "dedup-aware GC (papers/splitgc.txt): {} logical / {} physical pages (op {:.3} of logical), fill {:.2}, GC reserve {} segments\n  workload: {}, dup ratio {}{}\n",
                l.logical_pages,
                l.physical_pages,
                l.op,
                cfg.run.fill,
                l.gc_low,
                r.workload,
                cfg.content.dup_ratio,
                r.dedup
                    .as_ref()
                    .map(|d| format!(" (measured duplicate share at the end: {:.3})", d.measured_dup_share))
                    .unwrap_or_default()
            );
        }
        text += &human(s, &r, secs);
        reports.push(DedupRun {
            scheme: s.clone(),
            result: r,
        });
        if crate::interrupt::exit_code().is_some() {
            break;
        }
    }
    let json = serde_json::to_string_pretty(&reports).map_err(|e| Fail(1, e.to_string()))?;
    // Printed first, then written: a result that cannot be saved is still shown.
    if a.json {
        println!("{json}");
    } else {
        print!("{text}");
        println!("  {NOTE}");
    }
    crate::output::save_printed(a.output.as_deref(), json.as_bytes())?;
    crate::interrupt::finish()
}
