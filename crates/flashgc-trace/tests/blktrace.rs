//! blktrace binary input (issue 18): the per-CPU `NAME.blktrace.N` files are built here by
//! encoding `struct blk_io_trace` records (no real binary traces are stored), in both byte
//! orders, from the events of a real blkparse text trace; reading them back must give what
//! the blkparse text reader gives for the same events.

use flashgc_core::workload::Request;
use flashgc_trace::{volumes, TraceError, TraceOptions, TraceWorkload};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-blktrace-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// One event as `blk_io_trace` holds it.
#[derive(Clone, Debug)]
struct Ev {
    time: u64,
    seq: u32,
    sector: u64,
    bytes: u32,
    action: u32,
    pid: u32,
    dev: u32,
    cpu: u32,
    pdu: Vec<u8>,
}

const MAGIC: u32 = 0x6561_7407;

fn encode(e: &Ev, little: bool, out: &mut Vec<u8>) {
    let w32 = |v: u32, o: &mut Vec<u8>| {
        o.extend_from_slice(&if little {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        })
    };
    let w64 = |v: u64, o: &mut Vec<u8>| {
        o.extend_from_slice(&if little {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        })
    };
    w32(MAGIC, out);
    w32(e.seq, out);
    w64(e.time, out);
    w64(e.sector, out);
    w32(e.bytes, out);
    w32(e.action, out);
    w32(e.pid, out);
    w32(e.dev, out);
    w32(e.cpu, out);
    let e16 = |v: u16| {
        if little {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        }
    };
    out.extend_from_slice(&e16(0));
    out.extend_from_slice(&e16(e.pdu.len() as u16));
    out.extend_from_slice(&e.pdu);
}

/// blkparse's action letter -> action code (`__BLK_TA_*`).
fn code(letter: u8) -> Option<u32> {
    b"QMFGSRDCPUTIXBA"
        .iter()
        .position(|&c| c == letter)
        .map(|i| i as u32 + 1)
}

/// RWBS letters -> category bits (`BLK_TC_*` << 16).
fn category(rwbs: &str) -> u32 {
    let mut c = 0u32;
    let b = rwbs.as_bytes();
    for (i, &x) in b.iter().enumerate() {
        c |= match x {
            b'R' => 1 << 0,
            b'W' => 1 << 1,
            b'F' if i == 0 => 1 << 2, // leading F: flush
            b'F' => 1 << 15,          // trailing F: FUA
            b'S' => 1 << 3,
            b'D' => 1 << 13,
            b'M' => 1 << 12,
            b'A' => 1 << 11,
            _ => 0,
        };
    }
    c << 16
}

/// The events of a blkparse text trace (`maj,min cpu seq time pid ACT RWBS sector + n`),
/// plus `m` message lines as notify records with a payload. Remap events get a payload.
fn events_of(text: &str) -> Vec<Ev> {
    let mut v = Vec::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 7 || !f[0].contains(',') {
            continue;
        }
        let (maj, min) = f[0].split_once(',').unwrap();
        let (Ok(maj), Ok(min)) = (maj.parse::<u32>(), min.parse::<u32>()) else {
            continue;
        };
        let dev = maj << 20 | min;
        let cpu: u32 = f[1].parse().unwrap();
        let seq: u32 = f[2].parse().unwrap();
        let (s, ns) = f[3].split_once('.').unwrap();
        let time = s.parse::<u64>().unwrap() * 1_000_000_000 + ns.parse::<u64>().unwrap();
        let pid: u32 = f[4].parse().unwrap_or(0);
        if f[5] == "m" {
            let msg = f[6..].join(" ").into_bytes();
            v.push(Ev {
                time,
                seq,
                sector: 0,
                bytes: 0,
                action: 2 | (1 << (10 + 16)), // BLK_TN_MESSAGE | notify
                pid,
                dev,
                cpu,
                pdu: msg,
            });
            continue;
        }
        let Some(c) = (f[5].len() == 1)
            .then(|| code(f[5].as_bytes()[0]))
            .flatten()
        else {
            continue;
        };
        let (sector, bytes) = if f.len() >= 10 && f[8] == "+" {
            (
                f[7].parse::<u64>().unwrap(),
                f[9].parse::<u32>().unwrap() * 512,
            )
        } else {
            (0, 0)
        };
        v.push(Ev {
            time,
            seq,
            sector,
            bytes,
            action: c | category(f[6]),
            pid,
            dev,
            cpu,
            pdu: if c == 15 { vec![0u8; 16] } else { Vec::new() },
        });
    }
    v
}

/// Writes `evs` as per-CPU files `NAME.blktrace.CPU`; returns the path of file 0.
fn write_set(name: &str, evs: &[Ev], little: bool) -> PathBuf {
    let mut per: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    for e in evs {
        encode(e, little, per.entry(e.cpu).or_default());
    }
    let max = per.keys().max().copied().unwrap_or(0);
    for cpu in 0..=max {
        std::fs::write(
            tmp(&format!("{name}.blktrace.{cpu}")),
            per.get(&cpu).cloned().unwrap_or_default(),
        )
        .unwrap();
    }
    tmp(&format!("{name}.blktrace.0"))
}

fn replay(path: &Path, events: &str) -> Result<(Vec<Request>, String), TraceError> {
    let o = TraceOptions {
        blkparse_events: Some(events.into()),
        pipeline: false,
        ..TraceOptions::default()
    };
    let mut w = TraceWorkload::open(path, &o, 4096, 1 << 40)?;
    let mut v = Vec::new();
    loop {
        let n = v.len();
        w.fill_requests(&mut v, 1000)?;
        if v.len() == n {
            use flashgc_core::workload::Workload;
            return Ok((v, w.describe()));
        }
    }
}

fn apress() -> Option<String> {
    let d = std::env::var_os("FLASHGC_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"));
    let p = d.join("blktrace/apress_hadoop_java_sdb.blkparse.txt.gz");
    if !p.exists() {
        eprintln!("SKIPPED: {} is absent (set FLASHGC_TRACES)", p.display());
        return None;
    }
    let mut s = String::new();
    use std::io::Read;
    flate2::read::GzDecoder::new(std::fs::File::open(p).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    Some(s)
}

#[test]
fn binary_per_cpu_files_read_like_the_blkparse_text_in_both_byte_orders() {
    let Some(text) = apress() else { return };
    let txt = tmp("apress.blkparse.txt");
    std::fs::write(&txt, &text).unwrap();
    let evs = events_of(&text);
    assert!(evs.len() > 40_000, "{} events", evs.len());
    for little in [true, false] {
        let name = if little { "apress-le" } else { "apress-be" };
        let bin = write_set(name, &evs, little);
        for events in ["D", "Q", "QD", "C"] {
            let (want, _) = replay(&txt, events).unwrap();
            let (got, desc) = replay(&bin, events).unwrap();
            assert!(!want.is_empty());
            assert_eq!(got.len(), want.len(), "{name} {events}: request count");
            assert!(got == want, "{name} {events}: requests differ");
            assert!(desc.contains("blkparse"), "{desc}");
        }
        // The set is found from any of its files, and from its name alone (`blkparse -i`).
        let (a, _) = replay(&tmp(&format!("{name}.blktrace.3")), "Q").unwrap();
        let (b, _) = replay(&tmp(name), "Q").unwrap();
        let (c, _) = replay(&bin, "Q").unwrap();
        assert!(a == c && b == c);
        // Volumes named as in the text output.
        let v = volumes(&bin, &TraceOptions::default()).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].volume, "8,16");
    }
}

#[test]
fn hand_encoded_events_give_the_documented_requests() {
    // A queue write, a merge, an issue of a discard, a completion without data, a notify
    // record with payload, an issue with the cgroup flag: only the selected actions with
    // data are requests; the rest are counted as ignored.
    let dev = 259 << 20 | 3;
    let w = 1u32 << (1 + 16);
    let ev = |time: u64, cpu: u32, action: u32, sector: u64, bytes: u32, pdu: usize| Ev {
        time,
        seq: time as u32,
        sector,
        bytes,
        action,
        pid: 1,
        dev,
        cpu,
        pdu: vec![7u8; pdu],
    };
    let evs = vec![
        ev(10, 0, 1 | w, 96, 8192, 0),  // Q write 8 KiB at sector 100
        ev(20, 1, 7 | w, 96, 8192, 0),  // D write
        ev(30, 0, 2 | w, 116, 4096, 0), // M (merge)
        ev(40, 1, 7 | (1 << (13 + 16)), 800, 4096, 0), // D discard
        ev(50, 0, 8, 0, 0, 0),          // C, no data: `N`
        ev(55, 1, 2 | (1 << (10 + 16)), 0, 0, 33), // notify message, 33-byte payload
        ev(60, 1, 7 | (1 << 8), 1600, 512, 0), // D read with the cgroup flag
    ];
    for little in [true, false] {
        let bin = write_set(if little { "hand-le" } else { "hand-be" }, &evs, little);
        let (d, desc) = replay(&bin, "D").unwrap();
        let got: Vec<_> = d
            .iter()
            .map(|r| (r.time_ns, r.op, r.lpn, r.pages))
            .collect();
        use flashgc_core::workload::Op;
        // Times relative to the first request (20 ns); sectors of 512 B -> 4 KiB pages.
        assert_eq!(
            got,
            vec![
                (0, Op::Write, 96 * 512 / 4096, 2),
                (20, Op::Trim, 800 * 512 / 4096, 1),
                (40, Op::Read, 1600 * 512 / 4096, 1),
            ]
        );
        assert!(desc.contains("3 requests"), "{desc}");
    }
}

#[test]
fn corrupt_or_truncated_binary_files_are_errors_naming_file_and_offset() {
    let e = Ev {
        time: 1,
        seq: 1,
        sector: 8,
        bytes: 4096,
        action: 7 | (1 << 17),
        pid: 1,
        dev: 8 << 20 | 16,
        cpu: 0,
        pdu: Vec::new(),
    };
    let mut b = Vec::new();
    for i in 0..3 {
        let mut x = e.clone();
        x.time = 1 + i;
        encode(&x, true, &mut b);
    }
    // Truncated in the third record.
    let p = tmp("trunc.blktrace.0");
    std::fs::write(&p, &b[..48 * 2 + 20]).unwrap();
    let err = replay(&p, "D").unwrap_err().to_string();
    assert!(
        err.contains("trunc.blktrace.0") && err.contains("byte 96") && err.contains("truncated"),
        "{err}"
    );
    // A damaged magic in the second record.
    let mut bad = b.clone();
    bad[48] ^= 0xff;
    let p = tmp("badmagic.blktrace.0");
    std::fs::write(&p, &bad).unwrap();
    let err = replay(&p, "D").unwrap_err().to_string();
    assert!(err.contains("byte 48") && err.contains("magic"), "{err}");
    // Errors name the blktrace format, not .fgt.
    assert!(
        err.contains("badmagic.blktrace.0: invalid blktrace file: record at byte 48"),
        "{err}"
    );
    // A sector beyond 2^64 bytes is refused (as text formats refuse it), not saturated.
    let mut far = b.clone();
    far[48 + 16..48 + 24].copy_from_slice(&u64::MAX.to_le_bytes());
    let p = tmp("far.blktrace.0");
    std::fs::write(&p, &far).unwrap();
    let err = replay(&p, "D").unwrap_err().to_string();
    assert!(
        err.contains(
            "far.blktrace.0: invalid blktrace file: record at byte 48: sector 18446744073709551615"
        ),
        "{err}"
    );
    // A set with no selected events gets the blkparse hint.
    let p = tmp("onlyd.blktrace.0");
    std::fs::write(&p, &b).unwrap();
    let err = replay(&p, "C").unwrap_err().to_string();
    // ... naming the actions its requests are in (the set holds D events only).
    assert!(
        err.contains("this file's requests are in D events: pass --blkparse-events D"),
        "{err}"
    );
}

/// Flushes and FUA writes (`BLK_TC_FLUSH`, `BLK_TC_FUA`): binary events read as blkparse
/// prints their RWBS (`FN`, `FWS`, `WFS`, `FWFS`), in both byte orders.
#[test]
fn flush_and_fua_category_bits_read_like_the_blkparse_text() {
    use flashgc_core::workload::Op;
    let text = "\
  8,0    0        1     0.000000000  100  D   W 0 + 8 [a]
  8,0    1        2     0.000001000  100  D  FN [a]
  8,0    0        3     0.000002000  100  D FWS 8 + 8 [a]
  8,0    1        4     0.000003000  100  D WFS 16 + 8 [a]
  8,0    0        5     0.000004000  100  D FWFS 24 + 8 [a]
  8,0    0        6     0.000005000  100  Q FWS 0 + 0 [a]
  8,0    1        7     0.000006000  100  D   N [a]
";
    let txt = tmp("flush.blkparse.txt");
    std::fs::write(&txt, text).unwrap();
    for little in [true, false] {
        let name = if little { "flush-le" } else { "flush-be" };
        let bin = write_set(name, &events_of(text), little);
        let (want, want_desc) = replay(&txt, "D").unwrap();
        let (got, desc) = replay(&bin, "D").unwrap();
        assert_eq!(got, want, "{name}");
        let tail = |d: &str| d[d.find("format").unwrap()..].to_string();
        assert_eq!(tail(&desc), tail(&want_desc));
        // The only Q event is an empty preflush write: a flush, and no request.
        let e = replay(&bin, "Q").unwrap_err().to_string();
        assert!(
            e.contains("holds no requests (7 lines read, 6 lines are not requests, 1 flushes)"),
            "{e}"
        );
        let (d, desc) = replay(&bin, "D").unwrap();
        let got: Vec<_> = d.iter().map(|r| (r.time_ns, r.op, r.lpn, r.fua)).collect();
        assert_eq!(
            got,
            vec![
                (0, Op::Write, 0, false),
                (1000, Op::Flush, 0, false),
                (2000, Op::Flush, 0, false),
                (2000, Op::Write, 1, false),
                (3000, Op::Write, 2, true),
                (4000, Op::Flush, 0, false),
                (4000, Op::Write, 3, true),
            ]
        );
        assert!(
            desc.contains("4 requests, 3 flushes, 2 FUA writes"),
            "{desc}"
        );
    }
}
