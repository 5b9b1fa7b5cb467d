//! MiDAS's hot filter (papers/midas.txt §4.2, §5.1) for schemes that use it outside MiDAS's
//! own bookkeeping (`mida:hot=filter`, the MiDA phase of MiDAS's simulator).
//!
//! A 2-bit counter per LPN: a user rewrite whose update interval is below the threshold
//! time increments it (saturating at 3), a longer one resets it; the write is hot when the
//! counter reaches `hits` (3: "updated three times within the threshold time"). The
//! threshold starts at `initial` user writes (the simulator's one-capacity window) and then
//! follows the mean age, from sealing to reclaim, of the last `window` HOT victims (the
//! simulator's `seg_age` of group-0 victims). MiDAS itself keeps the same rule inline (it
//! shares the last-write times with its UID); `tests/midas.rs` checks that MiDAS without
//! group configuration and `mida:hot=filter` make the same decisions.
//!
//! Memory: 4 B last-write time (wrapping 32-bit user-write clock) + 2 bits per LPN.

use std::collections::VecDeque;

const NEVER: u32 = u32::MAX;

/// The hot filter's state.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct HotFilter {
    #[serde(with = "crate::checkpoint::raw")]
    ts: Vec<u32>,
    #[serde(with = "crate::checkpoint::raw")]
    ctr: Vec<u8>,
    hits: u8,
    window: usize,
    threshold: f64,
    #[serde(with = "crate::checkpoint::cap_deque")]
    ages: VecDeque<u64>,
    age_sum: u64,
}

impl HotFilter {
    /// A filter over `logical_pages` LPNs, hot after `hits` (1..=3) short intervals, with
    /// an initial threshold of `initial` user writes and a running mean over `window` HOT
    /// victims.
    pub fn new(logical_pages: u64, hits: u8, initial: f64, window: usize) -> HotFilter {
        HotFilter {
            ts: vec![NEVER; logical_pages as usize],
            ctr: vec![0; (logical_pages as usize).div_ceil(4)],
            hits: hits.clamp(1, 3),
            window: window.max(1),
            threshold: initial,
            ages: VecDeque::new(),
            age_sum: 0,
        }
    }

    /// A user write of `lpn` at clock `now`: updates the counter and says whether it is hot.
    #[inline]
    pub fn on_write(&mut self, lpn: u32, now: u64) -> bool {
        let l = lpn as usize;
        let now32 = (now as u32).min(NEVER - 1);
        let last = self.ts[l];
        let short = last != NEVER && (now32.wrapping_sub(last) as f64) < self.threshold;
        self.ts[l] = now32;
        let sh = (l & 3) * 2;
        let b = &mut self.ctr[l >> 2];
        let c = if short {
            ((*b >> sh) & 3).saturating_add(1).min(3)
        } else {
            0
        };
        *b = (*b & !(3 << sh)) | (c << sh);
        c >= self.hits
    }

    /// A TRIM of `lpn`.
    pub fn on_trim(&mut self, lpn: u32) {
        let l = lpn as usize;
        self.ts[l] = NEVER;
        self.ctr[l >> 2] &= !(3 << ((l & 3) * 2));
    }

    /// A HOT victim reclaimed `age` user writes after it was sealed.
    pub fn on_hot_victim(&mut self, age: u64) {
        self.ages.push_back(age);
        self.age_sum += age;
        if self.ages.len() > self.window {
            self.age_sum -= self.ages.pop_front().unwrap_or(0);
        }
        self.threshold = self.age_sum as f64 / self.ages.len() as f64;
    }

    /// Whether `other` has this filter's tables and fixed parameters (a checkpoint check).
    pub fn same_shape(&self, other: &HotFilter) -> bool {
        (self.ts.len(), self.ctr.len(), self.hits, self.window)
            == (other.ts.len(), other.ctr.len(), other.hits, other.window)
    }

    /// Checks restored state at user-write clock `now`: last-write times not after it, the
    /// victim-age window within its size and summing to its running total, a threshold
    /// that is a number.
    pub fn check_restored(&self, now: u64) -> Result<(), String> {
        let now32 = (now as u32).min(NEVER - 1);
        if now < NEVER as u64 {
            if let Some(l) = self.ts.iter().position(|&t| t != NEVER && t > now32) {
                return Err(format!("hot filter: LPN {l} written after the clock {now}"));
            }
        }
        if self.ages.len() > self.window
            || self.ages.iter().try_fold(0u64, |a, &x| a.checked_add(x)) != Some(self.age_sum)
        {
            return Err("hot filter: victim-age window inconsistent".into());
        }
        if !(self.threshold.is_finite() && self.threshold >= 0.0) {
            return Err(format!("hot filter: threshold {}", self.threshold));
        }
        Ok(())
    }

    /// The threshold time, user writes.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Bytes of the per-LPN tables.
    pub fn memory_bytes(&self) -> u64 {
        (self.ts.len() * 4 + self.ctr.len() + self.ages.capacity() * 8) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_short_intervals_in_a_row_make_a_page_hot() {
        let mut f = HotFilter::new(16, 3, 10.0, 2);
        // Writes of LPN 5 at 1, 5, 9, 13: intervals 4, 4, 4 (< 10): hot on the 4th write.
        let hot: Vec<bool> = [1, 5, 9, 13].iter().map(|&t| f.on_write(5, t)).collect();
        assert_eq!(hot, vec![false, false, false, true]);
        // An interval of 10 (not below the threshold) resets the counter.
        assert!(!f.on_write(5, 23));
        assert!(!f.on_write(5, 24));
        // Threshold = mean age of the last 2 HOT victims.
        f.on_hot_victim(2);
        f.on_hot_victim(4);
        f.on_hot_victim(6);
        assert_eq!(f.threshold(), 5.0);
        f.on_trim(5);
        assert!(!f.on_write(5, 25));
    }
}
