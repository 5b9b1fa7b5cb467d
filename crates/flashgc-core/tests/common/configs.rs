//! Device configurations several test files use.

use flashgc_core::Config;

/// The NoC paper's device (`noc-ssdc`: 8 channels x 4 planes, 64-page blocks) with 16
/// blocks per plane (512 segments, 32 Ki pages) and over-provisioning `op`: small enough
/// that a few thousand requests keep GC busy.
pub fn noc_small(op: f64) -> Config {
    let mut c = Config::load(Some("noc-ssdc"), None).unwrap();
    c.device.blocks_per_plane = 16;
    c.ftl.op = Some(op);
    c
}
