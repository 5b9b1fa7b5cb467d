//! Timing model of a network-on-chip (NoC) SSD controller and selective copy-back GC
//! (papers/noc-copyback-gc.txt: Ahn, Im, You, Hong, Electronics 13(23) 4838, 2024).
//!
//! A dedicated model, independent of the generic [`crate::timing`] layer. It sits above the
//! FTL: every host page operation is applied to the FTL with its op log on, and the logged
//! [`FlashOp`]s are timed on the controller's resources:
//!
//! * per-channel hardware serving its task queues `R_host`, `R_gc`, `W_host`, `W_gc` (and GC
//!   erases) one task at a time, in the order tasks are issued (paper Fig. 5);
//! * the interconnect of routing slices joining the CPU (ECC/LDPC), SRAM/DRAM and the flash
//!   memory controllers (FMCs): one page crossing takes
//!   `(page_bits / transfer_unit_bits + avg_slices - 1) x hop_ns` (paper Eq. 1:
//!   (2^15/4 + 13.5 - 1) x 87 ns = 713.79 us); crossings on the same link serialize
//!   ([`Interconnect`] says which crossings share a link);
//! * the SRAM (one port, `sram_ns` per page) and the CPU's ECC unit (`ecc_check_ns` per page,
//!   plus `ecc_correct_ns` for a page with errors).
//!
//! Data paths (times are reservations on the resources above, first come first served in
//! issue order; a resource starts a task at max(ready, free)):
//!
//! * host read: `R_host` NAND read on the page's channel -> interconnect FMC -> CPU/SRAM ->
//!   ECC check -> SRAM write.
//! * host write: SRAM read -> interconnect CPU -> FMC -> `W_host` program.
//! * GC relocation, `conventional`: `R_gc` read -> interconnect to the CPU -> ECC -> interconnect
//!   back -> `W_gc` program on the destination's channel.
//! * GC relocation, `selective`: `R_gc` read -> interconnect to the CPU -> ECC check; an
//!   error-free page is programmed from the FMC buffer (no return crossing, no `W_gc` task);
//!   a page with errors takes the corrected round trip and a `W_gc` task, as in
//!   `conventional`.
//! * A GC victim's relocation reads are all issued first (they are enqueued together in
//!   `R_gc`), then its programs, then its erase (ready when the victim's reads are done).
//!
//! Since every reservation is a max-plus function of earlier ones and `selective` only
//! removes reservations or makes them ready earlier, no request is ever later under
//! `selective` than under `conventional` (same workload, seed and FTL decisions).

pub mod workload;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::ftl::FlashOp;
use crate::workload::{Op, Request, Rng, Workload};
use crate::{Ppn, Simulation};
use serde::Serialize;

/// Which GC data path relocations take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GcPath {
    /// Every relocated page: flash -> FMC -> interconnect -> CPU ECC -> interconnect -> flash.
    Conventional,
    /// Error-free pages are written back from the FMC buffer (paper's proposal).
    Selective,
}

impl GcPath {
    /// Parses `conventional` or `selective`.
    pub fn parse(field: &str, s: &str) -> Result<GcPath> {
        match s.trim().to_ascii_lowercase().as_str() {
            "conventional" => Ok(GcPath::Conventional),
            "selective" => Ok(GcPath::Selective),
            o => Err(Error::config(
                field,
                format!("unknown GC path `{o}`; allowed: conventional, selective"),
            )),
        }
    }
    /// The name used in output.
    pub fn name(self) -> &'static str {
        match self {
            GcPath::Conventional => "conventional",
            GcPath::Selective => "selective",
        }
    }
}

/// Which page crossings of the interconnect share a link (and so serialize).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Interconnect {
    /// One link for every crossing in either direction (a bus-like worst case).
    Shared,
    /// One link per direction (toward the CPU, toward the flash), shared by all channels.
    Duplex,
    /// One link per channel port and direction: each channel's task queue has its own
    /// interconnect port (paper Section 4.1: "each task queue for a channel requires an
    /// interconnect port"); crossings of different channels overlap (non-blocking NoC).
    Port,
}

impl Interconnect {
    /// Parses `shared`, `duplex` or `port`.
    pub fn parse(field: &str, s: &str) -> Result<Interconnect> {
        match s.trim().to_ascii_lowercase().as_str() {
            "shared" => Ok(Interconnect::Shared),
            "duplex" => Ok(Interconnect::Duplex),
            "port" => Ok(Interconnect::Port),
            o => Err(Error::config(
                field,
                format!("unknown interconnect model `{o}`; allowed: shared, duplex, port"),
            )),
        }
    }
}

/// Parameters of the NoC controller model. Defaults: the paper's Tables 1-2 and Eq. 1.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NocParams {
    /// GC data path.
    pub path: GcPath,
    /// Bits in one flash page crossing the interconnect (paper: 2^15 for 4 KiB).
    pub page_bits: u64,
    /// Bits moved per slice hop (paper: 4).
    pub transfer_unit_bits: u32,
    /// Average routing slices a transfer unit passes through (paper: 13.5 on a 16x8 NoC).
    pub avg_slices: f64,
    /// Delay between two neighbouring slices, ns (paper: 87 ns, Spartan-7 synthesis).
    pub hop_ns: f64,
    /// Which crossings share a link.
    pub interconnect: Interconnect,
    /// Probability that a relocated page has errors (paper: 1e-4).
    pub error_prob: f64,
    /// ECC check time per page on the CPU, ns (not given by the paper: 0).
    pub ecc_check_ns: u64,
    /// Extra LDPC correction time for a page with errors, ns (not given by the paper: 0).
    pub ecc_correct_ns: u64,
    /// SRAM access per page, ns (paper: 12 us).
    pub sram_ns: u64,
    /// NAND page read, ns (paper: 25 us).
    pub read_ns: u64,
    /// NAND page program, ns (paper: 200 us).
    pub program_ns: u64,
    /// NAND block erase, ns (paper: 700 us).
    pub erase_ns: u64,
    /// Width of one time-series window, ns (doubled as needed to keep the series short).
    pub window_ns: u64,
    /// Seed of the error draws.
    pub seed: u64,
}

/// 1 - (1 - ber)^bits: the probability that a page of `bits` bits has at least one bit error.
pub fn page_error_prob(ber: f64, bits: u64) -> f64 {
    -libm::expm1(bits as f64 * libm::log1p(-ber))
}

impl NocParams {
    /// The paper's parameters, with the flash timing and page size of `cfg`.
    pub fn from_config(cfg: &Config, path: GcPath) -> NocParams {
        let t = &cfg.device.timing;
        let ns = |us: f64| libm::round(us * 1000.0) as u64;
        NocParams {
            path,
            page_bits: cfg.device.page_size as u64 * 8,
            transfer_unit_bits: 4,
            avg_slices: 13.5,
            hop_ns: 87.0,
            interconnect: Interconnect::Port,
            error_prob: 1e-4,
            ecc_check_ns: 0,
            ecc_correct_ns: 0,
            sram_ns: ns(t.sram_us),
            read_ns: ns(t.read_us),
            program_ns: ns(t.program_us),
            erase_ns: ns(t.erase_us),
            window_ns: 100_000_000,
            seed: cfg.run.seed,
        }
    }

    /// Checks every field; errors name the field and the allowed range.
    pub fn validate(&self) -> Result<()> {
        if self.page_bits == 0 {
            return Err(Error::config("noc.page_bits", "must be at least 1"));
        }
        if self.transfer_unit_bits == 0 {
            return Err(Error::config(
                "noc.transfer_unit_bits",
                "must be at least 1",
            ));
        }
        if !(self.avg_slices.is_finite() && self.avg_slices >= 1.0) {
            return Err(Error::config("noc.avg_slices", "must be a number >= 1"));
        }
        if !(self.hop_ns.is_finite() && self.hop_ns >= 0.0) {
            return Err(Error::config("noc.hop_ns", "must be a number >= 0"));
        }
        if !(self.error_prob.is_finite() && (0.0..=1.0).contains(&self.error_prob)) {
            return Err(Error::config(
                "noc.error_prob",
                format!("{} must be in [0, 1]", self.error_prob),
            ));
        }
        if self.window_ns == 0 {
            return Err(Error::config("noc.window_ns", "must be at least 1 ns"));
        }
        Ok(())
    }

    /// One page crossing the interconnect, ns (paper Eq. 1, rounded to the nearest ns).
    pub fn traversal_ns(&self) -> u64 {
        let moves = self.page_bits as f64 / self.transfer_unit_bits as f64 + self.avg_slices - 1.0;
        libm::round(moves * self.hop_ns) as u64
    }
}

/// Channel task kinds (paper Fig. 5, plus the GC erase, which the paper does not name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Task {
    /// Host read.
    RHost = 0,
    /// GC relocation read.
    RGc = 1,
    /// Host write.
    WHost = 2,
    /// GC write (corrected data coming back from the CPU).
    WGc = 3,
    /// GC erase of a victim block.
    Erase = 4,
    /// Program of an error-free page straight from the FMC buffer (`selective`; not a task
    /// queue entry, but it occupies the channel's flash like one).
    Direct = 5,
}

const TASKS: usize = 6;

/// Growable time series of per-window counters and pending-count deltas.
#[derive(Debug, Clone, Default)]
struct Series {
    window_ns: u64,
    host_requests: Vec<u64>,
    gc_tasks: Vec<u64>,
    copybacks: Vec<u64>,
    pending_host: Vec<i64>,
    pending_gc: Vec<i64>,
}

const MAX_WINDOWS: usize = 1 << 16;

impl Series {
    fn bucket(&mut self, t: u64) -> usize {
        let mut b = (t / self.window_ns) as usize;
        while b >= MAX_WINDOWS {
            self.coarsen();
            b = (t / self.window_ns) as usize;
        }
        if b >= self.host_requests.len() {
            let n = b + 1;
            self.host_requests.resize(n, 0);
            self.gc_tasks.resize(n, 0);
            self.copybacks.resize(n, 0);
            self.pending_host.resize(n, 0);
            self.pending_gc.resize(n, 0);
        }
        b
    }

    /// Doubles the window (sums of counts and of deltas stay exact).
    fn coarsen(&mut self) {
        fn halve<T: Copy + std::ops::Add<Output = T> + Default>(v: &mut Vec<T>) {
            let n = v.len().div_ceil(2);
            for i in 0..n {
                let a = v[2 * i];
                let b = v.get(2 * i + 1).copied().unwrap_or_default();
                v[i] = a + b;
            }
            v.truncate(n);
        }
        self.window_ns *= 2;
        halve(&mut self.host_requests);
        halve(&mut self.gc_tasks);
        halve(&mut self.copybacks);
        halve(&mut self.pending_host);
        halve(&mut self.pending_gc);
    }

    /// A job pending over [start, end): counted in every window whose end it outlives.
    fn pending(&mut self, gc: bool, start: u64, end: u64) {
        let a = self.bucket(start);
        let b = self.bucket(end);
        let v = if gc {
            &mut self.pending_gc
        } else {
            &mut self.pending_host
        };
        v[a] += 1;
        v[b] -= 1;
    }
}

/// The controller's resources and their reservations (no FTL).
#[derive(Debug, Clone)]
pub struct NocDevice {
    p: NocParams,
    trav: u64,
    channels: u32,
    units: u64,
    upp: u32,
    seg_blocks: u32,
    pages_per_segment: u32,
    chan_free: Vec<u64>,
    link_free: Vec<u64>,
    sram_free: u64,
    ecc_free: u64,
    tasks: [u64; TASKS],
    series: Series,
}

/// Timing of one GC relocation (for tests and the report).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relocation {
    /// When the NAND read started.
    pub read_start: u64,
    /// When the destination program finished.
    pub end: u64,
    /// Whether the page had errors.
    pub error: bool,
}

const TO_CPU: usize = 0;
const TO_FLASH: usize = 1;

impl NocDevice {
    /// A device with the geometry of `cfg` (validated) and parameters `p`.
    pub fn new(cfg: &Config, p: NocParams) -> Result<NocDevice> {
        p.validate()?;
        let l = cfg.layout()?;
        let d = &cfg.device;
        let links = match p.interconnect {
            Interconnect::Shared => 1,
            Interconnect::Duplex => 2,
            Interconnect::Port => 2 * d.channels as usize,
        };
        let series = Series {
            window_ns: p.window_ns,
            ..Default::default()
        };
        Ok(NocDevice {
            trav: p.traversal_ns(),
            channels: d.channels,
            units: d.planes(),
            upp: d.page_size / d.lpn_size,
            seg_blocks: d.segment_blocks,
            pages_per_segment: l.pages_per_segment,
            chan_free: vec![0; d.channels as usize],
            link_free: vec![0; links],
            sram_free: 0,
            ecc_free: 0,
            tasks: [0; TASKS],
            series,
            p,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &NocParams {
        &self.p
    }

    /// One interconnect crossing, ns.
    pub fn traversal_ns(&self) -> u64 {
        self.trav
    }

    /// Channel of global block `g`: parallel unit (plane) `g % units`; units are numbered
    /// channel first (MQSim's CWDP order), so channel = unit % channels.
    fn channel_of_block(&self, g: u64) -> usize {
        ((g % self.units) % self.channels as u64) as usize
    }

    /// Channel of a PPN. Flash page `fp = offset / (page_size / lpn_size)` of segment `s`
    /// lies in the segment's block `fp % segment_blocks`, global block `s * segment_blocks + j`.
    pub fn channel_of(&self, ppn: Ppn) -> usize {
        let s = (ppn / self.pages_per_segment) as u64;
        let fp = (ppn % self.pages_per_segment) / self.upp;
        let g = s * self.seg_blocks as u64 + (fp % self.seg_blocks) as u64;
        self.channel_of_block(g)
    }

    #[inline]
    fn reserve(free: &mut u64, ready: u64, dur: u64) -> u64 {
        let end = ready.max(*free) + dur;
        *free = end;
        end
    }

    fn link(&mut self, ch: usize, dir: usize, ready: u64) -> u64 {
        let i = match self.p.interconnect {
            Interconnect::Shared => 0,
            Interconnect::Duplex => dir,
            Interconnect::Port => 2 * ch + dir,
        };
        Self::reserve(&mut self.link_free[i], ready, self.trav)
    }

    /// A channel task ready at `ready`; returns (start, end).
    fn channel(&mut self, ch: usize, kind: Task, ready: u64, dur: u64) -> (u64, u64) {
        let start = ready.max(self.chan_free[ch]);
        let end = start + dur;
        self.chan_free[ch] = end;
        self.tasks[kind as usize] += 1;
        if !matches!(kind, Task::RHost | Task::WHost) {
            self.series.pending(true, ready, end);
            let b = self.series.bucket(ready);
            self.series.gc_tasks[b] += 1;
        }
        (start, end)
    }

    fn ecc(&mut self, ready: u64, error: bool) -> u64 {
        let dur = self.p.ecc_check_ns + if error { self.p.ecc_correct_ns } else { 0 };
        Self::reserve(&mut self.ecc_free, ready, dur)
    }

    /// A host page read of `ppn` arriving at `t`; returns when its data is in SRAM.
    pub fn host_read(&mut self, ppn: Ppn, t: u64) -> u64 {
        let ch = self.channel_of(ppn);
        let (_, e) = self.channel(ch, Task::RHost, t, self.p.read_ns);
        let e = self.link(ch, TO_CPU, e);
        let e = self.ecc(e, false);
        Self::reserve(&mut self.sram_free, e, self.p.sram_ns)
    }

    /// A host read of an unmapped page: served from the controller (one SRAM access).
    pub fn host_read_unmapped(&mut self, t: u64) -> u64 {
        Self::reserve(&mut self.sram_free, t, self.p.sram_ns)
    }

    /// A host page write to `ppn` arriving at `t`; returns when the program is done.
    pub fn host_write(&mut self, ppn: Ppn, t: u64) -> u64 {
        let ch = self.channel_of(ppn);
        let e = Self::reserve(&mut self.sram_free, t, self.p.sram_ns);
        let e = self.link(ch, TO_FLASH, e);
        self.channel(ch, Task::WHost, e, self.p.program_ns).1
    }

    /// The `R_gc` read of a relocated page issued at `t`; returns (start, end).
    pub fn gc_read(&mut self, src: Ppn, t: u64) -> (u64, u64) {
        let ch = self.channel_of(src);
        self.channel(ch, Task::RGc, t, self.p.read_ns)
    }

    /// The rest of a relocation whose read of `src` ended at `read_end`: ECC round trip (or
    /// the selective short cut) and the program of `dst`. Returns when the program is done.
    pub fn gc_write(&mut self, src: Ppn, dst: Ppn, read_end: u64, error: bool) -> u64 {
        let sch = self.channel_of(src);
        let dch = self.channel_of(dst);
        let e = self.link(sch, TO_CPU, read_end);
        let e = self.ecc(e, error);
        if self.p.path == GcPath::Selective && !error {
            // The ECC unit's verdict releases the copy held in the FMC buffer.
            self.channel(dch, Task::Direct, e, self.p.program_ns).1
        } else {
            let e = self.link(dch, TO_FLASH, e);
            self.channel(dch, Task::WGc, e, self.p.program_ns).1
        }
    }

    /// One complete relocation issued at `t` (read then write-back).
    pub fn relocate(&mut self, src: Ppn, dst: Ppn, t: u64, error: bool) -> Relocation {
        let (read_start, read_end) = self.gc_read(src, t);
        let end = self.gc_write(src, dst, read_end, error);
        Relocation {
            read_start,
            end,
            error,
        }
    }

    /// Erase of segment `seg` (every block of it), ready at `ready`; returns the last end.
    pub fn erase(&mut self, seg: u32, ready: u64) -> u64 {
        let mut end = ready;
        for j in 0..self.seg_blocks as u64 {
            let ch = self.channel_of_block(seg as u64 * self.seg_blocks as u64 + j);
            end = end.max(self.channel(ch, Task::Erase, ready, self.p.erase_ns).1);
        }
        end
    }

    /// Tasks issued per kind (R_host, R_gc, W_host, W_gc, erase, direct program).
    pub fn task_counts(&self) -> [u64; TASKS] {
        self.tasks
    }
}

/// Latency summary of one op, microseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NocLatency {
    /// Requests.
    pub count: u64,
    /// Mean latency.
    pub mean_us: f64,
    /// Peak latency.
    pub max_us: f64,
    #[serde(skip)]
    sum_ns: u128,
    #[serde(skip)]
    max_ns: u64,
}

impl NocLatency {
    fn record(&mut self, ns: u64) {
        self.count += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
        self.mean_us = self.sum_ns as f64 / self.count as f64 / 1000.0;
        self.max_us = self.max_ns as f64 / 1000.0;
    }
    /// Sum of all latencies, ns (exact).
    pub fn sum_ns(&self) -> u128 {
        self.sum_ns
    }
    /// Peak latency, ns (exact).
    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }
}

/// One window of the time series (paper Figs. 7 and 8).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NocPoint {
    /// Window start, simulated ms.
    pub t_ms: f64,
    /// Host requests arriving in the window.
    pub host_requests: u64,
    /// GC channel tasks (R_gc, W_gc, erases, direct programs) issued in the window.
    pub gc_tasks: u64,
    /// Pages relocated (copy-backs) issued in the window.
    pub copybacks: u64,
    /// Host requests arrived but not completed at the window's end.
    pub pending_host: i64,
    /// GC tasks issued but not completed at the window's end.
    pub pending_gc: i64,
}

/// Result of one NoC run (one GC path).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NocReport {
    /// GC path.
    pub path: GcPath,
    /// Workload description.
    pub workload: String,
    /// Parameters used.
    pub params: NocParams,
    /// One interconnect crossing, us (paper Eq. 1).
    pub traversal_us: f64,
    /// Host requests served.
    pub requests: u64,
    /// Host read latency.
    pub read: NocLatency,
    /// Host write latency.
    pub write: NocLatency,
    /// Pages relocated by GC (copy-backs).
    pub copybacks: u64,
    /// Relocated pages that had errors (took the corrected round trip).
    pub error_pages: u64,
    /// Tasks issued per queue.
    pub tasks: NocTasks,
    /// Sum over relocated pages of (program end - read start), us.
    pub relocation_elapsed_us: f64,
    /// Sum over relocated pages of the resource time on their path (no waiting), us.
    pub relocation_service_us: f64,
    /// GC victims erased.
    pub erases: u64,
    /// Flash programs / host page writes in the measured run.
    pub waf: f64,
    /// Simulated time until the last operation completed, s.
    pub simulated_s: f64,
    /// Width of one series window, ms.
    pub window_ms: f64,
    /// Host / GC / pending counts over time.
    pub series: Vec<NocPoint>,
    /// Bytes of model state per logical page (the FTL's own tables not included).
    pub model_bytes_per_logical_page: f64,
    /// What the model approximates.
    pub notes: Vec<&'static str>,
}

/// Tasks issued per channel queue.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NocTasks {
    /// Host reads.
    pub r_host: u64,
    /// GC reads.
    pub r_gc: u64,
    /// Host writes.
    pub w_host: u64,
    /// GC writes (round trip through the CPU).
    pub w_gc: u64,
    /// GC erases (per block).
    pub erase: u64,
    /// Error-free pages programmed from the FMC buffer (`selective` only).
    pub direct: u64,
}

/// The model's stated approximations (printed with every report).
pub const NOTES: &[&str] = &[
    "channel hardware serves tasks first come first served in issue order; planes of a channel do not overlap",
    "GC runs in the foreground: a victim's tasks are issued when the host write that triggered it arrives",
    "selective: an error-free page is programmed on its FTL-chosen destination channel without an interconnect crossing, even when that channel differs from the source",
    "ECC check and correction times default to 0 (not given by the paper); the verdict's control message is free",
    "synthetic profiles follow the paper's Table 3 statistics; its traces are not public and its arrival rates are not given",
];

/// A NoC run: the FTL of a [`Simulation`] plus a [`NocDevice`].
pub struct NocSim {
    sim: Simulation,
    dev: NocDevice,
    rng: Rng,
    ops: Vec<FlashOp>,
    gc_pairs: Vec<(Ppn, Ppn)>,
    gc_read_ends: Vec<u64>,
    read: NocLatency,
    write: NocLatency,
    requests: u64,
    copybacks: u64,
    error_pages: u64,
    erases: u64,
    reloc_elapsed: u128,
    reloc_service: u128,
    user_pages: u64,
    programs: u64,
    last_end: u64,
    describe: String,
}

impl NocSim {
    /// Builds the FTL of `cfg`, preconditions it (`run.fill`, untimed) and turns the op log on.
    pub fn new(cfg: &Config, p: NocParams) -> Result<NocSim> {
        let dev = NocDevice::new(cfg, p)?;
        let mut sim = Simulation::new(cfg)?;
        sim.precondition()?;
        sim.ftl_mut().set_op_log(true);
        let rng = Rng::new(dev.p.seed ^ 0x4e6f_4345_4343);
        Ok(NocSim {
            sim,
            dev,
            rng,
            ops: Vec::new(),
            gc_pairs: Vec::new(),
            gc_read_ends: Vec::new(),
            read: NocLatency::default(),
            write: NocLatency::default(),
            requests: 0,
            copybacks: 0,
            error_pages: 0,
            erases: 0,
            reloc_elapsed: 0,
            reloc_service: 0,
            user_pages: 0,
            programs: 0,
            last_end: 0,
            describe: String::new(),
        })
    }

    /// The timing device.
    pub fn device(&self) -> &NocDevice {
        &self.dev
    }

    /// The simulation (FTL and layout).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// The simulation, mutable (e.g. to turn the FTL's victim log on; keep its op log on).
    pub fn simulation_mut(&mut self) -> &mut Simulation {
        &mut self.sim
    }

    /// Times one victim's buffered relocations (reads first), then its erase.
    fn flush_victim(&mut self, seg: Option<u32>, t: u64) {
        self.gc_read_ends.clear();
        let mut victim_read_end = t;
        for i in 0..self.gc_pairs.len() {
            let (src, _) = self.gc_pairs[i];
            let (s, e) = self.dev.gc_read(src, t);
            self.gc_read_ends.push(s);
            self.gc_read_ends.push(e);
            victim_read_end = victim_read_end.max(e);
        }
        let trav = self.dev.trav as u128;
        let p = &self.dev.p;
        let base = (p.read_ns + p.program_ns + p.ecc_check_ns) as u128 + trav;
        for i in 0..self.gc_pairs.len() {
            let (src, dst) = self.gc_pairs[i];
            let (s, e) = (self.gc_read_ends[2 * i], self.gc_read_ends[2 * i + 1]);
            // One draw per relocated page, in FTL order: both paths see the same errors.
            let error = self.rng.unit() < self.dev.p.error_prob;
            let end = self.dev.gc_write(src, dst, e, error);
            let b = self.dev.series.bucket(t);
            self.dev.series.copybacks[b] += 1;
            self.copybacks += 1;
            self.error_pages += error as u64;
            self.reloc_elapsed += (end - s) as u128;
            let round_trip = error || self.dev.p.path == GcPath::Conventional;
            self.reloc_service += base
                + if round_trip { trav } else { 0 }
                + if error {
                    self.dev.p.ecc_correct_ns as u128
                } else {
                    0
                };
            self.last_end = self.last_end.max(end);
        }
        self.gc_pairs.clear();
        if let Some(seg) = seg {
            let e = self.dev.erase(seg, victim_read_end);
            self.erases += 1;
            self.last_end = self.last_end.max(e);
        }
    }

    /// Serves one host request arriving at `t`; returns its latency in ns (trims: 0).
    pub fn serve(&mut self, req: &Request, t: u64) -> Result<u64> {
        let mut end = t;
        let logical = self.sim.layout().logical_pages;
        if req.lpn + req.pages as u64 > logical {
            return Err(Error::Workload(format!(
                "request at LPN {} + {} pages is beyond the {logical} logical pages",
                req.lpn, req.pages
            )));
        }
        for i in 0..req.pages as u64 {
            let lpn = (req.lpn + i) as u32;
            match req.op {
                Op::Read => {
                    let ftl = self.sim.ftl_mut();
                    let e = match ftl.read(lpn) {
                        Some(_) => {
                            ftl.drain_ops(&mut self.ops);
                            let mut e = t;
                            for op in self.ops.drain(..) {
                                if let FlashOp::Read { ppn, .. } = op {
                                    e = e.max(self.dev.host_read(ppn, t));
                                }
                            }
                            e
                        }
                        None => self.dev.host_read_unmapped(t),
                    };
                    end = end.max(e);
                }
                Op::Write => {
                    let ftl = self.sim.ftl_mut();
                    ftl.write(lpn)?;
                    ftl.drain_ops(&mut self.ops);
                    self.user_pages += 1;
                    let ops = std::mem::take(&mut self.ops);
                    for op in &ops {
                        match *op {
                            FlashOp::Read { ppn, gc: true } => self.gc_pairs.push((ppn, ppn)),
                            FlashOp::Program { ppn, gc: true } => {
                                self.programs += 1;
                                if let Some(last) = self.gc_pairs.last_mut() {
                                    last.1 = ppn;
                                }
                            }
                            FlashOp::Erase { seg } => self.flush_victim(Some(seg), t),
                            FlashOp::Program { ppn, gc: false } => {
                                self.programs += 1;
                                if !self.gc_pairs.is_empty() {
                                    self.flush_victim(None, t);
                                }
                                end = end.max(self.dev.host_write(ppn, t));
                            }
                            FlashOp::Read { ppn, gc: false } => {
                                end = end.max(self.dev.host_read(ppn, t));
                            }
                        }
                    }
                    self.ops = ops;
                    self.ops.clear();
                    if !self.gc_pairs.is_empty() {
                        self.flush_victim(None, t);
                    }
                }
                Op::Trim => self.sim.ftl_mut().trim(lpn),
            }
        }
        let lat = end - t;
        self.last_end = self.last_end.max(end);
        self.requests += 1;
        let b = self.dev.series.bucket(t);
        self.dev.series.host_requests[b] += 1;
        match req.op {
            Op::Read => self.read.record(lat),
            Op::Write => self.write.record(lat),
            Op::Trim => {}
        }
        if req.op != Op::Trim {
            self.dev.series.pending(false, t, end);
        }
        Ok(lat)
    }

    /// Serves a workload to its end (or `max_requests`). Arrivals: the requests' own times,
    /// or, with `rate_iops`, one request every 1/rate seconds (for untimed workloads).
    pub fn run(
        &mut self,
        wl: &mut dyn Workload,
        max_requests: Option<u64>,
        rate_iops: Option<f64>,
    ) -> Result<()> {
        if let Some(r) = rate_iops {
            if !(r.is_finite() && r > 0.0) {
                return Err(Error::config(
                    "rate",
                    "must be a positive number of requests/s",
                ));
            }
        }
        self.describe = wl.describe();
        let mut buf = Vec::with_capacity(4096);
        let mut t0: Option<u64> = None;
        let mut n = 0u64;
        'outer: loop {
            buf.clear();
            wl.fill(&mut buf, 4096)?;
            if buf.is_empty() {
                break;
            }
            for r in &buf {
                if max_requests.is_some_and(|m| n >= m) {
                    break 'outer;
                }
                let t = match rate_iops {
                    Some(rate) => libm::round(n as f64 * 1e9 / rate) as u64,
                    None => {
                        // Trace times start at the first request.
                        let base = *t0.get_or_insert(r.time_ns);
                        r.time_ns.saturating_sub(base)
                    }
                };
                self.serve(r, t)?;
                n += 1;
            }
        }
        Ok(())
    }

    /// The report of everything served so far.
    pub fn report(&self) -> NocReport {
        let s = &self.dev.series;
        let mut series = Vec::with_capacity(s.host_requests.len());
        let (mut ph, mut pg) = (0i64, 0i64);
        for i in 0..s.host_requests.len() {
            ph += s.pending_host[i];
            pg += s.pending_gc[i];
            series.push(NocPoint {
                t_ms: (i as u64 * s.window_ns) as f64 / 1e6,
                host_requests: s.host_requests[i],
                gc_tasks: s.gc_tasks[i],
                copybacks: s.copybacks[i],
                pending_host: ph,
                pending_gc: pg,
            });
        }
        let tc = self.dev.tasks;
        let logical = self.sim.layout().logical_pages.max(1) as f64;
        let model_bytes = (self.dev.chan_free.len() + self.dev.link_free.len()) * 8
            + s.host_requests.capacity() * 8 * 5;
        NocReport {
            path: self.dev.p.path,
            workload: self.describe.clone(),
            params: self.dev.p.clone(),
            traversal_us: self.dev.trav as f64 / 1000.0,
            requests: self.requests,
            read: self.read.clone(),
            write: self.write.clone(),
            copybacks: self.copybacks,
            error_pages: self.error_pages,
            tasks: NocTasks {
                r_host: tc[Task::RHost as usize],
                r_gc: tc[Task::RGc as usize],
                w_host: tc[Task::WHost as usize],
                w_gc: tc[Task::WGc as usize],
                erase: tc[Task::Erase as usize],
                direct: tc[Task::Direct as usize],
            },
            relocation_elapsed_us: self.reloc_elapsed as f64 / 1000.0,
            relocation_service_us: self.reloc_service as f64 / 1000.0,
            erases: self.erases,
            waf: if self.user_pages == 0 {
                0.0
            } else {
                self.programs as f64 / self.user_pages as f64
            },
            simulated_s: self.last_end as f64 / 1e9,
            window_ms: s.window_ns as f64 / 1e6,
            series,
            model_bytes_per_logical_page: model_bytes as f64 / logical,
            notes: NOTES.to_vec(),
        }
    }

    /// Exact sums for tests: (relocation elapsed ns, relocation service ns).
    pub fn relocation_ns(&self) -> (u128, u128) {
        (self.reloc_elapsed, self.reloc_service)
    }
}

/// Both paths on the same workload, and the improvement of `selective` over `conventional`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NocComparison {
    /// Conventional path.
    pub conventional: NocReport,
    /// Selective path.
    pub selective: NocReport,
    /// (conventional - selective) / conventional mean read latency, %.
    pub read_mean_improvement_pct: f64,
    /// Same for the mean write latency, %.
    pub write_mean_improvement_pct: f64,
    /// Same for the peak read latency, %.
    pub read_max_improvement_pct: f64,
    /// Same for the peak write latency, %.
    pub write_max_improvement_pct: f64,
}

impl NocComparison {
    /// Compares two reports.
    pub fn new(conventional: NocReport, selective: NocReport) -> NocComparison {
        let pct = |c: f64, s: f64| if c > 0.0 { (c - s) / c * 100.0 } else { 0.0 };
        NocComparison {
            read_mean_improvement_pct: pct(conventional.read.mean_us, selective.read.mean_us),
            write_mean_improvement_pct: pct(conventional.write.mean_us, selective.write.mean_us),
            read_max_improvement_pct: pct(conventional.read.max_us, selective.read.max_us),
            write_max_improvement_pct: pct(conventional.write.max_us, selective.write.max_us),
            conventional,
            selective,
        }
    }
}
