//! The random configurations: devices, FTL options, schemes and workloads, and the timing
//! options of timed runs, each drawn valid (documented refusals are steered around).

use flashgc_core::config::{GcTrigger, MappingCacheConfig, Watermark};
use flashgc_core::device::cpu::CpuParams;
use flashgc_core::device::noc::{GcPath, NocParams};
use flashgc_core::device::policy::{ChannelArb, ControllerParams, Scheduler, Suspend};
use flashgc_core::timing::{Alloc, CachePolicy, GcMode, Host, TimingParams};
use flashgc_core::{placement, victim, Config, Simulation};
use proptest::prelude::*;

/// The workloads drawn (synthetic: the checks replay them).
const WORKLOADS: &[&str] = &["uniform", "zipf:0.9", "hotcold:80/20", "seq"];
/// GC actions: the plain path and the content mode's three schemes.
const ACTIONS: &[&str] = &["move", "move", "splitgc", "cagc", "dagc"];

/// Placements with the parameters a device of a few hundred segments needs: MiDAS's epochs
/// and checks are a share of the capacity (as in tests/checkpoint.rs), the rest default.
pub(crate) fn placement_spec(name: &str) -> String {
    match name {
        "midas" => "midas:epoch=0.5,check=0.25".into(),
        n => n.into(),
    }
}

/// One random configuration: the device and FTL, the workload, and optionally timing.
#[derive(Clone)]
pub(crate) struct Case {
    pub(crate) cfg: Config,
    /// Where the interrupted run stops, as a share of its requests.
    pub(crate) stop: f64,
    pub(crate) timing: Option<TimingParams>,
}

/// The drawn fields in one line each (a failure prints the case, and shrinking prints many).
impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (d, t, r) = (&self.cfg.device, &self.cfg.ftl, &self.cfg.run);
        writeln!(
            f,
            "device {}x{}x{} planes, {} pages/block of {} B, segment_blocks {}; op {:?}, gc {:?}..{:?}, \
             trigger {:?}, mapping cache {:?}",
            d.channels, d.chips_per_channel, d.planes_per_die, d.pages_per_block, d.page_size,
            d.segment_blocks, t.op, t.gc_low, t.gc_high, t.gc_trigger, t.mapping_cache.as_ref().map(|m| m.bytes)
        )?;
        writeln!(
            f,
            "run {} / {} / {}, {}, read_ratio {}, request_pages {}, fill {}, seed {}, volume {}; stop at {:.3}",
            r.placement, r.victim, r.gc_action, r.workload, r.read_ratio, r.request_pages, r.fill, r.seed,
            r.write_volume, self.stop
        )?;
        match &self.timing {
            Some(p) => write!(
                f,
                "timing {:?}, {:?}, {:?}, cache {} {:?}, alloc {:?}, multiplane {}, copyback {:?}, cpu {}, noc {:?}",
                p.gc_mode, p.host, p.controller, p.cache_pages, p.cache_policy, p.alloc, p.multiplane,
                p.copyback, p.cpu.is_some(), p.noc.as_ref().map(|n| n.path)
            ),
            None => write!(f, "WAF-only"),
        }
    }
}

pub(crate) fn device_and_run() -> impl Strategy<Value = (Config, f64)> {
    (
        (
            1u32..=2,
            1u32..=2,
            1u32..=2,
            prop_oneof![Just(8u32), Just(16)],
            1u32..=2,
            1u32..=2,
        ),
        (
            prop_oneof![Just(0.12f64), Just(0.2), Just(0.35)],
            2u32..=4,
            0u32..=2,
            any::<bool>(),
        ),
        (
            0..placement::names().len(),
            0..victim::names().len(),
            0..ACTIONS.len(),
        ),
        (
            0..WORKLOADS.len(),
            prop_oneof![Just(0.0f64), Just(0.3)],
            1u32..=2,
        ),
        (
            prop_oneof![Just(1.0f64), Just(0.6)],
            1u64..1000,
            any::<bool>(),
            0.05f64..0.95,
        ),
    )
        .prop_map(|(dev, ftl, schemes, wl, run)| {
            let (channels, chips, planes, ppb, units, seg_blocks) = dev;
            let (op, gc_low, gc_gap, garbage) = ftl;
            let (p, v, a) = schemes;
            let (w, read_ratio, request_pages) = wl;
            let (fill, seed, mapping_cache, stop) = run;
            let mut c = Config::default_preset();
            c.device.channels = channels;
            c.device.chips_per_channel = chips;
            c.device.dies_per_chip = 1;
            c.device.planes_per_die = planes;
            c.device.pages_per_block = ppb;
            c.device.page_size = 4096 * units;
            // A superblock stripes over at most all the planes.
            c.device.segment_blocks = seg_blocks.min(channels * chips * planes);
            // 16 MiB logical: 4096 pages in 64-512 segments of 8-64 pages.
            c.ftl.logical_gib = Some(1.0 / 64.0);
            c.ftl.op = Some(op);
            c.ftl.gc_low = Watermark::Segments(gc_low);
            c.ftl.gc_high = Some(Watermark::Segments(gc_low + gc_gap));
            if garbage {
                c.ftl.gc_trigger = GcTrigger::Garbage(0.15);
            }
            // The mapping cache is refused in the content mode (docs/mapping-cache.md).
            if mapping_cache && ACTIONS[a] == "move" {
                // Two of the table's four translation pages: misses and write-backs.
                c.ftl.mapping_cache = Some(MappingCacheConfig {
                    bytes: 2 * 4096,
                    ..MappingCacheConfig::default()
                });
            }
            c.run.placement = placement_spec(placement::names()[p]);
            c.run.victim = victim::names()[v].into();
            c.run.gc_action = ACTIONS[a].into();
            c.run.workload = WORKLOADS[w].into();
            c.run.read_ratio = read_ratio;
            c.run.request_pages = request_pages;
            c.run.fill = fill;
            c.run.seed = seed;
            c.run.write_volume = 3.0;
            c.run.warmup = Some(1.5);
            c.run.window_gib = Some(1.0 / 256.0);
            c.run.max_memory_gib = None;
            fit_op(&mut c);
            (c, stop)
        })
}

/// Raises the over-provisioning until the device holds the placement's open streams, the
/// GC reserve and the mapping cache's table (a device that cannot is refused, naming
/// `ftl.op` or telling to raise it: docs/core.md, docs/mapping-cache.md); any other refusal
/// is a failure of the test's generator.
pub(crate) fn fit_op(c: &mut Config) {
    let drawn = c.ftl.op.unwrap();
    for op in [drawn, 0.35, 0.6, 1.0] {
        if op < drawn {
            continue;
        }
        c.ftl.op = Some(op);
        match Simulation::new(c) {
            Ok(_) => return,
            // Refusals naming `ftl.op`, or the mapping cache's table with "raise op".
            Err(e) if e.to_string().contains("`ftl.op`") || e.to_string().contains("raise op") => {}
            Err(e) => panic!("the generator drew a configuration that is refused: {e}"),
        }
    }
    panic!(
        "no op up to 1.0 fits {} / {}",
        c.run.placement, c.run.victim
    );
}

pub(crate) fn timing() -> impl Strategy<Value = TimingParams> {
    let gc_mode = prop_oneof![
        Just(GcMode::Foreground),
        Just(GcMode::PerDie),
        Just(GcMode::Preemptible),
        Just(GcMode::Background),
        Just(GcMode::Idle),
    ];
    let scheduler = prop_oneof![
        Just(Scheduler::Fcfs),
        Just(Scheduler::Fcfs),
        Just(Scheduler::ReadFirst),
        (1u32..6).prop_map(|urgency| Scheduler::HostFirst { urgency }),
        Just(Scheduler::NocPriority),
    ];
    let host = prop_oneof![
        (1u32..=16).prop_map(|queue_depth| Host::ClosedLoop { queue_depth }),
        prop_oneof![Just(300.0f64), Just(3000.0), Just(30000.0)]
            .prop_map(|iops| Host::Rate { iops }),
    ];
    let cache = prop_oneof![
        3 => Just((0u64, CachePolicy::Lru)),
        1 => Just((64, CachePolicy::Lru)),
        1 => Just((64, CachePolicy::Gcar)),
        1 => Just((200, CachePolicy::GcarOpt)),
    ];
    let alloc = prop_oneof![
        Just(Alloc::Static),
        Just(Alloc::FirstIdle),
        Just(Alloc::RoundRobin)
    ];
    (
        (gc_mode, scheduler, host, cache, alloc),
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        (0u32..4, 1u32..=4),
    )
        .prop_map(
            |((gc_mode, scheduler, host, cache, alloc), flags, (noc, max_suspends))| {
                let (suspend, backfill, multiplane, copyback, cpu) = flags;
                TimingParams {
                    gc_mode,
                    alloc,
                    multiplane,
                    copyback: Some(copyback),
                    cache_pages: cache.0,
                    cache_policy: cache.1,
                    host,
                    gc_pace: 4,
                    controller: ControllerParams {
                        scheduler,
                        suspend: suspend.then_some(Suspend {
                            suspend_ns: 20_000,
                            resume_ns: 20_000,
                            max_per_op: max_suspends,
                        }),
                        channel: if backfill {
                            ChannelArb::Backfill
                        } else {
                            ChannelArb::Fifo
                        },
                        ..ControllerParams::default()
                    },
                    cpu: cpu.then(CpuParams::default),
                    // One case in four on the NoC model (its path chosen from the device below).
                    noc: (noc == 0).then(|| {
                        NocParams::from_config(&Config::default_preset(), GcPath::Selective)
                    }),
                    ..TimingParams::default()
                }
            },
        )
}

pub(crate) fn case(timed: bool) -> impl Strategy<Value = Case> {
    (device_and_run(), timing(), any::<bool>()).prop_map(move |((mut cfg, stop), mut p, sel)| {
        if !timed {
            return Case {
                cfg,
                stop,
                timing: None,
            };
        }
        if p.noc.is_some() {
            let path = if sel {
                GcPath::Selective
            } else {
                GcPath::Conventional
            };
            p.noc = Some(NocParams::from_config(&cfg, path));
            // The NoC model has its own interconnect, copy-back path and page mapping: the
            // flash device's options are refused with it (driver::flash_only_options).
            p.controller.channel = ChannelArb::Fifo;
            p.controller.suspend = None;
            p.alloc = Alloc::Static;
            p.multiplane = true;
            p.copyback = None;
        }
        // The oracle's future is the workload's write order, which a write cache changes
        // (refused: docs/timing.md, "Other rules").
        if cfg.run.placement == "oracle" {
            p.cache_pages = 0;
        }
        // A timed run writes less: its cost per request is higher.
        cfg.run.write_volume = 2.0;
        cfg.run.warmup = Some(1.0);
        Case {
            cfg,
            stop,
            timing: Some(p),
        }
    })
}
