//! UID, the update interval distribution (papers/midas.txt, Sec. 4.4 and 5.1).
//!
//! The UID is the distribution of the update interval of a user-written page: the number of
//! user page writes between writing a version of an LPN and overwriting it (its invalidation
//! time). MiDAS builds it from two tables (Sec. 5.1):
//!
//! * a *sampled timestamp table*: the last write time of one LPN in `sample` (paper: 100);
//!   flashgc samples the LPNs with `lpn % sample == 0` (8 bytes each);
//! * an *interval count table*: counts of intervals in coarse units of `unit` page writes
//!   (paper: 16 Ki blocks = one 64 MiB segment), up to `bins * unit` (= the epoch length, so
//!   the table is 256 KiB per TiB as in the paper) plus one overflow count.
//!
//! An interval is counted when it completes (at the overwrite), so intervals longer than the
//! time the table has existed are never seen. flashgc fixes the normalization with Little's
//! law, which the paper leaves open: the mean update interval equals the number of live
//! (mapped) LPNs `U` (each user write creates one version; `U` versions are alive). A
//! snapshot of the sampled table at the end of the epoch gives the share of live versions
//! older than `X_B = bins * unit`, i.e. `T = integral of S(x) over x >= X_B` (the age of a live
//! version has density `S(a) / U`). The body counts fix the shape below `X_B`; the tail mass
//! `P(I >= X_B)` follows from `U = integral of S`, and beyond `X_B` the survival function is
//! extended by an exponential with mean residual `T / P(I >= X_B)`.

/// Default LPN sampling rate of the timestamp table (papers/midas.txt, Sec. 5.1: 0.01).
pub const DEFAULT_SAMPLE: u32 = 100;

/// Builds a [`Uid`] from the user write stream (the sampled timestamp table plus the
/// interval count table of one epoch).
#[derive(Debug, Clone)]
pub struct UidBuilder {
    unit: u64,
    sample: u64,
    bins: usize,
    /// `counts[j]` = intervals in `[j*unit, (j+1)*unit)`; `counts[bins]` = longer ones.
    counts: Vec<u64>,
    /// Last write time (1-based user-write clock) of sampled LPN `i * sample`; 0 = not live.
    ts: Vec<u64>,
}

impl UidBuilder {
    /// A builder for `logical_pages` LPNs, intervals counted in units of `unit` page writes up
    /// to `max_interval` (rounded up to whole units), one LPN in `sample` tracked.
    pub fn new(logical_pages: u64, unit: u64, sample: u32, max_interval: u64) -> UidBuilder {
        let unit = unit.max(1);
        let sample = sample.max(1) as u64;
        let bins = max_interval.div_ceil(unit).max(1) as usize;
        UidBuilder {
            unit,
            sample,
            bins,
            counts: vec![0; bins + 1],
            ts: vec![0; logical_pages.div_ceil(sample) as usize],
        }
    }

    /// A user write of `lpn` at user-write clock `now` (>= 1).
    #[inline]
    pub fn on_write(&mut self, lpn: u64, now: u64) {
        if lpn % self.sample != 0 {
            return;
        }
        let i = (lpn / self.sample) as usize;
        let last = self.ts[i];
        if last != 0 {
            let bin = ((now - last) / self.unit).min(self.bins as u64) as usize;
            self.counts[bin] += 1;
        }
        self.ts[i] = now.max(1);
    }

    /// A TRIM of `lpn`: its version dies without an overwrite (not an update interval).
    #[inline]
    pub fn on_trim(&mut self, lpn: u64) {
        if lpn % self.sample == 0 {
            self.ts[(lpn / self.sample) as usize] = 0;
        }
    }

    /// Intervals counted so far in this epoch.
    pub fn samples(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Builds the UID of the epoch ending at `now` with `live_pages` mapped LPNs, and starts a
    /// new epoch (the interval counts are cleared; the timestamp table is kept).
    pub fn finish(&mut self, now: u64, live_pages: u64) -> Uid {
        let x_b = self.bins as u64 * self.unit;
        let (mut n_live, mut old) = (0u64, 0u64);
        for &t in &self.ts {
            if t != 0 {
                n_live += 1;
                if now.saturating_sub(t) >= x_b {
                    old += 1;
                }
            }
        }
        let uid = Uid::from_counts(self.unit as f64, &self.counts, live_pages as f64, n_live, old);
        self.counts.iter_mut().for_each(|c| *c = 0);
        uid
    }

    /// Bytes of memory: the sampled timestamp table and the interval count table.
    pub fn memory_bytes(&self) -> u64 {
        (self.ts.len() * 8 + self.counts.len() * 8) as u64
    }
}

/// An update interval distribution: the survival function `S(x) = P(interval >= x)` of a
/// user-written page's update interval `x` (in user page writes).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Uid {
    /// Width of a bin, user page writes.
    pub unit: f64,
    /// End of the binned body, `bins * unit`.
    pub x_b: f64,
    /// `cum[j] = S(j * unit)` for `j = 0..=bins` (`cum[bins]` = the tail mass).
    #[serde(skip)]
    cum: Vec<f64>,
    /// `P(interval >= x_b)`.
    pub tail_mass: f64,
    /// Mean residual interval beyond `x_b` (exponential tail).
    pub tail_mean: f64,
    /// Mean update interval (= live pages by Little's law when built from counts).
    pub mean: f64,
    /// Intervals the UID was built from (0 for analytic UIDs).
    pub samples: u64,
}

impl Uid {
    /// Builds a UID from interval counts (`counts[bins]` = intervals >= `bins * unit`), the
    /// number of live LPNs, and the live sampled LPNs (`n_live`, of which `old` are older than
    /// `bins * unit`). See the module docs for the estimator.
    pub fn from_counts(unit: f64, counts: &[u64], live_pages: f64, n_live: u64, old: u64) -> Uid {
        let bins = counts.len().saturating_sub(1).max(1);
        let x_b = bins as f64 * unit;
        let body: f64 = counts[..bins.min(counts.len())].iter().map(|&c| c as f64).sum();
        let overflow = counts.get(bins).copied().unwrap_or(0) as f64;
        let samples: u64 = counts.iter().sum();
        let u = live_pages.max(1.0);
        if body == 0.0 {
            // Nothing rewritten within the window: every live page is older than the body.
            return Uid::exponential(unit, bins, u);
        }
        let m1: f64 = counts[..bins].iter().enumerate().map(|(j, &c)| c as f64 * (j as f64 + 0.5) * unit).sum();
        let t_int = if n_live > 0 { u * old as f64 / n_live as f64 } else { 0.0 };
        let denom = u - t_int - x_b;
        let num = m1 - x_b * body;
        // Scale K: counts per unit of probability. Little's law when it is well posed, else
        // the observed overflow share.
        let k = if denom < 0.0 && num < 0.0 { (num / denom).max(body) } else { body + overflow };
        let tail_mass = (1.0 - body / k).clamp(0.0, 1.0);
        let mut cum = vec![0.0; bins + 1];
        cum[bins] = tail_mass;
        for j in (0..bins).rev() {
            cum[j] = cum[j + 1] + counts[j] as f64 / k;
        }
        let body_int: f64 = (0..bins).map(|j| 0.5 * (cum[j] + cum[j + 1]) * unit).sum();
        let tail_mean = if tail_mass > 0.0 {
            let t = if denom < 0.0 && num < 0.0 { t_int } else { (u - body_int).max(0.0) };
            (t / tail_mass).max(unit)
        } else {
            unit
        };
        let mut uid = Uid { unit, x_b, cum, tail_mass, tail_mean, mean: 0.0, samples };
        uid.mean = body_int + tail_mass * tail_mean;
        uid
    }

    /// An analytic UID from a survival function `s` sampled at `bins + 1` bin edges of width
    /// `unit`, with an exponential tail of mean residual `tail_mean` beyond the last edge.
    pub fn from_survival(unit: f64, bins: usize, tail_mean: f64, s: impl Fn(f64) -> f64) -> Uid {
        let bins = bins.max(1);
        let mut cum: Vec<f64> = (0..=bins).map(|j| s(j as f64 * unit).clamp(0.0, 1.0)).collect();
        cum[0] = 1.0;
        for j in 1..=bins {
            cum[j] = cum[j].min(cum[j - 1]);
        }
        let tail_mass = cum[bins];
        let body_int: f64 = (0..bins).map(|j| 0.5 * (cum[j] + cum[j + 1]) * unit).sum();
        let tail_mean = tail_mean.max(unit);
        Uid { unit, x_b: bins as f64 * unit, cum, tail_mass, tail_mean, mean: body_int + tail_mass * tail_mean, samples: 0 }
    }

    /// Exponential update intervals with mean `mean` (uniform random writes over `mean` LPNs).
    pub fn exponential(unit: f64, bins: usize, mean: f64) -> Uid {
        Uid::mixture(unit, bins, &[(1.0, mean)])
    }

    /// A mixture of exponential update intervals: `(write share, mean interval)` per class
    /// (e.g. hot/cold: `[(r, f N / r), (1 - r, (1 - f) N / (1 - r))]`).
    pub fn mixture(unit: f64, bins: usize, classes: &[(f64, f64)]) -> Uid {
        let total: f64 = classes.iter().map(|c| c.0).sum();
        let s = |x: f64| classes.iter().map(|&(w, m)| w / total * libm::exp(-x / m)).sum::<f64>();
        let x_b = bins.max(1) as f64 * unit;
        // Mean residual of the mixture beyond x_b.
        let tail_int: f64 = classes.iter().map(|&(w, m)| w / total * m * libm::exp(-x_b / m)).sum();
        let sb = s(x_b);
        let tail_mean = if sb > 0.0 { tail_int / sb } else { unit };
        Uid::from_survival(unit, bins, tail_mean, s)
    }

    /// `S(x) = P(update interval >= x)`.
    #[inline]
    pub fn survival(&self, x: f64) -> f64 {
        if x <= 0.0 {
            return 1.0;
        }
        if x < self.x_b {
            let f = x / self.unit;
            let j = (f as usize).min(self.cum.len() - 2);
            let frac = f - j as f64;
            return self.cum[j] - (self.cum[j] - self.cum[j + 1]) * frac;
        }
        self.tail_mass * libm::exp(-(x - self.x_b) / self.tail_mean)
    }

    /// `P(update interval < x)`: the share of user writes a HOT group with threshold `x`
    /// admits in MCAM's approximation (papers/midas.txt, Sec. 4.4, Fig. 9).
    #[inline]
    pub fn below(&self, x: f64) -> f64 {
        1.0 - self.survival(x)
    }

    /// `sum_{m >= 0} S(a + m w)` for `w > 0`: the expected number of FIFO cycles of length
    /// `w` a page alive at age `a` is written in (used for the self-looping last group).
    pub fn cycle_sum(&self, a: f64, w: f64) -> f64 {
        let mut sum = 0.0;
        let mut x = a;
        // Explicit terms inside the binned body (bounded count; else an integral).
        if x < self.x_b {
            let terms = (self.x_b - x) / w;
            if terms > 20_000.0 {
                // Euler-Maclaurin: sum ~ integral / w + S(a) / 2 (S is piecewise linear).
                let int = self.integral(x, self.x_b);
                sum += int / w + 0.5 * (self.survival(x) - self.survival(self.x_b));
                let m = libm::ceil(terms);
                x += m * w;
            } else {
                while x < self.x_b {
                    sum += self.survival(x);
                    x += w;
                }
            }
        }
        // Geometric tail: S(x) = tail_mass * exp(-(x - x_b) / tail_mean).
        let q = libm::exp(-w / self.tail_mean);
        if q < 1.0 {
            sum += self.survival(x) / (1.0 - q);
        }
        sum
    }

    /// `integral of S(x) dx` over `[lo, hi]` with `hi <= x_b` (trapezoids, exact for the body).
    pub fn integral(&self, lo: f64, hi: f64) -> f64 {
        if hi <= lo {
            return 0.0;
        }
        let mut acc = 0.0;
        let mut x = lo;
        while x < hi {
            let next = ((libm::floor(x / self.unit) + 1.0) * self.unit).min(hi);
            acc += 0.5 * (self.survival(x) + self.survival(next)) * (next - x);
            x = next;
        }
        acc
    }

    /// Number of bins of the body.
    pub fn bins(&self) -> usize {
        self.cum.len() - 1
    }

    /// The probability mass function per bin (for output): `pmf[j] = P(j*unit <= I < (j+1)*unit)`,
    /// with the tail mass as the last entry.
    pub fn pmf(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self.cum.windows(2).map(|w| w[0] - w[1]).collect();
        v.push(self.tail_mass);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_recovers_uniform_intervals_and_littles_law() {
        let n = 20_000u64;
        let mut b = UidBuilder::new(n, 256, 10, 4 * n);
        let mut rng = crate::workload::Rng::new(7);
        let mut now = 0;
        for lpn in 0..n {
            now += 1;
            b.on_write(lpn, now);
        }
        for _ in 0..8 * n {
            now += 1;
            b.on_write(rng.below(n), now);
        }
        let uid = b.finish(now, n);
        assert!((uid.mean - n as f64).abs() / (n as f64) < 1e-6, "mean {}", uid.mean);
        for x in [0.1, 0.5, 1.0, 2.0, 3.0] {
            let want = libm::exp(-x);
            let got = uid.survival(x * n as f64);
            assert!((got - want).abs() < 0.02, "S({x} N) = {got}, want {want}");
        }
    }

    #[test]
    fn cycle_sum_matches_geometric_series_for_exponential() {
        let uid = Uid::exponential(100.0, 5000, 10_000.0);
        for w in [500.0, 3000.0, 20_000.0] {
            let want = 1.0 / (1.0 - libm::exp(-w / 10_000.0));
            let got = uid.cycle_sum(0.0, w);
            assert!((got - want).abs() / want < 2e-3, "w {w}: {got} vs {want}");
        }
    }
}
