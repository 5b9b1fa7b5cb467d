//! The `flashgc` binary end to end: output, exit codes, error messages.

mod common;

use common::CLI_SMALL as SMALL;

use common::{flashgc, stderr, stdout};
use std::process::Command;

#[test]
fn run_prints_units_op_definition_and_steady_state() {
    let mut a = vec!["run", "--workload", "uniform", "--op", "0.2"];
    a.extend_from_slice(SMALL);
    let o = flashgc(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    for needle in [
        "WAF steady state",
        "(physical-logical)/logical",
        "effective alpha",
        "Desnoyers Eq. 12",
        "B/LPN",
        "4096 B",
    ] {
        assert!(s.contains(needle), "missing `{needle}` in:\n{s}");
    }
}

#[test]
fn json_is_deterministic_and_complete() {
    let mut a = vec![
        "run",
        "--workload",
        "zipf:0.9",
        "--placement",
        "sup-gc",
        "--json",
    ];
    a.extend_from_slice(SMALL);
    let x = flashgc(&a);
    let y = flashgc(&a);
    assert!(x.status.success(), "{}", stderr(&x));
    assert_eq!(
        x.stdout, y.stdout,
        "same config and seed must give identical JSON"
    );
    let v: serde_json::Value = serde_json::from_slice(&x.stdout).unwrap();
    let waf = v["steady_state"]["waf"].as_f64().unwrap();
    assert!(waf > 1.0 && waf < 20.0, "{waf}");
    assert_eq!(v["units"]["page_bytes"], 4096);
    assert_eq!(v["device"]["op_given_as"], "op");
    assert!(v["memory_bytes_per_lpn"].as_f64().unwrap() < 12.0);
}

#[test]
fn op_of_physical_is_accepted_and_reported() {
    let mut a = vec!["run", "--op-of-physical", "0.2", "--json"];
    a.extend_from_slice(SMALL);
    let o = flashgc(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["device"]["op_given_as"], "op_of_physical");
    assert!((v["device"]["op_of_physical"].as_f64().unwrap() - 0.2).abs() < 0.01);
    assert!((v["device"]["op"].as_f64().unwrap() - 0.25).abs() < 0.01);
}

#[test]
fn compare_runs_every_combination_on_the_same_workload() {
    let mut a = vec![
        "compare",
        "--workload",
        "hotcold:80/20",
        "--placement",
        "single,sup-gc",
        "--victim",
        "greedy,d-choices:d=4",
        "--csv",
    ];
    a.extend_from_slice(SMALL);
    let o = flashgc(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    let rows: Vec<&str> = s.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{s}");
    assert!(
        rows.iter().any(|r| r.starts_with("sup-gc,d-choices:d=4,")),
        "{s}"
    );
    // All rows ran the same number of user writes.
    let uw: Vec<&str> = rows.iter().map(|r| r.split(',').nth(7).unwrap()).collect();
    assert!(uw.windows(2).all(|w| w[0] == w[1]), "{uw:?}");
}

#[test]
fn compare_runs_scheme_pairs_and_by_default_each_scheme_with_its_paper_victim() {
    let mut a = vec![
        "compare",
        "--scheme",
        "midas/fifo,sepbit/cost-benefit:sqrt,bf-gc:thresholds=4/2/greedy",
        "--csv",
    ];
    a.extend_from_slice(SMALL);
    let o = flashgc(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    let pairs: Vec<String> = s
        .lines()
        .skip(1)
        .map(|r| r.split(',').take(2).collect::<Vec<_>>().join("/"))
        .collect();
    assert_eq!(
        pairs,
        [
            "midas/fifo",
            "sepbit/cost-benefit:sqrt",
            "bf-gc:thresholds=4/2/greedy"
        ],
        "{s}"
    );
    // No placement, victim or scheme: every registered scheme once, with its paper's
    // victim policy, and the table says so.
    let mut a = vec!["compare"];
    a.extend_from_slice(SMALL);
    let o = flashgc(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(
        s.contains("victim policy its paper evaluates it with"),
        "{s}"
    );
    for (p, v) in [
        ("midas", "fifo"),
        ("sepbit", "cost-benefit:sqrt"),
        ("mida", "cost-benefit:sqrt"),
        ("oracle", "cost-benefit:sqrt"),
        ("sup-gc", "greedy"),
        ("mhf-opt", "greedy"),
        ("bf-opt", "greedy"),
        ("multilog", "fifo"),
    ] {
        assert!(
            s.lines().any(|l| {
                let mut w = l.split_whitespace();
                w.next() == Some(p) && w.next() == Some(v)
            }),
            "no row {p} {v} in:\n{s}"
        );
    }
}

#[test]
fn bad_scheme_pairs_and_gc_triggers_exit_2_naming_the_known_names() {
    for (args, needles) in [
        (
            vec!["compare", "--scheme", "midas/lifo"],
            vec!["unknown victim policy", "lifo", "greedy, fifo"],
        ),
        (
            vec!["compare", "--scheme", "nosuch/fifo"],
            vec!["unknown placement scheme", "nosuch", "midas"],
        ),
        (
            vec!["compare", "--scheme", "midas"],
            vec!["PLACEMENT/VICTIM", "known placements", "known victims"],
        ),
        (vec!["compare", "--scheme", "/fifo"], vec!["empty half"]),
        (
            vec!["compare", "--scheme", "midas/fifo", "--victim", "greedy"],
            vec!["cannot be used with"],
        ),
        (
            vec!["run", "--gc-trigger", "garbage:2"],
            vec!["--gc-trigger", "(0, 1)"],
        ),
        (
            vec!["run", "--victim", "greedy,min_garbage=0.1"],
            vec!["greedy:min_garbage=0.1"],
        ),
    ] {
        let o = flashgc(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        for n in needles {
            assert!(e.contains(n), "{args:?}: `{n}` not in {e}");
        }
    }
}

#[test]
fn output_file_is_written() {
    let dir = std::env::temp_dir().join(format!("flashgc-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.json");
    let p = path.to_str().unwrap();
    let mut a = vec!["run", "-o", p];
    a.extend_from_slice(SMALL);
    let o = flashgc(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(v["total"]["user_writes"].as_u64().unwrap() > 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn model_prints_every_formula() {
    let o = flashgc(&[
        "model",
        "--op",
        "0.1",
        "--pages-per-segment",
        "256",
        "--hot",
        "0.8/0.2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    for needle in [
        "Eq. 4",
        "Eq. 12",
        "alpha/(alpha-1)",
        "Eq. 14",
        "Eq. 16",
        "5.677",
        "5.561",
        "11.0000",
    ] {
        assert!(s.contains(needle), "missing `{needle}`:\n{s}");
    }
}

#[test]
fn presets_and_policies_list() {
    let o = flashgc(&["presets"]);
    let s = stdout(&o);
    for p in [
        "default",
        "cosmos-openssd",
        "ssdsim-splitgc",
        "noc-ssdc",
        "midas-128g",
        "mqsim-default",
    ] {
        assert!(s.contains(p), "{p} missing:\n{s}");
    }
    let o = flashgc(&["policies"]);
    let s = stdout(&o);
    for p in [
        "single",
        "sup-gc",
        "greedy",
        "fifo",
        "random",
        "d-choices",
        "windowed-greedy",
        "cost-benefit",
    ] {
        assert!(s.contains(p), "{p} missing:\n{s}");
    }
}

#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_flashgc"))
        .args(["presets"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn results_and_tables_say_which_variant_ran() {
    // The record spells out every parameter the schemes read, defaults included; running
    // that spelled-out spec again gives the same run.
    let json = |scheme: &str| -> serde_json::Value {
        let mut a = vec!["run", "--scheme", scheme, "--json"];
        a.extend_from_slice(SMALL);
        let o = flashgc(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let r = json("mida:hot=filter/cost-benefit");
    assert_eq!(
        r["placement_spec"],
        "mida:groups=8,hot=filter,hot_threshold=1,hot_hits=3,thr_window=16,group1=0"
    );
    assert_eq!(
        r["victim_spec"],
        "cost-benefit:formula=lfs,min_garbage=0,impl=auto"
    );
    let spelled = format!(
        "{}/{}",
        r["placement_spec"].as_str().unwrap(),
        r["victim_spec"].as_str().unwrap()
    );
    let again = json(&spelled);
    assert_eq!(again["total"], r["total"]);
    assert_eq!(again["placement_spec"], r["placement_spec"]);
    // The compare table lists each row's variant; the CSV carries it too.
    let mut a = vec!["compare", "--scheme", "oracle:fk/greedy,multilog/fifo"];
    a.extend_from_slice(SMALL);
    let o = flashgc(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("as run (every parameter"), "{s}");
    assert!(
        s.contains("oracle:fk / greedy: oracle:fk,classes=6 | greedy:min_garbage=0"),
        "{s}"
    );
    assert!(s.contains("multilog:levels=6,alpha="), "{s}");
    assert!(s.contains("candidate_garbage=0.15"), "{s}");
    a.push("--csv");
    let o = flashgc(&a);
    let s = stdout(&o);
    assert!(
        s.lines()
            .next()
            .unwrap()
            .ends_with(",placement_spec,victim_spec,ended_by"),
        "{s}"
    );
    // A run that wrote its volume is no partial result.
    assert!(
        s.lines().skip(1).all(|l| l.ends_with(",write_volume")),
        "{s}"
    );
    assert!(
        s.contains(",\"oracle:fk,classes=6\",greedy:min_garbage=0"),
        "{s}"
    );
}

/// `fio`, `noc` and `dedup` show a progress bar (pages, rate) on a terminal, as `run`
/// does; they showed none. Off a terminal stderr stays empty. The terminal is the
/// pseudo-terminal of util-linux's `script`; without it the first half is skipped.
#[cfg(unix)]
#[test]
fn fio_noc_and_dedup_show_progress_on_a_terminal_only() {
    let runs: [&[&str]; 3] = [
        &["fio", "--logical-gib", "0.0625", "--data-gb", "0.5"],
        &["noc", "--requests", "50000"],
        &[
            "dedup",
            "--small",
            "--workload",
            "uniform",
            "--scheme",
            "greedy",
        ],
    ];
    let script = Command::new("script").arg("--version").output();
    for args in runs {
        let quiet = flashgc(args);
        assert!(quiet.status.success(), "{args:?}: {}", stderr(&quiet));
        assert_eq!(stderr(&quiet), "", "{args:?}: stderr off a terminal");
        if script.is_err() {
            eprintln!("skipped the terminal half: no `script` command");
            continue;
        }
        let cmd = format!(
            "{} {} > /dev/null",
            env!("CARGO_BIN_EXE_flashgc"),
            args.join(" ")
        );
        let o = Command::new("script")
            .args(["-qfec", &cmd, "/dev/null"])
            .output()
            .unwrap();
        let tty = stdout(&o);
        assert!(o.status.success(), "{args:?}: {tty}");
        assert!(
            tty.contains(" pages ") && tty.contains("/s"),
            "{args:?}: no progress bar on the terminal: {tty:?}"
        );
    }
}

/// `flashgc run --placement midas` prints the configuration history: an adoption says when
/// its irregularity checks started (every sized group had given a victim) and a fallback
/// names the transition, its prediction and its measurement.
#[test]
fn midas_history_shows_when_checks_start_and_what_failed() {
    let o = flashgc(&[
        "run",
        "--logical-gib",
        "0.25",
        "--op",
        "0.2",
        "--workload",
        "zipf:0.9",
        "--write-volume",
        "10",
        "--warmup",
        "5",
        "--placement",
        "midas:sample=1",
        "--victim",
        "fifo",
    ]);
    assert!(o.status.success());
    let s = stdout(&o);
    let adopted = s
        .lines()
        .find(|l| l.contains("first configuration"))
        .unwrap_or_else(|| panic!("no adoption:\n{s}"));
    let from: f64 = adopted
        .split("[checks from ")
        .nth(1)
        .and_then(|t| t.trim_end_matches(']').trim().parse().ok())
        .unwrap_or_else(|| panic!("{adopted}"));
    assert!(from > 6.0 && from < 10.0, "{adopted}");
    let fb = s
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("fallback"))
        .unwrap_or_else(|| panic!("no fallback:\n{s}"));
    assert!(fb.contains("predicted") && fb.contains("measured"), "{fb}");
}
