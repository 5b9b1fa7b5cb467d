//! Timing model of a network-on-chip (NoC) SSD controller and selective copy-back GC
//! (papers/noc-copyback-gc.txt: Ahn, Im, You, Hong, Electronics 13(23) 4838, 2024).
//!
//! A device model behind the shared scheduler (`device::sched`): the host driver applies
//! every host page operation to the FTL and hands the op stream here; the operations are
//! timed on the controller's resources:
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
//!   The scheduler's GC modes apply (per-die, the paper's model, by default for `flashgc
//!   noc`); selective copy-back is this media's option and works under every placement,
//!   victim policy and GC mode.
//!
//! Since every reservation is a max-plus function of earlier ones and `selective` only
//! removes reservations or makes them ready earlier, no request is ever later under
//! `selective` than under `conventional` (same workload, seed and FTL decisions).

mod params;
mod report;
mod series;

pub use params::{page_error_prob, GcPath, Interconnect, NocParams};
pub use report::{gc_mode_notes, NocComparison, NocReport, NocTasks, NOTES};

use super::flash::FastDiv;
use super::sched::Media;
use super::{DeviceReport, ReadGroup};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::ops::Origin;
use crate::types::{Ppn, SegmentId};
use crate::workload::{Op, Rng};
use serde::Serialize;
use series::Series;
use std::collections::VecDeque;

#[cfg(test)]
use crate::device::audit::noc::{self as audit, Call, Res};

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

pub(crate) const TASKS: usize = 6;

/// The controller's resources and their reservations, plus the model's counters.
#[derive(Debug, Clone)]
pub struct NocMedia {
    p: NocParams,
    trav: u64,
    seg_blocks: u32,
    logical_pages: u64,
    d_pps: FastDiv,
    d_upp: FastDiv,
    d_k: FastDiv,
    d_units: FastDiv,
    d_channels: FastDiv,
    chan_free: Vec<u64>,
    /// End of the last GC task reserved on each channel (GCaR's "collecting").
    chan_gc_until: Vec<u64>,
    link_free: Vec<u64>,
    sram_free: u64,
    ecc_free: u64,
    tasks: [u64; TASKS],
    series: Series,
    rng: Rng,
    /// Start times of committed relocation reads whose write-backs are pending (FIFO).
    read_starts: VecDeque<u64>,
    erase_queued: Vec<u16>,
    copybacks: u64,
    error_pages: u64,
    erases: u64,
    reloc_elapsed: u128,
    reloc_service: u128,
    last_end: u64,
}

/// Timing of one GC relocation (for tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relocation {
    /// When the NAND read started.
    pub read_start: u64,
    /// When the destination program finished.
    pub end: u64,
    /// Whether the page had errors.
    pub error: bool,
}

/// The NoC model's mutable state in a checkpoint.
#[derive(Serialize, serde::Deserialize)]
struct NocState {
    chan_free: Vec<u64>,
    chan_gc_until: Vec<u64>,
    link_free: Vec<u64>,
    sram_free: u64,
    ecc_free: u64,
    tasks: [u64; TASKS],
    series: Series,
    /// Capacity of the series' vectors (the memory report counts it).
    series_capacity: usize,
    rng: Rng,
    read_starts: Vec<u64>,
    erase_queued: Vec<u16>,
    copybacks: u64,
    error_pages: u64,
    erases: u64,
    reloc_elapsed: u128,
    reloc_service: u128,
    last_end: u64,
}

const TO_CPU: usize = 0;
const TO_FLASH: usize = 1;

impl NocMedia {
    /// A controller with the geometry of `cfg` (validated) and parameters `p`.
    pub fn new(cfg: &Config, p: NocParams) -> Result<NocMedia> {
        p.validate()?;
        let l = cfg.layout()?;
        let d = &cfg.device;
        let links = match p.interconnect {
            Interconnect::Shared => 1,
            Interconnect::Duplex => 2,
            Interconnect::Port => 2 * d.channels as usize,
        };
        let series = Series::new(p.window_ns);
        Ok(NocMedia {
            trav: p.traversal_ns(),
            seg_blocks: d.segment_blocks,
            logical_pages: l.logical_pages,
            d_pps: FastDiv::new(l.pages_per_segment),
            d_upp: FastDiv::new(d.page_size / d.lpn_size),
            d_k: FastDiv::new(d.segment_blocks),
            d_units: FastDiv::new(d.planes() as u32),
            d_channels: FastDiv::new(d.channels),
            chan_free: vec![0; d.channels as usize],
            chan_gc_until: vec![0; d.channels as usize],
            link_free: vec![0; links],
            sram_free: 0,
            ecc_free: 0,
            tasks: [0; TASKS],
            series,
            rng: Rng::new(p.seed ^ 0x4e6f_4345_4343),
            read_starts: VecDeque::new(),
            erase_queued: vec![0; l.segments as usize],
            copybacks: 0,
            error_pages: 0,
            erases: 0,
            reloc_elapsed: 0,
            reloc_service: 0,
            last_end: 0,
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
    #[inline]
    fn channel_of_block(&self, g: u64) -> usize {
        self.d_channels.modulo64(self.d_units.modulo64(g)) as usize
    }

    /// Channel of a PPN. Flash page `fp = offset / (page_size / lpn_size)` of segment `s`
    /// lies in the segment's block `fp % segment_blocks`, global block `s * segment_blocks + j`.
    #[inline]
    pub fn channel_of(&self, ppn: Ppn) -> usize {
        let s = self.d_pps.quot(ppn) as u64;
        let fp = self.d_upp.quot(self.d_pps.modulo(ppn));
        let g = s * self.seg_blocks as u64 + self.d_k.modulo(fp) as u64;
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
        let e = Self::reserve(&mut self.link_free[i], ready, self.trav);
        #[cfg(test)]
        audit::res(Res::Link(i as u32), None, ready, 0, (e - self.trav, e));
        e
    }

    /// The SRAM port, ready at `ready`; returns the end.
    #[inline]
    fn sram(&mut self, ready: u64) -> u64 {
        let e = Self::reserve(&mut self.sram_free, ready, self.p.sram_ns);
        #[cfg(test)]
        audit::res(Res::Sram, None, ready, 0, (e - self.p.sram_ns, e));
        e
    }

    /// A channel task ready at `ready`; returns (start, end).
    fn channel(&mut self, ch: usize, kind: Task, ready: u64, dur: u64) -> (u64, u64) {
        let start = ready.max(self.chan_free[ch]);
        let end = start + dur;
        #[cfg(test)]
        audit::res(
            Res::Chan(ch as u32),
            Some(kind),
            ready,
            self.chan_free[ch],
            (start, end),
        );
        self.chan_free[ch] = end;
        self.tasks[kind as usize] += 1;
        if !matches!(kind, Task::RHost | Task::WHost) {
            self.chan_gc_until[ch] = end;
            self.series.pending(true, ready, end);
            let b = self.series.bucket(ready);
            self.series.gc_tasks[b] += 1;
        }
        (start, end)
    }

    fn ecc(&mut self, ready: u64, error: bool) -> u64 {
        let dur = self.p.ecc_check_ns + if error { self.p.ecc_correct_ns } else { 0 };
        let e = Self::reserve(&mut self.ecc_free, ready, dur);
        #[cfg(test)]
        audit::res(Res::Ecc, None, ready, 0, (e - dur, e));
        e
    }

    /// A host page read of `ppn` ready at `t`; returns when its data is in SRAM.
    pub fn host_read(&mut self, ppn: Ppn, t: u64) -> u64 {
        let ch = self.channel_of(ppn);
        let (_, e) = self.channel(ch, Task::RHost, t, self.p.read_ns);
        let e = self.link(ch, TO_CPU, e);
        let e = self.ecc(e, false);
        self.sram(e)
    }

    /// A host page write to `ppn` ready at `t`; returns when the program is done.
    pub fn host_write(&mut self, ppn: Ppn, t: u64) -> u64 {
        let ch = self.channel_of(ppn);
        let e = self.sram(t);
        let e = self.link(ch, TO_FLASH, e);
        self.channel(ch, Task::WHost, e, self.p.program_ns).1
    }

    /// The `R_gc` read of a relocated page ready at `t`; returns (start, end).
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

    /// One complete relocation issued at `t` (read then write-back), outside the scheduler.
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
    pub fn erase_blocks(&mut self, seg: u32, ready: u64) -> u64 {
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

    /// Exact sums: (relocation elapsed ns, relocation service ns).
    pub fn relocation_ns(&self) -> (u128, u128) {
        (self.reloc_elapsed, self.reloc_service)
    }

    /// The model's report (the `noc` section of a result).
    pub fn noc_report(&self) -> NocReport {
        report::build(self)
    }

    #[inline]
    fn done(&mut self, e: u64) -> u64 {
        self.last_end = self.last_end.max(e);
        e
    }
}

impl Media for NocMedia {
    const ERASE_AFTER_WRITES: bool = false;

    fn name(&self) -> &'static str {
        "noc"
    }

    fn read(&mut self, ppn: Ppn, ready: u64, origin: Origin, _rg: &mut ReadGroup) -> u64 {
        #[cfg(test)]
        audit::call(Call::Read, origin, ready, None, 0, ppn);
        // A translation read (mapping-cache miss) is on the host's path like its data.
        let e = if matches!(origin, Origin::Host | Origin::Translation) {
            self.host_read(ppn, ready)
        } else {
            // A lone GC or background read (scrub): R_gc, then to the CPU for ECC.
            let ch = self.channel_of(ppn);
            let (_, e) = self.channel(ch, Task::RGc, ready, self.p.read_ns);
            let e = self.link(ch, TO_CPU, e);
            self.ecc(e, false)
        };
        self.done(e)
    }

    fn read_unmapped(&mut self, t: u64) -> u64 {
        #[cfg(test)]
        audit::call(Call::Unmapped, Origin::Host, t, None, 0, 0);
        // Served from the controller: one SRAM access.
        let e = self.sram(t);
        self.done(e)
    }

    fn program(&mut self, ppn: Ppn, ready: u64, origin: Origin) -> u64 {
        #[cfg(test)]
        audit::call(Call::Program, origin, ready, None, 0, ppn);
        let e = if origin == Origin::Host {
            self.host_write(ppn, ready)
        } else {
            // Data held by the controller (a deferred write-back): across to the flash.
            let ch = self.channel_of(ppn);
            let e = self.sram(ready);
            let e = self.link(ch, TO_FLASH, e);
            self.channel(ch, Task::WGc, e, self.p.program_ns).1
        };
        self.done(e)
    }

    fn move_read(
        &mut self,
        src: Ppn,
        _dst: Ppn,
        ready: u64,
        _issued: u64,
        _rg: &mut ReadGroup,
    ) -> u64 {
        #[cfg(test)]
        audit::call(Call::MoveRead, Origin::Gc, ready, Some((src, _dst)), 0, 0);
        let (s, e) = self.gc_read(src, ready);
        self.read_starts.push_back(s);
        e
    }

    fn move_write(&mut self, src: Ppn, dst: Ppn, ready: u64, issued: u64) -> u64 {
        #[cfg(test)]
        audit::call(Call::MoveWrite, Origin::Gc, ready, Some((src, dst)), 0, 0);
        let s = self.read_starts.pop_front().unwrap_or(ready);
        // One draw per relocated page, in FTL order: both paths see the same errors.
        let error = self.rng.unit() < self.p.error_prob;
        let end = self.gc_write(src, dst, ready, error);
        let b = self.series.bucket(issued);
        self.series.copybacks[b] += 1;
        self.copybacks += 1;
        self.error_pages += error as u64;
        self.reloc_elapsed += (end - s) as u128;
        let trav = self.trav as u128;
        let p = &self.p;
        let round_trip = error || p.path == GcPath::Conventional;
        self.reloc_service += (p.read_ns + p.program_ns + p.ecc_check_ns) as u128
            + trav
            + if round_trip { trav } else { 0 }
            + if error { p.ecc_correct_ns as u128 } else { 0 };
        self.done(end)
    }

    fn erase(&mut self, seg: SegmentId, ready: u64, _issued: u64) -> u64 {
        #[cfg(test)]
        audit::call(Call::Erase, Origin::Gc, ready, None, seg, 0);
        let e = self.erase_blocks(seg, ready);
        self.erases += 1;
        self.done(e)
    }

    fn probe_read(&self, ppn: Ppn, ready: u64) -> u64 {
        ready.max(self.chan_free[self.channel_of(ppn)])
    }

    fn probe_program(&self, ppn: Ppn, ready: u64) -> u64 {
        ready.max(self.chan_free[self.channel_of(ppn)])
    }

    fn probe_erase(&self, seg: SegmentId, ready: u64) -> u64 {
        (0..self.seg_blocks as u64)
            .map(|j| self.chan_free[self.channel_of_block(seg as u64 * self.seg_blocks as u64 + j)])
            .fold(ready, u64::max)
    }

    fn segment_of(&self, ppn: Ppn) -> SegmentId {
        self.d_pps.quot(ppn)
    }

    fn set_erase_pending(&mut self, seg: SegmentId, pending: bool) {
        // A count: see the flash media's `erase_queued`.
        let q = &mut self.erase_queued[seg as usize];
        if pending {
            *q = q.saturating_add(1);
        } else {
            *q = q.saturating_sub(1);
        }
    }

    fn erase_pending(&self, seg: SegmentId) -> bool {
        self.erase_queued[seg as usize] > 0
    }

    #[inline]
    fn cell_of(&self, ppn: Ppn) -> usize {
        self.channel_of(ppn)
    }

    #[inline]
    fn cell_free(&self, cell: usize) -> u64 {
        self.chan_free[cell]
    }

    fn cells(&self) -> usize {
        self.chan_free.len()
    }

    fn segments(&self) -> SegmentId {
        self.erase_queued.len() as SegmentId
    }

    fn memory_access_ns(&self) -> u64 {
        self.p.sram_ns
    }

    fn collecting(&self, ppn: Ppn, t: u64) -> bool {
        self.chan_gc_until[self.channel_of(ppn)] > t
    }

    fn on_request(&mut self, op: Op, arrival: u64, done: u64) {
        self.last_end = self.last_end.max(done);
        let b = self.series.bucket(arrival);
        self.series.host_requests[b] += 1;
        if op != Op::Trim {
            self.series.pending(false, arrival, done);
        }
    }

    fn makespan(&self) -> u64 {
        self.last_end
    }

    fn memory_estimate(&self) -> u64 {
        // The time series grows with the simulated time to MAX_WINDOWS windows, then
        // coarsens to half and grows again: a long run holds 32 Ki to 64 Ki windows, counted
        // as 48 Ki. The result record carries the series too (measured about 160 B per
        // window for the record and its JSON text, besides the model's 40 B). A short run
        // holds fewer windows: its estimate is high.
        self.memory_bytes() + series::MAX_WINDOWS as u64 * 3 / 4 * (40 + 160)
    }

    fn memory_estimate_upper_bound(&self) -> Option<&'static str> {
        // A default `flashgc noc` run (100 000 requests) peaks at 0.75 of its estimate at
        // 8 GiB; one long enough to fill the series (3 M requests) at 0.93.
        Some(
            "the NoC time series is counted at 48 Ki windows (9.4 MiB), which only runs long in \
             simulated time fill",
        )
    }

    fn memory_bytes(&self) -> u64 {
        ((self.chan_free.len() * 2 + self.link_free.len()) * 8
            + self.series.host_requests.capacity() * 8 * 5
            + self.erase_queued.len() * 2) as u64
    }

    fn report(&self, _span_ns: u64) -> Option<DeviceReport> {
        Some(DeviceReport::Noc(Box::new(self.noc_report())))
    }

    fn save_state(&self) -> Result<Vec<u8>> {
        crate::checkpoint::encode(&NocState {
            chan_free: self.chan_free.clone(),
            chan_gc_until: self.chan_gc_until.clone(),
            link_free: self.link_free.clone(),
            sram_free: self.sram_free,
            ecc_free: self.ecc_free,
            tasks: self.tasks,
            series: self.series.clone(),
            series_capacity: self.series.host_requests.capacity(),
            rng: self.rng.clone(),
            read_starts: self.read_starts.iter().copied().collect(),
            erase_queued: self.erase_queued.clone(),
            copybacks: self.copybacks,
            error_pages: self.error_pages,
            erases: self.erases,
            reloc_elapsed: self.reloc_elapsed,
            reloc_service: self.reloc_service,
            last_end: self.last_end,
        })
    }

    fn load_state(&mut self, state: &[u8]) -> Result<()> {
        let st: NocState = crate::checkpoint::decode(state)?;
        let s = &st.series;
        let same = st.chan_free.len() == self.chan_free.len()
            && st.chan_gc_until.len() == self.chan_gc_until.len()
            && st.link_free.len() == self.link_free.len()
            && st.erase_queued.len() == self.erase_queued.len()
            && s.window_ns > 0
            && [
                s.gc_tasks.len(),
                s.copybacks.len(),
                s.pending_host.len(),
                s.pending_gc.len(),
            ]
            .iter()
            .all(|&n| n == s.host_requests.len());
        if !same {
            return Err(Error::Input(
                "the NoC model state does not match the configured device (channels, interconnect, segments)".into(),
            ));
        }
        use crate::checkpoint::times_ok;
        let times = times_ok(
            st.chan_free
                .iter()
                .chain(&st.chan_gc_until)
                .chain(&st.link_free)
                .chain(&st.read_starts)
                .copied(),
        ) && times_ok([st.sram_free, st.ecc_free, st.last_end])
            && times_ok(st.tasks);
        if !times || !st.series.plausible() || st.series_capacity > series::MAX_WINDOWS {
            return Err(Error::Input(
                "the NoC model state holds times, counts or a series out of range".into(),
            ));
        }
        self.chan_free = st.chan_free;
        self.chan_gc_until = st.chan_gc_until;
        self.link_free = st.link_free;
        self.sram_free = st.sram_free;
        self.ecc_free = st.ecc_free;
        self.tasks = st.tasks;
        self.series = st.series;
        self.series.reserve_to(st.series_capacity);
        self.rng = st.rng;
        self.read_starts = st.read_starts.into();
        // The scheduler re-counts the erases its restored queue holds.
        self.erase_queued = vec![0; st.erase_queued.len()];
        self.copybacks = st.copybacks;
        self.error_pages = st.error_pages;
        self.erases = st.erases;
        self.reloc_elapsed = st.reloc_elapsed;
        self.reloc_service = st.reloc_service;
        self.last_end = st.last_end;
        Ok(())
    }

    fn describe(&self) -> String {
        format!(
            "NoC controller, {} copy-back, interconnect {:.2} us/page ({:?}), page error probability {:e}; approximations are listed in docs/noc.md",
            self.p.path.name(),
            self.trav as f64 / 1000.0,
            self.p.interconnect,
            self.p.error_prob
        )
    }
}
