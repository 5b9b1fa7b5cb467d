//! The job-file options flashgc understands: a job's defaults (fio's) and the table that
//! applies one `option=value` line to a job, each value checked where it is read so that
//! an error names the file, the line and the option.

use super::block_sizes;
use super::values::{boolean, err, int, only, per_direction, size, size_bytes, time_in, time_ns};
use super::*;
use crate::error::{Error, Result};
use crate::workload::flows::ThinkCount;

impl JobSpec {
    pub(super) fn defaults(seed_line: usize) -> JobSpec {
        JobSpec {
            name: String::new(),
            line: seed_line,
            group: 0,
            rw: Rw::Read,
            rwmixwrite: 50.0,
            bs: 4096,
            block_sizes: None,
            bs_write: None,
            bsrange_rw: (None, None),
            bssplit_rw: (None, None),
            size: None,
            offset: SizeSpec::Bytes(0),
            offset_increment: SizeSpec::Bytes(0),
            numjobs: 1,
            iodepth: 1,
            ioengine: engine::DEFAULT_ENGINE.to_string(),
            engine: EngineKind::Sync,
            iodepth_capped: None,
            dist: Dist::Uniform,
            random_pct: [100, 100],
            seq_every: 1,
            seq_skip: 0,
            seq_back: 0,
            rw_identical: false,
            blockalign: [None, None],
            bs_unaligned: false,
            io_size: None,
            number_ios: None,
            loops: 1,
            offset_align: None,
            fill_device: false,
            lfsr: false,
            randrepeat: true,
            runtime_ns: None,
            ramp_ns: None,
            time_based: false,
            barrier: false,
            norandommap: false,
            startdelay_ns: 0,
            rate_cap_iops: None,
            thinktime_ns: 0,
            thinktime_blocks: None,
            thinktime_iotime_ns: 0,
            thinktime_count: ThinkCount::Complete,
            fsync_blocks: 0,
            end_fsync: false,
            fsync_on_close: false,
            sync_writes: false,
            write_barrier: 0,
            rate_iops_rw: (None, None),
            rate_bytes_rw: (None, None),
            steady: JobSteady::default(),
            lines: Vec::new(),
        }
    }

    /// Applies `option[=value]`; returns whether it was a group barrier (`stonewall`,
    /// `new_group`).
    pub(super) fn set(
        &mut self,
        file: &str,
        line: usize,
        option: &str,
        value: Option<&str>,
    ) -> Result<bool> {
        let need = || value.ok_or_else(|| err(file, line, option, "needs a value (option=value)"));
        self.lines.push((option.to_string(), line));
        match option {
            "rw" | "readwrite" => {
                let v = need()?;
                let (pat, suffix) = match v.split_once(':') {
                    Some((p, s)) => (p, Some(s)),
                    None => (v, None),
                };
                self.seq_every = 1;
                self.seq_skip = 0;
                self.seq_back = 0;
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
                            format!("`{p}`: supported randrw, randwrite, randread, write, read, trim, randtrim, trimwrite, randtrimwrite"),
                        )
                    })?,
                };
                match (suffix, self.rw) {
                    (None, _) => {}
                    (Some(n), Rw::RandRw | Rw::RandRead | Rw::RandWrite) => {
                        self.seq_every = int(file, line, option, n, 1, u32::MAX as u64)? as u32
                    }
                    (Some(n), Rw::Write | Rw::Read) => {
                        // fio's `str_rw_cb`: a signed size, negative for backwards.
                        let (back, n) = match n.trim().strip_prefix('-') {
                            Some(rest) => (true, rest),
                            None => (false, n),
                        };
                        let b = crate::workload::fio::parse_size(n).filter(|&b| b > 0).ok_or_else(|| {
                            err(
                                file,
                                line,
                                option,
                                format!(
                                    "`{v}`: the skip after each request is a non-zero size (`:SIZE` forwards, \
                                     `:-SIZE` backwards)"
                                ),
                            )
                        })?;
                        if back {
                            self.seq_back = b;
                        } else {
                            self.seq_skip = b;
                        }
                    }
                    (Some(_), _) => {
                        return Err(err(
                            file,
                            line,
                            option,
                            format!("`{v}`: the `:N` modifier is not modelled on trim patterns"),
                        ))
                    }
                }
            }
            "percentage_random" | "percentage_sequential" => {
                let seq = option == "percentage_sequential";
                let (r, w) = per_direction(need()?, |p| {
                    int(file, line, option, p, 0, 100).map(|x| if seq { 100 - x } else { x } as u8)
                })?;
                if r.is_none() && w.is_none() {
                    return Err(err(file, line, option, "needs a percentage, or READS,WRITES"));
                }
                self.random_pct = [r.unwrap_or(self.random_pct[0]), w.unwrap_or(self.random_pct[1])];
            }
            "rw_sequencer" => {
                let v = need()?;
                self.rw_identical = match v.trim().to_ascii_lowercase().as_str() {
                    "sequential" => false,
                    "identical" => true,
                    _ => {
                        return Err(err(
                            file,
                            line,
                            option,
                            format!("`{v}`: allowed: sequential (fio's default), identical"),
                        ))
                    }
                }
            }
            "blockalign" | "ba" => {
                let (r, w) = block_sizes::per_direction(need()?, block_sizes::positive_size)
                    .map_err(|m| err(file, line, option, m))?;
                self.lines.push(("blockalign".to_string(), line));
                self.blockalign = [r.or(self.blockalign[0]), w.or(self.blockalign[1])];
            }
            "bs_unaligned" | "blocksize_unaligned" => {
                self.bs_unaligned = boolean(file, line, option, value)?
            }
            "rwmixwrite" => self.rwmixwrite = int(file, line, option, need()?, 0, 100)? as f64,
            "rwmixread" => {
                self.rwmixwrite = 100.0 - int(file, line, option, need()?, 0, 100)? as f64
            }
            "bs" | "blocksize" => {
                let (r, w) = block_sizes::per_direction(need()?, block_sizes::positive_size)
                    .map_err(|m| err(file, line, option, m))?;
                // Later checks name the mix's option by its short name (`line_of("bs")`).
                self.lines.push(("bs".to_string(), line));
                if let Some(r) = r {
                    self.bs = r;
                }
                if let Some(w) = w {
                    self.bs_write = Some(w);
                }
            }
            "bsrange" | "blocksize_range" => {
                let (r, w) = block_sizes::per_direction(need()?, block_sizes::range)
                    .map_err(|m| err(file, line, option, m))?;
                self.lines.push(("bsrange".to_string(), line));
                self.bsrange_rw = (r.or(self.bsrange_rw.0.take()), w.or(self.bsrange_rw.1.take()));
            }
            "bssplit" => {
                let (r, w) = block_sizes::per_direction(need()?, block_sizes::split_list)
                    .map_err(|m| err(file, line, option, m))?;
                self.bssplit_rw = (r.or(self.bssplit_rw.0.take()), w.or(self.bssplit_rw.1.take()));
            }
            "size" => self.size = Some(size(file, line, option, need()?)?),
            "offset" => self.offset = size(file, line, option, need()?)?,
            "offset_align" => self.offset_align = Some(size_bytes(file, line, option, need()?)?),
            "randrepeat" => self.randrepeat = boolean(file, line, option, value)?,
            "fill_device" | "fill_fs" => self.fill_device = boolean(file, line, option, value)?,
            // Options whose default alone is modelled: accepted with that value.
            "kb_base" => only(file, line, option, need()?, &["1024"], "fio's default: sizes in powers of 1024")?,
            "nrfiles" => only(file, line, option, need()?, &["1"], "one file: the simulated device")?,
            "verify" => only(file, line, option, need()?, &["0", "none"], "verification reads are not modelled")?,
            "do_verify" => {}
            "random_generator" => {
                let v = need()?;
                self.lfsr = v.trim().eq_ignore_ascii_case("lfsr");
                if !self.lfsr {
                    only(
                        file,
                        line,
                        option,
                        v,
                        &["tausworthe", "tausworthe64", "lfsr"],
                        "tausworthe draws are flashgc's own seeded generator",
                    )?
                }
            }
            "offset_increment" => {
                self.offset_increment = size(file, line, option, need()?)?
            }
            "io_size" | "io_limit" => self.io_size = Some(size(file, line, option, need()?)?),
            "number_ios" => {
                self.number_ios = Some(int(file, line, option, need()?, 1, u64::MAX)?)
            }
            "loops" => self.loops = int(file, line, option, need()?, 1, 1 << 20)? as u32,
            "numjobs" => self.numjobs = int(file, line, option, need()?, 1, 1 << 16)? as u32,
            "iodepth" => self.iodepth = int(file, line, option, need()?, 1, 1 << 16)? as u32,
            "ioengine" => {
                let v = need()?;
                self.engine = engine::classify(v).map_err(|m| err(file, line, option, m))?;
                self.ioengine = v.trim().to_string();
            }
            "random_distribution" => {
                let v = need()?;
                self.dist = Dist::parse(v).map_err(|e| match e {
                    Error::Config { message, .. } => err(file, line, option, message),
                    e => e,
                })?;
            }
            "runtime" | "timeout" => self.runtime_ns = Some(time_ns(file, line, option, need()?)?),
            "ramp_time" => self.ramp_ns = Some(time_ns(file, line, option, need()?)?),
            "time_based" => self.time_based = boolean(file, line, option, value)?,
            "norandommap" => self.norandommap = boolean(file, line, option, value)?,
            "startdelay" => self.startdelay_ns = time_ns(file, line, option, need()?)?,
            "thinktime" => self.thinktime_ns = time_in(file, line, option, need()?, 1e3)?,
            "thinktime_blocks" => {
                self.thinktime_blocks = Some(int(file, line, option, need()?, 1, u32::MAX as u64 - 1)? as u32)
            }
            // fio: seconds without a unit (`is_seconds`).
            "thinktime_iotime" => self.thinktime_iotime_ns = time_in(file, line, option, need()?, 1e9)?,
            "thinktime_blocks_type" => {
                let v = need()?;
                self.thinktime_count = match v.trim().to_ascii_lowercase().as_str() {
                    "complete" => ThinkCount::Complete,
                    "issue" => ThinkCount::Issue,
                    _ => return Err(err(file, line, option, format!("`{v}`: allowed: complete (fio's default), issue"))),
                }
            }
            "rate_iops" => {
                self.rate_iops_rw = per_direction(need()?, |p| {
                    p.parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite() && *x > 0.0)
                        .ok_or_else(|| {
                            err(file, line, option, format!("`{p}` is not a positive number of IOPS"))
                        })
                })?
            }
            "rate" => {
                self.rate_bytes_rw = per_direction(need()?, |p| match size(file, line, option, p)? {
                    SizeSpec::Bytes(b) if b > 0 => Ok(b),
                    _ => Err(err(file, line, option, format!("`{p}` is not a positive rate in bytes/s (e.g. 1m)"))),
                })?
            }
            "rate_process" => {
                let v = need()?;
                if !v.trim().eq_ignore_ascii_case("linear") {
                    return Err(err(file, line, option, format!("`{v}`: only `linear` (fio's default) is modelled")));
                }
            }
            "stonewall" | "wait_for_previous" | "new_group" => {
                return boolean(file, line, option, value)
            }
            o if self.set_steady_option(file, line, o, value)? => {}
            o if ignored::IGNORED.contains(&o) => {}
            o if self.set_sync_option(file, line, o, value)? => {}
            o => {
                return Err(err(
                    file,
                    line,
                    o,
                    "is not supported by flashgc (supported: rw, rwmixwrite, rwmixread, bs, bsrange, bssplit, blockalign, \
                     bs_unaligned, size, offset, offset_increment, numjobs, iodepth, ioengine, percentage_random, \
                     rw=randX:N, rw_sequencer, rw=write:SKIP, rw=write:-SKIP, random_distribution, io_size, number_ios, loops, offset_align, fill_device, runtime, ramp_time, time_based, startdelay, rate, rate_iops, \
                     thinktime, thinktime_blocks, thinktime_blocks_type, thinktime_iotime, stonewall, new_group, ss, ss_dur, ss_ramp, group_reporting; file and \
                     reporting options are ignored)",
                ))
            }
        }
        Ok(false)
    }
}
