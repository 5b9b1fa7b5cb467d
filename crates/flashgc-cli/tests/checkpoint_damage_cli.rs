//! Damaged and edited checkpoints on the real binary: `flashgc resume` refuses them with
//! exit code 2 and an error naming the file, never panics and never runs forever; modes a
//! checkpoint cannot hold are refused when asked for.

mod common;

use common::bin;

use common::checkpoint::{crc32, edit_meta};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-ckpt-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn refused(args: &[&str], cwd: &Path, needle: &str) {
    let o = bin().args(args).current_dir(cwd).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn bad_checkpoints_and_unsupported_modes_are_refused() {
    let d = dir("bad");
    // A real checkpoint to damage: stop at the end of a short run is not possible from
    // the CLI, so take a periodic one.
    let ckpt = d.join("c.ckpt");
    let st = bin()
        .args([
            "run",
            "--logical-gib",
            "0.0625",
            "--write-volume",
            "2",
            "--checkpoint-every",
            "1x",
            "--checkpoint",
        ])
        .arg(&ckpt)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let good = std::fs::read(&ckpt).unwrap();
    let bad = d.join("bad.ckpt");
    let b = bad.to_str().unwrap();
    std::fs::write(&bad, &good[..good.len() / 2]).unwrap();
    refused(&["resume", b], &d, "truncated");
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 100] ^= 1;
    std::fs::write(&bad, &flipped).unwrap();
    refused(&["resume", b], &d, "CRC mismatch");
    let mut other = good.clone();
    // A format version no flashgc writes (the current one is checkpoint::FORMAT_VERSION).
    other[8] = 99;
    std::fs::write(&bad, &other).unwrap();
    refused(&["resume", b], &d, "format version 99");
    // The version string is quoted in an error only when it is text (it printed raw
    // control bytes), and a body length near 2^64 wrapped around in the size check.
    let vlen = u16::from_le_bytes([good[12], good[13]]) as usize;
    let mut garbled = good.clone();
    garbled[14] = 0x07;
    std::fs::write(&bad, &garbled).unwrap();
    refused(&["resume", b], &d, "the version string is not text");
    let mut huge = good.clone();
    huge[14 + vlen..22 + vlen].copy_from_slice(&u64::MAX.to_le_bytes());
    std::fs::write(&bad, &huge).unwrap();
    refused(&["resume", b], &d, "announces more than 2^64 bytes");
    // A FIFO blocked `resume` in open(2) until a writer came.
    #[cfg(unix)]
    {
        let fifo = d.join("f.ckpt");
        let cpath = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(cpath.as_ptr(), 0o600) }, 0);
        let mut c = bin();
        c.args(["resume", fifo.to_str().unwrap()]).current_dir(&d);
        let o = common::output_within(c, Duration::from_secs(20), "resume of a FIFO");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("is not a regular file"), "{err}");
    }
    // A directory is named as one, not read as a checkpoint with a bad magic.
    refused(&["resume", d.to_str().unwrap()], &d, "is a directory");
    refused(
        &["resume", "/nonexistent/x.ckpt"],
        &d,
        "cannot open checkpoint",
    );
    // Modes that cannot be checkpointed, and bad sizes.
    refused(
        &[
            "compare",
            "--logical-gib",
            "0.0625",
            "--checkpoint-every",
            "1x",
        ],
        &d,
        "`compare`",
    );
    refused(
        &[
            "run",
            "--logical-gib",
            "0.0625",
            "--checkpoint-every",
            "lots",
        ],
        &d,
        "--checkpoint-every `lots`",
    );
    // A checkpoint file that cannot be written is refused before the run, as -o is.
    refused(
        &[
            "run",
            "--logical-gib",
            "0.0625",
            "--checkpoint",
            "/nonexistent/c.ckpt",
        ],
        &d,
        "--checkpoint /nonexistent/c.ckpt",
    );
    // The output file as the checkpoint: a stopped run's partial result replaced the
    // checkpoint it told to resume from (and `flashgc resume` then found no checkpoint).
    refused(
        &[
            "run",
            "--logical-gib",
            "0.0625",
            "-o",
            "r.json",
            "--checkpoint",
            "./r.json",
        ],
        &d,
        "is the checkpoint file",
    );
    let c = ckpt.to_str().unwrap();
    refused(&["resume", c, "-o", c], &d, "is the checkpoint file");
    let _ = std::fs::remove_dir_all(&d);
}

/// A checkpoint whose stored run was edited (its CRC recomputed): errors name the file,
/// and flows edited into ones that never write are refused instead of running forever.
#[test]
fn edited_checkpoints_name_the_file_and_never_hang() {
    let d = dir("edited");
    let cfg = d.join("w.toml");
    std::fs::write(&cfg, "[[flow]]\nname = \"w\"\nrw = \"randwrite\"\n").unwrap();
    let ckpt = d.join("c.ckpt");
    let st = bin()
        .current_dir(&d)
        .args(["run", "--logical-gib", "0.0625", "--write-volume", "2"])
        .args(["--checkpoint-every", "1x", "--config"])
        .arg(&cfg)
        .arg("--checkpoint")
        .arg(&ckpt)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let good = std::fs::read(&ckpt).unwrap();
    let bad = d.join("edited.ckpt");
    type Edit = fn(&mut serde_json::Value);
    let cases: [(Edit, &str); 3] = [
        (
            |m| m["config"]["device"]["channels"] = 0.into(),
            "device.channels",
        ),
        (
            |m| m["config"]["flow"][0]["rw"] = "read".into(),
            "never end",
        ),
        (|m| m["config"]["flow"] = serde_json::json!([]), "workload"),
    ];
    for (edit, needle) in cases {
        std::fs::write(&bad, edit_meta(&good, edit)).unwrap();
        let mut c = bin();
        c.current_dir(&d)
            .args(["resume", "edited.ckpt", "-o", "r.json"]);
        let o = common::output_within(c, Duration::from_secs(30), needle);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{needle}: {err}");
        // The error line itself names the file (not only the "resuming ..." line).
        let line = err.lines().find(|l| l.starts_with("flashgc: error:"));
        assert!(
            line.is_some_and(|l| l.contains("edited.ckpt") && l.contains(needle)),
            "{needle}: {err}"
        );
        assert!(!err.contains("panicked"), "{needle}: {err}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A content-mode checkpoint whose record of what each LPN last received was edited (its
/// CRC recomputed) is refused when loaded, naming the file; it used to load and fail later
/// with a content error that named no file (exit 1).
#[test]
fn an_edited_content_record_is_refused_at_load() {
    let d = dir("content");
    let ckpt = d.join("c.ckpt");
    let o = bin()
        .current_dir(&d)
        .args([
            "run",
            "--logical-gib",
            "0.0625",
            "--write-volume",
            "2",
            "--op",
            "0.3",
        ])
        .args([
            "--gc-action",
            "cagc",
            "--json",
            "--checkpoint-every",
            "1x",
            "--checkpoint",
        ])
        .arg(&ckpt)
        .output()
        .unwrap();
    assert!(o.status.success());
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let lpns = r["device"]["logical_pages"].as_u64().unwrap() as usize;
    let mut b = std::fs::read(&ckpt).unwrap();
    let head = 14 + u16::from_le_bytes([b[12], b[13]]) as usize + 12;
    // The sections: tag, length (u64), data.
    let mut at = head;
    let cont = loop {
        let len = u64::from_le_bytes(b[at + 4..at + 12].try_into().unwrap()) as usize;
        if &b[at..at + 4] == b"CONT" {
            break at + 12..at + 12 + len;
        }
        at += 12 + len;
    };
    // The last-written table (one u64 per LPN), followed by the table of LPNs staged in a
    // write cache (one bit per LPN in u64 words), each a raw table: its element count, its
    // number of chunks (one here: fewer than 64 Ki elements) and the chunk as a byte string
    // with its length first.
    let words = lpns.div_ceil(64) as u64;
    let c = &b[cont.clone()];
    let raw_head = |n: u64| [n, 1, 8 * n];
    let expect = (0..c.len() - 8 * lpns - 48)
        .find(|&i| {
            let at = |j: usize| u64::from_le_bytes(c[j..j + 8].try_into().unwrap());
            let next = i + 24 + 8 * lpns;
            [at(i), at(i + 8), at(i + 16)] == raw_head(lpns as u64)
                && [at(next), at(next + 8), at(next + 16)] == raw_head(words)
        })
        .expect("the last-written table")
        + cont.start
        + 24;
    let k = (0..lpns)
        .map(|k| expect + 8 * k)
        .find(|&o| b[o..o + 8] != [0; 8])
        .expect("a written LPN");
    b[k] ^= 1;
    let body_len = b.len() - head;
    assert_eq!(
        u64::from_le_bytes(b[head - 12..head - 4].try_into().unwrap()) as usize,
        body_len
    );
    let crc = crc32(&b[head..]);
    b[head - 4..head].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(d.join("edited.ckpt"), &b).unwrap();
    refused(
        &["resume", "edited.ckpt", "-o", "r.json"],
        &d,
        "content layer inconsistent",
    );
    refused(
        &["resume", "edited.ckpt", "-o", "r.json"],
        &d,
        "edited.ckpt",
    );
    let _ = std::fs::remove_dir_all(&d);
}
