//! An attacker's inputs to every command (the adversarial bad-input pass): configuration
//! and job files that are devices, not UTF-8 or hold NUL bytes, fields in the wrong
//! table, values that a command used to ignore silently, traces whose requests end beyond
//! 2^64 bytes or whose clock overflows, and damaged files of every kind. Each must exit 2
//! within seconds, name the file, line and field where there is one, and never panic.
//!
//! The cases marked `defect` failed before the pass (they hung, exited 0, or named no
//! line or the wrong field); the others pin behaviour the sweep found correct.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{bin, output_within, temp_dir};

/// A tiny run: every case that gets as far as simulating ends in milliseconds.
const TINY: &[&str] = &["--logical-gib", "0.0625", "--write-volume", "0.05"];

/// One case: a name, the arguments (`{D}` stands for the case directory), and the texts
/// stderr must contain.
struct Case {
    name: &'static str,
    args: Vec<String>,
    needles: Vec<String>,
}

fn case<S: AsRef<str>>(name: &'static str, args: &[S], needles: &[&str]) -> Case {
    Case {
        name,
        args: args.iter().map(|s| s.as_ref().to_string()).collect(),
        needles: needles.iter().map(|s| s.to_string()).collect(),
    }
}

/// `args` after the tiny-run flags.
fn tiny(cmd: &str, args: &[&str]) -> Vec<String> {
    std::iter::once(cmd)
        .chain(TINY.iter().copied())
        .chain(args.iter().copied())
        .map(String::from)
        .collect()
}

fn write(d: &Path, name: &str, bytes: &[u8]) -> String {
    let p = d.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

/// Runs every case: exit code 2 within 20 s, every needle in stderr, no panic. Every
/// case runs; the failures are listed together.
fn check(cases: Vec<Case>) {
    let mut failed = Vec::new();
    for c in cases {
        let mut cmd = bin();
        cmd.args(&c.args).stdin(std::process::Stdio::null());
        let o = match output_within_or_none(cmd, Duration::from_secs(20)) {
            Some(o) => o,
            None => {
                failed.push(format!("{}: still running after 20 s", c.name));
                continue;
            }
        };
        let err = String::from_utf8_lossy(&o.stderr);
        if err.contains("panicked") || o.status.code() != Some(2) {
            failed.push(format!("{}: exit {:?}: {err}", c.name, o.status.code()));
            continue;
        }
        for n in &c.needles {
            if !err.contains(n.as_str()) {
                failed.push(format!("{}: `{n}` not in: {err}", c.name));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// [`output_within`], None instead of a panic when `cmd` is still running at `limit`.
fn output_within_or_none(
    cmd: std::process::Command,
    limit: Duration,
) -> Option<std::process::Output> {
    std::thread::spawn(move || output_within(cmd, limit, "case"))
        .join()
        .ok()
}

#[test]
fn configuration_and_job_files() {
    let d = temp_dir("adversarial", "files");
    let base = "[ftl]\nlogical_gib = 0.0625\n[run]\nwrite_volume = 0.05\n";
    let cfg = |name: &str, extra: &str| write(&d, name, format!("{base}{extra}").as_bytes());
    let nonutf8 = write(
        &d,
        "nonutf8.toml",
        b"[ftl]\nlogical_gib = 0.0625\n[run]\nworkload = \"\xff\"\n",
    );
    let maxmem = cfg("maxmem.toml", "max_memory_gib = nan\n");
    let flow = cfg(
        "flow.toml",
        "[[flow]]\nrw = \"randwrite\"\n[[flow]]\nnosuch = 1\n",
    );
    let section = cfg("section.toml", "[nosuch]\na = 1\n");
    let subtable = cfg("subtable.toml", "[run.timing]\ncache_mib = 1\n");
    let placement = cfg("placement.toml", "placement = \"nosuch\"\n");
    let preset = write(&d, "preset.toml", b"preset = \"nosuch\"\n");
    let empty_entry = cfg("empty_entry.toml", "placement = \"single,,sup-gc\"\n");
    let long = cfg(
        "long.toml",
        &format!("workload = \"{}\"\n", "a".repeat(1 << 20)),
    );
    let nul_job = write(&d, "nul.fio", b"[w]\nrw=randwrite\0\nsize=8m\n");
    let long_job = write(
        &d,
        "long.fio",
        format!("[w]\nrw=randwrite\n{}\n", "bogus".repeat(200_000)).as_bytes(),
    );
    let f = |s: &str| s.to_string();
    check(vec![
        // defect: read until memory ran out (hung).
        case("config /dev/zero", &["run", "--config", "/dev/zero"], &["/dev/zero: cannot read config: more than 16 MiB"]),
        // defect: the same for a job file.
        case(
            "job /dev/zero",
            &["fio", "--logical-gib", "0.0625", "--job", "/dev/zero"],
            &["/dev/zero: cannot read the job file: more than 16 MiB"],
        ),
        // defect: "stream did not contain valid UTF-8", no line.
        Case {
            name: "config not UTF-8",
            args: vec![f("run"), f("--config"), nonutf8.clone()],
            needles: vec![format!("{nonutf8}: cannot read config: line 4, column 13: a byte that is not UTF-8 (0xff)")],
        },
        // defect: a NaN limit passed every memory check (exit 0).
        Case {
            name: "max_memory_gib nan",
            args: vec![f("run"), f("--config"), maxmem.clone()],
            needles: vec![format!("{maxmem}: line 5: invalid configuration: `run.max_memory_gib`: NaN must be a positive number of GiB")],
        },
        // defect: named `run.nosuch` (the table above the `[[flow]]` header).
        Case {
            name: "unknown flow key",
            args: vec![f("run"), f("--timing"), f("--config"), flow.clone()],
            needles: vec![format!("{flow}: line 8: `flow[1].nosuch`: unknown field `nosuch`")],
        },
        // defect: named ``.
        Case {
            name: "unknown section",
            args: vec![f("run"), f("--config"), section.clone()],
            needles: vec![format!("{section}: line 5: `nosuch`: unknown field `nosuch`")],
        },
        // defect: named `run.`.
        Case {
            name: "unknown subtable",
            args: vec![f("run"), f("--config"), subtable.clone()],
            needles: vec![format!("{subtable}: line 5: `run.timing`: unknown field `timing`")],
        },
        // defect: no file or line.
        Case {
            name: "unknown placement in a file",
            args: vec![f("run"), f("--config"), placement.clone()],
            needles: vec![format!("{placement}: line 5: unknown placement scheme `nosuch`")],
        },
        // defect: no file or line either.
        Case {
            name: "unknown preset in a file",
            args: vec![f("run"), f("--config"), preset.clone()],
            needles: vec![format!("{preset}: line 1: unknown preset `nosuch`")],
        },
        // defect: the job file's NUL byte was invisible in "`randwrite`: supported randrw, ...".
        Case {
            name: "NUL in a job file",
            args: vec![f("fio"), f("--logical-gib"), f("0.0625"), f("--job"), nul_job.clone()],
            needles: vec![format!("{nul_job}: cannot read the job file: line 2, column 13: a NUL byte")],
        },
        // defect (with the next): a 1 MiB value was printed back whole.
        Case {
            name: "1 MiB workload name",
            args: vec![f("run"), f("--config"), long],
            needles: vec![f("line 5: unknown workload `aaaa"), f("bytes elided ...]")],
        },
        Case {
            name: "1 MB option name",
            args: vec![f("fio"), f("--logical-gib"), f("0.0625"), f("--job"), long_job],
            needles: vec![f(":3: option `bogus"), f("bytes elided ...]")],
        },
        // defect (second round, with the next): the empty entry was dropped and two
        // schemes ran; `run` hinted `single:,sup-gc`.
        Case {
            name: "empty list entry in a file (compare)",
            args: vec![f("compare"), f("--config"), empty_entry.clone()],
            needles: vec![format!("{empty_entry}: line 5: invalid configuration: `run.placement`: `single,,sup-gc`: entry 2 of the comma-separated list is empty")],
        },
        Case {
            name: "empty list entry in a file (run)",
            args: vec![f("run"), f("--config"), empty_entry.clone()],
            needles: vec![format!("{empty_entry}: line 5: invalid configuration: `run.placement`: `single,,sup-gc`: entry 2 of the comma-separated list is empty")],
        },
        // Correct before: pinned.
        case("config is a directory", &["run", "--config", "/tmp"], &["/tmp: cannot read config: Is a directory"]),
        case("job file is empty", &["fio", "--logical-gib", "0.0625", "--job", "/dev/null"], &["/dev/null: no job section"]),
    ]);
    // Overlong messages stay short.
    let mut c = bin();
    c.args([
        "run",
        "--config",
        &cfg(
            "long2.toml",
            &format!("workload = \"{}\"\n", "b".repeat(1 << 20)),
        ),
    ]);
    let o = output_within(c, Duration::from_secs(20), "long value");
    assert!(o.stderr.len() < 8192, "{} bytes of stderr", o.stderr.len());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn values_commands_used_to_ignore() {
    check(vec![
        // defect (all five): exit 0, the value unused or used as NaN.
        case(
            "dup ratio nan",
            &tiny("run", &["--dup-ratio", "nan"]),
            &["`content.dup_ratio`: NaN must be in [0, 1]"],
        ),
        case(
            "dup theta negative",
            &tiny("run", &["--dup-theta", "-1"]),
            &["`content.theta`: -1 must be in (0, 5]"],
        ),
        case(
            "noc with fio flags",
            &tiny("noc", &["--rwmixwrite", "nan"]),
            &["fio flags", "do not apply to `flashgc noc`"],
        ),
        case(
            "open loop depth 0",
            &tiny("run", &["--timing", "--rate", "1000", "--iodepth", "0"]),
            &["`--iodepth`: 0 must be in 1..=1048576"],
        ),
        case(
            "cpu cost given twice",
            &tiny(
                "run",
                &["--timing", "--cpu-ns", "classifier=1,classifier=2"],
            ),
            &["`--cpu-ns.classifier`: given twice"],
        ),
        // defect: 0 was taken as 1 silently.
        case(
            "GCaR window 0",
            &tiny(
                "run",
                &[
                    "--timing",
                    "--cache-mib",
                    "1",
                    "--cache-policy",
                    "gcar",
                    "--gcar-window",
                    "0",
                ],
            ),
            &["`--gcar-window`: 0 must be at least 1 cache entry"],
        ),
        // defect (second round, all three): a colon with nothing after it ran the defaults.
        case(
            "victim trailing colon",
            &tiny("run", &["--victim", "greedy:"]),
            &[
                "`run.victim`: `greedy:`: nothing follows the colon",
                "key=value",
            ],
        ),
        case(
            "placement trailing colon",
            &tiny("run", &["--placement", "single:"]),
            &["`run.placement`: `single:`: nothing follows the colon"],
        ),
        case(
            "bare-value victim trailing colon",
            &tiny(
                "compare",
                &["--placement", "single", "--victim", "cost-benefit:"],
            ),
            &["`run.victim`: `cost-benefit:`: nothing follows the colon"],
        ),
        // defect (second round, all five): empty entries were dropped silently.
        case(
            "empty placement entry",
            &tiny("compare", &["--placement", "single,,sup-gc"]),
            &["`run.placement`: `single,,sup-gc`: entry 2 of the comma-separated list is empty"],
        ),
        case(
            "trailing comma in a victim list",
            &tiny("compare", &["--placement", "single", "--victim", "greedy,"]),
            &["`run.victim`: `greedy,`: entry 2 of the comma-separated list is empty"],
        ),
        case(
            "empty scheme pair",
            &tiny("compare", &["--scheme", ",single/greedy"]),
            &["`--scheme`: `,single/greedy`: entry 1 of the comma-separated list is empty"],
        ),
        case(
            "empty parameter",
            &tiny("run", &["--victim", "d-choices:d=8,"]),
            &["`run.victim`: `d-choices:d=8,`: parameter 2 after the colon is empty"],
        ),
        case(
            "empty fio placement entry",
            &[
                "fio",
                "--logical-gib",
                "0.0625",
                "--placement",
                "single,,sup-gc",
            ],
            &["`run.placement`: `single,,sup-gc`: entry 2"],
        ),
        // Correct before: pinned (spec strings at their edges).
        case(
            "zipf nan",
            &tiny("run", &["--workload", "zipf:nan"]),
            &["`run.workload`: zipf theta NaN"],
        ),
        case(
            "hotcold trailing colon",
            &tiny("run", &["--workload", "hotcold:80/20:"]),
            &["`run.workload`: hotcold space share `20:`"],
        ),
        case(
            "victim parameter overflow",
            &tiny("run", &["--victim", "d-choices:d=18446744073709551616"]),
            &["`run.victim.d`"],
        ),
        case(
            "parameter twice",
            &tiny("run", &["--placement", "mida:hot=filter,hot=filter"]),
            &["`run.placement.hot`: parameter given twice"],
        ),
        case(
            "gc-low nan percent",
            &tiny("run", &["--gc-low", "nan%"]),
            &["`--gc-low`: `nan%`"],
        ),
        case("model op inf", &["model", "--op", "inf"], &["--op"]),
    ]);
}

#[test]
fn traces() {
    let d = temp_dir("adversarial", "traces");
    let t = 128166385295514663u64;
    let msr = |name: &str, rows: &[(u64, &str, &str)]| {
        let text: String = rows
            .iter()
            .map(|(ts, off, size)| format!("{ts},hm,0,Write,{off},{size},100\n"))
            .collect();
        write(&d, name, text.as_bytes())
    };
    let beyond = msr(
        "beyond.csv",
        &[(t, "0", "4096"), (t + 1, "18446744073709547520", "8192")],
    );
    let wait = write(
        &d,
        "wait.iolog",
        b"fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb wait 18446744073709551615\n/dev/sdb write 0 4096\n",
    );
    let nul = write(
        &d,
        "nul.csv",
        format!("{t},hm,0,Write,0,4096,100\n{t},hm,0,Write,40\x0096,4096,100\n").as_bytes(),
    );
    let f = |s: &str| s.to_string();
    let beyond_msg = format!("{beyond}:2: request at byte offset 18446744073709547520 (8192 bytes) ends beyond 2^64 bytes");
    check(vec![
        // defect: exit 0, --loop-until silently replacing --loop-times.
        case(
            "loop times and loop until",
            &tiny(
                "run",
                &[
                    "--workload",
                    &format!("trace:{}", msr("loops.csv", &[(t, "0", "4096")])),
                    "--loop-times",
                    "3",
                    "--loop-until",
                    "2",
                ],
            ),
            &[
                "--loop-times",
                "--loop-until both given",
                "give one of them",
            ],
        ),
        // defect: copied into $TMPDIR until the disk filled.
        case(
            "trace /dev/zero",
            &["trace", "stats", "/dev/zero"],
            &["/dev/zero: binary data, not a trace"],
        ),
        // defect (stats, volumes): exit 0 with saturated addresses; the replay refused it.
        Case {
            name: "stats beyond 2^64",
            args: vec![f("trace"), f("stats"), beyond.clone()],
            needles: vec![beyond_msg.clone()],
        },
        Case {
            name: "volumes beyond 2^64",
            args: vec![f("trace"), f("volumes"), beyond.clone()],
            needles: vec![beyond_msg],
        },
        // defect: the clock saturated at 2^64 ns, exit 0.
        Case {
            name: "fio2 wait overflow",
            args: vec![f("trace"), f("stats"), wait.clone()],
            needles: vec![format!("{wait}:4:15: field 3 `delay`")],
        },
        // defect: "found `4096`" with the NUL invisible.
        Case {
            name: "NUL in a field",
            args: vec![f("trace"), f("stats"), nul],
            needles: vec![
                f("line 2: the lines above it read as `msr`"),
                f("`40\\u{0}96`"),
            ],
        },
        // defect: exit 1 (a run-time failure) from `model midas`, which samples the trace.
        Case {
            name: "midas model on a damaged trace",
            args: vec![
                f("model"),
                f("midas"),
                f("--logical-gib"),
                f("8"),
                f("--workload"),
                format!("trace:{beyond}"),
            ],
            needles: vec![f("ends beyond 2^64 bytes")],
        },
        // Correct before: pinned.
        case(
            "trace is a directory",
            &["trace", "stats", "/tmp"],
            &["/tmp: Is a directory"],
        ),
        case(
            "empty trace",
            &["trace", "stats", "/dev/null"],
            &["the file is empty"],
        ),
    ]);
    let _ = std::fs::remove_dir_all(&d);
}

/// A text trace that starts with a UTF-8 byte-order mark (second round: the first round
/// showed the mark in the error; format detection failed on it) replays exactly as the
/// same trace without it, a header line after the mark included; `trace stats` agrees.
#[test]
fn a_byte_order_mark_is_skipped() {
    let d = temp_dir("adversarial", "bom");
    let t = 128166385295514663u64;
    let rows: String = (0..400u64)
        .map(|i| {
            format!(
                "{},hm,0,Write,{},4096,100\n",
                t + i * 1000,
                (i * 7919) % 4096 * 4096
            )
        })
        .collect();
    let run = |name: &str, text: &str, args: &[&str]| {
        // Each file alone in its own folder under one name, so the outputs can be equal.
        let dir = d.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("t.csv"), text).unwrap();
        let mut c = bin();
        c.current_dir(&dir).args(args);
        let o = output_within(c, Duration::from_secs(60), name);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    };
    let header = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n";
    let replay = [
        "run",
        "--logical-gib",
        "0.0625",
        "--workload",
        "trace:t.csv",
        "--remap",
        "modulo",
        "--loop-times",
        "3",
        "--json",
    ];
    let plain = run("plain", &rows, &replay);
    assert!(plain.contains("1200 requests"), "{plain}");
    assert_eq!(plain, run("bom", &format!("\u{feff}{rows}"), &replay));
    assert_eq!(
        run("header", &format!("{header}{rows}"), &replay),
        run("bom-header", &format!("\u{feff}{header}{rows}"), &replay)
    );
    let stats = ["trace", "stats", "t.csv"];
    assert_eq!(
        run("plain", &rows, &stats),
        run("bom", &format!("\u{feff}{rows}"), &stats)
    );
    let _ = std::fs::remove_dir_all(&d);
}
