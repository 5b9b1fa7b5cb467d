//! Checkpoint cost: size, write time and read (verify + restore) time of a checkpoint of a
//! preconditioned device after some random writes.
//!
//! `cargo bench -p flashgc-core --bench checkpoint` measures 16 GiB and 128 GiB devices
//! (single + greedy, and sepbit + cost-benefit, whose 8 B/LPN table goes through bincode);
//! `FLASHGC_CKPT_GIB=1024` measures one device of that many GiB instead (single + greedy,
//! or `FLASHGC_CKPT_PLACEMENT` + `FLASHGC_CKPT_VICTIM`).
//! The file goes to `FLASHGC_CKPT_DIR` (default: the system temp dir). Times are wall clock
//! and include the fsync; a read right after the write comes from the page cache.

use flashgc_core::checkpoint::CheckpointReader;
use flashgc_core::sim::{RunControl, RunEnd};
use flashgc_core::{Config, Simulation};
use std::time::Instant;

fn bench(logical_gib: f64, placement: &str, victim: &str) {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(logical_gib);
    c.ftl.op = Some(0.07);
    c.device.pages_per_block = 256;
    c.run.placement = placement.into();
    c.run.victim = victim.into();
    c.run.workload = "uniform".into();
    c.run.max_memory_gib = None;
    let dir = std::env::var("FLASHGC_CKPT_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::env::temp_dir());
    let path = dir.join(format!("flashgc-bench-{}.ckpt", std::process::id()));
    let mut sim = Simulation::new(&c).expect("config");
    let l = sim.layout().logical_pages;
    let mut wl = sim.synthetic_workload().expect("workload");
    let mut ctl = RunControl {
        stop_after_requests: Some(l / 4),
        ..RunControl::default()
    };
    assert!(matches!(
        sim.run_with(&mut wl, &mut |_| {}, &mut ctl).expect("run"),
        RunEnd::Stopped { .. }
    ));
    // Already at the stop: the run writes its checkpoint and stops again at once.
    ctl.checkpoint = Some(path.clone());
    let cpu0 = cpu_seconds();
    let info = match sim.run_with(&mut wl, &mut |_| {}, &mut ctl).expect("run") {
        RunEnd::Stopped { checkpoint, .. } => checkpoint.expect("written"),
        RunEnd::Finished(_) => panic!("the run ended before the stop"),
    };
    let write_cpu = cpu_seconds() - cpu0;
    drop(sim);
    let t = Instant::now();
    let cpu0 = cpu_seconds();
    let r = CheckpointReader::open(&path).expect("open");
    let verify = t.elapsed().as_secs_f64();
    let sim = Simulation::from_checkpoint(r).expect("restore");
    let read = t.elapsed().as_secs_f64();
    let read_cpu = cpu_seconds() - cpu0;
    drop(sim);
    let _ = std::fs::remove_file(&path);
    println!(
        "{placement}+{victim:12} {logical_gib:>6.0} GiB ({:>6.1} Mi LPNs): {:>8.1} MiB = {:.2} B/LPN; \
         write {:.2} s wall incl. fsync, {:.2} s CPU ({:.4} s CPU per GiB of device); \
         read {:.2} s wall (CRC pass {:.2} s), {:.2} s CPU ({:.4} s CPU per GiB of device)",
        l as f64 / (1 << 20) as f64,
        info.bytes as f64 / (1 << 20) as f64,
        info.bytes as f64 / l as f64,
        info.seconds,
        write_cpu,
        write_cpu / logical_gib,
        read,
        verify,
        read_cpu,
        read_cpu / logical_gib,
    );
}

/// This thread's on-CPU time in seconds (Linux; elsewhere 0). On a shared machine wall
/// time includes time the thread was not running.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

fn main() {
    if let Some(g) = std::env::var("FLASHGC_CKPT_GIB")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
    {
        let p = std::env::var("FLASHGC_CKPT_PLACEMENT").unwrap_or_else(|_| "single".into());
        let v = std::env::var("FLASHGC_CKPT_VICTIM").unwrap_or_else(|_| "greedy".into());
        bench(g, &p, &v);
        return;
    }
    for g in [16.0, 128.0] {
        bench(g, "single", "greedy");
        bench(g, "sepbit", "cost-benefit");
    }
}
