//! Differential tests guarding the one-engine refactor (issue 14): for the same
//! configuration and seed, the engine reproduces the results captured from the engine
//! before it (commit f514c17, `tests/golden/`), field by field. Fields the refactor adds
//! are listed per file; every other difference fails the test.
//!
//! `FLASHGC_BLESS=1 cargo test --release --test differential` rewrites the goldens (see
//! `tests/golden/README.md` for when that is allowed).

mod common;

use common::golden;
use flashgc_core::config::{DeviceConfig, TimingConfig};
use flashgc_core::device::noc::{GcPath, Interconnect, NocParams};
use flashgc_core::device::policy::{ControllerParams, Scheduler, Suspend};
use flashgc_core::driver::{NocSim, TimedSim};
use flashgc_core::timing::{Alloc, CachePolicy, GcMode, Host, TimingParams};
use flashgc_core::workload::fio::{Dist, FioJob, Rw};
use flashgc_core::workload::profiles::{Arrival, NocProfile, NocSynthetic};
use flashgc_core::workload::Workload;
use flashgc_core::{Config, RunResult, Simulation};
use serde_json::Value;
use std::collections::BTreeMap;

/// The placement schemes and victim policies registered when the goldens were taken.
const PLACEMENTS: &[&str] = &[
    "mida",
    "midas",
    "single",
    "sup-gc",
    "oracle",
    "bf-gc",
    "sepbit",
    "mhf",
    "mbf",
    "cat",
    "autostream",
    "dac",
];
const VICTIMS: &[&str] = &[
    "greedy",
    "fifo",
    "random",
    "d-choices",
    "windowed-greedy",
    "cost-benefit",
    "cost-benefit:formula=sqrt",
    "cost-benefit:formula=femu",
];

/// Fields added to the result record since the goldens (allowed in new results only):
/// the refactor's `schema_version` and timed runs' latency histograms; the GCaR scan count (`timing.cache.scanned_entries`),
/// the garbage-proportion trigger's victim count (`gc_garbage_victims`, absent without it)
/// the oracle's `variant` and the specs as run (`placement_spec`, `victim_spec`) (issue 16); MiDAS's new parameters and history field
/// (issue 17; docs/midas.md); MiDA's and SepBIT's first group's size (`group1`, the MiDAS
/// paper's Fig. 3(b)).
const ADDED: &[&str] = &[
    "schema_version",
    "scanned_entries",
    "mida_hot",
    "mida_hot_threshold",
    "adopt",
    "uid_skip",
    "sized_victims_fifo",
    "hot",
    "grpconf",
    "irrhand",
    "measured_last_capacity",
    "variant",
    "gc_garbage_victims",
    "read_histogram",
    "write_histogram",
    "placement_spec",
    "victim_spec",
    "relabel",
    "relabelled_segments",
    "group1",
];

/// MiDAS's defaults changed deliberately (issue 17: UID warm-up, adoption against the
/// measured WAF, HOT in MiDA phases, FIFO sized groups; later relabelling on a
/// configuration change; docs/midas.md, pinned by
/// `tests/midas.rs`): the goldens are compared with the earlier rules spelled out.
const MIDAS_EARLIER_RULES: &str =
    "midas:adopt=predicted,uid_skip=0,mida_hot=none,sized_victims=policy,relabel=off";

/// With non-FIFO victims HOT's segments can be reclaimed out of their opening order; the
/// earlier code then paired a victim with another segment's open time (the threshold bug
/// docs/midas.md describes, fixed in issue 17). Those golden cases cannot be reproduced
/// and are not compared. Neither can FIFO's since MiDAS's GC stall safety net fires (it
/// never did before; docs/midas.md, Validation 5): on this device it takes one pick of
/// the `midas+fifo` run (total WAF 3.4679 -> 3.4683). MiDAS's behaviour is pinned by
/// `tests/midas.rs` instead.
fn midas_case_comparable(_victim: &str) -> bool {
    false
}

/// 8 planes x 64 blocks x 32 pages of 4 KiB (512 segments), op 0.25, zipf 0.9, 4x written.
fn waf_cfg(placement: &str, victim: &str) -> Config {
    let mut c = Config::default_preset();
    c.device.blocks_per_plane = 64;
    c.device.pages_per_block = 32;
    c.ftl.logical_gib = None;
    c.ftl.op = Some(0.25);
    c.run.workload = "zipf:0.9".into();
    c.run.write_volume = 4.0;
    c.run.warmup = Some(2.0);
    c.run.seed = 7;
    c.run.placement = placement.into();
    c.run.victim = victim.into();
    c
}

fn to_value<T: serde::Serialize>(r: &flashgc_core::Result<T>) -> Value {
    match r {
        Ok(v) => serde_json::to_value(v).unwrap(),
        Err(e) => Value::String(format!("error: {e}")),
    }
}

fn waf_run(c: &Config) -> Value {
    to_value(&Simulation::run_synthetic(c, &mut |_| {}))
}

#[test]
fn waf_only_every_placement_and_victim() {
    let mut cases = BTreeMap::new();
    for p in PLACEMENTS {
        for v in VICTIMS {
            let spec = if *p == "midas" {
                if !midas_case_comparable(v) {
                    continue;
                }
                MIDAS_EARLIER_RULES
            } else {
                p
            };
            cases.insert(format!("{p}+{v}"), waf_run(&waf_cfg(spec, v)));
        }
    }
    // Multi-page requests with reads mixed in, on two workloads.
    for (w, p, v) in [
        ("hotcold:80/20", "single", "greedy"),
        ("hotcold:80/20", "sup-gc", "cost-benefit"),
        ("uniform", "single", "fifo"),
        ("seq", "single", "greedy"),
    ] {
        let mut c = waf_cfg(p, v);
        c.run.workload = w.into();
        c.run.request_pages = 4;
        c.run.read_ratio = 0.25;
        c.run.fill = 0.6;
        cases.insert(format!("{w}/rp4/rr0.25/fill0.6/{p}+{v}"), waf_run(&c));
    }
    golden::check_skipping("waf_only.json", cases, ADDED, &|name, path| {
        // MiDA had no report without HOT; it now reports its first group's size.
        if name.starts_with("mida+") && path == ".placement_report" {
            return true;
        }
        match name.strip_prefix("midas+") {
            None => false,
            Some(v) if path.is_empty() => !midas_case_comparable(v),
            // The spec spells the earlier rules out; MiDAS now also keeps each segment's
            // open time and FIFO of sealed segments (a few bytes more).
            Some(_) => path == ".placement" || path.starts_with(".memory"),
        }
    });
}

/// 2 channels x 2 chips x 1 die x 2 planes (8 units) x 64 blocks x 32 pages of 8 KiB
/// (2 mapping units per flash page); superblocks of 4 blocks; op 0.25.
fn timed_cfg() -> Config {
    let mut c = Config::default_preset();
    c.device = DeviceConfig {
        channels: 2,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 64,
        pages_per_block: 32,
        page_size: 8192,
        lpn_size: 4096,
        segment_blocks: 4,
        timing: TimingConfig {
            read_us: 50.0,
            program_us: 500.0,
            erase_us: 3000.0,
            channel_mb_s: 400.0,
            sram_us: 2.0,
            copyback: false,
        },
    };
    c.ftl.logical_gib = None;
    c.ftl.op = Some(0.25);
    c.run.workload = "zipf:0.8".into();
    c.run.write_volume = 3.0;
    c.run.request_pages = 2;
    c.run.read_ratio = 0.3;
    c.run.seed = 3;
    c
}

fn timed_run(c: &Config, p: TimingParams, wl: Option<&mut dyn Workload>) -> Value {
    let r = TimedSim::new(c, p).and_then(|mut ts| match wl {
        Some(w) => ts.run(w, &mut |_| {}),
        None => {
            let mut w = ts.simulation().synthetic_workload()?;
            ts.run(&mut w, &mut |_| {})
        }
    });
    to_value(&r)
}

fn closed(qd: u32) -> TimingParams {
    TimingParams {
        host: Host::ClosedLoop { queue_depth: qd },
        checkpoint_bytes: 8 << 20,
        ..TimingParams::default()
    }
}

#[test]
fn timed_runs() {
    let mut cases = BTreeMap::new();
    let c = timed_cfg();
    let modes = [
        ("foreground", GcMode::Foreground),
        ("per-die", GcMode::PerDie),
        ("preemptible", GcMode::Preemptible),
        ("background", GcMode::Background),
        ("idle", GcMode::Idle),
    ];
    let caches = [
        ("nocache", 0, CachePolicy::Lru),
        ("lru", 512, CachePolicy::Lru),
        ("gcar", 512, CachePolicy::Gcar),
    ];
    for (mn, m) in modes {
        for (cn, pages, pol) in caches {
            let p = TimingParams {
                gc_mode: m,
                cache_pages: pages,
                cache_policy: pol,
                ..closed(8)
            };
            cases.insert(format!("closed8/{mn}/{cn}"), timed_run(&c, p, None));
        }
    }
    // Device options.
    let variants: [(&str, TimingParams); 6] = [
        (
            "copyback/foreground",
            TimingParams {
                copyback: Some(true),
                ..closed(8)
            },
        ),
        (
            "copyback/preemptible",
            TimingParams {
                copyback: Some(true),
                gc_mode: GcMode::Preemptible,
                ..closed(8)
            },
        ),
        (
            "first-idle/foreground",
            TimingParams {
                alloc: Alloc::FirstIdle,
                ..closed(8)
            },
        ),
        (
            "first-idle/preemptible",
            TimingParams {
                alloc: Alloc::FirstIdle,
                gc_mode: GcMode::Preemptible,
                gc_pace: 2,
                ..closed(8)
            },
        ),
        (
            "multiplane-off/PDWC",
            TimingParams {
                multiplane: false,
                striping: "PDWC".into(),
                ..closed(1)
            },
        ),
        (
            "data-volume/qd64",
            TimingParams {
                data_volume_bytes: Some(40 << 20),
                volume_scale: 0.5,
                ..closed(64)
            },
        ),
    ];
    for (name, p) in variants {
        cases.insert(name.to_string(), timed_run(&c, p, None));
    }
    // Deferred commit: the priority schedulers, suspend, and the GC modes they run with
    // (docs/controller.md).
    let suspend = Some(Suspend {
        suspend_ns: 20_000,
        resume_ns: 20_000,
        max_per_op: 4,
    });
    for (name, scheduler, suspend, gc_mode) in [
        (
            "read-first/foreground",
            Scheduler::ReadFirst,
            None,
            GcMode::Foreground,
        ),
        (
            "read-first/preemptible",
            Scheduler::ReadFirst,
            None,
            GcMode::Preemptible,
        ),
        (
            "host-first/background",
            Scheduler::HostFirst { urgency: 2 },
            None,
            GcMode::Background,
        ),
        (
            "noc-priority+suspend/per-die",
            Scheduler::NocPriority,
            suspend,
            GcMode::PerDie,
        ),
        ("fcfs+suspend/idle", Scheduler::Fcfs, suspend, GcMode::Idle),
    ] {
        let p = TimingParams {
            gc_mode,
            controller: ControllerParams {
                scheduler,
                suspend,
                ..ControllerParams::default()
            },
            ..closed(8)
        };
        cases.insert(format!("deferred/{name}"), timed_run(&c, p, None));
    }
    // Open loop at generated arrival times (bursty and steady profiles), idle-time GC.
    for (profile, mode) in [
        ("mongodb", GcMode::Idle),
        ("mysql", GcMode::Foreground),
        ("mysql", GcMode::Background),
    ] {
        let l = c.layout().unwrap();
        let mut wl = NocSynthetic::new(
            NocProfile::by_name("profile", profile).unwrap(),
            Arrival {
                rate_iops: 400.0,
                ..Arrival::default()
            },
            l.logical_pages,
            l.lpn_size,
            30_000,
            5,
        )
        .unwrap();
        let p = TimingParams {
            gc_mode: mode,
            host: Host::OpenLoop { time_scale: 0.5 },
            checkpoint_bytes: 16 << 20,
            ..TimingParams::default()
        };
        cases.insert(
            format!("open/{profile}/{mode:?}"),
            timed_run(&c, p, Some(&mut wl)),
        );
    }
    // fio jobs: random mix with a series, and sequential jobs.
    for (name, job) in [
        (
            "fio/randrw50/zipf",
            FioJob {
                rw: Rw::RandRw,
                rwmixwrite: 50.0,
                bs: 4096,
                numjobs: 4,
                iodepth: 2,
                dist: Dist::Zipf(0.8),
                seed: 9,
                ..FioJob::default()
            },
        ),
        (
            "fio/write/bs16k",
            FioJob {
                rw: Rw::Write,
                bs: 16384,
                numjobs: 2,
                iodepth: 4,
                seed: 9,
                ..FioJob::default()
            },
        ),
    ] {
        let l = c.layout().unwrap();
        let mut wl = job.workload(l.logical_pages, l.lpn_size).unwrap();
        let p = TimingParams {
            host: Host::ClosedLoop {
                queue_depth: job.queue_depth(),
            },
            data_volume_bytes: Some(2 * l.logical_bytes()),
            checkpoint_bytes: l.logical_bytes() / 2,
            ..TimingParams::default()
        };
        cases.insert(name.to_string(), timed_run(&c, p, Some(&mut wl)));
    }
    // The flash model's memory grew by 2 bytes per segment when queued erases became a
    // per-segment count (main dc407ad); every other figure is unchanged.
    golden::check_skipping("timed.json", cases, ADDED, &|_, path| {
        path == ".timing.memory_bytes_per_lpn"
    });
}

use common::configs::noc_small as noc_cfg;

fn noc_run(
    c: &Config,
    path: GcPath,
    tweak: impl Fn(&mut NocParams),
    wl: &mut dyn Workload,
    max: Option<u64>,
    rate: Option<f64>,
) -> Value {
    let mut p = NocParams::from_config(c, path);
    // One-second windows keep the golden small.
    p.window_ns = 1_000_000_000;
    tweak(&mut p);
    let tp = TimingParams {
        gc_mode: GcMode::PerDie,
        host: match rate {
            Some(iops) => Host::Rate { iops },
            None => Host::OpenLoop { time_scale: 1.0 },
        },
        max_requests: max,
        noc: Some(p),
        ..TimingParams::default()
    };
    let r = NocSim::new_noc(c, tp).and_then(|mut s| s.run(wl, &mut |_| {}));
    match r {
        Ok(r) => noc_legacy(&r),
        Err(e) => Value::String(format!("error: {e}")),
    }
}

/// The NoC model's figures in the shape of the retired `NocReport`: its latencies are now
/// the record's `timing` section (with every percentile), WAF and workload the record's
/// own fields, the rest the `noc` section.
fn noc_legacy(r: &RunResult) -> Value {
    let t = r.timing.as_ref().expect("timed");
    let n = serde_json::to_value(r.noc.as_ref().expect("noc section")).unwrap();
    let lat = |l: &flashgc_core::metrics::latency::LatencySummary| serde_json::json!({"count": l.count, "mean_us": l.mean_us, "max_us": l.max_us});
    let mut v = serde_json::json!({
        "workload": r.workload,
        "requests": t.requests,
        "read": lat(&t.read_latency),
        "write": lat(&t.write_latency),
        "waf": r.total.waf,
    });
    for k in [
        "path",
        "params",
        "traversal_us",
        "copybacks",
        "error_pages",
        "tasks",
        "relocation_elapsed_us",
        "relocation_service_us",
        "erases",
        "simulated_s",
        "window_ms",
        "series",
        "model_bytes_per_logical_page",
        "notes",
    ] {
        v[k] = n[k].clone();
    }
    v
}

fn profile_wl(c: &Config, profile: &str, rate: f64, n: u64) -> NocSynthetic {
    let l = c.layout().unwrap();
    NocSynthetic::new(
        NocProfile::by_name("profile", profile).unwrap(),
        Arrival {
            rate_iops: rate,
            ..Arrival::default()
        },
        l.logical_pages,
        l.lpn_size,
        n,
        7,
    )
    .unwrap()
}

#[test]
fn noc_runs() {
    let mut cases = BTreeMap::new();
    for path in [GcPath::Conventional, GcPath::Selective] {
        let pn = path.name();
        for (profile, op, rate) in [
            ("mysql", 0.07, 200.0),
            ("mongodb", 0.07, 200.0),
            ("cassandra", 0.15, 50.0),
            ("rocksdb", 0.1, 100.0),
        ] {
            let c = noc_cfg(op);
            let mut wl = profile_wl(&c, profile, rate, 20_000);
            cases.insert(
                format!("{profile}/op{op}/{pn}"),
                noc_run(&c, path, |_| {}, &mut wl, None, None),
            );
        }
        // Every interconnect model, errors and ECC time.
        for ic in [Interconnect::Shared, Interconnect::Duplex] {
            let c = noc_cfg(0.07);
            let mut wl = profile_wl(&c, "sqlite", 150.0, 15_000);
            cases.insert(
                format!("sqlite/{ic:?}/{pn}"),
                noc_run(&c, path, |p| p.interconnect = ic, &mut wl, None, None),
            );
        }
        let c = noc_cfg(0.07);
        let mut wl = profile_wl(&c, "dbench", 200.0, 20_000);
        cases.insert(
            format!("dbench/err0.01/ecc/{pn}"),
            noc_run(
                &c,
                path,
                |p| {
                    p.error_prob = 0.01;
                    p.ecc_check_ns = 3_000;
                    p.ecc_correct_ns = 40_000;
                },
                &mut wl,
                None,
                None,
            ),
        );
        // A synthetic untimed workload at a fixed rate, capped.
        let mut c = noc_cfg(0.07);
        c.run.workload = "uniform".into();
        c.run.request_pages = 2;
        c.run.read_ratio = 0.2;
        let mut sim = Simulation::new(&c).unwrap();
        sim.precondition().unwrap();
        let mut wl = sim.synthetic_workload().unwrap();
        cases.insert(
            format!("uniform/rate300/{pn}"),
            noc_run(&c, path, |_| {}, &mut wl, Some(30_000), Some(300.0)),
        );
    }
    golden::check("noc.json", cases, ADDED);
}
