//! Synthetic equivalents of the six traces of papers/noc-copyback-gc.txt (Table 3).
//!
//! The paper's traces (Cassandra, Dbench, MySQL, SQLite, MongoDB, RocksDB, captured with
//! blktrace on a Samsung T5) are not public. Table 3 gives, per trace, the read ratio, the
//! share of sequential requests and the average read and write sizes; Section 4.3 says which
//! traces have "highly dynamic" (bursty) and which "relatively static" arrival patterns.
//! [`NocSynthetic`] generates open-loop requests with those statistics:
//!
//! * op: read with probability `read_ratio`, else write;
//! * start: with probability `seq_share` the LPN right after the previous request of the same
//!   op (a sequential stream per op), else uniform over the logical space;
//! * size: 1 + geometric pages with the table's mean size (rounded to whole 4 KiB pages, at
//!   least one);
//! * arrival: `steady` = Poisson at `rate_iops`; `bursty` = ON/OFF: bursts of `burst_len`
//!   requests at `burst_factor` x the rate, separated by idle gaps that keep the long-run rate
//!   at `rate_iops`. The rates are not in the paper (named parameters, see docs/noc.md).

use crate::error::{Error, Result};
use crate::workload::{Op, Request, Rng, Workload};

/// One row of the paper's Table 3 plus its arrival pattern (Section 4.3, Figure 6).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct NocProfile {
    /// Workload name.
    pub name: &'static str,
    /// Fraction of requests that are reads.
    pub read_ratio: f64,
    /// Fraction of requests that continue the previous request of the same op.
    pub seq_share: f64,
    /// Average read size, KiB.
    pub read_kib: f64,
    /// Average write size, KiB.
    pub write_kib: f64,
    /// Bursty (ON/OFF) arrivals; otherwise steady (Poisson).
    pub bursty: bool,
}

/// The paper's Table 3. Bursty: the traces Section 4.3 calls "highly dynamic" (Cassandra,
/// Dbench, MySQL, RocksDB); steady: SQLite and MongoDB.
pub const PROFILES: &[NocProfile] = &[
    NocProfile {
        name: "cassandra",
        read_ratio: 0.802,
        seq_share: 0.568,
        read_kib: 70.5,
        write_kib: 103.7,
        bursty: true,
    },
    NocProfile {
        name: "dbench",
        read_ratio: 0.0,
        seq_share: 0.132,
        read_kib: 4.0,
        write_kib: 7.6,
        bursty: true,
    },
    NocProfile {
        name: "mysql",
        read_ratio: 0.0,
        seq_share: 0.098,
        read_kib: 4.0,
        write_kib: 5.8,
        bursty: true,
    },
    NocProfile {
        name: "sqlite",
        read_ratio: 0.0,
        seq_share: 0.187,
        read_kib: 4.0,
        write_kib: 4.9,
        bursty: false,
    },
    NocProfile {
        name: "mongodb",
        read_ratio: 0.369,
        seq_share: 0.187,
        read_kib: 6.4,
        write_kib: 4.7,
        bursty: false,
    },
    NocProfile {
        name: "rocksdb",
        read_ratio: 0.505,
        seq_share: 0.099,
        read_kib: 4.9,
        write_kib: 4.5,
        bursty: true,
    },
];

impl NocProfile {
    /// Looks a profile up by name; the error lists the allowed names.
    pub fn by_name(field: &str, name: &str) -> Result<NocProfile> {
        let n = name.trim().to_ascii_lowercase();
        PROFILES
            .iter()
            .copied()
            .find(|p| p.name == n)
            .ok_or_else(|| {
                Error::config(
                    field,
                    format!(
                        "unknown profile `{name}`; allowed: {}",
                        PROFILES
                            .iter()
                            .map(|p| p.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })
    }
}

/// Arrival parameters of [`NocSynthetic`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Arrival {
    /// Long-run request rate, requests per second.
    pub rate_iops: f64,
    /// Requests per burst (bursty profiles).
    pub burst_len: u32,
    /// Rate inside a burst, as a multiple of `rate_iops` (bursty profiles).
    pub burst_factor: f64,
}

impl Default for Arrival {
    fn default() -> Self {
        Arrival {
            rate_iops: 200.0,
            burst_len: 256,
            burst_factor: 8.0,
        }
    }
}

/// Open-loop synthetic workload with a [`NocProfile`]'s statistics.
#[derive(Debug, Clone)]
pub struct NocSynthetic {
    profile: NocProfile,
    arrival: Arrival,
    logical_pages: u64,
    lpn_size: u32,
    requests: u64,
    emitted: u64,
    rng: Rng,
    t_ns: f64,
    next_seq: [u64; 2],
}

impl NocSynthetic {
    /// `requests` requests on `logical_pages` pages of `lpn_size` bytes.
    pub fn new(
        profile: NocProfile,
        arrival: Arrival,
        logical_pages: u64,
        lpn_size: u32,
        requests: u64,
        seed: u64,
    ) -> Result<NocSynthetic> {
        // At least one request per second, as every rate (the ns clock).
        if !(arrival.rate_iops.is_finite() && arrival.rate_iops >= 1.0) {
            return Err(Error::config(
                "rate",
                format!("{}: must be a number of requests/s >= 1", arrival.rate_iops),
            ));
        }
        if arrival.burst_len == 0 {
            return Err(Error::config("burst_len", "must be at least 1"));
        }
        if !(arrival.burst_factor.is_finite() && arrival.burst_factor >= 1.0) {
            return Err(Error::config("burst_factor", "must be >= 1"));
        }
        if logical_pages == 0 {
            return Err(Error::config("logical_pages", "must be at least 1"));
        }
        Ok(NocSynthetic {
            profile,
            arrival,
            logical_pages,
            lpn_size,
            requests,
            emitted: 0,
            rng: Rng::new(seed ^ 0x6e6f_635f_7774_6c64),
            t_ns: 0.0,
            next_seq: [0, logical_pages / 2],
        })
    }

    fn exp(&mut self, mean: f64) -> f64 {
        // 1 - unit() is in (0, 1]: the log is finite.
        -mean * libm::log(1.0 - self.rng.unit())
    }

    /// 1 + geometric pages with mean `kib` KiB (at least one page).
    fn size(&mut self, kib: f64) -> u32 {
        let mean = (kib * 1024.0 / self.lpn_size as f64).max(1.0);
        if mean <= 1.0 {
            return 1;
        }
        let q = 1.0 - 1.0 / mean;
        let u = 1.0 - self.rng.unit();
        let k = 1.0 + libm::floor(libm::log(u) / libm::log(q));
        k.clamp(1.0, 4096.0) as u32
    }

    fn next_request(&mut self) -> Request {
        let base_gap = 1e9 / self.arrival.rate_iops;
        let gap = if self.profile.bursty {
            let burst = self.arrival.burst_len as u64;
            let inside = base_gap / self.arrival.burst_factor;
            let mut g = self.exp(inside);
            if self.emitted > 0 && self.emitted % burst == 0 {
                // Idle gap: what keeps the long-run rate at rate_iops.
                g += burst as f64 * (base_gap - inside);
            }
            g
        } else {
            self.exp(base_gap)
        };
        if self.emitted > 0 {
            self.t_ns += gap;
        }
        let read = self.rng.unit() < self.profile.read_ratio;
        let (op, kib, i) = if read {
            (Op::Read, self.profile.read_kib, 0)
        } else {
            (Op::Write, self.profile.write_kib, 1)
        };
        let pages = (self.size(kib) as u64).min(self.logical_pages) as u32;
        let seq = self.rng.unit() < self.profile.seq_share;
        let mut lpn = if seq {
            self.next_seq[i]
        } else {
            self.rng.below(self.logical_pages)
        };
        if lpn + pages as u64 > self.logical_pages {
            lpn = 0;
        }
        self.next_seq[i] = (lpn + pages as u64) % self.logical_pages;
        self.emitted += 1;
        Request {
            time_ns: self.t_ns as u64,
            op,
            lpn,
            pages,
            content: 0,
            fua: false,
        }
    }
}

impl Workload for NocSynthetic {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()> {
        while buf.len() < max && self.emitted < self.requests {
            let r = self.next_request();
            buf.push(r);
        }
        Ok(())
    }

    fn describe(&self) -> String {
        let p = &self.profile;
        format!(
            "noc:{} (paper Table 3 equivalent: reads {:.1} %, sequential {:.1} %, read {} KiB, write {} KiB, {} at {} req/s{})",
            p.name,
            p.read_ratio * 100.0,
            p.seq_share * 100.0,
            p.read_kib,
            p.write_kib,
            if p.bursty { "bursty" } else { "steady" },
            self.arrival.rate_iops,
            if p.bursty {
                format!(
                    ", bursts of {} at {}x",
                    self.arrival.burst_len, self.arrival.burst_factor
                )
            } else {
                String::new()
            }
        )
    }
}
