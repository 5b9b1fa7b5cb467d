//! fio's steady-state detection (`ss`, `ss_dur`, `ss_ramp`) on the command line: the
//! JSON `steadystate` section and the human table's line, under fcfs and the deferred
//! schedulers, and bad values (docs/flows.md, "Steady state").

mod common;

use common::FIO_SMALL as SMALL;
use common::{flashgc, json, stdout};

/// A reader capped at 100 IOPS: every simulated second completes 100 reads, so with a
/// window of 2 it is steady at the second sample (2 s), 200 requests.
const JOB: &str =
    "[r]\nrw=randread\nbs=4k\nrate_iops=100\nruntime=30s\ntime_based\nss=iops:1%\nss_dur=2\n";

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("flashgc-steady-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_steady_job_reports_fios_steadystate_object_and_ends_early() {
    let p = write("ok.fio", JOB);
    let f = p.display().to_string();
    for sched in [
        &[][..],
        &["--scheduler", "read-first"],
        &["--scheduler", "read-first", "--suspend", "on"],
    ] {
        let mut a = vec!["fio", "--job", f.as_str(), "--json"];
        a.extend_from_slice(SMALL);
        a.extend_from_slice(sched);
        let r = &json(&flashgc(&a))[0];
        assert_eq!(r["ended_by"], "steady_state", "{sched:?}");
        let flow = &r["flows"][0];
        assert_eq!(flow["requests"], 200, "{sched:?}");
        let s = &flow["steadystate"];
        assert_eq!(s["ss"], "iops:1.000000%");
        assert_eq!(s["attained"], true);
        assert_eq!(s["attained_ns"], 2_000_000_000u64);
        assert_eq!(s["duration"], 2);
        assert_eq!(s["iops"], serde_json::json!([100, 100]));
        assert_eq!(s["bw"], serde_json::json!([409600, 409600]));
        assert_eq!(s["criterion"], 0.0);
    }
    let mut a = vec!["fio", "--job", f.as_str()];
    a.extend_from_slice(SMALL);
    let text = stdout(&flashgc(&a));
    assert!(
        text.contains(
            "steadystate: attained=yes at 2.000 s, bw=0.4MiB/s, iops=100, iops mean dev=0.000%"
        ),
        "{text}"
    );
}

#[test]
fn bad_steady_state_values_exit_2_naming_the_line_and_option() {
    for (name, text, want) in [
        (
            "nothr.fio",
            "[r]\nrw=read\nss=iops\nss_dur=5\n",
            ":3: option `ss`: the threshold must be given",
        ),
        (
            "crit.fio",
            "[r]\nrw=read\nss_dur=5\nss=latency:5\n",
            ":4: option `ss`: `latency`",
        ),
        (
            "dur.fio",
            "[r]\nrw=read\nss_dur=five\n",
            ":3: option `ss_dur`",
        ),
        (
            "int.fio",
            "[r]\nrw=read\nss_interval=1\n",
            ":3: option `ss_interval`: is not a fio 3.33 option",
        ),
    ] {
        let p = write(name, text);
        let f = p.display().to_string();
        let mut a = vec!["fio", "--job", f.as_str()];
        a.extend_from_slice(SMALL);
        let o = flashgc(&a);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {e}");
        assert!(e.contains(&format!("{name}{want}")), "{name}: {e}");
    }
}
