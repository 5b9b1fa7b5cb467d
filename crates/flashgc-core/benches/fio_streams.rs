//! fio job streams: requests per second of a plain random-map job and of one with
//! sequential picks (`percentage_random=50`), and the planning cost of counting the
//! latter's requests by running its stream (`SeqMixStream::job_requests`), on a region of
//! 1 Mi blocks (4 GiB of 4 KiB blocks) with a volume of three regions.
//!
//! `cargo bench -p flashgc-core --bench fio_streams`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flashgc_core::workload::fio::{Dist, FioJob, PickOrder, Rw, SeqMix, SeqMixStream};
use flashgc_core::workload::{Request, Workload};

const BLOCKS: u64 = 1 << 20;

fn streams(c: &mut Criterion) {
    let mix = SeqMix {
        random_pct: [50, 50],
        every: 1,
        pass_bytes: None,
        region_at_end: false,
        reseed: true,
        time_based: false,
        identical: false,
    };
    let batch = 1 << 16;
    let mut g = c.benchmark_group("fio_stream");
    g.throughput(Throughput::Elements(batch as u64));
    g.sample_size(20);
    let plain = FioJob {
        rw: Rw::RandWrite,
        iodepth: 1,
        dist: Dist::RandomMap,
        ..FioJob::default()
    };
    let mut w = plain.workload(BLOCKS, 4096).unwrap();
    let mut buf: Vec<Request> = Vec::with_capacity(batch);
    g.bench_function("random_map", |b| {
        b.iter(|| {
            buf.clear();
            w.fill(&mut buf, batch).unwrap();
            buf.len()
        })
    });
    let mut s = SeqMixStream::new(mix.clone(), PickOrder::Map, BLOCKS, 1, 4096, 0.0, 1);
    g.bench_function("percentage_random_50", |b| {
        b.iter(|| {
            buf.clear();
            s.fill(&mut buf, batch).unwrap();
            buf.len()
        })
    });
    g.finish();
    let mut g = c.benchmark_group("fio_plan");
    g.throughput(Throughput::Elements(3 * BLOCKS));
    g.sample_size(10);
    let s = SeqMixStream::new(mix, PickOrder::Map, BLOCKS, 1, 4096, 0.0, 1);
    g.bench_function("job_requests_3_regions", |b| {
        b.iter(|| s.job_requests(3 * BLOCKS * 4096, true, 1, None))
    });
    g.finish();
}

criterion_group!(benches, streams);
criterion_main!(benches);
