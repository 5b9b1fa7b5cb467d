//! fio job files: the subset people use for SSD work, parsed into one [`JobSpec`] per job
//! section with `[global]` defaults applied. Each job keeps its own pattern, queue depth,
//! region, volume and time limits, and the group it runs in (`stonewall` / `new_group`);
//! [`CloneRegion`] places its clones as fio does and [`JobPlan`] maps the jobs onto the engine
//! (merged onto the closed-loop fio model, or one host flow per section and clone) for
//! `flashgc fio --job` and Python's `flashgc.run(fio_job=...)` alike.
//!
//! Parsing is pure (text in, specs out); errors name the file, the line and the option.

use super::block_sizes::{self, BlockSizeMix, Sizes};
use super::{Dist, Rw};
use crate::error::{Error, Result};
use crate::workload::flows::ThinkCount;
use values::err;

mod values;

mod align;
mod engine;
mod flush;
mod holes;
mod ignored;
mod limits;
mod merge;
mod options;
mod passes;
mod plan;
mod region;
mod seq;
mod steady;
pub use engine::EngineKind;
pub use flush::SyncIssue;
pub use merge::MergedJob;
pub use plan::{JobPlan, PlannedRun};
pub use region::CloneRegion;
pub use steady::JobSteady;

/// A size that may be relative to the device (`size=50%`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum SizeSpec {
    /// Bytes.
    Bytes(u64),
    /// Percent of the device's logical capacity.
    Percent(f64),
}

impl SizeSpec {
    /// Bytes on a device of `capacity` bytes.
    pub fn bytes(self, capacity: u64) -> u64 {
        match self {
            SizeSpec::Bytes(b) => b,
            SizeSpec::Percent(p) => (capacity as f64 * p / 100.0) as u64,
        }
    }
}

/// One job section after `[global]` defaults.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JobSpec {
    /// Section name.
    pub name: String,
    /// Line of the section header.
    pub line: usize,
    /// Group index: jobs of one group run together; groups run one after another.
    pub group: u32,
    /// Access pattern (`rw`).
    pub rw: Rw,
    /// Percentage of writes for `randrw` (`rwmixwrite`, or 100 - `rwmixread`).
    pub rwmixwrite: f64,
    /// Block size, bytes (of reads when `bs=READS,WRITES` gives two).
    pub bs: u64,
    /// Per-direction lengths when the job has more than one (`bs=R,W`, `bsrange`,
    /// `bssplit`; fio's precedence: bssplit over bsrange over bs), resolved when the file
    /// is parsed; None: every request is `bs` long.
    pub block_sizes: Option<BlockSizeMix>,
    /// `bs`'s write part as given.
    bs_write: Option<u64>,
    /// `bsrange` as given: (reads, writes).
    bsrange_rw: (Option<Sizes>, Option<Sizes>),
    /// `bssplit` as given: (reads, writes).
    bssplit_rw: (Option<Sizes>, Option<Sizes>),
    /// Region size (None: the whole device from `offset`).
    pub size: Option<SizeSpec>,
    /// Region start.
    pub offset: SizeSpec,
    /// Distance between the starts of consecutive clones (`offset_increment`; fio's default
    /// 0: every clone addresses the same region).
    pub offset_increment: SizeSpec,
    /// Clones of this job.
    pub numjobs: u32,
    /// Outstanding requests per clone: `iodepth`, or 1 with a synchronous engine.
    pub iodepth: u32,
    /// `ioengine` (fio's default: `psync`).
    pub ioengine: String,
    /// Whether the engine keeps more than one request in flight.
    pub engine: EngineKind,
    /// The `iodepth` given when a synchronous engine capped it at 1 (fio's note "queue
    /// depth will be capped at 1"; the run's notes say so).
    pub iodepth_capped: Option<u32>,
    /// Offset distribution (random patterns).
    pub dist: Dist,
    /// `percentage_random` per direction (reads, writes; `percentage_sequential` is 100
    /// minus it): the share of a random job's offsets that are random (module `seq_mix`).
    pub random_pct: [u8; 2],
    /// `rw=randX:N`: only every Nth request may take a random offset (1: all).
    pub seq_every: u32,
    /// `rw=write:SKIP` (sequential patterns): bytes skipped after each request.
    pub seq_skip: u64,
    /// `rw=write:-SKIP` (sequential patterns): bytes stepped back after each request
    /// (fio's negative `ddir_seq_add`; module `align`); 0: forwards.
    pub seq_back: u64,
    /// `rw_sequencer=identical`: with `rw=randX:N` the requests between random ones
    /// repeat the last offset (module `seq_mix`).
    pub rw_identical: bool,
    /// `blockalign` per direction (reads, writes), bytes; None: the direction's smallest
    /// length (fio's default). Random patterns only, as fio.
    pub blockalign: [Option<u64>; 2],
    /// `bs_unaligned`: `bsrange`/`bssplit` lengths are not rounded down to a multiple of
    /// the smallest (module `align`).
    pub bs_unaligned: bool,
    /// Bytes each clone transfers (`io_size`; default: `size`).
    pub io_size: Option<SizeSpec>,
    /// Requests each clone issues per loop (`number_ios`).
    pub number_ios: Option<u64>,
    /// `offset_align`: what a percentage `offset` is rounded up to (default: the smallest
    /// block size).
    pub offset_align: Option<u64>,
    /// `random_generator=lfsr`: uniform random offsets follow one permutation of the
    /// region's blocks, the same every pass (fio's LFSR; [`Dist::Lfsr`]).
    pub lfsr: bool,
    /// `randrepeat` (default true): each pass after the first repeats the first's random
    /// draws ([`Dist::RandomMap`]).
    pub randrepeat: bool,
    /// `fill_device`/`fill_fs`: the region runs from `offset` to the device's end, whatever
    /// `size` says (fio writes until the device is full).
    pub fill_device: bool,
    /// Times the job runs over its volume (`loops`; default 1): each loop is one more pass
    /// over the region, and `io_size` and `number_ios` count per loop.
    pub loops: u32,
    /// Run time limit, simulated ns (`runtime`).
    pub runtime_ns: Option<u64>,
    /// Time excluded from the statistics at the start, simulated ns (`ramp_time`).
    pub ramp_ns: Option<u64>,
    /// `time_based`: the job runs for its `runtime` however much data that takes (its
    /// volume does not end it).
    pub time_based: bool,
    /// `stonewall` / `new_group`: this job starts a new group.
    pub barrier: bool,
    /// `norandommap`: uniform random offsets are drawn with replacement. fio's default
    /// (false) keeps a map of the blocks done and takes the next free one after each draw
    /// (modelled for jobs of one block size: [`crate::workload::fio::RandomMap`]).
    pub norandommap: bool,
    /// Delay of the job's first request, simulated ns (`startdelay`; 0: none).
    pub startdelay_ns: u64,
    /// The job's rate cap, requests per simulated second (`rate_iops`, or `rate` / `bs`;
    /// None: no cap), resolved for its direction when the file is parsed.
    pub rate_cap_iops: Option<f64>,
    /// fio's `thinktime`, simulated ns: after every `thinktime_blocks` requests the job
    /// waits for the requests it has in flight, then this long (0: never).
    pub thinktime_ns: u64,
    /// `thinktime_blocks` (1: after every request; None: not set, which with
    /// `thinktime_iotime` means never by count).
    pub thinktime_blocks: Option<u32>,
    /// `thinktime_iotime`, simulated ns (0: none): a stall also once this long plus the
    /// think time has passed since the last one.
    pub thinktime_iotime_ns: u64,
    /// `thinktime_blocks_type`: what counts toward `thinktime_blocks`.
    pub thinktime_count: ThinkCount,
    /// `fsync` / `fdatasync`: a flush after every this many writes issued (0: none; to a
    /// block device both are one flush command; module `flows::flush`).
    pub fsync_blocks: u32,
    /// `end_fsync`: a flush at the end of each of the job's passes.
    pub end_fsync: bool,
    /// `fsync_on_close`: a flush at the end of each pass, and one more when fio closes the
    /// file inside a pass (module `flush`).
    pub fsync_on_close: bool,
    /// `sync=1` (`sync`, `dsync`): every write is durable when it completes.
    pub sync_writes: bool,
    /// `write_barrier`: accepted, without effect in fio 3.33 (module `flush`).
    pub write_barrier: u32,
    /// `rate_iops` as given: (reads, writes), fio's comma form.
    rate_iops_rw: (Option<f64>, Option<f64>),
    /// `rate` as given, bytes per second: (reads, writes).
    rate_bytes_rw: (Option<u64>, Option<u64>),
    /// fio's steady-state detection and `group_reporting` (module `steady`).
    pub steady: JobSteady,
    /// Lines where options were set (option name -> line), for error messages.
    pub lines: Vec<(String, usize)>,
}

impl JobSpec {
    /// Turns `rate`/`rate_iops` into one cap for the job's direction and checks the think
    /// time against the queue depth.
    fn resolve_pacing(&mut self, file: &str) -> Result<()> {
        let (iops, bytes) = (self.rate_iops_rw, self.rate_bytes_rw);
        let given = |x: (Option<f64>, Option<f64>)| x.0.is_some() || x.1.is_some();
        // fio's `rate` is bytes per second; flashgc paces by requests, which a varying
        // length does not convert to.
        let per_request = |b: u64, write: bool| {
            match self.fixed_bs(write) {
            Some(bs) => Ok(b as f64 / bs as f64),
            None => Err(err(
                file,
                self.line_of("rate"),
                "rate",
                format!(
                    "job `{}` varies its block size ({}): a byte rate does not give a request rate; use rate_iops",
                    self.name,
                    self.block_sizes.as_ref().map_or(String::new(), |m| m.describe())
                ),
            )),
        }
        };
        let bytes_iops = (
            bytes.0.map(|b| per_request(b, false)).transpose()?,
            bytes.1.map(|b| per_request(b, true)).transpose()?,
        );
        let (option, rw) = match (given(iops), given(bytes_iops)) {
            (true, true) => {
                return Err(err(
                    file,
                    self.line_of("rate"),
                    "rate",
                    "give rate or rate_iops, not both",
                ))
            }
            (true, false) => ("rate_iops", iops),
            (false, true) => ("rate", bytes_iops),
            (false, false) => ("rate_iops", (None, None)),
        };
        let line = self.line_of(option);
        self.rate_cap_iops = match self.rw {
            Rw::Read | Rw::RandRead => rw.0,
            Rw::Write | Rw::RandWrite => rw.1,
            Rw::RandRw if given(rw) => {
                return Err(err(
                    file,
                    line,
                    option,
                    format!(
                        "job `{}` mixes reads and writes, which fio caps each at its own rate; flashgc's flows take \
                         one rate per job: split it into a read job and a write job",
                        self.name
                    ),
                ))
            }
            Rw::RandRw => None,
            Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite if given(rw) => {
                return Err(err(
                    file,
                    line,
                    option,
                    format!(
                        "job `{}` trims; fio caps trims at the third rate (READS,WRITES,TRIMS), which flashgc \
                         does not model",
                        self.name
                    ),
                ))
            }
            Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite => None,
        };
        if let Some(c) = self.rate_cap_iops.filter(|&c| c < 1.0) {
            return Err(err(
                file,
                line,
                option,
                format!("{c} requests/s: the cap must allow at least one request per second"),
            ));
        }
        Ok(())
    }

    /// Resolves `bs`, `bsrange` and `bssplit` per direction as fio does (`bssplit` over
    /// `bsrange` over `bs`, whatever their order): one length for both directions stays a
    /// plain `bs`; anything else is a [`BlockSizeMix`] named after the option that made it.
    fn resolve_block_sizes(&mut self) {
        let read = self
            .bssplit_rw
            .0
            .clone()
            .or(self.bsrange_rw.0.clone())
            .unwrap_or(Sizes::Fixed(self.bs));
        let write = self
            .bssplit_rw
            .1
            .clone()
            .or(self.bsrange_rw.1.clone())
            .unwrap_or(Sizes::Fixed(self.bs_write.unwrap_or(self.bs)));
        self.block_sizes = match (&read, &write) {
            (Sizes::Fixed(a), Sizes::Fixed(b)) if a == b => {
                self.bs = *a;
                None
            }
            _ => {
                let option = if self.bssplit_rw.0.is_some() || self.bssplit_rw.1.is_some() {
                    "bssplit"
                } else if self.bsrange_rw.0.is_some() || self.bsrange_rw.1.is_some() {
                    "bsrange"
                } else {
                    "bs"
                };
                Some(BlockSizeMix {
                    option: option.into(),
                    read,
                    write,
                })
            }
        };
    }

    /// The one length of direction `write` (None: that direction's lengths vary).
    fn fixed_bs(&self, write: bool) -> Option<u64> {
        match &self.block_sizes {
            None => Some(self.bs),
            Some(m) => match if write { &m.write } else { &m.read } {
                Sizes::Fixed(b) => Some(*b),
                _ => None,
            },
        }
    }

    /// Whether the job has its own clock for its requests: a start delay, a rate cap or a
    /// think time (such jobs run as host flows).
    pub fn paced(&self) -> bool {
        self.startdelay_ns > 0 || self.rate_cap_iops.is_some() || self.thinktime_ns > 0
    }

    /// The line an option was set on (the section line if it came from a default).
    pub fn line_of(&self, option: &str) -> usize {
        self.lines
            .iter()
            .rev()
            .find(|(o, _)| o == option)
            .map_or(self.line, |l| l.1)
    }
}

/// A parsed job file.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JobFile {
    /// File name (for messages).
    pub file: String,
    /// Job sections in file order.
    pub jobs: Vec<JobSpec>,
}

/// Parses the text of a job file (`file` names it in errors).
pub fn parse(file: &str, text: &str) -> Result<JobFile> {
    let mut global = JobSpec::defaults(0);
    let mut jobs: Vec<JobSpec> = Vec::new();
    let mut cur: Option<JobSpec> = None;
    let mut in_global = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with(';') {
            continue;
        }
        if let Some(rest) = l.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or_else(|| {
                    Error::Input(format!("{file}:{line}: section header `{l}` lacks `]`"))
                })?
                .trim();
            if name.is_empty() {
                return Err(Error::Input(format!("{file}:{line}: empty section name")));
            }
            if let Some(j) = cur.take() {
                jobs.push(j);
            }
            if name == "global" {
                in_global = true;
            } else {
                in_global = false;
                let mut j = global.clone();
                j.name = name.to_string();
                j.line = line;
                cur = Some(j);
            }
            continue;
        }
        if l.starts_with("include ") || l.contains('$') {
            return Err(Error::Input(format!(
                "{file}:{line}: `include` and `$` variable expansion are not supported"
            )));
        }
        let (opt, val) = match l.split_once('=') {
            Some((o, v)) => (o.trim(), Some(v.trim())),
            None => (l, None),
        };
        if in_global {
            if global.set(file, line, opt, val)? {
                return Err(err(
                    file,
                    line,
                    opt,
                    "belongs in a job section, not [global]",
                ));
            }
        } else if let Some(j) = cur.as_mut() {
            if j.set(file, line, opt, val)? {
                j.barrier = true;
            }
        } else {
            return Err(Error::Input(format!(
                "{file}:{line}: option `{opt}` before any section ([global] or [job])"
            )));
        }
    }
    if let Some(j) = cur.take() {
        jobs.push(j);
    }
    if jobs.is_empty() {
        return Err(Error::Input(format!(
            "{file}: no job section (a [name] section other than [global])"
        )));
    }
    let mut g = 0;
    for (k, j) in jobs.iter_mut().enumerate() {
        // As fio: a run time of 0 is no limit.
        j.runtime_ns = j.runtime_ns.filter(|&r| r > 0);
        j.ramp_ns = j.ramp_ns.filter(|&r| r > 0);
        if j.time_based && j.runtime_ns.is_none() {
            return Err(err(
                file,
                j.line_of("time_based"),
                "time_based",
                format!(
                    "job `{}` has no runtime: a time-based job runs until its runtime ends (give runtime=TIME)",
                    j.name
                ),
            ));
        }
        if j.engine == EngineKind::Sync && j.iodepth > 1 {
            j.iodepth_capped = Some(j.iodepth);
            j.iodepth = 1;
        }
        j.resolve_block_sizes();
        j.resolve_pacing(file)?;
        j.resolve_blockalign(file)?;
        j.check_flushes(file)?;
        // fio's default random offsets go through its random map (module `random_map`);
        // requests of several lengths are not modelled with it (the plan's notes say so).
        // `random_generator=lfsr` replaces both (with or without norandommap, as fio's
        // logs show); fio applies it to uniform offsets only.
        if !j.rw.sequential() && j.dist == Dist::Uniform && j.lfsr {
            if let Some(m) = &j.block_sizes {
                return Err(err(
                    file,
                    j.line_of("random_generator"),
                    "random_generator",
                    format!(
                        "job `{}`: lfsr works with one block size (fio's documentation), not {}",
                        j.name,
                        m.describe()
                    ),
                ));
            }
            j.dist = Dist::in_passes(true, j.randrepeat && !j.time_based);
        } else if !j.rw.sequential()
            && j.dist == Dist::Uniform
            && !j.norandommap
            && j.block_sizes.is_none()
        {
            j.dist = Dist::in_passes(false, j.randrepeat && !j.time_based);
        }
        j.check_seq_mix(file)?;
        if j.barrier && k > 0 {
            g += 1;
        }
        j.group = g;
    }
    limits::check_totals(file, &jobs)?;
    for (k, j) in jobs.iter().enumerate() {
        let group: Vec<&JobSpec> = jobs[..k].iter().filter(|o| o.group == j.group).collect();
        j.check_steady(file, &group)?;
    }
    Ok(JobFile {
        file: file.to_string(),
        jobs,
    })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_align;
#[cfg(test)]
mod tests_issue;
#[cfg(test)]
mod tests_steady;
