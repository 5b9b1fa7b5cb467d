//! The flag vocabulary every command shares ([`CommonArgs`]) and the configuration it
//! builds: preset, then TOML file, then flags.

use crate::{output, Fail};
use clap::Args;
use flashgc_core::config::Watermark;
use flashgc_core::Config;

/// Configuration flags shared by every command. Flags override the config file, which
/// overrides the preset.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct CommonArgs {
    /// Embedded device preset (see `flashgc presets`).
    #[arg(long)]
    pub(crate) preset: Option<String>,
    /// TOML configuration file (layered over the preset).
    #[arg(long)]
    pub(crate) config: Option<String>,
    /// Workload: uniform | zipf:THETA | hotcold:W/S | seq | trace:PATH.
    #[arg(long)]
    pub(crate) workload: Option<String>,
    /// Over-provisioning as (physical - logical) / logical.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) op: Option<f64>,
    /// Over-provisioning as (physical - logical) / physical (MQSim's definition).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) op_of_physical: Option<f64>,
    /// Logical capacity in GiB (sizes the device's blocks per plane).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) logical_gib: Option<f64>,
    /// Flash pages per block.
    #[arg(long)]
    pub(crate) pages_per_block: Option<u32>,
    /// Flash page size in bytes.
    #[arg(long)]
    pub(crate) page_size: Option<u32>,
    /// Mapping unit (LPN) size in bytes.
    #[arg(long)]
    pub(crate) lpn_size: Option<u32>,
    /// Blocks per segment (1 = block; k = superblock over k parallel units).
    #[arg(long)]
    pub(crate) segment_blocks: Option<u32>,
    /// Blocks per plane (instead of --logical-gib).
    #[arg(long)]
    pub(crate) blocks_per_plane: Option<u32>,
    /// GC starts below this many free segments (N, or X% of all segments).
    #[arg(long)]
    pub(crate) gc_low: Option<String>,
    /// GC runs until this many segments are free (N or X%).
    #[arg(long)]
    pub(crate) gc_high: Option<String>,
    /// User data to write, in multiples of the logical capacity.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) write_volume: Option<f64>,
    /// Warm-up excluded from the steady-state WAF, in multiples of the logical capacity.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) warmup: Option<f64>,
    /// Sequential precondition fill, fraction of the logical space (0..1).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) fill: Option<f64>,
    /// Fraction of requests that are reads (synthetic workloads).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) read_ratio: Option<f64>,
    /// Pages per request (synthetic workloads).
    #[arg(long)]
    pub(crate) request_pages: Option<u32>,
    /// Random seed.
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// WAF time-series window, GiB of user writes.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) window_gib: Option<f64>,
    /// Placement scheme (`compare`: comma-separated list).
    #[arg(long)]
    pub(crate) placement: Option<String>,
    /// Victim policy (`compare`: comma-separated list).
    #[arg(long)]
    pub(crate) victim: Option<String>,
    /// GC action: move (default) | splitgc | cagc | dagc, with parameters
    /// (`cagc:index=full`; `compare`: comma-separated list). See `flashgc policies`.
    #[arg(long)]
    pub(crate) gc_action: Option<String>,
    /// Content mode: share of written pages drawn from a pool of popular contents (pages
    /// whose request carries no content, e.g. synthetic workloads).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) dup_ratio: Option<f64>,
    /// Content mode: distinct popular contents in the pool.
    #[arg(long)]
    pub(crate) dup_pool: Option<u64>,
    /// Content mode: Zipf exponent of the popularity over the pool.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) dup_theta: Option<f64>,
    /// What starts GC besides the free-segment watermarks: `free` (default) or
    /// `garbage:SHARE` (SepBIT's log-structured trigger, e.g. garbage:0.15).
    #[arg(long)]
    pub(crate) gc_trigger: Option<String>,
    /// Mapping-table cache (DFTL): controller DRAM for cached translation pages (BYTES,
    /// e.g. 64k, 1MiB) or `off` (the whole L2P in DRAM). See docs/mapping-cache.md.
    #[arg(long, value_name = "BYTES|off")]
    pub(crate) mapping_cache: Option<String>,
    /// Bytes per mapping entry of the mapping cache (default 4).
    #[arg(long)]
    pub(crate) mapping_entry_bytes: Option<u32>,
    /// Bytes per translation page of the mapping cache (default: the LPN size).
    #[arg(long)]
    pub(crate) translation_page_bytes: Option<u32>,
    /// Refuse runs whose estimated memory exceeds this many GiB (default: the
    /// machine has available; `compare` divides it among its parallel runs).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) max_memory: Option<f64>,
}

/// Builds the configuration of `a`: preset, then the TOML file, then the flags.
pub(crate) fn build_config(a: &CommonArgs) -> Result<Config, Fail> {
    let text = match &a.config {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| Fail(2, format!("{path}: cannot read config: {e}")))?,
        ),
        None => None,
    };
    let mut c = Config::load(
        a.preset.as_deref(),
        a.config.as_deref().zip(text.as_deref()),
    )?;
    let d = &mut c.device;
    if let Some(v) = a.pages_per_block {
        d.pages_per_block = v;
    }
    if let Some(v) = a.page_size {
        d.page_size = v;
    }
    if let Some(v) = a.lpn_size {
        d.lpn_size = v;
    }
    if let Some(v) = a.segment_blocks {
        d.segment_blocks = v;
    }
    if let Some(v) = a.blocks_per_plane {
        d.blocks_per_plane = v;
        c.ftl.logical_gib = None;
    }
    if let Some(v) = a.op {
        c.ftl.op = Some(v);
        c.ftl.op_of_physical = None;
    }
    if let Some(v) = a.op_of_physical {
        c.ftl.op_of_physical = Some(v);
        if a.op.is_none() {
            c.ftl.op = None;
        }
    }
    if let Some(v) = a.logical_gib {
        c.ftl.logical_gib = Some(v);
    }
    if let Some(v) = &a.gc_low {
        c.ftl.gc_low = Watermark::parse("--gc-low", v)?;
    }
    if let Some(v) = &a.gc_high {
        c.ftl.gc_high = Some(Watermark::parse("--gc-high", v)?);
    }
    if let Some(v) = &a.gc_trigger {
        c.ftl.gc_trigger = flashgc_core::config::GcTrigger::parse("--gc-trigger", v)?;
    }
    if let Some(v) = &a.mapping_cache {
        if v.trim().eq_ignore_ascii_case("off") {
            c.ftl.mapping_cache = None;
        } else {
            let bytes = crate::cmd_timing::parse_bytes("--mapping-cache", v)?;
            c.ftl
                .mapping_cache
                .get_or_insert_with(Default::default)
                .bytes = bytes;
        }
    }
    for (flag, v) in [
        ("--mapping-entry-bytes", a.mapping_entry_bytes),
        ("--translation-page-bytes", a.translation_page_bytes),
    ] {
        let Some(v) = v else { continue };
        let m = c.ftl.mapping_cache.as_mut().ok_or_else(|| {
            Fail(
                2,
                format!(
                    "{flag} needs a mapping cache (--mapping-cache BYTES or [ftl.mapping_cache])"
                ),
            )
        })?;
        if flag == "--mapping-entry-bytes" {
            m.entry_bytes = v;
        } else {
            m.translation_page_bytes = Some(v);
        }
    }
    let r = &mut c.run;
    if let Some(v) = &a.workload {
        r.workload = v.clone();
    }
    if let Some(v) = a.write_volume {
        r.write_volume = v;
    }
    if let Some(v) = a.warmup {
        r.warmup = Some(v);
    }
    if let Some(v) = a.fill {
        r.fill = v;
    }
    if let Some(v) = a.read_ratio {
        r.read_ratio = v;
    }
    if let Some(v) = a.request_pages {
        r.request_pages = v;
    }
    if let Some(v) = a.seed {
        r.seed = v;
    }
    if let Some(v) = a.window_gib {
        r.window_gib = Some(v);
    }
    if let Some(v) = &a.placement {
        r.placement = v.clone();
    }
    if let Some(v) = &a.victim {
        r.victim = v.clone();
    }
    if let Some(v) = &a.gc_action {
        r.gc_action = v.clone();
    }
    if let Some(v) = a.dup_ratio {
        c.content.dup_ratio = v;
    }
    if let Some(v) = a.dup_pool {
        c.content.pool = v;
    }
    if let Some(v) = a.dup_theta {
        c.content.theta = v;
    }
    let r = &mut c.run;
    r.max_memory_gib = match a.max_memory {
        Some(v) if !(v.is_finite() && v > 0.0) => {
            return Err(Fail(
                2,
                format!("--max-memory {v}: must be a positive number of GiB"),
            ))
        }
        Some(v) => Some(v),
        None => r.max_memory_gib.or_else(output::available_memory_gib),
    };
    // A warm-up beyond a reduced volume would be rejected; keep the default ratio instead.
    if a.write_volume.is_some() && a.warmup.is_none() {
        r.warmup = None;
    }
    Ok(c)
}
