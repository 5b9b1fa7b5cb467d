//! One flow's definition: its arrival process ([`FlowArrival`]) and its pattern, region,
//! start, limits and pacing ([`FlowSpec`]), with the checks a flow must pass and the
//! expansion of a fio job's `numjobs` into flows.

use crate::error::{Error, Result};
use crate::workload::fio::FioJob;
use serde::{Deserialize, Serialize};

/// The longest `thinktime`: 1000 s, far beyond fio's use, so that a completion plus it
/// stays far from the clock's end.
const MAX_THINKTIME_NS: u64 = 1_000_000_000_000;

/// What fio counts toward `thinktime_blocks` (its `thinktime_blocks_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThinkCount {
    /// Completions fio has reaped (fio's default).
    #[default]
    Complete,
    /// Requests issued.
    Issue,
}

impl ThinkCount {
    /// Whether this is fio's default (left out of the result record).
    pub fn is_default(&self) -> bool {
        *self == ThinkCount::Complete
    }

    /// Parses `complete` or `issue`; `field` names the option in errors.
    pub fn parse(field: &str, s: &str) -> Result<ThinkCount> {
        match s.trim().to_ascii_lowercase().as_str() {
            "complete" => Ok(ThinkCount::Complete),
            "issue" => Ok(ThinkCount::Issue),
            _ => Err(Error::config(
                field,
                format!("`{s}`: allowed: complete (fio's default), issue"),
            )),
        }
    }
}

/// Whether `thinktime_blocks` is its default (left out of the result record).
fn is_one(n: &u32) -> bool {
    *n == 1
}

/// How a flow's requests arrive.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum FlowArrival {
    /// Closed loop: `queue_depth` requests outstanding (fio's iodepth; MQSim's
    /// `Average_No_of_Reqs_in_Queue` with a queue-depth-based scenario).
    Closed {
        /// Outstanding requests.
        queue_depth: u32,
    },
    /// Open loop at a fixed rate (fio's `rate_iops`; MQSim's bandwidth-based scenario with
    /// a fixed interval).
    Rate {
        /// Requests per simulated second.
        iops: f64,
    },
}

impl FlowArrival {
    fn describe(&self) -> String {
        match self {
            FlowArrival::Closed { queue_depth } => {
                format!("closed loop, queue depth {queue_depth}")
            }
            FlowArrival::Rate { iops } => format!("open loop, {iops} IOPS"),
        }
    }
}

/// One flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowSpec {
    /// Name in results (fio's section name; `job.N` for numjobs copies).
    pub name: String,
    /// Pattern: `rw`, `rwmixwrite`, `bs`, `size` (the region's length; None = to the end
    /// of the device), distribution and seed (`numjobs` and `iodepth` are not used: one
    /// flow is one job; its depth is in `arrival`).
    pub job: FioJob,
    /// First byte of the flow's region (fio's `offset`).
    pub offset: u64,
    /// Arrival process.
    pub arrival: FlowArrival,
    /// Simulated time of the first arrival, ns (fio's `startdelay`).
    pub start_ns: u64,
    /// Requests the flow issues (None: unbounded; the run's volume ends it).
    pub requests: Option<u64>,
    /// Bytes the flow issues (fio's `size` / `io_size` as a volume): the flow ends after
    /// the request that reaches them, whatever the lengths of its requests (None: no byte
    /// limit). With `requests` too, whichever comes first ends it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Group (fio's `stonewall`/`new_group`): a flow of group g > 0 starts when every flow
    /// of the groups before it has issued all its requests and they have completed (such
    /// flows need a request count or a run time). 0 for flows that start at `start_ns`
    /// regardless.
    pub group: u32,
    /// fio's `runtime`: the flow issues no request at or after its start + `ramp_ns` +
    /// this, simulated ns (None: no time limit; its requests or the run's volume end it).
    /// Requests in flight then complete.
    pub runtime_ns: Option<u64>,
    /// fio's `ramp_time`: requests the flow issues in its first `ramp_ns` ns are served
    /// but left out of its latency, IOPS and bandwidth (0: none). As in fio, a run time
    /// counts from the ramp's end.
    pub ramp_ns: u64,
    /// fio's `rate_iops` on a closed loop (closed-loop flows only): the k-th request
    /// (from 0) arrives no earlier than the flow's start + k / rate, and no earlier than a
    /// slot frees (fio's default `rate_process=linear`: a job ahead of its rate waits, one
    /// behind it issues as its queue allows). None: no cap.
    pub rate_cap_iops: Option<f64>,
    /// fio's `thinktime` (closed-loop flows): after every `thinktime_blocks` requests the
    /// flow waits for all its requests in flight, then this many ns, before it issues the
    /// next (0: no stalls; module `think`).
    pub thinktime_ns: u64,
    /// fio's `thinktime_blocks`: requests (counted as `thinktime_count` says) between stalls
    /// (`u32::MAX`: never by count, fio's `thinktime_iotime` without `thinktime_blocks`).
    #[serde(skip_serializing_if = "is_one")]
    pub thinktime_blocks: u32,
    /// fio's `thinktime_iotime`, ns: the flow also stalls when this long plus the think time
    /// has passed since its last stall (or its first request), as fio's `handle_thinktime`
    /// checks after each request (module `think`). None: by `thinktime_blocks` alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinktime_iotime_ns: Option<u64>,
    /// fio's `thinktime_blocks_type`: what counts toward `thinktime_blocks`.
    #[serde(skip_serializing_if = "ThinkCount::is_default")]
    pub thinktime_count: ThinkCount,
    /// Requests after which the flow's offsets and directions start over (fio reseeds its
    /// generators at each pass of an asynchronous engine; the job file's plan sets it,
    /// `JobSpec::repeat_every`). None: the stream runs on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat_every: Option<u64>,
    /// Requests in one of fio's passes (`loops`, or `io_size` beyond `size`): after every
    /// this many requests (but the last) the flow waits for every request it has in flight
    /// before it issues the next, as fio reaps all pending I/O at the end of each `do_io`
    /// (module `drain`; the job file's plan sets it, [`crate::workload::fio::jobfile::JobSpec::drain_every`]).
    /// None: the flow never drains (one pass, `time_based`, or a depth of 1, where the
    /// wait changes nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drain_every: Option<u64>,
    /// fio's `fsync=N` / `fdatasync=N`: a flush after every N writes the flow issues
    /// (module `flush`; None: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flush_every: Option<u32>,
    /// fio's `end_fsync`: a flush after each pass's drain and after the flow's last
    /// request.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub end_flush: bool,
    /// fio's `fsync_on_close`: besides the end flushes, one more at the end of every pass
    /// but the last, where fio closes the file inside the pass (module `flush`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub close_flush: bool,
    /// The flow's engine queues its `fsync=N` flushes beside its requests, each in a slot
    /// of its queue (fio's io_uring, posixaio, ...); false: the flow issues nothing until
    /// a flush completes (synchronous engines, libaio; module `flush`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub queued_flush: bool,
    /// fio's `sync=1` (O_SYNC): each write completes only once durable, so with the write
    /// cache its pages are programmed before it completes (write-through for the flow).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sync_writes: bool,
    /// The flow's last pass runs past its last request (fio's byte limit not reached when
    /// its blocks run out), so the `fsync=N` flush due after its last write is issued.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub runs_past_end: bool,
    /// fio's steady-state detection (`ss`, `ss_dur`, `ss_ramp`; module `steady`): the
    /// flow stops issuing once it (or its group) is steady. None: off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady: Option<super::SteadySpec>,
}

impl FlowSpec {
    /// Whether the flow ends by itself: a request count or a byte volume.
    pub fn bounded(&self) -> bool {
        self.requests.is_some() || self.bytes.is_some()
    }

    /// The most LPNs the flow can issue when it is bounded (its longest request each
    /// time; the byte volume's last request may run past it by less than one request).
    pub(super) fn most_pages(&self, lpn_size: u32) -> Option<u64> {
        let lpn = lpn_size.max(1) as u64;
        let longest = self
            .job
            .block_sizes
            .as_ref()
            .map_or(self.job.bs, |m| m.read.max().max(m.write.max()))
            .div_ceil(lpn)
            .max(1);
        let by_count = self.requests.map(|n| n.saturating_mul(longest));
        let by_bytes = self.bytes.map(|b| b.div_ceil(lpn).saturating_add(longest));
        match (by_count, by_bytes) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The arrival process in words, with its rate cap and think time.
    pub(super) fn describe_arrival(&self) -> String {
        let mut d = self.arrival.describe();
        if let Some(iops) = self.rate_cap_iops {
            d.push_str(&format!(", at most {iops} IOPS"));
        }
        if self.thinktime_ns > 0 {
            d.push_str(&format!(
                ", think time {} us",
                self.thinktime_ns as f64 / 1e3
            ));
            let by_count = self.thinktime_blocks != u32::MAX;
            if by_count
                && (self.thinktime_blocks != 1 || self.thinktime_count != ThinkCount::Complete)
            {
                let what = match self.thinktime_count {
                    ThinkCount::Complete => "completions",
                    ThinkCount::Issue => "requests issued",
                };
                d.push_str(&format!(" every {} {what}", self.thinktime_blocks));
            }
            if let Some(io) = self.thinktime_iotime_ns {
                let or = if by_count { " or" } else { "" };
                d.push_str(&format!("{or} after {} us of I/O", io as f64 / 1e3));
            }
        }
        d
    }

    pub(super) fn validate(&self, logical_pages: u64, lpn_size: u32) -> Result<(u64, u64)> {
        let field = |f: &str| format!("flow `{}`.{f}", self.name);
        let lpn = lpn_size as u64;
        if self.offset % lpn != 0 {
            return Err(Error::config(
                field("offset"),
                format!("{} must be a multiple of the LPN size {lpn}", self.offset),
            ));
        }
        let off = self.offset / lpn;
        if off >= logical_pages {
            return Err(Error::config(
                field("offset"),
                format!(
                    "{} bytes must be below the logical capacity ({} bytes)",
                    self.offset,
                    logical_pages * lpn
                ),
            ));
        }
        let region = match self.job.size {
            None => logical_pages - off,
            Some(b) => b / lpn,
        };
        if region == 0 || off + region > logical_pages {
            return Err(Error::config(
                field("size"),
                format!(
                    "offset + size = {} bytes must be in (offset, logical capacity = {} bytes]",
                    (off + region) * lpn,
                    logical_pages * lpn
                ),
            ));
        }
        match self.arrival {
            FlowArrival::Closed { queue_depth } if queue_depth == 0 || queue_depth > 1 << 16 => {
                return Err(Error::config(
                    field("iodepth"),
                    format!("{queue_depth} must be in [1, 65536]"),
                ))
            }
            // At least one request per second, as `--rate`: slower arrivals would saturate
            // the ns clock in a long run.
            FlowArrival::Rate { iops } if !(iops.is_finite() && iops >= 1.0) => {
                return Err(Error::config(
                    field("rate_iops"),
                    format!("{iops} must be a number of requests/s >= 1"),
                ))
            }
            _ => {}
        }
        match (self.arrival, self.rate_cap_iops, self.thinktime_ns) {
            (FlowArrival::Rate { .. }, Some(_), _) => {
                return Err(Error::config(
                    field("rate_iops"),
                    "caps a closed loop; an open-loop flow has its rate already",
                ))
            }
            (_, Some(iops), _) if !(iops.is_finite() && iops >= 1.0) => {
                return Err(Error::config(
                    field("rate_iops"),
                    format!("{iops} must be a number of requests/s >= 1"),
                ))
            }
            (FlowArrival::Rate { .. }, _, t) if t > 0 => {
                return Err(Error::config(
                    field("thinktime"),
                    "applies to a closed loop: an open-loop flow does not wait for completions",
                ))
            }
            (_, _, t) if t > MAX_THINKTIME_NS => {
                return Err(Error::config(
                    field("thinktime"),
                    format!("{t} ns must be at most {MAX_THINKTIME_NS} ns (1000 s)"),
                ))
            }
            _ => {}
        }
        if self.thinktime_blocks == 0 {
            return Err(Error::config(
                field("thinktime_blocks"),
                "must be at least 1 (requests between think times)",
            ));
        }
        if self.flush_every == Some(0) {
            return Err(Error::config(
                field("fsync"),
                "must be at least 1 (writes between flushes)",
            ));
        }
        if (self.flush_every.is_some() || self.end_flush || self.close_flush || self.sync_writes)
            && !matches!(self.arrival, FlowArrival::Closed { .. })
        {
            return Err(Error::config(
                field("fsync"),
                "flushes and synchronous writes are a closed loop's (fio's job); an open-loop flow has none",
            ));
        }
        if self.drain_every == Some(0) {
            return Err(Error::config(
                field("drain_every"),
                "must be at least 1 (requests per pass)",
            ));
        }
        if self.requests == Some(0) {
            return Err(Error::config(field("requests"), "must be at least 1"));
        }
        if self.bytes == Some(0) {
            return Err(Error::config(field("bytes"), "must be at least 1"));
        }
        Ok((off, region))
    }

    /// The flows of a fio job with `numjobs` jobs (fio runs them as independent jobs):
    /// each gets the job's pattern and iodepth, its own seed (`seed + j`), and for
    /// sequential patterns its own start in the region (`offset_increment = size /
    /// numjobs` with each clone's region that long: flashgc's flags and `[[flow]]`
    /// sections; fio job files place clones as fio does, [`FlowSpec::from_fio_clones`]).
    pub fn from_fio(name: &str, job: &FioJob, offset: u64, logical_bytes: u64) -> Vec<FlowSpec> {
        let n = job.numjobs.max(1) as u64;
        let size = job.size.unwrap_or(logical_bytes.saturating_sub(offset));
        let seq = job.rw.sequential();
        let regions: Vec<(u64, Option<u64>)> = (0..n)
            .map(|j| {
                if seq && n > 1 {
                    // Each clone's region holds whole blocks of the job's smallest size.
                    let bs = job
                        .block_sizes
                        .as_ref()
                        .map_or(job.bs, |m| m.read.min().min(m.write.min()))
                        .max(1);
                    let per = (size / n) / bs * bs;
                    (offset + j * per, Some(per.max(bs)))
                } else {
                    (offset, job.size)
                }
            })
            .collect();
        Self::from_fio_clones(name, job, &regions)
    }

    /// The flows of a fio job whose clone j addresses `regions[j]`: its first byte and its
    /// length (None: to the device's end). One flow per region, named `NAME.j` when there
    /// are several, each with the job's pattern and iodepth and seed `seed + j`.
    pub fn from_fio_clones(
        name: &str,
        job: &FioJob,
        regions: &[(u64, Option<u64>)],
    ) -> Vec<FlowSpec> {
        let n = regions.len();
        regions
            .iter()
            .enumerate()
            .map(|(j, &(off, sz))| FlowSpec {
                name: if n > 1 {
                    format!("{name}.{j}")
                } else {
                    name.to_string()
                },
                job: FioJob {
                    numjobs: 1,
                    seed: job.seed.wrapping_add(j as u64),
                    size: sz,
                    ..job.clone()
                },
                offset: off,
                arrival: FlowArrival::Closed {
                    queue_depth: job.iodepth,
                },
                start_ns: 0,
                requests: None,
                bytes: None,
                group: 0,
                runtime_ns: None,
                ramp_ns: 0,
                rate_cap_iops: None,
                thinktime_ns: 0,
                thinktime_blocks: 1,
                thinktime_count: ThinkCount::Complete,
                repeat_every: None,
                drain_every: None,
                flush_every: None,
                end_flush: false,
                close_flush: false,
                queued_flush: false,
                sync_writes: false,
                runs_past_end: false,
                thinktime_iotime_ns: None,
                steady: None,
            })
            .collect()
    }
}
