//! Request streams for fio's `zoned`, `zoned_abs`, `pareto` and `normal` offset
//! distributions ([`Dist::Zoned`], [`Dist::Pareto`], [`Dist::Normal`]) and zipf with a
//! centre ([`Dist::ZipfCentered`]).
//!
//! What follows fio (the distribution), read from fio's source:
//!
//! * `zoned` (io_u.c `__get_next_rand_offset_zoned`, zone-dist.c): v uniform in 1..=100
//!   picks the zone whose cumulative access range holds v; with L blocks in the region and
//!   the zone spanning [s0, s1) percent, the block is `s0 * L / 100 + uniform(0 ..
//!   L * (s1 - s0) / 100)` (integer divisions as fio's).
//! * `zoned_abs` (`__get_next_rand_offset_zoned_abs`): the same with the zone at blocks
//!   `[sum of the previous sizes / bs, (that + its size) / bs)`; sizes past the region
//!   are an error.
//! * `pareto:H` (lib/zipf.c `pareto_init`/`pareto_next`): rank `floor((L - 1) * u^p)`,
//!   p = ln(H) / ln(1 - H), u uniform in [0, 1]: P(rank < x (L - 1)) = x^(1/p), so for
//!   H > 0.5 the hottest (1 - H) of the ranks (the top ones) take H of the accesses, for
//!   H < 0.5 the hottest H (the bottom ones) take 1 - H.
//! * `normal:DEV` (lib/gauss.c `gauss_init`/`gauss_next`): rank = ceil(mean of 12 draws
//!   uniform in 0..=L); with s = min(ceil(L * DEV / 100), L / 2) > 0, plus a jitter
//!   `floor(s * u) - s / 2`, halved (towards 0) while the rank would leave [0, L). So DEV
//!   is the width of a uniform jitter on an Irwin-Hall bell of standard deviation about
//!   L / 12, not a standard deviation.
//!
//! What flashgc chooses (as its `zipf`, workload/synthetic.rs): its own seeded RNG
//! instead of fio's Tausworthe (so fio's exact offsets are not reproduced, their
//! probabilities are); and the scatter of ranks over the region. fio multiplies the
//! rank by the 64-bit golden ratio and adds `rand_off` modulo L for zipf, pareto and
//! normal alike (the bell of `normal` is scattered too), which is not a bijection (ranks
//! collide, pages are never hit); flashgc scatters with the seeded bijection
//! `lpn = (a * rank + b) mod L`, gcd(a, L) = 1, so each page keeps exactly its rank's
//! probability. fio's `rand_off` becomes `b`: seeded at random by default; with a CENTER,
//! `floor(L * CENTER)` for pareto (rank 0 lands there, as in fio) and
//! `floor(L * (CENTER - 0.5)) mod L` for normal (fio's shift); `zipf:THETA:CENTER` puts
//! the hottest rank at `floor(L * CENTER)` (fio's rank 0 there too), its other ranks
//! scattered as plain `zipf:THETA`'s. `normal`'s rank L (all 12
//! draws at L, probability (L + 1)^-12, where fio with DEV > 0 loops for ever) is folded
//! to L - 1.
//!
//! Requests are `bs` long and start on a multiple of `bs` (L = region / bs blocks, as the
//! other synthetic generators); reads are drawn first with `read_ratio`, as
//! [`Synthetic`](crate::workload::Synthetic) does. No allocation per request.

use super::dist::{Dist, ZoneSplit};
use crate::error::{Error, Result};
use crate::workload::synthetic::scatter_multiplier;
use crate::workload::{Request, Rng, Workload, Zipf};

/// fio's `GAUSS_ITERS`.
const GAUSS_ITERS: u64 = 12;

#[derive(Debug, Clone)]
enum Shape {
    /// `pick[v]` (v uniform in 0..100) is the zone; zones are (first block, blocks).
    Zoned {
        pick: Box<[u16; 100]>,
        zones: Vec<(u64, u64)>,
    },
    Pareto {
        power: f64,
    },
    /// `zipf:THETA:CENTER`: flashgc's exact Zipf sampler over ranks 1..=L.
    Zipf(Zipf),
    Normal {
        /// fio's `stddev` (the jitter width, blocks; 0: none).
        width: i64,
    },
}

/// The request stream of a zoned, pareto or normal fio job (infinite).
#[derive(Debug, Clone)]
pub struct OffsetGenerator {
    shape: Shape,
    rng: Rng,
    blocks: u64,
    pages: u32,
    read_ratio: f64,
    scatter: (u64, u64),
    desc: String,
}

impl OffsetGenerator {
    /// A generator of `dist` over `region_pages` LPNs in requests of `request_pages`
    /// (`bs` bytes); None for the distributions [`Synthetic`](crate::workload::Synthetic)
    /// serves. Errors name `fio.distribution` (zones that do not fit the region).
    pub fn new(
        dist: &Dist,
        region_pages: u64,
        request_pages: u32,
        bs: u64,
        read_ratio: f64,
        seed: u64,
    ) -> Result<Option<OffsetGenerator>> {
        let blocks = (region_pages / request_pages.max(1) as u64).max(1);
        let mut rng = Rng::new(seed);
        let a = scatter_multiplier(&mut rng, blocks);
        let mut b = rng.below(blocks);
        let shape = match dist {
            Dist::Uniform
            | Dist::RandomMap
            | Dist::RandomMapFresh
            | Dist::Lfsr
            | Dist::LfsrFresh
            | Dist::Zipf(_)
            | Dist::HotCold { .. } => return Ok(None),
            Dist::ZipfCentered { theta, center } => {
                b = ((blocks as f64 * center) as u64).min(blocks - 1);
                Shape::Zipf(Zipf::new(blocks, *theta))
            }
            Dist::Zoned(split) => zoned(split, blocks, bs)?,
            Dist::Pareto { h, center } => {
                if let Some(c) = center {
                    b = ((blocks as f64 * c) as u64).min(blocks - 1);
                }
                Shape::Pareto {
                    power: libm::log(*h) / libm::log(1.0 - h),
                }
            }
            Dist::Normal { dev, center } => {
                if let Some(c) = center {
                    b = (libm::floor(blocks as f64 * (c - 0.5)) as i64).rem_euclid(blocks as i64)
                        as u64;
                }
                let mut width = 0i64;
                if *dev != 0.0 {
                    width = libm::ceil(blocks as f64 * dev / 100.0) as i64;
                    width = width.min((blocks / 2) as i64);
                }
                Shape::Normal { width }
            }
        };
        Ok(Some(OffsetGenerator {
            shape,
            rng,
            blocks,
            pages: request_pages.max(1),
            read_ratio,
            scatter: (a, b),
            desc: dist.describe(),
        }))
    }

    #[inline]
    fn scatter(&self, rank: u64) -> u64 {
        ((self.scatter.0 as u128 * rank as u128 + self.scatter.1 as u128) % self.blocks as u128)
            as u64
    }

    /// The next block (request-sized slot) of the region.
    #[inline]
    pub fn next_block(&mut self) -> u64 {
        let n = self.blocks;
        match &self.shape {
            Shape::Zoned { pick, zones } => {
                let (first, len) = zones[pick[self.rng.below(100) as usize] as usize];
                first + self.rng.below(len)
            }
            Shape::Pareto { power } => {
                let u = self.rng.unit();
                let rank = ((n - 1) as f64 * libm::pow(u, *power)) as u64;
                self.scatter(rank.min(n - 1))
            }
            Shape::Zipf(zipf) => {
                let rank = zipf.sample(&mut self.rng) - 1;
                self.scatter(rank)
            }
            Shape::Normal { width } => {
                let width = *width;
                let mut sum = 0u64;
                for _ in 0..GAUSS_ITERS {
                    sum += self.rng.below(n + 1);
                }
                let mut rank = sum.div_ceil(GAUSS_ITERS) as i64;
                if width > 0 {
                    let mut dev = (width as f64 * self.rng.unit()) as i64 - width / 2;
                    while dev != 0 && (rank + dev < 0 || rank + dev >= n as i64) {
                        dev /= 2;
                    }
                    rank += dev;
                }
                self.scatter((rank as u64).min(n - 1))
            }
        }
    }
}

/// fio's zone table: 100 access slots to zones, zones as (first block, blocks).
fn zoned(split: &ZoneSplit, blocks: u64, bs: u64) -> Result<Shape> {
    let mut pick = [0u16; 100];
    let mut zones = Vec::with_capacity(split.zones.len());
    let (mut access, mut size) = (0usize, 0u64);
    for (k, z) in split.zones.iter().enumerate() {
        let (first, end) = if split.absolute {
            let first = size / bs;
            let end = (size + z.size) / bs;
            if end > blocks {
                return Err(Error::config(
                    "fio.distribution",
                    format!(
                        "zoned_abs: zones 1..={} end at byte {}, past the region of {} bytes \
                         (fio: \"zoned_abs sizes exceed file size\")",
                        k + 1,
                        size + z.size,
                        blocks * bs
                    ),
                ));
            }
            (first, end)
        } else {
            let s0 = size;
            let s1 = size + z.size;
            (
                s0 * blocks / 100,
                s0 * blocks / 100 + blocks * (s1 - s0) / 100,
            )
        };
        if z.access > 0 && end == first {
            return Err(Error::config(
                "fio.distribution",
                format!(
                    "{}: zone {} ({} of the region of {blocks} blocks of {bs} bytes) holds no \
                     whole block",
                    split.describe(),
                    k + 1,
                    if split.absolute {
                        format!("{} bytes", z.size)
                    } else {
                        format!("{} %", z.size)
                    }
                ),
            ));
        }
        for p in pick.iter_mut().skip(access).take(z.access as usize) {
            *p = zones.len() as u16;
        }
        zones.push((first, end - first));
        access += z.access as usize;
        size += z.size;
    }
    Ok(Shape::Zoned {
        pick: Box::new(pick),
        zones,
    })
}

impl Workload for OffsetGenerator {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()> {
        for _ in 0..max {
            let op = self.rng.read_or_write(self.read_ratio);
            let block = self.next_block();
            buf.push(Request::at_block(op, block, self.pages));
        }
        Ok(())
    }
    fn describe(&self) -> String {
        self.desc.clone()
    }
    fn is_infinite(&self) -> bool {
        true
    }
}

#[cfg(test)]
#[path = "offsets_tests.rs"]
mod tests;
