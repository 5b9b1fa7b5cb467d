//! blkparse action letters: `--blkparse-events` accepts exactly blkparse's actions, and a
//! trace without the selected ones says which actions its requests are in.

use flashgc_core::workload::Request;
use flashgc_trace::{TraceError, TraceOptions, TraceWorkload};
use std::path::{Path, PathBuf};

fn write(name: &str, text: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-blkparse-events-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn read_all(path: &Path, opts: &TraceOptions) -> Result<Vec<Request>, TraceError> {
    let mut w = TraceWorkload::open(path, opts, 4096, 1 << 20)?;
    let mut v = Vec::new();
    loop {
        let n = v.len();
        w.fill_requests(&mut v, 3)?;
        if v.len() == n {
            return Ok(v);
        }
    }
}

fn events(letters: &str) -> TraceOptions {
    TraceOptions {
        blkparse_events: Some(letters.into()),
        ..TraceOptions::default()
    }
}

#[test]
fn a_trace_without_the_selected_events_names_the_ones_it_has() {
    let p = write(
        "only-c.blkparse",
        "  1,0   15        1     0.000000000 19146  C  WS 299456 + 1 [0]\n",
    );
    let e = read_all(&p, &TraceOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("requests are in C events: pass --blkparse-events C"),
        "{e}"
    );
    assert_eq!(read_all(&p, &events("C")).unwrap().len(), 1);
}

#[test]
fn only_blkparse_action_letters_are_accepted() {
    let p = write(
        "one-c.blkparse",
        "  1,0   15        1     0.000000000 19146  C  WS 299456 + 1 [0]\n",
    );
    // A letter that is no blkparse action (in any blktrace version) is refused, with the list.
    for bad in ["Z", "DZ", "d", "E"] {
        let e = read_all(&p, &events(bad)).unwrap_err().to_string();
        assert!(
            e.contains("is not a blkparse action; the actions are A, B, C, D, F, G, I, M, P, Q, R, S, T, U, X"),
            "{bad}: {e}"
        );
    }
    // Every action letter is accepted.
    assert!(read_all(&p, &events("QMFGSRDCPUTIXBA")).is_ok());
}
