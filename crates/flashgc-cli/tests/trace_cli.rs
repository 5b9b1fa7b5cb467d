//! End to end from the command line: `flashgc run` on every real trace in
//! `../shared/traces` (skipped with a message when the folder is absent), checked against
//! `flashgc trace stats`; plus the `trace` subcommands and their error exits.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flashgc"))
}

fn traces_dir() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
    let d = std::env::var_os("FLASHGC_TRACES")
        .map(PathBuf::from)
        .unwrap_or(d);
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!(
            "SKIPPED: real traces folder {} is absent (set FLASHGC_TRACES to point at it)",
            d.display()
        );
        None
    }
}

const MSR_BYTES: &str =
    "ssv:ts=1,volume=2,offset=3,size=4,op=5,offset_unit=byte,size_unit=sector,write=0,read=1";

/// Every real trace with the flags it needs (the README says which format / events).
const TRACES: &[(&str, &[&str])] = &[
    ("msr_cambridge/msr-cambridge1-sample.csv", &[]),
    ("mqsim_umass_tpcc/wsrch-small.trace", &["--format", "mqsim"]),
    ("mqsim_umass_tpcc/tpcc-small.trace", &["--format", "mqsim"]),
    (
        "fiu/cheetah.cs.fiu.edu-110108-113008.2.head10008.blkparse",
        &[],
    ),
    ("systor17/systor17-traces-sample.csv", &[]),
    ("systor17/systor17-additional-sample.csv", &[]),
    ("tencent_cbs/cloud_storage-sample.csv.gz", &[]),
    (
        "blktrace/apress_hadoop_java_sdb.blkparse.txt.gz",
        &["--blkparse-events", "Q"],
    ),
    ("blktrace/ycsb_ext4.blkparse.txt.gz", &[]),
    ("blktrace/ycsb_f2fs.blkparse.txt.gz", &[]),
    ("blktrace/ycsb_btrfs.blkparse.txt", &[]),
    (
        "blktrace/leveldb_ram0.blkparse.txt",
        &["--blkparse-events", "C"],
    ),
    (
        "converted_mqsim/systor17_2016021612-LUN3.mqsim.trace.gz",
        &["--format", "mqsim"],
    ),
    (
        "converted_mqsim/ssdTrace-only-write.mqsim.trace.gz",
        &["--format", "mqsim"],
    ),
    (
        "converted_mqsim/MSR_trace-only-write.mqsim.trace",
        &["--format", MSR_BYTES],
    ),
];

fn json_of(cmd: &mut Command) -> serde_json::Value {
    let out = cmd.output().expect("flashgc runs");
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{cmd:?}: not JSON: {e}"))
}

#[test]
fn run_every_real_trace_from_the_cli() {
    let Some(dir) = traces_dir() else { return };
    for (file, flags) in TRACES {
        let path = dir.join(file);
        let stats = json_of(
            bin()
                .args(["trace", "stats", "--json"])
                .arg(&path)
                .args(*flags),
        );
        let uid = &stats["update_intervals"];
        let page_writes = uid["first_writes"].as_u64().unwrap() + uid["rewrites"].as_u64().unwrap();
        let run = json_of(
            bin()
                .args(["run", "--json", "--capacity", "auto", "--remap", "compact"])
                .arg(format!("--workload=trace:{}", path.display()))
                .args(*flags),
        );
        // Every written 4 KiB page of the trace reaches the FTL once, and the run ends with the trace.
        assert_eq!(
            run["total"]["user_writes"].as_u64(),
            Some(page_writes),
            "{file}"
        );
        assert_eq!(run["ended_by"], "workload_end", "{file}");
        let waf = run["total"]["waf"].as_f64().unwrap();
        assert!(
            waf.is_finite() && (page_writes == 0 || waf >= 1.0),
            "{file}: WAF {waf}"
        );
        assert!(run["workload"].as_str().unwrap().contains(file), "{file}");
    }
}

#[test]
fn loop_until_writes_k_times_the_capacity() {
    let Some(dir) = traces_dir() else { return };
    let path = dir.join("msr_cambridge/msr-cambridge1-sample.csv");
    let run = json_of(
        bin()
            .args([
                "run",
                "--json",
                "--capacity",
                "auto",
                "--remap",
                "compact",
                "--loop-until",
                "2",
            ])
            .arg(format!("--workload=trace:{}", path.display())),
    );
    let logical = run["device"]["logical_pages"].as_u64().unwrap();
    assert_eq!(run["total"]["user_writes"].as_u64(), Some(2 * logical));
    assert_eq!(run["ended_by"], "write_volume");
    assert!(
        run["total"]["gc_writes"].as_u64().unwrap() > 0,
        "two capacities of writes on a full device need GC"
    );
}

#[test]
fn binary_trace_runs_like_the_text() {
    let Some(dir) = traces_dir() else { return };
    let path = dir.join("fiu/cheetah.cs.fiu.edu-110108-113008.2.head10008.blkparse");
    let out = std::env::temp_dir().join(format!("flashgc-cli-{}.fgt", std::process::id()));
    let st = bin()
        .args(["trace", "convert"])
        .arg(&path)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    assert!(String::from_utf8_lossy(&st.stdout).contains("10008 records"));
    let run = |p: &Path| {
        let mut v = json_of(
            bin()
                .args(["run", "--json", "--capacity", "auto", "--remap", "compact"])
                .arg(format!("--workload=trace:{}", p.display())),
        );
        v["total"].take()
    };
    assert_eq!(run(&path), run(&out));
    let _ = std::fs::remove_file(&out);
}

#[test]
fn trace_subcommands_and_errors() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../flashgc-trace/tests/data");
    // stats (text) on a hand-written file.
    let out = bin()
        .args(["trace", "stats"])
        .arg(data.join("same.msr.csv"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("requests   5 (reads 2, writes 3"), "{text}");
    // volumes.
    let out = bin()
        .args(["trace", "volumes"])
        .arg(data.join("same.msr.csv"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("hm_0"));
    // Ambiguous format: exit 2 with the --format to pass.
    let out = bin()
        .args(["trace", "stats"])
        .arg(data.join("same.mqsim.trace"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--format mqsim"));
    // A run on an address beyond the device: exit 2, file and line named.
    let out = bin()
        .args([
            "run",
            "--pages-per-block",
            "16",
            "--op",
            "0.5",
            "--logical-gib",
            "0.0009",
        ])
        .arg(format!(
            "--workload=trace:{}",
            data.join("same.msr.csv").display()
        ))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("same.msr.csv:3") && err.contains("--remap"),
        "{err}"
    );
    // Bad flag values name the flag.
    let out = bin()
        .args(["run", "--remap", "sideways"])
        .arg(format!(
            "--workload=trace:{}",
            data.join("same.msr.csv").display()
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--remap"));
}

/// `flashgc resume` of a trace replay seeks to the checkpoint's place in the trace (byte
/// offset for text, record for `.fgt`) instead of re-reading every request served before
/// it: the result equals the uninterrupted run's, read on the pipeline's thread or not, and
/// still does after the lines served before the checkpoint (past the first MiB, which the
/// checkpoint's identity check covers with the size and the last MiB) are overwritten with
/// garbage of the same length, which a re-reading resume stops at.
#[test]
fn a_trace_replay_resumes_at_its_offset_without_rereading() {
    let d = std::env::temp_dir().join(format!("flashgc-cli-seek-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("other")).unwrap();
    // 87 000 writes in lines of 52 bytes (4.5 MB) over 20 000 pages.
    const LINE: usize = 52;
    let trace: String = (0..87_000u64)
        .map(|i| {
            let t = 128_166_385_295_514_663 + i * 10_000;
            format!("{t},hm,0,Write,{:012},4096,100\n", (i * 7 % 20_000) * 4096)
        })
        .collect();
    assert_eq!(trace.len(), 87_000 * LINE);
    std::fs::write(d.join("t.csv"), &trace).unwrap();
    let st = bin()
        .args(["trace", "convert", "t.csv", "--output", "t.fgt"])
        .current_dir(&d)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let run = |wl: &str, extra: &[&str], out: &str| {
        let o = bin()
            .args(["run", "--workload", wl, "--remap", "compact"])
            .args(["--logical-gib", "0.125", "--op", "0.2", "--json", "-o", out])
            .args(extra)
            .current_dir(&d)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let resume = |ckpt: &str| {
        let o = bin()
            .args(["resume", &format!("../{ckpt}"), "-o", "r.json"])
            .current_dir(d.join("other"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(d.join("other/r.json")).unwrap()
    };
    for (wl, extra) in [
        ("trace:t.csv", &[][..]),
        ("trace:t.csv", &["--no-pipeline"][..]),
        ("trace:t.fgt", &[][..]),
    ] {
        run(wl, extra, "full.json");
        let want = std::fs::read(d.join("full.json")).unwrap();
        // One checkpoint, at the first safe point past 45 000 pages: request 45 056.
        let mut with_ckpt = extra.to_vec();
        with_ckpt.extend(["--checkpoint-every", "176MiB", "--checkpoint", "c.ckpt"]);
        let err = run(wl, &with_ckpt, "part.json");
        assert!(err.contains("after 45056 user pages"), "{err}");
        assert!(
            resume("c.ckpt") == want,
            "{wl} {extra:?}: resumed output differs"
        );
        if wl == "trace:t.csv" {
            let mut bad = trace.as_bytes().to_vec();
            for i in (1 << 20) / LINE + 1..45_056 {
                bad[i * LINE..(i + 1) * LINE - 1].fill(b'x');
            }
            std::fs::write(d.join("t.csv"), &bad).unwrap();
            let ok = resume("c.ckpt") == want;
            std::fs::write(d.join("t.csv"), &trace).unwrap();
            assert!(
                ok,
                "{extra:?}: resumed output differs after the served lines changed"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The workload line counts trace requests, as `trace stats` does, whatever `--remap`
/// splits them into (it counted LPN runs under `compact` and `modulo`), in one pass and
/// over several.
#[test]
fn the_workload_line_counts_trace_requests_under_every_remap() {
    let Some(dir) = traces_dir() else { return };
    let path = dir.join("msr_cambridge/msr-cambridge1-sample.csv");
    let stats = json_of(bin().args(["trace", "stats", "--json"]).arg(&path));
    let n = stats["requests"].as_u64().unwrap();
    assert!(n > 0);
    let wl = format!("--workload=trace:{}", path.display());
    let line = |args: &[&str]| -> String {
        let run = json_of(bin().args(["run", "--json"]).args(args).arg(&wl));
        run["workload"].as_str().unwrap().to_string()
    };
    // Compact remapping splits requests whose pages are not all new in order.
    let compact = line(&["--capacity", "auto", "--remap", "compact"]);
    assert!(compact.contains(&format!(", {n} requests (")), "{compact}");
    assert!(compact.contains("LPN runs)"), "{compact}");
    // Modulo on a device smaller than the trace's span wraps requests around its end.
    let modulo = line(&["--logical-gib", "0.0625", "--remap", "modulo"]);
    assert!(modulo.contains(&format!(", {n} requests")), "{modulo}");
    let plain = line(&["--capacity", "auto"]);
    assert!(plain.contains(&format!(", {n} requests)")), "{plain}");
    let looped = line(&[
        "--capacity",
        "auto",
        "--remap",
        "compact",
        "--loop-times",
        "2",
    ]);
    assert!(
        looped.contains(&format!(", {} requests (", 2 * n)),
        "{looped}"
    );
}
