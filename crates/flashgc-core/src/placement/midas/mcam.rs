//! MCAM, MiDAS's Markov-chain analytical model (papers/midas.txt, Sec. 4.3-4.4).
//!
//! A page is valid in HOT (`V_H`), valid in group `G_i` (`V_Gi`) or free. Per step, one unit
//! of user writes leaves `Free`: a share `h` to HOT, `1 - h` to G1. Each group is a FIFO
//! queue; a page entering `G_i` at age `W` (the summed waiting periods of G1..G(i-1)) leaves
//! it valid with the Eq. 1 probability `v_i = S(W + W_Gi) / S(W)`, where `S` is the UID's
//! survival function restricted to the non-HOT intervals and `W_Gi = size(G_i) / r_i` is
//! the waiting period (user writes to fill the group) with `r_i` the flow into `G_i` per
//! user write (`W_G1 = size(G1) / T_Free->G1`). HOT admits the writes whose interval is below
//! the threshold `t` (`h = P(I < t)`) and is assumed to invalidate all of them (`V_H -> Free`
//! = 1, so `v_0 = 0`; the paper's approximation, Sec. 4.4); its threshold is the HOT
//! residence time `t = size(HOT) / h(t)`, the fixed point the runtime maintains.
//!
//! The last group `G_N` relocates into itself, so Eq. 1 does not hold for it; the paper uses
//! Desnoyers' model. flashgc uses Desnoyers' FIFO fixed point generalized to the UID's
//! interval distribution ("non-uniform variant"): a page entering `G_N` at age `A` is
//! written in `sum_{m >= 0} S(A + m W) / S(A)` cycles of length `W = size(G_N) (1 - v_N) / r_N`,
//! and `1 / (1 - v_N)` equals that sum. For exponential intervals (uniform writes) this is
//! Desnoyers' Eq. 4, for a two-class mixture his hot/cold Eq. 14 (checked in tests).
//!
//! Under `gn_model=greedy` (MiDAS's simulator) the UID comes with its never-invalidated pages
//! set aside ([`Uid::set_aside`]) and `G_N` gets Desnoyers' greedy correction.
//!
//! WAF comes from iterating the chain to convergence (as the paper does) and is checked
//! against the closed form `1 + h v_0 + sum_{i<N} F_i v_i + F_N v_N / (1 - v_N)`.

use super::uid::{Split, Uid};

/// A group configuration: segments per group. `sizes[0]` is HOT (0 = no HOT group),
/// `sizes[1..]` are G1..GN (N >= 1).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GroupConfig {
    /// Segments of HOT, G1, ..., GN.
    pub sizes: Vec<u32>,
}

impl GroupConfig {
    /// Number of cold groups N.
    pub fn groups(&self) -> usize {
        self.sizes.len() - 1
    }
    /// Total segments.
    pub fn total(&self) -> u64 {
        self.sizes.iter().map(|&s| s as u64).sum()
    }
    /// Parses `H/G1/G2/...` (segments), e.g. `4/20/40/900`.
    pub fn parse(s: &str) -> Result<GroupConfig, String> {
        let sizes: Result<Vec<u32>, _> = s.split('/').map(|p| p.trim().parse::<u32>()).collect();
        let sizes = sizes.map_err(|_| {
            format!("`{s}`: expected segments per group as HOT/G1/.../GN, e.g. 4/20/900")
        })?;
        if sizes.len() < 2 {
            return Err(format!(
                "`{s}`: needs at least HOT and G1 (HOT may be 0), e.g. 0/900"
            ));
        }
        if sizes[1..].contains(&0) {
            return Err(format!(
                "`{s}`: groups G1..GN need at least one segment each"
            ));
        }
        Ok(GroupConfig { sizes })
    }
}

impl std::fmt::Display for GroupConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.sizes.iter().map(|s| s.to_string()).collect();
        write!(f, "{}", parts.join("/"))
    }
}

/// MCAM's prediction for one configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Prediction {
    /// Predicted WAF (from the converged chain); infinity if the last group cannot hold its data.
    pub waf: f64,
    /// WAF from the closed form (cross-check of the iteration).
    pub waf_closed_form: f64,
    /// HOT threshold time, user page writes (0 without HOT).
    pub threshold: f64,
    /// `T_Free->HOT`: share of user writes admitted to HOT.
    pub hot_share: f64,
    /// Transition probabilities `v[0]` = HOT -> G1, `v[i]` = Gi -> Gi+1 (`v[N]` = GN -> GN).
    pub v: Vec<f64>,
    /// Flow into each group per user write (`flow[0]` = HOT).
    pub flow: Vec<f64>,
    /// Waiting periods `W_G` (user page writes), `wait[0]` = HOT.
    pub wait: Vec<f64>,
    /// Chain iterations to convergence.
    pub iterations: u32,
}

/// A population of pages moving down the chain together.
#[derive(Clone, Copy)]
struct Pop {
    /// Pages per user write entering the current group.
    flow: f64,
    /// Their age (user writes since written) on entering it.
    age: f64,
    /// HOT-admitted (true) or not.
    hot: bool,
}

/// What a configuration's HOT size fixes: its threshold, the share of writes it admits and
/// the UID split at the threshold. GCS evaluates thousands of configurations with one HOT
/// size, so it computes this once per size (the split is most of a prediction's cost).
#[derive(Debug, Clone)]
pub struct HotSplit {
    segments: u32,
    t: f64,
    h: f64,
    split: Split,
    greedy_last: bool,
}

impl HotSplit {
    /// The split for a HOT group of `segments` segments of `pps` pages.
    pub fn new(uid: &Uid, segments: u32, pps: u32) -> HotSplit {
        let hot_pages = segments as f64 * pps as f64;
        let t = if hot_pages > 0.0 {
            hot_threshold(uid, hot_pages)
        } else {
            0.0
        };
        let h = if t > 0.0 { uid.hot_mass(0.0, t) } else { 0.0 };
        HotSplit {
            segments,
            t,
            h,
            split: uid.split(t),
            greedy_last: uid.greedy_last,
        }
    }

    /// The HOT size (segments) this split is for.
    pub fn segments(&self) -> u32 {
        self.segments
    }
}

/// Predicts the WAF of `cfg` on `uid` with `pps` pages per segment.
pub fn predict(uid: &Uid, cfg: &GroupConfig, pps: u32) -> Prediction {
    predict_with(&HotSplit::new(uid, cfg.sizes[0], pps), cfg, pps)
}

/// [`predict`] with the split of `cfg`'s HOT size already computed (`hot.segments()` must be
/// `cfg.sizes[0]`).
pub fn predict_with(hot: &HotSplit, cfg: &GroupConfig, pps: u32) -> Prediction {
    debug_assert_eq!(hot.segments, cfg.sizes[0]);
    let pps = pps as f64;
    let n = cfg.groups();
    let hot_pages = cfg.sizes[0] as f64 * pps;
    let (t, h) = (hot.t, hot.h);
    // Unnormalized survival of each population: P(I >= x, class).
    let split = &hot.split;
    let mass = |hot: bool, x: f64| split.mass(hot, x);
    let mut v = vec![0.0; n + 1];
    let mut flow = vec![0.0; n + 1];
    let mut wait = vec![0.0; n + 1];
    flow[0] = h;
    let mut pops: Vec<Pop> = Vec::with_capacity(2);
    if h > 0.0 {
        wait[0] = hot_pages / h;
        v[0] = mass(true, wait[0]) / h;
        if v[0] > 0.0 {
            pops.push(Pop {
                flow: h * v[0],
                age: wait[0],
                hot: true,
            });
        }
    }
    if h < 1.0 {
        pops.push(Pop {
            flow: 1.0 - h,
            age: 0.0,
            hot: false,
        });
    }
    // Survivors of a stay of `w` user writes.
    let survive = |p: &Pop, w: f64| {
        let m0 = mass(p.hot, p.age);
        if m0 > 0.0 {
            p.flow * mass(p.hot, p.age + w) / m0
        } else {
            0.0
        }
    };
    for i in 1..n {
        let r: f64 = pops.iter().map(|p| p.flow).sum();
        flow[i] = r;
        if r <= 0.0 {
            wait[i] = f64::INFINITY;
            continue;
        }
        wait[i] = cfg.sizes[i] as f64 * pps / r;
        let mut out = 0.0;
        for p in pops.iter_mut() {
            let f = survive(p, wait[i]);
            out += f;
            p.flow = f;
            p.age += wait[i];
        }
        v[i] = out / r;
    }
    let r: f64 = pops.iter().map(|p| p.flow).sum();
    flow[n] = r;
    let gn_pages = cfg.sizes[n] as f64 * pps;
    let (vn, wn) = if hot.greedy_last {
        // Desnoyers' greedy correction, as MiDAS's simulator applies it (model.cpp, `DES ==
        // 2`): greedy behaves as FIFO on a group `c = 1 + 1 / (2 pps)` larger, with its WAF
        // `1 / (1 - v)` divided by `c`.
        let c = 1.0 + 0.5 / pps;
        let (v, w) = last_group(split, &pops, r, gn_pages * c);
        ((1.0 - c * (1.0 - v)).max(0.0), w)
    } else {
        last_group(split, &pops, r, gn_pages)
    };
    v[n] = vn;
    wait[n] = wn;
    let waf_closed_form = closed_form(h, &v);
    let (waf, iterations) = if vn >= 1.0 {
        (f64::INFINITY, 0)
    } else {
        iterate(h, &v)
    };
    Prediction {
        waf,
        waf_closed_form,
        threshold: t,
        hot_share: h,
        v,
        flow,
        wait,
        iterations,
    }
}

/// HOT threshold `t` with `t * P(admitted at t) = hot_pages`: HOT's residence time equals
/// the threshold (the fixed point of the runtime's "threshold = average residence time").
pub fn hot_threshold(uid: &Uid, hot_pages: f64) -> f64 {
    let f = |t: f64| t * uid.hot_mass(0.0, t) - hot_pages;
    let mut hi = hot_pages.max(1.0);
    while f(hi) < 0.0 && hi < 1e15 {
        hi *= 2.0;
    }
    let mut lo = 0.0;
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-9 * hi {
            break;
        }
    }
    hi
}

/// Valid ratio of the last group's victims and its waiting period: solves
/// `r / (1 - v) = sum_pop flow * sum_m S_pop(A + m W) / S_pop(A)`, `W = size (1 - v) / r`,
/// by bisection on `v`.
fn last_group(split: &Split, pops: &[Pop], r: f64, size: f64) -> (f64, f64) {
    if r <= 0.0 {
        return (0.0, f64::INFINITY);
    }
    let starts: Vec<(f64, f64, f64, bool)> = pops
        .iter()
        .filter(|p| p.flow > 0.0)
        .map(|p| (p.flow, p.age, split.mass(p.hot, p.age), p.hot))
        .filter(|e| e.2 > 0.0)
        .collect();
    let g = |v: f64| {
        let w = size * (1.0 - v) / r;
        let writes: f64 = starts
            .iter()
            .map(|&(f, a, m0, hot)| f * split.cycle_sum(hot, a, w) / m0)
            .sum();
        writes / r - 1.0 / (1.0 - v)
    };
    let (mut lo, mut hi) = (0.0f64, 1.0 - 1e-9);
    if g(hi) > 0.0 {
        // Even with every victim full the group cannot hold the data entering it.
        return (1.0, 0.0);
    }
    while hi - lo > 1e-10 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let v = 0.5 * (lo + hi);
    (v, size * (1.0 - v) / r)
}

/// Closed form of the chain (cross-check): with `F_1 = 1 - h + h v_0`, `F_{i+1} = F_i v_i`,
/// `WAF = 1 + h v_0 + sum_{i<N} F_i v_i + F_N v_N / (1 - v_N)`.
pub fn closed_form(h: f64, v: &[f64]) -> f64 {
    let n = v.len() - 1;
    let mut waf = 1.0 + h * v[0];
    let mut f = 1.0 - h + h * v[0];
    for &vi in &v[1..n] {
        waf += f * vi;
        f *= vi;
    }
    if v[n] >= 1.0 {
        return f64::INFINITY;
    }
    waf + f * v[n] / (1.0 - v[n])
}

/// Iterates the Markov chain (one unit of user writes per step) until the page counts of
/// every state stop changing; returns the WAF of the converged state and the step count.
pub fn iterate(h: f64, v: &[f64]) -> (f64, u32) {
    let n = v.len() - 1;
    // x[0] = V_H, x[i] = V_Gi: pages entering each state per step.
    let mut x = vec![0.0; n + 1];
    let mut next = vec![0.0; n + 1];
    let mut steps = 0u32;
    loop {
        steps += 1;
        next[0] = h;
        next[1] = (1.0 - h) + v[0] * x[0];
        for i in 1..n {
            next[i + 1] = v[i] * x[i];
        }
        next[n] += v[n] * x[n];
        let delta = x
            .iter()
            .zip(&next)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        std::mem::swap(&mut x, &mut next);
        if delta < 1e-13 || steps >= 10_000_000 {
            break;
        }
    }
    // Every page entering a state is one flash program; user writes are 1 per step.
    (x.iter().sum(), steps)
}

#[cfg(test)]
mod tests {
    use super::super::uid::UidBuilder;
    use super::*;
    use crate::model;

    #[test]
    fn single_group_uniform_is_desnoyers_fifo() {
        let n = 100_000.0;
        let uid = Uid::exponential(64.0, 60_000, n);
        for op in [0.07, 0.2, 0.28] {
            let segs = (n * (1.0 + op) / 64.0).round() as u32;
            let p = predict(
                &uid,
                &GroupConfig {
                    sizes: vec![0, segs],
                },
                64,
            );
            let alpha = segs as f64 * 64.0 / n;
            let want = model::waf_fifo(alpha);
            assert!(
                (p.waf - want).abs() / want < 2e-3,
                "op {op}: {} vs {want}",
                p.waf
            );
            assert!((p.waf - p.waf_closed_form).abs() < 1e-6 * want);
        }
    }

    #[test]
    fn single_group_hotcold_is_desnoyers_eq14() {
        let n = 100_000.0;
        let (r, f) = (0.8, 0.2);
        let uid = Uid::mixture(
            64.0,
            60_000,
            &[(r, f * n / r), (1.0 - r, (1.0 - f) * n / (1.0 - r))],
        );
        let segs = (n * 1.2 / 64.0).round() as u32;
        let p = predict(
            &uid,
            &GroupConfig {
                sizes: vec![0, segs],
            },
            64,
        );
        let want = model::waf_hotcold_fifo(segs as f64 * 64.0 / n, r, f);
        assert!((p.waf - want).abs() / want < 3e-3, "{} vs {want}", p.waf);
    }

    #[test]
    fn greedy_last_group_sets_static_data_aside_as_desnoyers_greedy() {
        // A full fill, then uniform writes to the first half only: the second half is static.
        // Under FIFO victims it goes round GN at every lap; greedy victims leave it alone, so
        // with it set aside GN is the written half alone, on the segments the static half
        // does not fill: the same UID as a device holding only that half (built alongside,
        // same writes), and Desnoyers' greedy model (Eq. 12) of it.
        let (n, pps) = (40_000u64, 64u32);
        let mut all = UidBuilder::new(n, pps as u64, 1, 4 * n, 3);
        let mut half = UidBuilder::new(n / 2, pps as u64, 1, 4 * n, 3);
        let mut rng = crate::workload::Rng::new(3);
        let mut now = 0;
        for lpn in 0..n {
            now += 1;
            all.on_write(lpn, now);
            if lpn < n / 2 {
                half.on_write(lpn, now);
            }
        }
        for _ in 0..40 * n {
            now += 1;
            let lpn = rng.below(n / 2);
            all.on_write(lpn, now);
            half.on_write(lpn, now);
        }
        let uid = all.finish(now, n);
        let segs = (n as f64 * 1.15 / pps as f64).round() as u32;
        let static_segs = (n / 2 / pps as u64) as u32;
        let gn = |s: u32| GroupConfig { sizes: vec![0, s] };
        let fifo = predict(&uid, &gn(segs), pps);
        let greedy = predict(
            &uid.clone().set_aside((n / 2) as f64),
            &gn(segs - static_segs),
            pps,
        );
        let alone = predict(
            &half.clone().finish(now, n / 2).set_aside(0.0),
            &gn(segs - static_segs),
            pps,
        );
        assert!(
            (greedy.waf - alone.waf).abs() < 1e-3 * alone.waf,
            "set aside {} vs the written half alone {}",
            greedy.waf,
            alone.waf
        );
        // The UID built from counts is about 2 % heavier than the exponential (each LPN's
        // first interval starts at the fill): within 5 % of the analytic model.
        let alpha = (segs - static_segs) as f64 * pps as f64 / (n / 2) as f64;
        let want = model::waf_greedy(alpha, pps as f64);
        assert!(
            (greedy.waf - want).abs() / want < 0.05,
            "greedy {} vs Desnoyers {want}",
            greedy.waf
        );
        // FIFO victims copy the static half as well: far more than the greedy figure.
        assert!(
            fifo.waf > 1.5 * greedy.waf,
            "fifo {} greedy {}",
            fifo.waf,
            greedy.waf
        );
        // The flag alone is Desnoyers' greedy correction: on the written half's UID, greedy
        // over FIFO is Eq. 12 over Eq. 4.
        let half_uid = half.finish(now, n / 2);
        let ratio = alone.waf / predict(&half_uid, &gn(segs - static_segs), pps).waf;
        let want_ratio = want / model::waf_fifo(alpha);
        assert!(
            (ratio - want_ratio).abs() < 0.01 * want_ratio,
            "greedy / fifo {ratio} vs Desnoyers {want_ratio}"
        );
    }

    #[test]
    fn chain_iteration_matches_closed_form_and_paper_example() {
        // Fig. 7: T_Free->HOT 0.7, G1 -> G2 0.4; the closed form and the chain agree.
        let v = [0.0, 0.4, 0.3, 0.78];
        let (w, _) = iterate(0.7, &v);
        assert!((w - closed_form(0.7, &v)).abs() < 1e-9);
        let uid = Uid::mixture(64.0, 10_000, &[(0.5, 2_000.0), (0.5, 200_000.0)]);
        let p = predict(
            &uid,
            &GroupConfig {
                sizes: vec![40, 100, 300, 2000],
            },
            64,
        );
        assert!(p.waf.is_finite() && p.waf > 1.0);
        assert!((p.waf - p.waf_closed_form).abs() < 1e-6 * p.waf);
        assert!((p.threshold * p.hot_share - 40.0 * 64.0).abs() < 1e-3 * 2560.0);
    }

    #[test]
    fn too_small_last_group_is_infeasible() {
        let uid = Uid::exponential(64.0, 10_000, 100_000.0);
        let p = predict(
            &uid,
            &GroupConfig {
                sizes: vec![0, 1000],
            },
            64,
        );
        assert!(p.waf.is_infinite());
    }
}
