//! The volume / op / time-window filter shared by replay and statistics, and the fast
//! hash map keyed by (volume, page) that `--remap compact` uses.

use crate::error::TraceError;
use crate::format::VolumeKind;
use crate::options::{Ops, TimeWindow, TraceOptions};
use crate::record::{Record, RecordSource};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast hasher for page keys (multiply-xorshift; keys are not adversarial).
#[derive(Default, Clone, Copy)]
pub(crate) struct PageHasher(u64);

impl Hasher for PageHasher {
    #[inline]
    fn finish(&self) -> u64 {
        let x = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        x ^ (x >> 29)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(29) ^ i).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
}

pub(crate) type PageMap<V> = HashMap<(u64, u64), V, BuildHasherDefault<PageHasher>>;

/// Volume / op / time-window filter, shared by replay and statistics.
pub(crate) struct Filter {
    /// The key of the `--volume` kept, if any.
    pub volume: Option<u64>,
    /// The `--volume` value as given.
    volume_arg: Option<String>,
    /// Whether a record of the kept volume was seen.
    volume_seen: bool,
    /// Other volumes seen before one of the kept volume (at most [`LISTED`]), for the
    /// message when the kept volume is absent.
    others: Vec<u64>,
    ops: Ops,
    window: Option<TimeWindow>,
    /// Time of the first record in the file (any volume, any op).
    pub first_time: Option<u64>,
}

impl Filter {
    pub fn new(opts: &TraceOptions, src: &dyn RecordSource) -> Result<Filter, TraceError> {
        let volume = match &opts.volume {
            None => None,
            Some(v) => {
                let kind = src.volume_kind();
                if kind == VolumeKind::None {
                    return Err(TraceError::Option {
                        option: "--volume",
                        message: format!("format {} has no volume field", src.format().name()),
                    });
                }
                Some(kind.key_of(v).map_err(|m| TraceError::Option {
                    option: "--volume",
                    message: m,
                })?)
            }
        };
        Ok(Filter {
            volume,
            volume_arg: opts.volume.clone(),
            volume_seen: false,
            others: Vec::new(),
            ops: opts.ops,
            window: opts.time_window,
            first_time: None,
        })
    }

    /// The state reading changes: the first record's time, and what the message for an
    /// absent `--volume` lists (saved for a resumed replay).
    pub fn state(&self) -> (Option<u64>, bool, Vec<u64>) {
        (self.first_time, self.volume_seen, self.others.clone())
    }

    /// Restores what [`Self::state`] returned.
    pub fn set_state(&mut self, (first_time, seen, others): (Option<u64>, bool, Vec<u64>)) {
        self.first_time = first_time;
        self.volume_seen = seen;
        self.others = others;
    }

    /// Relative time of `r` if it passes the filter.
    #[inline]
    pub fn keep(&mut self, r: &Record) -> Option<u64> {
        let first = *self.first_time.get_or_insert(r.rec.time_ns);
        let rel = r.rec.time_ns.saturating_sub(first);
        if let Some(v) = self.volume {
            if r.rec.volume != v {
                if !self.volume_seen
                    && self.others.len() < LISTED
                    && !self.others.contains(&r.rec.volume)
                {
                    self.others.push(r.rec.volume);
                }
                return None;
            }
            self.volume_seen = true;
        }
        if !self.ops.keeps(r.rec.op) {
            return None;
        }
        if let Some(w) = self.window {
            if rel < w.start_ns || rel >= w.end_ns {
                return None;
            }
        }
        Some(rel)
    }

    /// Why nothing passed, after reading `src` to its end: what the file held, the hint
    /// for blkparse traces without the selected events, and the volumes there are when the
    /// `--volume` asked for is absent.
    pub fn empty_message(&self, src: &dyn RecordSource) -> String {
        let d = src.diagnostics();
        let mut message = if d.requests == 0 {
            format!("the trace holds no requests ({} lines read", d.lines)
        } else {
            format!(
                "no request passes the filters ({} requests read",
                d.requests
            )
        };
        if d.ignored_lines > 0 {
            message.push_str(&format!(", {} lines are not requests", d.ignored_lines));
        }
        if d.zero_length > 0 {
            message.push_str(&format!(", {} zero-length requests skipped", d.zero_length));
        }
        if d.flushes > 0 {
            message.push_str(&format!(", {} flushes", d.flushes));
        }
        if d.bad_lines > 0 {
            message.push_str(&format!(", {} malformed lines skipped", d.bad_lines));
        }
        message.push(')');
        if let (crate::format::Format::Blkparse(e), 0) = (src.format(), d.requests) {
            if d.unselected_actions != 0 {
                message.push_str(&format!(
                    "; only blkparse `{}` events are replayed, and this file's requests are in {} events: pass --blkparse-events {}",
                    e.letters(),
                    crate::format::blk_letters(d.unselected_actions),
                    // D (issued) is blkparse's usual choice, then Q (queued), then C.
                    [b'D', b'Q', b'C']
                        .into_iter()
                        .find(|&c| d.unselected_actions & (1 << (c - b'A')) != 0)
                        .map_or_else(
                            || crate::format::blk_letters(d.unselected_actions & d.unselected_actions.wrapping_neg()),
                            |c| (c as char).to_string()
                        )
                ));
            } else {
                message.push_str(&format!(
                    "; only blkparse `{}` events are replayed and the file holds no other events with data: pass --blkparse-events with the actions it holds (e.g. Q, D or C)",
                    e.letters()
                ));
            }
        }
        if let (Some(v), false, true) = (&self.volume_arg, self.volume_seen, d.requests > 0) {
            let names: Vec<String> = self.others.iter().map(|&k| src.volume_name(k)).collect();
            message.push_str(&format!(
                "; the trace has no volume `{v}`; its volumes: {}{} (all of them with sizes: flashgc trace volumes {})",
                names.join(", "),
                if self.others.len() >= LISTED { ", ..." } else { "" },
                src.file()
            ));
        }
        message
    }
}

/// Volumes named at most in the message for an absent `--volume`.
const LISTED: usize = 12;
