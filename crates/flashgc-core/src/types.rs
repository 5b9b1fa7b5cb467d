//! Basic identifiers, named in the field's words.

/// Logical page number (one mapping unit, `lpn_size` bytes, 4 KiB by default).
pub type Lpn = u32;
/// Physical page number: `segment * pages_per_segment + offset`.
pub type Ppn = u32;
/// Index of a segment (the GC unit: one block or a superblock).
pub type SegmentId = u32;
/// Index of an open write stream; segments sealed by a stream form that stream's group.
pub type StreamId = u16;

/// Sentinel for "no page" / "no segment".
pub const NONE: u32 = u32::MAX;

/// Whether a count is zero (serde's `skip_serializing_if` for counts left out when none
/// occurred).
pub(crate) fn is_zero(n: &u64) -> bool {
    *n == 0
}
