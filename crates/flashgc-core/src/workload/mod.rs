//! Host workloads: the request stream the FTL serves.
//!
//! A [`Workload`] hands out [`Request`]s in batches. Synthetic generators live here
//! ([`synthetic`], fio-like jobs in [`fio`], the NoC paper's Table 3 profiles in
//! [`profiles`]); trace readers (crate `flashgc-trace`) implement the same trait.

pub mod arrivals;
pub mod fio;
pub mod flows;
pub mod mqsim;
pub mod phased;
pub mod profiles;
pub mod synthetic;
mod zipf;

use crate::error::{Error, Result};
pub use arrivals::PoissonArrivals;
use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
pub use synthetic::{Synthetic, SyntheticKind};
pub use zipf::Zipf;

/// Request operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Read.
    Read,
    /// Write.
    Write,
    /// Trim / discard.
    Trim,
    /// A host flush (a trace's `FN` / fio `sync`): no pages (`lpn` and `pages` are 0). Only
    /// trace replay emits it; the driver sends it to the write cache
    /// (`driver/host/flush.rs`) and counts it apart from the requests.
    Flush,
}

/// One host request in mapping units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Request {
    /// Arrival time in simulated nanoseconds (0 for untimed synthetic workloads).
    pub time_ns: u64,
    /// Operation.
    pub op: Op,
    /// First LPN.
    pub lpn: u64,
    /// Number of LPN-sized pages (>= 1).
    pub pages: u32,
    /// Content fingerprint of the data written (e.g. the first 8 bytes of an FIU trace's
    /// MD5), 0 when unknown. A reader with one fingerprint per page emits one-page requests.
    pub content: u64,
    /// A write with Force Unit Access: it completes once its pages are programmed (the
    /// write cache's dirty copies of them written through). False for other ops.
    pub fua: bool,
}

impl Request {
    /// An untimed request of `pages` pages at block `block` (LPN `block * pages`) without
    /// content: what the synthetic generators emit.
    #[inline]
    pub fn at_block(op: Op, block: u64, pages: u32) -> Request {
        Request::untimed(op, block * pages as u64, pages)
    }

    /// An untimed request of `pages` pages from LPN `lpn` without content.
    #[inline]
    pub fn untimed(op: Op, lpn: u64, pages: u32) -> Request {
        Request {
            time_ns: 0,
            op,
            lpn,
            pages,
            content: 0,
            fua: false,
        }
    }
}

/// A source of host requests.
pub trait Workload: Send {
    /// Appends up to `max` requests to `buf`. Appending none means the workload ended.
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()>;
    /// A one-line description for output.
    fn describe(&self) -> String;
    /// True for workloads that never end by themselves (the run stops at its write volume).
    fn is_infinite(&self) -> bool {
        false
    }
    /// The generator's position for a checkpoint, if it can be saved directly (synthetic:
    /// its RNG state). `None`: a resumed run re-reads and skips the requests consumed.
    fn save_position(&self) -> Option<Vec<u8>> {
        None
    }
    /// Restores what [`Workload::save_position`] returned.
    fn load_position(&mut self, _state: &[u8]) -> Result<()> {
        Err(Error::Input(
            "this workload cannot restore a saved position".into(),
        ))
    }
    /// Whether the workload may hand out flushes ([`Op::Flush`]) or FUA writes
    /// ([`Request::fua`]). A workload answering false (fixed for its lifetime) is served
    /// through a run loop without their tests (`driver/run_loop.rs`), and a flush it hands
    /// out anyway is an error. The default, true, is always correct.
    fn may_flush(&self) -> bool {
        true
    }
    /// The flows, when the workload is several host flows ([`flows::FlowSet`]): the driver
    /// then takes arrivals from them flow by flow and reports completions back.
    fn as_flows(&mut self) -> Option<&mut flows::FlowSet> {
        None
    }
    /// The memory the workload itself holds at its largest over the run, as named
    /// structures and bytes, known before the run starts (a trace replay's remap table;
    /// docs/traces.md, "Memory"): the run's memory estimate adds it to the simulator's.
    /// The default, none: generators whose state is a few words.
    fn memory(&self) -> Vec<(String, u64)> {
        Vec::new()
    }
}

/// The simulator's random number generator: xoshiro256++ (fixed algorithm, so runs are
/// reproducible bit for bit on any machine), with hand-written range reduction.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Rng(Xoshiro256PlusPlus);

impl Rng {
    /// A generator seeded from `seed` (SplitMix64 expansion).
    pub fn new(seed: u64) -> Rng {
        Rng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }
    /// Next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform integer in `[0, n)` (Lemire's multiply-shift; bias below 2^-64 * n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.0.next_u64() as u128 * n as u128) >> 64) as u64
    }
    /// Uniform float in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// A read with probability `read_ratio`, else a write; draws nothing when
    /// `read_ratio` is 0, so write-only streams keep their sequence.
    #[inline]
    pub fn read_or_write(&mut self, read_ratio: f64) -> Op {
        if read_ratio > 0.0 && self.unit() < read_ratio {
            Op::Read
        } else {
            Op::Write
        }
    }
}

/// Parsed workload spec.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkloadSpec {
    /// A synthetic generator.
    Synthetic(SyntheticKind),
    /// A trace file (`trace:PATH`), read by the CLI / Python layers.
    Trace(String),
}

impl WorkloadSpec {
    /// Parses `uniform`, `zipf:THETA`, `hotcold:W/S`, `seq`, `trace:PATH`.
    pub fn parse(field: &str, s: &str) -> Result<WorkloadSpec> {
        let s = s.trim();
        let (name, arg) = match s.split_once(':') {
            Some((n, a)) => (n.trim().to_ascii_lowercase(), Some(a.trim())),
            None => (s.to_ascii_lowercase(), None),
        };
        let no_arg = |k: SyntheticKind| -> Result<WorkloadSpec> {
            match arg {
                None => Ok(WorkloadSpec::Synthetic(k)),
                Some(a) => Err(Error::config(
                    field,
                    format!("`{name}` takes no argument, got `{a}`"),
                )),
            }
        };
        match name.as_str() {
            "uniform" | "random" => no_arg(SyntheticKind::Uniform),
            "seq" | "sequential" => no_arg(SyntheticKind::Sequential),
            "zipf" => {
                let a =
                    arg.ok_or_else(|| Error::config(field, "zipf needs a theta, e.g. zipf:1.0"))?;
                let theta: f64 = a.parse().map_err(|_| {
                    Error::config(field, format!("zipf theta `{a}` is not a number"))
                })?;
                if !(theta.is_finite() && theta > 0.0 && theta <= 5.0) {
                    return Err(Error::config(
                        field,
                        format!("zipf theta {theta} must be in (0, 5]"),
                    ));
                }
                Ok(WorkloadSpec::Synthetic(SyntheticKind::Zipf { theta }))
            }
            "hotcold" => {
                let a = arg.ok_or_else(|| {
                    Error::config(field, "hotcold needs W/S: W % of writes go to S % of the space, e.g. hotcold:80/20")
                })?;
                let (w, sp) = a.split_once('/').ok_or_else(|| {
                    Error::config(field, format!("hotcold `{a}`: expected W/S, e.g. 80/20"))
                })?;
                let w: f64 = w.trim().parse().map_err(|_| {
                    Error::config(field, format!("hotcold write share `{w}` is not a number"))
                })?;
                let sp: f64 = sp.trim().parse().map_err(|_| {
                    Error::config(field, format!("hotcold space share `{sp}` is not a number"))
                })?;
                if !(w > 0.0 && w < 100.0 && sp > 0.0 && sp < 100.0) {
                    return Err(Error::config(
                        field,
                        format!("hotcold {w}/{sp}: both shares must be in (0, 100) percent"),
                    ));
                }
                Ok(WorkloadSpec::Synthetic(SyntheticKind::HotCold {
                    write_share: w / 100.0,
                    space_share: sp / 100.0,
                }))
            }
            "trace" => {
                let a = arg
                    .filter(|a| !a.is_empty())
                    .ok_or_else(|| Error::config(field, "trace needs a path: trace:PATH"))?;
                Ok(WorkloadSpec::Trace(a.to_string()))
            }
            _ => Err(Error::Unknown {
                field: field.to_string(),
                kind: "workload",
                name: name.to_string(),
                known: "uniform, zipf:THETA, hotcold:W/S, seq, trace:PATH".into(),
            }),
        }
    }
}
