//! Timing-layer speed in host requests per wall second and per CPU second (this thread's
//! CPU time from /proc, so a loaded machine does not hide the simulator's own cost): 4 KiB
//! random writes at QD 32 on the `mqsim-default` geometry with 64 blocks per plane (16 GiB,
//! preconditioned full; the precondition is not timed), the same workload and device as
//! `benches/timing.rs`.
//!
//! `cargo run --release -p flashgc-core --example timing_speed [REQUESTS] [REPEATS]`
//! (defaults 2000000 and 3; prints every repeat and the median).

use flashgc_core::driver::TimedSim;
use flashgc_core::timing::{GcMode, Host, TimingParams};
use flashgc_core::workload::fio::{FioJob, Rw};
use flashgc_core::{Config, Simulation};
use std::time::Instant;

/// CPU time of this thread in seconds (Linux), if available.
fn cpu_s() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn config(segment_blocks: u32) -> Config {
    let mut c = Config::load(Some("mqsim-default"), None).expect("preset");
    c.device.blocks_per_plane = 64;
    c.device.segment_blocks = segment_blocks;
    c.run.fill = 1.0;
    c
}

/// One run: (wall seconds, CPU seconds or NaN, WAF).
fn once(c: &Config, mode: Option<GcMode>, n: u64) -> (f64, f64, f64) {
    let l = c.layout().expect("valid");
    let Some(mode) = mode else {
        let mut c = c.clone();
        c.run.write_volume = n as f64 / l.logical_pages as f64;
        c.run.warmup = Some(0.0);
        let mut sim = Simulation::new(&c).expect("sim");
        sim.precondition().expect("precondition");
        let mut wl = sim.synthetic_workload().expect("uniform");
        let (t0, c0) = (Instant::now(), cpu_s());
        let r = sim.run(&mut wl, &mut |_| {}).expect("run");
        let cpu = cpu_s().zip(c0).map_or(f64::NAN, |(a, b)| a - b);
        return (t0.elapsed().as_secs_f64(), cpu, r.total.waf);
    };
    let p = TimingParams {
        gc_mode: mode,
        host: Host::ClosedLoop { queue_depth: 32 },
        data_volume_bytes: Some(n * 4096),
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
    let (t0, c0) = (Instant::now(), cpu_s());
    let r = ts.run(&mut wl, &mut |_| {}).expect("run");
    let cpu = cpu_s().zip(c0).map_or(f64::NAN, |(a, b)| a - b);
    assert_eq!(r.timing.expect("timing").requests, n);
    (t0.elapsed().as_secs_f64(), cpu, r.total.waf)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3).max(1);
    let cases: [(&str, u32, Option<GcMode>); 3] = [
        (
            "timed, foreground GC, segment = block",
            1,
            Some(GcMode::Foreground),
        ),
        (
            "timed, preemptible GC, segment = 16-block superblock",
            16,
            Some(GcMode::Preemptible),
        ),
        ("WAF-only (no timing), segment = block", 1, None),
    ];
    println!("{n} requests of 4 KiB random writes, QD 32, mqsim-default with 64 blocks per plane");
    for (name, k, mode) in cases {
        let c = config(k);
        let (mut wall, mut cpu) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            let (w, cp, waf) = once(&c, mode, n);
            println!(
                "  {name}: {:.2} M req/wall-s, {:.2} M req/CPU-s (WAF {waf:.3})",
                n as f64 / w / 1e6,
                n as f64 / cp / 1e6
            );
            wall.push(n as f64 / w);
            cpu.push(n as f64 / cp);
        }
        println!(
            "median {name}: {:.2} M req/wall-s, {:.2} M req/CPU-s",
            median(wall) / 1e6,
            median(cpu) / 1e6
        );
    }
}
