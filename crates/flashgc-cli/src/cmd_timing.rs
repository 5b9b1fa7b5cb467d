//! Timing-mode flags (`run --timing`, `compare --timing`, `flashgc fio`) and the timed run
//! driver. The model is in `flashgc_core::timing`; see docs/timing.md. The `flashgc fio`
//! subcommand is `cmd_fio`, the human summary `timing_summary`.

use flashgc_core::sim::{Progress, RunControl, RunEnd};
use flashgc_core::timing::{OptValue, TimingOptions, TimingParams, MIN_CHECKPOINT_BYTES};
use flashgc_core::workload::fio::{BlockSizeMix, Dist, FioJob, PaperSeries, Rw};
use flashgc_core::workload::Workload;
use flashgc_core::{Config, Error, Result, RunResult};

/// Most requests outstanding at once (the core's queue-depth limit, `numjobs x iodepth`).
const MAX_QUEUE_DEPTH: u64 = 1 << 20;

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
    #[arg(long, allow_negative_numbers = true)]
    pub iodepth: Option<u32>,
    /// Jobs (closed loop; default 1, or 10 with --paper).
    #[arg(long, allow_negative_numbers = true)]
    pub numjobs: Option<u32>,
    /// fio access pattern: randrw, randwrite, randread, write, read, trim, randtrim, trimwrite,
    /// randtrimwrite (replaces --workload).
    #[arg(long)]
    pub rw: Option<String>,
    /// Percentage of writes for randrw (0-100; implies --rw randrw).
    #[arg(long, allow_negative_numbers = true)]
    pub rwmixwrite: Option<f64>,
    /// fio block size, bytes (suffixes k, m, g = KiB, MiB, GiB), default 4k.
    #[arg(long)]
    pub bs: Option<String>,
    /// fio's bssplit: request lengths with their shares, e.g. 4k/50:64k/30:256k/20, or
    /// READS,WRITES lists (4k/100,64k/100); replaces --bs for the directions it lists.
    #[arg(long)]
    pub bssplit: Option<String>,
    /// Region the fio jobs address, bytes from offset 0 (suffixes k, m, g); default: the whole device.
    #[arg(long)]
    pub size: Option<String>,
    /// fio offset distribution (fio's random_distribution): uniform, zipf:THETA[:CENTER],
    /// pareto:H[:CENTER], normal:DEV[:CENTER], zoned:A/S[:A/S...], zoned_abs:A/SIZE[:...].
    #[arg(long)]
    pub distribution: Option<String>,
    /// The write-ratio series of a paper: sup-gc (randrw 4k, 10 jobs, 700 GB, points every
    /// 100 GB) or bf-gc (300 GB); volumes scale from the paper's 1 TiB Cosmos+ to this device.
    #[arg(long)]
    pub paper: Option<String>,
    /// Host data to transfer (reads + writes), decimal GB; paper-equivalent GB with --paper
    /// (default, as fio: numjobs x --size, the whole device without --size; --write-volume
    /// and --warmup do not apply to fio jobs).
    #[arg(long, allow_negative_numbers = true)]
    pub data_gb: Option<f64>,
    /// Report a series point every this many GB of host data (paper-equivalent with --paper);
    /// at least 1 MiB of host data (0.001048576 GB).
    #[arg(long, allow_negative_numbers = true)]
    pub checkpoint_gb: Option<f64>,
    /// DRAM write cache, MiB (0 = none).
    #[arg(long, allow_negative_numbers = true)]
    pub cache_mib: Option<f64>,
    /// Write-cache replacement: lru, gcar (GC-aware, first non-collecting page within
    /// --gcar-window) or gcar-opt (the sup-gc paper's GCaR-Optimized: traverses 1 % of the
    /// cache at every eviction; the result counts the entries scanned).
    #[arg(long)]
    pub cache_policy: Option<String>,
    /// Cache entries GCaR scans from the LRU end.
    #[arg(long, allow_negative_numbers = true)]
    pub gcar_window: Option<u32>,
    /// GC scheduling: foreground, per-die, preemptible, background, idle.
    #[arg(long)]
    pub gc_mode: Option<String>,
    /// Background / idle GC collects while fewer segments than this are free (default gc_high + 2).
    #[arg(long, allow_negative_numbers = true)]
    pub bg_free: Option<u32>,
    /// Host idle time before idle-time GC starts, microseconds (default 1000).
    #[arg(long, allow_negative_numbers = true)]
    pub idle_us: Option<f64>,
    /// Preemptible/background/idle GC: queued GC operations scheduled per host request
    /// besides those fitting in idle gaps (default 16; 0 = idle gaps only, GC forced when space runs out).
    #[arg(long, allow_negative_numbers = true)]
    pub gc_pace: Option<u32>,
    /// Page allocation over parallel units: static, first-idle or round-robin (Cosmos+'s
    /// die rotation; docs/timing.md).
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
    /// Device model: flash (channels, dies, planes) or noc (the NoC controller of
    /// papers/noc-copyback-gc.txt; `flashgc noc` is a shortcut). Default flash.
    #[arg(long)]
    pub device: Option<String>,
    /// NoC device: GC copy-back path, conventional or selective (implies --device noc).
    #[arg(long)]
    pub noc_path: Option<String>,
    /// NoC device: which interconnect crossings share a link: port | duplex | shared.
    #[arg(long)]
    pub interconnect: Option<String>,
    /// NoC device: probability that a relocated page has errors (paper: 1e-4).
    #[arg(long, allow_negative_numbers = true)]
    pub error_prob: Option<f64>,
    /// NoC device: page error probability from this bit error rate and the page size.
    #[arg(long, allow_negative_numbers = true)]
    pub ber: Option<f64>,
    /// NoC device: delay between neighbouring routing slices, ns (paper: 87).
    #[arg(long, allow_negative_numbers = true)]
    pub hop_ns: Option<f64>,
    /// NoC device: average slices a transfer unit passes (paper: 13.5).
    #[arg(long, allow_negative_numbers = true)]
    pub avg_slices: Option<f64>,
    /// NoC device: bits per transfer unit (paper: 4).
    #[arg(long, allow_negative_numbers = true)]
    pub unit_bits: Option<u32>,
    /// NoC device: ECC check time per page on the CPU, us (default 0).
    #[arg(long, allow_negative_numbers = true)]
    pub ecc_check_us: Option<f64>,
    /// NoC device: extra LDPC correction time for an erroneous page, us (default 0).
    #[arg(long, allow_negative_numbers = true)]
    pub ecc_correct_us: Option<f64>,
    /// NoC device: time-series window, ms (doubled as needed to keep at most 65 536 windows).
    #[arg(long, allow_negative_numbers = true)]
    pub window_ms: Option<f64>,
    /// Firmware CPU cost model: on or off (default off; docs/cpu.md). On, each scheme's CPU
    /// work (classifier per write, victim selection, GCaR scans, ECC, fingerprints) runs on
    /// the controller cores and the host's flash operations wait for it.
    #[arg(long)]
    pub cpu_cost: Option<String>,
    /// Firmware CPU: controller cores (default 1; implies --cpu-cost on).
    #[arg(long, allow_negative_numbers = true)]
    pub cpu_cores: Option<i64>,
    /// Firmware CPU: controller-core ns per host ns for costs calibrated on the simulation
    /// host (default 4; implies --cpu-cost on).
    #[arg(long, allow_negative_numbers = true)]
    pub cpu_scale: Option<f64>,
    /// Firmware CPU: explicit costs in controller-core ns, e.g. classifier=500,ecc_read=2000
    /// (keys: classifier, victim, cache_scan, ecc_read, ecc_decode, ecc_correct, fingerprint,
    /// fingerprint_lookup; implies --cpu-cost on).
    #[arg(long, allow_hyphen_values = true)]
    pub cpu_ns: Option<String>,
    /// Open loop at a fixed arrival rate, requests/s (workloads without timestamps).
    #[arg(long, allow_negative_numbers = true)]
    pub rate: Option<f64>,
    /// Stop after this many host requests.
    #[arg(long, allow_negative_numbers = true)]
    pub requests: Option<u64>,
    /// Queue policy of every die/channel: fcfs (default), read-first (MQSim's order: reads,
    /// writes, erases), host-first[:urgency=N] (GC wins below N free segments), noc-priority
    /// (R_host, W_host, R_gc, W_gc). See docs/controller.md.
    #[arg(long)]
    pub scheduler: Option<String>,
    /// Program/erase suspend for host reads: on or off (default off; flash device).
    #[arg(long)]
    pub suspend: Option<String>,
    /// Suspend latency, us (default 20; implies --suspend on).
    #[arg(long, allow_negative_numbers = true)]
    pub suspend_us: Option<f64>,
    /// Resume overhead, us (default 20; implies --suspend on).
    #[arg(long, allow_negative_numbers = true)]
    pub resume_us: Option<f64>,
    /// Most suspensions per program or erase, 1..=255 (default 4; implies --suspend on).
    #[arg(long, allow_negative_numbers = true)]
    pub max_suspends: Option<i64>,
    /// DRAM access per write-cache hit and mapping-cache hit, ns (default: write-cache hits
    /// cost the preset's SRAM access, mapping-cache hits nothing).
    #[arg(long, allow_negative_numbers = true)]
    pub dram_ns: Option<f64>,
    /// Channel arbitration: fifo (default: transfers hold a channel in commit order) or
    /// backfill (a transfer takes the first idle gap of its channel; docs/timing.md).
    #[arg(long)]
    pub channel: Option<String>,
}

/// The CLI spelling of a timing option (for error messages of the shared parser).
pub fn flag_name(key: &str) -> String {
    match key {
        "queue_depth" => "--iodepth".into(),
        "open_loop_time_scale" => "--host".into(),
        "rate_iops" => "--rate".into(),
        "max_requests" => "--requests".into(),
        "data_volume_bytes" | "data_volume" => "--data-gb".into(),
        "checkpoint_bytes" => "--checkpoint-gb".into(),
        "cache_pages" | "cache" => "--cache-mib".into(),
        "iodepth" => "--iodepth".into(),
        k => format!("--{}", k.replace('_', "-")),
    }
}

/// Parses a byte count with an optional binary suffix (k, m, g, t; `KiB` etc. accepted).
pub fn parse_bytes(field: &str, s: &str) -> Result<u64> {
    match flashgc_core::workload::fio::parse_size(s) {
        Some(b) if b > 0 => Ok(b),
        Some(_) => Err(Error::config(
            field,
            format!("`{s}` must be a positive size"),
        )),
        None => Err(Error::config(
            field,
            format!("`{s}` is not a size (e.g. 4096, 4k, 16KiB, 1g)"),
        )),
    }
}

impl TimingFlags {
    /// Whether the flags ask for a fio job instead of the configured workload.
    pub fn wants_fio(&self) -> bool {
        self.rw.is_some()
            || self.rwmixwrite.is_some()
            || self.bs.is_some()
            || self.bssplit.is_some()
            || self.paper.is_some()
            || self.distribution.is_some()
    }

    /// Whether any flag besides `--timing` is set (they need `--timing`).
    pub fn any_timing_flag(&self) -> bool {
        !self.timing_flags_given().is_empty()
    }

    /// The timing flags given, as `--name` (`--timing` itself left out), in the order of
    /// the struct. Read from the derived pretty `Debug` form, whose fields each start a
    /// line at one level of indentation (`    name: None,` when not given), so a flag added
    /// to the struct is covered without a list to keep in step; every field's flag is its
    /// name in kebab case (`#[arg(long)]`).
    pub fn timing_flags_given(&self) -> Vec<String> {
        format!("{self:#?}")
            .lines()
            .filter_map(|l| {
                let field = l.strip_prefix("    ")?;
                let (name, rest) = field.split_once(':')?;
                let given = !name.starts_with(' ') && name != "timing" && rest != " None,";
                given.then(|| format!("--{}", name.replace('_', "-")))
            })
            .collect()
    }

    /// The error for timing flags given without `--timing`, naming them.
    fn without_timing(&self) -> Error {
        let given = self.timing_flags_given();
        let (noun, verb) = match given.len() {
            1 => ("flag", "was"),
            _ => ("flags", "were"),
        };
        Error::config(
            "--timing",
            format!(
                "the timing {noun} {} {verb} given without --timing (a WAF-only run would \
                 ignore them): add --timing, or leave them out",
                given.join(", ")
            ),
        )
    }

    /// The fio job the flags describe (`--rwmixwrite` alone implies randrw).
    pub fn job(&self, cfg: &Config) -> Result<FioJob> {
        let paper = self.paper.as_deref().map(PaperSeries::named).transpose()?;
        let rw = match (&self.rw, self.rwmixwrite, &paper) {
            (Some(r), _, _) => Rw::parse(r)?,
            (None, Some(_), _) | (None, None, Some(_)) => Rw::RandRw,
            (None, None, None) => Rw::RandWrite,
        };
        let bs = self
            .bs
            .as_deref()
            .map(|b| parse_bytes("--bs", b))
            .transpose()?
            .unwrap_or(4096);
        let block_sizes = self
            .bssplit
            .as_deref()
            .map(|v| BlockSizeMix::parse_bssplit(v, bs).map_err(|m| Error::config("--bssplit", m)))
            .transpose()?;
        Ok(FioJob {
            rw,
            rwmixwrite: self.rwmixwrite.unwrap_or(50.0),
            bs,
            block_sizes,
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
                .map(|d| {
                    Dist::parse(d).map_err(|e| match e {
                        Error::Config { message, .. } => Error::config("--distribution", message),
                        e => e,
                    })
                })
                .transpose()?
                .unwrap_or(Dist::Uniform),
            seed: cfg.run.seed,
            seq_mix: None,
            seq_skip: 0,
            backwards: None,
            align: Default::default(),
        })
    }

    /// The timing parameters for `cfg`; `closed_default` picks the host model when
    /// `--host` is not given. Every option goes through the core's one parser
    /// ([`TimingOptions::apply`]); only fio and paper-series volumes are derived here.
    pub fn params(&self, cfg: &Config, closed_default: bool) -> Result<TimingParams> {
        let l = cfg.layout()?;
        let job = if self.wants_fio() {
            Some(self.job(cfg)?)
        } else {
            None
        };
        let (jobs, depth) = match &job {
            Some(j) => (j.numjobs, j.iodepth),
            None => (self.numjobs.unwrap_or(1), self.iodepth.unwrap_or(32)),
        };
        // The queue depth is checked as one number below, under --iodepth's name; a bad
        // --numjobs (or a product too large) is named here, with the product spelled out.
        let qd = jobs as u64 * depth as u64;
        if jobs == 0 || (jobs > 1 && qd > MAX_QUEUE_DEPTH) {
            return Err(Error::config(
                "--numjobs",
                format!(
                    "{jobs} jobs x iodepth {depth} = {qd} outstanding requests; \
                     must be in 1..={MAX_QUEUE_DEPTH}"
                ),
            ));
        }
        // Checked whichever host model runs: an open-loop run ignored a bad depth silently.
        if let Some(d) = self.iodepth {
            if d == 0 || d as u64 > MAX_QUEUE_DEPTH {
                return Err(Error::config(
                    "--iodepth",
                    format!("{d} must be in 1..={MAX_QUEUE_DEPTH}"),
                ));
            }
        }
        let closed = match self.host.as_deref().map(|h| h.trim().to_ascii_lowercase()) {
            None => (closed_default || job.is_some()) && self.rate.is_none(),
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
        if closed && self.rate.is_some() {
            return Err(Error::config(
                "--rate",
                "a fixed arrival rate is an open-loop host: drop --host closed",
            ));
        }
        let paper = self.paper.as_deref().map(PaperSeries::named).transpose()?;
        let scale = paper.map(|s| s.scale(l.logical_bytes())).unwrap_or(1.0);
        let gb = |field: &str, v: f64| -> Result<u64> {
            // The core's bound on a run's host data (2^60 bytes): past it a run does not
            // end in any useful time.
            let most = flashgc_core::timing::MAX_DATA_VOLUME_BYTES as f64 / (1e9 * scale);
            if !(v.is_finite() && v > 0.0 && v <= most) {
                return Err(Error::config(
                    field,
                    format!("{v} must be a positive number of GB, at most {most:.3e}"),
                ));
            }
            Ok((v * 1e9 * scale).round().max(1.0) as u64)
        };
        let data_volume = match (self.data_gb, paper, &job) {
            (Some(v), _, _) => Some(gb("--data-gb", v)?),
            (None, Some(s), _) => Some((s.volume_bytes as f64 * scale).round() as u64),
            // fio semantics: each job transfers `size` bytes (twice for trim-then-write:
            // each byte trimmed, then written).
            (None, None, Some(j)) => Some(
                j.size
                    .unwrap_or(l.logical_bytes())
                    .saturating_mul(j.numjobs as u64)
                    .saturating_mul(j.rw.trim_mode().per_block()),
            ),
            (None, None, None) => None,
        };
        let checkpoint = match (self.checkpoint_gb, paper) {
            (Some(v), _) => {
                // The floor in the option's unit: paper-equivalent GB with --paper.
                let least = MIN_CHECKPOINT_BYTES as f64 / (1e9 * scale);
                if !(v.is_finite() && v >= least) {
                    let unit = if paper.is_some() {
                        "paper-equivalent GB"
                    } else {
                        "GB"
                    };
                    return Err(Error::config(
                        "--checkpoint-gb",
                        format!(
                            "{v:?} must be a number of {unit} >= {least} (1 MiB of host data \
                             between two series points)"
                        ),
                    ));
                }
                Some(gb("--checkpoint-gb", v)?)
            }
            // The paper's 100 or 300 GB, scaled to this device; never below the floor (a
            // device under ~11 MB would get points closer than 1 MiB).
            (None, Some(s)) => {
                Some(((s.checkpoint_bytes as f64 * scale).round() as u64).max(MIN_CHECKPOINT_BYTES))
            }
            (None, None) => None,
        };
        let text = |o: &Option<String>| o.as_ref().map(|v| OptValue::Text(v.clone()));
        let o = TimingOptions {
            gc_mode: self.gc_mode.clone(),
            alloc: self.alloc.clone(),
            striping: self.striping.clone(),
            multiplane: text(&self.multiplane),
            copyback: text(&self.copyback),
            cache_mib: self.cache_mib,
            cache_policy: self.cache_policy.clone(),
            gcar_window: self.gcar_window,
            queue_depth: closed.then_some(qd),
            // Trace times are already scaled by the trace reader's --time-scale.
            open_loop_time_scale: (!closed && self.rate.is_none()).then_some(1.0),
            rate_iops: self.rate,
            checkpoint_bytes: checkpoint,
            data_volume_bytes: data_volume,
            volume_scale: Some(scale),
            bg_free: self.bg_free,
            idle_us: self.idle_us,
            gc_pace: self.gc_pace,
            max_requests: self.requests,
            device: self.device.clone(),
            noc_path: self.noc_path.clone(),
            interconnect: self.interconnect.clone(),
            error_prob: self.error_prob,
            ber: self.ber,
            hop_ns: self.hop_ns,
            avg_slices: self.avg_slices,
            unit_bits: self.unit_bits,
            ecc_check_us: self.ecc_check_us,
            ecc_correct_us: self.ecc_correct_us,
            window_ms: self.window_ms,
            scheduler: self.scheduler.clone(),
            suspend: text(&self.suspend),
            suspend_us: self.suspend_us,
            resume_us: self.resume_us,
            max_suspends: self.max_suspends,
            dram_ns: self.dram_ns,
            channel: self.channel.clone(),
            cpu_cost: text(&self.cpu_cost),
            cpu_cores: self.cpu_cores,
            cpu_scale: self.cpu_scale,
            cpu_ns: self.cpu_ns.clone(),
            ..TimingOptions::default()
        };
        let mut p = TimingParams::default();
        o.apply(cfg, &mut p, &flag_name)?;
        Ok(p)
    }
}

/// The timing parameters the flags ask for (None: a WAF-only run); timing flags without
/// `--timing` are an error. `infinite`: the workload has no end (closed loop by default).
pub fn timing_params(
    flags: &TimingFlags,
    cfg: &Config,
    infinite: bool,
) -> Result<Option<TimingParams>> {
    if !flags.timing {
        if flags.wants_fio() {
            return Err(Error::config("--timing", "fio flags (--rw, --rwmixwrite, --bs, --paper) need --timing (or use `flashgc fio`)"));
        }
        if flags.any_timing_flag() {
            return Err(flags.without_timing());
        }
        return Ok(None);
    }
    size_needs_fio(flags)?;
    Ok(Some(flags.params(cfg, infinite || flags.wants_fio())?))
}

/// `--size` bounds a fio job's region: without a fio pattern there is no job, and the flag
/// would be ignored.
/// Warns that `--write-volume` and `--warmup` do not apply to a fio job (`flashgc fio`, or
/// `--rw` and the other fio flags on `run`/`compare`): its volume is host data
/// (`--data-gb`, by default `numjobs x size` as fio) and its WAF covers the whole job; the
/// two flags were ignored without a word. A warning, not an error: scripts that pass a
/// common flag set to every command keep working.
pub(crate) fn warn_synthetic_volume(common: &crate::CommonArgs, fio: bool) {
    if !fio {
        return;
    }
    for (flag, set) in [
        ("--write-volume", common.write_volume.is_some()),
        ("--warmup", common.warmup.is_some()),
    ] {
        if set {
            eprintln!(
                "warning: {flag} does not apply to a fio job and is ignored: a fio job transfers \
                 --data-gb GB of host data (reads + writes; default numjobs x --size, the whole \
                 device without --size, as fio does), and its WAF covers the whole job"
            );
        }
    }
}

fn size_needs_fio(flags: &TimingFlags) -> Result<()> {
    if flags.size.is_some() && !flags.wants_fio() {
        return Err(Error::config(
            "--size",
            "bounds the region of a fio job, and there is none: give a fio pattern (--rw, \
             --rwmixwrite, --bs, --distribution) or use `flashgc fio` (--workload addresses \
             the whole device)",
        ));
    }
    Ok(())
}

/// The fio job the flags describe, as a workload (None without fio flags). With
/// `numjobs` > 1 each job is a flow of its own with its own statistics (`flows` in the
/// result; docs/flows.md).
pub fn fio_workload(flags: &TimingFlags, cfg: &Config) -> Result<Option<Box<dyn Workload>>> {
    if !(flags.timing && flags.wants_fio()) {
        return Ok(None);
    }
    fio_job_workload(flags, cfg).map(Some)
}

pub(crate) fn fio_job_workload(flags: &TimingFlags, cfg: &Config) -> Result<Box<dyn Workload>> {
    let l = cfg.layout()?;
    let job = flags.job(cfg)?;
    let wl: Result<Box<dyn Workload>> = if job.numjobs > 1 {
        use flashgc_core::workload::flows::{FlowSet, FlowSpec};
        let specs = FlowSpec::from_fio("job", &job, 0, l.logical_bytes());
        FlowSet::new(specs, l.logical_pages, l.lpn_size).map(|w| Box::new(w) as _)
    } else {
        job.workload(l.logical_pages, l.lpn_size)
            .map(|w| Box::new(w) as _)
    };
    wl.map_err(flag_named)
}

/// A device check of the job the flags describe names the option as the core knows it
/// (`fio.bssplit`, or `flow `job.0`.bssplit` for one of `--numjobs` flows): the user typed
/// a flag, so the flag is named (`--bssplit`). Options no flag sets keep their name.
fn flag_named(e: Error) -> Error {
    let Error::Config { field, message } = &e else {
        return e;
    };
    let option = field.strip_prefix("fio.").or_else(|| {
        field
            .strip_prefix("flow `job")
            .and_then(|r| r.split_once("`."))
            .map(|(_, o)| o)
    });
    let flag = match option {
        Some(o @ ("rw" | "rwmixwrite" | "bs" | "bssplit" | "size" | "numjobs" | "iodepth")) => {
            format!("--{o}")
        }
        Some("distribution" | "random_distribution") => "--distribution".to_string(),
        _ => return e,
    };
    Error::config(flag, message.clone())
}

/// Runs one configuration, timed or WAF-only according to `flags`; `ctl` may stop it
/// early (a partial result, `ended_by` = "interrupted").
pub fn run(
    flags: &TimingFlags,
    cfg: &Config,
    workload: &mut dyn Workload,
    progress: &mut dyn FnMut(&Progress),
    ctl: &mut RunControl<'_>,
) -> Result<RunResult> {
    if !flags.timing {
        if flags.wants_fio() {
            return Err(Error::config("--timing", "fio flags (--rw, --rwmixwrite, --bs, --paper) need --timing (or use `flashgc fio`)"));
        }
        if flags.any_timing_flag() {
            return Err(flags.without_timing());
        }
    }
    size_needs_fio(flags)?;
    let p = if flags.timing {
        Some(flags.params(cfg, workload.is_infinite())?)
    } else {
        None
    };
    let end = if flags.wants_fio() {
        let mut wl = fio_job_workload(flags, cfg)?;
        flashgc_core::driver::run(cfg, p, wl.as_mut(), None, progress, ctl)?
    } else {
        flashgc_core::driver::run(cfg, p, workload, None, progress, ctl)?
    };
    Ok(match end {
        RunEnd::Finished(r) => r,
        RunEnd::Stopped { partial, .. } => partial,
    })
}
