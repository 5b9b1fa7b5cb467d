//! FTL parameters of a configuration: over-provisioning, GC watermarks and trigger, the
//! mapping-table cache.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A GC watermark: a number of free segments, or a fraction of all segments (`"0.1%"`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
// Without `expecting`, a bad value gets serde's "did not match any variant of untagged
// enum Watermark", which names neither the forms nor the range.
#[serde(
    untagged,
    expecting = "a number of free segments in 0..=4294967295 (e.g. 2) or a percentage of all \
                 segments in (0, 100) (e.g. \"5%\")"
)]
pub enum Watermark {
    /// A number of free segments.
    Segments(u32),
    /// A string: `"N"` segments or `"X%"` of all segments.
    Text(WatermarkText),
}

/// String form of a watermark (kept as text so that TOML and CLI read the same).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct WatermarkText {
    /// Fraction of all segments (0.001 for "0.1%").
    pub fraction: f64,
}

impl TryFrom<String> for WatermarkText {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        let t = s.trim();
        let pct = t.strip_suffix('%').ok_or_else(|| {
            format!("`{s}`: expected a segment count or a percentage like \"0.1%\"")
        })?;
        let v: f64 = pct
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: not a percentage"))?;
        if !(v > 0.0 && v < 100.0) {
            return Err(format!("`{s}`: percentage must be in (0, 100)"));
        }
        Ok(WatermarkText {
            fraction: v / 100.0,
        })
    }
}

impl From<WatermarkText> for String {
    fn from(w: WatermarkText) -> String {
        format!("{}%", w.fraction * 100.0)
    }
}

impl Watermark {
    /// Parses `"N"` (segments) or `"X%"`.
    pub fn parse(field: &str, s: &str) -> Result<Watermark> {
        if let Ok(n) = s.trim().parse::<u32>() {
            return Ok(Watermark::Segments(n));
        }
        WatermarkText::try_from(s.to_string())
            .map(Watermark::Text)
            .map_err(|m| Error::config(field, m))
    }

    /// Number of segments this watermark stands for on a device of `segments` segments.
    pub fn segments(&self, segments: u64) -> u64 {
        match self {
            Watermark::Segments(n) => *n as u64,
            Watermark::Text(t) => ((t.fraction * segments as f64).ceil() as u64).max(1),
        }
    }
}

/// What starts GC: the free-segment watermarks alone (`"free"`, default), or also the
/// garbage proportion of SepBIT's log-structured simulator (`"garbage:0.15"`: after a user
/// write, collect one victim while invalid pages in sealed segments exceed 15 % of the
/// pages holding data). On a device with spare room beyond that share, the written data
/// then occupies what the working set needs, as SepBIT's log does; the watermarks stay as
/// a backstop (the result's `gc_garbage_victims` counts the victims the trigger took).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(try_from = "String", into = "String")]
pub enum GcTrigger {
    /// Free-segment watermarks only.
    #[default]
    Free,
    /// Garbage proportion above this share (0 < share < 1), plus the watermarks.
    Garbage(f64),
}

impl TryFrom<String> for GcTrigger {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        let t = s.trim().to_ascii_lowercase();
        if t == "free" {
            return Ok(GcTrigger::Free);
        }
        let share = t.strip_prefix("garbage:").ok_or_else(|| {
            format!("`{s}`: expected \"free\" or \"garbage:SHARE\" (e.g. garbage:0.15)")
        })?;
        let v: f64 = share
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: `{share}` is not a number; expected a share in (0, 1)"))?;
        if !(v > 0.0 && v < 1.0) {
            return Err(format!("`{s}`: the garbage share must be in (0, 1)"));
        }
        Ok(GcTrigger::Garbage(v))
    }
}

impl From<GcTrigger> for String {
    fn from(t: GcTrigger) -> String {
        match t {
            GcTrigger::Free => "free".into(),
            GcTrigger::Garbage(v) => format!("garbage:{v}"),
        }
    }
}

impl GcTrigger {
    /// Parses `free` or `garbage:SHARE` (`field` names the flag in errors).
    pub fn parse(field: &str, s: &str) -> Result<GcTrigger> {
        GcTrigger::try_from(s.to_string()).map_err(|m| Error::config(field, m))
    }
}

/// FTL parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Over-provisioning as (physical - logical) / logical. Default 0.07.
    pub op: Option<f64>,
    /// Over-provisioning as MQSim defines it: (physical - logical) / physical.
    /// Give either this or `op`, not both.
    pub op_of_physical: Option<f64>,
    /// Logical capacity in GiB; when set, the device's blocks per plane are derived from it.
    pub logical_gib: Option<f64>,
    /// GC starts when free segments fall below this (segments, or "X%" of all segments).
    pub gc_low: Watermark,
    /// GC runs until free segments reach this. Defaults to `gc_low`.
    pub gc_high: Option<Watermark>,
    /// What starts GC besides the watermarks (see [`GcTrigger`]).
    pub gc_trigger: GcTrigger,
    /// A demand-paged mapping table (DFTL-style cache of translation pages); None keeps
    /// the whole L2P in DRAM. `[ftl.mapping_cache]` in TOML, `--mapping-cache` on the CLI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping_cache: Option<MappingCacheConfig>,
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            op: None,
            op_of_physical: None,
            logical_gib: None,
            gc_low: Watermark::Segments(2),
            gc_high: None,
            gc_trigger: GcTrigger::Free,
            mapping_cache: None,
        }
    }
}

/// The mapping-table cache (docs/mapping-cache.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MappingCacheConfig {
    /// Controller DRAM for cached translation pages, bytes (whole translation pages are
    /// cached: capacity = bytes / translation_page_bytes, at least one page, at most the
    /// whole table).
    pub bytes: u64,
    /// Bytes per mapping entry. Default 4 (a 32-bit physical page number, as in DFTL and
    /// MQSim).
    pub entry_bytes: u32,
    /// Bytes per translation page; default (None) the LPN size. A translation page is
    /// stored in one mapping unit, so at most `device.lpn_size`.
    pub translation_page_bytes: Option<u32>,
}

impl Default for MappingCacheConfig {
    fn default() -> Self {
        MappingCacheConfig {
            bytes: 1 << 20,
            entry_bytes: 4,
            translation_page_bytes: None,
        }
    }
}

impl MappingCacheConfig {
    /// (entries per translation page, translation pages of the table, cached pages) for a
    /// device of `logical_pages` LPNs of `lpn_size` bytes; errors name the field and the
    /// allowed range.
    pub fn shape(&self, logical_pages: u64, lpn_size: u32) -> Result<(u32, u32, u32)> {
        let tpb = self.translation_page_bytes.unwrap_or(lpn_size);
        if self.entry_bytes == 0 || self.entry_bytes > 64 {
            return Err(Error::config(
                "ftl.mapping_cache.entry_bytes",
                format!("{} must be in [1, 64]", self.entry_bytes),
            ));
        }
        if tpb < self.entry_bytes || tpb > lpn_size {
            return Err(Error::config(
                "ftl.mapping_cache.translation_page_bytes",
                format!(
                    "{tpb} must be in [entry_bytes = {}, device.lpn_size = {lpn_size}] \
                     (a translation page is stored in one mapping unit)",
                    self.entry_bytes
                ),
            ));
        }
        let epp = tpb / self.entry_bytes;
        let pages = logical_pages.div_ceil(epp as u64);
        if pages >= u32::MAX as u64 / 2 {
            return Err(Error::config(
                "ftl.mapping_cache.translation_page_bytes",
                format!("{pages} translation pages are too many: use larger translation pages"),
            ));
        }
        let table_bytes = pages * tpb as u64;
        let cap = self.bytes / tpb as u64;
        if cap < 1 || cap > pages {
            return Err(Error::config(
                "ftl.mapping_cache.bytes",
                format!(
                    "{} must be in [one translation page = {tpb}, the whole table = \
                     {table_bytes}] bytes (`off` keeps the whole table in DRAM)",
                    self.bytes
                ),
            ));
        }
        Ok((epp, pages as u32, cap as u32))
    }
}
