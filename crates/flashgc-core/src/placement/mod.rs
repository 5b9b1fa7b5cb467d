//! Placement: which write stream a user write and a GC relocation go to.
//!
//! Each stream has its own open segment, so data of one class fills its own segments; the
//! segments a stream seals form that stream's group, which victim policies can select from.
//! A placement may also say which group GC takes its next victim from (schemes with group
//! sizes, such as MiDAS). Adding a scheme = one file implementing [`Placement`] plus one line
//! in [`REGISTRY`].

use crate::error::{Error, Result};
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};
pub use crate::victim::VictimScope;

mod autostream;
mod bf_gc;
mod bf_opt;
mod cat;
mod common;
mod dac;
mod mbf;
mod mhf;
mod mhf_opt;
mod mida;
pub mod midas;
mod multilog;
mod oracle;
mod sepbit;
mod single;
mod sup_gc;

pub use bf_gc::{bloom_fp_formula, BfGc, Bloom};
pub use mida::Mida;
pub use midas::Midas;
pub use oracle::{Future, FutureEvent, Oracle};
pub use sepbit::SepBit;
pub use single::Single;
pub use sup_gc::SupGc;

/// Sizes a placement needs at construction.
#[derive(Debug, Clone, Copy)]
pub struct PlacementInit {
    /// Logical pages of the device.
    pub logical_pages: u64,
    /// Segments in the device.
    pub segments: u32,
    /// Pages per segment.
    pub pages_per_segment: u32,
    /// Seed for randomized schemes.
    pub seed: u64,
}

/// A data placement scheme.
pub trait Placement: Send {
    /// Registered name.
    fn name(&self) -> &'static str;
    /// Number of write streams (each with its own open segment). Constant for a run.
    fn streams(&self) -> usize;
    /// How many different streams the relocations of one victim can go to. GC keeps one
    /// free segment in reserve per such stream (plus one), so a scheme that sends a whole
    /// victim to one stream (`single`, `sup-gc`, age chains) runs with the same reserve as
    /// the baseline. Default: every stream (always safe).
    fn gc_streams_per_victim(&self) -> usize {
        self.streams()
    }
    /// Human-readable name of a stream (for output), e.g. `hot`, `cold`, `G2`.
    fn stream_name(&self, s: StreamId) -> String {
        format!("s{s}")
    }
    /// Stream of a user write of `lpn` at user-write clock `now` (1-based, counting this write).
    fn user_stream(&mut self, lpn: Lpn, now: u64) -> StreamId;
    /// The user write of `lpn` [`Placement::user_stream`] just routed to stream `s` programmed no
    /// page: a GC action absorbed it into a cached copy (DAGC's revived dead page, a shared
    /// content group). Schemes that count the pages routed to a stream (to know when its
    /// segments open and seal) take it back, so the count follows the pages written; the
    /// write itself happened, and classifier state keyed by it stays.
    fn unroute(&mut self, _lpn: Lpn, _s: StreamId) {}
    /// Stream for relocating valid page `lpn` out of victim `victim` (whose group is
    /// `view.stream(victim)`).
    fn gc_stream(&mut self, lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId;
    /// One stream for all `pages` valid pages of `victim`, for schemes whose GC stream does
    /// not depend on the page: GC asks once per victim (after [`Placement::on_victim`]) and,
    /// given `Some(s)`, relocates every page to `s` without calling
    /// [`Placement::gc_stream`]. `Some(s)` must be exactly what `pages` calls of `gc_stream`
    /// for this victim would answer, each of them `s`, and leave the scheme's state as
    /// they would (counters included); between those calls GC only seals segments
    /// ([`Placement::on_seal`]), so the answer may not depend on seals. Default `None`:
    /// per-page `gc_stream` calls (always correct).
    fn gc_stream_of_victim(
        &mut self,
        _victim: SegmentId,
        _pages: u32,
        _view: &SegmentView,
    ) -> Option<StreamId> {
        None
    }
    /// Which sealed segments GC takes its next victim from (default: all). A scheme that
    /// keeps its own order of some groups (MiDAS's FIFO groups) may name the segment
    /// (`VictimScope::Segment`); the victim policy then only forgets it.
    fn victim_scope(&mut self, _view: &SegmentView) -> VictimScope {
        VictimScope::All
    }
    /// Sealed segments the scheme moves to another group without moving their data, as
    /// `(segment, new stream)` pairs: MiDAS's configuration change relabels a shrunk
    /// group's surplus into the last group ("only pointers ... are moved", papers/midas.txt
    /// §5.1). The FTL asks before every [`Placement::victim_scope`] and applies each move:
    /// the segment's stream becomes the new one and the victim policy re-registers it (as
    /// the youngest of its new group). Only sealed segments of the scheme's own streams may
    /// move. Default: none (no allocation).
    fn relabels(&mut self, _view: &SegmentView) -> Vec<(SegmentId, StreamId)> {
        Vec::new()
    }
    /// Segment `seg` of stream `view.stream(seg)` was sealed (became a GC candidate).
    fn on_seal(&mut self, _seg: SegmentId, _view: &SegmentView) {}
    /// GC took `seg` as its victim; called before its valid pages are relocated, so
    /// `view.valid(seg)` and `view.age(seg)` are the victim's.
    fn on_victim(&mut self, _seg: SegmentId, _view: &SegmentView) {}
    /// A TRIM of `lpn` (schemes tracking per-LPN state may forget it).
    fn on_trim(&mut self, _lpn: Lpn) {}
    /// Whether [`Placement::prefetch`] does anything. Asked once when the FTL is built, so
    /// schemes without per-LPN state cost nothing on the hot path.
    fn wants_prefetch(&self) -> bool {
        false
    }
    /// Prefetch hint: a user write of `lpn` comes a few requests from now (the simulation
    /// loop says so 16 requests ahead). Schemes with per-LPN tables (MiDAS's last-write
    /// times) prefetch the entries, so the write does not wait for a cache miss.
    fn prefetch(&self, _lpn: Lpn) {}
    /// The scheme's classifier work per user write beyond a no-op classifier call, in
    /// nanoseconds on the simulation host, as calibrated by
    /// `crate::driver::calibrate::classifier_host_ns` (the firmware-CPU model scales it to
    /// a controller core; docs/cpu.md). Schemes declare it next to their code; default 0
    /// (no classifier: `single`, `sup-gc`).
    fn classifier_ns(&self) -> f64 {
        0.0
    }
    /// Classifier work not tied to one write (MiDAS: the MCAM/GCS search at an epoch's
    /// end) done since the last call, in simulation-host ns like
    /// [`Placement::classifier_ns`]. The firmware-CPU model asks after every host page
    /// operation (only when it is on) and charges it as internal work. Default 0.
    fn take_cpu_work_ns(&mut self) -> f64 {
        0.0
    }
    /// Bytes of memory the scheme's own structures use (classifier state, tables).
    fn memory_bytes(&self) -> u64 {
        0
    }
    /// A scheme-specific report for the run result (e.g. MiDAS's configuration history, a
    /// Bloom filter's measured false-positive rate). Must be deterministic.
    fn report(&self) -> Option<serde_json::Value> {
        None
    }
    /// True for schemes that need future knowledge (the `oracle` bound). The simulation
    /// then runs a pre-pass over a second, identical workload instance and hands the result
    /// to [`Placement::set_future`] before the first write (`Simulation::prepare_future`).
    fn needs_future(&self) -> bool {
        false
    }
    /// Receives the future of the run (see [`Future`]); called once, before any write.
    fn set_future(&mut self, _future: Future) {}
    /// A problem found during the run that invalidates its result (e.g. an oracle whose
    /// writes did not match its pre-pass); `Simulation::run` turns it into an error.
    fn consistency_error(&self) -> Option<String> {
        None
    }
    /// The scheme's whole mutable state, for a checkpoint (classifier tables, counters,
    /// history; not what `set_future` gives, which a resumed run recomputes). Most schemes
    /// derive serde and write `crate::checkpoint::serde_state!();` in their impl.
    fn save_state(&self, _out: &mut crate::checkpoint::StateOut<'_>) -> Result<()> {
        Err(crate::checkpoint::not_checkpointable(
            "placement scheme",
            self.name(),
        ))
    }
    /// Restores what [`Placement::save_state`] wrote into a scheme freshly built from the
    /// same spec and device. Damaged bytes give an error, never a panic.
    fn load_state(&mut self, _state: &mut crate::checkpoint::StateIn<'_>) -> Result<()> {
        Err(crate::checkpoint::not_checkpointable(
            "placement scheme",
            self.name(),
        ))
    }
    /// Checks the state [`Placement::load_state`] restored against the restored device
    /// (called once the FTL's own state is validated, before the run continues): every
    /// value the hot path uses as an index or stream id must be in range, every clock at
    /// or before `dev.view.now()`. A checkpoint with a valid CRC may still hold anything,
    /// and the run must fail with this error, not panic or loop later. The default accepts
    /// everything: a scheme whose state has such values must override it (the test
    /// `mutated_checkpoints_are_refused_or_run_never_panic` finds those that do not).
    fn check_restored(
        &self,
        _dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        Ok(())
    }
}

type Ctor = fn(&Spec, PlacementInit) -> Result<Box<dyn Placement>>;

/// Registered placement schemes: name, one-line description, constructor, and the victim
/// policy the scheme's paper evaluates it with (`compare`'s default pairing; see
/// [`crate::scheme`]). Cosmos+-based papers (sup-gc, bf-gc) use Cosmos+'s greedy victims;
/// the MiDAS and SepBIT simulators score cost-benefit as (1 - u) / u * sqrt(age).
pub const REGISTRY: &[(&str, &str, Ctor, &str)] = &[
    (
        "mida",
        "MiDA (papers/midas.txt Sec. 2.3): age chain, user writes to G1, GC moves Gi -> Gi+1, GN into itself; groups=8; hot=filter adds MiDAS's HOT group; group1=N holds G1 at N segments (MiDAS Fig. 3(b))",
        mida::build,
        "cost-benefit:sqrt",
    ),
    (
        "midas",
        "MiDAS (papers/midas.txt): HOT + age-chain groups sized by UID/MCAM/GCS per epoch, irregularity fallback; FIFO victims (gn_model=greedy: the authors' simulator's last group, with greedy or cost-benefit victims)",
        midas::build,
        "fifo",
    ),
    (
        "single",
        "one stream for user and GC writes (PageFTL / Cosmos+ baseline)",
        single::build,
        "greedy",
    ),
    (
        "sup-gc",
        "papers/sup-gc.txt: user writes to hot segments, every GC relocation to cold segments",
        sup_gc::build,
        "greedy",
    ),
    (
        "oracle",
        "papers/midas.txt ORA: future knowledge; user and GC writes by remaining-lifetime class (a bound, not a scheme)",
        oracle::build,
        "cost-benefit:sqrt",
    ),
    (
        "bf-gc",
        "papers/bf-gc.txt: 8-hash Bloom filter + per-LPN hit counter, periodic reset, one stream per temperature level",
        bf_gc::build,
        "greedy",
    ),
    (
        "sepbit",
        "SepBIT (FAST'22): user writes by last update interval vs. class-1 lifespan, GC writes by age; 6 classes; group1=N holds class 1 at N segments (MiDAS Fig. 3(b))",
        sepbit::build,
        "cost-benefit:sqrt",
    ),
    (
        "mhf",
        "Hsieh, Kuo & Chang 2006 as published: K hashes into 4-bit counters of a fixed-size table, periodic halving; hot/cold streams",
        mhf::build,
        "greedy",
    ),
    (
        "mhf-opt",
        "MHF-Optimized (papers/bf-gc.txt Sec. 4.2): MHF's counting filter sized to the device (6.4 bits/LPN), decay per capacity; hot/cold streams",
        mhf_opt::build,
        "greedy",
    ),
    (
        "bf-opt",
        "BF-Optimized (papers/sup-gc.txt Sec. 5): one 8-hash Bloom filter, rewritten since the last reset = hot; hot/cold streams",
        bf_opt::build,
        "greedy",
    ),
    (
        "mbf",
        "Park & Du 2011: V Bloom filters reset round-robin (frequency + recency); hot/cold streams",
        mbf::build,
        "greedy",
    ),
    (
        "cat",
        "CAT (Chiang & Chang 1999) as in papers/midas.txt: hot/cold by decayed update count, re-classified during GC",
        cat::build,
        "cost-benefit:sqrt",
    ),
    (
        "autostream",
        "AutoStream SFR (SYSTOR'17): per-chunk decayed write count, log2 level -> 5 streams",
        autostream::build,
        "cost-benefit:sqrt",
    ),
    (
        "dac",
        "DAC (Chiang, Lee & Chang 1999): regions cold..hot; update promotes, GC relocation demotes",
        dac::build,
        "cost-benefit:sqrt",
    ),
    (
        "multilog",
        "Multi-Log (Stoica & Ailamaki, VLDB'13) as SepBIT's simulator runs it: levels by update distance, GC demotes; chooses its own victims (level by marginal cost, then oldest)",
        multilog::build,
        "fifo",
    ),
];

/// Names of the registered placement schemes.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.0).collect()
}

/// Builds a placement scheme from a spec string (`field` names the config field in errors).
pub fn build(field: &str, spec: &str, init: PlacementInit) -> Result<Box<dyn Placement>> {
    build_resolved(field, spec, init).map(|(p, _)| p)
}

/// [`build`], also returning the spec as it ran, every parameter spelled out with its
/// value (see [`Spec::resolved`]).
pub fn build_resolved(
    field: &str,
    spec: &str,
    init: PlacementInit,
) -> Result<(Box<dyn Placement>, String)> {
    build_within(field, spec, init, None, 0)
}

/// [`build_resolved`] under a memory limit: the scheme's tables are refused before they
/// are allocated when, with `committed` bytes the run needs beside them, they would exceed
/// `limit_gib` (`run.max_memory_gib`; see [`Spec::set_memory_limit`]).
pub fn build_within(
    field: &str,
    spec: &str,
    init: PlacementInit,
    limit_gib: Option<f64>,
    committed: u64,
) -> Result<(Box<dyn Placement>, String)> {
    let mut spec = Spec::parse(field, spec)?;
    spec.set_memory_limit(limit_gib, committed);
    let entry = REGISTRY
        .iter()
        .find(|r| r.0 == spec.name)
        .ok_or_else(|| Error::Unknown {
            field: field.to_string(),
            kind: "placement scheme",
            name: spec.name.clone(),
            known: names().join(", "),
        })?;
    let p = (entry.2)(&spec, init)?;
    spec.finish()?;
    if p.streams() == 0 || p.streams() > u16::MAX as usize {
        return Err(Error::config(field, "a placement needs 1..=65535 streams"));
    }
    Ok((p, spec.resolved()))
}

/// Quick in-process micro-benchmark of a scheme's classifier: mean wall-clock nanoseconds
/// per `user_stream` call over `writes` user writes of a seeded zipf(1.0) LPN stream
/// (hottest ranks first; oracles get the stream's own future), best of three passes after
/// a warm-up pass. Wall-clock, so it belongs
/// next to results, never inside the deterministic result JSON. The criterion benchmark
/// `benches/classifiers.rs` measures the same loop with statistics.
pub fn measure_classifier_ns(spec: &str, init: PlacementInit, writes: u64) -> Result<f64> {
    let mut p = build("placement", spec, init)?;
    let lpns = zipf_lpns(init.logical_pages, writes, init.seed);
    if p.needs_future() {
        p.set_future(Future::from_writes(&lpns, init.logical_pages));
    }
    // One untimed pass touches every table (page faults), then the best of three timed
    // passes (a shared machine preempts). Oracles replay their future each pass; the other
    // schemes see the clock go on.
    let replay = p.needs_future();
    let mut best = f64::INFINITY;
    let mut now = 0u64;
    for pass in 0..4 {
        if replay {
            now = 0;
        }
        let t = std::time::Instant::now();
        let mut acc = 0u64;
        for &l in &lpns {
            now += 1;
            acc = acc.wrapping_add(p.user_stream(l, now) as u64);
        }
        std::hint::black_box(acc);
        if pass > 0 {
            best = best.min(t.elapsed().as_nanos() as f64 / writes.max(1) as f64);
        }
    }
    Ok(best)
}

/// A seeded zipf(1.0) stream of `writes` LPNs over `logical_pages` (rank 1 = LPN 0).
pub fn zipf_lpns(logical_pages: u64, writes: u64, seed: u64) -> Vec<Lpn> {
    let mut rng = crate::workload::Rng::new(seed);
    let z = crate::workload::Zipf::new(logical_pages.max(1), 1.0);
    (0..writes)
        .map(|_| (z.sample(&mut rng) - 1) as Lpn)
        .collect()
}
