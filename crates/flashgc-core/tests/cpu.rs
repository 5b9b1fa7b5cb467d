//! Firmware CPU (issue 15): controller cores as timed resources. A hand-computed schedule
//! where a write waits for the core busy with another request's classifier, the sup-gc
//! paper's 1 %-write point with the cost model on and off, and bad options.

mod common;

use flashgc_core::config::DeviceConfig;
use flashgc_core::device::cpu::{CostOverrides, CpuParams};
use flashgc_core::device::flash::Alloc;
use flashgc_core::driver::TimedSim;
use flashgc_core::timing::{CachePolicy, GcMode, Host, TimingOptions, TimingParams};
use flashgc_core::workload::fio::{FioJob, Rw};
use flashgc_core::workload::{Op, Request};
use flashgc_core::{Config, Error, RunResult};

const US: u64 = 1000;

/// 2 channels x 1 die x 1 plane, 2-page blocks of 4 KiB, superblock segments of 2 blocks;
/// read 50 us, program 500 us, erase 3 ms, 10 us per 4 KiB transfer (tests/timing.rs's
/// tiny device). Empty: no GC in these few writes. The classifier's cost is given
/// explicitly (`classifier=`), on the plain page-mapped FTL.
fn tiny() -> Config {
    let mut c = Config::default_preset();
    c.device = DeviceConfig {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 8,
        pages_per_block: 2,
        page_size: 4096,
        lpn_size: 4096,
        segment_blocks: 2,
        timing: common::configs::hand_timing(),
    };
    c.ftl.op = Some(1.0);
    c.ftl.logical_gib = None;
    c.run.fill = 0.0;
    c
}

fn write(lpn: u64, t_us: u64) -> Request {
    Request {
        time_ns: t_us * US,
        op: Op::Write,
        lpn,
        pages: 1,
        content: 0,
        fua: false,
    }
}

fn cpu(cores: u32, ns: &str) -> Option<CpuParams> {
    Some(CpuParams {
        cores,
        ns: CostOverrides::parse("cpu_ns", ns).unwrap(),
        ..CpuParams::default()
    })
}

/// Serves `reqs` through the streaming API; returns every completion time (us) and the
/// result.
fn serve(cpu: Option<CpuParams>, reqs: &[Request]) -> (Vec<u64>, RunResult) {
    let p = TimingParams {
        host: Host::OpenLoop { time_scale: 1.0 },
        cpu,
        ..TimingParams::default()
    };
    let mut ts = TimedSim::new(&tiny(), p).unwrap();
    ts.start().unwrap();
    let done = reqs
        .iter()
        .map(|r| ts.submit(r).unwrap().unwrap() / US)
        .collect();
    (done, ts.finish("hand").unwrap())
}

/// W1 writes LPN 0 at t=0, W2 writes LPN 1 at t=20 us; each classifier run costs 100 us on
/// the controller core; the pages go to flash pages 0 and 1 of the first segment, on
/// channels 0 and 1 (even / odd offsets), so the flash never makes them wait for each other.
///
/// * CPU off: W1 bus 0-10, program 10-510 => 510; W2 bus 20-30 (channel 1), program 30-530
///   => 530.
/// * 1 core: W1's classifier 0-100, bus 100-110, program 110-610 => 610. W2's classifier
///   waits for the core (busy with W1's until 100): 100-200, bus 200-210, program 210-710
///   => 710 (80 us of CPU queueing).
/// * 2 cores: W2's classifier runs on the second core at once: 20-120, bus 120-130,
///   program 130-630 => 630.
#[test]
fn write_waits_for_the_core_busy_with_another_requests_classifier() {
    let reqs = [write(0, 0), write(1, 20)];
    let (off, r) = serve(None, &reqs);
    assert_eq!(off, [510, 530]);
    assert!(r.timing.unwrap().cpu.is_none());

    let (one, r) = serve(cpu(1, "classifier=100000"), &reqs);
    assert_eq!(one, [610, 710]);
    let c = r.timing.as_ref().unwrap().cpu.clone().unwrap();
    assert_eq!(c.costs.classifier_ns, 100_000);
    assert_eq!(c.time_ns.classifier, 200_000);
    assert_eq!((c.host_ops, c.delayed_ops), (2, 1));
    // 80 us of queueing and 200 us of service over 2 requests.
    assert_eq!(c.queueing_us_per_request, 40.0);
    assert_eq!(c.service_us_per_request, 100.0);
    // Busy 200 us of the 710 us from the first arrival to the last completion.
    assert_eq!(c.utilization, vec![200.0 / 710.0]);
    assert_eq!(r.timing.as_ref().unwrap().write_latency.max_us, 690.0);

    let (two, r) = serve(cpu(2, "classifier=100000"), &reqs);
    assert_eq!(two, [610, 630]);
    let c = r.timing.unwrap().cpu.unwrap();
    assert_eq!(c.delayed_ops, 0);
    assert_eq!(c.utilization, vec![100.0 / 630.0, 100.0 / 630.0]);
}

/// A read has no classifier work: with the default costs (the flash controller's hardware
/// ECC) it goes to the flash at once while the core is busy; with firmware ECC
/// (`ecc_read`) its decode queues behind the write's classifier (charged before the flash
/// read, with the command: docs/cpu.md).
///
/// Set-up (untimed): LPN 5 at flash page 0 (channel 0). W writes LPN 0 at 0 (page 1,
/// channel 1): classifier 0-100, bus 100-110, program 110-610 => 610. R reads LPN 5 at 10:
/// no CPU work: cell 10-60, bus 60-70 => 70; with a 30 us decode: core busy until 100,
/// decode 100-130, cell 130-180, bus 180-190 => 190.
#[test]
fn reads_wait_for_the_core_only_when_they_have_cpu_work() {
    let run = |cpu: Option<CpuParams>| {
        let p = TimingParams {
            host: Host::OpenLoop { time_scale: 1.0 },
            cpu,
            ..TimingParams::default()
        };
        let mut ts = TimedSim::new(&tiny(), p).unwrap();
        ts.simulation_mut().ftl_mut().write(5).unwrap();
        ts.start_clock();
        let w = ts.serve(&write(0, 0), 0).unwrap() / US;
        let r = Request {
            op: Op::Read,
            lpn: 5,
            ..write(5, 10)
        };
        let r = ts.serve(&r, 10 * US).unwrap() / US;
        (w, r)
    };
    assert_eq!(run(None), (510, 70));
    assert_eq!(run(cpu(1, "classifier=100000")), (610, 70));
    assert_eq!(run(cpu(1, "classifier=100000,ecc_read=30000")), (610, 190));
}

/// Scaled-down Cosmos+ OpenSSD of tests/timing.rs (real 128-page blocks of 16 KiB, 32 dies).
/// The scaled-down Cosmos+ laid out as its GreedyFTL lays out data: 8 channels x 4 ways
/// (32 dies), 16 KiB mapping units (Cosmos+'s slices), superblocks over every die and
/// round-robin die allocation (`FindDieForFreeSliceAllocation`: each new slice goes to
/// the next die, whatever its stream); docs/cpu.md.
fn cosmos(placement: &str) -> Config {
    let mut c = Config::load(Some("cosmos-openssd"), None).unwrap();
    c.device.chips_per_channel = 4;
    c.device.blocks_per_plane = 128;
    c.device.lpn_size = 16384;
    c.device.segment_blocks = 32;
    c.run.placement = placement.into();
    c.run.victim = "greedy".into();
    c.run.fill = 1.0;
    c
}

/// fio randrw 16 KiB at 1 % writes, 10 requests outstanding, 0.25 GB of host data.
fn one_percent(placement: &str, cache: Option<CachePolicy>, cpu: Option<CpuParams>) -> RunResult {
    let c = cosmos(placement);
    let l = c.layout().unwrap();
    let job = FioJob {
        rw: Rw::RandRw,
        rwmixwrite: 1.0,
        bs: 16384,
        block_sizes: None,
        numjobs: 1,
        iodepth: 10,
        seed: c.run.seed,
        ..FioJob::default()
    };
    let p = TimingParams {
        gc_mode: GcMode::Foreground,
        host: Host::ClosedLoop { queue_depth: 10 },
        data_volume_bytes: Some(250_000_000),
        cache_pages: if cache.is_some() { 64 } else { 0 },
        cache_policy: cache.unwrap_or(CachePolicy::Lru),
        alloc: Alloc::RoundRobin,
        cpu,
        ..TimingParams::default()
    };
    let mut ts = TimedSim::new(&c, p).unwrap();
    let mut wl = job.workload(l.logical_pages, l.lpn_size).unwrap();
    ts.run(&mut wl, &mut |_| {}).unwrap()
}

fn iops(r: &RunResult) -> f64 {
    r.timing.as_ref().unwrap().iops
}

/// papers/sup-gc.txt Fig. 14 (fio, 1 % writes: no GC; BF-Optimized about 5 % below the
/// Cosmos+ baseline "attributed to the hash computations performed by the Bloom filter
/// during each write", GCaR below too, SUP-GC equal to the baseline).
///
/// With the cost model on (default costs: calibrated classifiers x scale 4, one core),
/// every scheme with classifier work loses IOPS against its own cost-free run, more for
/// the costlier classifier (mbf 174 ns > bf-gc 110 ns per write), GCaR's scans cost IOPS
/// against LRU, and the schemes without CPU work (the Cosmos+ baseline `single`, SUP-GC)
/// are unchanged to the bit. With the cost model off every scheme equals the baseline
/// exactly, as the paper says: on Cosmos+'s layout (round-robin dies, 16 KiB slices) the
/// hot/cold streams do not change which die a write lands on. (With flashgc's default
/// static striping they do, and that layout effect is about 100 times the CPU's;
/// docs/cpu.md.) The size of the paper's gap is not reproduced: at 1 % writes the
/// calibrated classifiers cost about 1e-5 of the IOPS (docs/cpu.md: what a 5 % gap would
/// take).
///
/// One merged request stream with 10 outstanding requests stands for fio's 10 jobs x QD 1:
/// with per-job flows any change of timing reorders which job issues next, and that noise
/// (about 0.5 %) would hide the CPU's own effect.
#[test]
fn sup_gc_one_percent_writes_costlier_classifiers_lose_iops() {
    let on = Some(CpuParams::default());
    let base_off = one_percent("single", None, None);
    let base_on = one_percent("single", None, on.clone());
    assert_eq!(base_on.total, base_off.total);
    let (bt_on, bt_off) = (
        base_on.timing.as_ref().unwrap(),
        base_off.timing.as_ref().unwrap(),
    );
    assert_eq!(bt_on.iops, bt_off.iops, "no classifier, no GC: no CPU work");
    assert_eq!(bt_on.read_latency, bt_off.read_latency);
    assert_eq!(bt_on.write_latency, bt_off.write_latency);
    assert_eq!(
        base_off.total.gc_victims, 0,
        "the 1 % point runs without GC"
    );
    let c = bt_on.cpu.as_ref().unwrap();
    assert_eq!(c.time_ns.classifier, 0);
    let sup_on = one_percent("sup-gc", None, on.clone());
    assert_eq!(iops(&sup_on), iops(&base_off), "SUP-GC = the baseline");

    let mut loss = Vec::new();
    for p in ["bf-gc", "mbf"] {
        let off = one_percent(p, None, None);
        assert_eq!(iops(&off), iops(&base_off), "{p}: cost off = the baseline");
        let on = one_percent(p, None, on.clone());
        let t = on.timing.as_ref().unwrap();
        let cpu = t.cpu.as_ref().unwrap();
        assert!(cpu.costs.classifier_ns > 0, "{p}");
        assert_eq!(
            cpu.time_ns.classifier,
            cpu.costs.classifier_ns * t.write_requests,
            "{p}: one classifier run per user write"
        );
        let rel = iops(&on) / iops(&off) - 1.0;
        eprintln!(
            "{p}: IOPS off {:.2} on {:.2} ({:+.2e}); baseline {:.2} ({:+.3} % off, {:+.3} % on)",
            iops(&off),
            iops(&on),
            rel,
            iops(&base_off),
            100.0 * (iops(&off) / iops(&base_off) - 1.0),
            100.0 * (iops(&on) / iops(&base_on) - 1.0),
        );
        assert!(rel < 0.0, "{p}: the classifier costs IOPS");
        assert!(
            iops(&on) < iops(&base_on),
            "{p}: below the Cosmos+ baseline"
        );
        loss.push((cpu.costs.classifier_ns, -rel));
    }
    assert!(loss[0].0 < loss[1].0 && loss[0].1 < loss[1].1, "{loss:?}");

    // GCaR: a write cache of 64 slices (1 MiB), evictions scan from the LRU end.
    let lru_off = one_percent("single", Some(CachePolicy::Lru), None);
    let gcar_off = one_percent("single", Some(CachePolicy::Gcar), None);
    assert_eq!(
        iops(&gcar_off),
        iops(&lru_off),
        "nothing collecting: GCaR = LRU"
    );
    let lru_on = one_percent("single", Some(CachePolicy::Lru), on.clone());
    let gcar_on = one_percent("single", Some(CachePolicy::Gcar), on);
    assert_eq!(iops(&lru_on), iops(&lru_off));
    let t = gcar_on.timing.as_ref().unwrap();
    let evictions = t.cache.as_ref().unwrap().evictions;
    let cpu = t.cpu.as_ref().unwrap();
    assert!(evictions > 50, "{evictions}");
    assert_eq!(cpu.time_ns.cache_scan, evictions * cpu.costs.cache_scan_ns);
    assert!(iops(&gcar_on) < iops(&lru_on), "GCaR's scans cost IOPS");
}

/// Bad options: a clear error naming the field, from the one parser the CLI and Python
/// share.
#[test]
fn bad_cpu_options_name_the_field() {
    let c = tiny();
    let err = |json: &str| -> String {
        let o = TimingOptions::from_json(json).unwrap();
        let mut p = TimingParams::default();
        match o.apply(&c, &mut p, &|k| format!("timing.{k}")) {
            Err(e @ Error::Config { .. }) => e.to_string(),
            other => panic!("{json}: {other:?}"),
        }
    };
    let e = err(r#"{"cpu_cores": 0}"#);
    assert!(
        e.contains("timing.cpu_cores") && e.contains("1..=1024"),
        "{e}"
    );
    let e = err(r#"{"cpu_cores": -2}"#);
    assert!(e.contains("timing.cpu_cores"), "{e}");
    let e = err(r#"{"cpu_ns": "classifier=-5"}"#);
    assert!(
        e.contains("timing.cpu_ns.classifier") && e.contains("[0, 1e12]"),
        "{e}"
    );
    let e = err(r#"{"cpu_ns": "ecc_read=abc"}"#);
    assert!(e.contains("timing.cpu_ns.ecc_read"), "{e}");
    let e = err(r#"{"cpu_ns": "sha=5"}"#);
    assert!(
        e.contains("timing.cpu_ns") && e.contains("fingerprint_lookup"),
        "{e}"
    );
    let e = err(r#"{"cpu_scale": -1}"#);
    assert!(e.contains("timing.cpu_scale"), "{e}");
    let e = err(r#"{"cpu_cost": "sometimes"}"#);
    assert!(
        e.contains("timing.cpu_cost") && e.contains("on, off"),
        "{e}"
    );
    let e = err(r#"{"cpu_cost": "off", "cpu_cores": 2}"#);
    assert!(e.contains("timing.cpu_cost"), "{e}");
    // And the good forms.
    let mut p = TimingParams::default();
    TimingOptions::from_json(r#"{"cpu_cost": "on"}"#)
        .unwrap()
        .apply(&c, &mut p, &|k| k.to_string())
        .unwrap();
    assert_eq!(p.cpu, Some(CpuParams::default()));
    TimingOptions::from_json(r#"{"cpu_cores": 2, "cpu_ns": "victim=0"}"#)
        .unwrap()
        .apply(&c, &mut p, &|k| k.to_string())
        .unwrap();
    assert_eq!(p.cpu.as_ref().unwrap().cores, 2);
    TimingOptions::from_json(r#"{"cpu_cost": false}"#)
        .unwrap()
        .apply(&c, &mut p, &|k| k.to_string())
        .unwrap();
    assert_eq!(p.cpu, None);
}

/// MiDAS's MCAM/GCS search at each epoch's end is priced (evaluations x the calibrated
/// cost x scale) and runs in the background: with every other cost at 0 the run's timing
/// is the cost-free run's exactly (papers/midas.txt Sec. 6.4: "its impact on performance
/// is minimal as this is run in the background").
#[test]
fn midas_epoch_search_is_background_cpu_time() {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(0.25);
    c.run.workload = "zipf:0.9".into();
    c.run.placement = "midas".into();
    c.run.victim = "fifo".into();
    c.run.write_volume = 9.0;
    let run = |cpu: Option<CpuParams>| {
        let p = TimingParams {
            host: Host::ClosedLoop { queue_depth: 8 },
            cpu,
            ..TimingParams::default()
        };
        let mut ts = TimedSim::new(&c, p).unwrap();
        let mut wl = ts.simulation().synthetic_workload().unwrap();
        ts.run(&mut wl, &mut |_| {}).unwrap()
    };
    let off = run(None);
    let on = run(cpu(1, "classifier=0,victim=0"));
    let (a, b) = (off.timing.as_ref().unwrap(), on.timing.as_ref().unwrap());
    assert_eq!(on.total, off.total);
    assert_eq!((a.iops, &a.write_latency), (b.iops, &b.write_latency));
    let cpu = b.cpu.as_ref().unwrap();
    let per_eval = (557_000.0 * CpuParams::default().scale) as u64;
    let epoch = cpu.time_ns.placement_epoch;
    assert!(epoch >= 2 * per_eval, "{epoch}");
    assert_eq!(epoch % per_eval, 0, "{epoch}");
    assert_eq!(cpu.internal_ns, epoch);
    assert_eq!(cpu.delayed_ops, 0);
    assert!(cpu.utilization[0] > 0.0);
}

/// Each victim policy declares its selection's cost (`VictimPolicy::select_ns`, scaled):
/// one charge per GC victim; under foreground GC the pass waits for it.
#[test]
fn victim_selection_is_priced_per_victim_by_the_policy() {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(0.0625);
    c.device.pages_per_block = 64;
    c.run.write_volume = 3.0;
    let run = |victim: &str, cpu: Option<CpuParams>| {
        let mut c = c.clone();
        c.run.victim = victim.into();
        let p = TimingParams {
            host: Host::ClosedLoop { queue_depth: 4 },
            cpu,
            ..TimingParams::default()
        };
        let mut ts = TimedSim::new(&c, p).unwrap();
        let mut wl = ts.simulation().synthetic_workload().unwrap();
        ts.run(&mut wl, &mut |_| {}).unwrap()
    };
    let scale = CpuParams::default().scale;
    for (victim, host_ns) in [("greedy", 24.7), ("cost-benefit", 594.0)] {
        let r = run(victim, Some(CpuParams::default()));
        let cpu = r.timing.as_ref().unwrap().cpu.clone().unwrap();
        assert_eq!(
            cpu.costs.victim_ns,
            (host_ns * scale).round() as u64,
            "{victim}"
        );
        assert!(r.total.gc_victims > 10);
        // Victims of the precondition fill are untimed: charged are those of the timed phase.
        assert!(cpu.time_ns.victim_select > 0);
        assert_eq!(
            cpu.time_ns.victim_select % cpu.costs.victim_ns,
            0,
            "{victim}"
        );
        assert_eq!(cpu.internal_ns, cpu.time_ns.victim_select, "{victim}");
        // Only victim selection costs anything (the default placement has no classifier):
        // under foreground GC the pass starts after it, so writes wait longer.
        let off = run(victim, None);
        let (a, b) = (off.timing.unwrap(), r.timing.unwrap());
        assert_eq!(off.total, r.total);
        assert!(
            b.write_latency.mean_us > a.write_latency.mean_us,
            "{victim}"
        );
        assert!(b.iops < a.iops, "{victim}");
    }
}

/// tests/timing.rs's hand-computed GC schedule (`hand_computed_two_channel_schedule`) with a
/// 100 us victim selection under foreground GC: the GC pass is issued when the selection
/// ends (t = 100 instead of 0), so everything behind it shifts by 100 us.
///
/// Set-up (untimed): LPNs 0..16 fill segments 0-3; rewriting 0,1,4,5,8,9,12,13 fills 4 and
/// 5; segments 6 and 7 free. R0 reads LPN 0 at 0 (channel 0): 60, no CPU work. R1 writes
/// LPN 2 at 0 and triggers GC of segment 0 (one valid page, LPN 3): victim selection
/// 0-100; GC read 100-150 + bus 150-160 (ch1); GC program bus 160-170 (ch0), cell 170-670;
/// erase 670-3670 on both units; the write: bus 3670-3680, program 3680-4180 => 4180
/// (4080 without the CPU). R2 reads LPN 4 at 100 (ch0), behind the erase: cell
/// 3670-3720, bus 3720-3730 => 3730 (3630). R3 reads LPN 15 at 100 (ch1), behind the
/// erase and R1's program: cell 4180-4230, bus 4230-4240 => 4240 (4140).
#[test]
fn foreground_gc_waits_for_its_victim_selection() {
    let times = |cpu: Option<CpuParams>| {
        let p = TimingParams {
            gc_mode: GcMode::Foreground,
            host: Host::OpenLoop { time_scale: 1.0 },
            cpu,
            ..TimingParams::default()
        };
        let mut ts = TimedSim::new(&tiny(), p).unwrap();
        let ftl = ts.simulation_mut().ftl_mut();
        for lpn in (0..16).chain([0, 1, 4, 5, 8, 9, 12, 13]) {
            ftl.write(lpn).unwrap();
        }
        ts.start_clock();
        let r = |op, lpn, t| Request {
            op,
            ..write(lpn, t)
        };
        [
            r(Op::Read, 0, 0),
            r(Op::Write, 2, 0),
            r(Op::Read, 4, 100),
            r(Op::Read, 15, 100),
        ]
        .iter()
        .map(|q| ts.serve(q, q.time_ns).unwrap() / US)
        .collect::<Vec<_>>()
    };
    assert_eq!(times(None), [60, 4080, 3630, 4140]);
    assert_eq!(times(cpu(1, "victim=100000")), [60, 4180, 3730, 4240]);
}

/// Every placement that classifies writes declares what its classifier costs the firmware
/// (a scheme that forgets `classifier_ns` runs for free under `--cpu-cost on`, which made
/// BF-Optimized's Fig. 13-14 overhead vanish in `flashgc reproduce sup-gc`). Zero only for
/// the schemes without a classifier and for the oracle bound (docs/cpu.md's table).
#[test]
fn every_classifier_declares_its_cost() {
    use flashgc_core::placement::{self, PlacementInit};
    let init = PlacementInit {
        logical_pages: 1 << 14,
        segments: 256,
        pages_per_segment: 64,
        seed: 1,
    };
    let free = ["single", "sup-gc", "mida", "oracle"];
    for name in placement::names() {
        let p = placement::build("placement", name, init).unwrap();
        if free.contains(&name) {
            assert_eq!(p.classifier_ns(), 0.0, "{name} has no classifier");
        } else {
            assert!(
                p.classifier_ns() > 0.0,
                "{name} declares no classifier cost"
            );
        }
    }
}
