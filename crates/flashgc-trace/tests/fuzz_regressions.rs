//! Replays the fuzzers' saved inputs (`fuzz/regressions/<target>/*`, plus every preset and
//! test trace as a seed) through the same harnesses the fuzz targets use: none may panic.

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions")
        .join(target);
    let mut n = 0;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut paths: Vec<_> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        paths.sort();
        for p in paths {
            let data = std::fs::read(&p).unwrap();
            run(&data);
            n += 1;
        }
    }
    n
}

#[test]
fn config_regressions_and_presets() {
    let n = replay("config", flashgc_trace::fuzzing::config);
    let presets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../flashgc-core/presets");
    for e in std::fs::read_dir(presets).unwrap().flatten() {
        flashgc_trace::fuzzing::config(&std::fs::read(e.path()).unwrap());
    }
    // Malformed inputs a fuzzer finds first.
    for s in [
        "",
        "[",
        "[device]\npages_per_block = 0",
        "[run]\nvictim = \"d-choices:d=\"",
        "[ftl]\nop = 1e308",
        "[run]\nplacement = \"bf-gc:levels=0\"",
    ] {
        flashgc_trace::fuzzing::config(s.as_bytes());
    }
    eprintln!("replayed {n} saved config inputs");
}

#[test]
fn trace_file_regressions_and_seeds() {
    let n = replay("trace_file", flashgc_trace::fuzzing::trace_file);
    // Every format and suffix on a few hostile bodies.
    let bodies: [&[u8]; 5] = [
        b"",
        b"\n\n\n",
        b"1,2,3,4,5,6,7\n",
        b"\x1f\x8b\x08\x00garbage",
        b"FGT\x00\x01\x00\x00\x00\xff\xff\xff\xff",
    ];
    for f in 0..16u8 {
        for s in 0..4u8 {
            for b in &bodies {
                let mut d = vec![f, s];
                d.extend_from_slice(b);
                flashgc_trace::fuzzing::trace_file(&d);
            }
        }
    }
    eprintln!("replayed {n} saved trace inputs");
}
