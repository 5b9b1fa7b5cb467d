//! Unit tests of the job-file options that change how a job issues: the engine's queue
//! depth and sequential picks.

use super::tests::{err_of, job};
use super::*;

#[test]
fn a_synchronous_engine_caps_the_queue_depth_as_fio_does() {
    // fio 3.33 with its default engine (psync) and iodepth=8 prints "queue depth will be
    // capped at 1" and issues one request at a time; libaio keeps 8 in flight.
    let f = parse(
        "e.fio",
        "[a]\nrw=randwrite\niodepth=8\n[b]\nioengine=libaio\nrw=randwrite\niodepth=8\n\
         [c]\nioengine=pvsync2\nrw=randread\niodepth=4\nthinktime=10\n[d]\nioengine=null\nrw=randread\n",
    )
    .unwrap();
    let got: Vec<_> = f
        .jobs
        .iter()
        .map(|j| (j.iodepth, j.iodepth_capped, j.engine))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, Some(8), EngineKind::Sync),
            (8, None, EngineKind::Async),
            (1, Some(4), EngineKind::Sync),
            (1, None, EngineKind::Async),
        ]
    );
    let notes = f.notes();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].contains("job a: ioengine=psync (fio's default) is synchronous")
            && notes[0].contains("iodepth=8 at 1"),
        "{notes:?}"
    );
    assert!(
        notes[1].contains("job c: ioengine=pvsync2 is synchronous"),
        "{notes:?}"
    );
    // The merged model runs the capped depth.
    let m = parse("e.fio", "[w]\nrw=randwrite\niodepth=16\nnumjobs=2\n")
        .unwrap()
        .merge(64 << 20, 1)
        .unwrap();
    assert_eq!(m.job.queue_depth(), 2);
    for (t, want) in [
        ("[a]\nioengine=libaoi\n", "not one of fio 3.33's engines"),
        ("[global]\nioengine=cpuio\n[a]\n", "does no block I/O"),
    ] {
        let e = parse("e.fio", t).unwrap_err().to_string();
        assert!(
            e.contains("e.fio:2: option `ioengine`") && e.contains(want),
            "{e}"
        );
    }
}

#[test]
fn sequential_picks_parse_per_direction_and_refuse_what_is_not_modelled() {
    let j = job("[a]\nrw=randrw\npercentage_random=50,20\n").unwrap();
    assert_eq!(
        (j.random_pct, j.seq_every, j.has_seq_mix()),
        ([50, 20], 1, true)
    );
    let j = job("[a]\nrw=randwrite\npercentage_sequential=30\n").unwrap();
    assert_eq!(j.random_pct, [70, 70]);
    let j = job("[a]\nrw=randwrite:8\nrw_sequencer=sequential\n").unwrap();
    assert_eq!(
        (j.rw, j.seq_every, j.has_seq_mix()),
        (Rw::RandWrite, 8, true)
    );
    // A later `rw` without the modifier clears it, as fio's option callback does.
    assert_eq!(
        job("[a]\nrw=randwrite:8\nrw=randwrite\n")
            .unwrap()
            .seq_every,
        1
    );
    // fio ignores them on sequential patterns.
    assert!(!job("[a]\nrw=write\npercentage_random=10\n")
        .unwrap()
        .has_seq_mix());
    let cases = [
        (
            "[a]\nrw=randwrite\npercentage_random=101\n",
            "p.fio:3: option `percentage_random`",
            "100",
        ),
        (
            "[a]\nrw=randwrite\npercentage_random=,\n",
            "p.fio:3: option `percentage_random`",
            "needs",
        ),
        ("[a]\nrw=randwrite:0\n", "p.fio:2: option `rw`", ""),
        (
            "[a]\nrw=randwrite\nrw_sequencer=reverse\n",
            "p.fio:3: option `rw_sequencer`",
            "identical",
        ),
        (
            "[a]\nrw=randwrite\nrandom_distribution=zipf:1.2\npercentage_random=50\n",
            "p.fio:4: option `percentage_random`",
            "uniform",
        ),
        (
            "[a]\nrw=randwrite:4\nbssplit=4k/50:8k/50\n",
            "p.fio:2: option `rw`",
            "block size",
        ),
        (
            "[a]\nrw=randtrim\npercentage_sequential=50\n",
            "p.fio:3: option `percentage_sequential`",
            "trims",
        ),
    ];
    for (t, at, why) in cases {
        let e = err_of(t);
        assert!(e.contains(at) && e.contains(why), "{t:?}: {e}");
    }
    // The merged model has no passes of its own: such jobs run as flows.
    let e = parse("p.fio", "[a]\nrw=randwrite\npercentage_random=50\n")
        .unwrap()
        .merge(64 << 20, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("p.fio:3: option `percentage_random`"), "{e}");
    let f = parse(
        "p.fio",
        "[a]\nrw=randwrite\nsize=1m\npercentage_random=50\n",
    )
    .unwrap();
    assert!(matches!(
        f.plan(16384, 4096, 1).unwrap(),
        JobPlan::Flows { .. }
    ));
    // A job that fio ends early (its one random pick, then off the region's end) says so.
    let f = parse("p.fio", "[a]\nrw=randwrite:100000\nsize=1m\n").unwrap();
    let plan = f.plan(16384, 4096, 1).unwrap();
    let JobPlan::Flows { specs, .. } = &plan else {
        panic!("flows")
    };
    let n = specs[0].requests.unwrap();
    assert!(n < 256);
    assert_eq!(plan.notes().len(), (n < 256) as usize);
    assert!(
        plan.notes()[0].contains(&format!("{n} of the 256 requests")),
        "{:?}",
        plan.notes()
    );
    // The region must be whole blocks.
    let e = parse(
        "p.fio",
        "[a]\nrw=randwrite\nsize=10k\npercentage_random=50\n",
    )
    .unwrap()
    .plan(16384, 4096, 1)
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("p.fio:3: option `size`") && e.contains("whole number"),
        "{e}"
    );
}

#[test]
fn an_asynchronous_engine_repeats_its_with_replacement_passes() {
    // fio 3.33 with libaio, rw=randread norandommap size=64k io_size=128k: the second 16
    // reads repeat the first (a pass ends at `size` bytes and reseeds); with psync one
    // pass runs to the volume. Writes pass at the larger of size and io_size, so only
    // `loops` repeats them; zipf keeps its own generator across passes.
    let plan = |t: &str| parse("r.fio", t).unwrap().plan(16384, 4096, 1).unwrap();
    let every = |t: &str| match plan(t) {
        JobPlan::Flows { specs, .. } => specs[0].repeat_every,
        JobPlan::Merged(_) => None,
    };
    let job = |engine: &str, rest: &str| {
        format!("[a]\nioengine={engine}\nnorandommap\nsize=1m\nbs=4k\n{rest}")
    };
    assert_eq!(
        every(&job("libaio", "rw=randread\nio_size=3m\n")),
        Some(256)
    );
    assert_eq!(every(&job("psync", "rw=randread\nio_size=3m\n")), None);
    assert_eq!(every(&job("libaio", "rw=randwrite\nio_size=3m\n")), None);
    assert_eq!(every(&job("libaio", "rw=randwrite\nloops=3\n")), Some(256));
    assert_eq!(
        every(&job("libaio", "rw=randrw\nio_size=2m\nloops=2\n")),
        Some(512)
    );
    assert_eq!(
        every(&job(
            "libaio",
            "rw=randread\nio_size=3m\nrandom_distribution=zoned:60/10:40/90\n"
        )),
        Some(256)
    );
    assert_eq!(
        every(&job(
            "libaio",
            "rw=randread\nio_size=3m\nrandom_distribution=zipf:0.8\n"
        )),
        None
    );
    assert_eq!(
        every(&job("libaio", "rw=randread\nio_size=3m\nrandrepeat=0\n")),
        None
    );
    // Several block sizes: not repeated, and the notes say so.
    let mixed = parse(
        "r.fio",
        &job("libaio", "rw=randread\nio_size=3m\nbssplit=4k/50:8k/50\n"),
    )
    .unwrap();
    assert!(mixed.notes().iter().any(|n| n.contains("approximate")));
    // The flow's stream repeats.
    let JobPlan::Flows { specs, .. } = plan(&job("libaio", "rw=randread\nio_size=3m\n")) else {
        panic!("flows")
    };
    let mut w = crate::workload::flows::FlowSet::new(specs, 16384, 4096).unwrap();
    let mut lpns = Vec::new();
    while lpns.len() < 768 {
        let mut buf = Vec::new();
        crate::workload::Workload::fill(&mut w, &mut buf, 1).unwrap();
        assert!(!buf.is_empty());
        lpns.extend(buf.iter().map(|r| r.lpn));
    }
    assert_eq!(lpns[..256], lpns[256..512]);
    assert_eq!(lpns[..256], lpns[512..768]);
    assert_ne!(lpns[..128], lpns[128..256]);
}

#[test]
fn holes_parse_and_are_refused_where_not_modelled() {
    let j = job("[a]\nrw=write:8k\n").unwrap();
    assert_eq!((j.rw, j.seq_skip), (Rw::Write, 8192));
    assert_eq!(job("[a]\nrw=write:8k\nrw=write\n").unwrap().seq_skip, 0);
    let e = err_of("[a]\nrw=read:-0\n");
    assert!(
        e.contains("p.fio:2: option `rw`") && e.contains("backwards"),
        "{e}"
    );
    let e = err_of("[a]\nrw=trimwrite:4k\n");
    assert!(e.contains("trim patterns"), "{e}");
    let plan = |t: &str| parse("p.fio", t).unwrap().plan(16384, 4096, 1);
    let e = plan("[a]\nrw=write:4k\nsize=10k\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("p.fio:2: option `rw`") && e.contains("whole blocks"),
        "{e}"
    );
    let e = plan("[a]\nrw=write:4k\nbssplit=4k/50:8k/50\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("one block size"), "{e}");
    // The stream: 0, 2, 4, ... blocks of 4 KiB, back to 0 past the region.
    let JobPlan::Merged(m) = plan("[a]\nrw=write:4k\nsize=40k\nio_size=80k\n").unwrap() else {
        panic!("one plain job merges")
    };
    let mut w = m.job.workload(16384, 4096).unwrap();
    let mut buf = Vec::new();
    crate::workload::Workload::fill(&mut w, &mut buf, 12).unwrap();
    let lpns: Vec<u64> = buf.iter().map(|r| r.lpn).collect();
    assert_eq!(lpns, [0, 2, 4, 6, 8, 0, 2, 4, 6, 8, 0, 2]);
    assert_eq!(m.data_bytes, 20 * 4096);
}

#[test]
fn the_jobs_totals_are_refused_at_the_line_that_crosses_them() {
    // 4096 clones in all are allowed (each clone is a flow); one more names the job and
    // the line of its numjobs (it was an error without file or line, from the flows).
    job("[a]\nrw=write\nnumjobs=4000\n[b]\nrw=write\nnumjobs=96\n").unwrap();
    let e = err_of("[a]\nrw=write\nnumjobs=4000\n[b]\nrw=write\nnumjobs=97\n");
    assert!(
        e.contains("p.fio:6")
            && e.contains("`numjobs`")
            && e.contains("4097 jobs")
            && e.contains("4096"),
        "{e}"
    );
    // Requests outstanding, summed: 16 x 65536 is the bound; a second job crosses it at
    // its iodepth line (an asynchronous engine: a synchronous one caps iodepth at 1).
    let deep = "[global]\nioengine=libaio\n[a]\nrw=write\nnumjobs=16\niodepth=65536\n";
    job(deep).unwrap();
    let e = err_of(&format!("{deep}[b]\nrw=write\niodepth=2\n"));
    assert!(
        e.contains("p.fio:9") && e.contains("`iodepth`") && e.contains("1048578 requests"),
        "{e}"
    );
    // psync's cap applies first: the same depths on the default engine are one each.
    job("[a]\nrw=write\nnumjobs=16\niodepth=65536\n[b]\nrw=write\niodepth=2\n").unwrap();
}
