//! Host flows and the mapping cache on the command line: `[[flow]]` configs, fio numjobs
//! as flows, `--mapping-cache` (docs/flows.md, docs/mapping-cache.md).

mod common;

use common::FIO_SMALL as SMALL;
use common::{flashgc, json};

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = SMALL.to_vec();
    v.extend_from_slice(extra);
    v
}

#[test]
fn flow_sections_run_with_per_flow_statistics() {
    let dir = std::env::temp_dir().join(format!("flashgc-flows-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("two.toml");
    std::fs::write(
        &cfg,
        "[[flow]]\nname = \"reader\"\nrw = \"randread\"\niodepth = 4\n\
         [[flow]]\nname = \"writer\"\nrw = \"randwrite\"\niodepth = 1\nsize = \"16m\"\n",
    )
    .unwrap();
    let c = cfg.to_str().unwrap();
    let mut a = vec![
        "run",
        "--config",
        c,
        "--timing",
        "--requests",
        "3000",
        "--json",
    ];
    a.extend_from_slice(SMALL);
    let r = json(&flashgc(&a));
    let f = r["flows"].as_array().unwrap();
    assert_eq!(f.len(), 2);
    let n: u64 = f.iter().map(|x| x["requests"].as_u64().unwrap()).sum();
    assert_eq!(n, 3000);
    assert_eq!(f[0]["write_requests"], 0);
    assert_eq!(f[1]["read_requests"], 0);
    // Human output lists them.
    a.retain(|x| *x != "--json");
    let o = flashgc(&a);
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("flows (rates") && s.contains("reader") && s.contains("writer"),
        "{s}"
    );
    // A bad section: exit 2 naming the field.
    std::fs::write(&cfg, "[[flow]]\niodepth = 0\n").unwrap();
    let o = flashgc(&["run", "--config", c, "--timing"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("flow `flow0`.iodepth"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fio_numjobs_report_each_job() {
    let a = args(&[
        "fio",
        "--rw",
        "randrw",
        "--rwmixwrite",
        "30",
        "--numjobs",
        "3",
        "--iodepth",
        "2",
        "--size",
        "32m",
        "--json",
    ]);
    // `fio` is the subcommand: put it first.
    let mut v = vec!["fio"];
    v.extend(a.iter().filter(|x| **x != "fio"));
    let r = json(&flashgc(&v));
    let f = r[0]["flows"].as_array().unwrap();
    let names: Vec<&str> = f.iter().map(|x| x["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["job.0", "job.1", "job.2"]);
}

/// Each job's share of the requests, relative to the mean: ten identical depth-1 jobs on
/// the cosmos-openssd preset (8 channels, 16 KiB pages of four 4 KiB mapping units) with
/// `page_size` bytes per flash page, after a full precondition.
fn job_shares(page_size: &str, rwmixwrite: &str) -> Vec<f64> {
    let r = json(&flashgc(&[
        "fio",
        "--preset",
        "cosmos-openssd",
        "--blocks-per-plane",
        "32",
        "--pages-per-block",
        "128",
        "--segment-blocks",
        "8",
        "--page-size",
        page_size,
        "--fill",
        "1",
        "--numjobs",
        "10",
        "--iodepth",
        "1",
        "--rwmixwrite",
        rwmixwrite,
        "--data-gb",
        "0.2",
        "--json",
    ]));
    let n: Vec<f64> = r[0]["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["requests"].as_f64().unwrap())
        .collect();
    assert_eq!(n.len(), 10);
    let mean = n.iter().sum::<f64>() / n.len() as f64;
    n.iter().map(|x| x / mean - 1.0).collect()
}

fn spread(s: &[f64]) -> f64 {
    s.iter().cloned().fold(f64::MIN, f64::max) - s.iter().cloned().fold(f64::MAX, f64::min)
}

/// Identical jobs share the device evenly, except in the one case docs/timing.md explains:
/// near-pure writes into flash pages of several mapping units. A write that does not
/// complete its flash page finishes in the page register (about 20 us) while the one that
/// completes it waits for the program (1.3 ms); ten depth-1 closed loops with no host
/// jitter lock their phases, and which jobs are free when the fast slots open persists
/// over the run. With one mapping unit per page every write waits for its program and the
/// jobs agree; with reads mixed in the phases do not lock.
#[test]
fn identical_jobs_share_the_device_evenly_unless_their_phases_lock() {
    let one_unit = job_shares("4096", "100");
    assert!(spread(&one_unit) < 0.04, "4 KiB pages: {one_unit:?}");
    let mixed = job_shares("16384", "50");
    assert!(
        spread(&mixed) < 0.08,
        "16 KiB pages, 50 % writes: {mixed:?}"
    );
    let locked = job_shares("16384", "100");
    assert!(
        spread(&locked) > 0.2,
        "16 KiB pages, writes only (the documented phase lock): {locked:?}"
    );
}

#[test]
fn mapping_cache_flag() {
    let mut a = vec![
        "run",
        "--workload",
        "uniform",
        "--write-volume",
        "2",
        "--mapping-cache",
        "8k",
        "--json",
    ];
    a.extend_from_slice(SMALL);
    let r = json(&flashgc(&a));
    let t = &r["steady_state"]["translation"];
    assert!(t["translation_writes"].as_u64().unwrap() > 0);
    assert!(r["steady_state"]["waf"].as_f64() > t["waf_without_translation"].as_f64());
    // off = no section at all.
    let i = a.iter().position(|x| *x == "8k").unwrap();
    a[i] = "off";
    let r = json(&flashgc(&a));
    assert!(r["steady_state"].get("translation").is_none());
    // Out of range and inconsistent: exit 2 with the field.
    a[i] = "1g";
    let o = flashgc(&a);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("ftl.mapping_cache.bytes"));
    let mut b = vec!["run", "--mapping-entry-bytes", "8"];
    b.extend_from_slice(SMALL);
    let o = flashgc(&b);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--mapping-entry-bytes needs a mapping cache")
    );
}

#[test]
fn job_file_sections_with_different_patterns_run_as_flows() {
    let dir = std::env::temp_dir().join(format!("flashgc-flows-job-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("mixed.fio");
    // A zipf writer over the first half and a 16 KiB reader of the second half, with
    // different queue depths: one flow each, as fio reports one line per job.
    std::fs::write(
        &job,
        "[global]\nioengine=libaio\nsize=32m\n\n[writer]\nrw=randwrite\nbs=4k\niodepth=8\n\
         io_size=96m\nrandom_distribution=zipf:0.9\n\n[reader]\nrw=randread\nbs=16k\niodepth=2\n\
         offset=32m\nnumber_ios=1000\n",
    )
    .unwrap();
    let j = job.display().to_string();
    let mut a = vec!["fio"];
    a.extend(args(&["--job", &j, "--json"]));
    let r = json(&flashgc(&a));
    let r = &r[0];
    let flows = r["flows"].as_array().expect("per-flow statistics");
    let names: Vec<&str> = flows.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["writer", "reader"]);
    let (w, rd) = (&flows[0], &flows[1]);
    // 96 MiB of 4 KiB writes; 1000 reads of 16 KiB (fewer than the region's 2048 blocks).
    assert_eq!(w["write_requests"], 24576, "{w}");
    assert_eq!(w["read_requests"], 0);
    assert_eq!(rd["read_requests"], 1000, "{rd}");
    assert_eq!(rd["offset_bytes"], 32u64 << 20);
    assert_eq!(r["total"]["user_writes"], 24576);
    assert!(r["total"]["gc_writes"].as_u64().unwrap() > 0, "GC ran");
    // Reads of written pages wait for reads only (and GC); writes carry the programs.
    let mean = |f: &serde_json::Value, k: &str| f[k]["mean_us"].as_f64().unwrap();
    assert!(mean(rd, "read_latency") < mean(w, "write_latency"));
    // Groups: `stonewall` starts the reader when the writer's last request has completed.
    let two = dir.join("groups.fio");
    std::fs::write(
        &two,
        "[global]\nioengine=libaio\n[a]\nrw=randwrite\nio_size=8m\niodepth=4\n[b]\nrw=randread\nbs=8k\nnumber_ios=500\nstonewall\n",
    )
    .unwrap();
    let t = two.display().to_string();
    let mut a = vec!["fio"];
    a.extend(args(&["--job", &t, "--json"]));
    let g = json(&flashgc(&a));
    let f = g[0]["flows"].as_array().expect("flows");
    let (fa, fb) = (&f[0], &f[1]);
    assert_eq!(fa["write_requests"], 2048);
    assert_eq!(fb["read_requests"], 500);
    let a_end = fa["start_ns"].as_u64().unwrap() + fa["active_ns"].as_u64().unwrap();
    let b_start = fb["start_ns"].as_u64().unwrap();
    assert!(
        b_start > 0 && b_start >= a_end,
        "b starts at {b_start}, a ends at {a_end}"
    );
    // `runtime`, `ramp_time` and `time_based` per job, under fcfs and read-first: the
    // time-based writer runs 5 ms (its volume would take far longer) with a 1 ms ramp, the
    // reader ends at its request count, and the stonewalled time-based sequential writer
    // starts when both have completed and runs its 3 ms.
    let rt = dir.join("runtime.fio");
    std::fs::write(
        &rt,
        "[a]\nioengine=libaio\nrw=randwrite\niodepth=4\nruntime=5ms\nramp_time=1ms\ntime_based\n\
         [b]\nrw=randread\nbs=8k\nnumber_ios=200\n\
         [c]\nstonewall\nrw=write\nruntime=3ms\ntime_based\n",
    )
    .unwrap();
    let t = rt.display().to_string();
    for sched in ["fcfs", "read-first"] {
        let mut a = vec!["fio"];
        a.extend(args(&["--job", &t, "--json", "--scheduler", sched]));
        let r = &json(&flashgc(&a))[0];
        assert_eq!(r["ended_by"], "runtime", "{sched}");
        let f = r["flows"].as_array().expect("flows");
        let n = |f: &serde_json::Value, k: &str| f[k].as_u64().unwrap();
        let (fa, fb, fc) = (&f[0], &f[1], &f[2]);
        // a: issued until 6 ms (ramp + run time), its last requests completing after.
        let a_end = n(fa, "start_ns") + n(fa, "active_ns");
        assert!((6_000_000..9_000_000).contains(&a_end), "{sched}: {fa}");
        let ramp = n(fa, "ramp_requests");
        assert!(ramp > 0 && ramp < n(fa, "requests"), "{sched}: {fa}");
        assert_eq!(
            n(fa, "requests") - ramp,
            fa["write_latency"]["count"].as_u64().unwrap(),
            "{sched}: the ramp's requests are left out of the latency"
        );
        assert_eq!(n(fb, "read_requests"), 200, "{sched}");
        assert!(
            fb.get("ramp_requests").is_none(),
            "{sched}: no ramp, no field"
        );
        let first_end = a_end.max(n(fb, "start_ns") + n(fb, "active_ns"));
        assert_eq!(
            n(fc, "start_ns"),
            first_end,
            "{sched}: c starts after a and b"
        );
        let c_active = n(fc, "active_ns");
        assert!((3_000_000..4_000_000).contains(&c_active), "{sched}: {fc}");
    }
    // time_based without a runtime is refused at its line.
    let bad = dir.join("bad.fio");
    std::fs::write(&bad, "[a]\nrw=randwrite\ntime_based\n").unwrap();
    let b = bad.display().to_string();
    let mut a = vec!["fio"];
    a.extend(args(&["--job", &b]));
    let o = flashgc(&a);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("bad.fio:3: option `time_based`"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Values a job file parses but the device cannot take (a size below one block, a block
/// beyond 65536 LPNs, an offset past the end) named `fio.size` or `flow `b`.offset`
/// without the file or line; now they read as the parser's own errors: FILE:LINE: option.
/// fio's pacing options from a job file: a reader capped at 1000 IOPS that starts 2 ms in,
/// and a writer that thinks 100 us after each completion (docs/flows.md, "Pacing a closed
/// loop"); a cap on a mixed job is refused at its line.
#[test]
fn job_file_pacing_options_pace_their_flows() {
    let dir = std::env::temp_dir().join(format!("flashgc-flows-pace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("paced.fio");
    std::fs::write(
        &job,
        "[reader]\nioengine=libaio\nrw=randread\niodepth=2\nrate_iops=1000\nstartdelay=2ms\nnumber_ios=50\n\
         [writer]\nrw=randwrite\nthinktime=100\nnumber_ios=200\n",
    )
    .unwrap();
    let j = job.display().to_string();
    let mut a = vec!["fio"];
    a.extend(args(&["--job", &j, "--json"]));
    let r = json(&flashgc(&a));
    let f = r[0]["flows"].as_array().expect("flows");
    let (rd, wr) = (&f[0], &f[1]);
    assert_eq!(rd["start_ns"], 2_000_000);
    assert_eq!(rd["read_requests"], 50);
    assert!(rd["arrival"]
        .as_str()
        .unwrap()
        .contains("at most 1000 IOPS"));
    // 50 requests 1 ms apart: the last arrives 49 ms after the first.
    assert!(rd["active_ns"].as_u64().unwrap() >= 49_000_000, "{rd}");
    assert_eq!(wr["write_requests"], 200);
    assert!(wr["arrival"]
        .as_str()
        .unwrap()
        .contains("think time 100 us"));
    // 199 think times of 100 us between the writer's 200 requests.
    assert!(wr["active_ns"].as_u64().unwrap() >= 19_900_000, "{wr}");
    let bad = dir.join("bad.fio");
    std::fs::write(&bad, "[m]\nrw=randrw\n\nrate_iops=100\n").unwrap();
    let b = bad.display().to_string();
    let o = flashgc(&["fio", "--job", &b]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains(&format!("{b}:4: option `rate_iops`")), "{e}");
}

/// The job files in examples/ run as their comments say; the reads-under-writes example
/// shows what it is for: read-first with suspend takes the reader's p99 from a GC stall down
/// to a flash read.
/// A reader at depth 8 that thinks after every 64 completions (fio's
/// `thinktime_blocks`): 200 requests stall after the 71st, 135th and 199th (the first reap
/// comes with the 8th request; each stall reaps the other 7, which count toward the next
/// 64), so a think time longer by 1 ms makes the flow 3 ms longer, exactly: each burst
/// starts on an idle device. Counting issues (`thinktime_blocks_type=issue`) stalls after
/// the 64th, 128th and 192nd.
#[test]
fn job_file_think_times_stall_deep_queues_every_thinktime_blocks() {
    let dir = std::env::temp_dir().join(format!("flashgc-flows-think-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for ty in ["complete", "issue"] {
        let span = |think: &str| {
            let job = dir.join(format!("think-{ty}-{think}.fio"));
            std::fs::write(
                &job,
                format!(
                    "[r]\nioengine=libaio\nrw=randread\niodepth=8\nnumber_ios=200\nthinktime={think}\n\
                     thinktime_blocks=64\nthinktime_blocks_type={ty}\n"
                ),
            )
            .unwrap();
            let j = job.display().to_string();
            let mut a = vec!["fio"];
            a.extend(args(&["--job", &j, "--json"]));
            let r = json(&flashgc(&a));
            let f = &r[0]["flows"][0];
            assert_eq!(f["read_requests"], 200);
            let what = if ty == "issue" {
                "requests issued"
            } else {
                "completions"
            };
            assert!(
                f["arrival"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("every 64 {what}")),
                "{f}"
            );
            f["active_ns"].as_u64().unwrap()
        };
        assert_eq!(span("2ms") - span("1ms"), 3_000_000, "{ty}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// fio's `fsync=N` and `end_fsync` on the command line: the per-flow table counts the
/// flushes beside the requests and gives their latency; the JSON has one flush per N
/// writes (the end flush falls on the last one's place: fio's `last_was_sync`).
#[test]
fn job_file_flushes_are_counted_and_timed_in_the_flow_table() {
    let dir = std::env::temp_dir().join(format!("flashgc-flows-fsync-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("fsync.fio");
    std::fs::write(
        &job,
        "[w]\nioengine=libaio\nrw=randwrite\niodepth=4\nnumber_ios=320\nfsync=16\nend_fsync=1\n",
    )
    .unwrap();
    let j = job.display().to_string();
    // Under fcfs, and under deferred commit (read-first with suspend), where a flush's
    // completion is decided after later arrivals.
    for sched in [
        &[][..],
        &["--scheduler", "read-first", "--suspend", "on"][..],
    ] {
        let mut a = vec!["fio"];
        a.extend(args(&["--job", &j, "--cache-mib", "1"]));
        a.extend(sched);
        let text = common::stdout(&flashgc(&a));
        assert!(
            text.contains("320 requests (0 reads, 320 writes, 20 flushes)"),
            "{sched:?}: {text}"
        );
        assert!(text.contains("flush latency us: mean"), "{text}");
        a.push("--json");
        let r = json(&flashgc(&a));
        let f = &r[0]["flows"][0];
        assert_eq!(f["flushes"], 20, "{f}");
        assert_eq!(f["flush_latency"]["count"], 20, "{f}");
        assert!(f["flush_latency"]["mean_us"].as_f64().unwrap() > 0.0, "{f}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_example_job_files_run() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "fio"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "{files:?}");
    for f in &files {
        let r = json(&flashgc(&[
            "fio",
            "--logical-gib",
            "0.25",
            "--job",
            f.to_str().unwrap(),
            "--json",
        ]));
        assert!(r[0]["total"]["user_writes"].as_u64().unwrap() > 0, "{f:?}");
    }
    let f = root.join("reads-under-writes.fio");
    let p99 = |extra: &[&str]| {
        let mut a = vec![
            "fio",
            "--logical-gib",
            "0.25",
            "--job",
            f.to_str().unwrap(),
            "--json",
        ];
        a.extend_from_slice(extra);
        let r = json(&flashgc(&a));
        assert!(r[0]["total"]["gc_writes"].as_u64().unwrap() > 0, "GC ran");
        let reader = &r[0]["flows"][1];
        assert_eq!(reader["name"], "reader");
        reader["read_latency"]["p99_us"].as_f64().unwrap()
    };
    let (fcfs, rf) = (
        p99(&[]),
        p99(&["--scheduler", "read-first", "--suspend", "on"]),
    );
    assert!(
        fcfs > 10_000.0 && rf < 1_000.0,
        "read p99 {fcfs} us -> {rf} us"
    );
}

#[test]
fn job_file_values_the_device_cannot_take_name_their_line() {
    let dir = std::env::temp_dir().join(format!("flashgc-flows-jobs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text, want) in [
        (
            "small.fio",
            "[a]\nrw=write\nbs=4k\nsize=1k\n",
            ":4: option `size`:",
        ),
        (
            "big.fio",
            "[global]\nbs=1000g\n[a]\nrw=write\n",
            ":2: option `bs`:",
        ),
        (
            "far.fio",
            "[a]\nrw=write\nsize=1m\n[b]\nrw=read\nbs=8k\noffset=5000g\n",
            ":7: option `offset`:",
        ),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let mut a = vec!["fio"];
        let f = p.display().to_string();
        a.extend(args(&["--job", &f]));
        let o = flashgc(&a);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {e}");
        assert!(e.contains(&format!("{name}{want}")), "{name}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cmd`, the small device's flags, then `extra`.
fn small<'a>(cmd: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![cmd];
    v.extend_from_slice(SMALL);
    v.extend_from_slice(extra);
    v
}

/// Two QUEUE_DEPTH flows in MQSim's format (its example's fields, Stop_Time 400 ms): a
/// writer at QD 8 and a 70 %-read mix at QD 2, with an element MQSim does not read.
fn mqsim_file(dir: &std::path::Path) -> std::path::PathBuf {
    let flow = |rd: u32, qd: u32, seed: u32| {
        format!(
            "<IO_Flow_Parameter_Set_Synthetic>\n<Priority_Class>HIGH</Priority_Class>\n\
             <Channel_IDs>0,1,2,3</Channel_IDs>\n<Chip_IDs>0,1</Chip_IDs>\n<Die_IDs>0</Die_IDs>\n\
             <Plane_IDs>0</Plane_IDs>\n<Working_Set_Percentage>80</Working_Set_Percentage>\n\
             <Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>\n\
             <Read_Percentage>{rd}</Read_Percentage>\n\
             <Address_Distribution>RANDOM_UNIFORM</Address_Distribution>\n\
             <Generated_Aligned_Addresses>true</Generated_Aligned_Addresses>\n\
             <Address_Alignment_Unit>8</Address_Alignment_Unit>\n\
             <Request_Size_Distribution>FIXED</Request_Size_Distribution>\n\
             <Average_Request_Size>8</Average_Request_Size>\n<Seed>{seed}</Seed>\n\
             <Intensity>32768</Intensity>\n\
             <Average_No_of_Reqs_in_Queue>{qd}</Average_No_of_Reqs_in_Queue>\n\
             <Stop_Time>400000000</Stop_Time>\n\
             <Total_Requests_To_Generate>0</Total_Requests_To_Generate>\n\
             </IO_Flow_Parameter_Set_Synthetic>\n"
        )
    };
    let p = dir.join("workload.xml");
    std::fs::write(
        &p,
        format!(
            "<?xml version=\"1.0\" encoding=\"us-ascii\"?>\n<MQSim_IO_Scenarios>\n<IO_Scenario>\n{}{}</IO_Scenario>\n</MQSim_IO_Scenarios>\n",
            flow(0, 8, 798),
            flow(70, 2, 6533)
        ),
    )
    .unwrap();
    p
}

#[test]
fn mqsim_workload_runs_as_flows_and_equals_its_converted_config() {
    let dir = std::env::temp_dir().join(format!("flashgc-mqsim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let xml = mqsim_file(&dir);
    let x = xml.to_str().unwrap();
    // The converter: the effective configuration with the scenario's [[flow]] sections.
    let o = flashgc(&small(
        "config",
        &["--mqsim-workload", x, "--scenario", "1"],
    ));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let toml = String::from_utf8(o.stdout).unwrap();
    assert_eq!(toml.matches("[[flow]]").count(), 2, "{toml}");
    assert!(toml.contains("rwmixwrite = 30.0"), "{toml}");
    assert!(toml.contains("runtime_ms = 400.0"), "{toml}");
    let cfg = dir.join("converted.toml");
    std::fs::write(&cfg, &toml).unwrap();
    // The direct run and the converted configuration's run: the same bytes.
    let direct = flashgc(&small(
        "run",
        &["--timing", "--json", "--mqsim-workload", x],
    ));
    let converted = flashgc(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--timing",
        "--json",
    ]);
    let r = json(&direct);
    json(&converted);
    assert_eq!(
        String::from_utf8_lossy(&direct.stdout),
        String::from_utf8_lossy(&converted.stdout)
    );
    // Per-flow statistics: the writer only writes, the mix reads about 70 %.
    let f = r["flows"].as_array().unwrap();
    assert_eq!(f.len(), 2);
    assert_eq!(f[0]["name"], "flow0");
    assert_eq!(f[0]["read_requests"], 0);
    let (rd, n) = (
        f[1]["read_requests"].as_u64().unwrap() as f64,
        f[1]["requests"].as_u64().unwrap() as f64,
    );
    assert!(n > 200.0 && (rd / n - 0.7).abs() < 0.1, "{rd}/{n}");
    assert!(f[0]["requests"].as_u64().unwrap() > 200);
    assert_eq!(r["ended_by"], "runtime");
    let notes = r["notes"].to_string();
    // What is approximated or ignored is in the result's notes (here: an element MQSim
    // does not read).
    assert!(
        notes.contains("scenario 1, flow0, flow1: <Intensity> ignored"),
        "{notes}"
    );
    // Bad input: exit 2, the file, line and element named.
    let bad = dir.join("bad.xml");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&xml)
            .unwrap()
            .replacen("QUEUE_DEPTH", "CLOSED_LOOP", 1),
    )
    .unwrap();
    let b = bad.to_str().unwrap();
    for cmd in ["run", "config"] {
        let o = flashgc(&small(cmd, &["--mqsim-workload", b]));
        assert_eq!(o.status.code(), Some(2));
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains(&format!(
                "{b}:11: <Synthetic_Generator_Type>: `CLOSED_LOOP` is not one of"
            )),
            "{e}"
        );
    }
    // A scenario that does not exist; a config with flows of its own; --workload too.
    let o = flashgc(&small("run", &["--mqsim-workload", x, "--scenario", "2"]));
    assert_eq!(o.status.code(), Some(2));
    let o = flashgc(&small(
        "run",
        &["--mqsim-workload", x, "--workload", "uniform"],
    ));
    assert_eq!(o.status.code(), Some(2));
    let o = flashgc(&small("run", &["--timing", "--mqsim-workload", x, "-o", x]));
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("is the MQSim workload file the run reads"),
        "{e}"
    );
    let o = flashgc(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--mqsim-workload",
        x,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already has [[flow]] sections"));
    // --workload beside a configuration's flows was dropped without a word (the flows ran).
    let o = flashgc(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--workload",
        "uniform",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("--workload uniform: the configuration")
            && e.contains("[[flow]] section(s) are the workload"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_runs_an_mqsim_workload_per_scheme() {
    // `compare --mqsim-workload` had no test: each scheme must run the scenario's flows and
    // carry their statistics, exactly as `run` does for that scheme.
    let dir = std::env::temp_dir().join(format!("flashgc-mqsim-cmp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let xml = mqsim_file(&dir);
    let x = xml.to_str().unwrap();
    let mq = [
        "--timing",
        "--json",
        "--mqsim-workload",
        x,
        "--victim",
        "greedy",
    ];
    let mut a = mq.to_vec();
    a.extend(["--placement", "single,sup-gc"]);
    let rs = json(&flashgc(&small("compare", &a)));
    let rs = rs.as_array().unwrap();
    let schemes: Vec<&str> = rs
        .iter()
        .map(|r| r["placement"].as_str().unwrap())
        .collect();
    assert_eq!(schemes, ["single", "sup-gc"]);
    for r in rs {
        let f = r["flows"].as_array().unwrap();
        let names: Vec<&str> = f.iter().map(|x| x["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["flow0", "flow1"], "{}", r["placement"]);
        assert_eq!(f[0]["read_requests"], 0);
        assert!(f[0]["write_requests"].as_u64().unwrap() > 200, "{f:?}");
        assert!(f[1]["read_requests"].as_u64().unwrap() > 100, "{f:?}");
        assert_eq!(r["ended_by"], "runtime");
        assert!(r["notes"]
            .to_string()
            .contains("scenario 1, flow0, flow1: <Intensity> ignored"));
    }
    // Each scheme's result is the one `run` gives for it.
    let mut a = mq.to_vec();
    a.extend(["--placement", "sup-gc"]);
    assert_eq!(json(&flashgc(&small("run", &a))), rs[1]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A job file's clones (`numjobs`) as fio places them: all at the job's offset unless
/// `offset_increment` spreads them (fio's `get_start_offset`), each over the job's size.
#[test]
fn job_file_clones_start_where_fio_starts_them() {
    let dir = std::env::temp_dir().join(format!("flashgc-flows-clones-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let regions = |name: &str, text: &str| -> Vec<(u64, u64, u64)> {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let f = p.display().to_string();
        let mut a = vec!["fio"];
        a.extend(args(&["--job", &f, "--json"]));
        let r = json(&flashgc(&a));
        r[0]["flows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                let n = |k: &str| x[k].as_u64().unwrap();
                (n("offset_bytes"), n("size_bytes"), n("bytes"))
            })
            .collect()
    };
    let mib = 1u64 << 20;
    let job = "[global]\nioengine=libaio\nrw=write\nbs=64k\niodepth=2\nsize=8m\n[seq]\nnumjobs=3\n";
    assert_eq!(regions("shared.fio", job), [(0, 8 * mib, 8 * mib); 3]);
    let spread = format!("{job}offset=1m\noffset_increment=16m\n");
    assert_eq!(
        regions("spread.fio", &spread),
        [0, 1, 2].map(|j| (mib + j * 16 * mib, 8 * mib, 8 * mib))
    );
    // A clone that would run past the device's end: exit 2 at the line that put it there.
    let p = dir.join("past.fio");
    std::fs::write(&p, format!("{job}offset_increment=30m\n")).unwrap();
    let f = p.display().to_string();
    let mut a = vec!["fio"];
    a.extend(args(&["--job", &f]));
    let o = flashgc(&a);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("past.fio:6: option `size`") && e.contains("clone 2"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
