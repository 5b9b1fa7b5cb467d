//! Unit tests of the steady-state options as fio 3.33's `str_steadystate_cb` and
//! `td_steadystate_init` read them (module `steady`).

use super::tests::{err_of, job};
use crate::workload::flows::SteadyMetric;

fn criterion(v: &str) -> (SteadyMetric, bool, bool, f64) {
    job(&format!("[a]\nrw=read\nss={v}\n"))
        .unwrap()
        .steady
        .criterion
}

#[test]
fn the_criterion_and_threshold_parse_as_fio_parses_them() {
    use SteadyMetric::{Bw, Iops};
    assert_eq!(criterion("iops:50"), (Iops, false, false, 50.0));
    assert_eq!(criterion("iops_slope:0.3%"), (Iops, true, true, 0.3));
    // Blanks around the threshold and before `%` are stripped.
    assert_eq!(criterion("iops: 2.5 %"), (Iops, false, true, 2.5));
    // sscanf("%lf") takes the leading number and ignores what follows.
    assert_eq!(criterion("iops:1e3abc"), (Iops, false, false, 1000.0));
    // A bandwidth threshold has fio's size suffixes (kb_base 1024); a percentage does not.
    assert_eq!(criterion("bw:10m"), (Bw, false, false, 10_485_760.0));
    assert_eq!(criterion("bw_slope:2k"), (Bw, true, false, 2048.0));
    assert_eq!(criterion("bw:5%"), (Bw, false, true, 5.0));
    // `steadystate` is the long name.
    let j = job(
        "[a]\nrw=read\nsteadystate=bw:1\nsteadystate_duration=2m\nsteadystate_ramp_time=500ms\n",
    );
    let s = j.unwrap().steady.spec().unwrap();
    assert_eq!((s.metric, s.dur, s.ramp_us), (Bw, 120, 500_000));
    // fio's default: iops_slope:0.01%, ss_dur 0 (off), ss_ramp 0; a bare number is seconds.
    let j = job("[a]\nrw=read\nss_dur=30\n").unwrap();
    assert_eq!(j.steady.criterion, (Iops, true, true, 0.01));
    let s = j.steady.spec().unwrap();
    assert_eq!((s.dur, s.ramp_us, s.group_reporting), (30, 0, false));
    assert!(job("[a]\nrw=read\nss=iops:1\n")
        .unwrap()
        .steady
        .spec()
        .is_none());
}

#[test]
fn bad_values_name_the_line_and_option() {
    for (bad, why) in [
        ("ss=iops", "threshold must be given"),
        ("ss=iops_slope", "threshold must be given"),
        // fio matches the criterion exactly, case and all.
        ("ss=Iops:1", "one of iops, iops_slope, bw, bw_slope"),
        ("ss=iops_slop:1", "one of iops"),
        ("ss=iops:", "not a number of IOPS"),
        ("ss=iops:x%", "not a percentage"),
        ("ss=bw:fast", "not a bandwidth"),
        ("ss=iops:(1+2)", "arithmetic"),
        ("ss_dur=-1", "out of range"),
        ("ss_ramp=soon", "not a time"),
        ("steadystate_check_interval=1s", "not a fio 3.33 option"),
    ] {
        let e = err_of(&format!("[a]\nrw=read\n{bad}\n"));
        let option = bad.split('=').next().unwrap();
        assert!(
            e.contains("p.fio:3") && e.contains(&format!("`{option}`")) && e.contains(why),
            "{bad}: {e}"
        );
    }
}

#[test]
fn a_group_must_agree_on_its_steady_state() {
    // fio 3.33 rejects a job whose steady-state options differ from those of a job of
    // its group before it, with or without group_reporting.
    let e = err_of("[a]\nrw=read\nss_dur=5\n[b]\nrw=read\nss_dur=6\n");
    assert!(
        e.contains("p.fio:6") && e.contains("consistent within reporting groups"),
        "{e}"
    );
    let e = err_of("[a]\nrw=read\nss_dur=5\n[b]\nrw=read\n");
    assert!(e.contains("job `b` rejected"), "{e}");
    // Another group may differ (stonewall).
    job("[a]\nrw=read\nss_dur=5\n[b]\nrw=read\nstonewall\n").unwrap();
    // With steady state, group_reporting is every job's or none's, and a reporting
    // group starts together.
    let e = err_of("[a]\nrw=read\nss_dur=5\ngroup_reporting\n[b]\nrw=read\nss_dur=5\n");
    assert!(
        e.contains("`group_reporting`") && e.contains("differ in group_reporting"),
        "{e}"
    );
    let e =
        err_of("[global]\nss_dur=5\ngroup_reporting\n[a]\nrw=read\n[b]\nrw=read\nstartdelay=1s\n");
    assert!(e.contains("p.fio:8: option `startdelay`"), "{e}");
    // fio's ramp_time leaves a wrapped-around sample in fio 3.33: refused, with ss_ramp.
    let e = err_of("[a]\nrw=read\nss_dur=5\nramp_time=2s\n");
    assert!(
        e.contains("p.fio:4: option `ramp_time`") && e.contains("ss_ramp"),
        "{e}"
    );
}
