//! How many requests a fio job issues, pass by pass (workload/fio/jobfile/passes.rs):
//! against counts read from fio 3.33's own logs, and, where `fio` is installed (the test
//! script installs it), against the installed fio's `write_iolog` on a file the size of
//! the simulated device, job by job.

mod common;

use common::{flashgc, json, temp_dir, FIO_SMALL};
use std::path::Path;
use std::process::{Command, Stdio};

/// `flashgc fio --job` of the job section `opts` on the 64 MiB device: its result.
fn flashgc_job(dir: &Path, opts: &[String]) -> serde_json::Value {
    flashgc_job_with(dir, opts, &[])
}

/// [`flashgc_job`] with more flags.
fn flashgc_job_with(dir: &Path, opts: &[String], flags: &[&str]) -> serde_json::Value {
    let p = dir.join("j.fio");
    std::fs::write(&p, format!("[t]\n{}\n", opts.join("\n"))).unwrap();
    let f = p.display().to_string();
    let mut a = vec!["fio", "--job", f.as_str(), "--json"];
    a.extend_from_slice(FIO_SMALL);
    a.extend_from_slice(flags);
    let o = flashgc(&a);
    assert!(o.status.success(), "{opts:?}: {}", common::stderr(&o));
    json(&o)[0].clone()
}

fn requests(r: &serde_json::Value) -> u64 {
    r["timing"]["requests"].as_u64().unwrap()
}

/// The simulated device's logical bytes (the fio target must be exactly as large: a
/// sequential job's last block depends on the room past its region).
fn capacity(dir: &Path) -> u64 {
    let r = flashgc_job(dir, &["rw=write".into(), "size=4k".into()]);
    r["device"]["logical_pages"].as_u64().unwrap() * r["device"]["lpn_size"].as_u64().unwrap()
}

/// Counts fio 3.33 gave (`write_iolog` on a file of the device's size): a sequential pass
/// issues blocks until it has done `size` bytes, its last one past the region where the
/// device has room; a random-map pass issues the region's whole blocks; a job stops at
/// `io_size`, or after a pass that leaves less than a block.
#[test]
fn requests_and_regions_follow_fios_passes() {
    let dir = temp_dir("fio-passes", "logged");
    let cap = capacity(&dir);
    let job = |s: &str| -> Vec<String> { s.split(' ').map(String::from).collect() };
    let cases: Vec<(Vec<String>, u64)> = vec![
        // w0 w4 w8: three requests for 10 KiB, the merged model and a flow alike.
        (job("rw=write size=10k bs=4k"), 3),
        (job("rw=write size=10k bs=4k offset=1m"), 3),
        // w0 w4 w8 w0 w4.
        (job("rw=write size=10k bs=4k io_size=20k"), 5),
        // A pass of 12 KiB leaves 1 KiB of 13: less than a block.
        (job("rw=write size=10k bs=4k io_size=13k"), 3),
        // The random map holds two blocks of 10 KiB: w0 w4.
        (job("rw=randwrite size=10k bs=4k"), 2),
        (job("rw=randwrite size=10k bs=4k offset=1m"), 2),
        (job("rw=randwrite size=10k bs=4k io_size=20k"), 5),
        (job("rw=randwrite size=10k bs=4k io_size=13k"), 4),
        // lfsr: one permutation of the region's whole blocks a pass (fio: w4 w0).
        (job("rw=randwrite size=10k bs=4k random_generator=lfsr"), 2),
        (
            job("rw=randwrite size=10k bs=4k io_size=21k random_generator=lfsr"),
            6,
        ),
        // Drawn with replacement, one pass to the volume.
        (job("rw=randwrite size=10k bs=4k norandommap=1"), 3),
        (job("rw=randread size=8k bs=4k io_size=9k norandommap=1"), 3),
        // Each clone its own passes.
        (job("rw=randwrite size=10k bs=4k numjobs=2"), 4),
        (job("rw=write size=10k bs=4k number_ios=2"), 2),
        // Trims: a sequential trim-then-write pass ends at twice `size` bytes (t0 w0 t4
        // w4 t8); a random-map one trims and writes each block of its map.
        (job("rw=trim size=10k bs=4k"), 3),
        (job("rw=randtrim size=10k bs=4k"), 2),
        (job("rw=trimwrite size=10k bs=4k"), 5),
        (job("rw=randtrimwrite size=10k bs=4k"), 4),
        // `loops`: each loop a pass, the volume per loop (w0 w4 w8 w0 w4), and a pass more
        // while a block of `io_size` is left after them.
        (job("rw=write size=10k bs=4k loops=2"), 5),
        (job("rw=randwrite size=10k bs=4k loops=3"), 6),
        (job("rw=randwrite size=10k bs=4k io_size=21k loops=2"), 6),
        (job("rw=randwrite size=10k bs=4k loops=2 number_ios=1"), 2),
    ];
    for (opts, want) in &cases {
        assert_eq!(requests(&flashgc_job(&dir, opts)), *want, "{opts:?}");
    }
    // The sequential job's region holds its last block in full (12 KiB) where the device
    // has room; at the device's end fio drops that block: bs=8k, 10 KiB, 12 KiB left.
    let r = flashgc_job(&dir, &job("rw=write size=10k bs=4k offset=1m"));
    assert_eq!(r["flows"][0]["size_bytes"], 12288);
    let end = format!("offset={}", cap - 12 * 1024);
    let mut o = job("rw=write size=10k bs=8k");
    o.push(end);
    let r = flashgc_job(&dir, &o);
    assert_eq!(requests(&r), 1, "{o:?}");
    assert_eq!(r["flows"][0]["size_bytes"], 8192);
    // Random jobs address whole blocks only.
    let r = flashgc_job(&dir, &job("rw=randwrite size=10k bs=4k offset=1m"));
    assert_eq!(r["flows"][0]["size_bytes"], 8192);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `write_iolog` of the installed fio running `opts` with psync on a sparse file of
/// `cap` bytes in `dir`.
fn fio_iolog(dir: &Path, cap: u64, opts: &[String]) -> String {
    let target = dir.join("target");
    std::fs::File::create(&target)
        .unwrap()
        .set_len(cap)
        .unwrap();
    let log = dir.join("io.log");
    let _ = std::fs::remove_file(&log);
    let st = Command::new("fio")
        .args(["--name=t", "--ioengine=psync"])
        .arg(format!("--filename={}", target.display()))
        .arg(format!("--write_iolog={}", log.display()))
        .args(opts.iter().map(|o| format!("--{o}")))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "fio {opts:?}");
    std::fs::read_to_string(&log).unwrap()
}

/// fio's request count for `opts` on a sparse file of `cap` bytes (its `write_iolog`).
fn fio_requests(dir: &Path, cap: u64, opts: &[String]) -> u64 {
    fio_iolog(dir, cap, opts)
        .lines()
        .filter(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w.len() >= 5 && matches!(w[2], "read" | "write" | "trim")
        })
        .count() as u64
}

/// Whether `fio` runs here (the test script installs it); says so when it does not.
fn fio_installed() -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: fio is not installed (scripts/install-nbd-tools.sh installs it)");
    }
    ok
}

/// The installed fio and flashgc agree on every job of a grid: patterns, sizes that are
/// not whole blocks, `io_size` above and below `size`, the random map on and off, regions
/// that end at the device's end, and `loops`.
#[test]
fn request_counts_equal_the_installed_fios() {
    agree_with_installed_fio("grid", |cap| {
        // Room for the region's pages and nothing more at the device's end.
        let regions: Vec<String> = [(10u64, 4u64), (14, 8)]
            .iter()
            .flat_map(|&(size, bs)| {
                let r = format!("size={size}k bs={bs}k");
                [
                    r.clone(),
                    format!("{r} offset={}", cap - size.div_ceil(4) * 4096),
                ]
            })
            .collect();
        let jobs = grid(&[
            axis(&[
                "rw=write",
                "rw=read",
                "rw=randwrite",
                "rw=randwrite norandommap=1",
                "rw=randread",
                "rw=randread norandommap=1",
                "rw=randrw",
                "rw=randrw norandommap=1",
            ]),
            regions,
            axis(&["", "io_size=11k", "io_size=21k"]),
            axis(&["loops=1", "loops=2"]),
        ]);
        assert_eq!(jobs.len(), 192);
        jobs
    });
}

/// `random_generator=lfsr` rewrites each block exactly one pass after its last write, in
/// the same order, so blocks die in the order they were written and greedy victims hold
/// no valid page: once the sequential precondition's blocks are gone, GC moves nothing
/// more. So does fio's default random map, whose passes repeat the first (fio reseeds
/// each pass); with `randrepeat=0` its passes draw new orders and GC keeps moving pages.
#[test]
fn lfsr_leaves_gc_nothing_to_move_after_its_first_passes() {
    let dir = temp_dir("fio-passes", "lfsr");
    let moved = |io: &str, extra: &str| {
        let mut o = vec![
            "rw=randwrite".to_string(),
            "bs=4k".into(),
            "ioengine=libaio".into(),
            "iodepth=8".into(),
            format!("io_size={io}"),
        ];
        if !extra.is_empty() {
            o.push(extra.into());
        }
        flashgc_job(&dir, &o)["total"]["gc_writes"]
            .as_u64()
            .unwrap()
    };
    // 4 and 8 capacities of the 64 MiB device.
    for settles in ["random_generator=lfsr", ""] {
        let (a, b) = (moved("256m", settles), moved("512m", settles));
        assert!(
            a > 0,
            "{settles:?}: the first pass over the precondition moves pages"
        );
        assert_eq!(b, a, "{settles:?}: no page moved after the fourth pass");
    }
    let (m4, m8) = (moved("256m", "randrepeat=0"), moved("512m", "randrepeat=0"));
    assert!(
        m8 > m4 + m4 / 2,
        "random map, new order each pass: {m4} then {m8}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sequential picks in a random job (`percentage_random`, workload/fio/seq_mix.rs): where
/// the count does not hang on fio's random numbers (all picks sequential), the installed
/// fio and flashgc agree on where passes end: off the region's end when the device goes
/// on (a new pass only with `io_size`), a random block at the device's end, `size` bytes
/// a pass with an asynchronous engine.
#[test]
fn sequential_picks_end_passes_where_the_installed_fio_does() {
    agree_with_installed_fio("seq-mix", |cap| {
        let regions: Vec<String> = [(16u64, 4u64), (32, 8)]
            .iter()
            .flat_map(|&(size, bs)| {
                let r = format!("size={size}k bs={bs}k");
                [r.clone(), format!("{r} offset={}", cap - size * 1024)]
            })
            .collect();
        grid(&[
            axis(&["rw=randwrite", "rw=randread"]),
            axis(&["ioengine=psync", "ioengine=libaio"]),
            axis(&["percentage_random=0"]),
            regions,
            axis(&["", "io_size=40k"]),
            axis(&["loops=1", "loops=2"]),
        ])
    });
}

/// Every combination of one entry from each axis; an entry holds options separated by
/// spaces ("" adds none).
fn grid(axes: &[Vec<String>]) -> Vec<Vec<String>> {
    axes.iter().fold(vec![Vec::new()], |jobs, axis| {
        jobs.iter()
            .flat_map(|o| {
                axis.iter().map(move |e| {
                    let mut o = o.clone();
                    o.extend(e.split_whitespace().map(String::from));
                    o
                })
            })
            .collect()
    })
}

fn axis(entries: &[&str]) -> Vec<String> {
    entries.iter().map(|e| e.to_string()).collect()
}

/// flashgc and the installed fio issue as many requests for each job `jobs` makes for a
/// device of the given bytes (skipped where fio is not installed).
fn agree_with_installed_fio(name: &str, jobs: impl FnOnce(u64) -> Vec<Vec<String>>) {
    if !fio_installed() {
        return;
    }
    let dir = temp_dir("fio-passes", name);
    let cap = capacity(&dir);
    let jobs = jobs(cap);
    // Two workers, each with its own files.
    std::thread::scope(|s| {
        for (w, part) in jobs.chunks(jobs.len().div_ceil(2)).enumerate() {
            let d = dir.join(format!("w{w}"));
            std::fs::create_dir_all(&d).unwrap();
            s.spawn(move || {
                for o in part {
                    assert_eq!(
                        requests(&flashgc_job(&d, o)),
                        fio_requests(&d, cap, o),
                        "{o:?}"
                    );
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// All-sequential picks rewrite the device in order, so GC finds only invalid pages; all
/// random picks are the plain random job, result for result. Half and half moves pages:
/// more than the plain job here, whose passes repeat one order of the blocks (so blocks
/// die in the order they were written), where sequential picks, left out of the map,
/// rewrite some blocks twice in a pass.
#[test]
fn sequential_picks_change_what_gc_moves() {
    let dir = temp_dir("fio-passes", "seq-gc");
    let moved = |extra: &str| {
        let mut o = vec![
            "rw=randwrite".to_string(),
            "bs=4k".into(),
            "io_size=192m".into(),
        ];
        if !extra.is_empty() {
            o.push(extra.into());
        }
        flashgc_job(&dir, &o)
    };
    let seq = moved("percentage_random=0");
    assert_eq!(seq["total"]["gc_writes"].as_u64(), Some(0));
    assert!(seq["total"]["erases"].as_u64().unwrap() > 0);
    let half = moved("percentage_random=50");
    assert_eq!(requests(&half), 192 * 256);
    let half = half["total"]["gc_writes"].as_u64().unwrap();
    let plain = moved("");
    assert_eq!(moved("percentage_random=100"), plain);
    let all = plain["total"]["gc_writes"].as_u64().unwrap();
    assert!(half > all && all > 0, "50 %: {half}, 100 %: {all}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With an asynchronous engine a with-replacement pass ends at `size` bytes (a job that
/// writes: the larger of `size` and `io_size`), which changes the count with `loops`: the
/// installed fio and flashgc agree on a grid of them.
#[test]
fn asynchronous_passes_count_as_the_installed_fio_does() {
    agree_with_installed_fio("async", |_| {
        grid(&[
            axis(&["rw=randread", "rw=randwrite", "rw=randrw"]),
            axis(&["ioengine=libaio"]),
            axis(&["norandommap=1", "random_distribution=zipf:0.8"]),
            axis(&["size=10k bs=4k", "size=14k bs=8k"]),
            axis(&["", "io_size=11k", "io_size=21k"]),
            axis(&["loops=1", "loops=2"]),
        ])
    });
}

/// `loops` over a with-replacement job: with libaio each loop repeats the first (its pass
/// ends at `size` bytes and fio reseeds), so each block is rewritten a loop after it was
/// written, in order, and GC moves fewer pages than when psync runs one pass of fresh
/// draws across the loops.
#[test]
fn repeated_loops_of_an_asynchronous_engine_ease_gc() {
    let dir = temp_dir("fio-passes", "async-gc");
    let moved = |engine: &str| {
        let o: Vec<String> = ["rw=randwrite", "norandommap=1", "bs=4k", "loops=4"]
            .iter()
            .map(|s| s.to_string())
            .chain([format!("ioengine={engine}")])
            .collect();
        flashgc_job(&dir, &o)["total"]["gc_writes"]
            .as_u64()
            .unwrap()
    };
    let (sync, queued) = (moved("psync"), moved("libaio"));
    assert!(queued < sync * 95 / 100, "libaio {queued}, psync {sync}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Holes in sequential jobs (`rw=write:SKIP`, jobfile/holes.rs): a pass ends at the first
/// start past the region, and without `io_size` so does the job; the whole device wraps
/// unless a sweep ends exactly at its end. The installed fio and flashgc agree.
#[test]
fn holes_end_passes_where_the_installed_fio_does() {
    agree_with_installed_fio("holes", |_| {
        grid(&[
            axis(&["rw=write:4k", "rw=write:8k", "rw=read:4k"]),
            axis(&["ioengine=psync", "ioengine=libaio"]),
            axis(&["size=40k", "size=48k bs=8k", "size=40k offset=1m", ""]),
            axis(&["", "io_size=100k"]),
            axis(&["loops=1", "loops=2"]),
        ])
    });
}

/// Backwards sequences (which never fail a start), `rw_sequencer=identical` (whose
/// repeats are left out of the random map) and `blockalign` (which turns the map off):
/// the installed fio and flashgc issue as many requests, both engines, regions inside and
/// at the end of the device, with and without `io_size`.
#[test]
fn backwards_identical_and_blockalign_count_as_the_installed_fio_does() {
    agree_with_installed_fio("align", |cap| {
        let end = format!("size=32k offset={}", cap - 32 * 1024);
        let mut jobs = grid(&[
            axis(&["rw=write:-8k", "rw=read:-4k", "rw=write:-16k bs=8k"]),
            axis(&["ioengine=psync", "ioengine=libaio"]),
            axis(&["size=32k", "size=32k offset=16k", "size=32k offset=64k"]),
            axis(&["", "io_size=100k"]),
            axis(&["loops=1", "loops=2"]),
        ]);
        jobs.extend(grid(&[
            axis(&[
                "rw=randwrite:3 rw_sequencer=identical",
                "rw=randrw:2 rw_sequencer=identical",
                "rw=randwrite blockalign=16k",
                "rw=randwrite bs=8k blockalign=4k",
            ]),
            axis(&["ioengine=psync", "ioengine=libaio"]),
            vec!["size=32k".to_string(), end],
            axis(&["", "io_size=100k"]),
        ]));
        jobs
    });
}

/// fio's syncs for `opts` with psync on a sparse file of `cap` bytes: the `sync` and
/// `datasync` entries of its `write_iolog` (fsync_on_close's plain fsync(2) at a file close
/// is not logged, so the grid leaves it out).
fn fio_syncs(dir: &Path, cap: u64, opts: &[String]) -> u64 {
    fio_iolog(dir, cap, opts)
        .lines()
        .filter(|l| matches!(l.split_whitespace().nth(2), Some("sync" | "datasync")))
        .count() as u64
}

/// The installed fio and flashgc issue as many flushes for a grid of `fsync=N`,
/// `fdatasync=N` and `end_fsync` jobs over passes (`loops`, `io_size`): fio syncs after a
/// pass's last write when the pass runs past its end (the last one too when its byte limit
/// is not reached), skips an end sync after a sync, and syncs at a new pass's start
/// (module `flows::flush`). Read/write mixes are left out: flashgc's mix is not fio's
/// draw for draw, and where reads fall decides fio's repeated syncs; so are with-replacement
/// passes (`norandommap`), whose pass ends flashgc does not follow at depth 1.
#[test]
fn flush_counts_equal_the_installed_fios() {
    if !fio_installed() {
        return;
    }
    let dir = temp_dir("fio-passes", "flushes");
    let cap = capacity(&dir);
    let jobs = grid(&[
        axis(&["rw=write", "rw=randwrite"]),
        axis(&["size=40k bs=4k", "size=24k bs=8k"]),
        axis(&["fsync=2", "fdatasync=3", "fsync=5", ""]),
        axis(&["", "end_fsync=1"]),
        axis(&["loops=1", "loops=2", "io_size=100k"]),
    ]);
    for o in jobs.iter().filter(|o| o.iter().any(|x| x.contains("sync"))) {
        let r = flashgc_job(&dir, o);
        let got = r["flows"][0]["flushes"].as_u64().unwrap_or(0);
        assert_eq!(got, fio_syncs(&dir, cap, o), "{o:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// io_uring queues its syncs (`IORING_OP_FSYNC`): a sync into every slot that frees before
/// one has completed. Timed runs of io_uring write jobs over depths, sync intervals, passes
/// and the write cache issue as many flushes under deferred commit (read-first with
/// suspend, which has no read to put first) as under fcfs, and do so at all; at depth 1
/// the sync holds the only slot, so the count is also the installed fio's with psync.
#[test]
fn queued_sync_counts_under_deferred_commit_equal_fcfs() {
    let dir = temp_dir("fio-passes", "queued-syncs");
    let fio = fio_installed();
    let cap = if fio { capacity(&dir) } else { 0 };
    let jobs = grid(&[
        axis(&["rw=write", "rw=randwrite"]),
        axis(&["size=40k bs=4k", "size=48k bs=8k"]),
        axis(&["fsync=1", "fsync=2", "fdatasync=3"]),
        axis(&["", "end_fsync=1 loops=2"]),
    ]);
    let mut queued = 0;
    for o in &jobs {
        for depth in ["1", "4", "8"] {
            let mut job = o.clone();
            job.extend(["ioengine=io_uring".to_string(), format!("iodepth={depth}")]);
            for cache in [None, Some("1")] {
                let mut flags = vec!["--timing"];
                if let Some(mib) = cache {
                    flags.extend(["--cache-mib", mib]);
                }
                let fcfs = flashgc_job_with(&dir, &job, &flags);
                flags.extend(["--scheduler", "read-first", "--suspend", "on"]);
                let deferred = flashgc_job_with(&dir, &job, &flags);
                let count = |r: &serde_json::Value| r["flows"][0]["flushes"].as_u64().unwrap();
                assert!(count(&fcfs) > 0, "{job:?} {cache:?}");
                assert_eq!(count(&deferred), count(&fcfs), "{job:?} {cache:?}");
                let writes = fcfs["flows"][0]["write_requests"].as_u64().unwrap();
                // More syncs than one per N writes: several in flight at once.
                queued += (depth != "1" && count(&fcfs) > writes / 3) as u32;
                if fio && depth == "1" {
                    assert_eq!(count(&fcfs), fio_syncs(&dir, cap, o), "{job:?} {cache:?}");
                }
            }
        }
    }
    assert!(
        queued > 0,
        "no job issued queued syncs beyond one per N writes"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The installed fio's version 3 iolog times are microseconds (fio 3.31+ write
/// `utime_since_now`), so a job paced at 100 IOPS spans about its issue time when read
/// back: 8 writes 10 ms apart span about 70 ms, far less than a second (read as
/// milliseconds they would span over a minute).
#[test]
fn installed_fios_iolog_v3_times_are_microseconds() {
    let dir = temp_dir("fio_passes_cli", "iolog-v3-us");
    let opts: Vec<String> = ["rw=write", "bs=4k", "size=32k", "rate_iops=100"]
        .map(String::from)
        .into();
    let log = fio_iolog(&dir, 1 << 20, &opts);
    assert!(log.starts_with("fio version 3 iolog\n"), "{log}");
    let p = dir.join("io.log").display().to_string();
    let o = flashgc(&["trace", "stats", &p, "--format", "fio3", "--json"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let s = json(&o);
    assert_eq!(s["writes"], 8);
    let span = s["span_s"].as_f64().unwrap();
    assert!((0.05..1.0).contains(&span), "span {span} s");
    let _ = std::fs::remove_dir_all(&dir);
}
