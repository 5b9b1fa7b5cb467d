//! DAGC, the deduplication-assisted GC of Yen, Chang & Chang, "Lightweight, integrated data
//! deduplication for write stress reduction of mobile flash storage" (IEEE TCAD 37(11),
//! 2018), as papers/splitgc.txt (ref. [25], Sec. 4) describes it: DAGC "postpones the
//! deletion of invalid data in pages and reuses it if subsequent requests with the same
//! content arrive"; "because invalid data with cached checksums could possibly be reused
//! for deduplication, DAGC weighs these invalid data the same way as valid data" when it
//! picks a victim (the `dagc` victim policy). Its duplicate detection is firmware-only: a
//! lightweight checksum, then a read of the candidate page to compare it (the abstract:
//! "inspired by the short flash read latency").
//!
//! Model: when a page's data dies (its LPN is overwritten or trimmed), its checksum enters
//! a bounded cache (`cache=N` entries, `replace=lru|fifo`); one entry per checksum (a newer
//! dead copy replaces the older one). A user write looks its checksum up (`lookup_us`, 10
//! us, on the write path); a hit reads the cached page (a flash read on the write path) and
//! revives it for the writing LPN instead of programming. The dead page keeps its cached
//! status until its block is erased or the cache drops it; the victim rule counts cached
//! dead pages as valid.
//!
//! Choices where the sources are silent (named parameters): the cache size (`cache=4096`
//! entries: a few tens of KiB of a mobile controller's SRAM; `cache=2%` sizes it as a share
//! of the physical pages) and LRU replacement.
//!
//! `cache=unbounded` is today's upper-bound variant: every written page's checksum is
//! cached (live or dead, never dropped before its block is erased), a write of cached
//! content shares the live copy through a VPN or revives the dead one, and no read is
//! charged on a hit.

use super::{ActionCosts, ActionInit, GcAction, PageAction, Target, WriteAction};
use crate::content::{ContentNeeds, ContentView, Replacement};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, Ppn, SegmentId};

/// The DAGC GC action.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Dagc {
    capacity: Option<u64>,
    replacement: Replacement,
    lookup_ns: u64,
    lookups: u64,
    hits: u64,
}

pub(super) fn build(spec: &Spec, init: ActionInit) -> Result<Box<dyn GcAction>> {
    let physical = init.segments as u64 * init.pages_per_segment as u64;
    let capacity = super::parse_capacity(spec, "cache", "4096", physical)?;
    let replacement = match spec.choice("replace", "lru", &["lru", "fifo"])?.as_str() {
        "fifo" => Replacement::Fifo,
        _ => Replacement::Lru,
    };
    let lookup_ns = super::spec_us(spec, "lookup_us", 10.0)?;
    Ok(Box::new(Dagc {
        capacity,
        replacement,
        lookup_ns,
        lookups: 0,
        hits: 0,
    }))
}

impl GcAction for Dagc {
    fn name(&self) -> &'static str {
        "dagc"
    }
    fn variant(&self) -> String {
        match self.capacity {
            None => "dagc:cache=unbounded (upper bound: every written page reusable)".into(),
            Some(n) => format!(
                "dagc:cache={n},replace={}",
                match self.replacement {
                    Replacement::Lru => "lru",
                    Replacement::Fifo => "fifo",
                }
            ),
        }
    }
    crate::checkpoint::serde_state!();

    fn needs(&self) -> ContentNeeds {
        ContentNeeds {
            keep_invalid: true,
            index_capacity: self.capacity,
            replacement: self.replacement,
            ..ContentNeeds::default()
        }
    }
    fn costs(&self) -> ActionCosts {
        ActionCosts {
            write_ns: self.lookup_ns,
            write_hit_read: self.capacity.is_some(),
            ..ActionCosts::default()
        }
    }
    fn caches_dead_pages(&self) -> bool {
        self.capacity.is_some()
    }

    fn on_write(&mut self, _lpn: Lpn, content: u64, c: &ContentView) -> WriteAction {
        self.lookups += 1;
        let Some(g) = c.lookup(content) else {
            return WriteAction::Program {
                index: self.capacity.is_none(),
            };
        };
        match (self.capacity, c.first_member(g)) {
            (None, Some(_)) => {
                self.hits += 1;
                WriteAction::Share { group: g }
            }
            (Some(_), Some(p)) if !c.is_live(p) => {
                self.hits += 1;
                WriteAction::Revive { ppn: p }
            }
            _ => WriteAction::Program {
                index: self.capacity.is_none(),
            },
        }
    }

    fn on_victim_page(
        &mut self,
        _ppn: Ppn,
        _owner: Option<Lpn>,
        _victim: SegmentId,
        _segs: &SegmentView,
        _content: &ContentView,
    ) -> PageAction {
        PageAction::Move {
            to: Target::Placement,
            index: false,
        }
    }

    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "cache_lookups": self.lookups,
            "cache_hits": self.hits,
        }))
    }
}
