//! Poisson arrivals: stamps a workload's requests with the times of a Poisson process, so
//! that an untimed synthetic workload replays open loop with random idle gaps (the timed
//! driver's `Host::OpenLoop` then serves them at those times). `flashgc dedup` uses it:
//! SplitGC's read scrub and deferred migration need idle periods of random length.

use super::{Request, Rng, Workload};
use crate::error::{Error, Result};

/// A workload whose requests arrive as a Poisson process of `rate` requests per second.
pub struct PoissonArrivals {
    inner: Box<dyn Workload>,
    rate: f64,
    rng: Rng,
    clock: u64,
}

impl PoissonArrivals {
    /// Wraps `inner`; arrivals at `rate` requests/s (exponential gaps), seeded by `seed`.
    pub fn new(inner: Box<dyn Workload>, rate: f64, seed: u64) -> Result<PoissonArrivals> {
        // At least one request per second, as every rate: slower arrivals would
        // saturate (or wrap) the ns clock in a long run.
        if !(rate.is_finite() && rate >= 1.0) {
            return Err(Error::config(
                "--rate",
                format!("{rate}: must be a number of requests/s >= 1"),
            ));
        }
        Ok(PoissonArrivals {
            inner,
            rate,
            rng: Rng::new(seed),
            clock: 0,
        })
    }
}

impl Workload for PoissonArrivals {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()> {
        let from = buf.len();
        self.inner.fill(buf, max)?;
        for r in &mut buf[from..] {
            let u = self.rng.unit();
            self.clock += (-libm::log(1.0 - u) / self.rate * 1e9) as u64;
            r.time_ns = self.clock;
        }
        Ok(())
    }
    fn describe(&self) -> String {
        format!(
            "{}, Poisson arrivals at {} requests/s",
            self.inner.describe(),
            self.rate
        )
    }
    fn is_infinite(&self) -> bool {
        self.inner.is_infinite()
    }
    fn may_flush(&self) -> bool {
        self.inner.may_flush()
    }
    fn save_position(&self) -> Option<Vec<u8>> {
        let inner = self.inner.save_position()?;
        crate::checkpoint::encode(&(inner, &self.rng, self.clock)).ok()
    }
    fn load_position(&mut self, state: &[u8]) -> Result<()> {
        let (inner, rng, clock): (Vec<u8>, Rng, u64) = crate::checkpoint::decode(state)?;
        self.inner.load_position(&inner)?;
        self.rng = rng;
        self.clock = clock;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Synthetic, SyntheticKind};

    #[test]
    fn mean_gap_is_one_over_the_rate_and_times_increase() {
        let wl = Synthetic::new(SyntheticKind::Uniform, 1000, 1, 0.0, 1);
        let mut p = PoissonArrivals::new(Box::new(wl), 250.0, 7).unwrap();
        let mut buf = Vec::new();
        p.fill(&mut buf, 20_000).unwrap();
        assert!(buf.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
        let mean_s = buf.last().unwrap().time_ns as f64 / 1e9 / buf.len() as f64;
        assert!((mean_s - 0.004).abs() < 0.0002, "mean gap {mean_s}");
    }
}
