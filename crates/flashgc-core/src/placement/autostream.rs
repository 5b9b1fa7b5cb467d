//! `autostream`: AutoStream's SFR classifier (Yang et al., "AutoStream: automatic stream
//! management for multi-streamed SSDs", SYSTOR 2017), one of the comparison set of
//! papers/midas.txt §2.3 ("counts the number of updates of data blocks ... classifies them
//! based on update frequency ... the number of groups is usually set to five").
//!
//! The LPN space is cut into chunks; each chunk keeps an access count and the decay period
//! of its last access. On a write the count is halved once per decay period elapsed
//! (recency), then incremented (frequency), and the stream is the count's log2 *relative
//! to the count an average chunk would have* (flashgc's normalisation, so the five streams
//! span the workload's range whatever the chunk size and device size):
//! `stream = clamp(floor(log2(count)) - round(log2(expected)) + 2, 0, streams - 1)`, hottest = highest
//! stream. Sequential-run detection (the "S" of SFR) is not modelled: synthetic workloads
//! have none and traces are split into pages by the core. GC relocations keep the
//! victim's stream (the streams are host-assigned; the device does not reclassify).
//!
//! Parameters (spec `autostream:key=value,...`):
//! * `streams` (default 5, as in the paper). Range 2..=16.
//! * `chunk_pages` (default 256 = 1 MiB of 4 KiB pages, SFR's chunk size).
//! * `decay` (default 0.25): decay period in multiples of the logical capacity of user
//!   writes (flashgc's choice).
//!
//! Memory: 4 B count + 4 B period stamp per chunk.

use super::common::check_streams;
use super::{Placement, PlacementInit};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// AutoStream (SFR) placement.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct AutoStream {
    #[serde(with = "crate::checkpoint::raw")]
    count: Vec<u32>,
    #[serde(with = "crate::checkpoint::raw")]
    period: Vec<u32>,
    chunk_shift: u32,
    decay: u64,
    streams: usize,
    expected: f64,
    expected_log2: i64,
    writes: Vec<u64>,
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let streams = spec.num::<usize>("streams", 5, 2, 16)?;
    let chunk = spec.num::<u64>("chunk_pages", 256, 1, 1 << 30)?;
    if !chunk.is_power_of_two() {
        return Err(crate::error::Error::config(
            spec.path("chunk_pages"),
            format!("{chunk} is not a power of two; allowed 1, 2, 4, ..., 2^30"),
        ));
    }
    let decay = spec.num::<f64>("decay", 0.25, 1e-6, 1e6)?;
    check_streams(spec, "streams", streams, init.segments)?;
    let chunks = init.logical_pages.div_ceil(chunk);
    let decay = ((decay * init.logical_pages as f64).round() as u64).max(1);
    // An average chunk gets chunk/logical of the writes; halving once per period D keeps
    // its count near 2 x rate x D at steady state.
    let expected = (2.0 * decay as f64 * chunk as f64 / init.logical_pages as f64).max(1.0);
    Ok(Box::new(AutoStream {
        count: spec.table("chunk_pages", "per-chunk write counts", chunks, 0)?,
        period: spec.table("chunk_pages", "per-chunk periods", chunks, 0)?,
        chunk_shift: chunk.trailing_zeros(),
        decay,
        streams,
        expected,
        expected_log2: libm::round(libm::log2(expected)) as i64,
        writes: vec![0; streams],
    }))
}

/// Classifier work per user write on the simulation host beyond a no-op call, ns:
/// AutoStream's per-chunk decayed count. `driver::calibrate::classifier_host_ns` (1 Mi
/// LPNs, 200 k zipf(1.0) writes, median of three runs of `--example cpu_calibrate`, AMD
/// EPYC, 2026-11-24); the firmware-CPU model scales it (docs/cpu.md).
const CLASSIFIER_NS: f64 = 2.4;

impl Placement for AutoStream {
    fn name(&self) -> &'static str {
        "autostream"
    }
    fn classifier_ns(&self) -> f64 {
        CLASSIFIER_NS
    }
    crate::checkpoint::serde_state!(
        same: [chunk_shift, decay, streams, expected, expected_log2],
        len: [count, period, writes]
    );
    fn streams(&self) -> usize {
        self.streams
    }
    fn stream_name(&self, s: StreamId) -> String {
        format!("S{s}")
    }
    #[inline]
    fn user_stream(&mut self, lpn: Lpn, now: u64) -> StreamId {
        let c = (lpn >> self.chunk_shift) as usize;
        let p = (now / self.decay) as u32;
        let shift = p.wrapping_sub(self.period[c]).min(32);
        self.period[c] = p;
        let n = if shift >= 32 {
            0
        } else {
            self.count[c] >> shift
        }
        .saturating_add(1);
        self.count[c] = n;
        // floor(log2(count)) - log2(expected) + 2, in integers.
        let lvl = (31 - n.leading_zeros()) as i64 - self.expected_log2 + 2;
        let s = lvl.clamp(0, self.streams as i64 - 1) as usize;
        self.writes[s] += 1;
        s as StreamId
    }
    #[inline]
    fn gc_stream(&mut self, _lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId {
        view.stream(victim)
    }
    fn gc_stream_of_victim(
        &mut self,
        victim: SegmentId,
        _pages: u32,
        view: &SegmentView,
    ) -> Option<StreamId> {
        Some(view.stream(victim))
    }
    fn memory_bytes(&self) -> u64 {
        (self.count.len() * 8) as u64
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(
            serde_json::json!({ "user_writes_per_stream": self.writes, "expected_count": self.expected, "decay_user_writes": self.decay }),
        )
    }
}
