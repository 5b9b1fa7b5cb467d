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

mod bf_gc;
mod common;
mod oracle;
mod sepbit;
mod single;
mod sup_gc;

pub use bf_gc::{bloom_fp_formula, BfGc, Bloom};
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
    /// Human-readable name of a stream (for output), e.g. `hot`, `cold`, `G2`.
    fn stream_name(&self, s: StreamId) -> String {
        format!("s{s}")
    }
    /// Stream of a user write of `lpn` at user-write clock `now` (1-based, counting this write).
    fn user_stream(&mut self, lpn: Lpn, now: u64) -> StreamId;
    /// Stream for relocating valid page `lpn` out of victim `victim` (whose group is
    /// `view.stream(victim)`).
    fn gc_stream(&mut self, lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId;
    /// Which sealed segments GC takes its next victim from (default: all).
    fn victim_scope(&mut self, _view: &SegmentView) -> VictimScope {
        VictimScope::All
    }
    /// A TRIM of `lpn` (schemes tracking per-LPN state may forget it).
    fn on_trim(&mut self, _lpn: Lpn) {}
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
}

type Ctor = fn(&Spec, PlacementInit) -> Result<Box<dyn Placement>>;

/// Registered placement schemes: name, one-line description, constructor.
pub const REGISTRY: &[(&str, &str, Ctor)] = &[
    (
        "single",
        "one stream for user and GC writes (PageFTL / Cosmos+ baseline)",
        single::build,
    ),
    (
        "sup-gc",
        "papers/sup-gc.txt: user writes to hot segments, every GC relocation to cold segments",
        sup_gc::build,
    ),
    (
        "oracle",
        "papers/midas.txt ORA: future knowledge; user and GC writes by remaining-lifetime class (a bound, not a scheme)",
        oracle::build,
    ),
    (
        "bf-gc",
        "papers/bf-gc.txt: 8-hash Bloom filter + per-LPN hit counter, periodic reset, one stream per temperature level",
        bf_gc::build,
    ),
    (
        "sepbit",
        "SepBIT (FAST'22): user writes by last update interval vs. class-1 lifespan, GC writes by age; 6 classes",
        sepbit::build,
    ),
];

/// Names of the registered placement schemes.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.0).collect()
}

/// Builds a placement scheme from a spec string (`field` names the config field in errors).
pub fn build(field: &str, spec: &str, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let spec = Spec::parse(field, spec)?;
    let entry = REGISTRY
        .iter()
        .find(|r| r.0 == spec.name)
        .ok_or_else(|| Error::Unknown {
            kind: "placement scheme",
            name: spec.name.clone(),
            known: names().join(", "),
        })?;
    let p = (entry.2)(&spec, init)?;
    spec.finish()?;
    if p.streams() == 0 || p.streams() > u16::MAX as usize {
        return Err(Error::config(field, "a placement needs 1..=65535 streams"));
    }
    Ok(p)
}
