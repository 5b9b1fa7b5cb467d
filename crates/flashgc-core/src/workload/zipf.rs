//! Exact Zipf sampling by rejection-inversion (Hörmann & Derflinger 1996), valid for every
//! theta > 0 including 1. P(rank k) is proportional to k^-theta for k in 1..=n.
//! All transcendental functions come from `libm` (pure Rust), so samples are identical on
//! every platform.

use super::Rng;

/// Zipf(n, theta) sampler over ranks 1..=n.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Zipf {
    n: f64,
    s: f64,
    t: f64,
    q: f64,
}

impl Zipf {
    /// A sampler over `n >= 1` ranks with exponent `theta > 0`.
    pub fn new(n: u64, theta: f64) -> Zipf {
        let n = n.max(1) as f64;
        let s = theta;
        let q = if s != 1.0 { 1.0 / (1.0 - s) } else { 0.0 };
        let t = if s != 1.0 {
            (libm::pow(n, 1.0 - s) - s) * q
        } else {
            1.0 + libm::log(n)
        };
        Zipf { n, s, t, q }
    }

    #[inline]
    fn inv_cdf(&self, p: f64) -> f64 {
        let pt = p * self.t;
        if pt <= 1.0 {
            pt
        } else if self.s != 1.0 {
            libm::pow(pt * (1.0 - self.s) + self.s, self.q)
        } else {
            libm::exp(pt - 1.0)
        }
    }

    /// A rank in 1..=n.
    #[inline]
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        loop {
            let inv_b = self.inv_cdf(rng.unit());
            let x = libm::floor(inv_b + 1.0).min(self.n);
            let mut ratio = libm::pow(x, -self.s);
            if x > 1.0 {
                ratio *= libm::pow(inv_b, self.s);
            }
            if rng.unit() < ratio {
                return x as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequencies_follow_power_law() {
        for &theta in &[0.8, 1.0, 1.2] {
            let n = 1000u64;
            let z = Zipf::new(n, theta);
            let mut rng = Rng::new(7);
            let mut counts = vec![0u64; n as usize + 1];
            let draws = 400_000;
            for _ in 0..draws {
                counts[z.sample(&mut rng) as usize] += 1;
            }
            let h: f64 = (1..=n).map(|k| (k as f64).powf(-theta)).sum();
            for k in [1usize, 2, 5, 10] {
                let expect = draws as f64 * (k as f64).powf(-theta) / h;
                let got = counts[k] as f64;
                assert!(
                    (got - expect).abs() < 0.03 * expect + 50.0,
                    "theta {theta} rank {k}: {got} vs {expect}"
                );
            }
        }
    }
}
