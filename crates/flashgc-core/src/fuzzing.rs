//! Structure-aware fuzzing of checkpoints (the `checkpoint` cargo-fuzz target in `fuzz/`,
//! and the regression test that drives it with seeded mutations in CI).
//!
//! A checkpoint's CRC proves that the bytes were not damaged, not that they are
//! consistent: anyone can edit a file and recompute the CRC. The harness takes a real
//! checkpoint of a short run of one registered placement or victim policy, mutates bytes
//! inside one of its sections, fixes the CRC (so the mutation reaches the decoders and the
//! restored-state checks instead of stopping at the checksum), then resumes it from memory
//! and runs it to its end. Whatever the bytes, resuming must return an error or a run that
//! ends; it must never panic, loop or allocate without bound.
//!
//! Timed runs (flash and NoC device models, [`timed_cases`]) are covered the same way:
//! their checkpoints add the stored timing parameters (in `META`) and the driver's `DRV `
//! section (device queues, write cache, closed-loop slots, histograms).
//!
//! Input layout: byte 0 picks the case (see [`cases`] then [`timed_cases`]; [`case_count`]
//! in all), byte 1 the section (see [`SECTIONS`]; a WAF-only checkpoint has no `DRV `
//! section and gets its `META` instead), then groups of 6 bytes are mutations: a 24-bit offset into the section's
//! payload (wrapped to its length), an operation (xor a byte, set a byte, write a small
//! little-endian u32, write a u64 near a power of two) and a value byte.

use crate::checkpoint::{CheckpointReader, MAGIC};
use crate::device::noc::GcPath;
use crate::device::NocParams;
use crate::driver::Engine;
use crate::sim::{RunControl, RunEnd};
use crate::timing::{CachePolicy, GcMode, Host, TimingParams};
use crate::{placement, victim, Config};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// The sections a mutation can target, in file order.
pub const SECTIONS: &[&[u8; 4]] = &[
    b"META", b"SIM ", b"FTL ", b"L2P ", b"P2L ", b"VALD", b"PLCY", b"VICT", b"DRV ", b"CONT",
    b"GACT",
];

/// Mutations applied at most per input.
const MAX_MUTATIONS: usize = 16;

/// Requests a resumed run may serve at most (a run that ended at its configured target
/// serves far fewer; a bound keeps a harness run short whatever happens).
const MAX_REQUESTS: u64 = 200_000;

/// The (placement, victim) pairs whose checkpoints are mutated: every registered placement
/// with greedy victims, and every registered victim policy under SUP-GC.
pub fn cases() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = placement::names()
        .into_iter()
        .map(|p| {
            let spec = if p == "midas" {
                "midas:epoch=0.5,check=0.25".to_string()
            } else {
                p.to_string()
            };
            let vic = if p == "midas" { "fifo" } else { "greedy" };
            (spec, vic.to_string())
        })
        .collect();
    // Variants with their own state (issue 16): MiDA's HOT group, SepBIT's FK, a victim
    // policy with a candidate filter.
    for (p, vic) in [
        ("mida:hot=filter", "cost-benefit"),
        ("oracle:fk", "greedy"),
        ("sepbit", "cost-benefit:min_garbage=0.15"),
    ] {
        v.push((p.to_string(), vic.to_string()));
    }
    v.extend(
        victim::names()
            .into_iter()
            .map(|n| ("sup-gc".to_string(), n.to_string())),
    );
    v
}

/// The timed cases (run with SepBIT + greedy, a multi-stream placement): a name and the
/// timing parameters of the flash device (foreground GC, closed loop; per-die GC with a
/// write cache at a fixed request rate; background GC with GCaR) and of the NoC
/// controller (selective copy-back).
///
/// Not preemptible or idle GC on flash: on this tiny device their uninterrupted runs
/// already trip a debug assertion of the flash model (a queued GC program into a segment
/// whose erase is not yet scheduled), which would drown every other finding of the
/// fuzzer in debug builds.
pub fn timed_cases() -> Vec<(&'static str, TimingParams)> {
    let c = config("sepbit", "greedy");
    vec![
        ("flash-foreground", TimingParams::default()),
        (
            "flash-perdie-cache",
            TimingParams {
                gc_mode: GcMode::PerDie,
                cache_pages: 256,
                host: Host::Rate { iops: 50_000.0 },
                checkpoint_bytes: 4 << 20,
                ..TimingParams::default()
            },
        ),
        (
            "flash-background-gcar",
            TimingParams {
                gc_mode: GcMode::Background,
                cache_pages: 128,
                cache_policy: CachePolicy::Gcar,
                host: Host::ClosedLoop { queue_depth: 4 },
                cpu: Some(crate::device::cpu::CpuParams {
                    cores: 2,
                    ..Default::default()
                }),
                ..TimingParams::default()
            },
        ),
        (
            "flash-foreground-gcar-opt",
            TimingParams {
                cache_pages: 128,
                cache_policy: CachePolicy::GcarOpt,
                host: Host::ClosedLoop { queue_depth: 4 },
                ..TimingParams::default()
            },
        ),
        (
            // Deferred commit: requests in flight, resource queues, running operations.
            "flash-read-first-suspend",
            TimingParams {
                host: Host::ClosedLoop { queue_depth: 4 },
                controller: crate::device::policy::ControllerParams {
                    scheduler: crate::device::policy::Scheduler::ReadFirst,
                    suspend: Some(crate::device::policy::Suspend {
                        suspend_ns: 20_000,
                        resume_ns: 20_000,
                        max_per_op: 2,
                    }),
                    ..Default::default()
                },
                ..TimingParams::default()
            },
        ),
        (
            // Round-robin allocation (per-page unit table, cursor) and back-fill channels
            // (booked transfers) under preemptible GC.
            "flash-round-robin-backfill",
            TimingParams {
                gc_mode: GcMode::Preemptible,
                alloc: crate::device::flash::Alloc::RoundRobin,
                host: Host::ClosedLoop { queue_depth: 4 },
                controller: crate::device::policy::ControllerParams {
                    channel: crate::device::policy::ChannelArb::Backfill,
                    ..Default::default()
                },
                ..TimingParams::default()
            },
        ),
        (
            "noc-selective",
            TimingParams {
                noc: Some(NocParams::from_config(&c, GcPath::Selective)),
                checkpoint_bytes: 4 << 20,
                ..TimingParams::default()
            },
        ),
    ]
}

/// The content-mode cases (WAF-only): every GC action other than `move` with the victim
/// policy its scheme uses, the faithful and the upper-bound variants; their checkpoints add
/// the content layer (`CONT`) and the action's state (`GACT`).
pub fn content_cases() -> Vec<(&'static str, &'static str)> {
    vec![
        ("greedy", "cagc"),
        ("greedy", "cagc:index=full"),
        ("dagc", "dagc"),
        ("dagc", "dagc:cache=unbounded"),
        ("splitgc", "splitgc"),
        ("splitgc:rule=dup-first", "splitgc:writeback=once"),
    ]
}

/// Cases in all: [`cases`] (WAF-only), [`timed_cases`], then [`content_cases`].
pub fn case_count() -> usize {
    cases().len() + timed_cases().len() + content_cases().len()
}

/// Case `i` (see [`case_count`]): its configuration and, for a timed case, its timing
/// parameters.
pub fn case(i: usize) -> (Config, Option<TimingParams>) {
    let waf = cases();
    let timed = timed_cases();
    match waf.get(i) {
        Some((p, v)) => (config(p, v), None),
        None if i - waf.len() < timed.len() => {
            let (_, p) = timed[i - waf.len()].clone();
            (config("sepbit", "greedy"), Some(p))
        }
        None => {
            let k = content_cases();
            let (v, a) = k[(i - waf.len() - timed.len()) % k.len()];
            let mut c = config("single", v);
            c.run.gc_action = a.into();
            c.content.dup_ratio = 0.3;
            c.content.pool = 256;
            c.run.read_ratio = 0.3;
            (c, None)
        }
    }
}

/// A case's name for messages: `placement + victim`, or the timed case's name.
pub fn case_name(i: usize) -> String {
    let waf = cases();
    let timed = timed_cases();
    match waf.get(i) {
        Some((p, v)) => format!("{p} + {v}"),
        None if i - waf.len() < timed.len() => {
            format!("sepbit + greedy, timed {}", timed[i - waf.len()].0)
        }
        None => {
            let k = content_cases();
            let (v, a) = k[(i - waf.len() - timed.len()) % k.len()];
            format!("single + {v}, GC action {a}")
        }
    }
}

/// The small device and run every case uses: 32 MiB logical, 32-page segments.
pub fn config(placement: &str, victim: &str) -> Config {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(1.0 / 32.0);
    c.ftl.op = Some(0.15);
    c.device.pages_per_block = 32;
    c.run.workload = "zipf:0.9".into();
    c.run.placement = placement.into();
    c.run.victim = victim.into();
    c.run.write_volume = 2.0;
    c.run.warmup = Some(1.0);
    c.run.window_gib = Some(1.0 / 256.0);
    c.run.max_memory_gib = Some(0.5);
    c
}

/// The checkpoint bytes of case `i`, taken mid-run (built once per process).
pub fn base_checkpoint(i: usize) -> Vec<u8> {
    static CACHE: OnceLock<Mutex<HashMap<usize, Vec<u8>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut m = cache.lock().unwrap_or_else(|e| e.into_inner());
    m.entry(i)
        .or_insert_with(|| {
            let (c, timing) = case(i);
            let mut e = Engine::new(&c, timing).expect("the harness configuration is valid");
            if e.simulation().needs_future() {
                let mut f = e.simulation().synthetic_workload().expect("synthetic");
                e.simulation_mut().prepare_future(&mut f).expect("pre-pass");
            }
            let mut wl = e.simulation().synthetic_workload().expect("synthetic");
            let file = std::env::temp_dir()
                .join(format!("flashgc-fuzz-ckpt-{}-{i}.ckpt", std::process::id()));
            let mut ctl = RunControl {
                checkpoint: Some(file.clone()),
                stop_after_requests: Some(9_000),
                caller: serde_json::json!({ "fuzz": true }),
                ..RunControl::default()
            };
            match e.run_with(&mut wl, &mut |_| {}, &mut ctl) {
                Ok(RunEnd::Stopped { .. }) => {}
                other => panic!("the harness run did not stop at its checkpoint: {other:?}"),
            }
            let b = std::fs::read(&file).expect("checkpoint written");
            let _ = std::fs::remove_file(&file);
            b
        })
        .clone()
}

/// Where each section's payload lies in a checkpoint: tag -> (start, length).
pub fn sections(b: &[u8]) -> Option<HashMap<[u8; 4], (usize, usize)>> {
    let vlen = u16::from_le_bytes(b.get(12..14)?.try_into().ok()?) as usize;
    let mut at = 14 + vlen + 12;
    let mut out = HashMap::new();
    while at < b.len() {
        let tag: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
        let len = u64::from_le_bytes(b.get(at + 4..at + 12)?.try_into().ok()?) as usize;
        out.insert(tag, (at + 12, len));
        at += 12 + len;
    }
    Some(out)
}

/// Recomputes the body CRC in the header (after a mutation).
pub fn fix_crc(b: &mut [u8]) {
    if b.len() < 14 || &b[..8] != MAGIC {
        return;
    }
    let vlen = u16::from_le_bytes([b[12], b[13]]) as usize;
    let header = 14 + vlen + 12;
    if b.len() < header {
        return;
    }
    let crc = crc32fast::hash(&b[header..]);
    b[header - 4..header].copy_from_slice(&crc.to_le_bytes());
}

/// Applies the mutations of `ops` (6 bytes each, see the module docs) to the payload
/// `b[start..start + len]`.
pub fn mutate(b: &mut [u8], start: usize, len: usize, ops: &[u8]) {
    if len == 0 {
        return;
    }
    for m in ops.chunks_exact(6).take(MAX_MUTATIONS) {
        let off = (u32::from_le_bytes([m[0], m[1], m[2], 0]) as usize) % len;
        let (op, val) = (m[3], m[4] as u32 | (m[5] as u32) << 8);
        let at = start + off;
        let end = start + len;
        match op % 4 {
            0 => b[at] ^= (val as u8).max(1),
            1 => b[at] = val as u8,
            2 => {
                let v = (val & 0x3ff).to_le_bytes();
                let n = v.len().min(end - at);
                b[at..at + n].copy_from_slice(&v[..n]);
            }
            _ => {
                // Near a power of two: the values that break bounds and counters.
                let v = (1u64 << (val % 64)).wrapping_sub((val >> 6) as u64 % 3);
                let v = v.to_le_bytes();
                let n = v.len().min(end - at);
                b[at..at + n].copy_from_slice(&v[..n]);
            }
        }
    }
}

/// What happened to one input.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Refused while loading (the normal outcome of a damaged file).
    Refused(String),
    /// Loaded and ran to its end (or to the harness's request bound).
    Ran,
    /// Loaded, then the run returned an error.
    RunError(String),
}

/// The harness: mutate a real checkpoint as `data` says, resume it, run it. Panics only
/// on a bug (what the fuzzer looks for).
pub fn checkpoint(data: &[u8]) -> Outcome {
    let n = case_count();
    let (Some(&c), Some(&s)) = (data.first(), data.get(1)) else {
        return Outcome::Refused("input too short".into());
    };
    let case = c as usize % n;
    let tag = SECTIONS[s as usize % SECTIONS.len()];
    let mut b = base_checkpoint(case);
    let secs = sections(&b).expect("the base checkpoint is well formed");
    // A WAF-only checkpoint has no driver section, a plain one no content sections:
    // mutate its metadata instead.
    let (start, len) = secs.get(tag).copied().unwrap_or(secs[b"META"]);
    mutate(&mut b, start, len, &data[2..]);
    fix_crc(&mut b);
    resume(&b)
}

/// Resumes checkpoint bytes `b` and runs them to the end.
pub fn resume(b: &[u8]) -> Outcome {
    let mut r = match CheckpointReader::from_bytes(Path::new("fuzz.ckpt"), b.to_vec()) {
        Ok(r) => r,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    // A mutated configuration may describe any device: cap its memory as the CLI caps a
    // resumed run's to the machine's.
    r.meta.config.run.max_memory_gib = Some(0.5);
    let mut e = match Engine::from_checkpoint(r) {
        Ok(s) => s,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    let mut wl = match e.simulation().synthetic_workload() {
        Ok(w) => w,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    if e.simulation().needs_future() {
        let mut f = match e.simulation().synthetic_workload() {
            Ok(w) => w,
            Err(e) => return Outcome::Refused(e.to_string()),
        };
        if let Err(e) = e.simulation_mut().prepare_future(&mut f) {
            return Outcome::Refused(e.to_string());
        }
    }
    let mut ctl = RunControl {
        stop_after_requests: Some(MAX_REQUESTS),
        ..RunControl::default()
    };
    match e.run_with(&mut wl, &mut |_| {}, &mut ctl) {
        Ok(_) => Outcome::Ran,
        Err(e) => Outcome::RunError(e.to_string()),
    }
}
