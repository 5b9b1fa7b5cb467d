//! Timed runs checkpoint and resume (split from `tests/checkpoint.rs`): the device's
//! reservations and queued GC work, the write cache, the closed-loop slots, latency
//! histograms and series come back, so a resumed run ends with the uninterrupted run's JSON.

mod common;

use common::ckpt::{json, same, small, synthetic, tmp};
use flashgc_core::checkpoint::CheckpointReader;
use flashgc_core::sim::{RunControl, RunEnd};
use flashgc_core::Simulation;

/// Timed runs checkpoint and resume too: the device's reservations and queued GC work,
/// the write cache, the closed-loop slots, latency histograms and series are restored, so
/// a run stopped and resumed from its checkpoint file alone ends with the uninterrupted
/// run's JSON byte for byte (flash with a cache and queued GC, and the NoC model).
#[test]
fn timed_runs_resume_byte_for_byte() {
    use flashgc_core::device::noc::{GcPath, NocParams};
    use flashgc_core::driver::Engine;
    use flashgc_core::timing::{CachePolicy, GcMode, Host, TimingParams};
    let mut c = small("zipf:0.9", "sup-gc", "greedy");
    c.run.request_pages = 2;
    c.run.read_ratio = 0.3;
    c.run.write_volume = 2.0;
    let flash = TimingParams {
        gc_mode: GcMode::Preemptible,
        gc_pace: 2,
        cache_pages: 256,
        cache_policy: CachePolicy::Gcar,
        checkpoint_bytes: 8 << 20,
        host: Host::ClosedLoop { queue_depth: 8 },
        ..TimingParams::default()
    };
    let noc = TimingParams {
        gc_mode: GcMode::PerDie,
        host: Host::Rate { iops: 400.0 },
        max_requests: Some(40_000),
        noc: Some(NocParams::from_config(&c, GcPath::Selective)),
        ..TimingParams::default()
    };
    // The firmware CPU's state (core clocks, component times) resumes too.
    let cpu = TimingParams {
        cpu: Some(flashgc_core::device::cpu::CpuParams {
            cores: 2,
            ns: flashgc_core::device::cpu::CostOverrides::parse("cpu_ns", "classifier=3000")
                .unwrap(),
            ..Default::default()
        }),
        ..flash.clone()
    };
    // Deferred commit (a priority scheduler, suspend): requests in flight, the resources'
    // queues and what each die runs resume too.
    use flashgc_core::device::policy::{ControllerParams, Scheduler, Suspend};
    let read_first = TimingParams {
        gc_mode: GcMode::Foreground,
        cache_pages: 0,
        controller: ControllerParams {
            scheduler: Scheduler::ReadFirst,
            suspend: Some(Suspend {
                suspend_ns: 20_000,
                resume_ns: 20_000,
                max_per_op: 2,
            }),
            ..ControllerParams::default()
        },
        ..flash.clone()
    };
    let host_first = TimingParams {
        host: Host::Rate { iops: 3000.0 },
        max_requests: Some(30_000),
        controller: ControllerParams {
            scheduler: Scheduler::HostFirst { urgency: 8 },
            ..ControllerParams::default()
        },
        ..flash.clone()
    };
    let noc_priority = TimingParams {
        controller: ControllerParams {
            scheduler: Scheduler::NocPriority,
            ..ControllerParams::default()
        },
        ..noc.clone()
    };
    // Dynamic allocation: the per-page unit table and round-robin's cursor resume too.
    use flashgc_core::device::flash::Alloc;
    let first_idle = TimingParams {
        alloc: Alloc::FirstIdle,
        ..flash.clone()
    };
    let round_robin = TimingParams {
        alloc: Alloc::RoundRobin,
        ..flash.clone()
    };
    // Back-fill channels: the booked transfers resume too.
    let backfill = TimingParams {
        controller: ControllerParams {
            channel: flashgc_core::device::policy::ChannelArb::Backfill,
            ..ControllerParams::default()
        },
        ..flash.clone()
    };
    // Host and GC writes sharing flash pages of two units (`single`): the counts of host
    // writes that waited for GC's earlier unit resume too.
    let mut shared = small("zipf:0.9", "single", "greedy");
    shared.device.page_size = 8192;
    shared.run.request_pages = 2;
    shared.run.read_ratio = 0.3;
    shared.run.write_volume = 2.0;
    for (name, p, stops) in [
        ("flash-backfill", backfill, vec![2_999u64, 20_000]),
        ("flash-first-idle", first_idle, vec![3_000u64, 20_000]),
        ("flash-round-robin", round_robin, vec![3_001u64, 20_000]),
        ("flash-shared-pages", flash.clone(), vec![3_000u64, 20_000]),
        ("flash", flash, vec![3_000u64, 3_001, 20_000]),
        ("flash-cpu", cpu, vec![3_000u64, 20_000]),
        ("noc", noc, vec![5_000, 17_000]),
        (
            "flash-read-first-suspend",
            read_first,
            vec![2_500, 2_501, 15_000],
        ),
        ("flash-host-first-rate", host_first, vec![4_000, 21_000]),
        ("noc-priority", noc_priority, vec![5_000, 17_000]),
    ] {
        let c = match name {
            "flash-shared-pages" => &shared,
            _ => &c,
        };
        let file = tmp(&format!("timed-{name}.ckpt"));
        let want = {
            let mut e = Engine::new(c, Some(p.clone())).unwrap();
            match e
                .run_with(
                    synthetic(c).as_mut(),
                    &mut |_| {},
                    &mut RunControl::default(),
                )
                .unwrap()
            {
                RunEnd::Finished(r) => json(&r),
                RunEnd::Stopped { .. } => unreachable!("no stop requested"),
            }
        };
        assert!(want.contains("\"timing\""), "{name}: a timed result");
        if name.contains("suspend") {
            let v: serde_json::Value = serde_json::from_str(&want).unwrap();
            assert!(
                v["timing"]["suspensions"].as_u64().unwrap() > 0,
                "{name}: suspends"
            );
        }
        if name == "flash-shared-pages" {
            let v: serde_json::Value = serde_json::from_str(&want).unwrap();
            assert!(
                v["timing"]["gc_page_waits"].as_u64().unwrap_or(0) > 0,
                "{name}: host writes wait for GC's earlier units"
            );
        }
        let mut e = Engine::new(c, Some(p.clone())).unwrap();
        let mut stops = stops.into_iter();
        let mut next = stops.next();
        let got = loop {
            let mut ctl = RunControl {
                checkpoint: Some(file.clone()),
                stop_after_requests: next,
                ..RunControl::default()
            };
            match e
                .run_with(synthetic(c).as_mut(), &mut |_| {}, &mut ctl)
                .unwrap()
            {
                RunEnd::Finished(r) => break json(&r),
                RunEnd::Stopped { checkpoint, .. } => {
                    assert!(checkpoint.is_some());
                    drop(e);
                    let r = CheckpointReader::open(&file).unwrap();
                    assert_eq!(r.meta.timing.as_ref(), Some(&p));
                    e = Engine::from_checkpoint(r).unwrap();
                    next = stops.next();
                }
            }
        };
        same(&want, &got, name);
        // A WAF-only resume of a timed checkpoint is refused with a clear message.
        match Simulation::from_checkpoint(CheckpointReader::open(&file).unwrap()) {
            Ok(_) => panic!("{name}: a timed checkpoint resumed WAF-only"),
            Err(e) => assert!(e.to_string().contains("timed run"), "{e}"),
        }
    }
}
