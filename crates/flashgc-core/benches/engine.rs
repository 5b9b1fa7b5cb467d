//! WAF-engine throughput: user page writes/s and flash page programs/s, single thread,
//! uniform random writes, greedy victim, op 0.07, one stream.
//!
//! `cargo bench -p flashgc-core --bench engine` runs two devices:
//! * 128 GiB logical (32 Mi LPNs of 4 KiB), 256 pages per segment (issue 2's figure);
//! * 16 GiB logical (4 Mi LPNs), 256 pages per segment (sssl-ftlsim's setting in BRIEF.md).
//!
//! Each: sequential fill, 2 x capacity of warm-up, then 1 x capacity measured.
//! `FLASHGC_BENCH_QUICK=1` measures only the 16 GiB device.

use flashgc_core::workload::Workload;
use flashgc_core::{Config, Simulation};
use std::time::Instant;

fn bench(logical_gib: f64, victim: &str, placement: &str) {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(logical_gib);
    c.ftl.op = Some(0.07);
    c.device.pages_per_block = 256;
    c.run.victim = victim.into();
    c.run.placement = placement.into();
    c.run.workload = "uniform".into();
    let mut sim = Simulation::new(&c).expect("config");
    let l = sim.layout().logical_pages;
    let t = Instant::now();
    sim.precondition().expect("fill");
    let fill_s = t.elapsed().as_secs_f64();
    let mut wl = sim.synthetic_workload().expect("workload");
    let mut buf = Vec::with_capacity(4096);
    let mut drive = |sim: &mut Simulation, pages: u64| {
        let mut done = 0;
        while done < pages {
            buf.clear();
            wl.fill(&mut buf, 4096).unwrap();
            for (j, r) in buf.iter().enumerate() {
                if let Some(n) = buf.get(j + 16) {
                    sim.ftl().prefetch(n.lpn as u32);
                }
                sim.ftl_mut().write(r.lpn as u32).unwrap();
            }
            done += buf.len() as u64;
        }
    };
    drive(&mut sim, 2 * l);
    let before = sim.ftl().counters.clone();
    let t = Instant::now();
    let cpu0 = cpu_seconds();
    drive(&mut sim, l);
    let wall = t.elapsed().as_secs_f64();
    // On a shared machine wall time includes time the thread was not running; the thread's
    // own on-CPU time (Linux schedstat) is the fairer denominator. Both are printed.
    let secs = cpu_seconds()
        .map(|c1| c1 - cpu0.unwrap_or(0.0))
        .unwrap_or(wall);
    let after = sim.ftl().counters.clone();
    let user = after.user_writes - before.user_writes;
    let gc = after.gc_writes - before.gc_writes;
    let mem: u64 = sim.ftl().memory().iter().map(|m| m.1).sum();
    println!(
        "{placement}+{victim:8} {:>7.1} GiB ({:>5.1} Mi LPNs): {:>6.2} M user writes/s  {:>6.2} M flash programs/s per CPU-second ({:.2} M/s wall)  WAF {:.3}  metadata {:.2} B/LPN  (fill {:.1} M writes/s)",
        logical_gib,
        l as f64 / (1 << 20) as f64,
        user as f64 / secs / 1e6,
        (user + gc) as f64 / secs / 1e6,
        (user + gc) as f64 / wall / 1e6,
        (user + gc) as f64 / user as f64,
        mem as f64 / l as f64,
        l as f64 / fill_s / 1e6
    );
}

/// This thread's on-CPU time in seconds (Linux), if available.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn main() {
    // `cargo bench` passes `--bench`; ignore arguments.
    let quick = std::env::var_os("FLASHGC_BENCH_QUICK").is_some();
    bench(16.0, "greedy", "single");
    if !quick {
        bench(128.0, "greedy", "single");
        bench(16.0, "fifo", "single");
        bench(16.0, "greedy", "sup-gc");
    }
}
