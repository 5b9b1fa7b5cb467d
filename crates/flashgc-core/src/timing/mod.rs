//! Timing simulation above the FTL: flash parallelism, host queues, GC scheduling, write
//! cache, latency percentiles. See `docs/timing.md` for the model and its sources.
//!
//! The layer issues host page operations to the FTL ([`crate::ftl::Ftl::write`], `read`,
//! `trim`), drains the physical operations the FTL issued ([`crate::ftl::FlashOp`], in issue
//! order) and schedules them on the device's resources ([`device::Device`]). The FTL's
//! decisions never depend on time unless a timing-dependent policy is chosen (background or
//! idle GC, GCaR replacement); the result says so when one is.
//!
//! Time advances by events: request arrivals (trace timestamps, open loop) or request
//! completions (closed loop, a fixed number of outstanding requests like fio's
//! `numjobs x iodepth`). Requests are served in arrival order (ties: issue order), which
//! makes every run deterministic.

pub mod cache;
pub mod device;
pub mod fio;
pub mod geometry;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::ftl::{FlashOp, FtlCounters};
use crate::metrics::waf;
use crate::sim::{Progress, Recorder, RunResult, Simulation};
use crate::workload::{Op, Request, Workload};
use cache::{CachePolicy, WriteCache};
use device::{Costs, Device, ReadGroup, PENDING};
pub use geometry::Alloc;
use geometry::Geometry;
use hdrhistogram::Histogram;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// When GC's flash operations run relative to host I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GcMode {
    /// The host write that triggers GC waits until the whole GC episode (page moves and
    /// erases) has finished; GC operations are scheduled at once.
    Foreground,
    /// GC operations are scheduled at once, ahead of the triggering write, but there is no
    /// device-wide barrier: every host operation waits only for the GC work already queued
    /// on the resources it uses (the Cosmos+ firmware's model: GC requests enter the
    /// per-die request queues ahead of the host's, and dies without GC work keep serving).
    PerDie,
    /// GC operations queue behind host I/O: they run in idle gaps of the resources before
    /// the next host arrival (between page moves), and are forced when a host write needs a
    /// segment whose erase is still queued.
    Preemptible,
    /// Preemptible, plus GC collects ahead of need whenever no GC work is queued at a host
    /// arrival and fewer than `bg_free` segments are free (timing-dependent).
    Background,
    /// Preemptible, plus GC collects ahead of need during host idle periods of at least
    /// `idle_us` while fewer than `bg_free` segments are free (timing-dependent).
    Idle,
}

impl GcMode {
    /// Parses `foreground|preemptible|background|idle`.
    pub fn parse(field: &str, s: &str) -> Result<GcMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "foreground" | "fg" | "blocking" => Ok(GcMode::Foreground),
            "per-die" | "perdie" | "die" => Ok(GcMode::PerDie),
            "preemptible" => Ok(GcMode::Preemptible),
            "background" | "bg" => Ok(GcMode::Background),
            "idle" => Ok(GcMode::Idle),
            _ => Err(Error::config(
                field,
                format!("`{s}`: allowed foreground, per-die, preemptible, background, idle"),
            )),
        }
    }
}

/// How the host issues requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Host {
    /// Replay at the requests' timestamps (relative to the first) multiplied by
    /// `time_scale` (0.5 = twice as fast; the trace readers' convention).
    OpenLoop {
        /// Factor on inter-arrival times.
        time_scale: f64,
    },
    /// Keep `queue_depth` requests outstanding (fio's numjobs x iodepth).
    ClosedLoop {
        /// Outstanding requests.
        queue_depth: u32,
    },
}

/// Parameters of the timing layer (the device's latencies come from the config).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimingParams {
    /// GC scheduling.
    pub gc_mode: GcMode,
    /// Page allocation over parallel units.
    pub alloc: Alloc,
    /// Striping order of units (permutation of CWDP, first letter fastest).
    pub striping: String,
    /// Planes of a die operate concurrently (idealised multi-plane operations).
    pub multiplane: bool,
    /// On-die copyback for GC moves within a plane; None = the device's `timing.copyback`.
    pub copyback: Option<bool>,
    /// DRAM write cache, mapping units (0 = none).
    pub cache_pages: u64,
    /// Cache replacement.
    pub cache_policy: CachePolicy,
    /// GCaR: entries scanned from the LRU end.
    pub gcar_window: u32,
    /// Host model.
    pub host: Host,
    /// Host data volume (reads + writes, bytes) between two series points; 0 = no series.
    pub checkpoint_bytes: u64,
    /// Stop after this much host data (reads + writes, bytes); None = the config's write
    /// volume (synthetic workloads) or the end of the workload.
    pub data_volume_bytes: Option<u64>,
    /// Reported data volume = simulated volume / `volume_scale` (a scaled-down device
    /// standing for a paper's larger one); 1 = no scaling.
    pub volume_scale: f64,
    /// Background / idle GC collects while fewer segments than this are free
    /// (None = gc_high + 2).
    pub bg_free: Option<u32>,
    /// Host idle time after which idle-time GC starts, microseconds.
    pub idle_us: f64,
    /// Preemptible / background / idle GC: queued GC operations scheduled at each host
    /// arrival even when they delay it (besides those fitting in idle gaps), so that GC
    /// keeps pace with a saturating host instead of piling up until space runs out. A GC
    /// move is two operations, so keeping up needs about 2 x (WAF - 1) x write share per
    /// request: the default 16 covers WAF up to 9 at 100 % writes.
    pub gc_pace: u32,
}

impl Default for TimingParams {
    fn default() -> Self {
        TimingParams {
            gc_mode: GcMode::Foreground,
            alloc: Alloc::Static,
            striping: "CWDP".into(),
            multiplane: true,
            copyback: None,
            cache_pages: 0,
            cache_policy: CachePolicy::Lru,
            gcar_window: 64,
            host: Host::ClosedLoop { queue_depth: 32 },
            checkpoint_bytes: 0,
            data_volume_bytes: None,
            volume_scale: 1.0,
            bg_free: None,
            idle_us: 1000.0,
            gc_pace: 16,
        }
    }
}

/// Latency distribution summary, microseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencySummary {
    /// Requests.
    pub count: u64,
    /// Mean.
    pub mean_us: f64,
    /// Median.
    pub p50_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// 99.99th percentile.
    pub p9999_us: f64,
    /// Maximum.
    pub max_us: f64,
}

/// A latency recorder: an HDR histogram (3 significant digits) for the percentiles, plus
/// the exact count, sum and maximum.
#[derive(Debug, Clone)]
pub struct Latencies {
    hist: Histogram<u64>,
    sum: u128,
    max: u64,
}

impl Default for Latencies {
    fn default() -> Self {
        Latencies {
            hist: Histogram::new(3).expect("3 significant digits are valid"),
            sum: 0,
            max: 0,
        }
    }
}

impl Latencies {
    /// Records one latency in ns.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        // An auto-resizing histogram accepts every u64 value.
        self.hist.record(ns).ok();
        self.sum += ns as u128;
        self.max = self.max.max(ns);
    }

    /// Adds `other`'s samples (same counts, sum and maximum as recording them here).
    pub fn merge(&mut self, other: &Latencies) {
        // An auto-resizing histogram accepts every other histogram's values.
        self.hist.add(&other.hist).ok();
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }

    /// Summary in microseconds (percentiles within 0.1 %; mean and max exact).
    pub fn summary(&self) -> LatencySummary {
        let h = &self.hist;
        let us = |ns: u64| ns as f64 / 1000.0;
        let n = h.len();
        if n == 0 {
            return LatencySummary {
                count: 0,
                mean_us: 0.0,
                p50_us: 0.0,
                p99_us: 0.0,
                p999_us: 0.0,
                p9999_us: 0.0,
                max_us: 0.0,
            };
        }
        let q = |x: f64| us(h.value_at_quantile(x).min(self.max));
        LatencySummary {
            count: n,
            mean_us: self.sum as f64 / n as f64 / 1000.0,
            p50_us: q(0.5),
            p99_us: q(0.99),
            p999_us: q(0.999),
            p9999_us: q(0.9999),
            max_us: us(self.max),
        }
    }
}

/// One point of the timing series (a window of host data volume).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimingPoint {
    /// Host data (reads + writes) so far, bytes.
    pub data_bytes: u64,
    /// The same in decimal GB, divided by `volume_scale` (the paper-equivalent volume).
    pub equivalent_gb: f64,
    /// Simulated time at the end of the window, seconds.
    pub time_s: f64,
    /// Requests per second in the window.
    pub iops: f64,
    /// Host MB/s (10^6 bytes) in the window.
    pub bandwidth_mb_s: f64,
    /// Read latency in the window.
    pub read: LatencySummary,
    /// Write latency in the window.
    pub write: LatencySummary,
    /// WAF since the start of the timed phase.
    pub waf_cumulative: f64,
    /// Segment erases since the start of the timed phase.
    pub erases: u64,
    /// GC page moves since the start of the timed phase.
    pub gc_page_moves: u64,
}

/// Write-cache statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheReport {
    /// Policy.
    pub policy: CachePolicy,
    /// Capacity, mapping units.
    pub pages: u64,
    /// Write hits.
    pub write_hits: u64,
    /// Read hits.
    pub read_hits: u64,
    /// Evictions (flash writes).
    pub evictions: u64,
    /// GCaR evictions that skipped the LRU page.
    pub gcar_skips: u64,
    /// Cache entries GCaR's replacement examined: its traversal work, a count for the
    /// controller's firmware-CPU model (no time is charged for it here).
    pub scanned_entries: u64,
    /// Dirty pages left in the cache at the end (not flushed, not counted as flash writes).
    pub dirty_at_end: u64,
}

/// The timing section of a run result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimingReport {
    /// Host model.
    pub host: Host,
    /// Parameters.
    pub params: TimingParams,
    /// Operation costs, ns.
    pub costs: Costs,
    /// Whether FTL decisions depended on simulated time (background/idle GC, GCaR).
    pub timing_dependent_policy: bool,
    /// Simulated time from the first arrival to the last completion, ns.
    pub simulated_ns: u64,
    /// Host requests served.
    pub requests: u64,
    /// Host read requests.
    pub read_requests: u64,
    /// Host write requests.
    pub write_requests: u64,
    /// Requests per simulated second.
    pub iops: f64,
    /// Host MB/s (10^6 bytes per second), reads + writes.
    pub bandwidth_mb_s: f64,
    /// Read latency.
    pub read_latency: LatencySummary,
    /// Write latency.
    pub write_latency: LatencySummary,
    /// Busy fraction of each channel.
    pub channel_utilization: Vec<f64>,
    /// Busy fraction of each die (or plane, with multi-plane operations on).
    pub cell_utilization: Vec<f64>,
    /// Which resource `cell_utilization` lists: "plane" or "die".
    pub cell_unit: String,
    /// Share of the cell resources' busy time spent on GC (reads, programs, erases).
    pub gc_time_share: f64,
    /// Victims collected ahead of need by background / idle GC.
    pub proactive_gc_victims: u64,
    /// Write cache.
    pub cache: Option<CacheReport>,
    /// Series over host data volume.
    pub series: Vec<TimingPoint>,
    /// Timing-layer memory, bytes per logical page.
    pub memory_bytes_per_lpn: f64,
}

/// Prefetches the cache line holding `p` (a hint: no effect on results).
#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults, and `p` is a valid reference anyway.
    unsafe {
        core::arch::x86_64::_mm_prefetch(
            p as *const T as *const i8,
            core::arch::x86_64::_MM_HINT_T0,
        )
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A queued GC flash operation.
#[derive(Debug, Clone, Copy)]
struct GcOp {
    op: FlashOp,
    issued: u64,
}

struct Window {
    rd: Latencies,
    wr: Latencies,
    requests: u64,
    bytes: u64,
    t0: u64,
}

impl Window {
    fn new(t0: u64) -> Window {
        Window {
            rd: Latencies::default(),
            wr: Latencies::default(),
            requests: 0,
            bytes: 0,
            t0,
        }
    }
}

/// A timed simulation: the FTL of a [`Simulation`] driven through the timing layer.
pub struct TimedSim {
    sim: Simulation,
    cfg: Config,
    p: TimingParams,
    dev: Device,
    cache: Option<WriteCache>,
    copyback: bool,
    gcq: VecDeque<GcOp>,
    ops: Vec<FlashOp>,
    /// Ends of committed GC reads whose programs are still queued (FIFO: a victim's
    /// programs are queued in the order of its reads).
    gc_read_ends: VecDeque<u64>,
    gc_moves: Vec<FlashOp>,
    gc_victim_end: u64,
    gc_rg: ReadGroup,
    read_end_buf: Vec<u64>,
    host_busy_until: u64,
    bg_free: u32,
    proactive: u64,
}

impl TimedSim {
    /// Builds the FTL of `cfg` and the device model.
    pub fn new(cfg: &Config, p: TimingParams) -> Result<TimedSim> {
        let sim = Simulation::new(cfg)?;
        let l = sim.layout().clone();
        let geo = Geometry::new(&cfg.device, l.pages_per_segment, &p.striping)?;
        if geo.upp > 1 && p.alloc == Alloc::FirstIdle && geo.units > u16::MAX as u32 {
            return Err(Error::config(
                "timing.alloc",
                "first-idle supports at most 65535 parallel units",
            ));
        }
        if let Host::OpenLoop { time_scale } = p.host {
            if !(time_scale.is_finite() && time_scale > 0.0) {
                return Err(Error::config(
                    "timing.time_scale",
                    format!("{time_scale} must be a positive number"),
                ));
            }
        }
        if let Host::ClosedLoop { queue_depth } = p.host {
            if queue_depth == 0 || queue_depth > 1 << 20 {
                return Err(Error::config(
                    "timing.iodepth",
                    "numjobs x iodepth must be in 1..=1048576",
                ));
            }
        }
        if !(p.volume_scale.is_finite() && p.volume_scale > 0.0) {
            return Err(Error::config(
                "timing.volume_scale",
                "must be a positive number",
            ));
        }
        if !(p.idle_us.is_finite() && p.idle_us >= 0.0) {
            return Err(Error::config("timing.idle_us", "must be >= 0"));
        }
        if p.cache_pages > l.logical_pages || p.cache_pages >= u32::MAX as u64 {
            return Err(Error::config(
                "timing.cache",
                format!(
                    "{} pages exceed the logical capacity of {} pages",
                    p.cache_pages, l.logical_pages
                ),
            ));
        }
        let costs = Costs::new(&cfg.device.timing, cfg.device.lpn_size);
        let dev = Device::new(geo, costs, p.multiplane, p.alloc, l.segments);
        let cache = (p.cache_pages > 0).then(|| {
            WriteCache::new(
                p.cache_pages as u32,
                l.logical_pages,
                p.cache_policy,
                p.gcar_window,
            )
        });
        let copyback = p.copyback.unwrap_or(cfg.device.timing.copyback);
        let bg_free = p.bg_free.unwrap_or(l.gc_high + 2);
        Ok(TimedSim {
            sim,
            cfg: cfg.clone(),
            p,
            dev,
            cache,
            copyback,
            gcq: VecDeque::new(),
            ops: Vec::with_capacity(1024),
            gc_read_ends: VecDeque::new(),
            gc_moves: Vec::new(),
            gc_victim_end: 0,
            gc_rg: ReadGroup::default(),
            read_end_buf: Vec::new(),
            host_busy_until: 0,
            bg_free,
            proactive: 0,
        })
    }

    /// The simulation (layout, FTL).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }
    /// The simulation, mutable (tests precondition or inspect the FTL through it).
    pub fn simulation_mut(&mut self) -> &mut Simulation {
        &mut self.sim
    }
    /// Starts timed operation: from now on the FTL logs flash operations for the device
    /// model (anything written before is untimed set-up). [`TimedSim::run`] calls it after
    /// the precondition; tests that drive [`TimedSim::serve`] directly call it themselves.
    pub fn start_clock(&mut self) {
        self.sim.ftl_mut().set_op_log(true);
    }

    /// The device model.
    pub fn device(&self) -> &Device {
        &self.dev
    }

    fn timing_dependent(&self) -> bool {
        matches!(self.p.gc_mode, GcMode::Background | GcMode::Idle)
            || (self.cache.is_some() && self.p.cache_policy != CachePolicy::Lru)
    }

    /// Schedules queued GC operations in FTL order. With `limit = Some(t)`, stops at the
    /// first operation that cannot start before `t` (host I/O arriving at `t` goes first).
    /// Returns the latest end of the operations scheduled.
    fn pump(&mut self, limit: Option<u64>, max_ops: usize) -> u64 {
        let mut last = 0;
        let mut n = 0;
        while let Some(&g) = self.gcq.front() {
            if n == max_ops {
                break;
            }
            n += 1;
            // Probing costs a location lookup: only with a limit.
            match g.op {
                FlashOp::Read { ppn, .. } => {
                    let ready = g.issued;
                    if limit.is_some_and(|t| self.dev.probe_read(ppn, ready) >= t) {
                        break;
                    }
                    let dst = if self.copyback {
                        match self.gcq.get(1) {
                            Some(GcOp {
                                op: FlashOp::Program { ppn: d, gc: true },
                                ..
                            }) if self.dev.same_plane(ppn, *d) => Some(*d),
                            _ => None,
                        }
                    } else {
                        None
                    };
                    self.gcq.pop_front();
                    if let Some(d) = dst {
                        self.gcq.pop_front();
                        let r = self.dev.read_copyback(ppn, ready);
                        let e = self.dev.program(d, r, true, true);
                        self.gc_victim_end = self.gc_victim_end.max(e);
                        last = last.max(e);
                    } else {
                        let e = self.dev.read(ppn, ready, true, &mut self.gc_rg);
                        self.gc_read_ends.push_back(e);
                        self.gc_victim_end = self.gc_victim_end.max(e);
                        last = last.max(e);
                    }
                }
                FlashOp::Program { ppn, .. } => {
                    let ready = g
                        .issued
                        .max(self.gc_read_ends.front().copied().unwrap_or(0));
                    if limit.is_some_and(|t| self.dev.probe_program(ppn, ready) >= t) {
                        break;
                    }
                    self.gcq.pop_front();
                    self.gc_read_ends.pop_front();
                    let e = self.dev.program(ppn, ready, true, false);
                    self.gc_victim_end = self.gc_victim_end.max(e);
                    last = last.max(e);
                }
                FlashOp::Erase { seg } => {
                    let ready = g.issued.max(self.gc_victim_end);
                    if limit.is_some_and(|t| self.dev.probe_erase(seg, ready) >= t) {
                        break;
                    }
                    self.gcq.pop_front();
                    let e = self.dev.erase(seg, ready);
                    self.gc_victim_end = 0;
                    self.gc_rg = ReadGroup::default();
                    last = last.max(e);
                }
            }
        }
        last
    }

    /// Queues the GC operations of the op log (issued at `t`).
    fn enqueue_gc(&mut self, t: u64) {
        let mut ops = std::mem::take(&mut self.ops);
        ops.clear();
        self.sim.ftl_mut().drain_ops(&mut ops);
        for &op in &ops {
            self.push_gc(op, t);
        }
        self.flush_gc_moves(t);
        self.ops = ops;
    }

    /// Queues one GC operation. A victim's page moves arrive as read, program, read,
    /// program, ... then its erase; the controller issues all of the victim's reads first
    /// (they are independent) and each program when its data has arrived, so reads are
    /// queued at once and programs buffered until the erase. With copyback the read/program
    /// pairs stay together (a copyback is one on-die operation).
    fn push_gc(&mut self, op: FlashOp, t: u64) {
        match op {
            FlashOp::Erase { seg } => {
                self.flush_gc_moves(t);
                self.dev.erased_at[seg as usize] = PENDING;
                self.gcq.push_back(GcOp { op, issued: t });
            }
            // Reads go straight to the queue (nothing else is queued before the moves'
            // flush), programs wait there for the flush.
            FlashOp::Read { .. } => self.gcq.push_back(GcOp { op, issued: t }),
            _ if self.copyback => self.gcq.push_back(GcOp { op, issued: t }),
            _ => self.gc_moves.push(op),
        }
    }

    fn flush_gc_moves(&mut self, t: u64) {
        if self.gc_moves.is_empty() {
            return;
        }
        self.gcq
            .extend(self.gc_moves.drain(..).map(|op| GcOp { op, issued: t }));
    }

    /// GC work due before a host arrival at `t`.
    fn before_arrival(&mut self, t: u64) -> Result<()> {
        match self.p.gc_mode {
            GcMode::Foreground | GcMode::PerDie => {}
            GcMode::Preemptible => {
                self.pump(Some(t), usize::MAX);
                self.pump(None, self.p.gc_pace as usize);
            }
            GcMode::Background => {
                self.pump(Some(t), usize::MAX);
                self.pump(None, self.p.gc_pace as usize);
                if self.gcq.is_empty() && self.sim.ftl_mut().collect_if_below(self.bg_free)? {
                    self.proactive += 1;
                    self.enqueue_gc(t);
                    self.pump(Some(t), usize::MAX);
                }
            }
            GcMode::Idle => {
                let idle_ns = (self.p.idle_us * 1000.0).round() as u64;
                let mut at = self.host_busy_until.saturating_add(idle_ns);
                while at < t && self.gcq.is_empty() {
                    if !self.sim.ftl_mut().collect_if_below(self.bg_free)? {
                        break;
                    }
                    self.proactive += 1;
                    self.enqueue_gc(at);
                    let end = self.pump(Some(t), usize::MAX);
                    at = at.max(end);
                }
                self.pump(Some(t), usize::MAX);
                self.pump(None, self.p.gc_pace as usize);
            }
        }
        Ok(())
    }

    /// Schedules the op log after one host page operation issued at `t`; returns the end
    /// of the host's own operations (`t` if none).
    fn schedule(&mut self, t: u64, host_ready: &mut u64, rg: &mut ReadGroup) -> u64 {
        let mut ops = std::mem::take(&mut self.ops);
        ops.clear();
        self.sim.ftl_mut().drain_ops(&mut ops);
        if self.direct_gc() {
            if let Some(end) = self.schedule_direct(&ops, t, host_ready, rg) {
                self.ops = ops;
                return end;
            }
        }
        let mut end = t;
        for &op in &ops {
            match op {
                FlashOp::Read { ppn, gc: false } => {
                    let e = self.dev.read(ppn, *host_ready, false, rg);
                    end = end.max(e);
                }
                FlashOp::Program { ppn, gc: false } => {
                    self.flush_gc_moves(t);
                    if !self.gcq.is_empty() && self.gc_now() {
                        // Blocking GC: the triggering write starts after the episode (per-die:
                        // after the GC work queued on its own resources).
                        let g = self.pump(None, usize::MAX);
                        if self.p.gc_mode == GcMode::Foreground {
                            *host_ready = (*host_ready).max(g);
                        }
                    }
                    let seg = self.dev.geo.seg_of(ppn) as usize;
                    while self.dev.erased_at[seg] == PENDING {
                        // The write needs a block whose erase is still queued: force GC on.
                        self.pump(None, 1);
                    }
                    let e = self.dev.program(ppn, *host_ready, false, false);
                    end = end.max(e);
                }
                _ => self.push_gc(op, t),
            }
        }
        self.flush_gc_moves(t);
        self.ops = ops;
        if self.gc_now() && !self.gcq.is_empty() {
            let g = self.pump(None, usize::MAX);
            if self.p.gc_mode == GcMode::Foreground {
                *host_ready = (*host_ready).max(g);
            }
        }
        end
    }

    /// GC operations are scheduled as soon as the FTL issues them (foreground, per-die).
    #[inline]
    fn gc_now(&self) -> bool {
        matches!(self.p.gc_mode, GcMode::Foreground | GcMode::PerDie)
    }

    /// Whether blocking GC can be scheduled straight from the op log: foreground GC without
    /// copyback and nothing queued from earlier. Then the queue would be filled and drained
    /// completely within [`TimedSim::schedule`], in the same order the direct path uses.
    #[inline]
    fn direct_gc(&self) -> bool {
        self.gc_now()
            && !self.copyback
            && self.gcq.is_empty()
            && self.gc_moves.is_empty()
            && self.gc_read_ends.is_empty()
    }

    /// The foreground fast path of [`TimedSim::schedule`]: each victim (its page moves up to
    /// its erase) is scheduled when its erase is seen, reads first, exactly as the queue
    /// would run it; the host's program starts after all of them. Returns None (having
    /// scheduled nothing) if a victim's moves are not closed by an erase in this batch.
    fn schedule_direct(
        &mut self,
        ops: &[FlashOp],
        t: u64,
        host_ready: &mut u64,
        rg: &mut ReadGroup,
    ) -> Option<u64> {
        // Every run of GC moves must end with its victim's erase.
        let mut open = false;
        for op in ops {
            match op {
                FlashOp::Erase { .. } => open = false,
                FlashOp::Read { gc: true, .. } | FlashOp::Program { gc: true, .. } => open = true,
                _ if open => return None,
                _ => {}
            }
        }
        if open {
            return None;
        }
        let barrier = self.p.gc_mode == GcMode::Foreground;
        let mut end = t;
        let mut gc_last: Option<u64> = None;
        let mut i = 0;
        while i < ops.len() {
            match ops[i] {
                FlashOp::Read { ppn, gc: false } => {
                    let e = self.dev.read(ppn, *host_ready, false, rg);
                    end = end.max(e);
                    i += 1;
                }
                FlashOp::Program { ppn, gc: false } => {
                    if let Some(g) = gc_last.take() {
                        if barrier {
                            *host_ready = (*host_ready).max(g);
                        }
                    }
                    let e = self.dev.program(ppn, *host_ready, false, false);
                    end = end.max(e);
                    i += 1;
                }
                _ => {
                    let j = i + ops[i..]
                        .iter()
                        .position(|o| matches!(o, FlashOp::Erase { .. }))
                        .expect("checked above");
                    let g = self.run_victim(&ops[i..=j], t);
                    gc_last = Some(gc_last.map_or(g, |x| x.max(g)));
                    i = j + 1;
                }
            }
        }
        if let Some(g) = gc_last {
            if barrier {
                *host_ready = (*host_ready).max(g);
            }
        }
        Some(end)
    }

    /// Schedules one victim's moves (reads first, then each program after its read) and its
    /// erase, issued at `t`, as [`TimedSim::pump`] would from the queue. Returns the latest end.
    fn run_victim(&mut self, ops: &[FlashOp], t: u64) -> u64 {
        let mut last = 0;
        let mut ends = std::mem::take(&mut self.read_end_buf);
        ends.clear();
        for op in ops {
            if let FlashOp::Read { ppn, .. } = *op {
                let e = self.dev.read(ppn, t, true, &mut self.gc_rg);
                ends.push(e);
                self.gc_victim_end = self.gc_victim_end.max(e);
                last = last.max(e);
            }
        }
        let mut k = 0;
        for op in ops {
            match *op {
                FlashOp::Program { ppn, .. } => {
                    let ready = t.max(ends.get(k).copied().unwrap_or(0));
                    k += 1;
                    let e = self.dev.program(ppn, ready, true, false);
                    self.gc_victim_end = self.gc_victim_end.max(e);
                    last = last.max(e);
                }
                FlashOp::Erase { seg } => {
                    let ready = t.max(self.gc_victim_end);
                    let e = self.dev.erase(seg, ready);
                    self.gc_victim_end = 0;
                    self.gc_rg = ReadGroup::default();
                    last = last.max(e);
                }
                FlashOp::Read { .. } => {}
            }
        }
        self.read_end_buf = ends;
        last
    }

    /// Serves one host request arriving at `t`; returns its completion time.
    pub fn serve(&mut self, req: &Request, t: u64) -> Result<u64> {
        self.before_arrival(t)?;
        let mut done = t;
        let mut host_ready = t;
        let mut rg = ReadGroup::default();
        let sram = self.dev.costs.sram;
        let end = req.lpn + req.pages as u64;
        for lpn in req.lpn..end {
            let lpn = lpn as u32;
            match req.op {
                Op::Write => {
                    let target = match &mut self.cache {
                        Some(c) => {
                            if c.touch(lpn) {
                                c.hits += 1;
                                done = done.max(t + sram);
                                continue;
                            }
                            let (dev, ftl) = (&self.dev, self.sim.ftl());
                            let collecting = |l: u32| {
                                ftl.mapping()
                                    .lookup(l)
                                    .is_some_and(|p| dev.collecting(p, t))
                            };
                            match c.insert(lpn, collecting) {
                                None => {
                                    done = done.max(t + sram);
                                    continue;
                                }
                                Some(e) => e,
                            }
                        }
                        None => lpn,
                    };
                    self.sim.ftl_mut().write(target)?;
                    let e = self.schedule(t, &mut host_ready, &mut rg);
                    done = done.max(e);
                }
                Op::Read => {
                    if let Some(c) = &mut self.cache {
                        if c.touch(lpn) {
                            c.read_hits += 1;
                            done = done.max(t + sram);
                            continue;
                        }
                    }
                    if self.sim.ftl_mut().read(lpn).is_some() {
                        let e = self.schedule(t, &mut host_ready, &mut rg);
                        done = done.max(e);
                    }
                }
                Op::Trim => {
                    self.sim.ftl_mut().trim(lpn);
                    if let Some(c) = &mut self.cache {
                        c.remove(lpn);
                    }
                }
            }
        }
        self.host_busy_until = self.host_busy_until.max(done);
        Ok(done)
    }

    /// Preconditions (untimed), then serves `wl` with the host model until the data volume,
    /// the config's write volume (infinite workloads) or the end of the workload.
    pub fn run(
        &mut self,
        wl: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<RunResult> {
        if self.sim.needs_future() {
            return Err(Error::config(
                "run.placement",
                "a future-knowledge placement (oracle) needs a pre-pass over a second copy of the workload, \
                 which timed runs do not do yet: run it WAF-only",
            ));
        }
        self.sim.precondition()?;
        self.start_clock();
        let cfg = self.cfg.clone();
        let logical = self.sim.layout().logical_pages;
        let lpn_bytes = self.sim.layout().lpn_size as u64;
        let r = &cfg.run;
        let target = match self.p.data_volume_bytes {
            Some(_) => None,
            None => wl
                .is_infinite()
                .then(|| (r.write_volume * logical as f64).round() as u64),
        };
        if wl.is_infinite() && target.is_none() && self.p.data_volume_bytes.is_none() {
            return Err(Error::config(
                "timing",
                "an infinite workload needs a write or data volume",
            ));
        }
        let start = self.sim.ftl().counters.clone();
        let layout = self.sim.layout().clone();
        let mut rec = Recorder::new(r, &layout, target, start.clone());
        let mut rd = Latencies::default();
        let mut wr = Latencies::default();
        let mut win = Window::new(0);
        let mut tseries = Vec::new();
        let (mut nreq, mut nrd, mut nwr, mut data_bytes) = (0u64, 0u64, 0u64, 0u64);
        let mut next_ckpt = if self.p.checkpoint_bytes > 0 {
            self.p.checkpoint_bytes
        } else {
            u64::MAX
        };
        let mut next_progress: u64 = 1 << 20;
        let mut ended_by = "workload_end";
        let mut buf: Vec<Request> = Vec::with_capacity(4096);
        let mut idx = 0usize;
        let mut heap: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
        let mut first_arrival: Option<u64> = None;
        let mut last_arrival = 0u64;
        let mut first_t = 0u64;
        if let Host::ClosedLoop { queue_depth } = self.p.host {
            heap.extend((0..queue_depth).map(|_| Reverse(0u64)));
        }
        loop {
            if let Some(v) = self.p.data_volume_bytes {
                if data_bytes >= v {
                    ended_by = "data_volume";
                    break;
                }
            }
            if target.is_some_and(|tg| rec.written() >= tg) {
                ended_by = "write_volume";
                break;
            }
            if idx == buf.len() {
                buf.clear();
                idx = 0;
                wl.fill(&mut buf, 4096)?;
                if buf.is_empty() {
                    break;
                }
            }
            let req = buf[idx];
            self.prefetch_for(buf.get(idx + 2), buf.get(idx + 4));
            idx += 1;
            let end = req.lpn.saturating_add(req.pages as u64);
            if req.pages == 0 || end > logical {
                return Err(Error::Workload(format!(
                    "request {}: pages {}..{} exceed the logical capacity of {logical} pages (use a larger device, or remap the trace)",
                    nreq + 1,
                    req.lpn,
                    end
                )));
            }
            let t = match self.p.host {
                // The slot completing first issues this request; its entry is replaced by
                // this request's completion below (one sift instead of a pop and a push).
                Host::ClosedLoop { .. } => heap.peek().map(|&Reverse(t)| t).unwrap_or(0),
                Host::OpenLoop { time_scale } => {
                    let t0 = *first_arrival.get_or_insert(req.time_ns);
                    let a = (req.time_ns.saturating_sub(t0) as f64 * time_scale).round() as u64;
                    // Out-of-order timestamps are served in file order, not earlier.
                    last_arrival = last_arrival.max(a);
                    last_arrival
                }
            };
            if nreq == 0 {
                first_t = t;
                win.t0 = t;
            }
            let c = self.serve(&req, t)?;
            if let Host::ClosedLoop { .. } = self.p.host {
                match heap.peek_mut() {
                    Some(mut top) => *top = Reverse(c),
                    None => unreachable!("the closed-loop heap holds queue_depth >= 1 slots"),
                }
            }
            let lat = c - t;
            let bytes = req.pages as u64 * lpn_bytes;
            nreq += 1;
            data_bytes += bytes;
            win.requests += 1;
            win.bytes += bytes;
            match req.op {
                Op::Read => {
                    nrd += 1;
                    win.rd.record(lat);
                }
                Op::Write => {
                    nwr += 1;
                    win.wr.record(lat);
                    for _ in 0..req.pages {
                        rec.user_page(&self.sim.ftl().counters);
                    }
                }
                Op::Trim => {}
            }
            if data_bytes >= next_ckpt {
                while next_ckpt <= data_bytes {
                    next_ckpt += self.p.checkpoint_bytes;
                }
                let now = self.host_busy_until.max(t);
                tseries.push(self.point(&win, data_bytes, now, &start));
                // The totals are the windows' sum: merged at each checkpoint and at the end.
                rd.merge(&win.rd);
                wr.merge(&win.wr);
                win = Window::new(now);
            }
            if rec.written() >= next_progress {
                next_progress = rec.written() + (1 << 20);
                progress(&rec.progress(&self.sim.ftl().counters));
            }
        }
        if let Some(e) = self.sim.ftl().placement().consistency_error() {
            return Err(Error::Workload(e));
        }
        rd.merge(&win.rd);
        wr.merge(&win.wr);
        // GC still queued runs after the last host request (it delays no request).
        self.pump(None, usize::MAX);
        let finish = self.host_busy_until.max(first_t);
        let span = finish.saturating_sub(first_t);
        let makespan = self.dev.makespan().max(1);
        let util = |busy: &[u64]| {
            busy.iter()
                .map(|&b| b as f64 / makespan as f64)
                .collect::<Vec<_>>()
        };
        let cell_busy_v = self.dev.cell_busy();
        let cell_busy: u64 = cell_busy_v.iter().sum();
        let cell_gc: u64 = self.dev.cell_gc_busy().iter().sum();
        let secs = span as f64 / 1e9;
        let timing_dependent = self.timing_dependent();
        let memory = self.dev.memory_bytes() + self.cache.as_ref().map_or(0, |c| c.memory_bytes());
        let report = TimingReport {
            host: self.p.host,
            params: self.p.clone(),
            costs: self.dev.costs,
            timing_dependent_policy: timing_dependent,
            simulated_ns: span,
            requests: nreq,
            read_requests: nrd,
            write_requests: nwr,
            iops: if secs > 0.0 { nreq as f64 / secs } else { 0.0 },
            bandwidth_mb_s: if secs > 0.0 {
                data_bytes as f64 / 1e6 / secs
            } else {
                0.0
            },
            read_latency: rd.summary(),
            write_latency: wr.summary(),
            channel_utilization: util(&self.dev.ch_busy()),
            cell_utilization: util(&cell_busy_v),
            cell_unit: if self.dev.multiplane { "plane" } else { "die" }.into(),
            gc_time_share: if cell_busy > 0 {
                cell_gc as f64 / cell_busy as f64
            } else {
                0.0
            },
            proactive_gc_victims: self.proactive,
            cache: self.cache.as_ref().map(|c| CacheReport {
                policy: c.policy,
                pages: self.p.cache_pages,
                write_hits: c.hits,
                read_hits: c.read_hits,
                evictions: c.evictions,
                gcar_skips: c.gcar_skips,
                scanned_entries: c.scanned,
                dirty_at_end: c.len() as u64,
            }),
            series: tseries,
            memory_bytes_per_lpn: memory as f64 / logical as f64,
        };
        let endc = self.sim.ftl().counters.clone();
        let (total, steady, warmup_pages, series) = rec.finish(&endc);
        let mut res = self
            .sim
            .result(wl.describe(), total, steady, warmup_pages, series, ended_by);
        res.notes.push(format!(
            "timing: {} host, GC {:?}, allocation {:?} over {} units ({} order), multi-plane {}, copyback {}; approximations are listed in docs/timing.md",
            match self.p.host {
                Host::OpenLoop { time_scale } => format!("open-loop replay (time scale {time_scale})"),
                Host::ClosedLoop { queue_depth } => format!("closed-loop QD {queue_depth}"),
            },
            self.p.gc_mode,
            self.p.alloc,
            self.dev.geo.units,
            self.dev.geo.order,
            if self.p.multiplane { "on (idealised)" } else { "off" },
            if self.copyback { "on" } else { "off" }
        ));
        if timing_dependent {
            res.notes.push(
                "timing-dependent policy (background/idle GC or GCaR): FTL decisions depend on simulated time, so WAF may differ from the WAF-only run"
                    .into(),
            );
        }
        if let Some(c) = &report.cache {
            if c.dirty_at_end > 0 {
                res.notes.push(format!("{} dirty cached pages were not flushed at the end (not counted as flash writes)", c.dirty_at_end));
            }
        }
        res.timing = Some(report);
        Ok(res)
    }

    /// Hides the FTL's cache misses behind the current request: the mapping entry of the
    /// request after next, and the validity-bitmap word and segment counter of the next
    /// request's old copy (whose mapping entry was prefetched one request earlier).
    #[inline]
    fn prefetch_for(&self, next: Option<&Request>, after: Option<&Request>) {
        let ftl = self.sim.ftl();
        if let Some(l2p) = after.and_then(|r| ftl.map.l2p.get(r.lpn as usize)) {
            prefetch(l2p);
        }
        if let Some(&ppn) = next.and_then(|r| ftl.map.l2p.get(r.lpn as usize)) {
            if ppn != crate::types::NONE {
                if let Some(w) = ftl.map.valid.get((ppn >> 6) as usize) {
                    prefetch(w);
                }
                if let Some(v) = ftl.segs.valid.get(self.dev.geo.seg_of(ppn) as usize) {
                    prefetch(v);
                }
            }
        }
    }

    fn point(&self, w: &Window, data_bytes: u64, now: u64, start: &FtlCounters) -> TimingPoint {
        let dt = now.saturating_sub(w.t0) as f64 / 1e9;
        let c = &self.sim.ftl().counters;
        TimingPoint {
            data_bytes,
            equivalent_gb: data_bytes as f64 / self.p.volume_scale / 1e9,
            time_s: now as f64 / 1e9,
            iops: if dt > 0.0 {
                w.requests as f64 / dt
            } else {
                0.0
            },
            bandwidth_mb_s: if dt > 0.0 {
                w.bytes as f64 / 1e6 / dt
            } else {
                0.0
            },
            read: w.rd.summary(),
            write: w.wr.summary(),
            waf_cumulative: waf(
                c.user_writes - start.user_writes,
                c.gc_writes - start.gc_writes,
            ),
            erases: c.erases - start.erases,
            gc_page_moves: c.gc_writes - start.gc_writes,
        }
    }
}
