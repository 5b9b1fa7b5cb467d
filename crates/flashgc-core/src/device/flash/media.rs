//! The flash device as the shared scheduler's [`Media`]: what `device::sched` and deferred
//! commit ask of it (locating, probing, reserving, suspending, saving).

use super::{Alloc, FlashMedia};
#[cfg(test)]
use crate::device::audit;
use crate::device::sched::{Media, NO_HINT};
use crate::device::{DeviceReport, ReadGroup};
use crate::ops::Origin;
use crate::types::{Ppn, SegmentId};

/// Whether an operation's busy time counts as GC time (`gc_time_share`): mapping-cache
/// traffic of host requests does not.
#[inline(always)]
fn is_gc(origin: Origin) -> bool {
    matches!(origin, Origin::Gc | Origin::Background)
}

impl Media for FlashMedia {
    const ERASE_AFTER_WRITES: bool = true;

    #[inline]
    fn forget_before(&mut self, t: u64) {
        if !self.books.is_empty() {
            self.forget_transfers_before(t);
        }
    }

    fn place_untimed(&mut self, pages: &mut dyn Iterator<Item = Ppn>) {
        if self.alloc == Alloc::RoundRobin {
            pages.for_each(|ppn| {
                self.choose_unit_rr(ppn);
            });
        }
    }

    fn name(&self) -> &'static str {
        "flash"
    }

    #[inline(always)]
    fn read(&mut self, ppn: Ppn, ready: u64, origin: Origin, rg: &mut ReadGroup) -> u64 {
        #[cfg(test)]
        audit::context(origin, None);
        FlashMedia::read(self, ppn, ready, is_gc(origin), rg)
    }

    #[inline(always)]
    fn program(&mut self, ppn: Ppn, ready: u64, origin: Origin) -> u64 {
        #[cfg(test)]
        audit::context(origin, None);
        FlashMedia::program(self, ppn, ready, is_gc(origin), false)
    }

    #[inline(always)]
    fn move_read(
        &mut self,
        src: Ppn,
        _dst: Ppn,
        ready: u64,
        _issued: u64,
        rg: &mut ReadGroup,
    ) -> u64 {
        #[cfg(test)]
        audit::context(Origin::Gc, Some((src, _dst)));
        FlashMedia::read(self, src, ready, true, rg)
    }

    #[inline(always)]
    fn move_write(&mut self, _src: Ppn, dst: Ppn, ready: u64, _issued: u64) -> u64 {
        #[cfg(test)]
        audit::context(Origin::Gc, Some((_src, dst)));
        FlashMedia::program(self, dst, ready, true, false)
    }

    #[inline(always)]
    fn move_read_before(
        &mut self,
        src: Ppn,
        _dst: Ppn,
        ready: u64,
        _issued: u64,
        rg: &mut ReadGroup,
        limit: u64,
    ) -> Option<u64> {
        #[cfg(test)]
        audit::context(Origin::Gc, Some((src, _dst)));
        // One location lookup for the probe and the reservation.
        let unit = self.unit_of(src);
        let cell = self.units[unit as usize].cell as usize;
        (ready.max(self.cells[cell].free) < limit).then(|| self.read_on(unit, src, ready, true, rg))
    }

    #[inline(always)]
    fn move_write_before(
        &mut self,
        src: Ppn,
        dst: Ppn,
        ready: u64,
        issued: u64,
        limit: u64,
    ) -> Option<u64> {
        #[cfg(test)]
        audit::context(Origin::Gc, Some((src, dst)));
        if self.alloc != Alloc::Static {
            // Dynamic allocation chooses the unit when it programs: probe that unit.
            return (FlashMedia::probe_program(self, dst, ready) < limit)
                .then(|| self.move_write(src, dst, ready, issued));
        }
        let unit = self.geo.unit_static(dst);
        (self.probe_program_on(unit, dst, ready) < limit)
            .then(|| self.program_on(unit, dst, ready, true, false))
    }

    fn copyback_enabled(&self) -> bool {
        self.copyback
    }

    fn copyback_possible(&self, src: Ppn, dst: Ppn) -> bool {
        self.copyback && self.same_plane(src, dst)
    }

    fn copyback(&mut self, src: Ppn, dst: Ppn, ready: u64) -> u64 {
        #[cfg(test)]
        audit::context(Origin::Gc, Some((src, dst)));
        let r = self.read_copyback(src, ready);
        FlashMedia::program(self, dst, r, true, true)
    }

    fn erase(&mut self, seg: SegmentId, ready: u64, _issued: u64) -> u64 {
        #[cfg(test)]
        audit::context(Origin::Gc, None);
        FlashMedia::erase(self, seg, ready)
    }

    fn probe_read(&self, ppn: Ppn, ready: u64) -> u64 {
        FlashMedia::probe_read(self, ppn, ready)
    }

    fn probe_program(&self, ppn: Ppn, ready: u64) -> u64 {
        FlashMedia::probe_program(self, ppn, ready)
    }

    fn probe_erase(&self, seg: SegmentId, ready: u64) -> u64 {
        FlashMedia::probe_erase(self, seg, ready)
    }

    #[inline(always)]
    fn segment_of(&self, ppn: Ppn) -> SegmentId {
        self.geo.seg_of(ppn)
    }

    fn set_erase_pending(&mut self, seg: SegmentId, pending: bool) {
        let q = &mut self.erase_queued[seg as usize];
        if pending {
            *q = q.saturating_add(1);
        } else {
            debug_assert!(*q > 0, "an erase scheduled that was not queued");
            *q = q.saturating_sub(1);
        }
    }

    #[inline(always)]
    fn erase_pending(&self, seg: SegmentId) -> bool {
        self.erase_queued[seg as usize] > 0
    }

    fn segments(&self) -> SegmentId {
        self.erased_at.len() as SegmentId
    }

    #[inline]
    fn cell_of(&self, ppn: Ppn) -> usize {
        self.cell_of_ppn(ppn)
    }

    /// The hint is the unit. A waiting host read's page is placed: while a moved page's
    /// GC write-back is queued, deferred commit reads its old copy instead (`read_old_copy`).
    #[inline(always)]
    fn host_locate(&self, ppn: Ppn) -> (usize, u32) {
        let unit = self.unit_of(ppn);
        (self.units[unit as usize].cell as usize, unit)
    }

    /// A unit on `cell`: the one holding `ppn` if it is there, else the cell's first (units
    /// sharing a cell share its channel, so a read times the same on either).
    fn host_hint(&self, ppn: Ppn, cell: usize) -> u32 {
        let unit = self.unit_of(ppn);
        if self.units[unit as usize].cell as usize == cell {
            return unit;
        }
        (0..self.units.len() as u32)
            .find(|&u| self.units[u as usize].cell as usize == cell)
            .unwrap_or(NO_HINT)
    }

    /// Dynamic allocation chooses the unit now, as a controller assigns a waiting program
    /// its die/plane when it schedules the transaction (MQSim's plane allocation): the
    /// program waits at, is decided and suspended on, the resource it runs on.
    #[inline(always)]
    fn host_locate_program(&mut self, ppn: Ppn) -> (usize, u32) {
        if self.alloc == Alloc::Static {
            return self.host_locate(ppn);
        }
        let unit = self.choose_unit(ppn);
        (self.cell_of(unit), unit)
    }

    /// Static placement, a placed flash page, or segments of one block (a page has one
    /// unit to go to: its block has room while one of its pages is still to be placed).
    #[inline(always)]
    fn program_unit_fixed(&self, ppn: Ppn) -> bool {
        !self.alloc.dynamic()
            || self.geo.k == 1
            || self.dyn_unit[self.geo.fpage_of(ppn) as usize] != u16::MAX
    }

    #[inline]
    fn same_flash_page(&self, a: Ppn, b: Ppn) -> bool {
        self.geo.fpage_of(a) == self.geo.fpage_of(b)
    }

    #[inline(always)]
    fn host_read(&mut self, ppn: Ppn, hint: u32, ready: u64, rg: &mut ReadGroup) -> u64 {
        #[cfg(test)]
        audit::context(Origin::Host, None);
        match hint {
            NO_HINT => FlashMedia::read(self, ppn, ready, false, rg),
            unit => self.read_on(unit, ppn, ready, false, rg),
        }
    }

    #[inline(always)]
    fn host_program(&mut self, ppn: Ppn, hint: u32, ready: u64) -> u64 {
        #[cfg(test)]
        audit::context(Origin::Host, None);
        match hint {
            NO_HINT => FlashMedia::program(self, ppn, ready, false, false),
            unit => self.program_on(unit, ppn, ready, false, false),
        }
    }

    #[inline]
    fn cell_free(&self, cell: usize) -> u64 {
        self.cells[cell].free
    }

    fn cells(&self) -> usize {
        self.cells.len()
    }

    fn cell_may_move(&self) -> bool {
        self.alloc.dynamic()
    }

    fn suspend_from(&self, cell: usize) -> Option<u64> {
        FlashMedia::suspend_from(self, cell)
    }

    fn read_suspending(&mut self, ppn: Ppn, hint: u32, at: u64, rg: &mut ReadGroup) -> (u64, u64) {
        FlashMedia::read_suspending(self, ppn, hint, at, rg)
    }

    #[inline(always)]
    fn erased_by(&self, seg: SegmentId) -> u64 {
        self.erased_at[seg as usize]
    }

    fn gc_program_running(&self, cell: usize) -> Option<Ppn> {
        FlashMedia::gc_program_running(self, cell)
    }

    fn erase_running(&self, cell: usize) -> Option<SegmentId> {
        let r = self.running.get(cell)?;
        (r.kind == 2).then_some(r.seg)
    }

    fn memory_access_ns(&self) -> u64 {
        self.costs.sram
    }

    fn collecting(&self, ppn: Ppn, t: u64) -> bool {
        FlashMedia::collecting(self, ppn, t)
    }

    fn makespan(&self) -> u64 {
        FlashMedia::makespan(self)
    }

    fn memory_bytes(&self) -> u64 {
        FlashMedia::memory_bytes(self)
    }

    fn report(&self, _span_ns: u64) -> Option<DeviceReport> {
        Some(DeviceReport::Flash(self.flash_report()))
    }

    fn save_state(&self) -> crate::error::Result<Vec<u8>> {
        self.save()
    }

    fn load_state(&mut self, state: &[u8]) -> crate::error::Result<()> {
        self.load(state)
    }

    fn describe(&self) -> String {
        format!(
            "allocation {:?} over {} units ({} order), multi-plane {}, copyback {}; approximations are listed in docs/timing.md",
            self.alloc,
            self.geo.units,
            self.geo.order,
            if self.multiplane { "on (idealised)" } else { "off" },
            if self.copyback { "on" } else { "off" }
        )
    }
}
