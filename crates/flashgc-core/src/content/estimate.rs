//! The content mode's memory estimate, made before the run: how many content groups a GC
//! action will hold (from which pages it groups and, for synthetic content, how many
//! distinct contents the configured duplicate model gives) and what each costs at the
//! peak of the process's resident memory.
//!
//! Measured against the peak RSS (crates/flashgc-cli/tests/memory.rs): counting one group
//! per physical page at a flat 80 B put CAGC's unbounded index at 1.5 x its peak (it holds
//! 0.6 M groups on an 8 GiB device after 1 x capacity of writes, not 2.2 M) and DAGC's
//! unbounded cache at 0.82 x (2.2 M groups at 96 B each, plus the index's last resize).

use super::store::Group;
use super::ContentParams;

/// Which pages a GC action puts in content groups: what bounds how many groups it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouped {
    /// Every live page, fingerprinted up front (SplitGC's prescrub of the filled device):
    /// one group per distinct content of the live data.
    Live,
    /// Live pages once GC has migrated them (CAGC fingerprints at migration only): at most
    /// one group per distinct live content. How many live pages GC has migrated since
    /// their last write depends on the run (measured under zipf 1.0: 41 % of the distinct
    /// live contents after 1 x capacity of writes on an 8 GiB device, 88 % after 4 x on a
    /// 2 GiB one; under uniform writes 58 % from 1 x on), so this is an upper bound.
    Migrated,
    /// Every written page until its segment is erased, live or dead (DAGC's unbounded
    /// cache): a write of content already cached takes no page, so the pages holding data
    /// hold distinct contents, one group each: the distinct contents written (fill and
    /// run), up to every physical page.
    Written,
}

/// What the content mode will hold, as the estimate counts it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContentEstimate {
    /// Bytes at the peak.
    pub bytes: u64,
    /// Why the estimate is an upper bound (the group count depends on the run or on a
    /// trace's contents), None when it is a prediction.
    pub upper_bound: Option<&'static str>,
}

/// The layout and content source an estimate is made for.
#[derive(Debug, Clone, Copy)]
pub struct EstimateInput {
    /// Logical pages (LPNs).
    pub logical_pages: u64,
    /// Physical pages.
    pub physical_pages: u64,
    /// Segments.
    pub segments: u64,
    /// The synthetic content model; None when the content comes from a trace (unknown
    /// before the run: every page is counted as distinct).
    pub content: Option<ContentParams>,
    /// Pages the host writes, precondition fill included; None when unknown before the
    /// run (a trace, host flows): as many as there are physical pages.
    pub written_pages: Option<u64>,
}

/// Bytes of the group structures with `n` groups, at their peak: the group record and its
/// two recency links per group, and the fingerprint index (a hash table of (content,
/// group) pairs, 16 B + 1 control byte per bucket, at most 7/8 full, doubling when full).
/// A doubling fills the new table while the old one is still resident, so the index's
/// peak is either the final table or both tables of the last doubling (then the groups
/// numbered 7/16 of the final buckets): the larger of the two.
pub fn group_bytes(n: u64) -> u64 {
    let per_group = (std::mem::size_of::<Group>() + 8) as u64;
    let bucket = (std::mem::size_of::<(u64, u32)>() + 1) as u64;
    let buckets = index_buckets(n);
    let end = n * per_group + buckets * bucket;
    let doubling = if buckets >= 16 {
        buckets * 7 / 16 * per_group + (buckets + buckets / 2) * bucket
    } else {
        0
    };
    end.max(doubling)
}

/// Buckets of a hash table grown by inserts to `n` entries (hashbrown: a power of two,
/// at most 7/8 full from 8 buckets on).
fn index_buckets(n: u64) -> u64 {
    match n {
        0 => 0,
        1..=3 => 4,
        4..=7 => 8,
        _ => (n * 8).div_ceil(7).next_power_of_two(),
    }
}

/// Expected distinct contents among `n` pages whose contents are drawn independently from
/// `p`: a fresh content with probability 1 - dup_ratio, else pool content i with
/// probability dup_ratio * q_i (q_i proportional to i^-theta, i = 1..pool), so
/// (1 - dup_ratio) n + sum_i (1 - (1 - dup_ratio q_i)^n). The first 65536 ranks are summed;
/// the rest of a larger pool is integrated (the terms vary smoothly in i there).
pub fn expected_distinct(p: &ContentParams, n: u64) -> f64 {
    let nf = n as f64;
    let fresh = (1.0 - p.dup_ratio) * nf;
    if p.dup_ratio <= 0.0 || n == 0 {
        return fresh;
    }
    const HEAD: u64 = 1 << 16;
    let head = p.pool.min(HEAD);
    let w = |x: f64| x.powf(-p.theta);
    // Normaliser: the head's weights exactly, the tail's by the midpoint rule below.
    let tail = Tail::new(head, p.pool);
    let norm: f64 = (1..=head).map(|i| w(i as f64)).sum::<f64>() + tail.integrate(w);
    // 1 - (1 - x)^n through logs: exact for the tiny x of a large pool.
    let hit = |x: f64| {
        let q = p.dup_ratio * w(x) / norm;
        -(nf * (-q).ln_1p()).exp_m1()
    };
    let pool: f64 = (1..=head).map(|i| hit(i as f64)).sum::<f64>() + tail.integrate(hit);
    fresh + pool
}

/// Ranks `head + 1 ..= pool` of a pool, integrated in log space (midpoint rule, 4096
/// steps): f summed over the ranks is about the integral of f(x) over [head + 1/2,
/// pool + 1/2], and x = e^u.
struct Tail {
    lo: f64,
    hi: f64,
}

impl Tail {
    fn new(head: u64, pool: u64) -> Tail {
        Tail {
            lo: (head as f64 + 0.5).ln(),
            hi: (pool as f64 + 0.5).ln(),
        }
    }
    fn integrate(&self, f: impl Fn(f64) -> f64) -> f64 {
        if self.hi <= self.lo {
            return 0.0;
        }
        const STEPS: usize = 4096;
        let du = (self.hi - self.lo) / STEPS as f64;
        (0..STEPS)
            .map(|k| {
                let x = (self.lo + (k as f64 + 0.5) * du).exp();
                f(x) * x * du
            })
            .sum()
    }
}

/// Bytes the content mode will hold at its peak, for an action that groups `grouped`
/// pages, with a fingerprint index of `capacity` entries (None: unbounded), that defers
/// duplicates (a queue of LPNs) when `defers`, and whose own structures take
/// `action_bytes`:
/// * per physical page: its content, group and position (16 B), a scrub mark (1 bit);
/// * per LPN: the last written content (8 B) and a staged bit for the content check;
/// * a sort, 8 B per item: the end-of-run report's contents of the live LPNs, or a
///   checkpoint's index keys, whichever is more;
/// * per segment: the content counters (8 B);
/// * the groups ([`group_bytes`]): a bounded index's capacity, else as many as `grouped`
///   gives, and the copies listed beyond a group's first (a vector each, 8 B per copy:
///   4 B at up to twice the length, as vectors double); a deferring action's queue (4 B
///   per LPN holding pool content).
pub fn estimate(
    input: EstimateInput,
    grouped: Grouped,
    capacity: Option<u64>,
    defers: bool,
    action_bytes: u64,
) -> ContentEstimate {
    let EstimateInput {
        logical_pages: logical,
        physical_pages: physical,
        segments,
        content,
        written_pages,
    } = input;
    let distinct_of =
        |n: u64| content.map_or(n, |p| (expected_distinct(&p, n).round() as u64).min(n));
    let fixed = physical * 16 + physical.div_ceil(64) * 8 + logical * 8 + logical.div_ceil(64) * 8;
    // Live data: at most one page per LPN; each LPN holds its last write's content.
    let (pages, distinct) = match grouped {
        Grouped::Written => {
            let d = written_pages.map_or(physical, |w| distinct_of(w).min(physical));
            (d, d)
        }
        Grouped::Live | Grouped::Migrated => (logical, distinct_of(logical)),
    };
    let groups = capacity.map_or(distinct, |c| c.min(distinct));
    let listed = match capacity {
        None => pages - distinct,
        Some(_) => 0,
    };
    let queue = match (defers, content) {
        (false, _) => 0,
        (true, Some(p)) => (p.dup_ratio * logical as f64) as u64 * 4,
        (true, None) => logical * 4,
    };
    let upper_bound = match (capacity, grouped, content) {
        (Some(_), _, _) => None,
        (None, Grouped::Migrated, _) => Some(
            "content groups form only as GC reaches pages, counted as one per distinct live content",
        ),
        (None, Grouped::Live, None) => {
            Some("a trace's contents are unknown before the run, every live page counted as distinct")
        }
        (None, Grouped::Written, _) if written_pages.is_none() || content.is_none() => Some(
            "the pages written are unknown before the run (a trace or host flows), every physical page counted as a distinct content",
        ),
        (None, _, _) => None,
    };
    // The end-of-run report sorts the contents of the live LPNs; writing a checkpoint sorts
    // the index's keys: 8 B each, never both at once.
    let sorted = 8 * logical.max(groups);
    ContentEstimate {
        bytes: fixed
            + segments * 8
            + group_bytes(groups)
            + listed * 8
            + queue
            + action_bytes
            + sorted,
        upper_bound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(dup_ratio: f64, pool: u64) -> ContentParams {
        ContentParams {
            dup_ratio,
            pool,
            theta: 1.0,
        }
    }

    #[test]
    fn distinct_contents_match_the_generator() {
        // Count what the generator actually draws, for a small pool (summed) and a large
        // one (its tail integrated).
        for (d, pool, n) in [(0.3, 1024u64, 200_000u64), (0.5, 1 << 20, 300_000)] {
            let p = params(d, pool);
            let mut g = super::super::ContentGen::new(p, 11);
            let mut seen = std::collections::HashSet::new();
            for _ in 0..n {
                seen.insert(g.next_content());
            }
            let want = expected_distinct(&p, n);
            let got = seen.len() as f64;
            assert!(
                (want - got).abs() / got < 0.005,
                "dup {d} pool {pool}: expected {want}, drawn {got}"
            );
        }
        assert_eq!(expected_distinct(&params(0.0, 10), 1000), 1000.0);
    }

    #[test]
    fn index_buckets_follow_hashbrown() {
        // std's HashMap after n inserts: its capacity is 7/8 of its buckets.
        for n in [1u64, 7, 8, 100, 917_505, 1_468_958] {
            let mut m: std::collections::HashMap<u64, u32> = Default::default();
            for k in 0..n {
                m.insert(k, 0);
            }
            let b = index_buckets(n);
            assert_eq!(
                m.capacity() as u64,
                if b < 8 { b - 1 } else { b / 8 * 7 },
                "{n}"
            );
        }
    }
}
