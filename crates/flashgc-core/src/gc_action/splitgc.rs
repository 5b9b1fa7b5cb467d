//! SplitGC (papers/splitgc.txt: Nie et al., "Exploiting Data Duplication to Reduce Data
//! Migration in Garbage Collection Inside SSD", Electronics 14(9) 1873, 2025).
//!
//! * Read scrub at idle time (Sec. 3.2): walks the device block by block and reads every
//!   live page (ECC check, `ecc_us`, 20 us); the blocks are split into `groups` (10)
//!   contiguous groups and one group per full pass (alpha = 1/groups) also gets a
//!   fingerprint (`fp_us` 80 + `fpm_us` 10 us, Eq. 1). A fingerprinted page is looked up in
//!   a Bloom filter (m = `bloom_bits` (4.2) bits per physical page, k = 3: BKDR, AP, DJB); a
//!   negative skips the table. It then joins its content's group in the fingerprint table
//!   (unbounded: the paper keeps a table entry per content). Plain Bloom filters cannot
//!   delete: the filter is rebuilt from the table at the start of every pass.
//! * GC (Sec. 3.1, 3.3): a valid page whose group has a live copy outside the victim is not
//!   moved; its LPN switches to the group's VPN and joins the waiting queue, written back at
//!   idle time (every copy is kept: no deduplication). Other pages are relocated.
//! * The victim rule is the `splitgc` victim policy (`--victim splitgc`).
//!
//! Choices where the paper is silent (named parameters):
//! * `prescrub=yes` (default): the preconditioned device is fingerprinted before the run, as
//!   if the scrub had had the idle time to visit every group.
//! * `writeback=keep` (default): a page written back from the queue joins its group at once
//!   (the FTL updates the fingerprint table when it relocates a page, Sec. 3.3);
//!   `rescrub`: it is known again only once the scrub fingerprints it; `once`: never again
//!   until its LPN is rewritten (a page is deferred at most once).

use super::{ActionCosts, ActionInit, GcAction, PageAction, ScrubStep, Target};
use crate::content::{Bloom, ContentNeeds, ContentView, Grouped};
use crate::error::{Error, Result};
use crate::segment::{SegState, SegmentView};
use crate::spec::Spec;
use crate::types::{Lpn, Ppn, SegmentId};

/// What a page written back from the waiting queue is known as (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Writeback {
    /// Joins its content group at once.
    Keep,
    /// Known again once the scrub fingerprints it.
    Rescrub,
    /// Never fingerprinted again until its LPN is rewritten.
    Once,
}

/// Read-scrub position.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
struct Cursor {
    seg: u32,
    off: u32,
    /// Group of blocks fingerprinted in the current pass.
    active: u32,
    passes: u64,
}

/// Counters of the scrub and fingerprinting.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
struct Counters {
    scrub_pages: u64,
    scrub_fp_pages: u64,
    bloom_negatives: u64,
    table_lookups: u64,
    deferred_decisions: u64,
}

/// The SplitGC GC action.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SplitGc {
    groups: u32,
    segments: u32,
    pps: u32,
    scrub: bool,
    prescrub: bool,
    writeback: Writeback,
    costs_ecc: u64,
    costs_fp: u64,
    bloom_bits: f64,
    bloom: Bloom,
    cur: Cursor,
    c: Counters,
}

pub(super) fn build(spec: &Spec, init: ActionInit) -> Result<Box<dyn GcAction>> {
    let groups = spec.num::<u32>("groups", 10, 1, 1 << 20)?;
    let bloom_bits = spec.num::<f64>("bloom_bits", 4.2, 1.0, 64.0)?;
    let writeback = match spec
        .choice("writeback", "keep", &["keep", "rescrub", "once"])?
        .as_str()
    {
        "rescrub" => Writeback::Rescrub,
        "once" => Writeback::Once,
        _ => Writeback::Keep,
    };
    let prescrub = spec.choice("prescrub", "yes", &["yes", "no"])? == "yes";
    let scrub = spec.choice("scrub", "yes", &["yes", "no"])? == "yes";
    let ecc = super::spec_us(spec, "ecc_us", 20.0)?;
    let fp = super::spec_us(spec, "fp_us", 80.0)? + super::spec_us(spec, "fpm_us", 10.0)?;
    let physical = init.segments as u64 * init.pages_per_segment as u64;
    if physical >= crate::content::VFLAG as u64 {
        return Err(Error::config(
            "device",
            format!("{physical} physical pages: content mode supports at most 2^31 - 1 (the MSB of an L2P entry is the VPN flag)"),
        ));
    }
    Ok(Box::new(SplitGc {
        groups,
        segments: init.segments,
        pps: init.pages_per_segment,
        scrub,
        prescrub,
        writeback,
        costs_ecc: ecc,
        costs_fp: fp,
        bloom_bits,
        bloom: Bloom::new(physical, bloom_bits),
        cur: Cursor::default(),
        c: Counters::default(),
    }))
}

impl SplitGc {
    /// Group of blocks of segment `seg`: `groups` contiguous ranges of segments.
    #[inline]
    fn group_of(&self, seg: u32) -> u32 {
        ((seg as u64 * self.groups as u64) / self.segments.max(1) as u64) as u32
    }

    /// The Bloom prefilter, then the table: counts what the paper's lookup costs (the
    /// decision is the same either way: join the content's group).
    fn lookup_counts(&mut self, fp: u64) {
        if self.bloom.maybe_contains(fp) {
            self.c.table_lookups += 1;
        } else {
            self.c.bloom_negatives += 1;
            self.bloom.insert(fp);
        }
    }

    fn rebuild_bloom(&mut self, content: &ContentView) {
        self.bloom.clear();
        let b = &mut self.bloom;
        content.for_each_indexed(|fp| b.insert(fp));
    }
}

impl GcAction for SplitGc {
    fn name(&self) -> &'static str {
        "splitgc"
    }
    fn variant(&self) -> String {
        format!(
            "splitgc:groups={},bloom_bits={},writeback={},prescrub={},scrub={}",
            self.groups,
            self.bloom_bits,
            match self.writeback {
                Writeback::Keep => "keep",
                Writeback::Rescrub => "rescrub",
                Writeback::Once => "once",
            },
            if self.prescrub { "yes" } else { "no" },
            if self.scrub { "yes" } else { "no" }
        )
    }
    crate::checkpoint::serde_state!();

    fn needs(&self) -> ContentNeeds {
        ContentNeeds {
            dup_counts: true,
            defers: true,
            ..ContentNeeds::default()
        }
    }
    fn grouped(&self) -> Grouped {
        // Without the prescrub, pages join groups as the scrub and GC reach them.
        if self.prescrub() {
            Grouped::Live
        } else {
            Grouped::Migrated
        }
    }
    fn costs(&self) -> ActionCosts {
        ActionCosts {
            scrub_ecc_ns: self.costs_ecc,
            scrub_fp_ns: self.costs_fp,
            ..ActionCosts::default()
        }
    }

    fn on_victim_page(
        &mut self,
        ppn: Ppn,
        _owner: Option<Lpn>,
        victim: SegmentId,
        _segs: &SegmentView,
        content: &ContentView,
    ) -> PageAction {
        match content.group(ppn) {
            Some(g) if content.live_copy(g, victim).is_some() => {
                self.c.deferred_decisions += 1;
                PageAction::Defer { group: g }
            }
            _ => PageAction::Move {
                to: Target::Placement,
                index: false,
            },
        }
    }

    fn scrub_step(&mut self, segs: &SegmentView, content: &ContentView) -> Option<ScrubStep> {
        if !self.scrub {
            return None;
        }
        let mut wraps = 0;
        loop {
            let c = self.cur;
            if c.seg >= self.segments {
                self.cur = Cursor {
                    seg: 0,
                    off: 0,
                    active: (c.active + 1) % self.groups,
                    passes: c.passes + 1,
                };
                self.rebuild_bloom(content);
                wraps += 1;
                if wraps > 2 {
                    return None;
                }
                continue;
            }
            if segs.state(c.seg) != SegState::Sealed || c.off >= self.pps {
                self.cur.seg += 1;
                self.cur.off = 0;
                continue;
            }
            let ppn = c.seg * self.pps + c.off;
            self.cur.off += 1;
            if !content.is_live(ppn) {
                continue;
            }
            self.c.scrub_pages += 1;
            let fingerprinted = self.group_of(c.seg) == c.active;
            let mut insert = false;
            if fingerprinted {
                self.c.scrub_fp_pages += 1;
                if content.group(ppn).is_none() && !content.is_noprint(ppn) {
                    self.lookup_counts(content.content(ppn));
                    insert = true;
                }
            }
            return Some(ScrubStep {
                ppn,
                fingerprinted,
                insert,
            });
        }
    }

    fn background(&self) -> bool {
        true
    }
    fn prescrub(&self) -> bool {
        self.prescrub
    }
    fn prescrub_page(&mut self, ppn: Ppn, content: &ContentView) -> bool {
        if content.group(ppn).is_some() || content.is_noprint(ppn) {
            return false;
        }
        self.lookup_counts(content.content(ppn));
        true
    }
    fn writeback(&self) -> Writeback {
        self.writeback
    }
    fn on_power_cut(&mut self, content: &ContentView) {
        self.cur.off = 0;
        self.rebuild_bloom(content);
    }
    fn memory_bytes(&self) -> u64 {
        self.bloom.memory_bytes()
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "scrub_pages": self.c.scrub_pages,
            "scrub_fingerprinted_pages": self.c.scrub_fp_pages,
            "scrub_passes": self.cur.passes,
            "bloom_negatives": self.c.bloom_negatives,
            "table_lookups": self.c.table_lookups,
            "bloom_bits": self.bloom.bits(),
        }))
    }
}
