//! Serving host requests on a device model: arrivals, the write cache, latency recording,
//! the timing series, and the timing section of the result.

use super::cache::WriteCache;
use super::gc::{GcSched, IdleWork, Issue};
use crate::device::cpu::{Cpu, CpuCosts};
use crate::device::flash::FastDiv;
use crate::device::{DeviceModel, DeviceReport, ReadGroup};
use crate::error::{Error, Result};
use crate::ftl::FtlCounters;
use crate::metrics::latency::Latencies;
use crate::metrics::recorder::Recorder;
use crate::metrics::result::{CacheReport, RunResult, TimingPoint, TimingReport};
use crate::ops::FlashOp;
use crate::sim::Simulation;
use crate::timing::{CachePolicy, Host, TimingParams};
use crate::types::NONE;
use crate::workload::{Op, Request};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod checkpoint;
mod deferred;
mod flush;
mod stream;

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

/// Latencies and volume of one window of the timing series.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
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

/// What the driver measures of the host's requests.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct HostStats {
    rd: Latencies,
    wr: Latencies,
    win: Window,
    series: Vec<TimingPoint>,
    pub(super) requests: u64,
    reads: u64,
    writes: u64,
    pub(super) data_bytes: u64,
    next_point: u64,
    first_arrival: Option<u64>,
    last_arrival: u64,
    first_t: u64,
    #[serde(with = "heap_as_vec")]
    heap: BinaryHeap<Reverse<u64>>,
    /// FTL counters at the start of the timed phase.
    start: FtlCounters,
}

/// The closed-loop completion heap in a checkpoint: its values (all slots are alike, so
/// the heap rebuilt from them behaves the same).
mod heap_as_vec {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    pub fn serialize<S: Serializer>(h: &BinaryHeap<Reverse<u64>>, s: S) -> Result<S::Ok, S::Error> {
        let mut v: Vec<u64> = h.iter().map(|r| r.0).collect();
        v.sort_unstable();
        v.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BinaryHeap<Reverse<u64>>, D::Error> {
        Ok(Vec::<u64>::deserialize(d)?
            .into_iter()
            .map(Reverse)
            .collect())
    }
}

/// The driver's state besides the simulation: the device model, cache, GC scheduling and
/// statistics. Its methods take the simulation they drive.
pub(crate) struct Core<D: DeviceModel> {
    pub(crate) dev: D,
    pub(crate) p: TimingParams,
    cache: Option<WriteCache>,
    gc: GcSched,
    ops: Vec<FlashOp>,
    host_busy_until: u64,
    pps: FastDiv,
    pub(super) stats: HostStats,
    pub(crate) idle_work: Option<Box<dyn IdleWork>>,
    started: bool,
    /// The streaming API's bookkeeping of the measured phase (from [`Core::start`]).
    stream_rec: Option<Recorder>,
    /// Requests in flight when the device commits by priority (`driver/host/deferred.rs`).
    deferred: Option<deferred::Deferred>,
    /// The firmware CPU (`timing.cpu`; None: CPU work costs nothing).
    cpu: Option<Cpu>,
    /// Host flushes and FUA writes of the streaming API and of replayed traces
    /// (`driver/host/flush.rs`).
    flushes: flush::HostFlushes,
}

impl<D: DeviceModel> Core<D> {
    pub(crate) fn new(sim: &Simulation, dev: D, p: TimingParams) -> Result<Core<D>> {
        let l = sim.layout();
        let cache = (D::TIMED && p.cache_pages > 0).then(|| {
            WriteCache::new(
                p.cache_pages as u32,
                l.logical_pages,
                p.cache_policy,
                p.gcar_window,
            )
        });
        let gc = GcSched::new(&p, l.gc_high);
        let dev_deferred = dev.deferred();
        let cpu = p.cpu.as_ref().filter(|_| D::TIMED).map(|c| {
            let ftl = sim.ftl();
            let costs = CpuCosts::resolve(
                c,
                ftl.placement().classifier_ns(),
                ftl.victim_policy().select_ns(),
            );
            Cpu::new(c.cores, costs, c.scale)
        });
        let mut heap = BinaryHeap::new();
        if let Host::ClosedLoop { queue_depth } = p.host {
            if D::TIMED {
                heap.extend((0..queue_depth).map(|_| Reverse(0u64)));
            }
        }
        Ok(Core {
            dev,
            cache,
            gc,
            ops: Vec::with_capacity(if D::TIMED { 1024 } else { 0 }),
            host_busy_until: 0,
            pps: FastDiv::new(l.pages_per_segment),
            stats: HostStats {
                rd: Latencies::default(),
                wr: Latencies::default(),
                win: Window::new(0),
                series: Vec::new(),
                requests: 0,
                reads: 0,
                writes: 0,
                data_bytes: 0,
                next_point: if p.checkpoint_bytes > 0 {
                    p.checkpoint_bytes
                } else {
                    u64::MAX
                },
                first_arrival: None,
                last_arrival: 0,
                first_t: 0,
                heap,
                start: FtlCounters::default(),
            },
            p,
            // A content-aware GC action with idle-time work (SplitGC's read scrub and
            // deferred write-backs) runs it in host idle periods of timed runs.
            idle_work: (D::TIMED && sim.ftl().has_background_work()).then(|| {
                Box::new(|ftl: &mut crate::ftl::Ftl| Ok(ftl.background_step()?.is_some()))
                    as Box<dyn super::IdleWork>
            }),
            started: false,
            stream_rec: None,
            deferred: dev_deferred.then(deferred::Deferred::default),
            cpu,
            flushes: flush::HostFlushes::default(),
        })
    }

    /// Preconditions the simulation (untimed) and starts the clock: the FTL's op log goes
    /// on for a timed device. Idempotent.
    pub(crate) fn start(&mut self, sim: &mut Simulation) -> Result<()> {
        if self.started {
            return Ok(());
        }
        if D::TIMED && sim.needs_future() {
            return Err(Error::config(
                "run.placement",
                "a future-knowledge placement (oracle) needs a pre-pass over a second copy of the workload, \
                 which timed runs do not do yet: run it WAF-only",
            ));
        }
        sim.precondition()?;
        if D::TIMED {
            // The fill's pages, in the order they were written (sequential LPNs), for an
            // allocation that depends only on program order (round-robin); a device that
            // does not need them never pulls the iterator.
            let n = sim.precondition_counts().user_writes;
            let ftl = sim.ftl();
            // In the content mode an LPN may name a content group whose copy an earlier
            // LPN wrote: each page once, through the group (`resolve`).
            let content = ftl.content().is_some();
            let mut seen = vec![false; if content { ftl.mapping().p2l.len() } else { 0 }];
            let mut pages = (0..n.min(sim.layout().logical_pages)).filter_map(|lpn| {
                let p = ftl.resolve(lpn as u32)?;
                (!content || !std::mem::replace(&mut seen[p as usize], true)).then_some(p)
            });
            self.dev.place_untimed(&mut pages);
        }
        sim.ftl_mut().set_op_log(D::TIMED);
        self.stats.start = sim.ftl().counters.clone();
        self.started = true;
        Ok(())
    }

    /// Why a timed run ends before the next request, if it does.
    #[inline]
    pub(super) fn ended(&self, rec: &Recorder, target: Option<u64>) -> Option<&'static str> {
        if let Some(v) = self.p.data_volume_bytes {
            if self.stats.data_bytes >= v {
                return Some("data_volume");
            }
        }
        if target.is_some_and(|tg| rec.written() >= tg) {
            return Some("write_volume");
        }
        if self
            .p
            .max_requests
            .is_some_and(|m| self.stats.requests >= m)
        {
            return Some("requests");
        }
        None
    }

    /// The arrival time of the next request.
    #[inline]
    fn arrival(&mut self, req: &Request) -> u64 {
        let s = &mut self.stats;
        match self.p.host {
            // The slot completing first issues this request; its entry is replaced by
            // this request's completion (one sift instead of a pop and a push).
            Host::ClosedLoop { .. } => s.heap.peek().map(|&Reverse(t)| t).unwrap_or(0),
            Host::OpenLoop { time_scale } => {
                let t0 = *s.first_arrival.get_or_insert(req.time_ns);
                let a = (req.time_ns.saturating_sub(t0) as f64 * time_scale).round() as u64;
                // Out-of-order timestamps are served in file order, not earlier.
                s.last_arrival = s.last_arrival.max(a);
                s.last_arrival
            }
            Host::Rate { iops } => {
                let a = libm::round(s.requests as f64 * 1e9 / iops) as u64;
                s.last_arrival = s.last_arrival.max(a);
                s.last_arrival
            }
        }
    }

    /// Serves a request at its arrival time (by the host model) and records it. `FUA`:
    /// the request may be a FUA write (its workload may hand out flushes and FUA writes,
    /// [`crate::workload::Workload::may_flush`]); without, its flag is not looked at.
    #[inline]
    pub(super) fn submit_next<const FUA: bool>(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
        rec: &mut Recorder,
    ) -> Result<()> {
        let fua = FUA && req.fua;
        if fua && req.op == Op::Write {
            self.flushes.fua_writes += 1;
        }
        if self.deferred.is_some() {
            return self.submit_deferred(sim, req, rec);
        }
        let t = self.arrival(req);
        self.record_served(sim, req, t, fua, rec).map(|_| ())
    }

    /// Whether completions are decided later (a priority scheduler or suspend).
    pub(super) fn is_deferred(&self) -> bool {
        self.deferred.is_some()
    }

    /// Serves a request of one of several flows at the arrival time its flow gave it and
    /// records it; returns its completion time (not in deferred mode: see
    /// [`Core::submit_flow_deferred`]). `durable`: a write of a flow with `sync=1`, which
    /// completes once its pages are on flash ([`Core::write_through`]).
    #[inline]
    pub(super) fn submit_at(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
        t: u64,
        durable: bool,
        rec: &mut Recorder,
    ) -> Result<u64> {
        self.stats.last_arrival = self.stats.last_arrival.max(t);
        self.record_served(sim, req, t, durable, rec)
    }

    /// Simulated time from the first arrival to the last completion so far.
    pub(super) fn span_ns(&self) -> u64 {
        self.host_busy_until
            .max(self.stats.first_t)
            .saturating_sub(self.stats.first_t)
    }

    #[inline]
    /// Serves `req` at `t` and records it; returns its completion. `durable` (a FUA write,
    /// or a write of a flow with `sync=1`): a write completes once its pages are
    /// programmed ([`Core::write_through`]).
    pub(super) fn record_served(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
        t: u64,
        durable: bool,
        rec: &mut Recorder,
    ) -> Result<u64> {
        let s = &mut self.stats;
        if s.requests == 0 {
            s.first_t = t;
            s.win.t0 = t;
        }
        let mut c = self.serve(sim, req, t)?;
        if req.op != Op::Read {
            if durable && req.op == Op::Write {
                c = c.max(self.write_through(sim, req, t)?);
            }
            // What a later flush waits for without a write cache.
            self.flushes.writes_done = self.flushes.writes_done.max(c);
        }
        let s = &mut self.stats;
        if let Host::ClosedLoop { .. } = self.p.host {
            if let Some(mut top) = s.heap.peek_mut() {
                *top = Reverse(c);
            }
        }
        #[cfg(test)]
        crate::device::audit::end_current(c);
        let lat = c - t;
        match req.op {
            Op::Read => s.win.rd.record(lat),
            Op::Write => s.win.wr.record(lat),
            Op::Trim | Op::Flush => {}
        }
        self.dev.on_request(req.op, t, c);
        self.count_served(sim, req, t, rec);
        Ok(c)
    }

    /// Counts a served request (volume, kind, user pages) and adds a series point when
    /// its volume is due.
    fn count_served(&mut self, sim: &Simulation, req: &Request, t: u64, rec: &mut Recorder) {
        let s = &mut self.stats;
        let bytes = req.pages as u64 * sim.layout().lpn_size as u64;
        s.requests += 1;
        s.data_bytes += bytes;
        s.win.requests += 1;
        s.win.bytes += bytes;
        match req.op {
            Op::Read => s.reads += 1,
            Op::Write => {
                s.writes += 1;
                for _ in 0..req.pages {
                    rec.user_page(&sim.ftl().counters);
                }
            }
            Op::Trim | Op::Flush => {}
        }
        if s.data_bytes >= s.next_point {
            while s.next_point <= s.data_bytes {
                s.next_point += self.p.checkpoint_bytes;
            }
            let now = self.host_busy_until.max(t);
            let point = self.point(sim, now);
            let s = &mut self.stats;
            s.series.push(point);
            // The totals are the windows' sum: merged at each point and at the end.
            s.rd.merge(&s.win.rd);
            s.wr.merge(&s.win.wr);
            s.win = Window::new(now);
        }
    }

    fn point(&self, sim: &Simulation, now: u64) -> TimingPoint {
        let w = &self.stats.win;
        let start = &self.stats.start;
        let data_bytes = self.stats.data_bytes;
        let dt = now.saturating_sub(w.t0) as f64 / 1e9;
        let c = &sim.ftl().counters;
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
            waf_cumulative: crate::metrics::waf_between(start, c),
            erases: c.erases - start.erases,
            gc_page_moves: c.gc_writes - start.gc_writes,
        }
    }

    /// Hides the FTL's cache misses behind the current request: the mapping entry of the
    /// request after next, and the validity-bitmap word and segment counter of the next
    /// request's old copy (whose mapping entry was prefetched one request earlier).
    #[inline]
    pub(super) fn prefetch_for(
        &self,
        sim: &Simulation,
        next: Option<&Request>,
        after: Option<&Request>,
    ) {
        let ftl = sim.ftl();
        if let Some(l2p) = after.and_then(|r| ftl.map.l2p.get(r.lpn as usize)) {
            prefetch(l2p);
        }
        if let Some(&ppn) = next.and_then(|r| ftl.map.l2p.get(r.lpn as usize)) {
            if ppn != NONE {
                if let Some(w) = ftl.map.valid.get((ppn >> 6) as usize) {
                    prefetch(w);
                }
                if let Some(v) = ftl.segs.valid.get(self.pps.quot(ppn) as usize) {
                    prefetch(v);
                }
            }
        }
    }

    /// Times the op stream of one host page operation issued at `t`; returns the end of
    /// the host's own operations.
    #[inline]
    fn schedule(
        &mut self,
        sim: &mut Simulation,
        t: u64,
        host_ready: &mut u64,
        rg: &mut ReadGroup,
    ) -> u64 {
        let mut ops = std::mem::take(&mut self.ops);
        ops.clear();
        sim.ftl_mut().drain_ops(&mut ops);
        let Some(cpu) = &mut self.cpu else {
            let e = self.dev.schedule(&ops, t, host_ready, rg, self.gc.policy());
            self.ops = ops;
            return e;
        };
        cpu.placement_work(sim.ftl_mut().placement_mut().take_cpu_work_ns());
        // The host's flash operations wait for its CPU work; under foreground GC (the host
        // waits for the whole pass anyway) the GC pass is issued when its CPU work (victim
        // selection, fingerprints) has finished (docs/cpu.md).
        let (c, g) = cpu.page(&ops, t);
        *host_ready = (*host_ready).max(c);
        let policy = self.gc.policy();
        let issue = if policy.barrier { g } else { t };
        let e = self.dev.schedule(&ops, issue, host_ready, rg, policy);
        self.ops = ops;
        e.max(c)
    }

    /// Serves one host request arriving at `t`; returns its completion time.
    pub(crate) fn serve(&mut self, sim: &mut Simulation, req: &Request, t: u64) -> Result<u64> {
        #[cfg(test)]
        crate::device::audit::begin_request(t);
        self.gc.before_arrival(
            sim,
            &mut self.dev,
            &mut Issue {
                ops: &mut self.ops,
                cpu: &mut self.cpu,
            },
            self.host_busy_until,
            t,
            &mut self.idle_work,
        )?;
        let mut done = t;
        let mut host_ready = t;
        let mut rg = ReadGroup::default();
        let dram = self.p.controller.dram_ns;
        let mem = dram.unwrap_or_else(|| self.dev.memory_access_ns());
        // DRAM timing of mapping-cache hits: each hit of a host operation's FTL call delays
        // its flash operations by one DRAM access.
        let map_hits = |sim: &Simulation| sim.ftl().counters.translation.map_or(0, |c| c.hits);
        let mut seen = if dram.is_some() { map_hits(sim) } else { 0 };
        let end = req.lpn + req.pages as u64;
        // Content mode: each page's content is fixed when the host writes it (a write cache
        // may program it later).
        let content = sim.ftl().content().is_some() && req.op == Op::Write;
        for lpn in req.lpn..end {
            if content {
                let c = crate::content::page_content(req.content, lpn - req.lpn);
                sim.ftl_mut().stage_content(lpn as u32, c);
            }
            let lpn = lpn as u32;
            match req.op {
                Op::Write => {
                    let target = match &mut self.cache {
                        Some(c) => {
                            if c.touch(lpn) {
                                c.write_hit(lpn);
                                c.hits += 1;
                                done = done.max(t + mem);
                                continue;
                            }
                            let (dev, ftl) = (&self.dev, sim.ftl());
                            // The page serving the LPN: in the content mode an L2P
                            // entry may name a content group, not a page (`resolve`).
                            let collecting =
                                |l: u32| ftl.resolve(l).is_some_and(|p| dev.collecting(p, t));
                            let scanned = c.scanned;
                            let evicted = c.insert(lpn, collecting);
                            let entries = (c.scanned - scanned) as u32;
                            if entries > 0 {
                                // GCaR's traversal: an op the firmware-CPU model charges
                                // (device models without one take no time for it).
                                sim.ftl_mut().log_compute(
                                    crate::ops::Compute::CacheScan { entries },
                                    crate::ops::Origin::Host,
                                );
                            }
                            match evicted {
                                None => {
                                    done = done.max(t + mem);
                                    continue;
                                }
                                Some(e) => e,
                            }
                        }
                        None => lpn,
                    };
                    sim.ftl_mut().write(target)?;
                    if let Some(d) = dram {
                        let h = map_hits(sim);
                        host_ready += (h - seen) * d;
                        done = done.max(host_ready);
                        seen = h;
                    }
                    let e = self.schedule(sim, t, &mut host_ready, &mut rg);
                    done = done.max(e);
                }
                Op::Read => {
                    if let Some(c) = &mut self.cache {
                        if c.touch(lpn) {
                            c.read_hits += 1;
                            done = done.max(t + mem);
                            continue;
                        }
                    }
                    let mapped = sim.ftl_mut().read(lpn).is_some();
                    if let Some(d) = dram {
                        let h = map_hits(sim);
                        host_ready += (h - seen) * d;
                        done = done.max(host_ready);
                        seen = h;
                    }
                    if mapped {
                        let e = self.schedule(sim, t, &mut host_ready, &mut rg);
                        done = done.max(e);
                    } else if sim.ftl().log.pending().is_empty() {
                        done = done.max(self.dev.read_unmapped(t));
                    } else {
                        // The mapping cache read the (never written) entry's translation page.
                        let e = self.schedule(sim, t, &mut host_ready, &mut rg);
                        done = done.max(e).max(self.dev.read_unmapped(host_ready));
                    }
                }
                Op::Trim => {
                    sim.ftl_mut().trim(lpn);
                    if let Some(d) = dram {
                        let h = map_hits(sim);
                        host_ready += (h - seen) * d;
                        done = done.max(host_ready);
                        seen = h;
                    }
                    if !sim.ftl().log.pending().is_empty() {
                        // Mapping-cache traffic of the trim's mapping update.
                        let e = self.schedule(sim, t, &mut host_ready, &mut rg);
                        done = done.max(e);
                    }
                    if let Some(c) = &mut self.cache {
                        c.remove(lpn);
                    }
                }
                // No pages: the loop never runs for a flush (see `Core::flush`).
                Op::Flush => {}
            }
        }
        self.host_busy_until = self.host_busy_until.max(done);
        Ok(done)
    }

    fn timing_dependent(&self) -> bool {
        self.gc.timing_dependent()
            || (self.cache.is_some() && self.p.cache_policy != CachePolicy::Lru)
            || self.dev.timing_dependent()
            || self.idle_work.is_some()
    }

    /// The result of everything served so far (timing section and device sections
    /// attached). Queued GC runs after the last host request (it delays no request).
    pub(crate) fn finish(
        &mut self,
        sim: &mut Simulation,
        workload: String,
        ended_by: &str,
    ) -> Result<RunResult> {
        self.start(sim)?;
        let rec = match self.stream_rec.take() {
            Some(r) => r,
            None => self.new_recorder(sim, None),
        };
        let r = self.finish_with(sim, workload, &rec, ended_by);
        self.stream_rec = Some(rec);
        r
    }

    /// A recorder of the measured phase from the FTL's counters now.
    /// Bytes the timed part of a run adds to the simulation's estimate: the device
    /// model's state (a NoC model's time series at its full size), the write cache's
    /// index and a fixed allowance for the latency histograms, the op log and the
    /// request buffers (measured about 0.6 MiB on flash runs of 0.25 to 4 GiB devices).
    /// Why [`Core::memory_estimate`]'s device part is an upper bound, if it is one.
    pub(crate) fn memory_estimate_upper_bound(&self) -> Option<&'static str> {
        self.dev.memory_estimate_upper_bound()
    }

    pub(crate) fn memory_estimate(&self) -> u64 {
        const DRIVER: u64 = 640 << 10;
        self.dev.memory_estimate() + self.cache.as_ref().map_or(0, |c| c.memory_bytes()) + DRIVER
    }

    pub(super) fn new_recorder(&self, sim: &Simulation, target: Option<u64>) -> Recorder {
        Recorder::new(
            &sim.config().run,
            sim.layout(),
            target,
            sim.ftl().counters.clone(),
        )
    }

    pub(super) fn finish_with(
        &mut self,
        sim: &mut Simulation,
        workload: String,
        rec: &Recorder,
        ended_by: &str,
    ) -> Result<RunResult> {
        if ended_by != super::run_loop::INTERRUPTED {
            if let Some(e) = sim.ftl().placement().consistency_error() {
                return Err(Error::Workload(e));
            }
        }
        let endc = sim.ftl().counters.clone();
        let (total, steady, warmup_pages, series) = rec.clone().finish(&endc);
        let mut res = sim.result(workload, total, steady, warmup_pages, series, ended_by);
        if !D::TIMED {
            return Ok(res);
        }
        self.drain_deferred();
        let s = &mut self.stats;
        let (mut rd, mut wr) = (s.rd.clone(), s.wr.clone());
        rd.merge(&s.win.rd);
        wr.merge(&s.win.wr);
        self.dev.pump(None, usize::MAX);
        let s = &self.stats;
        let finish = self.host_busy_until.max(s.first_t);
        let span = finish.saturating_sub(s.first_t);
        let secs = span as f64 / 1e9;
        let timing_dependent = self.timing_dependent();
        let logical = sim.layout().logical_pages;
        let memory = self.dev.memory_bytes() + self.cache.as_ref().map_or(0, |c| c.memory_bytes());
        let dev_report = self.dev.report(span);
        let fifo_note = match &dev_report {
            Some(DeviceReport::Flash(f)) => f.one_fifo_note(),
            _ => None,
        };
        let (flash, noc) = match dev_report {
            Some(DeviceReport::Flash(f)) => (Some(f), None),
            Some(DeviceReport::Noc(mut n)) => {
                n.notes = crate::device::noc::gc_mode_notes(self.p.gc_mode.immediate());
                (None, Some(n))
            }
            None => (None, None),
        };
        let report = TimingReport {
            host: self.p.host,
            params: self.p.clone(),
            timing_dependent_policy: timing_dependent,
            simulated_ns: span,
            requests: s.requests,
            read_requests: s.reads,
            write_requests: s.writes,
            iops: if secs > 0.0 {
                s.requests as f64 / secs
            } else {
                0.0
            },
            bandwidth_mb_s: if secs > 0.0 {
                s.data_bytes as f64 / 1e6 / secs
            } else {
                0.0
            },
            read_latency: rd.summary(),
            write_latency: wr.summary(),
            read_histogram: rd.log_histogram(),
            write_histogram: wr.log_histogram(),
            flash,
            proactive_gc_victims: self.gc.proactive,
            flushes: self.flushes.count,
            flush_latency: (self.flushes.count > 0).then(|| self.flushes.latency.summary()),
            fua_writes: self.flushes.fua_writes,
            cache: self.cache.as_ref().map(|c| CacheReport {
                policy: c.policy,
                pages: self.p.cache_pages,
                write_hits: c.hits,
                read_hits: c.read_hits,
                evictions: c.evictions,
                gcar_skips: c.gcar_skips,
                scanned_entries: c.scanned,
                dirty_at_end: c.dirty_len(),
            }),
            series: s.series.clone(),
            memory_bytes_per_lpn: memory as f64 / logical as f64,
            cpu: self.cpu.as_ref().map(|c| c.report(span, s.requests)),
        };
        res.notes.push(format!(
            "timing: {} host, GC {:?}, {}",
            self.p.host.describe(),
            self.p.gc_mode,
            self.dev.describe()
        ));
        if let Some(c) = &self.cpu {
            res.notes.push(c.describe());
        }
        if timing_dependent {
            res.notes.push(
                "timing-dependent policy (background/idle GC or GCaR): FTL decisions depend on simulated time, so WAF may differ from the WAF-only run"
                    .into(),
            );
        }
        res.notes.extend(self.flushes.note(self.cache.is_some()));
        res.notes.extend(fifo_note);
        if let Some(c) = &report.cache {
            if c.dirty_at_end > 0 {
                res.notes.push(format!("{} dirty cached pages were not flushed at the end (not counted as flash writes)", c.dirty_at_end));
            }
        }
        res.timing = Some(report);
        res.noc = noc;
        Ok(res)
    }
}
