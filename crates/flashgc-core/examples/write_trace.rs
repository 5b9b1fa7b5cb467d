//! Writes a synthetic flashgc workload as a text trace, so that a peer simulator and
//! flashgc replay exactly the same requests (the side-by-side runs of docs/placement.md,
//! "SepBIT's trace simulator side by side").
//!
//! ```sh
//! cargo run --release -p flashgc-core --example write_trace -- \
//!     zipf:1.0 262144 2621440 1 alibaba > zipf.csv     # workload, logical pages, writes, seed, format
//! ```
//!
//! Formats: `alibaba` (`vol,W,offset_bytes,length_bytes,timestamp_us`, what SepBIT's
//! simulator reads; one request per line, 4 KiB pages, timestamps 1 us apart) and `midas`
//! (`seconds type lba_4k bytes`, what the MiDAS simulator reads), or `sepbit-oracle`: the
//! future-knowledge file SepBIT's simulator reads for its FK separator (one line per write:
//! the number of writes until the same page is written again, or 2^64 - 1 for never, as its
//! `annotate_future_knowledge` tool writes). No precondition fill is written: a
//! log-structured run starts empty.

use flashgc_core::workload::{Op, Synthetic, Workload, WorkloadSpec};
use std::io::Write;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() != 5 {
        eprintln!(
            "usage: write_trace WORKLOAD LOGICAL_PAGES WRITES SEED alibaba|midas|sepbit-oracle"
        );
        std::process::exit(2);
    }
    let kind = match WorkloadSpec::parse("workload", &a[0]) {
        Ok(WorkloadSpec::Synthetic(k)) => k,
        _ => {
            eprintln!("{}: not a synthetic workload", a[0]);
            std::process::exit(2);
        }
    };
    let num = |i: usize| -> u64 {
        a[i].parse().unwrap_or_else(|_| {
            eprintln!("`{}` is not a number", a[i]);
            std::process::exit(2)
        })
    };
    let (pages, writes, seed) = (num(1), num(2), num(3));
    let format = a[4].as_str();
    if !["alibaba", "midas", "sepbit-oracle"].contains(&format) {
        eprintln!("unknown format `{format}` (alibaba, midas or sepbit-oracle)");
        std::process::exit(2);
    }
    let mut wl = Synthetic::new(kind, pages, 1, 0.0, seed);
    if format == "sepbit-oracle" {
        write_oracle(&mut wl, pages, writes);
        return;
    }
    let alibaba = format == "alibaba";
    let out = std::io::stdout();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, out.lock());
    let mut buf = Vec::with_capacity(4096);
    let mut n = 0u64;
    while n < writes {
        buf.clear();
        wl.fill(&mut buf, 4096)
            .expect("synthetic workloads do not fail");
        for r in &buf {
            if n >= writes {
                break;
            }
            if r.op != Op::Write {
                continue;
            }
            n += 1;
            let line = if alibaba {
                writeln!(w, "0,W,{},4096,{}", r.lpn * 4096, n)
            } else {
                writeln!(w, "{:.6} 1 {} 4096", n as f64 * 1e-6, r.lpn)
            };
            if line.is_err() {
                std::process::exit(1); // broken pipe
            }
        }
    }
    let _ = w.flush();
}

/// The writes' LPNs, then for each the distance to the next write of its page.
fn write_oracle(wl: &mut Synthetic, pages: u64, writes: u64) {
    let mut lpns = Vec::with_capacity(writes as usize);
    let mut buf = Vec::with_capacity(4096);
    while (lpns.len() as u64) < writes {
        buf.clear();
        wl.fill(&mut buf, 4096)
            .expect("synthetic workloads do not fail");
        lpns.extend(
            buf.iter()
                .filter(|r| r.op == Op::Write)
                .map(|r| r.lpn)
                .take((writes - lpns.len() as u64) as usize),
        );
    }
    let mut next = vec![u64::MAX; pages as usize];
    let mut life = vec![u64::MAX; lpns.len()];
    for (i, &l) in lpns.iter().enumerate().rev() {
        if next[l as usize] != u64::MAX {
            life[i] = next[l as usize] - i as u64;
        }
        next[l as usize] = i as u64;
    }
    let out = std::io::stdout();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, out.lock());
    for v in life {
        if writeln!(w, "{v}").is_err() {
            std::process::exit(1);
        }
    }
    let _ = w.flush();
}
