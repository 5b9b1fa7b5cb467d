//! Traces that are not regular files: a FIFO (what `<(zcat t.csv.gz)` gives), `-` for
//! standard input. They are read once into a temporary file (`flashgc_core::trace_file`);
//! before, every open after the first (the format sniff, `--capacity auto`'s pass, the
//! replay) lost bytes or waited forever for a writer that had gone.
#![cfg(unix)]

mod common;

use common::{bin, output_within, temp_dir};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Long enough for a loaded machine; a hang (the bug) fails instead of stalling the suite.
const LIMIT: Duration = Duration::from_secs(120);

/// An MSR trace of `n` writes (and a read every 7th request) over 1500 distinct pages,
/// skewed so that GC moves pages when looped on a device sized to it.
fn msr_trace(n: u64) -> Vec<u8> {
    let mut t = Vec::new();
    for i in 0..n {
        let page = if i % 3 == 0 { i % 1500 } else { (i * 7) % 150 };
        let op = if i % 7 == 0 { "Read" } else { "Write" };
        writeln!(
            t,
            "{},hm,0,{op},{},4096,10",
            128166385295514663 + i * 1000,
            page * 4096
        )
        .unwrap();
    }
    t
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

/// A FIFO at `path`, fed `bytes` by a thread (which gives up quietly when the reader
/// closes early: that was the bug's first symptom).
fn fifo_fed(path: &Path, bytes: Vec<u8>) -> std::thread::JoinHandle<()> {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: creates a FIFO at a path this test owns.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        // Blocks until flashgc opens the FIFO for reading.
        if let Ok(mut w) = std::fs::OpenOptions::new().write(true).open(&path) {
            let _ = w.write_all(&bytes);
        }
    })
}

/// `flashgc args` run to the end (or killed at [`LIMIT`]), with `stdin` as its standard
/// input and TMPDIR set to `tmp`.
fn flashgc_in(dir: &Path, tmp: &Path, args: &[&str], stdin: Option<Vec<u8>>) -> Output {
    let mut c: Command = bin();
    c.current_dir(dir).env("TMPDIR", tmp).args(args);
    match stdin {
        None => output_within(c, LIMIT, &args.join(" ")),
        Some(bytes) => {
            // A file as standard input, so that the child cannot block on a pipe.
            let f = dir.join(format!("stdin-{}", args.len()));
            std::fs::write(&f, &bytes).unwrap();
            c.stdin(Stdio::from(std::fs::File::open(&f).unwrap()));
            output_within(c, LIMIT, &args.join(" "))
        }
    }
}

/// The result JSON with the workload's name (which holds the path as given) and the
/// note about a trace read once taken out; the name, and the note if there is one.
fn numbers(o: &Output) -> (serde_json::Value, String, Option<String>) {
    let mut j = common::json(o);
    let name = j["workload"].as_str().unwrap().to_string();
    j["workload"] = serde_json::Value::Null;
    let notes = j["notes"].as_array_mut().unwrap();
    let i = notes
        .iter()
        .position(|n| n.as_str().unwrap().contains("read once"));
    let note = i.map(|i| notes.remove(i).as_str().unwrap().to_string());
    (j, name, note)
}

/// A directory for this test's files and an empty one for TMPDIR.
fn dirs(name: &str) -> (PathBuf, PathBuf) {
    let d = temp_dir("pipe-input", name);
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    (d, tmp)
}

fn leftovers(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

const RUN: &[&str] = &[
    "--format",
    "msr",
    "--remap",
    "compact",
    "--capacity",
    "auto",
    "--loop-until",
    "4",
    "--json",
];

/// `run --capacity auto` reads the trace twice (sizing, then replay; looped, again per
/// loop): from a FIFO it hung until killed. Now it finishes with the regular file's numbers
/// and names the FIFO as given.
#[test]
fn run_with_capacity_auto_from_a_fifo_equals_the_regular_file() {
    let (d, tmp) = dirs("run");
    let trace = msr_trace(6000);
    std::fs::write(d.join("t.csv"), &trace).unwrap();
    let run = |t: &str| {
        let w = format!("trace:{t}");
        let mut a = vec!["run", "--workload", &w];
        a.extend_from_slice(RUN);
        flashgc_in(&d, &tmp, &a, None)
    };
    let (file, file_name, no_note) = numbers(&run("t.csv"));
    assert_eq!(no_note, None);
    assert!(
        file["total"]["gc_writes"].as_u64().unwrap() > 0,
        "the trace should make GC move pages: {file}"
    );
    let feeder = fifo_fed(&d.join("p.csv"), trace);
    let o = run("p.csv");
    feeder.join().unwrap();
    let err = common::stderr(&o);
    let (fifo, fifo_name, note) = numbers(&o);
    assert_eq!(fifo, file);
    assert_eq!(fifo_name, file_name.replace("t.csv", "p.csv"));
    let size = std::fs::metadata(d.join("t.csv")).unwrap().len();
    assert_eq!(
        note.as_deref(),
        Some(
            format!(
                "the trace `p.csv` is not a regular file (a pipe or standard input): it was \
                 read once into a temporary file ({size} bytes)"
            )
            .as_str()
        )
    );
    assert!(
        err.contains("p.csv: not a regular file: read once into a temporary file in")
            && err.contains("KiB)"),
        "{err}"
    );
    assert!(leftovers(&tmp).is_empty(), "{:?}", leftovers(&tmp));
    let _ = std::fs::remove_dir_all(&d);
}

/// `trace convert` from a FIFO (plain, and gzip'd: compression is recognised in the copy)
/// writes the same bytes as from the regular file; before, it read lines spliced from two
/// records (or none at all).
#[test]
fn convert_from_a_fifo_is_byte_identical_plain_or_gzipped() {
    let (d, tmp) = dirs("convert");
    let trace = msr_trace(3000);
    std::fs::write(d.join("t.csv"), &trace).unwrap();
    let convert = |input: &str, out: &str| {
        let o = flashgc_in(
            &d,
            &tmp,
            &["trace", "convert", input, "--format", "msr", "-o", out],
            None,
        );
        assert!(o.status.success(), "{}", common::stderr(&o));
        std::fs::read(d.join(out)).unwrap()
    };
    let want = convert("t.csv", "file.fgt");
    for (name, bytes) in [("p.csv", trace.clone()), ("p.csv.gz", gzip(&trace))] {
        let feeder = fifo_fed(&d.join(name), bytes);
        let got = convert(name, &format!("{name}.fgt"));
        feeder.join().unwrap();
        assert!(
            got == want,
            "{name}: the .fgt differs from the regular file's"
        );
    }
    assert!(leftovers(&tmp).is_empty(), "{:?}", leftovers(&tmp));
    let _ = std::fs::remove_dir_all(&d);
}

/// `-` is standard input, for `run` (read several times) and `trace convert`.
#[test]
fn a_dash_reads_the_trace_from_standard_input() {
    let (d, tmp) = dirs("stdin");
    let trace = msr_trace(6000);
    std::fs::write(d.join("t.csv"), &trace).unwrap();
    let run = |t: &str, stdin: Option<Vec<u8>>| {
        let w = format!("trace:{t}");
        let mut a = vec!["run", "--workload", &w];
        a.extend_from_slice(RUN);
        flashgc_in(&d, &tmp, &a, stdin)
    };
    let (file, _, _) = numbers(&run("t.csv", None));
    let o = run("-", Some(gzip(&trace)));
    let err = common::stderr(&o);
    let (stdin, name, note) = numbers(&o);
    assert_eq!(stdin, file);
    assert!(note.is_some());
    assert!(name.starts_with("trace - (format msr"), "{name}");
    assert!(
        err.contains("standard input: read once into a temporary file in"),
        "{err}"
    );
    let o = flashgc_in(
        &d,
        &tmp,
        &[
            "trace", "convert", "t.csv", "--format", "msr", "-o", "file.fgt",
        ],
        None,
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let o = flashgc_in(
        &d,
        &tmp,
        &[
            "trace",
            "convert",
            "-",
            "--format",
            "msr",
            "-o",
            "stdin.fgt",
        ],
        Some(trace),
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(
        std::fs::read(d.join("stdin.fgt")).unwrap() == std::fs::read(d.join("file.fgt")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A checkpoint of a run that read its trace from standard input resumes with the same
/// trace given on standard input again (the result equals the uninterrupted run's), and
/// refuses a different one rather than replaying it.
#[test]
fn a_run_from_standard_input_resumes_from_the_same_trace_on_standard_input() {
    let (d, tmp) = dirs("resume");
    let trace = msr_trace(6000);
    let mut a = vec!["run", "--workload", "trace:-", "--checkpoint-every", "2x"];
    a.extend_from_slice(RUN);
    let full = common::json(&flashgc_in(&d, &tmp, &a, Some(trace.clone())));
    // The last checkpoint (at 4x) is kept: resume it to the end.
    let ckpt = d.join("flashgc-run.ckpt");
    assert!(ckpt.exists());
    let resume = |stdin: Vec<u8>| {
        flashgc_in(
            &d,
            &tmp,
            &["resume", "flashgc-run.ckpt", "-o", "resumed.json"],
            Some(stdin),
        )
    };
    let o = resume(trace.clone());
    assert!(o.status.success(), "{}", common::stderr(&o));
    let resumed: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("resumed.json")).unwrap()).unwrap();
    assert_eq!(resumed, full);
    let mut other = trace.clone();
    other.truncate(trace.len() / 2);
    let o = resume(other);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the trace - is not the file the checkpoint was taken on"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A copy that cannot be made (here: TMPDIR does not exist; a full disk goes the same
/// way) is an error naming the input and the directory, exit 2, not a hang or a panic.
#[test]
fn a_copy_that_cannot_be_made_names_the_input_and_the_directory() {
    let (d, _) = dirs("no-tmp");
    let trace = msr_trace(100);
    let gone = d.join("no-such-dir");
    let o = flashgc_in(
        &d,
        &gone,
        &["trace", "stats", "-", "--format", "msr"],
        Some(trace),
    );
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("-: not a regular file, so it is read once into a temporary file in")
            && err.contains("no-such-dir")
            && err.contains("set TMPDIR"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// `-` with a terminal as standard input is refused at once (it would wait for a trace
/// typed by hand), as is resuming such a run without its trace piped in. Needs script(1)
/// for the terminal.
#[test]
fn a_terminal_as_standard_input_is_refused_rather_than_waited_on() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: script(1) is absent");
        return;
    }
    let (d, tmp) = dirs("tty");
    let mut a = vec!["run", "--workload", "trace:-", "--checkpoint-every", "2x"];
    a.extend_from_slice(RUN);
    assert!(flashgc_in(&d, &tmp, &a, Some(msr_trace(6000)))
        .status
        .success());
    let exe = env!("CARGO_BIN_EXE_flashgc");
    for (args, want) in [
        (
            "trace stats - --format msr",
            "-: standard input is a terminal: pipe or redirect the trace into flashgc",
        ),
        (
            "resume flashgc-run.ckpt",
            "flashgc-run.ckpt: the run read its trace `-` once, from a pipe or standard input",
        ),
    ] {
        let mut c = Command::new("script");
        c.current_dir(&d)
            .args(["-qec", &format!("{exe} {args}; echo rc=$?"), "/dev/null"]);
        let o = output_within(c, LIMIT, args);
        let out = common::stdout(&o);
        assert!(out.contains(want) && out.contains("rc=2"), "{args}: {out}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
