//! fio-like closed-loop jobs: `rw`, `rwmixwrite`, `bs`, `size`, `numjobs`, `iodepth`,
//! uniform, zipf, pareto, normal or zoned offsets (fio's `random_distribution`, [`dist`],
//! [`offsets`]); and the write-ratio series of the sup-gc and bf-gc papers.
//!
//! The `numjobs` random streams are merged into one seeded stream (jobs are identical and
//! independent, so the merged stream has the same distribution); the host keeps
//! `numjobs x iodepth` requests outstanding. Sequential jobs (`read`, `write`) each own a
//! cursor starting at `job * size / numjobs` (fio's `offset_increment = size / numjobs`)
//! and are served round robin.

pub mod align;
mod block_cycle;
pub mod block_sizes;
pub mod dist;
pub mod jobfile;
mod mixed;
pub mod offsets;
mod pass_order;
mod random_map;
pub mod seq_mix;
mod trims;

pub use align::{Alignment, Backwards};
pub use block_cycle::BlockCycle;
pub use block_sizes::{BlockSizeMix, LengthDraw, Sizes, SplitEntry};
pub use dist::{Dist, Zone, ZoneSplit};
pub use offsets::OffsetGenerator;
pub use random_map::RandomMap;
pub use seq_mix::{PickOrder, SeqMix, SeqMixStream};

use crate::error::{Error, Result};
use crate::workload::{Op, Request, Synthetic, SyntheticKind, Workload};

/// fio's `rw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rw {
    /// Random mix of reads and writes (`rwmixwrite` % writes).
    RandRw,
    /// Random writes.
    RandWrite,
    /// Random reads.
    RandRead,
    /// Sequential writes.
    Write,
    /// Sequential reads.
    Read,
    /// Sequential trims (fio's `trim`).
    Trim,
    /// Random trims (fio's `randtrim`).
    RandTrim,
    /// Each block trimmed, then written, in order (fio's `trimwrite`).
    TrimWrite,
    /// Each random block trimmed, then written (fio's `randtrimwrite`).
    RandTrimWrite,
}

/// How a pattern trims ([`Rw::trim_mode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrimMode {
    /// No trims.
    None,
    /// Trims where the write pattern writes.
    Only,
    /// A trim before each write of the write pattern, of the same blocks.
    ThenWrite,
}

impl Rw {
    /// Parses fio's names.
    pub fn parse(s: &str) -> Result<Rw> {
        match s.trim().to_ascii_lowercase().as_str() {
            "randrw" => Ok(Rw::RandRw),
            "randwrite" => Ok(Rw::RandWrite),
            "randread" => Ok(Rw::RandRead),
            "write" => Ok(Rw::Write),
            "read" => Ok(Rw::Read),
            "trim" => Ok(Rw::Trim),
            "randtrim" => Ok(Rw::RandTrim),
            "trimwrite" => Ok(Rw::TrimWrite),
            "randtrimwrite" => Ok(Rw::RandTrimWrite),
            _ => Err(Error::config(
                "fio.rw",
                format!(
                    "`{s}`: allowed randrw, randwrite, randread, write, read, trim, randtrim, trimwrite, \
                     randtrimwrite"
                ),
            )),
        }
    }
}

/// A fio-like job description.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FioJob {
    /// Access pattern.
    pub rw: Rw,
    /// Percentage of writes for `randrw` (0..=100).
    pub rwmixwrite: f64,
    /// Block size, bytes (a multiple of the LPN size).
    pub bs: u64,
    /// Per-direction lengths (`bs=R,W`, `bsrange`, `bssplit`) replacing `bs`; None: every
    /// request is `bs` long (that stream draws nothing for lengths).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_sizes: Option<BlockSizeMix>,
    /// Region the jobs address, bytes from offset 0 (None = the whole logical space).
    pub size: Option<u64>,
    /// Jobs.
    pub numjobs: u32,
    /// Outstanding requests per job.
    pub iodepth: u32,
    /// Offset distribution (random patterns).
    pub dist: Dist,
    /// Sequential picks in a random job (fio's `percentage_random`, `rw=randX:N`; job
    /// files only); None: every offset of a random job is random.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq_mix: Option<SeqMix>,
    /// Bytes skipped after each request of a sequential job (fio's `rw=write:SKIP`, its
    /// `ddir_seq_add`): the next request starts `bs + skip` after this one, back at the
    /// region's start once that is past the region. 0: none.
    #[serde(skip_serializing_if = "crate::types::is_zero")]
    pub seq_skip: u64,
    /// Backwards sequential offsets (fio's `rw=write:-SKIP`, module `align`); None:
    /// forwards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backwards: Option<Backwards>,
    /// fio's `blockalign` and `bs_unaligned` (module `align`); the default keeps fio's.
    #[serde(skip_serializing_if = "Alignment::is_default")]
    pub align: Alignment,
    /// Seed.
    pub seed: u64,
}

impl Default for FioJob {
    fn default() -> Self {
        FioJob {
            rw: Rw::RandWrite,
            rwmixwrite: 50.0,
            bs: 4096,
            block_sizes: None,
            size: None,
            numjobs: 1,
            iodepth: 32,
            dist: Dist::Uniform,
            seq_mix: None,
            seq_skip: 0,
            backwards: None,
            align: Alignment::default(),
            seed: 1,
        }
    }
}

impl FioJob {
    /// Requests kept outstanding.
    pub fn queue_depth(&self) -> u32 {
        self.numjobs.saturating_mul(self.iodepth)
    }

    /// One line in fio's vocabulary.
    pub fn describe(&self) -> String {
        let d = self.dist.describe();
        let rw = serde_json::to_value(self.rw)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let mix = if self.rw == Rw::RandRw {
            format!(" rwmixwrite={}", self.rwmixwrite)
        } else {
            String::new()
        };
        let bs = match &self.block_sizes {
            Some(m) => m.describe(),
            None => format!("bs={}", self.bs),
        };
        // Sequential picks: `rw=randX:N` and `percentage_random=R,W`, as a job file says.
        let (every, seq) = match self.seq_mix.as_ref().filter(|m| m.active()) {
            Some(m) => (
                if m.every > 1 {
                    format!(":{}", m.every)
                } else {
                    String::new()
                },
                format!(
                    " percentage_random={},{}{}",
                    m.random_pct[0],
                    m.random_pct[1],
                    if m.identical {
                        " rw_sequencer=identical"
                    } else {
                        ""
                    }
                ),
            ),
            None => (String::new(), String::new()),
        };
        // The options of module `align`, only where set (descriptions of other jobs stay).
        let back = self
            .backwards
            .map_or(String::new(), |b| format!(":-{}", b.back));
        let mut align = String::new();
        if self.align.blockalign.iter().any(Option::is_some) {
            // fio's `READS,WRITES`; an empty part is that direction's default.
            let part = |x: Option<u64>| x.map_or(String::new(), |b| b.to_string());
            let [r, w] = self.align.blockalign;
            align = format!(" blockalign={},{}", part(r), part(w));
        }
        if self.align.bs_unaligned {
            align.push_str(" bs_unaligned");
        }
        format!(
            "fio rw={rw}{back}{every}{mix} {bs}{align} numjobs={} iodepth={} random_distribution={d}{seq}",
            self.numjobs, self.iodepth
        )
    }

    /// The probability that a request is a read.
    fn read_ratio(&self) -> f64 {
        match self.rw.base() {
            Rw::RandRw => 1.0 - self.rwmixwrite / 100.0,
            Rw::RandRead | Rw::Read => 1.0,
            _ => 0.0,
        }
    }

    /// The directions the job issues: (reads, writes).
    fn directions(&self) -> (bool, bool) {
        match self.rw.base() {
            Rw::RandRw => (self.rwmixwrite < 100.0, self.rwmixwrite > 0.0),
            Rw::RandRead | Rw::Read => (true, false),
            _ => (false, true),
        }
    }

    /// The job with its mix resolved: a mix whose used directions have one and the same
    /// length is a plain `bs` job (the same stream as `bs=` gives).
    fn resolved(&self) -> (FioJob, Option<BlockSizeMix>) {
        let mut job = self.clone();
        let mix = job.block_sizes.take();
        let (reads, writes) = self.directions();
        match mix {
            Some(m) => match m.single(reads, writes) {
                Some(b) => {
                    job.bs = b;
                    (job, None)
                }
                None => (job, Some(m)),
            },
            None => (job, None),
        }
    }

    /// The job's request stream on a device of `logical_pages` pages of `lpn_size` bytes.
    pub fn workload(&self, logical_pages: u64, lpn_size: u32) -> Result<FioWorkload> {
        let mode = self.rw.trim_mode();
        if let (true, Some(m)) = (mode != TrimMode::None, &self.block_sizes) {
            // fio sizes trims by the third part (`bs=R,W,T`), which flashgc does not read.
            // The field is the option that made the mix, so a job file's error names its line.
            return Err(Error::config(
                format!("fio.{}", m.option),
                "a trim pattern takes one block size (no bssplit, bsrange or bs=READS,WRITES)",
            ));
        }
        if mode != TrimMode::None {
            // The write pattern's offsets and lengths, its writes trimmed (module `trims`).
            let base = FioJob {
                rw: self.rw.base(),
                ..self.clone()
            };
            let inner = Box::new(base.workload(logical_pages, lpn_size)?);
            return Ok(FioWorkload {
                inner: Inner::Trims(trims::TrimStream::new(inner, mode)),
                desc: self.describe(),
            });
        }
        if mode != TrimMode::None && !self.align.blockalign.iter().all(Option::is_none) {
            // fio aligns trims by blockalign's third part, which flashgc does not read.
            return Err(Error::config(
                "fio.blockalign",
                "blockalign on a trim pattern is not modelled",
            ));
        }
        if let Some(m) = &self.block_sizes {
            m.check(lpn_size)?;
        }
        if self.realigned() {
            return self.aligned_workload(logical_pages, lpn_size);
        }
        let (plain, mix) = self.resolved();
        if let Some(mix) = mix {
            return self.mixed_workload(&mix, logical_pages, lpn_size);
        }
        if self.block_sizes.is_some() {
            // The mix is one length for the directions the job uses.
            let mut w = plain.workload(logical_pages, lpn_size)?;
            w.desc = self.describe();
            return Ok(w);
        }
        if self.bs == 0 || self.bs % lpn_size as u64 != 0 {
            return Err(Error::config(
                "fio.bs",
                format!(
                    "{} must be a positive multiple of the LPN size {lpn_size}",
                    self.bs
                ),
            ));
        }
        let pages = self.bs / lpn_size as u64;
        if pages > 1 << 16 {
            return Err(Error::config("fio.bs", "at most 65536 LPNs per request"));
        }
        if !(self.rwmixwrite.is_finite() && (0.0..=100.0).contains(&self.rwmixwrite)) {
            return Err(Error::config(
                "fio.rwmixwrite",
                format!("{} must be in [0, 100]", self.rwmixwrite),
            ));
        }
        if self.numjobs == 0 || self.iodepth == 0 {
            return Err(Error::config(
                "fio.numjobs",
                "numjobs and iodepth must be at least 1",
            ));
        }
        let region = match self.size {
            None => logical_pages,
            Some(b) => {
                let p = b / lpn_size as u64;
                if p == 0 || p > logical_pages {
                    return Err(Error::config("fio.size", format!("{b} bytes must be in [1 LPN, the logical capacity of {logical_pages} pages]")));
                }
                p
            }
        };
        if region < pages {
            return Err(Error::config(
                "fio.size",
                "the region is smaller than one block",
            ));
        }
        // Trim patterns have returned above.
        let read_ratio = self.read_ratio();
        let kind = match self.dist {
            Dist::Uniform
            | Dist::RandomMap
            | Dist::RandomMapFresh
            | Dist::Lfsr
            | Dist::LfsrFresh => SyntheticKind::Uniform,
            Dist::Zipf(theta) => SyntheticKind::Zipf { theta },
            Dist::HotCold {
                write_share,
                space_share,
            } => SyntheticKind::HotCold {
                write_share,
                space_share,
            },
            // Served by `OffsetGenerator` below.
            Dist::Zoned(_)
            | Dist::Pareto { .. }
            | Dist::Normal { .. }
            | Dist::ZipfCentered { .. } => SyntheticKind::Uniform,
        };
        let random = matches!(self.rw, Rw::RandRw | Rw::RandRead | Rw::RandWrite);
        let shaped = if random {
            OffsetGenerator::new(
                &self.dist,
                region,
                pages as u32,
                self.bs,
                read_ratio,
                self.seed,
            )?
        } else {
            None
        };
        if let Some(stream) = self.seq_mix_stream(region, pages, read_ratio)? {
            return Ok(FioWorkload {
                inner: Inner::SeqMix(Box::new(stream)),
                desc: self.describe(),
            });
        }
        let inner = match self.rw.base() {
            Rw::RandRw | Rw::RandRead | Rw::RandWrite => match shaped {
                Some(g) => Inner::Shaped(g),
                None => {
                    let gen = Synthetic::try_new(kind, region, pages as u32, read_ratio, self.seed)
                        .map_err(|e| match e {
                            // A flow's region and block size, not the run's.
                            Error::Config { message, .. } => {
                                Error::config("fio.distribution", message)
                            }
                            e => e,
                        })?;
                    let one_job = |what: &str| {
                        if self.numjobs > 1 {
                            return Err(Error::config(
                                "fio.numjobs",
                                format!("each fio job keeps its own {what}: run the clones as host flows"),
                            ));
                        }
                        Ok(())
                    };
                    if matches!(self.dist, Dist::RandomMap | Dist::RandomMapFresh) {
                        one_job("random map")?;
                        Inner::Mapped {
                            first: (self.dist == Dist::RandomMap).then(|| Box::new(gen.clone())),
                            gen,
                            map: RandomMap::new(region / pages),
                            pages,
                        }
                    } else if matches!(self.dist, Dist::Lfsr | Dist::LfsrFresh) {
                        one_job("lfsr")?;
                        Inner::Cycled {
                            first: (self.dist == Dist::Lfsr).then(|| Box::new(gen.clone())),
                            gen,
                            cycle: BlockCycle::new(region / pages, self.seed),
                            pages,
                        }
                    } else {
                        Inner::Random(gen)
                    }
                }
            },
            _ => {
                let slots = region / pages;
                let per = (slots / self.numjobs as u64).max(1);
                if self.seq_skip % lpn_size as u64 != 0 {
                    return Err(Error::config(
                        "fio.rw",
                        format!(
                            "a skip of {} bytes between sequential requests must be a multiple of the LPN size \
                             {lpn_size}",
                            self.seq_skip
                        ),
                    ));
                }
                let back = self.backwards_pages(region, pages, lpn_size)?;
                Inner::Seq {
                    op: if self.rw == Rw::Write {
                        Op::Write
                    } else {
                        Op::Read
                    },
                    cursors: match back {
                        Some((_, first)) => vec![first],
                        None => (0..self.numjobs as u64)
                            .map(|j| (j * per) % slots * pages)
                            .collect(),
                    },
                    next_job: 0,
                    step: pages + self.seq_skip / lpn_size as u64,
                    limit: slots * pages,
                    pages: pages as u32,
                    back: back.map_or(0, |b| b.0),
                }
            }
        };
        Ok(FioWorkload {
            inner,
            desc: self.describe(),
        })
    }
}

enum Inner {
    /// `cur` restarted from `job` every `every` requests (`left` before the next restart).
    Repeat {
        cur: Box<FioWorkload>,
        job: Box<FioJob>,
        region: u64,
        lpn_size: u32,
        every: u64,
        left: u64,
    },
    Trims(trims::TrimStream),
    /// Boxed: the largest stream by far, and one pointer per `fill` costs nothing.
    SeqMix(Box<SeqMixStream>),
    Mixed(mixed::MixedStream),
    Random(Synthetic),
    /// Uniform draws through fio's random map: `pages` per block.
    Mapped {
        gen: Synthetic,
        map: RandomMap,
        pages: u64,
        /// The generator as it started, restored when a pass ends (fio's reseeding).
        first: Option<Box<Synthetic>>,
    },
    /// `random_generator=lfsr`: `gen` draws the direction, the cycle the block.
    Cycled {
        gen: Synthetic,
        cycle: BlockCycle,
        pages: u64,
        /// The generator as it started, restored when the cycle ends a pass (fio's
        /// reseeding, `randrepeat=1`; None: new directions each pass).
        first: Option<Box<Synthetic>>,
    },
    Shaped(OffsetGenerator),
    /// A job on a grid of `blockalign` (module `align`): `inner`'s requests, `pages` long.
    Resized {
        inner: Box<FioWorkload>,
        pages: u32,
    },
    /// Sequential jobs round robin: each clone's next LPN, `step` LPNs apart, back to 0 at
    /// `limit`; backwards (`back` > 0 LPNs, one clone): `pages - back` apart, a start
    /// before 0 wrapping to `limit - back`.
    Seq {
        op: Op,
        cursors: Vec<u64>,
        next_job: usize,
        step: u64,
        limit: u64,
        pages: u32,
        back: u64,
    },
}

/// The request stream of a [`FioJob`] (infinite; the run stops at its data volume).
pub struct FioWorkload {
    inner: Inner,
    desc: String,
}

impl FioWorkload {
    /// This stream (built from `job` over `region` LPNs of `lpn_size` bytes) started
    /// over every `every` requests, as fio's reseeded passes repeat their draws.
    pub fn repeating(self, every: u64, job: FioJob, region: u64, lpn_size: u32) -> FioWorkload {
        let desc = self.desc.clone();
        FioWorkload {
            inner: Inner::Repeat {
                cur: Box::new(self),
                job: Box::new(job),
                region,
                lpn_size,
                every: every.max(1),
                left: every.max(1),
            },
            desc,
        }
    }
}

impl Workload for FioWorkload {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()> {
        match &mut self.inner {
            Inner::Repeat {
                cur,
                job,
                region,
                lpn_size,
                every,
                left,
            } => {
                let mut n = 0;
                while n < max {
                    if *left == 0 {
                        **cur = job.workload(*region, *lpn_size)?;
                        *left = *every;
                    }
                    let k = (max - n).min(*left as usize);
                    cur.fill(buf, k)?;
                    *left -= k as u64;
                    n += k;
                }
                Ok(())
            }
            Inner::Trims(t) => t.fill(buf, max),
            Inner::SeqMix(s) => s.fill(buf, max),
            Inner::Mixed(m) => m.fill(buf, max),
            Inner::Random(s) => s.fill(buf, max),
            Inner::Mapped {
                gen,
                map,
                pages,
                first,
            } => pass_order::fill_passes(gen, first.as_deref(), map, *pages, buf, max),
            Inner::Cycled {
                gen,
                cycle,
                pages,
                first,
            } => pass_order::fill_passes(gen, first.as_deref(), cycle, *pages, buf, max),
            Inner::Shaped(g) => g.fill(buf, max),
            Inner::Resized { inner, pages } => align::fill_resized(inner, *pages, buf, max),
            Inner::Seq {
                op,
                cursors,
                next_job,
                step,
                limit,
                pages,
                back,
            } => {
                for _ in 0..max {
                    let c = &mut cursors[*next_job];
                    buf.push(Request {
                        time_ns: 0,
                        op: *op,
                        lpn: *c,
                        pages: *pages,
                        content: 0,
                        fua: false,
                    });
                    *c = if *back > 0 {
                        // fio's `pos += ddir_seq_add`, a negative position wrapping to
                        // the region's end plus ddir_seq_add.
                        (*c + *pages as u64)
                            .checked_sub(*back)
                            .unwrap_or(*limit - *back)
                    } else if *c + *step >= *limit {
                        0
                    } else {
                        *c + *step
                    };
                    *next_job = (*next_job + 1) % cursors.len();
                }
                Ok(())
            }
        }
    }
    fn describe(&self) -> String {
        self.desc.clone()
    }
    fn is_infinite(&self) -> bool {
        true
    }
    /// A job's flushes (`fsync=N`, `end_fsync`) are the flows' (`workload/flows`), never
    /// requests of a single job's stream.
    fn may_flush(&self) -> bool {
        false
    }
}

/// fio's size syntax (`str_to_decimal` with `kb_base=1024`): a number (decimals allowed)
/// with an optional k/m/g/t suffix (powers of 1024) and an optional `b` or `ib` after it
/// (`4k`, `4KiB`, `16kb`, `1.5m`). None when it is not a size or is 2^64 bytes or more;
/// callers say which option or field it was and refuse 0 where 0 makes no sense. The job
/// file's sizes, `zoned_abs` zone sizes and the fio flags all read sizes through it.
pub fn parse_size(v: &str) -> Option<u64> {
    let t = v.trim().to_ascii_lowercase();
    let t = t
        .strip_suffix("ib")
        .or_else(|| t.strip_suffix('b'))
        .unwrap_or(&t);
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let x: f64 = num.trim().parse().ok()?;
    if !(x.is_finite() && x >= 0.0 && x * (mult as f64) < 1.8e19) {
        return None;
    }
    Some((x * mult as f64).round() as u64)
}

/// A paper's fio write-ratio series: data volume and checkpoint spacing on the paper's
/// device, scaled to the simulated device by logical capacity.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PaperSeries {
    /// Paper name.
    pub paper: &'static str,
    /// Total data volume on the paper's device, bytes (decimal GB as the papers plot).
    pub volume_bytes: u64,
    /// Checkpoint spacing on the paper's device, bytes.
    pub checkpoint_bytes: u64,
    /// Logical capacity of the paper's device, bytes.
    pub reference_bytes: u64,
    /// Jobs.
    pub numjobs: u32,
    /// Outstanding requests per job (not stated by the papers: fio's default, 1).
    pub iodepth: u32,
}

impl PaperSeries {
    /// `sup-gc` (papers/sup-gc.txt Sec. 5.3.2: randrw, 4 KB, 10 jobs, libaio, 700 GB with
    /// points every 100 GB) or `bf-gc` (papers/bf-gc.txt: the same job, 300 GB, points
    /// every 100 GB). Both ran on Cosmos+ OpenSSD: 8 channels x 8 ways x 8192 blocks x
    /// 128 pages x 16 KiB = 1 TiB raw; op 0.07 (the preset's assumption) gives the logical
    /// reference capacity.
    pub fn named(name: &str) -> Result<PaperSeries> {
        let raw: f64 = (8u64 * 8 * 8192 * 128 * 16384) as f64;
        let reference_bytes = (raw / 1.07) as u64;
        let gb = 1_000_000_000u64;
        match name.trim().to_ascii_lowercase().as_str() {
            "sup-gc" => Ok(PaperSeries {
                paper: "sup-gc",
                volume_bytes: 700 * gb,
                checkpoint_bytes: 100 * gb,
                reference_bytes,
                numjobs: 10,
                iodepth: 1,
            }),
            "bf-gc" => Ok(PaperSeries {
                paper: "bf-gc",
                volume_bytes: 300 * gb,
                checkpoint_bytes: 100 * gb,
                reference_bytes,
                numjobs: 10,
                iodepth: 1,
            }),
            _ => Err(Error::config(
                "fio.paper",
                format!("`{name}`: allowed sup-gc, bf-gc"),
            )),
        }
    }

    /// Factor from the paper's device to one of `logical_bytes` (simulated = paper x factor).
    pub fn scale(&self, logical_bytes: u64) -> f64 {
        logical_bytes as f64 / self.reference_bytes as f64
    }
}
