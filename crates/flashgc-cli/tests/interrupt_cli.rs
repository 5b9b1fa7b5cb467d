//! Ctrl-C and SIGTERM in the commands that take no checkpoint (`fio`, `noc`, `dedup`): the
//! run under way stops with its partial result, which is printed and saved with the runs
//! already finished, and the command ends with 128 + the signal.
//!
//! `cargo test --release -p flashgc-cli --test interrupt_cli` (a few seconds).
#![cfg(target_os = "linux")]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Waits until process `pid` catches `sig` (its handler is installed: bit `sig - 1` of
/// `SigCgt` in /proc/PID/status), so the test does not depend on how fast it starts.
fn wait_for_handler(pid: u32, sig: i32) {
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

/// Runs `args` (a run of minutes), sends `sig` once it is caught, and checks the exit code,
/// the message, and that stdout and `-o` hold the same JSON: `runs` results, the last one
/// partial.
fn interrupted(args: &[&str], sig: i32, code: i32, runs: usize) {
    let d = std::env::temp_dir().join(format!(
        "flashgc-interrupt-{}-{}",
        std::process::id(),
        args[0]
    ));
    std::fs::create_dir_all(&d).unwrap();
    let out = d.join("out.json");
    let child = Command::new(env!("CARGO_BIN_EXE_flashgc"))
        .args(args)
        .arg("--json")
        .arg("-o")
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_handler(child.id(), sig);
    let t0 = Instant::now();
    // SAFETY: sends a signal to a child process this test spawned.
    unsafe {
        libc::kill(child.id() as libc::pid_t, sig);
    }
    let o = child.wait_with_output().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(20), "slow to stop");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    assert!(
        err.contains("interrupted: the last run's result is partial"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rs = v.as_array().unwrap();
    assert_eq!(rs.len(), runs, "{args:?}");
    let last = &rs[runs - 1];
    let last = last.get("result").unwrap_or(last);
    assert_eq!(last["ended_by"], "interrupted");
    assert_eq!(std::fs::read(&out).unwrap(), o.stdout.trim_ascii_end());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn fio_stops_with_a_partial_result_on_ctrl_c() {
    // Two placements: the first is stopped, the second never starts.
    let run = "fio --rw randwrite --bs 4k --iodepth 8 --data-gb 500 --placement single,sepbit";
    let args: Vec<&str> = run.split(' ').collect();
    interrupted(&args, libc::SIGINT, 130, 1);
}

#[test]
fn dedup_stops_with_a_partial_result_on_sigterm() {
    interrupted(&["dedup", "--requests", "100000000"], libc::SIGTERM, 143, 1);
}

#[test]
fn noc_stops_with_a_partial_result_on_ctrl_c() {
    // Both GC paths asked for: the conventional run is stopped, the selective one never runs.
    interrupted(
        &["noc", "--path", "both", "--requests", "1000000000"],
        libc::SIGINT,
        130,
        1,
    );
}
