//! MiDAS's cost: simulation throughput relative to `single` + greedy in the same run, and
//! the wall time of one GCS search.
//!
//! `cargo bench -p flashgc-core --bench midas`
//!
//! * Throughput: zipf 1.0 on `midas-128g` scaled to 1 GiB (2208 segments of 128 x 4 KiB,
//!   op 7.3 %): sequential fill, then 12 x capacity of user writes (MiDAS adopts its
//!   configuration at the end of the first 4-capacity epoch and runs it for the rest). Each scheme runs
//!   3 times, alternating; the medians give user page writes/s, flash programs/s and the
//!   ratio MiDAS / (single + greedy) (a ratio of user writes/s: both serve the same writes).
//! * GCS: criterion times `gcs::search` on the UID of 4 capacities of zipf 1.0 (the default
//!   epoch) for the same device (budget 2199 segments), and MCAM's `predict` alone.

use criterion::{criterion_group, Criterion};
use flashgc_core::placement::midas::{gcs, mcam, uid_from_workload, UidOptions};
use flashgc_core::workload::{Synthetic, SyntheticKind};
use flashgc_core::{Config, Simulation};
use std::time::Instant;

fn device() -> Config {
    let mut c = Config::load(Some("midas-128g"), None).expect("preset");
    c.device.page_size = 4096;
    c.device.pages_per_block = 128;
    c.device.segment_blocks = 1;
    c.ftl.logical_gib = Some(1.0);
    c.run.workload = "zipf:1.0".into();
    c.run.write_volume = 12.0;
    c
}

fn timed(placement: &str, victim: &str) -> (f64, u64, u64, f64) {
    let mut c = device();
    c.run.placement = placement.into();
    c.run.victim = victim.into();
    let t = Instant::now();
    let r = Simulation::run_synthetic(&c, &mut |_| {}).expect("run");
    let dt = t.elapsed().as_secs_f64();
    let user = r.total.user_writes + r.precondition.user_writes;
    (
        dt,
        user,
        r.total.flash_programs + r.precondition.flash_programs,
        r.steady_state.waf,
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn throughput_ratio() {
    let schemes = [("midas", "fifo"), ("single", "greedy")];
    let mut rates: Vec<Vec<(f64, f64)>> = vec![Vec::new(); schemes.len()];
    let mut wafs = vec![0.0; schemes.len()];
    for _ in 0..3 {
        for (i, (p, v)) in schemes.iter().enumerate() {
            let (dt, user, progs, waf) = timed(p, v);
            rates[i].push((user as f64 / dt, progs as f64 / dt));
            wafs[i] = waf;
        }
    }
    let med: Vec<(f64, f64)> = rates
        .iter()
        .map(|r| {
            (
                median(r.iter().map(|x| x.0).collect()),
                median(r.iter().map(|x| x.1).collect()),
            )
        })
        .collect();
    for (i, (p, v)) in schemes.iter().enumerate() {
        println!(
            "midas-bench {p:>14} + {v:<7}: {:6.2} M user writes/s, {:6.2} M flash programs/s (WAF {:.3})",
            med[i].0 / 1e6,
            med[i].1 / 1e6,
            wafs[i]
        );
    }
    println!(
        "midas-bench throughput ratio MiDAS / single+greedy: {:.3} (user writes/s), {:.3} (flash programs/s)",
        med[0].0 / med[1].0,
        med[0].1 / med[1].1
    );
}

fn gcs_bench(c: &mut Criterion) {
    let dev = device();
    let l = dev.layout().expect("layout");
    let mut wl = Synthetic::new(
        SyntheticKind::Zipf { theta: 1.0 },
        l.logical_pages,
        1,
        0.0,
        1,
    );
    let n = l.logical_pages;
    let o = UidOptions {
        fill: 1.0,
        writes: 7 * n,
        epoch: 4 * n,
        unit: l.pages_per_segment as u64,
        sample: 1,
        hot_hits: 3,
        all_intervals: true,
        count_trims: true,
    };
    let uid = uid_from_workload(&mut wl, n, &o).expect("uid");
    let p = gcs::GcsParams::default();
    let found = gcs::search(&uid, 2199, l.pages_per_segment, &p);
    println!(
        "midas-bench GCS: {} groups {} predicted WAF {:.4}, {} MCAM evaluations",
        found.config.groups(),
        found.config,
        found.prediction.waf,
        found.evaluations
    );
    let mut g = c.benchmark_group("midas");
    g.sample_size(10);
    g.bench_function("gcs_search_2199_segments", |b| {
        b.iter(|| gcs::search(&uid, 2199, l.pages_per_segment, &p))
    });
    g.bench_function("mcam_predict", |b| {
        b.iter(|| mcam::predict(&uid, &found.config, l.pages_per_segment))
    });
    g.finish();
}

criterion_group!(benches, gcs_bench);

fn main() {
    throughput_ratio();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
