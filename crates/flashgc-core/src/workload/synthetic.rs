//! Seeded synthetic workloads.
//!
//! * `uniform`: every LPN equally likely.
//! * `zipf:THETA`: fio's `random_distribution=zipf:THETA` semantics: P(rank k) ∝ k^-THETA over
//!   all LPNs, ranks scattered over the LPN space so hot pages are not adjacent. fio samples
//!   with Gray's approximation and a non-bijective hash (and rejects THETA = 1); flashgc
//!   samples exactly (rejection-inversion) and scatters with a seeded bijection
//!   `lpn = (a * (rank - 1) + b) mod n`, gcd(a, n) = 1, so no two ranks share a page.
//! * `hotcold:W/S`: W % of the writes go uniformly to the first S % of the LPNs, the rest
//!   uniformly to the others (MQSim's RANDOM_HOTCOLD).
//! * `seq`: LPN 0, 1, 2, ... wrapping around.
//!
//! `read_ratio` makes a share of requests reads drawn from the same distribution.

use super::{Request, Rng, Workload, Zipf};
use crate::error::Result;

/// Which synthetic distribution.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum SyntheticKind {
    /// Uniform random.
    Uniform,
    /// Zipf with exponent theta.
    Zipf {
        /// The exponent.
        theta: f64,
    },
    /// Hot/cold: `write_share` of the writes to `space_share` of the space.
    HotCold {
        /// Fraction of writes to the hot region.
        write_share: f64,
        /// Fraction of the LPN space that is hot.
        space_share: f64,
    },
    /// Sequential, wrapping.
    Sequential,
}

impl SyntheticKind {
    /// Canonical spec text.
    pub fn describe(&self) -> String {
        match self {
            SyntheticKind::Uniform => "uniform".into(),
            SyntheticKind::Zipf { theta } => format!("zipf:{theta}"),
            SyntheticKind::HotCold {
                write_share,
                space_share,
            } => {
                format!("hotcold:{}/{}", write_share * 100.0, space_share * 100.0)
            }
            SyntheticKind::Sequential => "seq".into(),
        }
    }
}

/// A synthetic workload generator (infinite; the run stops at its write volume).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Synthetic {
    kind: SyntheticKind,
    rng: Rng,
    n: u64,
    pages: u32,
    read_ratio: f64,
    zipf: Option<Zipf>,
    scatter: (u64, u64),
    hot_pages: u64,
    cursor: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The multiplier `a` of the rank scatter `lpn = (a * rank + b) mod slots`: seeded, odd
/// where possible, coprime with `slots` (so the scatter is a bijection). Draws one number.
pub(crate) fn scatter_multiplier(rng: &mut Rng, slots: u64) -> u64 {
    let mut a = (rng.next_u64() % slots) | 1;
    while slots > 1 && gcd(a, slots) != 1 {
        a = (a + 2) % slots;
        if a == 0 {
            a = 1;
        }
    }
    a
}

impl Synthetic {
    /// [`Synthetic::new`] for parameters from the user: requests larger than the space,
    /// and a hot/cold split of a space that holds a single request (no hot and cold part
    /// to tell apart: the split panicked), are errors naming `run.request_pages` and
    /// `run.workload`.
    pub fn try_new(
        kind: SyntheticKind,
        logical_pages: u64,
        request_pages: u32,
        read_ratio: f64,
        seed: u64,
    ) -> crate::error::Result<Synthetic> {
        use crate::error::Error;
        let pages = request_pages.max(1) as u64;
        if pages > logical_pages {
            return Err(Error::config(
                "run.request_pages",
                format!("{pages} pages per request exceed the {logical_pages} pages addressed"),
            ));
        }
        if matches!(kind, SyntheticKind::HotCold { .. }) && logical_pages / pages < 2 {
            return Err(Error::config(
                "run.workload",
                format!(
                    "`{}` needs room for a hot and a cold request: at least 2 x {pages} pages, \
                     and {logical_pages} are addressed",
                    kind.describe()
                ),
            ));
        }
        if let SyntheticKind::HotCold { space_share, .. } = kind {
            // The hot set is a whole number of requests; one that rounds to none (or leaves
            // no cold request) would be clamped to one, far from the share asked for.
            let slots = logical_pages / pages;
            let hot = slots as f64 * space_share;
            if hot < 0.5 || slots as f64 - hot < 0.5 {
                return Err(Error::config(
                    "run.workload",
                    format!(
                        "`{}`: its hot share of the {slots} requests of {pages} page(s) addressed \
                         is {hot:.3} requests, which rounds to {}; S must be between {:.3} and \
                         {:.3} %",
                        kind.describe(),
                        if hot < 0.5 {
                            "no hot request"
                        } else {
                            "no cold request"
                        },
                        50.0 / slots as f64,
                        100.0 - 50.0 / slots as f64,
                    ),
                ));
            }
        }
        Ok(Synthetic::new(
            kind,
            logical_pages,
            request_pages,
            read_ratio,
            seed,
        ))
    }

    /// A generator over `logical_pages` LPNs, requests of `request_pages` pages (checked by
    /// [`Synthetic::try_new`]).
    pub fn new(
        kind: SyntheticKind,
        logical_pages: u64,
        request_pages: u32,
        read_ratio: f64,
        seed: u64,
    ) -> Synthetic {
        let mut rng = Rng::new(seed);
        let n = logical_pages.max(1);
        // Requests of several pages start on a page-count boundary so they stay in range.
        let slots = (n / request_pages.max(1) as u64).max(1);
        let zipf = match kind {
            SyntheticKind::Zipf { theta } => Some(Zipf::new(slots, theta)),
            _ => None,
        };
        let a = scatter_multiplier(&mut rng, slots);
        let b = rng.below(slots);
        let hot_pages = match kind {
            SyntheticKind::HotCold { space_share, .. } => {
                ((slots as f64 * space_share).round() as u64).clamp(1, slots - 1)
            }
            _ => 0,
        };
        Synthetic {
            kind,
            rng,
            n: slots,
            pages: request_pages.max(1),
            read_ratio,
            zipf,
            scatter: (a, b),
            hot_pages,
            cursor: 0,
        }
    }

    #[inline]
    fn next_slot(&mut self) -> u64 {
        match self.kind {
            SyntheticKind::Uniform => self.rng.below(self.n),
            SyntheticKind::Zipf { .. } => {
                let rank = self
                    .zipf
                    .as_ref()
                    .expect("zipf sampler")
                    .sample(&mut self.rng)
                    - 1;
                ((self.scatter.0 as u128 * rank as u128 + self.scatter.1 as u128) % self.n as u128)
                    as u64
            }
            SyntheticKind::HotCold { write_share, .. } => {
                if self.rng.unit() < write_share {
                    self.rng.below(self.hot_pages)
                } else {
                    self.hot_pages + self.rng.below(self.n - self.hot_pages)
                }
            }
            SyntheticKind::Sequential => {
                let s = self.cursor;
                self.cursor = if s + 1 >= self.n { 0 } else { s + 1 };
                s
            }
        }
    }
}

impl Workload for Synthetic {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()> {
        for _ in 0..max {
            let op = self.rng.read_or_write(self.read_ratio);
            let slot = self.next_slot();
            buf.push(Request::at_block(op, slot, self.pages));
        }
        Ok(())
    }
    fn describe(&self) -> String {
        self.kind.describe()
    }
    fn is_infinite(&self) -> bool {
        true
    }
    fn may_flush(&self) -> bool {
        false
    }
    fn save_position(&self) -> Option<Vec<u8>> {
        crate::checkpoint::encode(self).ok()
    }
    fn load_position(&mut self, state: &[u8]) -> Result<()> {
        let s: Synthetic = crate::checkpoint::decode(state).map_err(|e| {
            crate::error::Error::Input(format!(
                "the saved workload position is not that of a synthetic workload (taken on \
                 another workload?): {e}"
            ))
        })?;
        if s.kind != self.kind || s.n != self.n || s.pages != self.pages || s.cursor >= s.n {
            return Err(crate::error::Error::Input(
                "the saved synthetic workload position belongs to another workload".into(),
            ));
        }
        // Only the random generator and the cursor are a position; everything else is
        // derived from the configuration and kept from this instance (a saved sampler
        // with other parameters could reject every draw and never return).
        self.rng = s.rng;
        self.cursor = s.cursor;
        Ok(())
    }
}
