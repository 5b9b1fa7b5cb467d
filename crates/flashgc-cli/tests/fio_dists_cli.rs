//! fio's `random_distribution` beyond uniform and zipf on the command line: zoned and
//! pareto jobs in a job file, `[[flow]]` sections and `--distribution` (docs/timing.md,
//! docs/flows.md, workload/fio/dist.rs).

mod common;

use common::{flashgc, json};

use common::FIO_SMALL as SMALL;

fn with_small<'a>(head: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = head.to_vec();
    v.extend_from_slice(SMALL);
    v.extend_from_slice(extra);
    v
}

fn fail(args: &[&str]) -> String {
    let o = flashgc(args);
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{e}");
    e
}

#[test]
fn job_file_runs_zoned_and_pareto_jobs() {
    let dir = std::env::temp_dir().join(format!("flashgc-fio-dists-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("zoned.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=libaio\nbs=4k\n\n[hot]\nrw=randwrite\nsize=32m\nio_size=64m\niodepth=4\n\
         random_distribution=zoned:60/10:30/20:10/70\n\n[reader]\nrw=randread\noffset=32m\n\
         size=16m\nnumber_ios=500\nrandom_distribution=pareto:0.9\n",
    )
    .unwrap();
    let j = job.display().to_string();
    let run = || json(&flashgc(&with_small(&["fio", "--job", &j, "--json"], &[])));
    let r = run();
    let flows = r[0]["flows"].as_array().expect("per-flow statistics");
    let (hot, reader) = (&flows[0], &flows[1]);
    assert_eq!(hot["write_requests"], 16384, "{hot}");
    assert_eq!(reader["read_requests"], 500, "{reader}");
    let pattern = |f: &serde_json::Value| f["pattern"].as_str().unwrap().to_string();
    assert!(
        pattern(hot).contains("random_distribution=zoned:60/10:30/20:10/70"),
        "{hot}"
    );
    assert!(
        pattern(reader).contains("random_distribution=pareto:0.9"),
        "{reader}"
    );
    assert!(r[0]["total"]["gc_writes"].as_u64().unwrap() > 0, "GC ran");
    // Same seed, same bytes.
    assert_eq!(r, run());
    // A value fio refuses, and zones past the region, name the file, line and option.
    for (text, says) in [
        (
            "[a]\nrw=randwrite\nrandom_distribution=zoned:60/10:30/20\n",
            "add up to 90",
        ),
        (
            "[a]\nrw=randwrite\nsize=8m\nrandom_distribution=zoned_abs:50/4m:50/8m\n",
            "past the region",
        ),
    ] {
        std::fs::write(&job, text).unwrap();
        let e = fail(&with_small(&["fio", "--job", &j], &[]));
        let line = if says == "add up to 90" { 3 } else { 4 };
        assert!(
            e.contains(&format!("zoned.fio:{line}: option `random_distribution`"))
                && e.contains(says),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn flow_sections_and_the_flag_take_the_new_distributions() {
    let dir = std::env::temp_dir().join(format!("flashgc-fio-dists-f-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("flows.toml");
    std::fs::write(
        &cfg,
        "[[flow]]\nname = \"p\"\nrw = \"randwrite\"\niodepth = 2\ndistribution = \"pareto:0.8:0.5\"\n\
         [[flow]]\nname = \"n\"\nrw = \"randwrite\"\niodepth = 2\ndistribution = \"normal:10\"\n",
    )
    .unwrap();
    let c = cfg.to_str().unwrap();
    let r = json(&flashgc(&with_small(
        &[
            "run",
            "--config",
            c,
            "--timing",
            "--requests",
            "4000",
            "--json",
        ],
        &[],
    )));
    let f = r["flows"].as_array().unwrap();
    assert!(f[0]["pattern"].as_str().unwrap().contains("pareto:0.8:0.5"));
    assert!(f[1]["pattern"].as_str().unwrap().contains("normal:10"));
    let n: u64 = f.iter().map(|x| x["requests"].as_u64().unwrap()).sum();
    assert_eq!(n, 4000);
    std::fs::write(&cfg, "[[flow]]\ndistribution = \"zoned:50/10\"\n").unwrap();
    let e = fail(&["run", "--config", c, "--timing"]);
    assert!(
        e.contains("flow[0].distribution") && e.contains("add up to 50"),
        "{e}"
    );
    std::fs::write(&cfg, "[[flow]]\ndistribution = \"weibull:2\"\n").unwrap();
    let e = fail(&["run", "--config", c, "--timing"]);
    assert!(
        e.contains("pareto:H[:CENTER]") && e.contains("zipf:THETA[:CENTER], hotcold:W/S,"),
        "{e}"
    );

    // `--distribution`: all writes to a tenth of the space leave the rest cold, which
    // greedy GC never has to move: far below uniform's WAF.
    let waf = |d: &str| {
        let r = json(&flashgc(&with_small(
            &["fio", "--distribution", d, "--data-gb", "0.25", "--json"],
            &[],
        )));
        r[0]["total"]["waf"].as_f64().unwrap()
    };
    let (zoned, uniform, pareto) = (waf("zoned:100/10:0/90"), waf("uniform"), waf("pareto:0.9"));
    assert!(zoned < 0.6 * uniform, "zoned {zoned} vs uniform {uniform}");
    assert!(pareto.is_finite() && pareto >= 1.0, "{pareto}");
    for (d, says) in [
        ("pareto:1.2", "(0, 1)"),
        ("zoned:60/10:40/90,50/50:50/50", "per-direction"),
        ("normal", "normal:DEV[:CENTER]"),
    ] {
        let e = fail(&with_small(&["fio", "--distribution", d], &[]));
        assert!(
            e.contains("`--distribution`") && e.contains(says),
            "{d}: {e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
