//! The schedule audit on random small configurations: every reservation the timed flash
//! engine makes, under every scheduler, with and without suspend, checked against the
//! rules of `check` (docs/controller.md, "Schedule audit").

use super::{check, Rules};
use crate::config::{MappingCacheConfig, TimingConfig};
use crate::device::policy::{ChannelArb, ControllerParams, Scheduler, Suspend};
use crate::driver::TimedSim;
use crate::timing::{GcMode, Host, TimingParams};
use crate::workload::Workload;
use crate::Config;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::RngSeed;

/// One random configuration.
#[derive(Debug, Clone)]
struct Case {
    /// channels, chips per channel, dies per chip, planes per die.
    shape: (u32, u32, u32, u32),
    blocks: u32,
    pages: u32,
    /// Mapping units per flash page (4 KiB each).
    upp: u32,
    /// Segments of every unit (superblocks) instead of one block.
    wide: bool,
    op: f64,
    sram: bool,
    copyback: bool,
    scheduler: Scheduler,
    suspend: Option<(u64, u64, u32)>,
    backfill: bool,
    multiplane: bool,
    alloc: crate::device::flash::Alloc,
    gc_mode: GcMode,
    placement: &'static str,
    victim: &'static str,
    map_cache: bool,
    cache_pages: u64,
    read_ratio: f64,
    /// Closed loop of this depth, or open loop at this many requests per second.
    host: Result<u32, f64>,
    /// Two host flows instead of one stream.
    flows: bool,
    requests: u64,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    use crate::device::flash::Alloc;
    let device = (
        (1u32..=2, 1u32..=2, 1u32..=2, 1u32..=2),
        16u32..=32,
        prop::sample::select(vec![4u32, 8]),
        1u32..=2,
        any::<bool>(),
        0.2f64..0.4,
        any::<bool>(),
        any::<bool>(),
    );
    let controller = (
        prop::sample::select(vec![
            Scheduler::Fcfs,
            Scheduler::ReadFirst,
            Scheduler::HostFirst { urgency: 2 },
            Scheduler::NocPriority,
        ]),
        prop::option::of((0u64..=30, 0u64..=30, 1u32..=4)),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(vec![Alloc::Static, Alloc::FirstIdle, Alloc::RoundRobin]),
        prop::sample::select(vec![
            GcMode::Foreground,
            GcMode::PerDie,
            GcMode::Preemptible,
            GcMode::Background,
            GcMode::Idle,
        ]),
    );
    let host = (
        prop::sample::select(vec!["single", "sup-gc"]),
        prop::sample::select(vec!["greedy", "fifo", "cost-benefit", "d-choices"]),
        any::<bool>(),
        prop::sample::select(vec![0u64, 16]),
        prop::sample::select(vec![0.0, 0.3, 0.7]),
        prop_oneof![(1u32..=8).prop_map(Ok), (500.0f64..4000.0).prop_map(Err)],
        any::<bool>(),
        400u64..1500,
        any::<u64>(),
    );
    (device, controller, host).prop_map(|(d, c, h)| Case {
        alloc: c.4,
        shape: d.0,
        blocks: d.1,
        pages: d.2,
        upp: d.3,
        wide: d.4,
        op: d.5,
        sram: d.6,
        copyback: d.7,
        scheduler: c.0,
        suspend: c.1,
        backfill: c.2,
        multiplane: c.3,
        gc_mode: c.5,
        placement: h.0,
        victim: h.1,
        map_cache: h.2,
        cache_pages: h.3,
        read_ratio: h.4,
        host: h.5,
        flows: h.6,
        requests: h.7,
        seed: h.8,
    })
}

/// Two flows of the run's requests: a mixed reader and a writer.
fn flows_toml(requests: u64, read_ratio: f64) -> String {
    let write = (100.0 * (1.0 - read_ratio)).round() as u32;
    format!(
        "[[flow]]\nname = \"mixed\"\nrw = \"randrw\"\nrwmixwrite = {write}\niodepth = 3\nrequests = {}\n\
         [[flow]]\nname = \"writer\"\nrw = \"randwrite\"\niodepth = 1\nrequests = {}\n",
        requests / 2,
        requests / 2
    )
}

fn config(k: &Case) -> Config {
    let flows = if k.flows {
        flows_toml(k.requests, k.read_ratio)
    } else {
        String::new()
    };
    let text = format!("[run]\nmax_memory_gib = 64.0\n{flows}");
    let mut c = Config::load(None, Some(("audit.toml", &text))).expect("config");
    let (ch, chips, dies, planes) = k.shape;
    let d = &mut c.device;
    d.channels = ch;
    d.chips_per_channel = chips;
    d.dies_per_chip = dies;
    d.planes_per_die = planes;
    d.blocks_per_plane = k.blocks;
    d.pages_per_block = k.pages;
    d.lpn_size = 4096;
    d.page_size = 4096 * k.upp;
    d.segment_blocks = if k.wide {
        ch * chips * dies * planes
    } else {
        1
    };
    d.timing = TimingConfig {
        read_us: 50.0,
        program_us: 500.0,
        erase_us: 3000.0,
        channel_mb_s: 409.6,
        sram_us: if k.sram { 3.0 } else { 0.0 },
        copyback: k.copyback,
    };
    c.ftl.op = Some(k.op);
    c.ftl.logical_gib = None;
    // Small translation pages: a few hundred bytes of cache miss often.
    c.ftl.mapping_cache = k.map_cache.then(|| MappingCacheConfig {
        bytes: 1024,
        translation_page_bytes: Some(256),
        ..MappingCacheConfig::default()
    });
    c.run.workload = "zipf:0.8".into();
    c.run.placement = k.placement.into();
    c.run.victim = k.victim.into();
    c.run.read_ratio = k.read_ratio;
    c.run.fill = 1.0;
    c.run.seed = k.seed;
    c.run.write_volume = 1000.0;
    c.run.warmup = None;
    c
}

fn params(k: &Case) -> TimingParams {
    let suspend = k.suspend.map(|(s, r, n)| Suspend {
        suspend_ns: s * 1000,
        resume_ns: r * 1000,
        max_per_op: n,
    });
    TimingParams {
        gc_mode: k.gc_mode,
        alloc: k.alloc,
        multiplane: k.multiplane,
        cache_pages: k.cache_pages,
        host: match k.host {
            Ok(queue_depth) => Host::ClosedLoop { queue_depth },
            Err(iops) => Host::Rate { iops },
        },
        max_requests: (!k.flows).then_some(k.requests),
        bg_free: None,
        controller: ControllerParams {
            scheduler: k.scheduler,
            suspend,
            channel: if k.backfill {
                ChannelArb::Backfill
            } else {
                ChannelArb::Fifo
            },
            ..ControllerParams::default()
        },
        ..TimingParams::default()
    }
}

/// Runs case `k` with the audit on; the violations found (None: a configuration the
/// engine refuses).
fn audit(k: &Case) -> Option<super::check::Outcome> {
    let c = config(k);
    let p = params(k);
    let mut ts = TimedSim::new(&c, p.clone()).ok()?;
    let costs = ts.device().media().costs;
    let pps = ts.simulation().layout().pages_per_segment;
    let mut wl: Box<dyn Workload> = if k.flows {
        let l = c.layout().expect("layout");
        Box::new(crate::workload::flows::from_config(&c, &l).ok()??)
    } else {
        Box::new(ts.simulation().synthetic_workload().ok()?)
    };
    super::start();
    let r = ts.run(wl.as_mut(), &mut |_| {});
    let log = super::take();
    // A configuration whose FTL runs out of space is not the device's concern.
    let r = r.ok()?;
    let t = r.timing.as_ref().expect("timed");
    let rules = Rules {
        costs,
        suspend: p.controller.suspend,
        reads_first: matches!(k.scheduler, Scheduler::ReadFirst | Scheduler::NocPriority),
        read_at_new_location: !matches!(k.gc_mode, GcMode::Foreground | GcMode::PerDie)
            || p.controller.deferred(),
        known_read_before_program: p.controller.deferred(),
        requests: t.read_latency.count + t.write_latency.count,
        dynamic_alloc: k.alloc.dynamic(),
        pages_per_segment: pps,
        units_per_page: (c.device.page_size / c.device.lpn_size).max(1),
    };
    assert!(!log.ops.is_empty(), "the run reserved nothing");

    Some(check(&log, &rules))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 160,
        rng_seed: RngSeed::Fixed(0x5ced_a0d1),
        failure_persistence: None,
        max_shrink_iters: 200,
        ..ProptestConfig::default()
    })]

    /// Every schedule of a random small configuration is physically valid.
    #[test]
    fn every_schedule_is_physically_valid(k in case()) {
        if let Some(o) = audit(&k) {
            // (Excused reads: counted, not asserted; they show how often each case occurs.)
            let _ = (o.known_defect, o.approximated);
            let v = o.violations;
            prop_assert!(v.is_empty(), "{} violations, first: {:#?}", v.len(), v);
        }
    }
}

/// The random configurations are mostly ones the engine runs (the audit checks something).
#[test]
fn most_configurations_run() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        rng_seed: RngSeed::Fixed(0x5ced_a0d1),
        ..ProptestConfig::default()
    });
    let (mut ran, mut total) = (0, 0);
    for _ in 0..24 {
        let k = case().new_tree(&mut runner).expect("a case").current();
        total += 1;
        ran += audit(&k).is_some() as u32;
    }
    assert!(ran * 2 > total, "{ran} of {total} configurations ran");
}
