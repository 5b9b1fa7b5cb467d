//! The `.fgt` replay hot loop: records decoded in place from the mapping, without the
//! per-record branches of the general path (no filters, remapping, scaling or write target
//! apply; records were validated when the file was opened). Version 1 files only: a
//! version 2 file may hold flushes and flags, which the general path replays.

use super::TraceWorkload;
use crate::error::TraceError;
use crate::source::AnySource;
use flashgc_core::workload::{Op, Request};

/// Little-endian u64 at `i` (the caller guarantees `i + 8 <= b.len()`).
#[inline(always)]
fn rd8(b: &[u8], i: usize) -> u64 {
    match b.get(i..i + 8) {
        Some(x) => u64::from_le_bytes([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]),
        None => 0,
    }
}

impl TraceWorkload {
    /// The hot loop for `.fgt` replay without filters, remapping, scaling or a write
    /// target: the same result as [`Self::step`], without the per-record branches.
    pub(super) fn fill_plain_fgt(
        &mut self,
        buf: &mut Vec<Request>,
        limit: usize,
    ) -> Result<(), TraceError> {
        let Some(sh) = self.lpn_shift else {
            return Ok(());
        };
        let AnySource::Fgt(f) = &self.src else {
            return Ok(());
        };
        let want = limit.saturating_sub(buf.len());
        let (recs, rs) = f.remaining(want);
        if recs.len() < rs {
            return Ok(());
        }
        let keys = f.keys();
        let logical = self.logical;
        let shift = (self.loop_idx as u64).saturating_mul(self.period);
        let first_time = *self.filter.first_time.get_or_insert(rd8(recs, 0));
        let pass0 = self.loop_idx == 0;
        let mut bad = false;
        let mut done = 0usize;
        let mut t = 0u64;
        buf.reserve(want);
        for b in recs.chunks_exact(rs) {
            let time = rd8(b, 0);
            let offset = rd8(b, 8);
            let len = u32::from_le_bytes([b[16], b[17], b[18], b[19]]) as u64;
            let vi = u16::from_le_bytes([b[20], b[21]]) as usize;
            let op = match b[22] {
                0 => Op::Read,
                1 => Op::Write,
                _ => Op::Trim,
            };
            let lb = match offset.checked_add(len - 1) {
                Some(lb) if (lb >> sh) < logical => lb,
                _ => {
                    bad = true;
                    break;
                }
            };
            let first = offset >> sh;
            let pages = (lb >> sh) + 1 - first;
            let volume = keys.get(vi).copied().unwrap_or(0);
            if self.last_volume != Some(volume) {
                self.last_volume = Some(volume);
                if self.volumes.len() < 1000 {
                    self.volumes.insert(volume);
                }
            }
            t = time.saturating_sub(first_time);
            if pass0 {
                self.first_emit.get_or_insert(t);
            }
            if op == Op::Write {
                self.written_this_pass += pages;
            }
            let c = if rs == crate::fgt::RECORD_BYTES_CONTENT {
                rd8(b, 24)
            } else {
                0
            };
            let content = if pages == 1 {
                c
            } else {
                self.hash_dropped += (c != 0) as u64;
                0
            };
            buf.push(Request {
                time_ns: t.saturating_add(shift),
                op,
                lpn: first,
                pages: pages as u32,
                content,
                fua: false,
            });
            done += 1;
        }
        if pass0 && done > 0 {
            self.last_emit = t;
            self.emitted_pass0 += done as u64;
        }
        if let AnySource::Fgt(f) = &mut self.src {
            f.advance(done);
            if bad {
                if let Some(r) = f.next_fast() {
                    return Err(self.cap_err(&r, r.rec.offset >> sh, u64::MAX));
                }
            }
        }
        Ok(())
    }
}
