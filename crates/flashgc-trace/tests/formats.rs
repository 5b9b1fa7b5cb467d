//! Hand-written traces: one file per format holding the same five logical requests must
//! give the same request stream; compressed and `.fgt` copies must too. Bad input gives
//! errors naming file, line, column and field, or counted warnings.

use flashgc_core::workload::{Op, Request, Rng};
use flashgc_trace::{
    convert, open_source, stats, volumes, Ops, Remap, TimeWindow, TraceError, TraceOptions,
    TraceWorkload,
};
use std::io::Write;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-trace-tests-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

const S: u64 = 1_000_000_000;

/// The five requests every `same.*` file holds, written out by hand (4 KiB pages):
/// write 8 KiB at 0; read 4 KiB at 4 KiB (1 s); write 4 KiB at 1 MiB (2 s);
/// write 16 KiB at 12 KiB (3 s); read 32 KiB at 0 (5 s).
fn expected() -> Vec<Request> {
    let r = |t: u64, op: Op, lpn: u64, pages: u32| Request {
        time_ns: t * S,
        op,
        lpn,
        pages,
        content: 0,
        fua: false,
    };
    vec![
        r(0, Op::Write, 0, 2),
        r(1, Op::Read, 1, 1),
        r(2, Op::Write, 256, 1),
        r(3, Op::Write, 3, 4),
        r(5, Op::Read, 0, 8),
    ]
}

/// `expected()` as `file` gives it: the blkparse file also holds a flush (`D FN`) at
/// 2.000003 s, a flush request between the second write and the third.
fn expected_for(file: &str) -> Vec<Request> {
    let mut v = expected();
    if file == "same.blkparse.txt" {
        let f = Request::untimed(Op::Flush, 0, 0);
        v.insert(
            3,
            Request {
                time_ns: 2 * S + 3_000,
                ..f
            },
        );
    }
    v
}

fn read_all(path: &Path, opts: &TraceOptions) -> Result<Vec<Request>, TraceError> {
    let mut w = TraceWorkload::open(path, opts, 4096, 1 << 20)?;
    let mut v = Vec::new();
    loop {
        let n = v.len();
        w.fill_requests(&mut v, 3)?;
        if v.len() == n {
            return Ok(v);
        }
    }
}

/// (time, op, lpn) per page: the stream as the FTL sees it.
fn pages(v: &[Request]) -> Vec<(u64, Op, u64)> {
    v.iter()
        .flat_map(|r| (r.lpn..r.lpn + r.pages as u64).map(move |l| (r.time_ns, r.op, l)))
        .collect()
}

fn with_format(f: &str) -> TraceOptions {
    TraceOptions {
        format: Some(f.into()),
        ..TraceOptions::default()
    }
}

/// (file, --format or None for auto-detection, detected format name).
const FILES: &[(&str, Option<&str>, &str)] = &[
    ("same.msr.csv", None, "msr"),
    // MSR Cambridge with SNIA's header line: detected, the header skipped (issue 18).
    ("same.msr-header.csv", None, "msr"),
    // A blkparse-derived table with the D and C events of each request on separate lines:
    // the column map's row filter keeps the D rows (issue 19 item 18).
    (
        "same.blkparse-rows.ssv",
        Some("ssv:ts=1,op=3,offset=4,size=5,ts_unit=s,offset_unit=sector,size_unit=sector,write=W|WS,read=R,keep=2:D,keep=3:W|WS|R"),
        "ssv:",
    ),
    ("same.fiu.blkparse", None, "fiu"),
    ("same.alibaba.csv", None, "alibaba"),
    ("same.tencent.csv", None, "tencent"),
    ("same.spc.csv", None, "spc"),
    ("same.systor.csv", None, "systor"),
    ("same.mqsim.trace", Some("mqsim"), "mqsim"),
    ("same.ssdsim.trace", Some("ssdsim"), "ssdsim"),
    ("same.disksim.trace", Some("disksim"), "disksim"),
    ("same.midas.trace", None, "midas"),
    ("same.fio2.iolog", None, "fio2"),
    ("same.fio3.iolog", None, "fio3"),
    ("same.blkparse.txt", None, "blkparse:D"),
    (
        "same.generic.csv",
        Some("csv:ts=1,op=2,offset=3,size=4,ts_unit=ms,write=WRITE,read=READ,header=1"),
        "csv:",
    ),
];

fn opts_for(f: Option<&str>) -> TraceOptions {
    f.map(with_format).unwrap_or_default()
}

#[test]
fn every_format_gives_the_same_stream() {
    for (file, fmt, name) in FILES {
        let path = data(file);
        let src = open_source(&path, *fmt, None, false).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(
            src.format().name().starts_with(name),
            "{file}: detected {}",
            src.format().name()
        );
        let got = read_all(&path, &opts_for(*fmt)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(got, expected_for(file), "{file}");
    }
}

#[test]
fn fiu_with_hashes_gives_the_same_pages_and_keeps_the_hashes() {
    let got = read_all(&data("same.fiu-md5.blkparse"), &TraceOptions::default()).unwrap();
    assert_eq!(pages(&got), pages(&expected()));
    // One request per 4 KiB line, each with the first 8 bytes of its MD5.
    assert!(got.iter().all(|r| r.pages == 1));
    assert_eq!(got[0].content, 0xd6c7_5ba4_6e82_326f);
    assert_eq!(got[1].content, 0x88b9_3b62_8d84_0821);
    assert_eq!(got[3].content, got[0].content, "same MD5, same fingerprint");
}

fn gzip(src: &Path, dst: &Path) {
    let mut e = flate2::write::GzEncoder::new(
        std::fs::File::create(dst).unwrap(),
        flate2::Compression::default(),
    );
    e.write_all(&std::fs::read(src).unwrap()).unwrap();
    e.finish().unwrap();
}

fn zst(src: &Path, dst: &Path) {
    let b = zstd::encode_all(&std::fs::read(src).unwrap()[..], 3).unwrap();
    std::fs::write(dst, b).unwrap();
}

#[test]
fn compressed_and_binary_copies_give_the_same_stream() {
    for (file, fmt, _) in FILES {
        let path = data(file);
        let opts = opts_for(*fmt);
        let want = read_all(&path, &opts).unwrap();
        let gz = tmp(&format!("{file}.gz"));
        gzip(&path, &gz);
        assert_eq!(read_all(&gz, &opts).unwrap(), want, "{file}.gz");
        let z = tmp(&format!("{file}.zst"));
        zst(&path, &z);
        assert_eq!(read_all(&z, &opts).unwrap(), want, "{file}.zst");
        let fgt = tmp(&format!("{file}.fgt"));
        let rep = convert(&path, &opts, &fgt).unwrap();
        assert_eq!(rep.records, expected_for(file).len() as u64, "{file}");
        // The .fgt file is recognised by its magic, whatever --format says is not needed.
        assert_eq!(
            read_all(&fgt, &TraceOptions::default()).unwrap(),
            want,
            "{file}.fgt"
        );
    }
    // Hashes survive conversion.
    let fgt = tmp("fiu-md5.fgt");
    convert(
        &data("same.fiu-md5.blkparse"),
        &TraceOptions::default(),
        &fgt,
    )
    .unwrap();
    let a = read_all(&data("same.fiu-md5.blkparse"), &TraceOptions::default()).unwrap();
    assert_eq!(read_all(&fgt, &TraceOptions::default()).unwrap(), a);
}

#[test]
fn fgt_corruption_is_detected() {
    let fgt = tmp("corrupt.fgt");
    convert(&data("same.msr.csv"), &TraceOptions::default(), &fgt).unwrap();
    let good = std::fs::read(&fgt).unwrap();
    // 64-byte header + 5 x 24-byte records + volume table.
    assert_eq!(good.len(), 64 + 5 * 24 + 4 + 10 + 4);
    let mut bad = good.clone();
    bad[64 + 9] ^= 1;
    std::fs::write(&fgt, &bad).unwrap();
    let e = open_source(&fgt, None, None, false)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("checksum"), "{e}");
    std::fs::write(&fgt, &good[..100]).unwrap();
    let e = open_source(&fgt, None, None, false)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("truncated") || e.contains("checksum"), "{e}");
    let mut v2 = good.clone();
    v2[8] = 2;
    std::fs::write(&fgt, &v2).unwrap();
    let e = open_source(&fgt, None, None, false)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("checksum") || e.contains("version"), "{e}");
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn malformed_lines_name_file_line_column_and_field() {
    let p = write(
        "bad.msr.csv",
        "128166385295514663,hm,0,Write,0,8192,100\n128166385305514663,hm,0,Write,12x4,4096,100\n",
    );
    let e = read_all(&p, &with_format("msr")).unwrap_err();
    let m = e.to_string();
    assert!(
        matches!(
            e,
            TraceError::Parse {
                line: 2,
                column: 31,
                field_no: 5,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(m.contains("bad.msr.csv:2:31"), "{m}");
    assert!(
        m.contains("`offset`") && m.contains("12x4") && m.contains("integer"),
        "{m}"
    );

    // --skip-bad-lines counts and reports instead.
    let mut o = with_format("msr");
    o.skip_bad_lines = true;
    let mut w = TraceWorkload::open(&p, &o, 4096, 1 << 20).unwrap();
    let mut v = Vec::new();
    w.fill_requests(&mut v, 100).unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(w.diagnostics().bad_lines, 1);
    assert!(
        w.warnings()[0].contains("1 malformed lines skipped"),
        "{:?}",
        w.warnings()
    );
}

#[test]
fn unknown_opcodes_negative_sizes_and_short_lines_are_errors() {
    let cases = [
        (
            "op.mqsim",
            "mqsim",
            "0 0 0 8 7\n",
            "`type`",
            "`0` (write) or `1` (read)",
        ),
        (
            "neg.spc",
            "spc",
            "0,0,-4096,w,0.0\n",
            "`size`",
            "non-negative",
        ),
        (
            "short.msr",
            "msr",
            "128166385295514663,hm,0,Write\n",
            "`offset`",
            "at least 5 fields",
        ),
        (
            "ts.fio3",
            "fio3",
            "fio version 3 iolog\nabc /dev/sdb write 0 4096\n",
            "`timestamp`",
            "microseconds",
        ),
        (
            "md5.fiu",
            "fiu",
            "1 2 p 0 8 W 6 0 nothex\n",
            "`md5`",
            "hexadecimal",
        ),
        (
            "act.fio2",
            "fio2",
            "fio version 2 iolog\n/dev/sdb scribble 0 4096\n",
            "`action`",
            "read, write",
        ),
        // Requests longer than a .fgt or blktrace record holds (4 GiB - 1), in bytes and
        // in sectors.
        (
            "huge.msr",
            "msr",
            "128166385295514663,hm,0,Write,0,1125899906842624,1\n",
            "huge.msr:1:33: field 6 `size`",
            "at most 4 GiB - 1 = 4294967295 bytes [format msr]",
        ),
        (
            "huge.tencent",
            "tencent",
            "1,0,8388608,1,0\n",
            "huge.tencent:1:5: field 3 `size`",
            "at most 4 GiB - 1 = 4294967295 bytes (the field counts 512 B sectors) [format tencent]",
        ),
    ];
    for (name, fmt, text, field, want) in cases {
        let p = write(name, text);
        let e = read_all(&p, &with_format(fmt)).unwrap_err().to_string();
        assert!(
            e.contains(name) && e.contains(field) && e.contains(want),
            "{name}: {e}"
        );
    }
}

#[test]
fn zero_lengths_and_backward_times_are_counted_warnings() {
    let p = write(
        "warn.alibaba.csv",
        "1,W,0,4096,2000000\n1,W,4096,0,2000001\n1,W,8192,4096,1000000\n1,R,0,4096,3000000\n",
    );
    let mut w = TraceWorkload::open(&p, &with_format("alibaba"), 4096, 1 << 20).unwrap();
    let mut v = Vec::new();
    w.fill_requests(&mut v, 100).unwrap();
    assert_eq!(v.len(), 3);
    // The request that went back 1 s keeps its place and gets the previous time.
    assert_eq!(
        v.iter().map(|r| r.time_ns).collect::<Vec<_>>(),
        vec![0, 0, 1_000_000_000]
    );
    let d = w.diagnostics();
    assert_eq!(
        (d.zero_length, d.time_backwards, d.max_step_back_ns),
        (1, 1, 1_000_000_000)
    );
    let desc = flashgc_core::workload::Workload::describe(&w);
    assert!(
        desc.contains("1 zero-length") && desc.contains("went backwards"),
        "{desc}"
    );
}

#[test]
fn empty_traces_are_a_clear_error_and_stats_have_no_nan() {
    let p = write("empty.csv", "");
    let e = read_all(&p, &with_format("msr")).unwrap_err();
    assert!(matches!(e, TraceError::Empty { .. }), "{e:?}");
    assert!(e.to_string().contains("holds no requests"), "{e}");
    let s = stats(&p, &with_format("msr"), 4096).unwrap();
    assert_eq!(s.requests, 0);
    let j = serde_json::to_string(&s).unwrap();
    assert!(!j.contains("NaN") && !j.contains("nan"), "{j}");
    assert!(s.read_fraction.is_none() && s.update_intervals.mean.is_none());
    // Auto-detection on an empty file says so.
    let e = read_all(&p, &TraceOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("empty"), "{e}");
}

#[test]
fn truncated_compressed_files_are_errors() {
    let big: String = (0..20000)
        .map(|i| {
            format!(
                "{},hm,0,Write,{},4096,100\n",
                128166385295514663u64 + i,
                i * 4096
            )
        })
        .collect();
    let plain = write("big.msr.csv", &big);
    let gz = tmp("big.msr.csv.gz");
    gzip(&plain, &gz);
    let b = std::fs::read(&gz).unwrap();
    std::fs::write(&gz, &b[..b.len() / 2]).unwrap();
    let e = read_all(&gz, &with_format("msr")).unwrap_err().to_string();
    assert!(
        e.contains("truncated") && e.contains("big.msr.csv.gz"),
        "{e}"
    );
    let z = tmp("big.msr.csv.zst");
    zst(&plain, &z);
    let b = std::fs::read(&z).unwrap();
    std::fs::write(&z, &b[..b.len() / 2]).unwrap();
    assert!(read_all(&z, &with_format("msr")).is_err());
}

#[test]
fn detection_is_refused_when_ambiguous() {
    let e = read_all(&data("same.mqsim.trace"), &TraceOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--format mqsim") && e.contains("--format disksim"),
        "{e}"
    );
    let p = write("junk.txt", "hello world\nfoo bar\n");
    let e = read_all(&p, &TraceOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot detect") && e.contains("--format"), "{e}");
}

#[test]
fn garbage_never_panics() {
    // Mutated copies of every hand-written file: any result but a panic is fine.
    let mut rng = Rng::new(7);
    for (file, fmt, _) in FILES {
        let base = std::fs::read(data(file)).unwrap();
        for k in 0..40 {
            let mut b = base.clone();
            for _ in 0..1 + rng.below(6) {
                let i = rng.below(b.len() as u64) as usize;
                b[i] = match rng.below(4) {
                    0 => b'-',
                    1 => b',',
                    2 => b' ',
                    _ => rng.below(256) as u8,
                };
            }
            let p = tmp(&format!("fuzz-{k}-{file}"));
            std::fs::write(&p, &b).unwrap();
            let _ = read_all(&p, &opts_for(*fmt));
            let _ = stats(&p, &opts_for(*fmt), 4096);
            let mut o = opts_for(*fmt);
            o.skip_bad_lines = true;
            let _ = read_all(&p, &o);
        }
    }
}

#[test]
fn addresses_beyond_the_device_error_or_remap() {
    let p = data("same.msr.csv");
    // 256 logical pages: the 1 MiB write (page 256) does not fit.
    let e = TraceWorkload::open(&p, &TraceOptions::default(), 4096, 256)
        .and_then(|mut w| {
            let mut v = Vec::new();
            w.fill_requests(&mut v, 100).map(|_| v)
        })
        .unwrap_err();
    assert!(matches!(e, TraceError::Capacity { line: 3, .. }), "{e:?}");
    assert!(e.to_string().contains("--remap"), "{e}");

    let o = TraceOptions {
        remap: Remap::Modulo,
        ..TraceOptions::default()
    };
    let mut w = TraceWorkload::open(&p, &o, 4096, 256).unwrap();
    let mut v = Vec::new();
    w.fill_requests(&mut v, 100).unwrap();
    assert_eq!(v[2].lpn, 0, "page 256 mod 256");

    // Compact: pages numbered in order of first touch: 0,1 | 1 | 256->2 | 3,4,5,6 -> 3..6 | 0..7 -> 0,1,7,3,4,5,6,8
    let o = TraceOptions {
        remap: Remap::Compact,
        ..TraceOptions::default()
    };
    let got = pages(&read_all(&p, &o).unwrap());
    let lpns: Vec<u64> = got.iter().map(|x| x.2).collect();
    assert_eq!(lpns, vec![0, 1, 1, 2, 3, 4, 5, 6, 0, 1, 7, 3, 4, 5, 6, 8]);
    // 9 distinct pages do not fit in 8.
    let e = TraceWorkload::open(&p, &o, 4096, 8)
        .and_then(|mut w| {
            let mut v = Vec::new();
            w.fill_requests(&mut v, 100).map(|_| v)
        })
        .unwrap_err();
    assert!(e.to_string().contains("distinct pages"), "{e}");
}

#[test]
fn unaligned_requests_split_into_every_page_they_touch() {
    // 1 KiB at 3 KiB: page 0; 2 KiB at 3 KiB: pages 0 and 1; 8 KiB + 1 byte at 0: pages 0..2.
    let p = write(
        "unaligned.csv",
        "0,W,3072,1024,0\n0,W,3072,2048,1\n0,W,0,8193,2\n",
    );
    let v = read_all(&p, &with_format("alibaba")).unwrap();
    let got: Vec<(u64, u32)> = v.iter().map(|r| (r.lpn, r.pages)).collect();
    assert_eq!(got, vec![(0, 1), (0, 2), (0, 3)]);
    // 8 KiB LPNs halve the page numbers.
    let mut w = TraceWorkload::open(
        &data("same.msr.csv"),
        &TraceOptions::default(),
        8192,
        1 << 20,
    )
    .unwrap();
    let mut v = Vec::new();
    w.fill_requests(&mut v, 100).unwrap();
    let got: Vec<(u64, u32)> = v.iter().map(|r| (r.lpn, r.pages)).collect();
    assert_eq!(got, vec![(0, 1), (0, 1), (128, 1), (1, 3), (0, 4)]);
}

#[test]
fn loops_shift_time_by_span_plus_mean_gap() {
    let o = TraceOptions {
        loop_times: 3,
        ..TraceOptions::default()
    };
    let v = read_all(&data("same.msr.csv"), &o).unwrap();
    assert_eq!(v.len(), 15);
    // Span 5 s, 5 requests: mean gap 1.25 s, period 6.25 s.
    let period = 6_250_000_000u64;
    for (i, r) in v.iter().enumerate() {
        let base = expected()[i % 5];
        assert_eq!(
            r.time_ns,
            base.time_ns + (i / 5) as u64 * period,
            "request {i}"
        );
        assert_eq!((r.op, r.lpn, r.pages), (base.op, base.lpn, base.pages));
    }
}

#[test]
fn loop_until_writes_exactly_k_times_the_capacity() {
    // 8 pages written per pass; 300 logical pages x 0.5 = 150 pages = 18 passes + 6 pages.
    let o = TraceOptions {
        loop_until: Some(0.5),
        ..TraceOptions::default()
    };
    let mut w = TraceWorkload::open(&data("same.msr.csv"), &o, 4096, 300).unwrap();
    assert!(flashgc_core::workload::Workload::is_infinite(&w));
    let mut v = Vec::new();
    loop {
        let n = v.len();
        w.fill_requests(&mut v, 64).unwrap();
        if v.len() == n {
            break;
        }
    }
    let written: u64 = v
        .iter()
        .filter(|r| r.op == Op::Write)
        .map(|r| r.pages as u64)
        .sum();
    assert_eq!(written, 150);
    // A read-only trace can never reach the target: a clear error, not an endless loop.
    let o = TraceOptions {
        loop_until: Some(1.0),
        ops: Ops::Read,
        ..TraceOptions::default()
    };
    let e = read_all(&data("same.msr.csv"), &o).unwrap_err().to_string();
    assert!(e.contains("writes nothing"), "{e}");
}

#[test]
fn filters_scale_and_select() {
    let p = data("same.msr.csv");
    let o = TraceOptions {
        ops: Ops::Write,
        time_scale: 0.5,
        ..TraceOptions::default()
    };
    let v = read_all(&p, &o).unwrap();
    let got: Vec<(u64, u64)> = v.iter().map(|r| (r.time_ns, r.lpn)).collect();
    assert_eq!(got, vec![(0, 0), (S, 256), (1_500_000_000, 3)]);
    let o = TraceOptions {
        time_window: Some(TimeWindow::parse("1..3s").unwrap()),
        ..TraceOptions::default()
    };
    let v = read_all(&p, &o).unwrap();
    assert_eq!(
        v.iter().map(|r| r.time_ns).collect::<Vec<_>>(),
        vec![S, 2 * S]
    );
    assert!(TimeWindow::parse("5..1").is_err());
    assert!(TimeWindow::parse("1..2fortnights").is_err());
    // Volumes: MSR volumes are host_disk.
    let o = TraceOptions {
        volume: Some("hm_0".into()),
        ..TraceOptions::default()
    };
    assert_eq!(read_all(&p, &o).unwrap().len(), 5);
    let o = TraceOptions {
        volume: Some("hm_1".into()),
        ..TraceOptions::default()
    };
    assert!(matches!(
        read_all(&p, &o).unwrap_err(),
        TraceError::Empty { .. }
    ));
    let o = TraceOptions {
        volume: Some("1".into()),
        ..TraceOptions::default()
    };
    let e = read_all(&data("same.midas.trace"), &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no volume"), "{e}");
}

#[test]
fn volumes_are_listed_with_sizes() {
    let p = write(
        "vols.tencent.csv",
        "1,0,8,1,7\n1,100,8,0,3\n2,16,16,1,7\n2,0,8,1,3\n",
    );
    let v = volumes(&p, &TraceOptions::default()).unwrap();
    let got: Vec<(&str, u64, u64, u64)> = v
        .iter()
        .map(|x| (x.volume.as_str(), x.reads, x.writes, x.size_bytes))
        .collect();
    assert_eq!(got, vec![("3", 1, 1, 108 * 512), ("7", 0, 2, 32 * 512)]);
    let o = TraceOptions {
        volume: Some("7".into()),
        ..TraceOptions::default()
    };
    assert_eq!(read_all(&p, &o).unwrap().len(), 2);
    // Without --volume the replay warns that volumes share one address space.
    let mut w = TraceWorkload::open(&p, &TraceOptions::default(), 4096, 1 << 20).unwrap();
    let mut b = Vec::new();
    w.fill_requests(&mut b, 100).unwrap();
    assert!(
        w.warnings().iter().any(|x| x.contains("2 volumes share")),
        "{:?}",
        w.warnings()
    );
}

#[test]
fn stats_of_the_hand_written_trace() {
    let s = stats(&data("same.msr.csv"), &TraceOptions::default(), 4096).unwrap();
    assert_eq!((s.requests, s.reads, s.writes), (5, 2, 3));
    assert_eq!(
        (s.read_bytes, s.write_bytes),
        (4096 + 32768, 8192 + 4096 + 16384)
    );
    // Pages: written {0,1,256,3,4,5,6}; read {1,0..7}: union {0..7, 256}.
    assert_eq!((s.pages, s.pages_read, s.pages_written), (9, 8, 7));
    assert_eq!(s.read_fraction, Some(0.4));
    assert_eq!(s.span_s, 5.0);
    // Sizes: 4 KiB: 1 read + 1 write; 8 KiB: 1 write; 16 KiB: 1 write; 32 KiB: 1 read.
    let h: Vec<(u64, u64)> = s
        .size_histogram
        .iter()
        .map(|b| (b.reads, b.writes))
        .collect();
    assert_eq!(&h[..6], &[(1, 1), (0, 1), (0, 1), (1, 0), (0, 0), (0, 0)]);
    // No page is written twice: no update intervals.
    assert_eq!(
        (s.update_intervals.rewrites, s.update_intervals.first_writes),
        (0, 7)
    );
    assert!(s.duplicates.is_none());

    // FIU with hashes: 8 hashed page writes, 6 distinct contents; page 0 and 256 share one MD5
    // (that is a duplicate), pages 3 and 4 share one.
    let s = stats(
        &data("same.fiu-md5.blkparse"),
        &TraceOptions::default(),
        4096,
    )
    .unwrap();
    let d = s.duplicates.unwrap();
    assert_eq!((d.written_pages_with_hash, d.distinct_hashes), (7, 5));
    assert!((d.duplicate_ratio - 2.0 / 7.0).abs() < 1e-12);
}

#[test]
fn update_intervals_count_page_writes_between_rewrites() {
    // Writes to pages A B A C B A: A rewritten after 2 and 3 page writes, B after 3.
    let p = write("uid.csv", "0,W,0,4096,0\n0,W,4096,4096,1\n0,W,0,4096,2\n0,W,8192,4096,3\n0,W,4096,4096,4\n0,W,0,4096,5\n");
    let s = stats(&p, &with_format("alibaba"), 4096).unwrap();
    let u = &s.update_intervals;
    assert_eq!((u.rewrites, u.first_writes), (3, 3));
    assert_eq!(u.mean, Some((2.0 + 3.0 + 3.0) / 3.0));
    let b: Vec<(u64, u64, u64)> = u.buckets.iter().map(|b| (b.from, b.to, b.count)).collect();
    assert_eq!(b, vec![(2, 4, 3)]);
    // Sequentiality: only write 2 starts where the previous write ended (4096).
    assert_eq!(s.sequential_writes, Some(1.0 / 6.0));
}

#[test]
fn stats_and_footprint_of_huge_requests_stay_small() {
    // Requests of 4 GiB - 1 counted in 1-byte pages: 8.6e9 distinct pages, which one hash
    // entry per page could not hold; the counts are exact all the same.
    let m = 4_294_967_295u64;
    let p = write(
        "huge.alibaba.csv",
        &format!("0,W,0,{m},0\n0,W,1000,{m},1\n0,R,{m},{m},2\n1,W,0,4096,3\n"),
    );
    let o = with_format("alibaba");
    let s = stats(&p, &o, 1).unwrap();
    assert_eq!(
        (s.pages, s.pages_written, s.pages_read),
        (2 * m, m + 1000, m)
    );
    assert_eq!(s.volume_pages, 2 * m + 4096);
    // Write 2 rewrites pages 1000.. of write 1, every one m - 1000 page writes later.
    let u = &s.update_intervals;
    assert_eq!((u.rewrites, u.first_writes), (m - 1000, m + 1000 + 4096));
    assert_eq!(u.mean, Some((m - 1000) as f64));
    let b: Vec<(u64, u64, u64)> = u.buckets.iter().map(|b| (b.from, b.to, b.count)).collect();
    assert_eq!(b, vec![(1 << 31, 1 << 32, m - 1000)]);
    let f = flashgc_trace::footprint(&p, &o, 1).unwrap();
    assert_eq!((f.distinct_pages, f.max_end_page), (2 * m + 4096, 2 * m));
}

#[test]
fn binary_replay_matches_text_with_loops_filters_and_capacity_errors() {
    let p = data("same.msr.csv");
    let fgt = tmp("loops.fgt");
    convert(&p, &TraceOptions::default(), &fgt).unwrap();
    for o in [
        TraceOptions {
            loop_times: 3,
            ..TraceOptions::default()
        },
        TraceOptions {
            loop_until: Some(0.5),
            ..TraceOptions::default()
        },
        TraceOptions {
            ops: Ops::Write,
            time_scale: 2.0,
            ..TraceOptions::default()
        },
        TraceOptions {
            remap: Remap::Compact,
            ..TraceOptions::default()
        },
    ] {
        let mut a = TraceWorkload::open(&p, &o, 4096, 300).unwrap();
        let mut b = TraceWorkload::open(&fgt, &o, 4096, 300).unwrap();
        let (mut va, mut vb) = (Vec::new(), Vec::new());
        for _ in 0..100 {
            a.fill_requests(&mut va, 7).unwrap();
            b.fill_requests(&mut vb, 7).unwrap();
        }
        assert!(!va.is_empty());
        assert_eq!(va, vb, "{o:?}");
    }
    // The binary hot loop refuses addresses beyond the device like the text path.
    let mut w = TraceWorkload::open(&fgt, &TraceOptions::default(), 4096, 256).unwrap();
    let mut v = Vec::new();
    let e = w.fill_requests(&mut v, 100).unwrap_err();
    assert!(matches!(e, TraceError::Capacity { line: 3, .. }), "{e:?}");
}
