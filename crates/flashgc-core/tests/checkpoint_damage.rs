//! Checkpoints with a valid CRC but inconsistent content (issue 19, item 2): a file edited
//! and re-checksummed, or written by a buggy or hostile program, must be refused with an
//! error or resume to a run that ends, never panic or loop. Drives the structure-aware
//! fuzz harness (`flashgc_core::checkpoint::fuzzing`, also the `checkpoint` cargo-fuzz
//! target) with seeded mutations of every section of every registered policy's
//! checkpoint, plus the hand-made cases of the issue.

use flashgc_core::checkpoint::fuzzing::{self, Outcome};
use flashgc_core::workload::Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// One harness input, described for a failure message.
fn run(data: &[u8]) -> Result<Outcome, String> {
    catch_unwind(AssertUnwindSafe(|| fuzzing::checkpoint(data))).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

fn describe(data: &[u8]) -> String {
    let cases = fuzzing::cases();
    let (p, v) = &cases[data[0] as usize % cases.len()];
    let tag = fuzzing::SECTIONS[data[1] as usize % fuzzing::SECTIONS.len()];
    format!(
        "{p} + {v}, section {:?}, mutations {:02x?}",
        String::from_utf8_lossy(tag),
        &data[2..]
    )
}

#[test]
fn unmutated_checkpoints_of_every_case_resume_and_run() {
    for i in 0..fuzzing::cases().len() {
        let b = fuzzing::base_checkpoint(i);
        assert_eq!(
            fuzzing::resume(&b),
            Outcome::Ran,
            "{:?}",
            fuzzing::cases()[i]
        );
    }
}

#[test]
fn mutated_checkpoints_are_refused_or_run_never_panic() {
    // Quiet: the panics are collected and reported below.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let cases = fuzzing::cases().len();
    // FLASHGC_CKPT_ROUNDS / FLASHGC_CKPT_SEED: a longer or another seeded batch (the
    // cargo-fuzz target explores further; this runs anywhere).
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let rounds = env("FLASHGC_CKPT_ROUNDS", 16);
    let mut rng = Rng::new(env("FLASHGC_CKPT_SEED", 19));
    let mut failures = Vec::new();
    let mut outcomes = [0usize; 3];
    for case in 0..cases {
        for section in 0..fuzzing::SECTIONS.len() {
            for round in 0..rounds {
                let k = 1 + (rng.next_u64() % if round % 3 == 0 { 8 } else { 2 }) as usize;
                let mut data = vec![case as u8, section as u8];
                for _ in 0..k * 6 {
                    data.push(rng.next_u64() as u8);
                }
                if std::env::var_os("FLASHGC_TEST_VERBOSE").is_some() {
                    eprintln!("{}", describe(&data));
                }
                match run(&data) {
                    Ok(Outcome::Refused(_)) => outcomes[0] += 1,
                    Ok(Outcome::Ran) => outcomes[1] += 1,
                    Ok(Outcome::RunError(_)) => outcomes[2] += 1,
                    Err(msg) => failures.push(format!("{}: panicked: {msg}", describe(&data))),
                }
            }
        }
    }
    std::panic::set_hook(hook);
    println!(
        "refused {}, ran {}, run errors {}",
        outcomes[0], outcomes[1], outcomes[2]
    );
    assert!(
        failures.is_empty(),
        "{} of the mutated checkpoints panicked:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The mutations reach the state checks and the run (not only the decoders).
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
}

/// The issue's reproductions: an altered P2L entry, a greedy victim list entry, a SepBIT
/// table entry and the run target, each with a recomputed CRC.
#[test]
fn the_issues_hand_made_checkpoints_are_refused() {
    let cases = fuzzing::cases();
    let find = |p: &str, v: &str| {
        cases
            .iter()
            .position(|c| c.0 == p && c.1 == v)
            .expect("registered")
    };
    let sepbit = find("sepbit", "greedy");
    let b = fuzzing::base_checkpoint(sepbit);
    let secs = fuzzing::sections(&b).unwrap();
    let refused = |tag: &[u8; 4], value: u64, what: &str| {
        let mut b = b.clone();
        let (start, len) = secs[tag];
        assert!(len > 24);
        // Just past the first table's length prefix.
        let at = start + 16;
        b[at..at + 8].copy_from_slice(&value.to_le_bytes());
        fuzzing::fix_crc(&mut b);
        match fuzzing::resume(&b) {
            Outcome::Refused(e) => assert!(
                e.contains("damaged") || e.contains("inconsistent"),
                "{what}: {e}"
            ),
            o => panic!("{what}: accepted: {o:?}"),
        }
    };
    refused(b"P2L ", u64::MAX - 5, "P2L entries beyond the device");
    refused(
        b"PLCY",
        u64::MAX / 3,
        "SepBIT last-write times after the clock",
    );
    refused(b"VICT", 1 << 40, "greedy bucket list heads");
    refused(b"SIM ", u64::MAX / 2, "run state");
    refused(b"FTL ", 7, "segment table");
    // Found by a longer seeded batch (FLASHGC_CKPT_ROUNDS=150, seed 2024): a DAC region
    // table saying "never written" for an LPN that holds data; GC demoted it to stream 254.
    let dac = find("dac", "greedy");
    let section = fuzzing::SECTIONS
        .iter()
        .position(|t| *t == b"PLCY")
        .unwrap();
    let mut data = vec![dac as u8, section as u8];
    data.extend([
        0xad, 0x53, 0x8b, 0xa7, 0x78, 0x3c, 0xf5, 0x12, 0x8c, 0xc7, 0xa1, 0x34,
    ]);
    match fuzzing::checkpoint(&data) {
        Outcome::Refused(e) => assert!(e.contains("never written"), "{e}"),
        o => panic!("DAC region table: accepted: {o:?}"),
    }
}
