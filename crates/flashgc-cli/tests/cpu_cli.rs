//! Firmware-CPU flags on the command line (docs/cpu.md): bad values exit 2 with the flag
//! named, `--cpu-cost off` is today's output byte for byte, `on` adds the `cpu` section.

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
