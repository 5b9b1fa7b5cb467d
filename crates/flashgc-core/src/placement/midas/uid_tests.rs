//! Tests of the UID (`uid.rs`).

use super::*;

#[test]
fn builder_recovers_uniform_intervals_and_littles_law() {
    let n = 20_000u64;
    let mut b = UidBuilder::new(n, 256, 10, 4 * n, 3);
    let mut rng = crate::workload::Rng::new(7);
    let mut now = 0;
    for lpn in 0..n {
        now += 1;
        b.on_write(lpn, now);
    }
    for _ in 0..8 * n {
        now += 1;
        b.on_write(rng.below(n), now);
    }
    let uid = b.finish(now, n);
    assert!(
        (uid.mean - n as f64).abs() / (n as f64) < 1e-6,
        "mean {}",
        uid.mean
    );
    for x in [0.1, 0.5, 1.0, 2.0, 3.0] {
        let want = libm::exp(-x);
        let got = uid.survival(x * n as f64);
        assert!((got - want).abs() < 0.02, "S({x} N) = {got}, want {want}");
    }
}

#[test]
fn counting_every_interval_matches_tracking_every_lpn() {
    // Skewed writes (LPN i with weight 1 / (i + 1)): with every write's interval counted,
    // a 1-in-8 sample gives the marginal of the all-LPN builder exactly (its snapshot of
    // old versions, from the sample, may differ slightly).
    let n = 8192u64;
    let mut full = UidBuilder::new(n, 64, 1, 4 * n, 3);
    let mut part = UidBuilder::new(n, 64, 8, 4 * n, 3).count_all_intervals();
    let mut last = vec![0u64; n as usize];
    let mut rng = crate::workload::Rng::new(3);
    let h: f64 = (1..=n).map(|k| 1.0 / k as f64).sum();
    let mut now = 0;
    for step in 0..6 * n {
        now += 1;
        let lpn = if step < n {
            step
        } else {
            // Inverse CDF of 1/k, approximately: k ~ exp(u H).
            (libm::exp(rng.unit() * h) as u64).clamp(1, n) - 1
        };
        full.on_write(lpn, now);
        part.on_write(lpn, now);
        if last[lpn as usize] != 0 {
            part.on_interval(now - last[lpn as usize]);
        }
        last[lpn as usize] = now;
    }
    assert_eq!(full.samples(), part.samples());
    let (a, b) = (full.finish(now, n), part.finish(now, n));
    for x in [32.0, 64.0, 640.0, 6400.0, n as f64] {
        let (sa, sb) = (a.survival(x), b.survival(x));
        assert!((sa - sb).abs() < 0.01, "S({x}): all LPNs {sa}, 1 in 8 {sb}");
    }
}

#[test]
fn cycle_sum_matches_geometric_series_for_exponential() {
    let uid = Uid::exponential(100.0, 5000, 10_000.0);
    for w in [500.0, 3000.0, 20_000.0] {
        let want = 1.0 / (1.0 - libm::exp(-w / 10_000.0));
        let got = uid.cycle_sum(0.0, w);
        assert!((got - want).abs() / want < 2e-3, "w {w}: {got} vs {want}");
    }
}

#[test]
fn live_pages_older_than_the_window_keep_a_tail_when_littles_law_clamps() {
    // Every completed interval is 5050 writes long, but only 3000 live pages are younger
    // than the window (6000 live, half of them older): Little's law would need fewer writes
    // than the counts, so K is the counts. The 3000 old pages must stay in the model as
    // the tail's integral, not vanish with a tail of no mass.
    let mut counts = vec![0u64; 101];
    counts[50] = 1000;
    let uid = Uid::from_counts(100.0, &counts, 6000.0, 100, 50);
    let t = uid.tail_mass * uid.tail_mean;
    assert!((t - 3000.0).abs() < 1e-6 * 3000.0, "tail integral {t}");
    assert!(
        uid.tail_mass > 0.0 && uid.tail_mass < 1e-3,
        "{}",
        uid.tail_mass
    );
    assert!(
        (uid.mean - (5050.0 + 3000.0)).abs() < 10.0,
        "mean {}",
        uid.mean
    );
    // The body keeps the observed shape: S just below and above the counted bin.
    assert!(uid.survival(4900.0) > 0.999 && uid.survival(5200.0) < 1e-3);
    // Setting the old pages aside (gn_model=greedy) leaves the observed intervals alone.
    let aside = uid.set_aside(3000.0);
    assert!((aside.mean - 5050.0).abs() < 10.0, "mean {}", aside.mean);
}

#[test]
fn a_trimmed_versions_life_is_an_interval_when_trims_count() {
    // Each LPN is written, trimmed `d` writes later, and written again after a gap: every
    // version lives exactly `d` writes and dies by trim, with `d` pages live at any time
    // (Little's law: mean life = live pages).
    let (n, d) = (4096u64, 2048u64);
    let build = |count: bool| {
        let mut b = UidBuilder::new(n, 64, 1, 4 * n, 3);
        for t in 1..=12 * n {
            b.on_write(t % n, t);
            if t > d {
                b.on_trim((t - d) % n, t, count);
            }
        }
        b.finish(12 * n, d)
    };
    let uid = build(true);
    assert!(uid.samples > 10 * n, "{}", uid.samples);
    assert!(
        uid.survival(0.9 * d as f64) > 0.95,
        "{}",
        uid.survival(0.9 * d as f64)
    );
    assert!(
        uid.survival(1.1 * d as f64) < 0.05,
        "{}",
        uid.survival(1.1 * d as f64)
    );
    assert!(
        (uid.mean - d as f64).abs() < 0.05 * d as f64,
        "mean {}",
        uid.mean
    );
    // Left out, no version ever completes an interval: the UID knows nothing of the lives.
    assert_eq!(build(false).samples, 0);
}
