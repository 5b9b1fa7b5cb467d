//! `cat`: the hot/cold placement of CAT (Chiang & Chang, "Cleaning policies in mobile
//! computers using flash memory", JSS 1999), as papers/midas.txt §2.3 describes it: "CAT
//! categorizes a data block into two types, hot and cold, based on its update frequency
//! and assigns it to either a hot or cold segment group. It dynamically changes the sizes
//! of groups by moving live blocks over groups during GC." (CAT's own cost-age-times
//! victim rule is not part of this placement; pick the victim policy separately.)
//!
//! Per-LPN update counter (1 byte, saturating), halved for every LPN every `decay` user
//! writes (lazily, by the number of decay periods since the LPN's last update, so the
//! cost per write stays O(1)). Hot if the counter is at or above `hot`.
//!
//! Parameters (spec `cat:key=value,...`; the papers give no numbers, so these are
//! flashgc's choices):
//! * `hot` (default 2: updated at least twice within about one decay period).
//! * `decay` (default 1.0): the halving period, in multiples of the logical capacity of
//!   user writes.
//! * GC relocations are re-classified by the page's current counter (live blocks move
//!   between the groups during GC, as the description says).
//!
//! Memory: 1 B counter + 4 B decay-period stamp per LPN.

use super::common::check_streams;
use super::{Placement, PlacementInit};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// CAT placement.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Cat {
    #[serde(with = "crate::checkpoint::raw")]
    count: Vec<u8>,
    #[serde(with = "crate::checkpoint::raw")]
    period: Vec<u32>,
    decay: u64,
    hot: u8,
    now: u64,
    writes: [u64; 2],
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let hot = spec.num::<u8>("hot", 2, 1, 255)?;
    let decay = spec.num::<f64>("decay", 1.0, 1e-6, 1e6)?;
    check_streams(spec, "(2 streams)", 2, init.segments)?;
    let n = init.logical_pages as usize;
    Ok(Box::new(Cat {
        count: vec![0; n],
        period: vec![0; n],
        decay: ((decay * init.logical_pages as f64).round() as u64).max(1),
        hot,
        now: 0,
        writes: [0; 2],
    }))
}

impl Cat {
    #[inline]
    fn decayed(&mut self, lpn: usize) -> u8 {
        let p = (self.now / self.decay) as u32;
        let shift = p.wrapping_sub(self.period[lpn]).min(8);
        self.period[lpn] = p;
        let c = if shift >= 8 {
            0
        } else {
            self.count[lpn] >> shift
        };
        self.count[lpn] = c;
        c
    }
}

/// Classifier work per user write on the simulation host beyond a no-op call, ns: CAT's
/// decayed update count. `driver::calibrate::classifier_host_ns` (1 Mi LPNs, 200 k
/// zipf(1.0) writes, median of three runs of `--example cpu_calibrate`, AMD EPYC,
/// 2026-11-24); the firmware-CPU model scales it (docs/cpu.md).
const CLASSIFIER_NS: f64 = 3.6;

impl Placement for Cat {
    fn name(&self) -> &'static str {
        "cat"
    }
    fn classifier_ns(&self) -> f64 {
        CLASSIFIER_NS
    }
    crate::checkpoint::serde_state!(same: [decay, hot], len: [count, period]);
    fn streams(&self) -> usize {
        2
    }
    fn stream_name(&self, s: StreamId) -> String {
        if s == 0 { "hot" } else { "cold" }.into()
    }
    #[inline]
    fn user_stream(&mut self, lpn: Lpn, now: u64) -> StreamId {
        self.now = now;
        let c = self.decayed(lpn as usize).saturating_add(1);
        self.count[lpn as usize] = c;
        let s = (c < self.hot) as usize;
        self.writes[s] += 1;
        s as StreamId
    }
    #[inline]
    fn gc_stream(&mut self, lpn: Lpn, _victim: SegmentId, view: &SegmentView) -> StreamId {
        self.now = view.now();
        (self.decayed(lpn as usize) < self.hot) as StreamId
    }
    fn on_trim(&mut self, lpn: Lpn) {
        self.count[lpn as usize] = 0;
    }
    fn memory_bytes(&self) -> u64 {
        (self.count.len() * 5) as u64
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(
            serde_json::json!({ "hot_user_writes": self.writes[0], "cold_user_writes": self.writes[1], "decay_user_writes": self.decay }),
        )
    }
}
