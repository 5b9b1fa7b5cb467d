//! `flashgc run --checkpoint-every`, Ctrl-C and `flashgc resume` on the real binary: a run
//! (WAF-only or timed) stopped by SIGINT and resumed writes the same JSON as an
//! uninterrupted run, and identical runs write identical checkpoints (damaged checkpoints:
//! checkpoint_damage_cli.rs).

mod common;

use common::bin;

use common::checkpoint::meta_of;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-ckpt-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A run of about half a second: sepbit + cost-benefit on 0.25 GiB.
const RUN: &[&str] = &[
    "run",
    "--logical-gib",
    "0.25",
    "--op",
    "0.1",
    "--workload",
    "zipf:0.9",
    "--placement",
    "sepbit",
    "--victim",
    "cost-benefit",
    "--write-volume",
    "12",
    "--json",
];

#[cfg(unix)]
#[test]
fn sigint_then_resume_gives_the_uninterrupted_output() {
    sigint_then_resume("sigint", RUN);
}

/// Timed runs too: the device's reservations, queued GC work, the write cache, latency
/// histograms and series come back from the checkpoint.
#[cfg(unix)]
#[test]
fn timed_sigint_then_resume_gives_the_uninterrupted_output() {
    let mut args = RUN.to_vec();
    args.extend([
        "--timing",
        "--gc-mode",
        "preemptible",
        "--cache-mib",
        "4",
        "--checkpoint-gb",
        "0.1",
    ]);
    sigint_then_resume("sigint-timed", &args);
}

#[cfg(unix)]
fn sigint_then_resume(name: &str, run: &[&str]) {
    let d = dir(name);
    let full = d.join("full.json");
    let st = bin()
        .args(run)
        .arg("-o")
        .arg(&full)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());

    let out = d.join("part.json");
    let ckpt = d.join("run.ckpt");
    let child = bin()
        .args(run)
        .arg("-o")
        .arg(&out)
        .args(["--checkpoint-every", "0.5x", "--checkpoint"])
        .arg(&ckpt)
        .current_dir(&d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once the first periodic checkpoint exists (the run is under way).
    let t0 = Instant::now();
    while !ckpt.exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no checkpoint appeared"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let o = common::interrupt(child);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "stderr: {err}");
    assert!(err.contains("flashgc resume"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let partial: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(partial["ended_by"], "interrupted");
    assert_eq!(std::fs::read(&out).unwrap(), o.stdout.trim_ascii_end());

    // Resume from another directory, naming the output again (without -o it would go to
    // the current directory: tests/robustness.rs).
    let r = bin()
        .arg("resume")
        .arg(&ckpt)
        .arg("-o")
        .arg(&out)
        .current_dir(std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let want = std::fs::read(&full).unwrap();
    let got = std::fs::read(&out).unwrap();
    assert!(
        want == got,
        "resumed output differs from the uninterrupted run"
    );
    assert_eq!(r.stdout.trim_ascii_end(), &want[..]);
    let _ = std::fs::remove_dir_all(&d);
}

/// A run stopped by SIGINT whose checkpoint cannot be written (here its default file,
/// `OUTPUT.ckpt`, is a directory) still prints and saves its partial result, and says why
/// it cannot be resumed; it used to end with the write error alone and lose the result.
#[cfg(unix)]
#[test]
fn a_checkpoint_that_cannot_be_written_keeps_the_partial_result() {
    let d = dir("unwritable");
    std::fs::create_dir_all(d.join("part.json.ckpt")).unwrap();
    // RUN five times as long (its write volume, 12, is the only "12").
    let mut args: Vec<&str> = RUN
        .iter()
        .map(|&a| if a == "12" { "60" } else { a })
        .collect();
    args.extend(["-o", "part.json"]);
    let child = bin()
        .args(&args)
        .current_dir(&d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Under way: the handler installed (a fixed wait lost the race on a loaded machine, and
    // SIGINT killed the process before it could catch it), then a moment into the run.
    #[cfg(target_os = "linux")]
    common::wait_for_handler(child.id(), libc::SIGINT);
    std::thread::sleep(Duration::from_millis(500));
    let o = common::interrupt(child);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "stderr: {err}");
    assert!(err.contains("no checkpoint could be written"), "{err}");
    let partial: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(partial["ended_by"], "interrupted");
    let notes = partial["notes"].to_string();
    assert!(notes.contains("no checkpoint could be written"), "{notes}");
    assert_eq!(
        std::fs::read(d.join("part.json")).unwrap(),
        o.stdout.trim_ascii_end()
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Sends SIGINT to `child` once `ckpt` has been (re)written after `since`, and waits for
/// it: exit code 130.
#[cfg(unix)]
fn interrupt_after_checkpoint(
    child: std::process::Child,
    ckpt: &Path,
    since: Option<std::time::SystemTime>,
) -> std::process::Output {
    let t0 = Instant::now();
    while std::fs::metadata(ckpt)
        .and_then(|m| m.modified())
        .map_or(true, |m| Some(m) == since)
    {
        assert!(t0.elapsed() < Duration::from_secs(60), "no new checkpoint");
        std::thread::sleep(Duration::from_millis(5));
    }
    let o = common::interrupt(child);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "stderr: {err}");
    o
}

/// A trace given by a relative path: `flashgc resume` reads it from the original run's
/// directory through its absolute path, yet the result names it as given (the `workload`
/// line), also after a resumed run was interrupted and resumed again from its own
/// checkpoint, so the output equals the uninterrupted run's.
#[cfg(unix)]
#[test]
fn a_relative_trace_path_resumes_to_the_uninterrupted_output() {
    let d = dir("relative-trace");
    // An MSR Cambridge trace: 600 writes of 4 KiB over 300 pages, 1 ms apart, and a
    // malformed line skipped (`--skip-bad-lines`), which the result's warning names by
    // file and line.
    let trace: String = (0..600u64)
        .map(|i| {
            let t = 128_166_385_295_514_663 + i * 10_000;
            let bad = if i == 400 { "not,a,request\n" } else { "" };
            format!("{bad}{t},hm,0,Write,{},4096,100\n", (i * 7 % 300) * 4096)
        })
        .collect();
    std::fs::write(d.join("t.csv"), trace).unwrap();
    let run = [
        "run",
        "--workload",
        "trace:t.csv",
        "--remap",
        "compact",
        "--capacity",
        "auto",
        "--op",
        "0.1",
        "--loop-until",
        "60",
        "--skip-bad-lines",
        "--timing",
        "--json",
    ];
    let st = bin()
        .args(run)
        .args(["-o", "full.json"])
        .current_dir(&d)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let want = std::fs::read(d.join("full.json")).unwrap();
    assert!(String::from_utf8_lossy(&want).contains("\"trace t.csv (format msr"));
    assert!(String::from_utf8_lossy(&want).contains("first: t.csv:401:"));

    let ckpt = d.join("run.ckpt");
    let spawn = |c: &mut Command| {
        c.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let child = spawn(
        bin()
            .args(run)
            .args(["-o", "part.json", "--checkpoint-every", "0.5x"])
            .arg("--checkpoint")
            .arg(&ckpt)
            .current_dir(&d),
    );
    interrupt_after_checkpoint(child, &ckpt, None);
    // Resumed from another directory, interrupted at its own next checkpoint, resumed
    // again.
    let other = d.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let first = std::fs::metadata(&ckpt).unwrap().modified().unwrap();
    let child = spawn(bin().arg("resume").arg(&ckpt).current_dir(&other));
    interrupt_after_checkpoint(child, &ckpt, Some(first));
    let r = bin()
        .arg("resume")
        .arg(&ckpt)
        .current_dir(&other)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let got = std::fs::read(other.join("part.json")).unwrap();
    assert!(
        want == got,
        "resumed output differs from the uninterrupted run:\n{}",
        String::from_utf8_lossy(&got)
            .lines()
            .zip(String::from_utf8_lossy(&want).lines())
            .filter(|(a, b)| a != b)
            .map(|(a, b)| format!("{a}\n  vs {b}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let _ = std::fs::remove_dir_all(&d);
}
/// How many of `pid`'s open files are `path` (Linux: /proc/PID/fd).
#[cfg(target_os = "linux")]
fn opened(pid: u32, path: &Path) -> usize {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return 0;
    };
    fds.filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|t| t == path)
        .count()
}

/// Waits until `child` has `path` open `times` times (the phase that reads it is under
/// way), interrupts it with `signal`, and checks that it ends at once with the exit code of
/// an interrupted run, a one-line message naming the phase, and no output or checkpoint.
#[cfg(target_os = "linux")]
fn interrupted_at_startup(
    mut child: std::process::Child,
    d: &Path,
    path: &Path,
    times: usize,
    signal: libc::c_int,
    phase: &str,
) {
    let t0 = Instant::now();
    while opened(child.id(), path) < times {
        if t0.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!("{phase}: never reached");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let sent = Instant::now();
    // SAFETY: sends a signal to a child process this test spawned.
    unsafe {
        libc::kill(child.id() as libc::pid_t, signal);
    }
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "{phase}: not prompt"
    );
    assert_eq!(o.status.code(), Some(128 + signal), "{phase}: {err}");
    let msg = format!("flashgc: interrupted before the run started ({phase}): nothing was written");
    assert_eq!(err.lines().last(), Some(msg.as_str()), "{err}");
    assert!(o.stdout.is_empty());
    let left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("out") || n.contains("ckpt"))
        .collect();
    assert!(left.is_empty(), "{phase}: {left:?} written");
}

/// Ctrl-C or SIGTERM during the oracle's pre-pass over a trace, or the `--capacity auto`
/// scan of one, ended the process silently (the handlers were installed after them); it
/// now says so, with exit code 130 or 143, and leaves nothing behind.
#[cfg(target_os = "linux")]
#[test]
fn a_signal_before_the_run_starts_ends_it_with_a_message() {
    let d = dir("startup");
    // 20 000 writes over 10 000 pages; looped, the oracle's pre-pass takes minutes.
    let trace: String = (0..20_000u64)
        .map(|i| {
            let t = 128_166_385_295_514_663 + i * 10_000;
            format!("{t},hm,0,Write,{},4096,100\n", (i * 7 % 10_000) * 4096)
        })
        .collect();
    let t = d.join("t.csv");
    std::fs::write(&t, trace).unwrap();
    let spawn = |args: &[&str]| {
        bin()
            .args(args)
            .args(["-o", "out.json"])
            .current_dir(&d)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let oracle = [
        "run",
        "--workload",
        "trace:t.csv",
        "--remap",
        "compact",
        "--logical-gib",
        "0.0625",
        "--pages-per-block",
        "64",
        "--op",
        "0.3",
        "--loop-until",
        "100000",
        "--placement",
        "oracle",
    ];
    // The pre-pass reads a second instance of the trace.
    for sig in [libc::SIGINT, libc::SIGTERM] {
        let phase = "the oracle's pre-pass over the workload";
        interrupted_at_startup(spawn(&oracle), &d, &t, 2, sig, phase);
    }
    // A FIFO that never delivers: the scan waits in it.
    let fifo = d.join("p.csv");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // Open for reading and writing: does not block, and keeps the FIFO without EOF.
    let _writer = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    let capacity = [
        "run",
        "--workload",
        "trace:p.csv",
        "--format",
        "msr",
        "--capacity",
        "auto",
    ];
    interrupted_at_startup(
        spawn(&capacity),
        &d,
        &fifo,
        1,
        libc::SIGINT,
        "reading the trace",
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Same command, same checkpoint bytes: a checkpoint stores the memory limit the user gave,
/// not the memory the machine had available at that moment (which changes from one run to
/// the next), and a resumed run's checkpoints store the original run's configuration and
/// command line as they were.
#[cfg(unix)]
#[test]
fn identical_runs_write_identical_checkpoints() {
    let d = dir("identical");
    let run = |extra: &[&str]| -> Vec<u8> {
        let st = bin()
            .current_dir(&d)
            .args([
                "run",
                "--logical-gib",
                "0.0625",
                "--op",
                "0.3",
                "--placement",
            ])
            .args(["sepbit", "--write-volume", "3", "--checkpoint-every", "1x"])
            .args(["-o", "r.json"])
            .args(extra)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success());
        std::fs::read(d.join("r.json.ckpt")).unwrap()
    };
    let first = run(&[]);
    assert!(
        first == run(&[]),
        "two identical runs wrote different checkpoints"
    );
    let limit = |c: &[u8]| meta_of(c)["config"]["run"]["max_memory_gib"].clone();
    assert!(limit(&first).is_null());
    assert_eq!(limit(&run(&["--max-memory", "3"])), 3.0);

    let ckpt = d.join("p.ckpt");
    let spawn = |args: &[&str]| {
        bin()
            .current_dir(&d)
            .args(args)
            .args(["-o", "p.json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut args = RUN.to_vec();
    args.extend(["--checkpoint-every", "0.5x", "--checkpoint", "p.ckpt"]);
    interrupt_after_checkpoint(spawn(&args), &ckpt, None);
    let stopped = meta_of(&std::fs::read(&ckpt).unwrap());
    let since = std::fs::metadata(&ckpt).unwrap().modified().ok();
    interrupt_after_checkpoint(spawn(&["resume", "p.ckpt"]), &ckpt, since);
    let resumed = meta_of(&std::fs::read(&ckpt).unwrap());
    assert!(resumed["user_pages"].as_u64() > stopped["user_pages"].as_u64());
    assert_eq!(stopped["config"], resumed["config"]);
    assert_eq!(stopped["caller"], resumed["caller"]);
    let _ = std::fs::remove_dir_all(&d);
}
