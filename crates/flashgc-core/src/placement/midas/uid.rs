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
//!
//! Which intervals are counted ([`UidBuilder::count_all_intervals`], MiDAS's `uid_counts`):
//! the paper counts the intervals of the sampled LPNs only. Under a skewed workload that
//! estimator's variance is dominated by whether the few hottest LPNs are among the sampled
//! ones (under zipf 1.0 the hottest LPN alone takes 1 / H_N ~ 6 % of all writes; sampled
//! 1 in `s`, it weighs `s` times that or nothing). flashgc's MiDAS keeps every LPN's last write
//! time anyway (for the hot filter), so by default (`uid_counts=all`) the interval count
//! table counts every user write's interval, and the sample only supplies, per interval
//! bin, the conditional distribution of the HOT classifier statistic (the joint table).

/// Default LPN sampling rate of the timestamp table (papers/midas.txt, Sec. 5.1: 0.01).
pub const DEFAULT_SAMPLE: u32 = 100;

/// Log-spaced bins per octave of the HOT classifier statistic (see [`HotModel::Joint`]).
const M_PER_OCTAVE: f64 = 4.0;

/// How MCAM models which writes HOT admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HotModel {
    /// The paper's approximation (Sec. 4.4): HOT admits exactly the writes whose own update
    /// interval is below the threshold, and all of them die in HOT.
    Paper,
    /// flashgc's refinement: HOT admits a write when the LPN's last `hot_hits` intervals were
    /// all below the threshold (what the hot filter does); the UID keeps the joint
    /// distribution of that statistic and the write's own interval, so MCAM knows how many
    /// admitted pages survive HOT. The two agree when intervals are perfectly predictable;
    /// for memoryless (uniform) writes the paper's approximation credits HOT with a
    /// separation that does not exist.
    Joint,
}

/// Builds a [`Uid`] from the user write stream (the sampled timestamp table plus the
/// interval count table of one epoch).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct UidBuilder {
    unit: u64,
    sample: u64,
    bins: usize,
    mbins: usize,
    hits: usize,
    /// `counts[k * (bins + 1) + j]`: intervals in I-bin `j` (`j = bins`: longer) of versions
    /// whose classifier statistic fell in m-bin `k` (`k = mbins`: fewer than `hits` intervals).
    #[serde(with = "crate::checkpoint::raw")]
    counts: Vec<u64>,
    /// Last write time (1-based user-write clock) of sampled LPN `i * sample`; 0 = not live.
    #[serde(with = "crate::checkpoint::raw")]
    ts: Vec<u64>,
    /// The last `hits - 1` intervals of each sampled LPN (0 = none) and its current m-bin.
    #[serde(with = "crate::checkpoint::raw")]
    prev: Vec<[u64; 2]>,
    #[serde(with = "crate::checkpoint::raw")]
    mbin: Vec<u8>,
    /// Interval counts of every user write (fed by [`UidBuilder::on_interval`]) when
    /// [`UidBuilder::count_all_intervals`] is on; empty otherwise.
    #[serde(with = "crate::checkpoint::raw")]
    all: Vec<u64>,
}

fn m_edges(unit: f64, x_b: f64) -> Vec<f64> {
    // e_0 = 0, e_k = unit * 2^((k-1)/4): bin k = [e_k, e_k+1); the last edge reaches x_b.
    let mut e = vec![0.0, unit];
    while *e.last().expect("nonempty") < x_b {
        let k = e.len() as f64 - 1.0;
        e.push(unit * libm::exp2(k / M_PER_OCTAVE));
    }
    e
}

impl UidBuilder {
    /// A builder for `logical_pages` LPNs, intervals counted in units of `unit` page writes up
    /// to `max_interval` (rounded up to whole units), one LPN in `sample` tracked, HOT
    /// admission after `hot_hits` (1..=3) short intervals.
    pub fn new(
        logical_pages: u64,
        unit: u64,
        sample: u32,
        max_interval: u64,
        hot_hits: u8,
    ) -> UidBuilder {
        let unit = unit.max(1);
        let sample = sample.max(1) as u64;
        let bins = max_interval.div_ceil(unit).max(1) as usize;
        let mbins = m_edges(unit as f64, (bins as u64 * unit) as f64).len() - 1;
        let n = logical_pages.div_ceil(sample) as usize;
        UidBuilder {
            unit,
            sample,
            bins,
            mbins,
            hits: hot_hits.clamp(1, 3) as usize,
            // Written out (not calloc'ed): each epoch end clears it, touching every page,
            // so the memory is resident from the start and the estimate holds for short
            // runs too.
            counts: crate::mem::big_vec((mbins + 1) * (bins + 1), 0),
            ts: vec![0; n],
            prev: vec![[0; 2]; n],
            mbin: vec![mbins as u8; n],
            all: Vec::new(),
        }
    }

    /// Checks a restored builder (user-write clock `clock`, `logical` pages): table sizes
    /// match its own bins and sampling, and no write time lies after the clock (the next
    /// write subtracts it).
    pub(crate) fn check_restored(&self, clock: u64, logical: u64) -> Result<(), String> {
        let n = logical.div_ceil(self.sample.max(1)) as usize;
        let shape = self.unit >= 1
            && self.sample >= 1
            && self.counts.len() == (self.mbins + 1) * (self.bins + 1)
            && self.ts.len() == n
            && self.prev.len() == n
            && self.mbin.len() == n
            && self.mbin.iter().all(|&k| k as usize <= self.mbins)
            && (1..=3).contains(&self.hits)
            && (self.all.is_empty() || self.all.len() == self.bins + 1);
        if !shape {
            return Err("UID table sizes".into());
        }
        if self.ts.iter().any(|&t| t > clock) || self.prev.iter().flatten().any(|&iv| iv > clock) {
            return Err(format!(
                "a UID write time or interval after the clock {clock}"
            ));
        }
        Ok(())
    }

    /// Counts the interval of every user write (fed by the caller through
    /// [`UidBuilder::on_interval`]) instead of only the sampled LPNs' (module docs).
    pub fn count_all_intervals(mut self) -> UidBuilder {
        self.all = vec![0; self.bins + 1];
        self
    }

    /// The update interval `iv` (user page writes) of any user write, when counting all
    /// intervals; ignored otherwise.
    #[inline]
    pub fn on_interval(&mut self, iv: u64) {
        if !self.all.is_empty() {
            let j = (iv / self.unit).min(self.bins as u64) as usize;
            self.all[j] += 1;
        }
    }

    #[inline]
    fn m_bin(&self, m: u64) -> u8 {
        if m < self.unit {
            return 0;
        }
        let k = 1 + libm::floor(M_PER_OCTAVE * libm::log2(m as f64 / self.unit as f64)) as usize;
        k.min(self.mbins) as u8
    }

    /// A user write of `lpn` at user-write clock `now` (>= 1).
    #[inline]
    pub fn on_write(&mut self, lpn: u64, now: u64) {
        // LPNs and the sampling step fit 32 bits: a 32-bit remainder is the cheaper one, and
        // this test runs for every user write.
        let skip = match (u32::try_from(lpn), u32::try_from(self.sample)) {
            (Ok(l), Ok(s)) => l % s != 0,
            _ => lpn % self.sample != 0,
        };
        if skip {
            return;
        }
        let i = (lpn / self.sample) as usize;
        let last = self.ts[i];
        if last != 0 {
            let iv = now - last;
            let j = (iv / self.unit).min(self.bins as u64) as usize;
            self.counts[self.mbin[i] as usize * (self.bins + 1) + j] += 1;
            // The new version is admitted iff its LPN's last `hits` intervals are all short.
            let p = self.prev[i];
            let m = match self.hits {
                1 => Some(iv),
                2 => (p[0] != 0).then(|| iv.max(p[0])),
                _ => (p[0] != 0 && p[1] != 0).then(|| iv.max(p[0]).max(p[1])),
            };
            self.mbin[i] = m.map_or(self.mbins as u8, |m| self.m_bin(m));
            self.prev[i] = [iv.max(1), p[0]];
        } else {
            self.mbin[i] = self.mbins as u8;
            self.prev[i] = [0, 0];
        }
        self.ts[i] = now.max(1);
    }

    /// A TRIM of `lpn` at user-write clock `now`: its version dies without an overwrite.
    /// With `count` its life (write to trim) is an interval, as MiDAS's simulator counts it
    /// (model.cpp, `REMOVE`): MCAM needs when versions die, however they die.
    #[inline]
    pub fn on_trim(&mut self, lpn: u64, now: u64, count: bool) {
        if lpn % self.sample != 0 {
            return;
        }
        let i = (lpn / self.sample) as usize;
        let last = self.ts[i];
        if count && last != 0 {
            let j = (now.saturating_sub(last) / self.unit).min(self.bins as u64) as usize;
            self.counts[self.mbin[i] as usize * (self.bins + 1) + j] += 1;
        }
        self.ts[i] = 0;
    }

    /// Intervals counted so far in this epoch (every write's when counting all intervals).
    pub fn samples(&self) -> u64 {
        if self.all.is_empty() {
            self.counts.iter().sum()
        } else {
            self.all.iter().sum()
        }
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
        let w = self.bins + 1;
        let mut marginal = vec![0u64; w];
        for row in self.counts.chunks(w) {
            for (m, c) in marginal.iter_mut().zip(row) {
                *m += c;
            }
        }
        let all = !self.all.is_empty();
        let full = if all {
            self.all.clone()
        } else {
            marginal.clone()
        };
        let mut uid = Uid::from_counts(self.unit as f64, &full, live_pages as f64, n_live, old);
        // Weight of a sampled count per interval bin: the full count over the sampled one
        // (1 without full counts). A bin with no sampled interval has no known classifier
        // statistic: its writes are taken as not admitted.
        let wgt: Vec<f64> = (0..w)
            .map(|j| match (all, marginal[j]) {
                (false, _) => 1.0,
                (true, 0) => 0.0,
                (true, m) => full[j] as f64 / m as f64,
            })
            .collect();
        self.all.iter_mut().for_each(|c| *c = 0);
        if marginal[..self.bins].iter().all(|&c| c == 0) {
            // No interval completed inside the window: nothing to learn about HOT.
            self.counts.iter_mut().for_each(|c| *c = 0);
            uid.joint = Joint::None;
            uid.hot_model = HotModel::Paper;
            return uid;
        }
        // Joint table: c[k][j] = P(m-bin < k, I-bin >= j), k = 0..=mbins.
        let k_scale = uid.scale;
        let mut c = vec![0.0; (self.mbins + 1) * w];
        for k in 0..self.mbins {
            let row = &self.counts[k * w..(k + 1) * w];
            let mut suffix = 0.0;
            let mut cur = vec![0.0; w];
            for j in (0..w).rev() {
                suffix += row[j] as f64 * wgt[j] / k_scale;
                cur[j] = suffix;
            }
            for j in 0..w {
                c[(k + 1) * w + j] = c[k * w + j] + cur[j];
            }
        }
        uid.joint = Joint::Table {
            edges: m_edges(self.unit as f64, x_b as f64),
            c,
        };
        uid.hot_model = HotModel::Joint;
        self.counts.iter_mut().for_each(|c| *c = 0);
        uid
    }

    /// Bytes [`UidBuilder::finish`] allocates for the UID it builds at every epoch end
    /// and frees afterwards: the joint table (as large as the count table) and a few
    /// per-bin vectors. Part of the scheme's peak, so part of its memory figure.
    pub fn finish_working_bytes(&self) -> u64 {
        ((self.counts.len() + (self.bins + 1) * 6 + self.all.len()) * 8) as u64
    }

    /// Bytes of memory: the sampled timestamp table (with the last intervals) and the
    /// interval count table.
    pub fn memory_bytes(&self) -> u64 {
        (self.ts.len() * (8 + 16 + 1) + (self.counts.len() + self.all.len()) * 8) as u64
    }
}

/// A UID split at a HOT threshold: `P(I >= x, admitted)` and `P(I >= x, not admitted)`
/// tabulated at bin edges (piecewise linear between them, exponential tail beyond `x_b`).
#[derive(Debug, Clone)]
pub struct Split {
    unit: f64,
    x_b: f64,
    tail_mean: f64,
    hot: Vec<f64>,
    cold: Vec<f64>,
    hot_int: Vec<f64>,
    cold_int: Vec<f64>,
}

impl Split {
    /// `P(I >= x, admitted == hot)`.
    #[inline]
    pub fn mass(&self, hot: bool, x: f64) -> f64 {
        let v = if hot { &self.hot } else { &self.cold };
        if x <= 0.0 {
            return v[0];
        }
        if x < self.x_b {
            let f = x / self.unit;
            let j = (f as usize).min(v.len() - 2);
            let fr = f - j as f64;
            return v[j] - (v[j] - v[j + 1]) * fr;
        }
        v[v.len() - 1] * libm::exp(-(x - self.x_b) / self.tail_mean)
    }

    /// Integral of `mass(hot, x)` over `[a, x_b]` (exact for the piecewise linear body).
    fn integral_to_end(&self, hot: bool, a: f64) -> f64 {
        let (v, acc) = if hot {
            (&self.hot, &self.hot_int)
        } else {
            (&self.cold, &self.cold_int)
        };
        if a >= self.x_b {
            return 0.0;
        }
        let a = a.max(0.0);
        let f = a / self.unit;
        let j = (f as usize).min(v.len() - 2);
        let xj = j as f64 * self.unit;
        // Integral from x_j to a of the linear piece, subtracted from the prefix at x_j.
        let ma = self.mass(hot, a);
        let part = 0.5 * (v[j] + ma) * (a - xj);
        acc[acc.len() - 1] - acc[j] - part
    }

    /// `sum_{m >= 0} mass(hot, a + m w)` for `w > 0`: page writes per page entering a FIFO
    /// group of cycle `w` at age `a` (times its mass). Many short cycles use the integral.
    pub fn cycle_sum(&self, hot: bool, a: f64, w: f64) -> f64 {
        let mut sum = 0.0;
        let mut x = a;
        if x < self.x_b {
            let terms = (self.x_b - x) / w;
            if terms > 512.0 {
                // Euler-Maclaurin: sum ~ integral / w + (f(a) - f(end)) / 2.
                sum += self.integral_to_end(hot, x) / w
                    + 0.5 * (self.mass(hot, x) - self.mass(hot, self.x_b));
                x += libm::ceil(terms) * w;
            } else {
                while x < self.x_b {
                    sum += self.mass(hot, x);
                    x += w;
                }
            }
        }
        let q = libm::exp(-w / self.tail_mean);
        if q < 1.0 {
            sum += self.mass(hot, x) / (1.0 - q);
        }
        sum
    }
}

/// The joint distribution of the HOT classifier statistic and the interval.
#[derive(Debug, Clone, PartialEq)]
enum Joint {
    /// Not known: MCAM uses the paper's approximation.
    None,
    /// From counts: m-bin edges and `c[k * (bins + 1) + j] = P(m-bin < k, I >= j * unit)`.
    Table { edges: Vec<f64>, c: Vec<f64> },
    /// Exponential classes `(write share, mean)`, `hits` i.i.d. previous intervals per class.
    Classes { classes: Vec<(f64, f64)>, hits: i32 },
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
    /// How MCAM models HOT admission with this UID.
    pub hot_model: HotModel,
    #[serde(skip)]
    joint: Joint,
    #[serde(skip)]
    scale: f64,
    /// MCAM models the last group as greedy victims see it (`gn_model=greedy`; set by
    /// [`Uid::set_aside`]).
    #[serde(skip)]
    pub greedy_last: bool,
}

impl Uid {
    /// Builds a UID from interval counts (`counts[bins]` = intervals >= `bins * unit`), the
    /// number of live LPNs, and the live sampled LPNs (`n_live`, of which `old` are older than
    /// `bins * unit`). See the module docs for the estimator.
    pub fn from_counts(unit: f64, counts: &[u64], live_pages: f64, n_live: u64, old: u64) -> Uid {
        let bins = counts.len().saturating_sub(1).max(1);
        let x_b = bins as f64 * unit;
        let body: f64 = counts[..bins.min(counts.len())]
            .iter()
            .map(|&c| c as f64)
            .sum();
        let overflow = counts.get(bins).copied().unwrap_or(0) as f64;
        let samples: u64 = counts.iter().sum();
        let u = live_pages.max(1.0);
        if body == 0.0 {
            // Nothing rewritten within the window: every live page is older than the body.
            let mut e = Uid::exponential(unit, bins, u);
            e.samples = samples;
            return e;
        }
        let m1: f64 = counts[..bins]
            .iter()
            .enumerate()
            .map(|(j, &c)| c as f64 * (j as f64 + 0.5) * unit)
            .sum();
        let t_int = if n_live > 0 {
            u * old as f64 / n_live as f64
        } else {
            0.0
        };
        let denom = u - t_int - x_b;
        let num = m1 - x_b * body;
        let little = denom < 0.0 && num < 0.0;
        // Scale K: counts per unit of probability. Little's law when it is well posed (never
        // below the observed counts), else the observed overflow share.
        let k = if little {
            (num / denom).max(body + overflow)
        } else {
            body + overflow
        };
        let mut tail_mass = (1.0 - body / k).clamp(0.0, 1.0);
        let mut k = k;
        if little && t_int > 0.0 && num / denom < body + overflow {
            // Completed intervals longer on average than Little's law allows (a looped
            // trace's window holding a loop's start) clamp K to the counts, which left the
            // tail no mass and dropped the live pages older than the window (T; half the
            // device on a looped YCSB recording). A tail of one count's share carries T.
            let floor = 1.0 / (body + overflow + 1.0);
            if tail_mass < floor {
                tail_mass = floor;
                k = body / (1.0 - floor);
            }
        }
        let mut cum = vec![0.0; bins + 1];
        cum[bins] = tail_mass;
        for j in (0..bins).rev() {
            cum[j] = cum[j + 1] + counts[j] as f64 / k;
        }
        let body_int: f64 = (0..bins).map(|j| 0.5 * (cum[j] + cum[j + 1]) * unit).sum();
        let tail_mean = if tail_mass > 0.0 {
            let t = if little {
                t_int
            } else {
                (u - body_int).max(0.0)
            };
            (t / tail_mass).max(unit)
        } else {
            unit
        };
        let mean = body_int + tail_mass * tail_mean;
        Uid {
            unit,
            x_b,
            cum,
            tail_mass,
            tail_mean,
            mean,
            samples,
            hot_model: HotModel::Paper,
            joint: Joint::None,
            scale: k,
            greedy_last: false,
        }
    }

    /// An analytic UID from a survival function `s` sampled at `bins + 1` bin edges of width
    /// `unit`, with an exponential tail of mean residual `tail_mean` beyond the last edge.
    pub fn from_survival(unit: f64, bins: usize, tail_mean: f64, s: impl Fn(f64) -> f64) -> Uid {
        let bins = bins.max(1);
        let mut cum: Vec<f64> = (0..=bins)
            .map(|j| s(j as f64 * unit).clamp(0.0, 1.0))
            .collect();
        cum[0] = 1.0;
        for j in 1..=bins {
            cum[j] = cum[j].min(cum[j - 1]);
        }
        let tail_mass = cum[bins];
        let body_int: f64 = (0..bins).map(|j| 0.5 * (cum[j] + cum[j + 1]) * unit).sum();
        let tail_mean = tail_mean.max(unit);
        Uid {
            unit,
            x_b: bins as f64 * unit,
            cum,
            tail_mass,
            tail_mean,
            mean: body_int + tail_mass * tail_mean,
            samples: 0,
            hot_model: HotModel::Paper,
            joint: Joint::None,
            scale: 1.0,
            greedy_last: false,
        }
    }

    /// Exponential update intervals with mean `mean` (uniform random writes over `mean` LPNs).
    pub fn exponential(unit: f64, bins: usize, mean: f64) -> Uid {
        Uid::mixture(unit, bins, &[(1.0, mean)])
    }

    /// A mixture of exponential update intervals: `(write share, mean interval)` per class
    /// (e.g. hot/cold: `[(r, f N / r), (1 - r, (1 - f) N / (1 - r))]`). Each class's
    /// intervals are i.i.d., so the joint HOT model is known exactly (3 previous intervals).
    pub fn mixture(unit: f64, bins: usize, classes: &[(f64, f64)]) -> Uid {
        let total: f64 = classes.iter().map(|c| c.0).sum();
        let classes: Vec<(f64, f64)> = classes.iter().map(|&(w, m)| (w / total, m)).collect();
        let s = |x: f64| {
            classes
                .iter()
                .map(|&(w, m)| w * libm::exp(-x / m))
                .sum::<f64>()
        };
        let x_b = bins.max(1) as f64 * unit;
        // Mean residual of the mixture beyond x_b.
        let tail_int: f64 = classes
            .iter()
            .map(|&(w, m)| w * m * libm::exp(-x_b / m))
            .sum();
        let sb = s(x_b);
        let tail_mean = if sb > 0.0 { tail_int / sb } else { unit };
        let mut u = Uid::from_survival(unit, bins, tail_mean, s);
        u.joint = Joint::Classes { classes, hits: 3 };
        u.hot_model = HotModel::Joint;
        u
    }

    /// The UID for MiDAS's `gn_model=greedy` (it marks MCAM's last group greedy): `pages`
    /// never-invalidated live pages, all older than the window, leave the tail's integral
    /// `T`; the body and Little's law's scale (`U - T`) are unchanged. At most all of `T`.
    pub fn set_aside(mut self, pages: f64) -> Uid {
        self.greedy_last = true;
        if self.tail_mass > 0.0 && pages > 0.0 {
            let t = self.tail_mass * self.tail_mean;
            let kept = (t - pages).max(0.0);
            let tail_mean = (kept / self.tail_mass).max(self.unit);
            self.mean += self.tail_mass * (tail_mean - self.tail_mean);
            self.tail_mean = tail_mean;
        }
        self
    }

    /// Selects how MCAM models HOT admission ([`HotModel::Joint`] needs the joint table,
    /// which UIDs built by [`UidBuilder`] and [`Uid::mixture`] have).
    pub fn with_hot_model(mut self, m: HotModel) -> Uid {
        self.hot_model = if self.joint == Joint::None {
            HotModel::Paper
        } else {
            m
        };
        self
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

    /// `P(update interval < x)`.
    #[inline]
    pub fn below(&self, x: f64) -> f64 {
        1.0 - self.survival(x)
    }

    /// `P(interval >= x and the write is admitted to HOT with threshold t)`.
    pub fn hot_mass(&self, x: f64, t: f64) -> f64 {
        if t <= 0.0 {
            return 0.0;
        }
        match (&self.joint, self.hot_model) {
            (_, HotModel::Paper) | (Joint::None, _) => {
                if x < t {
                    (self.survival(x) - self.survival(t)).max(0.0)
                } else {
                    0.0
                }
            }
            (Joint::Classes { classes, hits }, HotModel::Joint) => classes
                .iter()
                .map(|&(w, m)| {
                    w * libm::pow(1.0 - libm::exp(-t / m), *hits as f64)
                        * libm::exp(-x.max(0.0) / m)
                })
                .sum(),
            (Joint::Table { edges, c }, HotModel::Joint) => {
                let w = self.cum.len();
                let mb = edges.len() - 1;
                // Position of t among the m-bins: whole bins below k, a share `frac` of bin k.
                let k = edges.partition_point(|&e| e <= t).saturating_sub(1).min(mb);
                let frac = if k < mb {
                    ((t - edges[k]) / (edges[k + 1] - edges[k])).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let row = |k: usize| -> f64 {
                    let r = &c[k * w..(k + 1) * w];
                    if x <= 0.0 {
                        r[0]
                    } else if x < self.x_b {
                        let f = x / self.unit;
                        let j = (f as usize).min(w - 2);
                        let fr = f - j as f64;
                        r[j] - (r[j] - r[j + 1]) * fr
                    } else {
                        r[w - 1] * libm::exp(-(x - self.x_b) / self.tail_mean)
                    }
                };
                let lo = row(k);
                if frac > 0.0 {
                    lo + frac * (row(k + 1) - lo)
                } else {
                    lo
                }
            }
        }
    }

    /// The UID split at HOT threshold `t` into the admitted and the other writes, tabulated
    /// at the bin edges so that MCAM's many evaluations are O(1) each.
    pub fn split(&self, t: f64) -> Split {
        let w = self.cum.len();
        let hot: Vec<f64> = match (&self.joint, self.hot_model) {
            _ if t <= 0.0 => vec![0.0; w],
            (Joint::Table { edges, c }, HotModel::Joint) => {
                let mb = edges.len() - 1;
                let k = edges.partition_point(|&e| e <= t).saturating_sub(1).min(mb);
                let frac = if k < mb {
                    ((t - edges[k]) / (edges[k + 1] - edges[k])).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let lo = &c[k * w..(k + 1) * w];
                if frac > 0.0 {
                    let hi = &c[(k + 1) * w..(k + 2) * w];
                    lo.iter().zip(hi).map(|(a, b)| a + frac * (b - a)).collect()
                } else {
                    lo.to_vec()
                }
            }
            (Joint::Classes { .. }, HotModel::Joint) => (0..w)
                .map(|j| self.hot_mass(j as f64 * self.unit, t))
                .collect(),
            _ => {
                let st = self.survival(t);
                (0..w)
                    .map(|j| {
                        if (j as f64 * self.unit) < t {
                            (self.cum[j] - st).max(0.0)
                        } else {
                            0.0
                        }
                    })
                    .collect()
            }
        };
        let cold: Vec<f64> = self
            .cum
            .iter()
            .zip(&hot)
            .map(|(s, h)| (s - h).max(0.0))
            .collect();
        let prefix = |v: &[f64]| {
            let mut acc = vec![0.0; v.len()];
            for j in 1..v.len() {
                acc[j] = acc[j - 1] + 0.5 * (v[j - 1] + v[j]) * self.unit;
            }
            acc
        };
        Split {
            unit: self.unit,
            x_b: self.x_b,
            tail_mean: self.tail_mean,
            hot_int: prefix(&hot),
            cold_int: prefix(&cold),
            hot,
            cold,
        }
    }

    /// `sum_{m >= 0} f(a + m w)` for `w > 0` and a survival-like `f` whose tail beyond `x_b`
    /// decays like the UID's (exponential with mean `tail_mean`): the expected number of
    /// FIFO cycles of length `w` a page alive at age `a` is written in.
    pub fn cycle_sum_with(&self, f: impl Fn(f64) -> f64, a: f64, w: f64) -> f64 {
        let mut sum = 0.0;
        let mut x = a;
        if x < self.x_b {
            let terms = (self.x_b - x) / w;
            if terms > 20_000.0 {
                // Euler-Maclaurin: sum ~ integral / w + f(a) / 2 (f is piecewise linear).
                let mut int = 0.0;
                let mut y = x;
                while y < self.x_b {
                    let next = ((libm::floor(y / self.unit) + 1.0) * self.unit).min(self.x_b);
                    int += 0.5 * (f(y) + f(next)) * (next - y);
                    y = next;
                }
                sum += int / w + 0.5 * (f(x) - f(self.x_b));
                x += libm::ceil(terms) * w;
            } else {
                while x < self.x_b {
                    sum += f(x);
                    x += w;
                }
            }
        }
        let q = libm::exp(-w / self.tail_mean);
        if q < 1.0 {
            sum += f(x) / (1.0 - q);
        }
        sum
    }

    /// `sum_{m >= 0} S(a + m w)`.
    pub fn cycle_sum(&self, a: f64, w: f64) -> f64 {
        self.cycle_sum_with(|x| self.survival(x), a, w)
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
#[path = "uid_tests.rs"]
mod tests;
