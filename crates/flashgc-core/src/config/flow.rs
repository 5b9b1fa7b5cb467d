//! Host flows in a configuration (`[[flow]]` sections, docs/flows.md) and the byte sizes
//! they are written in. The flows themselves are built in `crate::workload::flows`.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A size in bytes in a configuration: an integer, or a string with a binary suffix
/// (`4k`, `16KiB`, `1g`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Without `expecting`, a bad value gets serde's "did not match any variant of untagged
// enum ByteSize", which names neither form.
#[serde(
    untagged,
    expecting = "a size in bytes: a whole number >= 0 (e.g. 4096) or a string with an optional \
                 k/m/g/t suffix (e.g. \"4k\", \"1g\")"
)]
pub enum ByteSize {
    /// Bytes.
    Bytes(u64),
    /// Text with an optional k/m/g/t suffix (powers of 1024).
    Text(String),
}

impl ByteSize {
    /// The size in bytes (errors name `field`).
    pub fn bytes(&self, field: &str) -> Result<u64> {
        match self {
            ByteSize::Bytes(b) => Ok(*b),
            ByteSize::Text(s) => crate::workload::fio::parse_size(s).ok_or_else(|| {
                let number = s
                    .trim()
                    .to_ascii_lowercase()
                    .trim_end_matches(|c: char| "kmgtib".contains(c))
                    .trim()
                    .parse::<f64>()
                    .is_ok();
                if number {
                    Error::config(field, format!("`{s}` is out of range"))
                } else {
                    Error::config(field, format!("`{s}` is not a size (e.g. 4096, 4k, 1g)"))
                }
            }),
        }
    }
}

/// One `[[flow]]` section of a configuration (docs/flows.md): fio's job options by their
/// fio names, one arrival process (`iodepth` or `rate_iops`), and `numjobs` copies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Name (default `flowN`, N its index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// fio's rw: randrw, randwrite, randread, write, read. Default randwrite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rw: Option<String>,
    /// Percentage of writes for randrw (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwmixwrite: Option<f64>,
    /// Block size (default 4k).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs: Option<ByteSize>,
    /// fio's `bssplit`: request lengths with their shares, `"4k/50:64k/30:256k/20"`, or
    /// `"READS,WRITES"` lists (an empty list keeps `bs` for that direction); replaces `bs`
    /// for the directions it lists (docs/flows.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bssplit: Option<String>,
    /// First byte of the region (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<ByteSize>,
    /// Length of the region (default: to the end of the device).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<ByteSize>,
    /// uniform or zipf:THETA (default uniform).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<String>,
    /// Closed loop with this many outstanding requests (default 1 unless `rate_iops`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iodepth: Option<u32>,
    /// Alone: open loop at this many requests per simulated second. With `iodepth`: the
    /// closed loop issues at most this many requests per simulated second (fio's
    /// `rate_iops` on a job with an iodepth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_iops: Option<f64>,
    /// fio's `thinktime`: after every `thinktime_blocks` requests the closed loop waits for
    /// its requests in flight, then this many simulated microseconds (default 0: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinktime_us: Option<f64>,
    /// fio's `thinktime_blocks`: requests between think times (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinktime_blocks: Option<u32>,
    /// fio's `thinktime_blocks_type`: `complete` (completions fio has reaped; the default)
    /// or `issue` (requests issued) count toward `thinktime_blocks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinktime_blocks_type: Option<String>,
    /// First arrival, simulated milliseconds (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ms: Option<f64>,
    /// Requests the flow issues (default: unbounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// fio's `runtime`: no request is issued at or after the flow's start + `ramp_ms` +
    /// this, simulated milliseconds (default 0: no limit; timed runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_ms: Option<f64>,
    /// fio's `ramp_time`: the flow's requests issued in its first `ramp_ms` simulated
    /// milliseconds are left out of its latency, IOPS and bandwidth (default 0; timed runs
    /// only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp_ms: Option<f64>,
    /// Copies of the flow, named `NAME.j` (fio's numjobs; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numjobs: Option<u32>,
    /// Seed (default: the run's seed + the flow's index x 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}
