//! fio's pacing options on host flows (docs/flows.md): `rate_iops` on a closed loop (the
//! k-th request arrives no earlier than k / rate), `thinktime` (at depth 1: a request
//! arrives that long after the one before it completed; deeper queues and
//! `thinktime_blocks`: tests/flows_think.rs) and `startdelay`. Each is checked exactly against a
//! run it must equal: a cap the device keeps up with is an open loop at that rate; a think
//! time shifts every later request by itself and leaves the latencies alone; a start delay
//! shifts the whole flow. Under first-come-first-served and under read-first with suspend
//! (whose completions the driver learns later).

mod common;

use common::flows::read_first_with_suspend;
use flashgc_core::metrics::result::FlowReport;
use flashgc_core::timing::TimingParams;
use flashgc_core::workload::flows;
use flashgc_core::{Config, RunResult};

/// 64 MiB logical (filled), 32-page segments, with one `[[flow]]` section of `keys`.
fn config(keys: &str) -> Config {
    let text = format!(
        "[device]\npages_per_block = 32\n[ftl]\nlogical_gib = 0.0625\nop = 0.15\n\
         [run]\nwrite_volume = 2.0\nmax_memory_gib = 64.0\n\
         [[flow]]\nname = \"f\"\n{keys}"
    );
    Config::load(None, Some(("test.toml", &text))).unwrap()
}

fn run(keys: &str, p: &TimingParams) -> RunResult {
    common::flows::run(&config(keys), p)
}

fn flow(r: &RunResult) -> &FlowReport {
    &r.flows.as_ref().unwrap()[0]
}

fn schedulers() -> [TimingParams; 2] {
    [TimingParams::default(), read_first_with_suspend()]
}

/// Everything a flow measured but its descriptions (arrival, and the pattern's iodepth).
fn measured(f: &FlowReport) -> String {
    let mut v = serde_json::to_value(f).unwrap();
    v.as_object_mut().unwrap().remove("arrival");
    v.as_object_mut().unwrap().remove("pattern");
    v.to_string()
}

#[test]
fn a_rate_cap_the_device_keeps_up_with_is_an_open_loop_at_that_rate() {
    for p in schedulers() {
        // Reads of about 0.1 ms every 0.5 ms: the queue of 4 never fills.
        let capped = run(
            "rw = \"randread\"\niodepth = 4\nrate_iops = 2000\nrequests = 300\n",
            &p,
        );
        let open = run("rw = \"randread\"\nrate_iops = 2000\nrequests = 300\n", &p);
        assert_eq!(measured(flow(&capped)), measured(flow(&open)));
        assert_eq!(capped.total, open.total);
        assert!(flow(&capped).arrival.contains("at most 2000 IOPS"));
        // Uncapped, the same loop runs far faster.
        let free = run("rw = \"randread\"\niodepth = 4\nrequests = 300\n", &p);
        assert!(flow(&free).active_ns * 10 < flow(&capped).active_ns);
    }
}

#[test]
fn a_capped_flow_issues_exactly_the_requests_its_rate_allows_in_its_run_time() {
    for p in schedulers() {
        // Arrivals at 0, 0.5, ..., 9.5 ms: 20 before the 10 ms run time ends.
        let r = run(
            "rw = \"randread\"\niodepth = 4\nrate_iops = 2000\nruntime_ms = 10.0\n",
            &p,
        );
        assert_eq!(flow(&r).requests, 20);
        assert!(flow(&r).active_ns > 9_500_000 && flow(&r).active_ns < 10_000_000);
        // A cap of one request per 100 ns, which the writes with their GC (about 2 ms
        // each) cannot reach: only the first four requests, which the queue of 4 would
        // all issue at 0, wait for it (at 100, 200 and 300 ns); after them the flow issues
        // as its queue allows (fio's linear rate process catches up). So the same run,
        // with 600 ns less latency in all.
        let w = "rw = \"randwrite\"\niodepth = 4\nruntime_ms = 20.0\n";
        let (slow, capped) = (run(w, &p), run(&format!("{w}rate_iops = 1e7\n"), &p));
        let (a, b) = (flow(&slow), flow(&capped));
        assert_eq!(
            (a.requests, a.active_ns, &a.write_histogram),
            (b.requests, b.active_ns, &b.write_histogram)
        );
        let sum = |f: &FlowReport| {
            let l = f.write_latency.as_ref().unwrap();
            l.mean_us * l.count as f64 * 1e3
        };
        assert!(
            (sum(a) - sum(b) - 600.0).abs() < 1e-3,
            "{} ns",
            sum(a) - sum(b)
        );
    }
}

#[test]
fn a_think_time_delays_each_next_request_and_nothing_else() {
    for p in schedulers() {
        let base = "rw = \"randread\"\niodepth = 1\nrequests = 100\n";
        let r0 = run(base, &p);
        let r1 = run(&format!("{base}thinktime_us = 300\n"), &p);
        let (f0, f1) = (flow(&r0), flow(&r1));
        assert_eq!(f0.read_latency, f1.read_latency);
        assert_eq!(f1.active_ns - f0.active_ns, 99 * 300_000);
        assert!(f1.arrival.contains("think time 300 us"), "{}", f1.arrival);
    }
}

#[test]
fn a_start_delay_shifts_the_whole_flow() {
    for p in schedulers() {
        let base = "rw = \"randread\"\niodepth = 2\nrequests = 100\n";
        let (f0, f1) = (run(base, &p), run(&format!("{base}start_ms = 5.0\n"), &p));
        let (a, b) = (flow(&f0), flow(&f1));
        assert_eq!(b.start_ns, 5_000_000);
        assert_eq!(a.read_latency, b.read_latency);
        assert_eq!(a.active_ns, b.active_ns);
    }
}

#[test]
fn a_think_time_needs_a_closed_loop() {
    for keys in [
        "rate_iops = 100\nthinktime_us = 10\n",
        "thinktime_us = -1\n",
    ] {
        let c = config(keys);
        let l = c.layout().unwrap();
        let Err(e) = flows::from_config(&c, &l) else {
            panic!("accepted {keys}");
        };
        assert!(
            e.to_string().contains("flow[0].thinktime_us"),
            "{keys}: {e}"
        );
    }
    let c = config("iodepth = 2\nrate_iops = 0.5\n");
    let l = c.layout().unwrap();
    let Err(e) = flows::from_config(&c, &l) else {
        panic!("accepted a cap below 1 IOPS");
    };
    assert!(e.to_string().contains("rate_iops"), "{e}");
}

/// Stopped twice and resumed from its checkpoint, a run of a thinking flow and a capped
/// flow ends with the uninterrupted run's JSON (the slots keep their think times). Both
/// flows have a request count, so the run has no volume target: such checkpoints were
/// refused as damaged before (the check expected the volume of `run.workload`, which
/// `[[flow]]` sections replace).
#[test]
fn paced_flows_resume_byte_for_byte() {
    let keys = "rw = \"randrw\"\nrwmixwrite = 70\niodepth = 1\nthinktime_us = 50\nrequests = 400\n\
                [[flow]]\nname = \"g\"\nrw = \"randwrite\"\niodepth = 4\nrate_iops = 3000\n\
                requests = 600\nstart_ms = 1.5\n";
    let c = config(keys);
    for p in schedulers() {
        let want = serde_json::to_string_pretty(&run(keys, &p)).unwrap();
        let got = common::flows::resumed_json(&c, &p, &[150, 500], "pacing");
        assert!(want.contains("think time 50 us") && want.contains("at most 3000 IOPS"));
        assert_eq!(want, got, "resumed run differs");
    }
}

/// The flows of `keys` with flow 0 bounded by `bytes` issued (a job file's `size` /
/// `io_size` of a job whose lengths vary) instead of a request count.
fn byte_bounded(c: &Config, bytes: u64) -> flows::FlowSet {
    let l = c.layout().unwrap();
    let mut specs = flows::from_config(c, &l).unwrap().unwrap().specs().to_vec();
    specs[0].requests = None;
    specs[0].bytes = Some(bytes);
    flows::FlowSet::new(specs, l.logical_pages, l.lpn_size).unwrap()
}

/// A flow with a byte volume and a `bssplit` ends after exactly the request that reaches
/// its volume: the flow's own requests, generated alone, say which one that is.
#[test]
fn a_byte_volume_ends_after_the_request_that_reaches_it() {
    use flashgc_core::workload::Workload;
    let keys = "rw = \"randwrite\"\niodepth = 2\nbssplit = \"4k/50:64k/30:256k/20\"\nseed = 5\n";
    let c = config(keys);
    let l = c.layout().unwrap();
    let target = 1_000_000;
    // The same stream as the flow's: its job over its region (the whole device).
    let spec = byte_bounded(&c, target).specs()[0].clone();
    let job = flashgc_core::workload::fio::FioJob {
        size: Some(l.logical_pages * l.lpn_size as u64),
        ..spec.job.clone()
    };
    let mut buf = Vec::new();
    job.workload(l.logical_pages, l.lpn_size)
        .unwrap()
        .fill(&mut buf, 1000)
        .unwrap();
    let (mut n, mut sum) = (0u64, 0u64);
    for r in &buf {
        n += 1;
        sum += r.pages as u64 * l.lpn_size as u64;
        if sum >= target {
            break;
        }
    }
    let last = buf[n as usize - 1].pages as u64 * l.lpn_size as u64;
    assert!(sum >= target && sum - last < target && buf.iter().any(|r| r.pages > 1));
    for p in schedulers() {
        let mut fs = byte_bounded(&c, target);
        let mut e = flashgc_core::driver::Engine::new(&c, Some(p.clone())).unwrap();
        let r = match e
            .run_with(
                &mut fs,
                &mut |_| {},
                &mut flashgc_core::sim::RunControl::default(),
            )
            .unwrap()
        {
            flashgc_core::sim::RunEnd::Finished(r) => r,
            flashgc_core::sim::RunEnd::Stopped { .. } => unreachable!(),
        };
        assert_eq!((flow(&r).requests, flow(&r).bytes), (n, sum));
        assert!(
            flow(&r)
                .pattern
                .contains("bssplit=262144/20:65536/30:4096/50"),
            "{}",
            flow(&r).pattern
        );
    }
}

/// Stopped and resumed from its checkpoint, a byte-bounded `bssplit` flow (whose issued
/// bytes the resume sums again from the replayed requests) ends as the uninterrupted run.
#[test]
fn byte_bounded_mixed_flows_resume_byte_for_byte() {
    let keys =
        "rw = \"randrw\"\nrwmixwrite = 70\niodepth = 4\nbssplit = \"4k/40:16k/30,8k/50:128k/50\"\n\
                [[flow]]\nname = \"g\"\nrw = \"randwrite\"\niodepth = 2\nrequests = 300\n";
    let c = config(keys);
    for p in schedulers() {
        let want = common::flows::resumed_json_of(&c, &p, &[], "bytes-whole", &|| {
            byte_bounded(&c, 3_000_000)
        });
        let got = common::flows::resumed_json_of(&c, &p, &[120, 400], "bytes", &|| {
            byte_bounded(&c, 3_000_000)
        });
        assert!(want.contains("bssplit="));
        assert_eq!(want, got, "resumed run differs");
    }
}

/// A job file's uniform random jobs draw through fio's random map (each block once per
/// pass); on resume the map is rebuilt by replaying the flows' requests, so a stopped and
/// resumed run ends as the uninterrupted one.
#[test]
fn random_map_flows_resume_byte_for_byte() {
    use flashgc_core::workload::fio::jobfile::{self, JobPlan};
    use flashgc_core::workload::fio::Dist;
    let c = config("rw = \"randwrite\"\nrequests = 10\n");
    let l = c.layout().unwrap();
    let jf = jobfile::parse(
        "m.fio",
        "[global]\nioengine=libaio\nbs=8k\nsize=8m\n[w]\nrw=randwrite\niodepth=4\nio_size=24m\n\
         [r]\nrw=randrw\niodepth=2\nnumjobs=2\n",
    )
    .unwrap();
    let JobPlan::Flows { specs, .. } = jf.plan(l.logical_pages, l.lpn_size, 5).unwrap() else {
        panic!("differing sections run as flows")
    };
    assert!(specs.iter().all(|s| s.job.dist == Dist::RandomMap));
    let make = || flows::FlowSet::new(specs.clone(), l.logical_pages, l.lpn_size).unwrap();
    for p in schedulers() {
        let want = common::flows::resumed_json_of(&c, &p, &[], "map-whole", &make);
        let got = common::flows::resumed_json_of(&c, &p, &[300, 1500], "map", &make);
        assert!(want.contains("random_distribution=random"));
        assert_eq!(want, got, "resumed run differs");
    }
}

/// Flows whose streams end passes of their own (sequential picks; an asynchronous
/// engine's with-replacement passes, which start their draws over) resume byte for byte
/// too: the replay on resume walks the same passes.
#[test]
fn flows_with_passes_of_their_own_resume_byte_for_byte() {
    use flashgc_core::workload::fio::jobfile::{self, JobPlan};
    let c = config("rw = \"randwrite\"\nrequests = 10\n");
    let l = c.layout().unwrap();
    let jf = jobfile::parse(
        "p.fio",
        "[global]\nbs=8k\nsize=8m\n[w]\nrw=randwrite:4\npercentage_random=60\nio_size=24m\n\
         [r]\nioengine=libaio\nrw=randread\nnorandommap\niodepth=2\nio_size=16m\n",
    )
    .unwrap();
    let JobPlan::Flows { specs, .. } = jf.plan(l.logical_pages, l.lpn_size, 5).unwrap() else {
        panic!("such jobs run as flows")
    };
    assert!(specs[0].job.seq_mix.is_some());
    assert_eq!(specs[1].repeat_every, Some(1024));
    let make = || flows::FlowSet::new(specs.clone(), l.logical_pages, l.lpn_size).unwrap();
    for p in schedulers() {
        let want = common::flows::resumed_json_of(&c, &p, &[], "passes-whole", &make);
        let got = common::flows::resumed_json_of(&c, &p, &[700, 2500], "passes", &make);
        assert!(want.contains("percentage_random=60,60"));
        assert_eq!(want, got, "resumed run differs");
    }
}
