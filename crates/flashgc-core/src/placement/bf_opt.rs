//! `bf-opt`: BF-Optimized, the Bloom-filter baseline of papers/sup-gc.txt (§5: "using
//! Bloom filters to identify cold and hot data and achieve data isolation within flash
//! memory blocks ... We optimized these technical details and adopted a lightweight
//! design"; its only cost the paper names is "the hash computations performed by the
//! Bloom filter during each write operation", about 5 % of throughput). It cites MHF and
//! MBF ([29], [30]) and is by the group that wrote papers/bf-gc.txt; flashgc builds it
//! from that group's filter with the lightweight choices the sup-gc paper describes, each
//! a named parameter:
//!
//! * One Bloom filter over LPNs with `hashes` = 8 and `bits_per_lpn` = 6.4 (the group's
//!   sizing in bf-gc §3.2: 5 % of Cosmos+'s cache).
//! * No per-page counter ("lightweight"): a user write whose LPN is already in the filter
//!   is hot (rewritten since the last reset); otherwise it is cold and its LPN is added.
//!   This is bf-gc's Algorithm 1 with one hit bit instead of the `state` byte.
//! * The filter is cleared every `reset` = 1.0 x logical capacity of user writes (bf-gc's
//!   "time threshold", value not given; flashgc's bf-gc uses the same).
//! * Hot and cold blocks for every write ("data isolation"): a GC relocation is hot if the
//!   filter holds its LPN (`gc=reclassify`, default; the lookup does not insert), or goes
//!   to the cold stream (`gc=cold`) or stays in the victim's stream (`gc=keep`).
//!
//! Memory: bits_per_lpn bits per LPN (0.8 B/LPN).

use super::bf_gc::Bloom;
use super::common::check_streams;
use super::{Placement, PlacementInit};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// BF-Optimized placement.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct BfOpt {
    filter: Bloom,
    reset_every: u64,
    since_reset: u64,
    resets: u64,
    gc: u8,
    hot_writes: u64,
    cold_writes: u64,
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let hashes = spec.num::<u32>("hashes", 8, 1, 32)?;
    let bits_per_lpn = spec.num::<f64>("bits_per_lpn", 6.4, 0.01, 1024.0)?;
    let reset = spec.num::<f64>("reset", 1.0, 1e-6, 1e6)?;
    let gc = match spec
        .choice("gc", "reclassify", &["reclassify", "keep", "cold"])?
        .as_str()
    {
        "reclassify" => 0,
        "keep" => 1,
        _ => 2,
    };
    check_streams(spec, "(2 streams)", 2, init.segments)?;
    let m = (bits_per_lpn * init.logical_pages as f64).round() as u64;
    Ok(Box::new(BfOpt {
        filter: Bloom::for_spec(spec, "bits_per_lpn", m, hashes, init.seed ^ 0xbf0e)?,
        reset_every: ((reset * init.logical_pages as f64).round() as u64).max(1),
        since_reset: 0,
        resets: 0,
        gc,
        hot_writes: 0,
        cold_writes: 0,
    }))
}

/// Classifier work per user write on the simulation host beyond a no-op call, ns: the 8
/// hash probes and bit sets of the one Bloom filter. `driver::calibrate::classifier_host_ns`
/// (1 Mi LPNs, 200 k zipf(1.0) writes, `--example cpu_calibrate`, AMD EPYC, 2026-11-24);
/// the firmware-CPU model scales it (docs/cpu.md).
const CLASSIFIER_NS: f64 = 23.5;

impl Placement for BfOpt {
    fn name(&self) -> &'static str {
        "bf-opt"
    }
    fn classifier_ns(&self) -> f64 {
        CLASSIFIER_NS
    }
    fn save_state(&self, out: &mut crate::checkpoint::StateOut<'_>) -> Result<()> {
        out.put(self)
    }
    fn load_state(&mut self, state: &mut crate::checkpoint::StateIn<'_>) -> Result<()> {
        let d: BfOpt = state.get()?;
        if !d.filter.same_shape(&self.filter)
            || (d.reset_every, d.gc) != (self.reset_every, self.gc)
        {
            return Err(crate::checkpoint::inconsistent(
                "bf-opt filter shape, reset period or GC rule differ from the configuration".into(),
            ));
        }
        *self = d;
        Ok(())
    }
    fn check_restored(
        &self,
        _dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        // The reset fires when the count reaches the period: past it, it never would.
        if self.since_reset >= self.reset_every {
            return Err(format!(
                "{} writes since the last reset, of {}",
                self.since_reset, self.reset_every
            ));
        }
        Ok(())
    }
    fn streams(&self) -> usize {
        2
    }
    fn stream_name(&self, s: StreamId) -> String {
        if s == 0 { "hot" } else { "cold" }.into()
    }
    #[inline]
    fn user_stream(&mut self, lpn: Lpn, _now: u64) -> StreamId {
        let hot = self.filter.test_and_insert(lpn as u64);
        self.since_reset += 1;
        if self.since_reset == self.reset_every {
            self.since_reset = 0;
            self.resets += 1;
            self.filter.clear();
        }
        if hot {
            self.hot_writes += 1;
            0
        } else {
            self.cold_writes += 1;
            1
        }
    }
    #[inline]
    fn gc_stream(&mut self, lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId {
        match self.gc {
            0 => !self.filter.contains(lpn as u64) as StreamId,
            1 => view.stream(victim),
            _ => 1,
        }
    }
    fn gc_stream_of_victim(
        &mut self,
        victim: SegmentId,
        _pages: u32,
        view: &SegmentView,
    ) -> Option<StreamId> {
        // gc=reclassify (0) asks the filter per page.
        (self.gc != 0).then(|| self.gc_stream(0, victim, view))
    }
    fn memory_bytes(&self) -> u64 {
        self.filter.memory_bytes()
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "filter_bits": self.filter.bits(),
            "hashes": self.filter.hashes(),
            "reset_every_user_writes": self.reset_every,
            "resets": self.resets,
            "hot_user_writes": self.hot_writes,
            "cold_user_writes": self.cold_writes,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::Segments;

    #[test]
    fn a_rewrite_within_the_reset_window_is_hot_and_gc_asks_the_filter() {
        let s = Spec::parse("placement", "bf-opt:reset=0.005").unwrap();
        let init = PlacementInit {
            logical_pages: 1000,
            segments: 64,
            pages_per_segment: 16,
            seed: 3,
        };
        let mut p = build(&s, init).unwrap();
        s.finish().unwrap();
        // Reset every 5 writes. 6400 bits, 8 hashes: a false positive among 4 keys has
        // probability ~1e-12 for any one query.
        let streams: Vec<u16> = [3, 4, 3, 9, 3, 3, 4]
            .iter()
            .enumerate()
            .map(|(i, &l)| p.user_stream(l, i as u64 + 1))
            .collect();
        // Writes 1-5: 3 cold, 4 cold, 3 hot, 9 cold, 3 hot; the reset after write 5 clears
        // the filter: 3 cold, 4 cold.
        assert_eq!(streams, vec![1, 1, 0, 1, 0, 1, 1]);
        let segs = Segments::new(2, 16);
        let view = SegmentView::new(&segs, 8);
        assert_eq!(p.gc_stream(3, 0, &view), 0, "3 is in the filter: hot");
        assert_eq!(p.gc_stream(9, 0, &view), 1, "9 was cleared: cold");
    }
}
