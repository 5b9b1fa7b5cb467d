//! The `.fgt` reader accepts only what versions 1 to 3 define: reserved header and
//! record bytes must be 0, the flags hold only bit 0, and nothing may follow the volume
//! table. Each refusal names the file and the byte. Every file `convert` writes (from every
//! hand-written test trace, with and without content fingerprints) still loads.

use flashgc_trace::{convert, open_source, TraceOptions};
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-fgt-strict-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// A good `.fgt` copy of `same.msr.csv` (5 records of 24 bytes, one volume `hm_0`).
fn good(name: &str) -> (PathBuf, Vec<u8>) {
    let p = tmp(name);
    convert(
        &data_dir().join("same.msr.csv"),
        &TraceOptions::default(),
        &p,
    )
    .unwrap();
    let b = std::fs::read(&p).unwrap();
    (p, b)
}

/// Recomputes both CRC-32s, as a careless writer (or a crafted file) would: the structural
/// checks, not the checksums, must catch what follows.
fn reseal(b: &mut [u8]) {
    let d = crc32fast::hash(&b[64..]);
    b[48..52].copy_from_slice(&d.to_le_bytes());
    let h = crc32fast::hash(&b[0..52]);
    b[52..56].copy_from_slice(&h.to_le_bytes());
}

/// The error opening `bytes` written to `path`.
fn open_err(path: &Path, bytes: &[u8]) -> String {
    std::fs::write(path, bytes).unwrap();
    match open_source(path, None, None, false) {
        Ok(_) => panic!("{} was accepted", path.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn reserved_header_bytes_must_be_zero() {
    let (p, g) = good("reserved-header.fgt");
    let file = p.display().to_string();
    for (byte, range) in [
        (33, "33..48"),
        (47, "33..48"),
        (56, "56..64"),
        (63, "56..64"),
    ] {
        let mut b = g.clone();
        b[byte] = 0x5a;
        reseal(&mut b);
        let e = open_err(&p, &b);
        assert!(
            e.starts_with(&format!(
                "{file}: invalid .fgt trace: header byte {byte} is 0x5a"
            )),
            "{e}"
        );
        assert!(e.contains(range) && e.contains("reserved"), "{e}");
    }
    // Unknown flag bits are reserved too.
    let mut b = g.clone();
    b[13] = 0x01;
    reseal(&mut b);
    let e = open_err(&p, &b);
    assert!(
        e.contains(&file) && e.contains("`flags` (byte 12)") && e.contains("is 0x100;"),
        "{e}"
    );
}

#[test]
fn reserved_record_byte_must_be_zero() {
    let (p, g) = good("reserved-record.fgt");
    let mut b = g.clone();
    // Record 2 starts at byte 64 + 24.
    b[64 + 24 + 23] = 7;
    reseal(&mut b);
    let e = open_err(&p, &b);
    assert!(
        e.contains(&p.display().to_string())
            && e.contains("record 2 (at byte 88): reserved byte 23 is 0x07"),
        "{e}"
    );
}

/// A record whose request ends beyond 2^64 bytes (its CRCs recomputed) was accepted at
/// open, so the replay that promises never to fail refused it later; and `convert` wrote
/// such a request from a text trace.
#[test]
fn a_request_past_2_64_bytes_is_refused_at_open_and_by_convert() {
    let (p, g) = good("beyond.fgt");
    let mut b = g.clone();
    // Record 1's offset (bytes 8..16 of the record at byte 64); its length is 8192.
    b[64 + 8..64 + 16].copy_from_slice(&(u64::MAX - 100).to_le_bytes());
    reseal(&mut b);
    let e = open_err(&p, &b);
    assert!(
        e.contains(&p.display().to_string())
            && e.contains("record 1: offset 18446744073709551515 + length 8192 ends beyond 2^64 bytes (at byte 64)"),
        "{e}"
    );
    let text = tmp("beyond.csv");
    std::fs::write(
        &text,
        "128166385295514663,hm,0,Write,18446744073709547520,8192,100\n",
    )
    .unwrap();
    let e = convert(&text, &TraceOptions::default(), &tmp("beyond-out.fgt")).unwrap_err();
    assert!(
        e.to_string()
            .contains("beyond.csv:1: request at byte offset 18446744073709547520 (8192 bytes) ends beyond 2^64 bytes"),
        "{e}"
    );
}

#[test]
fn trailing_bytes_are_refused() {
    let (p, g) = good("trailing.fgt");
    let end = g.len();
    // Appended to a good file (its checksum covers only the real data): named as trailing
    // bytes, not as a corrupt file.
    let mut b = g.clone();
    b.extend_from_slice(b"xyz");
    let e = open_err(&p, &b);
    let want = format!(
        "{}: invalid .fgt trace: 3 trailing bytes after the volume table, which ends at byte {end} (the file has {} bytes)",
        p.display(),
        end + 3
    );
    assert_eq!(e, want);
    // With the checksum recomputed over them: still refused.
    reseal(&mut b);
    assert_eq!(open_err(&p, &b), want);
    // A single zero byte too.
    let mut b = g.clone();
    b.push(0);
    reseal(&mut b);
    assert!(open_err(&p, &b).contains("1 trailing bytes"));
    // The good file still loads.
    std::fs::write(&p, &g).unwrap();
    assert!(open_source(&p, None, None, false).is_ok());
}

#[test]
fn every_converted_test_trace_loads() {
    let mut n = 0;
    for e in std::fs::read_dir(data_dir()).unwrap() {
        let path = e.unwrap().path();
        let out = tmp(&format!(
            "{}.fgt",
            path.file_name().unwrap().to_string_lossy()
        ));
        // Some test files are meant to fail (or need a --format): skip those.
        if convert(&path, &TraceOptions::default(), &out).is_err() {
            continue;
        }
        let b = std::fs::read(&out).unwrap();
        assert!(
            b[33..48].iter().chain(&b[56..64]).all(|&x| x == 0),
            "{}",
            path.display()
        );
        if let Err(e) = open_source(&out, None, None, false) {
            panic!("{}: {e}", path.display());
        }
        n += 1;
    }
    assert!(n >= 10, "only {n} test traces converted");
}

/// A version 2 copy of a blkparse trace with a write, a flush (`FN`) and a FUA write
/// (`WFS`): records 1, 2 and 3 of 24 bytes (a write, op 3, a write with flags bit 0).
fn good_v2(name: &str) -> (PathBuf, Vec<u8>) {
    let src = tmp(&format!("{name}.blkparse.txt"));
    std::fs::write(
        &src,
        "  8,0 0 1 0.000000000 1 D W 0 + 8 [a]\n  8,0 0 2 0.000001000 1 D FN [a]\n  \
         8,0 0 3 0.000002000 1 D WFS 8 + 8 [a]\n",
    )
    .unwrap();
    let p = tmp(name);
    assert_eq!(
        convert(&src, &TraceOptions::default(), &p).unwrap().version,
        2
    );
    let b = std::fs::read(&p).unwrap();
    assert_eq!((b[8], b[64 + 24 + 22], b[64 + 48 + 23]), (2, 3, 1));
    (p, b)
}

/// Version 2's record byte 23 holds flags (bit 0 FUA, bit 1 preflush) and op 3 is a
/// flush: unknown flags, a flush with data or flags, FUA on a read, an unknown op, a flush
/// in a version 1 file and an unknown version are refused, naming the record and byte.
#[test]
fn version_2_records_are_checked_as_strictly() {
    let (p, g) = good_v2("v2.fgt");
    assert!(open_source(&p, None, None, false).is_ok());
    let rec = |i: usize| 64 + 24 * (i - 1);
    // (byte, value) edits, and the error they give.
    let cases: Vec<(Vec<(usize, u8)>, &str)> = vec![
        (
            vec![(rec(3) + 23, 0x05)],
            "record 3: flags byte 23 is 0x05; version 2 defines only bit 0 (FUA) and bit 1 (preflush) (at byte 112)",
        ),
        (
            vec![(rec(2) + 16, 8)],
            "record 2: a flush (op 3) has no data and no flags, found length 8, flags 0x00 (at byte 88)",
        ),
        (
            vec![(rec(2) + 23, 2)],
            "record 2: a flush (op 3) has no data and no flags, found length 0, flags 0x02",
        ),
        (
            vec![(rec(3) + 22, 0)],
            "record 3: FUA (flags bit 0) on op code 0: only a write (1) has FUA",
        ),
        (
            vec![(rec(1) + 22, 4)],
            "record 1: op code 4 (0 read, 1 write, 2 trim, 3 flush)",
        ),
        (
            // The length 4096 is byte 17's 0x10.
            vec![(rec(1) + 17, 0)],
            "record 1: length 0 (only a flush, op 3, has no data)",
        ),
        (
            // A version 1 file knows no flush.
            vec![(8, 1), (rec(3) + 23, 0)],
            "record 2: op code 3 (0 read, 1 write, 2 trim), length 0",
        ),
        (
            vec![(8, 4)],
            "version 4; this flashgc reads versions 1 to 3",
        ),
    ];
    for (edits, want) in cases {
        let mut b = g.clone();
        for (i, v) in edits {
            b[i] = v;
        }
        reseal(&mut b);
        let e = open_err(&p, &b);
        assert!(
            e.starts_with(&format!("{}: invalid .fgt trace: ", p.display())) && e.contains(want),
            "{e}\nwanted: {want}"
        );
    }
    // The good file still loads.
    std::fs::write(&p, &g).unwrap();
    assert!(open_source(&p, None, None, false).is_ok());
}

/// A volume table may give two volume keys one name: `trace volumes` lists both (it
/// sorted by name alone, keeping one of the two, picked by a hash map's random order).
#[test]
fn volumes_sharing_a_name_are_each_listed() {
    use flashgc_core::workload::Op;
    use flashgc_trace::fgt::FgtWriter;
    use flashgc_trace::{Rec, VolumeKind};
    let p = tmp("same-name.fgt");
    let f = std::fs::File::create(&p).unwrap();
    let mut w = FgtWriter::new(f, "same-name.fgt", false, VolumeKind::Text).unwrap();
    for (i, volume) in [7u64, 9, 9].into_iter().enumerate() {
        let rec = Rec {
            time_ns: i as u64,
            op: Op::Write,
            offset: 4096 * i as u64,
            len: 4096,
            volume,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        };
        w.push(&rec, i as u64 + 1, "same-name.fgt").unwrap();
    }
    w.finish(|_| "disk".to_string()).unwrap();
    let v = flashgc_trace::stats::volumes(&p, &TraceOptions::default()).unwrap();
    let got: Vec<(&str, u64)> = v.iter().map(|x| (x.volume.as_str(), x.writes)).collect();
    assert_eq!(got, [("disk", 1), ("disk", 2)]);
    let _ = std::fs::remove_file(&p);
}
