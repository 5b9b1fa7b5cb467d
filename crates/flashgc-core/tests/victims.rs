//! Hand-worked tiny cases: the exact victim sequence and page moves of every victim policy.
//!
//! Device: 7 segments x 4 pages, 12 LPNs, one stream, GC when fewer than 2 segments are
//! free. The free pool hands out segments in order 0, 1, 2, ... and takes erased ones back
//! at its end. Writes (clock = user writes so far):
//!
//! ```text
//! fill 0..11          seg0=[0,1,2,3]@4  seg1=[4,5,6,7]@8  seg2=[8,9,10,11]@12
//! 0,1,4,8             seg3=[0,1,4,8]@16     (seg0: 2 valid, seg1: 3, seg2: 3)
//! 0,1,4,9             seg4=[0,1,4,9]@20     (seg3: 1 valid [8], seg2: 2 [10,11])
//! 5 (clock 21)        seg1: 2 valid [6,7]; seg5 opened, 1 segment left free -> GC
//! ```
//!
//! At that GC (u = valid/4, age = 21 - seal time):
//!
//! | seg | valid | age | LFS (1-u)age/(1+u) | sqrt (1-u)/u*sqrt(age) | FEMU age(1-u)/(2u) |
//! |-----|-------|-----|--------------------|------------------------|--------------------|
//! | 0   | 2     | 17  | 5.667              | 4.123                  | 8.5                |
//! | 1   | 2     | 13  | 4.333              | 3.606                  | 6.5                |
//! | 2   | 2     | 9   | 3.0                | 3.0                    | 4.5                |
//! | 3   | 1     | 5   | 3.0                | 6.708                  | 7.5                |
//! | 4   | 4     | 1   | 0                  | 0                      | 0                  |
//!
//! greedy -> seg3 (1 move); FIFO -> seg0 (2 moves); LFS -> seg0; sqrt -> seg3; FEMU -> seg0;
//! windowed w=2 (seg0, seg1 tie at 2 valid: the older wins) -> seg0; windowed w=4 -> seg3.

use flashgc_core::{Config, Simulation};

fn device(victim: &str, placement: &str) -> Simulation {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = None;
    c.ftl.op = Some(1.3);
    c.device.channels = 1;
    c.device.chips_per_channel = 1;
    c.device.dies_per_chip = 1;
    c.device.planes_per_die = 1;
    c.device.blocks_per_plane = if placement == "single" { 7 } else { 12 };
    c.device.pages_per_block = 4;
    c.run.victim = victim.into();
    c.run.placement = placement.into();
    let mut sim = Simulation::new(&c).expect("valid tiny device");
    assert_eq!(
        sim.layout().logical_pages,
        if placement == "single" { 12 } else { 20 }
    );
    sim.ftl_mut().set_victim_log(true);
    sim.ftl_mut().set_check_after_gc(true);
    sim
}

fn write_all(sim: &mut Simulation, lpns: &[u32]) {
    for &l in lpns {
        sim.ftl_mut().write(l).expect("write");
    }
}

/// Runs the scenario up to and including the first GC.
fn first_gc(victim: &str) -> Simulation {
    let mut sim = device(victim, "single");
    write_all(&mut sim, &(0..12).collect::<Vec<_>>());
    write_all(&mut sim, &[0, 1, 4, 8, 0, 1, 4, 9]);
    assert!(
        sim.ftl().victim_log().is_empty(),
        "no GC before the trigger"
    );
    write_all(&mut sim, &[5]);
    sim.ftl().check().expect("invariants");
    sim
}

#[test]
fn greedy_exact_sequence() {
    let mut sim = first_gc("greedy");
    assert_eq!(sim.ftl().victim_log(), &[(3, 1)]);
    // LPN 8 moved to the new frontier (seg5, page 0), then the user write of 5 (page 1).
    assert_eq!(sim.ftl().mapping().lookup(8), Some(5 * 4));
    assert_eq!(sim.ftl().mapping().lookup(5), Some(5 * 4 + 1));
    // 6 and 7 empty seg1 and fill seg5; 10 needs a segment: seg1 (0 valid) goes, no moves.
    write_all(&mut sim, &[6, 7, 10]);
    assert_eq!(sim.ftl().victim_log(), &[(3, 1), (1, 0)]);
    assert_eq!(sim.ftl().counters.gc_writes, 1);
    assert_eq!(sim.ftl().counters.erases, 2);
}

#[test]
fn fifo_exact_sequence() {
    let mut sim = first_gc("fifo");
    assert_eq!(sim.ftl().victim_log(), &[(0, 2)]);
    assert_eq!(sim.ftl().mapping().lookup(2), Some(5 * 4));
    assert_eq!(sim.ftl().mapping().lookup(3), Some(5 * 4 + 1));
    assert_eq!(sim.ftl().mapping().lookup(5), Some(5 * 4 + 2));
    // 6 seals seg5; 7 needs a segment: the oldest sealed is now seg1 (0 valid).
    write_all(&mut sim, &[6, 7]);
    assert_eq!(sim.ftl().victim_log(), &[(0, 2), (1, 0)]);
    assert_eq!(sim.ftl().counters.gc_writes, 2);
}

#[test]
fn cost_benefit_variants() {
    assert_eq!(first_gc("cost-benefit:lfs").ftl().victim_log(), &[(0, 2)]);
    assert_eq!(
        first_gc("cost-benefit:formula=lfs").ftl().victim_log(),
        &[(0, 2)]
    );
    assert_eq!(first_gc("cost-benefit:sqrt").ftl().victim_log(), &[(3, 1)]);
    assert_eq!(first_gc("cost-benefit:femu").ftl().victim_log(), &[(0, 2)]);
}

#[test]
fn windowed_greedy_window() {
    assert_eq!(
        first_gc("windowed-greedy:w=1").ftl().victim_log(),
        &[(0, 2)]
    );
    assert_eq!(
        first_gc("windowed-greedy:w=2").ftl().victim_log(),
        &[(0, 2)]
    );
    assert_eq!(
        first_gc("windowed-greedy:w=4").ftl().victim_log(),
        &[(3, 1)]
    );
}

#[test]
fn d_choices_with_many_samples_finds_the_minimum() {
    // 4096 samples with replacement among 5 candidates miss seg3 with probability (4/5)^4096.
    assert_eq!(first_gc("d-choices:d=4096").ftl().victim_log(), &[(3, 1)]);
    // d = 1 is a random choice: always a sealed segment, never the open frontier.
    for seed in 0..20 {
        let sim = first_gc("d-choices:d=1");
        let (v, moved) = sim.ftl().victim_log()[0];
        assert!(v <= 4, "seed {seed}: victim {v} is not a sealed segment");
        assert_eq!(moved, [2, 2, 2, 1, 4][v as usize]);
    }
}

#[test]
fn random_victim_is_uniform_over_sealed_segments() {
    // Drive the random policy's own RNG through many picks on the same scenario with
    // different seeds and count picks per segment.
    let mut counts = [0u32; 5];
    for seed in 0..400u64 {
        let mut c = Config::default_preset();
        c.ftl.logical_gib = None;
        c.ftl.op = Some(1.3);
        c.device.channels = 1;
        c.device.chips_per_channel = 1;
        c.device.blocks_per_plane = 7;
        c.device.pages_per_block = 4;
        c.run.victim = "random".into();
        c.run.seed = seed;
        let mut sim = Simulation::new(&c).unwrap();
        sim.ftl_mut().set_victim_log(true);
        write_all(&mut sim, &(0..12).collect::<Vec<_>>());
        write_all(&mut sim, &[0, 1, 4, 8, 0, 1, 4, 9, 5]);
        counts[sim.ftl().victim_log()[0].0 as usize] += 1;
    }
    // 400 picks over 5 segments: 80 expected each; 3.5 sigma is about 28.
    for (s, &n) in counts.iter().enumerate() {
        assert!(
            (52..=108).contains(&n),
            "segment {s} picked {n} times of 400: {counts:?}"
        );
    }
}

#[test]
fn sup_gc_sends_relocations_to_the_cold_stream() {
    // Algorithm 1: every user write is programmed into a hot segment (stream 0).
    // Algorithm 2: every page GC relocates is programmed into a cold segment (stream 1),
    // and victims are chosen greedily over hot and cold segments alike.
    use flashgc_core::ops::{FlashOp, Origin};
    let mut sim = device("greedy", "sup-gc");
    sim.ftl_mut().set_op_log(true);
    let l = sim.layout().logical_pages as u32;
    let mut ops = Vec::new();
    let (mut user_programs, mut gc_programs, mut cold_victims) = (0, 0, 0);
    let mut rng = flashgc_core::workload::Rng::new(3);
    for i in 0..2000u32 {
        // Sequential fill, then a skewed overwrite pattern.
        let lpn = if i < l {
            i
        } else if rng.unit() < 0.8 {
            rng.below(3) as u32
        } else {
            rng.below(l as u64) as u32
        };
        sim.ftl_mut().write(lpn).unwrap();
        ops.clear();
        sim.ftl_mut().drain_ops(&mut ops);
        let view = sim.ftl().view();
        for op in &ops {
            match *op {
                FlashOp::Copyback { dst, .. } => {
                    gc_programs += 1;
                    assert_eq!(
                        view.stream(dst / 4),
                        1,
                        "write {i}: GC relocation into a hot segment"
                    );
                }
                FlashOp::Program { ppn, origin } => {
                    assert_eq!(origin, Origin::Host);
                    user_programs += 1;
                    assert_eq!(
                        view.stream(ppn / 4),
                        0,
                        "write {i}: user write into a cold segment"
                    );
                }
                FlashOp::Erase { seg, .. } if view.stream(seg) == 1 => {
                    cold_victims += 1;
                }
                _ => {}
            }
        }
    }
    sim.ftl().check().unwrap();
    assert_eq!(user_programs, 2000);
    assert!(gc_programs > 0, "GC relocated pages");
    assert!(cold_victims > 0, "greedy also reclaims cold segments");
    assert_eq!(gc_programs, sim.ftl().counters.gc_writes);
}

#[test]
fn cost_benefit_buckets_and_scan_make_identical_decisions() {
    // The two exact implementations must give the same victims, hence identical results.
    for formula in ["lfs", "sqrt", "femu"] {
        let run = |imp: &str| {
            let mut c = Config::default_preset();
            c.ftl.logical_gib = Some(0.02);
            c.device.pages_per_block = 16;
            c.run.workload = "hotcold:80/20".into();
            c.run.placement = "sup-gc".into();
            c.run.victim = format!("cost-benefit:formula={formula},impl={imp}");
            c.run.write_volume = 4.0;
            let r = Simulation::run_synthetic(&c, &mut |_| {}).unwrap();
            (
                r.total.gc_writes,
                r.erase_counts.stddev,
                r.victim_valid_ratio.counts,
            )
        };
        assert_eq!(run("scan"), run("buckets"), "{formula}");
    }
}
