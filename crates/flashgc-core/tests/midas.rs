//! MiDAS (papers/midas.txt): MCAM accuracy on fixed configurations, the FIO-H comparison,
//! reconfiguration after a workload switch, and the irregular-pattern fallback.
//!
//! Devices are scaled down from `midas-128g` keeping its ratios (op 7.3 %, full logical
//! fill, GC below 0.1 % free). The scaled devices hold ~1/128 to 1/256 of the paper's LPNs,
//! so the UID samples every LPN (`sample=1`) to keep about as many tracked LPNs as the
//! paper's 1-in-100 sampling of a 128 GiB device.

use flashgc_core::placement::midas::mcam::GroupConfig;
use flashgc_core::placement::midas::{mcam, uid_from_workload, UidOptions};
use flashgc_core::placement::{self, PlacementInit};
use flashgc_core::workload::phased::{Phase, Phased};
use flashgc_core::workload::{Rng, Synthetic, SyntheticKind};
use flashgc_core::{Config, RunResult, Simulation};
use serde_json::Value;

/// `midas-128g` scaled down: 1 GiB logical in segments of 128 x 4 KiB pages, so the device
/// keeps the paper's ~2048 logical segments (128 GiB / 64 MiB); op 7.3 %, GC below 0.1 % free.
fn fio_h_device() -> Config {
    let mut c = Config::load(Some("midas-128g"), None).expect("preset");
    c.device.page_size = 4096;
    c.device.pages_per_block = 128;
    c.device.segment_blocks = 1;
    c.ftl.logical_gib = Some(1.0);
    c
}

/// Half of [`fio_h_device`] (64-page segments) for the many runs of the MCAM check.
fn small_device() -> Config {
    let mut c = fio_h_device();
    c.device.pages_per_block = 64;
    c.ftl.logical_gib = Some(0.5);
    c
}

/// The default preset at `gib` logical, op 20 % (the greedy and nested-fallback cases).
fn default_device_op20(gib: f64) -> Config {
    let mut c = Config::load(None, None).expect("defaults");
    c.ftl.logical_gib = Some(gib);
    c.ftl.op = Some(0.2);
    c
}

fn run(
    mut c: Config,
    workload: &str,
    placement: &str,
    victim: &str,
    volume: f64,
    warmup: f64,
) -> RunResult {
    c.run.workload = workload.into();
    c.run.placement = placement.into();
    c.run.victim = victim.into();
    c.run.write_volume = volume;
    c.run.warmup = Some(warmup);
    Simulation::run_synthetic(&c, &mut |_| {}).expect("run")
}

fn history(r: &RunResult) -> Vec<Value> {
    r.placement_report.as_ref().expect("midas report")["history"]
        .as_array()
        .expect("history")
        .clone()
}

fn registered(name: &str) -> bool {
    placement::names().contains(&name)
}

/// Must-show 1: MCAM's prediction for a fixed configuration, from the UID of the run's last
/// epoch (2 x capacity instead of the default 4, to keep the test short), is within 3 % of the simulated steady-state WAF on average over 10 random
/// configurations, for zipf 0.8, zipf 1.0 and hot/cold 80/20.
#[test]
fn mcam_predicts_fixed_configurations_within_3_percent() {
    let dev = small_device();
    let pps = dev.layout().unwrap().pages_per_segment;
    assert_eq!(pps, 64);
    let mut rng = Rng::new(2024);
    for w in ["zipf:0.8", "zipf:1.0", "hotcold:80/20"] {
        let mut errs = Vec::new();
        for _ in 0..10 {
            // HOT 0..6 segments, 1..4 cold groups, G1..G(N-1) of 10..120 segments; GN the rest.
            let mut sizes = vec![rng.below(7) as u32];
            let n = 1 + rng.below(4) as usize;
            for _ in 1..n {
                sizes.push(10 + rng.below(111) as u32);
            }
            sizes.push(1500);
            let cfg: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
            // Epochs of 2 capacities: the UID of the run's last epoch (user writes 4..6 x
            // capacity, the 1-capacity precondition included) covers the measured window.
            let spec = format!("midas:sample=1,epoch=2,fixed={}", cfg.join("/"));
            let r = run(dev.clone(), w, &spec, "fifo", 5.0, 3.0);
            let h = history(&r);
            let last = h.last().expect("an epoch entry");
            assert_eq!(last["event"], "epoch");
            assert!((last["capacity_written"].as_f64().unwrap() - 6.0).abs() < 0.01);
            let pred = last["predicted_waf"].as_f64().unwrap();
            let err = (pred - r.steady_state.waf) / r.steady_state.waf;
            println!(
                "{w} {}: simulated {:.4} MCAM {:.4} ({:+.2} %) v pred {} meas {}",
                cfg.join("/"),
                r.steady_state.waf,
                pred,
                err * 100.0,
                last["predicted_v"],
                last["measured_v"]
            );
            errs.push(err.abs());
        }
        let mean = errs.iter().sum::<f64>() / errs.len() as f64;
        println!("{w}: mean |error| {:.2} %", mean * 100.0);
        assert!(
            mean < 0.03,
            "{w}: MCAM mean error {:.2} % (>= 3 %)",
            mean * 100.0
        );
    }
}

/// The UID counts every write's interval by default (`uid_counts=all`): its estimate does
/// not depend on which LPNs the timestamp table samples. The paper's estimator (only the
/// sampled LPNs' intervals) does under zipf 1.0, where the hottest LPN alone takes ~7 % of
/// the writes: sampled 1 in 4 it weighs 4 times that or nothing (docs/midas.md: on the
/// scaled FIO-H device this moved MiDAS's steady-state WAF from 3.76 to 4.24 or 5.15 with
/// the seed). Reference: every LPN tracked (`sample=1`, where both estimators coincide).
#[test]
fn uid_from_every_write_is_robust_to_lpn_sampling() {
    let n: u64 = 1 << 16;
    let cfg = GroupConfig::parse("2/20/40/60").expect("config");
    let predict = |seed: u64, sample: u32, all: bool| {
        let mut wl = Synthetic::new(SyntheticKind::Zipf { theta: 1.0 }, n, 1, 0.0, seed);
        let o = UidOptions {
            fill: 1.0,
            writes: 7 * n,
            epoch: 4 * n,
            unit: 64,
            sample,
            hot_hits: 3,
            all_intervals: all,
            count_trims: true,
        };
        let uid = uid_from_workload(&mut wl, n, &o).expect("uid");
        let mut c = cfg.clone();
        c.sizes[3] = 1100 - 62;
        mcam::predict(&uid, &c, 64).waf
    };
    let (mut worst_all, mut worst_sampled) = (0.0f64, 0.0f64);
    for seed in 1..=4 {
        let reference = predict(seed, 1, true);
        let all = (predict(seed, 4, true) / reference - 1.0).abs();
        let sampled = (predict(seed, 4, false) / reference - 1.0).abs();
        println!(
            "seed {seed}: reference WAF {reference:.3}, error all {all:.4}, sampled {sampled:.4}"
        );
        worst_all = worst_all.max(all);
        worst_sampled = worst_sampled.max(sampled);
    }
    assert!(worst_all < 0.02, "uid_counts=all: worst error {worst_all}");
    assert!(
        worst_sampled > 2.0 * worst_all,
        "the sampled estimator is expected to be the noisier: {worst_sampled} vs {worst_all}"
    );
}

/// Must-show 2: the FIO-H setup (zipf 1.0, scaled `midas-128g`): MiDAS (FIFO victims) below
/// MiDA and SepBIT (cost-benefit), above the oracle; no fallback on a stationary workload.
///
/// CI-sized: 1 GiB logical in 512-page segments (552 segments; op, fill and GC threshold of
/// `midas-128g`). With 128-page segments MiDAS and SepBIT tie (docs/midas.md, FIO-H table:
/// cost-benefit exploits the spread of valid counts among small segments, FIFO does not);
/// with 512-page segments MiDAS is below SepBIT in every seed measured, here by ~11 %
/// (4.39-4.41 vs 4.92-4.93 over seeds 1-3) and on the 2208-segment 4 GiB device by ~5 %.
#[test]
fn fio_h_midas_against_baselines() {
    let mut dev = fio_h_device();
    dev.device.pages_per_block = 512;
    let (vol, warm) = (24.0, 16.0);
    let midas = run(dev.clone(), "zipf:1.0", "midas:sample=1", "fifo", vol, warm);
    let mida = run(dev.clone(), "zipf:1.0", "mida", "cost-benefit", vol, warm);
    let h = history(&midas);
    assert!(
        h.iter().all(|e| e["event"] != "fallback"),
        "stationary zipf must not fall back: {h:?}"
    );
    assert!(h.iter().any(|e| e["event"] == "first configuration"));
    println!(
        "MiDAS {:.4}  MiDA+CB {:.4}",
        midas.steady_state.waf, mida.steady_state.waf
    );
    assert!(
        midas.steady_state.waf < mida.steady_state.waf,
        "MiDAS {} vs MiDA {}",
        midas.steady_state.waf,
        mida.steady_state.waf
    );
    if registered("sepbit") {
        let sepbit = run(dev.clone(), "zipf:1.0", "sepbit", "cost-benefit", vol, warm);
        println!("SepBIT+CB {:.4}", sepbit.steady_state.waf);
        assert!(
            midas.steady_state.waf < sepbit.steady_state.waf,
            "MiDAS {} vs SepBIT {}",
            midas.steady_state.waf,
            sepbit.steady_state.waf
        );
    }
    if registered("oracle") {
        let ora = run(dev, "zipf:1.0", "oracle", "cost-benefit", vol, warm);
        println!(
            "ORA+CB {:.4} (MiDAS / ORA = {:.3})",
            ora.steady_state.waf,
            midas.steady_state.waf / ora.steady_state.waf
        );
        assert!(ora.steady_state.waf < midas.steady_state.waf);
    }
}

fn phased(dev: &Config, phases: &[(SyntheticKind, f64)], cycle: bool) -> Phased {
    let l = dev.layout().unwrap();
    Phased::new(
        phases
            .iter()
            .enumerate()
            .map(|(i, &(k, caps))| Phase {
                workload: Box::new(Synthetic::new(k, l.logical_pages, 1, 0.0, 7 + i as u64)),
                pages: Some((caps * l.logical_pages as f64) as u64),
            })
            .collect(),
        cycle,
    )
}

fn run_phased(dev: &Config, placement: &str, wl: &mut Phased, volume: f64) -> RunResult {
    let mut c = dev.clone();
    c.run.placement = placement.into();
    c.run.victim = "fifo".into();
    c.run.write_volume = volume;
    c.run.warmup = Some(volume / 2.0);
    let mut sim = Simulation::new(&c).unwrap();
    sim.run(wl, &mut |_| {}).unwrap()
}

/// Must-show 3: switching from zipf 1.0 to hot/cold 80/20 makes MiDAS adopt a new group
/// configuration, and the history shows it.
#[test]
fn workload_switch_triggers_reconfiguration() {
    let dev = small_device();
    let zipf = SyntheticKind::Zipf { theta: 1.0 };
    let hc = SyntheticKind::HotCold {
        write_share: 0.8,
        space_share: 0.2,
    };
    let mut wl = phased(&dev, &[(zipf, 11.0), (hc, 1e9)], false);
    let r = run_phased(&dev, "midas:sample=1", &mut wl, 24.0);
    let h = history(&r);
    for e in &h {
        println!("{e}");
    }
    let switch = 12.0; // 11 capacities after the 1-capacity precondition fill
    let before: Vec<&Value> = h
        .iter()
        .filter(|e| e["capacity_written"].as_f64().unwrap() < switch)
        .collect();
    let after: Vec<&Value> = h
        .iter()
        .filter(|e| e["capacity_written"].as_f64().unwrap() > switch)
        .collect();
    let adopted = |e: &&&Value| {
        let ev = e["event"].as_str().unwrap();
        ev == "reconfiguration"
            || ev == "configuration after fallback"
            || ev == "first configuration"
    };
    let last_before = before
        .iter()
        .rev()
        .find(adopted)
        .expect("a configuration before the switch");
    let new = after
        .iter()
        .find(adopted)
        .expect("a configuration adopted after the switch");
    assert_ne!(
        last_before["sizes"], new["sizes"],
        "the new configuration differs"
    );
    println!(
        "before: {} after: {} ({})",
        last_before["sizes"], new["sizes"], new["event"]
    );
}

/// A configuration change relabels the surplus of the groups it shrinks into the last group
/// (MiDAS's simulator, `change_config_2`; the paper's "only pointers ... are moved"): the
/// switch from zipf 1.0 to hot/cold 80/20 moves segments with `relabel=on` (the default)
/// and none with `relabel=off`, whose surplus is copied down the chain by GC instead. The
/// steady state hardly depends on it (measured 2026-11-26: see docs/midas.md).
#[test]
fn reconfiguration_relabels_instead_of_copying() {
    let dev = small_device();
    let zipf = SyntheticKind::Zipf { theta: 1.0 };
    let hc = SyntheticKind::HotCold {
        write_share: 0.8,
        space_share: 0.2,
    };
    let mut res = Vec::new();
    for spec in ["midas:sample=1", "midas:sample=1,relabel=off"] {
        let mut wl = phased(&dev, &[(zipf, 11.0), (hc, 1e9)], false);
        let r = run_phased(&dev, spec, &mut wl, 24.0);
        let rep = r.placement_report.clone().unwrap();
        println!(
            "{spec}: relabelled {}, adoptions {}, steady-state WAF {:.4}, total {:.4}, GC writes {}",
            rep["relabelled_segments"],
            rep["adoptions"],
            r.steady_state.waf,
            r.total.waf,
            r.total.gc_writes
        );
        assert!(
            rep["adoptions"].as_u64().unwrap() >= 2,
            "{}",
            rep["history"]
        );
        res.push((
            rep["relabelled_segments"].as_u64().unwrap(),
            r.steady_state.waf,
        ));
    }
    assert!(res[0].0 > 0, "nothing relabelled");
    assert_eq!(res[1].0, 0);
    let rel = res[0].1 / res[1].1 - 1.0;
    assert!(
        rel.abs() < 0.05,
        "steady state {:.4} vs {:.4}",
        res[0].1,
        res[1].1
    );
}

/// Must-show 4: a deliberately irregular workload (zipf 1.0 for 2 capacities, then 1
/// capacity of hot/cold 80/20, repeated): after each switch, data MCAM expects to die young
/// lives on, G1's victims are more valid than predicted by more than 0.1 (the simulator's
/// one-sided test, `irr_error=over`) and MiDAS falls back to MiDA over the merged groups.
#[test]
fn irregular_workload_triggers_fallback() {
    let dev = small_device();
    let zipf = SyntheticKind::Zipf { theta: 1.0 };
    let hc = SyntheticKind::HotCold {
        write_share: 0.8,
        space_share: 0.2,
    };
    let mut wl = phased(&dev, &[(zipf, 2.0), (hc, 1.0)], true);
    let r = run_phased(&dev, "midas:sample=1", &mut wl, 20.0);
    let h = history(&r);
    for e in &h {
        println!("{e}");
    }
    let fb: Vec<&Value> = h.iter().filter(|e| e["event"] == "fallback").collect();
    assert!(!fb.is_empty(), "no fallback in {h:?}");
    let irr = &fb[0]["irregular"];
    let (m, p) = (
        irr["measured"].as_f64().unwrap(),
        irr["predicted"].as_f64().unwrap(),
    );
    assert!(
        m - p >= 0.10 && irr["error"].as_f64().unwrap() >= 0.10,
        "{irr}"
    );
    assert!(fb[0]["mode"].as_str().unwrap().starts_with("fallback"));
    assert!(
        r.placement_report.as_ref().unwrap()["fallbacks"]
            .as_u64()
            .unwrap()
            >= 1
    );
    // The checks start once every sized group has given a victim under the configuration.
    let adopted = h
        .iter()
        .find(|e| e["event"] == "first configuration")
        .unwrap();
    let (at, from) = (
        adopted["capacity_written"].as_f64().unwrap(),
        adopted["checks_from"].as_f64().unwrap(),
    );
    assert!(from > at && fb[0]["capacity_written"].as_f64().unwrap() > from);
}

/// The irregularity test is one-sided, as MiDAS's simulator has it: bursts of uniform
/// writes (0.5 capacity every 2 capacities of zipf 1.0) invalidate data in every group, so
/// victims come out *less* valid than MCAM predicts. flashgc's earlier two-sided relative
/// rule (`irr_error=relative,irr_start=window,check=1,irr_after_fallback=stop`) fell back on that; the default does
/// not, as the groups do better than planned.
#[test]
fn irregularity_is_judged_one_way() {
    let dev = small_device();
    let zipf = SyntheticKind::Zipf { theta: 1.0 };
    let fallbacks = |spec: &str| {
        let mut wl = phased(&dev, &[(zipf, 2.0), (SyntheticKind::Uniform, 0.5)], true);
        let r = run_phased(&dev, spec, &mut wl, 20.0);
        let rep = r.placement_report.unwrap();
        let h = rep["history"].as_array().unwrap().clone();
        let fb: Vec<Value> = h.into_iter().filter(|e| e["event"] == "fallback").collect();
        fb
    };
    let earlier = fallbacks(
        "midas:sample=1,irr_error=relative,irr_start=window,check=1,irr_after_fallback=stop",
    );
    assert!(!earlier.is_empty());
    let irr = &earlier[0]["irregular"];
    assert!(
        irr["measured"].as_f64() < irr["predicted"].as_f64(),
        "{irr}"
    );
    assert!(fallbacks("midas:sample=1").is_empty());
}

/// Greedy victims on a small device (0.5 GiB, op 20 %, zipf 0.9): the greedy MiDA phase
/// leaves the first configuration a transient in which groups below their new sizes hold
/// the garbage. flashgc's earlier rule judged windows inside it, fell back, rebuilt the
/// same layout and re-adopted every epoch (docs/midas.md: 5 adoptions, 4 fallbacks, steady
/// state 3.68 against FIFO's 2.57). The simulator's rule starts judging once every sized
/// group has given a victim and counts only victims more valid than predicted: the run
/// settles as FIFO does.
#[test]
fn greedy_victims_settle_after_the_first_configuration() {
    let dev = || default_device_op20(0.5);
    let go = |spec: &str, victim: &str| {
        let r = run(dev(), "zipf:0.9", spec, victim, 24.0, 12.0);
        let rep = r.placement_report.clone().unwrap();
        let fb = rep["fallbacks"].as_u64().unwrap();
        println!(
            "{spec} / {victim}: fallbacks {fb}, steady state {:.3}",
            r.steady_state.waf
        );
        (fb, r.steady_state.waf)
    };
    let (fb_old, _) = go(
        "midas:irr_error=relative,irr_start=window,check=1,irr_after_fallback=stop",
        "greedy",
    );
    assert!(fb_old >= 3, "the earlier rule's loop: {fb_old} fallbacks");
    let (fb, waf) = go("midas", "greedy");
    let (_, fifo) = go("midas", "fifo");
    assert!(fb <= 1, "{fb} fallbacks");
    assert!(
        (waf / fifo - 1.0).abs() < 0.05,
        "greedy {waf:.3} vs fifo {fifo:.3}"
    );
}

/// In a fallback at Gk the groups before Gk are still judged, and an error there merges
/// further before the next epoch (the simulator's `err_handling` keeps running; the paper's
/// Fig. 14 counts five IrrHand invocations per epoch). 1 GiB default device, op 20 %, zipf
/// 0.9, cost-benefit victims: G7 -> G8 falls back at 7.3 capacities, then G6 -> G7 at 8.5,
/// both inside the first configuration's epoch. With `irr_after_fallback=stop` (flashgc's
/// earlier rule) nothing is judged after the first until the next adoption. GCS sizes new
/// groups greedily here (`split_scan=greedy`): the eight-group configuration it finds is the
/// one whose lower groups err; the full scan finds one that falls back once (G7 -> G8) and
/// does not merge further.
#[test]
fn a_fallback_merges_further_when_a_lower_group_errs() {
    let dev = || default_device_op20(1.0);
    // Fallbacks that follow another with no adoption between: (its group, the earlier's).
    let nested = |spec: &str| {
        let r = run(dev(), "zipf:0.9", spec, "cost-benefit:sqrt", 12.0, 6.0);
        let h = history(&r);
        let mut out = Vec::new();
        let mut last: Option<u64> = None;
        for e in &h {
            let k = e["irregular"]["transition"]
                .as_str()
                .and_then(|t| t.trim_start_matches('G').split("->").next()?.parse().ok());
            match (e["event"].as_str().unwrap(), k) {
                ("fallback", Some(k)) => {
                    if let Some(prev) = last {
                        out.push((k, prev));
                    }
                    last = Some(k);
                }
                ("keep", _) => {}
                _ => last = None,
            }
        }
        println!("{spec}: {out:?}");
        out
    };
    let n = nested("midas:split_scan=greedy");
    assert!(
        !n.is_empty() && n.iter().all(|&(k, prev)| k < prev),
        "{n:?}"
    );
    assert!(nested("midas:irr_after_fallback=stop,split_scan=greedy").is_empty());
}

/// A reconfiguration right after the precondition (1-capacity epochs) shrinks groups full of
/// never-overwritten data; GC must still make progress (the placement's safety net hands
/// the pick to the victim policy when size-driven picks free nothing).
#[test]
fn short_epochs_after_fill_do_not_stall_gc() {
    let r = run(
        small_device(),
        "zipf:1.0",
        "midas:epoch=1",
        "fifo",
        5.0,
        3.0,
    );
    let rep = r.placement_report.as_ref().unwrap();
    println!(
        "WAF {:.3}, stalled picks {}, history {}",
        r.steady_state.waf, rep["stalled_gc_picks"], rep["history"]
    );
    assert!(r.steady_state.waf.is_finite() && r.steady_state.waf > 1.0);
    assert!(rep["adoptions"].as_u64().unwrap() >= 1);
}

/// Robustness with greedy victims on a small device (288 segments of 256 pages, op 10 %):
/// the greedy MiDA phase leaves GN only (nearly) fully valid segments, and the first
/// configuration (at 6 capacities) gives HOT..G7 sizes above what they hold, so GC takes GN
/// victims that free nothing while the garbage sits in the sized groups. The safety net
/// must hand such picks to the policy over all groups; its test counted the pick being made
/// as fully freed, never fired, and the run failed with "device full".
#[test]
fn greedy_gn_without_garbage_trips_the_safety_net() {
    let mut c = Config::load(None, None).expect("default preset");
    c.ftl.logical_gib = Some(0.25);
    c.ftl.op = Some(0.1);
    c.run.workload = "zipf:0.9".into();
    c.run.placement = "midas".into();
    c.run.victim = "greedy".into();
    c.run.write_volume = 8.0;
    let r = Simulation::run_synthetic(&c, &mut |_| {}).expect("run, not device full");
    let rep = r.placement_report.as_ref().unwrap();
    println!(
        "WAF {:.3}, stalled picks {}",
        r.steady_state.waf, rep["stalled_gc_picks"]
    );
    assert!(rep["adoptions"].as_u64().unwrap() >= 1);
    assert!(rep["stalled_gc_picks"].as_u64().unwrap() > 0);
    assert!(r.steady_state.waf.is_finite() && r.steady_state.waf > 1.0);
}

/// The registry builds `mida` and `midas` and rejects bad parameters with the field name.
#[test]
fn registry_names_and_parameter_errors() {
    let init = PlacementInit {
        logical_pages: 1 << 16,
        segments: 600,
        pages_per_segment: 128,
        seed: 1,
    };
    let m = placement::build("run.placement", "mida:groups=5", init).unwrap();
    assert_eq!(m.streams(), 5);
    let m = placement::build("run.placement", "midas", init).unwrap();
    assert_eq!(m.streams(), 9);
    assert_eq!(m.stream_name(0), "HOT");
    let e = placement::build("run.placement", "midas:fixed=3/0/100", init)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("run.placement.fixed"), "{e}");
    let e = placement::build("run.placement", "midas:epoch=0", init)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("run.placement.epoch"), "{e}");
    let e = placement::build("run.placement", "midas:hot_model=magic", init)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("joint, paper"), "{e}");
    let e = placement::build("run.placement", "midas:uid_counts=some", init)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("run.placement.uid_counts") && e.contains("all, sampled"),
        "{e}"
    );
}

/// The FIO-H table of docs/midas.md (not part of the regular suite: about 15 minutes).
/// `cargo test --release -p flashgc-core --test midas -- --ignored --nocapture fio_h_table`
#[test]
#[ignore]
fn fio_h_table() {
    for (gib, ppb, sample) in [(1.0, 128, 1), (4.0, 512, 4)] {
        let mut dev = fio_h_device();
        dev.ftl.logical_gib = Some(gib);
        dev.device.pages_per_block = ppb;
        let l = dev.layout().unwrap();
        println!(
            "\n{gib} GiB logical, {} segments of {} pages, op {:.3}, zipf 1.0, 32 x capacity (steady state: last 16)",
            l.segments, l.pages_per_segment, l.op
        );
        println!("| placement | victim | seed 1 | seed 2 | seed 3 |");
        println!("|---|---|---|---|---|");
        let scaled = format!("midas:sample={sample}");
        let paper = format!("midas:sample={sample},uid_counts=sampled");
        let schemes = [
            (scaled.as_str(), "fifo"),
            ("midas", "fifo"),
            ("sepbit", "cost-benefit"),
            ("mida", "cost-benefit"),
            ("oracle", "cost-benefit"),
            (paper.as_str(), "fifo"),
            ("midas:uid_counts=sampled", "fifo"),
        ];
        for (spec, v) in schemes {
            if !registered(spec.split(':').next().unwrap_or(spec)) {
                continue;
            }
            let wafs: Vec<String> = (1..=3)
                .map(|seed| {
                    let mut d = dev.clone();
                    d.run.seed = seed;
                    format!(
                        "{:.3}",
                        run(d, "zipf:1.0", spec, v, 32.0, 16.0).steady_state.waf
                    )
                })
                .collect();
            println!("| {spec} | {v} | {} |", wafs.join(" | "));
        }
    }
}

fn event_entries<'a>(h: &'a [Value], prefix: &str) -> Vec<&'a Value> {
    h.iter()
        .filter(|e| e["event"].as_str().unwrap_or("").starts_with(prefix))
        .collect()
}

/// issue 17, the 8 GiB zipf 1.0 case scaled to 1 GiB (the same ~2200 segments): with
/// flashgc's earlier rules the first epoch's UID (which began at the precondition fill)
/// made GCS pick HOT + one cold group, adopted unconditionally although it was predicted
/// above the WAF the MiDA phase measured, and measured worse still in the next epoch. The
/// simulator's rules avoid it: the UID starts after the load plus a capacity (`uid_skip`)
/// and a configuration must be predicted below the measured WAF (`adopt=measured`).
#[test]
fn first_configuration_from_a_biased_uid_is_avoided() {
    let dev = fio_h_device;
    let old = "midas:sample=10,adopt=predicted,uid_skip=0,mida_hot=none,sized_victims=policy,split_scan=greedy";
    let cb = "cost-benefit:sqrt";
    let r_old = run(dev(), "zipf:1.0", old, cb, 12.0, 6.0);
    let h = history(&r_old);
    let first = event_entries(&h, "first configuration")[0];
    let groups = first["groups"].as_u64().unwrap();
    let pred = first["predicted_waf"].as_f64().unwrap();
    let before = first["measured_last_capacity"].as_f64().unwrap();
    let after = h[1]["measured_waf"].as_f64().unwrap();
    println!("old rules: first configuration {groups} cold group(s), predicted {pred:.2}, MiDA measured {before:.2}, next epoch {after:.2}");
    assert_eq!(groups, 1, "{first}");
    assert!(pred > before && after > 1.3 * before, "{h:?}");

    // The measured-WAF rule alone refuses that configuration (found by the same search).
    let r = run(
        dev(),
        "zipf:1.0",
        "midas:sample=10,uid_skip=0,mida_hot=none,sized_victims=policy,split_scan=greedy",
        cb,
        12.0,
        6.0,
    );
    let h = history(&r);
    assert!(
        h[0]["event"].as_str().unwrap().starts_with("not adopted"),
        "{:?}",
        h[0]
    );
    assert!(
        h[0]["gcs_choice"]["gcs_predicted_waf"].as_f64().unwrap()
            > h[0]["measured_last_capacity"].as_f64().unwrap()
    );

    // The defaults: the first configuration (after the UID warm-up) splits the cold data,
    // is predicted below the measured WAF, and the run ends well below the old rules'.
    let r_new = run(dev(), "zipf:1.0", "midas:sample=10", cb, 12.0, 6.0);
    let h = history(&r_new);
    assert!(
        h[0]["event"].as_str().unwrap().starts_with("UID warm-up"),
        "{:?}",
        h[0]
    );
    let first = event_entries(&h, "first configuration")[0];
    assert!(first["groups"].as_u64().unwrap() >= 4, "{first}");
    assert!(
        first["predicted_waf"].as_f64().unwrap()
            < first["measured_last_capacity"].as_f64().unwrap()
    );
    println!(
        "steady state: old rules {:.3}, defaults {:.3}",
        r_old.steady_state.waf, r_new.steady_state.waf
    );
    assert!(r_new.steady_state.waf < 0.9 * r_old.steady_state.waf);
}

/// papers/midas.txt Fig. 12 steps: MiDA, +HotSep, +GrpConf (UID + MCAM + GCS), +IrrHand.
/// MiDAS without group configuration is MiDA with the HOT group (the same decisions as
/// `mida:hot=filter`, bit for bit); without HOT no configuration has one; without the
/// irregularity handling the irregular workload never falls back.
#[test]
fn fig12_breakdown_switches() {
    let dev = small_device;
    let cb = "cost-benefit:sqrt";
    let a = run(
        dev(),
        "zipf:1.0",
        "midas:sample=1,grpconf=off",
        cb,
        8.0,
        4.0,
    );
    let b = run(dev(), "zipf:1.0", "mida:hot=filter", cb, 8.0, 4.0);
    assert_eq!(a.total, b.total, "MiDAS without GrpConf = MiDA + HOT");
    assert_eq!(a.placement_report.as_ref().unwrap()["adoptions"], 0);
    let plain = run(dev(), "zipf:1.0", "mida", cb, 8.0, 4.0);
    println!(
        "MiDA {:.3}, +HotSep {:.3}",
        plain.steady_state.waf, b.steady_state.waf
    );
    assert_ne!(plain.total, b.total);

    let r = run(
        dev(),
        "zipf:1.0",
        "midas:sample=1,hot=off",
        "fifo",
        8.0,
        4.0,
    );
    let rep = r.placement_report.as_ref().unwrap();
    assert!(rep["adoptions"].as_u64().unwrap() >= 1);
    for e in history(&r) {
        if let Some(s) = e["sizes"].as_array().and_then(|s| s.first()) {
            assert_eq!(s.as_u64(), Some(0), "{e}");
        }
    }
    assert_eq!(rep["victims_per_stream"][0], 0);

    let zipf = SyntheticKind::Zipf { theta: 1.0 };
    let mut wl = phased(&dev(), &[(zipf, 2.0), (SyntheticKind::Uniform, 0.5)], true);
    let r = run_phased(&dev(), "midas:sample=1,irrhand=off", &mut wl, 20.0);
    let rep = r.placement_report.as_ref().unwrap();
    assert_eq!(rep["fallbacks"], 0);
    assert!(rep["adoptions"].as_u64().unwrap() >= 1);
}

/// Groups with a designated size are FIFO queues whatever the victim policy (MiDAS's
/// simulator, MCAM's assumption): with FIFO victims the switch changes nothing; with greedy
/// victims `sized_victims=policy` differs.
#[test]
fn sized_groups_take_fifo_victims_whatever_the_policy() {
    let dev = small_device;
    let fixed = "midas:sample=1,fixed=3/40/60";
    let f1 = run(dev(), "zipf:1.0", fixed, "fifo", 6.0, 3.0);
    let f2 = run(
        dev(),
        "zipf:1.0",
        &format!("{fixed},sized_victims=policy"),
        "fifo",
        6.0,
        3.0,
    );
    assert_eq!(f1.total, f2.total);
    let g1 = run(dev(), "zipf:1.0", fixed, "greedy", 6.0, 3.0);
    let g2 = run(
        dev(),
        "zipf:1.0",
        &format!("{fixed},sized_victims=policy"),
        "greedy",
        6.0,
        3.0,
    );
    assert_ne!(g1.total, g2.total);
    // The FIFO groups' measured valid ratios track MCAM with either victim policy in GN.
    for r in [&f1, &g1] {
        let h = history(r);
        let e = h.last().unwrap();
        let (m, p) = (&e["measured_v"], &e["predicted_v"]);
        let (m1, p1) = (m[1].as_f64().unwrap(), p[1].as_f64().unwrap());
        println!("G1 victims: measured {m1:.3}, MCAM {p1:.3}");
        assert!((m1 - p1).abs() < 0.05, "{e}");
    }
}
