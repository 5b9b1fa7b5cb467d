//! Channel arbitration (`--channel fifo|backfill`; docs/timing.md).
//!
//! The reservation table gives each channel one next-free time by default (`fifo`): a
//! transfer reserved for the future (a write-back to a die busy for milliseconds) holds
//! the channel until then, and a transfer committed after it, for an idle die of the same
//! channel, must wait behind it although the bus is idle now. A controller's channel
//! arbiter serves whichever die is ready when the bus frees (MQSim's transaction
//! scheduling unit does). `backfill` keeps each channel's reserved transfers as busy
//! intervals and gives a transfer the first idle gap at or after the time it is ready.
//! The scheduler tells the media, at each issue, a time before which no transfer still to
//! come can start, and the intervals ending before it are dropped.

use super::FlashMedia;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Busy intervals kept per channel (1 MiB); past it the oldest are dropped (transfers then
/// cannot start before the end of the latest dropped one: counted and reported, as the
/// back-fill is then approximate), which bounds memory and search time.
pub(super) const BOOK_MAX: usize = 1 << 16;

/// One channel's reserved transfers under back-fill arbitration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct ChannelBook {
    /// Busy intervals `[start, end)`, sorted, disjoint, adjacent ones merged.
    busy: VecDeque<(u64, u64)>,
    /// No transfer starts before this (the end of the intervals dropped).
    floor: u64,
    /// Intervals dropped by the bound while still in the future of some transfer to come.
    pub(super) dropped: u64,
}

impl ChannelBook {
    /// Index of the first interval for which `before` is false (the intervals are sorted,
    /// so `before` holds for a prefix). Most searches are for times near the front (the
    /// past is pruned): a short linear scan first, then binary search.
    #[inline(always)]
    fn first_not(&self, before: impl Fn(&(u64, u64)) -> bool) -> usize {
        const SCAN: usize = 8;
        for (i, iv) in self.busy.iter().take(SCAN).enumerate() {
            if !before(iv) {
                return i;
            }
        }
        if self.busy.len() <= SCAN {
            return self.busy.len();
        }
        let (mut lo, mut hi) = (SCAN, self.busy.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if before(&self.busy[mid]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Start of the first idle gap of `len` at or after `earliest`.
    pub(super) fn slot(&self, earliest: u64, len: u64) -> u64 {
        let mut s = earliest.max(self.floor);
        // Usually the channel is booked up to before `s`: nothing to search.
        match self.busy.back() {
            None => return s,
            Some(&(_, e)) if e <= s => return s,
            _ => {}
        }
        let i = self.first_not(|&(_, e)| e <= s);
        for &(bs, be) in self.busy.range(i..) {
            if s + len <= bs {
                return s;
            }
            s = s.max(be);
        }
        s
    }

    /// Books `[s, s + len)` (a gap [`ChannelBook::slot`] returned). Every transfer of a
    /// channel has the same length, so a gap left shorter than `len` can never be used:
    /// it is booked too, which keeps the intervals few and every gap between them usable.
    pub(super) fn take(&mut self, s: u64, len: u64) {
        if len == 0 {
            return;
        }
        let e = s + len;
        // Usually after every booked interval: append (or extend the last).
        let i = match self.busy.back() {
            Some(&(bs, _)) if bs < s => self.busy.len(),
            None => 0,
            _ => self.first_not(|&(bs, _)| bs < s),
        };
        let prev = i > 0 && s.saturating_sub(self.busy[i - 1].1) < len;
        let next = i < self.busy.len() && self.busy[i].0.saturating_sub(e) < len;
        match (prev, next) {
            (true, true) => {
                self.busy[i - 1].1 = self.busy[i].1;
                self.busy.remove(i);
            }
            (true, false) => self.busy[i - 1].1 = e,
            (false, true) => self.busy[i].0 = s,
            (false, false) => self.busy.insert(i, (s, e)),
        }
        while self.busy.len() > BOOK_MAX {
            let (_, end) = self.busy.pop_front().expect("non-empty");
            self.floor = self.floor.max(end);
            self.dropped += 1;
        }
    }

    /// Drops the intervals that end at or before `t` (no transfer still to come starts
    /// before `t`).
    #[inline]
    pub(super) fn prune(&mut self, t: u64) {
        while let Some(&(_, e)) = self.busy.front() {
            if e > t {
                break;
            }
            self.busy.pop_front();
            self.floor = self.floor.max(e);
        }
    }

    /// Whether the intervals are sorted, disjoint and not before the floor (a restored
    /// checkpoint's book).
    pub(super) fn valid(&self) -> bool {
        self.busy.len() <= BOOK_MAX
            && self.busy.iter().all(|&(s, e)| s < e && s >= self.floor)
            && self
                .busy
                .iter()
                .zip(self.busy.iter().skip(1))
                .all(|(a, b)| a.1 < b.0)
    }

    /// Bytes of this book now (16 per interval kept).
    pub(super) fn bytes(&self) -> u64 {
        48 + self.busy.len() as u64 * 16
    }

    /// Every time in the book (a restored checkpoint's range check).
    pub(super) fn times(&self) -> impl Iterator<Item = u64> + '_ {
        self.busy
            .iter()
            .flat_map(|&(s, e)| [s, e])
            .chain(std::iter::once(self.floor))
    }
}

impl FlashMedia {
    /// Turns back-fill channel arbitration on or off (off: one next-free time per channel).
    pub fn set_backfill(&mut self, on: bool) {
        self.books = if on {
            vec![ChannelBook::default(); self.ch_free.len()]
        } else {
            Vec::new()
        };
    }

    /// Whether back-fill channel arbitration is on.
    pub fn backfill(&self) -> bool {
        !self.books.is_empty()
    }

    /// Back-fill: forgets the booked transfers that end at or before `t` or before every
    /// cell resource is next free. A transfer starts after its die's (plane's) next free
    /// time (a read's after its cell read, a program's before its cell program, which waits
    /// for the cell), so none still to come starts before the earliest of them; a read that
    /// suspends a program is the exception, and with suspend on only `t` counts. The scan
    /// over the cells runs every 32nd call.
    pub(super) fn forget_transfers_before(&mut self, t: u64) {
        self.prune_calls = self.prune_calls.wrapping_add(1);
        let mut h = t;
        if self.suspend.is_none() && self.prune_calls % 32 == 0 {
            let cells = self.cells.iter().map(|c| c.free).min().unwrap_or(0);
            h = h.max(cells);
        }
        for b in &mut self.books {
            b.prune(h);
        }
    }

    /// Earliest start of a transfer on channel `ch` ready at `earliest`.
    #[inline(always)]
    pub(super) fn ch_probe(&self, ch: usize, earliest: u64) -> u64 {
        if self.books.is_empty() {
            earliest.max(self.ch_free[ch])
        } else {
            self.books[ch].slot(earliest, self.costs.xfer)
        }
    }

    /// Reserves a transfer on channel `ch` ready at `earliest`; returns its start. The
    /// first-in-first-out path stays inline in the read and program paths; back-fill is a
    /// call of its own.
    #[inline(always)]
    pub(super) fn ch_reserve(&mut self, ch: usize, earliest: u64) -> u64 {
        self.ch_xfers[ch] += 1;
        let s = if self.books.is_empty() {
            let s = earliest.max(self.ch_free[ch]);
            self.ch_free[ch] = s + self.costs.xfer;
            s
        } else {
            self.ch_reserve_backfill(ch, earliest)
        };
        #[cfg(test)]
        crate::device::audit::xfer(ch, s, s + self.costs.xfer);
        s
    }

    #[inline(never)]
    fn ch_reserve_backfill(&mut self, ch: usize, earliest: u64) -> u64 {
        let x = self.costs.xfer;
        let s = self.books[ch].slot(earliest, x);
        self.books[ch].take(s, x);
        self.ch_free[ch] = self.ch_free[ch].max(s + x);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_found_and_merged() {
        let mut b = ChannelBook::default();
        b.take(100, 10);
        b.take(200, 10);
        assert_eq!(b.slot(0, 10), 0);
        assert_eq!(b.slot(95, 10), 110);
        assert_eq!(b.slot(105, 100), 210);
        assert_eq!(b.slot(110, 90), 110);
        b.take(110, 90); // fills the gap exactly: one interval
        assert_eq!(b.busy, [(100, 210)]);
        b.take(215, 10); // leaves a 5-unit gap: unusable by a 10-unit transfer, booked
        assert_eq!(b.busy, [(100, 225)]);
        b.take(240, 10);
        assert_eq!(b.busy, [(100, 225), (240, 250)]);
        assert_eq!(b.slot(150, 1), 225);
        assert!(b.valid());
    }

    #[test]
    fn the_oldest_intervals_are_dropped_past_the_limit() {
        let mut b = ChannelBook::default();
        for i in 0..(BOOK_MAX as u64 + 3) {
            b.take(i * 20, 5);
        }
        assert_eq!(b.busy.len(), BOOK_MAX);
        assert_eq!(b.dropped, 3);
        assert_eq!(b.floor, 45);
        assert_eq!(b.slot(0, 5), 45);
        assert!(b.valid());
    }
}
