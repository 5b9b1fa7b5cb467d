//! The volume / op / time-window filter shared by replay and statistics, and the fast
//! hash map keyed by (volume, page) that `--remap compact` and the statistics use.

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
    pub volume: Option<u64>,
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
            ops: opts.ops,
            window: opts.time_window,
            first_time: None,
        })
    }

    /// Relative time of `r` if it passes the filter.
    #[inline]
    pub fn keep(&mut self, r: &Record) -> Option<u64> {
        let first = *self.first_time.get_or_insert(r.rec.time_ns);
        let rel = r.rec.time_ns.saturating_sub(first);
        if let Some(v) = self.volume {
            if r.rec.volume != v {
                return None;
            }
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
}
