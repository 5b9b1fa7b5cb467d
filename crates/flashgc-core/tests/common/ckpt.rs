//! Helpers of the checkpoint tests (`tests/checkpoint.rs`, `tests/checkpoint_timed.rs`): a
//! small device, its synthetic workload, a scratch path and the comparison of result JSON.

use flashgc_core::workload::Workload;
use flashgc_core::{Config, Simulation};
use std::path::PathBuf;

/// A scratch path of this test process.
pub fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-ckpt-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// 64 MiB logical, 32-page segments: a few hundred segments, runs in milliseconds.
pub fn small(workload: &str, placement: &str, victim: &str) -> Config {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(1.0 / 16.0);
    c.ftl.op = Some(0.15);
    c.device.pages_per_block = 32;
    c.run.workload = workload.into();
    c.run.placement = placement.into();
    c.run.victim = victim.into();
    c.run.write_volume = 4.0;
    c.run.warmup = Some(2.0);
    c.run.window_gib = Some(1.0 / 128.0);
    c.run.max_memory_gib = None;
    c
}

pub fn synthetic(c: &Config) -> Box<dyn Workload> {
    let sim = Simulation::new(c).unwrap();
    Box::new(sim.synthetic_workload().unwrap())
}

/// Asserts equal JSON, showing the first differing line.
pub fn same(want: &str, got: &str, what: &str) {
    if want != got {
        let (i, (a, b)) = want
            .lines()
            .zip(got.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((0, ("(length)", "(length)")));
        panic!("{what}: resumed result differs from the uninterrupted run at line {i}:\n  want {a}\n  got  {b}");
    }
}

pub fn json(r: &flashgc_core::RunResult) -> String {
    serde_json::to_string_pretty(r).unwrap()
}
