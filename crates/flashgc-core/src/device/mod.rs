//! Device models: what times the FTL's physical operations ([`crate::ops`]).
//!
//! The host driver (`crate::driver`) hands a device model the operations of each host page
//! operation, in FTL order, and asks when the host's part completes. Three models:
//!
//! * [`NullDevice`]: WAF-only. Nothing is timed and the FTL's op log stays off; the driver
//!   compiles its timed code paths away for it ([`DeviceModel::TIMED`] is false).
//! * [`FlashDevice`]: channels, chips, dies and planes with read, program, erase and bus
//!   transfer times (`device/flash`), optional on-die copyback for GC moves.
//! * [`NocDevice`]: the network-on-chip controller of papers/noc-copyback-gc.txt
//!   (`device/noc`): per-channel task queues, an interconnect whose page crossing takes Eq. 1,
//!   ECC on the CPU, and conventional or selective copy-back of GC moves.
//!
//! The timed models share one scheduler ([`sched::Scheduled`]) over their resources
//! ([`sched::Media`]): it orders a GC victim's work (reads first, then write-backs, then the
//! erase), queues GC work behind host I/O in the preemptible modes and pumps it into idle
//! gaps. Each resource is reserved first come first served in commit order; a scheduling
//! policy with priorities (firmware issue 15) replaces the commit order there.

#[cfg(test)]
pub(crate) mod audit;
pub mod cpu;
mod fifo;
pub mod flash;
mod gc_queue;
mod lazy;
pub mod noc;
mod null;
pub mod policy;
pub mod sched;

pub use flash::{Costs, FlashMedia};
pub use noc::{NocMedia, NocParams};
pub use null::NullDevice;

use crate::ops::FlashOp;
use crate::types::Ppn;
use crate::workload::Op;

/// A device model timed with flash channels, dies and planes.
pub type FlashDevice = sched::Scheduled<FlashMedia>;
/// A device model of the network-on-chip controller.
pub type NocDevice = sched::Scheduled<NocMedia>;

/// How the driver's GC mode wants the GC work of a host operation scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcPolicy {
    /// Schedule GC operations as soon as the FTL issues them (foreground, per-die);
    /// otherwise queue them behind host I/O ([`DeviceModel::pump`] runs them).
    pub now: bool,
    /// The host write that triggered GC waits for the whole GC work (foreground).
    pub barrier: bool,
}

/// Group of consecutive reads of one host request on the same flash page (they share one
/// cell read). Device models that read whole mapping units ignore it.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct ReadGroup {
    pub(crate) fpage: u32,
    pub(crate) end: u64,
}

impl Default for ReadGroup {
    fn default() -> Self {
        ReadGroup {
            fpage: u32::MAX,
            end: 0,
        }
    }
}

/// Device-specific part of a timed result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum DeviceReport {
    /// The flash device: resource utilization.
    Flash(flash::FlashReport),
    /// The NoC controller: task queues, copy-backs, interconnect.
    Noc(Box<noc::NocReport>),
}

/// A model that times the FTL's physical operations. Implemented by [`NullDevice`] and by
/// [`sched::Scheduled`] over a [`sched::Media`].
pub trait DeviceModel: Clone {
    /// False for the null model: the driver then skips arrivals, latencies and the op log
    /// at compile time (the WAF-only hot path).
    const TIMED: bool;

    /// Short name for output (`null`, `flash`, `noc`).
    fn name(&self) -> &'static str;

    /// Times the operations the FTL issued for one host page operation arriving at `t`:
    /// host reads and programs start at `host_ready` or later (a foreground GC barrier
    /// raises it), GC work is scheduled or queued by `gc`. Returns the end of the host's
    /// own operations (`t` if there are none).
    fn schedule(
        &mut self,
        ops: &[FlashOp],
        t: u64,
        host_ready: &mut u64,
        rg: &mut ReadGroup,
        gc: GcPolicy,
    ) -> u64;

    /// Queues GC or background operations issued at `t` (proactive GC, idle-time work).
    fn enqueue(&mut self, ops: &[FlashOp], t: u64);

    /// Schedules queued operations in FTL order, at most `max_ops` of them; with
    /// `limit = Some(t)` stops at the first that cannot start before `t` (host I/O
    /// arriving at `t` goes first). Returns the latest end of the operations scheduled.
    fn pump(&mut self, limit: Option<u64>, max_ops: usize) -> u64;

    /// Whether operations are queued.
    fn queued(&self) -> bool;

    /// Whether host operations are committed by priority later (a priority scheduler or
    /// suspend; `device::lazy`): [`DeviceModel::schedule`] then returns no end, and the
    /// driver advances the device with [`DeviceModel::step`] and reads each request's end
    /// with [`DeviceModel::slot_end`].
    fn deferred(&self) -> bool {
        false
    }

    /// Deferred mode: the host operations scheduled next belong to request slot `slot`.
    fn open_slot(&mut self, _slot: u32) {}

    /// Deferred mode: how many request slots the device knows (a restored driver's
    /// requests in flight must all be among them).
    fn slots(&self) -> u32 {
        0
    }

    /// Deferred mode: the end of slot `slot`'s operations once all are reserved.
    fn slot_end(&self, _slot: u32) -> Option<u64> {
        None
    }

    /// Deferred mode: the time of the next scheduling decision (None: nothing waits).
    fn next_decision(&self) -> Option<u64> {
        None
    }

    /// Deferred mode: commits the next decision; returns the end of what it reserved.
    fn step(&mut self) -> u64 {
        0
    }

    /// Deferred mode: commits the next decision if it falls before `t` (None otherwise);
    /// returns the end of what it reserved.
    fn step_before(&mut self, t: u64) -> Option<u64> {
        if self.next_decision().is_some_and(|d| d < t) {
            Some(self.step())
        } else {
            None
        }
    }

    /// Deferred mode: whether host commits made a request's end known (its last operation
    /// reserved) or moved a known end later (a read suspended its program) since the last
    /// [`DeviceModel::take_ends`] (checked after every decision, so it stays a flag read).
    fn ends_pending(&self) -> bool {
        false
    }

    /// Deferred mode: moves those ends into `out` (cleared first) as (slot, end) in commit
    /// order; true when one of them moved an end that was known already. The device pushes
    /// them as it commits, so the driver never looks at a request whose end did not change.
    fn take_ends(&mut self, out: &mut Vec<(u32, u64)>) -> bool {
        out.clear();
        false
    }

    /// Free segments of the FTL now (host-first's urgency threshold).
    fn set_free_segments(&mut self, _free: u64) {}

    /// The pages the FTL wrote before the clock started (the precondition fill), in write
    /// order: an allocation that depends only on program order (round-robin) places them
    /// now, as if they had been programmed; the others leave them at their static location
    /// (and do not consume the iterator).
    fn place_untimed(&mut self, _pages: &mut dyn Iterator<Item = crate::types::Ppn>) {}

    /// A host read of an unmapped LPN arriving at `t` (no flash access); returns its end.
    fn read_unmapped(&mut self, t: u64) -> u64;

    /// Controller memory access per mapping unit (a write-cache hit costs one).
    fn memory_access_ns(&self) -> u64;

    /// Whether the resource holding `ppn` has GC work reserved after `t` (GCaR).
    fn collecting(&self, ppn: Ppn, t: u64) -> bool;

    /// A host request (arrived at `arrival`, completed at `done`) has been served.
    fn on_request(&mut self, _op: Op, _arrival: u64, _done: u64) {}

    /// Latest end of any reservation.
    fn makespan(&self) -> u64;

    /// Bytes of model state (resource tables, queues, series).
    fn memory_bytes(&self) -> u64;

    /// The model's report over a simulated span of `span_ns` (utilization, queues).
    fn report(&self, span_ns: u64) -> Option<DeviceReport>;

    /// One line describing the model and its options (for the result's notes).
    fn describe(&self) -> String;

    /// Whether a device option makes FTL-visible behaviour depend on time.
    fn timing_dependent(&self) -> bool {
        false
    }

    /// The model's mutable state (reservations, queues, counters) for a checkpoint, taken
    /// at a safe point between host requests.
    fn save_state(&self) -> crate::error::Result<Vec<u8>>;

    /// Restores what [`DeviceModel::save_state`] wrote into a model built from the same
    /// configuration and options. Damaged bytes or a different device give an error.
    fn load_state(&mut self, state: &[u8]) -> crate::error::Result<()>;

    /// Bytes the model will hold at most during a run (what the memory estimate counts;
    /// [`DeviceModel::memory_bytes`] is what it holds now).
    fn memory_estimate(&self) -> u64 {
        self.memory_bytes()
    }

    /// Why [`DeviceModel::memory_estimate`] is an upper bound rather than a prediction, if
    /// it is one (default: it is not).
    fn memory_estimate_upper_bound(&self) -> Option<&'static str> {
        None
    }

    /// Checks restored state against the device's `layout` (a checkpoint's CRC proves
    /// integrity, not consistency): every queued operation's page or segment exists, and
    /// what the model marks as waiting for an erase has that erase queued.
    fn check_restored(&self, _layout: &crate::config::Layout) -> Result<(), String> {
        Ok(())
    }
}
