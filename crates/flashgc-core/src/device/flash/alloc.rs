//! Dynamic page allocation over parallel units (`first-idle`, `round-robin`): the unit of
//! a new flash page is chosen once, when the first of its units is placed (programmed, or
//! queued to wait under deferred commit), and remembered per flash page until its
//! segment's erase (module docs of `geometry` and docs/timing.md).

use super::FlashMedia;

impl FlashMedia {
    /// Round-robin allocation: a new flash page goes to the unit of a device-wide cursor,
    /// which then moves on by one (Cosmos+'s die rotation). When the segment has a block on
    /// every unit (`segment_blocks` >= units), it takes the cursor's unit even if its block
    /// there is full: Cosmos+ would open that die's next block for the stream, and the
    /// timing model counts dies, not blocks. Otherwise the page goes to the first of the
    /// segment's units with room at or after the cursor. A flash page already placed keeps
    /// its unit (its other units, or the same unit committed after it waited).
    pub(super) fn choose_unit_rr(&mut self, ppn: u32) -> u32 {
        let fpage = self.geo.fpage_of(ppn) as usize;
        if self.dyn_unit[fpage] != u16::MAX {
            return self.dyn_unit[fpage] as u32;
        }
        let (u, j) = self.pick_rr(ppn);
        self.rr_next = (self.rr_next + 1) % self.geo.units;
        self.take(ppn, u, j)
    }

    /// The unit and segment block [`Self::choose_unit_rr`] would give a new flash page
    /// of `ppn` now (the cursor's).
    fn pick_rr(&self, ppn: u32) -> (u32, u32) {
        let seg = self.geo.seg_of(ppn);
        let (k, units, ppb) = (self.geo.k, self.geo.units, self.geo.pages_per_block);
        // The segment's block j lives on unit (first + j) % units (static block layout).
        let first = self.geo.block_unit(seg, 0).0;
        let fill = |m: &FlashMedia, j: u32| m.dyn_fill[(seg * k + j) as usize] as u32;
        // The segment's block on unit u with room (blocks j, j + units, ... share u).
        let block_on = |m: &FlashMedia, u: u32| {
            let j0 = (u + units - first) % units;
            (j0..k).step_by(units as usize).find(|&j| fill(m, j) < ppb)
        };
        let cursor = self.rr_next;
        if k >= units {
            let j0 = (cursor + units - first) % units;
            (cursor, block_on(self, cursor).unwrap_or(j0))
        } else {
            // The segment's units in rotation order from the cursor are its blocks
            // d, d + 1, ..., k - 1, 0, ..., d - 1 (d: the cursor's block, or 0 when the
            // cursor is not on one of them).
            let d = (cursor + units - first) % units;
            let start = if d < k { d } else { 0 };
            (0..k)
                .map(|i| (start + i) % k)
                .find(|&j| fill(self, j) < ppb)
                .map(|j| ((first + j) % units, j))
                // No room on any unit (pages written before timing started are not
                // counted): the segment's first unit, as static allocation would.
                .unwrap_or((first, 0))
        }
    }

    /// Places the flash page of `ppn` on unit `u`, its segment's block `j`; returns `u`.
    fn take(&mut self, ppn: u32, u: u32, j: u32) -> u32 {
        let seg = self.geo.seg_of(ppn);
        let f = &mut self.dyn_fill[(seg * self.geo.k + j) as usize];
        *f = f.saturating_add(1);
        self.dyn_unit[self.geo.fpage_of(ppn) as usize] = u as u16;
        u
    }

    /// First-idle allocation: a new flash page goes to the segment's unit (with room in
    /// its block) whose die and channel become idle first; ties to the lowest block. A flash
    /// page already placed keeps its unit.
    pub(super) fn choose_unit_dynamic(&mut self, ppn: u32) -> u32 {
        let fpage = self.geo.fpage_of(ppn) as usize;
        if self.dyn_unit[fpage] != u16::MAX {
            return self.dyn_unit[fpage] as u32;
        }
        let (u, j) = self.pick_first_idle(ppn);
        self.take(ppn, u, j)
    }

    /// The unit and segment block [`Self::choose_unit_dynamic`] would give a new flash
    /// page of `ppn` now.
    fn pick_first_idle(&self, ppn: u32) -> (u32, u32) {
        let seg = self.geo.seg_of(ppn);
        let k = self.geo.k;
        let mut best = (u64::MAX, 0u32, 0u32);
        for j in 0..k {
            if self.dyn_fill[(seg * k + j) as usize] as u32 >= self.geo.pages_per_block {
                continue;
            }
            let (unit, _) = self.geo.block_unit(seg, j);
            let r = self.units[unit as usize];
            let idle = self.ch_probe(r.ch as usize, self.cells[r.cell as usize].free);
            if idle < best.0 {
                best = (idle, unit, j);
            }
        }
        (best.1, best.2)
    }

    /// The unit a program of `ppn` would run on if placed now: its flash page's unit if
    /// placed, else the one [`FlashMedia::choose_unit`] would choose (nothing is placed).
    /// What deferred commit probes a queued GC program at, so that it is decided for the
    /// resource it then runs on.
    pub(super) fn next_unit(&self, ppn: u32) -> u32 {
        if self.alloc == super::Alloc::Static {
            return self.geo.unit_static(ppn);
        }
        match self.dyn_unit[self.geo.fpage_of(ppn) as usize] {
            u16::MAX if self.alloc == super::Alloc::FirstIdle => self.pick_first_idle(ppn).0,
            u16::MAX => self.pick_rr(ppn).0,
            u => u as u32,
        }
    }
}
