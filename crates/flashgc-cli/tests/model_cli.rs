//! `flashgc model` end to end: what the analytic models print when no answer is finite.

mod common;

use common::{flashgc, stdout};
use std::process::Output;

/// `model midas` on a 4 GiB device of the midas-128g preset: 70 segments of 64 MiB, 11 of
/// them kept for the FTL's reserve and 9 open streams, so the groups' 59 segments cannot
/// hold the logical space; with one-block segments they can.
fn midas(extra: &[&str]) -> Output {
    let mut a = vec![
        "model",
        "midas",
        "--logical-gib",
        "4",
        "--workload",
        "uniform",
        "--volume",
        "1",
    ];
    a.extend_from_slice(extra);
    ok(&a)
}

/// `flashgc ARGS`, which must exit 0.
fn ok(a: &[&str]) -> Output {
    let o = flashgc(a);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{a:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

#[test]
fn model_midas_says_why_no_configuration_fits() {
    // It printed "GCS: 1 groups ... MCAM predicted WAF inf (closed form inf)", and in JSON a
    // silent `"waf": null`, without saying that the groups' budget is below the logical space.
    let s = stdout(&midas(&[]));
    assert!(s.contains("GCS: no configuration has a finite WAF"), "{s}");
    assert!(
        s.contains(
            "no configuration fits: the groups' budget of 59 segments (966656 pages) is below \
             the logical space of 1068853 pages"
        ),
        "{s}"
    );
    assert!(s.contains("--segment-blocks"), "{s}");
    // An explicit --budget is the one to raise.
    let s = stdout(&midas(&["--budget", "40"]));
    assert!(s.contains("budget of 40 segments"), "{s}");
    assert!(
        s.contains("raise --budget (at most the device's 70 segments)"),
        "{s}"
    );

    let v: serde_json::Value = serde_json::from_slice(&midas(&["--json"]).stdout).unwrap();
    assert_eq!(v["feasible"], false, "{v}");
    assert_eq!(v["logical_pages"], 1068853, "{v}");
    assert_eq!(v["budget_segments"], 59, "{v}");
    let why = v["infeasible_reason"].as_str().unwrap_or_default();
    assert!(why.contains("is below the logical space"), "{why}");
    // The infinite WAF itself is null (JSON has no infinity); `feasible` is what says it.
    assert!(v["gcs"]["prediction"]["waf"].is_null(), "{v}");

    // With one-block segments the reserve is small and GCS finds a finite configuration.
    let s = stdout(&midas(&["--segment-blocks", "1"]));
    assert!(!s.contains("no configuration"), "{s}");
    let v: serde_json::Value =
        serde_json::from_slice(&midas(&["--segment-blocks", "1", "--json"]).stdout).unwrap();
    assert_eq!(v["feasible"], true, "{v}");
    assert!(v["infeasible_reason"].is_null(), "{v}");
    assert!(
        v["gcs"]["prediction"]["waf"]
            .as_f64()
            .is_some_and(|w| w >= 1.0),
        "{v}"
    );

    // A run of MiDAS on the same device refuses it up front, naming the cause.
    let o = flashgc(&[
        "run",
        "--preset",
        "midas-128g",
        "--logical-gib",
        "4",
        "--placement",
        "midas",
        "--victim",
        "fifo",
    ]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("placement `midas` needs 9 open streams"), "{e}");
}

/// The UID's CDF prints in order of the interval (its points are powers of 4 and multiples
/// of the budget, listed in two runs that interleave: 4194304 came before 901120).
#[test]
fn model_midas_prints_its_cdf_in_order_of_the_interval() {
    let s = stdout(&midas(&[]));
    let xs: Vec<f64> = s
        .lines()
        .filter_map(|l| l.trim().strip_prefix("P(interval <"))
        .map(|l| l.split(')').next().unwrap().trim().parse().unwrap())
        .collect();
    assert!(xs.len() >= 6, "{s}");
    assert!(xs.windows(2).all(|w| w[0] <= w[1]), "{xs:?}");
}

/// `--split-scan`: GCS sizes a split's new group by every size (full, the default) or grows
/// it while the WAF drops (greedy). On zipf 1.0 data with one-block segments and at most two
/// cold groups (one split) the full scan evaluates far more configurations and predicts no
/// worse: the sizes the greedy growth visits are among those the scan evaluates.
/// `model midas ARGS --json`, which must succeed, as JSON.
fn model_json(args: &[&str]) -> serde_json::Value {
    let a: Vec<&str> = ["model", "midas"]
        .iter()
        .chain(args)
        .chain(&["--json"])
        .copied()
        .collect();
    serde_json::from_slice(&ok(&a).stdout).unwrap()
}

#[test]
fn model_midas_split_scan_full_evaluates_every_size() {
    let gcs = |scan: &str| {
        model_json(&[
            "--logical-gib",
            "1",
            "--segment-blocks",
            "1",
            "--workload",
            "zipf:1.0",
            "--volume",
            "1",
            "--max-groups",
            "2",
            "--split-scan",
            scan,
        ])["gcs"]
            .clone()
    };
    let (full, greedy) = (gcs("full"), gcs("greedy"));
    let evals = |v: &serde_json::Value| v["evaluations"].as_u64().unwrap();
    let waf = |v: &serde_json::Value| v["prediction"]["waf"].as_f64().unwrap();
    assert!(evals(&full) > 10 * evals(&greedy), "{full} vs {greedy}");
    assert!(waf(&full) <= waf(&greedy) + 1e-12, "{full} vs {greedy}");
    let o = flashgc(&["model", "midas", "--split-scan", "some"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("possible values: full, greedy"));
}

#[test]
fn model_midas_counts_trimmed_lives_unless_told_not_to() {
    // Each page is written and trimmed 1024 writes later (the authors' trace format, type 3
    // = trim): every version dies by trim after exactly 1024 writes.
    let dir = common::temp_dir("model", "trims");
    let path = dir.join("trims.midas.trace");
    let mut text = String::new();
    for k in 0..12 * 2048u64 {
        text += &format!("{k} 1 {} 4096\n", k % 2048);
        if k >= 1024 {
            text += &format!("{k} 3 {} 4096\n", (k - 1024) % 2048);
        }
    }
    std::fs::write(&path, text).unwrap();
    let w = format!("trace:{}", path.display());
    let uid = |mode: &str| {
        model_json(&[
            "--workload",
            &w,
            "--format",
            "midas",
            "--capacity",
            "auto",
            "--pages-per-block",
            "64",
            "--segment-blocks",
            "1",
            "--sample",
            "1",
            "--volume",
            "100",
            "--epoch",
            "0",
            "--fill",
            "0",
            "--uid-trims",
            mode,
        ])["uid"]
            .clone()
    };
    let (count, ignore) = (uid("count"), uid("ignore"));
    assert!(count["samples"].as_u64().unwrap() > 20_000, "{count}");
    // 1024 writes fall in the fifth bin of 256: its midpoint, 1152.
    assert!(
        (count["mean"].as_f64().unwrap() - 1152.0).abs() < 1.0,
        "{count}"
    );
    assert_eq!(ignore["samples"].as_u64(), Some(0), "{ignore}");
    let _ = std::fs::remove_dir_all(&dir);
}
