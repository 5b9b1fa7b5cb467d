//! `.fgt` version 3: a write recorded one page per record (`flashgc serve --record`, each
//! page with its content fingerprint), its pages after the first flagged as continuations.
//! A replay hands out the one request the application sent (its content then unknown), or
//! with `per_page` (the FTL's content mode) each page with its fingerprint; `trace stats`
//! counts the application's requests and sizes. Continuations that do not continue a write
//! (first record, after a read, a gap, another time, volume or FUA flag) are refused by the
//! writer and, in a crafted file, by the reader, naming the record.

use flashgc_core::workload::{Op, Request};
use flashgc_trace::fgt::FgtWriter;
use flashgc_trace::{open_source, Rec, TraceOptions, TraceWorkload, VolumeKind};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-fgt-cont-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn rec(time_ns: u64, op: Op, page: u64, pages: u64, content: u64, cont: bool) -> Rec {
    Rec {
        time_ns,
        op,
        offset: page * 4096,
        len: pages * 4096,
        volume: 0,
        content,
        fua: false,
        preflush: false,
        cont,
    }
}

/// A three-page write recorded per page (contents 11, 12, 13), a read of two pages, and a
/// one-page write (content 14).
fn recording(name: &str) -> (PathBuf, Vec<u8>) {
    let p = tmp(name);
    let f = std::fs::File::create(&p).unwrap();
    let mut w = FgtWriter::new(f, name, true, VolumeKind::None).unwrap();
    let recs = [
        rec(10, Op::Write, 0, 1, 11, false),
        rec(10, Op::Write, 1, 1, 12, true),
        rec(10, Op::Write, 2, 1, 13, true),
        rec(20, Op::Read, 0, 2, 0, false),
        rec(30, Op::Write, 5, 1, 14, false),
    ];
    for (i, r) in recs.iter().enumerate() {
        w.push(r, i as u64 + 1, name).unwrap();
    }
    assert_eq!(w.version(), 3);
    w.finish(|_| "nbd".into()).unwrap();
    let b = std::fs::read(&p).unwrap();
    assert_eq!(b[8], 3, "header version");
    (p, b)
}

fn replay(p: &Path, per_page: bool) -> Vec<Request> {
    let opts = TraceOptions {
        per_page,
        ..TraceOptions::default()
    };
    let mut w = TraceWorkload::open(p, &opts, 4096, 64).unwrap();
    let mut out = Vec::new();
    loop {
        let n = out.len();
        w.fill_requests(&mut out, 2).unwrap();
        if out.len() == n {
            return out;
        }
    }
}

fn req(time_ns: u64, op: Op, lpn: u64, pages: u32, content: u64) -> Request {
    Request {
        time_ns,
        op,
        lpn,
        pages,
        content,
        fua: false,
    }
}

#[test]
fn a_recorded_write_replays_as_one_request_or_page_by_page() {
    let (p, _) = recording("rec.fgt");
    // Times are relative to the first request.
    assert_eq!(
        replay(&p, false),
        [
            req(0, Op::Write, 0, 3, 0),
            req(10, Op::Read, 0, 2, 0),
            req(20, Op::Write, 5, 1, 14),
        ]
    );
    assert_eq!(
        replay(&p, true),
        [
            req(0, Op::Write, 0, 1, 11),
            req(0, Op::Write, 1, 1, 12),
            req(0, Op::Write, 2, 1, 13),
            req(10, Op::Read, 0, 2, 0),
            req(20, Op::Write, 5, 1, 14),
        ]
    );
    let s = flashgc_trace::stats(&p, &TraceOptions::default(), 4096).unwrap();
    assert_eq!((s.requests, s.reads, s.writes), (3, 1, 2));
    assert_eq!((s.write_bytes, s.continuations), (4 * 4096, 2));
    let d = s.duplicates.as_ref().expect("fingerprints");
    assert_eq!(d.written_pages_with_hash, 4);
    // One write of 12 KiB and one of 4 KiB; the read of 8 KiB.
    let w: Vec<(Option<u64>, u64)> = s
        .size_histogram
        .iter()
        .filter(|b| b.writes > 0)
        .map(|b| (b.upto_bytes, b.writes))
        .collect();
    assert_eq!(
        w,
        [(Some(4096), 1), (Some(16384), 1)],
        "{:?}",
        s.size_histogram
    );
    // The records themselves, as `convert` and the content mode read them.
    let mut src = open_source(&p, None, None, false).unwrap();
    let mut conts = Vec::new();
    while let Some(r) = src.next_record().unwrap() {
        conts.push(r.rec.cont);
    }
    assert_eq!(conts, [false, true, true, false, false]);
}

#[test]
fn the_writer_refuses_a_continuation_of_nothing() {
    let cases: [(&[Rec], &str); 5] = [
        (
            &[rec(1, Op::Write, 0, 1, 1, true)],
            "record 1: a continuation (flags bit 2) needs a write before it",
        ),
        (
            &[rec(1, Op::Read, 0, 1, 0, false), rec(1, Op::Write, 1, 1, 1, true)],
            "record 2: a continuation (flags bit 2) is a write (op 1) without preflush after a write; found op 1 after op 0",
        ),
        (
            &[rec(1, Op::Write, 0, 1, 1, false), rec(1, Op::Write, 2, 1, 1, true)],
            "start where it ends (byte 4096); found 1 ns, volume 0, byte 8192",
        ),
        (
            &[rec(1, Op::Write, 0, 1, 1, false), rec(2, Op::Write, 1, 1, 1, true)],
            "must have the previous write's time (1 ns)",
        ),
        (
            &[rec(1, Op::Write, 0, 1, 1, false), Rec { fua: true, ..rec(1, Op::Write, 1, 1, 1, true) }],
            "and FUA flag",
        ),
    ];
    for (recs, want) in cases {
        let mut w = FgtWriter::new(
            std::io::Cursor::new(Vec::new()),
            "w.fgt",
            true,
            VolumeKind::None,
        )
        .unwrap();
        let mut err = None;
        for (i, r) in recs.iter().enumerate() {
            if let Err(e) = w.push(r, i as u64 + 1, "src.txt") {
                err = Some(e.to_string());
                break;
            }
        }
        let e = err.unwrap_or_else(|| panic!("accepted: {want}"));
        assert!(
            e.contains(want) && e.contains("src.txt"),
            "{e}\nwanted: {want}"
        );
    }
}

#[test]
fn the_reader_refuses_a_crafted_continuation() {
    let (p, good) = recording("crafted.fgt");
    let at = |i: usize| 64 + 32 * (i - 1);
    let cases: [(Vec<(usize, u8)>, &str); 3] = [
        // The read (record 4) flagged as a continuation.
        (
            vec![(at(4) + 23, 4)],
            "record 4: a continuation (flags bit 2) is a write (op 1) without preflush after a write; found op 0 after op 1",
        ),
        // Record 3 moved one page on: a gap after record 2.
        (
            vec![(at(3) + 9, 0x30)],
            "record 3: a continuation (flags bit 2) must have the previous write's time",
        ),
        // A version 2 file has no continuations.
        (
            vec![(8, 2)],
            "record 2: flags byte 23 is 0x04; version 2 defines only bit 0 (FUA) and bit 1 (preflush)",
        ),
    ];
    for (edits, want) in cases {
        let mut b = good.clone();
        for (i, v) in edits {
            b[i] = v;
        }
        let d = crc32fast::hash(&b[64..]);
        b[48..52].copy_from_slice(&d.to_le_bytes());
        let h = crc32fast::hash(&b[0..52]);
        b[52..56].copy_from_slice(&h.to_le_bytes());
        std::fs::write(&p, &b).unwrap();
        let e = match open_source(&p, None, None, false) {
            Ok(_) => panic!("accepted: {want}"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(want), "{e}\nwanted: {want}");
    }
    std::fs::write(&p, &good).unwrap();
    assert!(open_source(&p, None, None, false).is_ok());
}
