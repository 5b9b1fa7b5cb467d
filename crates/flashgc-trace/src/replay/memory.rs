//! What a replay holds in memory beyond the simulator's tables, for the run's estimate
//! (`flashgc run` prints it, checks it against `--max-memory` and lists it in the result's
//! `memory` section; docs/traces.md, "Memory").
//!
//! The one structure that grows with the trace is `--remap compact`'s table of
//! (volume, page) -> compact id: a hash table of 24 B slots and 1 control byte each, whose
//! bucket count is the next power of two above 8/7 of its entries. Growing, it doubles,
//! and while it moves its entries both tables are alive: the peak is 1.5 times the final
//! table. [`TraceWorkload::reserve_distinct_pages`] sizes it up front instead when the
//! number of distinct pages is known (`--capacity auto` counted them), so it never grows.

use super::TraceWorkload;
use crate::options::Remap;
use crate::record::Record;

/// Bytes of one slot of the compact table: the (volume, page) key and the u32 id, padded
/// to the key's alignment.
const SLOT: u64 = std::mem::size_of::<((u64, u64), u32)>() as u64;

/// Bytes of the record batches a text or blkparse trace's parser thread has in flight
/// (`pipe.rs`: 4096 records, at most 4 queued plus one filled and one being replayed),
/// and of its read buffer; measured 2 MiB with and without `--no-pipeline`.
const PIPELINE: u64 = 6 * 4096 * std::mem::size_of::<Record>() as u64 + (1 << 20);

/// Buckets of a hash table (hashbrown's, behind `std::collections::HashMap`) that holds
/// `entries` without growing.
fn buckets(entries: u64) -> u64 {
    if entries < 4 {
        4
    } else if entries < 8 {
        8
    } else {
        (entries.saturating_mul(8) / 7).next_power_of_two()
    }
}

/// Bytes of the allocation of a table of `buckets` buckets (slots, control bytes and the
/// 16 trailing control bytes of a SIMD group).
fn table_bytes(buckets: u64) -> u64 {
    buckets * (SLOT + 1) + 16
}

impl TraceWorkload {
    /// Sizes `--remap compact`'s table for `pages` distinct pages up front (no effect with
    /// another remap): a table sized for the trace's distinct pages never grows, so the
    /// replay's peak has one table, not the old and the new one of its last doubling. The
    /// ids, and so the results, do not depend on it. `--capacity auto` passes the device's
    /// logical pages, the distinct pages rounded up to whole blocks.
    pub fn reserve_distinct_pages(&mut self, pages: u64) {
        if self.remap != Remap::Compact {
            return;
        }
        // Ids are u32 and below the device's logical pages: no table holds more.
        let pages = pages.min(self.logical).min(u32::MAX as u64);
        self.reserved = pages;
        let more = pages.saturating_sub(self.compact.len() as u64);
        self.compact.reserve(more as usize);
    }

    /// The replay's memory at its largest over the run, as named structures and bytes,
    /// known before the run starts: `--remap compact`'s table (exact when sized up front
    /// by [`Self::reserve_distinct_pages`], else an upper bound: the table grown to one
    /// entry per logical page of the device), a text trace's parser pipeline and a `.fgt`
    /// trace's mapped file.
    pub fn memory_items(&self) -> Vec<(String, u64)> {
        let mut items = Vec::new();
        if self.remap == Remap::Compact {
            let per = SLOT + 1;
            if self.reserved > 0 {
                let b = buckets(self.reserved);
                let bytes = table_bytes(b);
                items.push((
                    format!(
                        "trace remap table ({:.1} B per distinct page: {b} buckets of {per} B for {} pages)",
                        bytes as f64 / self.reserved as f64,
                        self.reserved
                    ),
                    bytes,
                ));
            } else {
                // Not known: at most one id per logical page; the peak is the last doubling
                // (the new table and the old, half its size).
                let ids = self.logical.min(u32::MAX as u64);
                let b = buckets(ids);
                let bytes = table_bytes(b) + table_bytes(b / 2);
                items.push((
                    format!(
                        "trace remap table (upper bound, {:.1} B per logical page: {b} buckets of {per} B, \
                         and half as many while it grows)",
                        bytes as f64 / ids as f64
                    ),
                    bytes,
                ));
            }
        }
        match &self.src {
            crate::source::AnySource::Piped(_) => items.push((
                "trace parser pipeline (batches of records, read buffer)".into(),
                PIPELINE,
            )),
            // Measured: a 36 MB .fgt file replayed on an 8 GiB device peaked at 60.1 MiB of
            // RSS against an estimate of 24.2 MiB that did not count it.
            crate::source::AnySource::Fgt(f) => items.push((
                ".fgt trace, mapped (file pages, resident once read: the kernel can drop them)"
                    .into(),
                f.resident_bytes(),
            )),
            _ => {}
        }
        items
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn the_bucket_count_is_the_tables() {
        // std's capacity() is 7/8 of the buckets (for 8 or more), so the bucket count the
        // estimate assumes is checked against the table's own.
        for n in [1u64, 5, 9, 100, 1000, 114_688, 114_689, 2_000_000] {
            let m: HashMap<(u64, u64), u32> = HashMap::with_capacity(n as usize);
            let b = buckets(n);
            let cap = if b < 8 { b - 1 } else { b / 8 * 7 };
            assert_eq!(m.capacity() as u64, cap, "{n} entries");
        }
        assert_eq!(SLOT, 24);
    }
}
