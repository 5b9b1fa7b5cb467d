//! Candidates in buckets by an integer rank key (lowest first), the structure of the greedy
//! policy generalised to any key a policy computes from the segment view (e.g. SplitGC's
//! non-duplicate valid pages, DAGC's valid plus reusable pages).
//!
//! One doubly linked list per (group, key); a segment whose key changes goes to the back of
//! its new bucket, so ties go to the segment that reached that key first. Insert, remove
//! and re-key are O(1); a pick scans up from a per-group lower bound (O(1) amortized).

use super::VictimScope;
use crate::types::{SegmentId, NONE};

/// Rank-key buckets over the candidates of every group.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct KeyedBuckets {
    keys: u32,
    head: Vec<u32>,
    tail: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Current key of each candidate (NONE: not a candidate).
    key: Vec<u32>,
    /// Group of each candidate.
    group: Vec<u16>,
    /// Lower bound of the lowest non-empty key per group.
    min: Vec<u32>,
    count: Vec<u32>,
}

impl KeyedBuckets {
    /// Buckets for keys `0..=max_key` over `segments` segments in `groups` groups.
    pub(crate) fn new(segments: u32, groups: usize, max_key: u32) -> Self {
        let keys = max_key + 1;
        let groups = groups.max(1);
        KeyedBuckets {
            keys,
            head: vec![NONE; groups * keys as usize],
            tail: vec![NONE; groups * keys as usize],
            next: vec![NONE; segments as usize],
            prev: vec![NONE; segments as usize],
            key: vec![NONE; segments as usize],
            group: vec![0; segments as usize],
            min: vec![keys; groups],
            count: vec![0; groups],
        }
    }

    /// Whether `seg` is a candidate.
    #[inline]
    pub(crate) fn contains(&self, seg: SegmentId) -> bool {
        self.key[seg as usize] != NONE
    }

    /// Any candidate at all within `scope`?
    pub(crate) fn any(&self, scope: VictimScope) -> bool {
        scope.range(self.count.len()).any(|g| self.count[g] > 0)
    }

    #[inline]
    fn bucket(&self, g: usize, k: u32) -> usize {
        g * self.keys as usize + k.min(self.keys - 1) as usize
    }

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

    /// Adds candidate `seg` of group `g` with rank `key` (at the back of its bucket).
    pub(crate) fn insert(&mut self, seg: SegmentId, g: usize, key: u32) {
        debug_assert!(!self.contains(seg));
        self.key[seg as usize] = key;
        self.group[seg as usize] = g as u16;
        let b = self.bucket(g, key);
        self.push(b, seg);
        self.count[g] += 1;
        if key < self.min[g] {
            self.min[g] = key;
        }
    }

    /// Removes candidate `seg`.
    pub(crate) fn remove(&mut self, seg: SegmentId) {
        let k = self.key[seg as usize];
        debug_assert_ne!(k, NONE);
        let g = self.group[seg as usize] as usize;
        let b = self.bucket(g, k);
        self.unlink(b, seg);
        self.key[seg as usize] = NONE;
        self.count[g] -= 1;
    }

    /// Sets candidate `seg`'s key; a changed key moves it to the back of its new bucket.
    #[inline]
    pub(crate) fn rekey(&mut self, seg: SegmentId, key: u32) {
        let k = self.key[seg as usize];
        if k == key || k == NONE {
            return;
        }
        let g = self.group[seg as usize] as usize;
        let b = self.bucket(g, k);
        self.unlink(b, seg);
        self.key[seg as usize] = key;
        let b = self.bucket(g, key);
        self.push(b, seg);
        if key < self.min[g] {
            self.min[g] = key;
        }
    }

    fn group_min(&mut self, g: usize) -> Option<u32> {
        if self.count[g] == 0 {
            return None;
        }
        let mut k = self.min[g];
        while self.head[self.bucket(g, k)] == NONE {
            k += 1;
        }
        self.min[g] = k;
        Some(k)
    }

    /// Removes and returns the candidate of lowest key within `scope` (ties: the earliest
    /// arrival in the bucket; across groups, the lower group index, as greedy).
    pub(crate) fn pop_min(&mut self, scope: VictimScope) -> Option<SegmentId> {
        let mut best: Option<(u32, usize)> = None;
        for g in scope.range(self.count.len()) {
            if let Some(k) = self.group_min(g) {
                if best.is_none_or(|(bk, _)| k < bk) {
                    best = Some((k, g));
                }
            }
        }
        let (k, g) = best?;
        let s = self.head[self.bucket(g, k)];
        self.remove(s);
        Some(s)
    }

    /// Checks restored buckets against the restored device before anything runs on them
    /// (every index the hot path follows, no cycles, each candidate in the bucket of its
    /// current key `key_of(seg)`, counts and minima). `segments`: the per-segment tables'
    /// length the configuration gives; `max_key`: the largest key. Returns the candidates
    /// as `(group, segment)` pairs for [`crate::segment::RestoredDevice::check_candidates`].
    pub(crate) fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
        segments: usize,
        max_key: u32,
        key_of: &dyn Fn(SegmentId) -> u32,
    ) -> Result<Vec<(usize, SegmentId)>, String> {
        let groups = self.count.len();
        let keys = self.keys as usize;
        if self.keys != max_key + 1
            || groups != dev.streams.max(1)
            || self.min.len() != groups
            || self.head.len() != groups * keys
            || self.tail.len() != groups * keys
            || [
                self.next.len(),
                self.prev.len(),
                self.key.len(),
                self.group.len(),
            ]
            .iter()
            .any(|&l| l != segments)
            || (segments > 0 && segments != dev.view.len())
        {
            return Err(format!(
                "key buckets: {groups} groups, {} keys, {} segments for {} streams, {} keys, \
                 {segments} segments",
                self.keys,
                self.next.len(),
                dev.streams,
                max_key + 1
            ));
        }
        let mut seen = vec![false; segments];
        let mut cands = Vec::new();
        for g in 0..groups {
            let (mut in_group, mut lowest) = (0u32, None);
            for k in 0..keys {
                let b = g * keys + k;
                let (mut s, mut prev) = (self.head[b], NONE);
                while s != NONE {
                    let i = s as usize;
                    if i >= segments || std::mem::replace(&mut seen[i], true) {
                        return Err(format!("bucket ({g}, {k}): segment {s} or a cycle"));
                    }
                    let key = self.key[i];
                    if self.prev[i] != prev
                        || key == NONE
                        || self.group[i] as usize != g
                        || self.bucket(g, key) != b
                        || key != key_of(s)
                    {
                        return Err(format!("bucket ({g}, {k}): segment {s} misplaced"));
                    }
                    lowest.get_or_insert(k);
                    cands.push((g, s));
                    in_group += 1;
                    prev = s;
                    s = self.next[i];
                }
                if self.tail[b] != prev {
                    return Err(format!("bucket ({g}, {k}): tail"));
                }
            }
            if self.count[g] != in_group || self.min[g] as usize > lowest.unwrap_or(keys) {
                return Err(format!("group {g}: count or minimum"));
            }
        }
        if let Some(s) = (0..segments).find(|&s| self.key[s] != NONE && !seen[s]) {
            return Err(format!("segment {s} has a key but is in no bucket"));
        }
        Ok(cands)
    }

    /// Bytes of the structure.
    pub(crate) fn memory_bytes(&self) -> u64 {
        ((self.head.len() + self.tail.len() + self.next.len() + self.prev.len() + self.key.len())
            * 4
            + self.group.len() * 2) as u64
    }
}
