//! Helpers shared by the command-line tests (each test file uses a part of them).
#![allow(dead_code)]

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

/// Sends SIGINT to `child` (as Ctrl-C would) and waits for its output.
#[cfg(unix)]
pub fn interrupt(child: std::process::Child) -> Output {
    // SAFETY: sends SIGINT to a child process this test spawned.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    child.wait_with_output().unwrap()
}
