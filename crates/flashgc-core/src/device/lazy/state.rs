//! Deferred commit's part of a checkpoint: what is saved, and the checks on restore.

use super::{CellQueue, Lazy, Pend, Slot};
use crate::types::Ppn;

/// The deferred-commit state in a checkpoint (the policy itself comes from the
/// configuration; the per-resource cache is rebuilt).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct LazyState {
    pending: Vec<Vec<Pend>>,
    slots: Vec<Slot>,
    cur: u32,
    seq: u64,
    owner: Vec<super::buffer::Owner>,
    urgent: bool,
    /// Unused since the device pushes request ends to the driver (a restored driver reads
    /// every end again); kept for the format.
    log: (u64, u32, bool),
    suspensions: u64,
    /// Host reads served from the write buffer (format 12, which also added each
    /// owner's page).
    buffered_reads: u64,
}

impl Lazy {
    /// Gives each restored waiting operation its media hint (not saved): `hint(ppn, cell)`
    /// for an operation on `ppn` waiting at `cell`, so that it runs where it waited.
    pub(crate) fn restore_hints(&mut self, hint: impl Fn(Ppn, usize) -> u32) {
        for (cell, cq) in self.pending.iter_mut().enumerate() {
            for q in cq.q.iter_mut() {
                q.iter_mut().for_each(|p| p.hint = hint(p.ppn, cell));
            }
        }
    }

    /// This state for a checkpoint.
    pub(crate) fn save(&self) -> LazyState {
        LazyState {
            pending: self
                .pending
                .iter()
                .map(|q| q.iter().copied().collect())
                .collect(),
            slots: self.slots.clone(),
            cur: self.cur,
            seq: self.seq,
            owner: self.owner.clone(),
            urgent: self.urgent,
            log: (0, 0, false),
            suspensions: self.suspensions,
            buffered_reads: self.buffered_reads,
        }
    }

    /// Restores [`Lazy::save`]'s state after checking it: `in_cell(ppn, cell)` says whether
    /// an operation on the physical page may wait in resource `cell` (false beyond the
    /// device). Every waiting operation must sit in its page's resource queue, belong to a
    /// known request slot, and each slot must count exactly its waiting operations, so that
    /// every request can complete.
    pub(crate) fn load(
        &mut self,
        st: LazyState,
        in_cell: impl Fn(Ppn, usize) -> bool,
    ) -> crate::error::Result<()> {
        use crate::checkpoint::times_ok;
        let bad = |why: &str| {
            Err(crate::error::Error::Input(format!(
                "the scheduler's deferred-commit state is inconsistent: {why}"
            )))
        };
        let cells = self.pending.len();
        if st.pending.len() != cells || st.owner.len() != cells {
            return bad("resource count");
        }
        if st.seq > super::best::MAX_SEQ {
            // Beyond what a decision's key holds (never reached by a run: one per host
            // operation).
            return bad("issue order");
        }
        let mut open = vec![0u32; st.slots.len()];
        for (cell, q) in st.pending.iter().enumerate() {
            if q.windows(2)
                .any(|w| w[0].write == w[1].write && w[0].seq >= w[1].seq)
            {
                return bad("issue order");
            }
            for p in q {
                if !in_cell(p.ppn, cell) {
                    return bad("a waiting operation outside its resource");
                }
                match open.get_mut(p.slot as usize) {
                    Some(n) => *n += 1,
                    None => return bad("a waiting operation of an unknown request"),
                }
                if p.seq > st.seq {
                    return bad("issue order");
                }
            }
        }
        if st.slots.iter().zip(&open).any(|(s, &n)| s.open != n) {
            return bad("a request's count of waiting operations");
        }
        let times = times_ok(st.pending.iter().flatten().map(|p| p.ready))
            && times_ok(st.slots.iter().map(|s| s.end))
            && times_ok(st.owner.iter().map(|o| o.1));
        let owners = st
            .owner
            .iter()
            .all(|o| o.0 == u32::MAX || (o.0 as usize) < st.slots.len());
        if !times || !owners || (st.cur as usize) > st.slots.len() {
            return bad("times or request slots out of range");
        }
        self.active = (0..cells).filter(|&c| !st.pending[c].is_empty()).collect();
        self.pending = st
            .pending
            .into_iter()
            .map(|q| {
                let mut cq = CellQueue::default();
                q.into_iter().for_each(|p| cq.push(p));
                cq
            })
            .collect();
        self.slots = st.slots;
        self.cur = st.cur;
        self.seq = st.seq;
        self.owner = st.owner;
        self.set_urgent(st.urgent);
        // Ends not taken yet: the restored driver reads every end again.
        self.ends.clear();
        self.moved = false;
        self.suspensions = st.suspensions;
        self.buffered_reads = st.buffered_reads;
        self.recount_programs();
        self.best.iter_mut().for_each(|b| b.valid = false);
        self.clear_heap();
        Ok(())
    }
}
