//! A [`FlowSet`] as a [`Workload`], and its position in a checkpoint: the flows' states are
//! saved, their generators replayed on resume to where each flow was (docs/core.md,
//! Checkpoint and resume).

use super::{steady, FlowArrival, FlowSet, FlowState, PENDING};
use crate::error::{Error, Result};
use crate::workload::{Request, Workload};
use serde::{Deserialize, Serialize};

/// The saved position of a [`FlowSet`]: its flows' states; generators are replayed.
#[derive(Serialize, Deserialize)]
struct Saved {
    names: Vec<String>,
    state: Vec<FlowState>,
    /// Requests in flight per flow (deferred commit; zeros otherwise).
    inflight: Vec<u32>,
    /// The steady-state units' progress.
    steady: Vec<steady::UnitState>,
}

impl Workload for FlowSet {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()> {
        // Outside the driver's flow loop (e.g. a future-knowledge pre-pass): the requests
        // in arrival order with instantaneous completions.
        for _ in 0..max {
            let Some((i, req, t)) = self.next_arrival_request()? else {
                break;
            };
            self.completed(i, &req, t, t, false);
            buf.push(req);
        }
        Ok(())
    }
    fn describe(&self) -> String {
        format!("flows [{}]", self.describe_flows())
    }
    fn is_infinite(&self) -> bool {
        self.specs.iter().any(|s| !s.bounded())
    }
    fn save_position(&self) -> Option<Vec<u8>> {
        let mut state = self.state.clone();
        for s in &mut state {
            s.slots.sort_unstable();
        }
        crate::checkpoint::encode(&Saved {
            names: self.specs.iter().map(|s| s.name.clone()).collect(),
            state,
            inflight: self.inflight.clone(),
            steady: self.steady.clone(),
        })
        .ok()
    }
    fn load_position(&mut self, b: &[u8]) -> Result<()> {
        let saved: Saved = crate::checkpoint::decode(b).map_err(|e| {
            Error::Input(format!(
                "the saved workload position is not that of host flows (taken on another \
                 workload?): {e}"
            ))
        })?;
        let names: Vec<&String> = self.specs.iter().map(|s| &s.name).collect();
        if saved.names.iter().collect::<Vec<_>>() != names {
            return Err(Error::Input(
                "the checkpoint's flows differ from the configured ones".into(),
            ));
        }
        if saved.inflight.len() != self.specs.len()
            || saved.state.len() != self.specs.len()
            || saved.steady.len() != self.steady.len()
            || saved
                .steady
                .iter()
                .zip(&self.units)
                .any(|(s, u)| !s.window.fits(u.spec.dur))
        {
            return Err(Error::Input(
                "the checkpoint's flows differ from the configured ones".into(),
            ));
        }
        for (i, st) in saved.state.iter().enumerate() {
            // Requests and queued syncs in flight each hold a slot.
            let waiting = st.slots.iter().filter(|&&s| s == PENDING).count();
            let holding = saved.inflight[i] as usize + st.flush.queued.len();
            let closed = matches!(self.specs[i].arrival, FlowArrival::Closed { .. });
            if closed && waiting != holding {
                return Err(Error::Input(format!(
                    "flow `{}`: the checkpoint's waiting slots do not match its requests in flight",
                    self.specs[i].name
                )));
            }
        }
        self.inflight = saved.inflight;
        self.steady = saved.steady;
        for (i, st) in saved.state.into_iter().enumerate() {
            if st.slots.len() != self.state[i].slots.len() {
                return Err(Error::Input(format!(
                    "flow `{}`: the checkpoint's queue depth differs",
                    self.specs[i].name
                )));
            }
            // Replay the generator to where the flow was, summing the bytes it issued.
            let mut left = st.issued;
            self.issued_bytes[i] = 0;
            while left > 0 {
                self.buf.clear();
                let n = left.min(4096) as usize;
                self.gens[i].fill(&mut self.buf, n)?;
                self.issued_bytes[i] += self
                    .buf
                    .iter()
                    .map(|r| r.pages as u64 * self.lpn_size as u64)
                    .sum::<u64>();
                if self.buf.len() != n {
                    return Err(Error::Input(format!(
                        "flow `{}` does not replay its {} requests",
                        self.specs[i].name, st.issued
                    )));
                }
                left -= n as u64;
            }
            self.state[i] = st;
            if !self.pending_consistent(i) {
                return Err(Error::Input(format!(
                    "flow `{}`: the checkpoint's writes in flight do not match its requests in flight",
                    self.specs[i].name
                )));
            }
        }
        Ok(())
    }
    fn as_flows(&mut self) -> Option<&mut FlowSet> {
        Some(self)
    }
}
