//! Fuzzing harnesses (cargo-fuzz targets in `fuzz/`, and the regression test that replays
//! saved inputs in CI). Each takes arbitrary bytes and must never panic: every problem has
//! to surface as an error value. The trace harnesses read from memory
//! ([`TraceInput::Memory`]) through the same readers as files, so no file system is
//! touched. Besides "no panic", they check properties that hold for any input: compressing
//! a trace does not change its records, a truncated stream yields a prefix of them, a
//! `.fgt` conversion reads back identically, replayed requests stay inside the device and
//! in time order, and `--loop-until K` writes exactly `K x capacity` pages.

use crate::fgt::{write_fgt_to, FgtSource};
use crate::input::TraceInput;
use crate::{
    footprint_input, open_input, stats_input, volumes_input, Ops, Record, RecordSource, Remap,
    TimeWindow, TraceOptions, TraceWorkload,
};
use flashgc_core::workload::{Op, Request, Workload};
use flashgc_core::{Config, Simulation};
use std::io::Write;
use std::sync::Arc;

/// Formats the text harness can force (byte 0 of its input picks one). `None` is
/// auto-detection; [`SPEC_FROM_INPUT`] takes the `--format` value from the first line.
const FORMATS: &[Option<&str>] = &[
    None,
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
    Some("csv:ts=1,op=2,offset=3,size=4,offset_unit=sector,ts_unit=us,write=W"),
    Some("ssv:ts=1,volume=2,op=3,offset=4,size=5,hash=6,size_unit=4kib,ts_unit=100ns,write=W|WS,read=R,trim=D,header=1"),
    Some("csv:op=1,lba=2,len=3,write=1|w,trim=t,sep=space"),
    Some(SPEC_FROM_INPUT),
];

/// Marker in [`FORMATS`]: the format spec is the first line of the body.
const SPEC_FROM_INPUT: &str = "<first line>";

/// Records read per pass at most (bounds a harness run; inputs are small anyway).
const MAX_RECORDS: usize = 20_000;
/// Requests replayed at most.
const MAX_REQUESTS: u64 = 256;

/// Name the in-memory trace carries in errors.
const NAME: &str = "fuzz.trace";

/// Everything one pass of a reader produced.
#[derive(Debug, PartialEq)]
struct Pass {
    records: Vec<Record>,
    /// `None`: read to the end; `Some(e)`: stopped by error `e` (its message).
    end: Option<String>,
    complete: bool,
}

fn read_all(src: &mut dyn RecordSource) -> Pass {
    let mut records = Vec::new();
    loop {
        if records.len() >= MAX_RECORDS {
            return Pass {
                records,
                end: None,
                complete: false,
            };
        }
        match src.next_record() {
            Ok(Some(r)) => records.push(r),
            Ok(None) => {
                return Pass {
                    records,
                    end: None,
                    complete: true,
                }
            }
            Err(e) => {
                return Pass {
                    records,
                    end: Some(e.to_string()),
                    complete: true,
                }
            }
        }
    }
}

/// Statistics and footprints visit every page a request covers (by design: they count
/// distinct pages), so a few multi-TiB requests take minutes; the harness runs them only
/// on traces of at most 2^16 pages in all.
fn small(pass: &Pass, lpn_size: u32) -> bool {
    let pages = pass.records.iter().fold(0u64, |a, r| {
        a.saturating_add(r.rec.len / lpn_size as u64 + 2)
    });
    pass.complete && pages <= 1 << 16
}

/// Trace options from two option bytes (see [`trace`]).
fn options(format: Option<String>, a: u8, b: u8) -> TraceOptions {
    TraceOptions {
        format,
        blkparse_events: (b & 0x80 != 0).then(|| "QC".to_string()),
        volume: (b & 0x20 != 0)
            .then(|| ["0", "1", "hm_0", "/dev/sdb"][(a >> 5) as usize & 3].to_string()),
        remap: [Remap::None, Remap::Compact, Remap::Modulo, Remap::Compact][(a >> 3) as usize & 3],
        loop_times: if a & 0x20 != 0 { 3 } else { 1 },
        loop_until: (a & 0x40 != 0).then_some(1.5),
        time_scale: [1.0, 0.5, 0.0, 3.0][(b >> 2) as usize & 3],
        ops: [Ops::All, Ops::Write, Ops::NoRead, Ops::Read]
            [(b >> 4) as usize & 1 | (a as usize >> 6 & 2)],
        time_window: (b & 0x40 != 0).then_some(TimeWindow {
            start_ns: 1_000,
            end_ns: 2_000_000_000,
        }),
        skip_bad_lines: a & 1 != 0,
        flushes: if b & 2 != 0 {
            crate::options::Flushes::Ignore
        } else {
            crate::options::Flushes::Replay
        },
        pipeline: false,
        pipeline_min_bytes: 0,
        // Only `.fgt` version 3 has continuation records to join or not.
        per_page: b & 1 != 0,
    }
}

/// Text trace readers. Input: byte 0 picks the format (`FORMATS`), byte 1 and byte 2 the
/// options (bit 0 of byte 1: skip bad lines; bits 1-2: compress the body with gzip, zstd,
/// or gzip cut short; the rest: remap, loops, time scale, ops, volume, time window,
/// blkparse events, device size), the rest is the trace. Runs the reader, the compressed
/// reader (same records and error), statistics, volumes, footprint, `.fgt` conversion and
/// read-back, and replay with the options.
pub fn trace(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let (a, b) = (data[1], data[2]);
    let mut body = &data[3..];
    let format = match FORMATS[data[0] as usize % FORMATS.len()] {
        Some(SPEC_FROM_INPUT) => {
            let i = memchr::memchr(b'\n', body).unwrap_or(body.len());
            let spec = String::from_utf8_lossy(&body[..i]).into_owned();
            body = body.get(i + 1..).unwrap_or(&[]);
            Some(spec)
        }
        f => f.map(str::to_string),
    };
    let opts = options(format, a, b);
    let plain = TraceInput::memory(NAME, body.to_vec());
    let Ok(mut src) = opts.open_input(&plain) else {
        return;
    };
    let pass = read_all(&mut src);

    // Compression must not change what is read: same records, same error.
    // (Only for a plain text body: a body that is itself compressed would be read through
    // one decompression, not two.)
    let compression = (a >> 1) & 3;
    let plain_text = matches!(
        crate::input::sniff(&plain),
        Ok(crate::input::Kind::Text(crate::input::Compression::None))
    );
    if compression != 0 && plain_text {
        let mut packed = match compression {
            2 => zstd::encode_all(body, 1).unwrap_or_default(),
            _ => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                let _ = e.write_all(body);
                e.finish().unwrap_or_default()
            }
        };
        let cut = compression == 3;
        if cut {
            packed.truncate(packed.len() / 2);
        }
        let packed = TraceInput::memory(NAME, packed);
        match opts.open_input(&packed) {
            Ok(mut src) => {
                let p = read_all(&mut src);
                if cut {
                    // A stream cut short yields a prefix of the records, then an error.
                    assert!(
                        p.records.len() <= pass.records.len()
                            && p.records[..] == pass.records[..p.records.len()],
                        "truncated gzip: records are not a prefix of the plain ones"
                    );
                } else if pass.complete && p.complete {
                    assert_eq!(p, pass, "compressed and plain traces read differently");
                }
            }
            Err(e) => {
                // Opening the plain trace worked, so only a cut stream may fail here (format
                // detection reads the first lines; a cut stream can end before them).
                assert!(cut, "compressed trace fails to open: {e}");
            }
        }
    }

    // Round trip through .fgt: the same requests, volume names and count.
    if pass.complete && pass.end.is_none() {
        let mut src = opts.open_input(&plain).expect("opened once already");
        let mut out = std::io::Cursor::new(Vec::new());
        let content = src.format().has_content();
        if let Ok(rep) = write_fgt_to(&mut src, &mut out, "fuzz.fgt", content) {
            assert_eq!(rep.records, pass.records.len() as u64);
            let bytes: Arc<[u8]> = out.into_inner().into();
            let mut f = FgtSource::from_memory("fuzz.fgt", bytes)
                .unwrap_or_else(|e| panic!("a written .fgt does not read back: {e}"));
            for r in &pass.records {
                let g = f.next_fast().expect("fewer records read back");
                let mut want = r.rec;
                if !content {
                    want.content = 0;
                }
                assert_eq!(
                    g.rec, want,
                    ".fgt round trip changed record at line {}",
                    r.line
                );
                assert_eq!(f.volume_name(want.volume), src.volume_name(want.volume));
            }
            assert!(f.next_fast().is_none(), "more records read back");
        }
    }

    let lpn_size = [4096u32, 512, 3000, 1 << 20][b as usize & 3];
    if small(&pass, lpn_size) {
        let _ = stats_input(&plain, &opts, lpn_size);
        let _ = volumes_input(&plain, &opts);
        let _ = footprint_input(&plain, &opts, lpn_size);
    }
    let logical = [1u64 << 16, 7, 1 << 18, 1][(a >> 7) as usize | ((b as usize >> 1) & 2)];
    replay(&plain, &opts, lpn_size, logical);
    pipelined_replay_matches(&plain, &opts, lpn_size, logical);
}

/// Everything a replay shows its caller: the requests of each `fill` call, the error that
/// stopped it, and the final description (with the reader's diagnostics).
fn replay_outcome(
    input: &TraceInput,
    opts: &TraceOptions,
    lpn_size: u32,
    logical: u64,
) -> (Vec<Vec<Request>>, Option<String>, String) {
    let mut wl = match TraceWorkload::open_input(input, opts, lpn_size, logical) {
        Ok(w) => w,
        Err(e) => return (Vec::new(), Some(e.to_string()), String::new()),
    };
    let mut calls = Vec::new();
    let mut out = 0u64;
    while out < MAX_REQUESTS {
        let mut buf = Vec::new();
        if let Err(e) = wl.fill_requests(&mut buf, 7 + calls.len() % 50) {
            return (calls, Some(e.to_string()), wl.describe());
        }
        if buf.is_empty() {
            break;
        }
        out += buf.len() as u64;
        calls.push(buf);
    }
    (calls, None, wl.describe())
}

/// Replay with the parser on its own thread gives what the single-threaded replay gives:
/// the same requests per call, the same error, the same diagnostics in the description.
fn pipelined_replay_matches(input: &TraceInput, opts: &TraceOptions, lpn_size: u32, logical: u64) {
    let direct = replay_outcome(input, opts, lpn_size, logical);
    let piped_opts = TraceOptions {
        pipeline: true,
        pipeline_min_bytes: 0,
        ..opts.clone()
    };
    if !crate::pipe::worth_it() {
        return;
    }
    let piped = replay_outcome(input, &piped_opts, lpn_size, logical);
    assert_eq!(
        direct, piped,
        "pipelined replay differs from the direct one"
    );
}

/// Replays `input` and checks every request: inside the device, at least one page, time
/// never going back, and `--loop-until K` writing exactly `K x logical` pages.
fn replay(input: &TraceInput, opts: &TraceOptions, lpn_size: u32, logical: u64) {
    let Ok(mut wl) = TraceWorkload::open_input(input, opts, lpn_size, logical) else {
        return;
    };
    let mut buf: Vec<Request> = Vec::new();
    let (mut out, mut written, mut last_t) = (0u64, 0u64, 0u64);
    let mut finished = false;
    while out < MAX_REQUESTS {
        buf.clear();
        if wl.fill(&mut buf, 64).is_err() {
            return;
        }
        if buf.is_empty() {
            finished = true;
            break;
        }
        for r in &buf {
            assert!(r.time_ns >= last_t, "time goes back");
            last_t = r.time_ns;
            if r.op == Op::Flush {
                assert!(r.pages == 0 && r.lpn == 0 && !r.fua, "a flush with pages");
                continue;
            }
            assert!(!r.fua || r.op == Op::Write, "FUA on a non-write");
            assert!(r.pages >= 1, "empty request");
            assert!(
                r.lpn + r.pages as u64 <= logical,
                "request {}+{} beyond {logical} logical pages",
                r.lpn,
                r.pages
            );
            if r.op == Op::Write {
                written += r.pages as u64;
            }
        }
        out += buf.len() as u64;
    }
    if let (true, Some(k)) = (finished, opts.loop_until) {
        assert_eq!(
            written,
            ((k * logical as f64).round() as u64).max(1),
            "--loop-until wrote the wrong amount"
        );
    }
    let _ = wl.describe();
}

/// The `.fgt` reader. Input: byte 0 selects fix-ups (bit 0: write the magic and version,
/// and clear the reserved header bytes and unknown flag bits;
/// bit 1: set the record count to what the size allows; bit 2: recompute both CRC-32s, so
/// the fuzzer gets past the checksums) and, in bits 3-7, replay options; the rest is the
/// file. Opens it from memory, reads every record, computes statistics and replays it
/// (the plain hot loop and the filtered path).
pub fn fgt(data: &[u8]) {
    if data.is_empty() {
        return;
    }
    let mode = data[0];
    let mut f = data[1..].to_vec();
    if f.len() >= 64 {
        if mode & 1 != 0 {
            f[0..8].copy_from_slice(crate::input::FGT_MAGIC);
            f[8..10].copy_from_slice(&crate::fgt::FGT_VERSION.to_le_bytes());
            f[12] &= 1;
            f[13..16].fill(0);
            f[33..48].fill(0);
            f[56..64].fill(0);
        }
        if mode & 2 != 0 {
            let rs = u16::from_le_bytes([f[10], f[11]]).max(1) as usize;
            // Leave a few bytes of the tail to the volume table.
            let tail = u32::from_le_bytes([f[12], f[13], f[14], f[15]]) as usize % 64;
            let n = (f.len() - 64).saturating_sub(tail) / rs;
            f[16..24].copy_from_slice(&(n as u64).to_le_bytes());
            f[24..32].copy_from_slice(&((64 + n * rs) as u64).to_le_bytes());
        }
        if mode & 4 != 0 {
            let d = crc32fast::hash(&f[64..]);
            f[48..52].copy_from_slice(&d.to_le_bytes());
            let h = crc32fast::hash(&f[0..52]);
            f[52..56].copy_from_slice(&h.to_le_bytes());
        }
    }
    let input = TraceInput::memory("fuzz.fgt", f);
    let plain = TraceOptions {
        format: Some("fgt".into()),
        ..TraceOptions::default()
    };
    let Ok(mut src) = open_input(&input, Some("fgt"), None, false) else {
        return;
    };
    let pass = read_all(&mut src);
    assert!(pass.end.is_none(), "a verified .fgt failed while reading");
    for r in &pass.records {
        let _ = src.volume_name(r.rec.volume);
    }
    let lpn_size = [4096u32, 512, 3000, 1 << 20][(mode >> 3) as usize & 3];
    if small(&pass, lpn_size) {
        let _ = stats_input(&input, &plain, lpn_size);
        let _ = volumes_input(&input, &plain);
        let _ = footprint_input(&input, &plain, lpn_size);
    }
    let logical = [1u64 << 16, 7, 1 << 40, 1][(mode >> 5) as usize & 3];
    replay(&input, &plain, lpn_size, logical);
    if mode & 0x80 != 0 {
        let opts = options(Some("fgt".into()), mode, mode.rotate_left(3));
        // Compact remapping visits every page: keep the device small there.
        replay(&input, &opts, lpn_size, logical.min(1 << 18));
    }
}

/// A small device (4 Ki logical pages) the spec mode of [`config`] runs on.
const SPEC_BASE: &str = "[device]\nchannels = 1\nchips_per_channel = 1\npages_per_block = 32\n\
                         segment_blocks = 1\n[ftl]\nop = 0.15\nlogical_gib = 0.015625\n";

/// Config loader. Input: TOML text through `Config::load`, validation, policy
/// construction (every scheme's parameter parsing) and, for small devices, a short run
/// with the invariant checker. An input starting with `!` is three lines instead, the
/// workload, placement and victim specs (`name:k=v,...`), run on a small device.
pub fn config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let cfg = if let Some(specs) = text.strip_prefix('!') {
        let Ok(mut cfg) = Config::load(None, Some(("fuzz.toml", SPEC_BASE))) else {
            panic!("the spec harness's base config does not load");
        };
        let mut l = specs.splitn(3, '\n');
        cfg.run.workload = l.next().unwrap_or("").to_string();
        cfg.run.placement = l.next().unwrap_or("single").to_string();
        cfg.run.victim = l.next().unwrap_or("greedy").to_string();
        cfg
    } else {
        let Ok(cfg) = Config::load(None, Some(("fuzz.toml", &text))) else {
            return;
        };
        cfg
    };
    run_config(cfg);
}

fn run_config(mut cfg: Config) {
    cfg.run.max_memory_gib = Some(0.25);
    let Ok(layout) = cfg.layout() else {
        return;
    };
    let Ok(mut sim) = Simulation::new(&cfg) else {
        return;
    };
    // Only small devices run; bigger ones stop after construction (parsing and validation
    // are what the fuzzer is after there).
    if layout.physical_pages > 1 << 16 || sim.needs_future() {
        return;
    }
    if let Ok(mut wl) = sim.synthetic_workload() {
        let _ = wl.describe();
        let mut buf = Vec::new();
        if sim.precondition().is_err() {
            return;
        }
        for _ in 0..4 {
            buf.clear();
            if wl.fill(&mut buf, 1024).is_err() {
                return;
            }
            for r in &buf {
                if r.op != Op::Write {
                    continue;
                }
                for k in 0..r.pages as u64 {
                    if sim.ftl_mut().write((r.lpn + k) as u32).is_err() {
                        return;
                    }
                }
            }
        }
        if let Err(e) = sim.ftl().check() {
            panic!("invariant broken: {e}");
        }
    }
}
