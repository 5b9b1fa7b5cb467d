//! fio job files: the subset people use for SSD work, parsed into one [`JobSpec`] per job
//! section with `[global]` defaults applied. Each job keeps its own pattern, queue depth,
//! region, volume and time limits, and the group it runs in (`stonewall` / `new_group`),
//! so the specs can feed per-flow host models; today's closed-loop model runs one group of
//! identical jobs (see `flashgc fio --job`, docs/timing.md).
//!
//! Parsing is pure (text in, specs out); errors name the file, the line and the option.

use super::{Dist, FioJob, Rw};
use crate::error::{Error, Result};

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
    /// Block size, bytes.
    pub bs: u64,
    /// Region size (None: the whole device from `offset`).
    pub size: Option<SizeSpec>,
    /// Region start.
    pub offset: SizeSpec,
    /// Clones of this job.
    pub numjobs: u32,
    /// Outstanding requests per clone.
    pub iodepth: u32,
    /// Offset distribution (random patterns).
    pub dist: Dist,
    /// Bytes each clone transfers (`io_size`; default: `size`).
    pub io_size: Option<SizeSpec>,
    /// Requests each clone issues (`number_ios`).
    pub number_ios: Option<u64>,
    /// Run time limit, simulated ns (`runtime`).
    pub runtime_ns: Option<u64>,
    /// Time excluded from the statistics at the start, simulated ns (`ramp_time`).
    pub ramp_ns: Option<u64>,
    /// `time_based`: the job runs for its `runtime` however much data that takes (its
    /// volume does not end it).
    pub time_based: bool,
    /// `stonewall` / `new_group`: this job starts a new group.
    pub barrier: bool,
    /// Lines where options were set (option name -> line), for error messages.
    pub lines: Vec<(String, usize)>,
}

impl JobSpec {
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

/// Options that do not change what the simulated device sees (the engine, files, output
/// and reporting): accepted and ignored.
const IGNORED: &[&str] = &[
    "ioengine",
    "direct",
    "buffered",
    "filename",
    "uri",
    "group_reporting",
    "thread",
    "description",
    "name",
    "randrepeat",
    "norandommap",
    "invalidate",
    "lat_percentiles",
    "clat_percentiles",
    "percentile_list",
    "write_bw_log",
    "write_lat_log",
    "write_iops_log",
    "log_avg_msec",
    "per_job_logs",
    "exitall",
    "iodepth_batch_submit",
    "iodepth_batch_complete_min",
    "iodepth_batch_complete_max",
    "iodepth_batch",
    "iodepth_low",
    "fadvise_hint",
    "allow_file_create",
    "unified_rw_reporting",
    "disable_lat",
    "disable_clat",
    "disable_slat",
    "gtod_reduce",
    "refill_buffers",
    "scramble_buffers",
    "randseed",
    "ioscheduler",
    "cpus_allowed",
];

fn err(file: &str, line: usize, option: &str, msg: impl std::fmt::Display) -> Error {
    Error::Input(format!("{file}:{line}: option `{option}`: {msg}"))
}

/// fio's size syntax: a number with an optional k/m/g/t suffix (powers of 1024, fio's
/// default `kb_base=1024`), or a percentage of the device.
fn size(file: &str, line: usize, option: &str, v: &str) -> Result<SizeSpec> {
    let t = v.trim().to_ascii_lowercase();
    if let Some(p) = t.strip_suffix('%') {
        let x: f64 = p
            .trim()
            .parse()
            .map_err(|_| err(file, line, option, format!("`{v}` is not a percentage")))?;
        if !(x > 0.0 && x <= 100.0) {
            return Err(err(
                file,
                line,
                option,
                format!("{x} % must be in (0, 100]"),
            ));
        }
        return Ok(SizeSpec::Percent(x));
    }
    let t = t.trim_end_matches('b').trim_end_matches('i');
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let x: f64 = num.trim().parse().map_err(|_| {
        err(
            file,
            line,
            option,
            format!("`{v}` is not a size (e.g. 4k, 128m, 1g, 50%)"),
        )
    })?;
    if !(x.is_finite() && x >= 0.0 && x * (mult as f64) < 1.8e19) {
        return Err(err(file, line, option, format!("`{v}` is out of range")));
    }
    Ok(SizeSpec::Bytes((x * mult as f64).round() as u64))
}

/// fio's time syntax: seconds by default; suffixes us, ms, s, m, h, d.
fn time_ns(file: &str, line: usize, option: &str, v: &str) -> Result<u64> {
    let t = v.trim().to_ascii_lowercase();
    let (num, mult) = if let Some(n) = t.strip_suffix("us") {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix("ms") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1e9)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60e9)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600e9)
    } else if let Some(n) = t.strip_suffix('d') {
        (n, 86400e9)
    } else {
        (t.as_str(), 1e9)
    };
    let x: f64 = num.trim().parse().map_err(|_| {
        err(
            file,
            line,
            option,
            format!("`{v}` is not a time (e.g. 30, 500ms, 2m)"),
        )
    })?;
    if !(x.is_finite() && x >= 0.0 && x * mult < 1.8e19) {
        return Err(err(file, line, option, format!("`{v}` is out of range")));
    }
    Ok((x * mult).round() as u64)
}

fn int(file: &str, line: usize, option: &str, v: &str, lo: u64, hi: u64) -> Result<u64> {
    let x: u64 = v.trim().parse().map_err(|_| {
        err(
            file,
            line,
            option,
            format!("`{v}` is not a non-negative integer"),
        )
    })?;
    if x < lo || x > hi {
        return Err(err(
            file,
            line,
            option,
            format!("{x} must be in {lo}..={hi}"),
        ));
    }
    Ok(x)
}

fn boolean(file: &str, line: usize, option: &str, v: Option<&str>) -> Result<bool> {
    match v.map(|s| s.trim()) {
        None | Some("1") | Some("true") => Ok(true),
        Some("0") | Some("false") => Ok(false),
        Some(o) => Err(err(file, line, option, format!("`{o}`: expected 0 or 1"))),
    }
}

impl JobSpec {
    fn defaults(seed_line: usize) -> JobSpec {
        JobSpec {
            name: String::new(),
            line: seed_line,
            group: 0,
            rw: Rw::Read,
            rwmixwrite: 50.0,
            bs: 4096,
            size: None,
            offset: SizeSpec::Bytes(0),
            numjobs: 1,
            iodepth: 1,
            dist: Dist::Uniform,
            io_size: None,
            number_ios: None,
            runtime_ns: None,
            ramp_ns: None,
            time_based: false,
            barrier: false,
            lines: Vec::new(),
        }
    }

    /// Applies `option[=value]`; returns whether it was a group barrier (`stonewall`,
    /// `new_group`).
    fn set(&mut self, file: &str, line: usize, option: &str, value: Option<&str>) -> Result<bool> {
        let need = || value.ok_or_else(|| err(file, line, option, "needs a value (option=value)"));
        self.lines.push((option.to_string(), line));
        match option {
            "rw" | "readwrite" => {
                let v = need()?;
                let (pat, suffix) = match v.split_once(':') {
                    Some((p, s)) => (p, Some(s)),
                    None => (v, None),
                };
                if suffix.is_some() {
                    return Err(err(
                        file,
                        line,
                        option,
                        format!("`{v}`: the `:N` sequence modifier is not supported"),
                    ));
                }
                self.rw = match pat.trim() {
                    "rw" | "readwrite" => {
                        return Err(err(
                            file,
                            line,
                            option,
                            "sequential mixed reads and writes are not supported (randrw, randwrite, randread, write, read are)",
                        ))
                    }
                    p => Rw::parse(p).map_err(|_| {
                        err(
                            file,
                            line,
                            option,
                            format!("`{p}`: supported randrw, randwrite, randread, write, read"),
                        )
                    })?,
                };
            }
            "rwmixwrite" => self.rwmixwrite = int(file, line, option, need()?, 0, 100)? as f64,
            "rwmixread" => {
                self.rwmixwrite = 100.0 - int(file, line, option, need()?, 0, 100)? as f64
            }
            "bs" | "blocksize" => {
                let v = need()?;
                if v.contains(',') || v.contains(':') {
                    return Err(err(
                        file,
                        line,
                        option,
                        format!("`{v}`: one block size for reads and writes is supported"),
                    ));
                }
                match size(file, line, option, v)? {
                    SizeSpec::Bytes(b) if b > 0 => self.bs = b,
                    _ => return Err(err(file, line, option, "must be a positive size in bytes")),
                }
            }
            "size" => self.size = Some(size(file, line, option, need()?)?),
            "offset" => self.offset = size(file, line, option, need()?)?,
            "io_size" | "io_limit" => self.io_size = Some(size(file, line, option, need()?)?),
            "number_ios" => {
                self.number_ios = Some(int(file, line, option, need()?, 1, u64::MAX)?)
            }
            "numjobs" => self.numjobs = int(file, line, option, need()?, 1, 1 << 16)? as u32,
            "iodepth" => self.iodepth = int(file, line, option, need()?, 1, 1 << 16)? as u32,
            "random_distribution" => {
                let v = need()?;
                self.dist = Dist::parse(v).map_err(|_| {
                    err(
                        file,
                        line,
                        option,
                        format!("`{v}`: supported random, zipf:THETA"),
                    )
                })?;
            }
            "runtime" | "timeout" => self.runtime_ns = Some(time_ns(file, line, option, need()?)?),
            "ramp_time" => self.ramp_ns = Some(time_ns(file, line, option, need()?)?),
            "time_based" => self.time_based = boolean(file, line, option, value)?,
            "stonewall" | "wait_for_previous" | "new_group" => {
                return boolean(file, line, option, value)
            }
            o if IGNORED.contains(&o) => {}
            o => {
                return Err(err(
                    file,
                    line,
                    o,
                    "is not supported by flashgc (supported: rw, rwmixwrite, rwmixread, bs, size, offset, numjobs, iodepth, \
                     random_distribution, io_size, number_ios, runtime, ramp_time, stonewall, new_group; engine and \
                     reporting options are ignored)",
                ))
            }
        }
        Ok(false)
    }
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
        if j.barrier && k > 0 {
            g += 1;
        }
        j.group = g;
    }
    Ok(JobFile {
        file: file.to_string(),
        jobs,
    })
}

/// A job file mapped onto today's closed-loop fio model ([`FioJob`]): one group of jobs
/// with the same pattern, merged into one stream with their clones summed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MergedJob {
    /// The merged job.
    pub job: FioJob,
    /// Host data to transfer (reads + writes), bytes: the jobs' volumes summed.
    pub data_bytes: u64,
    /// Run time limit, simulated ns.
    pub runtime_ns: Option<u64>,
    /// Ramp time excluded from latency and IOPS, simulated ns.
    pub ramp_ns: Option<u64>,
}

impl JobFile {
    /// Maps the jobs onto one [`FioJob`] on a device of `capacity` bytes. Errors (naming
    /// the file, line and option) for what the merged model cannot represent: several
    /// groups, a non-zero offset, or jobs that differ in anything but `numjobs` and their
    /// volume. Per-job statistics and differing jobs need per-flow host models.
    pub fn merge(&self, capacity: u64, seed: u64) -> Result<MergedJob> {
        let f = &self.file;
        let first = &self.jobs[0];
        if let Some(j) = self.jobs.iter().find(|j| j.group > 0) {
            return Err(err(
                f,
                j.line_of("stonewall").max(j.line_of("new_group")).max(j.line_of("wait_for_previous")),
                "stonewall",
                format!(
                    "job `{}` starts a second group; groups run one after another, which needs per-flow host models \
                     (today's model runs one group of jobs)",
                    j.name
                ),
            ));
        }
        let mut clones = 0u32;
        let mut data = 0u64;
        for j in &self.jobs {
            if j.offset.bytes(capacity) != 0 {
                return Err(err(
                    f,
                    j.line_of("offset"),
                    "offset",
                    "a region that does not start at 0 needs per-flow host models (today's jobs address [0, size))",
                ));
            }
            let same: [(&str, bool); 8] = [
                ("rw", j.rw == first.rw),
                ("rwmixwrite", j.rwmixwrite == first.rwmixwrite),
                ("bs", j.bs == first.bs),
                (
                    "size",
                    j.size.map(|s| s.bytes(capacity)) == first.size.map(|s| s.bytes(capacity)),
                ),
                ("iodepth", j.iodepth == first.iodepth),
                ("random_distribution", j.dist == first.dist),
                ("runtime", j.runtime_ns == first.runtime_ns),
                ("ramp_time", j.ramp_ns == first.ramp_ns),
            ];
            if let Some((o, _)) = same.iter().find(|s| !s.1) {
                return Err(err(
                    f,
                    j.line_of(o),
                    o,
                    format!(
                        "jobs `{}` (line {}) and `{}` (line {}) differ in `{o}`: jobs with different patterns need per-flow \
                         host models; today's model merges jobs that differ only in numjobs and volume",
                        first.name, first.line, j.name, j.line
                    ),
                ));
            }
            let region = j.size.map_or(capacity, |s| s.bytes(capacity));
            let mut per = j.io_size.map_or(region, |s| s.bytes(capacity));
            if let Some(n) = j.number_ios {
                per = per.min(n.saturating_mul(j.bs));
            }
            clones = clones.saturating_add(j.numjobs);
            data = data.saturating_add(per.saturating_mul(j.numjobs as u64));
        }
        Ok(MergedJob {
            job: FioJob {
                rw: first.rw,
                rwmixwrite: first.rwmixwrite,
                bs: first.bs,
                size: first.size.map(|s| s.bytes(capacity)),
                numjobs: clones,
                iodepth: first.iodepth,
                dist: first.dist,
                seed,
            },
            data_bytes: data,
            runtime_ns: first.runtime_ns,
            ramp_ns: first.ramp_ns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_defaults_sections_and_groups() {
        let t = "; comment\n[global]\nioengine=libaio\nrw=randwrite\nbs=4k\niodepth=16\nsize=1g\n\n[a]\nnumjobs=2\n\n[b]\nrwmixread=30\nrw=randrw\nruntime=2s\nramp_time=500ms\nstonewall\n";
        let f = parse("x.fio", t).unwrap();
        assert_eq!(f.jobs.len(), 2);
        let a = &f.jobs[0];
        assert_eq!(
            (a.rw, a.bs, a.iodepth, a.numjobs, a.group),
            (Rw::RandWrite, 4096, 16, 2, 0)
        );
        assert_eq!(a.size, Some(SizeSpec::Bytes(1 << 30)));
        let b = &f.jobs[1];
        assert_eq!((b.rw, b.rwmixwrite, b.group), (Rw::RandRw, 70.0, 1));
        assert_eq!(b.runtime_ns, Some(2_000_000_000));
        assert_eq!(b.ramp_ns, Some(500_000_000));
        assert_eq!(b.line, 12);
        assert_eq!(b.line_of("rw"), 14);
    }

    #[test]
    fn errors_name_file_line_and_option() {
        let e = parse("j.fio", "[a]\nrw=randwrite\nverify=crc32c\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("j.fio:3: option `verify`"), "{e}");
        let e = parse("j.fio", "[a]\nbs=4k,8k\n").unwrap_err().to_string();
        assert!(e.contains("j.fio:2: option `bs`"), "{e}");
        let e = parse("j.fio", "[a]\nrw=trimwrite\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("j.fio:2: option `rw`"), "{e}");
        let e = parse("j.fio", "rw=read\n").unwrap_err().to_string();
        assert!(e.contains("j.fio:1"), "{e}");
        let e = parse("j.fio", "[global]\nbs=4k\n").unwrap_err().to_string();
        assert!(e.contains("no job section"), "{e}");
        let e = parse("j.fio", "[a]\niodepth=0\n").unwrap_err().to_string();
        assert!(e.contains("j.fio:2: option `iodepth`"), "{e}");
    }

    #[test]
    fn merge_sums_clones_and_volumes_and_refuses_what_it_cannot_model() {
        let t =
            "[global]\nrw=randwrite\nbs=8k\niodepth=4\nsize=1m\n[a]\nnumjobs=2\n[b]\nio_size=3m\n";
        let m = parse("m.fio", t).unwrap().merge(64 << 20, 7).unwrap();
        assert_eq!(
            (m.job.numjobs, m.job.iodepth, m.job.bs, m.job.size),
            (3, 4, 8192, Some(1 << 20))
        );
        assert_eq!(m.data_bytes, 2 * (1 << 20) + (3 << 20));
        let e = parse("m.fio", "[a]\nrw=randwrite\n[b]\nrw=randwrite\nbs=8k\n")
            .unwrap()
            .merge(64 << 20, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("m.fio:5: option `bs`"), "{e}");
        let e = parse("m.fio", "[a]\nrw=write\n[b]\nstonewall\nrw=write\n")
            .unwrap()
            .merge(64 << 20, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("m.fio:4: option `stonewall`"), "{e}");
        let e = parse("m.fio", "[a]\noffset=1m\n")
            .unwrap()
            .merge(64 << 20, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("m.fio:2: option `offset`"), "{e}");
    }

    #[test]
    fn sizes_and_times() {
        assert_eq!(
            size("f", 1, "size", "50%").unwrap(),
            SizeSpec::Percent(50.0)
        );
        assert_eq!(
            size("f", 1, "size", "16KiB").unwrap(),
            SizeSpec::Bytes(16384)
        );
        assert_eq!(
            size("f", 1, "size", "2m").unwrap(),
            SizeSpec::Bytes(2 << 20)
        );
        assert_eq!(time_ns("f", 1, "runtime", "90").unwrap(), 90_000_000_000);
        assert_eq!(time_ns("f", 1, "runtime", "250us").unwrap(), 250_000);
        assert_eq!(time_ns("f", 1, "runtime", "2m").unwrap(), 120_000_000_000);
    }
}
