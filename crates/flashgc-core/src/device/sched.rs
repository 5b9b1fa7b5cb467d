//! The scheduler the timed device models share: it turns the op stream into reservations on
//! a [`Media`]'s resources.
//!
//! Host operations are reserved when they are issued. GC and background work follows the
//! driver's [`GcPolicy`]: scheduled at once (foreground, per-die) or queued behind host I/O
//! and pumped into idle gaps (preemptible modes, [`DeviceModel::pump`]). A victim's work is
//! ordered as a controller issues it: the reads of all its page moves first (they are
//! independent), each write-back when its read has delivered the data, then the erase
//! (ready when the victim's reads, and on flash its write-backs, are done). With on-die
//! copyback a move whose source and destination share a plane stays one operation.
//!
//! Every reservation is first come first served in commit order on each resource (a
//! reservation table: the next free time of each resource). A scheduling policy with
//! priorities between host, GC and background work (issue 15) changes the commit order
//! here, below the driver and above the media.

use super::fifo::Fifo;
use super::gc_queue::{Entry, GcWaits, GcWrote, Queued};
use super::{DeviceModel, DeviceReport, GcPolicy, ReadGroup};
use crate::ops::{FlashOp, Origin};
use crate::types::{Ppn, SegmentId};
use crate::workload::Op;

/// No hint from [`Media::host_locate`]: the media finds the operation's place again.
pub const NO_HINT: u32 = u32::MAX;

/// The resources of a device and how one operation occupies them. Every method reserves
/// the resources it needs at or after `ready` and returns the end.
pub trait Media {
    /// Whether a victim's erase waits for its write-backs too (flash: a block is erased
    /// once its pages are safe elsewhere), or only for its reads (the data is in the
    /// controller).
    const ERASE_AFTER_WRITES: bool;

    /// Short name (`flash`, `noc`).
    fn name(&self) -> &'static str;
    /// A read of one mapping unit by `origin` (host, or a lone GC/background read);
    /// `rg` groups reads of one flash page.
    fn read(&mut self, ppn: Ppn, ready: u64, origin: Origin, rg: &mut ReadGroup) -> u64;
    /// A host read of an unmapped LPN (no flash access).
    fn read_unmapped(&mut self, t: u64) -> u64 {
        t
    }
    /// A program of one mapping unit whose data the controller holds.
    fn program(&mut self, ppn: Ppn, ready: u64, origin: Origin) -> u64;
    /// The read half of a page move `src -> dst` issued at `issued`; returns when the data
    /// is available for the write-back.
    fn move_read(&mut self, src: Ppn, dst: Ppn, ready: u64, issued: u64, rg: &mut ReadGroup)
        -> u64;
    /// The write-back half of a page move whose read delivered its data at `ready`.
    fn move_write(&mut self, src: Ppn, dst: Ppn, ready: u64, issued: u64) -> u64;
    /// [`Media::move_read`] if it would start ([`Media::probe_read`] of `src`) before
    /// `limit`; None (nothing reserved) otherwise. Media may share the location lookup.
    fn move_read_before(
        &mut self,
        src: Ppn,
        dst: Ppn,
        ready: u64,
        issued: u64,
        rg: &mut ReadGroup,
        limit: u64,
    ) -> Option<u64> {
        (self.probe_read(src, ready) < limit).then(|| self.move_read(src, dst, ready, issued, rg))
    }
    /// [`Media::move_write`] if it would start ([`Media::probe_program`] of `dst`) before
    /// `limit`; None (nothing reserved) otherwise.
    fn move_write_before(
        &mut self,
        src: Ppn,
        dst: Ppn,
        ready: u64,
        issued: u64,
        limit: u64,
    ) -> Option<u64> {
        (self.probe_program(dst, ready) < limit).then(|| self.move_write(src, dst, ready, issued))
    }
    /// Whether on-die copyback is on (moves then stay read-write pairs in the queue).
    fn copyback_enabled(&self) -> bool {
        false
    }
    /// Whether the move `src -> dst` can be one on-die copyback.
    fn copyback_possible(&self, _src: Ppn, _dst: Ppn) -> bool {
        false
    }
    /// The move `src -> dst` as one on-die copyback (only when possible).
    fn copyback(&mut self, _src: Ppn, _dst: Ppn, ready: u64) -> u64 {
        ready
    }
    /// Erase of every block of segment `seg`.
    fn erase(&mut self, seg: SegmentId, ready: u64, issued: u64) -> u64;
    /// Earliest start of a read of `ppn` ready at `ready`.
    fn probe_read(&self, ppn: Ppn, ready: u64) -> u64;
    /// Earliest start of a program of `ppn` ready at `ready`.
    fn probe_program(&self, ppn: Ppn, ready: u64) -> u64;
    /// Earliest start of the erase of `seg` ready at `ready`.
    fn probe_erase(&self, seg: SegmentId, ready: u64) -> u64;
    /// Segment of a physical page.
    fn segment_of(&self, ppn: Ppn) -> SegmentId;
    /// Counts an erase of segment `seg` as queued (true) or scheduled (false).
    fn set_erase_pending(&mut self, seg: SegmentId, pending: bool);
    /// Whether an erase of segment `seg` is queued but not scheduled.
    fn erase_pending(&self, seg: SegmentId) -> bool;
    /// Segments of the device.
    fn segments(&self) -> SegmentId;
    /// Controller memory access per mapping unit.
    fn memory_access_ns(&self) -> u64;
    /// Whether the resource holding `ppn` has GC work reserved after `t`.
    fn collecting(&self, ppn: Ppn, t: u64) -> bool;
    /// A host request has been served (for series that count requests).
    fn on_request(&mut self, _op: Op, _arrival: u64, _done: u64) {}
    /// No operation still to come is ready before `t` (media that keep past reservations
    /// may forget those ending by then).
    fn forget_before(&mut self, _t: u64) {}
    /// See [`DeviceModel::place_untimed`].
    fn place_untimed(&mut self, _pages: &mut dyn Iterator<Item = Ppn>) {}
    /// Latest end of any reservation.
    fn makespan(&self) -> u64;
    /// Bytes of resource state.
    fn memory_bytes(&self) -> u64;
    /// Bytes of resource state at most during a run (default: [`Media::memory_bytes`]).
    fn memory_estimate(&self) -> u64 {
        self.memory_bytes()
    }
    /// Why [`Media::memory_estimate`] is an upper bound rather than a prediction, if it
    /// counts a structure at a size only some runs reach (default: it does not).
    fn memory_estimate_upper_bound(&self) -> Option<&'static str> {
        None
    }
    /// The media's report over `span_ns`.
    fn report(&self, span_ns: u64) -> Option<DeviceReport>;
    /// One line describing the media and its options.
    fn describe(&self) -> String;
    /// The resource a read or program of `ppn` queues at under a priority scheduler (flash:
    /// its die or plane; NoC: its channel's task queues).
    fn cell_of(&self, ppn: Ppn) -> usize;
    /// [`Media::cell_of`] for a host operation that waits in its resource's queue, and a
    /// hint that lets the media skip finding `ppn`'s place again when the operation is
    /// committed ([`Media::host_read`], [`Media::host_program`]; `NO_HINT`: none). Media
    /// give a hint only where the place cannot change while the operation waits.
    #[inline(always)]
    fn host_locate(&self, ppn: Ppn) -> (usize, u32) {
        (self.cell_of(ppn), NO_HINT)
    }
    /// [`Media::host_locate`] for a host program about to wait in its resource's queue.
    /// Media that place a program when it is committed (flash with dynamic allocation)
    /// place it now instead, so that it waits where it will run.
    #[inline(always)]
    fn host_locate_program(&mut self, ppn: Ppn) -> (usize, u32) {
        self.host_locate(ppn)
    }
    /// The hint of a host operation on `ppn` restored waiting at `cell` (the hint is not
    /// saved; default: none).
    fn host_hint(&self, _ppn: Ppn, _cell: usize) -> u32 {
        NO_HINT
    }
    /// Whether a program of `ppn` runs on a unit fixed already (static placement, or its
    /// flash page placed), not on the one the allocation would choose when it is placed
    /// (whose probe can move earlier as other pages are placed).
    #[inline(always)]
    fn program_unit_fixed(&self, _ppn: Ppn) -> bool {
        true
    }
    /// Whether `a` and `b` are units of one flash page.
    fn same_flash_page(&self, a: Ppn, b: Ppn) -> bool {
        a == b
    }
    /// [`Media::read`] of a host read located by [`Media::host_locate`] with `hint`.
    #[inline(always)]
    fn host_read(&mut self, ppn: Ppn, hint: u32, ready: u64, rg: &mut ReadGroup) -> u64 {
        let _ = hint;
        self.read(ppn, ready, Origin::Host, rg)
    }
    /// [`Media::program`] of a host program located by [`Media::host_locate`] with `hint`.
    #[inline(always)]
    fn host_program(&mut self, ppn: Ppn, hint: u32, ready: u64) -> u64 {
        let _ = hint;
        self.program(ppn, ready, Origin::Host)
    }
    /// When resource `cell` is next free.
    fn cell_free(&self, cell: usize) -> u64;
    /// Number of such resources.
    fn cells(&self) -> usize;
    /// Whether [`Media::cell_of`] of a page can change while an operation on it waits in
    /// a resource's queue (flash with dynamic allocation: the unit is chosen when the page
    /// is programmed, and its segment's erase clears an earlier choice), so that a restored
    /// queue cannot be checked against it.
    fn cell_may_move(&self) -> bool {
        false
    }
    /// Program/erase suspend: the earliest time at which a host read could suspend the
    /// operation running last on `cell` (None: nothing suspendable there).
    fn suspend_from(&self, _cell: usize) -> Option<u64> {
        None
    }
    /// When a program of segment `seg` may start at the earliest: the end of its erase on
    /// every resource (flash: a wide segment's pages are programmed once all its blocks are
    /// erased; a read suspending the erase moves it later). Default: no wait.
    #[inline(always)]
    fn erased_by(&self, _seg: SegmentId) -> u64 {
        0
    }
    /// The segment whose erase runs last on `cell` (what a read suspending there extends;
    /// None: not an erase).
    fn erase_running(&self, _cell: usize) -> Option<SegmentId> {
        None
    }
    /// The unit whose GC program runs last on `cell` while a read could still suspend it
    /// (None: no such program; media without suspend have none).
    fn gc_program_running(&self, _cell: usize) -> Option<Ppn> {
        None
    }
    /// A host read of `ppn` at `at` that suspends the operation running on its resource
    /// (only when [`Media::suspend_from`] allowed it). Returns (read end, the suspended
    /// operation's new end).
    fn read_suspending(&mut self, ppn: Ppn, hint: u32, at: u64, _rg: &mut ReadGroup) -> (u64, u64) {
        let _ = (ppn, hint, at);
        unreachable!("suspend_from returned None")
    }
    /// The media's mutable state for a checkpoint.
    fn save_state(&self) -> crate::error::Result<Vec<u8>>;
    /// Restores [`Media::save_state`]'s bytes into media built from the same configuration.
    fn load_state(&mut self, state: &[u8]) -> crate::error::Result<()>;
}

/// A timed device model: a [`Media`] driven by the shared scheduler.
#[derive(Debug, Clone)]
pub struct Scheduled<M> {
    pub(super) media: M,
    pub(super) queue: Fifo<Entry>,
    /// Write-backs of the victim being queued, held until its erase (or a host program)
    /// closes it, so that its reads are queued first.
    pub(super) moves: Vec<Entry>,
    /// Ends of committed move reads whose write-backs are still queued (FIFO: write-backs
    /// are queued in the order of their reads).
    pub(super) read_ends: Fifo<u64>,
    pub(super) victim_end: u64,
    pub(super) gc_rg: ReadGroup,
    read_end_buf: Vec<u64>,
    /// Deferred commit under a priority policy or suspend (None: first come first served
    /// as issued).
    pub(super) lazy: Option<Box<super::lazy::Lazy>>,
    /// Per segment, the latest GC write queued into it and how many of its GC writes are
    /// queued still (`gc_queue.rs`: [`Scheduled::pump_until_placed`],
    /// [`Scheduled::pump_until_moved`]). Derived from the queue on restore.
    pub(super) gc_wrote: Vec<GcWrote>,
    /// What host and translation operations waited for in the GC queue (the report's).
    pub(super) waits: GcWaits,
}

impl<M: Media> Scheduled<M> {
    /// Bytes of the per-segment record of queued GC writes (`gc_wrote`).
    fn gc_wrote_bytes(&self) -> u64 {
        (self.gc_wrote.len() * std::mem::size_of::<GcWrote>()) as u64
    }

    /// A scheduler over `media` with nothing queued.
    pub fn new(media: M) -> Scheduled<M> {
        let segments = media.segments() as usize;
        Scheduled {
            media,
            queue: Fifo::new(),
            moves: Vec::new(),
            read_ends: Fifo::new(),
            victim_end: 0,
            gc_rg: ReadGroup::default(),
            read_end_buf: Vec::new(),
            lazy: None,
            gc_wrote: vec![GcWrote::NONE; segments],
            waits: GcWaits::default(),
        }
    }

    /// A scheduler over `media` with the controller options `p`: a priority policy or
    /// suspend turns deferred commit on (`device::lazy`); suspend itself is the media's
    /// (see [`crate::device::FlashMedia::set_suspend`]).
    pub fn with_controller(media: M, p: &crate::device::policy::ControllerParams) -> Scheduled<M> {
        let cells = media.cells();
        let mut s = Scheduled::new(media);
        if p.deferred() {
            // A read served from the write buffer costs what a write-cache hit does.
            let hit = p.dram_ns.unwrap_or_else(|| s.media.memory_access_ns());
            s.lazy = Some(Box::new(super::lazy::Lazy::new(p, cells, hit)));
        }
        s
    }

    /// Reads that suspended a program or erase (deferred mode).
    pub fn suspensions(&self) -> u64 {
        self.lazy.as_ref().map_or(0, |l| l.suspensions)
    }

    /// The media (resource state).
    pub fn media(&self) -> &M {
        &self.media
    }

    /// The media, mutable (tests reserve operations directly).
    pub fn media_mut(&mut self) -> &mut M {
        &mut self.media
    }

    /// A mapping-cache miss, reserved when issued: the host operation that needed the
    /// entry starts when its translation page has been read. Returns the read's end.
    pub(super) fn translation_read(&mut self, ppn: Ppn, host_ready: &mut u64) -> u64 {
        // A translation page GC moved but has not written back yet: that write-back first.
        self.pump_until_moved(ppn);
        let rg = &mut ReadGroup::default();
        let e = self.media.read(ppn, *host_ready, Origin::Translation, rg);
        *host_ready = (*host_ready).max(e);
        e
    }

    /// A dirty translation page evicted from the mapping cache: programmed now (it occupies
    /// its die and channel); the host does not wait for it (the controller holds the page
    /// until then).
    pub(super) fn translation_write(&mut self, ppn: Ppn, ready: u64) {
        self.flush_moves();
        // The write needs a block whose erase is still queued: force GC on.
        self.pump_until_erased(self.media.segment_of(ppn));
        self.pump_until_placed(ppn);
        self.media.program(ppn, ready, Origin::Translation);
    }

    /// Blocking GC (foreground, per-die) commits the GC work the FTL call has issued so far
    /// before the call's next host or translation operation, in the FTL's order: a host or
    /// translation read or write the GC pass came before (a mapping-cache miss's write-back
    /// may need the segment GC frees) starts after the episode (foreground; per-die: after
    /// the GC work on its own resources), and a read of a page GC moved finds it written
    /// back (docs/timing.md, "GC scheduling").
    #[inline(always)]
    fn gc_first(&mut self, gc: GcPolicy, host_ready: &mut u64) {
        if gc.now {
            self.flush_moves();
            if !self.queue.is_empty() {
                let g = self.pump_queue(None, usize::MAX);
                if gc.barrier {
                    *host_ready = (*host_ready).max(g);
                }
            }
        }
    }

    /// Blocking GC can be scheduled straight from the op stream when nothing is queued and
    /// there is no copyback pairing: the queue would be filled and drained completely, in
    /// the same order the direct path uses.
    #[inline]
    fn direct(&self, gc: GcPolicy) -> bool {
        gc.now
            && !self.media.copyback_enabled()
            && self.queue.is_empty()
            && self.moves.is_empty()
            && self.read_ends.is_empty()
    }

    /// The fast path of [`DeviceModel::schedule`] for blocking GC: each victim (its moves up
    /// to its erase) is scheduled when its erase is seen, reads first, exactly as the queue
    /// would run it; host programs start after all of them. None (nothing scheduled) when
    /// the stream has GC work the queue must order (a victim not closed by its erase in
    /// this batch, lone GC reads or programs). Always inlined into `schedule`, as the
    /// compiler chose until an unrelated change tipped its estimate (a call costs 2 %).
    #[inline(always)]
    fn schedule_direct(
        &mut self,
        ops: &[FlashOp],
        t: u64,
        host_ready: &mut u64,
        rg: &mut ReadGroup,
        barrier: bool,
    ) -> Option<u64> {
        let mut open = false;
        for op in ops {
            match op {
                FlashOp::Erase { .. } => open = false,
                FlashOp::Copyback { .. } => open = true,
                FlashOp::Read { origin, .. } | FlashOp::Program { origin, .. }
                    if origin.is_internal() =>
                {
                    return None
                }
                FlashOp::Compute { .. } => {}
                _ if open => return None,
                _ => {}
            }
        }
        if open {
            return None;
        }
        let mut end = t;
        let mut gc_last: Option<u64> = None;
        let mut i = 0;
        while i < ops.len() {
            match ops[i] {
                FlashOp::Read { ppn, origin } => {
                    let e = self.media.read(ppn, *host_ready, origin, rg);
                    end = end.max(e);
                    i += 1;
                }
                FlashOp::Program { ppn, origin } => {
                    if let Some(g) = gc_last.take() {
                        if barrier {
                            *host_ready = (*host_ready).max(g);
                        }
                    }
                    let e = self.media.program(ppn, *host_ready, origin);
                    end = end.max(e);
                    i += 1;
                }
                FlashOp::Compute { .. } => i += 1,
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

    /// Schedules one victim's moves (reads first, then each write-back after its read) and
    /// its erase, issued at `t`, as [`Scheduled::pump`] would from the queue. Returns the
    /// latest end.
    fn run_victim(&mut self, ops: &[FlashOp], t: u64) -> u64 {
        let mut last = 0;
        let mut ends = std::mem::take(&mut self.read_end_buf);
        ends.clear();
        for op in ops {
            if let FlashOp::Copyback { src, dst, .. } = *op {
                let e = self.media.move_read(src, dst, t, t, &mut self.gc_rg);
                ends.push(e);
                self.victim_end = self.victim_end.max(e);
                last = last.max(e);
            }
        }
        let mut k = 0;
        for op in ops {
            match *op {
                FlashOp::Copyback { src, dst, .. } => {
                    let ready = t.max(ends.get(k).copied().unwrap_or(0));
                    k += 1;
                    let e = self.media.move_write(src, dst, ready, t);
                    if M::ERASE_AFTER_WRITES {
                        self.victim_end = self.victim_end.max(e);
                    }
                    last = last.max(e);
                }
                FlashOp::Erase { seg, .. } => {
                    let ready = t.max(self.victim_end);
                    let e = self.media.erase(seg, ready, t);
                    self.victim_end = 0;
                    self.gc_rg = ReadGroup::default();
                    last = last.max(e);
                }
                _ => {}
            }
        }
        self.read_end_buf = ends;
        last
    }
}

/// The scheduler's part of a checkpoint.
#[derive(serde::Serialize, serde::Deserialize)]
struct SchedState {
    queue: Vec<Entry>,
    pub(super) moves: Vec<Entry>,
    read_ends: Vec<u64>,
    victim_end: u64,
    gc_rg: ReadGroup,
    waits: GcWaits,
    media: Vec<u8>,
    /// Deferred commit's state (a priority scheduler or suspend).
    lazy: Option<super::lazy::LazyState>,
}

impl<M: Media + Clone> DeviceModel for Scheduled<M> {
    const TIMED: bool = true;

    fn check_restored(&self, layout: &crate::config::Layout) -> Result<(), String> {
        let (pages, segs) = (layout.physical_pages, layout.segments);
        let page = |p: Ppn| (p as u64) < pages;
        for e in self.queue.iter().chain(&self.moves) {
            let ok = match e.op {
                Queued::MoveRead { src, dst } | Queued::MoveWrite { src, dst } => {
                    page(src) && page(dst)
                }
                Queued::Read { ppn, .. } | Queued::Program { ppn, .. } => page(ppn),
                // A segment may have several erases queued (erased, refilled by queued
                // write-backs, picked again); the media's pending counts are rebuilt from
                // this queue on load.
                Queued::Erase { seg } => seg < segs,
            };
            if !ok {
                return Err(format!("queued GC operation {:?} outside the device", e.op));
            }
        }
        Ok(())
    }

    fn name(&self) -> &'static str {
        self.media.name()
    }

    fn schedule(
        &mut self,
        ops: &[FlashOp],
        t: u64,
        host_ready: &mut u64,
        rg: &mut ReadGroup,
        gc: GcPolicy,
    ) -> u64 {
        // Every operation still to come is ready at `t` or later, except queued GC work
        // (issued earlier; first in first out) that first come first served can still fit
        // into an idle gap; deferred commit has made every decision before `t` already.
        let horizon = match (&self.lazy, self.queue.front()) {
            (None, Some(e)) => e.issued.min(t),
            _ => t,
        };
        self.media.forget_before(horizon);
        if self.lazy.is_some() {
            return self.schedule_lazy(ops, t, host_ready);
        }
        if self.direct(gc) {
            if let Some(end) = self.schedule_direct(ops, t, host_ready, rg, gc.barrier) {
                return end;
            }
        }
        let mut end = t;
        for &op in ops {
            match op {
                FlashOp::Read {
                    ppn,
                    origin: Origin::Host,
                } => {
                    self.gc_first(gc, host_ready);
                    // A page GC moved but has not written back yet: that write-back first
                    // (the read then queues behind it on the page's resource).
                    self.pump_until_moved(ppn);
                    let e = self.media.read(ppn, *host_ready, Origin::Host, rg);
                    end = end.max(e);
                }
                FlashOp::Program {
                    ppn,
                    origin: Origin::Host,
                } => {
                    self.flush_moves();
                    self.gc_first(gc, host_ready);
                    // The write needs a block whose erase is still queued: force GC on.
                    self.pump_until_erased(self.media.segment_of(ppn));
                    self.pump_until_placed(ppn);
                    let e = self.media.program(ppn, *host_ready, Origin::Host);
                    end = end.max(e);
                }
                FlashOp::Read {
                    ppn,
                    origin: Origin::Translation,
                } => {
                    self.gc_first(gc, host_ready);
                    end = end.max(self.translation_read(ppn, host_ready));
                }
                FlashOp::Program {
                    ppn,
                    origin: Origin::Translation,
                } => {
                    self.gc_first(gc, host_ready);
                    self.translation_write(ppn, *host_ready);
                }
                _ => self.push(op, t),
            }
        }
        self.flush_moves();
        self.gc_first(gc, host_ready);
        end
    }

    fn enqueue(&mut self, ops: &[FlashOp], t: u64) {
        for &op in ops {
            self.push(op, t);
        }
        self.flush_moves();
    }

    fn pump(&mut self, limit: Option<u64>, max_ops: usize) -> u64 {
        match (limit, self.lazy.is_some()) {
            // Deferred commit: GC work fills gaps by the policy's decisions.
            (Some(t), true) => {
                let mut last = 0;
                while let Some(e) = self.lazy_step_before(t) {
                    last = last.max(e);
                }
                last
            }
            // (Under deferred commit: the GC mode's pace, committed at a host arrival
            // whatever the policy; docs/controller.md.)
            _ => {
                #[cfg(test)]
                crate::device::audit::forcing(true);
                let e = self.pump_queue(limit, max_ops);
                #[cfg(test)]
                crate::device::audit::forcing(false);
                e
            }
        }
    }

    fn deferred(&self) -> bool {
        self.lazy.is_some()
    }

    fn open_slot(&mut self, slot: u32) {
        self.lazy_open(slot);
    }

    fn slots(&self) -> u32 {
        self.lazy_slots()
    }

    fn slot_end(&self, slot: u32) -> Option<u64> {
        self.lazy_slot_end(slot)
    }

    fn next_decision(&self) -> Option<u64> {
        self.lazy_next()
    }

    fn step(&mut self) -> u64 {
        self.lazy_step()
    }

    fn step_before(&mut self, t: u64) -> Option<u64> {
        self.lazy_step_before(t)
    }

    fn ends_pending(&self) -> bool {
        self.lazy_ends_pending()
    }

    fn take_ends(&mut self, out: &mut Vec<(u32, u64)>) -> bool {
        self.lazy_take_ends(out)
    }

    fn set_free_segments(&mut self, free: u64) {
        self.lazy_free_segments(free);
    }

    fn place_untimed(&mut self, pages: &mut dyn Iterator<Item = Ppn>) {
        self.media.place_untimed(pages);
    }

    fn queued(&self) -> bool {
        !self.queue.is_empty()
    }

    fn read_unmapped(&mut self, t: u64) -> u64 {
        self.media.read_unmapped(t)
    }

    fn memory_access_ns(&self) -> u64 {
        self.media.memory_access_ns()
    }

    fn collecting(&self, ppn: Ppn, t: u64) -> bool {
        self.media.collecting(ppn, t)
    }

    fn on_request(&mut self, op: Op, arrival: u64, done: u64) {
        self.media.on_request(op, arrival, done);
    }

    fn makespan(&self) -> u64 {
        self.media.makespan()
    }

    fn memory_estimate(&self) -> u64 {
        self.media.memory_estimate() + self.gc_wrote_bytes()
    }

    fn memory_estimate_upper_bound(&self) -> Option<&'static str> {
        self.media.memory_estimate_upper_bound()
    }

    fn memory_bytes(&self) -> u64 {
        self.media.memory_bytes() + self.gc_wrote_bytes()
    }

    fn report(&self, span_ns: u64) -> Option<DeviceReport> {
        let mut r = self.media.report(span_ns);
        match r.as_mut() {
            Some(DeviceReport::Flash(f)) => {
                f.gc_move_reads = self.waits.move_reads;
                f.gc_page_waits = self.waits.page_waits;
                f.gc_page_wait_ops = self.waits.page_wait_ops;
            }
            Some(DeviceReport::Noc(n)) => n.gc_move_reads = self.waits.move_reads,
            None => {}
        }
        if let (Some(DeviceReport::Flash(f)), Some(l)) = (r.as_mut(), &self.lazy) {
            f.suspensions = Some(l.suspensions);
            f.write_buffer_reads = Some(l.buffered_reads);
        }
        if let (Some(DeviceReport::Noc(n)), Some(l)) = (r.as_mut(), &self.lazy) {
            n.write_buffer_reads = Some(l.buffered_reads);
        }
        r
    }

    fn describe(&self) -> String {
        self.media.describe()
    }

    fn save_state(&self) -> crate::error::Result<Vec<u8>> {
        crate::checkpoint::encode(&SchedState {
            queue: self.queue.iter().copied().collect(),
            moves: self.moves.clone(),
            read_ends: self.read_ends.iter().copied().collect(),
            victim_end: self.victim_end,
            gc_rg: self.gc_rg,
            waits: self.waits,
            media: self.media.save_state()?,
            lazy: self.lazy.as_ref().map(|l| l.save()),
        })
    }

    fn load_state(&mut self, state: &[u8]) -> crate::error::Result<()> {
        let st: SchedState = crate::checkpoint::decode(state)?;
        self.media.load_state(&st.media)?;
        let times = crate::checkpoint::times_ok(
            st.queue
                .iter()
                .chain(&st.moves)
                .map(|e| e.issued)
                .chain(st.read_ends.iter().copied())
                .chain([st.victim_end]),
        ) && (st.gc_rg.fpage == u32::MAX
            || st.gc_rg.end < crate::checkpoint::TIME_LIMIT_NS);
        if !times {
            return Err(crate::error::Error::Input(
                "the GC queue holds times out of range".into(),
            ));
        }
        self.queue = st.queue.into();
        for e in &self.queue {
            if let Queued::Erase { seg } = e.op {
                if seg >= self.media.segments() {
                    return Err(crate::error::Error::Input(format!(
                        "the GC queue erases segment {seg}, beyond the device"
                    )));
                }
                self.media.set_erase_pending(seg, true);
            }
        }
        match (self.lazy.as_mut(), st.lazy) {
            (None, None) => {}
            (Some(l), Some(ls)) => {
                let (media, segs) = (&self.media, self.media.segments());
                let moves = media.cell_may_move();
                l.load(ls, |ppn, cell| {
                    media.segment_of(ppn) < segs && (moves || media.cell_of(ppn) == cell)
                })?;
                l.restore_hints(|ppn, cell| media.host_hint(ppn, cell));
            }
            _ => {
                return Err(crate::error::Error::Input(
                    "the checkpoint's scheduler (priority or suspend) does not match the timing parameters".into(),
                ))
            }
        }
        self.rebuild_heap();
        self.recount_waiting();
        self.moves = st.moves;
        self.renote_gc_writes();
        self.read_ends = st.read_ends.into();
        self.victim_end = st.victim_end;
        self.waits = st.waits;
        self.gc_rg = st.gc_rg;
        Ok(())
    }
}
