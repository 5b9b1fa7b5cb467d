//! `--trace-flushes` from the command line: a blkparse trace's flushes and FUA writes reach
//! the simulated write cache (`--cache-mib`) in `flashgc run`, `trace stats` and `trace
//! head` show them, `ignore` replays the writes alone, and bad values exit with code 2.

mod common;

use common::bin;
use serde_json::Value;

/// Eight writes, a flush (`D FN`), a FUA write, a preflush write and two more writes, on
/// 8,0: with a cache, the flush programs the eight, the FUA write its own page, the
/// preflush write's flush nothing new (the FUA page is clean), and three pages stay dirty.
fn trace() -> String {
    let mut s = String::new();
    for i in 0..8u64 {
        s.push_str(&format!(
            "  8,0 0 {i} 0.{:09} 1 D W {} + 8 [a]\n",
            i * 1_000_000,
            i * 8
        ));
    }
    s.push_str("  8,0 0 9 0.010000000 1 D FN [a]\n");
    s.push_str("  8,0 0 10 0.020000000 1 D WFS 1000 + 8 [a]\n");
    s.push_str("  8,0 0 11 0.030000000 1 D FWS 2000 + 8 [a]\n");
    s.push_str("  8,0 0 12 0.040000000 1 D W 3000 + 8 [a]\n");
    s.push_str("  8,0 0 13 0.050000000 1 D W 3008 + 8 [a]\n");
    s
}

fn run(path: &std::path::Path, extra: &[&str]) -> Value {
    let w = format!("trace:{}", path.display());
    let mut a = vec!["run"];
    a.extend_from_slice(common::FIO_SMALL);
    a.extend_from_slice(&["--workload", &w, "--timing", "--cache-mib", "4", "--json"]);
    a.extend_from_slice(extra);
    common::json(&common::flashgc(&a))
}

#[test]
fn trace_flushes_reach_the_write_cache_unless_ignored() {
    let d = common::temp_dir("trace-flush-cli", "run");
    let p = d.join("f.blkparse.txt");
    std::fs::write(&p, trace()).unwrap();
    let r = run(&p, &[]);
    let t = &r["timing"];
    assert_eq!(
        (&t["flushes"], &t["fua_writes"]),
        (&2.into(), &1.into()),
        "{t}"
    );
    assert_eq!(t["requests"], 12);
    // Programmed: the eight flushed pages and the FUA page; dirty: the last three.
    assert_eq!(r["total"]["user_writes"], 9, "{}", r["total"]);
    assert_eq!(t["cache"]["dirty_at_end"], 3);
    let workload = r["workload"].as_str().unwrap_or_default();
    assert!(
        workload.contains("12 requests, 2 flushes, 1 FUA writes"),
        "{workload}"
    );
    let no_flush_note = |r: &Value| {
        r["notes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| !n.as_str().unwrap().contains("flushes and"))
    };
    assert!(no_flush_note(&r), "{}", r["notes"]);
    // Without the cache the flushes program nothing, and a note says so (as serve's does).
    let w = format!("trace:{}", p.display());
    let mut a = vec!["run"];
    a.extend_from_slice(common::FIO_SMALL);
    a.extend_from_slice(&["--workload", &w, "--timing", "--json"]);
    let bare = common::json(&common::flashgc(&a));
    assert!(
        bare["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with("2 flushes and 1 FUA writes: without a write cache")),
        "{}",
        bare["notes"]
    );
    // Ignored: nothing reaches flash, every page stays dirty.
    let r = run(&p, &["--trace-flushes", "ignore"]);
    assert_eq!(r["total"]["user_writes"], 0);
    assert_eq!(r["timing"]["cache"]["dirty_at_end"], 12);
    assert!(!r["workload"].as_str().unwrap().contains("FUA"));
    assert!(no_flush_note(&r), "{}", r["notes"]);
    // `trace stats` and `trace head` show them.
    let st = bin().args(["trace", "stats"]).arg(&p).output().unwrap();
    let text = String::from_utf8_lossy(&st.stdout);
    assert!(
        text.contains("flushes    2 (not requests); FUA writes 1"),
        "{text}"
    );
    let head = bin()
        .args(["trace", "head", "-n", "10"])
        .arg(&p)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&head.stdout);
    assert_eq!(text.matches(" flush ").count(), 1, "{text}");
    // Bad values and a synthetic workload are refused with exit code 2.
    let out = bin()
        .arg("run")
        .args(common::FIO_SMALL)
        .arg("--workload")
        .arg(format!("trace:{}", p.display()))
        .args(["--trace-flushes", "sometimes"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("--trace-flushes") && e.contains("replay, ignore"),
        "{e}"
    );
    let out = bin()
        .arg("run")
        .args(common::FIO_SMALL)
        .args(["--workload", "uniform", "--trace-flushes", "ignore"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("--trace-flushes applies to trace workloads"),
        "{e}"
    );
}
