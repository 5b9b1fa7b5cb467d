//! A run stopped and resumed from its checkpoint, as a user's interrupted run would be.

use flashgc_core::checkpoint::CheckpointReader;
use flashgc_core::driver::Engine;
use flashgc_core::sim::{RunControl, RunEnd};
use flashgc_core::timing::TimingParams;
use flashgc_core::{Config, RunResult};

/// Runs on the device of `c` under `p`, stopped after each of `stops` requests (a
/// checkpoint in the temporary directory, named after `tag`) and resumed each time from
/// the checkpoint by a new engine, as a fresh process would; returns the final result.
/// `run` runs the workload on the engine under the control it is given; it builds the
/// workload anew each time (the checkpoint restores its position).
pub fn resumed(
    c: &Config,
    p: &TimingParams,
    stops: &[u64],
    tag: &str,
    run: &mut dyn FnMut(&mut Engine, &mut RunControl) -> RunEnd,
) -> RunResult {
    let file = std::env::temp_dir().join(format!("flashgc-{tag}-{}.ckpt", std::process::id()));
    let mut e = Engine::new(c, Some(p.clone())).unwrap();
    let mut stops = stops.iter().copied();
    let mut next = stops.next();
    let got = loop {
        let mut ctl = RunControl {
            checkpoint: Some(file.clone()),
            stop_after_requests: next,
            ..RunControl::default()
        };
        match run(&mut e, &mut ctl) {
            RunEnd::Finished(r) => break r,
            RunEnd::Stopped { checkpoint, .. } => {
                assert!(checkpoint.is_some(), "{tag}: stopped without a checkpoint");
                drop(e);
                e = Engine::from_checkpoint(CheckpointReader::open(&file).unwrap()).unwrap();
                next = stops.next();
            }
        }
    };
    let _ = std::fs::remove_file(&file);
    got
}
