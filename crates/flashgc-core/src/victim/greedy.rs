//! Greedy: reclaim the candidate with the fewest valid pages.
//!
//! Candidates sit in buckets by valid count (one doubly linked list per group and count),
//! so an invalidation moves a segment one bucket down in O(1) and a pick scans up from a
//! per-group minimum: O(1) amortized, never a scan over all segments. Ties are broken by
//! arrival in the bucket: the segment that reached that valid count first goes first.

use super::{VictimInit, VictimPolicy, VictimScope};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{SegmentId, NONE};

/// Greedy victim selection with valid-count buckets.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Greedy {
    buckets: u32,
    head: Vec<u32>,
    tail: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    min: Vec<u32>,
    count: Vec<u32>,
    /// `min_garbage` filter: candidates with more valid pages are never picked.
    max_valid: u32,
}

pub(super) fn build(spec: &Spec, init: VictimInit) -> Result<Box<dyn VictimPolicy>> {
    let mut g = Greedy::new(init);
    g.max_valid = super::max_valid(spec, &init)?;
    Ok(Box::new(g))
}

impl Greedy {
    /// A greedy policy for the given device.
    pub fn new(init: VictimInit) -> Greedy {
        let buckets = init.pages_per_segment + 1;
        let groups = init.groups.max(1);
        let nb = groups * buckets as usize;
        Greedy {
            buckets,
            head: vec![NONE; nb],
            tail: vec![NONE; nb],
            next: vec![NONE; init.segments as usize],
            prev: vec![NONE; init.segments as usize],
            min: vec![buckets; groups],
            count: vec![0; groups],
            max_valid: init.pages_per_segment,
        }
    }

    #[inline]
    fn push(&mut self, b: usize, s: SegmentId) {
        let t = self.tail[b];
        self.prev[s as usize] = t;
        self.next[s as usize] = NONE;
        if t == NONE {
            self.head[b] = s;
        } else {
            self.next[t as usize] = s;
        }
        self.tail[b] = s;
    }

    #[inline]
    fn unlink(&mut self, b: usize, s: SegmentId) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NONE {
            self.head[b] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail[b] = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    /// Lowest non-empty bucket of group `g`, advancing the cached minimum.
    fn group_min(&mut self, g: usize) -> Option<u32> {
        if self.count[g] == 0 {
            return None;
        }
        let base = g * self.buckets as usize;
        let mut v = self.min[g];
        while self.head[base + v as usize] == NONE {
            v += 1;
        }
        self.min[g] = v;
        Some(v)
    }
}

impl VictimPolicy for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }
    fn max_valid(&self) -> u32 {
        self.max_valid
    }
    crate::checkpoint::serde_state!(same: [buckets, max_valid], len: [head, tail, next, prev, min, count]);

    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        let view = &dev.view;
        let n = view.len();
        let groups = self.count.len();
        if groups != dev.streams.max(1) || self.next.len() != n {
            return Err(format!("{groups} groups for {} streams", dev.streams));
        }
        let nb = self.buckets as usize;
        let mut cands = Vec::new();
        for g in 0..groups {
            let mut in_group = 0u64;
            let mut lowest = None;
            for v in 0..nb {
                let b = g * nb + v;
                let (mut s, mut prev) = (self.head[b], NONE);
                while s != NONE {
                    if s as usize >= n || cands.len() > n {
                        return Err(format!("bucket ({g}, {v}): segment {s} or a cycle"));
                    }
                    if self.prev[s as usize] != prev || view.valid(s) as usize != v {
                        return Err(format!("bucket ({g}, {v}): segment {s} misplaced"));
                    }
                    lowest.get_or_insert(v);
                    cands.push((g, s));
                    in_group += 1;
                    prev = s;
                    s = self.next[s as usize];
                }
                if self.tail[b] != prev {
                    return Err(format!("bucket ({g}, {v}): tail"));
                }
            }
            if self.count[g] as u64 != in_group || self.min[g] as usize > lowest.unwrap_or(nb) {
                return Err(format!("group {g}: count or minimum"));
            }
        }
        dev.check_candidates(cands.into_iter())
    }

    fn on_seal(&mut self, seg: SegmentId, view: &SegmentView) {
        let g = view.stream(seg) as usize;
        let v = view.valid(seg);
        self.push(g * self.buckets as usize + v as usize, seg);
        self.count[g] += 1;
        if v < self.min[g] {
            self.min[g] = v;
        }
    }

    #[inline]
    fn on_invalidate(&mut self, seg: SegmentId, view: &SegmentView) {
        let g = view.stream(seg) as usize;
        let v = view.valid(seg);
        let base = g * self.buckets as usize;
        self.unlink(base + v as usize + 1, seg);
        self.push(base + v as usize, seg);
        if v < self.min[g] {
            self.min[g] = v;
        }
    }

    fn on_revalidate(&mut self, seg: SegmentId, view: &SegmentView) {
        let g = view.stream(seg) as usize;
        let v = view.valid(seg) as usize;
        let base = g * self.buckets as usize;
        self.unlink(base + v - 1, seg);
        self.push(base + v, seg);
    }

    fn select(&mut self, _view: &SegmentView, scope: VictimScope) -> Option<SegmentId> {
        // Lowest valid count within the scope; ties go to the lower group index.
        let mut best: Option<(u32, usize)> = None;
        for g in scope.range(self.count.len()) {
            if let Some(v) = self.group_min(g) {
                if best.is_none_or(|(bv, _)| v < bv) {
                    best = Some((v, g));
                }
            }
        }
        let (v, g) = best?;
        if v > self.max_valid {
            // The fewest valid pages in scope already fail the filter.
            return None;
        }
        let b = g * self.buckets as usize + self.min[g] as usize;
        let s = self.head[b];
        self.unlink(b, s);
        // Not a candidate any more (`remove` tells candidates by their links).
        self.prev[s as usize] = NONE;
        self.count[g] -= 1;
        Some(s)
    }

    fn remove(&mut self, seg: SegmentId, view: &SegmentView) -> bool {
        let g = view.stream(seg) as usize;
        let b = g * self.buckets as usize + view.valid(seg) as usize;
        // A candidate is linked in its bucket: the bucket's head, or someone's successor.
        let linked = self.head.get(b) == Some(&seg) || self.prev[seg as usize] != NONE;
        if g >= self.count.len() || !linked {
            return false;
        }
        self.unlink(b, seg);
        self.prev[seg as usize] = NONE;
        self.count[g] -= 1;
        true
    }
    fn memory_bytes(&self) -> u64 {
        ((self.head.len() + self.tail.len() + self.next.len() + self.prev.len()) * 4) as u64
    }
}
