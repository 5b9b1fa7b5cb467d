//! GC actions: what GC does with each valid page of a victim, richer than "move it": move
//! now, defer to idle time (SplitGC), or remap its LPN to an existing copy of the same
//! content (CAGC); and the content-aware hooks around that (a write that reuses a cached
//! page: DAGC; the read scrub that learns fingerprints at idle time: SplitGC).
//!
//! A GC action other than `move` switches the FTL to its *content mode* (two-level mapping
//! `LPN -> PPN | VPN`, `VPN -> copies`, a fingerprint store, per-segment content counters:
//! [`crate::content`]). Policies see segments through [`SegmentView`] and content through
//! [`ContentView`], and answer with decisions; they never call back into the FTL.
//!
//! Adding a GC action = one file implementing [`GcAction`] plus one line in [`REGISTRY`].
//! A complete example: a policy that fingerprints what GC migrates (like CAGC) but defers a
//! page whose content already has a live copy (like SplitGC), run on a tiny FTL:
//!
//! ```
//! use flashgc_core::content::{ContentGen, ContentNeeds, ContentParams, ContentView};
//! use flashgc_core::ftl::{ContentLayer, Ftl, FtlParams};
//! use flashgc_core::gc_action::{GcAction, PageAction, Target};
//! use flashgc_core::segment::SegmentView;
//! use flashgc_core::types::{Lpn, Ppn, SegmentId};
//! use flashgc_core::{placement, victim};
//!
//! /// Defers a victim page whose content has a live copy elsewhere; moves and indexes
//! /// the others (their fingerprint is computed on the way).
//! struct DeferKnownCopies;
//!
//! impl GcAction for DeferKnownCopies {
//!     fn name(&self) -> &'static str {
//!         "defer-known-copies"
//!     }
//!     fn needs(&self) -> ContentNeeds {
//!         ContentNeeds { defers: true, ..ContentNeeds::default() }
//!     }
//!     fn on_victim_page(
//!         &mut self,
//!         ppn: Ppn,
//!         _owner: Option<Lpn>,
//!         victim: SegmentId,
//!         _segs: &SegmentView,
//!         content: &ContentView,
//!     ) -> PageAction {
//!         match content.lookup(content.content(ppn)) {
//!             Some(g) if content.group(ppn).is_none_or(|o| o == g)
//!                 && content.live_copy(g, victim).is_some() => PageAction::Defer { group: g },
//!             _ => PageAction::Move { to: Target::Placement, index: true },
//!         }
//!     }
//! }
//!
//! // One line in REGISTRY would make it `--gc-action defer-known-copies`:
//! // ("defer-known-copies", "...", |_spec, _init| Ok(Box::new(DeferKnownCopies))),
//!
//! // A tiny FTL: 8 segments of 4 pages, content mode with this action.
//! let (segments, pps, logical) = (8, 4, 16);
//! let pl = placement::build("placement", "single", placement::PlacementInit {
//!     logical_pages: logical, segments, pages_per_segment: pps, seed: 1 }).unwrap();
//! let vi = victim::build("victim", "greedy", victim::VictimInit {
//!     segments, pages_per_segment: pps, groups: 1, seed: 1 }).unwrap();
//! let mut ftl = Ftl::new(FtlParams { logical_pages: logical, segments,
//!     pages_per_segment: pps, gc_low: 1, gc_high: 1, gc_garbage: None }, pl, vi);
//! ftl.enable_content(ContentLayer::new(logical, (segments * pps) as u64,
//!     Box::new(DeferKnownCopies), ContentGen::new(ContentParams::default(), 1)));
//! // Segment 0: LPN 0 holds content 7, the rest is overwritten; segment 1 likewise for LPN
//! // 4, also content 7.
//! for (lpn, c) in [(0, 7), (1, 10), (2, 11), (3, 12), (4, 7), (5, 13), (6, 14), (7, 15),
//!                  (1, 16), (2, 17), (3, 18), (5, 19), (6, 20), (7, 21), (8, 22), (9, 23)] {
//!     ftl.write_content(lpn, c).unwrap();
//! }
//! // GC 1 (segment 0, one valid page): content 7 is unknown: moved and indexed.
//! assert!(ftl.collect_if_below(100).unwrap());
//! // GC 2 (segment 1): its page of content 7 has a live copy: deferred, nothing moved.
//! assert!(ftl.collect_if_below(100).unwrap());
//! assert_eq!(ftl.counters.gc_writes, 1);
//! assert_eq!(ftl.content().unwrap().counters().deferred_queued, 1);
//! assert_eq!(ftl.resolve(4), ftl.resolve(0)); // LPN 4 is read from the other copy
//! ftl.check().unwrap();
//! // Idle time: the deferred LPN gets a page of its own back.
//! ftl.background_step().unwrap();
//! assert_ne!(ftl.resolve(4), ftl.resolve(0));
//! ftl.check().unwrap();
//! ```

use crate::content::{ContentNeeds, ContentView, GroupId, Grouped};
use crate::error::{Error, Result};
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, Ppn, SegmentId};

mod cagc;
mod dagc;
mod relocate;
mod splitgc;

pub use cagc::Cagc;
pub use dagc::Dagc;
pub use splitgc::{SplitGc, Writeback};

/// Sizes a GC action needs at construction.
#[derive(Debug, Clone, Copy)]
pub struct ActionInit {
    /// Logical pages.
    pub logical_pages: u64,
    /// Segments.
    pub segments: u32,
    /// Pages per segment.
    pub pages_per_segment: u32,
    /// Seed of randomized choices.
    pub seed: u64,
}

/// Where a relocated page goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The stream the placement scheme chooses (`Placement::gc_stream`).
    Placement,
    /// The action's own stream `k` (0-based, see [`GcAction::extra_streams`]), e.g. CAGC's
    /// cold region.
    Extra(u16),
}

/// What GC does with one valid page of a victim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageAction {
    /// Relocate it now. `index`: put the new copy in the fingerprint index (its content
    /// was fingerprinted on the way).
    Move {
        /// Destination stream.
        to: Target,
        /// Index the new copy.
        index: bool,
    },
    /// Do not move it now: group `group` (the page's own, or the group of its content when
    /// the page is in none) has a live copy outside the victim. Its LPN is served through
    /// the group's VPN and queued for migration at idle time (SplitGC).
    Defer {
        /// The group whose copy serves the LPN meanwhile.
        group: GroupId,
    },
    /// Do not move it: its LPN is served through group `group` (which has a live copy
    /// outside the victim) for good: deduplication (CAGC). `promote`: then relocate that
    /// copy to this stream unless it is already there (CAGC's cold region).
    Remap {
        /// The group whose copy serves the LPN.
        group: GroupId,
        /// Move the serving copy to this stream.
        promote: Option<Target>,
    },
}

/// What a user write does (the LPN's old data has been released).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteAction {
    /// Program a new page. `index`: put it in the fingerprint index.
    Program {
        /// Index the new page.
        index: bool,
    },
    /// Reuse dead page `ppn` that holds the same content: it becomes valid again, owned by
    /// the LPN; nothing is programmed (DAGC).
    Revive {
        /// The cached page.
        ppn: Ppn,
    },
    /// Serve the LPN through group `group` (reviving its first copy if dead); nothing is
    /// programmed (DAGC's upper-bound variant: every written page is reusable).
    Share {
        /// The group.
        group: GroupId,
    },
}

/// One step of an idle-time read scrub.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScrubStep {
    /// The live page read.
    pub ppn: Ppn,
    /// The page was in the fingerprinted group of blocks (fingerprint time is charged).
    pub fingerprinted: bool,
    /// Put the page in its content group (a new fingerprint for the store).
    pub insert: bool,
}

/// Controller time an action's compute operations take (nanoseconds): the papers' values,
/// for a firmware-CPU model to price the `Compute` operations the FTL emits (today's
/// device models do not charge compute). A non-zero field also tells the FTL to emit that
/// operation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ActionCosts {
    /// Fingerprinting of each victim page GC reads (CAGC).
    pub gc_page_ns: u64,
    /// Checksum lookup on every user write (DAGC).
    pub write_ns: u64,
    /// A write whose content hits the cache reads the cached page to compare it (DAGC).
    pub write_hit_read: bool,
    /// Read-scrub ECC check per page (SplitGC).
    pub scrub_ecc_ns: u64,
    /// Read-scrub fingerprint generation and management per fingerprinted page (SplitGC).
    pub scrub_fp_ns: u64,
}

/// A GC action policy (module docs).
pub trait GcAction: Send {
    /// Registered name.
    fn name(&self) -> &'static str;
    /// The variant and parameters that ran, for the output (e.g. whether a bounded index or
    /// an upper-bound variant). Default: the name.
    fn variant(&self) -> String {
        self.name().to_string()
    }
    /// What the content layer must keep for this policy.
    fn needs(&self) -> ContentNeeds;
    /// Which pages the policy puts in content groups, for the memory estimate (an
    /// unbounded index's group count). Default: every written page until erased, the
    /// most there can be.
    fn grouped(&self) -> Grouped {
        Grouped::Written
    }
    /// Write streams of its own (relocation targets beyond the placement's streams).
    fn extra_streams(&self) -> usize {
        0
    }
    /// Name of own stream `k`, for output.
    fn extra_stream_name(&self, k: usize) -> String {
        format!("x{k}")
    }
    /// Controller time its compute operations take (see [`ActionCosts`]).
    fn costs(&self) -> ActionCosts {
        ActionCosts::default()
    }
    /// A user write of `content` to `lpn`.
    fn on_write(&mut self, _lpn: Lpn, _content: u64, _c: &ContentView) -> WriteAction {
        WriteAction::Program { index: false }
    }
    /// Whether a page whose last reference was overwritten or trimmed enters the
    /// fingerprint cache as reusable (DAGC). Default: no.
    fn caches_dead_pages(&self) -> bool {
        false
    }
    /// What to do with valid page `ppn` of `victim` (`owner`: the LPN owning it; None for
    /// a copy kept only for LPNs served through its VPN).
    fn on_victim_page(
        &mut self,
        ppn: Ppn,
        owner: Option<Lpn>,
        victim: SegmentId,
        segs: &SegmentView,
        content: &ContentView,
    ) -> PageAction;
    /// Whether the policy has idle-time work (a read scrub, deferred pages to write back):
    /// a timed driver then calls `Ftl::background_step` in host idle periods.
    fn background(&self) -> bool {
        false
    }
    /// The next idle-time read-scrub step, if this policy scrubs (SplitGC). None: no work.
    fn scrub_step(&mut self, _segs: &SegmentView, _content: &ContentView) -> Option<ScrubStep> {
        None
    }
    /// Whether the preconditioned device is fingerprinted before the run (as if the scrub
    /// had had the idle time to visit it all); then [`GcAction::prescrub_page`] is asked for
    /// every live page of every sealed segment.
    fn prescrub(&self) -> bool {
        false
    }
    /// Prescrub of one live page: whether to put it in its content group.
    fn prescrub_page(&mut self, _ppn: Ppn, _content: &ContentView) -> bool {
        false
    }
    /// What a page written back from the deferred-migration queue is known as.
    fn writeback(&self) -> Writeback {
        Writeback::Keep
    }
    /// Volatile state is lost (power cut): scrub position, Bloom filter.
    fn on_power_cut(&mut self, _content: &ContentView) {}
    /// Bytes of the policy's own structures (SSD metadata, e.g. a Bloom filter).
    fn memory_bytes(&self) -> u64 {
        0
    }
    /// Policy counters for the result (deterministic).
    fn report(&self) -> Option<serde_json::Value> {
        None
    }
    /// Whole mutable state, for a checkpoint (most policies: `crate::checkpoint::serde_state!();`).
    fn save_state(&self, _out: &mut crate::checkpoint::StateOut<'_>) -> Result<()> {
        Err(crate::checkpoint::not_checkpointable(
            "GC action",
            self.name(),
        ))
    }
    /// Restores what [`GcAction::save_state`] wrote.
    fn load_state(&mut self, _state: &mut crate::checkpoint::StateIn<'_>) -> Result<()> {
        Err(crate::checkpoint::not_checkpointable(
            "GC action",
            self.name(),
        ))
    }
}

type Ctor = fn(&Spec, ActionInit) -> Result<Box<dyn GcAction>>;

/// Registered GC actions: name, one-line description, constructor. `move` is the plain
/// relocation of every valid page (no content mode); [`build`] returns None for it.
pub const REGISTRY: &[(&str, &str, Ctor)] = &[
    (
        "move",
        "relocate every valid page (the classic GC; no content tracking)",
        relocate::build,
    ),
    (
        "splitgc",
        "papers/splitgc.txt: read scrub learns duplicates at idle time; known duplicates deferred to idle time (two-level mapping); use --victim splitgc",
        splitgc::build,
    ),
    (
        "cagc",
        "CAGC (Wu et al., IPDPS'21): fingerprint pages as GC migrates them, dedup against a bounded index, refcount>1 to a cold region",
        cagc::build,
    ),
    (
        "dagc",
        "DAGC (Yen et al., TCAD'18): bounded cache of dead pages' checksums, a write of cached content revives the page; use --victim dagc",
        dagc::build,
    ),
];

/// Names of the registered GC actions.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.0).collect()
}

/// Builds a GC action from a spec string; `Ok(None)` for `move` (the FTL's plain path).
pub fn build(field: &str, spec: &str, init: ActionInit) -> Result<Option<Box<dyn GcAction>>> {
    let spec = Spec::parse(field, spec)?;
    let entry = REGISTRY
        .iter()
        .find(|r| r.0 == spec.name)
        .ok_or_else(|| Error::Unknown {
            field: field.to_string(),
            kind: "GC action",
            name: spec.name.clone(),
            known: names().join(", "),
        })?;
    let a = (entry.2)(&spec, init)?;
    spec.finish()?;
    Ok((a.name() != "move").then_some(a))
}

/// Parses a bounded size: `full`/`unbounded` (None), a count, or a share of `of` (`5%`).
pub(crate) fn parse_capacity(
    spec: &Spec,
    key: &str,
    default: &str,
    of: u64,
) -> Result<Option<u64>> {
    let raw = spec.raw(key).unwrap_or(default).trim().to_ascii_lowercase();
    if raw == "full" || raw == "unbounded" {
        return Ok(None);
    }
    let bad = || {
        Error::config(
            spec.path(key),
            format!("`{raw}`: expected a number of entries (e.g. 65536), a share of the physical pages (e.g. 1%), or full/unbounded"),
        )
    };
    let n = if let Some(p) = raw.strip_suffix('%') {
        let v: f64 = p.trim().parse().map_err(|_| bad())?;
        if !(v > 0.0 && v <= 100.0) {
            return Err(bad());
        }
        ((v / 100.0) * of as f64).round() as u64
    } else {
        raw.parse::<u64>().map_err(|_| bad())?
    };
    if n == 0 {
        return Err(Error::config(spec.path(key), "capacity must be at least 1"));
    }
    Ok(Some(n))
}

/// `us` microseconds from a spec parameter, as nanoseconds.
pub(crate) fn spec_us(spec: &Spec, key: &str, default: f64) -> Result<u64> {
    let v: f64 = spec.num(key, default, 0.0, 1e9)?;
    Ok((v * 1000.0).round() as u64)
}
