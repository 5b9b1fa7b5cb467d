//! `bf-gc` (papers/bf-gc.txt, §3.2-3.3, Algorithm 1): a Bloom filter with 8 hash functions
//! over LPNs plus a per-LPN hit counter ("state"); the counter's value gives the data's
//! temperature level and each level writes its own stream ("block storage optimizer").
//!
//! Algorithm 1, per user write of `lpn`: if the filter contains `lpn`, `state[lpn] += 1`,
//! else add `lpn` to the filter; when the time threshold is reached, reset the filter with
//! one memset. The level is then read off `state[lpn]` against the thresholds.
//!
//! Parameters (spec `bf-gc:key=value,...`), with their source:
//! * `hashes` (default 8; paper §3.2: "we configure 8 hash functions"). Range 1..=32.
//! * `bits_per_lpn` (default 6.4): filter size in bits per logical page. The paper sizes the
//!   bitmap at 5 % of the controller cache (§3.2) on Cosmos+ OpenSSD (§4.1: 1 GiB DRAM,
//!   64 dies x 8192 blocks x 128 pages of 16 KiB = 2^26 logical slices):
//!   0.05 x 2^30 B x 8 / 2^26 = 6.4 bits per slice. Mutually exclusive with `cache_fraction`.
//! * `cache_fraction` (paper: 0.05) with `cache_bytes_per_lpn` (default 16 = 1 GiB / 2^26,
//!   the Cosmos+ DRAM per logical slice): the same size expressed as the paper does;
//!   bits = cache_fraction x cache_bytes_per_lpn x 8 x logical pages.
//! * `reset` (default 1.0): the time threshold T of Algorithm 1, in user writes as a
//!   multiple of the logical capacity (the paper gives no value; one capacity of writes
//!   keeps the filter's fill, and so its false-positive rate, near the paper's ~5 %).
//! * `reset_counters` (default `yes`): whether the reset also zeroes the per-LPN counters.
//!   The paper's "direct counting reset ... to reset the state, avoiding ... exponential
//!   decay" (§2, §3.2) replaces MHF's counter decay, so the counters are reset with the
//!   filter; `no` keeps them (counts then only grow and every page ends up hot).
//! * `levels` (default 3: hot, warm, cold; §3.3, Figure 4). Range 1..=16 (1 = no separation).
//! * `thresholds` (default `2/1` for 3 levels, else `L-1, ..., 1`): counter values, highest
//!   first, at or above which a write is level 0 (hottest), level 1, ... ; below the last
//!   it is the coldest level. The paper gives no values; a counter of 1 means the page
//!   was rewritten within the reset window, 2 means at least twice.
//! * `gc` (default `coldest`): where GC relocations go. The paper does not say; data still
//!   valid at GC has not been rewritten for a long time, which is the argument of the
//!   same group's SUP-GC paper (papers/sup-gc.txt §3.3), so it goes to the coldest level.
//!   `keep`: the victim's level; `reclassify`: the level the page's current counter gives.
//!   docs/placement.md compares the three.
//!
//! * `fp_check` (default `yes`): measure the false-positive rate (below); `no` drops the
//!   shadow set and its extra memory access per write (for classifier-cost benchmarks).
//!
//! Measured in the report: the filter's false-positive rate over queries of LPNs not in
//! the filter (ground truth kept in a 1-bit-per-LPN shadow set, instrumentation only,
//! not counted in `memory_bytes`) next to the textbook (1 - e^{-kn/m})^k averaged over the
//! same queries.

use super::common::{check_increasing, check_streams, hash_seed, hash_to, num_list};
use super::{Placement, PlacementInit};
use crate::error::{Error, Result};
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// Where GC relocations of `bf-gc` go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GcLevel {
    /// The victim's level.
    Keep,
    /// The coldest level.
    Coldest,
    /// The level of the page's current counter.
    Reclassify,
}

/// A plain Bloom filter over `u64` keys with `k` independent seeded hash functions.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Bloom {
    #[serde(with = "crate::checkpoint::raw")]
    bits: Vec<u64>,
    m: u64,
    seeds: Vec<u64>,
}

impl Bloom {
    /// A filter of `m` bits (at least 64) with `k` hash functions seeded from `seed`.
    pub fn new(m: u64, k: u32, seed: u64) -> Bloom {
        let m = m.max(64);
        Bloom {
            bits: vec![0; m.div_ceil(64) as usize],
            m,
            seeds: (0..k).map(|i| hash_seed(seed, i)).collect(),
        }
    }
    /// [`Bloom::new`] for a scheme's spec: the bit table is checked against the memory
    /// limit and allocated fallibly ([`Spec::table`]), `key` naming the parameter that
    /// sizes it.
    pub fn for_spec(spec: &Spec, key: &str, m: u64, k: u32, seed: u64) -> Result<Bloom> {
        let m = m.max(64);
        spec.check_memory(key, "Bloom filter", m.div_ceil(64) * 8)?;
        Self::unchecked(spec, key, m, k, seed)
    }
    /// [`Bloom::for_spec`] without the memory-limit check (done by the caller for several
    /// filters at once).
    pub(crate) fn unchecked(spec: &Spec, key: &str, m: u64, k: u32, seed: u64) -> Result<Bloom> {
        let m = m.max(64);
        Ok(Bloom {
            bits: spec.try_table(key, "Bloom filter", m.div_ceil(64), 0)?,
            m,
            seeds: (0..k).map(|i| hash_seed(seed, i)).collect(),
        })
    }
    /// Bits in the filter.
    pub fn bits(&self) -> u64 {
        self.m
    }
    /// Number of hash functions.
    pub fn hashes(&self) -> u32 {
        self.seeds.len() as u32
    }
    /// True if every bit of `key` is set.
    #[inline]
    pub fn contains(&self, key: u64) -> bool {
        self.seeds.iter().all(|&s| {
            let b = hash_to(key, s, self.m);
            self.bits[(b >> 6) as usize] >> (b & 63) & 1 == 1
        })
    }
    /// Sets every bit of `key`.
    #[inline]
    pub fn insert(&mut self, key: u64) {
        for &s in &self.seeds {
            let b = hash_to(key, s, self.m);
            self.bits[(b >> 6) as usize] |= 1 << (b & 63);
        }
    }
    /// Algorithm 1's lookup-then-add in one pass: returns whether `key` was already in the
    /// filter (every bit set) and sets its bits (a no-op if it was).
    #[inline]
    pub fn test_and_insert(&mut self, key: u64) -> bool {
        let mut all = true;
        for &s in &self.seeds {
            let b = hash_to(key, s, self.m);
            let w = &mut self.bits[(b >> 6) as usize];
            all &= *w >> (b & 63) & 1 == 1;
            *w |= 1 << (b & 63);
        }
        all
    }
    /// Bit positions of `key` (one per hash function) into `out`; returns how many.
    #[inline]
    pub fn positions(&self, key: u64, out: &mut [u64; 32]) -> usize {
        for (o, &s) in out.iter_mut().zip(&self.seeds) {
            *o = hash_to(key, s, self.m);
        }
        self.seeds.len()
    }
    /// True if every bit at `pos` is set (positions from [`Bloom::positions`] of a filter
    /// with the same size and seeds).
    #[inline]
    pub fn contains_at(&self, pos: &[u64]) -> bool {
        pos.iter()
            .all(|&b| self.bits[(b >> 6) as usize] >> (b & 63) & 1 == 1)
    }
    /// Sets every bit at `pos`.
    #[inline]
    pub fn insert_at(&mut self, pos: &[u64]) {
        for &b in pos {
            self.bits[(b >> 6) as usize] |= 1 << (b & 63);
        }
    }
    /// True if `other` has the same size and hash functions (a restored filter must).
    pub fn same_shape(&self, other: &Bloom) -> bool {
        self.bits.len() == other.bits.len() && self.m == other.m && self.seeds == other.seeds
    }
    /// Clears the filter (the paper's memset).
    pub fn clear(&mut self) {
        self.bits.fill(0);
    }
    /// Bytes of the bitmap.
    pub fn memory_bytes(&self) -> u64 {
        self.bits.len() as u64 * 8
    }
}

/// Textbook false-positive probability of a Bloom filter of `m` bits and `k` hash
/// functions holding `n` keys: (1 - e^{-kn/m})^k.
pub fn bloom_fp_formula(m: u64, k: u32, n: u64) -> f64 {
    libm::pow(1.0 - libm::exp(-(k as f64) * n as f64 / m as f64), k as f64)
}

/// BF-GC placement.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct BfGc {
    filter: Bloom,
    #[serde(with = "crate::checkpoint::raw")]
    state: Vec<u8>,
    /// Ground truth of the filter's contents (instrumentation for the FP measurement).
    #[serde(with = "crate::checkpoint::raw")]
    shadow: Vec<u64>,
    fp_check: bool,
    shadow_n: u64,
    thresholds: Vec<u8>,
    levels: usize,
    gc: GcLevel,
    reset_every: u64,
    reset_counters: bool,
    since_reset: u64,
    resets: u64,
    negatives: u64,
    false_pos: u64,
    /// Negative queries by the filter's key count at query time (buckets of 2^n_shift
    /// keys): the formula is evaluated per bucket in `report`, off the write path.
    n_hist: Vec<u64>,
    n_shift: u32,
    per_level: Vec<u64>,
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let hashes = spec.num::<u32>("hashes", 8, 1, 32)?;
    let bits_given = spec.raw("bits_per_lpn").is_some();
    let cache_given =
        spec.raw("cache_fraction").is_some() || spec.raw("cache_bytes_per_lpn").is_some();
    if bits_given && cache_given {
        return Err(Error::config(
            spec.path("bits_per_lpn"),
            "give the filter size either as bits_per_lpn or as cache_fraction (+ cache_bytes_per_lpn), not both",
        ));
    }
    let bits_per_lpn = if cache_given {
        let f = spec.num::<f64>("cache_fraction", 0.05, 1e-6, 1.0)?;
        let c = spec.num::<f64>("cache_bytes_per_lpn", 16.0, 1e-3, 1e6)?;
        f * c * 8.0
    } else {
        spec.num::<f64>("bits_per_lpn", 6.4, 0.01, 1024.0)?
    };
    let reset = spec.num::<f64>("reset", 1.0, 1e-6, 1e6)?;
    let fp_check = spec.choice("fp_check", "yes", &["yes", "no"])? == "yes";
    let reset_counters = spec.choice("reset_counters", "yes", &["yes", "no"])? == "yes";
    let levels = spec.num::<usize>("levels", 3, 1, 16)?;
    let accepts = format!(
        "{} counter values, highest first, e.g. 2/1 for 3 levels",
        levels - 1
    );
    let thresholds: Vec<u8> = match num_list(spec, "thresholds", &accepts)? {
        Some(mut t) => {
            if t.len() != levels - 1 {
                return Err(Error::config(
                    spec.path("thresholds"),
                    format!(
                        "{} values given for {levels} levels; expected {accepts}",
                        t.len()
                    ),
                ));
            }
            t.reverse();
            check_increasing(spec, "thresholds", &t, &accepts)?;
            if t.iter()
                .any(|&v| !(1.0..=255.0).contains(&v) || v.fract() != 0.0)
            {
                return Err(Error::config(
                    spec.path("thresholds"),
                    format!("integers in 1..=255 expected; {accepts}"),
                ));
            }
            t.reverse();
            t.into_iter().map(|v| v as u8).collect()
        }
        None => (1..levels as u8).rev().collect(),
    };
    let gc = match spec
        .choice("gc", "coldest", &["keep", "coldest", "reclassify"])?
        .as_str()
    {
        "keep" => GcLevel::Keep,
        "coldest" => GcLevel::Coldest,
        _ => GcLevel::Reclassify,
    };
    check_streams(spec, "levels", levels, init.segments)?;
    let m = (bits_per_lpn * init.logical_pages as f64).round() as u64;
    let reset_every = ((reset * init.logical_pages as f64).round() as u64).max(1);
    // The filter never holds more keys than LPNs or writes per reset window.
    let max_n = reset_every.min(init.logical_pages) + 1;
    let n_shift = (64 - max_n.leading_zeros()).saturating_sub(12);
    let size_key = if cache_given {
        "cache_fraction"
    } else {
        "bits_per_lpn"
    };
    let filter = Bloom::for_spec(spec, size_key, m, hashes, init.seed ^ 0xbf6c)?;
    let state = spec.table("", "per-page counters", init.logical_pages, 0)?;
    let shadow_words = if fp_check {
        init.logical_pages.div_ceil(64)
    } else {
        0
    };
    let shadow = spec.table("fp_check", "false-positive shadow set", shadow_words, 0)?;
    Ok(Box::new(BfGc {
        filter,
        state,
        shadow,
        fp_check,
        shadow_n: 0,
        thresholds,
        levels,
        gc,
        reset_every,
        reset_counters,
        since_reset: 0,
        resets: 0,
        negatives: 0,
        false_pos: 0,
        n_hist: vec![0; ((max_n >> n_shift) + 1) as usize],
        n_shift,
        per_level: vec![0; levels],
    }))
}

impl BfGc {
    #[inline]
    fn level_of(&self, count: u8) -> usize {
        self.thresholds
            .iter()
            .position(|&t| count >= t)
            .unwrap_or(self.levels - 1)
    }
}

/// Classifier work per user write on the simulation host beyond a no-op call, ns:
/// bf-gc:fp_check=no: the 8 Bloom probes and counter update (the false-positive
/// instrumentation of `fp_check` is the simulator's, not firmware work).
/// `driver::calibrate::classifier_host_ns` (1 Mi LPNs, 200 k zipf(1.0) writes, median of
/// three runs of `--example cpu_calibrate`, AMD EPYC, 2026-11-24); the firmware-CPU model
/// scales it (docs/cpu.md).
const CLASSIFIER_NS: f64 = 27.4;

impl Placement for BfGc {
    fn name(&self) -> &'static str {
        "bf-gc"
    }
    fn classifier_ns(&self) -> f64 {
        CLASSIFIER_NS
    }
    fn save_state(&self, out: &mut crate::checkpoint::StateOut<'_>) -> Result<()> {
        out.put(self)
    }
    fn load_state(&mut self, state: &mut crate::checkpoint::StateIn<'_>) -> Result<()> {
        // One copy of the per-page tables at a time (as `serde_state!`).
        let (state_len, shadow_len) = (self.state.len(), self.shadow.len());
        self.state = Vec::new();
        self.shadow = Vec::new();
        let d: BfGc = state.get()?;
        let same = d.filter.same_shape(&self.filter)
            && (
                d.fp_check,
                &d.thresholds,
                d.levels,
                d.gc,
                d.reset_every,
                d.reset_counters,
                d.n_shift,
            ) == (
                self.fp_check,
                &self.thresholds,
                self.levels,
                self.gc,
                self.reset_every,
                self.reset_counters,
                self.n_shift,
            )
            && [
                d.state.len(),
                d.shadow.len(),
                d.n_hist.len(),
                d.per_level.len(),
            ] == [
                state_len,
                shadow_len,
                self.n_hist.len(),
                self.per_level.len(),
            ]
            && d.since_reset < d.reset_every
            && d.shadow_n <= d.since_reset
            && ((d.shadow_n >> d.n_shift) as usize) < d.n_hist.len();
        if !same {
            return Err(crate::checkpoint::inconsistent(
                "BF-GC filter, levels, tables or reset position differ from the configuration"
                    .into(),
            ));
        }
        *self = d;
        Ok(())
    }
    fn streams(&self) -> usize {
        self.levels
    }
    fn stream_name(&self, s: StreamId) -> String {
        match (self.levels, s) {
            (3, 0) => "hot".into(),
            (3, 1) => "warm".into(),
            (3, _) => "cold".into(),
            (2, 0) => "hot".into(),
            (2, _) => "cold".into(),
            _ => format!("L{s}"),
        }
    }
    #[inline]
    fn user_stream(&mut self, lpn: Lpn, _now: u64) -> StreamId {
        let key = lpn as u64;
        let (w, b) = ((lpn >> 6) as usize, lpn & 63);
        let truly = !self.fp_check || self.shadow[w] >> b & 1 == 1;
        if self.filter.test_and_insert(key) {
            self.state[lpn as usize] = self.state[lpn as usize].saturating_add(1);
            if !truly {
                self.false_pos += 1;
            }
        }
        if !truly {
            self.negatives += 1;
            self.n_hist[(self.shadow_n >> self.n_shift) as usize] += 1;
            self.shadow[w] |= 1 << b;
            self.shadow_n += 1;
        }
        let level = self.level_of(self.state[lpn as usize]);
        self.per_level[level] += 1;
        self.since_reset += 1;
        if self.since_reset == self.reset_every {
            self.since_reset = 0;
            self.resets += 1;
            self.filter.clear();
            self.shadow.fill(0);
            self.shadow_n = 0;
            if self.reset_counters {
                self.state.fill(0);
            }
        }
        level as StreamId
    }
    #[inline]
    fn gc_stream(&mut self, lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId {
        match self.gc {
            GcLevel::Keep => view.stream(victim),
            GcLevel::Coldest => (self.levels - 1) as StreamId,
            GcLevel::Reclassify => self.level_of(self.state[lpn as usize]) as StreamId,
        }
    }
    fn gc_stream_of_victim(
        &mut self,
        victim: SegmentId,
        _pages: u32,
        view: &SegmentView,
    ) -> Option<StreamId> {
        match self.gc {
            GcLevel::Keep | GcLevel::Coldest => Some(self.gc_stream(0, victim, view)),
            GcLevel::Reclassify => None,
        }
    }
    fn on_trim(&mut self, lpn: Lpn) {
        self.state[lpn as usize] = 0;
    }
    fn memory_bytes(&self) -> u64 {
        self.filter.memory_bytes() + self.state.len() as u64
    }
    fn report(&self) -> Option<serde_json::Value> {
        let measured = if self.negatives > 0 {
            self.false_pos as f64 / self.negatives as f64
        } else {
            0.0
        };
        let (m, k) = (self.filter.bits(), self.filter.hashes());
        let half = (1u64 << self.n_shift) / 2;
        let expected: f64 = self
            .n_hist
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(b, &c)| c as f64 * bloom_fp_formula(m, k, ((b as u64) << self.n_shift) + half))
            .sum();
        let formula = if self.negatives > 0 {
            expected / self.negatives as f64
        } else {
            0.0
        };
        Some(serde_json::json!({
            "filter_bits": self.filter.bits(),
            "hashes": self.filter.hashes(),
            "reset_every_user_writes": self.reset_every,
            "resets": self.resets,
            "thresholds": self.thresholds,
            "user_writes_per_level": self.per_level,
            "false_positive_rate": self.fp_check.then_some(measured),
            "false_positive_formula": self.fp_check.then_some(formula),
            "false_positive_queries": self.negatives,
            "note": "false_positive_formula = (1 - e^{-kn/m})^k averaged over the same queries, n = keys in the filter at each query (bucketed to 1/4096 of the range)",
        }))
    }
}
