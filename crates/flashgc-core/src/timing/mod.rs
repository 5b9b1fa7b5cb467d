//! Timing options: how the host issues requests, when GC runs, the write cache and the
//! device model. One parser for the CLI and the Python binding: every option has a
//! [`std::str::FromStr`] (names in the field's words, errors listing what is allowed) and
//! [`TimingOptions`] deserializes the whole set from JSON/TOML with the same rules.
//!
//! The model behind them is described in docs/timing.md (flash device, host driver) and
//! docs/noc.md (the NoC controller).

use crate::config::Config;
pub use crate::device::flash::geometry::Alloc;
use crate::device::noc::NocParams;
pub use crate::device::policy::{ControllerParams, Scheduler, Suspend};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::str::FromStr;

mod noc_options;

/// Least host data between two timed series points (`checkpoint_bytes`, `--checkpoint-gb`)
/// other than 0 (no series): 1 MiB.
pub const MIN_CHECKPOINT_BYTES: u64 = 1 << 20;

/// The largest `data_volume_bytes`: 2^60 bytes (1 EiB). The simulator runs some ten
/// million requests a second, so a run of even 2^50 bytes of 4 KiB requests takes
/// days; beyond this a volume is a mistake (2^64 - 1 ran for ever), and the byte counters
/// stay far from overflowing.
pub const MAX_DATA_VOLUME_BYTES: u64 = 1 << 60;

/// The largest write cache for `logical_pages` logical pages: the logical capacity (the
/// cache indexes its entries with u32, so below `u32::MAX` too).
fn cache_pages_max(logical_pages: u64) -> u64 {
    logical_pages.min(u32::MAX as u64 - 1)
}

/// When GC's flash operations run relative to host I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GcMode {
    /// The host write that triggers GC waits until the whole GC episode (page moves and
    /// erases) has finished; GC operations are scheduled at once.
    Foreground,
    /// GC operations are scheduled at once, ahead of the triggering write, but there is no
    /// device-wide barrier: every host operation waits only for the GC work already queued
    /// on the resources it uses (the Cosmos+ firmware's model: GC requests enter the
    /// per-die request queues ahead of the host's, and dies without GC work keep serving).
    PerDie,
    /// GC operations queue behind host I/O: they run in idle gaps of the resources before
    /// the next host arrival (between page moves), and are forced when a host write needs a
    /// segment whose erase is still queued.
    Preemptible,
    /// Preemptible, plus GC collects ahead of need whenever no GC work is queued at a host
    /// arrival and fewer than `bg_free` segments are free (timing-dependent).
    Background,
    /// Preemptible, plus GC collects ahead of need during host idle periods of at least
    /// `idle_us` while fewer than `bg_free` segments are free (timing-dependent).
    Idle,
}

impl GcMode {
    /// Parses `foreground|per-die|preemptible|background|idle`; `field` names the option
    /// in errors.
    pub fn parse(field: &str, s: &str) -> Result<GcMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "foreground" | "fg" | "blocking" => Ok(GcMode::Foreground),
            "per-die" | "perdie" | "die" => Ok(GcMode::PerDie),
            "preemptible" => Ok(GcMode::Preemptible),
            "background" | "bg" => Ok(GcMode::Background),
            "idle" => Ok(GcMode::Idle),
            _ => Err(Error::config(
                field,
                format!("`{s}`: allowed foreground, per-die, preemptible, background, idle"),
            )),
        }
    }

    /// Whether GC operations are scheduled as soon as the FTL issues them.
    pub fn immediate(self) -> bool {
        matches!(self, GcMode::Foreground | GcMode::PerDie)
    }
}

impl FromStr for GcMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<GcMode> {
        GcMode::parse("timing.gc_mode", s)
    }
}

/// How the host issues requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Host {
    /// Replay at the requests' timestamps (relative to the first) multiplied by
    /// `time_scale` (0.5 = twice as fast; the trace readers' convention). Out-of-order
    /// timestamps are served in file order, not earlier.
    OpenLoop {
        /// Factor on inter-arrival times.
        time_scale: f64,
    },
    /// Keep `queue_depth` requests outstanding (fio's numjobs x iodepth).
    ClosedLoop {
        /// Outstanding requests.
        queue_depth: u32,
    },
    /// Open loop at a fixed rate: request n arrives at n / `iops` seconds, whatever its
    /// timestamp (for synthetic workloads, which carry none).
    Rate {
        /// Requests per second.
        iops: f64,
    },
}

impl Host {
    /// One phrase for notes and tables.
    pub fn describe(&self) -> String {
        match *self {
            Host::OpenLoop { time_scale } => format!("open-loop replay (time scale {time_scale})"),
            Host::ClosedLoop { queue_depth } => format!("closed-loop QD {queue_depth}"),
            Host::Rate { iops } => format!("open-loop at {iops} requests/s"),
        }
    }
}

/// Write-cache replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CachePolicy {
    /// Least recently used.
    Lru,
    /// GC-aware replacement (GCaR-style): scan from the LRU end up to the first page whose
    /// chip is not collecting, within `gcar_window` entries.
    Gcar,
    /// GCaR-Optimized (papers/sup-gc.txt §6): traverse 1 % of the cache at every eviction
    /// (`driver/cache.rs`); the entries scanned are counted in the result.
    #[serde(rename = "gcar-opt")]
    GcarOpt,
}

impl FromStr for CachePolicy {
    type Err = Error;
    fn from_str(s: &str) -> Result<CachePolicy> {
        match s.trim().to_ascii_lowercase().as_str() {
            "lru" => Ok(CachePolicy::Lru),
            "gcar" => Ok(CachePolicy::Gcar),
            "gcar-opt" => Ok(CachePolicy::GcarOpt),
            _ => Err(Error::config(
                "timing.cache_policy",
                format!("`{s}`: allowed lru, gcar, gcar-opt"),
            )),
        }
    }
}

impl FromStr for Alloc {
    type Err = Error;
    fn from_str(s: &str) -> Result<Alloc> {
        match s.trim().to_ascii_lowercase().as_str() {
            "static" => Ok(Alloc::Static),
            "first-idle" | "dynamic" => Ok(Alloc::FirstIdle),
            "round-robin" | "rr" => Ok(Alloc::RoundRobin),
            _ => Err(Error::config(
                "timing.alloc",
                format!("`{s}`: allowed static, first-idle, round-robin"),
            )),
        }
    }
}

/// Parses an on/off switch (`on`, `off`, `true`, `false`, `yes`, `no`, `1`, `0`).
pub fn parse_on_off(field: &str, s: &str) -> Result<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(Error::config(field, format!("`{s}`: allowed on, off"))),
    }
}

/// Parameters of a timed run (the device's latencies come from the configuration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimingParams {
    /// GC scheduling.
    pub gc_mode: GcMode,
    /// Page allocation over parallel units (flash device).
    pub alloc: Alloc,
    /// Striping order of units (permutation of CWDP, first letter fastest; flash device).
    pub striping: String,
    /// Planes of a die operate concurrently (idealised multi-plane operations; flash).
    pub multiplane: bool,
    /// On-die copyback for GC moves within a plane; None = the device's `timing.copyback`.
    pub copyback: Option<bool>,
    /// DRAM write cache, mapping units (0 = none).
    pub cache_pages: u64,
    /// Cache replacement.
    pub cache_policy: CachePolicy,
    /// GCaR: entries scanned from the LRU end.
    pub gcar_window: u32,
    /// Host model.
    pub host: Host,
    /// Host data volume (reads + writes, bytes) between two series points; 0 = no series.
    pub checkpoint_bytes: u64,
    /// Stop after this much host data (reads + writes, bytes); None = the config's write
    /// volume (synthetic workloads) or the end of the workload.
    pub data_volume_bytes: Option<u64>,
    /// Reported data volume = simulated volume / `volume_scale` (a scaled-down device
    /// standing for a paper's larger one); 1 = no scaling.
    pub volume_scale: f64,
    /// Background / idle GC collects while fewer segments than this are free
    /// (None = gc_high + 2).
    pub bg_free: Option<u32>,
    /// Host idle time after which idle-time GC (and background work) starts, microseconds.
    pub idle_us: f64,
    /// Preemptible / background / idle GC: queued GC operations scheduled at each host
    /// arrival even when they delay it (besides those fitting in idle gaps), so that GC
    /// keeps pace with a saturating host instead of piling up until space runs out. A GC
    /// move is two operations, so keeping up needs about 2 x (WAF - 1) x write share per
    /// request: the default 16 covers WAF up to 9 at 100 % writes.
    pub gc_pace: u32,
    /// Stop after this many host requests (None: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_requests: Option<u64>,
    /// The NoC controller model with these parameters instead of the flash device
    /// (papers/noc-copyback-gc.txt; `path` selects conventional or selective copy-back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noc: Option<NocParams>,
    /// Controller options: queue policy, program/erase suspend, DRAM timing
    /// (docs/controller.md); left out of the record when all are off.
    #[serde(default, skip_serializing_if = "ControllerParams::is_default")]
    pub controller: ControllerParams,
    /// The firmware CPU as timed resources (docs/cpu.md); None = CPU work costs nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<crate::device::cpu::CpuParams>,
}

impl Default for TimingParams {
    fn default() -> Self {
        TimingParams {
            gc_mode: GcMode::Foreground,
            alloc: Alloc::Static,
            striping: "CWDP".into(),
            multiplane: true,
            copyback: None,
            cache_pages: 0,
            cache_policy: CachePolicy::Lru,
            gcar_window: 64,
            host: Host::ClosedLoop { queue_depth: 32 },
            checkpoint_bytes: 0,
            data_volume_bytes: None,
            volume_scale: 1.0,
            bg_free: None,
            idle_us: 1000.0,
            gc_pace: 16,
            max_requests: None,
            noc: None,
            controller: ControllerParams::default(),
            cpu: None,
        }
    }
}

impl TimingParams {
    /// Checks every field against a device of `logical_pages` logical pages; errors name
    /// the field and the allowed range.
    pub fn validate(&self, logical_pages: u64) -> Result<()> {
        match self.host {
            Host::OpenLoop { time_scale } => {
                if !(time_scale.is_finite() && time_scale > 0.0) {
                    return Err(Error::config(
                        "timing.time_scale",
                        format!("{time_scale} must be a positive number"),
                    ));
                }
            }
            Host::ClosedLoop { queue_depth } => {
                if queue_depth == 0 || queue_depth > 1 << 20 {
                    return Err(Error::config(
                        "timing.iodepth",
                        "numjobs x iodepth must be in 1..=1048576",
                    ));
                }
            }
            Host::Rate { iops } => {
                if !(iops.is_finite() && iops >= 1.0) {
                    return Err(Error::config(
                        "timing.rate",
                        format!("{iops}: must be a number of requests/s >= 1"),
                    ));
                }
            }
        }
        if !(self.volume_scale.is_finite() && self.volume_scale > 0.0) {
            return Err(Error::config(
                "timing.volume_scale",
                "must be a positive number",
            ));
        }
        if !(self.idle_us.is_finite() && self.idle_us >= 0.0) {
            return Err(Error::config(
                "timing.idle_us",
                "must be a finite number >= 0",
            ));
        }
        let most = cache_pages_max(logical_pages);
        if self.cache_pages > most {
            return Err(Error::config(
                "timing.cache_pages",
                format!(
                    "{} pages: allowed 0..={most} (the logical capacity, {logical_pages} pages)",
                    self.cache_pages
                ),
            ));
        }
        if let Some(n) = &self.noc {
            n.validate()?;
        }
        if let Some(c) = &self.cpu {
            c.validate()?;
        }
        self.controller.validate()
    }
}

/// A numeric option given as a number or as text (`"on"`, `"4k"` style values stay text).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum OptValue {
    /// true / false.
    Bool(bool),
    /// A number.
    Number(f64),
    /// Text.
    Text(String),
}

impl OptValue {
    fn text(&self) -> String {
        match self {
            OptValue::Bool(b) => b.to_string(),
            OptValue::Number(n) => n.to_string(),
            OptValue::Text(s) => s.clone(),
        }
    }
}

/// The timing options as users give them, every one optional (absent = default). The CLI
/// fills it from flags, the Python binding deserializes it from a JSON object; both call
/// [`TimingOptions::apply`], the one place they are parsed and checked. Unknown keys are
/// errors.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingOptions {
    /// `foreground`, `per-die`, `preemptible`, `background`, `idle`.
    pub gc_mode: Option<String>,
    /// `static`, `first-idle` or `round-robin` (docs/timing.md).
    pub alloc: Option<String>,
    /// A permutation of `CWDP`.
    pub striping: Option<String>,
    /// On/off (bool or text).
    pub multiplane: Option<OptValue>,
    /// On/off (bool or text).
    pub copyback: Option<OptValue>,
    /// Write cache, mapping units.
    pub cache_pages: Option<u64>,
    /// Write cache, MiB (converted with the LPN size; give this or `cache_pages`).
    pub cache_mib: Option<f64>,
    /// `lru` or `gcar`.
    pub cache_policy: Option<String>,
    /// Entries GCaR scans.
    pub gcar_window: Option<u32>,
    /// Closed loop with this many outstanding requests.
    pub queue_depth: Option<u64>,
    /// Open loop at the requests' timestamps, times this factor.
    pub open_loop_time_scale: Option<f64>,
    /// Open loop at this fixed rate, requests/s.
    pub rate_iops: Option<f64>,
    /// Series point every this many bytes of host data: 0 (none) or at least
    /// [`MIN_CHECKPOINT_BYTES`].
    pub checkpoint_bytes: Option<u64>,
    /// Stop after this many bytes of host data.
    pub data_volume_bytes: Option<u64>,
    /// Reported volume = simulated / this.
    pub volume_scale: Option<f64>,
    /// Background/idle GC free-segment target.
    pub bg_free: Option<u32>,
    /// Idle threshold, microseconds.
    pub idle_us: Option<f64>,
    /// Queued GC operations forced per host arrival.
    pub gc_pace: Option<u32>,
    /// Stop after this many requests.
    pub max_requests: Option<u64>,
    /// `flash` (default) or `noc`.
    pub device: Option<String>,
    /// NoC: `conventional` or `selective` copy-back.
    pub noc_path: Option<String>,
    /// NoC: `port`, `duplex` or `shared`.
    pub interconnect: Option<String>,
    /// NoC: probability that a relocated page has errors.
    pub error_prob: Option<f64>,
    /// NoC: bit error rate (gives `error_prob` from the page size).
    pub ber: Option<f64>,
    /// NoC: delay between neighbouring routing slices, ns.
    pub hop_ns: Option<f64>,
    /// NoC: average slices a transfer unit passes.
    pub avg_slices: Option<f64>,
    /// NoC: bits per transfer unit.
    pub unit_bits: Option<u32>,
    /// NoC: ECC check per page, us.
    pub ecc_check_us: Option<f64>,
    /// NoC: extra correction time per erroneous page, us.
    pub ecc_correct_us: Option<f64>,
    /// NoC: series window, ms.
    pub window_ms: Option<f64>,
    /// Queue policy: `fcfs`, `read-first`, `host-first[:urgency=N]`, `noc-priority`.
    pub scheduler: Option<String>,
    /// Program/erase suspend on/off (bool or text).
    pub suspend: Option<OptValue>,
    /// Suspend latency, us (implies suspend on).
    pub suspend_us: Option<f64>,
    /// Resume overhead, us (implies suspend on).
    pub resume_us: Option<f64>,
    /// Most suspensions per program or erase (implies suspend on).
    pub max_suspends: Option<i64>,
    /// DRAM access per write-cache or mapping-cache hit, ns.
    pub dram_ns: Option<f64>,
    /// Channel arbitration of the flash device: `fifo` (default) or `backfill`.
    pub channel: Option<String>,
    /// Firmware CPU cost model: on or off (default off).
    pub cpu_cost: Option<OptValue>,
    /// Firmware CPU: controller cores (implies `cpu_cost` on).
    pub cpu_cores: Option<i64>,
    /// Firmware CPU: controller-core ns per simulation-host ns of measured costs.
    pub cpu_scale: Option<f64>,
    /// Firmware CPU: explicit costs, `key=ns,...` (keys in docs/cpu.md).
    pub cpu_ns: Option<String>,
}

impl TimingOptions {
    /// The option keys, in the order users read them.
    pub const KEYS: &'static [&'static str] = &[
        "gc_mode",
        "alloc",
        "striping",
        "multiplane",
        "copyback",
        "cache_pages",
        "cache_mib",
        "cache_policy",
        "gcar_window",
        "queue_depth",
        "open_loop_time_scale",
        "rate_iops",
        "checkpoint_bytes",
        "data_volume_bytes",
        "volume_scale",
        "bg_free",
        "idle_us",
        "gc_pace",
        "max_requests",
        "device",
        "noc_path",
        "interconnect",
        "error_prob",
        "ber",
        "hop_ns",
        "avg_slices",
        "unit_bits",
        "ecc_check_us",
        "ecc_correct_us",
        "window_ms",
        "scheduler",
        "suspend",
        "suspend_us",
        "resume_us",
        "max_suspends",
        "dram_ns",
        "channel",
        "cpu_cost",
        "cpu_cores",
        "cpu_scale",
        "cpu_ns",
    ];

    /// Parses a JSON object of options (the Python binding's form); nulls mean "default".
    pub fn from_json(json: &str) -> Result<TimingOptions> {
        let v: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| Error::Input(format!("timing: not valid JSON: {e}")))?;
        let serde_json::Value::Object(mut m) = v else {
            return Err(Error::Input(
                "timing: expected a mapping, e.g. {\"queue_depth\": 32}".into(),
            ));
        };
        if let Some(k) = m.keys().find(|k| !Self::KEYS.contains(&k.as_str())) {
            return Err(Error::Input(format!(
                "timing: unknown parameter `{k}`; allowed: {}",
                Self::KEYS.join(", ")
            )));
        }
        m.retain(|_, v| !v.is_null());
        // serde_json's errors name no key: check each option alone first.
        for (k, v) in &m {
            serde_json::from_value::<TimingOptions>(serde_json::json!({ k: v }))
                .map_err(|e| Error::config(format!("timing.{k}"), e.to_string()))?;
        }
        serde_json::from_value(serde_json::Value::Object(m))
            .map_err(|e| Error::Input(format!("timing: {e}")))
    }

    /// Applies the options given to `p` for configuration `cfg`. `name` turns an option's
    /// key into the name users know it by in error messages (`gc_mode` -> `--gc-mode` on
    /// the command line, `timing.gc_mode` in Python).
    pub fn apply(
        &self,
        cfg: &Config,
        p: &mut TimingParams,
        name: &dyn Fn(&str) -> String,
    ) -> Result<()> {
        let l = cfg.layout()?;
        let rename = |e: Error, key: &str| match e {
            Error::Config { message, .. } => Error::config(name(key), message),
            o => o,
        };
        if let Some(v) = &self.gc_mode {
            p.gc_mode = GcMode::parse(&name("gc_mode"), v)?;
        }
        if let Some(v) = &self.alloc {
            p.alloc = v.parse().map_err(|e| rename(e, "alloc"))?;
        }
        if let Some(v) = &self.striping {
            p.striping = v.clone();
        }
        if let Some(v) = &self.multiplane {
            p.multiplane = parse_on_off(&name("multiplane"), &v.text())?;
        }
        if let Some(v) = &self.copyback {
            p.copyback = Some(parse_on_off(&name("copyback"), &v.text())?);
        }
        match (self.cache_pages, self.cache_mib) {
            (Some(_), Some(_)) => {
                return Err(Error::config(
                    name("cache_mib"),
                    format!(
                        "give either {} or {}, not both",
                        name("cache_pages"),
                        name("cache_mib")
                    ),
                ))
            }
            (Some(n), None) => {
                let most = cache_pages_max(l.logical_pages);
                if n > most {
                    return Err(Error::config(
                        name("cache_pages"),
                        format!(
                            "{n} pages: allowed 0..={most} (the logical capacity, {} pages)",
                            l.logical_pages
                        ),
                    ));
                }
                p.cache_pages = n;
            }
            (None, Some(m)) => {
                if !(m.is_finite() && m >= 0.0) {
                    return Err(Error::config(
                        name("cache_mib"),
                        format!("{m}: must be a finite number >= 0"),
                    ));
                }
                let pages = (m * (1u64 << 20) as f64 / l.lpn_size as f64).round();
                // Checked here, in MiB: the page count of a huge value saturates and the
                // later check would show u64::MAX pages.
                if pages > l.logical_pages as f64 {
                    return Err(Error::config(
                        name("cache_mib"),
                        format!(
                            "{m} MiB is more than the logical capacity, {:.1} MiB",
                            (l.logical_pages * l.lpn_size as u64) as f64 / (1u64 << 20) as f64
                        ),
                    ));
                }
                p.cache_pages = pages as u64;
            }
            (None, None) => {}
        }
        if let Some(v) = &self.cache_policy {
            p.cache_policy = v.parse().map_err(|e| rename(e, "cache_policy"))?;
            if p.cache_pages == 0 {
                return Err(Error::config(
                    name("cache_policy"),
                    format!("needs a cache: give {}", name("cache_mib")),
                ));
            }
        }
        if let Some(w) = self.gcar_window {
            // 0 was taken as 1 silently.
            if w == 0 {
                return Err(Error::config(
                    name("gcar_window"),
                    "0 must be at least 1 cache entry",
                ));
            }
            p.gcar_window = w;
        }
        let hosts = [
            self.queue_depth.is_some(),
            self.open_loop_time_scale.is_some(),
            self.rate_iops.is_some(),
        ];
        if hosts.iter().filter(|h| **h).count() > 1 {
            return Err(Error::config(
                name("queue_depth"),
                format!(
                    "give one host model: {} (closed loop), {} or {} (open loop)",
                    name("queue_depth"),
                    name("open_loop_time_scale"),
                    name("rate_iops")
                ),
            ));
        }
        if let Some(q) = self.queue_depth {
            if q == 0 || q > 1 << 20 {
                return Err(Error::config(
                    name("queue_depth"),
                    format!("{q} must be in 1..=1048576"),
                ));
            }
            p.host = Host::ClosedLoop {
                queue_depth: q as u32,
            };
        }
        if let Some(t) = self.open_loop_time_scale {
            if !(t.is_finite() && t > 0.0) {
                return Err(Error::config(
                    name("open_loop_time_scale"),
                    format!("{t} must be a positive number"),
                ));
            }
            p.host = Host::OpenLoop { time_scale: t };
        }
        if let Some(r) = self.rate_iops {
            // Below one request per second (fio's least rate_iops), the arrival times of a
            // long run would saturate the ns clock and give silently wrong results.
            if !(r.is_finite() && r >= 1.0) {
                return Err(Error::config(
                    name("rate_iops"),
                    format!("{r}: must be a number of requests/s >= 1"),
                ));
            }
            p.host = Host::Rate { iops: r };
        }
        if let Some(v) = self.checkpoint_bytes {
            // A floor: one point per request (a few KiB) floods the result with points.
            if v != 0 && v < MIN_CHECKPOINT_BYTES {
                return Err(Error::config(
                    name("checkpoint_bytes"),
                    format!(
                        "{v} bytes: must be 0 (no series) or at least {MIN_CHECKPOINT_BYTES} \
                         (1 MiB of host data)"
                    ),
                ));
            }
            p.checkpoint_bytes = v;
        }
        if let Some(v) = self.data_volume_bytes {
            // 2^64 - 1 bytes was accepted and the run went on for ever.
            if v > MAX_DATA_VOLUME_BYTES {
                return Err(Error::config(
                    name("data_volume_bytes"),
                    format!(
                        "{v} bytes: allowed 0..={MAX_DATA_VOLUME_BYTES} (2^60 bytes, 1 EiB: \
                         beyond any simulated run; MAX_DATA_VOLUME_BYTES)"
                    ),
                ));
            }
            p.data_volume_bytes = Some(v);
        }
        if let Some(v) = self.volume_scale {
            p.volume_scale = v;
        }
        if let Some(v) = self.bg_free {
            p.bg_free = Some(v);
        }
        if let Some(v) = self.idle_us {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::config(
                    name("idle_us"),
                    format!("{v}: must be a finite number >= 0"),
                ));
            }
            p.idle_us = v;
        }
        if let Some(v) = self.gc_pace {
            p.gc_pace = v;
        }
        // Options of a mode that is not on would be dropped without a word.
        if self.gcar_window.is_some() && p.cache_policy != CachePolicy::Gcar {
            return Err(Error::config(
                name("gcar_window"),
                format!(
                    "applies to the GCaR write-cache policy only: give {} gcar",
                    name("cache_policy")
                ),
            ));
        }
        if self.bg_free.is_some() && !matches!(p.gc_mode, GcMode::Background | GcMode::Idle) {
            return Err(Error::config(
                name("bg_free"),
                format!(
                    "applies to proactive GC only: give {} background or idle",
                    name("gc_mode")
                ),
            ));
        }
        if let Some(v) = self.max_requests {
            p.max_requests = Some(v);
        }
        self.apply_noc(cfg, p, name)?;
        self.apply_controller(p, name)?;
        crate::device::cpu::apply_options(
            &mut p.cpu,
            self.cpu_cost.as_ref().map(|v| v.text()).as_deref(),
            self.cpu_cores,
            self.cpu_scale,
            self.cpu_ns.as_deref(),
            name,
        )?;
        p.validate(l.logical_pages).map_err(|e| match e {
            Error::Config { field, message } => {
                Error::config(name(field.trim_start_matches("timing.")), message)
            }
            o => o,
        })
    }

    fn apply_controller(&self, p: &mut TimingParams, name: &dyn Fn(&str) -> String) -> Result<()> {
        let suspend = match &self.suspend {
            Some(v) => Some(parse_on_off(&name("suspend"), &v.text())?),
            None => None,
        };
        crate::device::policy::apply_options(
            &mut p.controller,
            crate::device::policy::Options {
                scheduler: self.scheduler.as_deref(),
                suspend,
                suspend_us: self.suspend_us,
                resume_us: self.resume_us,
                max_suspends: self.max_suspends,
                dram_ns: self.dram_ns,
                channel: self.channel.as_deref(),
            },
            name,
        )
    }
}
