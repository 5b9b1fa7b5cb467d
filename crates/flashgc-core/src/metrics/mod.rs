//! What a run measures: the result record ([`result`]), the WAF bookkeeping every run
//! shares ([`recorder`]), latency histograms ([`latency`]), and the small summaries below
//! (WAF series points, erase counts, memory per structure).

pub mod latency;
pub mod recorder;
pub mod result;

use serde::Serialize;

/// One point of the WAF time series (one window of user writes).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct WindowPoint {
    /// User bytes written so far (measured phase).
    pub user_bytes: u64,
    /// User writes so far, in multiples of the logical capacity.
    pub capacity_written: f64,
    /// WAF within this window.
    pub waf_window: f64,
    /// WAF since the start of the measured phase.
    pub waf_cumulative: f64,
    /// Erases so far.
    pub erases: u64,
}

/// Summary of per-block erase counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EraseSummary {
    /// Fewest erases of any block.
    pub min: u32,
    /// Mean erases per block.
    pub mean: f64,
    /// Most erases of any block.
    pub max: u32,
    /// Standard deviation.
    pub stddev: f64,
}

impl EraseSummary {
    /// Summary of `counts` (per segment; every block of a segment is erased with it).
    pub fn of(counts: &[u32]) -> EraseSummary {
        if counts.is_empty() {
            return EraseSummary {
                min: 0,
                mean: 0.0,
                max: 0,
                stddev: 0.0,
            };
        }
        let n = counts.len() as f64;
        let mean = counts.iter().map(|&c| c as f64).sum::<f64>() / n;
        let var = counts
            .iter()
            .map(|&c| (c as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        EraseSummary {
            min: *counts.iter().min().unwrap_or(&0),
            mean,
            max: *counts.iter().max().unwrap_or(&0),
            stddev: var.sqrt(),
        }
    }
}

/// Memory used by one structure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryItem {
    /// Structure name.
    pub structure: String,
    /// Bytes.
    pub bytes: u64,
    /// Bytes per logical page.
    pub bytes_per_lpn: f64,
}

impl MemoryItem {
    /// The items of `(structure, bytes)` pairs (e.g. a workload's
    /// [`crate::workload::Workload::memory`]) on a device of `logical_pages`.
    pub fn list(pairs: Vec<(String, u64)>, logical_pages: u64) -> Vec<MemoryItem> {
        let logical = logical_pages.max(1) as f64;
        pairs
            .into_iter()
            .map(|(structure, bytes)| MemoryItem {
                structure,
                bytes,
                bytes_per_lpn: bytes as f64 / logical,
            })
            .collect()
    }
}

/// WAF between two counter snapshots: flash programs / user page writes (content mode:
/// absorbed writes program nothing, background writes program too). Equals
/// [`waf`]`(user, gc)` when neither occurs.
/// Translation writes of a mapping cache count as programs. (Computed as a ratio of the
/// program and write counts: DAGC's absorbed writes can make it below 1.)
pub fn waf_between(a: &crate::ftl::FtlCounters, b: &crate::ftl::FtlCounters) -> f64 {
    let user = b.user_writes - a.user_writes;
    if user == 0 {
        0.0
    } else {
        (b.programs() - a.programs()) as f64 / user as f64
    }
}

/// WAF = (user + GC page writes) / user page writes; NaN-free (0 writes gives 0).
pub fn waf(user: u64, gc: u64) -> f64 {
    if user == 0 {
        0.0
    } else {
        (user + gc) as f64 / user as f64
    }
}
