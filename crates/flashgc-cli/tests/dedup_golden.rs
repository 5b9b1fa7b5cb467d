//! Differential test of `flashgc dedup` against the retired dedup stack's goldens
//! (crates/flashgc-core/tests/golden/dedup/, from f514c17). The schemes whose decisions do
//! not depend on simulated time (greedy, and the upper-bound variants `cagc:index=full` and
//! `dagc:cache=unbounded`, which are the retired CAGC and DAGC) give its steady-state
//! migrated pages, erases and WAF exactly; where they cannot, the difference is pinned
//! here and explained in docs/splitgc.md ("Differences").

use std::path::{Path, PathBuf};
use std::process::Command;

fn golden(name: &str) -> Vec<serde_json::Value> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../flashgc-core/tests/golden/dedup")
        .join(name);
    serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap()
}

fn run(args: &[&str]) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_flashgc"))
        .arg("dedup")
        .args(args)
        .args([
            "--scheme",
            "greedy,cagc:index=full,dagc:cache=unbounded,splitgc",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (migrated pages, erases, WAF) of the steady state.
fn steady(r: &serde_json::Value) -> (u64, u64, f64) {
    let s = &r["result"]["steady_state"];
    (
        s["gc_writes"].as_u64().unwrap(),
        s["erases"].as_u64().unwrap(),
        s["waf"].as_f64().unwrap(),
    )
}

fn old(r: &serde_json::Value) -> (u64, u64, f64) {
    (
        r["migrated_pages"].as_u64().unwrap(),
        r["erases"].as_u64().unwrap(),
        r["waf"].as_f64().unwrap(),
    )
}

/// Compares greedy, CAGC and DAGC exactly (CAGC within `cagc_tol` pages: see below) and
/// returns (SplitGC new, SplitGC old, greedy) migrated pages.
fn compare(
    gold: &[serde_json::Value],
    new: &[serde_json::Value],
    cagc_tol: u64,
) -> (u64, u64, u64) {
    assert_eq!(gold.len(), 4);
    assert_eq!(new.len(), 4);
    // Golden order: greedy, cagc, dagc, splitgc; ours: the same schemes.
    for (i, name) in ["greedy", "cagc", "dagc"].iter().enumerate() {
        let (n, o) = (steady(&new[i]), old(&gold[i]));
        if *name == "cagc" && cagc_tol > 0 {
            assert!(n.0.abs_diff(o.0) <= cagc_tol, "{name}: {n:?} vs {o:?}");
        } else {
            assert_eq!(n.0, o.0, "{name}: migrated pages");
            assert_eq!(n.1, o.1, "{name}: erases");
            // The recorder starts the steady state at the exact warm-up page, the retired
            // driver at the request boundary after it: on a trace the user pages counted
            // may differ by one.
            assert!(
                (n.2 - o.2).abs() / o.2 < 1e-3,
                "{name}: WAF {} vs {}",
                n.2,
                o.2
            );
        }
    }
    (steady(&new[3]).0, old(&gold[3]).0, steady(&new[0]).0)
}

#[test]
fn dedup_preset_reproduces_the_retired_stack_where_time_does_not_decide() {
    let gold = golden("small-uniform-device.json");
    let new = run(&["--small", "--requests", "300000"]);
    let (s, so, g) = compare(&gold, &new, 0);
    eprintln!("splitgc {s} (retired driver {so}), greedy {g}");
    // SplitGC depends on how much idle-time work the driver runs: the one host driver runs
    // one background step at a time, each after the previous one's flash operations, and
    // does not charge the scrub's ECC and fingerprint compute (`--cpu-cost` off, the default);
    // the retired driver issued all scrub reads of an idle period at its start and charged
    // compute on one engine. Pinned: still below greedy, within 10 % of the retired driver.
    assert!(s < g, "splitgc {s} vs greedy {g}");
    assert!(s.abs_diff(so) * 10 <= so, "splitgc {s} vs retired {so}");
}

fn fiu() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
    let d = std::env::var_os("FLASHGC_TRACES")
        .map(PathBuf::from)
        .unwrap_or(d);
    let f = d.join("fiu/cheetah.cs.fiu.edu-110108-113008.2.head10008.blkparse");
    if f.is_file() {
        Some(f)
    } else {
        eprintln!(
            "SKIPPED: FIU trace {} is absent (set FLASHGC_TRACES to point at the traces folder)",
            f.display()
        );
        None
    }
}

#[test]
fn dedup_preset_on_the_fiu_slice_reproduces_the_retired_stack() {
    let Some(f) = fiu() else { return };
    let gold = golden("fiu-cheetah-device.json");
    let w = format!("trace:{}", f.display());
    let new = run(&[
        "--workload",
        &w,
        "--format",
        "fiu",
        "--remap",
        "modulo",
        "--blocks-per-plane",
        "2",
        "--pages-per-block",
        "16",
        "--loop-until",
        "5",
        "--dup-ratio",
        "0",
    ]);
    // CAGC has two streams (hot, cold): the core greedy victim policy breaks ties between
    // them by stream index, the retired FTL by arrival order: a few pages apart.
    let (s, so, g) = compare(&gold, &new, 64);
    eprintln!("fiu: splitgc {s} (retired {so}), greedy {g}");
    assert!(s < g);
}
