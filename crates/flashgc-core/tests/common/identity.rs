//! Checkpoint identity: the bytes a run writes at a given point, and where two checkpoints
//! differ (section by section).

use flashgc_core::checkpoint::CheckpointReader;
use flashgc_core::driver::Engine;
use flashgc_core::sim::{RunControl, RunEnd};
use flashgc_core::timing::TimingParams;
use flashgc_core::workload::Workload;
use flashgc_core::Config;
use std::path::Path;

/// How a test opens its workload (a fresh instance each time).
pub type Open<'a> = &'a dyn Fn(&Config) -> Box<dyn Workload>;

/// The bytes of the checkpoint that a run of `c` (timed under `timing`; resumed from the
/// checkpoint `from` first) writes to `file` when it stops after `at` requests.
pub fn checkpoint_at(
    c: &Config,
    open: Open,
    timing: Option<&TimingParams>,
    from: Option<&Path>,
    at: u64,
    file: &Path,
) -> Vec<u8> {
    let mut e = match from {
        Some(f) => Engine::from_checkpoint(CheckpointReader::open(f).unwrap()).unwrap(),
        None => Engine::new(c, timing.cloned()).unwrap(),
    };
    if e.simulation().needs_future() {
        let mut future = open(c);
        e.simulation_mut().prepare_future(future.as_mut()).unwrap();
    }
    let mut ctl = RunControl {
        checkpoint: Some(file.to_path_buf()),
        stop_after_requests: Some(at),
        caller: serde_json::json!({"test": "identity"}),
        ..RunControl::default()
    };
    match e.run_with(open(c).as_mut(), &mut |_| {}, &mut ctl).unwrap() {
        RunEnd::Stopped {
            checkpoint: Some(_),
            ..
        } => {}
        _ => panic!("no checkpoint after {at} requests"),
    }
    std::fs::read(file).unwrap()
}

/// Where two checkpoints first differ: the byte and the section holding it (the header's
/// CRC differs whenever the body does, so the body is searched first).
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<String> {
    // Header: magic, format (u32), version (u16 length + text), body length, CRC.
    let body = 14 + u16::from_le_bytes([a[12], a[13]]) as usize + 12;
    let differ = |from: usize| (from..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i));
    let (i, mut section) = match differ(body) {
        Some(i) => (i, String::new()),
        None => (differ(0)?, "the header".to_string()),
    };
    let mut o = body;
    while section.is_empty() || (o + 12 <= a.len() && o <= i) {
        if o + 12 > a.len() {
            section = "past the end".into();
            break;
        }
        let len = u64::from_le_bytes(a[o + 4..o + 12].try_into().unwrap()) as usize;
        section = format!("section `{}`", String::from_utf8_lossy(&a[o..o + 4]));
        o += 12 + len;
    }
    Some(format!("byte {i} of {} / {} ({section})", a.len(), b.len()))
}

/// The last periodic checkpoint (every 16 Ki user pages) of a run of `c` to its end;
/// stopped after `stop` requests first, and resumed from that checkpoint, when given.
pub fn last_periodic(
    c: &Config,
    open: Open,
    timing: Option<&TimingParams>,
    stop: Option<u64>,
    file: &Path,
) -> Vec<u8> {
    let mut e = Engine::new(c, timing.cloned()).unwrap();
    let mut stop = stop;
    loop {
        let mut ctl = RunControl {
            checkpoint: Some(file.to_path_buf()),
            every_user_pages: Some(16_384),
            stop_after_requests: stop.take(),
            ..RunControl::default()
        };
        match e.run_with(open(c).as_mut(), &mut |_| {}, &mut ctl).unwrap() {
            RunEnd::Finished(_) => return std::fs::read(file).unwrap(),
            RunEnd::Stopped { .. } => {
                e = Engine::from_checkpoint(CheckpointReader::open(file).unwrap()).unwrap()
            }
        }
    }
}
