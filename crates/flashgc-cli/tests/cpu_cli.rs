//! Firmware-CPU flags on the command line (docs/cpu.md): bad values exit 2 with the flag
//! named, `--cpu-cost off` is today's output byte for byte, `on` adds the `cpu` section;
//! `flashgc dedup` prices the SplitGC paper's compute times with it.

use std::process::{Command, Output};

fn flashgc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flashgc"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A small timed fio run (0.125 GiB, 8 MB of host data, 10 % writes).
const FIO: &[&str] = &[
    "fio",
    "--preset",
    "cosmos-openssd",
    "--logical-gib",
    "0.125",
    "--placement",
    "bf-gc",
    "--rwmixwrite",
    "10",
    "--data-gb",
    "0.008",
    "--json",
];

fn fio(extra: &[&str]) -> Output {
    let mut a = FIO.to_vec();
    a.extend(extra);
    flashgc(&a)
}

#[test]
fn bad_cpu_flags_exit_2_naming_the_flag() {
    for (args, field) in [
        (&["--cpu-cores", "0"][..], "--cpu-cores"),
        (&["--cpu-cores", "-3"][..], "--cpu-cores"),
        (&["--cpu-ns", "classifier=-5"][..], "--cpu-ns.classifier"),
        (&["--cpu-ns", "victim=lots"][..], "--cpu-ns.victim"),
        (&["--cpu-ns", "sha1=5"][..], "--cpu-ns"),
        (&["--cpu-scale", "-1"][..], "--cpu-scale"),
        (&["--cpu-scale", "0"][..], "--cpu-scale"),
        (&["--cpu-cost", "maybe"][..], "--cpu-cost"),
        (&["--cpu-cost", "off", "--cpu-cores", "2"][..], "--cpu-cost"),
    ] {
        let o = fio(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(field), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
    // CPU flags on a WAF-only run are an error too, not ignored.
    let o = flashgc(&["run", "--logical-gib", "0.0625", "--cpu-cost", "on"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--timing"), "{}", stderr(&o));
}

#[test]
fn cpu_cost_off_is_the_default_output_and_on_adds_the_cpu_section() {
    let plain = fio(&[]);
    assert!(plain.status.success(), "{}", stderr(&plain));
    let off = fio(&["--cpu-cost", "off"]);
    assert_eq!(
        stdout(&off),
        stdout(&plain),
        "--cpu-cost off = no flag, byte for byte"
    );
    assert!(!stdout(&plain).contains("\"cpu\""));
    let on = fio(&["--cpu-cost", "on", "--cpu-cores", "2"]);
    assert!(on.status.success(), "{}", stderr(&on));
    let v: serde_json::Value = serde_json::from_str(&stdout(&on)).unwrap();
    let r = if v.is_array() { &v[0] } else { &v };
    let cpu = &r["timing"]["cpu"];
    assert_eq!(cpu["cores"], 2);
    assert_eq!(cpu["utilization"].as_array().unwrap().len(), 2);
    // bf-gc's classifier ran once per flash user write.
    let writes = r["timing"]["write_requests"].as_u64().unwrap();
    let per = cpu["costs"]["classifier_ns"].as_u64().unwrap();
    assert!(per > 0 && writes > 0);
    assert_eq!(cpu["time_ns"]["classifier"].as_u64().unwrap(), per * writes);
    assert_eq!(r["timing"]["params"]["cpu"]["cores"], 2);
}

/// `flashgc dedup` with the cost model on charges the paper's compute times as its flags
/// give them: CAGC fingerprints every page GC reads (`--fp-gen-us`, plus one
/// fingerprint-store lookup each, `--fp-manage-us`), so its fingerprint time is that many
/// pages times the flag, and its GC, which waits for the hashing, takes longer than with
/// the model off; greedy computes no fingerprint. Off, the output has no `cpu` section.
#[test]
fn dedup_prices_the_papers_compute_on_the_firmware_cpu() {
    let dedup = |extra: &[&str]| {
        let mut a = vec![
            "dedup",
            "--small",
            "--requests",
            "100000",
            "--scheme",
            "greedy,cagc",
            "--json",
        ];
        a.extend(extra);
        let o = flashgc(&a);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        v.as_array().unwrap().clone()
    };
    let off = dedup(&[]);
    let on = dedup(&["--cpu-cost", "on", "--fp-gen-us", "40"]);
    let cpu = |r: &serde_json::Value| r["result"]["timing"]["cpu"].clone();
    assert!(cpu(&off[1]).is_null());
    let (greedy, cagc) = (cpu(&on[0]), cpu(&on[1]));
    assert_eq!(greedy["time_ns"]["fingerprint"], 0);
    assert_eq!(cagc["costs"]["fingerprint_ns"], 40_000);
    assert_eq!(cagc["costs"]["fingerprint_lookup_ns"], 10_000);
    let fp = cagc["time_ns"]["fingerprint"].as_u64().unwrap();
    let lookups = cagc["time_ns"]["fingerprint_lookup"].as_u64().unwrap();
    assert!(fp > 0 && fp % 40_000 == 0, "{fp}");
    // One lookup per fingerprinted page (the run's GC pages: moved and remapped alike).
    assert_eq!(fp / 40_000, lookups / 10_000);
    let wr = |r: &serde_json::Value| {
        r["result"]["timing"]["write_latency"]["mean_us"]
            .as_f64()
            .unwrap()
    };
    assert!(
        wr(&on[1]) > wr(&off[1]),
        "cagc: {} vs {}",
        wr(&on[1]),
        wr(&off[1])
    );
    // One price for two flags that name the same firmware work.
    let o = flashgc(&[
        "dedup",
        "--small",
        "--requests",
        "100",
        "--cpu-cost",
        "on",
        "--dagc-write-us",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--fp-manage-us"), "{}", stderr(&o));
}
