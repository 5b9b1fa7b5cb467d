//! Live statistics on a terminal: one status line on stderr, refreshed every second, with
//! the wall-clock request rate, the simulated latency percentiles of the last second
//! (timed engines), the cumulative WAF and GC activity. Not shown when stderr is not a
//! terminal (the caller decides).

use crate::engine::LiveCounters;
use flashgc_core::metrics::latency::Latencies;
use flashgc_core::workload::Op;
use std::io::Write;
use std::time::{Duration, Instant};

/// The status line's state.
pub struct LiveView {
    start: Instant,
    last: Instant,
    window_requests: u64,
    total_requests: u64,
    lat: Latencies,
    timed_seen: bool,
}

impl Default for LiveView {
    fn default() -> Self {
        Self::new()
    }
}

impl LiveView {
    /// A view starting now.
    pub fn new() -> LiveView {
        let now = Instant::now();
        LiveView {
            start: now,
            last: now,
            window_requests: 0,
            total_requests: 0,
            lat: Latencies::default(),
            timed_seen: false,
        }
    }

    /// One NBD request served with simulated latency `latency_ns`.
    pub fn request(&mut self, op: Option<Op>, latency_ns: u64) {
        self.window_requests += 1;
        self.total_requests += 1;
        if matches!(op, Some(Op::Read | Op::Write)) {
            self.lat.record(latency_ns);
            self.timed_seen |= latency_ns > 0;
        }
    }

    /// Prints the line if a second has passed (or `last_line`: the final line).
    pub fn tick(&mut self, c: &LiveCounters, last_line: bool) {
        let now = Instant::now();
        let dt = now.duration_since(self.last);
        if dt < Duration::from_secs(1) && !last_line {
            return;
        }
        let iops = self.window_requests as f64 / dt.as_secs_f64().max(1e-9);
        let lat = if self.timed_seen {
            let s = self.lat.summary();
            format!(
                " | sim latency us p50 {:.0} p99 {:.0} max {:.0}",
                s.p50_us, s.p99_us, s.max_us
            )
        } else {
            String::new()
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[K[{:>6.0} s] {} req | {:>8.0} IOPS | WAF {:.3} | GC moves {} | victims {} | erases {}{lat}",
            now.duration_since(self.start).as_secs_f64(),
            self.total_requests,
            iops,
            c.waf(),
            c.gc_writes,
            c.gc_victims,
            c.erases
        );
        if last_line {
            let _ = writeln!(err);
        }
        let _ = err.flush();
        self.last = now;
        self.window_requests = 0;
        self.lat = Latencies::default();
    }
}
