//! Trace benchmark: parse rate per text format (MB/s, requests/s) and `.fgt` replay rate.
//! Prints a table (`cargo bench -p flashgc-trace --bench parse`); the figures go to
//! BENCHMARKS.md, section "Traces". Inputs are generated deterministically (same requests
//! in every format) in the temp directory; set FLASHGC_BENCH_REQUESTS to change the size and
//! FLASHGC_BENCH_FORMATS=msr,tencent to run some formats only.

use flashgc_core::workload::{Request, Rng};
use flashgc_trace::{convert, open_source, TraceOptions, TraceWorkload};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

struct Req {
    t_ns: u64,
    write: bool,
    offset: u64,
    len: u64,
}

fn requests(n: usize) -> Vec<Req> {
    let mut rng = Rng::new(42);
    let mut t = 0u64;
    (0..n)
        .map(|_| {
            t += 1 + rng.below(2_000_000);
            Req {
                t_ns: t,
                write: rng.below(2) == 0,
                offset: rng.below(1 << 24) * 4096,
                len: (1 + rng.below(16)) * 4096,
            }
        })
        .collect()
}

fn render(fmt: &str, rs: &[Req]) -> String {
    let mut s = String::with_capacity(rs.len() * 64);
    match fmt {
        "systor" => s.push_str("Timestamp,Response,IOType,LUN,Offset,Size\n"),
        "fio2" => s.push_str("fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n"),
        "fio3" => s.push_str("fio version 3 iolog\n"),
        _ => {}
    }
    for r in rs {
        let (rw, rw_word, w01) = if r.write {
            ("W", "Write", 0)
        } else {
            ("R", "Read", 1)
        };
        let sec = r.t_ns / 1_000_000_000;
        let frac = r.t_ns % 1_000_000_000;
        let _ = match fmt {
            "msr" => writeln!(
                s,
                "{},hm,0,{},{},{},{}",
                128166385295514663 + r.t_ns / 100,
                rw_word,
                r.offset,
                r.len,
                1000
            ),
            "fiu" => writeln!(
                s,
                "{} 4253 nfsd {} {} {} 6 0 d6c75ba46e82326fefa545b57a12e221",
                r.t_ns,
                r.offset / 512,
                r.len / 512,
                rw
            ),
            "alibaba" => writeln!(
                s,
                "3,{},{},{},{}",
                rw,
                r.offset,
                r.len,
                1577808000000000 + r.t_ns / 1000
            ),
            "tencent" => writeln!(
                s,
                "{},{},{},{},1058",
                1538323199 + sec,
                r.offset / 512,
                r.len / 512,
                1 - w01
            ),
            "spc" => writeln!(
                s,
                "0,{},{},{},{}.{:06}",
                r.offset / 512,
                r.len,
                rw.to_lowercase(),
                sec,
                frac / 1000
            ),
            "systor" => writeln!(
                s,
                "{}.{:09},0.000806000,{},0,{},{}",
                1456095145 + sec,
                frac,
                rw,
                r.offset,
                r.len
            ),
            "mqsim" => writeln!(s, "{} 0 {} {} {}", r.t_ns, r.offset / 512, r.len / 512, w01),
            "disksim" => writeln!(
                s,
                "{}.{:06} 0 {} {} {}",
                r.t_ns / 1_000_000,
                r.t_ns % 1_000_000,
                r.offset / 512,
                r.len / 512,
                w01
            ),
            "midas" => writeln!(
                s,
                "{}.{:09} {} {} {}",
                sec,
                frac,
                1 - w01,
                r.offset / 4096,
                r.len
            ),
            "fio2" => writeln!(
                s,
                "/dev/sdb {} {} {}",
                if r.write { "write" } else { "read" },
                r.offset,
                r.len
            ),
            "fio3" => writeln!(
                s,
                "{} /dev/sdb {} {} {}",
                r.t_ns / 1_000,
                if r.write { "write" } else { "read" },
                r.offset,
                r.len
            ),
            "blkparse" => writeln!(
                s,
                "  8,16   5 {:>8} {:>5}.{:09} 18615  D   {} {} + {} [java]",
                1,
                sec,
                frac,
                rw,
                r.offset / 512,
                r.len / 512
            ),
            _ => unreachable!(),
        };
    }
    s
}

/// CPU time of this thread in seconds (Linux `/proc/thread-self/schedstat`), so that the
/// figures do not depend on how many other processes share the machine; wall-clock time
/// when unavailable.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Best of `reps` runs: (CPU seconds, wall seconds, result).
fn best_of<F: FnMut() -> u64>(reps: usize, mut f: F) -> (f64, u64) {
    let mut best = f64::INFINITY;
    let mut n = 0;
    for _ in 0..reps {
        let (c0, t) = (cpu_seconds(), Instant::now());
        n = f();
        let wall = t.elapsed().as_secs_f64();
        let secs = match (c0, cpu_seconds()) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => wall,
        };
        best = best.min(secs);
    }
    (best, n)
}

fn parse_all(path: &Path, fmt: &str) -> u64 {
    let f = if fmt == "mqsim" || fmt == "disksim" {
        Some(fmt)
    } else {
        None
    };
    let mut src = open_source(path, f, None, false).expect("opens");
    let mut n = 0;
    while let Some(r) = src.next_record().expect("parses") {
        n += 1;
        std::hint::black_box(r);
    }
    n
}

fn replay_all(path: &Path, opts: &TraceOptions) -> u64 {
    let mut w = TraceWorkload::open(path, opts, 4096, 1 << 40).expect("opens");
    let mut buf: Vec<Request> = Vec::with_capacity(4096);
    let mut n = 0u64;
    loop {
        buf.clear();
        w.fill_requests(&mut buf, 4096).expect("replays");
        if buf.is_empty() {
            return n;
        }
        n += buf.len() as u64;
        std::hint::black_box(&buf);
    }
}

fn main() {
    let n: usize = std::env::var("FLASHGC_BENCH_REQUESTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(500_000);
    let dir: PathBuf =
        std::env::temp_dir().join(format!("flashgc-trace-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rs = requests(n);
    println!("{n} requests per format (best of 5, CPU time of the benchmark thread); parse = records out of the reader; replay = LPN requests out of TraceWorkload");
    println!("| format | file MB | parse MB/s | parse M req/s | replay M req/s |");
    println!("|---|---|---|---|---|");
    let fmts = [
        "msr", "fiu", "alibaba", "tencent", "spc", "systor", "mqsim", "disksim", "midas", "fio2",
        "fio3", "blkparse",
    ];
    let only = std::env::var("FLASHGC_BENCH_FORMATS").ok();
    for fmt in fmts {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|x| x == fmt))
        {
            continue;
        }
        let path = dir.join(format!("bench.{fmt}"));
        let text = render(fmt, &rs);
        std::fs::write(&path, &text).unwrap();
        let mb = text.len() as f64 / 1e6;
        let (t, k) = best_of(5, || parse_all(&path, fmt));
        assert_eq!(k as usize, n, "{fmt}");
        let opts = TraceOptions {
            format: (fmt == "mqsim" || fmt == "disksim").then(|| fmt.to_string()),
            ..TraceOptions::default()
        };
        let (tr, _) = best_of(5, || replay_all(&path, &opts));
        println!(
            "| {fmt} | {mb:.1} | {:.0} | {:.2} | {:.2} |",
            mb / t,
            k as f64 / t / 1e6,
            n as f64 / tr / 1e6
        );
        if fmt == "msr" {
            let gz = dir.join("bench.msr.gz");
            let mut e = flate2::write::GzEncoder::new(
                std::fs::File::create(&gz).unwrap(),
                flate2::Compression::default(),
            );
            std::io::Write::write_all(&mut e, text.as_bytes()).unwrap();
            e.finish().unwrap();
            let (t, _) = best_of(5, || parse_all(&gz, "msr"));
            println!(
                "| msr .gz | {mb:.1} (uncompressed) | {:.0} | {:.2} | - |",
                mb / t,
                n as f64 / t / 1e6
            );
            let z = dir.join("bench.msr.zst");
            std::fs::write(&z, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
            let (t, _) = best_of(5, || parse_all(&z, "msr"));
            println!(
                "| msr .zst | {mb:.1} (uncompressed) | {:.0} | {:.2} | - |",
                mb / t,
                n as f64 / t / 1e6
            );
        }
        let _ = std::fs::remove_file(&path);
    }
    // Binary: 4 x n records (all 1 page, as the simulator sees a 4 KiB random workload).
    let big = dir.join("bench-big.msr");
    let rs4: Vec<Req> = requests(4 * n)
        .into_iter()
        .map(|r| Req { len: 4096, ..r })
        .collect();
    std::fs::write(&big, render("msr", &rs4)).unwrap();
    let fgt = dir.join("bench.fgt");
    let t = Instant::now();
    let rep = convert(&big, &TraceOptions::default(), &fgt).unwrap();
    let conv = t.elapsed().as_secs_f64();
    let (tp, _) = best_of(5, || parse_all(&fgt, "fgt"));
    let (tr, k) = best_of(5, || replay_all(&fgt, &TraceOptions::default()));
    let (tt, _) = best_of(1, || replay_all(&big, &TraceOptions::default()));
    println!();
    println!(
        ".fgt: {} records, {:.1} MB ({} B/record); convert {:.2} s; read {:.1} M records/s; replay {:.1} M requests/s (text MSR replay of the same: {:.2} M requests/s, {:.0}x slower)",
        rep.records,
        rep.bytes as f64 / 1e6,
        if rep.content { 32 } else { 24 },
        conv,
        rep.records as f64 / tp / 1e6,
        k as f64 / tr / 1e6,
        k as f64 / tt / 1e6,
        tt / tr
    );
    let _ = std::fs::remove_dir_all(&dir);
}
