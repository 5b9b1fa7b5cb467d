//! Helpers shared by the command-line tests (each test file uses a part of them).
#![allow(dead_code)]

pub mod checkpoint;
#[cfg(unix)]
pub mod serve;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd` and kills it if it has not finished within `limit`, failing the test with
/// `what` (a hang fails the test instead of stalling the suite). Its output is drained
/// while it runs: a result larger than the pipe buffer must not block it.
pub fn output_within(mut cmd: Command, limit: Duration, what: &str) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    };
    let out = drain(child.stdout.take().map(|r| Box::new(r) as _));
    let err = drain(child.stderr.take().map(|r| Box::new(r) as _));
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Output {
                status,
                stdout: out.join().unwrap(),
                stderr: err.join().unwrap(),
            };
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until process `pid` catches `sig` (its handler is installed: bit `sig - 1` of
/// `SigCgt` in /proc/PID/status), so the test does not depend on how fast it starts.
#[cfg(target_os = "linux")]
pub fn wait_for_handler(pid: u32, sig: i32) {
    let t0 = Instant::now();
    loop {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            .unwrap_or(0);
        if caught & (1 << (sig - 1)) != 0 {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "no handler for signal {sig}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Sends SIGINT to `child` (as Ctrl-C would) and waits for its output.
#[cfg(unix)]
pub fn interrupt(child: std::process::Child) -> Output {
    // SAFETY: sends SIGINT to a child process this test spawned.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    child.wait_with_output().unwrap()
}

/// The 128 MiB device of the command-line tests (`cli.rs`, `input_errors_cli.rs`):
/// 64-page blocks, 4 capacities of writes.
pub const CLI_SMALL: &[&str] = &[
    "--logical-gib",
    "0.125",
    "--pages-per-block",
    "64",
    "--write-volume",
    "4",
];

/// The `flashgc` binary under test, as a command to add arguments to.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flashgc"))
}

/// Runs `flashgc` with `args` to the end and returns its output.
pub fn flashgc(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

/// The standard output parsed as JSON, after checking the command succeeded (its standard
/// error is the failure message).
pub fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

/// The standard output of `flashgc args`, after checking it succeeded (its standard error
/// is the failure message).
pub fn stdout_ok(args: &[&str]) -> String {
    let o = flashgc(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(&o)
}

/// The standard output as text (lossy: a test's output is UTF-8).
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh, empty directory under the system's temporary directory, unique to this test
/// process, the test file (`suite`) and `name`.
pub fn temp_dir(suite: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The 64 MiB device of the fio and flow tests: 32-page blocks, op 0.15 (runs of a few
/// thousand requests see GC).
pub const FIO_SMALL: &[&str] = &[
    "--logical-gib",
    "0.0625",
    "--pages-per-block",
    "32",
    "--op",
    "0.15",
];

/// A 64 MiB device of 64-page blocks and 2 capacities of writes: runs that end in moments.
pub const SMALL: &[&str] = &[
    "--logical-gib",
    "0.0625",
    "--pages-per-block",
    "64",
    "--write-volume",
    "2",
];
