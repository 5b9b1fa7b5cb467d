//! The oracle's future: the whole write/TRIM sequence of a run, read ahead of it.

use crate::config::RunConfig;
use crate::error::Result;
use crate::placement::Future;
use crate::workload::{Op, Request, Workload};

/// The write/TRIM sequence `precondition` + `run` will issue, and its backward pass.
/// Kept compact, because it is the oracle's peak memory: the LPN of each write (4 B,
/// which the future keeps), TRIMs apart (rare), then the backward pass adds its 8 B per
/// write and a transient 8 B per LPN.
pub(super) fn future_of(logical: u64, run: &RunConfig, wl: &mut dyn Workload) -> Result<Future> {
    let fill = (logical as f64 * run.fill).round() as u64;
    let target = wl
        .is_infinite()
        .then(|| (run.write_volume * logical as f64).round() as u64);
    // The pre-pass stops at the write volume only: flows that never reach it would loop.
    if let (Some(t), Some(fs)) = (target, wl.as_flows()) {
        fs.check_reaches(t)?;
    }
    let mut lpns: Vec<crate::types::Lpn> =
        Vec::with_capacity((fill + target.unwrap_or(0)) as usize);
    lpns.extend((0..fill).map(|l| l as u32));
    // (writes before it, LPN) of each TRIM.
    let mut trims: Vec<(u64, crate::types::Lpn)> = Vec::new();
    let mut buf: Vec<Request> = Vec::with_capacity(4096);
    let mut written: u64 = 0;
    'outer: loop {
        if target.is_some_and(|t| written >= t) {
            break;
        }
        buf.clear();
        wl.fill(&mut buf, 4096)?;
        if buf.is_empty() {
            break;
        }
        for req in &buf {
            let end = req.lpn.saturating_add(req.pages as u64).min(logical);
            for lpn in req.lpn..end {
                match req.op {
                    Op::Write => {
                        lpns.push(lpn as u32);
                        written += 1;
                        if Some(written) == target {
                            break 'outer;
                        }
                    }
                    Op::Trim => trims.push((lpns.len() as u64, lpn as u32)),
                    Op::Read | Op::Flush => {}
                }
            }
        }
    }
    Ok(Future::from_writes_and_trims(lpns, &trims, logical))
}
