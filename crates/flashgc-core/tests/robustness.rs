//! Core-level regressions of issue 19: runs that must end, configuration errors that must
//! say where they are, device sizes that must stay close to what was asked.

use flashgc_core::{Config, Simulation};
use std::time::Duration;

fn small() -> Config {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(1.0 / 16.0);
    c.device.pages_per_block = 64;
    c.run.max_memory_gib = None;
    c
}

/// Runs `f` on a thread; fails the test if it has not returned within `limit` (a hang).
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .expect("still running: the run does not end")
}

#[test]
fn a_volume_of_zero_pages_ends_at_once() {
    for (vol, workload) in [(0.0, "uniform"), (1e-12, "zipf:1.0"), (0.0, "seq")] {
        let mut c = small();
        c.run.write_volume = vol;
        c.run.workload = workload.into();
        let r = within(Duration::from_secs(30), move || {
            Simulation::run_synthetic(&c, &mut |_| {}).unwrap()
        });
        assert_eq!(r.total.user_writes, 0, "{vol} {workload}");
        assert_eq!(r.ended_by, "write_volume");
        assert!(r.notes.iter().any(|n| n.contains("no user writes")));
    }
    // The oracle's pre-pass too.
    let mut c = small();
    c.run.write_volume = 0.0;
    c.run.placement = "oracle".into();
    let r = within(Duration::from_secs(30), move || {
        Simulation::run_synthetic(&c, &mut |_| {}).unwrap()
    });
    assert_eq!(r.total.user_writes, 0);
}

#[test]
fn toml_type_errors_name_the_field_and_the_line() {
    for (text, field, line) in [
        (
            "[device]\nchannels = 4\npages_per_block = -256\n",
            "device.pages_per_block",
            3,
        ),
        ("[run]\nseed = \"x\"\n", "run.seed", 2),
        ("# c\n\n[ftl]\nop = \"0.1\"\n", "ftl.op", 4),
        (
            "[device]\ntiming.read_us = \"fast\"\n",
            "device.timing.read_us",
            2,
        ),
    ] {
        let e = Config::load(None, Some(("my.toml", text)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("my.toml"), "{e}");
        assert!(e.contains(&format!("`{field}`")), "{text:?}: {e}");
        assert!(e.contains(&format!("line {line}")), "{text:?}: {e}");
    }
}

#[test]
fn superblocks_do_not_inflate_a_small_device() {
    // 64 planes of 2 MiB blocks, 8-block superblocks: 1 GiB asked. Rounding each plane to
    // whole superblocks built 1.87 GiB; a multiple of 8 blocks in all is enough.
    let mut c = Config::load(Some("cosmos-openssd"), None).unwrap();
    c.ftl.logical_gib = Some(1.0);
    c.device.segment_blocks = 8;
    let l = c.layout().unwrap();
    let gib = l.logical_bytes() as f64 / (1u64 << 30) as f64;
    assert!((1.0..1.1).contains(&gib), "{gib}");
    assert_eq!(
        l.segments as u64 * 8,
        c.device.planes() * l.blocks_per_plane as u64
    );
    // A device far from what was asked says why in its advisories.
    let mut c = Config::load(Some("cosmos-openssd"), None).unwrap();
    c.ftl.logical_gib = Some(0.01);
    let a = c.advisories();
    assert!(
        a.iter()
            .any(|n| n.contains("ftl.logical_gib") && n.contains("planes")),
        "{a:?}"
    );
    // Planes not a multiple of the superblock width: still whole segments.
    let mut c = Config::default_preset();
    c.device.channels = 3;
    c.device.chips_per_channel = 1;
    c.device.segment_blocks = 2;
    c.ftl.logical_gib = Some(0.5);
    let l = c.layout().unwrap();
    assert_eq!(l.blocks_per_plane % 2, 0);
    assert_eq!(l.segments as u64 * 2, 3 * l.blocks_per_plane as u64);
}

#[test]
fn tiny_or_odd_blocks_are_advised_against() {
    let mut c = small();
    c.device.pages_per_block = 3;
    let a = c.advisories();
    assert!(
        a.iter().any(|n| n.contains("device.pages_per_block = 3")),
        "{a:?}"
    );
    c.run.write_volume = 1.0;
    let r = Simulation::run_synthetic(&c, &mut |_| {}).unwrap();
    assert!(
        r.notes.iter().any(|n| n.contains("pages_per_block")),
        "{:?}",
        r.notes
    );
    let mut c = small();
    c.device.pages_per_block = 100;
    assert!(c.advisories().iter().any(|n| n.contains("power of two")));
    for ppb in [64, 256, 384, 1152] {
        let mut c = small();
        c.device.pages_per_block = ppb;
        assert!(c.advisories().is_empty(), "{ppb}: {:?}", c.advisories());
    }
}

#[test]
fn a_scheme_that_needs_too_many_streams_is_named() {
    let mut c = Config::default_preset();
    c.ftl.logical_gib = Some(0.25);
    c.device.pages_per_block = 64;
    c.device.segment_blocks = 8;
    c.run.placement = "sepbit".into();
    let e = Simulation::new(&c).err().expect("too small").to_string();
    assert!(e.contains("`sepbit`") && e.contains("open streams"), "{e}");
}

#[test]
fn geometry_products_cannot_wrap_to_a_small_device() {
    // Four u32 multiplied unchecked wrapped to a small number of planes (or 0), passed
    // validation and aborted allocating the timing layer's per-channel tables.
    type Case = (&'static [(&'static str, u32)], &'static str, &'static str);
    let cases: [Case; 6] = [
        (
            &[
                ("channels", 429_509_837),
                ("chips", 769_546),
                ("dies", 27_905),
                ("planes", 2),
            ],
            "`device.channels`",
            "1..=1024",
        ),
        (
            &[
                ("channels", 65536),
                ("chips", 65536),
                ("dies", 65536),
                ("planes", 65536),
            ],
            "`device.channels`",
            "1..=1024",
        ),
        (&[("chips", 1025)], "`device.chips_per_channel`", "1..=1024"),
        (&[("dies", 65)], "`device.dies_per_chip`", "1..=64"),
        (&[("planes", u32::MAX)], "`device.planes_per_die`", "1..=64"),
        (
            &[
                ("channels", 1024),
                ("chips", 1024),
                ("dies", 64),
                ("planes", 64),
            ],
            "`device`",
            "at most 1048576",
        ),
    ];
    for (fields, field, range) in cases {
        let mut c = small();
        for &(f, v) in fields {
            let d = &mut c.device;
            *match f {
                "channels" => &mut d.channels,
                "chips" => &mut d.chips_per_channel,
                "dies" => &mut d.dies_per_chip,
                _ => &mut d.planes_per_die,
            } = v;
        }
        let e = c.layout().expect_err("accepted").to_string();
        assert!(e.contains(field) && e.contains(range), "{fields:?}: {e}");
    }
    // 2^20 planes x 2^20 blocks x 2^24-page segments = 2^64 pages: wrapped to 0.
    let mut c = small();
    c.ftl.logical_gib = None;
    c.device.channels = 1024;
    c.device.chips_per_channel = 1024;
    c.device.blocks_per_plane = 1 << 20;
    c.device.pages_per_block = 1 << 24;
    let e = c.layout().expect_err("accepted").to_string();
    assert!(e.contains("`device.blocks_per_plane`"), "{e}");
    // A derived per-plane block count beyond u32 was truncated to a smaller device.
    let mut c = small();
    c.device.channels = 1;
    c.device.chips_per_channel = 1;
    c.device.lpn_size = 512;
    c.device.page_size = 512;
    c.device.pages_per_block = 1;
    c.ftl.logical_gib = Some(16000.0);
    let e = c.layout().expect_err("accepted").to_string();
    assert!(
        e.contains("`ftl.logical_gib`") && e.contains("4294967294"),
        "{e}"
    );
}

#[test]
fn non_finite_scheme_parameters_are_refused_before_the_run() {
    // NaN passed every float parameter's range check: the run went on with it (or failed
    // mid-run, exit code 1).
    for (slot, spec, field) in [
        ("victim", "greedy:min_garbage=nan", "run.victim.min_garbage"),
        ("placement", "midas:epoch=nan", "run.placement.epoch"),
        ("placement", "autostream:decay=nan", "run.placement.decay"),
        (
            "placement",
            "bf-opt:bits_per_lpn=nan",
            "run.placement.bits_per_lpn",
        ),
        (
            "placement",
            "bf-gc:cache_fraction=nan",
            "run.placement.cache_fraction",
        ),
        ("placement", "mbf:hot=nan", "run.placement.hot"),
        ("placement", "multilog:alpha=nan", "run.placement.alpha"),
        ("placement", "cat:decay=inf", "run.placement.decay"),
        (
            "placement",
            "mhf-opt:counters_per_lpn=-inf",
            "run.placement.counters_per_lpn",
        ),
        (
            "gc_action",
            "splitgc:bloom_bits=nan",
            "run.gc_action.bloom_bits",
        ),
    ] {
        let mut c = small();
        *match slot {
            "victim" => &mut c.run.victim,
            "placement" => &mut c.run.placement,
            _ => &mut c.run.gc_action,
        } = spec.into();
        let e = Simulation::new(&c).err().expect(spec).to_string();
        assert!(
            e.contains(&format!("`{field}`")) && e.contains("allowed range"),
            "{spec}: {e}"
        );
    }
    // A workload's float too.
    for w in ["zipf:nan", "zipf:inf", "hotcold:nan/20", "hotcold:80/inf"] {
        let mut c = small();
        c.run.workload = w.into();
        let e = flashgc_core::validate::validate(&c)
            .expect_err(w)
            .to_string();
        assert!(e.contains("`run.workload`"), "{w}: {e}");
    }
}

#[test]
fn requests_too_large_for_the_space_are_refused_not_a_panic() {
    // 1/16 GiB = 16384 pages (a few more after rounding); hotcold needs two requests' room.
    for (workload, pages, field, oracle) in [
        ("hotcold:80/20", 10_000, "run.workload", false),
        ("hotcold:80/20", 10_000, "run.workload", true),
        ("uniform", 65_536, "run.request_pages", false),
    ] {
        let mut c = small();
        c.run.workload = workload.into();
        c.run.request_pages = pages;
        c.run.write_volume = 1.0;
        if oracle {
            // The oracle's pre-pass builds its own generator.
            c.run.placement = "oracle:fk".into();
        }
        // Before: hotcold's hot/cold split panicked (`clamp(1, 0)`); the oversized request
        // was a run-time workload error (exit code 1).
        let e = std::panic::catch_unwind(|| Simulation::run_synthetic(&c, &mut |_| {}))
            .unwrap_or_else(|_| panic!("{workload} x {pages}: panicked"))
            .unwrap_err();
        assert!(
            matches!(e, flashgc_core::Error::Config { .. }) && e.to_string().contains(field),
            "{workload} x {pages}: {e}"
        );
    }
    // Room for two requests is enough.
    let mut c = small();
    c.run.workload = "hotcold:80/20".into();
    c.run.request_pages = 4096;
    c.run.write_volume = 0.5;
    Simulation::run_synthetic(&c, &mut |_| {}).unwrap();
}

#[test]
fn a_hot_set_that_rounds_to_nothing_is_refused_not_clamped() {
    // About 16384 one-page requests: 0.001 % is 0.16 of one, 99.999 % leaves 0.16 cold.
    // Before: the hot set was silently clamped to one request (or all but one), 6x the share
    // asked for or none of the cold one.
    for (w, what) in [
        ("hotcold:80/0.001", "no hot request"),
        ("hotcold:80/99.999", "no cold request"),
    ] {
        let mut c = small();
        c.run.workload = w.into();
        c.run.write_volume = 0.1;
        let e = Simulation::run_synthetic(&c, &mut |_| {}).unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(e, flashgc_core::Error::Config { .. })
                && msg.contains("run.workload")
                && msg.contains(what)
                && msg.contains("S must be between"),
            "{w}: {msg}"
        );
    }
    // Half a request rounds to one: the smallest share the message names is accepted.
    let mut c = small();
    c.run.workload = "hotcold:80/0.004".into();
    c.run.write_volume = 0.1;
    Simulation::run_synthetic(&c, &mut |_| {}).unwrap();
}

#[test]
fn content_victims_without_their_gc_action_say_they_pick_as_greedy() {
    // SplitGC's and DAGC's victim rules rank by what their GC action learns; without it
    // they ran as greedy with no word.
    for v in ["splitgc", "dagc", "splitgc:rule=min-nondup"] {
        let mut c = small();
        c.run.victim = v.into();
        let name = v.split(':').next().unwrap();
        let a = c.advisories();
        assert!(
            a.iter().any(
                |n| n.contains(&format!("victim {name} without the GC action {name}"))
                    && n.contains("exactly as greedy")
            ),
            "{v}: {a:?}"
        );
        c.run.gc_action = name.into();
        assert!(
            !c.advisories()
                .iter()
                .any(|n| n.contains("exactly as greedy")),
            "{v} with its action: {:?}",
            c.advisories()
        );
    }
    // What the note says holds: the same run as greedy.
    let mut c = small();
    c.run.write_volume = 2.0;
    let greedy = Simulation::run_synthetic(&c, &mut |_| {}).unwrap();
    c.run.victim = "splitgc".into();
    let split = Simulation::run_synthetic(&c, &mut |_| {}).unwrap();
    assert_eq!(greedy.total, split.total);
    assert!(split.notes.iter().any(|n| n.contains("exactly as greedy")));
}
