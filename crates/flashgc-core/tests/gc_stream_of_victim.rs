//! `Placement::gc_stream_of_victim`: a scheme that names one GC stream per victim lets GC
//! relocate the victim in runs instead of asking `gc_stream` per page. Each scheme is run
//! twice on the same writes and trims, once as it is and once behind a wrapper that hides
//! the method (so GC asks per page), and everything observable must be equal: counters,
//! victims, the op stream (copybacks, erases), the mapping, the scheme's own state and
//! report. The schemes that claim a per-victim stream must have been asked and answered.
//!
//! `cargo test --release -p flashgc-core --test gc_stream_of_victim` (a few seconds).

use flashgc_core::ftl::{FlashOp, Ftl, FtlParams};
use flashgc_core::placement::{self, Placement, PlacementInit, VictimScope};
use flashgc_core::segment::SegmentView;
use flashgc_core::victim::{self, VictimInit};
use flashgc_core::{Lpn, SegmentId, StreamId};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const SEGMENTS: u32 = 96;
const PPS: u32 = 32;
const LOGICAL: u64 = (SEGMENTS * PPS) as u64 * 3 / 4;

/// Forwards every method to `inner`; `gc_stream_of_victim` only if `per_victim`, counting
/// the victims it answered for in `answered`.
struct Wrap {
    inner: Box<dyn Placement>,
    per_victim: bool,
    answered: Arc<AtomicU64>,
}

impl Placement for Wrap {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn streams(&self) -> usize {
        self.inner.streams()
    }
    fn gc_streams_per_victim(&self) -> usize {
        self.inner.gc_streams_per_victim()
    }
    fn user_stream(&mut self, lpn: Lpn, now: u64) -> StreamId {
        self.inner.user_stream(lpn, now)
    }
    fn gc_stream(&mut self, lpn: Lpn, victim: SegmentId, view: &SegmentView) -> StreamId {
        self.inner.gc_stream(lpn, victim, view)
    }
    fn gc_stream_of_victim(
        &mut self,
        victim: SegmentId,
        pages: u32,
        view: &SegmentView,
    ) -> Option<StreamId> {
        if !self.per_victim {
            return None;
        }
        let s = self.inner.gc_stream_of_victim(victim, pages, view);
        if s.is_some() {
            self.answered.fetch_add(1, Ordering::Relaxed);
        }
        s
    }
    fn victim_scope(&mut self, view: &SegmentView) -> VictimScope {
        self.inner.victim_scope(view)
    }
    fn relabels(&mut self, view: &SegmentView) -> Vec<(SegmentId, StreamId)> {
        self.inner.relabels(view)
    }
    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        self.inner.on_seal(seg, view)
    }
    fn on_victim(&mut self, seg: SegmentId, view: &SegmentView) {
        self.inner.on_victim(seg, view)
    }
    fn on_trim(&mut self, lpn: Lpn) {
        self.inner.on_trim(lpn)
    }
    fn wants_prefetch(&self) -> bool {
        self.inner.wants_prefetch()
    }
    fn prefetch(&self, lpn: Lpn) {
        self.inner.prefetch(lpn)
    }
    fn report(&self) -> Option<serde_json::Value> {
        self.inner.report()
    }
    fn save_state(
        &self,
        out: &mut flashgc_core::checkpoint::StateOut<'_>,
    ) -> flashgc_core::Result<()> {
        self.inner.save_state(out)
    }
}

/// What a run leaves observable.
#[derive(Debug, PartialEq)]
struct Outcome {
    counters: String,
    victims: Vec<(SegmentId, u32)>,
    ops: Vec<FlashOp>,
    l2p: Vec<Option<u32>>,
    state: Vec<u8>,
    report: Option<serde_json::Value>,
}

/// Runs `spec` with `victim_spec` on a small device: 40 000 skewed writes (a hot tenth of
/// the LPNs takes half of them) and a trim every 97th request.
fn run(spec: &str, victim_spec: &str, per_victim: bool) -> (Outcome, u64) {
    let init = PlacementInit {
        logical_pages: LOGICAL,
        segments: SEGMENTS,
        pages_per_segment: PPS,
        seed: 3,
    };
    let inner = placement::build("placement", spec, init).unwrap();
    let streams = inner.streams();
    let reserve = inner.gc_streams_per_victim() as u32 + 1;
    let answered = Arc::new(AtomicU64::new(0));
    let p = Wrap {
        inner,
        per_victim,
        answered: answered.clone(),
    };
    let vi = victim::build(
        "victim",
        victim_spec,
        VictimInit {
            segments: SEGMENTS,
            pages_per_segment: PPS,
            groups: streams,
            seed: 3,
        },
    )
    .unwrap();
    let mut f = Ftl::new(
        FtlParams {
            logical_pages: LOGICAL,
            segments: SEGMENTS,
            pages_per_segment: PPS,
            gc_low: reserve,
            gc_high: reserve + 1,
            gc_garbage: None,
        },
        Box::new(p),
        vi,
    );
    f.set_op_log(true);
    f.set_victim_log(true);
    let mut ops = Vec::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..40_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let lpn = if x & 1 == 0 {
            (x >> 8) % (LOGICAL / 10)
        } else {
            (x >> 8) % LOGICAL
        } as Lpn;
        if i % 97 == 96 {
            f.trim(lpn);
        } else {
            f.write(lpn).unwrap_or_else(|e| panic!("{spec}: {e}"));
        }
        f.drain_ops(&mut ops);
    }
    f.check().unwrap();
    assert!(f.counters.gc_writes > 10_000, "{spec}: too little GC");
    let out = Outcome {
        counters: format!("{:?}", f.counters),
        victims: f.victim_log().to_vec(),
        ops,
        l2p: (0..LOGICAL as Lpn).map(|l| f.mapping().lookup(l)).collect(),
        state: {
            let mut b = Vec::new();
            f.placement()
                .save_state(&mut flashgc_core::checkpoint::StateOut::buffer(&mut b))
                .unwrap();
            b
        },
        report: f.placement().report(),
    };
    (out, answered.load(Ordering::Relaxed))
}

#[test]
fn per_victim_streams_change_nothing_observable() {
    // (spec, victim policy, whether the scheme answers per victim)
    let cases: &[(&str, &str, bool)] = &[
        ("single", "greedy", true),
        ("sup-gc", "greedy", true),
        ("mida", "cost-benefit:formula=sqrt", true),
        ("mida:hot=filter", "cost-benefit:formula=sqrt", true),
        ("midas", "fifo", true),
        ("autostream", "cost-benefit:formula=sqrt", true),
        ("bf-gc", "greedy", true),
        ("bf-gc:gc=keep", "greedy", true),
        ("bf-gc:gc=reclassify", "greedy", false),
        ("mbf:gc=keep", "greedy", true),
        ("mbf:gc=cold", "greedy", true),
        ("mbf", "greedy", false),
        ("mhf:gc=cold", "greedy", true),
        ("mhf-opt:gc=keep", "greedy", true),
        ("bf-opt:gc=cold", "greedy", true),
        ("bf-opt", "greedy", false),
        ("sepbit", "cost-benefit:formula=sqrt", false),
        ("cat", "cost-benefit:formula=sqrt", false),
        ("dac", "cost-benefit:formula=sqrt", false),
        ("multilog", "fifo", false),
    ];
    for &(spec, vic, claims) in cases {
        let (batched, answered) = run(spec, vic, true);
        let (per_page, none) = run(spec, vic, false);
        assert_eq!(none, 0);
        assert_eq!(
            answered > 0,
            claims,
            "{spec}: answered per victim for {answered} victims"
        );
        // Compared field by field: a mismatch names the field, not a megabyte of ops.
        assert_eq!(batched.counters, per_page.counters, "{spec}: counters");
        assert_eq!(batched.victims, per_page.victims, "{spec}: victims");
        assert!(batched.ops == per_page.ops, "{spec}: op streams differ");
        assert!(batched.l2p == per_page.l2p, "{spec}: mappings differ");
        // Schemes that do not claim ran the same path twice; SepBIT's state holds a HashMap,
        // whose serialized order differs between two instances.
        if claims {
            assert!(
                batched.state == per_page.state,
                "{spec}: scheme states differ"
            );
        }
        assert_eq!(batched.report, per_page.report, "{spec}: reports");
    }
}
