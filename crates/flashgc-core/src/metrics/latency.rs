//! Latency recording: an HDR histogram (every percentile within 0.1 %) plus the exact
//! count, sum and maximum, and its summary in the result record.

use hdrhistogram::Histogram;
use serde::Serialize;

/// Latency distribution summary, microseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencySummary {
    /// Requests.
    pub count: u64,
    /// Mean.
    pub mean_us: f64,
    /// Median.
    pub p50_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// 99.99th percentile.
    pub p9999_us: f64,
    /// Maximum.
    pub max_us: f64,
}

/// A latency recorder: an HDR histogram (3 significant digits) for the percentiles, plus
/// the exact count, sum and maximum.
#[derive(Debug, Clone)]
pub struct Latencies {
    hist: Histogram<u64>,
    sum: u128,
    max: u64,
}

impl Default for Latencies {
    fn default() -> Self {
        Latencies {
            hist: Histogram::new(3).expect("3 significant digits are valid"),
            sum: 0,
            max: 0,
        }
    }
}

impl Latencies {
    /// Records one latency in ns.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        // An auto-resizing histogram accepts every u64 value.
        self.hist.record(ns).ok();
        self.sum += ns as u128;
        self.max = self.max.max(ns);
    }

    /// Adds `other`'s samples (same counts, sum and maximum as recording them here).
    pub fn merge(&mut self, other: &Latencies) {
        // An auto-resizing histogram accepts every other histogram's values.
        self.hist.add(&other.hist).ok();
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }

    /// Number of latencies recorded.
    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// Summary in microseconds (percentiles within 0.1 %; mean and max exact).
    pub fn summary(&self) -> LatencySummary {
        let h = &self.hist;
        let us = |ns: u64| ns as f64 / 1000.0;
        let n = h.len();
        if n == 0 {
            return LatencySummary {
                count: 0,
                mean_us: 0.0,
                p50_us: 0.0,
                p99_us: 0.0,
                p999_us: 0.0,
                p9999_us: 0.0,
                max_us: 0.0,
            };
        }
        let q = |x: f64| us(h.value_at_quantile(x).min(self.max));
        LatencySummary {
            count: n,
            mean_us: self.sum as f64 / n as f64 / 1000.0,
            p50_us: q(0.5),
            p99_us: q(0.99),
            p999_us: q(0.999),
            p9999_us: q(0.9999),
            max_us: us(self.max),
        }
    }
}
