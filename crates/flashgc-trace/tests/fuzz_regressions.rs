//! Replays the fuzzers' saved inputs (`fuzz/regressions/<target>/*`, plus every preset and
//! test trace as a seed) through the same harnesses the fuzz targets use: none may panic.
//! CI runs this in a debug build, so overflow checks apply as under the fuzzer. Also checks
//! that reading a trace from memory gives what reading the file gives.

use flashgc_trace::{open_any, open_input, RecordSource, TraceInput};
use std::path::{Path, PathBuf};

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions")
        .join(target);
    let mut n = 0;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut paths: Vec<_> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        paths.sort();
        for p in paths {
            let data = std::fs::read(&p).unwrap();
            eprintln!("{}", p.display());
            run(&data);
            n += 1;
        }
    }
    n
}

fn test_traces() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

#[test]
fn config_regressions_and_presets() {
    let n = replay("config", flashgc_trace::fuzzing::config);
    let presets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../flashgc-core/presets");
    for e in std::fs::read_dir(presets).unwrap().flatten() {
        flashgc_trace::fuzzing::config(&std::fs::read(e.path()).unwrap());
    }
    // Malformed inputs a fuzzer finds first, and spec strings (`!workload\nplacement\nvictim`).
    for s in [
        "",
        "[",
        "[device]\npages_per_block = 0",
        "[run]\nvictim = \"d-choices:d=\"",
        "[ftl]\nop = 1e308",
        "[run]\nplacement = \"bf-gc:levels=0\"",
        "!uniform\nsingle\ngreedy",
        "!zipf:0.99\nsup-gc\nd-choices:d=8",
        "!hotcold:80/20\ndac\ncost-benefit:formula=sqrt",
        "!zipf:-1\nsingle\ngreedy",
        "!hotcold:101/0\nsingle\nwindowed-greedy:w=0",
        "!seq\nsingle:x=1\nd-choices:d=999999999999",
    ] {
        flashgc_trace::fuzzing::config(s.as_bytes());
    }
    eprintln!("replayed {n} saved config inputs");
}

#[test]
fn trace_text_regressions_and_seeds() {
    let n = replay("trace_text", flashgc_trace::fuzzing::trace);
    // Every test trace under auto-detection and its own format slots, with compression
    // and a few option bytes.
    for p in test_traces() {
        let body = std::fs::read(&p).unwrap();
        for (f, a, b) in [
            (0u8, 0u8, 0u8),
            (0, 0x02, 0x00),
            (0, 0x04, 0x01),
            (0, 0x06, 0x00),
            (0, 0x48, 0x10),
            (0, 0x30, 0x2c),
            (0, 0xf1, 0xc6),
        ] {
            let mut d = vec![f, a, b];
            d.extend_from_slice(&body);
            flashgc_trace::fuzzing::trace(&d);
        }
    }
    // Every format slot on a few hostile bodies.
    let bodies: [&[u8]; 6] = [
        b"",
        b"\n\n\n",
        b"1,2,3,4,5,6,7\n",
        b"\x1f\x8b\x08\x00garbage",
        b"FLASHGCT\x01\x00\x18\x00\x00\x00\xff\xff\xff\xff",
        b"csv:op=1,offset=2,size=3,write=W\nW,0,4096\nW,18446744073709551615,4096\n",
    ];
    for f in 0..18u8 {
        for b in &bodies {
            let mut d = vec![f, 0x01, 0x00];
            d.extend_from_slice(b);
            flashgc_trace::fuzzing::trace(&d);
        }
    }
    eprintln!("replayed {n} saved trace_text inputs");
}

#[test]
fn trace_fgt_regressions_and_seeds() {
    let n = replay("trace_fgt", flashgc_trace::fuzzing::fgt);
    let dir = std::env::temp_dir().join(format!("flashgc-fuzzreg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for p in test_traces() {
        let out = dir.join("t.fgt");
        if flashgc_trace::convert(&p, &Default::default(), &out).is_err() {
            continue;
        }
        let body = std::fs::read(&out).unwrap();
        for mode in [0u8, 0x07, 0x8f, 0xe0, 0x5c] {
            let mut d = vec![mode];
            d.extend_from_slice(&body);
            flashgc_trace::fuzzing::fgt(&d);
            // Flip one byte in the records: the checksum must catch it (mode 0) or the
            // fix-ups get it through to the record checks (mode 7).
            if body.len() > 80 {
                d[1 + 70] ^= 0x40;
                flashgc_trace::fuzzing::fgt(&d);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("replayed {n} saved trace_fgt inputs");
}

/// Records, diagnostics and the final error of a source, for comparison.
fn drain(src: &mut dyn RecordSource) -> (Vec<flashgc_trace::Record>, Option<String>, String) {
    let mut v = Vec::new();
    let end = loop {
        match src.next_record() {
            Ok(Some(r)) => v.push(r),
            Ok(None) => break None,
            Err(e) => break Some(e.to_string()),
        }
    };
    (v, end, format!("{:?}", src.diagnostics()))
}

#[test]
fn memory_input_reads_like_the_file() {
    let dir = std::env::temp_dir().join(format!("flashgc-meminput-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cases: Vec<PathBuf> = test_traces();
    // Compressed copies, a .fgt conversion and a malformed file (its error names line
    // and column).
    let msr = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/same.msr.csv");
    let text = std::fs::read(&msr).unwrap();
    let gz = dir.join("t.msr.gz");
    {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::default(),
        );
        e.write_all(&text).unwrap();
        e.finish().unwrap();
    }
    let zst = dir.join("t.msr.zst");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
    let fgt = dir.join("t.fgt");
    flashgc_trace::convert(&msr, &Default::default(), &fgt).unwrap();
    let bad = dir.join("bad.msr.csv");
    let mut b = text.clone();
    b.extend_from_slice(b"128166372003061629,hm,0,Write,x12,4096,100\n");
    std::fs::write(&bad, &b).unwrap();
    cases.extend([gz, zst, fgt, bad.clone()]);
    let mut compared = 0;
    for p in &cases {
        for format in [None, Some("msr")] {
            let from_file = open_any(p, format, None, false);
            let input = TraceInput::memory(p.display().to_string(), std::fs::read(p).unwrap());
            let from_mem = open_input(&input, format, None, false);
            match (from_file, from_mem) {
                (Ok(mut f), Ok(mut m)) => {
                    assert_eq!(f.format(), m.format());
                    let (a, b) = (drain(&mut f), drain(&mut m));
                    assert_eq!(a, b, "{} read differently from memory", p.display());
                    compared += 1;
                }
                (Err(a), Err(b)) => assert_eq!(a, b),
                (a, b) => panic!(
                    "{}: file {:?} vs memory {:?}",
                    p.display(),
                    a.err(),
                    b.err()
                ),
            }
        }
    }
    // The malformed line is reported as FILE:LINE:COL from memory too.
    let input = TraceInput::memory("bad.csv", b);
    let mut m = open_input(&input, Some("msr"), None, false).unwrap();
    let (_, end, _) = drain(&mut m);
    let end = end.unwrap();
    let line = text.iter().filter(|&&c| c == b'\n').count() + 1;
    assert!(
        end.starts_with(&format!("bad.csv:{line}:31: field 5 `offset`")),
        "{end}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(compared >= cases.len(), "{compared} of {}", cases.len());
}
