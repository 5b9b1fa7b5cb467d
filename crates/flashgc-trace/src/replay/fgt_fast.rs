//! The `.fgt` replay hot loop: records decoded in place from the mapping, without the
//! per-record branches of the general path (no filters, remapping, scaling or write target
//! apply; records were validated when the file was opened). One loop per `.fgt` version,
//! so that version 1's loop keeps no test of version 2's flush records and flags.

use super::{note_volume, TraceWorkload};
use crate::error::TraceError;
use crate::fgt::{RECORD_FUA, RECORD_PREFLUSH};
use crate::options::Flushes;
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
    /// target: the same result as [`Self::step`], without the per-record branches. `V2`:
    /// the file is version 2, whose flush records, preflush and FUA flags it replays as
    /// [`Self::step`] does (or drops, under `--trace-flushes ignore`). Stops before a
    /// record whose requests would take `buf` past `limit` (a preflush request is two),
    /// which the general path then takes. Returns the trace requests handed out (records
    /// other than flushes).
    pub(super) fn fill_plain_fgt<const V2: bool>(
        &mut self,
        buf: &mut Vec<Request>,
        limit: usize,
    ) -> Result<u64, TraceError> {
        let Some(sh) = self.lpn_shift else {
            return Ok(0);
        };
        let AnySource::Fgt(f) = &self.src else {
            return Ok(0);
        };
        let want = limit.saturating_sub(buf.len());
        let (recs, rs) = f.remaining(want);
        if recs.len() < rs {
            return Ok(0);
        }
        let keys = f.keys();
        let logical = self.logical;
        let shift = (self.loop_idx as u64).saturating_mul(self.period);
        let first_time = *self.filter.first_time.get_or_insert(rd8(recs, 0));
        let pass0 = self.loop_idx == 0;
        let replay_flushes = self.flushes == Flushes::Replay;
        let mut bad = false;
        // Records consumed, and of them those handed out (not dropped flushes) and the
        // trace requests (not flushes).
        let (mut done, mut emitted, mut requests) = (0usize, 0u64, 0u64);
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
                // (Op code 3 only in version 2: the file was checked when opened.)
                3 if V2 => Op::Flush,
                _ => Op::Trim,
            };
            let (flush, flags) = match V2 {
                true => (op == Op::Flush, b[23]),
                false => (false, 0),
            };
            if V2 {
                if buf.len() >= limit {
                    // Filled by flushes and preflush requests (two each).
                    break;
                }
                if flush && !replay_flushes {
                    done += 1;
                    continue;
                }
                let preflush = flags & RECORD_PREFLUSH != 0 && replay_flushes;
                if preflush && buf.len() + 2 > limit {
                    break;
                }
                if flush || preflush {
                    let volume = keys.get(vi).copied().unwrap_or(0);
                    note_volume(&mut self.last_volume, &mut self.volumes, volume);
                    t = time.saturating_sub(first_time);
                    if pass0 {
                        self.first_emit.get_or_insert(t);
                    }
                    self.flush_seen = true;
                    buf.push(Request {
                        time_ns: t.saturating_add(shift),
                        op: Op::Flush,
                        lpn: 0,
                        pages: 0,
                        content: 0,
                        fua: false,
                    });
                    if flush {
                        done += 1;
                        emitted += 1;
                        continue;
                    }
                }
            }
            let lb = match offset.checked_add(len - 1) {
                Some(lb) if (lb >> sh) < logical => lb,
                _ => {
                    if V2 && flags & RECORD_PREFLUSH != 0 && replay_flushes {
                        // The general path reports it, with its flush again.
                        buf.pop();
                    }
                    bad = true;
                    break;
                }
            };
            let first = offset >> sh;
            let pages = (lb >> sh) + 1 - first;
            let volume = keys.get(vi).copied().unwrap_or(0);
            note_volume(&mut self.last_volume, &mut self.volumes, volume);
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
            let fua = V2 && flags & RECORD_FUA != 0 && op == Op::Write && replay_flushes;
            self.fua_out += fua as u64;
            buf.push(Request {
                time_ns: t.saturating_add(shift),
                op,
                lpn: first,
                pages: pages as u32,
                content,
                fua,
            });
            done += 1;
            emitted += 1;
            requests += 1;
        }
        if pass0 && emitted > 0 {
            self.last_emit = t;
            self.emitted_pass0 += requests;
        }
        if let AnySource::Fgt(f) = &mut self.src {
            f.advance(done);
            if bad {
                if let Some(r) = f.next_fast() {
                    // u64::MAX: the request's end is beyond 2^64 (`cap_err`).
                    let end = r
                        .rec
                        .offset
                        .checked_add(r.rec.len.max(1) - 1)
                        .map_or(u64::MAX, |last| (last >> sh) + 1);
                    return Err(self.cap_err(&r, r.rec.offset >> sh, end));
                }
            }
        }
        Ok(requests)
    }
}
