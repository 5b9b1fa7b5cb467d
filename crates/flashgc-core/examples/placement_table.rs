//! Prints the placement tables of docs/placement.md: steady-state WAF of every scheme on
//! the runs `tests/placement.rs` checks (same device, volume and seed), then each
//! scheme's classifier cost (wall-clock ns per user write) and metadata bytes per LPN.
//!
//! `cargo run --release -p flashgc-core --example placement_table`
//! Optional: `-- "single@greedy;bf-gc:gc=keep@greedy"` to choose columns (`;`-separated
//! `placement@victim`).

use flashgc_core::placement::{self, PlacementInit};
use flashgc_core::{Config, Simulation};

const DEFAULT: &str = "single@greedy;single@cost-benefit;sup-gc@greedy;sup-gc@cost-benefit;\
bf-gc@greedy;bf-gc@cost-benefit;bf-gc:gc=keep@greedy;bf-gc:gc=keep@cost-benefit;\
sepbit@greedy;sepbit@cost-benefit;mhf@greedy;mhf@cost-benefit;mbf@greedy;mbf@cost-benefit;\
cat@greedy;cat@cost-benefit;autostream@greedy;autostream@cost-benefit;dac@greedy;dac@cost-benefit;\
oracle@greedy;oracle@cost-benefit";

/// The device and run of tests/placement.rs.
fn config(workload: &str, placement: &str, victim: &str, op: f64) -> Config {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(0.125);
    c.ftl.op = Some(op);
    c.device.pages_per_block = 16;
    c.run.workload = workload.into();
    c.run.placement = placement.into();
    c.run.victim = victim.into();
    c.run.write_volume = 7.0;
    c.run.warmup = Some(4.0);
    c.run.seed = 7;
    c
}

fn main() {
    let arg = std::env::args()
        .nth(1)
        .unwrap_or_else(|| DEFAULT.to_string());
    let cols: Vec<(String, String)> = arg
        .split(';')
        .map(|c| match c.split_once('@') {
            Some((p, v)) => (p.to_string(), v.to_string()),
            None => (c.to_string(), "greedy".to_string()),
        })
        .collect();
    let workloads = [
        "uniform",
        "hotcold:80/20",
        "hotcold:90/10",
        "zipf:0.8",
        "zipf:1.0",
    ];
    let ops = [0.07, 0.28];
    println!(
        "Steady-state WAF. Device: 0.125 GiB logical ({} LPNs of 4 KiB), 16-page segments; \
         precondition 1x fill, 7x capacity of writes, steady state = the last 3x; seed 7.",
        Simulation::new(&config("uniform", "single", "greedy", 0.07))
            .map(|s| s.layout().logical_pages)
            .unwrap_or(0)
    );
    let mut mem = vec![0.0; cols.len()];
    for op in ops {
        println!("\n#### op {op}\n");
        print!("| placement + victim |");
        for wl in workloads {
            print!(" {wl} |");
        }
        println!();
        println!("|---|{}", "---|".repeat(workloads.len()));
        for (i, (p, v)) in cols.iter().enumerate() {
            print!("| {p} + {v} |");
            for wl in workloads {
                match Simulation::run_synthetic(&config(wl, p, v, op), &mut |_| {}) {
                    Ok(r) => {
                        let m = r
                            .memory
                            .iter()
                            .find(|m| m.structure == "placement")
                            .map(|m| m.bytes_per_lpn);
                        mem[i] = m.unwrap_or(0.0);
                        print!(" {:.3} |", r.steady_state.waf)
                    }
                    Err(e) => print!(" error: {e} |"),
                }
            }
            println!();
        }
    }
    println!("\n#### Cost of each classifier\n");
    println!("ns/write: `placement::measure_classifier_ns` (wall-clock, this machine, 1 Mi LPNs, 200 k zipf(1.0) writes; noisy: see BENCHMARKS.md for criterion figures). Bytes/LPN: the placement's own metadata on the device above (the oracle's includes its 8 B per user write of future).\n");
    println!("| scheme | ns/write | placement bytes/LPN |");
    println!("|---|---|---|");
    let init = PlacementInit {
        logical_pages: 1 << 20,
        segments: 4400,
        pages_per_segment: 256,
        seed: 1,
    };
    let mut seen = vec![];
    if cols.iter().any(|(p, _)| p == "bf-gc") {
        let ns = placement::measure_classifier_ns("bf-gc:fp_check=no", init, 200_000)
            .unwrap_or(f64::NAN);
        println!("| bf-gc:fp_check=no (no FP instrumentation) | {ns:.1} | (as bf-gc) |");
    }
    for (i, (p, _)) in cols.iter().enumerate() {
        if seen.contains(p) {
            continue;
        }
        seen.push(p.clone());
        let ns = placement::measure_classifier_ns(p, init, 200_000)
            .map(|n| format!("{n:.1}"))
            .unwrap_or_else(|e| e.to_string());
        println!("| {p} | {ns} | {:.3} |", mem[i]);
    }
}
