//! The first group held at a fixed size (`group1=N` of `mida` and `sepbit`): the MiDAS
//! paper's Fig. 3(b) experiment ("we manually control the size of Group 1 while running
//! YCSB-A for MiDA and SepBIT"). Held, the group's mean size over the victims is N to
//! N + 1 segments whatever its free size was; free, the report still gives that mean (the
//! figure's red dots), and the run is the one without the parameter, bit for bit. Bad
//! values are refused, naming the field.
//!
//! `cargo test --release -p flashgc-core --test group1`

use flashgc_core::{Config, RunResult, Simulation};

fn config(placement: &str) -> Config {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(0.125);
    c.ftl.op = Some(0.1);
    c.device.pages_per_block = 32;
    c.run.workload = "zipf:0.9".into();
    c.run.placement = placement.into();
    c.run.victim = "cost-benefit".into();
    c.run.write_volume = 6.0;
    c.run.warmup = Some(3.0);
    c.run.seed = 3;
    c
}

fn run(placement: &str) -> RunResult {
    Simulation::run_synthetic(&config(placement), &mut |_| {})
        .unwrap_or_else(|e| panic!("{placement}: {e}"))
}

/// (held at, mean size) of the first group in `r`'s report.
fn group1(r: &RunResult) -> (Option<u64>, f64) {
    let g = &r.placement_report.as_ref().expect("a report")["group1"];
    (
        g["held_at_segments"].as_u64(),
        g["mean_segments"].as_f64().expect("a mean size"),
    )
}

#[test]
fn a_held_first_group_keeps_its_size_and_a_free_one_reports_its_own() {
    for scheme in ["mida", "sepbit"] {
        let free = run(scheme);
        let (held, natural) = group1(&free);
        assert_eq!(held, None, "{scheme}");
        // The parameter's default is the scheme without it, bit for bit.
        let same = run(&format!("{scheme}:group1=0"));
        assert_eq!(
            serde_json::to_string(&same.total).unwrap(),
            serde_json::to_string(&free.total).unwrap(),
            "{scheme}"
        );
        // Held well below and well above its free size, the group follows the target.
        let segments = free.device.layout.segments as f64;
        for target in [
            (natural / 3.0).ceil().max(2.0),
            (natural * 2.0).min(segments / 8.0).round(),
        ] {
            eprintln!("{scheme}: free {natural:.2} segments of {segments}; held at {target}");
            let n = target as u64;
            let r = run(&format!("{scheme}:group1={n}"));
            let (at, mean) = group1(&r);
            assert_eq!(at, Some(n), "{scheme}");
            assert!(
                mean >= n as f64 - 0.5 && mean <= n as f64 + 1.5,
                "{scheme} held at {n}: mean {mean:.2} segments (free: {natural:.2})"
            );
            assert!(
                (mean - natural).abs() > 1.0,
                "{scheme}: held at {n} it should differ from its free size {natural:.2}"
            );
            // The same pages are written; only GC's choices moved.
            assert_eq!(r.total.user_writes, free.total.user_writes);
            assert_ne!(r.total.gc_writes, free.total.gc_writes, "{scheme} at {n}");
        }
    }
}

#[test]
fn bad_group1_values_are_refused_naming_the_field() {
    for (spec, want) in [
        ("mida:group1=8,hot=filter", "hot=none"),
        ("mida:groups=1,group1=8", "at least two groups"),
        ("mida:group1=100000", "group1"),
        ("sepbit:group1=-1", "group1"),
        ("sepbit:group1=abc", "group1"),
    ] {
        let e = match Simulation::new(&config(spec)) {
            Ok(_) => panic!("{spec} was accepted"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(want), "{spec}: {e}");
    }
}

#[test]
fn a_size_the_other_groups_cannot_make_room_for_stops_with_a_clear_error() {
    // A quarter of a device with 10 % spare: the other groups would hold more data than
    // their segments can.
    let e = match Simulation::run_synthetic(&config("mida:group1=282"), &mut |_| {}) {
        Ok(_) => panic!("a size the device cannot hold ran"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("device full") && e.contains("`group1`"), "{e}");
}
