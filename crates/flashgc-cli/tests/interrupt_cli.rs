//! Ctrl-C and SIGTERM in the commands that take no checkpoint (`fio`, `noc`, `dedup`,
//! `compare`): the runs under way stop with their partial results, which are printed and
//! saved with the runs already finished, and the command ends with 128 + the signal.
//!
//! `cargo test --release -p flashgc-cli --test interrupt_cli` (a few seconds).
#![cfg(target_os = "linux")]

mod common;

use common::wait_for_handler;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Waits until a thread of process `pid` other than its main thread has run for a clock
/// tick (utime + stime in /proc/PID/task/TID/stat): a `compare` worker has taken its first
/// combination, so a signal now stops a run instead of preventing all of them.
fn wait_for_a_busy_worker(pid: u32) {
    let t0 = Instant::now();
    loop {
        let busy = std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|t| t.file_name().to_str() != Some(&pid.to_string()))
            .any(|t| {
                let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
                // The fields after the command name (in parentheses): utime and stime are
                // the 14th and 15th of the line, the 12th and 13th after it.
                let f: Vec<&str> = stat
                    .rsplit_once(')')
                    .map_or(vec![], |(_, r)| r.split_whitespace().collect());
                let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
                ticks(11) + ticks(12) > 0
            });
        if busy {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "no worker thread ran"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs `args` (a run of minutes) with `-o FILE`, sends `sig` once it is caught (and
/// `ready` has returned), and checks the exit code and that nothing panicked; returns
/// stdout, stderr and the `-o` file (valid JSON: the results).
fn stop(args: &[&str], sig: i32, code: i32, ready: fn(u32)) -> (Vec<u8>, String, Vec<u8>) {
    let d = std::env::temp_dir().join(format!(
        "flashgc-interrupt-{}-{}-{sig}",
        std::process::id(),
        args[0]
    ));
    std::fs::create_dir_all(&d).unwrap();
    let out = d.join("out.json");
    let child = Command::new(env!("CARGO_BIN_EXE_flashgc"))
        .args(args)
        .arg("-o")
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A run of minutes must not outlive a failed test: killed unless it ended.
    struct Reap(u32);
    impl Drop for Reap {
        fn drop(&mut self) {
            // SAFETY: kills the child process this test spawned, not yet waited for.
            unsafe {
                libc::kill(self.0 as libc::pid_t, libc::SIGKILL);
            }
        }
    }
    let reap = Reap(child.id());
    wait_for_handler(child.id(), sig);
    ready(child.id());
    let t0 = Instant::now();
    // SAFETY: sends a signal to a child process this test spawned.
    unsafe {
        libc::kill(child.id() as libc::pid_t, sig);
    }
    std::mem::forget(reap);
    let o = child.wait_with_output().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(20), "slow to stop");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let saved = std::fs::read(&out).unwrap();
    serde_json::from_slice::<serde_json::Value>(&saved).expect("-o holds JSON");
    let _ = std::fs::remove_dir_all(&d);
    (o.stdout, err, saved)
}

/// The `ended_by` of each result in a JSON array of results.
fn ended_by(json: &[u8]) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(json).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.get("result").unwrap_or(r)["ended_by"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// [`stop`] with `--json`: stdout and `-o` hold the same JSON, `runs` results, the last one
/// partial.
fn interrupted(args: &[&str], sig: i32, code: i32, runs: usize) {
    let args = [args, &["--json"]].concat();
    let (stdout, err, saved) = stop(&args, sig, code, |_| {});
    assert!(
        err.contains("interrupted: the last run's result is partial"),
        "{err}"
    );
    let ends = ended_by(&stdout);
    assert_eq!(ends.len(), runs, "{args:?}");
    assert_eq!(ends[runs - 1], "interrupted");
    assert_eq!(saved, stdout.trim_ascii_end());
}

#[test]
fn fio_stops_with_a_partial_result_on_ctrl_c() {
    // Two placements: the first is stopped, the second never starts.
    let run = "fio --rw randwrite --bs 4k --iodepth 8 --data-gb 500 --placement single,sepbit";
    let args: Vec<&str> = run.split(' ').collect();
    interrupted(&args, libc::SIGINT, 130, 1);
}

#[test]
fn a_fio_job_file_stops_with_a_partial_result_on_sigterm() {
    // A time-based job of an hour of simulated time; it ran to its end before, whatever the
    // signal said.
    let d = std::env::temp_dir().join(format!("flashgc-interrupt-job-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let job = d.join("long.fio");
    std::fs::write(
        &job,
        "[a]\nioengine=libaio\nrw=randwrite\niodepth=8\nruntime=1h\ntime_based\n",
    )
    .unwrap();
    let j = job.display().to_string();
    interrupted(
        &["fio", "--job", &j, "--scheduler", "read-first"],
        libc::SIGTERM,
        143,
        1,
    );
    let _ = std::fs::remove_dir_all(&d);
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

/// `compare` of three pairs, each a run of minutes, two at a time.
const COMPARE: &str = "compare --logical-gib 1 --write-volume 1000 --placement single,sup-gc,sepbit --victim greedy --jobs 2";

#[test]
fn compare_stops_its_runs_with_partial_results_on_ctrl_c() {
    let args: Vec<&str> = COMPARE.split(' ').chain(["--json"]).collect();
    let (stdout, err, saved) = stop(&args, libc::SIGINT, 130, wait_for_a_busy_worker);
    assert!(
        err.contains("interrupted: ") && err.contains("of the 3 runs"),
        "{err}"
    );
    // The runs in progress are partial; the third did not start.
    let ends = ended_by(&stdout);
    assert!((1..3).contains(&ends.len()), "{ends:?}");
    assert!(ends.iter().all(|e| e == "interrupted"), "{ends:?}");
    assert_eq!(saved, stdout.trim_ascii_end());
}

#[test]
fn compare_shows_partial_runs_on_sigterm() {
    // The human table marks the partial runs; -o saves the same runs as JSON.
    let args: Vec<&str> = COMPARE.split(' ').collect();
    let (stdout, err, saved) = stop(&args, libc::SIGTERM, 143, wait_for_a_busy_worker);
    assert!(err.contains("did not start"), "{err}");
    let table = String::from_utf8(stdout).unwrap();
    let ends = ended_by(&saved);
    assert!((1..3).contains(&ends.len()), "{ends:?}");
    let partial = ends.iter().filter(|e| *e == "interrupted").count();
    assert!(partial >= 1, "{ends:?}");
    let marked = table.lines().filter(|l| l.contains("  PARTIAL (")).count();
    assert_eq!(marked, partial, "{table}");
}

#[test]
fn compare_csv_marks_partial_runs() {
    // The CSV had no mark of a partial run: its rows looked like finished ones. Its
    // `ended_by` column says `interrupted`, as the JSON's field does.
    let args: Vec<&str> = COMPARE.split(' ').chain(["--csv"]).collect();
    let (stdout, err, saved) = stop(&args, libc::SIGINT, 130, wait_for_a_busy_worker);
    assert!(err.contains("did not start"), "{err}");
    let csv = String::from_utf8(stdout).unwrap();
    let mut lines = csv.lines();
    // The last column (a quoted scheme spec before it may hold commas).
    let last = |l: &str| l.rsplit(',').next().unwrap_or("").to_string();
    assert_eq!(last(lines.next().unwrap_or_default()), "ended_by", "{csv}");
    let marks: Vec<String> = lines.map(last).collect();
    assert_eq!(marks, ended_by(&saved), "{csv}");
    assert!(marks.iter().any(|m| m == "interrupted"), "{csv}");
}
