//! fio's `thinktime` on closed loops of any depth (docs/flows.md; module
//! `workload::flows::think`): after every `thinktime_blocks` requests (requests issued, or
//! completions reaped as fio reaps them) the flow waits for every request in flight, then
//! the think time. Checked exactly on a one-plane device, where each read occupies the
//! plane for the same time, and by how the run's span grows with the think time (one think
//! time per stall), under first-come-first-served and under read-first with suspend.

mod common;

use common::flows::read_first_with_suspend;
use flashgc_core::metrics::result::FlowReport;
use flashgc_core::timing::TimingParams;
use flashgc_core::workload::flows;
use flashgc_core::{Config, RunResult};

/// 64 MiB logical (filled), 32-page segments, with one `[[flow]]` section of `keys`; all
/// on one plane when `one_plane`.
fn config(keys: &str, one_plane: bool) -> Config {
    let geometry = if one_plane {
        "channels = 1\nchips_per_channel = 1\ndies_per_chip = 1\nplanes_per_die = 1\n"
    } else {
        ""
    };
    let text = format!(
        "[device]\npages_per_block = 32\n{geometry}[ftl]\nlogical_gib = 0.0625\nop = 0.15\n\
         [run]\nwrite_volume = 2.0\nmax_memory_gib = 64.0\n\
         [[flow]]\nname = \"f\"\n{keys}"
    );
    Config::load(None, Some(("test.toml", &text))).unwrap()
}

fn run(keys: &str, one_plane: bool, p: &TimingParams) -> RunResult {
    common::flows::run(&config(keys, one_plane), p)
}

fn flow(r: &RunResult) -> &FlowReport {
    &r.flows.as_ref().unwrap()[0]
}

fn schedulers() -> [TimingParams; 2] {
    [TimingParams::default(), read_first_with_suspend()]
}

/// A stall waits for every request in flight, so each burst starts on an idle device and
/// runs as it would alone: the span is the bursts' own plus one think time per stall, for
/// any think time. On one plane, where reads take turns, a think time shorter than a read
/// checks the wait: a stall that waited for one read (a slot) would let the next burst
/// queue behind the reads still in flight and hide part of the think time.
#[test]
fn a_stall_waits_for_every_request_in_flight_then_the_think_time() {
    for p in schedulers() {
        let reads = "rw = \"randread\"\nrequests = 8\n";
        for (keys, bursts) in [
            // Issue counting, every 2: bursts of 2, 2, 2, 2.
            (
                "iodepth = 2\nthinktime_blocks = 2\nthinktime_blocks_type = \"issue\"\n",
                4,
            ),
            // Completions at depth 2, every 2: the first stall after the 3rd request (the
            // first reap comes with the 2nd), then every 2 (1 reaped + 1 drained): bursts
            // of 3, 2, 2, 1.
            ("iodepth = 2\nthinktime_blocks = 2\n", 4),
            // Depth 4, every 4 completions: the first stall after the 7th: bursts of 7, 1.
            ("iodepth = 4\nthinktime_blocks = 4\n", 2),
            // Depth 1, after every request: 8 bursts.
            ("iodepth = 1\n", 8),
        ] {
            let span = |us: u64| {
                let r = run(&format!("{reads}{keys}thinktime_us = {us}\n"), true, &p);
                flow(&r).active_ns
            };
            let (short, long) = (span(1), span(50));
            assert_eq!(long - short, (bursts - 1) * 49_000, "{keys}");
            // A think time of 1 us is shorter than a read: the wait matters.
            let lat = flow(&run(&format!("{reads}{keys}"), true, &p))
                .read_latency
                .clone();
            assert!(lat.unwrap().p50_us > 1.0);
        }
    }
}

/// On 8 planes, with think times long enough for the device to be idle at each burst's
/// start, each burst runs alone, so the span grows by exactly one think time per stall:
/// the stall counts of the two counting rules, which differ here.
#[test]
fn the_span_grows_by_one_think_time_per_stall() {
    for p in schedulers() {
        let reads = "rw = \"randread\"\nrequests = 60\niodepth = 8\nthinktime_blocks = 4\n";
        for (ty, stalls) in [
            // Depth 8, every 4 completions: stalls after requests 11 and 12 (the drained 7
            // reach the next mark at once), 22 and 23, ..., 55 and 56: 10 before the 60th.
            ("complete", 10),
            // Every 4 requests issued: 4, 8, ..., 56.
            ("issue", 14),
        ] {
            let at = |us: u64| {
                let keys =
                    format!("{reads}thinktime_blocks_type = \"{ty}\"\nthinktime_us = {us}\n");
                flow(&run(&keys, false, &p)).active_ns
            };
            let (a, b) = (at(2_000), at(5_000));
            assert_eq!(b - a, stalls * 3_000_000, "{ty}");
        }
    }
}

/// fio zeroes its counters when `ramp_time` ends but keeps the count at the last stall, so
/// a depth-1 flow thinking after every request stops thinking after the ramp for as many
/// requests as it issued in the ramp: here the span after the ramp has fewer think times
/// than requests.
#[test]
fn after_the_ramp_the_flow_issues_without_stalls_until_its_count_passes_the_mark() {
    let p = TimingParams::default();
    let keys = "rw = \"randread\"\niodepth = 1\nrequests = 40\nthinktime_us = 1000\n";
    let plain = flow(&run(keys, true, &p)).active_ns;
    let ramped = run(&format!("{keys}ramp_ms = 5.5\n"), true, &p);
    let f = flow(&ramped);
    // Every request in the ramp stalls, so the mark is the ramp's request count n; after
    // the ramp the count restarts at 0 and the next n requests pass without a think time.
    let n_ramp = f.ramp_requests.unwrap();
    assert!(n_ramp >= 3, "{n_ramp} requests in the ramp");
    assert_eq!(plain - f.active_ns, n_ramp * 1_000_000);
}

#[test]
fn bad_think_times_name_the_field() {
    for (keys, field) in [
        (
            "rate_iops = 100\nthinktime_us = 10\n",
            "flow[0].thinktime_us",
        ),
        ("thinktime_us = -1\n", "flow[0].thinktime_us"),
        (
            "iodepth = 2\nthinktime_us = 10\nthinktime_blocks = 0\n",
            "flow[0].thinktime_blocks",
        ),
        (
            "iodepth = 2\nthinktime_us = 10\nthinktime_blocks_type = \"sometimes\"\n",
            "flow[0].thinktime_blocks_type",
        ),
    ] {
        let c = config(keys, false);
        let l = c.layout().unwrap();
        let Err(e) = flows::from_config(&c, &l) else {
            panic!("accepted {keys}");
        };
        assert!(e.to_string().contains(field), "{keys}: {e}");
    }
}

/// Stopped and resumed from its checkpoint mid-burst, a thinking flow at depth 4 ends with
/// the uninterrupted run's JSON (the stall state is saved with the flow).
#[test]
fn a_thinking_flow_resumes_byte_for_byte() {
    let keys = "rw = \"randrw\"\nrwmixwrite = 70\niodepth = 4\nthinktime_us = 40\n\
                thinktime_blocks = 16\nrequests = 700\n";
    let c = config(keys, false);
    for p in schedulers() {
        let want = serde_json::to_string_pretty(&run(keys, false, &p)).unwrap();
        let got = common::flows::resumed_json(&c, &p, &[150, 503], "think");
        assert!(want.contains("think time 40 us every 16 completions"));
        assert_eq!(want, got, "resumed run differs");
    }
}

/// fio's `thinktime_iotime` (backend.c `handle_thinktime`): after each request fio reads
/// its clock (after waiting for a completion when its queue is full) and stalls when
/// `thinktime_iotime` + `thinktime` have passed since the last stall's reading (the job's
/// start at first); without `thinktime_blocks` it stalls by time alone. Twelve 60 us reads
/// at depth 1 on one plane, think time 100 us:
/// * `thinktime_iotime=250us` (stall at 350 us since the last): reads at 0, 60, ..., 300;
///   the clock after the 6th reads 360: stall, next at 460; then 460 ... 700 (the clock
///   reads 760, 400 after 360): stall, next at 860, done 920 us.
/// * `thinktime_blocks=8` with `thinktime_iotime=150us` (250 us): the clock after the 5th
///   read (at 240) reads 300: stall, next at 400; 400, 460, 520 (580: 280 after 300): next
///   at 680; 680, 740, 800 (860): next at 960, done 1020 us; 8 blocks are never reached.
/// * Without `thinktime_iotime`: a stall after every read, 12 x 60 + 11 x 100 = 1820 us.
/// * Twelve 510 us writes with `thinktime_iotime=250us` stall after every write (510 us
///   pass each time): 12 x 510 + 11 x 100 = 7220 us; with `fsync=6` the flush after the
///   6th write comes after its stall (fio checks its think time, then syncs), not before
///   a second one, and takes no time (no cache): 7220 us again.
#[test]
fn thinktime_iotime_stalls_by_the_time_since_the_last_stall() {
    use flashgc_core::workload::fio::jobfile::{self, JobPlan};
    let c = common::configs::one_plane_hand();
    let l = c.layout().unwrap();
    for p in schedulers() {
        for (opts, active_us) in [
            ("thinktime_iotime=250us", 920),
            ("thinktime_blocks=8\nthinktime_iotime=150us", 1020),
            ("", 1820),
            ("rw=write\nthinktime_iotime=250us", 7220),
            ("rw=write\nthinktime_iotime=250us\nfsync=6", 7220),
        ] {
            let rw = if opts.contains("rw=") {
                ""
            } else {
                "rw=read\n"
            };
            let text = format!("[r]\n{rw}bs=4k\nsize=48k\nthinktime=100us\n{opts}\n");
            let jf = jobfile::parse("t.fio", &text).unwrap();
            let JobPlan::Flows { specs, .. } = jf.plan(l.logical_pages, l.lpn_size, 5).unwrap()
            else {
                panic!("{text}: merged, not flows");
            };
            let mut fs = flows::FlowSet::new(specs, l.logical_pages, l.lpn_size).unwrap();
            let r = common::flows::run_of(&c, &p, &mut fs);
            let f = flow(&r);
            assert_eq!(f.requests, 12, "{opts}");
            assert_eq!(f.active_ns, active_us * 1000, "{opts}");
            assert_eq!(f.flushes, opts.contains("fsync") as u64, "{opts}");
        }
    }
}
