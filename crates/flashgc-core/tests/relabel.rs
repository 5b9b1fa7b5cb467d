//! Relabelling: a placement moves sealed segments between groups without copying them
//! (`Placement::relabels`, MiDAS's configuration change), worked by hand on a tiny device.
//!
//! `cargo test --release -p flashgc-core --test relabel` (instant).

use flashgc_core::ftl::{Ftl, FtlParams};
use flashgc_core::placement::{Placement, VictimScope};
use flashgc_core::segment::{SegState, SegmentView};
use flashgc_core::victim::{self, VictimInit, VictimPolicy};
use flashgc_core::{Lpn, SegmentId, StreamId};

/// Two groups: LPNs 0-3 are written to stream 0, the rest to stream 1; GC takes its
/// victims from group 1 only and relocates into the victim's own group. With `relabel`,
/// the first GC first moves every sealed segment of stream 0 into group 1.
struct TwoGroups {
    relabel: bool,
}

impl Placement for TwoGroups {
    fn name(&self) -> &'static str {
        "two-groups"
    }
    fn streams(&self) -> usize {
        2
    }
    fn user_stream(&mut self, lpn: Lpn, _now: u64) -> StreamId {
        (lpn >= 4) as StreamId
    }
    fn gc_stream(&mut self, _lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId {
        view.stream(victim)
    }
    fn victim_scope(&mut self, _view: &SegmentView) -> VictimScope {
        VictimScope::Group(1)
    }
    fn relabels(&mut self, view: &SegmentView) -> Vec<(SegmentId, StreamId)> {
        if !std::mem::take(&mut self.relabel) {
            return Vec::new();
        }
        (0..view.len() as SegmentId)
            .filter(|&s| view.state(s) == SegState::Sealed && view.stream(s) == 0)
            .map(|s| (s, 1))
            .collect()
    }
}

/// 10 segments of 4 pages, 12 logical pages, GC below one free segment.
fn ftl(victim: &str, relabel: bool) -> Ftl {
    let vi = victim::build(
        "victim",
        victim,
        VictimInit {
            segments: 10,
            pages_per_segment: 4,
            groups: 2,
            seed: 1,
        },
    )
    .unwrap();
    ftl_with(vi, relabel)
}

fn ftl_with(vi: Box<dyn VictimPolicy>, relabel: bool) -> Ftl {
    let mut f = Ftl::new(
        FtlParams {
            logical_pages: 12,
            segments: 10,
            pages_per_segment: 4,
            gc_low: 1,
            gc_high: 1,
            gc_garbage: None,
        },
        Box::new(TwoGroups { relabel }),
        vi,
    );
    f.set_victim_log(true);
    f.set_check_after_gc(true);
    f
}

/// LPNs 4-11 fill two segments of group 1 with valid data only; LPNs 0-3 written again and
/// again seal segments of stream 0 that hold nothing but garbage, until GC must run.
fn fill_until_gc(f: &mut Ftl) -> flashgc_core::Result<()> {
    for l in 4..12 {
        f.write(l)?;
    }
    for round in 0..40 {
        for l in 0..4 {
            f.write(l)?;
        }
        if f.counters.gc_victims > 0 {
            return Ok(());
        }
        assert!(round < 39, "GC never ran");
    }
    Ok(())
}

#[test]
fn relabelled_segments_become_victims_of_their_new_group() {
    let mut f = ftl("greedy", true);
    fill_until_gc(&mut f).unwrap();
    // Group 1 held only the two fully valid segments of LPNs 4-11 when GC began; greedy
    // took a relabelled segment of stream 0 with no valid page, which frees it outright.
    let (victim, valid) = f.victim_log()[0];
    assert_eq!(valid, 0, "victim log {:?}", f.victim_log());
    assert_eq!(f.counters.gc_writes, 0);
    // Every sealed segment is in group 1 now except those sealed after the relabelling.
    let view = f.view();
    let sealed_in_0 = (0..view.len() as SegmentId)
        .filter(|&s| view.state(s) == SegState::Sealed && view.stream(s) == 0)
        .count();
    assert!(
        sealed_in_0 <= 1,
        "{sealed_in_0} sealed segments left in stream 0"
    );
    assert_ne!(view.state(victim), SegState::Sealed);
    f.check().unwrap();
}

#[test]
fn without_relabelling_the_same_gc_finds_only_valid_data() {
    // The control: group 1 offers only its two fully valid segments; greedy takes one, and
    // its four pages have nowhere to go.
    let mut f = ftl("greedy", false);
    let r = fill_until_gc(&mut f);
    assert!(
        f.victim_log().iter().all(|&(_, v)| v == 4),
        "{:?}",
        f.victim_log()
    );
    assert!(
        matches!(r, Err(flashgc_core::Error::DeviceFull(_))),
        "expected device full, got {r:?}"
    );
}

/// A victim policy without `remove`: the oldest sealed segment of any group.
struct Oldest(Vec<SegmentId>);

impl VictimPolicy for Oldest {
    fn name(&self) -> &'static str {
        "oldest"
    }
    fn on_seal(&mut self, seg: SegmentId, _view: &SegmentView) {
        self.0.push(seg);
    }
    fn on_invalidate(&mut self, _seg: SegmentId, _view: &SegmentView) {}
    fn select(&mut self, _view: &SegmentView, _scope: VictimScope) -> Option<SegmentId> {
        (!self.0.is_empty()).then(|| self.0.remove(0))
    }
    fn memory_bytes(&self) -> u64 {
        0
    }
}

#[test]
fn a_victim_policy_that_cannot_forget_a_segment_refuses_relabelling() {
    let mut f = ftl_with(Box::new(Oldest(Vec::new())), true);
    let e = fill_until_gc(&mut f).unwrap_err().to_string();
    assert!(
        e.contains("`oldest` cannot forget") && e.contains("relabel=off"),
        "{e}"
    );
}
