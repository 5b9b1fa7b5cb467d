//! The flash device: channels (bus transfers) and cell resources (planes, or dies when
//! multi-plane operations are off) with per-operation latencies; see docs/timing.md.
//!
//! Scheduling is first-come first-served per resource in the order operations are
//! committed: an operation starts when its inputs are ready and every resource it needs
//! is free, and then holds the resources until it ends (a reservation table: the next free
//! time of each resource). The shared scheduler (`device::sched`) decides the commit order.

mod alloc;
mod channel;
mod media;
mod state;
mod suspend;
pub use state::FlashReport;
use suspend::Running;
pub mod geometry;

#[cfg(test)]
use super::audit;
use super::ReadGroup;
use crate::config::TimingConfig;
pub use geometry::{Alloc, FastDiv, Geometry};
use serde::Serialize;

/// Operation costs in simulated nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct Costs {
    /// Cell read (tR).
    pub read: u64,
    /// Page program (tPROG).
    pub program: u64,
    /// Block erase (tBERS).
    pub erase: u64,
    /// Bus transfer of one mapping unit (lpn_size bytes at the channel rate).
    pub xfer: u64,
    /// Controller SRAM access per mapping unit on the controller path.
    pub sram: u64,
}

impl Costs {
    /// Costs from the device's timing table; `lpn_size` bytes per transfer.
    pub fn new(t: &TimingConfig, lpn_size: u32) -> Costs {
        let ns = |us: f64| (us * 1000.0).round() as u64;
        Costs {
            read: ns(t.read_us),
            program: ns(t.program_us),
            erase: ns(t.erase_us),
            // bytes / (MB/s * 1e6) seconds = bytes * 1000 / MB/s nanoseconds
            xfer: (lpn_size as f64 * 1000.0 / t.channel_mb_s).round() as u64,
            sram: ns(t.sram_us),
        }
    }
}

/// One cell resource's reservation state (kept together: one cache line holds two).
#[derive(Debug, Clone, Copy, Default, Serialize, serde::Deserialize)]
struct Cell {
    free: u64,
    busy: u64,
    gc_busy: u64,
    gc_until: u64,
}

/// Channel and cell resource of a parallel unit (precomputed from the geometry).
#[derive(Debug, Clone, Copy)]
struct UnitRes {
    ch: u32,
    cell: u32,
}

/// The flash device's resources.
#[derive(Debug, Clone)]
pub struct FlashMedia {
    /// Geometry.
    pub geo: Geometry,
    /// Costs.
    pub costs: Costs,
    /// Planes of a die run concurrently (idealised multi-plane operation).
    pub multiplane: bool,
    /// Allocation over units.
    pub alloc: Alloc,
    /// On-die copyback for GC moves within a plane.
    pub copyback: bool,
    /// Next free time of each channel.
    ch_free: Vec<u64>,
    /// Bus transfers per channel (busy time = transfers x `costs.xfer`).
    ch_xfers: Vec<u64>,
    /// Back-fill arbitration: each channel's booked transfers (empty: one next-free time
    /// per channel, `ch_free`).
    books: Vec<channel::ChannelBook>,
    /// Calls of the back-fill pruning (the cell scan runs every 32nd).
    prune_calls: u32,
    cells: Vec<Cell>,
    units: Vec<UnitRes>,
    /// Time each segment's last scheduled erase ends.
    pub erased_at: Vec<u64>,
    /// Erases of each segment queued but not yet scheduled. A count, not a mark: a segment
    /// can be erased, refilled by queued GC write-backs, sealed and picked again before
    /// the queue has run them, and those write-backs must still see its earlier erase.
    /// Rebuilt from the GC queue on a restore (not part of the saved state).
    erase_queued: Vec<u16>,
    dyn_unit: Vec<u16>,
    dyn_fill: Vec<u16>,
    /// Round-robin allocation: the unit the next new flash page tries first.
    rr_next: u32,
    /// Program/erase suspend parameters (None: off).
    suspend: Option<crate::device::policy::Suspend>,
    /// With suspend on: the suspendable operation running last on each cell.
    running: Vec<Running>,
}

impl FlashMedia {
    /// The device of configuration `cfg` (its geometry and timing table) with layout `l`
    /// and the timing options: allocation, striping order, multi-plane operation and
    /// on-die copyback (None: the configuration's `device.timing.copyback`).
    pub fn build(
        cfg: &crate::config::Config,
        l: &crate::config::Layout,
        alloc: Alloc,
        striping: &str,
        multiplane: bool,
        copyback: Option<bool>,
    ) -> crate::error::Result<FlashMedia> {
        let geo = Geometry::new(&cfg.device, l.pages_per_segment, striping)?;
        if alloc.dynamic() && geo.units >= u16::MAX as u32 {
            return Err(crate::error::Error::config(
                "timing.alloc",
                "dynamic allocation (first-idle, round-robin) supports at most 65534 parallel units",
            ));
        }
        let costs = Costs::new(&cfg.device.timing, cfg.device.lpn_size);
        let mut m = FlashMedia::new(geo, costs, multiplane, alloc, l.segments);
        m.copyback = copyback.unwrap_or(cfg.device.timing.copyback);
        Ok(m)
    }

    /// A device with every resource idle at time 0.
    pub fn new(
        geo: Geometry,
        costs: Costs,
        multiplane: bool,
        alloc: Alloc,
        segments: u32,
    ) -> FlashMedia {
        let ncells = if multiplane { geo.units } else { geo.dies } as usize;
        let (dyn_unit, dyn_fill) = if alloc.dynamic() {
            let fpages = segments as usize * (geo.pps / geo.upp) as usize;
            (
                vec![u16::MAX; fpages],
                vec![0u16; segments as usize * geo.k as usize],
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let units = (0..geo.units)
            .map(|u| UnitRes {
                ch: geo.coords[u as usize].channel,
                cell: if multiplane { u } else { geo.die_of(u) },
            })
            .collect();
        FlashMedia {
            copyback: false,
            ch_free: vec![0; geo.channels as usize],
            ch_xfers: vec![0; geo.channels as usize],
            books: Vec::new(),
            prune_calls: 0,
            cells: vec![Cell::default(); ncells],
            units,
            erased_at: vec![0; segments as usize],
            erase_queued: vec![0; segments as usize],
            geo,
            costs,
            multiplane,
            alloc,
            dyn_unit,
            dyn_fill,
            rr_next: 0,
            suspend: None,
            running: Vec::new(),
        }
    }

    /// Latest end of any reservation. Every reservation ends at or before its cell's next
    /// free time (a transfer ends before its read or program does), and a cell's next free
    /// time only grows, so this is the latest next-free time over the cells.
    pub fn makespan(&self) -> u64 {
        self.cells.iter().map(|c| c.free).max().unwrap_or(0)
    }

    /// Busy time of each channel, ns.
    pub fn ch_busy(&self) -> Vec<u64> {
        self.ch_xfers.iter().map(|&n| n * self.costs.xfer).collect()
    }

    /// Busy time of each cell resource, ns.
    pub fn cell_busy(&self) -> Vec<u64> {
        self.cells.iter().map(|c| c.busy).collect()
    }

    /// Busy time of each cell resource spent on GC, ns.
    pub fn cell_gc_busy(&self) -> Vec<u64> {
        self.cells.iter().map(|c| c.gc_busy).collect()
    }

    /// Bytes of timing-layer state (for the memory report).
    pub fn memory_bytes(&self) -> u64 {
        (self.ch_free.len() * 16
            + self.cells.len() * 32
            + self.units.len() * 8
            + self.erased_at.len() * 10) as u64
            + self.books.iter().map(|b| b.bytes()).sum::<u64>()
            + self.dyn_unit.len() as u64 * 2
            + self.dyn_fill.len() as u64 * 2
    }

    #[inline(always)]
    fn cell_of(&self, unit: u32) -> usize {
        self.units[unit as usize].cell as usize
    }

    /// Unit currently holding `ppn` (static placement, or the dynamic choice recorded).
    #[inline(always)]
    pub fn unit_of(&self, ppn: u32) -> u32 {
        match self.alloc {
            Alloc::Static => self.geo.unit_static(ppn),
            Alloc::FirstIdle | Alloc::RoundRobin => {
                let u = self.dyn_unit[self.geo.fpage_of(ppn) as usize];
                if u == u16::MAX {
                    self.geo.unit_static(ppn)
                } else {
                    u as u32
                }
            }
        }
    }

    /// Cell resource currently holding `ppn`.
    #[inline(always)]
    pub fn cell_of_ppn(&self, ppn: u32) -> usize {
        self.cell_of(self.unit_of(ppn))
    }

    #[inline(always)]
    fn note(&mut self, cell: usize, start: u64, end: u64, gc: bool) {
        let c = &mut self.cells[cell];
        c.busy += end - start;
        if gc {
            c.gc_busy += end - start;
            if end > c.gc_until {
                c.gc_until = end;
            }
        }
    }

    /// Earliest start of a read of `ppn` ready at `ready`.
    #[inline]
    pub fn probe_read(&self, ppn: u32, ready: u64) -> u64 {
        ready.max(self.cells[self.cell_of_ppn(ppn)].free)
    }

    /// Reads one mapping unit: cell read, then bus transfer to the controller. Units of the
    /// flash page read just before (`group`) share its cell read. Returns the end time.
    #[inline(always)]
    pub fn read(&mut self, ppn: u32, ready: u64, gc: bool, group: &mut ReadGroup) -> u64 {
        self.read_on(self.unit_of(ppn), ppn, ready, gc, group)
    }

    /// [`FlashMedia::read`] of `ppn` on its unit `unit`.
    #[inline(always)]
    fn read_on(&mut self, unit: u32, ppn: u32, ready: u64, gc: bool, group: &mut ReadGroup) -> u64 {
        let r = self.units[unit as usize];
        let (cell, ch) = (r.cell as usize, r.ch as usize);
        let fpage = self.geo.fpage_of(ppn);
        let c = self.costs;
        let cf = self.cells[cell].free;
        // The unit read just before left the page in the register, unless the cell has
        // served anything since (its free time moved past that read's end).
        let (start, cell_done) = if group.fpage == fpage && cf <= group.end {
            (group.end, group.end)
        } else {
            let s = ready.max(cf);
            (s, s + c.read)
        };
        let xs = self.ch_reserve(ch, cell_done);
        let xe = xs + c.xfer;
        // The die holds the data in its page register until the transfer ends.
        self.cells[cell].free = cf.max(xe);
        self.note(cell, start, xe, gc);
        #[cfg(test)]
        audit::cell(audit::At {
            cell,
            kind: audit::Kind::Read,
            ppn,
            seg: self.geo.seg_of(ppn),
            start,
            end: xe,
            ready,
            free_before: cf,
            last: false,
            shared: group.fpage == fpage,
        });
        if xe >= cf {
            self.set_running(cell, Running::default());
        }
        *group = ReadGroup { fpage, end: xe };
        xe + c.sram
    }

    /// On-die read for copyback (no bus transfer).
    #[inline]
    pub fn read_copyback(&mut self, ppn: u32, ready: u64) -> u64 {
        let cell = self.cell_of_ppn(ppn);
        let s = ready.max(self.cells[cell].free);
        let e = s + self.costs.read;
        #[cfg(test)]
        audit::cell(audit::At {
            cell,
            kind: audit::Kind::CopybackRead,
            ppn,
            seg: self.geo.seg_of(ppn),
            start: s,
            end: e,
            ready,
            free_before: self.cells[cell].free,
            last: false,
            shared: false,
        });
        self.cells[cell].free = e;
        self.note(cell, s, e, true);
        self.set_running(cell, Running::default());
        e
    }

    #[inline(always)]
    fn choose_unit(&mut self, ppn: u32) -> u32 {
        match self.alloc {
            Alloc::Static => self.geo.unit_static(ppn),
            Alloc::FirstIdle => self.choose_unit_dynamic(ppn),
            Alloc::RoundRobin => self.choose_unit_rr(ppn),
        }
    }

    /// Earliest start of a program of `ppn` ready at `ready`, on the unit it would run on
    /// if programmed now (dynamic allocation: its flash page's unit, or the one a new
    /// flash page would be given).
    #[inline]
    pub fn probe_program(&self, ppn: u32, ready: u64) -> u64 {
        let unit = match self.alloc {
            Alloc::Static => self.geo.unit_static(ppn),
            Alloc::FirstIdle | Alloc::RoundRobin => self.next_unit(ppn),
        };
        self.probe_program_on(unit, ppn, ready)
    }

    /// [`FlashMedia::probe_program`] of `ppn` on the unit `unit`.
    #[inline(always)]
    fn probe_program_on(&self, unit: u32, ppn: u32, ready: u64) -> u64 {
        let seg = self.geo.seg_of(ppn) as usize;
        let r = self.units[unit as usize];
        let s = ready
            .max(self.erased_at[seg])
            .max(self.cells[r.cell as usize].free);
        self.ch_probe(r.ch as usize, s)
    }

    /// Programs one mapping unit: bus transfer into the page register; the cell program
    /// runs when the flash page's last unit has arrived. With `copyback` the data comes from
    /// the page register of the same plane (no transfer). Returns the end time (for a
    /// unit that does not complete its flash page: when its data sits in the register).
    #[inline(always)]
    pub fn program(&mut self, ppn: u32, ready: u64, gc: bool, copyback: bool) -> u64 {
        let unit = self.choose_unit(ppn);
        self.program_on(unit, ppn, ready, gc, copyback)
    }

    /// [`FlashMedia::program`] of `ppn` on the unit `unit` chosen for it.
    #[inline(always)]
    fn program_on(&mut self, unit: u32, ppn: u32, ready: u64, gc: bool, copyback: bool) -> u64 {
        let seg = self.geo.seg_of(ppn) as usize;
        let erased = self.erased_at[seg];
        let r = self.units[unit as usize];
        let (cell, ch) = (r.cell as usize, r.ch as usize);
        let last = self.geo.sub_of(ppn) == self.geo.upp - 1;
        let c = self.costs;
        let ready = ready.max(erased);
        let cf = self.cells[cell].free;
        let (start, loaded) = if copyback {
            let s = ready.max(cf);
            (s, s)
        } else {
            let s = self.ch_reserve(ch, (ready + c.sram).max(cf));
            (s, s + c.xfer)
        };
        let end = if last { loaded + c.program } else { loaded };
        #[cfg(test)]
        audit::cell(audit::At {
            cell,
            kind: audit::Kind::Program,
            ppn,
            seg: seg as u32,
            start,
            end,
            ready,
            free_before: cf,
            last,
            shared: false,
        });
        self.cells[cell].free = end;
        self.note(cell, start, end, gc);
        self.set_running(
            cell,
            Running {
                from: loaded,
                end,
                kind: if last { 1 } else { 0 },
                suspensions: 0,
                gc,
                seg: seg as u32,
                ppn,
            },
        );
        end
    }

    /// Earliest start of the erase of segment `seg`.
    pub fn probe_erase(&self, seg: u32, ready: u64) -> u64 {
        let mut s = ready;
        for j in 0..self.geo.k {
            let (unit, _) = self.geo.block_unit(seg, j);
            s = s.max(self.cells[self.cell_of(unit)].free);
        }
        s
    }

    /// Erases the blocks of segment `seg` (each on its own unit, in parallel where the
    /// units are independent). Returns when the last block erase ends.
    pub fn erase(&mut self, seg: u32, ready: u64) -> u64 {
        let mut end = ready;
        for j in 0..self.geo.k {
            let (unit, _) = self.geo.block_unit(seg, j);
            let cell = self.cell_of(unit);
            let s = ready.max(self.cells[cell].free);
            let e = s + self.costs.erase;
            #[cfg(test)]
            audit::cell(audit::At {
                cell,
                kind: audit::Kind::Erase,
                ppn: u32::MAX,
                seg,
                start: s,
                end: e,
                ready,
                free_before: self.cells[cell].free,
                last: false,
                shared: false,
            });
            self.cells[cell].free = e;
            self.note(cell, s, e, true);
            self.set_running(
                cell,
                Running {
                    from: s,
                    end: e,
                    kind: 2,
                    suspensions: 0,
                    gc: true,
                    seg,
                    ppn: u32::MAX,
                },
            );
            end = end.max(e);
            if self.alloc.dynamic() {
                self.dyn_fill[(seg * self.geo.k + j) as usize] = 0;
            }
        }
        if self.alloc.dynamic() {
            let fp = self.geo.pps / self.geo.upp;
            let base = (seg * fp) as usize;
            self.dyn_unit[base..base + fp as usize].fill(u16::MAX);
        }
        self.erased_at[seg as usize] = end;
        end
    }

    /// Whether the unit holding `ppn` has GC work reserved after `t` (GCaR's "collecting").
    #[inline]
    pub fn collecting(&self, ppn: u32, t: u64) -> bool {
        self.cells[self.cell_of_ppn(ppn)].gc_until > t
    }

    /// Copyback applies when source and destination are on the same plane (static
    /// allocation only: the dynamic destination is not known before it is chosen).
    #[inline]
    pub fn same_plane(&self, src: u32, dst: u32) -> bool {
        self.alloc == Alloc::Static && self.geo.unit_static(src) == self.geo.unit_static(dst)
    }
}
