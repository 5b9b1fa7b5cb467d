//! fio's trim patterns on the command line: `trim`, `randtrim`, `trimwrite` and
//! `randtrimwrite` in job files and `--rw` (docs/serve.md, "fio job files";
//! workload/fio/trims.rs).

mod common;

use common::{flashgc, json};

use common::FIO_SMALL as SMALL;

fn run_job(dir: &std::path::Path, name: &str, text: &str) -> serde_json::Value {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    let f = p.display().to_string();
    let mut a = vec!["fio", "--job", f.as_str(), "--json"];
    a.extend_from_slice(SMALL);
    json(&flashgc(&a))[0].clone()
}

#[test]
fn trim_patterns_issue_fios_requests_and_free_the_space_they_trim() {
    let dir = std::env::temp_dir().join(format!("flashgc-trims-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // trimwrite: each 16 KiB block trimmed, then written; fio counts both, so 8 MiB is
    // 1024 requests, half of them trims of 4 pages each.
    let r = run_job(
        &dir,
        "tw.fio",
        "[t]\nioengine=libaio\nrw=trimwrite\nbs=16k\niodepth=4\nsize=8m\n",
    );
    assert_eq!(r["timing"]["requests"], 1024);
    assert_eq!(r["timing"]["write_requests"], 512);
    assert_eq!(r["total"]["trims"], 2048);
    // A device written full, then trimmed, takes a capacity of random writes almost
    // without GC; the same writes without the trim move pages.
    let fill = "[global]\nioengine=libaio\nbs=64k\niodepth=8\n[fill]\nrw=write\n";
    let writes = "[w]\nstonewall\nrw=randwrite\nbs=4k\nnorandommap\n";
    let with = run_job(
        &dir,
        "with.fio",
        &format!("{fill}[trim]\nstonewall\nrw=trim\n{writes}"),
    );
    let without = run_job(&dir, "without.fio", &format!("{fill}{writes}"));
    let moved = |r: &serde_json::Value| r["total"]["gc_writes"].as_u64().unwrap();
    assert!(
        moved(&with) * 4 < moved(&without),
        "GC writes with the trim {} vs without {}",
        moved(&with),
        moved(&without)
    );
    let flows = with["flows"].as_array().unwrap();
    let trims = flows.iter().find(|f| f["name"] == "trim").unwrap();
    assert_eq!(trims["trim_requests"], trims["requests"]);
    // The flag takes them too; a rate cap on a trim job is refused at its line.
    let mut a = vec!["fio", "--rw", "randtrim", "--size", "4m", "--json"];
    a.extend_from_slice(SMALL);
    let r = &json(&flashgc(&a))[0];
    assert_eq!(r["timing"]["requests"], 1024);
    assert_eq!(r["timing"]["write_requests"], 0);
    // The flags draw with replacement: 1024 draws over 1024 filled pages trim
    // 1024 (1 - (1 - 1/1024)^1024) = 647.5 distinct ones (sd about 9).
    let t = r["total"]["trims"].as_u64().unwrap();
    assert!((610..=685).contains(&t), "{t} pages trimmed");
    let p = dir.join("rate.fio");
    std::fs::write(&p, "[t]\nrw=randtrim\nrate_iops=100\n").unwrap();
    let f = p.display().to_string();
    let mut a = vec!["fio", "--job", f.as_str()];
    a.extend_from_slice(SMALL);
    let o = flashgc(&a);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("rate.fio:3: option `rate_iops`") && e.contains("trims"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
