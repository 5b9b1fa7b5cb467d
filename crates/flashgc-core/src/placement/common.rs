//! Small helpers shared by the classifier-based placement schemes: seeded hash functions,
//! list parameters, a stream-count check, and a first group held at a fixed size.

use crate::error::{Error, Result};
use crate::segment::{SegState, SegmentView};
use crate::spec::Spec;
use crate::types::{SegmentId, StreamId};
use crate::victim::VictimScope;

/// SplitMix64's finalizer: a bijective 64-bit mixer with full avalanche. Seeding it with
/// different constants gives the independent hash functions the Bloom-filter schemes need.
#[inline]
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Per-function seeds: `seed(i)` for hash function `i` of a scheme seeded with `base`.
#[inline]
pub(crate) fn hash_seed(base: u64, i: u32) -> u64 {
    mix64(base ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i as u64 + 1)))
}

/// Hash `key` with function seed `seed` into `[0, m)` (multiply-shift range reduction).
#[inline]
pub(crate) fn hash_to(key: u64, seed: u64, m: u64) -> u64 {
    ((mix64(key ^ seed) as u128 * m as u128) >> 64) as u64
}

/// A list parameter `a/b/c` (commas separate parameters in a spec, so lists use `/`).
pub(crate) fn num_list(spec: &Spec, key: &str, accepts: &str) -> Result<Option<Vec<f64>>> {
    let Some(raw) = spec.raw(key) else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for part in raw.split('/') {
        let v: f64 = part.trim().parse().map_err(|_| {
            Error::config(
                spec.path(key),
                format!("`{part}` is not a number; expected {accepts}"),
            )
        })?;
        if !v.is_finite() || v < 0.0 {
            return Err(Error::config(
                spec.path(key),
                format!("{v} is negative or not finite; expected {accepts}"),
            ));
        }
        out.push(v);
    }
    Ok(Some(out))
}

/// Checks that a list is strictly increasing (thresholds and class boundaries).
pub(crate) fn check_increasing(spec: &Spec, key: &str, v: &[f64], accepts: &str) -> Result<()> {
    if v.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::config(
            spec.path(key),
            format!("values must be strictly increasing; expected {accepts}"),
        ));
    }
    Ok(())
}

/// Most streams any placement may open: each stream holds an open segment and needs one
/// free segment in reserve, so more than a quarter of the device is never sensible.
pub(crate) fn check_streams(spec: &Spec, key: &str, streams: usize, segments: u32) -> Result<()> {
    let max = (segments as usize / 4).max(1);
    if streams > max {
        return Err(Error::config(
            spec.path(key),
            format!(
                "{streams} streams cannot be kept open on a device of {segments} segments \
                 (each stream needs an open segment and a reserved free one); allowed 1..={max}"
            ),
        ));
    }
    Ok(())
}

/// The size of a scheme's first group over a run, and the victim scope that holds it at a
/// fixed number of segments: the MiDAS paper's Fig. 3(b) experiment (papers/midas.txt §2.4:
/// "we manually control the size of Group 1 while running YCSB-A for MiDA and SepBIT ...
/// the total number of segments is fixed. Thus, as Group 1 size increases, the other
/// groups will become smaller"), parameter `group1=N` of `mida` and `sepbit`.
///
/// A group's size is its sealed segments plus its open one. Held at `N`, GC takes its
/// victim from the group (by the run's victim policy) while the group holds more than `N`
/// segments, and from the other groups otherwise, so the group grows to `N` and stays
/// there. Over `N`, the group's fully valid segments count as choices too: GC then migrates
/// them to the next group, as a victim's survivors always go (the device's first fill lands
/// in the first group, and data that is never rewritten would otherwise keep it large). The
/// other groups offer only segments with some garbage (a scope of fully valid segments
/// there would copy without freeing); with none, GC chooses among every segment. The mean size at the victims is reported whether held or not (the
/// figure's red dots, "the average size of Group 1"), over the later victims of the run: from
/// the last power of two but one of their count, at least the later half and at most the
/// later three quarters, so that the first fill (all of it in the first group) is left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct GroupSize {
    /// Sealed segments of the group now.
    sealed: u32,
    /// Victims taken so far.
    samples: u64,
    /// The group's size summed over the victims.
    size_sum: u64,
    /// `(samples, size_sum)` when `samples` last reached a power of two, and at the one
    /// before: the reported mean starts at the earlier.
    marks: [(u64, u64); 2],
}

impl GroupSize {
    /// A segment was sealed (`in_group`: one of the group's).
    #[inline]
    pub(crate) fn on_seal(&mut self, in_group: bool) {
        self.sealed += in_group as u32;
    }

    /// GC took a victim (`in_group`: one of the group's).
    #[inline]
    pub(crate) fn on_victim(&mut self, in_group: bool) {
        self.samples += 1;
        self.size_sum += self.sealed as u64 + 1;
        self.sealed = self.sealed.saturating_sub(in_group as u32);
        if self.samples.is_power_of_two() {
            self.marks = [self.marks[1], (self.samples, self.size_sum)];
        }
    }

    /// The group's mean size (segments) at the later victims (see the type's comment).
    pub(crate) fn mean(&self) -> Option<f64> {
        let (n0, s0) = self.marks[0];
        (self.samples > n0).then(|| (self.size_sum - s0) as f64 / (self.samples - n0) as f64)
    }

    /// The report's entry: the size the group is held at (`null`: free) and its mean size
    /// at the victims (segments).
    pub(crate) fn report(&self, target: u32) -> serde_json::Value {
        serde_json::json!({
            "held_at_segments": (target > 0).then_some(target),
            "mean_segments": self.mean(),
            "segments_at_end": self.sealed + 1,
        })
    }

    /// Whether the count of sealed segments agrees with the restored device's segment
    /// table (a checkpoint's consistency check).
    pub(crate) fn matches(&self, view: &SegmentView, stream: StreamId) -> bool {
        let n = (0..view.len() as SegmentId)
            .filter(|&s| view.state(s) == SegState::Sealed && view.stream(s) == stream)
            .count();
        let [(n0, s0), (n1, s1)] = self.marks;
        n == self.sealed as usize
            && self.size_sum >= self.samples
            && n0 <= n1
            && n1 <= self.samples
            && s0 <= s1
            && s1 <= self.size_sum
    }

    /// Where the next victim comes from with the group (stream `group`) held at `target`
    /// segments, the other groups being streams `others.0..=others.1`; a scan of the
    /// segment table (O(segments) per victim, paid only when held).
    pub(crate) fn scope(
        &self,
        target: u32,
        view: &SegmentView,
        group: StreamId,
        others: (StreamId, StreamId),
    ) -> VictimScope {
        let pps = view.pages_per_segment();
        let (mut mine, mut theirs) = (false, false);
        for s in 0..view.len() as SegmentId {
            if view.state(s) != SegState::Sealed {
                continue;
            }
            let st = view.stream(s);
            mine |= st == group;
            theirs |= view.valid(s) < pps && (others.0..=others.1).contains(&st);
            if mine && theirs {
                break;
            }
        }
        if self.sealed + 1 > target && mine {
            VictimScope::Group(group)
        } else if theirs {
            VictimScope::Groups(others.0, others.1)
        } else {
            VictimScope::All
        }
    }
}
