//! Timing-layer speed: simulated host requests per wall-clock second for 4 KiB random
//! writes at QD 32 on the `mqsim-default` geometry (8 channels x 4 chips x 2 dies x 2 planes,
//! 8 KiB pages, 256 pages per block; 64 blocks per plane instead of 2048 so the device
//! (16 GiB) fits a benchmark), device preconditioned full so GC runs throughout. Also the
//! same workload WAF-only, to show the op log costs nothing when timing is off.
//!
//! `cargo bench -p flashgc-core --bench timing`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flashgc_core::driver::TimedSim;
use flashgc_core::timing::{GcMode, Host, TimingParams};
use flashgc_core::workload::fio::{FioJob, Rw};
use flashgc_core::{Config, Simulation};
use std::time::{Duration, Instant};

const REQUESTS: u64 = 500_000;

fn config(segment_blocks: u32) -> Config {
    let mut c = Config::load(Some("mqsim-default"), None).expect("preset");
    c.device.blocks_per_plane = 64;
    c.device.segment_blocks = segment_blocks;
    c.run.fill = 1.0;
    c
}

fn timed(c: &Config, mode: GcMode) -> Duration {
    let l = c.layout().expect("valid");
    let p = TimingParams {
        gc_mode: mode,
        host: Host::ClosedLoop { queue_depth: 32 },
        data_volume_bytes: Some(REQUESTS * 4096),
        ..TimingParams::default()
    };
    let mut ts = TimedSim::new(c, p).expect("timed sim");
    ts.simulation_mut().precondition().expect("precondition");
    let job = FioJob {
        rw: Rw::RandWrite,
        bs: 4096,
        numjobs: 1,
        iodepth: 32,
        ..FioJob::default()
    };
    let mut wl = job.workload(l.logical_pages, l.lpn_size).expect("job");
    let t0 = Instant::now();
    let r = ts.run(&mut wl, &mut |_| {}).expect("run");
    let d = t0.elapsed();
    assert_eq!(r.timing.expect("timing").requests, REQUESTS);
    d
}

fn waf_only(c: &Config) -> Duration {
    let l = c.layout().expect("valid");
    let mut c = c.clone();
    c.run.write_volume = REQUESTS as f64 / l.logical_pages as f64;
    c.run.warmup = Some(0.0);
    let mut sim = Simulation::new(&c).expect("sim");
    sim.precondition().expect("precondition");
    let mut wl = sim.synthetic_workload().expect("uniform");
    let t0 = Instant::now();
    sim.run(&mut wl, &mut |_| {}).expect("run");
    t0.elapsed()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("timing");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(REQUESTS));
    let block = config(1);
    let superblock = config(16);
    g.bench_function(
        "mqsim-default randwrite 4k QD32 foreground, segment = block",
        |b| b.iter_custom(|n| (0..n).map(|_| timed(&block, GcMode::Foreground)).sum()),
    );
    g.bench_function(
        "mqsim-default randwrite 4k QD32 preemptible, segment = 16-block superblock",
        |b| {
            b.iter_custom(|n| {
                (0..n)
                    .map(|_| timed(&superblock, GcMode::Preemptible))
                    .sum()
            })
        },
    );
    g.bench_function("mqsim-default randwrite 4k WAF-only (no timing)", |b| {
        b.iter_custom(|n| (0..n).map(|_| waf_only(&block)).sum())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
