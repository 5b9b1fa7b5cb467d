//! Flags and commands whose bad values must be the flag's own error (exit 2, naming it),
//! never silently ignored or misread: negative values, flags that would be ignored,
//! `serve`'s fio flags, the Python commands without the package; and the same values
//! given in a configuration file, which name the file, the line and the field, not a
//! flag. (Split from robustness.rs, which it follows.)

mod common;

use common::{bin, flashgc, stderr, SMALL};

use std::path::PathBuf;
use std::time::Duration;

fn dir(name: &str) -> PathBuf {
    common::temp_dir("flags", name)
}

#[test]
fn negative_values_are_refused_naming_the_flag() {
    // A negative size after a flag that takes a value reached clap as an unknown short flag
    // ("unexpected argument '-6' found"), naming neither the flag nor the value; `model
    // midas` refused even `--op -1` so. Each must be the flag's own error, exit code 2.
    let cases: [(&[&str], &str); 9] = [
        (&["run", "--gc-low", "-2"], "--gc-low"),
        (&["run", "--gc-high", "-5%"], "--gc-high"),
        (&["run", "--mapping-cache", "-64k"], "--mapping-cache"),
        (&["run", "--checkpoint-every", "-1x"], "--checkpoint-every"),
        (&["fio", "--bs", "-4k"], "--bs"),
        (&["fio", "--size", "-1g"], "--size"),
        (&["model", "midas", "--op", "-1"], "ftl.op"),
        (&["model", "midas", "--volume", "-1"], "--volume"),
        (&["noc", "--burst-len", "-1"], "--burst-len"),
    ];
    for (args, flag) in cases {
        let o = flashgc(args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(flag), "{args:?}: {e}");
        assert!(!e.contains("unexpected argument"), "{args:?}: {e}");
    }
    // A flag whose value is missing still says so (the next flag is not taken as its value).
    let o = flashgc(&["run", "--gc-low", "--op", "0.1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("a value is required for '--gc-low"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn sweep_without_the_python_package_says_how_to_install_it() {
    // `flashgc sweep|report|reproduce` run `python3 -m flashgc`; a Python without the
    // package printed only Python's "No module named flashgc" and exited 1.
    let d = dir("no-python-package");
    let py = d.join("python-without-site");
    std::fs::write(&py, "#!/bin/sh\nexec python3 -S \"$@\"\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&py, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for sub in ["sweep", "report", "reproduce"] {
        let o = bin()
            .args([sub, "anything"])
            .env("FLASHGC_PYTHON", &py)
            .output()
            .expect("binary runs");
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{sub}: {e}");
        assert!(e.contains("has no `flashgc` package"), "{sub}: {e}");
        assert!(e.contains("FLASHGC_PYTHON"), "{sub}: {e}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn reproduce_hands_claim_ids_to_python_as_given() {
    // `flashgc reproduce` passes its arguments to `python -m flashgc reproduce` untouched:
    // `--claim` ids with their `PAPER:ID` colons and commas, the `--claim=ID` form and a
    // `--help` after them must reach Python (not clap), and Python's exit code (2: an
    // unknown claim id) must be the command's.
    let d = dir("reproduce-claim-forwarding");
    let log = d.join("argv");
    let py = d.join("python-recording-argv");
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = -c ] && exit 0\nprintf '%s\\n' \"$@\" > '{}'\nexit 2\n",
        log.display()
    );
    std::fs::write(&py, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&py, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let args = [
        "reproduce",
        "noc",
        "--claim",
        "noc:T4-write-mean:cassandra,T5-write-max:cassandra",
        "--claim=Eq1-traversal",
        "--scale",
        "quick",
        "--help",
    ];
    let o = bin()
        .args(args)
        .env("FLASHGC_PYTHON", &py)
        .output()
        .expect("binary runs");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let got = std::fs::read_to_string(&log).expect("the fake Python ran");
    let want: Vec<&str> = ["-m", "flashgc"].into_iter().chain(args).collect();
    assert_eq!(got.lines().collect::<Vec<_>>(), want);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn serve_refuses_every_fio_flag_it_names() {
    // The refusal lists --size among the fio flags that do not apply to `serve`, but
    // `serve --size 1g` was accepted and silently ignored (the export stays the logical
    // capacity): the server started. Each flag of the list must be refused before serving.
    let d = dir("serve-fio-flags");
    let sock = d.join("s.sock");
    let sock = sock.to_str().unwrap();
    let flags: [&[&str]; 4] = [
        &["--size", "1g"],
        &["--bs", "64k"],
        &["--data-gb", "1"],
        &["--rw", "randwrite"],
    ];
    for f in flags {
        let mut c = bin();
        c.args(["serve", "--logical-gib", "0.0625", "--socket", sock])
            .args(f);
        let o = common::output_within(c, Duration::from_secs(20), "serve with a fio flag");
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{f:?}: {e}");
        assert!(e.contains("do not apply to `serve`"), "{f:?}: {e}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn flags_that_would_be_ignored_are_refused() {
    // `--size` without a fio pattern bounded nothing (the run's --workload addresses the
    // whole device) and `compare --jobs 0` ran one job: both were accepted silently.
    for (args, want) in [
        (
            &["run", "--timing", "--size", "1g"][..],
            "`--size`: bounds the region of a fio job",
        ),
        (
            &[
                "compare",
                "--timing",
                "--size",
                "1g",
                "--placement",
                "single",
            ],
            "`--size`: bounds the region of a fio job",
        ),
        (&["compare", "--jobs", "0"], "--jobs 0"),
    ] {
        let mut a = args.to_vec();
        a.extend(SMALL);
        let o = flashgc(&a);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(want), "{args:?}: {e}");
    }
    // With a fio pattern the region applies.
    let mut a = vec!["run", "--timing", "--rw", "randwrite", "--size", "8m"];
    a.extend(SMALL);
    assert!(flashgc(&a).status.success());
}

#[test]
fn model_hot_refuses_a_fraction_mixed_with_a_percent() {
    // `--hot 1.2/0.2` was read as percents (1.2 % of the writes to 0.2 % of the space)
    // because one share is above 1: a typo for 0.8/0.2 gave a silently different model.
    for hot in ["1.2/0.2", "80/0.5", "0.5/50", "50/1"] {
        let o = flashgc(&["model", "--hot", hot]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{hot}: {e}");
        assert!(e.contains(&format!("--hot `{hot}`")), "{hot}: {e}");
        assert!(e.contains("0.8/0.2") && e.contains("80/20"), "{hot}: {e}");
    }
    // Both forms still work, and mean the same split.
    let out = |hot: &str| {
        let o = flashgc(&["model", "--hot", hot, "--json"]);
        assert!(o.status.success(), "{hot}: {}", stderr(&o));
        o.stdout
    };
    assert_eq!(out("0.8/0.2"), out("80/20"));
}

#[test]
fn config_file_values_name_the_file_and_field_not_a_flag() {
    // `[run] workload` was reported as `--workload`, a flag not given; a scheme's
    // parameter (`run.placement.levels`) without the file; a wrapped geometry ran (or
    // aborted allocating per-channel tables under --timing, exit code 134).
    let d = dir("config-fields");
    // (file text, extra flags, what the error must contain, whether it names the file)
    type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], bool);
    let cases: [Case; 11] = [
        (
            "[run]\nworkload = \"zipf:nan\"\n",
            &[],
            &["`run.workload`", "(0, 5]"],
            true,
        ),
        (
            "[run]\nworkload = \"hotcold:0/1\"\n",
            &[],
            &["`run.workload`", "(0, 100)"],
            true,
        ),
        (
            "# x\n[run]\nplacement = \"bf-gc:levels=0\"\n",
            &[],
            &["line 3", "`run.placement.levels`", "1..=16"],
            true,
        ),
        (
            "[run]\nvictim = \"greedy:min_garbage=nan\"\n",
            &[],
            &["line 2", "`run.victim.min_garbage`", "not a number"],
            true,
        ),
        // The flag's value, not the file's: no file named.
        (
            "[run]\nplacement = \"single\"\n",
            &["--placement", "bf-gc:levels=0"],
            &["`run.placement.levels`"],
            false,
        ),
        (
            "[run]\nplacement = \"single\"\n",
            &["--scheme", "bf-gc:levels=0/greedy"],
            &["`run.placement.levels`"],
            false,
        ),
        (
            "[device]\nchannels = 429509837\nchips_per_channel = 769546\n\
             dies_per_chip = 27905\nplanes_per_die = 2\n",
            &["--timing", "--requests", "1000"],
            &["line 2", "`device.channels`", "1..=1024"],
            true,
        ),
        // Each geometry field in range, their product beyond MAX_PLANES: the error is about
        // the `device` table, named by the line of its header (it named no file), ...
        (
            "# big\n[run]\nseed = 1\n\n[device]\nchannels = 1024\nchips_per_channel = 1024\n\
             dies_per_chip = 2\n",
            &[],
            &[
                "c7.toml: line 5: invalid configuration: `device`: ",
                "1024 x 1024 x 2 x 1 = 2097152 planes; at most 1048576",
            ],
            true,
        ),
        (
            "[device]\nchannels = 1024\nchips_per_channel = 1024\nplanes_per_die = 2\n",
            &["--timing", "--requests", "1000"],
            &[
                "c8.toml: line 1: invalid configuration: `device`: ",
                "2097152 planes",
            ],
            true,
        ),
        // ... of its first dotted key at the top level, ...
        (
            "# dotted\ndevice.channels = 1024\ndevice.chips_per_channel = 1024\n\
             device.dies_per_chip = 2\n",
            &[],
            &["c9.toml: line 2: invalid configuration: `device`: "],
            true,
        ),
        // ... or of its inline table.
        (
            "\ndevice = { channels = 1024, chips_per_channel = 1024, dies_per_chip = 2 }\n",
            &[],
            &["c10.toml: line 2: invalid configuration: `device`: "],
            true,
        ),
    ];
    for (i, (text, flags, want, names_file)) in cases.into_iter().enumerate() {
        let p = d.join(format!("c{i}.toml"));
        std::fs::write(&p, text).unwrap();
        let mut a = vec!["run", "--config", p.to_str().unwrap()];
        a.extend(SMALL);
        a.extend(flags);
        let o = flashgc(&a);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{text:?} {flags:?}: {e}");
        for w in want {
            assert!(e.contains(w), "{text:?} {flags:?}: no {w}: {e}");
        }
        let file = format!("c{i}.toml");
        assert_eq!(e.contains(&file), names_file, "{text:?} {flags:?}: {e}");
        assert!(!e.contains("--workload"), "{e}");
    }
}

/// An empty `-o` is refused before the run (it used to fail only when the result was
/// written, after the whole simulation).
#[test]
fn an_empty_output_path_is_refused_up_front() {
    let o = flashgc(&[
        "run",
        "--logical-gib",
        "0.0625",
        "--write-volume",
        "50",
        "-o",
        "",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("-o: an empty path"), "{err}");
    // Refused at once: no result was printed.
    assert!(o.stdout.is_empty());
}

#[test]
fn a_data_volume_past_the_byte_counter_is_refused() {
    // `--data-gb 1e308` overflowed the byte count into u64::MAX: a run that never ended.
    // The bound is the core's MAX_DATA_VOLUME_BYTES, 2^60 bytes.
    for v in ["1e308", "1e10", "1.2e9"] {
        let o = flashgc(&["fio", "--logical-gib", "0.0625", "--data-gb", v]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{v}: {e}");
        assert!(
            e.contains("--data-gb") && e.contains("at most 1.153e9"),
            "{v}: {e}"
        );
    }
}
