//! A replay resumed from a saved position (`Workload::save_position`, what a checkpoint
//! stores) hands out exactly the requests, and ends with exactly the description, of the
//! uninterrupted replay: uncompressed text read directly or on the pipeline's thread, and
//! `.fgt`, with filters, compact remapping, diagnostics and a split record pending.
//! Compressed traces and looped replays save no position (a resumed run re-reads them).

use flashgc_core::workload::{Request, Workload};
use flashgc_trace::{Ops, Remap, TraceInput, TraceOptions, TraceWorkload};
use std::io::Write;

/// An MSR trace with a malformed line, a blank line and a time step back on each side of
/// request 3000, two volumes, reads, and 16-page writes.
fn msr() -> Vec<u8> {
    let mut s = String::new();
    for i in 0..6000u64 {
        let mut t = 128_166_385_295_514_663 + i * 10_000;
        if i == 100 || i == 4000 {
            s.push_str("not a request\n");
        }
        if i == 200 || i == 5000 {
            t -= 5_000_000;
            s.push('\n');
        }
        let op = if i % 5 == 0 { "Read" } else { "Write" };
        let len = if i % 7 == 0 { 65536 } else { 4096 };
        s.push_str(&format!(
            "{t},hm,{},{op},{},{len},100\n",
            i % 2,
            (i * 7 % 3000) * 4096
        ));
    }
    s.into_bytes()
}

fn opts(pipeline: bool, remap: Remap, ops: Ops, volume: Option<&str>) -> TraceOptions {
    TraceOptions {
        format: Some("msr".into()),
        skip_bad_lines: true,
        pipeline,
        remap,
        ops,
        volume: volume.map(str::to_string),
        ..TraceOptions::default()
    }
}

fn open(input: &TraceInput, o: &TraceOptions) -> TraceWorkload {
    TraceWorkload::open_input(input, o, 4096, 1 << 16).unwrap()
}

/// All requests from here on, in calls of `step` requests, and the final description.
fn drain(wl: &mut TraceWorkload, step: usize) -> (Vec<Request>, String) {
    let mut all = Vec::new();
    loop {
        let mut buf = Vec::new();
        wl.fill_requests(&mut buf, step).unwrap();
        if buf.is_empty() {
            return (all, wl.describe());
        }
        all.extend(buf);
    }
}

/// Takes the first requests (one, a seventh, half, all but three), saves the position,
/// resumes a second replay there, and compares with the uninterrupted replay.
fn check(input: &TraceInput, o: &TraceOptions) {
    let (want, want_desc) = drain(&mut open(input, o), 5);
    let n = want.len();
    assert!(n > 1000, "{o:?}: {n} requests");
    for before in [1, n / 7, n / 2, n - 3] {
        check_at(input, o, before, &want, &want_desc);
    }
}

fn check_at(
    input: &TraceInput,
    o: &TraceOptions,
    before: usize,
    want: &[Request],
    want_desc: &str,
) {
    let mut first = open(input, o);
    let mut head = Vec::new();
    // Calls of 5 requests split the 16-page requests of remapped runs across calls.
    while head.len() < before {
        let mut buf = Vec::new();
        first
            .fill_requests(&mut buf, 5.min(before - head.len()))
            .unwrap();
        assert!(!buf.is_empty());
        head.extend(buf);
    }
    let pos = first
        .save_position()
        .unwrap_or_else(|| panic!("{o:?}: no position saved"));
    let at_save = first.describe();
    drop(first);
    let mut second = open(input, o);
    second.load_position(&pos).unwrap();
    // What a partial result would say (requests, diagnostics) is restored too.
    assert_eq!(second.describe(), at_save, "{o:?} at {before}");
    let (tail, desc) = drain(&mut second, 5);
    head.extend(tail);
    assert_eq!(head.len(), want.len(), "{o:?} at {before}");
    assert!(head[..] == want[..], "{o:?} at {before}: other requests");
    assert_eq!(desc, want_desc, "{o:?} at {before}");
}

#[test]
fn a_resumed_replay_continues_exactly_where_it_was_saved() {
    let text = msr();
    let input = TraceInput::memory("t.csv", text.clone());
    let mut fgt = std::io::Cursor::new(Vec::new());
    let mut src = flashgc_trace::open_input(&input, Some("msr"), None, true).unwrap();
    flashgc_trace::fgt::write_fgt_to(&mut src, &mut fgt, "t.fgt", false).unwrap();
    let fgt = TraceInput::memory("t.fgt", fgt.into_inner());
    for pipeline in [false, true] {
        for (remap, ops, volume) in [
            (Remap::None, Ops::All, None),
            (Remap::Compact, Ops::All, None),
            (Remap::Compact, Ops::Write, Some("hm_1")),
            (Remap::Modulo, Ops::NoRead, None),
        ] {
            let o = opts(pipeline, remap, ops, volume);
            check(&input, &o);
            let o = TraceOptions {
                format: None,
                skip_bad_lines: false,
                ..o
            };
            check(&fgt, &o);
        }
    }
}

#[test]
fn a_position_is_refused_by_another_trace_and_not_saved_for_loops_or_compression() {
    let text = msr();
    let input = TraceInput::memory("t.csv", text.clone());
    let o = opts(false, Remap::Compact, Ops::All, None);
    let mut wl = open(&input, &o);
    drain_some(&mut wl);
    let pos = wl.save_position().unwrap();
    // Another size: refused by name, not replayed from a wrong place.
    let shorter = TraceInput::memory("t.csv", text[..text.len() - 1].to_vec());
    let e = open(&shorter, &o)
        .load_position(&pos)
        .unwrap_err()
        .to_string();
    assert!(e.contains("t.csv") && e.contains("bytes"), "{e}");
    // Garbage: refused.
    let e = open(&input, &o)
        .load_position(b"junk")
        .unwrap_err()
        .to_string();
    assert!(e.contains("position in the trace"), "{e}");
    // Looped replays and compressed traces re-read instead.
    for looped in [
        TraceOptions {
            loop_times: 2,
            ..o.clone()
        },
        TraceOptions {
            loop_until: Some(1.0),
            ..o.clone()
        },
    ] {
        let mut wl = open(&input, &looped);
        drain_some(&mut wl);
        assert!(wl.save_position().is_none(), "{looped:?}");
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text).unwrap();
    let gz = TraceInput::memory("t.csv.gz", gz.finish().unwrap());
    let mut wl = open(&gz, &o);
    drain_some(&mut wl);
    assert!(wl.save_position().is_none());
}

fn drain_some(wl: &mut TraceWorkload) {
    let mut buf = Vec::new();
    wl.fill_requests(&mut buf, 1000).unwrap();
    assert_eq!(buf.len(), 1000);
}

/// A blkparse trace with flushes, preflush and FUA writes: resumed (text, on the
/// pipeline's thread or not, and its `.fgt` version 2 copy) it hands out the same flushes
/// and FUA flags, and its description counts them as the uninterrupted replay does.
#[test]
fn a_resumed_replay_keeps_its_flushes_and_fua_writes() {
    let mut s = String::new();
    for i in 0..3000u64 {
        let rwbs = ["W", "FWS", "WFS", "R", "FWFS", "WS"][i as usize % 6];
        s.push_str(&format!(
            "  8,0 0 {i} {}.{:09} 1 D {rwbs} {} + 8 [a]\n",
            i / 1000,
            i % 1000 * 1000,
            i * 7 % 2000 * 8
        ));
        if i % 10 == 0 {
            s.push_str(&format!(
                "  8,0 0 {i} {}.{:09} 1 D FN [a]\n",
                i / 1000,
                i % 1000 * 1000 + 1
            ));
        }
    }
    let input = TraceInput::memory("f.blkparse.txt", s.into_bytes());
    let mut fgt = std::io::Cursor::new(Vec::new());
    let mut src = flashgc_trace::open_input(&input, None, None, true).unwrap();
    flashgc_trace::fgt::write_fgt_to(&mut src, &mut fgt, "f.fgt", false).unwrap();
    let fgt = TraceInput::memory("f.fgt", fgt.into_inner());
    for pipeline in [false, true] {
        let o = TraceOptions {
            pipeline,
            ..TraceOptions::default()
        };
        check(&input, &o);
        check(&fgt, &o);
    }
    let (all, desc) = drain(&mut open(&input, &TraceOptions::default()), 100);
    assert!(
        desc.contains(", 3000 requests, 1300 flushes, 1000 FUA writes"),
        "{desc}"
    );
    assert_eq!(all.iter().filter(|r| r.fua).count(), 1000);
}
