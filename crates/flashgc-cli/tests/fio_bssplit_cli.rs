//! fio's block-size mixes on the command line: `bssplit`, `bs=READS,WRITES` and `bsrange`
//! in job files (merged and per-flow), the `[[flow]]` key and `--bssplit`
//! (docs/timing.md, docs/flows.md, workload/fio/block_sizes.rs).

mod common;

use common::{flashgc, json, stderr, temp_dir};

use common::FIO_SMALL as SMALL;

fn with_small<'a>(head: &[&'a str]) -> Vec<&'a str> {
    let mut v = head.to_vec();
    v.extend_from_slice(SMALL);
    v
}

fn fail(args: &[&str]) -> String {
    let o = flashgc(args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    stderr(&o)
}

#[test]
fn job_files_with_bssplit_run_merged_and_as_flows() {
    let dir = temp_dir("bssplit", "jobs");
    let job = dir.join("mix.fio");
    let j = job.display().to_string();
    // Merged: one job; its volume (size) is bytes, whatever the lengths.
    std::fs::write(
        &job,
        "[global]\nioengine=libaio\nrw=randwrite\niodepth=4\n\n[w]\nsize=32m\nio_size=48m\n\
         bssplit=4k/50:64k/30:256k/20\n",
    )
    .unwrap();
    let run = || {
        json(&flashgc(&with_small(&[
            "fio", "--job", &j, "--timing", "--json",
        ])))
    };
    let r = run();
    // The run ends after the request that reaches io_size (48 MiB of writes).
    assert_eq!(r[0]["ended_by"], "data_volume", "{r}");
    let written = r[0]["total"]["user_writes"].as_u64().unwrap() * 4096;
    assert!(
        ((48 << 20)..(48 << 20) + (256 << 10)).contains(&written),
        "{written} bytes written"
    );
    assert!(
        r[0]["workload"]
            .as_str()
            .unwrap()
            .contains("bssplit=262144/20:65536/30:4096/50"),
        "the mix is described: {r}"
    );
    assert_eq!(r, run(), "same seed, same result");

    // Per flow (two different jobs): each ends after the request that reaches its
    // byte volume; reads 4k, writes 64k for `bs=4k,64k`.
    std::fs::write(
        &job,
        "[global]\nioengine=libaio\niodepth=2\n\n[mix]\nrw=randwrite\nsize=16m\nio_size=8m\n\
         bssplit=4k/50:64k/30:256k/20\n\n[rw]\nrw=randrw\nrwmixwrite=50\noffset=32m\nsize=16m\n\
         io_size=4m\nbs=4k,64k\n\n[range]\nrw=write\noffset=48m\nsize=8m\nbsrange=4k-32k\n",
    )
    .unwrap();
    let r = run();
    let flows = r[0]["flows"].as_array().expect("per-flow statistics");
    let get = |i: usize, k: &str| flows[i][k].as_u64().unwrap();
    for (i, volume) in [(0, 8u64 << 20), (1, 4 << 20), (2, 8 << 20)] {
        let (bytes, n) = (get(i, "bytes"), get(i, "requests"));
        // At least the volume, and less than one longest request (256k) past it.
        assert!(
            (volume..volume + (256 << 10)).contains(&bytes),
            "flow {i}: {bytes} bytes in {n} requests, volume {volume}"
        );
    }
    // randrw 50 %: about as many reads (4k) as writes (64k).
    let (reads, writes) = (get(1, "read_requests"), get(1, "write_requests"));
    assert_eq!(
        get(1, "bytes"),
        reads * 4096 + writes * 65536,
        "{}",
        flows[1]
    );
    assert!(flows[2]["pattern"]
        .as_str()
        .unwrap()
        .contains("bsrange=4096-32768"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn block_size_errors_name_the_file_line_option_or_field() {
    let dir = temp_dir("bssplit", "errors");
    let job = dir.join("bad.fio");
    let j = job.display().to_string();
    for (text, at, says) in [
        (
            "[a]\nrw=randwrite\nbssplit=4k/70:8k/40\n",
            "bad.fio:3: option `bssplit`",
            "add up to 110",
        ),
        // 6k is not a multiple of the 4 KiB LPN: checked on the device, at the line.
        (
            "[a]\nrw=randwrite\nbssplit=4k/50:6k/50\n",
            "bad.fio:3: option `bssplit`",
            "LPN size",
        ),
        (
            "[a]\nrw=randwrite\nbsrange=64k-4k\n",
            "bad.fio:3: option `bsrange`",
            "above the maximum",
        ),
        (
            "[a]\nrw=randwrite\nbs=4k,0\n",
            "bad.fio:3: option `bs`",
            "positive",
        ),
    ] {
        std::fs::write(&job, text).unwrap();
        let e = fail(&with_small(&["fio", "--job", &j]));
        assert!(e.contains(at) && e.contains(says), "{text}: {e}");
    }
    let cfg = dir.join("flows.toml");
    std::fs::write(
        &cfg,
        "[[flow]]\nbssplit = \"4k/50:8k\"\nrequests = 10\n[[flow]]\nbssplit = \"4k/x\"\n",
    )
    .unwrap();
    let e = fail(&["run", "--config", cfg.to_str().unwrap(), "--timing"]);
    assert!(
        e.contains("flow[1].bssplit") && e.contains("not a whole number"),
        "{e}"
    );
    std::fs::write(&cfg, "[[flow]]\nbssplit = \"4k/50:6k/50\"\nrequests = 10\n").unwrap();
    let e = fail(&["run", "--config", cfg.to_str().unwrap(), "--timing"]);
    assert!(
        e.contains("flow[0].bssplit") && e.contains("LPN size"),
        "{e}"
    );
    let e = fail(&with_small(&["fio", "--bssplit", "4k/50:64k/60"]));
    assert!(
        e.contains("--bssplit") && e.contains("add up to 110"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_flag_and_flow_sections_take_a_split() {
    let dir = temp_dir("bssplit", "flag");
    let r = json(&flashgc(&with_small(&[
        "fio",
        "--bssplit",
        "4k/50:64k/50",
        "--data-gb",
        "0.05",
        "--json",
    ])));
    assert!(r.to_string().contains("bssplit=4096/50:65536/50"), "{r}");
    let cfg = dir.join("flows.toml");
    std::fs::write(
        &cfg,
        "[[flow]]\nname = \"m\"\nrw = \"randwrite\"\niodepth = 2\nbssplit = \"4k/50:32k/50\"\nrequests = 2000\n",
    )
    .unwrap();
    let r = json(&flashgc(&with_small(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--timing",
        "--json",
    ])));
    let f = &r["flows"][0];
    assert_eq!(f["requests"], 2000, "{f}");
    let bytes = f["bytes"].as_u64().unwrap();
    // Half 4k, half 32k: 36k per two requests on average.
    let mean = bytes as f64 / 2000.0;
    assert!(
        (mean - 18432.0).abs() < 4.5 * 14336.0 / (2000f64).sqrt(),
        "{mean}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
