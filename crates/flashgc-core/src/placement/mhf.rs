//! `mhf`: multiple-hash-function hot data identification (Hsieh, Kuo & Chang, "Efficient
//! identification of hot data for flash memory storage systems", ACM TOS 2006) with the
//! 2006 paper's absolute table sizes, two streams (hot and cold). papers/bf-gc.txt's
//! MHF-Optimized baseline, the same classifier sized for a page-mapped device, is
//! `mhf-opt` (`mhf_opt.rs`).
//!
//! K hash functions map an LPN to K counters of B bits in a table of M counters. A user
//! write increments its K counters (saturating); the LPN is hot if every one of its K
//! counters has a non-zero bit among its H most significant bits (counter >= 2^(B-H)).
//! Every `decay` user writes all counters are halved (exponential decay).
//!
//! Parameters (spec `mhf:key=value,...`), defaults from Hsieh et al. 2006:
//! * `hashes` K (default 2), `counters` M (default 4096), `bits` B (default 4, the
//!   "4-bit counters"), `hot_bits` H (default 2, i.e. hot at counter >= 4), `decay`
//!   (default 5117 user writes). These sizes are absolute, as in the paper; on a device
//!   far larger than the paper's traces the table saturates, so scale `counters` and
//!   `decay` with the device when comparing (e.g. counters = logical pages / 16).
//! * `gc` (default `reclassify`): GC relocations ask the identifier again (the bf-gc
//!   paper's MHF-Optimized keeps one hot and one cold block stream for all writes);
//!   `keep`: the victim's stream; `cold`: always cold.
//!
//! Memory: M x B bits (counters packed two per byte for B = 4).

use super::common::{check_streams, hash_seed, hash_to};
use super::{Placement, PlacementInit};
use crate::error::{Error, Result};
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// MHF placement.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Mhf {
    /// Serves `mhf-opt` (else `mhf`).
    optimized: bool,
    /// The counters; two per byte (low nibble = even index) when `max` <= 15, as firmware
    /// packs 4-bit counters, else one per byte.
    #[serde(with = "crate::checkpoint::raw")]
    counters: Vec<u8>,
    m: u64,
    seeds: Vec<u64>,
    max: u8,
    hot_at: u8,
    decay: u64,
    since: u64,
    gc: u8,
    hot_writes: u64,
    cold_writes: u64,
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let k = spec.num::<u32>("hashes", 2, 1, 16)?;
    let m = spec.num::<u64>("counters", 4096, 1, 1 << 34)?;
    let b = spec.num::<u32>("bits", 4, 1, 8)?;
    let h = spec.num::<u32>("hot_bits", 2, 1, 8)?;
    if h > b {
        return Err(Error::config(
            spec.path("hot_bits"),
            format!("{h} exceeds the counter width `bits` = {b}; allowed 1..={b}"),
        ));
    }
    let decay = spec.num::<u64>("decay", 5117, 1, u64::MAX / 2)?;
    let gc = match spec
        .choice("gc", "reclassify", &["reclassify", "keep", "cold"])?
        .as_str()
    {
        "reclassify" => 0,
        "keep" => 1,
        _ => 2,
    };
    check_streams(spec, "(2 streams)", 2, init.segments)?;
    Ok(Box::new(Mhf::new(
        spec, "counters", "mhf", init, k, m, b, h, decay, gc,
    )?))
}

impl Mhf {
    /// An MHF classifier: `k` hashes into `m` counters of `b` bits, hot when every counter
    /// is at least 2^(b-h), all counters halved every `decay` user writes; `gc` 0 =
    /// reclassify, 1 = keep, 2 = cold. `name` is the registered scheme it serves; the
    /// counter table is checked against the memory limit of `spec` and allocated
    /// fallibly, `key` naming the parameter that sizes it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        spec: &Spec,
        key: &str,
        name: &'static str,
        init: PlacementInit,
        k: u32,
        m: u64,
        b: u32,
        h: u32,
        decay: u64,
        gc: u8,
    ) -> Result<Mhf> {
        let bytes = if b <= 4 { m.div_ceil(2) } else { m };
        Ok(Mhf {
            optimized: name == "mhf-opt",
            counters: spec.table(key, &format!("{m} counters of {b} bits"), bytes, 0)?,
            m,
            seeds: (0..k).map(|i| hash_seed(init.seed ^ 0x3f7, i)).collect(),
            max: ((1u32 << b) - 1) as u8,
            hot_at: (1u32 << (b - h)) as u8,
            decay,
            since: 0,
            gc,
            hot_writes: 0,
            cold_writes: 0,
        })
    }

    #[inline]
    fn packed(&self) -> bool {
        self.max <= 15
    }

    #[inline]
    fn get(&self, i: u64) -> u8 {
        if self.packed() {
            (self.counters[(i / 2) as usize] >> ((i & 1) * 4)) & 15
        } else {
            self.counters[i as usize]
        }
    }

    /// Increments counter `i` unless it is saturated; returns its new value.
    #[inline]
    fn bump(&mut self, i: u64) -> u8 {
        let v = self.get(i);
        if v >= self.max {
            return v;
        }
        if self.packed() {
            self.counters[(i / 2) as usize] += 1 << ((i & 1) * 4);
        } else {
            self.counters[i as usize] += 1;
        }
        v + 1
    }

    /// Halves every counter (the exponential decay).
    fn halve(&mut self) {
        let mask = if self.packed() { 0x77 } else { 0x7f };
        self.counters.iter_mut().for_each(|c| *c = (*c >> 1) & mask);
    }

    #[inline]
    fn is_hot(&self, key: u64) -> bool {
        self.seeds
            .iter()
            .all(|&s| self.get(hash_to(key, s, self.m)) >= self.hot_at)
    }
}

/// Classifier work per user write on the simulation host beyond a no-op call, ns: MHF's K
/// hash probes and 4-bit counter updates. `driver::calibrate::classifier_host_ns` (1 Mi
/// LPNs, 200 k zipf(1.0) writes, median of three runs of `--example cpu_calibrate`, AMD
/// EPYC, 2026-11-24); the firmware-CPU model scales it (docs/cpu.md).
const CLASSIFIER_NS: f64 = 11.5;

impl Placement for Mhf {
    fn name(&self) -> &'static str {
        if self.optimized {
            "mhf-opt"
        } else {
            "mhf"
        }
    }
    fn classifier_ns(&self) -> f64 {
        CLASSIFIER_NS
    }
    crate::checkpoint::serde_state!(same: [m, seeds, max, hot_at, decay, gc], len: [counters]);
    fn check_restored(
        &self,
        _dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        if self.since >= self.decay {
            return Err(format!(
                "{} writes since the last decay, of {}",
                self.since, self.decay
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
        let key = lpn as u64;
        let mut min = u8::MAX;
        for i in 0..self.seeds.len() {
            let c = self.bump(hash_to(key, self.seeds[i], self.m));
            min = min.min(c);
        }
        self.since += 1;
        if self.since == self.decay {
            self.since = 0;
            self.halve();
        }
        // Hot = every counter at or above 2^(B-H); a decay just now halves them first.
        let hot = if self.since == 0 {
            self.is_hot(key)
        } else {
            min >= self.hot_at
        };
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
            0 => !self.is_hot(lpn as u64) as StreamId,
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
        // Counters of `bits` <= 4 are packed two per byte, as in firmware.
        self.counters.len() as u64
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "counters": self.m, "hashes": self.seeds.len(), "hot_at_counter": self.hot_at,
            "decay_user_writes": self.decay, "hot_user_writes": self.hot_writes, "cold_user_writes": self.cold_writes,
        }))
    }
}
