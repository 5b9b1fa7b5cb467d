//! Latency recording: an HDR histogram (every percentile within 0.1 %) plus the exact
//! count, sum and maximum, and its summary in the result record.

use hdrhistogram::Histogram;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Latency distribution summary, microseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

impl Latencies {
    /// The histogram's non-empty buckets: (highest value of the bucket in ns, count), in
    /// increasing order. Recording them again rebuilds the same histogram.
    pub fn buckets(&self) -> Vec<(u64, u64)> {
        self.hist
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect()
    }
}

/// Bins per decade of [`Latencies::log_histogram`].
pub const HISTOGRAM_BINS_PER_DECADE: u32 = 20;

impl Latencies {
    /// The distribution as log-spaced bins: `[upper edge us, count]` for every non-empty
    /// bin, [`HISTOGRAM_BINS_PER_DECADE`] bins per decade from 1 ns (edges 10^(k/20) ns).
    /// Counts are exact; a sample lands in the bin of its HDR bucket (values within 0.1 %).
    pub fn log_histogram(&self) -> Vec<[f64; 2]> {
        let per = HISTOGRAM_BINS_PER_DECADE as f64;
        let mut out: Vec<[f64; 2]> = Vec::new();
        let mut cur: Option<(i64, u64)> = None;
        for (v, n) in self.buckets() {
            let v = v.min(self.max).max(1);
            let k = ((v as f64).log10() * per).ceil() as i64;
            match &mut cur {
                Some((ck, c)) if *ck == k => *c += n,
                _ => {
                    if let Some((ck, c)) = cur.take() {
                        out.push([10f64.powf(ck as f64 / per) / 1000.0, c as f64]);
                    }
                    cur = Some((k, n));
                }
            }
        }
        if let Some((ck, c)) = cur {
            out.push([10f64.powf(ck as f64 / per) / 1000.0, c as f64]);
        }
        out
    }
}

/// Serialized form of [`Latencies`] (checkpoints): exact sum and maximum, and the buckets.
#[derive(Serialize, Deserialize)]
struct LatenciesState {
    sum: u128,
    max: u64,
    buckets: Vec<(u64, u64)>,
}

impl Serialize for Latencies {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        LatenciesState {
            sum: self.sum,
            max: self.max,
            buckets: self.buckets(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Latencies {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Latencies, D::Error> {
        let st = LatenciesState::deserialize(d)?;
        let mut l = Latencies {
            sum: st.sum,
            max: st.max,
            ..Latencies::default()
        };
        // Far below u64::MAX in all: merged histograms (reads + writes) add their counts.
        let total = st
            .buckets
            .iter()
            .try_fold(0u64, |a, &(_, n)| a.checked_add(n))
            .filter(|&t| t <= 1 << 62);
        if total.is_none() {
            return Err(serde::de::Error::custom(
                "latency histogram: sample counts overflow",
            ));
        }
        for (v, n) in st.buckets {
            l.hist
                .record_n(v, n)
                .map_err(|e| serde::de::Error::custom(format!("latency histogram: {e:?}")))?;
        }
        Ok(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_histogram_counts_every_sample_in_its_bin() {
        let mut l = Latencies::default();
        let samples = [
            900u64, 1_000, 1_001, 25_000, 25_100, 3_000_000, 3_000_000, 7,
        ];
        for &s in &samples {
            l.record(s);
        }
        let h = l.log_histogram();
        let total: f64 = h.iter().map(|b| b[1]).sum();
        assert_eq!(total, samples.len() as f64);
        assert!(h.windows(2).all(|w| w[0][0] < w[1][0]), "edges increase");
        let ratio = 10f64.powf(1.0 / HISTOGRAM_BINS_PER_DECADE as f64);
        for &s in &samples {
            let us = s as f64 / 1000.0;
            // The sample's bin: the first edge at or above it (HDR: within 0.1 %).
            let b = h.iter().find(|b| b[0] * 1.001 >= us).unwrap();
            assert!(
                b[0] / ratio <= us * 1.001,
                "{s} ns in bin up to {} us",
                b[0]
            );
        }
        // Round trip through a checkpoint keeps the histogram.
        let back: Latencies =
            crate::checkpoint::decode(&crate::checkpoint::encode(&l).unwrap()).unwrap();
        assert_eq!(back.summary(), l.summary());
        assert_eq!(back.log_histogram(), h);
    }
}
