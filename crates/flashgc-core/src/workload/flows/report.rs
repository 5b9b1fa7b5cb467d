//! The per-flow section of a result: requests, bytes, IOPS and bandwidth over the run and
//! over the flow's own active time, latency percentiles and histograms, flushes and the
//! steady-state verdict (docs/flows.md).

use super::FlowSet;
use crate::metrics::result::FlowReport;

impl FlowSet {
    /// The per-flow section of a result, over a run of `span_ns` simulated nanoseconds
    /// (rates over the run's span, so that the flows' rates add up to the run's).
    pub fn report(&self, span_ns: u64, timed: bool) -> Vec<FlowReport> {
        let secs = span_ns as f64 / 1e9;
        self.specs
            .iter()
            .zip(&self.state)
            .zip(&self.regions)
            .enumerate()
            .map(|(i, ((s, st), &(off, region)))| {
                // With a ramp: the requests issued after it, over the flow's own time from
                // the ramp's end to its last completion (fio's figures after ramp_time).
                let ramp_end = self.ramp_end(i).filter(|_| timed && s.ramp_ns > 0);
                let (n, bytes, secs) = match ramp_end {
                    Some(e) => (
                        st.issued - st.ramp_requests,
                        st.bytes - st.ramp_bytes,
                        st.last_done.saturating_sub(e) as f64 / 1e9,
                    ),
                    None => (st.issued, st.bytes, secs),
                };
                let rate = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
                let active_ns = st
                    .first_arrival
                    .map_or(0, |f| st.last_done.saturating_sub(f));
                // Its own time: from the ramp's end, else its first arrival.
                let own = match ramp_end {
                    Some(e) => st.last_done.saturating_sub(e),
                    None => active_ns,
                } as f64
                    / 1e9;
                let own_rate = |x: f64| if timed && own > 0.0 { x / own } else { 0.0 };
                FlowReport {
                    name: s.name.clone(),
                    pattern: s.job.describe(),
                    arrival: s.describe_arrival(),
                    start_ns: st.first_arrival.unwrap_or(s.start_ns),
                    offset_bytes: off * self.lpn_size as u64,
                    size_bytes: region * self.lpn_size as u64,
                    requests: st.issued,
                    read_requests: st.reads,
                    write_requests: st.writes,
                    trim_requests: st.trims,
                    bytes: st.bytes,
                    iops: rate(n as f64),
                    bandwidth_mb_s: rate(bytes as f64 / 1e6),
                    active_ns,
                    active_iops: own_rate(n as f64),
                    active_bandwidth_mb_s: own_rate(bytes as f64 / 1e6),
                    ramp_requests: ramp_end.map(|_| st.ramp_requests),
                    read_latency: timed.then(|| st.rd.summary()),
                    write_latency: timed.then(|| st.wr.summary()),
                    read_histogram: timed.then(|| st.rd.log_histogram()),
                    write_histogram: timed.then(|| st.wr.log_histogram()),
                    flushes: st.flush.count,
                    flush_latency: (timed && st.flush.count > 0)
                        .then(|| st.flush.latency.summary()),
                    steady_state: self.steady_report(i),
                }
            })
            .collect()
    }

    /// One line per flow.
    pub fn describe_flows(&self) -> String {
        self.specs
            .iter()
            .map(|s| {
                format!(
                    "{}: {} @ {} bytes, {}",
                    s.name,
                    s.job.describe(),
                    s.offset,
                    s.describe_arrival()
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}
