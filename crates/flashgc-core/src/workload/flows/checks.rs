//! Refusals of flow sets that a run could never finish or would starve: a write volume no
//! flow can reach, and WAF-only runs (no clock) whose instantaneous completions would let one
//! closed-loop flow take every turn (docs/flows.md).

use super::{ms, FlowArrival, FlowSet, FlowSpec};
use crate::error::{Error, Result};
use crate::workload::fio::Rw;

impl FlowSet {
    /// Refuses a run that only its write volume (`target` user pages) can end when the
    /// flows can never write that much: every flow without a request count only reads,
    /// and those with one write too little. Such a run would go on forever.
    pub fn check_reaches(&self, target: u64) -> Result<()> {
        let writes = |s: &FlowSpec| match s.job.rw {
            Rw::Read | Rw::RandRead | Rw::Trim | Rw::RandTrim => false,
            Rw::Write | Rw::RandWrite | Rw::TrimWrite | Rw::RandTrimWrite => true,
            // As the generator draws it: a read share that rounds to 1 never writes.
            Rw::RandRw => 1.0 - s.job.rwmixwrite / 100.0 < 1.0,
        };
        let mut most: u64 = 0;
        let mut endless = None;
        for s in &self.specs {
            if !s.bounded() && s.runtime_ns.is_some() && !writes(s) {
                // Its run time ends it.
                continue;
            }
            match (s.bounded().then_some(()), writes(s)) {
                // A flow without a request count that writes reaches any volume.
                (None, true) => return Ok(()),
                (None, false) => {
                    endless.get_or_insert(s);
                }
                (Some(_), true) => {
                    let pages = s.most_pages(self.lpn_size).unwrap_or(u64::MAX);
                    most = most.saturating_add(pages);
                }
                (Some(_), false) => {}
            }
        }
        match endless {
            Some(s) if most < target => Err(Error::config(
                format!("flow `{}`.requests", s.name),
                format!(
                    "the flow only reads and has no request count, and the flows with one \
                     write at most {most} of the {target} user pages of the run's write \
                     volume, so the run would never end: give the flow a request count, or \
                     bound the run with --requests or --data-gb (timed runs)"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Refuses flows that a run without a timed device (WAF-only) would starve. Its
    /// completions are instantaneous, so a closed-loop flow without a request count issues
    /// requests at its start time without end: a rate flow of its group (whose arrivals
    /// are spaced in time) or a closed-loop flow of its group that starts later would get
    /// none (or one) of them, silently.
    pub fn check_untimed(&self) -> Result<()> {
        // Without a clock a run time never passes (closed loops complete instantly).
        if let Some(f) = self
            .specs
            .iter()
            .find(|f| f.runtime_ns.is_some() || f.ramp_ns > 0 || f.steady.is_some())
        {
            let field = if f.runtime_ns.is_some() {
                "runtime_ms"
            } else if f.steady.is_some() {
                "steadystate"
            } else {
                "ramp_ms"
            };
            return Err(Error::config(
                format!("flow `{}`.{field}", f.name),
                "a run time or a ramp is simulated time, which a WAF-only run does not have: \
                 run with --timing",
            ));
        }
        for (k, c) in self.specs.iter().enumerate() {
            if c.bounded() || !matches!(c.arrival, FlowArrival::Closed { .. }) {
                continue;
            }
            for (j, f) in self.specs.iter().enumerate() {
                let (field, what) = match f.arrival {
                    _ if j == k || f.group != c.group => continue,
                    FlowArrival::Rate { .. } => ("rate_iops", "a rate flow".to_string()),
                    FlowArrival::Closed { .. } if f.start_ns > c.start_ns => (
                        "start_ms",
                        format!(
                            "a closed-loop flow that starts later ({} ms)",
                            ms(f.start_ns)
                        ),
                    ),
                    FlowArrival::Closed { .. } => continue,
                };
                return Err(Error::config(
                    format!("flow `{}`.{field}", f.name),
                    format!(
                        "without --timing (WAF-only) completions are instantaneous, so the \
                         closed-loop flow `{c}` without a request count issues requests at \
                         its start ({} ms) without end, and `{}`, {what}, would starve: run \
                         with --timing (the flows then share the device in time), give `{c}` \
                         a request count (its requests then come first), or make the flows \
                         of the group all rate flows (interleaved by their rates) or all \
                         closed-loop flows with one start (taking turns)",
                        ms(c.start_ns),
                        f.name,
                        c = c.name,
                    ),
                ));
            }
        }
        Ok(())
    }
}
