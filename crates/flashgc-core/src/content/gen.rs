//! Synthetic page content: a 64-bit content identity per written page.
//!
//! With probability `dup_ratio` a written page takes one of `pool` popular contents, chosen
//! by a Zipf(`theta`) popularity over the pool; otherwise it takes a fresh value never used
//! before. A pool content written k times contributes k - 1 duplicates, so the measured
//! duplicate share of live pages (reported by the simulator) is close to `dup_ratio` once the
//! pool is small next to the number of writes. Seeded: the same seed gives the same stream.

use crate::error::{Error, Result};
use crate::workload::{Rng, Zipf};

/// SplitMix64 finaliser: spreads counters over 64 bits (never returns 0 for our inputs
/// because callers map 0 to 1).
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Parameters of the synthetic content (the `[content]` section of a configuration).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ContentParams {
    /// Fraction of written pages whose content is drawn from the shared pool (0..=1).
    pub dup_ratio: f64,
    /// Number of distinct popular contents in the pool.
    pub pool: u64,
    /// Zipf exponent of the popularity over the pool.
    pub theta: f64,
}

impl Default for ContentParams {
    fn default() -> Self {
        ContentParams {
            dup_ratio: 0.3,
            pool: 1024,
            theta: 1.0,
        }
    }
}

impl ContentParams {
    /// Checks the ranges; errors name the configuration field.
    pub fn validate(&self) -> Result<()> {
        if !(self.dup_ratio.is_finite() && (0.0..=1.0).contains(&self.dup_ratio)) {
            return Err(Error::config(
                "content.dup_ratio",
                format!("{} must be in [0, 1]", self.dup_ratio),
            ));
        }
        if self.pool == 0 {
            return Err(Error::config("content.pool", "must be at least 1"));
        }
        if !(self.theta.is_finite() && self.theta > 0.0 && self.theta <= 5.0) {
            return Err(Error::config(
                "content.theta",
                format!("{} must be in (0, 5]", self.theta),
            ));
        }
        Ok(())
    }
}

/// The content generator (its whole state is saved in a checkpoint).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ContentGen {
    p: ContentParams,
    zipf: Zipf,
    rng: Rng,
    unique: u64,
}

impl ContentGen {
    /// A generator seeded with `seed`.
    pub fn new(p: ContentParams, seed: u64) -> ContentGen {
        ContentGen {
            zipf: Zipf::new(p.pool, p.theta),
            rng: Rng::new(seed ^ 0xC0_4E4E_7D00),
            unique: 0,
            p,
        }
    }
    /// Content of the next written page (never 0: 0 means "unknown" in a `Request`).
    #[inline]
    pub fn next_content(&mut self) -> u64 {
        let v = if self.p.dup_ratio > 0.0 && self.rng.unit() < self.p.dup_ratio {
            // Pool contents live in the lower half of the key space, unique ones in the upper.
            mix64(self.zipf.sample(&mut self.rng)) & !(1 << 63)
        } else {
            self.unique += 1;
            mix64(self.unique) | (1 << 63)
        };
        v.max(1)
    }
    /// The parameters.
    pub fn params(&self) -> ContentParams {
        self.p
    }
    /// Whether `other` (restored from a checkpoint) draws from the same model: the same
    /// parameters and the sampler they build. A damaged sampler could make the Zipf
    /// rejection loop never accept.
    pub fn same_model(&self, other: &ContentGen) -> bool {
        self.p == other.p && self.zipf == other.zipf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dup_share_tracks_the_ratio_and_zero_means_all_unique() {
        for &(d, lo, hi) in &[(0.0, 0.0, 0.0), (0.3, 0.27, 0.31), (0.5, 0.46, 0.51)] {
            let mut g = ContentGen::new(
                ContentParams {
                    dup_ratio: d,
                    pool: 100,
                    theta: 1.0,
                },
                7,
            );
            let n = 20_000;
            let mut seen = std::collections::BTreeSet::new();
            let mut dups = 0;
            for _ in 0..n {
                if !seen.insert(g.next_content()) {
                    dups += 1;
                }
            }
            let share = dups as f64 / n as f64;
            assert!(share >= lo && share <= hi, "ratio {d}: share {share}");
        }
    }
}
