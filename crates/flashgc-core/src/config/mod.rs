//! Configuration: device geometry and timing, FTL parameters, run parameters.
//!
//! A configuration is built in layers: an embedded preset (TOML, `presets/`), then a user's
//! TOML file, then command-line overrides. Unknown fields are errors, so a typo never
//! silently falls back to a default.

mod flow;
mod ftl;
mod layers;
mod locate;

pub use flow::{ByteSize, FlowConfig};
pub use ftl::{FtlConfig, GcTrigger, MappingCacheConfig, Watermark, WatermarkText};

use crate::error::{Error, Result};
use layers::{drop_replaced_alternatives, merge};
use locate::locate;
use serde::{Deserialize, Serialize};

/// Longest flash operation (read, program, erase, SRAM access, a mapping unit's channel
/// transfer) a configuration may give, us: one second.
pub const MAX_OP_US: f64 = 1e6;

/// Largest `device.channels`. The geometry limits are far beyond any SSD (32 channels, 16
/// ways, 8 dies and 6 planes are large today) yet keep every product derived from the
/// geometry (dies, planes, the timing layer's per-channel and per-unit tables) exact in
/// its integer type: unchecked, four u32 multiplied to a wrapped, small number of planes.
pub const MAX_CHANNELS: u32 = 1024;
/// Largest `device.chips_per_channel` (see [`MAX_CHANNELS`]).
pub const MAX_CHIPS_PER_CHANNEL: u32 = 1024;
/// Largest `device.dies_per_chip` (see [`MAX_CHANNELS`]).
pub const MAX_DIES_PER_CHIP: u32 = 64;
/// Largest `device.planes_per_die` (see [`MAX_CHANNELS`]).
pub const MAX_PLANES_PER_DIE: u32 = 64;
/// Most parallel units (planes) in a device: the product of the four geometry fields.
pub const MAX_PLANES: u64 = 1 << 20;

/// Narrowest WAF time-series window (`run.window_gib`), GiB: 1 MiB of user writes.
pub const MIN_WINDOW_GIB: f64 = 1.0 / 1024.0;

/// Names and TOML text of the embedded presets.
pub const PRESETS: &[(&str, &str)] = &[
    ("default", include_str!("../../presets/default.toml")),
    (
        "cosmos-openssd",
        include_str!("../../presets/cosmos-openssd.toml"),
    ),
    (
        "ssdsim-splitgc",
        include_str!("../../presets/ssdsim-splitgc.toml"),
    ),
    ("noc-ssdc", include_str!("../../presets/noc-ssdc.toml")),
    ("midas-128g", include_str!("../../presets/midas-128g.toml")),
    (
        "mqsim-default",
        include_str!("../../presets/mqsim-default.toml"),
    ),
];

/// Flash timing. Parsed and validated now; used by the timing layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimingConfig {
    /// Cell read latency per page (tR), microseconds.
    pub read_us: f64,
    /// Page program latency (tPROG), microseconds.
    pub program_us: f64,
    /// Block erase latency (tBERS), microseconds.
    pub erase_us: f64,
    /// Channel (bus) transfer rate, MB/s (10^6 bytes per second).
    pub channel_mb_s: f64,
    /// Controller SRAM/DRAM access per page, microseconds (noc-copyback-gc paper: 12 us).
    pub sram_us: f64,
    /// Whether on-die copyback (relocation without a channel transfer) is available.
    pub copyback: bool,
}

impl Default for TimingConfig {
    fn default() -> Self {
        TimingConfig {
            read_us: 50.0,
            program_us: 500.0,
            erase_us: 3000.0,
            channel_mb_s: 400.0,
            sram_us: 0.0,
            copyback: false,
        }
    }
}

/// Device geometry. `blocks_per_plane = 0` means "size from `ftl.logical_gib`".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DeviceConfig {
    /// Flash channels.
    pub channels: u32,
    /// Chips (ways) per channel.
    pub chips_per_channel: u32,
    /// Dies per chip.
    pub dies_per_chip: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Blocks per plane; 0 = derived from `ftl.logical_gib` and the over-provisioning.
    pub blocks_per_plane: u32,
    /// Flash pages per block.
    pub pages_per_block: u32,
    /// Flash page size in bytes (a multiple of `lpn_size`).
    pub page_size: u32,
    /// Mapping unit (LPN) size in bytes, 4 KiB by default.
    pub lpn_size: u32,
    /// Blocks per segment (the GC unit): 1 = one block; k > 1 = a superblock striped over
    /// k parallel units (must not exceed the number of planes in the device).
    pub segment_blocks: u32,
    /// Flash timing.
    pub timing: TimingConfig,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        DeviceConfig {
            channels: 4,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 0,
            pages_per_block: 256,
            page_size: 4096,
            lpn_size: 4096,
            segment_blocks: 1,
            timing: TimingConfig::default(),
        }
    }
}

impl DeviceConfig {
    /// Number of parallel units (planes) in the device; `u64::MAX` when the product
    /// overflows (no valid configuration: [`Config::layout`] allows at most
    /// [`MAX_PLANES`]).
    pub fn planes(&self) -> u64 {
        [
            self.chips_per_channel,
            self.dies_per_chip,
            self.planes_per_die,
        ]
        .iter()
        .try_fold(self.channels as u64, |p, &f| p.checked_mul(f as u64))
        .unwrap_or(u64::MAX)
    }
}

/// Run parameters: workload, policies, volume, seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// Workload spec: `uniform`, `zipf:THETA`, `hotcold:W/S` (W % of writes to S % of the
    /// space), `seq`, or `trace:PATH` (read by the CLI).
    pub workload: String,
    /// Placement scheme spec, e.g. `single`, `sup-gc`.
    pub placement: String,
    /// Victim policy spec, e.g. `greedy`, `fifo`, `cost-benefit:lfs`, `d-choices:d=8`.
    pub victim: String,
    /// User data to write, in multiples of the logical capacity (synthetic workloads).
    pub write_volume: f64,
    /// Writes excluded from the steady-state WAF, in multiples of the logical capacity.
    /// Default: half of `write_volume`.
    pub warmup: Option<f64>,
    /// Precondition: fraction of the logical space written sequentially before the workload
    /// (not counted in any result).
    pub fill: f64,
    /// Fraction of requests that are reads (synthetic workloads).
    pub read_ratio: f64,
    /// Pages per request (synthetic workloads).
    pub request_pages: u32,
    /// Random seed; the same config and seed give the same results bit for bit.
    pub seed: u64,
    /// Width of one WAF time-series window, GiB of user writes, at least
    /// [`MIN_WINDOW_GIB`] (1 MiB); default: logical capacity / 4.
    pub window_gib: Option<f64>,
    /// Refuse to start when the estimated memory of the run exceeds this many GiB
    /// (the CLI defaults it to the memory the machine has available).
    pub max_memory_gib: Option<f64>,
    /// GC action spec: `move` (relocate every valid page), or a content-aware action that
    /// switches the FTL to its content mode: `splitgc`, `cagc`, `dagc` (`crate::gc_action`).
    pub gc_action: String,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            workload: "uniform".into(),
            placement: "single".into(),
            victim: "greedy".into(),
            write_volume: 8.0,
            warmup: None,
            fill: 1.0,
            read_ratio: 0.0,
            request_pages: 1,
            seed: 1,
            window_gib: None,
            max_memory_gib: None,
            gc_action: "move".into(),
        }
    }
}

impl RunConfig {
    /// True when the GC action puts the FTL in its content mode (any action but `move`):
    /// a trace replay must then hand out each written page with its own fingerprint.
    pub fn content_mode(&self) -> bool {
        let name = self.gc_action.split(':').next().unwrap_or("").trim();
        !name.is_empty() && name != "move"
    }
}

/// A whole configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Name of the preset the configuration started from.
    pub preset: Option<String>,
    /// Lines that runs of this configuration add to their result's notes, and that the CLI
    /// prints as warnings: what an importer approximated or ignored (an MQSim workload
    /// file's fields flashgc does not model, `workload::mqsim`; docs/flows.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Device geometry and timing.
    pub device: DeviceConfig,
    /// FTL parameters.
    pub ftl: FtlConfig,
    /// Run parameters.
    pub run: RunConfig,
    /// Synthetic page content (content mode: pages whose request carries no content).
    pub content: crate::content::ContentParams,
    /// Host flows (`[[flow]]` sections; docs/flows.md): when present they are the
    /// workload, each with its own pattern, region, arrival process and statistics.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flow: Vec<FlowConfig>,
}

/// The derived layout of a validated configuration, in mapping units (LPN-sized pages).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Layout {
    /// Mapping-unit pages per segment.
    pub pages_per_segment: u32,
    /// Segments in the device.
    pub segments: u32,
    /// Physical pages (mapping units).
    pub physical_pages: u64,
    /// Logical pages (LPNs) exported to the host.
    pub logical_pages: u64,
    /// (physical - logical) / logical, as realised after rounding.
    pub op: f64,
    /// (physical - logical) / physical, as realised.
    pub op_of_physical: f64,
    /// Which definition the user gave: "op" or "op_of_physical".
    pub op_given_as: &'static str,
    /// Blocks per plane after sizing.
    pub blocks_per_plane: u32,
    /// Free segments below which GC starts.
    pub gc_low: u32,
    /// Free segments GC restores.
    pub gc_high: u32,
    /// Garbage-proportion GC trigger, if any (see [`GcTrigger`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_garbage: Option<f64>,
    /// LPN size in bytes.
    pub lpn_size: u32,
}

impl Layout {
    /// Logical capacity in bytes.
    pub fn logical_bytes(&self) -> u64 {
        self.logical_pages * self.lpn_size as u64
    }
}

fn parse_toml(origin: &str, text: &str) -> Result<toml::Value> {
    text.parse::<toml::Table>()
        .map(toml::Value::Table)
        .map_err(|e| Error::Input(format!("{origin}: {e}")))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}

impl Config {
    /// Names of the embedded presets.
    pub fn preset_names() -> Vec<&'static str> {
        PRESETS.iter().map(|(n, _)| *n).collect()
    }

    /// The TOML text of a preset.
    pub fn preset_text(name: &str) -> Result<&'static str> {
        PRESETS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| Error::Unknown {
                field: "preset".into(),
                kind: "preset",
                name: name.to_string(),
                known: Config::preset_names().join(", "),
            })
    }

    /// Builds a configuration from a preset (default: `default`) and an optional user TOML
    /// text (`origin` names it in errors, e.g. the file path).
    pub fn load(preset: Option<&str>, user: Option<(&str, &str)>) -> Result<Config> {
        let mut value = toml::Value::Table(Default::default());
        let mut preset_name = preset.map(str::to_string);
        if preset.is_none() {
            // A user file may name its own preset.
            if let Some((origin, text)) = user {
                let v = parse_toml(origin, text)?;
                if let Some(p) = v.get("preset").and_then(|p| p.as_str()) {
                    preset_name = Some(p.to_string());
                }
            }
        }
        let pname = preset_name.clone().unwrap_or_else(|| "default".into());
        let ptext = Config::preset_text(&pname)?;
        merge(&mut value, parse_toml(&format!("preset {pname}"), ptext)?);
        if let Some((origin, text)) = user {
            let user_value = parse_toml(origin, text)?;
            drop_replaced_alternatives(&mut value, &user_value);
            merge(&mut value, user_value);
        }
        let origin = user.map(|u| u.0).unwrap_or("preset");
        let mut cfg: Config = value.try_into().map_err(|e: toml::de::Error| {
            // The merged tree has lost its positions; the user's text alone has them, so
            // a type error there is reported with its line and dotted field name.
            let located = user.and_then(|(o, text)| {
                let e = toml::from_str::<Config>(text).err()?;
                locate(o, text, &e)
            });
            located.unwrap_or_else(|| Error::Input(format!("{origin}: {}", e.message())))
        })?;
        cfg.preset = Some(pname);
        Ok(cfg)
    }

    /// The default configuration (the `default` preset).
    pub fn default_preset() -> Config {
        Config::load(None, None).expect("embedded default preset is valid")
    }

    /// Validates every field and derives the layout. Errors name the field and the range.
    pub fn layout(&self) -> Result<Layout> {
        let d = &self.device;
        let nz = |field: &str, v: u32| -> Result<()> {
            if v == 0 {
                Err(Error::config(field, "must be at least 1"))
            } else {
                Ok(())
            }
        };
        for (field, v, max) in [
            ("device.channels", d.channels, MAX_CHANNELS),
            (
                "device.chips_per_channel",
                d.chips_per_channel,
                MAX_CHIPS_PER_CHANNEL,
            ),
            ("device.dies_per_chip", d.dies_per_chip, MAX_DIES_PER_CHIP),
            (
                "device.planes_per_die",
                d.planes_per_die,
                MAX_PLANES_PER_DIE,
            ),
        ] {
            nz(field, v)?;
            if v > max {
                return Err(Error::config(
                    field,
                    format!("{v} is out of range; allowed 1..={max}"),
                ));
            }
        }
        let planes = d.planes();
        if planes > MAX_PLANES {
            return Err(Error::config(
                "device",
                format!(
                    "channels x chips_per_channel x dies_per_chip x planes_per_die = {} x {} x {} x {} \
                     = {planes} planes; at most {MAX_PLANES} are supported",
                    d.channels, d.chips_per_channel, d.dies_per_chip, d.planes_per_die
                ),
            ));
        }
        nz("device.pages_per_block", d.pages_per_block)?;
        nz("device.segment_blocks", d.segment_blocks)?;
        if d.lpn_size < 512 || !d.lpn_size.is_power_of_two() {
            return Err(Error::config(
                "device.lpn_size",
                format!("{} must be a power of two >= 512 bytes", d.lpn_size),
            ));
        }
        if d.page_size < d.lpn_size || d.page_size % d.lpn_size != 0 {
            return Err(Error::config(
                "device.page_size",
                format!(
                    "{} must be a positive multiple of lpn_size ({})",
                    d.page_size, d.lpn_size
                ),
            ));
        }
        let t = &d.timing;
        // Operations are simulated in whole ns (u64): a duration beyond a second per
        // operation is no flash device, and far larger ones would saturate the clock and
        // give silently wrong times.
        for (f, v) in [
            ("device.timing.read_us", t.read_us),
            ("device.timing.program_us", t.program_us),
            ("device.timing.erase_us", t.erase_us),
        ] {
            if !(v.is_finite() && v > 0.0 && v <= MAX_OP_US) {
                return Err(Error::config(
                    f,
                    format!("{v} must be in (0, {MAX_OP_US}] us"),
                ));
            }
        }
        // One mapping unit crosses the channel in at most a second.
        let min_mb_s = d.lpn_size as f64 / MAX_OP_US;
        if !(t.channel_mb_s.is_finite() && t.channel_mb_s >= min_mb_s) {
            return Err(Error::config(
                "device.timing.channel_mb_s",
                format!(
                    "{} must be a number of MB/s >= lpn_size / 1e6 = {min_mb_s} (a mapping unit \
                     crosses the channel in at most 1 s)",
                    t.channel_mb_s
                ),
            ));
        }
        if !(t.sram_us.is_finite() && (0.0..=MAX_OP_US).contains(&t.sram_us)) {
            return Err(Error::config(
                "device.timing.sram_us",
                format!("{} must be in [0, {MAX_OP_US}] us", t.sram_us),
            ));
        }
        if d.segment_blocks as u64 > planes {
            return Err(Error::config(
                "device.segment_blocks",
                format!(
                    "{} exceeds the {planes} parallel units (planes) a superblock can stripe over",
                    d.segment_blocks
                ),
            ));
        }
        // Over-provisioning: exactly one definition.
        let (op, given) = match (self.ftl.op, self.ftl.op_of_physical) {
            (Some(_), Some(_)) => {
                return Err(Error::config(
                    "ftl.op_of_physical",
                    "give either ftl.op or ftl.op_of_physical, not both",
                ))
            }
            (Some(op), None) => {
                if !(op.is_finite() && op > 0.0 && op <= 10.0) {
                    return Err(Error::config(
                        "ftl.op",
                        format!("{op} is out of range; allowed (0, 10]"),
                    ));
                }
                (op, "op")
            }
            (None, Some(p)) => {
                if !(p.is_finite() && p > 0.0 && p < 0.95) {
                    return Err(Error::config(
                        "ftl.op_of_physical",
                        format!("{p} is out of range; allowed (0, 0.95)"),
                    ));
                }
                (p / (1.0 - p), "op_of_physical")
            }
            (None, None) => (0.07, "op"),
        };
        let units_per_page = (d.page_size / d.lpn_size) as u64;
        // Saturating: three u32 factors can exceed u64 (and wrap below the bound).
        let pages_per_segment =
            (d.pages_per_block as u64 * units_per_page).saturating_mul(d.segment_blocks as u64);
        if pages_per_segment > (1 << 24) {
            return Err(Error::config(
                "device.pages_per_block",
                "a segment may hold at most 16 Mi mapping units",
            ));
        }
        // Whether `ftl.logical_gib` asked for less than the smallest device the geometry
        // allows (one step of blocks per plane): then a lack of spare segments is its doing.
        let mut smallest = false;
        let blocks_per_plane = match self.ftl.logical_gib {
            Some(g) => {
                if !(g.is_finite() && g > 0.0 && g <= 16384.0) {
                    return Err(Error::config(
                        "ftl.logical_gib",
                        format!("{g} is out of range; allowed (0, 16384]"),
                    ));
                }
                let logical = (g * (1u64 << 30) as f64 / d.lpn_size as f64).ceil();
                let phys_pages = (logical * (1.0 + op)).ceil() as u64;
                let pages_per_plane_block = d.pages_per_block as u64 * units_per_page;
                let blocks_total = phys_pages.div_ceil(pages_per_plane_block);
                // The same number of blocks on every plane, and a whole number of
                // segments in all: a superblock of k blocks stripes over k planes, so the
                // device's block count (planes x per-plane) must be a multiple of k. Only
                // that is required; rounding each plane to a multiple of k would inflate a
                // small device on many planes (64 planes, k = 8: 1 GiB asked, 1.87 GiB built).
                let k = d.segment_blocks as u64;
                let step = k / gcd(planes, k);
                let per_plane = blocks_total.div_ceil(planes).max(1);
                smallest = per_plane <= step;
                per_plane.div_ceil(step) * step
            }
            None => {
                if d.blocks_per_plane == 0 {
                    return Err(Error::config(
                        "device.blocks_per_plane",
                        "must be at least 1 (or set ftl.logical_gib to size the device)",
                    ));
                }
                d.blocks_per_plane as u64
            }
        };
        // Kept in u64 until the PPN bound below: a derived per-plane count beyond u32 was
        // truncated to a small device. Checked products: planes (<= 2^20) x blocks x
        // pages per segment (<= 2^24) can exceed u64.
        let physical_pages = planes
            .checked_mul(blocks_per_plane)
            .map(|b| b / d.segment_blocks as u64)
            .and_then(|s| s.checked_mul(pages_per_segment))
            .filter(|&p| p < u32::MAX as u64 && blocks_per_plane <= u32::MAX as u64);
        let Some(physical_pages) = physical_pages else {
            let (field, given) = match self.ftl.logical_gib {
                Some(g) => ("ftl.logical_gib", format!("{g} GiB")),
                None => (
                    "device.blocks_per_plane",
                    format!("{blocks_per_plane} blocks per plane"),
                ),
            };
            return Err(Error::config(
                field,
                format!(
                    "{given} on {planes} planes of {pages_per_segment}-page segments: more than the {} mapping units \
                     supported (32-bit PPNs: 16 TiB at 4 KiB)",
                    u32::MAX - 1
                ),
            ));
        };
        let segments = physical_pages / pages_per_segment;
        let blocks_per_plane = blocks_per_plane as u32; // exact: checked above
        let logical_pages = (physical_pages as f64 / (1.0 + op)).floor() as u64;
        let gc_low = self.ftl.gc_low.segments(segments);
        let gc_high = self
            .ftl
            .gc_high
            .unwrap_or(self.ftl.gc_low)
            .segments(segments);
        if gc_low < 1 {
            return Err(Error::config(
                "ftl.gc_low",
                "must be at least 1 free segment",
            ));
        }
        if gc_high < gc_low {
            return Err(Error::config(
                "ftl.gc_high",
                format!("{gc_high} segments is below ftl.gc_low ({gc_low})"),
            ));
        }
        let used_segments = logical_pages.div_ceil(pages_per_segment);
        let spare = segments.saturating_sub(used_segments);
        if spare < gc_high + 2 && smallest {
            return Err(Error::config(
                "ftl.logical_gib",
                format!(
                    "{} GiB is less than the smallest device this geometry builds: {segments} \
                     segments of which {spare} are spare at op {op}, where GC needs at least \
                     gc_high + 2 = {} (raise logical_gib or op, or use smaller segments)",
                    self.ftl.logical_gib.unwrap_or_default(),
                    gc_high + 2
                ),
            ));
        }
        if spare < gc_high + 2 {
            return Err(Error::config(
                "ftl.op",
                format!(
                    "the device has {segments} segments of which {spare} are spare; GC needs at least gc_high + 2 = {} \
                     (raise op, use smaller segments or a larger device)",
                    gc_high + 2
                ),
            ));
        }
        let r = &self.run;
        if !(r.write_volume.is_finite() && r.write_volume >= 0.0 && r.write_volume <= 1e6) {
            return Err(Error::config(
                "run.write_volume",
                "must be in [0, 1e6] x logical capacity",
            ));
        }
        if let Some(w) = r.warmup {
            if !(w.is_finite() && w >= 0.0 && w <= r.write_volume) {
                return Err(Error::config(
                    "run.warmup",
                    format!("{w} must be in [0, write_volume = {}]", r.write_volume),
                ));
            }
        }
        if !(r.fill.is_finite() && (0.0..=1.0).contains(&r.fill)) {
            return Err(Error::config(
                "run.fill",
                format!("{} must be in [0, 1]", r.fill),
            ));
        }
        if !(r.read_ratio.is_finite() && (0.0..1.0).contains(&r.read_ratio)) {
            return Err(Error::config(
                "run.read_ratio",
                format!("{} must be in [0, 1)", r.read_ratio),
            ));
        }
        if r.request_pages == 0 || r.request_pages > 1 << 16 {
            return Err(Error::config("run.request_pages", "must be in 1..=65536"));
        }
        if let Some(w) = r.window_gib {
            // A floor: a window of one page (1e-300 rounds up to it) gives the result one
            // series point per page written, millions of them.
            if !(w.is_finite() && w >= MIN_WINDOW_GIB) {
                return Err(Error::config(
                    "run.window_gib",
                    format!(
                        "{w:?} must be a finite number of GiB >= 1/1024 (1 MiB of user writes)"
                    ),
                ));
            }
        }
        // NaN compared false with every estimate: the memory check passed whatever the
        // run needed.
        if let Some(m) = r.max_memory_gib {
            if m.is_nan() || m <= 0.0 {
                return Err(Error::config(
                    "run.max_memory_gib",
                    format!("{m} must be a positive number of GiB"),
                ));
            }
        }
        // Checked whether or not a GC action uses them: a bad value is a typo either way.
        self.content.validate()?;
        Ok(Layout {
            pages_per_segment: pages_per_segment as u32,
            segments: segments as u32,
            physical_pages,
            logical_pages,
            op: (physical_pages as f64 - logical_pages as f64) / logical_pages as f64,
            op_of_physical: (physical_pages as f64 - logical_pages as f64) / physical_pages as f64,
            op_given_as: given,
            blocks_per_plane,
            gc_low: gc_low as u32,
            gc_high: gc_high as u32,
            gc_garbage: match self.ftl.gc_trigger {
                GcTrigger::Free => None,
                GcTrigger::Garbage(v) => Some(v),
            },
            lpn_size: d.lpn_size,
        })
    }

    /// Advisories about a valid but unusual configuration, for the reader of a result
    /// (the CLI prints them as warnings; runs add them to their notes): the configuration's
    /// own `notes` (an importer's), then a realised logical
    /// capacity far from `ftl.logical_gib`, segments too small for GC to mean much, block
    /// sizes no NAND has. Empty for an invalid configuration (`layout` says why).
    pub fn advisories(&self) -> Vec<String> {
        let Ok(l) = self.layout() else {
            return Vec::new();
        };
        let d = &self.device;
        let mut out = self.notes.clone();
        if let Some(g) = self.ftl.logical_gib {
            let got = l.logical_bytes() as f64 / (1u64 << 30) as f64;
            if (got - g).abs() > 0.1 * g {
                let block = d.pages_per_block as u64 * d.page_size as u64;
                let k = d.segment_blocks as u64;
                let step = d.planes() * (k / gcd(d.planes(), k));
                out.push(format!(
                    "ftl.logical_gib = {g} gives {got:.3} GiB logical at op {:.4}: the device is built \
                     of whole blocks ({} KiB each), the same number on each of its {} planes and a whole \
                     number of {k}-block segments, so it grows in steps of {step} blocks ({:.3} GiB physical)",
                    l.op,
                    block >> 10,
                    d.planes(),
                    (step * block) as f64 / (1u64 << 30) as f64,
                ));
            }
        }
        if l.pages_per_segment < 16 {
            out.push(format!(
                "device.pages_per_block = {} (x {} blocks per segment): a segment, the GC unit, holds only {} \
                 pages; NAND blocks hold 64 to several thousand, and with so few pages per victim \
                 WAF depends mostly on the granularity (Desnoyers' greedy model: k = 1 + 1/(2 Np))",
                d.pages_per_block, d.segment_blocks, l.pages_per_segment
            ));
        }
        // SplitGC's and DAGC's victim rules rank by what their GC action learns (known
        // duplicates, cached dead pages); without it they pick exactly as greedy does.
        let name = |spec: &str| spec.split(':').next().unwrap_or("").trim().to_string();
        let (victim, action) = (name(&self.run.victim), name(&self.run.gc_action));
        if matches!(victim.as_str(), "splitgc" | "dagc") && victim != action {
            out.push(format!(
                "victim {victim} without the GC action {victim} (run.gc_action = {action}): nothing \
                 learns what it ranks by, so it picks exactly as greedy does; add --gc-action {victim}"
            ));
        }
        let p = d.pages_per_block;
        let nand_like = p.is_power_of_two() || (p % 3 == 0 && (p / 3).is_power_of_two());
        if !nand_like {
            out.push(format!(
                "device.pages_per_block = {p} is neither a power of two nor 3 x one, as NAND block \
                 sizes are (e.g. 256, 384, 1152); the simulation runs, but no real device has it"
            ));
        }
        out
    }

    /// The configuration as TOML (the effective values, for reproducibility).
    ///
    /// TOML integers are signed 64-bit, so a u64 field above `i64::MAX` (a seed may be
    /// that large; a run takes it) cannot be written: that is an error naming the field,
    /// not an empty text.
    pub fn to_toml(&self) -> Result<String> {
        toml::to_string_pretty(self).map_err(|e| {
            let value = serde_json::to_value(self).unwrap_or_default();
            match beyond_toml(&value, "") {
                Some((field, n)) => Error::config(
                    field,
                    format!(
                        "{n} must be at most {} to be written as TOML (its integers are signed 64-bit)",
                        i64::MAX
                    ),
                ),
                None => Error::Input(format!("configuration as TOML: {e}")),
            }
        })
    }
}

/// The first integer of `v` that TOML cannot represent (above `i64::MAX`), with its dotted
/// path (`run.seed`, `flow[0].seed`).
fn beyond_toml(v: &serde_json::Value, path: &str) -> Option<(String, u64)> {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        serde_json::Value::Number(n) => n
            .as_u64()
            .filter(|&n| n > i64::MAX as u64)
            .map(|n| (path.to_string(), n)),
        serde_json::Value::Object(m) => m.iter().find_map(|(k, x)| beyond_toml(x, &join(k))),
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| beyond_toml(x, &format!("{path}[{i}]"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
