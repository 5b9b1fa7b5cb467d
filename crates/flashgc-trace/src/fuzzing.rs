//! Fuzzing harnesses (cargo-fuzz targets in `fuzz/`, and the regression test that replays
//! saved inputs in CI). Each takes arbitrary bytes and must never panic: every problem has
//! to surface as an error value.

use crate::{open_any, TraceOptions, TraceWorkload};
use flashgc_core::workload::Workload;
use flashgc_core::{Config, Simulation};
use std::io::Write;

/// Formats the trace harness can force; the last entry is auto-detection.
const FORMATS: &[Option<&str>] = &[
    Some("msr"),
    Some("fiu"),
    Some("alibaba"),
    Some("tencent"),
    Some("spc"),
    Some("systor"),
    Some("mqsim"),
    Some("ssdsim"),
    Some("disksim"),
    Some("midas"),
    Some("fio2"),
    Some("fio3"),
    Some("blkparse"),
    Some("fgt"),
    Some("csv:ts=1,op=2,offset=3,size=4,offset_unit=sector,ts_unit=us,write=W"),
    None,
];

/// Config loader: arbitrary TOML text through `Config::load`, validation, policy
/// construction (every scheme's parameter parsing) and, for small devices, a short run.
pub fn config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(mut cfg) = Config::load(None, Some(("fuzz.toml", &text))) else {
        return;
    };
    cfg.run.max_memory_gib = Some(0.25);
    let Ok(layout) = cfg.layout() else {
        return;
    };
    if layout.physical_pages > 1 << 20 {
        return;
    }
    let Ok(mut sim) = Simulation::new(&cfg) else {
        return;
    };
    if sim.needs_future() {
        return;
    }
    cfg.run.write_volume = cfg.run.write_volume.min(2.0);
    if let Ok(mut wl) = sim.synthetic_workload() {
        let mut buf = Vec::new();
        let _ = sim.precondition();
        for _ in 0..16 {
            buf.clear();
            if wl.fill(&mut buf, 1024).is_err() {
                return;
            }
            for r in &buf {
                if sim.ftl_mut().write(r.lpn as u32).is_err() {
                    return;
                }
            }
        }
        let _ = sim
            .ftl()
            .check()
            .map_err(|e| panic!("invariant broken: {e}"));
    }
}

/// Trace readers: byte 0 picks the format (or auto-detection), byte 1 the file name suffix
/// (plain, `.gz`, `.zst`, `.fgt`), the rest is the file. The file is read to the end as
/// records, then replayed as a workload on a small device with compact remapping.
pub fn trace_file(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let format = FORMATS[data[0] as usize % FORMATS.len()];
    let suffix = ["txt", "gz", "zst", "fgt"][data[1] as usize % 4];
    let body = &data[2..];
    let dir = std::env::temp_dir();
    let path = dir.join(format!(
        "flashgc-fuzz-{}-{:x}.{suffix}",
        std::process::id(),
        hash(body)
    ));
    {
        let Ok(mut f) = std::fs::File::create(&path) else {
            return;
        };
        if f.write_all(body).is_err() {
            return;
        }
    }
    if let Ok(mut src) = open_any(&path, format, None, data[1] & 0x80 != 0) {
        use crate::RecordSource;
        for _ in 0..100_000 {
            match src.next_record() {
                Ok(Some(_)) => {}
                _ => break,
            }
        }
    }
    let opts = TraceOptions {
        format: format.map(str::to_string),
        remap: crate::Remap::Compact,
        ..TraceOptions::default()
    };
    if let Ok(mut wl) = TraceWorkload::open(&path, &opts, 4096, 1 << 16) {
        let mut buf = Vec::new();
        for _ in 0..64 {
            buf.clear();
            match wl.fill(&mut buf, 1024) {
                Ok(()) if !buf.is_empty() => {}
                _ => break,
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

fn hash(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x0100_0000_01b3)
    })
}
