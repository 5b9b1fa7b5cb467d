//! The stream of physical operations: the one seam between the FTL and time.
//!
//! The FTL decides what happens to data (mapping, placement, victims, relocation) and
//! emits each physical operation it performs into an [`OpLog`], in issue order. A device
//! model (`crate::device`) times the operations; the null model ignores them, and then the
//! log stays off so that the WAF-only hot path pays one predictable branch per page.
//!
//! Operations carry their [`Origin`] so that a device model (or, later, a scheduler with
//! priorities) can treat host, GC, background and translation work differently. Compute
//! operations ([`Compute`]) describe controller CPU work (ECC decoding, fingerprints,
//! classifier lookups); today's device models do not charge them (their cost is zero), a
//! firmware-CPU resource times them.

use crate::types::{Ppn, SegmentId};

/// Who issued an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// A host request (a user read or write).
    Host,
    /// Garbage collection (victim relocation and erase).
    Gc,
    /// Background work at idle time (read scrub, deferred migration).
    Background,
    /// Mapping-table traffic (translation pages of a demand-paged L2P).
    Translation,
}

impl Origin {
    /// True for work the host does not wait for directly (GC, background, translation
    /// write-backs): device models queue it behind or among host work by the GC mode.
    #[inline(always)]
    pub fn is_internal(self) -> bool {
        !matches!(self, Origin::Host)
    }
}

/// Controller CPU work, in units the firmware-CPU model prices (nanoseconds per unit are
/// the model's parameters, not the FTL's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Compute {
    /// ECC decoding of `pages` flash pages read (plus correction when `corrected`).
    EccDecode {
        /// Pages decoded.
        pages: u32,
        /// Whether the pages needed correction (LDPC iterations).
        corrected: bool,
    },
    /// Content fingerprint (e.g. SHA-1) of `pages` pages.
    Fingerprint {
        /// Pages hashed.
        pages: u32,
    },
    /// Fingerprint-store work: Bloom probes and table lookups or updates.
    FingerprintLookup {
        /// Lookups.
        lookups: u32,
    },
    /// A placement scheme's classifier work for `writes` user writes (hash probes, counter
    /// updates, UID sampling).
    Classifier {
        /// User writes classified.
        writes: u32,
    },
    /// One victim selection.
    VictimSelect,
    /// Write-cache replacement work: `entries` cache entries scanned (GCaR).
    CacheScan {
        /// Entries examined.
        entries: u32,
    },
}

/// One physical operation the FTL performed.
///
/// A GC page move is one [`FlashOp::Copyback`]: the device decides how the data travels
/// (over the channel and back, on-die copyback within a plane, the NoC controller's
/// selective copy-back). A lone [`FlashOp::Read`] with a non-host origin is a read whose
/// data is not written back (read scrub, a content check).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlashOp {
    /// Read of one mapping unit.
    Read {
        /// Physical page.
        ppn: Ppn,
        /// Issuer.
        origin: Origin,
    },
    /// Program of one mapping unit whose data comes from the host interface or controller
    /// memory (a user write, a deferred write-back).
    Program {
        /// Physical page.
        ppn: Ppn,
        /// Issuer.
        origin: Origin,
    },
    /// Relocation of one mapping unit: read `src`, program its data at `dst`.
    Copyback {
        /// Source page (valid until the move).
        src: Ppn,
        /// Destination page.
        dst: Ppn,
        /// Issuer (GC or background migration).
        origin: Origin,
    },
    /// Erase of every block of a segment.
    Erase {
        /// Segment.
        seg: SegmentId,
        /// Issuer.
        origin: Origin,
    },
    /// Controller CPU work (not a flash operation; timed by a firmware-CPU resource).
    Compute {
        /// The work.
        work: Compute,
        /// Issuer.
        origin: Origin,
    },
}

impl FlashOp {
    /// Issuer of the operation.
    #[inline(always)]
    pub fn origin(&self) -> Origin {
        match *self {
            FlashOp::Read { origin, .. }
            | FlashOp::Program { origin, .. }
            | FlashOp::Copyback { origin, .. }
            | FlashOp::Erase { origin, .. }
            | FlashOp::Compute { origin, .. } => origin,
        }
    }
}

/// The FTL's operation sink: a buffer the FTL appends to while logging is on and the
/// driver drains after each host page operation. Off (the WAF-only null model), `push`
/// is one predictable branch and the operation is never constructed.
#[derive(Debug, Default)]
pub struct OpLog {
    on: bool,
    ops: Vec<FlashOp>,
}

impl OpLog {
    /// Turns logging on or off (and drops what was logged).
    pub fn set(&mut self, on: bool) {
        self.on = on;
        self.ops.clear();
    }

    /// Whether operations are being logged.
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Appends an operation when logging is on.
    #[inline(always)]
    pub fn push(&mut self, op: FlashOp) {
        if self.on {
            self.ops.push(op);
        }
    }

    /// Moves the logged operations into `out` (in issue order) and clears the log. An
    /// empty `out` is swapped in, so buffers circulate without copying.
    #[inline]
    pub fn drain_into(&mut self, out: &mut Vec<FlashOp>) {
        if out.is_empty() {
            std::mem::swap(out, &mut self.ops);
            return;
        }
        out.append(&mut self.ops);
    }

    /// Operations logged and not drained yet.
    pub fn pending(&self) -> &[FlashOp] {
        &self.ops
    }
}
