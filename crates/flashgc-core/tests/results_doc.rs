//! Every field of the result record is documented in docs/results.md: a WAF-only run, a
//! timed flash run with a write cache and a series, and a timed NoC run are flattened into
//! dotted paths, and each must appear in the reference table (a documented prefix covers
//! what is below it, e.g. `placement_report`; phase counts and latency summaries are
//! documented once by their field names).

mod common;

use flashgc_core::device::noc::{GcPath, NocParams};
use flashgc_core::driver::{NocSim, TimedSim};
use flashgc_core::timing::{CachePolicy, GcMode, Host, TimingParams};
use flashgc_core::{Config, Simulation};
use serde_json::Value;
use std::collections::BTreeSet;

fn leaves(prefix: &str, v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(&p, x, out);
            }
        }
        Value::Array(a) if a.first().is_some_and(|x| x.is_object()) => {
            leaves(&format!("{prefix}[]"), &a[0], out)
        }
        _ => out.push(prefix.to_string()),
    }
}

/// The backticked names of the reference tables; `.name` after `a.b` in one cell is `a.name`.
fn documented() -> BTreeSet<String> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/results.md"
    ))
    .unwrap();
    let mut set = BTreeSet::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cell = line.split('|').nth(1).unwrap_or("");
        let mut parent = String::new();
        for tok in cell.split('`').skip(1).step_by(2) {
            let name = if let Some(rest) = tok.strip_prefix('.') {
                format!("{parent}.{rest}")
            } else {
                tok.to_string()
            };
            parent = name
                .rsplit_once('.')
                .map_or(String::new(), |(p, _)| p.to_string());
            set.insert(name);
        }
    }
    set
}

fn covered(path: &str, doc: &BTreeSet<String>) -> bool {
    // Strip the section the tables are organised by.
    let rel = path
        .strip_prefix("timing.")
        .or_else(|| path.strip_prefix("noc."))
        .unwrap_or(path);
    let parts: Vec<&str> = rel.split('.').collect();
    (1..=parts.len()).any(|n| {
        let c = parts[..n].join(".");
        doc.contains(&c) || doc.contains(&format!("{c}[]"))
    })
        // Phase counts and latency summaries: their own tables, by field name.
        || ((path.starts_with("precondition.") || path.starts_with("total.") || path.starts_with("steady_state."))
            || path.contains("_latency.")
            || path.contains("series[].read.")
            || path.contains("series[].write."))
            && doc.contains(*parts.last().unwrap())
}

fn small() -> Config {
    let mut c = Config::default_preset();
    c.device.blocks_per_plane = 32;
    c.device.pages_per_block = 32;
    c.ftl.logical_gib = None;
    c.ftl.op = Some(0.25);
    c.run.write_volume = 3.0;
    c
}

#[test]
fn every_result_field_is_in_the_reference_table() {
    let doc = documented();
    let mut records = Vec::new();
    let c = small();
    records.push(Simulation::run_synthetic(&c, &mut |_| {}).unwrap());
    let mut m = c.clone();
    m.ftl.mapping_cache = Some(flashgc_core::config::MappingCacheConfig {
        bytes: 4096,
        ..Default::default()
    });
    let r = Simulation::run_synthetic(&m, &mut |_| {}).unwrap();
    assert!(r.total.translation.is_some());
    records.push(r);
    // Several flows, timed.
    let mut f = c.clone();
    f.flow = vec![
        toml::from_str("rw = \"randrw\"\niodepth = 2").unwrap(),
        toml::from_str("rw = \"randwrite\"\nrate_iops = 100.0").unwrap(),
    ];
    let l = f.layout().unwrap();
    let mut fs = flashgc_core::workload::flows::from_config(&f, &l)
        .unwrap()
        .unwrap();
    let p = TimingParams {
        max_requests: Some(2000),
        ..TimingParams::default()
    };
    let mut ts = TimedSim::new(&f, p).unwrap();
    let r = ts.run(&mut fs, &mut |_| {}).unwrap();
    assert_eq!(r.flows.as_ref().unwrap().len(), 2);
    records.push(r);
    // Content mode: every GC action (each has its own `dedup.policy` counters), WAF-only
    // and timed with idle time (SplitGC's background work).
    for (action, victim) in [
        ("cagc", "greedy"),
        ("dagc", "dagc"),
        ("dagc:cache=unbounded", "dagc"),
        ("splitgc", "splitgc"),
    ] {
        let mut d = c.clone();
        d.run.gc_action = action.into();
        d.run.victim = victim.into();
        d.content.dup_ratio = 0.3;
        d.run.read_ratio = 0.3;
        let r = Simulation::run_synthetic(&d, &mut |_| {}).unwrap();
        assert!(r.dedup.is_some(), "{action}");
        records.push(r);
    }
    let mut d = c.clone();
    d.run.gc_action = "splitgc".into();
    d.run.victim = "splitgc".into();
    d.content.dup_ratio = 0.3;
    let p = TimingParams {
        host: Host::Rate { iops: 300.0 },
        max_requests: Some(3000),
        ..TimingParams::default()
    };
    let mut ts = TimedSim::new(&d, p).unwrap();
    let mut wl = ts.simulation().synthetic_workload().unwrap();
    let r = ts.run(&mut wl, &mut |_| {}).unwrap();
    assert!(r.total.background_writes > 0, "idle-time write-backs");
    records.push(r);
    let p = TimingParams {
        cache_pages: 64,
        cache_policy: CachePolicy::Lru,
        checkpoint_bytes: 4 << 20,
        host: Host::ClosedLoop { queue_depth: 4 },
        // The firmware CPU, with an explicit cost (params.cpu.ns) and two cores.
        cpu: Some(flashgc_core::device::cpu::CpuParams {
            cores: 2,
            ns: flashgc_core::device::cpu::CostOverrides::parse("cpu_ns", "ecc_read=1000").unwrap(),
            ..Default::default()
        }),
        ..TimingParams::default()
    };
    let mut ts = TimedSim::new(&c, p).unwrap();
    let mut wl = ts.simulation().synthetic_workload().unwrap();
    records.push(ts.run(&mut wl, &mut |_| {}).unwrap());
    let n = common::configs::noc_small(0.07);
    let p = TimingParams {
        gc_mode: GcMode::PerDie,
        host: Host::Rate { iops: 300.0 },
        max_requests: Some(3000),
        noc: Some(NocParams::from_config(&n, GcPath::Selective)),
        ..TimingParams::default()
    };
    let mut ns = NocSim::new_noc(&n, p).unwrap();
    let mut wl = ns.simulation().synthetic_workload().unwrap();
    let r = ns.run(&mut wl, &mut |_| {}).unwrap();
    assert!(r.noc.as_ref().unwrap().copybacks > 0);
    records.push(r);
    let mut missing = BTreeSet::new();
    for r in &records {
        let mut paths = Vec::new();
        leaves("", &serde_json::to_value(r).unwrap(), &mut paths);
        assert!(paths.len() > 40);
        for p in paths {
            if !covered(&p, &doc) {
                missing.insert(p);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "fields missing from docs/results.md: {missing:#?}"
    );
    // And the table documents nothing that does not exist at its top level.
    let top: BTreeSet<String> = records
        .iter()
        .flat_map(|r| {
            serde_json::to_value(r)
                .unwrap()
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect::<Vec<_>>()
        })
        .collect();
    for name in ["schema_version", "timing", "noc", "ended_by", "notes"] {
        assert!(top.contains(name), "{name}");
    }
}
