//! `flashgc run --checkpoint-every`, Ctrl-C and `flashgc resume` on the real binary: a run
//! (WAF-only or timed) stopped by SIGINT and resumed writes the same JSON as an
//! uninterrupted run; damaged checkpoints and unsupported modes are refused with exit code 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flashgc"))
}

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
    // SAFETY: sends SIGINT to the child we spawned.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let o = child.wait_with_output().unwrap();
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

fn refused(args: &[&str], cwd: &Path, needle: &str) {
    let o = bin().args(args).current_dir(cwd).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn bad_checkpoints_and_unsupported_modes_are_refused() {
    let d = dir("bad");
    // A real checkpoint to damage: stop at the end of a short run is not possible from
    // the CLI, so take a periodic one.
    let ckpt = d.join("c.ckpt");
    let st = bin()
        .args([
            "run",
            "--logical-gib",
            "0.0625",
            "--write-volume",
            "2",
            "--checkpoint-every",
            "1x",
            "--checkpoint",
        ])
        .arg(&ckpt)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let good = std::fs::read(&ckpt).unwrap();
    let bad = d.join("bad.ckpt");
    let b = bad.to_str().unwrap();
    std::fs::write(&bad, &good[..good.len() / 2]).unwrap();
    refused(&["resume", b], &d, "truncated");
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 100] ^= 1;
    std::fs::write(&bad, &flipped).unwrap();
    refused(&["resume", b], &d, "CRC mismatch");
    let mut other = good.clone();
    other[8] = 7;
    std::fs::write(&bad, &other).unwrap();
    refused(&["resume", b], &d, "format version 7");
    refused(
        &["resume", "/nonexistent/x.ckpt"],
        &d,
        "cannot open checkpoint",
    );
    // Modes that cannot be checkpointed, and bad sizes.
    refused(
        &[
            "compare",
            "--logical-gib",
            "0.0625",
            "--checkpoint-every",
            "1x",
        ],
        &d,
        "`compare`",
    );
    refused(
        &[
            "run",
            "--logical-gib",
            "0.0625",
            "--checkpoint-every",
            "lots",
        ],
        &d,
        "--checkpoint-every `lots`",
    );
    let _ = std::fs::remove_dir_all(&d);
}
