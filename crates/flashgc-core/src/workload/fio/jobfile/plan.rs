//! A parsed job file planned onto the engine ([`JobPlan`]): jobs that differ only in
//! `numjobs` and volume merged onto the closed-loop fio model, everything else one host flow
//! per job section and clone. The command line (`flashgc fio --job`) and the Python package
//! (`flashgc.run(fio_job=...)`) both run a job file through this plan, so they agree.

use super::{JobFile, MergedJob};
use crate::error::{Error, Result};
use crate::workload::fio::{Dist, FioJob};
use crate::workload::flows::{FlowSet, FlowSpec};
use crate::workload::Workload;

/// How a job file runs.
#[derive(Debug, Clone)]
pub enum JobPlan {
    /// One group of identical jobs (clones summed), as the fio flags (boxed: a job is
    /// several times the size of the flows' vector).
    Merged(Box<MergedJob>),
    /// One host flow per job section (and clone), each with its own statistics.
    Flows {
        /// The flows.
        specs: Vec<FlowSpec>,
        /// Host data the jobs transfer, bytes (the run ends there or when every flow has
        /// issued its requests; `u64::MAX` when a job is time-based).
        data_bytes: u64,
        /// What the plan found that a user would not expect from the file alone, for the
        /// run's notes (a job that fio ends before its volume).
        notes: Vec<String>,
    },
}

/// A planned job file ready to run: its workload and what the host model needs.
pub struct PlannedRun {
    /// The requests: the merged job's stream, or the flows.
    pub workload: Box<dyn Workload>,
    /// The closed loop's depth for a merged job (`numjobs x iodepth`); None for flows,
    /// which keep their own.
    pub queue_depth: Option<u32>,
    /// Host data the run transfers, bytes.
    pub data_bytes: u64,
}

impl JobFile {
    /// Reads and parses the job file at `path` (errors name it).
    pub fn read(path: &str) -> Result<JobFile> {
        let text = crate::text_file::read(path)
            .map_err(|e| Error::Input(format!("{path}: cannot read the job file: {e}")))?;
        super::parse(path, &text)
    }

    /// What the run approximates, one line each, for its result's notes:
    ///
    /// * uniform random jobs with a block-size mix and fio's default random map (each
    ///   block once per pass), whose offsets flashgc draws with replacement, as fio does
    ///   with `norandommap` (the map is modelled for jobs of one block size,
    ///   [`crate::workload::fio::RandomMap`]);
    /// * trim-then-write jobs with `io_size`, `number_ios` or `loops`, whose requests fio counts by
    ///   rules flashgc does not follow ([`super::JobSpec::plain_requests`]);
    ///
    /// * jobs with `bs_unaligned` ranges, whose lengths flashgc rounds up to the LPNs they
    ///   touch (module `fio::align`);
    ///
    /// * jobs whose engine queues its syncs (io_uring, ...), and `sync=1` jobs with the
    ///   write cache (module `flush`);
    ///
    /// and, exact but easy to miss, jobs whose synchronous engine capped their `iodepth`
    /// at 1, as fio does (module `engine`), jobs whose `blockalign` turned fio's random
    /// map off, and `write_barrier`, which changes nothing in fio 3.33.
    pub fn notes(&self) -> Vec<String> {
        let names = |keep: &dyn Fn(&super::JobSpec) -> bool| -> String {
            let v: Vec<&str> = self
                .jobs
                .iter()
                .filter(|j| keep(j))
                .map(|j| j.name.as_str())
                .collect();
            v.join(", ")
        };
        let mut notes = Vec::new();
        let mixed = names(&|j| !j.rw.sequential() && j.dist == Dist::Uniform && !j.norandommap);
        if !mixed.is_empty() {
            notes.push(format!(
                "{}: job(s) {mixed} mix block sizes and draw uniform random offsets with replacement, as fio's \
                 norandommap=1; fio's default random map (each block once per pass) is modelled for jobs of one \
                 block size only (approximate; add norandommap=1 to the job file to match exactly)",
                self.file
            ));
        }
        // init.c `fixup_options` warns so too.
        let realigned =
            names(&|j| j.realigned() && !j.lines.iter().any(|(o, _)| o == "norandommap"));
        if !realigned.is_empty() {
            notes.push(format!(
                "{}: job(s) {realigned} set blockalign, which turns fio's random map off (\"Any use of blockalign= \
                 turns off randommap\"): their random offsets are drawn with replacement, as fio's",
                self.file
            ));
        }
        let unaligned = names(&|j| {
            j.bs_unaligned
                && j.block_sizes.as_ref().is_some_and(|m| {
                    [&m.read, &m.write]
                        .iter()
                        .any(|s| matches!(s, crate::workload::fio::Sizes::Range { .. }))
                })
        });
        if !unaligned.is_empty() {
            notes.push(format!(
                "{}: job(s) {unaligned} draw lengths that are not whole LPNs (bs_unaligned): a request writes or reads \
                 every LPN its bytes touch, as a trace's requests do, and its host bytes count those whole LPNs \
                 (approximate)",
                self.file
            ));
        }
        let trimwrite = names(&|j| {
            j.rw.trim_mode().per_block() > 1
                && (j.io_size.is_some() || j.number_ios.is_some() || j.loops > 1)
        });
        if !trimwrite.is_empty() {
            notes.push(format!(
                "{}: trim-then-write job(s) {trimwrite} set io_size, number_ios or loops, whose trims and writes fio \
                 counts by rules of its own; flashgc issues a trim and a write per block of the volume \
                 (approximate request count)",
                self.file
            ));
        }
        let unrepeated = names(&|j| {
            j.block_sizes.is_some()
                && j.engine == super::EngineKind::Async
                && j.randrepeat
                && !j.time_based
                && !j.rw.sequential()
                && matches!(j.dist, Dist::Uniform | Dist::Zoned(_))
                && (j.io_size.is_some() || j.loops > 1)
        });
        if !unrepeated.is_empty() {
            notes.push(format!(
                "{}: job(s) {unrepeated} mix block sizes on an asynchronous engine: fio ends their passes at `size` \
                 bytes and repeats its draws each pass, which flashgc models for one block size only; here the \
                 draws run on (approximate)",
                self.file
            ));
        }
        let barriers = names(&|j| j.write_barrier > 0);
        if !barriers.is_empty() {
            notes.push(format!(
                "{}: job(s) {barriers} set write_barrier, which changes nothing in fio 3.33 (it flags every N-th \
                 write IO_U_F_BARRIER only for engines with FIO_BARRIER, libpmem, and no engine reads the flag): \
                 accepted without effect",
                self.file
            ));
        }
        let queued = names(&|j| {
            j.flushes() && j.fsync_blocks > 0 && j.sync_issue() == super::SyncIssue::Queued
        });
        if !queued.is_empty() {
            notes.push(format!(
                "{}: job(s) {queued} queue their fsync/fdatasync beside their requests ({}): a sync goes into \
                 every slot that frees before one has completed, as fio's last_was_sync; each flushes the pages \
                 the write cache holds dirty when it is issued and completes when the job's earlier writes have \
                 (approximate: docs/flows.md, \"Flushes\")",
                self.file,
                self.jobs
                    .iter()
                    .filter(|j| j.fsync_blocks > 0 && j.sync_issue() == super::SyncIssue::Queued)
                    .map(|j| j.ioengine.as_str())
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let synced = names(&|j| j.sync_writes && j.rw.writes());
        if !synced.is_empty() {
            notes.push(format!(
                "{}: job(s) {synced} open their file O_SYNC (sync=1): with the write cache each write is \
                 programmed before it completes, its own pages only, as a write with FUA (a device without FUA \
                 would flush its whole cache); without the cache nothing changes",
                self.file
            ));
        }
        for j in &self.jobs {
            if let Some(d) = j.iodepth_capped {
                notes.push(format!(
                    "{}: job {}: ioengine={}{} is synchronous, so fio caps iodepth={d} at 1 (\"queue depth will be \
                     capped at 1\") and flashgc runs it at 1 too; set ioengine=libaio or io_uring for {d} requests \
                     in flight",
                    self.file,
                    j.name,
                    j.ioengine,
                    if j.ioengine == super::engine::DEFAULT_ENGINE && !j.lines.iter().any(|(o, _)| o == "ioengine") {
                        " (fio's default)"
                    } else {
                        ""
                    }
                ));
            }
        }
        notes
    }

    /// Whether a job's stream has passes the merged model does not follow: sequential
    /// picks, an asynchronous engine's with-replacement passes that repeat their draws, or
    /// passes that end in a drain of the queue (`JobSpec::drain_every`), which each clone
    /// does on its own.
    fn passes_of_their_own(&self, capacity: u64) -> bool {
        self.jobs.iter().any(|j| {
            j.has_seq_mix()
                || j.clone_region(&self.file, capacity, 0)
                    .is_ok_and(|r| j.repeat_every(&r).is_some() || j.drain_every(&r).is_some())
        })
    }

    /// Whether a job has a run time or a ramp (`runtime`, `ramp_time`), a start delay, a
    /// rate cap, a think time, flushes or steady-state detection: those run as host flows, which pace, end and
    /// measure each job by its own clock.
    fn timed(&self) -> bool {
        self.jobs.iter().any(|j| {
            j.runtime_ns.is_some()
                || j.ramp_ns.is_some()
                || j.paced()
                || j.steady.spec().is_some()
                || j.flushes()
                || (j.sync_writes && j.rw.writes())
        })
    }

    /// Plans the jobs on a device of `logical_pages` pages of `lpn_size` bytes with the run's
    /// `seed`, checking them there: an error names the file, the line and the option.
    pub fn plan(&self, logical_pages: u64, lpn_size: u32, seed: u64) -> Result<JobPlan> {
        let capacity = logical_pages.saturating_mul(lpn_size as u64);
        match self.merge(capacity, seed) {
            Ok(m) if !self.timed() && !self.passes_of_their_own(capacity) => {
                // Checked as it runs: several clones are flows of one job each.
                FioJob {
                    numjobs: 1,
                    ..m.job.clone()
                }
                .workload(logical_pages, lpn_size)
                .map_err(|e| self.at_line(e))?;
                Ok(JobPlan::Merged(Box::new(m)))
            }
            _ => {
                let (specs, data_bytes, notes) = self.flows(logical_pages, lpn_size, seed)?;
                FlowSet::new(specs.clone(), logical_pages, lpn_size)
                    .map_err(|e| self.at_line(e))?;
                Ok(JobPlan::Flows {
                    specs,
                    data_bytes,
                    notes,
                })
            }
        }
    }

    /// One flow per job section and clone: its pattern, region (fio's placement of clones,
    /// [`super::CloneRegion`]), depth, group, and its volume (`io_size`, `number_ios`, else
    /// its region): as many requests as it holds blocks, or, for a job whose lengths vary
    /// (`bssplit`, `bsrange`, `bs=R,W`), its bytes (the flow ends after the request that
    /// reaches them) and `number_ios` as a request count.
    fn flows(
        &self,
        logical_pages: u64,
        lpn_size: u32,
        seed: u64,
    ) -> Result<(Vec<FlowSpec>, u64, Vec<String>)> {
        let capacity = logical_pages.saturating_mul(lpn_size as u64);
        let mut notes = Vec::new();
        let mut specs = Vec::new();
        let mut data = 0u64;
        for (k, j) in self.jobs.iter().enumerate() {
            let regions = (0..j.numjobs)
                .map(|c| j.clone_region(&self.file, capacity, c))
                .collect::<Result<Vec<_>>>()?;
            // The longest request bounds what `number_ios` requests transfer.
            let longest = j
                .block_sizes
                .as_ref()
                .map_or(j.bs, |m| m.read.max().max(m.write.max()));
            let job = FioJob {
                rw: j.rw,
                rwmixwrite: j.rwmixwrite,
                bs: j.bs,
                block_sizes: j.block_sizes.clone(),
                size: None,
                numjobs: j.numjobs,
                iodepth: j.iodepth,
                dist: j.dist.clone(),
                seq_mix: None,
                seed: seed.wrapping_add(k as u64 * 1000),
                seq_skip: j.seq_skip,
                backwards: None,
                align: j.alignment(),
            };
            let placed: Vec<(u64, Option<u64>)> =
                regions.iter().map(|r| (r.offset, Some(r.size))).collect();
            for (mut f, r) in FlowSpec::from_fio_clones(&j.name, &job, &placed)
                .into_iter()
                .zip(&regions)
            {
                // Trim-then-write issues each byte twice, and fio doubles `number_ios` too.
                // ... and `loops` runs the volume (and `number_ios`) that many times.
                let twice = j.rw.trim_mode().per_block() * j.loops as u64;
                // A plain job's volume is a request count (fio's passes, `number_ios` at
                // most); a mixed one's is bytes, with `number_ios` a count besides, and
                // its last request may run past them by less than the longest request:
                // the run's volume (`run_bytes`) must not end the flow before it.
                j.check_holes(&self.file, r)?;
                f.job.seq_mix = j.seq_mix_of(&self.file, r, capacity)?;
                f.job.backwards = j.backwards(r);
                let seq_mix_requests = f
                    .job
                    .seq_mix_requests(
                        logical_pages,
                        lpn_size,
                        r.io_bytes,
                        j.io_size.is_some(),
                        j.loops,
                        j.number_ios,
                    )
                    .map_err(|e| self.at_line(e))?;
                let (requests, bytes, run_bytes) = match (&j.block_sizes, seq_mix_requests) {
                    // Sequential picks: fio's passes, run through (module `seq_mix`),
                    // against what the volume alone would issue.
                    (None, Some(n)) => {
                        let volume = j.plain_requests(r);
                        if n < volume && !j.time_based {
                            notes.push(format!(
                                "{}: flow {}: {n} of the {volume} requests of its volume: a sequential pick ran off \
                                 the region's end, which ends fio's pass, and without io_size fio ends the job there \
                                 (keep_running: the file is done), as flashgc does",
                                self.file, f.name
                            ));
                        }
                        (Some(n), None, n.saturating_mul(j.bs))
                    }
                    (None, None) => {
                        let n = j.plain_requests(r);
                        (Some(n), None, n.saturating_mul(j.bs))
                    }
                    (Some(_), _) => {
                        let b = r.io_bytes.saturating_mul(twice);
                        let capped = j.number_ios.map_or(b, |n| {
                            b.min(n.saturating_mul(twice).saturating_mul(longest))
                        });
                        (
                            j.number_ios.map(|n| n.saturating_mul(twice)),
                            Some(b.max(1)),
                            capped.saturating_add(longest),
                        )
                    }
                };
                // `time_based`: the run time alone ends the job.
                f.requests = requests.filter(|_| !j.time_based);
                f.bytes = bytes.filter(|_| !j.time_based);
                // `stonewall`/`new_group`: the group starts when the groups before it end.
                f.group = j.group;
                f.runtime_ns = j.runtime_ns;
                f.ramp_ns = j.ramp_ns.unwrap_or(0);
                f.start_ns = j.startdelay_ns;
                f.rate_cap_iops = j.rate_cap_iops;
                f.thinktime_ns = j.thinktime_ns;
                // fio's handle_thinktime: with thinktime_iotime and no thinktime_blocks,
                // stalls go by time alone.
                let by_time = j.thinktime_iotime_ns > 0 && j.thinktime_ns > 0;
                f.thinktime_blocks = match j.thinktime_blocks {
                    Some(b) => b,
                    None if by_time => u32::MAX,
                    None => 1,
                };
                f.thinktime_iotime_ns = Some(j.thinktime_iotime_ns).filter(|_| by_time);
                f.thinktime_count = j.thinktime_count;
                f.repeat_every = j.repeat_every(r).filter(|_| seq_mix_requests.is_none());
                f.drain_every = j.drain_every(r);
                if j.flushes() {
                    f.flush_every = Some(j.fsync_blocks).filter(|&n| n > 0);
                    f.end_flush = j.end_fsync || j.fsync_on_close;
                    f.close_flush = j.fsync_on_close;
                    f.queued_flush = j.sync_issue() == super::SyncIssue::Queued;
                    f.runs_past_end = j.runs_past_end(r);
                }
                f.sync_writes = j.sync_writes && j.rw.writes();
                f.steady = j.steady.spec();
                specs.push(f);
                if !j.time_based {
                    data = data.saturating_add(run_bytes);
                }
            }
            if j.time_based {
                data = u64::MAX;
            }
        }
        Ok((specs, data, notes))
    }

    /// A check of the jobs on the device (naming `fio.OPTION` for the merged job, `flow
    /// `NAME`.OPTION` for a section run as a flow) as the parser's own errors read:
    /// `FILE:LINE: option `OPTION`: ...`, at the line of the section that sets the option
    /// (its header when the value is a default). Other errors pass unchanged.
    pub fn at_line(&self, e: Error) -> Error {
        let Error::Config { field, message } = &e else {
            return e;
        };
        let (job, option) = if let Some(o) = field.strip_prefix("fio.") {
            (self.jobs.first(), o)
        } else if let Some((name, o)) = field
            .strip_prefix("flow `")
            .and_then(|r| r.split_once("`."))
        {
            // Clones of a section are `NAME.j`.
            let base = match name.rsplit_once('.') {
                Some((b, j)) if j.parse::<u32>().is_ok() => b,
                _ => name,
            };
            (
                self.jobs.iter().find(|j| j.name == name || j.name == base),
                o,
            )
        } else {
            return e;
        };
        // The flag's and the flow's `distribution` is the job file's `random_distribution`.
        let option = if option == "distribution" {
            "random_distribution"
        } else {
            option
        };
        match job {
            Some(j) => Error::Input(format!(
                "{}:{}: option `{option}`: {message}",
                self.file,
                j.line_of(option)
            )),
            None => e,
        }
    }
}

impl JobPlan {
    /// The plan's own notes for the run (see [`JobPlan::Flows`]).
    pub fn notes(&self) -> &[String] {
        match self {
            JobPlan::Flows { notes, .. } => notes,
            JobPlan::Merged(_) => &[],
        }
    }

    /// The plan's workload on a device of `logical_pages` pages of `lpn_size` bytes; the
    /// merged job's seed is the run's `seed` (as the fio flags'), each clone a host flow of
    /// its own when there are several.
    pub fn start(&self, logical_pages: u64, lpn_size: u32, seed: u64) -> Result<PlannedRun> {
        match self {
            JobPlan::Flows {
                specs, data_bytes, ..
            } => Ok(PlannedRun {
                workload: Box::new(FlowSet::new(specs.clone(), logical_pages, lpn_size)?),
                queue_depth: None,
                data_bytes: *data_bytes,
            }),
            JobPlan::Merged(m) => {
                let mut job = m.job.clone();
                job.seed = seed;
                let workload: Box<dyn Workload> = if job.numjobs > 1 {
                    // As the fio flags: each clone is a host flow of its own.
                    let specs = FlowSpec::from_fio("job", &job, 0, logical_pages * lpn_size as u64);
                    Box::new(FlowSet::new(specs, logical_pages, lpn_size)?)
                } else {
                    Box::new(job.workload(logical_pages, lpn_size)?)
                };
                Ok(PlannedRun {
                    workload,
                    queue_depth: Some(job.queue_depth()),
                    data_bytes: m.data_bytes,
                })
            }
        }
    }
}
