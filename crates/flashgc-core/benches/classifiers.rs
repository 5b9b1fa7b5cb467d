//! Classifier CPU cost per user write: nanoseconds per `Placement::user_stream` call for
//! every registered placement scheme, over a seeded zipf(1.0) stream of 64 Ki writes on a
//! device of 1 Mi logical pages (4 GiB of 4 KiB pages), 256 pages per segment.
//!
//! `cargo bench -p flashgc-core --bench classifiers` (add `-- bf-gc` to run one scheme).
//! The figure includes one virtual call and the loop (~1-2 ns: compare with `single`).
//! Per-GC work some schemes do (SepBIT's segment-table scan before each victim pick) is
//! not in this figure.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use flashgc_core::placement::{self, Future, PlacementInit};

fn classifiers(c: &mut Criterion) {
    let init = PlacementInit {
        logical_pages: 1 << 20,
        segments: (1 << 20) / 256 * 107 / 100,
        pages_per_segment: 256,
        seed: 1,
    };
    let n: u64 = 1 << 16;
    let lpns = placement::zipf_lpns(init.logical_pages, n, 1);
    let mut g = c.benchmark_group("classifier");
    g.throughput(Throughput::Elements(n));
    g.sample_size(20);
    let mut specs: Vec<&str> = placement::names();
    specs.push("bf-gc:fp_check=no");
    for name in specs {
        let Ok(mut p) = placement::build("placement", name, init) else {
            continue;
        };
        if p.needs_future() {
            p.set_future(Future::from_writes(&lpns, init.logical_pages));
        }
        let wrap = p.needs_future();
        let mut now = 0u64;
        g.bench_function(name, |b| {
            b.iter_batched(
                || (),
                |_| {
                    let mut acc = 0u64;
                    for &l in &lpns {
                        // Oracles replay their known future; the others see time go on.
                        now = if wrap && now == n { 1 } else { now + 1 };
                        acc = acc.wrapping_add(p.user_stream(l, now) as u64);
                    }
                    std::hint::black_box(acc)
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, classifiers);
criterion_main!(benches);
