//! Bad input to the `flashgc` binary: flags out of range, config files with errors on a
//! named line, values of the wrong form, runs too large for the memory cap. Each exits 2
//! with the field (and file and line) named, never with a panic.

mod common;

use common::CLI_SMALL as SMALL;

use common::{flashgc, stderr, stdout};

#[test]
fn bad_input_exits_2_with_the_field_named_and_never_panics() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--op", "0"], "ftl.op"),
        (&["run", "--op", "-1"], "ftl.op"),
        (&["run", "--pages-per-block", "0"], "device.pages_per_block"),
        (
            &["run", "--victim", "nosuch"],
            "unknown victim policy `nosuch`",
        ),
        (
            &["run", "--placement", "nosuch"],
            "unknown placement scheme `nosuch`",
        ),
        (&["run", "--victim", "d-choices:d=0"], "run.victim.d"),
        (&["run", "--victim", "greedy:foo=1"], "run.victim.foo"),
        (&["run", "--workload", "zipf:abc"], "zipf theta"),
        (&["run", "--workload", "bogus"], "unknown workload"),
        (&["run", "--fill", "2"], "run.fill"),
        (&["run", "--gc-low", "abc"], "--gc-low"),
        (&["run", "--preset", "nosuch"], "unknown preset"),
        (
            &["run", "--config", "/nonexistent/x.toml"],
            "/nonexistent/x.toml",
        ),
        (&["run", "--logical-gib", "0.001", "--op", "0.01"], "spare"),
        (&["model", "--op", "0"], "--op"),
        (
            &["run", "--op", "0.1", "--op-of-physical", "0.1"],
            "not both",
        ),
        // A negative number was "unexpected argument '-1' found", naming no option.
        (&["run", "--pages-per-block", "-1"], "--pages-per-block"),
        (&["run", "--timing", "--idle-us", "-1"], "`--idle-us`"),
        (&["run", "--timing", "--cache-mib", "-1"], "`--cache-mib`"),
        (&["run", "--timing", "--data-gb", "-1"], "`--data-gb`"),
        (&["compare", "--jobs", "-1"], "--jobs"),
        // Empty lists ran nothing with exit code 0; `noc` silently replaced these two.
        (&["compare", "--placement", ""], "`run.placement`"),
        (&["compare", "--victim", ","], "`run.victim`"),
        (&["dedup", "--scheme", ""], "--scheme"),
        (&["noc", "--noc-path", "bogus"], "--noc-path does not apply"),
        (&["noc", "--device", "flash"], "--device does not apply"),
    ];
    for (args, needle) in cases {
        let o = flashgc(args);
        let err = stderr(&o);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: exit {:?}, stderr {err}",
            o.status.code()
        );
        assert!(
            err.contains(needle),
            "{args:?}: `{err}` does not mention `{needle}`"
        );
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    }
}

/// A series window or checkpoint interval of one page (`1e-300` was rounded up to it) put
/// a series point or a checkpoint in every page written; the floor is 1 MiB, and the
/// message names the option and the least value. Exactly 1 MiB runs.
#[test]
fn series_windows_and_checkpoint_intervals_have_a_1_mib_floor() {
    let tiny = ["--logical-gib", "0.0625", "--write-volume", "0.05"];
    let cases: &[(&[&str], &str, &str)] = &[
        (&["--window-gib", "1e-300"], "run.window_gib", ">= 1/1024"),
        (&["--window-gib", "0.0009"], "run.window_gib", ">= 1/1024"),
        (&["--window-gib", "NaN"], "run.window_gib", ">= 1/1024"),
        (&["--window-gib", "inf"], "run.window_gib", ">= 1/1024"),
        (
            &["--timing", "--checkpoint-gb", "1e-300"],
            "--checkpoint-gb",
            ">= 0.001048576",
        ),
        (
            &["--timing", "--checkpoint-gb", "0.001"],
            "--checkpoint-gb",
            ">= 0.001048576",
        ),
        (
            &["--timing", "--checkpoint-gb", "inf"],
            "--checkpoint-gb",
            ">= 0.001048576",
        ),
        (
            &["--checkpoint-every", "4k"],
            "--checkpoint-every",
            "at least 1 MiB",
        ),
        (
            &["--checkpoint-every", "1e-300x"],
            "--checkpoint-every",
            "at least 1 MiB",
        ),
    ];
    let d = std::env::temp_dir().join(format!("flashgc-cli-floor-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let ckpt = d.join("run.ckpt");
    let ckpt = ckpt.to_str().unwrap();
    for (args, field, range) in cases {
        let mut all = vec!["run"];
        all.extend(tiny);
        all.extend(*args);
        all.extend(["--checkpoint", ckpt]);
        let o = flashgc(&all);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(field) && err.contains(range),
            "{args:?}: {err}"
        );
        assert!(!std::path::Path::new(ckpt).exists(), "{args:?}: ran");
    }
    // 0.05 x 64 MiB of writes: about 3 windows or series points of 1 MiB. Checkpoints are
    // taken at safe points (every 4096 requests, 16 MiB here): 8 in 2 x 64 MiB.
    for (args, volume, least) in [
        (&["--window-gib", "0.0009765625"][..], "0.05", 2),
        (
            &["--timing", "--checkpoint-gb", "0.001048576"][..],
            "0.05",
            2,
        ),
        (&["--checkpoint-every", "1MiB"][..], "2", 4),
    ] {
        let mut all = vec!["run", "--logical-gib", "0.0625", "--write-volume", volume];
        all.extend(args);
        all.extend(["--checkpoint", ckpt, "--json"]);
        let o = flashgc(&all);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let n = match args[0] {
            "--timing" => v["timing"]["series"].as_array().map_or(0, |a| a.len()),
            "--window-gib" => v["series"].as_array().map_or(0, |a| a.len()),
            _ => stderr(&o).matches("checkpoint: ").count(),
        };
        assert!(
            (least..=least * 2).contains(&n),
            "{args:?}: {n} points or checkpoints"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn config_file_errors_name_file_line_and_field() {
    let dir = std::env::temp_dir().join(format!("flashgc-cfg-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[device]\nchannels = 4\npages_per_blok = 64\n").unwrap();
    let o = flashgc(&["run", "--config", bad.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad.toml") && err.contains("pages_per_blok"),
        "{err}"
    );
    let syntax = dir.join("syntax.toml");
    std::fs::write(&syntax, "[ftl]\nop = 0.1\nop =\n").unwrap();
    let o = flashgc(&["run", "--config", syntax.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("syntax.toml") && err.contains("line 3"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn checked_values_of_the_config_file_name_its_line() {
    // Values are checked after the file is read (layout, flows, timing); the errors named
    // only the field. A value a flag overrides is not the file's.
    let dir = std::env::temp_dir().join(format!("flashgc-cfg-lines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // (file, text, flags, the line named (None: not the file's value), field)
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], Option<&'a str>, &'a str);
    let cases: [Case; 6] = [
        (
            "ch.toml",
            "[device]\nchannels = 0\n",
            &[],
            Some("line 2"),
            "device.channels",
        ),
        (
            "op.toml",
            "# x\n[ftl]\nop = 0.5\n",
            &["--op", "0"],
            None,
            "ftl.op",
        ),
        (
            "dotted.toml",
            "\n[ftl]\ngc_low = 5\ngc_high = 3\n",
            &[],
            Some("line 4"),
            "ftl.gc_high",
        ),
        (
            "depth.toml",
            "[[flow]]\nrw = \"write\"\n[[flow]]\nname = \"r\"\niodepth = 0\n",
            &["--timing"],
            Some("line 5"),
            "iodepth",
        ),
        (
            "bs.toml",
            "[[flow]]\nbs = \"3\"\n",
            &["--timing"],
            Some("line 2"),
            "`flow `flow0`.bs`: 3 must be",
        ),
        (
            "scan.toml",
            "[run]\nseed = 3\n[[flow]]\nrw = \"read\"\n",
            &[],
            Some("line 3"),
            "requests",
        ),
    ];
    for (name, text, flags, line, field) in cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let mut args = vec!["run", "--config", p.to_str().unwrap()];
        args.extend_from_slice(flags);
        let o = flashgc(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(field), "{name}: {err}");
        match line {
            Some(l) => assert!(err.contains(&format!("{name}: {l}: ")), "{name}: {err}"),
            None => assert!(!err.contains(name), "{name}: not the file's value: {err}"),
        }
        assert!(
            !err.contains("invalid configuration: `flow `flow0``: invalid"),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn config_values_of_the_wrong_form_name_the_accepted_forms() {
    // Untagged values (a watermark, a byte size) got serde's "did not match any variant of
    // untagged enum": neither the forms nor the range.
    let dir = std::env::temp_dir().join(format!("flashgc-cfg-forms-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text, field, want) in [
        (
            "pct.toml",
            "[ftl]\ngc_low = \"200%\"\n",
            "`ftl.gc_low`",
            "(0, 100)",
        ),
        (
            "neg.toml",
            "[ftl]\ngc_high = -3\n",
            "`ftl.gc_high`",
            "0..=4294967295",
        ),
        // A key of a `[[flow]]` section is named with its section (it was `bs`).
        (
            "bs.toml",
            "[[flow]]\nbs = -4096\n",
            "`flow[0].bs`",
            "\"4k\"",
        ),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let o = flashgc(&["config", "--config", p.to_str().unwrap()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(name) && err.contains("line 2") && err.contains(field),
            "{name}: {err}"
        );
        assert!(
            err.contains(want) && !err.contains("untagged"),
            "{name}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    // Messages are one line with single spaces (string continuations once kept their
    // indentation), and a bad --numjobs is named, not the --iodepth it multiplies.
    for (args, want) in [
        (
            &[
                "run",
                "--mapping-cache",
                "64k",
                "--translation-page-bytes",
                "3",
            ][..],
            "translation_page_bytes",
        ),
        (&["run", "--max-memory", "0.0001"], "max_memory_gib"),
        (
            &["run", "--timing", "--numjobs", "0"],
            "`--numjobs`: 0 jobs",
        ),
        (
            &["run", "--timing", "--numjobs", "70000", "--iodepth", "32"],
            "70000 jobs x iodepth 32 = 2240000",
        ),
    ] {
        let o = flashgc(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("  "), "{args:?}: a run of spaces in {err:?}");
    }
}

#[test]
fn runs_that_cannot_fit_are_refused_before_allocating() {
    // 4 TiB logical needs ~8.6 GiB of tables: refused up front with the estimate, exit 2.
    let o = flashgc(&[
        "run",
        "--logical-gib",
        "4096",
        "--pages-per-block",
        "1024",
        "--max-memory",
        "1",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("run.max_memory_gib") && err.contains("needs about"),
        "{err}"
    );
    // The human report states the estimate and the measured peak RSS.
    let mut a = vec!["run"];
    a.extend_from_slice(SMALL);
    let s = stdout(&flashgc(&a));
    assert!(
        s.contains("memory: estimated") && s.contains("peak RSS"),
        "{s}"
    );
}
