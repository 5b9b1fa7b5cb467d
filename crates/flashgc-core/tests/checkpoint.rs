//! Checkpoint and resume: a run interrupted at several points and resumed from its
//! checkpoints ends with the same result JSON, byte for byte, as an uninterrupted run; every
//! registered placement and victim policy restores its state exactly; damaged, truncated
//! and foreign files give clear errors.

mod common;

use common::ckpt::{json, same, small, synthetic, tmp};
use common::identity::{checkpoint_at, first_difference, last_periodic};
use flashgc_core::checkpoint::CheckpointReader;
use flashgc_core::sim::{RunControl, RunEnd};
use flashgc_core::workload::{Rng, Workload};
use flashgc_core::{placement, victim, Config, Simulation};
use std::path::{Path, PathBuf};

/// How a test opens its workload: synthetic from the config, or a trace file.
type Open<'a> = &'a dyn Fn(&Config) -> Box<dyn Workload>;

fn uninterrupted(c: &Config, open: Open) -> String {
    let mut sim = Simulation::new(c).unwrap();
    if sim.needs_future() {
        sim.prepare_future(open(c).as_mut()).unwrap();
    }
    json(&sim.run(open(c).as_mut(), &mut |_| {}).unwrap())
}

/// Runs `c`, stopping (with a checkpoint) after each number of requests in `stops`,
/// resuming each time from the file alone; returns the final JSON.
fn interrupted(c: &Config, open: Open, stops: &[u64], file: &Path) -> String {
    let mut sim = Simulation::new(c).unwrap();
    if sim.needs_future() {
        sim.prepare_future(open(c).as_mut()).unwrap();
    }
    let mut stops = stops.iter();
    let mut next = stops.next().copied();
    loop {
        let mut wl = open(c);
        let mut ctl = RunControl {
            checkpoint: Some(file.to_path_buf()),
            stop_after_requests: next,
            caller: serde_json::json!({"test": true}),
            ..RunControl::default()
        };
        match sim.run_with(wl.as_mut(), &mut |_| {}, &mut ctl).unwrap() {
            RunEnd::Finished(r) => {
                assert!(next.is_none(), "finished before the stop at {next:?}");
                return json(&r);
            }
            RunEnd::Stopped {
                partial,
                checkpoint,
            } => {
                assert_eq!(partial.ended_by, "interrupted");
                assert!(partial.notes.iter().any(|n| n.starts_with("PARTIAL")));
                let info = checkpoint.expect("a checkpoint was written");
                assert_eq!(Some(info.requests), next);
                // Drop everything in memory: the run goes on from the file alone.
                drop(sim);
                let r = CheckpointReader::open(file).unwrap();
                assert_eq!(r.meta.caller["test"], true);
                assert_eq!(r.meta.requests, info.requests);
                sim = Simulation::from_checkpoint(r).unwrap();
                if sim.needs_future() {
                    sim.prepare_future(open(c).as_mut()).unwrap();
                }
                next = stops.next().copied();
            }
        }
    }
}

#[test]
fn resumed_runs_equal_uninterrupted_runs_byte_for_byte() {
    // (placement, victim, workload): the brief's set plus classifier schemes.
    let cases = [
        ("single", "greedy", "uniform"),
        ("sup-gc", "greedy", "zipf:1.0"),
        ("bf-gc", "greedy", "hotcold:80/20"),
        ("sepbit", "cost-benefit", "zipf:0.9"),
        ("midas:epoch=0.5,check=0.25", "fifo", "hotcold:90/10"),
        ("oracle", "greedy", "zipf:1.0"),
        ("mida", "fifo", "uniform"),
        // The first group held at a size (the MiDAS paper's Fig. 3(b)).
        ("mida:group1=12", "cost-benefit", "zipf:0.9"),
        ("sepbit:group1=12", "cost-benefit", "zipf:0.9"),
        ("single", "random", "uniform"),
        // Victims the placement names (Multi-Log), MiDAS's FIFO groups with greedy in GN.
        ("multilog", "fifo", "zipf:1.0"),
        (
            "midas:epoch=0.5,check=0.25,uid_skip=0.5",
            "greedy",
            "zipf:1.0",
        ),
        // The authors' last group: epoch ends wait for the segment view (a stop may fall
        // between an epoch's last write and its end) and count static segments.
        (
            "midas:epoch=0.5,check=0.25,uid_skip=0.5,gn_model=greedy,gn_static_min=0",
            "greedy",
            "hotcold:99/50",
        ),
    ];
    // 16 Ki logical pages x 4 = 64 Ki writes: stops early (during the first GCs), mid-run
    // (around the warm-up boundary) and late.
    let stops = [3_000u64, 20_000, 33_333, 60_001];
    for (p, v, w) in cases {
        let c = small(w, p, v);
        let want = uninterrupted(&c, &synthetic);
        let file = tmp(&format!("{}-{v}.ckpt", p.replace([':', ',', '='], "_")));
        let got = interrupted(&c, &synthetic, &stops, &file);
        same(
            &want,
            &got,
            &format!("{p} + {v} on {w}: resumed result differs from the uninterrupted run"),
        );
        // A run with more stops than requests served before them is still equal.
        let got1 = interrupted(&c, &synthetic, &[1], &file);
        same(
            &want,
            &got1,
            &format!("{p} + {v}: resume after one request differs"),
        );
        let _ = std::fs::remove_file(&file);
    }
}

/// A MiDAS history entry can hold a non-finite float (the configuration in force,
/// infeasible on the new UID), which JSON writes as null; the checkpoint decoded that null
/// as "absent", and the resumed report lost the field (found by `META_SEED=2`).
#[test]
fn a_midas_history_null_survives_a_resume() {
    let mut c = small("uniform", "midas:epoch=0.5,check=0.25", "d-choices");
    (c.device.channels, c.device.chips_per_channel) = (1, 2);
    (c.device.dies_per_chip, c.device.planes_per_die) = (1, 2);
    c.device.pages_per_block = 8;
    c.ftl.logical_gib = Some(1.0 / 64.0);
    c.ftl.op = Some(0.2);
    c.ftl.gc_low = flashgc_core::config::Watermark::Segments(2);
    c.ftl.gc_high = Some(c.ftl.gc_low);
    (c.run.request_pages, c.run.fill) = (2, 0.6);
    (c.run.seed, c.run.write_volume) = (987, 3.0);
    let want = uninterrupted(&c, &synthetic);
    let null = want.contains("\"current_on_new_uid\": null");
    assert!(null, "no null entry to resume");
    let got = interrupted(&c, &synthetic, &[5_293], &tmp("midas-null.ckpt"));
    same(&want, &got, "MiDAS resumed before a null history field");
}

#[test]
fn resumed_dedup_runs_equal_uninterrupted_runs_byte_for_byte() {
    // Content mode: every GC action (faithful and upper-bound variants) with its victim
    // policy, 30 % duplicate content, reads checked against the last write.
    let cases = [
        ("splitgc", "splitgc"),
        ("splitgc:writeback=once", "splitgc:rule=dup-first"),
        ("cagc", "greedy"),
        ("cagc:index=full", "greedy"),
        ("dagc", "dagc"),
        ("dagc:cache=unbounded", "dagc"),
    ];
    let stops = [3_000u64, 20_000, 33_333];
    for (a, v) in cases {
        let mut c = small("zipf:0.8", "single", v);
        c.run.gc_action = a.into();
        c.run.read_ratio = 0.2;
        c.content.dup_ratio = 0.3;
        c.content.pool = 256;
        let want = uninterrupted(&c, &synthetic);
        assert!(want.contains("\"dedup\""), "{a}: no dedup section");
        let file = tmp(&format!("dedup-{}.ckpt", a.replace([':', ',', '='], "_")));
        let got = interrupted(&c, &synthetic, &stops, &file);
        same(&want, &got, &format!("{a} + {v}"));
        let _ = std::fs::remove_file(&file);
    }
}

#[test]
fn resumed_runs_with_the_garbage_trigger_equal_uninterrupted_runs() {
    // The garbage-proportion trigger's counter of invalid pages in sealed segments is
    // rebuilt from the segment table on resume.
    for (p, v) in [
        ("single", "greedy:min_garbage=0.15"),
        ("sepbit", "cost-benefit:sqrt"),
    ] {
        let mut c = small("zipf:1.0", p, v);
        c.ftl.op = Some(0.5);
        c.ftl.gc_trigger = flashgc_core::config::GcTrigger::Garbage(0.15);
        let want = uninterrupted(&c, &synthetic);
        let file = tmp(&format!("garbage-{p}.ckpt"));
        let got = interrupted(&c, &synthetic, &[3_000, 20_000, 33_333, 60_001], &file);
        same(
            &want,
            &got,
            &format!("{p} + {v} with gc_trigger garbage:0.15"),
        );
        let _ = std::fs::remove_file(&file);
    }
}

/// Writes a small MSR-format trace (seeded, hot/cold-skewed writes with some reads and
/// multi-page requests) and returns its path.
fn make_trace(pages: u64, requests: u64) -> PathBuf {
    make_trace_of(&tmp("trace.csv"), pages, requests, 1)
}

/// [`make_trace`] at `path`, its requests spread over `volumes` disks.
fn make_trace_of(path: &Path, pages: u64, requests: u64, volumes: u64) -> PathBuf {
    let mut rng = Rng::new(42);
    let mut out = String::new();
    for i in 0..requests {
        let hot = rng.below(10) < 8;
        let lpn = if hot {
            rng.below(pages / 5)
        } else {
            pages / 5 + rng.below(pages - pages / 5 - 4)
        };
        let n = 1 + rng.below(4);
        let op = if rng.below(10) < 2 { "Read" } else { "Write" };
        // The volume number comes last: one volume draws the same numbers as before.
        let disk = if volumes > 1 { rng.below(volumes) } else { 0 };
        out.push_str(&format!(
            "{},hm,{disk},{op},{},{},100\n",
            128_166_385_295_514_663u64 + i * 1000,
            lpn * 4096,
            n * 4096
        ));
    }
    std::fs::write(path, out).unwrap();
    path.to_path_buf()
}

#[test]
fn resumed_trace_runs_equal_uninterrupted_runs() {
    let c0 = small("uniform", "single", "greedy");
    let pages = c0.layout().unwrap().logical_pages;
    let trace = make_trace(pages, 40_000);
    let open = |c: &Config| -> Box<dyn Workload> {
        let l = c.layout().unwrap();
        flashgc_trace::open_workload(
            &trace,
            &flashgc_trace::TraceOptions::default(),
            l.lpn_size,
            l.logical_pages,
        )
        .unwrap()
    };
    for (p, v) in [
        ("sepbit", "greedy"),
        ("oracle", "greedy"),
        ("sup-gc", "cost-benefit"),
    ] {
        let mut c = small(&format!("trace:{}", trace.display()), p, v);
        c.run.warmup = None;
        let want = uninterrupted(&c, &open);
        let file = tmp(&format!("trace-{p}.ckpt"));
        let got = interrupted(&c, &open, &[5_000, 17_000, 39_999], &file);
        same(
            &want,
            &got,
            &format!("{p} + {v} on a trace: resumed result differs"),
        );
        let _ = std::fs::remove_file(&file);
    }
    // A different trace file is refused with a clear error.
    let mut c = small(&format!("trace:{}", trace.display()), "single", "greedy");
    c.run.warmup = None;
    let file = tmp("trace-changed.ckpt");
    let mut sim = Simulation::new(&c).unwrap();
    let mut ctl = RunControl {
        checkpoint: Some(file.clone()),
        stop_after_requests: Some(1000),
        ..RunControl::default()
    };
    let end = sim
        .run_with(open(&c).as_mut(), &mut |_| {}, &mut ctl)
        .unwrap();
    assert!(matches!(end, RunEnd::Stopped { .. }));
    make_trace(pages, 40_001);
    let e = Simulation::from_checkpoint(CheckpointReader::open(&file).unwrap())
        .err()
        .expect("a changed trace must be refused")
        .to_string();
    assert!(
        e.contains("is not the file the checkpoint was taken on"),
        "{e}"
    );
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&trace);
}

/// Every registered placement and victim policy: saving its state at a point of a run,
/// loading it into a freshly built instance and going on gives the same result as going
/// on without the round trip. A scheme added without save/load fails here.
#[test]
fn every_registered_policy_round_trips_its_state() {
    let placements: Vec<&str> = placement::REGISTRY.iter().map(|r| r.0).collect();
    let victims: Vec<&str> = victim::REGISTRY.iter().map(|r| r.0).collect();
    let mut cases: Vec<(String, &str)> = placements
        .iter()
        .map(|p| {
            // MiDAS with short epochs so its UID/GCS/history state is exercised.
            let spec = if *p == "midas" {
                "midas:epoch=0.5,check=0.25".to_string()
            } else {
                p.to_string()
            };
            (spec, if *p == "midas" { "fifo" } else { "greedy" })
        })
        .collect();
    cases.extend(victims.iter().map(|v| ("sup-gc".to_string(), *v)));
    for (p, v) in &cases {
        let mut c = small("zipf:0.8", p, v);
        c.run.write_volume = 3.0;
        c.run.warmup = Some(1.0);
        let want = uninterrupted(&c, &synthetic);
        let file = tmp(&format!("reg-{}-{v}.ckpt", p.replace([':', ',', '='], "_")));
        let got = interrupted(&c, &synthetic, &[30_001], &file);
        same(
            &want,
            &got,
            &format!("{p} + {v}: state round trip changes the result"),
        );
        let _ = std::fs::remove_file(&file);
    }
}

/// Checkpoints are part of the record: for `c`, (a) two identical runs write identical
/// bytes, and (b) a run resumed from a checkpoint and checkpointed again later writes the
/// bytes the uninterrupted run writes at that point.
fn assert_identical_checkpoints(
    what: &str,
    c: &Config,
    open: Open,
    timing: Option<&flashgc_core::timing::TimingParams>,
    (first, later): (u64, u64),
) {
    let tag = what.replace([':', ',', '=', '/', ' '], "_");
    let files: Vec<PathBuf> = ["a", "b", "u", "r"]
        .iter()
        .map(|x| tmp(&format!("identity-{tag}-{x}.ckpt")))
        .collect();
    let a = checkpoint_at(c, open, timing, None, first, &files[0]);
    let b = checkpoint_at(c, open, timing, None, first, &files[1]);
    if let Some(d) = first_difference(&a, &b) {
        panic!("{what}: two identical runs write different checkpoints at {first} requests: {d}");
    }
    let u = checkpoint_at(c, open, timing, None, later, &files[2]);
    let r = checkpoint_at(c, open, timing, Some(&files[0]), later, &files[3]);
    if let Some(d) = first_difference(&u, &r) {
        panic!(
            "{what}: resumed at {first} requests, the checkpoint at {later} differs from the uninterrupted run's: {d}"
        );
    }
    for f in files {
        let _ = std::fs::remove_file(f);
    }
}

/// Same configuration and seed, same checkpoint bytes: for every registered placement
/// (with its paper's victim policy), victim policy and GC action, a timed run and a trace
/// replay, two identical runs write identical checkpoints, and so does a resumed run at a
/// later point (a structure saved in hash-map or heap order, or with the resumed run's
/// own history, fails here). A scheme added to a registry is covered automatically.
#[test]
fn checkpoints_are_byte_identical_for_every_scheme() {
    // 16 Ki logical pages: the first checkpoint comes after the first GCs, the second
    // past the warm-up.
    let points = (9_000, 30_001);
    for r in placement::REGISTRY {
        // MiDAS with short epochs so its UID/GCS/history state is exercised.
        let p = if r.0 == "midas" {
            "midas:epoch=0.5,check=0.25"
        } else {
            r.0
        };
        let c = small("zipf:0.9", p, r.3);
        assert_identical_checkpoints(&format!("{p} + {}", r.3), &c, &synthetic, None, points);
    }
    for r in victim::REGISTRY {
        let c = small("zipf:0.9", "sup-gc", r.0);
        assert_identical_checkpoints(&format!("sup-gc + {}", r.0), &c, &synthetic, None, points);
    }
    for r in flashgc_core::gc_action::REGISTRY {
        // The GC actions that name their own victim policy get it.
        let v = if victim::REGISTRY.iter().any(|v| v.0 == r.0) {
            r.0
        } else {
            "greedy"
        };
        let mut c = small("zipf:0.8", "single", v);
        c.run.gc_action = r.0.into();
        c.run.read_ratio = 0.2;
        c.content.dup_ratio = 0.3;
        c.content.pool = 256;
        assert_identical_checkpoints(&format!("{} + {v}", r.0), &c, &synthetic, None, points);
    }
    // A timed run (device queues, write cache, closed-loop slots, histograms) of the
    // classifier schemes with the most state.
    let timed = flashgc_core::timing::TimingParams {
        gc_mode: flashgc_core::timing::GcMode::Preemptible,
        cache_pages: 256,
        cache_policy: flashgc_core::timing::CachePolicy::Gcar,
        host: flashgc_core::timing::Host::ClosedLoop { queue_depth: 8 },
        ..Default::default()
    };
    for (p, v) in [
        ("sepbit", "cost-benefit"),
        ("midas:epoch=0.5,check=0.25", "fifo"),
    ] {
        let mut c = small("zipf:0.9", p, v);
        c.run.read_ratio = 0.3;
        let what = format!("timed {p} + {v}");
        assert_identical_checkpoints(&what, &c, &synthetic, Some(&timed), points);
    }
    // Periodic checkpoints of a run resumed from a stop anywhere come at the requests of
    // the uninterrupted run's (safe points are counted from the measured phase's start).
    for timing in [None, Some(&timed)] {
        let c = small("zipf:0.9", "sepbit", "cost-benefit");
        let u = last_periodic(
            &c,
            &synthetic,
            timing,
            None,
            &tmp("identity-periodic-u.ckpt"),
        );
        let stop = Some(9_001);
        let r = last_periodic(
            &c,
            &synthetic,
            timing,
            stop,
            &tmp("identity-periodic-r.ckpt"),
        );
        if let Some(d) = first_difference(&u, &r) {
            let t = if timing.is_some() { "timed" } else { "WAF" };
            panic!("{t}: the resumed run's last periodic checkpoint differs: {d}");
        }
    }
    // A trace replayed through `--remap compact` over several volumes (the remap table
    // and the volume names are hash maps).
    let c0 = small("uniform", "single", "greedy");
    let pages = c0.layout().unwrap().logical_pages;
    let trace = make_trace_of(&tmp("identity-trace.csv"), pages / 4, 40_000, 3);
    let open = |c: &Config| -> Box<dyn Workload> {
        let l = c.layout().unwrap();
        let opts = flashgc_trace::TraceOptions {
            remap: flashgc_trace::Remap::Compact,
            ..Default::default()
        };
        flashgc_trace::open_workload(&trace, &opts, l.lpn_size, l.logical_pages).unwrap()
    };
    let mut c = small(
        &format!("trace:{}", trace.display()),
        "sepbit",
        "cost-benefit",
    );
    c.run.warmup = None;
    assert_identical_checkpoints("trace sepbit", &c, &open, None, (5_000, 17_000));
    let _ = std::fs::remove_file(&trace);
}

fn checkpoint_file() -> (Config, PathBuf) {
    let c = small("uniform", "sepbit", "cost-benefit");
    let file = tmp("damage.ckpt");
    let mut sim = Simulation::new(&c).unwrap();
    let mut wl = sim.synthetic_workload().unwrap();
    let mut ctl = RunControl {
        checkpoint: Some(file.clone()),
        stop_after_requests: Some(25_000),
        ..RunControl::default()
    };
    sim.run_with(&mut wl, &mut |_| {}, &mut ctl).unwrap();
    (c, file)
}

fn load_err(path: &Path) -> String {
    match CheckpointReader::open(path).and_then(Simulation::from_checkpoint) {
        Ok(_) => panic!("{}: a damaged checkpoint was accepted", path.display()),
        Err(e) => {
            assert!(matches!(e, flashgc_core::Error::Input(_)), "{e:?}");
            e.to_string()
        }
    }
}

#[test]
fn damaged_truncated_and_foreign_checkpoints_are_refused_clearly() {
    let (_c, file) = checkpoint_file();
    let good = std::fs::read(&file).unwrap();
    assert!(CheckpointReader::open(&file)
        .and_then(Simulation::from_checkpoint)
        .is_ok());
    let bad = tmp("bad.ckpt");
    let name = bad.display().to_string();
    // Truncated anywhere.
    for cut in [0, 5, 30, good.len() / 3, good.len() - 1] {
        std::fs::write(&bad, &good[..cut]).unwrap();
        let e = load_err(&bad);
        assert!(e.contains(&name), "{e}");
        assert!(
            e.contains("truncated") || e.contains("not a flashgc checkpoint"),
            "cut {cut}: {e}"
        );
    }
    // A flipped bit anywhere in the body: damaged (CRC, or a section that no longer parses).
    for pos in [40, 200, good.len() / 2, good.len() - 3] {
        let mut b = good.clone();
        b[pos] ^= 0x10;
        std::fs::write(&bad, &b).unwrap();
        let e = load_err(&bad);
        assert!(
            e.contains("damaged") || e.contains("CRC"),
            "byte {pos}: {e}"
        );
    }
    // Another format version, another flashgc version, not a checkpoint at all.
    let mut b = good.clone();
    b[8] = 99;
    std::fs::write(&bad, &b).unwrap();
    let e = load_err(&bad);
    assert!(e.contains("format version 99"), "{e}");
    let mut b = good.clone();
    let vlen = u16::from_le_bytes([b[12], b[13]]) as usize;
    b[14 + vlen - 1] = b'9';
    std::fs::write(&bad, &b).unwrap();
    let e = load_err(&bad);
    assert!(e.contains("written by flashgc"), "{e}");
    std::fs::write(&bad, b"Timestamp,Hostname\n1,2\n").unwrap();
    let e = load_err(&bad);
    assert!(e.contains("not a flashgc checkpoint"), "{e}");
    let _ = std::fs::remove_file(&bad);
    let _ = std::fs::remove_file(&file);
}

#[test]
fn periodic_checkpoints_replace_each_other_atomically() {
    let c = small("uniform", "single", "greedy");
    // Its own folder: the test looks for temporary files left behind.
    let file = tmp("periodic").join("periodic.ckpt");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&file);
    let mut sim = Simulation::new(&c).unwrap();
    let mut wl = sim.synthetic_workload().unwrap();
    let mut seen = Vec::new();
    let mut cb = |i: &flashgc_core::sim::CheckpointInfo| seen.push(i.user_pages);
    let mut ctl = RunControl {
        checkpoint: Some(file.clone()),
        every_user_pages: Some(16_384),
        on_checkpoint: Some(&mut cb),
        ..RunControl::default()
    };
    let end = sim.run_with(&mut wl, &mut |_| {}, &mut ctl).unwrap();
    assert!(matches!(end, RunEnd::Finished(_)));
    // 64 Ki user pages: checkpoints after passing 16 Ki, 32 Ki and 48 Ki (at the next safe
    // point), none at the end.
    let target = (c.run.write_volume * c.layout().unwrap().logical_pages as f64).round() as u64;
    assert!(seen.len() >= 3, "{seen:?}");
    for (k, &w) in seen.iter().enumerate() {
        let due = (k as u64 + 1) * 16_384;
        assert!(w >= due && w < due + 4096 && w < target, "{seen:?}");
    }
    // The last checkpoint resumes to the uninterrupted result; no temporary file is left.
    let want = uninterrupted(&c, &synthetic);
    let mut sim = Simulation::from_checkpoint(CheckpointReader::open(&file).unwrap()).unwrap();
    let mut wl = synthetic(&c);
    let got = json(&sim.run(wl.as_mut(), &mut |_| {}).unwrap());
    same(&want, &got, "periodic");
    let dir = file.parent().unwrap();
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_stopped_run_continues_in_memory() {
    let c = small("zipf:1.0", "bf-gc", "greedy");
    let want = uninterrupted(&c, &synthetic);
    let mut sim = Simulation::new(&c).unwrap();
    let mut wl = sim.synthetic_workload().unwrap();
    let mut r = None;
    for stop in [10_000, 10_000, 40_000, u64::MAX] {
        let mut ctl = RunControl {
            stop_after_requests: Some(stop),
            ..RunControl::default()
        };
        match sim.run_with(&mut wl, &mut |_| {}, &mut ctl).unwrap() {
            RunEnd::Stopped { checkpoint, .. } => assert!(checkpoint.is_none()),
            RunEnd::Finished(f) => r = Some(f),
        }
    }
    same(&want, &json(&r.expect("finished")), "continued in memory");
}
