//! Several host flows in one run (docs/flows.md): separate, plausible statistics whose
//! totals equal the run's; Little's law per closed-loop flow; a rate flow's arrivals;
//! fio's numjobs as flows; determinism; checkpoint/resume byte for byte; bad input.

use flashgc_core::checkpoint::CheckpointReader;
use flashgc_core::driver::Engine;
use flashgc_core::sim::{RunControl, RunEnd};
use flashgc_core::timing::{Host, TimingParams};
use flashgc_core::workload::fio::{FioJob, Rw};
use flashgc_core::workload::flows::{self, FlowSet, FlowSpec};
use flashgc_core::workload::Workload;
use flashgc_core::{Config, RunResult, Simulation};

mod common;

/// 64 MiB logical, 32-page segments, op 0.15, with `flows` as TOML `[[flow]]` sections.
fn config(flows: &str) -> Config {
    let text = format!(
        "[device]\npages_per_block = 32\n[ftl]\nlogical_gib = 0.0625\nop = 0.15\n\
         [run]\nwrite_volume = 2.0\nwarmup = 1.0\nmax_memory_gib = 64.0\n{flows}"
    );
    Config::load(None, Some(("test.toml", &text))).unwrap()
}

fn flow_set(c: &Config) -> Box<dyn Workload> {
    let l = c.layout().unwrap();
    Box::new(flows::from_config(c, &l).unwrap().unwrap())
}

fn timed(c: &Config, p: &TimingParams) -> RunResult {
    let mut e = Engine::new(c, Some(p.clone())).unwrap();
    match e
        .run_with(
            flow_set(c).as_mut(),
            &mut |_| {},
            &mut RunControl::default(),
        )
        .unwrap()
    {
        RunEnd::Finished(r) => r,
        RunEnd::Stopped { .. } => unreachable!(),
    }
}

fn params() -> TimingParams {
    TimingParams {
        // Ignored with flows (each has its own arrival process).
        host: Host::ClosedLoop { queue_depth: 32 },
        data_volume_bytes: Some(96 << 20),
        ..TimingParams::default()
    }
}

const READ_HEAVY_WRITE_HEAVY: &str = r#"
[[flow]]
name = "reader"
rw = "randrw"
rwmixwrite = 10
iodepth = 8
size = "32m"

[[flow]]
name = "writer"
rw = "randwrite"
bs = "16k"
iodepth = 2
offset = "32m"
"#;

#[test]
fn two_flows_get_separate_statistics_that_add_up() {
    let c = config(READ_HEAVY_WRITE_HEAVY);
    check_reader_writer(&timed(&c, &params()));
}

/// The reader/writer flows' statistics add up to the run's, are plausible, and keep
/// Little's law per closed-loop flow.
fn check_reader_writer(r: &RunResult) {
    let t = r.timing.as_ref().unwrap();
    let f = r.flows.as_ref().unwrap();
    assert_eq!(f.len(), 2);
    let (rd, wr) = (&f[0], &f[1]);
    // Totals equal the aggregate.
    assert_eq!(rd.requests + wr.requests, t.requests);
    assert_eq!(rd.read_requests + wr.read_requests, t.read_requests);
    assert_eq!(rd.write_requests + wr.write_requests, t.write_requests);
    let rl = |x: &flashgc_core::metrics::result::FlowReport| {
        (
            x.read_latency.as_ref().unwrap().count,
            x.write_latency.as_ref().unwrap().count,
        )
    };
    assert_eq!(rl(rd).0 + rl(wr).0, t.read_latency.count);
    assert_eq!(rl(rd).1 + rl(wr).1, t.write_latency.count);
    assert!((rd.iops + wr.iops - t.iops).abs() <= 1e-9 * t.iops);
    assert!(
        (rd.bandwidth_mb_s + wr.bandwidth_mb_s - t.bandwidth_mb_s).abs() <= 1e-9 * t.bandwidth_mb_s
    );
    // Plausible: the reader reads ~90 %, the writer only writes 16 KiB blocks in its half.
    let share = rd.read_requests as f64 / rd.requests as f64;
    assert!((share - 0.9).abs() < 0.02, "{share}");
    assert_eq!(wr.read_requests, 0);
    assert_eq!(wr.bytes, wr.requests * 16384);
    assert_eq!((wr.offset_bytes, rd.size_bytes), (32 << 20, 32 << 20));
    // Little's law per closed-loop flow: queue depth = throughput x mean latency.
    for (x, qd) in [(rd, 8.0), (wr, 2.0)] {
        let mean_s = {
            let (r, w) = (
                x.read_latency.as_ref().unwrap(),
                x.write_latency.as_ref().unwrap(),
            );
            (r.mean_us * r.count as f64 + w.mean_us * w.count as f64)
                / (r.count + w.count) as f64
                / 1e6
        };
        let l = x.requests as f64 / (x.active_ns as f64 / 1e9) * mean_s;
        assert!((l - qd).abs() / qd < 0.05, "{}: L = {l}, QD {qd}", x.name);
    }
    // Deeper queue, more throughput: the reader has 4x the writer's depth.
    assert!(rd.iops > 2.0 * wr.iops, "{} vs {}", rd.iops, wr.iops);
}

/// Read-first with program/erase suspend (deferred commit): completions are decided
/// after arrival, yet every flow keeps its own statistics, Little's law per flow, and the
/// reader's reads get faster than under first come first served.
#[test]
fn flows_under_read_first_and_suspend() {
    use flashgc_core::device::policy::{ControllerParams, Scheduler, Suspend};
    let c = config(READ_HEAVY_WRITE_HEAVY);
    let fcfs = timed(&c, &params());
    let p = TimingParams {
        controller: ControllerParams {
            scheduler: Scheduler::ReadFirst,
            suspend: Some(Suspend {
                suspend_ns: 20_000,
                resume_ns: 20_000,
                max_per_op: 4,
            }),
            ..ControllerParams::default()
        },
        ..params()
    };
    let r = timed(&c, &p);
    check_reader_writer(&r);
    let t = r.timing.as_ref().unwrap();
    assert!(t.flash.as_ref().unwrap().suspensions.unwrap() > 0);
    let reads = |r: &RunResult| {
        r.flows.as_ref().unwrap()[0]
            .read_latency
            .as_ref()
            .unwrap()
            .mean_us
    };
    assert!(
        reads(&r) < 0.8 * reads(&fcfs),
        "reader's reads: read-first {} vs fcfs {}",
        reads(&r),
        reads(&fcfs)
    );
    // Deterministic.
    let json = |r: &RunResult| serde_json::to_string(r).unwrap();
    assert_eq!(json(&r), json(&timed(&c, &p)));
}

/// Stonewall groups under a priority scheduler: the second group starts only once every
/// request of the first has completed (its completions decided later).
#[test]
fn groups_wait_for_deferred_completions() {
    use flashgc_core::device::policy::{ControllerParams, Scheduler};
    let c = config("");
    let l = c.layout().unwrap();
    let job = |rw, iodepth| FioJob {
        rw,
        iodepth,
        ..FioJob::default()
    };
    let mut first = FlowSpec::from_fio("first", &job(Rw::RandWrite, 4), 0, l.logical_bytes());
    let mut second = FlowSpec::from_fio("second", &job(Rw::RandRead, 2), 0, l.logical_bytes());
    first[0].requests = Some(3000);
    second[0].requests = Some(2000);
    second[0].group = 1;
    let specs = vec![first.remove(0), second.remove(0)];
    let mut fs = FlowSet::new(specs, l.logical_pages, l.lpn_size).unwrap();
    let p = TimingParams {
        data_volume_bytes: None,
        controller: ControllerParams {
            scheduler: Scheduler::ReadFirst,
            ..ControllerParams::default()
        },
        ..params()
    };
    let mut e = Engine::new(&c, Some(p)).unwrap();
    let r = match e
        .run_with(&mut fs, &mut |_| {}, &mut RunControl::default())
        .unwrap()
    {
        RunEnd::Finished(r) => r,
        RunEnd::Stopped { .. } => unreachable!(),
    };
    let f = r.flows.as_ref().unwrap();
    assert_eq!((f[0].requests, f[1].requests), (3000, 2000));
    let first_end = f[0].start_ns + f[0].active_ns;
    assert!(first_end > f[0].start_ns);
    assert_eq!(
        f[1].start_ns, first_end,
        "the second group starts at the first's end"
    );
    // Each group's own rate (fio's per-job figure) is its requests over its own time;
    // the run-span rates add up to the run's and are lower for each of them.
    for x in f {
        let own = x.requests as f64 / (x.active_ns as f64 / 1e9);
        assert!(
            (x.active_iops - own).abs() < 1e-9 * own,
            "{} vs {own}",
            x.active_iops
        );
        assert!(x.active_iops > x.iops, "{} vs {}", x.active_iops, x.iops);
        assert!((x.active_bandwidth_mb_s / x.active_iops - x.bandwidth_mb_s / x.iops).abs() < 1e-9);
    }
    // One after the other: their own times fit in the run's.
    let t = r.timing.as_ref().unwrap();
    assert!(f[0].active_ns + f[1].active_ns <= t.simulated_ns);
    let total = t.iops;
    assert!((f[0].iops + f[1].iops - total).abs() < 1e-6 * total);
}

#[test]
fn a_rate_flow_arrives_at_its_rate_next_to_a_closed_loop_flow() {
    let c = config(
        r#"
[[flow]]
name = "paced"
rw = "randread"
rate_iops = 2000.0
requests = 3000
start_ms = 5.0

[[flow]]
name = "background"
rw = "randwrite"
iodepth = 1
requests = 4000
"#,
    );
    let p = TimingParams {
        data_volume_bytes: None,
        ..params()
    };
    let r = timed(&c, &p);
    let f = r.flows.as_ref().unwrap();
    assert_eq!((f[0].requests, f[1].requests), (3000, 4000));
    assert_eq!(r.ended_by, "workload_end");
    // 3000 arrivals 0.5 ms apart from 5 ms: the last at 5 + 2999 x 0.5 ms; the flow is
    // active until its last completion, a read's latency later.
    let last_arrival = 5_000_000 + 2999 * 500_000;
    let active_end = f[0].start_ns + f[0].active_ns;
    assert_eq!(f[0].start_ns, 5_000_000);
    assert!(active_end >= last_arrival, "{active_end} < {last_arrival}");
    let rl = f[0].read_latency.as_ref().unwrap();
    assert!(active_end as f64 <= last_arrival as f64 + rl.max_us * 1e3 + 1.0);
}

/// WAF-only, completions are instantaneous: a closed-loop flow without a request count
/// issues requests at its start without end, so a rate flow or a later closed-loop flow of
/// its group is refused (naming the starved flow and --timing) instead of getting none.
#[test]
fn waf_only_refuses_a_mix_that_would_starve_a_flow() {
    let waf = |flows: &str| {
        let c = config(flows);
        Simulation::new(&c)
            .unwrap()
            .run(flow_set(&c).as_mut(), &mut |_| {})
    };
    let closed = "[[flow]]\nname = \"closed\"\niodepth = 4\n";
    for (other, field) in [
        (
            "name = \"paced\"\nrate_iops = 2000.0",
            "flow `paced`.rate_iops",
        ),
        (
            "name = \"paced\"\nrate_iops = 2000.0\nstart_ms = 5.0",
            "flow `paced`.rate_iops",
        ),
        (
            "name = \"late\"\niodepth = 1\nstart_ms = 5.0",
            "flow `late`.start_ms",
        ),
    ] {
        let e = waf(&format!("{closed}[[flow]]\n{other}\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(field) && e.contains("--timing"), "{e}");
    }
    // With a request count, the closed-loop flow's requests come first; rate flows then
    // interleave by their rates (2:1).
    let r = waf(
        "[[flow]]\nname = \"closed\"\niodepth = 4\nrequests = 5000\n\
         [[flow]]\nname = \"paced\"\nrate_iops = 2000.0\n\
         [[flow]]\nname = \"half\"\nrate_iops = 1000.0\n",
    )
    .unwrap();
    let n: Vec<u64> = r.flows.unwrap().iter().map(|x| x.requests).collect();
    assert_eq!(n[0], 5000);
    assert!(n[2] > 1000 && n[1].abs_diff(2 * n[2]) <= 2, "{n:?}");
}

#[test]
fn fio_numjobs_are_flows_of_their_own() {
    let job = FioJob {
        rw: Rw::RandRw,
        rwmixwrite: 30.0,
        numjobs: 3,
        iodepth: 2,
        ..FioJob::default()
    };
    let c = config("");
    let l = c.layout().unwrap();
    let specs = FlowSpec::from_fio("job", &job, 0, l.logical_bytes());
    assert_eq!(specs.len(), 3);
    assert_eq!(specs[2].name, "job.2");
    let mut fs = FlowSet::new(specs, l.logical_pages, l.lpn_size).unwrap();
    let mut e = Engine::new(&c, Some(params())).unwrap();
    let r = match e
        .run_with(&mut fs, &mut |_| {}, &mut RunControl::default())
        .unwrap()
    {
        RunEnd::Finished(r) => r,
        RunEnd::Stopped { .. } => unreachable!(),
    };
    let f = r.flows.unwrap();
    assert_eq!(f.len(), 3);
    // Identical jobs: shares within a few percent of a third each.
    let total: u64 = f.iter().map(|x| x.requests).sum();
    assert_eq!(total, r.timing.as_ref().unwrap().requests);
    for x in &f {
        let s = x.requests as f64 / total as f64;
        assert!((s - 1.0 / 3.0).abs() < 0.03, "{}: {s}", x.name);
    }
    // WAF-only: closed loops take turns.
    let mut fs = FlowSet::new(
        FlowSpec::from_fio("job", &job, 0, l.logical_bytes()),
        l.logical_pages,
        l.lpn_size,
    )
    .unwrap();
    let mut sim = Simulation::new(&c).unwrap();
    let r = sim.run(&mut fs, &mut |_| {}).unwrap();
    let f = r.flows.unwrap();
    let n: Vec<u64> = f.iter().map(|x| x.requests).collect();
    assert!(
        n.iter().max().unwrap() - n.iter().min().unwrap() <= 1,
        "{n:?}"
    );
    assert!(f.iter().all(|x| x.read_latency.is_none() && x.iops == 0.0));
}

#[test]
fn deterministic_and_resumes_byte_for_byte() {
    use flashgc_core::device::policy::{ControllerParams, Scheduler, Suspend};
    let c = config(READ_HEAVY_WRITE_HEAVY);
    // Under read-first with suspend too: the flows' requests in flight resume.
    let deferred = TimingParams {
        controller: ControllerParams {
            scheduler: Scheduler::ReadFirst,
            suspend: Some(Suspend {
                suspend_ns: 20_000,
                resume_ns: 20_000,
                max_per_op: 4,
            }),
            ..ControllerParams::default()
        },
        ..params()
    };
    resumes_byte_for_byte(&c, &deferred);
    let p = params();
    resumes_byte_for_byte(&c, &p);
    let json = |r: &RunResult| serde_json::to_string_pretty(r).unwrap();
    let file = std::env::temp_dir().join(format!("flashgc-flows-{}.ckpt", std::process::id()));
    // WAF-only.
    let want = {
        let mut sim = Simulation::new(&c).unwrap();
        json(&sim.run(flow_set(&c).as_mut(), &mut |_| {}).unwrap())
    };
    let mut sim = Simulation::new(&c).unwrap();
    let mut ctl = RunControl {
        checkpoint: Some(file.clone()),
        stop_after_requests: Some(5_000),
        ..RunControl::default()
    };
    assert!(matches!(
        sim.run_with(flow_set(&c).as_mut(), &mut |_| {}, &mut ctl)
            .unwrap(),
        RunEnd::Stopped { .. }
    ));
    let mut sim = Simulation::from_checkpoint(CheckpointReader::open(&file).unwrap()).unwrap();
    let got = json(&sim.run(flow_set(&c).as_mut(), &mut |_| {}).unwrap());
    let _ = std::fs::remove_file(&file);
    assert_eq!(want, got, "resumed WAF-only run differs");
}

/// A timed flows run stopped and resumed from its checkpoint three times ends with the
/// uninterrupted run's JSON; the same config gives the same JSON.
fn resumes_byte_for_byte(c: &Config, p: &TimingParams) {
    let json = |r: &RunResult| serde_json::to_string_pretty(r).unwrap();
    let want = json(&timed(c, p));
    assert!(want.contains("\"flows\""));
    assert_eq!(want, json(&timed(c, p)), "same config, same result");
    let stops = [1_500, 1_501, 6_000];
    let got = json(&common::resume::resumed(
        c,
        p,
        &stops,
        "flows",
        &mut |e, ctl| {
            let end = e.run_with(flow_set(c).as_mut(), &mut |_| {}, ctl).unwrap();
            if let RunEnd::Stopped { partial, .. } = &end {
                assert!(partial.flows.is_some());
            }
            end
        },
    ));
    assert_eq!(want, got, "resumed timed run differs");
}

#[test]
fn bad_flow_sections_name_the_field() {
    for (toml, field) in [
        // With iodepth, rate_iops caps the closed loop: at least one request per second.
        ("[[flow]]\niodepth = 2\nrate_iops = 0.5\n", "rate_iops"),
        (
            "[[flow]]\niodepth = 2\nthinktime_us = 5\nthinktime_blocks = 0\n",
            "flow[0].thinktime_blocks",
        ),
        ("[[flow]]\nrw = \"randsomething\"\n", "flow[0].rw"),
        ("[[flow]]\n[[flow]]\nbs = \"4q\"\n", "flow[1].bs"),
        ("[[flow]]\noffset = \"1g\"\n", "offset"),
        ("[[flow]]\nsize = \"60m\"\noffset = \"32m\"\n", "size"),
        ("[[flow]]\niodepth = 0\n", "iodepth"),
        (
            "[[flow]]\nname = \"a\"\n[[flow]]\nname = \"a\"\n",
            "flow[1].name",
        ),
        // A hot/cold split of a one-request region panicked.
        (
            "[[flow]]\nsize = \"4k\"\ndistribution = \"hotcold:80/20\"\n",
            "`flow0`.distribution",
        ),
        // Each copy's depth is allowed alone; all together took GiBs and minutes.
        (
            "[[flow]]\nnumjobs = 1024\niodepth = 65536\nrequests = 10\n",
            "67108864 requests outstanding",
        ),
        (
            "[[flow]]\nnumjobs = 16\niodepth = 65536\n[[flow]]\niodepth = 1\n",
            "at most 1048576",
        ),
    ] {
        let c = config(toml);
        let l = c.layout().unwrap();
        match flows::from_config(&c, &l) {
            Ok(_) => panic!("accepted {toml}"),
            Err(e) => assert!(e.to_string().contains(field), "{toml}: {e}"),
        }
    }
    // Unknown keys are refused by the TOML reader.
    let text = "[[flow]]\nqueue = 3\n";
    assert!(Config::load(None, Some(("t.toml", text))).is_err());
}
