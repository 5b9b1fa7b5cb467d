//! `mbf`: multiple Bloom filters (Park & Du, "Hot data identification for flash-based
//! storage systems using multiple Bloom filters", MSST 2011), cited by papers/bf-gc.txt
//! as [20]. V Bloom filters capture frequency (an LPN already in the current filter is
//! recorded in the next filter that lacks it) and recency (every `window` user writes the
//! oldest filter is reset and becomes the current one, round-robin). Hotness = sum of the
//! recency weights of the filters holding the LPN; hot at or above `hot`. Two streams.
//!
//! Parameters (spec `mbf:key=value,...`):
//! * `filters` V (default 4), `bits` M per filter (default 2048), `hashes` K (default 2):
//!   Park & Du's configuration (as recalled; the paper is not in papers/).
//! * `window` (default 1024 user writes per filter before rotation; flashgc's choice:
//!   half the bits of a filter, so each filter holds about M/2 keys, as in the paper's
//!   sizing argument).
//! * weights: the current filter weighs 1, the j-th older one 1 - j/V (linear recency
//!   weighting, flashgc's reading of the paper's "recency coverage"); `hot` (default 1.5:
//!   an LPN in at least two recent filters).
//! * `gc` (default `reclassify`; or `keep`, `cold`) as in `mhf`.

use super::bf_gc::Bloom;
use super::common::check_streams;
use super::{Placement, PlacementInit};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// MBF placement.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Mbf {
    filters: Vec<Bloom>,
    current: usize,
    window: u64,
    since: u64,
    hot: f64,
    gc: u8,
    hot_writes: u64,
    cold_writes: u64,
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let v = spec.num::<usize>("filters", 4, 1, 64)?;
    let m = spec.num::<u64>("bits", 2048, 64, 1 << 36)?;
    let k = spec.num::<u32>("hashes", 2, 1, 16)?;
    let window = spec.num::<u64>("window", 1024, 1, u64::MAX / 2)?;
    let hot = spec.num::<f64>("hot", 1.5, 0.0, 64.0)?;
    let gc = match spec
        .choice("gc", "reclassify", &["reclassify", "keep", "cold"])?
        .as_str()
    {
        "reclassify" => 0,
        "keep" => 1,
        _ => 2,
    };
    check_streams(spec, "(2 streams)", 2, init.segments)?;
    // All filters together are checked before the first is allocated.
    spec.check_memory(
        "bits",
        &format!("{v} filters of {m} bits"),
        (v as u64).saturating_mul(m.div_ceil(64) * 8),
    )?;
    // One seed for all filters: a key maps to the same bit positions in each (as in MBF).
    let filters = (0..v)
        .map(|_| Bloom::unchecked(spec, "bits", m, k, init.seed ^ 0x3bf))
        .collect::<Result<_>>()?;
    Ok(Box::new(Mbf {
        filters,
        current: 0,
        window,
        since: 0,
        hot,
        gc,
        hot_writes: 0,
        cold_writes: 0,
    }))
}

impl Mbf {
    /// All filters share size and seeds, so one set of bit positions serves them all.
    #[inline]
    fn hotness_at(&self, pos: &[u64]) -> f64 {
        let v = self.filters.len();
        let mut sum = 0.0;
        let mut f = self.current;
        // Newest to oldest without a division per step.
        for j in 0..v {
            if self.filters[f].contains_at(pos) {
                sum += 1.0 - j as f64 / v as f64;
            }
            f = if f == 0 { v - 1 } else { f - 1 };
        }
        sum
    }
    #[inline]
    fn hotness(&self, key: u64) -> f64 {
        let mut pos = [0u64; 32];
        let k = self.filters[0].positions(key, &mut pos);
        self.hotness_at(&pos[..k])
    }
}

/// Classifier work per user write on the simulation host beyond a no-op call, ns: MBF's
/// probes of V Bloom filters and insert. `driver::calibrate::classifier_host_ns` (1 Mi
/// LPNs, 200 k zipf(1.0) writes, median of three runs of `--example cpu_calibrate`, AMD
/// EPYC, 2026-11-24); the firmware-CPU model scales it (docs/cpu.md).
const CLASSIFIER_NS: f64 = 43.4;

impl Placement for Mbf {
    fn name(&self) -> &'static str {
        "mbf"
    }
    fn classifier_ns(&self) -> f64 {
        CLASSIFIER_NS
    }
    fn save_state(&self, out: &mut crate::checkpoint::StateOut<'_>) -> Result<()> {
        out.put(self)
    }
    fn load_state(&mut self, state: &mut crate::checkpoint::StateIn<'_>) -> Result<()> {
        let d: Mbf = state.get()?;
        let same = d.filters.len() == self.filters.len()
            && d.filters.iter().all(|f| f.same_shape(&self.filters[0]))
            && (d.window, d.hot, d.gc) == (self.window, self.hot, self.gc)
            && d.current < d.filters.len()
            && d.since < d.window;
        if !same {
            return Err(crate::checkpoint::inconsistent(
                "MBF filters, window or position differ from the configuration".into(),
            ));
        }
        *self = d;
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
        let v = self.filters.len();
        let mut pos = [0u64; 32];
        let k = self.filters[0].positions(lpn as u64, &mut pos);
        let pos = &pos[..k];
        // Record in the current filter, or the next older one that lacks the key.
        let mut i = self.current;
        for _ in 0..v {
            let f = &mut self.filters[i];
            if !f.contains_at(pos) {
                f.insert_at(pos);
                break;
            }
            i = if i == 0 { v - 1 } else { i - 1 };
        }
        self.since += 1;
        if self.since == self.window {
            self.since = 0;
            self.current = (self.current + 1) % v;
            self.filters[self.current].clear();
        }
        if self.hotness_at(pos) >= self.hot {
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
            0 => (self.hotness(lpn as u64) < self.hot) as StreamId,
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
        self.filters.iter().map(|f| f.memory_bytes()).sum()
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "filters": self.filters.len(), "bits_per_filter": self.filters[0].bits(),
            "window_user_writes": self.window, "hot_user_writes": self.hot_writes, "cold_user_writes": self.cold_writes,
        }))
    }
}
