//! `flashgc serve` with real NBD clients: fio's nbd engine with crc32c verification on a
//! device small enough that GC runs, qemu-io (or nbdcopy) across a reconnect, hand-made bad
//! clients, pacing, and the recorded stream replayed through `flashgc run`.
//!
//! fio, qemu-io and nbdcopy come from Debian (fio is built with libnbd); scripts/test.sh
//! installs them. Where a tool is missing the test says so and skips that part.

#![cfg(unix)]

mod common;

use common::serve::{bin, dir, have, have_fio_nbd, Raw, Server, DEVICE};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn replay(d: &Path, extra: &[&str]) -> Value {
    let out = bin()
        .arg("run")
        .args(DEVICE)
        .arg("--workload")
        .arg(format!("trace:{}", d.join("rec.fgt").display()))
        .args(extra)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `flashgc trace stats --json` of `path`.
fn trace_stats(path: &Path) -> Value {
    let st = bin()
        .args(["trace", "stats", "--json"])
        .arg(path)
        .output()
        .unwrap();
    serde_json::from_slice(&st.stdout).unwrap()
}

/// Ends a raw client's session (NBD_CMD_DISC), waits until the server logged it, stops the
/// server and returns its result.
fn disconnect_and_stop(c: &mut Raw, srv: Server) -> Value {
    c.request(2, 99, 0, 0, &[]);
    let log_wait = Instant::now();
    while !srv.log().contains("NBD_CMD_DISC") && log_wait.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    srv.stop()
}

#[test]
fn fio_verify_crc32c_with_gc_and_the_recording_replays_to_the_same_waf() {
    if !have_fio_nbd() {
        eprintln!("SKIPPED: fio with the nbd engine is not installed (scripts/test.sh installs Debian's fio)");
        return;
    }
    let d = dir("fio");
    let srv = Server::start(&d, &["--data", "memory", "--timing"]);
    let job = d.join("verify.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\nioengine=nbd\nuri={}\nrw=randwrite\nbs=4k\niodepth=32\nverify=crc32c\nsize=128m\nloops=2\n[w]\n",
            srv.uri()
        ),
    )
    .unwrap();
    let out = Command::new("fio")
        .current_dir(&d)
        .arg(&job)
        .arg("--output-format=json")
        .output()
        .unwrap();
    let fio_out = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "fio failed: {}\n{}\nserver: {}",
        fio_out,
        String::from_utf8_lossy(&out.stderr),
        srv.log()
    );
    let f: Value = serde_json::from_str(&fio_out[fio_out.find('{').unwrap()..]).unwrap();
    let job0 = &f["jobs"][0];
    assert_eq!(job0["error"], 0, "fio reported an error: {job0}");
    // verify=crc32c reads every block back after the writes and checks it.
    let wrote = job0["write"]["io_bytes"].as_u64().unwrap();
    let read = job0["read"]["io_bytes"].as_u64().unwrap();
    assert_eq!(wrote, 256 << 20, "fio wrote {wrote} bytes");
    assert!(read > 0, "fio verified nothing (read {read} bytes)");
    let live = srv.stop();
    let total = &live["total"];
    assert!(total["gc_writes"].as_u64().unwrap() > 0, "no GC: {total}");
    assert!(total["erases"].as_u64().unwrap() > 0);
    assert_eq!(total["user_writes"].as_u64().unwrap(), wrote / 4096);
    assert!(live["timing"]["write_latency"]["count"].as_u64().unwrap() > 0);
    let notes = live["notes"].to_string();
    assert!(notes.contains("simulated as they arrived"), "{notes}");
    // The recording, replayed by `flashgc run` with the same flags, gives the same run.
    let r = replay(&d, &["--timing"]);
    assert_eq!(r["total"]["waf"], live["total"]["waf"]);
    assert_eq!(r["total"], live["total"]);
    assert_eq!(
        r["timing"]["write_latency"],
        live["timing"]["write_latency"]
    );
    // WAF-only replay of the same recording: the same FTL counts.
    let w = replay(&d, &[]);
    assert_eq!(w["total"]["gc_writes"], live["total"]["gc_writes"]);
    assert_eq!(w["total"]["waf"], live["total"]["waf"]);
    // Every write record carries a content hash.
    let s = trace_stats(&d.join("rec.fgt"));
    assert_eq!(s["writes"].as_u64().unwrap(), wrote / 4096, "{s}");
    assert_eq!(
        s["duplicates"]["written_pages_with_hash"].as_u64().unwrap(),
        wrote / 4096,
        "content hashes missing: {s}"
    );
}

fn qemu_io(sock: &str, cmd: &str) -> std::process::Output {
    Command::new("qemu-io")
        .args(["-f", "raw"])
        .arg(format!("nbd+unix:///?socket={sock}"))
        .args(["-c", cmd])
        .output()
        .unwrap()
}

#[test]
fn a_pattern_written_by_one_client_reads_back_after_a_reconnect() {
    let d = dir("qemu");
    let srv = Server::start(&d, &["--data", "memory"]);
    let path = srv.sock.display().to_string();
    if have("qemu-io") {
        let w = qemu_io(&path, "write -P 0xa5 1048576 2097152");
        assert!(w.status.success(), "{}", String::from_utf8_lossy(&w.stderr));
        let r = qemu_io(&path, "read -P 0xa5 1048576 2097152");
        let so = String::from_utf8_lossy(&r.stdout);
        assert!(r.status.success() && !so.contains("failed"), "{so}");
        // The check could fail: another pattern does not match.
        let bad = qemu_io(&path, "read -P 0x5a 1048576 4096");
        assert!(
            !bad.status.success()
                && String::from_utf8_lossy(&bad.stdout).contains("verification failed"),
            "{}",
            String::from_utf8_lossy(&bad.stdout)
        );
    } else if have("nbdcopy") {
        let src = d.join("pattern.bin");
        let pat: Vec<u8> = (0..2u32 << 20).map(|i| (i % 251) as u8).collect();
        std::fs::write(&src, &pat).unwrap();
        let uri = srv.uri();
        let c = Command::new("nbdcopy")
            .arg(&src)
            .arg(&uri)
            .status()
            .unwrap();
        assert!(c.success());
        let back = d.join("back.bin");
        let c = Command::new("nbdcopy")
            .arg(&uri)
            .arg(&back)
            .status()
            .unwrap();
        assert!(c.success());
        assert_eq!(&std::fs::read(&back).unwrap()[..pat.len()], &pat[..]);
    } else {
        eprintln!("SKIPPED: neither qemu-io (qemu-utils) nor nbdcopy (libnbd-bin) is installed");
        srv.stop();
        return;
    }
    let r = srv.stop();
    assert_eq!(r["total"]["user_writes"].as_u64().unwrap(), 512);
    let log = std::fs::read_to_string(d.join("stderr.txt")).unwrap();
    assert!(log.contains("client 2: connected"), "{log}");
}

#[test]
fn bad_clients_get_errors_or_are_dropped_and_no_acknowledged_write_is_lost() {
    let d = dir("bad");
    let srv = Server::start(&d, &["--data", "memory"]);
    // A malformed handshake: unknown client flags.
    {
        let mut c = Raw::connect(&srv.sock);
        c.greeting();
        c.s.write_all(&0xffff_ffffu32.to_be_bytes()).unwrap();
        let mut b = [0u8; 1];
        assert_eq!(c.s.read(&mut b).unwrap_or(0), 0, "not dropped");
    }
    // A handshake with a bad option magic.
    {
        let mut c = Raw::connect(&srv.sock);
        c.greeting();
        c.s.write_all(&1u32.to_be_bytes()).unwrap();
        c.s.write_all(b"NOTMAGIC\0\0\0\x07\0\0\0\0").unwrap();
        let mut b = [0u8; 1];
        assert_eq!(c.s.read(&mut b).unwrap_or(0), 0, "not dropped");
    }
    let (mut c, size) = Raw::go(&srv.sock);
    assert_eq!(size, 33016 * 4096);
    let page = vec![0x3cu8; 4096];
    c.request(1, 1, 8192, 4096, &page);
    assert_eq!(c.reply(0).0, 0);
    // Out-of-range read: EINVAL; out-of-range write: ENOSPC (payload consumed).
    c.request(0, 2, size - 4096, 8192, &[]);
    assert_eq!(c.reply(8192), (22, 2, vec![]));
    c.request(1, 3, size, 4096, &page);
    assert_eq!(c.reply(0), (28, 3, vec![]));
    // Larger than the 32 MiB limit: EINVAL, for a read and for a write with its payload.
    c.request(0, 4, 0, (32 << 20) + 4096, &[]);
    assert_eq!(c.reply(0).0, 22);
    let big = vec![0x77u8; (32 << 20) + 4096];
    c.request(1, 5, 0, big.len() as u32, &big);
    assert_eq!(c.reply(0), (22, 5, vec![]));
    // An unknown command: EINVAL; the connection still works.
    c.request(9, 6, 0, 0, &[]);
    assert_eq!(c.reply(0).0, 22);
    c.request(0, 7, 8192, 4096, &[]);
    assert_eq!(c.reply(4096), (0, 7, page.clone()));
    // A bad request magic: dropped.
    c.s.write_all(&[0u8; 28]).unwrap();
    let mut b = [0u8; 1];
    assert_eq!(c.s.read(&mut b).unwrap_or(0), 0, "not dropped");
    // A client that disconnects in the middle of a write payload.
    {
        let (mut c, _) = Raw::go(&srv.sock);
        let mut hdr = Vec::new();
        hdr.extend_from_slice(&0x2560_9513u32.to_be_bytes());
        hdr.extend_from_slice(&[0, 0, 0, 1]);
        hdr.extend_from_slice(&9u64.to_be_bytes());
        hdr.extend_from_slice(&8192u64.to_be_bytes());
        hdr.extend_from_slice(&4096u32.to_be_bytes());
        hdr.extend_from_slice(&[0xee; 100]);
        c.s.write_all(&hdr).unwrap();
    }
    // A client that disconnects in the middle of a request header.
    {
        let (mut c, _) = Raw::go(&srv.sock);
        c.s.write_all(&0x2560_9513u32.to_be_bytes()).unwrap();
    }
    // The server still serves, and the acknowledged write is intact.
    let (mut c, _) = Raw::go(&srv.sock);
    c.request(0, 10, 8192, 4096, &[]);
    assert_eq!(c.reply(4096), (0, 10, page.clone()));
    c.request(2, 11, 0, 0, &[]);
    std::thread::sleep(Duration::from_millis(200));
    let log = srv.log();
    for why in [
        "malformed handshake: unknown client flags",
        "malformed handshake: option magic",
        "beyond the end of the export",
        "longer than the 32 MiB request limit",
        "command 9 is not supported",
        "bad request magic",
        "in the middle of a write payload",
        "in the middle of a request header",
        "disconnected (NBD_CMD_DISC)",
    ] {
        assert!(log.contains(why), "log lacks `{why}`:\n{log}");
    }
    let r = srv.stop();
    // Only the one acknowledged write reached the simulator.
    assert_eq!(r["total"]["user_writes"], 1, "{}", r["total"]);
}

#[test]
fn pace_real_answers_at_the_simulated_completion_time() {
    let d = dir("pace");
    // Time scale 200: a write of about 1.4 ms simulated takes about 0.28 s of wall clock.
    let srv = Server::start(
        &d,
        &[
            "--data",
            "none",
            "--timing",
            "--pace",
            "real",
            "--time-scale",
            "200",
        ],
    );
    let (mut c, _) = Raw::go(&srv.sock);
    let page = vec![1u8; 4096];
    let t0 = Instant::now();
    c.request(1, 1, 0, 4096, &page);
    assert_eq!(c.reply(0).0, 0);
    let paced = t0.elapsed();
    c.request(2, 2, 0, 0, &[]);
    let r = srv.stop();
    let lat_us = r["timing"]["write_latency"]["max_us"].as_f64().unwrap();
    assert!(lat_us > 100.0, "simulated write latency {lat_us} us");
    let want = Duration::from_secs_f64(lat_us * 1e-6 * 200.0);
    assert!(
        paced >= want.mul_f64(0.95),
        "answered after {paced:?}, simulated completion x 200 = {want:?}"
    );
    // Without pacing the same write is answered at once.
    let d2 = dir("nopace");
    let srv = Server::start(&d2, &["--data", "none", "--timing"]);
    let (mut c, _) = Raw::go(&srv.sock);
    let t0 = Instant::now();
    c.request(1, 1, 0, 4096, &page);
    assert_eq!(c.reply(0).0, 0);
    assert!(t0.elapsed() < want / 2, "{:?}", t0.elapsed());
    srv.stop();
}

#[test]
fn bad_serve_flags_exit_with_code_2() {
    for args in [
        vec!["serve", "--socket", "/tmp/x.sock", "--data", "disk"],
        vec!["serve", "--socket", "/tmp/x.sock", "--pace", "real"],
        vec!["serve", "--socket", "/tmp/x.sock", "--rw", "randwrite"],
        vec!["serve", "--socket", "/tmp/x.sock", "--time-scale", "0"],
        vec!["serve", "--socket", "/tmp/x.sock", "--workload", "uniform"],
        vec!["serve", "--socket", "/tmp/x.sock", "--placement", "oracle"],
        // Accepted and then ignored, once.
        vec![
            "serve",
            "--socket",
            "/tmp/x.sock",
            "--timing",
            "--rate",
            "10",
        ],
        vec![
            "serve",
            "--socket",
            "/tmp/x.sock",
            "--timing",
            "--requests",
            "5",
        ],
        vec!["serve", "--socket", "/tmp/x.sock", "--write-volume", "1"],
        vec!["serve", "--socket", "/tmp/x.sock", "--read-ratio", "0.5"],
        vec![
            "serve",
            "--socket",
            "/tmp/x.sock",
            "--exit-after-clients",
            "0",
        ],
        vec!["serve"],
    ] {
        let out = bin().args(&args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `--record` to a directory, or into a missing one, used to be found only when the server
/// stopped (the recording lost, a `PATH.partial` left beside it); an empty `--socket` bound
/// a socket no client can name. Both are refused before serving.
#[test]
fn bad_record_and_socket_paths_are_refused_before_serving() {
    let d = dir("record");
    let sock = d.join("s.sock");
    let sock = sock.to_str().unwrap();
    let inside = d.join("no/such/t.fgt");
    let (here, inside) = (d.to_str().unwrap(), inside.to_str().unwrap());
    // A file at the socket path was deleted as if it were a stale socket.
    let precious = d.join("precious.txt");
    std::fs::write(&precious, "precious").unwrap();
    let precious = precious.to_str().unwrap();
    for (args, want) in [
        (vec!["--socket", sock, "--record", here], "--record"),
        (vec!["--socket", sock, "--record", inside], "--record"),
        (vec!["--socket", ""], "--socket"),
        (
            vec!["--socket", precious],
            "exists and is not a socket (a regular file)",
        ),
        (
            vec!["--socket", here],
            "exists and is not a socket (a directory)",
        ),
    ] {
        let mut c = bin();
        c.arg("serve").args(DEVICE).args(&args);
        let what = format!("{args:?}: serving, not refused");
        let o = common::output_within(c, Duration::from_secs(20), &what);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    assert!(!Path::new(&format!("{here}.partial")).exists());
    assert_eq!(std::fs::read_to_string(precious).unwrap(), "precious");
    let _ = std::fs::remove_dir_all(&d);
}

/// SIGHUP (the terminal or ssh session closed) ended the server with nothing saved (exit
/// 129, an empty `.partial` recording, a stale socket). It now stops as SIGTERM does.
#[test]
fn sighup_stops_the_server_cleanly_and_keeps_its_results() {
    let d = dir("hup");
    let mut s = Server::start(&d, &[]);
    s.stopped = true;
    // SAFETY: plain kill(2) on our own child.
    unsafe {
        libc::kill(s.child.id() as i32, libc::SIGHUP);
    }
    let st = s.child.wait().unwrap();
    assert!(st.success(), "server exit {st:?}: {}", s.log());
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("result.json")).unwrap()).unwrap();
    assert_eq!(r["total"]["user_writes"], 0, "{r}");
    assert!(d.join("rec.fgt").exists() && !d.join("rec.fgt.partial").exists());
    assert!(!s.sock.exists(), "the socket was left behind");
    let _ = std::fs::remove_dir_all(&d);
}

fn fio_json(args: &[&str]) -> Value {
    let out = bin()
        .arg("fio")
        .args(DEVICE)
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v[0].clone()
}

#[test]
fn a_job_file_with_two_sections_equals_the_flags() {
    let d = dir("jobfile");
    let job = d.join("two.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=libaio\ndirect=1\nrw=randrw\nrwmixread=30\nbs=4k\niodepth=8\nsize=64m\nnorandommap\n\n[a]\n\n[b]\nnumjobs=1\n",
    )
    .unwrap();
    let j = job.display().to_string();
    let from_file = fio_json(&["--job", &j]);
    let from_flags = fio_json(&[
        "--rw",
        "randrw",
        "--rwmixwrite",
        "70",
        "--bs",
        "4k",
        "--iodepth",
        "8",
        "--numjobs",
        "2",
        "--size",
        "64m",
    ]);
    // The flags draw uniform offsets with replacement: the job file says norandommap.
    assert_eq!(from_file, from_flags);
    assert!(from_file["total"]["gc_writes"].as_u64().unwrap() > 0);
    // runtime=0 and ramp_time=0 are no limit and no ramp (as in fio): the same run.
    let ramp0 = d.join("ramp0.fio");
    std::fs::write(
        &ramp0,
        "[global]\nioengine=libaio\nrw=randrw\nrwmixwrite=70\nbs=4k\niodepth=8\nsize=64m\nramp_time=0\nruntime=0\nnorandommap\n[a]\n[b]\n",
    )
    .unwrap();
    assert_eq!(
        fio_json(&["--job", &ramp0.display().to_string()]),
        from_flags
    );
    // runtime stops at the simulated clock, counted after the ramp (fio's ramp_time is
    // lead-in time); each clone is a flow with its own ramp.
    let rt = d.join("runtime.fio");
    std::fs::write(
        &rt,
        "[global]\nioengine=libaio\nrw=randwrite\nbs=4k\niodepth=8\nruntime=20ms\nramp_time=5ms\n[a]\nnumjobs=2\n",
    )
    .unwrap();
    let r = fio_json(&["--job", &rt.display().to_string()]);
    assert_eq!(r["ended_by"], "runtime");
    let sim_ns = r["timing"]["simulated_ns"].as_u64().unwrap();
    assert!((25_000_000..45_000_000).contains(&sim_ns), "{sim_ns}");
    assert!(r["notes"].to_string().contains("ramp_time"));
    for f in r["flows"].as_array().expect("a flow per clone") {
        assert!(f["ramp_requests"].as_u64().unwrap() > 0, "{f}");
    }
    // Unsupported options and a time-based job without a run time are errors naming the
    // file, line and option. (Different jobs, groups and run times run as host flows:
    // flows_cli.rs.)
    for (text, want) in [
        ("[a]\nrw=randwrite\nverify=crc32c\n", ":3: option `verify`"),
        (
            "[a]\nrw=randwrite\nruntime=1s\n[b]\nrw=randwrite\ntime_based\n",
            ":6: option `time_based`",
        ),
    ] {
        let f = d.join("bad.fio");
        std::fs::write(&f, text).unwrap();
        let out = bin()
            .arg("fio")
            .args(DEVICE)
            .arg("--job")
            .arg(&f)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{e}");
        assert!(e.contains(&format!("bad.fio{want}")), "{e}");
    }
}

#[test]
fn content_mode_over_tcp_gets_the_real_content() {
    if !have("qemu-io") {
        eprintln!("SKIPPED: qemu-io (qemu-utils) is not installed");
        return;
    }
    let d = dir("dedup-tcp");
    let child = bin()
        .arg("serve")
        .args(DEVICE)
        .args(["--gc-action", "splitgc", "--victim", "splitgc"])
        .args(["--listen", "127.0.0.1:0", "--quiet"])
        .args(["--exit-after-clients", "2", "--json"])
        .arg("--record")
        .arg(d.join("rec.fgt"))
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(d.join("stderr.txt")).unwrap())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let uri = loop {
        let log = std::fs::read_to_string(d.join("stderr.txt")).unwrap_or_default();
        if let Some(i) = log.find("nbd://") {
            break log[i..]
                .split_whitespace()
                .next()
                .unwrap()
                .trim_end_matches(';')
                .to_string();
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "{log}");
        std::thread::sleep(Duration::from_millis(20));
    };
    // 4 MiB of one repeated page, then 4 MiB of distinct data written by a second client.
    let q = |cmd: &str| {
        let o = Command::new("qemu-io")
            .args(["-f", "raw", &uri, "-c", cmd])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    q("write -P 0x42 0 4M");
    q("write -P 0x43 4M 4k");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let action = r["dedup"]["gc_action"].as_str().unwrap_or_default();
    assert!(action.starts_with("splitgc"), "{action}");
    assert_eq!(r["total"]["user_writes"], 1025);
    // The 1024 pages of one content written over the wire are duplicates of each other
    // in the FTL's content store (synthetic content would have no duplicates).
    let share = r["dedup"]["measured_dup_share"].as_f64().unwrap();
    eprintln!("measured_dup_share {share}");
    assert!(share > 0.0, "{}", r["dedup"]);
    let s = trace_stats(&d.join("rec.fgt"));
    assert_eq!(s["duplicates"]["written_pages_with_hash"], 1025);
    assert_eq!(s["duplicates"]["distinct_hashes"], 2, "{s}");
}

/// NBD FLUSH and FUA reach the simulated write cache (`--cache-mib`): eight writes stay
/// in DRAM until the flush programs them, a FUA write and a FUA WRITE_ZEROES (NO_HOLE) are
/// programmed at once, and two later writes are still dirty at the end. The record counts
/// the flush with its latency and the FUA writes; the recording holds them too (`.fgt`
/// version 2), so its replay programs the same pages and counts the same flush and FUA
/// writes.
#[test]
fn flush_and_fua_program_the_simulated_write_cache() {
    let d = dir("flush");
    let r = flush_and_fua_session(&d, &[]);
    let notes = r["notes"].to_string();
    assert!(!notes.contains("does not hold"), "{notes}");
    let log = std::fs::read_to_string(d.join("stderr.txt")).unwrap();
    assert!(log.contains("1 flushes, 2 FUA"), "{log}");
    let text = std::fs::read_to_string(d.join("stdout.txt")).unwrap();
    assert!(text.contains("flush latency us"), "{text}");
    replay_matches_the_session(&d, &r, &[]);
    // `--trace-flushes ignore`: every write stays in the cache, as replays did before.
    let rep = replay(
        &d,
        &["--timing", "--cache-mib", "4", "--trace-flushes", "ignore"],
    );
    assert_eq!(rep["total"]["user_writes"], 0, "{}", rep["total"]);
    assert_eq!(rep["timing"]["cache"]["dirty_at_end"], 12);
    assert_eq!(rep["timing"]["flushes"].as_u64().unwrap_or(0), 0);
}

/// Under a priority scheduler with suspend, where completions are decided by later
/// arrivals, the same session programs the same pages: the flush's programs wait in the
/// scheduler's queues and it completes once they and the earlier writes have. Its
/// recording replays to the same numbers.
#[test]
fn under_a_priority_scheduler_flushes_and_fua_program_the_write_cache_too() {
    let d = dir("flush-deferred");
    let extra = ["--scheduler", "read-first", "--suspend", "on"];
    let r = flush_and_fua_session(&d, &extra);
    let sched = &r["timing"]["params"]["controller"]["scheduler"]["kind"];
    assert_eq!(sched, "read-first", "{}", r["timing"]["params"]);
    replay_matches_the_session(&d, &r, &extra);
}

/// The recording of a flush-and-FUA session replayed with the session's timing flags
/// (`extra` besides the 4 MiB cache): the same pages programmed, flushes, FUA writes,
/// dirty pages at the end and flush latency.
fn replay_matches_the_session(d: &std::path::Path, r: &Value, extra: &[&str]) {
    let s = trace_stats(&d.join("rec.fgt"));
    assert_eq!(
        (&s["flushes"], &s["fua_writes"]),
        (&1.into(), &2.into()),
        "{s}"
    );
    let mut a = vec!["--timing", "--cache-mib", "4"];
    a.extend(extra);
    let rep = replay(d, &a);
    assert_eq!(rep["total"]["user_writes"], r["total"]["user_writes"]);
    let (t, u) = (&rep["timing"], &r["timing"]);
    for k in ["flushes", "fua_writes", "requests"] {
        assert_eq!(t[k], u[k], "{k}: {t}");
    }
    assert_eq!(t["cache"]["dirty_at_end"], u["cache"]["dirty_at_end"]);
    assert_eq!(t["flush_latency"], u["flush_latency"], "{t}");
}

/// Serves eight cached writes, a flush, a FUA WRITE, a FUA WRITE_ZEROES (NO_HOLE) and two
/// more writes under `extra` flags with a 4 MiB cache, and checks what the simulator made
/// of them; returns the result.
fn flush_and_fua_session(d: &std::path::Path, extra: &[&str]) -> Value {
    let mut a = vec!["--data", "memory", "--timing", "--cache-mib", "4"];
    a.extend(extra);
    let srv = Server::start(d, &a);
    let (mut c, _) = Raw::go(&srv.sock);
    let page = vec![0x5au8; 4096];
    let mut handle = 0;
    let mut ok = |c: &mut Raw, kind: u16, flags: u16, offset: u64, len: u32, data: &[u8]| {
        handle += 1;
        c.request_flags(kind, flags, handle, offset, len, data);
        assert_eq!(c.reply(0), (0, handle, vec![]), "command {kind}");
    };
    for p in 0..8u64 {
        ok(&mut c, 1, 0, p * 8192, 4096, &page);
    }
    ok(&mut c, 3, 0, 0, 0, &[]);
    ok(&mut c, 1, 1, 1 << 20, 4096, &page);
    ok(&mut c, 6, 1 | 2, 2 << 20, 4096, &[]);
    for p in 0..2u64 {
        ok(&mut c, 1, 0, (3 << 20) + p * 4096, 4096, &page);
    }
    let r = disconnect_and_stop(&mut c, srv);
    let t = &r["timing"];
    assert_eq!(t["flushes"], 1, "{extra:?}: {t}");
    assert_eq!(t["fua_writes"], 2, "{extra:?}: {t}");
    assert!(t["flush_latency"]["max_us"].as_f64().unwrap() > 50.0, "{t}");
    assert_eq!(t["cache"]["dirty_at_end"], 2, "{t}");
    // Programmed: the eight flushed pages and the two FUA pages.
    assert_eq!(r["total"]["user_writes"], 10, "{extra:?}: {}", r["total"]);
    r
}

/// A write of several pages is served as the one request the client sent and recorded one
/// page per record with each page's fingerprint (`.fgt` version 3 continuation records):
/// the served record, `trace stats` and a timed replay all count the client's requests and
/// agree on their latencies. In the FTL's content mode each page is its own request (the
/// content store needs its fingerprint), served and replayed alike.
#[test]
fn a_multi_page_write_is_one_request_served_and_replayed() {
    // (name, flags, simulator requests, of them FUA writes)
    let cases: [(&str, &[&str], u64, u64); 2] = [
        ("joined", &[], 6, 1),
        ("per-page", &["--gc-action", "cagc"], 24, 2),
    ];
    for (name, extra, requests, fua) in cases {
        let d = dir(&format!("multipage-{name}"));
        let mut a = vec!["--data", "memory", "--timing"];
        a.extend(extra);
        let srv = Server::start(&d, &a);
        let (mut c, _) = Raw::go(&srv.sock);
        let mut handle = 0;
        let mut ok = |c: &mut Raw, kind: u16, flags: u16, offset: u64, len: u32, data: &[u8]| {
            handle += 1;
            c.request_flags(kind, flags, handle, offset, len, data);
            assert_eq!(c.reply(0), (0, handle, vec![]), "{name}: command {kind}");
        };
        // 16 pages of distinct content, three single pages, a FUA write of two pages and a
        // WRITE_ZEROES (NO_HOLE) of three: six requests, 24 pages.
        let big: Vec<u8> = (0..16 * 4096)
            .map(|i| (i / 4096 * 7 + i % 251) as u8)
            .collect();
        ok(&mut c, 1, 0, 0, big.len() as u32, &big);
        for p in 0..3u64 {
            ok(&mut c, 1, 0, (1 << 20) + p * 8192, 4096, &big[..4096]);
        }
        ok(&mut c, 1, 1, 2 << 20, 8192, &big[..8192]);
        ok(&mut c, 6, 2, 3 << 20, 3 * 4096, &[]);
        let r = disconnect_and_stop(&mut c, srv);
        assert_eq!(r["total"]["user_writes"], 24, "{name}: {}", r["total"]);
        assert_eq!(r["timing"]["requests"], requests, "{name}: {}", r["timing"]);
        assert_eq!(r["timing"]["fua_writes"], fua, "{name}: {}", r["timing"]);
        // The recording: six requests of 24 hashed pages, the 64 KiB one in its size bucket.
        let s = trace_stats(&d.join("rec.fgt"));
        assert_eq!(
            (&s["requests"], &s["writes"]),
            (&6.into(), &6.into()),
            "{s}"
        );
        assert_eq!(s["fua_writes"], 1, "{s}");
        assert_eq!(s["duplicates"]["written_pages_with_hash"], 24, "{s}");
        let sizes = s["size_histogram"].to_string();
        assert!(sizes.contains("65536"), "{sizes}");
        let rep = replay(&d, &[&["--timing"][..], extra].concat());
        assert_eq!(rep["total"], r["total"], "{name}");
        for k in ["requests", "fua_writes", "write_latency"] {
            assert_eq!(rep["timing"][k], r["timing"][k], "{name}: {k}");
        }
    }
}
