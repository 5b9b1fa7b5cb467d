//! Device resources and their reservation: channels (bus transfers) and cell resources
//! (planes, or dies when multi-plane operations are off) with per-op latencies.
//!
//! Scheduling is first-come first-served per resource in the order operations are
//! committed: an operation starts when its inputs are ready and every resource it needs
//! is free, and then holds the resources until it ends (a reservation table: the next free
//! time of each resource). The driver decides the commit order (host first or GC first).

use super::geometry::{Alloc, Geometry};
use crate::config::TimingConfig;

/// Marks a segment whose erase is queued but not yet scheduled.
pub const PENDING: u64 = u64::MAX;

/// Operation costs in simulated nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
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

/// Group of reads of the same flash page (they share one cell read).
#[derive(Debug, Clone, Copy)]
pub struct ReadGroup {
    fpage: u32,
    end: u64,
}

impl Default for ReadGroup {
    fn default() -> Self {
        ReadGroup {
            fpage: u32::MAX,
            end: 0,
        }
    }
}

/// One cell resource's reservation state (kept together: one cache line holds two).
#[derive(Debug, Clone, Copy, Default)]
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

/// The device's resources.
#[derive(Debug, Clone)]
pub struct Device {
    /// Geometry.
    pub geo: Geometry,
    /// Costs.
    pub costs: Costs,
    /// Planes of a die run concurrently (idealised multi-plane operation).
    pub multiplane: bool,
    /// Allocation over units.
    pub alloc: Alloc,
    /// Next free time of each channel.
    ch_free: Vec<u64>,
    /// Bus transfers per channel (busy time = transfers x `costs.xfer`).
    ch_xfers: Vec<u64>,
    cells: Vec<Cell>,
    units: Vec<UnitRes>,
    /// Time each segment's last erase ends ([`PENDING`]: queued, not scheduled).
    pub erased_at: Vec<u64>,
    dyn_unit: Vec<u16>,
    dyn_fill: Vec<u16>,
}

impl Device {
    /// A device with every resource idle at time 0.
    pub fn new(
        geo: Geometry,
        costs: Costs,
        multiplane: bool,
        alloc: Alloc,
        segments: u32,
    ) -> Device {
        let ncells = if multiplane { geo.units } else { geo.dies } as usize;
        let (dyn_unit, dyn_fill) = if alloc == Alloc::FirstIdle {
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
        Device {
            ch_free: vec![0; geo.channels as usize],
            ch_xfers: vec![0; geo.channels as usize],
            cells: vec![Cell::default(); ncells],
            units,
            erased_at: vec![0; segments as usize],
            geo,
            costs,
            multiplane,
            alloc,
            dyn_unit,
            dyn_fill,
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
            + self.erased_at.len() * 8) as u64
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
            Alloc::FirstIdle => {
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
        let r = self.units[self.unit_of(ppn) as usize];
        let (cell, ch) = (r.cell as usize, r.ch as usize);
        let fpage = self.geo.fpage_of(ppn);
        let c = self.costs;
        let cf = self.cells[cell].free;
        let (start, cell_done) = if group.fpage == fpage {
            (group.end, group.end)
        } else {
            let s = ready.max(cf);
            (s, s + c.read)
        };
        let xs = cell_done.max(self.ch_free[ch]);
        let xe = xs + c.xfer;
        self.ch_free[ch] = xe;
        self.ch_xfers[ch] += 1;
        // The die holds the data in its page register until the transfer ends.
        self.cells[cell].free = cf.max(xe);
        self.note(cell, start, xe, gc);
        *group = ReadGroup { fpage, end: xe };
        xe + c.sram
    }

    /// On-die read for copyback (no bus transfer).
    #[inline]
    pub fn read_copyback(&mut self, ppn: u32, ready: u64) -> u64 {
        let cell = self.cell_of_ppn(ppn);
        let s = ready.max(self.cells[cell].free);
        let e = s + self.costs.read;
        self.cells[cell].free = e;
        self.note(cell, s, e, true);
        e
    }

    #[inline(always)]
    fn choose_unit(&mut self, ppn: u32) -> u32 {
        if self.alloc == Alloc::Static {
            return self.geo.unit_static(ppn);
        }
        self.choose_unit_dynamic(ppn)
    }

    fn choose_unit_dynamic(&mut self, ppn: u32) -> u32 {
        let seg = self.geo.seg_of(ppn);
        let fpage = self.geo.fpage_of(ppn) as usize;
        if self.geo.sub_of(ppn) != 0 && self.dyn_unit[fpage] != u16::MAX {
            return self.dyn_unit[fpage] as u32;
        }
        let k = self.geo.k;
        let mut best = (u64::MAX, 0u32, 0u32);
        for j in 0..k {
            if self.dyn_fill[(seg * k + j) as usize] as u32 >= self.geo.pages_per_block {
                continue;
            }
            let (unit, _) = self.geo.block_unit(seg, j);
            let r = self.units[unit as usize];
            let idle = self.cells[r.cell as usize]
                .free
                .max(self.ch_free[r.ch as usize]);
            if idle < best.0 {
                best = (idle, unit, j);
            }
        }
        self.dyn_fill[(seg * k + best.2) as usize] += 1;
        self.dyn_unit[fpage] = best.1 as u16;
        best.1
    }

    /// Earliest start of a program of `ppn` ready at `ready` (static unit; dynamic
    /// allocation probes the best case).
    #[inline]
    pub fn probe_program(&self, ppn: u32, ready: u64) -> u64 {
        let unit = match self.alloc {
            Alloc::Static => self.geo.unit_static(ppn),
            Alloc::FirstIdle => self.unit_of(ppn),
        };
        let seg = self.geo.seg_of(ppn) as usize;
        let r = self.units[unit as usize];
        ready
            .max(self.erased_at[seg])
            .max(self.ch_free[r.ch as usize])
            .max(self.cells[r.cell as usize].free)
    }

    /// Programs one mapping unit: bus transfer into the page register; the cell program
    /// runs when the flash page's last unit has arrived. With `copyback` the data comes from
    /// the page register of the same plane (no transfer). Returns the end time (for a
    /// unit that does not complete its flash page: when its data sits in the register).
    #[inline(always)]
    pub fn program(&mut self, ppn: u32, ready: u64, gc: bool, copyback: bool) -> u64 {
        let seg = self.geo.seg_of(ppn) as usize;
        let erased = self.erased_at[seg];
        debug_assert!(
            erased != PENDING,
            "program into a segment whose erase is not scheduled"
        );
        let unit = self.choose_unit(ppn);
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
            let s = (ready + c.sram).max(self.ch_free[ch]).max(cf);
            self.ch_free[ch] = s + c.xfer;
            self.ch_xfers[ch] += 1;
            (s, s + c.xfer)
        };
        let end = if last { loaded + c.program } else { loaded };
        self.cells[cell].free = end;
        self.note(cell, start, end, gc);
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
            self.cells[cell].free = e;
            self.note(cell, s, e, true);
            end = end.max(e);
            if self.alloc == Alloc::FirstIdle {
                self.dyn_fill[(seg * self.geo.k + j) as usize] = 0;
            }
        }
        if self.alloc == Alloc::FirstIdle {
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
