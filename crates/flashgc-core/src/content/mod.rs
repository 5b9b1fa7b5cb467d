//! Page content: what a written page holds, and the fingerprint store of the FTL's content
//! mode (deduplication-aware GC: papers/splitgc.txt and its baselines CAGC and DAGC).
//!
//! This module sits below both the FTL and the GC-action policies (like [`crate::segment`]):
//! the FTL owns a [`ContentStore`] and mutates it; policies read it through a
//! [`ContentView`] and answer with decisions the FTL carries out.
//!
//! * Content identity: a 64-bit value per written page, never 0. FIU traces carry an MD5 per
//!   page (the reader keeps its first 8 bytes); pages without one get synthetic content from
//!   [`ContentGen`] (a share of duplicates drawn from a popular pool).
//! * The fingerprint store ([`ContentStore`]): content *groups*. A group is a VPN of the
//!   two-level mapping (its list of physical copies is the SMT entry) and, while it is
//!   *indexed*, the fingerprint table's entry for its content (`fingerprint -> VPN`). The
//!   index may be bounded ([`ContentNeeds::index_capacity`]) with LRU or FIFO replacement.
//! * [`Bloom`]: SplitGC's Bloom prefilter (its read scrub's fingerprint lookups).

mod bloom;
pub mod estimate;
mod gen;
mod store;

pub use bloom::{ap, bkdr, djb, Bloom};
pub use estimate::Grouped;
pub use gen::{mix64, ContentGen, ContentParams};
pub use store::{ContentNeeds, ContentStore, ContentView, GroupId, Replacement, VFLAG};

/// Content of page `i` (0-based) of a multi-page request whose first page carries `c`
/// (traces with one content per request): page 0 keeps `c`, the others derive from it.
#[inline]
pub fn page_content(c: u64, i: u64) -> u64 {
    if c == 0 || i == 0 {
        c
    } else {
        mix64(c ^ i).max(1)
    }
}
