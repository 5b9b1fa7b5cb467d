//! Runs of consecutive pages that share a state, keyed by (volume, first page): what the
//! trace statistics and the `--capacity auto` footprint keep instead of one hash entry
//! per page. A request updates the runs it overlaps, so time and memory grow with the
//! number of runs (at most about two per request, and at most one per distinct page),
//! never with the number of pages a request spans (a 4 GiB request of 1-byte pages is
//! one run, not 2^32 entries).

use std::collections::BTreeMap;

/// The state of one run of pages.
pub(crate) trait RunState: Copy + PartialEq {
    /// The state of the page `pages` pages further into the run (states that number
    /// their pages, such as a write index, advance; flags stay).
    fn advance(self, pages: u64) -> Self;
}

impl RunState for () {
    fn advance(self, _: u64) {}
}

impl RunState for u8 {
    fn advance(self, _: u64) -> u8 {
        self
    }
}

/// Disjoint runs `[start, end)` of pages per volume, adjacent runs merged when the second
/// continues the first (`a.advance(len) == b`).
pub(crate) struct PageRuns<S: RunState> {
    /// (volume, start) -> (end, state of the page `start`).
    map: BTreeMap<(u64, u64), (u64, S)>,
    /// Scratch lists reused across updates (runs removed, runs to insert).
    old: Vec<(u64, u64, S)>,
    new: Vec<(u64, u64, S)>,
}

impl<S: RunState> Default for PageRuns<S> {
    fn default() -> Self {
        PageRuns {
            map: BTreeMap::new(),
            old: Vec::new(),
            new: Vec::new(),
        }
    }
}

impl<S: RunState> PageRuns<S> {
    /// Sets the state of pages `[first, last)` of volume `vol`: `f(start, end, old)` gives
    /// the new state of each maximal piece `[start, end)` whose pages had one run's state
    /// (`old`, at `start`) or none (`None`), called once per piece, in page order.
    pub fn update(
        &mut self,
        vol: u64,
        first: u64,
        last: u64,
        mut f: impl FnMut(u64, u64, Option<S>) -> S,
    ) {
        if first >= last {
            return;
        }
        let mut old = std::mem::take(&mut self.old);
        let mut new = std::mem::take(&mut self.new);
        old.clear();
        new.clear();
        // The runs that overlap `[first, last)`, and the one ending at `first` (the new
        // pieces may continue it), in one walk back from `last`.
        for (&(v, s), &(e, st)) in self.map.range(..(vol, last)).rev() {
            if v != vol || e < first {
                break;
            }
            old.push((s, e, st));
            if s < first {
                break;
            }
        }
        old.reverse();
        let mut cur = first;
        for &(s, e, st) in &old {
            if s < first {
                new.push((s, first.min(e), st));
            }
            if e <= first {
                continue;
            }
            let (s, st) = if s < first {
                (first, st.advance(first - s))
            } else {
                (s, st)
            };
            if s > cur {
                new.push((cur, s, f(cur, s, None)));
            }
            let pe = e.min(last);
            new.push((s, pe, f(s, pe, Some(st))));
            if e > last {
                new.push((last, e, st.advance(last - s)));
            }
            cur = pe;
        }
        if cur < last {
            new.push((cur, last, f(cur, last, None)));
        }
        // Merge the pieces that continue each other.
        let mut n = 0;
        for i in 0..new.len() {
            let (s, e, st) = new[i];
            if n > 0 {
                let (ps, pe, pst) = new[n - 1];
                if pe == s && pst.advance(pe - ps) == st {
                    new[n - 1].1 = e;
                    continue;
                }
            }
            new[n] = (s, e, st);
            n += 1;
        }
        new.truncate(n);
        // Rereading pages already read (and the like) changes nothing.
        if new != old {
            // The run after the last piece may continue it (a remainder of an old run
            // cannot: runs in the map never continue each other).
            if let Some(l) = new.last_mut() {
                if l.1 == last {
                    if let Some(&(ne, nst)) = self.map.get(&(vol, last)) {
                        if l.2.advance(last - l.0) == nst {
                            self.map.remove(&(vol, last));
                            l.1 = ne;
                        }
                    }
                }
            }
            // Both lists are sorted: remove the old starts no new piece reuses.
            let mut j = 0;
            for &(s, _, _) in &old {
                while j < new.len() && new[j].0 < s {
                    j += 1;
                }
                if j == new.len() || new[j].0 != s {
                    self.map.remove(&(vol, s));
                }
            }
            for &(s, e, st) in &new {
                self.map.insert((vol, s), (e, st));
            }
        }
        self.old = old;
        self.new = new;
    }

    /// Pages covered, over all volumes.
    pub fn pages(&self) -> u64 {
        self.map.iter().map(|(&(_, s), &(e, _))| e - s).sum()
    }

    /// Every run as (start, end, state).
    pub fn runs(&self) -> impl Iterator<Item = (u64, u64, S)> + '_ {
        self.map.iter().map(|(&(_, s), &(e, st))| (s, e, st))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The write-index state of the statistics: flags, and the index of the page's last
    /// write (0 when never written), numbered along the run.
    #[derive(Clone, Copy, PartialEq, Debug)]
    struct W(u8, u64);
    impl RunState for W {
        fn advance(self, n: u64) -> W {
            if self.0 & 2 != 0 {
                W(self.0, self.1 + n)
            } else {
                self
            }
        }
    }

    /// Random overlapping updates give the same per-page states as a per-page map, and
    /// runs stay merged.
    #[test]
    fn runs_match_a_per_page_map() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let mut runs: PageRuns<W> = PageRuns::default();
        let mut pages: HashMap<(u64, u64), W> = HashMap::new();
        let mut writes = 0u64;
        for _ in 0..3000 {
            let vol = rnd(2);
            let first = rnd(200);
            let last = first + 1 + rnd(20);
            let op = rnd(3) as u8; // 0 trim, 1 read, 2 write
            let w0 = writes;
            runs.update(vol, first, last, |s, _, old| {
                let o = old.unwrap_or(W(0, 0));
                match op {
                    2 => W(o.0 | 2, w0 + 1 + (s - first)),
                    1 => W(o.0 | 1, o.1),
                    _ => o,
                }
            });
            for p in first..last {
                let e = pages.entry((vol, p)).or_insert(W(0, 0));
                match op {
                    2 => {
                        writes += 1;
                        *e = W(e.0 | 2, writes);
                    }
                    1 => e.0 |= 1,
                    _ => {}
                }
            }
            if op != 2 {
                continue;
            }
            assert_eq!(writes, w0 + (last - first));
        }
        assert_eq!(runs.pages(), pages.len() as u64);
        let mut seen = 0;
        let mut prev: Option<(u64, u64, W)> = None;
        for (&(v, s), &(e, st)) in &runs.map {
            assert!(s < e);
            for p in s..e {
                assert_eq!(pages[&(v, p)], st.advance(p - s), "volume {v} page {p}");
                seen += 1;
            }
            if let Some((pv, pe, pst)) = prev {
                assert!(pv != v || pe < s || pst != st, "runs before {s} not merged");
            }
            prev = Some((v, e, st.advance(e - s)));
        }
        assert_eq!(seen, pages.len());
    }

    /// A request spanning 2^60 pages is one run.
    #[test]
    fn a_huge_span_is_one_run() {
        let mut runs: PageRuns<()> = PageRuns::default();
        runs.update(0, 0, 1 << 60, |_, _, _| ());
        runs.update(0, 5, 1 << 61, |_, _, _| ());
        runs.update(1, 7, 9, |_, _, _| ());
        assert_eq!(runs.pages(), (1 << 61) + 2);
        assert_eq!(runs.runs().count(), 2);
    }
}
