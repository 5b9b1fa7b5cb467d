//! Timing-mode flags (`run --timing`, `compare --timing`), the timed run driver, and the
//! `flashgc fio` subcommand (fio-like closed-loop jobs, the sup-gc / bf-gc write-ratio
//! series). The model is in `flashgc_core::timing`; see docs/timing.md.

use flashgc_core::sim::Progress;
use flashgc_core::timing::cache::CachePolicy;
use flashgc_core::timing::fio::{Dist, FioJob, PaperSeries, Rw};
use flashgc_core::timing::{Alloc, GcMode, Host, TimedSim, TimingParams, TimingReport};
use flashgc_core::workload::Workload;
use flashgc_core::{Config, Error, Result, RunResult, Simulation};
use std::fmt::Write as _;

/// Flags of the timing layer, shared by `run`, `compare` and `fio`.
#[derive(Debug, Clone, clap::Args, Default)]
pub struct TimingFlags {
    /// Simulate flash timing (latency, IOPS) on top of the FTL. Off: WAF-only, fastest.
    #[arg(long)]
    pub timing: bool,
    /// Host model: closed (keep numjobs x iodepth requests outstanding) or open (replay at
    /// the trace's timestamps; scale them with --time-scale). Default: open for traces,
    /// closed for synthetic and fio workloads.
    #[arg(long)]
    pub host: Option<String>,
    /// Outstanding requests per job (closed loop; default 32, or 1 with --paper).
    #[arg(long)]
    pub iodepth: Option<u32>,
    /// Jobs (closed loop; default 1, or 10 with --paper).
    #[arg(long)]
    pub numjobs: Option<u32>,
    /// fio access pattern: randrw, randwrite, randread, write, read (replaces --workload).
    #[arg(long)]
    pub rw: Option<String>,
    /// Percentage of writes for randrw (0-100; implies --rw randrw).
    #[arg(long)]
    pub rwmixwrite: Option<f64>,
    /// fio block size, bytes (suffixes k, m, g = KiB, MiB, GiB), default 4k.
    #[arg(long)]
    pub bs: Option<String>,
    /// Region the fio jobs address, bytes from offset 0 (suffixes k, m, g); default: the whole device.
    #[arg(long)]
    pub size: Option<String>,
    /// fio offset distribution: uniform or zipf:THETA.
    #[arg(long)]
    pub distribution: Option<String>,
    /// The write-ratio series of a paper: sup-gc (randrw 4k, 10 jobs, 700 GB, points every
    /// 100 GB) or bf-gc (300 GB); volumes scale from the paper's 1 TiB Cosmos+ to this device.
    #[arg(long)]
    pub paper: Option<String>,
    /// Host data to transfer (reads + writes), decimal GB; paper-equivalent GB with --paper.
    #[arg(long)]
    pub data_gb: Option<f64>,
    /// Report a series point every this many GB of host data (paper-equivalent with --paper).
    #[arg(long)]
    pub checkpoint_gb: Option<f64>,
    /// DRAM write cache, MiB (0 = none).
    #[arg(long)]
    pub cache_mib: Option<f64>,
    /// Write-cache replacement: lru, gcar (GC-aware, first non-collecting page within
    /// --gcar-window) or gcar-opt (the sup-gc paper's GCaR-Optimized: traverses 1 % of the
    /// cache at every eviction; the result counts the entries scanned).
    #[arg(long)]
    pub cache_policy: Option<String>,
    /// Cache entries GCaR scans from the LRU end.
    #[arg(long)]
    pub gcar_window: Option<u32>,
    /// GC scheduling: foreground, per-die, preemptible, background, idle.
    #[arg(long)]
    pub gc_mode: Option<String>,
    /// Background / idle GC collects while fewer segments than this are free (default gc_high + 2).
    #[arg(long)]
    pub bg_free: Option<u32>,
    /// Host idle time before idle-time GC starts, microseconds (default 1000).
    #[arg(long)]
    pub idle_us: Option<f64>,
    /// Preemptible/background/idle GC: queued GC operations scheduled per host request
    /// besides those fitting in idle gaps (default 16; 0 = idle gaps only, GC forced when space runs out).
    #[arg(long)]
    pub gc_pace: Option<u32>,
    /// Page allocation over parallel units: static or first-idle.
    #[arg(long)]
    pub alloc: Option<String>,
    /// Striping order of parallel units, a permutation of CWDP (first letter varies fastest).
    #[arg(long)]
    pub striping: Option<String>,
    /// Multi-plane operation (planes of a die work concurrently): on or off (default on).
    #[arg(long)]
    pub multiplane: Option<String>,
    /// On-die copyback for GC moves within a plane: on or off (default: the preset's).
    #[arg(long)]
    pub copyback: Option<String>,
}

fn on_off(field: &str, s: &str) -> Result<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(Error::config(field, format!("`{s}`: allowed on, off"))),
    }
}

/// Parses a byte count with an optional binary suffix (k, m, g, t; `KiB` etc. accepted).
pub fn parse_bytes(field: &str, s: &str) -> Result<u64> {
    let t = s.trim().to_ascii_lowercase();
    let t = t.trim_end_matches("ib").trim_end_matches('b');
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let v: f64 = num.trim().parse().map_err(|_| {
        Error::config(
            field,
            format!("`{s}` is not a size (e.g. 4096, 4k, 16KiB, 1g)"),
        )
    })?;
    if !(v.is_finite() && v > 0.0 && v * (mult as f64) < 1.8e19) {
        return Err(Error::config(
            field,
            format!("`{s}` must be a positive size"),
        ));
    }
    Ok((v * mult as f64).round() as u64)
}

impl TimingFlags {
    /// Whether the flags ask for a fio job instead of the configured workload.
    pub fn wants_fio(&self) -> bool {
        self.rw.is_some()
            || self.rwmixwrite.is_some()
            || self.bs.is_some()
            || self.paper.is_some()
            || self.distribution.is_some()
    }

    /// Whether any flag besides `--timing` is set (they need `--timing`).
    pub fn any_timing_flag(&self) -> bool {
        let f = TimingFlags {
            timing: false,
            ..self.clone()
        };
        format!("{f:?}") != format!("{:?}", TimingFlags::default())
    }

    /// The fio job the flags describe (`--rwmixwrite` alone implies randrw).
    pub fn job(&self, cfg: &Config) -> Result<FioJob> {
        let paper = self.paper.as_deref().map(PaperSeries::named).transpose()?;
        let rw = match (&self.rw, self.rwmixwrite, &paper) {
            (Some(r), _, _) => Rw::parse(r)?,
            (None, Some(_), _) | (None, None, Some(_)) => Rw::RandRw,
            (None, None, None) => Rw::RandWrite,
        };
        Ok(FioJob {
            rw,
            rwmixwrite: self.rwmixwrite.unwrap_or(50.0),
            bs: self
                .bs
                .as_deref()
                .map(|b| parse_bytes("--bs", b))
                .transpose()?
                .unwrap_or(4096),
            size: self
                .size
                .as_deref()
                .map(|b| parse_bytes("--size", b))
                .transpose()?,
            numjobs: self.numjobs.or(paper.map(|p| p.numjobs)).unwrap_or(1),
            iodepth: self.iodepth.or(paper.map(|p| p.iodepth)).unwrap_or(32),
            dist: self
                .distribution
                .as_deref()
                .map(Dist::parse)
                .transpose()?
                .unwrap_or(Dist::Uniform),
            seed: cfg.run.seed,
        })
    }

    /// The timing parameters for `cfg`; `closed_default` picks the host model when
    /// `--host` is not given.
    pub fn params(&self, cfg: &Config, closed_default: bool) -> Result<TimingParams> {
        let l = cfg.layout()?;
        let mut p = TimingParams::default();
        let job = if self.wants_fio() {
            Some(self.job(cfg)?)
        } else {
            None
        };
        let qd = match &job {
            Some(j) => j.queue_depth(),
            None => self
                .numjobs
                .unwrap_or(1)
                .saturating_mul(self.iodepth.unwrap_or(32)),
        };
        let closed = match self.host.as_deref().map(|h| h.trim().to_ascii_lowercase()) {
            None => closed_default || job.is_some(),
            Some(h) if h == "closed" => true,
            Some(h) if h == "open" => false,
            Some(h) => {
                return Err(Error::config(
                    "--host",
                    format!("`{h}`: allowed open, closed"),
                ))
            }
        };
        if !closed && job.is_some() {
            return Err(Error::config(
                "--host",
                "fio jobs (--rw, --rwmixwrite, --bs, --paper) run closed loop",
            ));
        }
        // Trace times are already scaled by the trace reader's --time-scale.
        p.host = if closed {
            Host::ClosedLoop { queue_depth: qd }
        } else {
            Host::OpenLoop { time_scale: 1.0 }
        };
        let paper = self.paper.as_deref().map(PaperSeries::named).transpose()?;
        let scale = paper.map(|s| s.scale(l.logical_bytes())).unwrap_or(1.0);
        p.volume_scale = scale;
        let gb = |field: &str, v: f64| -> Result<u64> {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::config(
                    field,
                    format!("{v} must be a positive number of GB"),
                ));
            }
            Ok((v * 1e9 * scale).round().max(1.0) as u64)
        };
        p.data_volume_bytes = match (self.data_gb, paper, &job) {
            (Some(v), _, _) => Some(gb("--data-gb", v)?),
            (None, Some(s), _) => Some((s.volume_bytes as f64 * scale).round() as u64),
            // fio semantics: each job transfers `size` bytes.
            (None, None, Some(j)) => Some(
                j.size
                    .unwrap_or(l.logical_bytes())
                    .saturating_mul(j.numjobs as u64),
            ),
            (None, None, None) => None,
        };
        p.checkpoint_bytes = match (self.checkpoint_gb, paper) {
            (Some(v), _) => gb("--checkpoint-gb", v)?,
            (None, Some(s)) => (s.checkpoint_bytes as f64 * scale).round().max(1.0) as u64,
            (None, None) => 0,
        };
        if let Some(m) = self.cache_mib {
            if !(m.is_finite() && m >= 0.0) {
                return Err(Error::config("--cache-mib", format!("{m} must be >= 0")));
            }
            p.cache_pages = (m * (1u64 << 20) as f64 / l.lpn_size as f64).round() as u64;
        }
        if let Some(c) = &self.cache_policy {
            p.cache_policy = match c.trim().to_ascii_lowercase().as_str() {
                "lru" => CachePolicy::Lru,
                "gcar" => CachePolicy::Gcar,
                "gcar-opt" => CachePolicy::GcarOpt,
                _ => {
                    return Err(Error::config(
                        "--cache-policy",
                        format!("`{c}`: allowed lru, gcar, gcar-opt"),
                    ))
                }
            };
            if p.cache_pages == 0 {
                return Err(Error::config(
                    "--cache-policy",
                    "needs a cache: give --cache-mib",
                ));
            }
        }
        if let Some(w) = self.gcar_window {
            p.gcar_window = w.max(1);
        }
        if let Some(m) = &self.gc_mode {
            p.gc_mode = GcMode::parse("--gc-mode", m)?;
        }
        p.bg_free = self.bg_free;
        if let Some(v) = self.gc_pace {
            p.gc_pace = v;
        }
        if let Some(v) = self.idle_us {
            p.idle_us = v;
        }
        if let Some(a) = &self.alloc {
            p.alloc = match a.trim().to_ascii_lowercase().as_str() {
                "static" => Alloc::Static,
                "first-idle" | "dynamic" => Alloc::FirstIdle,
                _ => {
                    return Err(Error::config(
                        "--alloc",
                        format!("`{a}`: allowed static, first-idle"),
                    ))
                }
            };
        }
        if let Some(s) = &self.striping {
            p.striping = s.clone();
        }
        if let Some(m) = &self.multiplane {
            p.multiplane = on_off("--multiplane", m)?;
        }
        if let Some(c) = &self.copyback {
            p.copyback = Some(on_off("--copyback", c)?);
        }
        Ok(p)
    }
}

/// Runs one configuration, timed or WAF-only according to `flags`.
pub fn run(
    flags: &TimingFlags,
    cfg: &Config,
    workload: &mut dyn Workload,
    progress: &mut dyn FnMut(&Progress),
) -> Result<RunResult> {
    if !flags.timing {
        if flags.wants_fio() {
            return Err(Error::config("--timing", "fio flags (--rw, --rwmixwrite, --bs, --paper) need --timing (or use `flashgc fio`)"));
        }
        if flags.any_timing_flag() {
            return Err(Error::config(
                "--timing",
                "timing flags were given without --timing (WAF-only runs ignore them)",
            ));
        }
        let mut sim = Simulation::new(cfg)?;
        return sim.run(workload, progress);
    }
    let p = flags.params(cfg, workload.is_infinite())?;
    let mut ts = TimedSim::new(cfg, p)?;
    if flags.wants_fio() {
        let l = cfg.layout()?;
        let mut wl = flags.job(cfg)?.workload(l.logical_pages, l.lpn_size)?;
        ts.run(&mut wl, progress)
    } else {
        ts.run(workload, progress)
    }
}

/// Human-readable summary of a timing report (for `run --timing` output).
pub fn human(t: &TimingReport) -> String {
    let mut s = String::new();
    let lat = |name: &str, l: &flashgc_core::timing::LatencySummary| {
        format!(
            "  {name:5} latency us: mean {:.1} | p50 {:.1} | p99 {:.1} | p99.9 {:.1} | p99.99 {:.1} | max {:.1}  ({} requests)\n",
            l.mean_us, l.p50_us, l.p99_us, l.p999_us, l.p9999_us, l.max_us, l.count
        )
    };
    let _ = writeln!(
        s,
        "\ntiming: {:.3} s simulated, {:.0} IOPS, {:.1} MB/s, GC {:.1} % of flash busy time",
        t.simulated_ns as f64 / 1e9,
        t.iops,
        t.bandwidth_mb_s,
        t.gc_time_share * 100.0
    );
    s += &lat("read", &t.read_latency);
    s += &lat("write", &t.write_latency);
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let max = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
    let _ = writeln!(
        s,
        "  utilization: channels mean {:.1} % max {:.1} %; {}s mean {:.1} % max {:.1} %",
        mean(&t.channel_utilization) * 100.0,
        max(&t.channel_utilization) * 100.0,
        t.cell_unit,
        mean(&t.cell_utilization) * 100.0,
        max(&t.cell_utilization) * 100.0
    );
    if let Some(c) = &t.cache {
        let _ = writeln!(
            s,
            "  write cache {:?} {} pages: {} write hits, {} read hits, {} evictions ({} GCaR skips, {} entries scanned), {} dirty at end",
            c.policy, c.pages, c.write_hits, c.read_hits, c.evictions, c.gcar_skips, c.scanned_entries, c.dirty_at_end
        );
    }
    if !t.series.is_empty() {
        s += &series_table(&[("", t)]);
    }
    s
}

fn series_table(rows: &[(&str, &TimingReport)]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "  {:14} {:>9} {:>10} {:>9} {:>11} {:>11} {:>9} {:>11} {:>7}",
        "scheme", "GB(eq)", "IOPS", "MB/s", "rd p99 us", "wr p99 us", "erases", "GC moves", "WAF"
    );
    for (name, t) in rows {
        for p in &t.series {
            let _ = writeln!(
                s,
                "  {:14} {:>9.1} {:>10.0} {:>9.1} {:>11.1} {:>11.1} {:>9} {:>11} {:>7.3}",
                name,
                p.equivalent_gb,
                p.iops,
                p.bandwidth_mb_s,
                p.read.p99_us,
                p.write.p99_us,
                p.erases,
                p.gc_page_moves,
                p.waf_cumulative
            );
        }
    }
    s
}

/// `flashgc fio`: fio-like closed-loop jobs on one or more placement x victim schemes.
#[derive(Debug, clap::Args)]
pub struct FioArgs {
    #[command(flatten)]
    common: crate::CommonArgs,
    #[command(flatten)]
    timing: TimingFlags,
    /// Print the results as JSON (an array, one per scheme).
    #[arg(long)]
    json: bool,
    /// Also write the JSON results to this file.
    #[arg(long, short = 'o')]
    output: Option<String>,
}

/// Runs `flashgc fio`; returns the exit code (2: bad input, 1: run-time failure).
pub fn fio(args: &FioArgs) -> i32 {
    match fio_inner(args) {
        Ok(()) => 0,
        Err(crate::Fail(code, msg)) => {
            if !msg.is_empty() {
                eprintln!("flashgc: error: {msg}");
            }
            code as i32
        }
    }
}

fn fio_inner(args: &FioArgs) -> std::result::Result<(), crate::Fail> {
    let base = crate::build_config(&args.common)?;
    base.layout()?;
    let mut flags = args.timing.clone();
    flags.timing = true;
    if !flags.wants_fio() {
        flags.rw = Some("randwrite".into());
    }
    let mut results = Vec::new();
    for p in crate::split_list(&base.run.placement) {
        for v in crate::split_list(&base.run.victim) {
            let mut c = base.clone();
            c.run.placement = p.clone();
            c.run.victim = v.clone();
            let params = flags.params(&c, true)?;
            let l = c.layout()?;
            let job = flags.job(&c)?;
            let mut wl = job.workload(l.logical_pages, l.lpn_size)?;
            let mut ts = TimedSim::new(&c, params)?;
            let r = ts.run(&mut wl, &mut |_| {})?;
            results.push((format!("{p}+{v}"), r));
        }
    }
    let rs: Vec<&RunResult> = results.iter().map(|r| &r.1).collect();
    let json = serde_json::to_string_pretty(&rs).map_err(|e| crate::Fail(1, e.to_string()))?;
    if let Some(path) = &args.output {
        crate::output::write_atomic(path, json.as_bytes())
            .map_err(|e| crate::Fail(1, format!("{path}: {e}")))?;
    }
    if args.json {
        println!("{json}");
        return Ok(());
    }
    let first = &results[0].1;
    println!(
        "{} on {} ({:.2} GiB logical)",
        first.workload,
        first.device.preset.as_deref().unwrap_or("custom"),
        first.device.logical_gib
    );
    let mut rows = Vec::new();
    for (name, r) in &results {
        let t = r.timing.as_ref().expect("timed run");
        println!(
            "{name:22} IOPS {:>9.0}  MB/s {:>8.1}  read p99 {:>9.1} us  write p99 {:>9.1} us  WAF {:.3}  erases {}  GC moves {}",
            t.iops, t.bandwidth_mb_s, t.read_latency.p99_us, t.write_latency.p99_us, r.total.waf, r.total.erases, r.total.gc_writes
        );
        rows.push((name.as_str(), t));
    }
    if rows.iter().any(|r| !r.1.series.is_empty()) {
        println!("\nseries over host data volume (GB(eq): paper-equivalent GB when --paper scales the volume)");
        print!("{}", series_table(&rows));
    }
    for n in &first.notes {
        println!("note: {n}");
    }
    Ok(())
}
