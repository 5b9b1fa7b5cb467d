//! Errors that must name their real cause (exit 2): the flag, the field, the line of the
//! file, with numbers as a reader writes them. Each case was a message that blamed another
//! field, named no flag or file, printed hundreds of digits, or only failed mid-run with
//! "device full" (found by an adversarial sweep of the command line, 2026-11-28).

mod common;

use common::{flashgc, stderr};

/// Runs `args`, expects exit code 2, and returns standard error.
fn refused(args: &[&str]) -> String {
    let o = flashgc(args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
    assert!(!e.contains("panicked"), "{args:?}: {e}");
    e
}

#[test]
fn timing_flags_without_timing_are_named() {
    let e = refused(&["run", "--requests", "5", "--scheduler", "read-first"]);
    assert!(
        e.contains("the timing flags --requests, --scheduler were given without --timing"),
        "{e}"
    );
    let e = refused(&["run", "--cache-mib", "1"]);
    assert!(e.contains("the timing flag --cache-mib was given"), "{e}");
}

#[test]
fn empty_paths_name_their_flag_before_any_work() {
    for (args, flag) in [
        (&["run", "--config", ""][..], "--config: an empty path"),
        (
            &["trace", "convert", "x.csv", "-o", ""][..],
            "-o: an empty path",
        ),
        (
            &["run", "--timing", "--mqsim-workload", ""][..],
            "--mqsim-workload: an empty path",
        ),
    ] {
        let e = refused(args);
        assert!(e.contains(flag), "{args:?}: {e}");
    }
}

#[test]
fn a_flow_name_given_twice_names_the_second_section_and_its_line() {
    let d = common::temp_dir("named-errors", "flows");
    let f = d.join("two.toml");
    std::fs::write(&f, "[[flow]]\nname = \"a\"\n\n[[flow]]\nname = \"a\"\n").unwrap();
    let e = refused(&["run", "--timing", "--config", f.to_str().unwrap()]);
    assert!(e.contains("two.toml: line 5"), "{e}");
    assert!(e.contains("`flow[1].name`"), "{e}");
    assert!(e.contains("sections 1 and 2"), "{e}");
}

#[test]
fn extreme_values_blame_their_own_field_in_readable_numbers() {
    // Below the smallest device: the size, not the over-provisioning.
    let e = refused(&["run", "--logical-gib", "1e-300"]);
    assert!(
        e.contains("`ftl.logical_gib`: 1e-300 GiB is less than"),
        "{e}"
    );
    // Tiny over-provisioning on a real size is still op's doing.
    let e = refused(&["run", "--op-of-physical", "1e-300"]);
    assert!(e.contains("`ftl.op`"), "{e}");
    // The NoC's page crossing: the slices, not the hop time.
    let e = refused(&["noc", "--avg-slices", "1e30"]);
    assert!(e.contains("`noc.avg_slices`"), "{e}");
    assert!(e.contains("1e30 x"), "{e}");
    let e = refused(&["run", "--timing", "--rate", "1e-300"]);
    assert!(e.contains("1e-300: must be"), "{e}");
    assert!(!e.contains("0000000000"), "{e}");
    // A cache beyond the device, in the unit given (it printed u64::MAX pages).
    let e = refused(&["run", "--timing", "--cache-mib", "1e30"]);
    assert!(
        e.contains("1e30 MiB is more than the logical capacity"),
        "{e}"
    );
}

#[test]
fn translation_pages_too_small_for_the_device_are_refused_before_the_run() {
    // The table's pages live on flash: at 2 entries a page it is half the data, which the
    // device's spare cannot hold. The run used to fail midway with "device full" (exit 1).
    let base = [
        "run",
        "--logical-gib",
        "0.0625",
        "--write-volume",
        "1",
        "--pages-per-block",
        "64",
        "--op",
        "0.25",
        "--mapping-cache",
        "4k",
        "--translation-page-bytes",
    ];
    let e = refused(&[&base[..], &["8"]].concat());
    assert!(
        e.contains(
            "`ftl.mapping_cache.translation_page_bytes`: the table's 8192 translation pages"
        ),
        "{e}"
    );
    // 16 entries a page fit, and run.
    let o = flashgc(&[&base[..], &["64"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn model_midas_takes_the_placements_sample_and_unit_ranges() {
    for (flag, value) in [
        ("--sample", "0"),
        ("--sample", "2000000"),
        ("--unit", "0"),
        ("--unit", "18446744073709551615"),
    ] {
        let e = refused(&["model", "midas", flag, value]);
        assert!(e.contains(&format!("{flag} {value}: allowed range")), "{e}");
    }
}

/// Runs `args` under an address-space limit of about 4 GB (`ulimit -v`), as a container's
/// limit would, and returns the output.
fn under_ulimit(args: &[&str]) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4000000 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_flashgc"))
        .args(args)
        .output()
        .expect("sh runs")
}

#[test]
fn placement_tables_beyond_the_memory_are_refused_before_they_are_allocated() {
    // The filters and counters were allocated before run.max_memory_gib was checked: under
    // an address-space limit the process aborted ("memory allocation of N bytes failed").
    let small = [
        "--logical-gib",
        "0.0625",
        "--pages-per-block",
        "32",
        "--write-volume",
        "0.2",
    ];
    for (placement, field, extra) in [
        ("mbf:bits=68719476736", "`run.placement.bits`", None),
        ("mbf:bits=8589934592", "`run.placement.bits`", Some("100")),
        (
            "mhf:counters=17179869184,bits=8",
            "`run.placement.counters`",
            None,
        ),
        ("midas:unit=1,epoch=1000", "`run.placement.unit`", None),
        (
            "midas:unit=1,epoch=1000",
            "`run.placement.unit`",
            Some("100"),
        ),
    ] {
        let mut args = vec!["run", "--placement", placement];
        args.extend(small);
        if let Some(gib) = extra {
            args.extend(["--max-memory", gib]);
        }
        let o = under_ulimit(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(field), "{args:?}: {e}");
        assert!(
            e.contains("GiB") && !e.contains("memory allocation of"),
            "{args:?}: {e}"
        );
        // Under the default limit the message names it; with a limit above the process's
        // reach the allocation itself fails cleanly.
        if extra.is_none() {
            assert!(e.contains("run.max_memory_gib"), "{args:?}: {e}");
        } else {
            assert!(e.contains("cannot allocate"), "{args:?}: {e}");
        }
    }
    // An explicit limit is checked the same way, before allocating, with no ulimit.
    let mut args = vec![
        "run",
        "--placement",
        "mbf:bits=68719476736",
        "--max-memory",
        "1",
    ];
    args.extend(small);
    let e = refused(&args);
    assert!(
        e.contains("`run.placement.bits`: `mbf` needs 34359738368 B (32.00 GiB) for its 4 filters")
            && e.contains("run.max_memory_gib = 1.00 GiB"),
        "{e}"
    );
}

#[test]
fn scheme_parameters_out_of_their_type_say_out_of_range_and_bare_words_name_the_scheme() {
    let e = refused(&["run", "--placement", "dac:regions=100000000000"]);
    assert!(
        e.contains("`run.placement.regions`: `100000000000` is out of range; allowed range 2..=16"),
        "{e}"
    );
    let e = refused(&["run", "--victim", "d-choices:d=100000000000"]);
    assert!(
        e.contains("`run.victim.d`: `100000000000` is out of range; allowed range 1..=4096"),
        "{e}"
    );
    let e = refused(&["run", "--placement", "sup-gc:x"]);
    assert!(
        e.contains("`run.placement`: `sup-gc` takes no parameter `x`; it takes no parameters")
            && !e.contains("run.placement._"),
        "{e}"
    );
    let e = refused(&["run", "--victim", "d-choices:d"]);
    assert!(
        e.contains("`run.victim`: `d` needs a value: `d-choices:d=VALUE`"),
        "{e}"
    );
}

#[test]
fn a_min_garbage_filter_that_fills_the_device_names_the_parameter() {
    // It ended with "device full" and exit code 1, naming no parameter.
    let e = refused(&small(&[
        "--write-volume",
        "1",
        "--victim",
        "greedy:min_garbage=0.5",
    ]));
    assert!(
        e.contains("`run.victim.min_garbage`: device full: the victim policy `greedy`'s min_garbage filter")
            && e.contains("kept GC from freeing space")
            && e.contains("--victim greedy:min_garbage=G"),
        "{e}"
    );
}

#[test]
fn fio_flags_checked_on_the_device_are_named_as_typed() {
    // The device checks of a job the flags describe named `fio.bssplit` (or `flow
    // `job.0`.bssplit` with --numjobs), names the user never typed.
    for (args, flag) in [
        (&["fio", "--bssplit", "6k/100"][..], "`--bssplit`: 6144"),
        (
            &["fio", "--bssplit", "6k/100", "--numjobs", "2"][..],
            "`--bssplit`: 6144",
        ),
        (&["fio", "--bs", "6k"][..], "`--bs`: 6144"),
        (
            &[
                "run",
                "--timing",
                "--rw",
                "randwrite",
                "--bssplit",
                "6k/100",
            ][..],
            "`--bssplit`: 6144",
        ),
    ] {
        let mut a = args.to_vec();
        a.extend(["--logical-gib", "0.0625"]);
        let e = refused(&a);
        assert!(
            e.contains(flag) && !e.contains("fio.") && !e.contains("flow `"),
            "{a:?}: {e}"
        );
    }
}

#[test]
fn model_refuses_an_op_whose_waf_is_not_finite() {
    // `--op 1e-300` printed inf (JSON null).
    for op in ["1e-300", "1e-9"] {
        for json in [false, true] {
            let mut a = vec!["model", "--op", op];
            if json {
                a.push("--json");
            }
            let e = refused(&a);
            assert!(
                e.contains(&format!("--op {op}: allowed range [1e-6, 10]")),
                "{a:?}: {e}"
            );
        }
    }
    let o = flashgc(&["model", "--op", "1e-6", "--json"]);
    let rows = common::json(&o)["rows"].as_array().unwrap().clone();
    assert!(rows.iter().all(|r| r[1].is_f64()), "{rows:?}");
}

/// `run` on the 64 MiB device of the fio and flow tests, then `extra`.
fn small<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["run"];
    v.extend_from_slice(common::FIO_SMALL);
    v.extend_from_slice(extra);
    v
}

#[test]
fn synthetic_flags_are_refused_for_traces_and_flows() {
    // --read-ratio and --request-pages were dropped without a word where the workload sets
    // its own reads and sizes.
    let dir = std::env::temp_dir().join(format!("flashgc-synth-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.csv");
    std::fs::write(&trace, "128166372003061629,hm,0,Write,0,4096,100\n").unwrap();
    let w = format!("trace:{}", trace.display());
    let o = flashgc(&small(&["--workload", &w, "--read-ratio", "0.5"]));
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("--read-ratio: synthetic workloads only; the workload is the trace"),
        "{e}"
    );
    let flows = dir.join("flows.toml");
    std::fs::write(
        &flows,
        "[[flow]]\nname = \"a\"\nrw = \"randwrite\"\nbs = 4096\niodepth = 4\n",
    )
    .unwrap();
    let f = flows.to_str().unwrap();
    let o = flashgc(&small(&[
        "--config",
        f,
        "--timing",
        "--read-ratio",
        "0.5",
        "--request-pages",
        "2",
    ]));
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("--read-ratio, --request-pages: synthetic workloads only; the workload is the configuration's [[flow]] sections"),
        "{e}"
    );
    let o = flashgc(&small(&["--workload", "uniform", "--read-ratio", "0.5"]));
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn options_of_a_mode_that_is_off_are_refused() {
    // Each was dropped without a word: a GCaR window without the GCaR policy, a proactive
    // GC threshold without proactive GC.
    for (args, want) in [
        (
            &["--timing", "--gcar-window", "5"][..],
            "`--gcar-window`: applies to the GCaR write-cache policy only: give --cache-policy gcar",
        ),
        (
            &["--timing", "--bg-free", "3"],
            "`--bg-free`: applies to proactive GC only: give --gc-mode background or idle",
        ),
    ] {
        let e = refused(&small(args));
        assert!(e.contains(want), "{args:?}: {e}");
    }
    for args in [
        &[
            "--timing",
            "--cache-mib",
            "1",
            "--cache-policy",
            "gcar",
            "--gcar-window",
            "5",
        ][..],
        &["--timing", "--gc-mode", "idle", "--bg-free", "3"],
    ] {
        let o = flashgc(&small(&[&["--write-volume", "0.2"][..], args].concat()));
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn content_flags_without_content_mode_are_refused() {
    // With the `move` GC action no content is tracked: --dup-ratio changed nothing.
    let e = refused(&small(&["--dup-ratio", "0.9", "--dup-pool", "5"]));
    assert!(
        e.contains("--dup-ratio, --dup-pool: options of the content mode, which the GC action `move` does not use"),
        "{e}"
    );
    let o = flashgc(&small(&[
        "--dup-ratio",
        "0.9",
        "--gc-action",
        "cagc",
        "--write-volume",
        "0.2",
    ]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
