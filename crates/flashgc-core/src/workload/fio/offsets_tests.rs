//! The generators against distributions worked out from fio's formulas (see offsets.rs).

use super::*;
use crate::workload::Op;

fn generator(spec: &str, blocks: u64, seed: u64) -> OffsetGenerator {
    let dist = Dist::parse(spec).unwrap();
    OffsetGenerator::new(&dist, blocks, 1, 4096, 0.0, seed)
        .unwrap()
        .unwrap()
}

/// Hits per block over `draws` draws; panics on a block outside the region.
fn counts(g: &mut OffsetGenerator, blocks: u64, draws: usize) -> Vec<u64> {
    let mut c = vec![0u64; blocks as usize];
    for _ in 0..draws {
        let b = g.next_block();
        assert!(b < blocks, "block {b} outside the region of {blocks}");
        c[b as usize] += 1;
    }
    c
}

/// Share of the hottest `m` blocks: empirical (sorted counts) and expected (sorted
/// probabilities); the scatter is a bijection, so the sorted vectors must agree.
fn top_shares(counts: &[u64], probs: &[f64], fractions: &[f64]) -> Vec<(f64, f64, f64)> {
    let total: u64 = counts.iter().sum();
    let mut c: Vec<f64> = counts.iter().map(|&x| x as f64 / total as f64).collect();
    let mut p = probs.to_vec();
    c.sort_by(|a, b| b.partial_cmp(a).unwrap());
    p.sort_by(|a, b| b.partial_cmp(a).unwrap());
    fractions
        .iter()
        .map(|&q| {
            let m = ((q * c.len() as f64).round() as usize).max(1);
            (q, c[..m].iter().sum(), p[..m].iter().sum())
        })
        .collect()
}

#[test]
fn zoned_shares_follow_the_zones_and_stay_in_the_region() {
    let blocks = 1000;
    let draws = 100_000;
    let mut g = generator("zoned:60/10:30/20:10/70", blocks, 3);
    let c = counts(&mut g, blocks, draws);
    // fio: zone i spans [s0 * L / 100, s0 * L / 100 + L * (s1 - s0) / 100).
    for (lo, hi, share) in [(0usize, 100usize, 0.6), (100, 300, 0.3), (300, 1000, 0.1)] {
        let got = c[lo..hi].iter().sum::<u64>() as f64 / draws as f64;
        // 4.5 standard deviations of a binomial share over 1e5 draws.
        let sd = (share * (1.0 - share) / draws as f64).sqrt();
        assert!(
            (got - share).abs() < 4.5 * sd,
            "blocks {lo}..{hi}: share {got}, expected {share} (sd {sd})"
        );
        // Uniform within the zone: its two halves get half each.
        let mid = (lo + hi) / 2;
        let first = c[lo..mid].iter().sum::<u64>() as f64;
        let all = c[lo..hi].iter().sum::<u64>() as f64;
        let sd_half = (0.25 / all).sqrt();
        assert!(
            (first / all - 0.5).abs() < 4.5 * sd_half,
            "zone {lo}..{hi}: first half {}",
            first / all
        );
    }
}

#[test]
fn zoned_follows_fio_rounding_and_leaves_unnamed_space_alone() {
    // 7 blocks, zones of 30 % and 50 %: fio's blocks [0, 2) and [2, 2 + 3); blocks 5 and 6
    // (the 20 % no zone names) are never accessed.
    let mut g = generator("zoned:50/30:50/50", 7, 1);
    let c = counts(&mut g, 7, 20_000);
    assert!(c[0] > 0 && c[1] > 0 && c[2] > 0 && c[4] > 0, "{c:?}");
    assert_eq!((c[5], c[6]), (0, 0), "{c:?}");
    let first: u64 = c[..2].iter().sum();
    assert!((first as f64 / 20_000.0 - 0.5).abs() < 0.02, "{c:?}");
}

#[test]
fn zoned_abs_places_zones_in_bytes_and_refuses_what_does_not_fit() {
    // 4 KiB blocks: 40 KiB = blocks 0..10, then 80 KiB = blocks 10..30, of 100.
    let mut g = generator("zoned_abs:70/40k:30/80k", 100, 9);
    let c = counts(&mut g, 100, 100_000);
    let hot = c[..10].iter().sum::<u64>() as f64 / 1e5;
    let warm = c[10..30].iter().sum::<u64>() as f64 / 1e5;
    assert!(
        (hot - 0.7).abs() < 0.007 && (warm - 0.3).abs() < 0.007,
        "{hot} {warm}"
    );
    assert_eq!(c[30..].iter().sum::<u64>(), 0);
    let too_big = Dist::parse("zoned_abs:50/200k:50/300k").unwrap();
    let e = OffsetGenerator::new(&too_big, 100, 1, 4096, 0.0, 1).unwrap_err();
    assert!(e.to_string().contains("past the region"), "{e}");
    let tiny = Dist::parse("zoned_abs:50/1k:50/300k").unwrap();
    let e = OffsetGenerator::new(&tiny, 100, 1, 4096, 0.0, 1).unwrap_err();
    assert!(e.to_string().contains("no whole block"), "{e}");
    let thin = Dist::parse("zoned:50/1:50/99").unwrap();
    let e = OffsetGenerator::new(&thin, 50, 1, 4096, 0.0, 1).unwrap_err();
    assert!(e.to_string().contains("zone 1"), "{e}");
}

/// fio's pareto: rank floor((L - 1) u^p), P(rank < x) = (x / (L - 1))^(1/p).
fn pareto_probs(blocks: u64, h: f64) -> Vec<f64> {
    let inv = (1.0 - h).ln() / h.ln();
    let m = (blocks - 1) as f64;
    (0..blocks)
        .map(|k| {
            let f = |x: f64| (x / m).min(1.0).powf(inv);
            if k + 1 < blocks {
                f((k + 1) as f64) - f(k as f64)
            } else {
                0.0
            }
        })
        .collect()
}

#[test]
fn pareto_matches_fios_formula() {
    let blocks = 200;
    let draws = 200_000;
    for h in [0.9, 0.7, 0.3] {
        let mut g = generator(&format!("pareto:{h}"), blocks, 11);
        let c = counts(&mut g, blocks, draws);
        let probs = pareto_probs(blocks, h);
        for (q, got, want) in top_shares(&c, &probs, &[0.01, 0.1, 0.2, 0.5]) {
            assert!(
                (got - want).abs() < 0.01,
                "pareto:{h} hottest {q}: {got} vs {want}"
            );
        }
        // The closed form fio's H means: the hottest 1 - H of the region takes H.
        let (_, _, want) = top_shares(&c, &probs, &[1.0 - h.max(1.0 - h)])[0];
        assert!((want - h.max(1.0 - h)).abs() < 0.02, "pareto:{h}: {want}");
    }
}

#[test]
fn pareto_center_puts_rank_zero_there() {
    // H < 0.5: rank 0 is the hottest; fio's rand_off = L * CENTER puts it at block 50.
    let mut g = generator("pareto:0.2:0.25", 200, 5);
    let c = counts(&mut g, 200, 50_000);
    let hottest = (0..200).max_by_key(|&k| c[k]).unwrap();
    assert_eq!(hottest, 50);
}

#[test]
fn zipf_center_puts_the_hottest_rank_there() {
    let mut g = generator("zipf:1.2:0.75", 200, 5);
    let c = counts(&mut g, 200, 50_000);
    let hottest = (0..200).max_by_key(|&k| c[k]).unwrap();
    assert_eq!(hottest, 150);
    // P(rank 1) = 1 / H(200, 1.2).
    let h: f64 = (1..=200).map(|k| (k as f64).powf(-1.2)).sum();
    let share = c[150] as f64 / 50_000.0;
    assert!((share - 1.0 / h).abs() < 0.01, "{share} vs {}", 1.0 / h);
}

/// fio's gauss_next: ceil(mean of 12 uniform in 0..=L), plus a jitter
/// floor(s u) - s / 2 halved while out of range; s = min(ceil(L DEV / 100), L / 2).
fn normal_probs(blocks: u64, dev: f64) -> Vec<f64> {
    let n = blocks as usize;
    let mut sums = vec![1.0f64];
    for _ in 0..12 {
        let mut next = vec![0.0; sums.len() + n];
        for (s, &p) in sums.iter().enumerate() {
            for v in 0..=n {
                next[s + v] += p / (n + 1) as f64;
            }
        }
        sums = next;
    }
    let width = if dev == 0.0 {
        0
    } else {
        ((blocks as f64 * dev / 100.0).ceil() as i64).min(n as i64 / 2)
    };
    let mut probs = vec![0.0; n];
    for (s, &p) in sums.iter().enumerate() {
        let rank = s.div_ceil(12) as i64;
        if width == 0 {
            probs[(rank as usize).min(n - 1)] += p;
            continue;
        }
        for v in 0..width {
            let mut d = v - width / 2;
            while d != 0 && (rank + d < 0 || rank + d >= n as i64) {
                d /= 2;
            }
            probs[((rank + d) as usize).min(n - 1)] += p / width as f64;
        }
    }
    probs
}

#[test]
fn normal_matches_fios_formula() {
    let blocks = 100;
    let draws = 200_000;
    let shares = |dev: f64| {
        let mut g = generator(&format!("normal:{dev}"), blocks, 21);
        let c = counts(&mut g, blocks, draws);
        top_shares(&c, &normal_probs(blocks, dev), &[0.05, 0.1, 0.2, 0.5])
    };
    for dev in [0.0, 10.0, 40.0] {
        for (q, got, want) in shares(dev) {
            assert!(
                (got - want).abs() < 0.01,
                "normal:{dev} hottest {q}: {got} vs {want}"
            );
        }
    }
    // The jitter matters: normal:40's hottest tenth is far below normal:0's.
    let (a, b) = (normal_probs(blocks, 0.0), normal_probs(blocks, 40.0));
    let top = |p: &[f64]| top_shares(&vec![1; p.len()], p, &[0.1])[0].2;
    assert!(top(&a) - top(&b) > 0.05, "{} {}", top(&a), top(&b));
}

#[test]
fn same_seed_same_requests() {
    for spec in [
        "zoned:60/10:30/20:10/70",
        "zoned_abs:60/40k:40/100k",
        "pareto:0.8",
        "normal:5:0.3",
    ] {
        let dist = Dist::parse(spec).unwrap();
        let run = |seed| {
            let mut g = OffsetGenerator::new(&dist, 1000, 2, 8192, 0.3, seed)
                .unwrap()
                .unwrap();
            let mut buf = Vec::new();
            g.fill(&mut buf, 5000).unwrap();
            buf
        };
        let a = run(7);
        assert_eq!(a, run(7), "{spec}");
        assert_ne!(a, run(8), "{spec}");
        assert!(a
            .iter()
            .all(|r| r.lpn % 2 == 0 && r.lpn + 2 <= 1000 && r.pages == 2));
        let reads = a.iter().filter(|r| r.op == Op::Read).count() as f64 / 5000.0;
        assert!((reads - 0.3).abs() < 0.03, "{spec}: {reads}");
    }
    // The distributions Synthetic serves are not taken here.
    let z = Dist::parse("zipf:0.9").unwrap();
    assert!(OffsetGenerator::new(&z, 100, 1, 4096, 0.0, 1)
        .unwrap()
        .is_none());
}
