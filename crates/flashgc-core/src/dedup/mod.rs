//! Deduplication-aware GC (papers/splitgc.txt: Nie et al., "Exploiting Data Duplication to
//! Reduce Data Migration in Garbage Collection Inside SSD", Electronics 14(9) 1873, 2025):
//! SplitGC and its baselines greedy, CAGC and DAGC, on a content-aware FTL ([`ftl`]) timed
//! on the shared device model ([`crate::timing::device`]). See docs/splitgc.md.
//!
//! Driver ([`DedupSim`]): requests arrive at their trace times (or Poisson at `rate` for
//! untimed synthetic workloads) and are served in arrival order, open loop. Each host page
//! operation is applied to the FTL with its operation log on; the logged flash operations are
//! reserved on the channels and dies in issue order: GC reads ready at the request's arrival,
//! each relocation program ready when its read (plus CAGC's fingerprint time) ends, the erase
//! when the victim's reads and programs end; the host's own read or program ready at
//! arrival. A request's latency is its last page's end minus its arrival.
//!
//! Idle time: once no host request has been outstanding for `idle_ns`, background work runs
//! until the next arrival (an operation that starts before the arrival runs to its end, so
//! it may delay that request): first SplitGC's waiting queue (deferred duplicate writes), then
//! the read scrub (SplitGC only), which reads every live page of the device in order and
//! charges ECC (and, in the active group of blocks, fingerprint generation and management)
//! on one scrub engine in the controller.
//!
//! Content check: the driver remembers the content last written to every LPN and compares
//! every read with it; a mismatch is an error (no scheme may return stale or lost data).

pub mod content;
pub mod ftl;
pub mod scrub;

pub use content::{ContentGen, ContentParams};
pub use ftl::{
    DOp, DedupCounters, DedupFtl, DedupGeom, DedupMemory, Scheme, SplitRule, Writeback, VFLAG,
};

use crate::config::{Config, Layout};
use crate::device::flash::{Alloc, Costs, FlashMedia as Device, Geometry};
use crate::device::ReadGroup;
use crate::error::{Error, Result};
use crate::metrics::latency::{Latencies, LatencySummary};
use crate::workload::{Op, Request, Rng, Workload};
use serde::Serialize;

/// What the model approximates (printed with the results).
pub const NOTES: &[&str] = &[
    "GC is per plane (free blocks, frontier, watermarks, victims), writes round robin over planes; --gc-scope device gives the core FTL's single pool",
    "content fingerprints are 64-bit (FIU: first 8 bytes of the MD5); the table's memory is counted at 20 B per SHA-1",
    "read scrub runs for SplitGC only; ECC and fingerprint time are charged on one controller scrub engine",
    "host requests are never preempted by background work already started",
];

/// Parameters of a dedup run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DedupParams {
    /// GC scheme.
    pub scheme: Scheme,
    /// SplitGC victim rule.
    pub rule: SplitRule,
    /// SplitGC: what a page written back from the waiting queue is known as.
    pub writeback: Writeback,
    /// Synthetic content (used for every written page whose request carries no content).
    pub content: ContentParams,
    /// Idle detection: no host request outstanding for this long, ns.
    pub idle_ns: u64,
    /// Read-scrub ECC check per page, ns (paper: 20 us).
    pub ecc_ns: u64,
    /// Fingerprint generation per page, ns (paper: 80 us, SHA-1).
    pub fp_gen_ns: u64,
    /// Fingerprint management per page (Bloom filter and table), ns (paper: 10 us).
    pub fp_manage_ns: u64,
    /// Groups of blocks; one is fingerprinted per scrub pass (paper: 10, alpha = 0.1).
    pub scrub_groups: u32,
    /// Bloom filter bits per physical page (paper: m = 4.2 n).
    pub bloom_bits: f64,
    /// Run the read scrub at idle time (SplitGC).
    pub scrub: bool,
    /// Fingerprint the whole preconditioned device before the run (as if the scrub had had
    /// the idle time to visit every group).
    pub prescrub: bool,
    /// DAGC's checksum lookup on the write path, ns.
    pub dagc_write_ns: u64,
    /// Planes of a die run operations concurrently (otherwise one operation per die).
    pub multiplane: bool,
    /// GC per plane (SSDsim; the paper's "group triggering GC"): each plane has its own free
    /// blocks, write frontier, watermarks (`ftl.gc_low`/`gc_high` per plane) and victims;
    /// writes go round robin over the planes. False: one device-wide pool (the core FTL).
    pub per_plane: bool,
}

impl DedupParams {
    /// The paper's defaults for `scheme`.
    pub fn new(scheme: Scheme) -> DedupParams {
        DedupParams {
            scheme,
            rule: SplitRule::PerFree,
            writeback: Writeback::Keep,
            content: ContentParams {
                dup_ratio: 0.3,
                pool: 1024,
                theta: 1.0,
            },
            idle_ns: 1_000_000,
            ecc_ns: 20_000,
            fp_gen_ns: 80_000,
            fp_manage_ns: 10_000,
            scrub_groups: 10,
            bloom_bits: 4.2,
            scrub: true,
            prescrub: true,
            dagc_write_ns: 10_000,
            multiplane: false,
            per_plane: true,
        }
    }
    /// Checks ranges.
    pub fn validate(&self) -> Result<()> {
        self.content.validate()?;
        if self.scrub_groups == 0 || self.scrub_groups > 1 << 20 {
            return Err(Error::config("--scrub-groups", "must be in 1..=1048576"));
        }
        if !(self.bloom_bits.is_finite() && self.bloom_bits >= 1.0 && self.bloom_bits <= 64.0) {
            return Err(Error::config(
                "--bloom-bits",
                format!("{} must be in [1, 64]", self.bloom_bits),
            ));
        }
        Ok(())
    }
}

/// Results of one run (measured after the warm-up).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DedupReport {
    /// Scheme.
    pub scheme: Scheme,
    /// Workload description.
    pub workload: String,
    /// Parameters.
    pub params: DedupParams,
    /// Logical pages.
    pub logical_pages: u64,
    /// Physical pages.
    pub physical_pages: u64,
    /// Share of mapped LPNs whose content another mapped LPN also holds, at the end.
    pub measured_dup_share: f64,
    /// Host requests measured.
    pub requests: u64,
    /// Pages relocated by GC in real time (the paper's migrated pages).
    pub migrated_pages: u64,
    /// SplitGC: duplicates deferred to the waiting queue.
    pub deferred_queued: u64,
    /// SplitGC: deferred duplicates written back at idle time.
    pub deferred_written: u64,
    /// SplitGC: entries left in the waiting queue at the end.
    pub deferred_pending: u64,
    /// Erases.
    pub erases: u64,
    /// (user programs + GC programs + deferred programs) / user page writes.
    pub waf: f64,
    /// Read request latency.
    pub read: LatencySummary,
    /// Write request latency.
    pub write: LatencySummary,
    /// All requests.
    pub all: LatencySummary,
    /// Dedup metadata memory, bytes.
    pub memory: DedupMemory,
    /// The same per logical page: fingerprint table, Bloom, SMT, queue.
    pub memory_bytes_per_lpn: [f64; 4],
    /// Reads whose content was checked against the last write (all of them).
    pub content_checked_reads: u64,
    /// Simulated time of the measured part, seconds.
    pub simulated_s: f64,
    /// Counters of the measured part.
    pub counters: DedupCounters,
}

/// The timed dedup simulator.
pub struct DedupSim {
    p: DedupParams,
    layout: Layout,
    ftl: DedupFtl,
    dev: Device,
    content: ContentGen,
    expect: Vec<u64>,
    ops: Vec<DOp>,
    rd: Latencies,
    wr: Latencies,
    all: Latencies,
    last_done: u64,
    scrub_free: u64,
    base: DedupCounters,
    t_start: u64,
    t_end: u64,
    requests: u64,
    checked: u64,
    served: u64,
    workload: String,
}

impl DedupSim {
    /// Builds the FTL and the device of `cfg` (geometry, timing, op, gc watermarks, seed).
    pub fn new(cfg: &Config, p: DedupParams) -> Result<DedupSim> {
        p.validate()?;
        let mut layout = cfg.layout()?;
        if layout.lpn_size != cfg.device.page_size {
            return Err(Error::config(
                "device.lpn_size",
                "the dedup simulator needs lpn_size = page_size (one fingerprint per flash page)",
            ));
        }
        // Each write frontier may need a fresh segment within one victim's relocation (as
        // the core Simulation): CAGC's two frontiers need gc_low >= 3. Every scheme gets the
        // same floor so that a comparison runs with the same watermarks.
        let min_low = 3;
        if layout.gc_low < min_low {
            layout.gc_high = layout.gc_high.max(min_low) + (layout.gc_high - layout.gc_low);
            layout.gc_low = min_low;
        }
        let geo = Geometry::new(&cfg.device, layout.pages_per_segment, "CWDP")?;
        let g = DedupGeom {
            logical_pages: layout.logical_pages,
            segments: layout.segments,
            pps: layout.pages_per_segment,
            gc_low: layout.gc_low,
            gc_high: layout.gc_high,
            // With one block per segment, segment s lives on unit s % units (timing::geometry).
            planes: if p.per_plane && cfg.device.segment_blocks == 1 {
                geo.units
            } else {
                1
            },
        };
        let fp_ns = p.fp_gen_ns + p.fp_manage_ns;
        let mut ftl = DedupFtl::new(p.scheme, p.rule, g, p.scrub_groups, p.bloom_bits, fp_ns)?;
        ftl.set_writeback(p.writeback);
        let costs = Costs::new(&cfg.device.timing, layout.lpn_size);
        let dev = Device::new(geo, costs, p.multiplane, Alloc::Static, layout.segments);
        Ok(DedupSim {
            content: ContentGen::new(p.content, cfg.run.seed),
            expect: vec![0; layout.logical_pages as usize],
            ops: Vec::new(),
            rd: Latencies::default(),
            wr: Latencies::default(),
            all: Latencies::default(),
            last_done: 0,
            scrub_free: 0,
            base: DedupCounters::default(),
            t_start: 0,
            t_end: 0,
            requests: 0,
            checked: 0,
            served: 0,
            workload: String::new(),
            p,
            layout,
            ftl,
            dev,
        })
    }

    /// The FTL.
    pub fn ftl(&self) -> &DedupFtl {
        &self.ftl
    }
    /// The FTL (mutable, for tests: power cuts, checks).
    pub fn ftl_mut(&mut self) -> &mut DedupFtl {
        &mut self.ftl
    }
    /// Requests served by [`DedupSim::run`], warm-up included (for speed figures).
    pub fn served(&self) -> u64 {
        self.served
    }
    /// The layout (after watermark adjustment).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Writes `fill` of the logical space sequentially with synthetic content (untimed, not
    /// measured), then fingerprints everything if `prescrub`.
    pub fn precondition(&mut self, fill: f64) -> Result<()> {
        let n = (self.layout.logical_pages as f64 * fill).round() as u64;
        for lpn in 0..n {
            let c = self.content.next_content();
            self.ftl.write(lpn as u32, c)?;
            self.expect[lpn as usize] = c;
        }
        if self.p.prescrub {
            self.ftl.scrub_all();
        }
        Ok(())
    }

    /// Verifies every LPN's content against the last write (O(logical pages)).
    pub fn check_all_content(&self) -> Result<()> {
        for (lpn, &want) in self.expect.iter().enumerate() {
            let got = self.ftl.peek(lpn as u32);
            let ok = match got {
                None => want == 0,
                Some(c) => c == want,
            };
            if !ok {
                return Err(Error::Workload(format!(
                    "content check: LPN {lpn} holds {got:?}, last written {want:#x} ({})",
                    self.p.scheme.name()
                )));
            }
        }
        Ok(())
    }

    /// Reserves the logged operations; returns (end of the host's own operations, end of
    /// the background ones).
    fn time_ops(&mut self, t: u64, host_ready: u64) -> (u64, u64) {
        let mut chain = t;
        let mut vic = t;
        let mut bg = t;
        let mut host = host_ready;
        for i in 0..self.ops.len() {
            match self.ops[i] {
                DOp::Read { ppn, gc: true } => {
                    let e = self.dev.read(ppn, t, true, &mut ReadGroup::default());
                    chain = e;
                    vic = vic.max(e);
                    bg = bg.max(e);
                }
                DOp::Compute { ns } => chain += ns,
                DOp::Program { ppn, gc: true } => {
                    let e = self.dev.program(ppn, chain, true, false);
                    vic = vic.max(e);
                    bg = bg.max(e);
                }
                DOp::Erase { seg } => {
                    bg = bg.max(self.dev.erase(seg, vic));
                    vic = t;
                }
                DOp::Read { ppn, gc: false } => {
                    let e = self
                        .dev
                        .read(ppn, host_ready, false, &mut ReadGroup::default());
                    host = host.max(e);
                }
                DOp::Program { ppn, gc: false } => {
                    let e = self.dev.program(ppn, host_ready, false, false);
                    host = host.max(e);
                }
            }
        }
        self.ops.clear();
        (host, bg)
    }

    /// Background work in the idle window before `next` (ns). Returns pages handled.
    fn idle(&mut self, next: u64) -> Result<u64> {
        let start = self.last_done.saturating_add(self.p.idle_ns);
        if start >= next {
            return Ok(0);
        }
        let mut n = 0u64;
        // Deferred duplicate writes first (they free the SMT and the copies they pin).
        while self.ftl.queue_len() > 0 {
            if !self.ftl.deferred_step(false)? {
                break;
            }
            self.ftl.drain_ops(&mut self.ops);
            let (_, end) = self.time_ops(start, start);
            n += 1;
            if end >= next {
                return Ok(n);
            }
        }
        if self.p.scrub && self.p.scheme == Scheme::SplitGc {
            while let Some((ppn, fp)) = self.ftl.scrub_step() {
                let e = self.dev.read(ppn, start, true, &mut ReadGroup::default());
                let s = e.max(self.scrub_free);
                let work = self.p.ecc_ns
                    + if fp {
                        self.p.fp_gen_ns + self.p.fp_manage_ns
                    } else {
                        0
                    };
                self.scrub_free = s + work;
                n += 1;
                if self.scrub_free >= next || e >= next {
                    break;
                }
            }
        }
        Ok(n)
    }

    /// Serves one request arriving at `t`; returns its completion time.
    pub fn serve(&mut self, req: &Request, t: u64) -> Result<u64> {
        let logical = self.layout.logical_pages;
        if req.pages == 0 || req.lpn + req.pages as u64 > logical {
            return Err(Error::Workload(format!(
                "request at LPN {} ({} pages) is beyond the {logical} logical pages",
                req.lpn, req.pages
            )));
        }
        let mut done = t;
        for i in 0..req.pages as u64 {
            let lpn = (req.lpn + i) as u32;
            match req.op {
                Op::Read => {
                    let got = self.ftl.read(lpn);
                    let want = self.expect[lpn as usize];
                    let ok = match got {
                        None => want == 0,
                        Some(c) => c == want,
                    };
                    if !ok {
                        return Err(Error::Workload(format!(
                            "content check: read of LPN {lpn} returned {got:?}, last written {want:#x} (scheme {})",
                            self.p.scheme.name()
                        )));
                    }
                    self.checked += 1;
                    self.ftl.drain_ops(&mut self.ops);
                    done = done.max(self.time_ops(t, t).0);
                }
                Op::Write => {
                    let c = if req.content != 0 {
                        if i == 0 {
                            req.content
                        } else {
                            content::mix64(req.content ^ i).max(1)
                        }
                    } else {
                        self.content.next_content()
                    };
                    self.ftl.write(lpn, c)?;
                    self.expect[lpn as usize] = c;
                    self.ftl.drain_ops(&mut self.ops);
                    let ready = if self.p.scheme == Scheme::Dagc {
                        t + self.p.dagc_write_ns
                    } else {
                        t
                    };
                    done = done.max(self.time_ops(t, ready).0);
                }
                Op::Trim => {
                    self.ftl.trim(lpn);
                    self.expect[lpn as usize] = 0;
                }
            }
        }
        Ok(done)
    }

    /// Runs `wl`: stops when it ends, after `max_requests`, or (for endless workloads) when
    /// `volume` x logical pages have been written. The first `warmup` x logical pages of
    /// writes are not measured. `rate`: Poisson arrivals at this many requests/s instead of
    /// the requests' own times.
    pub fn run(
        &mut self,
        wl: &mut dyn Workload,
        max_requests: Option<u64>,
        rate: Option<f64>,
        volume: f64,
        warmup: f64,
    ) -> Result<()> {
        if let Some(r) = rate {
            if !(r.is_finite() && r > 0.0) {
                return Err(Error::config("--rate", format!("{r} must be > 0")));
            }
        }
        self.workload = wl.describe();
        self.ftl.set_op_log(true);
        let logical = self.layout.logical_pages as f64;
        let stop_writes = (volume * logical).round() as u64;
        let warm_writes = (warmup * logical).round() as u64;
        let mut rng = Rng::new(0x0A77_17A1 ^ self.p.content.pool);
        let mut clock = 0u64;
        let mut t0: Option<u64> = None;
        let mut buf = Vec::with_capacity(4096);
        let w0 = self.ftl.counters.user_writes;
        let mut measuring = warm_writes == 0;
        let mut first = true;
        self.base = self.ftl.counters.clone();
        let mut served = 0u64;
        'outer: loop {
            buf.clear();
            wl.fill(&mut buf, 4096)?;
            if buf.is_empty() {
                break;
            }
            for req in &buf {
                if max_requests.is_some_and(|m| served >= m) {
                    break 'outer;
                }
                let written = self.ftl.counters.user_writes - w0;
                if wl.is_infinite() && written >= stop_writes {
                    break 'outer;
                }
                if !measuring && written >= warm_writes {
                    measuring = true;
                    self.base = self.ftl.counters.clone();
                    self.rd = Latencies::default();
                    self.wr = Latencies::default();
                    self.all = Latencies::default();
                    self.requests = 0;
                    self.checked = 0;
                    first = true;
                }
                let t = match rate {
                    Some(r) => {
                        let u = rng.unit();
                        clock += (-libm::log(1.0 - u) / r * 1e9) as u64;
                        clock
                    }
                    None => {
                        let z = *t0.get_or_insert(req.time_ns);
                        req.time_ns.saturating_sub(z)
                    }
                };
                if !first || served > 0 {
                    self.idle(t)?;
                }
                if first {
                    self.t_start = t;
                    first = false;
                }
                let done = self.serve(req, t)?;
                let lat = done - t;
                match req.op {
                    Op::Read => self.rd.record(lat),
                    Op::Write => self.wr.record(lat),
                    Op::Trim => {}
                }
                self.all.record(lat);
                self.last_done = self.last_done.max(done);
                self.t_end = self.t_end.max(done);
                self.requests += 1;
                served += 1;
                self.served += 1;
            }
        }
        Ok(())
    }

    /// The report of the measured part.
    pub fn report(&self) -> DedupReport {
        let c = self.ftl.counters.since(&self.base);
        let mem = self.ftl.memory();
        let l = self.layout.logical_pages as f64;
        let programs = c.user_programs + c.gc_migrated + c.deferred_written;
        DedupReport {
            scheme: self.p.scheme,
            workload: self.workload.clone(),
            params: self.p.clone(),
            logical_pages: self.layout.logical_pages,
            physical_pages: self.layout.physical_pages,
            measured_dup_share: self.ftl.measured_dup_share(),
            requests: self.requests,
            migrated_pages: c.gc_migrated,
            deferred_queued: c.deferred_queued,
            deferred_written: c.deferred_written,
            deferred_pending: if self.p.scheme == Scheme::SplitGc {
                self.ftl.borrowing_lpns()
            } else {
                0
            },
            erases: c.erases,
            waf: if c.user_writes > 0 {
                programs as f64 / c.user_writes as f64
            } else {
                0.0
            },
            read: self.rd.summary(),
            write: self.wr.summary(),
            all: self.all.summary(),
            memory: mem,
            memory_bytes_per_lpn: [
                mem.fp_table as f64 / l,
                mem.bloom as f64 / l,
                mem.smt as f64 / l,
                mem.queue_peak as f64 / l,
            ],
            content_checked_reads: self.checked,
            simulated_s: self.t_end.saturating_sub(self.t_start) as f64 / 1e9,
            counters: c,
        }
    }
}
