//! The flash device's checkpoint state and its part of a timed result: what is saved,
//! what a restore checks before trusting it, and the utilisation report.

use super::suspend::Running;
use super::{channel, Cell, Costs, FlashMedia};
use serde::Serialize;

/// The flash device's mutable state in a checkpoint.
#[derive(Serialize, serde::Deserialize)]
struct FlashState {
    ch_free: Vec<u64>,
    ch_xfers: Vec<u64>,
    cells: Vec<Cell>,
    erased_at: Vec<u64>,
    dyn_unit: Vec<u16>,
    dyn_fill: Vec<u16>,
    /// Round-robin allocation's cursor (0 otherwise).
    rr_next: u32,
    /// Back-fill arbitration's booked transfers per channel (empty: off).
    books: Vec<channel::ChannelBook>,
    /// Back-fill: calls of the pruning so far (its cell scan runs every 32nd).
    prune_calls: u32,
    /// With suspend on: what each cell runs last (empty otherwise).
    running: Vec<Running>,
}

/// The flash device's part of a timed result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlashReport {
    /// Operation costs, ns.
    pub costs: Costs,
    /// Busy fraction of each channel (over the device's makespan).
    pub channel_utilization: Vec<f64>,
    /// Busy fraction of each die (or plane, with multi-plane operations on).
    pub cell_utilization: Vec<f64>,
    /// Which resource `cell_utilization` lists: "plane" or "die".
    pub cell_unit: String,
    /// Share of the cell resources' busy time spent on GC (reads, programs, erases).
    pub gc_time_share: f64,
    /// Host reads that suspended a program or erase (with a priority scheduler or
    /// suspend on; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspensions: Option<u64>,
    /// Host reads served from the controller's write buffer, with no flash read, because
    /// the scheduler would have started them before their page's host program ended (it
    /// still waited, or the read would have suspended it; docs/controller.md). With a
    /// priority scheduler or suspend on; absent otherwise (first come first served never
    /// starts a read before its page's program ends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_buffer_reads: Option<u64>,
    /// Host and translation reads of a page whose GC write-back (a page move's) had not
    /// ended when they were issued: the write-back was committed first and the read waited
    /// for it, or (deferred commit, the write-back still queued) a host read read the old
    /// copy (docs/controller.md, "Reads of a page GC is moving"). Absent when none did.
    #[serde(skip_serializing_if = "crate::types::is_zero")]
    pub gc_move_reads: u64,
    /// Host and translation programs of a flash page's later unit that waited for GC's
    /// queued write of its earlier unit (a scheme whose host and GC writes share flash
    /// pages, in a GC mode that queues GC or under deferred commit). Absent when none did.
    #[serde(skip_serializing_if = "crate::types::is_zero")]
    pub gc_page_waits: u64,
    /// The GC operations committed for those waits, each wait's own write included: the
    /// GC queue is one FIFO, so everything queued before that write went first, where a
    /// controller with per-die GC queues would not wait for other dies' GC work (an upper
    /// bound of those writes' latency; [`FlashReport::one_fifo_note`]). Absent when none.
    #[serde(skip_serializing_if = "crate::types::is_zero")]
    pub gc_page_wait_ops: u64,
    /// Back-fill channels (`--channel backfill`): booked transfers dropped by the bound on
    /// each channel's book (0: the back-fill was exact; absent with `fifo`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backfill_dropped: Option<u64>,
}

impl FlashMedia {
    /// The flash device's part of a timed result.
    pub(super) fn flash_report(&self) -> FlashReport {
        let makespan = self.makespan().max(1);
        let util = |busy: &[u64]| {
            busy.iter()
                .map(|&b| b as f64 / makespan as f64)
                .collect::<Vec<_>>()
        };
        let cell_busy_v = self.cell_busy();
        let cell_busy: u64 = cell_busy_v.iter().sum();
        let cell_gc: u64 = self.cell_gc_busy().iter().sum();
        FlashReport {
            costs: self.costs,
            channel_utilization: util(&self.ch_busy()),
            cell_utilization: util(&cell_busy_v),
            cell_unit: if self.multiplane { "plane" } else { "die" }.into(),
            gc_time_share: if cell_busy > 0 {
                cell_gc as f64 / cell_busy as f64
            } else {
                0.0
            },
            suspensions: None,
            write_buffer_reads: None,
            gc_move_reads: 0,
            gc_page_waits: 0,
            gc_page_wait_ops: 0,
            backfill_dropped: (!self.books.is_empty())
                .then(|| self.books.iter().map(|b| b.dropped).sum()),
        }
    }

    /// The mutable state, encoded for a checkpoint.
    pub(super) fn save(&self) -> crate::error::Result<Vec<u8>> {
        crate::checkpoint::encode(&FlashState {
            ch_free: self.ch_free.clone(),
            ch_xfers: self.ch_xfers.clone(),
            cells: self.cells.clone(),
            erased_at: self.erased_at.clone(),
            dyn_unit: self.dyn_unit.clone(),
            dyn_fill: self.dyn_fill.clone(),
            rr_next: self.rr_next,
            books: self.books.clone(),
            prune_calls: self.prune_calls,
            running: self.running.clone(),
        })
    }

    /// Restores [`FlashMedia::save`]'s state, refusing one of another device or with times
    /// or units out of range (a damaged checkpoint must not panic later).
    pub(super) fn load(&mut self, state: &[u8]) -> crate::error::Result<()> {
        let st: FlashState = crate::checkpoint::decode(state)?;
        let same = st.ch_free.len() == self.ch_free.len()
            && st.ch_xfers.len() == self.ch_xfers.len()
            && st.cells.len() == self.cells.len()
            && st.erased_at.len() == self.erased_at.len()
            && st.dyn_unit.len() == self.dyn_unit.len()
            && st.dyn_fill.len() == self.dyn_fill.len()
            && st.books.len() == self.books.len()
            && st.running.len() == self.running.len();
        if !same {
            return Err(crate::error::Error::Input(
                "the flash device state does not match the configured device (channels, units, segments, allocation)".into(),
            ));
        }
        use crate::checkpoint::times_ok;
        let times = times_ok(st.ch_free.iter().chain(&st.ch_xfers).copied())
            && times_ok(
                st.cells
                    .iter()
                    .flat_map(|c| [c.free, c.busy, c.gc_busy, c.gc_until]),
            )
            && times_ok(st.erased_at.iter().copied())
            && times_ok(st.books.iter().flat_map(|b| b.times()))
            && st.books.iter().all(|b| b.valid());
        let units = self.units.len();
        let segs = self.erased_at.len();
        let running_ok = times_ok(st.running.iter().flat_map(|r| [r.from, r.end]))
            && st
                .running
                .iter()
                .all(|r| r.kind <= 2 && r.from <= r.end && (r.seg as usize) < segs.max(1));
        let dyn_ok = st
            .dyn_unit
            .iter()
            .all(|&u| u == u16::MAX || (u as usize) < units)
            && (st.rr_next as usize) < units.max(1);
        if !times || !running_ok || !dyn_ok {
            return Err(crate::error::Error::Input(
                "the flash device state holds times or units out of range".into(),
            ));
        }
        self.ch_free = st.ch_free;
        self.ch_xfers = st.ch_xfers;
        self.cells = st.cells;
        self.erased_at = st.erased_at;
        // The scheduler re-marks the erases its restored queue holds.
        self.erase_queued.fill(0);
        self.dyn_unit = st.dyn_unit;
        self.dyn_fill = st.dyn_fill;
        self.rr_next = st.rr_next;
        self.books = st.books;
        self.prune_calls = st.prune_calls;
        self.running = st.running;
        Ok(())
    }
}

impl FlashReport {
    /// The result's note when host writes waited for GC's queued write of their flash
    /// page's earlier unit: their latencies include the GC work queued before it, the
    /// one-FIFO approximation (docs/controller.md, "Approximations").
    pub fn one_fifo_note(&self) -> Option<String> {
        (self.gc_page_waits > 0).then(|| {
            format!(
                "approximate: {} host or translation writes waited for GC's queued write of their flash page's earlier unit, and the one GC queue committed {} GC operations for them, everything queued before that write (a controller with per-die GC queues would not wait for the GC work of other dies): their latencies are an upper bound (docs/controller.md, approximations)",
                self.gc_page_waits, self.gc_page_wait_ops
            )
        })
    }
}
