//! CAGC (Wu, Du, Li, Jiang, Shen & Mao, "CAGC: A Content-aware Garbage Collection Scheme
//! for Ultra-Low Latency Flash-based SSDs", IPDPS 2021, Sec. III; the authors' PDF is in
//! the public repository ChunfengDu/ChunfengDu.github.io).
//!
//! Deduplication moves from the write path into GC (Fig. 5): when GC migrates a victim's
//! valid page it reads it, computes its fingerprint (the hash engine; `fp_us`, default 80 +
//! `fpm_us` 10 us as papers/splitgc.txt charges SHA-1 and its management, the CAGC paper's
//! Z-NAND hash is 14 us) and searches the fingerprint index. A miss writes the page "into
//! the hot region and updates the fingerprint index"; a hit writes nothing: the LPN is
//! served by the indexed copy for good and its reference count grows. "When the reference
//! count of the redundant data page is equal to the preset threshold, the data page will
//! be migrated to the Cold Region before the victim flash block is erased" (Sec. III-B):
//! pages referenced more than `threshold` (default 1, the paper's example) times live in
//! the cold region, those with exactly one reference in the hot region, with the user
//! writes (Sec. III-C). User writes are never fingerprinted, so the index holds only
//! fingerprints of pages GC has migrated.
//!
//! Choices where the paper is silent (named parameters):
//! * `index=N` (default 65536 entries, 1.75 MiB of controller DRAM at 28 B per entry): the
//!   paper keeps the index in the controller's memory but gives no size; the index is
//!   bounded at N entries with `replace=lru` (default; `fifo`). A dropped entry's copies
//!   still serve the LPNs remapped to them (the SMT), but are found no more. `index=5%`
//!   sizes it as a share of the physical pages.
//! * `index=full`: today's upper-bound variant (no bound, and `promote=no`: a shared copy
//!   goes to the cold region only when GC migrates it, never promoted out of turn).
//! * `promote=yes` (default): the promotion above; `no` skips it.
//! * The victim is whatever `--victim` says (the paper: greedy by default, Sec. IV-A).

use super::{ActionCosts, ActionInit, GcAction, PageAction, Target};
use crate::content::{ContentNeeds, ContentView, Grouped, Replacement};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, Ppn, SegmentId};

/// The CAGC GC action.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Cagc {
    capacity: Option<u64>,
    replacement: Replacement,
    threshold: u32,
    promote: bool,
    fp_ns: u64,
    lookups: u64,
    hits: u64,
}

pub(super) fn build(spec: &Spec, init: ActionInit) -> Result<Box<dyn GcAction>> {
    let physical = init.segments as u64 * init.pages_per_segment as u64;
    let capacity = super::parse_capacity(spec, "index", "65536", physical)?;
    let replacement = match spec.choice("replace", "lru", &["lru", "fifo"])?.as_str() {
        "fifo" => Replacement::Fifo,
        _ => Replacement::Lru,
    };
    let threshold = spec.num::<u32>("threshold", 1, 1, 1 << 20)?;
    let promote_default = if capacity.is_none() { "no" } else { "yes" };
    let promote = spec.choice("promote", promote_default, &["yes", "no"])? == "yes";
    let fp_ns = super::spec_us(spec, "fp_us", 80.0)? + super::spec_us(spec, "fpm_us", 10.0)?;
    Ok(Box::new(Cagc {
        capacity,
        replacement,
        threshold,
        promote,
        fp_ns,
        lookups: 0,
        hits: 0,
    }))
}

impl GcAction for Cagc {
    fn name(&self) -> &'static str {
        "cagc"
    }
    fn variant(&self) -> String {
        match self.capacity {
            None => format!(
                "cagc:index=full (upper bound: unbounded index),threshold={},promote={}",
                self.threshold,
                if self.promote { "yes" } else { "no" }
            ),
            Some(n) => format!(
                "cagc:index={n},replace={},threshold={},promote={}",
                match self.replacement {
                    Replacement::Lru => "lru",
                    Replacement::Fifo => "fifo",
                },
                self.threshold,
                if self.promote { "yes" } else { "no" }
            ),
        }
    }
    crate::checkpoint::serde_state!();

    fn needs(&self) -> ContentNeeds {
        ContentNeeds {
            index_capacity: self.capacity,
            replacement: self.replacement,
            ..ContentNeeds::default()
        }
    }
    fn grouped(&self) -> Grouped {
        Grouped::Migrated
    }
    fn extra_streams(&self) -> usize {
        1
    }
    fn extra_stream_name(&self, _k: usize) -> String {
        "cold".into()
    }
    fn costs(&self) -> ActionCosts {
        ActionCosts {
            gc_page_ns: self.fp_ns,
            ..ActionCosts::default()
        }
    }

    fn on_victim_page(
        &mut self,
        ppn: Ppn,
        owner: Option<Lpn>,
        victim: SegmentId,
        _segs: &SegmentView,
        content: &ContentView,
    ) -> PageAction {
        self.lookups += 1;
        let fp = content.content(ppn);
        if let Some(g) = content.lookup(fp) {
            // A copy of another group (one the bounded index dropped) stays in it: its own
            // VPN may serve LPNs.
            let own = content.group(ppn);
            if content.live_copy(g, victim).is_some() && own.is_none_or(|o| o == g) {
                self.hits += 1;
                // References after the remap: this LPN joins the copy's referrers.
                let refs = content.refs(g) + u32::from(owner.is_some());
                let promote =
                    (self.promote && refs == self.threshold + 1).then_some(Target::Extra(0));
                return PageAction::Remap { group: g, promote };
            }
        }
        // Not redundant (or its other copies are all in this victim): migrate it. A copy
        // already shared by more LPNs than the threshold is cold.
        // (The upper-bound variant keeps today's rule: any LPN served through the copy's VPN.)
        let shared = content.group(ppn).is_some_and(|g| {
            if self.capacity.is_none() {
                content.borrowers(g) > 0
            } else {
                content.refs(g) > self.threshold
            }
        });
        PageAction::Move {
            to: if shared {
                Target::Extra(0)
            } else {
                Target::Placement
            },
            index: true,
        }
    }

    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "index_lookups": self.lookups,
            "index_hits": self.hits,
        }))
    }
}
