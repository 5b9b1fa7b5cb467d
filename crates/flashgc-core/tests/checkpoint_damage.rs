//! Checkpoints with a valid CRC but inconsistent content (issue 19, item 2): a file edited
//! and re-checksummed, or written by a buggy or hostile program, must be refused with an
//! error or resume to a run that ends, never panic or loop. Drives the structure-aware
//! fuzz harness (`flashgc_core::fuzzing`, also the `checkpoint` cargo-fuzz
//! target) with seeded mutations of every section of every registered policy's
//! checkpoint, of timed runs on the flash and NoC device models (their stored timing
//! parameters and driver section included), plus the hand-made cases of the issue.

use flashgc_core::fuzzing::{self, Outcome};
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
    let name = fuzzing::case_name(data[0] as usize % fuzzing::case_count());
    let tag = fuzzing::SECTIONS[data[1] as usize % fuzzing::SECTIONS.len()];
    format!(
        "{name}, section {:?}, mutations {:02x?} (FLASHGC_CKPT_INPUT={})",
        String::from_utf8_lossy(tag),
        &data[2..],
        data.iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(",")
    )
}

#[test]
fn unmutated_checkpoints_of_every_case_resume_and_run() {
    for i in 0..fuzzing::case_count() {
        let b = fuzzing::base_checkpoint(i);
        assert_eq!(
            fuzzing::resume(&b),
            Outcome::Ran,
            "{}",
            fuzzing::case_name(i)
        );
    }
}

#[test]
fn mutated_checkpoints_are_refused_or_run_never_panic() {
    // Quiet: the panics are collected and reported below.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let cases = fuzzing::case_count();
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
            let tag = *fuzzing::SECTIONS[section];
            let waf = fuzzing::cases().len();
            let content = case >= waf + fuzzing::timed_cases().len();
            if (tag == *b"DRV " && (case < waf || content))
                || ((tag == *b"CONT" || tag == *b"GACT") && !content)
            {
                // WAF-only checkpoints have no driver section, plain ones no content.
                continue;
            }
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

/// `b` with section `tag`'s payload replaced by `payload` (CRC recomputed).
fn with_section(b: &[u8], tag: &[u8; 4], payload: &[u8]) -> Vec<u8> {
    let secs = fuzzing::sections(b).unwrap();
    let (start, len) = secs[tag];
    let mut m = b[..start - 8].to_vec();
    m.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    m.extend_from_slice(payload);
    m.extend_from_slice(&b[start + len..]);
    // The header's body length (after magic, format, version string).
    let vlen = u16::from_le_bytes([m[12], m[13]]) as usize;
    let body = (m.len() - (14 + vlen + 12)) as u64;
    m[14 + vlen..22 + vlen].copy_from_slice(&body.to_le_bytes());
    fuzzing::fix_crc(&mut m);
    m
}

/// Timed checkpoints (flash and NoC): a driver section cut short, one whose device-state
/// length says more than the file holds, one whose closed-loop slots or FTL counters at
/// the start of the timed phase do not fit, and stored timing parameters the options
/// parser would refuse: each is refused with a message, never a panic or a hang.
#[test]
fn damaged_timed_checkpoints_are_refused() {
    let waf = fuzzing::cases().len();
    for (k, (name, _)) in fuzzing::timed_cases().iter().enumerate() {
        let b = fuzzing::base_checkpoint(waf + k);
        let secs = fuzzing::sections(&b).unwrap();
        let (start, len) = secs[b"DRV "];
        let drv = &b[start..start + len];
        assert!(len > 64, "{name}: a driver section");
        let refused = |m: Vec<u8>, what: &str, word: &str| match fuzzing::resume(&m) {
            Outcome::Refused(e) => assert!(e.contains(word), "{name}: {what}: {e}"),
            o => panic!("{name}: {what}: accepted: {o:?}"),
        };
        refused(
            with_section(&b, b"DRV ", &drv[..len / 2]),
            "driver state cut short",
            "damaged",
        );
        let mut huge = drv.to_vec();
        huge[..8].copy_from_slice(&(u64::MAX / 3).to_le_bytes());
        refused(
            with_section(&b, b"DRV ", &huge),
            "device state longer than the file",
            "damaged",
        );
        // Stored timing parameters the options parser would refuse.
        let (ms, ml) = secs[b"META"];
        let meta = String::from_utf8(b[ms..ms + ml].to_vec()).unwrap();
        for (from, to) in [
            ("\"idle_us\":1000.0", "\"idle_us\":-1.0"),
            ("\"volume_scale\":1.0", "\"volume_scale\":0.0"),
        ] {
            assert!(meta.contains(from), "{name}: {meta}");
            let bad = meta.replacen(from, to, 1);
            refused(
                with_section(&b, b"META", bad.as_bytes()),
                from,
                from.split('"').nth(1).unwrap(),
            );
        }
    }
}

/// Replays one harness input given as hex in FLASHGC_CKPT_INPUT (case byte, section
/// byte, mutations; as printed by a failure above), uncaught, for its backtrace. Does
/// nothing without the variable.
#[test]
fn replay_one_input_from_the_environment() {
    let Ok(hex) = std::env::var("FLASHGC_CKPT_INPUT") else {
        return;
    };
    let data: Vec<u8> = hex
        .split(|c: char| !c.is_ascii_hexdigit())
        .filter(|s| !s.is_empty())
        .map(|s| u8::from_str_radix(s, 16).expect("hex bytes"))
        .collect();
    eprintln!("{}: {:?}", describe(&data), fuzzing::checkpoint(&data));
}

/// Inputs found by longer seeded batches in a debug build (overflow checks on, as under
/// cargo-fuzz) after the one-engine merge: each panicked (overflow, index out of bounds).
/// Kept by case name and section, so that new registered policies (which shift case
/// numbers) keep them meaningful. Mutation offsets are relative to a section's byte layout:
/// while the layout is the one they were found on, each is refused with the check that
/// catches it (`word`); after a layout change (the mapping cache's counters and the host
/// flows' state changed FTL, SIM and DRV) an input may land on another field, and then it
/// must still never panic, and a refusal must name a damaged checkpoint.
#[test]
fn inputs_found_by_debug_batches_are_refused() {
    let cases: &[(&str, &[u8; 4], &str, &str)] = &[
        ("midas:epoch=0.5,check=0.25 + fifo", b"PLCY", "ab,fc,75,66,47,8d,85,ee,7a,72,68,88,2d,98,9b,95,bc,48,38,64,89,1a,04,77,5c,88,d9,20,27,f0,79,71,48,e6,7c,a5,4e,46,95,d6,8a,c6", "HOT residence"),
        ("mbf + greedy", b"FTL ", "3a,73,1e,33,fa,83", "erase counts"),
        ("cat + greedy", b"FTL ", "7d,85,98,77,bc,fe,76,7a,60,9c,18,a6", "erase counts"),
        ("sepbit + greedy, timed flash-foreground", b"DRV ", "ef,cb,88,50,4e,ca,09,70,04,99,ab,64,06,46,58,37,7c,b7,1b,06,0d,de,55,06,bb,ad,bf,b2,64,be", "sample counts overflow"),
        ("midas:epoch=0.5,check=0.25 + fifo", b"PLCY", "52,8e,3c,cb,85,66,81,fe,f5,2c,54,e5", "after the clock"),
        ("sup-gc + windowed-greedy", b"SIM ", "04,90,17,1f,7b,db,74,f7,78,ef,f9,51", "WAF window"),
        ("sepbit + greedy, timed flash-foreground", b"DRV ", "93,07,53,0a,1c,fe,21,0e,fa,3b,eb,51,6f,d8,f8,2d,ea,7d,26,e0,78,23,61,40,18,04,30,db,70,3b,90,39,4f,77,51,54", "out of range"),
        ("sepbit + greedy, timed noc-selective", b"DRV ", "1c,c1,d0,77,b5,5f,7d,1c,ba,b3,09,fb", "host statistics"),
        ("midas:epoch=0.5,check=0.25 + fifo", b"PLCY", "d0,f4,7f,1b,ac,e8,ef,a5,e8,8b,88,f8", "per-stream tables"),
        // A damaged content generator's Zipf sampler never accepted a draw: the run hung
        // (FLASHGC_CKPT_ROUNDS=150, seed 31).
        ("single + dagc, GC action dagc", b"CONT", "19,9f,07,63,62,7b", "content layer"),
    ];
    for (name, tag, hex, word) in cases {
        let Some(case) = (0..fuzzing::case_count()).find(|&i| fuzzing::case_name(i) == *name)
        else {
            panic!("no harness case {name}");
        };
        let section = fuzzing::SECTIONS.iter().position(|t| t == tag).unwrap();
        let mut data = vec![case as u8, section as u8];
        data.extend(hex.split(',').map(|b| u8::from_str_radix(b, 16).unwrap()));
        match run(&data) {
            Ok(Outcome::Refused(e)) if e.contains(word) => {}
            Ok(Outcome::Refused(e)) => assert!(e.contains("damaged"), "{name} {tag:?}: {e}"),
            Ok(o) => eprintln!("{name} {tag:?}: (layout changed) not refused: {o:?}"),
            Err(msg) => panic!("{name} {tag:?}: panicked: {msg}"),
        }
    }
}

/// Every section of a WAF-only and a timed checkpoint filled with 0xff or 0x00 bytes (CRC
/// recomputed): a state that runs past its section's end said only "io error: " (bincode's
/// empty message); each refusal now says what was expected, and none is that bare.
#[test]
fn a_state_that_runs_past_its_section_says_how_far_it_got() {
    let waf = fuzzing::cases().len();
    let sepbit = fuzzing::cases()
        .iter()
        .position(|c| c.0 == "sepbit" && c.1 == "greedy")
        .expect("registered");
    let mut bare = Vec::new();
    for case in [sepbit, waf] {
        let b = fuzzing::base_checkpoint(case);
        let secs = fuzzing::sections(&b).unwrap();
        for (tag, &(_, len)) in &secs {
            for fill in [0xffu8, 0x00] {
                let m = with_section(&b, tag, &vec![fill; len]);
                let e = match fuzzing::resume(&m) {
                    Outcome::Refused(e) | Outcome::RunError(e) => e,
                    Outcome::Ran => continue,
                };
                if e.contains("io error") || e.trim_end().ends_with(':') {
                    bare.push(format!(
                        "{} {:?} {fill:#x}: {e}",
                        fuzzing::case_name(case),
                        String::from_utf8_lossy(tag)
                    ));
                }
            }
        }
        // The run state's first table length made huge: the section ends after 8 bytes.
        let (start, len) = secs[b"SIM "];
        let mut sim = b[start..start + len].to_vec();
        sim[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        match fuzzing::resume(&with_section(&b, b"SIM ", &sim)) {
            Outcome::Refused(e) => assert!(
                e.contains(&format!("run state: damaged checkpoint state: the state ended after 8 of {len} bytes where more were expected")),
                "{e}"
            ),
            o => panic!("accepted: {o:?}"),
        }
    }
    assert!(bare.is_empty(), "{}", bare.join("\n"));
}

/// A state followed by bytes it does not hold says where it ends (bincode's own message was
/// "Slice had bytes remaining after deserialization", found by the bad-input pass).
#[test]
fn a_state_with_bytes_after_it_says_where_it_ends() {
    let mut b = flashgc_core::checkpoint::encode(&(7u64, vec![1u32, 2, 3])).unwrap();
    let len = b.len();
    b.extend_from_slice(&[0xab; 5]);
    let e = flashgc_core::checkpoint::decode::<(u64, Vec<u32>)>(&b)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!(
            "damaged checkpoint state: the state ends after {len} of its {} bytes and 5 bytes follow it",
            len + 5
        )),
        "{e}"
    );
    assert!(!e.contains("Slice had bytes"), "{e}");
    // The bytes alone still decode.
    let v: (u64, Vec<u32>) = flashgc_core::checkpoint::decode(&b[..len]).unwrap();
    assert_eq!(v, (7, vec![1, 2, 3]));
}
