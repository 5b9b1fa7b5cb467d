//! Unit tests of the job-file parser: options, defaults, groups, pacing and errors.

use super::values::{size, time_ns};
use super::*;

#[test]
fn global_defaults_sections_and_groups() {
    let t = "; comment\n[global]\nioengine=libaio\nrw=randwrite\nbs=4k\niodepth=16\nsize=1g\n\n[a]\nnumjobs=2\n\n[b]\nrwmixread=30\nrw=randrw\nruntime=2s\nramp_time=500ms\nstonewall\n";
    let f = parse("x.fio", t).unwrap();
    assert_eq!(f.jobs.len(), 2);
    let a = &f.jobs[0];
    assert_eq!(
        (a.rw, a.bs, a.iodepth, a.numjobs, a.group),
        (Rw::RandWrite, 4096, 16, 2, 0)
    );
    assert_eq!(a.size, Some(SizeSpec::Bytes(1 << 30)));
    let b = &f.jobs[1];
    assert_eq!((b.rw, b.rwmixwrite, b.group), (Rw::RandRw, 70.0, 1));
    assert_eq!(b.runtime_ns, Some(2_000_000_000));
    assert_eq!(b.ramp_ns, Some(500_000_000));
    assert_eq!(b.line, 12);
    assert_eq!(b.line_of("rw"), 14);
}

#[test]
fn errors_name_file_line_and_option() {
    let e = parse("j.fio", "[a]\nrw=randwrite\nverify=crc32c\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("j.fio:3: option `verify`"), "{e}");
    let e = parse("j.fio", "[a]\nbs=4k:8k\n").unwrap_err().to_string();
    assert!(e.contains("j.fio:2: option `bs`"), "{e}");
    let e = parse("j.fio", "[a]\nrw=append\n").unwrap_err().to_string();
    assert!(e.contains("j.fio:2: option `rw`"), "{e}");
    // fio's trim patterns parse (a rate cap on them is refused: not modelled).
    for (v, rw) in [
        ("trim", Rw::Trim),
        ("randtrim", Rw::RandTrim),
        ("trimwrite", Rw::TrimWrite),
        ("randtrimwrite", Rw::RandTrimWrite),
    ] {
        assert_eq!(
            parse("j.fio", &format!("[a]\nrw={v}\n")).unwrap().jobs[0].rw,
            rw
        );
    }
    let e = parse("j.fio", "[a]\nrw=trimwrite\nrate_iops=10\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("j.fio:3: option `rate_iops`"), "{e}");
    let e = parse("j.fio", "rw=read\n").unwrap_err().to_string();
    assert!(e.contains("j.fio:1"), "{e}");
    let e = parse("j.fio", "[global]\nbs=4k\n").unwrap_err().to_string();
    assert!(e.contains("no job section"), "{e}");
    let e = parse("j.fio", "[a]\niodepth=0\n").unwrap_err().to_string();
    assert!(e.contains("j.fio:2: option `iodepth`"), "{e}");
}

#[test]
fn merge_sums_clones_and_volumes_and_refuses_what_it_cannot_model() {
    let t = "[global]\nioengine=libaio\nrw=randwrite\nbs=8k\niodepth=4\nsize=1m\n[a]\nnumjobs=2\n[b]\nio_size=3m\n";
    let m = parse("m.fio", t).unwrap().merge(64 << 20, 7).unwrap();
    assert_eq!(
        (m.job.numjobs, m.job.iodepth, m.job.bs, m.job.size),
        (3, 4, 8192, Some(1 << 20))
    );
    assert_eq!(m.data_bytes, 2 * (1 << 20) + (3 << 20));
    let e = parse("m.fio", "[a]\nrw=randwrite\n[b]\nrw=randwrite\nbs=8k\n")
        .unwrap()
        .merge(64 << 20, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("m.fio:5: option `bs`"), "{e}");
    let e = parse("m.fio", "[a]\nrw=write\n[b]\nstonewall\nrw=write\n")
        .unwrap()
        .merge(64 << 20, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("m.fio:4: option `stonewall`"), "{e}");
    let e = parse("m.fio", "[a]\noffset=1m\n")
        .unwrap()
        .merge(64 << 20, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("m.fio:2: option `offset`"), "{e}");
}

#[test]
fn sizes_and_times() {
    assert_eq!(
        size("f", 1, "size", "50%").unwrap(),
        SizeSpec::Percent(50.0)
    );
    assert_eq!(
        size("f", 1, "size", "16KiB").unwrap(),
        SizeSpec::Bytes(16384)
    );
    assert_eq!(
        size("f", 1, "size", "2m").unwrap(),
        SizeSpec::Bytes(2 << 20)
    );
    assert_eq!(time_ns("f", 1, "runtime", "90").unwrap(), 90_000_000_000);
    assert_eq!(time_ns("f", 1, "runtime", "250us").unwrap(), 250_000);
    assert_eq!(time_ns("f", 1, "runtime", "2m").unwrap(), 120_000_000_000);
}

/// One job's section text parsed.
pub(super) fn job(t: &str) -> Result<JobSpec> {
    parse("p.fio", t).map(|f| f.jobs[0].clone())
}

pub(super) fn err_of(t: &str) -> String {
    job(t).unwrap_err().to_string()
}

#[test]
fn pacing_options_resolve_to_one_cap_per_job() {
    // A single value applies to reads and writes; `R,W` per direction; `rate` / `bs`.
    let j = job("[a]\nrw=randwrite\nrate_iops=500\nstartdelay=250ms\n").unwrap();
    assert_eq!(
        (j.rate_cap_iops, j.startdelay_ns),
        (Some(500.0), 250_000_000)
    );
    assert!(j.paced());
    let j = job("[a]\nrw=randwrite\nrate_iops=100,300\n").unwrap();
    assert_eq!(j.rate_cap_iops, Some(300.0));
    let j = job("[a]\nrw=read\nrate_iops=100,300\n").unwrap();
    assert_eq!(j.rate_cap_iops, Some(100.0));
    let j = job("[a]\nrw=randread\nrate_iops=,300\n").unwrap();
    assert_eq!(j.rate_cap_iops, None);
    let j = job("[a]\nrw=randwrite\nbs=8k\nrate=,1m\n").unwrap();
    assert_eq!(j.rate_cap_iops, Some(128.0));
    // fio's thinktime is in microseconds without a unit.
    let j =
        job("[a]\nrw=randread\nthinktime=150\nthinktime_blocks=1\nthinktime_spin=50\n").unwrap();
    assert_eq!(j.thinktime_ns, 150_000);
    let j = job("[a]\nrw=randread\nthinktime=2ms\nrate_process=linear\n").unwrap();
    assert_eq!(j.thinktime_ns, 2_000_000);
    assert_eq!(
        (j.thinktime_blocks.unwrap_or(1), j.thinktime_count),
        (1, ThinkCount::Complete)
    );
    // Any queue depth, stalls every N requests, counted as fio's thinktime_blocks_type says.
    let j = job(
        "[a]\nioengine=libaio\nrw=randread\niodepth=8\nthinktime=1ms\nthinktime_blocks=64\n\
                 thinktime_blocks_type=issue\n",
    )
    .unwrap();
    assert_eq!(
        (
            j.iodepth,
            j.thinktime_blocks.unwrap_or(1),
            j.thinktime_count
        ),
        (8, 64, ThinkCount::Issue)
    );
    assert!(!job("[a]\nrw=randread\n").unwrap().paced());
    // Paced jobs are not merged into one stream.
    let e = parse(
        "p.fio",
        "[a]\nrw=randwrite\n[b]\nrw=randwrite\nthinktime=5\n",
    )
    .unwrap()
    .merge(64 << 20, 1)
    .unwrap_err()
    .to_string();
    assert!(e.contains("p.fio:5: option `thinktime`"), "{e}");
}

#[test]
fn pacing_fio_would_run_differently_is_refused_at_its_line() {
    let cases = [
        // fio caps reads and writes of a mixed job each at its rate.
        (
            "[a]\nrw=randrw\nrate_iops=100\n",
            "p.fio:3: option `rate_iops`",
            "split it",
        ),
        (
            "[a]\nrw=randrw\nrate=1m\n",
            "p.fio:3: option `rate`",
            "split it",
        ),
        (
            "[a]\nrw=randwrite\nrate=1m\nrate_iops=5\n",
            "p.fio:3: option `rate`",
            "not both",
        ),
        (
            "[a]\nrw=randwrite\nrate=1k\n",
            "p.fio:3: option `rate`",
            "at least one request",
        ),
        (
            "[a]\nrw=randwrite\nrate_iops=-5\n",
            "p.fio:3: option `rate_iops`",
            "positive",
        ),
        (
            "[a]\nrw=randwrite\nrate=10%\n",
            "p.fio:3: option `rate`",
            "bytes/s",
        ),
        (
            "[a]\nrw=randwrite\nrate_process=poisson\n",
            "p.fio:3: option `rate_process`",
            "linear",
        ),
        (
            "[a]\nrw=randread\nthinktime=10\nthinktime_blocks=0\n",
            "p.fio:4: option `thinktime_blocks`",
            "",
        ),
        (
            "[a]\nrw=randread\nthinktime=10\nthinktime_blocks_type=sometimes\n",
            "p.fio:4: option `thinktime_blocks_type`",
            "complete",
        ),
        (
            "[a]\nrw=randread\nstartdelay=1-2\n",
            "p.fio:3: option `startdelay`",
            "not a time",
        ),
    ];
    for (t, at, why) in cases {
        let e = err_of(t);
        assert!(e.contains(at) && e.contains(why), "{t:?}: {e}");
    }
}

#[test]
fn random_distribution_takes_fios_forms_and_names_its_line() {
    let f = parse(
        "d.fio",
        "[global]\nrw=randwrite\n[z]\nrandom_distribution=zoned:60/10:30/20:10/70\n\
         [p]\nrandom_distribution=pareto:0.8\n[n]\nrandom_distribution=normal:5:0.5\n",
    )
    .unwrap();
    assert_eq!(f.jobs[0].dist.describe(), "zoned:60/10:30/20:10/70");
    assert_eq!(
        f.jobs[1].dist,
        Dist::Pareto {
            h: 0.8,
            center: None
        }
    );
    assert_eq!(f.jobs[2].dist.describe(), "normal:5:0.5");
    for (value, says) in [
        ("zoned:60/10:30/20:20/70", "add up to 110"),
        ("zoned:r:60/10:40/90", "not a whole percentage"),
        ("zoned:60/10:40/90,50/50:50/50", "per-direction"),
        ("pareto:1.5", "(0, 1)"),
        ("normal:120", "[0, 100)"),
        ("lognormal", "pareto:H[:CENTER]"),
    ] {
        let e = parse(
            "d.fio",
            &format!("[a]\nrw=randrw\nrandom_distribution={value}\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("d.fio:3: option `random_distribution`") && e.contains(says),
            "{value}: {e}"
        );
    }
}

#[test]
fn clones_are_placed_as_fio_places_them() {
    let cap = 1000 * 4096 + 123; // not a multiple of the block size
    let regions = |t: &str| -> Vec<(u64, u64, u64)> {
        let f = parse("c.fio", t).unwrap();
        let j = &f.jobs[0];
        (0..j.numjobs)
            .map(|c| {
                let r = j.clone_region("c.fio", cap, c).unwrap();
                (r.offset, r.size, r.io_bytes)
            })
            .collect()
    };
    // fio's default offset_increment is 0: every clone addresses the same region.
    assert_eq!(
        regions("[a]\nrw=write\nbs=8k\nnumjobs=2\nsize=1m\n"),
        [(0, 1 << 20, 1 << 20); 2]
    );
    // Bytes: clone j starts j increments further, with the job's size.
    assert_eq!(
        regions("[a]\nrw=write\nbs=8k\nnumjobs=3\noffset=4k\noffset_increment=1m\nsize=1m\nio_size=64k\n"),
        [
            (4096, 1 << 20, 65536),
            (4096 + (1 << 20), 1 << 20, 65536),
            (4096 + (2 << 20), 1 << 20, 65536)
        ]
    );
    // Percentages: the start rounded up to the block size (get_start_offset's align), a
    // percentage size clipped to what lies past the start and rounded down to the block
    // size, a percentage io_size taken of the region (setup_files).
    let start = |c: u64| ((cap * 30 / 100) * c).div_ceil(8192) * 8192;
    assert_eq!(
        regions("[a]\nrw=randwrite\nbs=8k\nnumjobs=3\noffset_increment=30%\nsize=50%\nio_size=10%\nnumber_ios=1000\n"),
        [0, 1, 2]
            .map(|c| {
                let s = ((cap as f64 * 0.5) as u64).min(cap - start(c));
                let s = s - s % 8192;
                (start(c), s, (s as f64 * 0.1) as u64)
            })
            .to_vec()
    );
    assert!(
        cap - start(2) < cap / 2,
        "the third clone's region is clipped"
    );
    // number_ios is a request count the caller applies: not part of the region's bytes.
    assert_eq!(
        regions("[a]\nrw=randwrite\nbs=8k\nsize=1m\nnumber_ios=3\n"),
        [(0, 1 << 20, 1 << 20)]
    );
}

#[test]
fn clones_past_the_device_end_are_refused_at_their_line() {
    let cap = 64 << 20;
    let first_error = |t: &str| {
        let f = parse("e.fio", t).unwrap();
        let j = &f.jobs[0];
        (0..j.numjobs)
            .find_map(|c| j.clone_region("e.fio", cap, c).err())
            .expect("an error")
            .to_string()
    };
    let e = first_error("[a]\nrw=write\nnumjobs=3\noffset_increment=32m\n");
    assert!(
        e.contains("e.fio:4: option `offset_increment`")
            && e.contains("clone 2 starts at byte 67108864"),
        "{e}"
    );
    let e = first_error("[a]\nrw=write\nnumjobs=2\nsize=40m\noffset_increment=30m\n");
    assert!(
        e.contains("e.fio:4: option `size`") && e.contains("clone 1"),
        "{e}"
    );
    let e = first_error("[a]\nrw=write\noffset=64m\n");
    assert!(e.contains("e.fio:3: option `offset`"), "{e}");
    let e = first_error("[a]\nrw=write\nbs=8k\nsize=100%\noffset=67104768\n");
    assert!(e.contains("holds no block of 8192 bytes"), "{e}");
    let e = parse("e.fio", "[a]\noffset_increment=lots\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("e.fio:2: option `offset_increment`"), "{e}");
}

#[test]
fn merge_leaves_spread_and_sequential_clones_to_flows() {
    let m = |t: &str| parse("m.fio", t).unwrap().merge(64 << 20, 1);
    let e = m("[a]\nrw=randwrite\nnumjobs=2\noffset_increment=1m\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("m.fio:4: option `offset_increment`"), "{e}");
    let e = m("[a]\nrw=write\nnumjobs=2\n").unwrap_err().to_string();
    assert!(e.contains("m.fio:3: option `numjobs`"), "{e}");
    // One clone, or random clones without an increment, still merge.
    assert!(m("[a]\nrw=write\noffset_increment=1m\n").is_ok());
    assert!(m("[a]\nrw=randwrite\nnumjobs=4\n").is_ok());
}

#[test]
fn block_size_mixes_in_every_form() {
    use crate::workload::fio::{BlockSizeMix, Sizes};
    let mix = |t: &str| -> Option<BlockSizeMix> {
        parse("b.fio", t).unwrap().jobs[0].block_sizes.clone()
    };
    // bs=READS,WRITES.
    let m = mix("[a]\nrw=randrw\nbs=4k,64k\n").unwrap();
    assert_eq!(
        (m.option.as_str(), &m.read, &m.write),
        ("bs", &Sizes::Fixed(4096), &Sizes::Fixed(65536))
    );
    // One size for both stays a plain bs (the unchanged stream).
    assert_eq!(mix("[a]\nbs=8k,8k\n"), None);
    let j = &parse("b.fio", "[a]\nbs=8k,8k\n").unwrap().jobs[0];
    assert_eq!(j.bs, 8192);
    // bssplit, in [global] too, over bs whatever the order (fio's precedence).
    let m = mix("[global]\nbssplit=4k/50:64k/30:256k/20\n[a]\nbs=16k\n").unwrap();
    assert_eq!(m.option, "bssplit");
    assert_eq!(m.read, m.write);
    assert_eq!(m.read.describe(), "262144/20:65536/30:4096/50");
    // READS,WRITES lists; an empty part keeps bs.
    let m = mix("[a]\nbs=8k\nbssplit=,4k/10:64k\n").unwrap();
    assert_eq!(m.read, Sizes::Fixed(8192));
    assert_eq!(m.write.describe(), "4096/10:65536/90");
    // bsrange / blocksize_range; bssplit wins over it.
    let m = mix("[a]\nblocksize_range=4k-64k\n").unwrap();
    assert_eq!(
        (m.option.as_str(), m.read.min(), m.read.max()),
        ("bsrange", 4096, 65536)
    );
    let m = mix("[a]\nbssplit=4k/50:8k/50\nbsrange=4k-64k\n").unwrap();
    assert_eq!(m.option, "bssplit");
}

#[test]
fn block_size_mix_errors_name_file_line_and_option() {
    for (t, at, why) in [
        (
            "[a]\nrw=randwrite\nbssplit=4k/60:8k/50\n",
            "b.fio:3: option `bssplit`",
            "add up to 110",
        ),
        (
            "[a]\nbssplit=0/50:4k/50\n",
            "b.fio:2: option `bssplit`",
            "positive",
        ),
        (
            "[a]\nbssplit=4k/x\n",
            "b.fio:2: option `bssplit`",
            "not a whole number",
        ),
        (
            "[a]\nbssplit=4k/200\n",
            "b.fio:2: option `bssplit`",
            "`4k/200`: the percentage 200 is over 100",
        ),
        (
            "[a]\nbssplit=4k/50:8k/200\n",
            "b.fio:2: option `bssplit`",
            "`8k/200`: the percentage 200 is over 100",
        ),
        ("[a]\nbssplit=\n", "b.fio:2: option `bssplit`", "no size"),
        ("[a]\nbs=0,4k\n", "b.fio:2: option `bs`", "positive"),
        (
            "[a]\nbs=4k,8k,16k,32k\n",
            "b.fio:2: option `bs`",
            "at most three",
        ),
        (
            "[a]\nbsrange=64k-4k\n",
            "b.fio:2: option `bsrange`",
            "above the maximum",
        ),
        (
            "[a]\nblocksize_range=4k\n",
            "b.fio:2: option `blocksize_range`",
            "MIN-MAX",
        ),
        (
            "[a]\nrw=randwrite\nbssplit=4k/50:8k/50\nrate=1m\n",
            "b.fio:4: option `rate`",
            "rate_iops",
        ),
    ] {
        let e = parse("b.fio", t).unwrap_err().to_string();
        assert!(e.contains(at) && e.contains(why), "{t}: {e}");
    }
    // Not a multiple of the LPN size: the device check names the option's line.
    let f = parse("b.fio", "[a]\nrw=randwrite\nbssplit=4k/50:6k/50\n").unwrap();
    let m = f.merge(64 << 20, 1).unwrap();
    let e = m.job.workload(1 << 14, 4096).err().unwrap().to_string();
    assert!(e.contains("fio.bssplit") && e.contains("6144"), "{e}");
    // A count of requests of varying length needs flows.
    let e = parse(
        "b.fio",
        "[a]\nrw=randwrite\nbssplit=4k/50:8k/50\nnumber_ios=10\n",
    )
    .unwrap()
    .merge(64 << 20, 1)
    .unwrap_err()
    .to_string();
    assert!(e.contains("b.fio:4: option `number_ios`"), "{e}");
    // Jobs that differ in their mix are not merged; the message names the mix's option.
    let e = parse(
        "b.fio",
        "[a]\nbssplit=4k/50:8k/50\n[b]\nbssplit=4k/40:8k/60\n",
    )
    .unwrap()
    .merge(64 << 20, 1)
    .unwrap_err()
    .to_string();
    assert!(e.contains("b.fio:4: option `bssplit`"), "{e}");
}

#[test]
fn a_trim_patterns_mix_is_blamed_on_the_option_and_line_that_made_it() {
    // It named `bs` at the section header, whichever option set the sizes.
    let plan = |t: &str| {
        parse("t.fio", t)
            .unwrap()
            .plan(16384, 4096, 1)
            .unwrap_err()
            .to_string()
    };
    let head = "[global]\nioengine=libaio\nsize=8m\n\n[job]\nrw=trimwrite\n";
    for (set, at) in [
        ("bssplit=4k/50:8k/50\n", "t.fio:7: option `bssplit`"),
        ("bsrange=4k-8k\n", "t.fio:7: option `bsrange`"),
        ("blocksize_range=4k-8k\n", "t.fio:7: option `bsrange`"),
        ("blocksize=4k,8k\n", "t.fio:7: option `bs`"),
    ] {
        let e = plan(&format!("{head}{set}"));
        assert!(e.contains(at) && e.contains("one block size"), "{set}: {e}");
    }
    // Set in [global]: its line there.
    let e = plan("[global]\nbssplit=4k/50:8k/50\n[job]\nrw=randtrim\nsize=8m\n");
    assert!(e.contains("t.fio:2: option `bssplit`"), "{e}");
}

#[test]
fn uniform_random_jobs_take_fios_random_map_unless_told_otherwise() {
    let dist = |t: &str| parse("n.fio", t).unwrap().jobs[0].dist.clone();
    // fio's default for uniform random offsets is its random map.
    assert_eq!(dist("[w]\nrw=randwrite\n"), Dist::RandomMap);
    assert_eq!(
        dist("[w]\nrw=randrw\nrandom_distribution=random\n"),
        Dist::RandomMap
    );
    // norandommap, another distribution (fio then drops the map) and sequential jobs do not.
    assert_eq!(dist("[w]\nrw=randwrite\nnorandommap\n"), Dist::Uniform);
    assert_eq!(dist("[w]\nrw=randwrite\nnorandommap=1\n"), Dist::Uniform);
    assert_eq!(dist("[w]\nrw=randwrite\nnorandommap=0\n"), Dist::RandomMap);
    assert_eq!(
        dist("[w]\nrw=randwrite\nrandom_distribution=zipf:0.9\n"),
        Dist::Zipf(0.9)
    );
    assert_eq!(dist("[w]\nrw=write\n"), Dist::Uniform);
    // The map with a block-size mix is not modelled: drawn with replacement, and said.
    let f = parse(
        "n.fio",
        "[w]\nrw=randwrite\nbssplit=4k/50:8k/50\n[v]\nrw=randwrite\n",
    )
    .unwrap();
    assert_eq!(f.jobs[0].dist, Dist::Uniform);
    let n = f.notes();
    assert!(
        n.len() == 1 && n[0].contains("job(s) w mix block sizes"),
        "{n:?}"
    );
    assert!(parse("n.fio", "[w]\nrw=randwrite\n")
        .unwrap()
        .notes()
        .is_empty());
}

#[test]
fn a_random_map_job_does_each_block_once_per_pass() {
    // 64 MiB of 8 KiB blocks, one job: the merged plan's stream, over three passes.
    let f = parse("p.fio", "[w]\nrw=randrw\nbs=8k\nsize=4m\n").unwrap();
    let (pages, lpn) = (16 << 10, 4096);
    let plan = f.plan(pages, lpn, 3).unwrap();
    let mut run = plan.start(pages, lpn, 3).unwrap();
    let blocks = (4u64 << 20) / 8192;
    let mut reqs = Vec::new();
    while (reqs.len() as u64) < 3 * blocks {
        run.workload.fill(&mut reqs, 100).unwrap();
    }
    let mut repeats = 0;
    for pass in reqs[..3 * blocks as usize].chunks(blocks as usize) {
        let mut seen = vec![false; blocks as usize];
        for r in pass {
            assert_eq!(r.lpn % 2, 0, "8 KiB blocks of 4 KiB pages");
            assert!(
                !seen[(r.lpn / 2) as usize],
                "block {} twice in a pass",
                r.lpn / 2
            );
            seen[(r.lpn / 2) as usize] = true;
        }
        repeats += pass.len() - seen.iter().filter(|&&x| x).count();
    }
    assert_eq!(repeats, 0);
    // Reads and writes share the map, as fio's one map per file.
    assert!(reqs.iter().any(|r| r.op == crate::workload::Op::Read));
    // With norandommap the same job draws with replacement: some block repeats in a pass.
    let f = parse("p.fio", "[w]\nrw=randrw\nbs=8k\nsize=4m\nnorandommap\n").unwrap();
    let mut run = f.plan(pages, lpn, 3).unwrap().start(pages, lpn, 3).unwrap();
    let mut reqs = Vec::new();
    while (reqs.len() as u64) < blocks {
        run.workload.fill(&mut reqs, 100).unwrap();
    }
    let mut seen = std::collections::HashSet::new();
    assert!(reqs[..blocks as usize].iter().any(|r| !seen.insert(r.lpn)));
}

#[test]
fn a_sequential_pass_ends_on_a_block_past_its_region() {
    // fio's `size=10k bs=4k`: writes at 0, 4 and 8 KiB, then the next pass from 0 (its
    // `write_iolog` with `io_size=20k`: 0 4 8 0 4), at a flow's offset or the merged
    // job's 0 alike.
    let (pages, lpn) = (16 << 10, 4096);
    for (text, base) in [
        ("[w]\nrw=write\nbs=4k\nsize=10k\nio_size=20k\n", 0),
        (
            "[w]\nrw=write\nbs=4k\nsize=10k\nio_size=20k\noffset=1m\n",
            256,
        ),
    ] {
        let f = parse("s.fio", text).unwrap();
        let mut run = f.plan(pages, lpn, 1).unwrap().start(pages, lpn, 1).unwrap();
        let mut reqs = Vec::new();
        for _ in 0..10 {
            run.workload.fill(&mut reqs, 4).unwrap();
        }
        let lpns: Vec<u64> = reqs.iter().take(5).map(|r| r.lpn - base).collect();
        assert_eq!(lpns, [0, 1, 2, 0, 1], "{text}");
        assert_eq!(run.data_bytes, 5 * 4096, "{text}");
    }
}

#[test]
fn alignment_fill_and_single_value_options() {
    let cap = 1 << 20;
    let region = |t: &str| {
        let f = parse("a.fio", t).unwrap();
        let r = f.jobs[0].clone_region("a.fio", cap, 0).unwrap();
        (r.offset, r.size)
    };
    // fio 3.33, 1 MiB file, `offset=1% offset_align=64k size=8k`: w64 w68 (KiB).
    assert_eq!(
        region("[a]\nrw=write\nbs=4k\nsize=8k\noffset=1%\noffset_align=64k\n"),
        (64 << 10, 8 << 10)
    );
    // Without it the block size aligns: 1 % of 1 MiB is 10485 bytes, up to 12 KiB.
    assert_eq!(
        region("[a]\nrw=write\nbs=4k\nsize=8k\noffset=1%\n"),
        (12 << 10, 8 << 10)
    );
    // fio 3.33, `offset=1000k fill_device=1`: w1000 ... w1020, to the device's end.
    assert_eq!(
        region("[a]\nrw=write\nbs=4k\nsize=8k\noffset=1000k\nfill_device=1\n"),
        (1000 << 10, 24 << 10)
    );
    // fio's defaults are accepted, other values refused with the reason.
    for ok in [
        "kb_base=1024",
        "nrfiles=1",
        "verify=none",
        "random_generator=tausworthe64",
        "dedupe_percentage=30",
        "clocksource=cpu",
        "directory=/mnt/ssd",
    ] {
        job(&format!("[a]\nrw=write\n{ok}\n")).unwrap();
    }
    for (bad, why) in [
        ("kb_base=1000", "only 1024"),
        ("nrfiles=2", "only 1"),
        ("verify=crc32c", "verification reads"),
        ("random_generator=mt", "tausworthe or tausworthe64 or lfsr"),
        ("offset_align=5%", "not a percentage"),
        // Steady state (module steady; more in tests_steady.rs).
        ("ss=iops", "threshold must be given"),
        ("ss=IOPS:1", "one of iops, iops_slope, bw, bw_slope"),
        ("ss=iops:abc", "not a number of IOPS"),
        ("ss_dur=abc", "not a time"),
        ("ss_interval=1", "not a fio 3.33 option"),
        // The flushes and sync=1 are modelled (module flush); these values are not fio's.
        ("sync=yes", "none, 0, sync, 1, dsync"),
        ("fsync_on_close=2", "fsync_on_close"),
        ("sync_file_range=write:8", "not modelled"),
    ] {
        let e = err_of(&format!("[a]\nrw=write\n{bad}\n"));
        let option = bad.split('=').next().unwrap();
        assert!(
            e.contains("p.fio:3") && e.contains(&format!("`{option}`")) && e.contains(why),
            "{e}"
        );
    }
}

#[test]
fn lfsr_repeats_one_permutation_of_the_blocks_every_pass() {
    let dist = |t: &str| job(t).unwrap().dist;
    // With or without norandommap (fio's logs repeat the permutation either way); other
    // distributions keep theirs, as fio applies lfsr to uniform offsets only.
    assert_eq!(
        dist("[w]\nrw=randwrite\nrandom_generator=lfsr\n"),
        Dist::Lfsr
    );
    assert_eq!(
        dist("[w]\nrw=randwrite\nrandom_generator=lfsr\nnorandommap\n"),
        Dist::Lfsr
    );
    assert_eq!(
        dist("[w]\nrw=randwrite\nrandom_generator=lfsr\nrandom_distribution=zipf:1.2\n"),
        Dist::Zipf(1.2)
    );
    let e = err_of("[w]\nrw=randwrite\nbssplit=4k/50:8k/50\nrandom_generator=lfsr\n");
    assert!(e.contains("p.fio:4") && e.contains("one block size"), "{e}");
    // The stream: each block once per pass, the same order every pass (fio 3.33's log of
    // size=40k: 12 36 8 20 4 32 0 16 24 28, twice).
    let f = parse(
        "l.fio",
        "[w]\nrw=randrw\nbs=8k\nsize=1m\nrandom_generator=lfsr\n",
    )
    .unwrap();
    let (pages, lpn) = (16 << 10, 4096);
    let mut run = f.plan(pages, lpn, 5).unwrap().start(pages, lpn, 5).unwrap();
    let blocks = 128;
    let mut reqs = Vec::new();
    while reqs.len() < 3 * blocks {
        run.workload.fill(&mut reqs, 50).unwrap();
    }
    let passes: Vec<Vec<u64>> = reqs[..3 * blocks]
        .chunks(blocks)
        .map(|p| p.iter().map(|r| r.lpn / 2).collect())
        .collect();
    let mut sorted = passes[0].clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..blocks as u64).collect::<Vec<_>>());
    assert_eq!(passes[1], passes[0]);
    assert_eq!(passes[2], passes[0]);
    assert!(reqs.iter().any(|r| r.op == crate::workload::Op::Read));
    // fio's passes: a 10 KiB region holds two blocks, so two requests.
    let f = parse(
        "l.fio",
        "[w]\nrw=randwrite\nbs=4k\nsize=10k\nrandom_generator=lfsr\n",
    )
    .unwrap();
    let r = f.jobs[0].clone_region("l.fio", 1 << 20, 0).unwrap();
    assert_eq!(f.jobs[0].plain_requests(&r), 2);
}

#[test]
fn each_pass_repeats_the_first_as_fio_reseeds_it() {
    // fio 3.33, `rw=randrw size=40k bs=4k io_size=80k`: r0 r28 r32 w16 r20 r36 w12 w24 w4
    // r8, then the same ten (offsets and directions); with randrepeat=0 the second pass
    // differs, and a time-based job's map resets without reseeding.
    let (pages, lpn) = (16 << 10, 4096);
    let passes = |t: &str| -> Vec<Vec<(u64, bool)>> {
        let f = parse("r.fio", t).unwrap();
        let mut run = f.plan(pages, lpn, 9).unwrap().start(pages, lpn, 9).unwrap();
        let mut reqs = Vec::new();
        while reqs.len() < 3 * 256 {
            run.workload.fill(&mut reqs, 100).unwrap();
        }
        reqs[..3 * 256]
            .chunks(256)
            .map(|p| {
                p.iter()
                    .map(|r| (r.lpn, r.op == crate::workload::Op::Write))
                    .collect()
            })
            .collect()
    };
    let p = passes("[w]\nrw=randrw\nbs=4k\nsize=1m\nio_size=3m\n");
    assert_eq!(p[1], p[0]);
    assert_eq!(p[2], p[0]);
    assert!(p[0].iter().any(|x| x.1) && p[0].iter().any(|x| !x.1));
    let fresh = passes("[w]\nrw=randrw\nbs=4k\nsize=1m\nio_size=3m\nrandrepeat=0\n");
    assert_ne!(fresh[1], fresh[0]);
    assert_eq!(
        job("[w]\nrw=randwrite\ntime_based\nruntime=1\n")
            .unwrap()
            .dist,
        Dist::RandomMapFresh
    );
    assert_eq!(job("[w]\nrw=randwrite\n").unwrap().dist, Dist::RandomMap);

    // lfsr too (fio 3.33, `rw=randrw size=40k io_size=120k random_generator=lfsr`: r12 r36
    // r8 w20 r4 r32 w0 w16 w24 r28, three times; with randrepeat=0 or time_based the
    // directions change from pass to pass).
    let lfsr = "[w]\nrw=randrw\nbs=4k\nsize=1m\nio_size=3m\nrandom_generator=lfsr\n";
    let p = passes(lfsr);
    assert_eq!(p[1], p[0]);
    assert_eq!(p[2], p[0]);
    assert!(p[0].iter().any(|x| x.1) && p[0].iter().any(|x| !x.1));
    let fresh = passes(&format!("{lfsr}randrepeat=0\n"));
    let offsets = |p: &[(u64, bool)]| p.iter().map(|x| x.0).collect::<Vec<_>>();
    assert_eq!(offsets(&fresh[1]), offsets(&fresh[0]));
    assert_ne!(fresh[1], fresh[0]);
    let tb = "[w]\nrw=randrw\nrandom_generator=lfsr\ntime_based\nruntime=1\n";
    assert_eq!(job(tb).unwrap().dist, Dist::LfsrFresh);
}
