//! Calibrates the firmware-CPU cost model (docs/cpu.md) on this machine: each placement
//! scheme's classifier work per user write (beyond a no-op call), one greedy victim
//! selection, one GCaR scan step. Wall clock, best of three passes: run it on a quiet
//! machine and copy the figures into the constants it names (the simulation itself never
//! measures anything, so results stay the same on every machine).
//!
//! `cargo run --release -p flashgc-core --example cpu_calibrate`

use flashgc_core::driver::calibrate;
use flashgc_core::placement::{self, PlacementInit};

fn main() {
    let init = PlacementInit {
        logical_pages: 1 << 20,
        segments: 4096,
        pages_per_segment: 256,
        seed: 1,
    };
    let writes = 200_000;
    println!("host ns per user write beyond `single` (1 Mi LPNs, 200 k zipf(1.0) writes):");
    for p in placement::names() {
        let spec = match p {
            // The false-positive instrumentation is the simulator's, not firmware work.
            "bf-gc" => "bf-gc:fp_check=no",
            "oracle" => continue,
            p => p,
        };
        match calibrate::classifier_host_ns(spec, init, writes) {
            Ok(ns) => println!("  {spec:<24} {ns:8.1}   (placement/{p}.rs classifier_ns)"),
            Err(e) => println!("  {spec:<24} error: {e}"),
        }
    }
    let v = calibrate::victim_select_host_ns("greedy", 16384, 64, 200_000).unwrap();
    println!("greedy victim selection + re-seal, host ns: {v:.1}   (victim::SELECT_HOST_NS)");
    for p in flashgc_core::victim::names() {
        let rounds = if p.starts_with("cost-benefit") {
            20_000
        } else {
            200_000
        };
        match calibrate::victim_select_host_ns(p, 16384, 64, rounds) {
            Ok(ns) => println!("  victim {p:<20} {ns:10.1} host ns per selection (16 Ki segments; victim/*.rs select_ns)"),
            Err(e) => println!("  victim {p:<20} error: {e}"),
        }
    }
    let m = calibrate::mcam_eval_host_ns();
    println!("MiDAS MCAM evaluation (GCS at an epoch's end), host ns: {m:.1}   (placement/midas/mod.rs MCAM_EVAL_NS)");
    let g = calibrate::gcar_scan_host_ns(65536, 1 << 20, 64, 100_000);
    println!("GCaR scan step, host ns per entry: {g:.1}   (device::cpu::GCAR_SCAN_HOST_NS)");
}
