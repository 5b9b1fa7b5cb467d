//! What a new user sees first: the top-level help, `compare`'s table and progress, and the
//! timed summary of a run without reads (issues found by walking the README as a new user).

mod common;

use common::{flashgc, stdout_ok, SMALL as TINY};
use std::process::Command;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The top-level help says what flashgc is and where to start (it said "The flashgc
/// command line", the package description).
#[test]
fn top_level_help_says_what_flashgc_is_and_where_to_start() {
    let o = flashgc(&["--help"]);
    assert!(o.status.success());
    let s = text(&o.stdout);
    assert!(s.contains("garbage collection"), "{s}");
    assert!(s.contains("Start with `flashgc compare`"), "{s}");
    let p = text(&flashgc(&["help", "policies"]).stdout);
    assert!(
        p.contains("GC actions"),
        "`policies` lists GC actions too: {p}"
    );
}

/// `compare` crossing a pair with several GC actions prints the pair's "as run" line once
/// (it printed one identical line per action).
#[test]
fn compare_lists_each_pairs_specs_once_across_gc_actions() {
    let mut a = vec![
        "compare",
        "--workload",
        "uniform",
        "--placement",
        "single,sup-gc",
        "--victim",
        "greedy",
        "--gc-action",
        "move,cagc",
    ];
    a.extend_from_slice(TINY);
    let s = stdout_ok(&a);
    // Four rows in the table, two pairs in the "as run" list.
    assert_eq!(s.matches("+cagc").count(), 2, "{s}");
    for pair in ["  single / greedy: ", "  sup-gc / greedy: "] {
        let n = s.lines().filter(|l| l.starts_with(pair)).count();
        assert_eq!(n, 1, "`{pair}` listed {n} times:\n{s}");
    }
}

/// A timed run without reads says so instead of printing read percentiles of 0.0 us,
/// which read as instant service; so does `fio`'s one-line summary.
#[test]
fn timed_runs_without_reads_print_no_read_percentiles() {
    let mut a = vec!["run", "--timing", "--workload", "uniform"];
    a.extend_from_slice(TINY);
    let s = stdout_ok(&a);
    assert!(s.contains("  read  latency: no requests\n"), "{s}");
    assert!(!s.contains("read  latency us"), "{s}");
    assert!(s.contains("write latency us: mean "), "{s}");

    let s = stdout_ok(&[
        "fio",
        "--logical-gib",
        "0.0625",
        "--rw",
        "randwrite",
        "--data-gb",
        "0.1",
    ]);
    let row = s
        .lines()
        .find(|l| l.contains(" IOPS "))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(row.contains("read p99         - us"), "{row}");
    assert!(!row.contains("write p99         - us"), "{row}");

    // `dedup` and `noc` print their latency lines the same way.
    let s = stdout_ok(&[
        "dedup",
        "--small",
        "--workload",
        "uniform",
        "--scheme",
        "greedy",
    ]);
    assert!(s.contains(" read  no requests\n"), "{s}");
    assert!(!s.contains("read  avg"), "{s}");
    assert!(s.contains(" write avg "), "{s}");
    let s = stdout_ok(&[
        "noc",
        "--workload",
        "uniform",
        "--rate",
        "300",
        "--requests",
        "5000",
    ]);
    assert!(s.contains("    read  us: no requests\n"), "{s}");
    assert!(s.contains("    write us: mean "), "{s}");
    let cmp = s
        .lines()
        .find(|l| l.contains("selective vs conventional"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        cmp.contains("mean read -, ") && cmp.contains("peak read -, "),
        "{cmp}"
    );
    assert!(!cmp.contains("--") && !cmp.contains("-0.00"), "{cmp}");
}

/// On a terminal, `compare`'s bar moves while a run is under way (it counted finished
/// runs only, so one long run showed 0/1 until its end). The terminal is util-linux's
/// `script`; without it the test is skipped.
#[cfg(unix)]
#[test]
fn compare_progress_moves_within_a_run_on_a_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` command");
        return;
    }
    // One run of about a second: several progress reports (every 0.25 s) before it ends.
    // (At 16 x capacity it took 0.2 s once GC relocation ran per victim: no report within.)
    // An 80-column terminal: the bar must fit on one line (a 30-column bar with the counts
    // and the WAF wrapped, and every redraw then moved the cursor up a line).
    let cmd = format!(
        "stty cols 80 rows 24; {} compare --workload uniform --placement single --victim greedy \
         --logical-gib 1 --write-volume 96 > /dev/null; {} run --workload uniform \
         --logical-gib 1 --write-volume 8 > /dev/null",
        env!("CARGO_BIN_EXE_flashgc"),
        env!("CARGO_BIN_EXE_flashgc")
    );
    let o = Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .output()
        .unwrap();
    let tty = text(&o.stdout);
    assert!(o.status.success(), "{tty}");
    let within: Vec<u32> = tty
        .split(" % of 1 runs")
        .filter_map(|before| before.rsplit(' ').next()?.parse().ok())
        .filter(|p| (1..100).contains(p))
        .collect();
    assert!(
        !within.is_empty(),
        "no percentage between 0 and 100 on the terminal: {tty:?}"
    );
    assert!(tty.contains(" pages "), "no bar of `run`: {tty:?}");
    for line in tty.split(['\r', '\n']) {
        let visible: String = line
            .split('\x1b')
            .enumerate()
            // Drop each escape sequence: `[` then parameters up to a letter.
            .map(|(i, part)| {
                if i == 0 {
                    part
                } else {
                    let end = part
                        .find(|c: char| c.is_ascii_alphabetic())
                        .map_or(0, |e| e + 1);
                    &part[end..]
                }
            })
            .collect();
        assert!(
            visible.trim_end().chars().count() <= 80,
            "a bar line wider than the terminal: {visible:?}"
        );
    }
}

/// `--capacity auto` on a small trace enlarges the device and says so once; it also
/// printed an advisory about an `ftl.logical_gib` the user never gave (the search's last
/// request, which whole blocks rounded up), and stored that value in the result.
#[test]
fn capacity_auto_reports_the_device_it_built_not_its_search() {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
    let d = std::env::var_os("FLASHGC_TRACES")
        .map(std::path::PathBuf::from)
        .unwrap_or(d);
    let t = d.join("msr_cambridge/msr-cambridge1-sample.csv");
    if !t.is_file() {
        eprintln!("SKIPPED: {} is absent (FLASHGC_TRACES)", t.display());
        return;
    }
    let w = format!("trace:{}", t.display());
    let o = flashgc(&[
        "run",
        "--workload",
        &w,
        "--capacity",
        "auto",
        "--remap",
        "compact",
        "--loop-until",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("the device was enlarged to"), "{err}");
    assert!(!err.contains("ftl.logical_gib ="), "{err}");
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let notes = r["notes"].to_string();
    assert!(!notes.contains("ftl.logical_gib ="), "{notes}");
    // The device is the one the search chose (17226 logical pages on the default preset,
    // the smallest that holds the trace's 1917 pages and still garbage-collects).
    assert_eq!(r["device"]["logical_pages"], 17226, "{}", r["device"]);
}

/// A run over the memory limit says how to raise it, on the command line and in Python.
#[test]
fn the_memory_limit_error_names_the_flag() {
    let o = flashgc(&["run", "--logical-gib", "64", "--max-memory", "0.01"]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("--max-memory GIB") && e.contains("max_memory_gib"),
        "{e}"
    );
    let o = flashgc(&[
        "run",
        "--timing",
        "--logical-gib",
        "64",
        "--max-memory",
        "0.01",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(e.contains("--max-memory GIB"), "{e}");
}

/// `flashgc presets` marks a description it cuts mid-sentence (it ended lines with
/// "and papers/bf-gc.txt:" or "2048 blocks per") and says where the whole text is.
#[test]
fn the_preset_list_marks_cut_descriptions() {
    let o = flashgc(&["presets"]);
    assert!(o.status.success());
    let s = text(&o.stdout);
    assert!(s.contains("`flashgc presets NAME`"), "{s}");
    for l in s.lines().skip(1) {
        assert!(l.ends_with('.') || l.ends_with(" ..."), "`{l}`");
    }
    let cosmos = s.lines().find(|l| l.starts_with("cosmos-openssd")).unwrap();
    assert!(cosmos.ends_with("papers/bf-gc.txt ..."), "{cosmos}");
}

/// The run summary gives every count its unit (GC writes and erases had none; erases
/// count segments, which a superblock device makes differ from blocks).
#[test]
fn run_counts_carry_their_units() {
    let mut a = vec!["run", "--workload", "uniform", "--segment-blocks", "4"];
    a.extend_from_slice(TINY);
    let s = stdout_ok(&a);
    let line = s
        .lines()
        .find(|l| l.starts_with("user writes "))
        .unwrap_or_else(|| panic!("{s}"));
    for unit in [
        " pages (",
        "GC writes ",
        " pages | erases ",
        " segments | GC victims ",
    ] {
        assert!(line.contains(unit), "`{unit}` in {line}");
    }
    assert!(line.ends_with(" pages"), "{line}");
}

/// A checkpoint's line says where the run is in the unit `--checkpoint-every 1x` uses.
#[test]
fn checkpoint_lines_say_the_capacity_written() {
    let dir = std::env::temp_dir().join(format!("flashgc-first-steps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ckpt = dir.join("r.ckpt");
    let mut a = vec!["run", "--workload", "uniform", "--checkpoint-every", "1x"];
    a.extend_from_slice(TINY);
    let o = common::bin()
        .args(&a)
        .arg("--checkpoint")
        .arg(&ckpt)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    let first = e
        .lines()
        .find(|l| l.starts_with("checkpoint: "))
        .unwrap_or_else(|| panic!("{e}"));
    // The first checkpoint lands at the first safe point past 1 x capacity (safe points
    // are 4096 requests apart: 0.25 x on this small device).
    let x: f64 = first
        .split(" user pages (")
        .nth(1)
        .and_then(|t| t.split(" x capacity").next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{first}"));
    assert!((1.0..1.3).contains(&x), "{first}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `compare --timing` shows the timing figures in its table (it showed only the WAF
/// columns, so a timed comparison printed no IOPS or latency at all).
#[test]
fn a_timed_compare_table_shows_iops_and_tails() {
    let mut a = vec![
        "compare",
        "--timing",
        "--workload",
        "uniform",
        "--placement",
        "single,sup-gc",
    ];
    a.extend_from_slice(TINY);
    let s = stdout_ok(&a);
    let head = s
        .lines()
        .find(|l| l.starts_with("placement "))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        head.contains(" IOPS ") && head.contains("wr p99 us"),
        "{head}"
    );
    for scheme in ["single ", "sup-gc "] {
        let row = s
            .lines()
            .find(|l| l.starts_with(scheme))
            .unwrap_or_else(|| panic!("{s}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        // ... model WAF, IOPS, rd p99, wr p99, secs: a write-only run has no read tail.
        let n = cells.len();
        assert_eq!(cells[n - 3], "-", "{row}");
        assert!(cells[n - 2].parse::<f64>().unwrap() > 0.0, "{row}");
        assert!(cells[n - 4].parse::<f64>().unwrap() > 0.0, "{row}");
    }
    assert!(
        s.contains("IOPS = host requests per simulated second"),
        "{s}"
    );
    // A WAF-only comparison keeps its columns.
    let mut a = vec!["compare", "--workload", "uniform", "--placement", "single"];
    a.extend_from_slice(TINY);
    let s = text(&flashgc(&a).stdout);
    assert!(!s.contains("IOPS"), "{s}");
}

/// A fio job's volume is host data (`--data-gb`, default numjobs x size as fio): the
/// synthetic runs' `--write-volume` and `--warmup` get a warning with that hint (they were
/// ignored without a word: `flashgc fio --write-volume 3` wrote one capacity).
#[test]
fn fio_jobs_warn_that_the_synthetic_volume_flags_do_not_apply() {
    for args in [
        &["fio", "--logical-gib", "0.0625", "--write-volume", "3"][..],
        &["fio", "--logical-gib", "0.0625", "--warmup", "0.5"][..],
        &[
            "run",
            "--timing",
            "--rw",
            "randwrite",
            "--logical-gib",
            "0.0625",
            "--write-volume",
            "3",
        ][..],
        &[
            "compare",
            "--timing",
            "--rwmixwrite",
            "50",
            "--placement",
            "single",
            "--logical-gib",
            "0.0625",
            "--warmup",
            "0.5",
        ][..],
    ] {
        let o = flashgc(args);
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        let e = text(&o.stderr);
        assert!(
            e.contains("does not apply to a fio job and is ignored") && e.contains("--data-gb"),
            "{args:?}: {e}"
        );
    }
    // Synthetic workloads use them: no warning.
    let mut a = vec!["run", "--timing", "--workload", "uniform"];
    a.extend_from_slice(TINY);
    let o = flashgc(&a);
    assert!(o.status.success());
    assert!(
        !text(&o.stderr).contains("does not apply"),
        "{}",
        text(&o.stderr)
    );
}

/// Looping a trace whose timestamps jump by decades (blkparse's per-CPU clock artifact in
/// two of the shared blkparse traces) stops with the span in years and what to do; it
/// gave the pass length in ns and "use a smaller --time-scale" alone.
#[test]
fn a_loop_past_the_clock_says_how_long_a_pass_is_and_what_to_do() {
    let dir = std::env::temp_dir().join(format!("flashgc-first-jump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // MSR ticks are 100 ns: two writes 10 s apart, then one 50 years later.
    let t0 = 128_166_385_295_514_663u64;
    let ticks = [0u64, 100_000_000, 50 * 31_557_600 * 10_000_000];
    let trace: String = ticks
        .iter()
        .enumerate()
        .map(|(i, dt)| format!("{},hm,0,Write,{},4096,100\n", t0 + dt, i * 4096))
        .collect();
    let p = dir.join("jump.csv");
    std::fs::write(&p, trace).unwrap();
    let w = format!("trace:{}", p.display());
    let o = flashgc(&[
        "run",
        "--workload",
        &w,
        "--capacity",
        "auto",
        "--loop-until",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    // A pass is the span plus one mean gap: 50 + 25 years.
    assert!(e.contains("75.0 years"), "{e}");
    assert!(e.contains("--time-scale 1e-6"), "{e}");
    assert!(e.contains("bogus timestamp jump"), "{e}");
    // The hint works: a WAF-only run with the times scaled down finishes.
    let o = flashgc(&[
        "run",
        "--workload",
        &w,
        "--capacity",
        "auto",
        "--loop-until",
        "2",
        "--time-scale",
        "1e-6",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
