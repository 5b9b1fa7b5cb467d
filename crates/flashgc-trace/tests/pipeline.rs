//! Pipelined replay (the text parser on its own thread, issue 14 item 5) gives exactly what
//! the single-threaded replay gives — requests, errors, diagnostics — on the real traces of
//! `../shared/traces` and on hand-made bad input, with loops and filters; and dropping a
//! replay mid-stream (what Ctrl-C does) returns at once.

use flashgc_core::workload::{Request, Workload};
use flashgc_core::{Config, Simulation};
use flashgc_trace::{Ops, Remap, TraceOptions, TraceWorkload};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A real trace of `../shared/traces` (or `$FLASHGC_TRACES`); `None` (test skipped, said
/// on stderr) where the folder is absent.
fn shared(rel: &str) -> Option<PathBuf> {
    let d = std::env::var_os("FLASHGC_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"));
    if d.is_dir() {
        Some(d.join(rel))
    } else {
        eprintln!(
            "SKIPPED: real traces folder {} is absent (set FLASHGC_TRACES)",
            d.display()
        );
        None
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-pipe-tests-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Requests per fill call (varied call sizes), the error text, and the description.
fn outcome(path: &Path, opts: &TraceOptions) -> (Vec<Vec<Request>>, Option<String>, String) {
    let mut wl = match TraceWorkload::open(path, opts, 4096, 1 << 20) {
        Ok(w) => w,
        Err(e) => return (Vec::new(), Some(e.to_string()), String::new()),
    };
    let mut calls = Vec::new();
    loop {
        let mut buf = Vec::new();
        if let Err(e) = wl.fill_requests(&mut buf, 1 + (calls.len() * 37) % 5000) {
            return (calls, Some(e.to_string()), wl.describe());
        }
        if buf.is_empty() {
            return (calls, None, wl.describe());
        }
        calls.push(buf);
    }
}

fn both(path: &Path, opts: &TraceOptions) {
    let direct = outcome(
        path,
        &TraceOptions {
            pipeline: false,
            ..opts.clone()
        },
    );
    let piped = outcome(
        path,
        &TraceOptions {
            pipeline: true,
            pipeline_min_bytes: 0,
            ..opts.clone()
        },
    );
    assert!(!direct.0.is_empty(), "{}: nothing replayed", path.display());
    assert_eq!(direct.1, piped.1, "{}: errors differ", path.display());
    assert_eq!(direct.2, piped.2, "{}: descriptions differ", path.display());
    assert!(direct.0 == piped.0, "{}: requests differ", path.display());
}

#[test]
fn pipelined_replay_equals_direct_replay_on_real_traces() {
    if !flashgc_trace::pipe::worth_it() {
        eprintln!("one core only: the pipelined path is not used here (nothing to compare)");
        return;
    }
    let files = [
        ("msr_cambridge/msr-cambridge1-sample.csv", None),
        ("fiu/cheetah.cs.fiu.edu-110108-113008.2.head10008.blkparse", None),
        ("systor17/systor17-traces-sample.csv", None),
        ("tencent_cbs/cloud_storage-sample.csv.gz", None),
        ("mqsim_umass_tpcc/tpcc-small.trace", Some("mqsim")),
        ("blktrace/ycsb_ext4.blkparse.txt.gz", None),
        ("blktrace/apress_hadoop_java_sdb.blkparse.txt.gz", None),
        ("cloudphysics/cloudPhysicsIO.csv.gz", Some("csv:ts=2,op=3,size=4,offset=5,offset_unit=sector,ts_unit=s,write=2a,read=28,header=1")),
    ];
    for (f, fmt) in files {
        let Some(p) = shared(f) else { return };
        let base = TraceOptions {
            format: fmt.map(str::to_string),
            remap: Remap::Compact,
            ..TraceOptions::default()
        };
        both(&p, &base);
        // Loops, filters and a write target: passes end and rewind on the reader thread.
        both(
            &p,
            &TraceOptions {
                loop_times: 3,
                ops: Ops::Write,
                ..base.clone()
            },
        );
        both(
            &p,
            &TraceOptions {
                loop_until: Some(0.2),
                time_scale: 0.5,
                ..base.clone()
            },
        );
    }
}

#[test]
fn pipelined_replay_keeps_errors_and_warnings_in_place() {
    if !flashgc_trace::pipe::worth_it() {
        return;
    }
    // A bad line after many good ones: the same requests, then the same error naming the
    // file, line and field; with --skip-bad-lines the same counted warnings.
    let p = tmp("bad.mqsim");
    let mut s = String::new();
    for i in 0..20_000u64 {
        s.push_str(&format!(
            "{} 0 {} 8 0\n",
            i * 1000,
            (i * 7919) % 100_000 * 8
        ));
        if i % 5000 == 4999 {
            s.push_str("123 0 abc 8 0\n"); // bad lba
            s.push_str("100 0 8 0 0\n"); // zero length, and time steps back
        }
    }
    std::fs::write(&p, s).unwrap();
    let o = TraceOptions {
        format: Some("mqsim".into()),
        ..TraceOptions::default()
    };
    both(&p, &o);
    let (_, err, _) = outcome(&p, &o);
    let err = err.expect("a bad line is an error");
    assert!(err.contains(":5001:") && err.contains("lba"), "{err}");
    both(
        &p,
        &TraceOptions {
            skip_bad_lines: true,
            loop_times: 2,
            ..o
        },
    );
}

#[test]
fn simulation_results_are_identical_pipelined_or_not() {
    let Some(p) = shared("msr_cambridge/msr-cambridge1-sample.csv") else {
        return;
    };
    let run = |pipeline: bool| {
        let mut cfg = Config::default();
        cfg.ftl.logical_gib = Some(0.05);
        cfg.device.pages_per_block = 16;
        cfg.run.write_volume = 3.0;
        let l = cfg.layout().unwrap();
        let opts = TraceOptions {
            remap: Remap::Compact,
            loop_until: Some(3.0),
            pipeline,
            ..TraceOptions::default()
        };
        let mut wl = TraceWorkload::open(&p, &opts, l.lpn_size, l.logical_pages).unwrap();
        let mut sim = Simulation::new(&cfg).unwrap();
        let r = sim.run(&mut wl as &mut dyn Workload, &mut |_| {}).unwrap();
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(run(false), run(true));
}

#[test]
fn dropping_a_pipelined_replay_mid_stream_returns_at_once() {
    // What Ctrl-C does: the simulation stops taking requests and drops the workload. The
    // reader thread is blocked on a full channel (endless loop over a text trace): the drop
    // must stop and join it promptly.
    let Some(p) = shared("fiu/cheetah.cs.fiu.edu-110108-113008.2.head10008.blkparse") else {
        return;
    };
    let o = TraceOptions {
        loop_until: Some(1e6),
        remap: Remap::Compact,
        ..TraceOptions::default()
    };
    let mut wl = TraceWorkload::open(&p, &o, 4096, 1 << 20).unwrap();
    let mut buf = Vec::new();
    wl.fill_requests(&mut buf, 100).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let t = Instant::now();
    drop(wl);
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "dropping took {:?}",
        t.elapsed()
    );
}
