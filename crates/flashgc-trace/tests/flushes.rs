//! Flushes and FUA writes in traces: blkparse RWBS (`FN`, `FWS`, `WFS`, `FWFS`, ...) and
//! fio `sync` / `datasync` lines become flush requests and FUA writes, `.fgt` version 2
//! carries them, `trace stats` counts them, `--trace-flushes ignore` drops them, and a
//! flush with data is an error naming the file, line and field.

use flashgc_core::workload::{Op, Request, Workload};
use flashgc_trace::{convert, open_source, stats, Flushes, Ops, TraceOptions, TraceWorkload};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-trace-flushes-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

const US: u64 = 1_000;

/// blkparse D events: a write, a flush, a preflush write, a FUA write, a preflush FUA
/// write, a read, a discard, a data-less `N` (no request), a queued empty preflush write
/// (not a D event), a flush printed with `0 + 0`, and a preflush FUA metadata write.
const BLKPARSE: &str = "\
  8,0    0        1     0.000000000  100  D   W 0 + 8 [a]
  8,0    0        2     0.000001000  100  D  FN [a]
  8,0    0        3     0.000002000  100  D FWS 8 + 8 [a]
  8,0    0        4     0.000003000  100  D WFS 16 + 8 [a]
  8,0    0        5     0.000004000  100  D FWFS 24 + 8 [a]
  8,0    0        6     0.000005000  100  D   R 0 + 8 [a]
  8,0    0        7     0.000006000  100  D   D 64 + 16 [a]
  8,0    0        8     0.000007000  100  D   N [a]
  8,0    0        9     0.000008000  100  Q FWS 0 + 0 [a]
  8,0    0       10     0.000009000  100  D  FN 0 + 0 [a]
  8,0    0       11     0.000010000  100  D FWFSM 32 + 8 [a]
";

fn write_file(name: &str, text: &str) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn rq(t_us: u64, op: Op, lpn: u64, pages: u32, fua: bool) -> Request {
    Request {
        time_ns: t_us * US,
        op,
        lpn,
        pages,
        content: 0,
        fua,
    }
}

fn fl(t_us: u64) -> Request {
    rq(t_us, Op::Flush, 0, 0, false)
}

/// The requests of `BLKPARSE` (D events), written out by hand.
fn blkparse_requests() -> Vec<Request> {
    vec![
        rq(0, Op::Write, 0, 1, false),
        fl(1),
        fl(2),
        rq(2, Op::Write, 1, 1, false),
        rq(3, Op::Write, 2, 1, true),
        fl(4),
        rq(4, Op::Write, 3, 1, true),
        rq(5, Op::Read, 0, 1, false),
        rq(6, Op::Trim, 8, 2, false),
        fl(9),
        fl(10),
        rq(10, Op::Write, 4, 1, true),
    ]
}

/// Replays `path` whole; returns the requests and the workload line.
fn replay(path: &Path, opts: &TraceOptions) -> (Vec<Request>, String) {
    let mut w = TraceWorkload::open(path, opts, 4096, 1 << 20).unwrap();
    let mut v = Vec::new();
    loop {
        let n = v.len();
        // Small batches: the flushes cross batch boundaries.
        w.fill_requests(&mut v, 2).unwrap();
        if v.len() == n {
            return (v, w.describe());
        }
    }
}

fn no_pipeline() -> TraceOptions {
    TraceOptions {
        pipeline: false,
        ..TraceOptions::default()
    }
}

#[test]
fn blkparse_rwbs_flushes_and_fua_writes_are_replayed() {
    let p = write_file("rwbs.blkparse.txt", BLKPARSE);
    for pipeline in [false, true] {
        let o = TraceOptions {
            pipeline,
            ..TraceOptions::default()
        };
        let (got, line) = replay(&p, &o);
        assert_eq!(got, blkparse_requests(), "pipeline {pipeline}");
        // Seven requests (the flushes are not requests), five flushes, three FUA writes.
        assert!(
            line.contains(", 7 requests, 5 flushes, 3 FUA writes"),
            "{line}"
        );
    }
    // `N` alone and the unselected Q event are ignored lines.
    let src = open_source(&p, None, None, false).unwrap();
    assert_eq!(src.format().name(), "blkparse:D");
    let s = stats(&p, &no_pipeline(), 4096).unwrap();
    assert_eq!(
        (s.requests, s.writes, s.reads, s.trims),
        (7, 5, 1, 1),
        "{s:?}"
    );
    assert_eq!((s.flushes, s.fua_writes), (5, 3));
    assert_eq!(s.diagnostics.ignored_lines, 2);
    assert_eq!(s.diagnostics.zero_length, 0);
    let text = s.to_text();
    assert!(
        text.contains("flushes    5 (not requests); FUA writes 3"),
        "{text}"
    );
    // Q events: the empty preflush write `Q FWS 0 + 0` is a flush on its own.
    let q = TraceOptions {
        blkparse_events: Some("Q".into()),
        ..no_pipeline()
    };
    let s = stats(&p, &q, 4096);
    // No Q event carries data: an empty trace, whose message counts the flush.
    let s = s.unwrap();
    assert_eq!((s.requests, s.flushes), (0, 1));
}

#[test]
fn ignoring_flushes_replays_what_flashgc_replayed_before() {
    let p = write_file("rwbs-ignore.blkparse.txt", BLKPARSE);
    let o = TraceOptions {
        flushes: Flushes::Ignore,
        ..no_pipeline()
    };
    let (got, line) = replay(&p, &o);
    let want: Vec<Request> = blkparse_requests()
        .into_iter()
        .filter(|r| r.op != Op::Flush)
        .map(|r| Request { fua: false, ..r })
        .collect();
    assert_eq!(got, want);
    assert!(
        line.ends_with(", 7 requests)") && !line.contains("FUA"),
        "{line}"
    );
    // `--ops read` drops flushes too; `--ops write` keeps them with the writes.
    let reads = TraceOptions {
        ops: Ops::Read,
        ..no_pipeline()
    };
    assert!(replay(&p, &reads).0.iter().all(|r| r.op == Op::Read));
    let writes = TraceOptions {
        ops: Ops::Write,
        ..no_pipeline()
    };
    let w = replay(&p, &writes).0;
    assert_eq!(w.iter().filter(|r| r.op == Op::Flush).count(), 5);
    assert_eq!(w.iter().filter(|r| r.op == Op::Write).count(), 5);
}

#[test]
fn a_flush_with_data_is_an_error_naming_file_line_and_field() {
    let p = write_file(
        "flush-with-data.blkparse.txt",
        "  8,0 0 1 0.000000000 100 D W 0 + 8 [a]\n  8,0 0 2 0.000001000 100 D FN 0 + 8 [a]\n",
    );
    let e = TraceWorkload::open(&p, &no_pipeline(), 4096, 1 << 20)
        .and_then(|mut w| w.fill_requests(&mut Vec::new(), 10))
        .unwrap_err()
        .to_string();
    let file = p.display().to_string();
    assert!(
        e.starts_with(&format!("{file}:2:")) && e.contains("`nsectors`") && e.contains("flush"),
        "{e}"
    );
    // --skip-bad-lines counts it.
    let o = TraceOptions {
        skip_bad_lines: true,
        ..no_pipeline()
    };
    let s = stats(&p, &o, 4096).unwrap();
    assert_eq!((s.requests, s.flushes, s.diagnostics.bad_lines), (1, 0, 1));
}

#[test]
fn fio_sync_and_datasync_are_flushes() {
    // As fio 3.33 writes them: `FILE sync OFFSET 0` (the offset of the last I/O).
    let v3 = write_file(
        "sync.fio3.iolog",
        "fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n1 /dev/sdb write 0 4096\n\
         2 /dev/sdb sync 0 0\n3 /dev/sdb write 4096 4096\n4 /dev/sdb datasync 4096 0\n\
         5 /dev/sdb close\n",
    );
    // Times from the first request's, in us (fio writes microseconds).
    let (got, line) = replay(&v3, &no_pipeline());
    assert_eq!(
        got,
        vec![
            rq(0, Op::Write, 0, 1, false),
            fl(1),
            rq(2, Op::Write, 1, 1, false),
            fl(3),
        ]
    );
    assert!(line.contains(", 2 requests, 2 flushes)"), "{line}");
    // fio v2 (no times; a bare `sync` is read too).
    let v2 = write_file(
        "sync.fio2.iolog",
        "fio version 2 iolog\n/dev/sdb add\n/dev/sdb write 0 4096\n/dev/sdb sync\n",
    );
    let (got, _) = replay(&v2, &no_pipeline());
    assert_eq!(got, vec![rq(0, Op::Write, 0, 1, false), fl(0)]);
    let s = stats(&v2, &no_pipeline(), 4096).unwrap();
    assert_eq!(
        (s.requests, s.flushes, s.diagnostics.ignored_lines),
        (1, 1, 1)
    );
    // A sync with a length is a malformed line naming the field.
    let bad = write_file(
        "bad-sync.fio3.iolog",
        "fio version 3 iolog\n1 /dev/sdb write 0 4096\n2 /dev/sdb sync 0 8\n",
    );
    let e = stats(&bad, &no_pipeline(), 4096).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}:3:", bad.display())) && e.contains("`length`"),
        "{e}"
    );
}

#[test]
fn fgt_version_2_carries_flushes_and_fua_and_version_1_stays_for_the_others() {
    let p = write_file("rwbs-fgt.blkparse.txt", BLKPARSE);
    let out = tmp("rwbs.fgt");
    let rep = convert(&p, &TraceOptions::default(), &out).unwrap();
    assert_eq!(rep.version, 2);
    // Nine records: seven requests and the two flushes on their own (a preflush request
    // is one record with its flag).
    assert_eq!(rep.records, 9);
    let b = std::fs::read(&out).unwrap();
    assert_eq!(u16::from_le_bytes([b[8], b[9]]), 2);
    let (got, line) = replay(&out, &TraceOptions::default());
    assert_eq!(got, blkparse_requests());
    assert!(
        line.contains(", 7 requests, 5 flushes, 3 FUA writes"),
        "{line}"
    );
    let s = stats(&out, &TraceOptions::default(), 4096).unwrap();
    assert_eq!((s.requests, s.flushes, s.fua_writes), (7, 5, 3));
    // `trace convert` carries them from a .fgt file too (version 2 again).
    let again = tmp("rwbs-again.fgt");
    assert_eq!(
        convert(&out, &TraceOptions::default(), &again)
            .unwrap()
            .version,
        2
    );
    assert_eq!(
        replay(&again, &TraceOptions::default()).0,
        blkparse_requests()
    );
    // A trace without flushes or FUA writes is written as version 1, as before.
    let plain = write_file(
        "plain.blkparse.txt",
        "  8,0 0 1 0.000000000 100 D W 0 + 8 [a]\n  8,0 0 2 0.000001000 100 D WS 8 + 8 [a]\n",
    );
    let out1 = tmp("plain.fgt");
    let rep = convert(&plain, &TraceOptions::default(), &out1).unwrap();
    assert_eq!((rep.version, rep.records), (1, 2));
    let b1 = std::fs::read(&out1).unwrap();
    assert_eq!(u16::from_le_bytes([b1[8], b1[9]]), 1);
    let (got, _) = replay(&out1, &TraceOptions::default());
    assert_eq!(
        got,
        vec![rq(0, Op::Write, 0, 1, false), rq(1, Op::Write, 1, 1, false)]
    );
}

/// [`replay`] in batches of `batch` requests, with the workload line.
fn replay_in(path: &Path, opts: &TraceOptions, batch: usize) -> (Vec<Request>, String) {
    let mut w = TraceWorkload::open(path, opts, 4096, 1 << 20).unwrap();
    let mut v = Vec::new();
    loop {
        let n = v.len();
        w.fill_requests(&mut v, batch).unwrap();
        assert!(
            v.len() - n <= batch,
            "a batch of {batch} got {}",
            v.len() - n
        );
        if v.len() == n {
            return (v, w.describe());
        }
    }
}

#[test]
fn fgt_version_2_fast_replay_equals_the_text_replay_at_every_batch_size() {
    // A `.fgt` file without filters replays through the hot loop (version 2 included);
    // the blkparse text through the general path. They must hand out the same requests,
    // in batches of every size (a preflush request is two, and may not fit), with
    // flushes replayed or ignored, looped (the second pass shifted by the first's span),
    // and count the same requests, flushes and FUA writes.
    let p = write_file("rwbs-fast.blkparse.txt", BLKPARSE);
    let out = tmp("rwbs-fast.fgt");
    assert_eq!(
        convert(&p, &TraceOptions::default(), &out).unwrap().version,
        2
    );
    for flushes in [Flushes::Replay, Flushes::Ignore] {
        for loop_times in [1, 2] {
            let o = TraceOptions {
                flushes,
                loop_times,
                ..no_pipeline()
            };
            let (text, text_line) = replay_in(&p, &o, 1000);
            let want = match flushes {
                Flushes::Replay => 7 * loop_times as usize + 5 * loop_times as usize,
                Flushes::Ignore => 7 * loop_times as usize,
            };
            assert_eq!(text.len(), want, "{flushes:?} x{loop_times}");
            if loop_times == 1 && flushes == Flushes::Replay {
                assert_eq!(text, blkparse_requests());
            }
            for batch in [1, 2, 3, 4, 5, 7, 64] {
                let (fast, line) = replay_in(&out, &o, batch);
                assert_eq!(fast, text, "{flushes:?} x{loop_times}, batches of {batch}");
                // The counts of the workload line (its name and format differ).
                let counts = |l: &str| l[l.find("requests").map_or(0, |i| i - 4)..].to_string();
                assert_eq!(counts(&line), counts(&text_line), "{line} / {text_line}");
            }
        }
    }
}

#[test]
fn fgt_version_2_fast_replay_names_a_preflush_request_beyond_the_device() {
    // The preflush write at sector 8 * 1024 (4 MiB) does not fit a 1 MiB device: the fast
    // path stops there and the error is the general path's, naming the request.
    let text =
        "  8,0 0 1 0.000000000 100 D W 0 + 8 [a]\n  8,0 0 2 0.000001000 100 D FWS 8192 + 8 [a]\n";
    let p = write_file("far.blkparse.txt", text);
    let out = tmp("far.fgt");
    assert_eq!(
        convert(&p, &TraceOptions::default(), &out).unwrap().version,
        2
    );
    let open = |path: &Path| {
        let mut w = TraceWorkload::open(path, &no_pipeline(), 4096, 256).unwrap();
        let mut v = Vec::new();
        let e = w.fill_requests(&mut v, 16).unwrap_err().to_string();
        (v, e)
    };
    let (fast, e) = open(&out);
    assert!(e.contains("beyond the device's 256 logical pages"), "{e}");
    assert!(fast.iter().all(|r| r.op != Op::Flush), "{fast:?}");
    let (_, e_text) = open(&p);
    assert!(
        e_text.contains("beyond the device's 256 logical pages"),
        "{e_text}"
    );
}

/// Only a trace that can hold flushes, replayed with `--trace-flushes replay`, says it may
/// hand some out (the driver then keeps their tests on its hot path): blkparse, fio and
/// `.fgt` version 2 traces, not MSR CSV or `.fgt` version 1, nor anything under `ignore`.
#[test]
fn only_traces_that_can_hold_flushes_may_hand_them_out() {
    let may = |p: &Path, o: &TraceOptions| {
        TraceWorkload::open(p, o, 4096, 1 << 20)
            .unwrap()
            .may_flush()
    };
    let blk = write_file("may.blkparse.txt", BLKPARSE);
    let fio = write_file(
        "may.fio3.iolog",
        "fio version 3 iolog\n1 /dev/sdb write 0 4096\n",
    );
    let msr = write_file("may.msr.csv", "128166385295514663,hm,0,Write,0,4096,10\n");
    let (v1, v2) = (tmp("may1.fgt"), tmp("may2.fgt"));
    assert_eq!(convert(&msr, &no_pipeline(), &v1).unwrap().version, 1);
    assert_eq!(convert(&blk, &no_pipeline(), &v2).unwrap().version, 2);
    let ignore = TraceOptions {
        flushes: Flushes::Ignore,
        ..no_pipeline()
    };
    for pipeline in [false, true] {
        let o = TraceOptions {
            pipeline,
            ..TraceOptions::default()
        };
        for (p, want) in [
            (&blk, true),
            (&fio, true),
            (&v2, true),
            (&msr, false),
            (&v1, false),
        ] {
            assert_eq!(may(p, &o), want, "{} (pipeline {pipeline})", p.display());
            assert!(!may(p, &ignore), "{} ignored", p.display());
        }
    }
}

/// A blkparse trace without flushes replays through the flush-aware path, its `.fgt`
/// version 1 conversion through the one without: the same requests, with remapping and a
/// write target (the general path, not the `.fgt` hot loop) and without.
#[test]
fn a_trace_without_flushes_replays_alike_with_and_without_the_flush_tests() {
    let text: String = (0..200u64)
        .map(|i| {
            let op = ["W", "R", "WS", "W", "D"][(i % 5) as usize];
            let sector = (i * 37 % 64) * 8;
            format!(
                "  8,0 0 {i} 0.{:09} 100 D {op} {sector} + 16 [a]\n",
                i * 1000
            )
        })
        .collect();
    let blk = write_file("alike.blkparse.txt", &text);
    let fgt = tmp("alike.fgt");
    assert_eq!(convert(&blk, &no_pipeline(), &fgt).unwrap().version, 1);
    let compact = TraceOptions {
        remap: flashgc_trace::Remap::Compact,
        loop_until: Some(3.0),
        ..no_pipeline()
    };
    for o in [no_pipeline(), compact] {
        let open = |p: &Path| TraceWorkload::open(p, &o, 4096, 256).unwrap();
        let (mut a, mut b) = (open(&blk), open(&fgt));
        assert!(a.may_flush() && !b.may_flush());
        let (mut ra, mut rb) = (Vec::new(), Vec::new());
        loop {
            let n = (ra.len(), rb.len());
            a.fill_requests(&mut ra, 7).unwrap();
            b.fill_requests(&mut rb, 7).unwrap();
            if (ra.len(), rb.len()) == n {
                break;
            }
        }
        assert!(ra.len() >= 200, "{}", ra.len());
        assert_eq!(ra, rb);
        assert_eq!(a.trace_requests_out(), b.trace_requests_out());
    }
}
