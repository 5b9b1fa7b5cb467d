//! Program/erase suspend on the flash media: the operation each cell runs last, and a host
//! read that suspends it (docs/controller.md).

use super::FlashMedia;
use crate::device::ReadGroup;
use serde::Serialize;

/// The program or erase a cell resource runs last (what a host read may suspend).
#[derive(Debug, Clone, Copy, Default, Serialize, serde::Deserialize)]
pub(super) struct Running {
    /// Start of the suspendable phase (a program's cell phase, after its data transfer).
    pub(super) from: u64,
    /// End (moved on by each suspension).
    pub(super) end: u64,
    /// 0 none, 1 program, 2 erase.
    pub(super) kind: u8,
    /// Suspensions so far.
    pub(super) suspensions: u8,
    /// GC work (busy time counts as GC).
    pub(super) gc: bool,
    /// Segment of an erase.
    pub(super) seg: u32,
    /// The unit a program writes (the flash page's last unit, whose arrival started it).
    pub(super) ppn: u32,
}

impl FlashMedia {
    /// Turns program/erase suspend on with parameters `s` (None: off).
    pub fn set_suspend(&mut self, s: Option<crate::device::policy::Suspend>) {
        self.running = match s {
            Some(_) => vec![Running::default(); self.cells.len()],
            None => Vec::new(),
        };
        self.suspend = s;
    }

    #[inline(always)]
    pub(super) fn set_running(&mut self, cell: usize, r: Running) {
        if !self.running.is_empty() {
            self.running[cell] = r;
        }
    }

    /// Program/erase suspend: when a host read could suspend the operation running last on
    /// `cell` (a program's cell phase or an erase, below the suspension limit).
    pub fn suspend_from(&self, cell: usize) -> Option<u64> {
        let s = self.suspend?;
        let r = self.running.get(cell)?;
        (r.kind != 0 && r.end == self.cells[cell].free && (r.suspensions as u32) < s.max_per_op)
            .then_some(r.from)
    }

    /// The unit whose GC program (a move's write-back, or GC's own program) runs last on
    /// `cell` and could be suspended there: a host read of that unit must wait for it
    /// instead (docs/controller.md, "Reads of a page GC is moving").
    pub fn gc_program_running(&self, cell: usize) -> Option<u32> {
        let r = self.running.get(cell)?;
        (r.kind == 1 && r.gc && r.end == self.cells[cell].free).then_some(r.ppn)
    }

    /// A host read of `ppn` at `at` suspending the program or erase running on its cell:
    /// the operation stops `suspend_ns` after `at` (or after its start), the read's cell
    /// read and transfer run, and the operation resumes `resume_ns` later with the time it
    /// had left. The read runs on `unit` (where it waited; `NO_HINT`: the unit holding
    /// `ppn`). Returns (read end, the operation's new end).
    pub fn read_suspending(
        &mut self,
        ppn: u32,
        unit: u32,
        at: u64,
        group: &mut ReadGroup,
    ) -> (u64, u64) {
        let s = self.suspend.expect("suspend on");
        let unit = match unit {
            crate::device::sched::NO_HINT => self.unit_of(ppn),
            u => u,
        };
        let r = self.units[unit as usize];
        let (cell, ch) = (r.cell as usize, r.ch as usize);
        let run = self.running[cell];
        let at = at.max(run.from);
        debug_assert!(at < run.end);
        let left = run.end - at;
        let c = self.costs;
        let rs = at + s.suspend_ns;
        let xs = self.ch_reserve(ch, rs + c.read);
        let xe = xs + c.xfer;
        let end = xe + s.resume_ns + left;
        #[cfg(test)]
        crate::device::audit::suspend(
            cell,
            ppn,
            self.geo.seg_of(ppn),
            at,
            run.from,
            (rs, xe),
            run.end,
            end,
        );
        self.cells[cell].free = end;
        self.note(cell, rs, xe, false);
        // Suspend and resume overheads count to the suspended operation.
        self.note(cell, 0, s.suspend_ns + s.resume_ns, run.gc);
        if run.gc {
            let g = &mut self.cells[cell].gc_until;
            *g = (*g).max(end);
        }
        if run.kind == 2 {
            let e = &mut self.erased_at[run.seg as usize];
            *e = (*e).max(end);
        }
        // The next read can suspend it again once it has resumed.
        self.running[cell] = Running {
            from: xe + s.resume_ns,
            end,
            suspensions: run.suspensions + 1,
            ..run
        };
        *group = ReadGroup {
            fpage: self.geo.fpage_of(ppn),
            end: xe,
        };
        (xe + c.sram, end)
    }
}
