//! Property tests over random operation sequences, for every registered placement and
//! victim policy: L2P and P2L agree, valid counts equal bitmaps, no page lost or
//! duplicated, free + open + sealed segments constant (`Ftl::check`, run after every GC
//! victim and at the end), and the set of mapped LPNs equals a reference model's.

use flashgc_core::placement::{self, PlacementInit};
use flashgc_core::{victim, Config, Simulation};
use proptest::prelude::*;

/// Placements that need future knowledge are driven through `Simulation`'s pre-pass, not
/// raw page operations; their state consistency is checked by their own tests.
fn drives_directly(name: &str) -> bool {
    name != "oracle"
}

fn sim_for(placement: &str, victim: &str, ppb: u32, op: f64) -> Simulation {
    let probe = placement::build(
        "run.placement",
        placement,
        PlacementInit {
            logical_pages: 64,
            segments: 64,
            pages_per_segment: ppb,
            seed: 1,
        },
    )
    .expect("placement builds with defaults");
    let streams = probe.streams() as u32;
    let mut c = Config::default_preset();
    c.ftl.logical_gib = None;
    c.ftl.op = Some(op);
    c.device.channels = 1;
    c.device.chips_per_channel = 1;
    c.device.pages_per_block = ppb;
    // Spare segments (blocks * op / (1 + op)) must hold the GC reserve (streams + 1) and
    // one frontier per stream, with a few to spare, plus ~10 segments of data.
    let spare_needed = (2 * streams + 5) as f64;
    c.device.blocks_per_plane = (spare_needed * (1.0 + op) / op).ceil() as u32 + 10;
    c.run.placement = placement.into();
    c.run.victim = victim.into();
    let mut sim = Simulation::new(&c).unwrap_or_else(|e| panic!("{placement}+{victim}: {e}"));
    sim.ftl_mut().set_check_after_gc(true);
    sim
}

fn exercise(
    placement: &str,
    victim: &str,
    ppb: u32,
    op: f64,
    ops: &[(u8, u32)],
) -> Result<(), TestCaseError> {
    let mut sim = sim_for(placement, victim, ppb, op);
    let l = sim.layout().logical_pages as u32;
    let mut mapped = vec![false; l as usize];
    for &(kind, x) in ops {
        // Skew: half the operations hit the first eighth of the space, so GC has work.
        let lpn = if x % 2 == 0 {
            (x / 2) % (l / 8).max(1)
        } else {
            (x / 2) % l
        };
        match kind % 10 {
            0..=6 => {
                sim.ftl_mut()
                    .write(lpn)
                    .map_err(|e| TestCaseError::fail(format!("{placement}+{victim}: {e}")))?;
                mapped[lpn as usize] = true;
            }
            7 => {
                sim.ftl_mut().trim(lpn);
                mapped[lpn as usize] = false;
            }
            _ => {
                let got = sim.ftl_mut().read(lpn).is_some();
                prop_assert_eq!(
                    got,
                    mapped[lpn as usize],
                    "{}+{}: read of {}",
                    placement,
                    victim,
                    lpn
                );
            }
        }
    }
    sim.ftl()
        .check()
        .map_err(|e| TestCaseError::fail(format!("{placement}+{victim}: {e}")))?;
    for (lpn, &m) in mapped.iter().enumerate() {
        prop_assert_eq!(
            sim.ftl().mapping().lookup(lpn as u32).is_some(),
            m,
            "{}+{}: LPN {} lost or resurrected",
            placement,
            victim,
            lpn
        );
    }
    let c = &sim.ftl().counters;
    let free = sim.ftl().free_segments() as u64;
    prop_assert!(free <= sim.layout().segments as u64);
    prop_assert_eq!(c.erases, c.gc_victims);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_policy_keeps_the_ftl_consistent(
        ops in proptest::collection::vec((any::<u8>(), any::<u32>()), 1..600),
        ppb in prop_oneof![Just(4u32), Just(8u32), Just(16u32)],
        op in 0.25f64..1.0,
    ) {
        for (p, _, _, _) in placement::REGISTRY.iter().filter(|r| drives_directly(r.0)) {
            for (v, _, _) in victim::REGISTRY {
                exercise(p, v, ppb, op, &ops)?;
            }
        }
    }
}

#[test]
fn long_random_sequence_every_policy() {
    // One long run per combination (several thousand GC victims).
    let mut rng = flashgc_core::workload::Rng::new(99);
    let ops: Vec<(u8, u32)> = (0..20_000)
        .map(|_| ((rng.below(10)) as u8, rng.next_u64() as u32))
        .collect();
    for (p, _, _, _) in placement::REGISTRY.iter().filter(|r| drives_directly(r.0)) {
        for (v, _, _) in victim::REGISTRY {
            exercise(p, v, 8, 0.3, &ops).unwrap();
        }
    }
}
