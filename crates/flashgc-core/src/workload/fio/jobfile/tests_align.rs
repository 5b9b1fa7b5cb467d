//! Unit tests of `blockalign`, `bs_unaligned`, `rw_sequencer` and `rw=write:-SKIP` in job
//! files: parsing, the errors naming file, line and option, and the plan's requests.

use super::tests::{err_of, job};
use super::*;

/// The first `n` requests of the plan's stream for `text` on 16384 LPNs of 4 KiB.
fn lpns(text: &str, n: usize) -> Vec<(u64, u32)> {
    let f = parse("a.fio", text).unwrap();
    let run = f
        .plan(16384, 4096, 1)
        .unwrap()
        .start(16384, 4096, 1)
        .unwrap();
    let mut w = run.workload;
    let mut v = Vec::new();
    w.fill(&mut v, n).unwrap();
    v.iter().map(|r| (r.lpn, r.pages)).collect()
}

#[test]
fn the_four_options_parse() {
    let j = job("[a]\nrw=randrw\nbs=4k\nblockalign=8k,16k\nbs_unaligned\n").unwrap();
    assert_eq!(j.blockalign, [Some(8192), Some(16384)]);
    assert!(j.bs_unaligned && j.realigned() && j.norandommap);
    let j = job("[a]\nrw=randwrite:4\nrw_sequencer=identical\n").unwrap();
    assert!(j.rw_identical && j.has_seq_mix());
    let j = job("[a]\nrw=write:-8k\n").unwrap();
    assert_eq!((j.seq_back, j.seq_skip), (8192, 0));
    // The default grid leaves the random map on.
    let j = job("[a]\nrw=randwrite\nbs=8k\nba=8k\n").unwrap();
    assert!(!j.realigned() && !j.norandommap);
    // Sequential patterns ignore blockalign, as fio.
    assert!(!job("[a]\nrw=write\nblockalign=16k\n").unwrap().realigned());
}

#[test]
fn bad_values_name_the_file_line_and_option() {
    let e = err_of("[a]\nrw=randwrite\nblockalign=0\n");
    assert!(
        e.contains("p.fio:3: option `blockalign`") && e.contains("positive"),
        "{e}"
    );
    let e = err_of("[a]\nrw=randwrite\nbs_unaligned=2\n");
    assert!(e.contains("p.fio:3: option `bs_unaligned`"), "{e}");
    let e = err_of("[a]\nrw=randwrite:4\nrw_sequencer=same\n");
    assert!(
        e.contains("p.fio:3: option `rw_sequencer`") && e.contains("identical"),
        "{e}"
    );
    let e = err_of("[a]\nrw=write:-x\n");
    assert!(
        e.contains("p.fio:2: option `rw`") && e.contains("`:-SIZE` backwards"),
        "{e}"
    );
    let e = err_of("[a]\nrw=randwrite\nrandom_generator=lfsr\nblockalign=8k\n");
    assert!(
        e.contains("p.fio:4: option `blockalign`") && e.contains("lfsr"),
        "{e}"
    );
    // Checked on the device: a grid of whole LPNs, a step back of at least a block.
    let plan = |t: &str| {
        parse("p.fio", t)
            .unwrap()
            .plan(16384, 4096, 1)
            .unwrap_err()
            .to_string()
    };
    let e = plan("[a]\nrw=randwrite\nnorandommap\nblockalign=6k\n");
    assert!(
        e.contains("p.fio:4: option `blockalign`") && e.contains("LPN size"),
        "{e}"
    );
    let e = plan("[a]\nbs=8k\nrw=write:-4k\n");
    assert!(
        e.contains("p.fio:3: option `rw`") && e.contains("smaller than the block size"),
        "{e}"
    );
    // The refusal of an unknown option lists them.
    let e = err_of("[a]\nzonemode=zbd\n");
    for o in [
        "blockalign",
        "bs_unaligned",
        "rw_sequencer",
        "rw=write:-SKIP",
    ] {
        assert!(e.contains(o), "{o}: {e}");
    }
}

#[test]
fn job_files_issue_what_fio_derives() {
    // rw=write:-8k on 32 KiB: 0, then 24k, 20k, ... (module `fio::align`).
    let v = lpns("[a]\nrw=write:-8k\nsize=32k\n", 9);
    assert_eq!(
        v.iter().map(|r| r.0).collect::<Vec<_>>(),
        [0, 6, 5, 4, 3, 2, 1, 0, 6]
    );
    // At offset 64k: fio's rewind starts at size - 8k = 24k of the region.
    let v = lpns("[a]\nrw=write:-8k\nsize=32k\noffset=64k\n", 3);
    assert_eq!(
        v.iter().map(|r| r.0).collect::<Vec<_>>(),
        [16 + 6, 16 + 5, 16 + 4]
    );
    // blockalign=16k on 4k blocks: offsets on 16 KiB, drawn with replacement.
    let v = lpns("[a]\nrw=randwrite\nsize=64k\nblockalign=16k\n", 200);
    assert!(
        v.iter().all(|r| r.0 % 4 == 0 && r.0 < 16 && r.1 == 1),
        "{v:?}"
    );
    let f = parse("a.fio", "[a]\nrw=randwrite\nsize=64k\nblockalign=16k\n").unwrap();
    assert!(
        f.notes().iter().any(|n| n.contains("turns off randommap")),
        "{:?}",
        f.notes()
    );
    // rw_sequencer=identical: each random offset four times.
    let v = lpns(
        "[a]\nrw=randwrite:4\nrw_sequencer=identical\nnorandommap\nsize=1m\n",
        40,
    );
    for k in 0..v.len() {
        assert_eq!(v[k], v[k / 4 * 4], "{v:?}");
    }
    assert!((4..40).step_by(4).any(|k| v[k] != v[k - 1]), "{v:?}");
}
