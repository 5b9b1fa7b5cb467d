//! `trace stats` on every real trace in `../shared/traces` must agree with the record
//! counts, bytes, address ranges and page counts listed in that folder's README. Each test
//! is skipped, with a message, when the folder is absent.

use flashgc_trace::{convert, stats, TraceOptions, TraceStats};
use std::path::{Path, PathBuf};

fn traces_dir() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
    let d = std::env::var_os("FLASHGC_TRACES")
        .map(PathBuf::from)
        .unwrap_or(d);
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!(
            "SKIPPED: real traces folder {} is absent (set FLASHGC_TRACES to point at it)",
            d.display()
        );
        None
    }
}

/// One README row.
pub struct Row {
    pub file: &'static str,
    pub format: Option<&'static str>,
    pub events: Option<&'static str>,
    pub records: u64,
    pub reads: (u64, u64),
    pub writes: (u64, u64),
    pub range: Option<(u64, u64)>,
    pub pages: Option<u64>,
    pub pages_written: Option<u64>,
}

const MSR_BYTES: &str =
    "ssv:ts=1,volume=2,offset=3,size=4,op=5,offset_unit=byte,size_unit=sector,write=0,read=1";

/// The README's table, row by row (bytes are sums of request sizes; pages are distinct
/// 4096-byte pages by address).
pub const ROWS: &[Row] = &[
    Row {
        file: "msr_cambridge/msr-cambridge1-sample.csv",
        format: None,
        events: None,
        records: 1000,
        reads: (508, 6_108_672),
        writes: (492, 3_580_928),
        range: Some((17_625_088, 13_575_029_248)),
        pages: Some(1917),
        pages_written: Some(475),
    },
    Row {
        file: "mqsim_umass_tpcc/wsrch-small.trace",
        format: Some("mqsim"),
        events: None,
        records: 24_783,
        reads: (24_779, 382_085_120),
        writes: (4, 32_768),
        range: Some((0, 17_902_723_072)),
        pages: None,
        pages_written: None,
    },
    Row {
        file: "mqsim_umass_tpcc/tpcc-small.trace",
        format: Some("mqsim"),
        events: None,
        records: 6_999,
        reads: (4_381, 36_315_136),
        writes: (2_618, 23_403_520),
        range: Some((361_823_744, 232_713_410_560)),
        pages: None,
        pages_written: Some(7_859),
    },
    Row {
        file: "fiu/cheetah.cs.fiu.edu-110108-113008.2.head10008.blkparse",
        format: None,
        events: None,
        records: 10_008,
        reads: (8_905, 36_474_880),
        writes: (1_103, 4_517_888),
        range: Some((28_672, 297_505_296_384)),
        pages: Some(9_212),
        pages_written: Some(895),
    },
    Row {
        file: "systor17/systor17-traces-sample.csv",
        format: None,
        events: None,
        records: 999,
        reads: (826, 36_355_584),
        writes: (173, 2_766_848),
        range: Some((193_595_128_320, 5_029_321_633_280)),
        pages: None,
        pages_written: None,
    },
    Row {
        file: "systor17/systor17-additional-sample.csv",
        format: None,
        events: None,
        records: 999,
        reads: (700, 18_406_400),
        writes: (299, 2_286_080),
        range: Some((139_255_196_672, 4_982_565_600_256)),
        pages: None,
        pages_written: None,
    },
    Row {
        file: "tencent_cbs/cloud_storage-sample.csv.gz",
        format: None,
        events: None,
        records: 50_000,
        reads: (24_521, 646_755_328),
        writes: (25_479, 871_636_992),
        range: None,
        pages: None,
        pages_written: None,
    },
    Row {
        file: "blktrace/apress_hadoop_java_sdb.blkparse.txt.gz",
        format: None,
        events: Some("Q"),
        records: 15_524,
        reads: (80, 9_977_856),
        writes: (15_444, 63_258_624),
        range: Some((479_095_665_664, 1_755_303_601_152)),
        pages: Some(17_901),
        pages_written: Some(15_461),
    },
    Row {
        file: "blktrace/ycsb_ext4.blkparse.txt.gz",
        format: None,
        events: Some("D"),
        records: 9_887,
        reads: (9_039, 1_047_625_728),
        writes: (848, 251_944_960),
        range: Some((0, 8_724_611_072)),
        pages: None,
        pages_written: Some(61_395),
    },
    Row {
        file: "blktrace/ycsb_f2fs.blkparse.txt.gz",
        format: None,
        events: Some("D"),
        records: 5_727,
        reads: (4_722, 537_161_728),
        writes: (1_005, 439_848_960),
        range: Some((2_097_152, 2_745_171_968)),
        pages: None,
        pages_written: Some(101_756),
    },
    Row {
        file: "blktrace/ycsb_btrfs.blkparse.txt",
        format: None,
        events: Some("D"),
        records: 1_824,
        reads: (1_301, 1_050_824_704),
        writes: (523, 256_434_176),
        range: Some((65_536, 2_706_374_656)),
        pages: None,
        pages_written: Some(56_753),
    },
    Row {
        file: "blktrace/leveldb_ram0.blkparse.txt",
        format: None,
        events: Some("C"),
        records: 840,
        reads: (0, 0),
        writes: (840, 431_104),
        range: Some((21_504, 269_927_424)),
        pages: None,
        pages_written: None,
    },
    Row {
        file: "converted_mqsim/systor17_2016021612-LUN3.mqsim.trace.gz",
        format: Some("mqsim"),
        events: None,
        records: 202_725,
        reads: (193_557, 820_219_904),
        writes: (9_168, 440_063_488),
        range: Some((0, 335_544_320)),
        pages: None,
        pages_written: None,
    },
    Row {
        file: "converted_mqsim/ssdTrace-only-write.mqsim.trace.gz",
        format: Some("mqsim"),
        events: None,
        records: 87_487,
        reads: (0, 0),
        writes: (87_487, 7_291_650_048),
        range: Some((40_169_472, 512_096_407_552)),
        pages: Some(483_465),
        pages_written: Some(483_465),
    },
    Row {
        file: "converted_mqsim/MSR_trace-only-write.mqsim.trace",
        format: Some(MSR_BYTES),
        events: None,
        records: 33_304,
        reads: (0, 0),
        writes: (33_304, 781_075_456),
        range: Some((24_576, 27_310_669_824)),
        pages: Some(51_903),
        pages_written: Some(51_903),
    },
    Row {
        // One 32-hex MD5 per 512 B sector (256 hex digits per 4 KiB request): the FIU
        // reader keeps the first 8 bytes.
        file: "fiu/homes.replay.0",
        format: Some("fiu"),
        events: None,
        records: 1_000,
        reads: (2, 8_192),
        writes: (998, 4_087_808),
        range: Some((0, 512_000)),
        pages: Some(125),
        pages_written: Some(125),
    },
    Row {
        file: "cloudphysics/cloudPhysicsIO.csv.gz",
        format: Some(
            "csv:ts=2,op=3,size=4,offset=5,offset_unit=sector,ts_unit=s,write=2a,read=28,header=1",
        ),
        events: None,
        records: 113_872,
        reads: (46_974, 1_797_412_352),
        writes: (66_898, 2_408_565_760),
        range: Some((8_162_816, 33_584_938_496)),
        pages: Some(269_210),
        pages_written: Some(208_696),
    },
];

fn opts(r: &Row) -> TraceOptions {
    TraceOptions {
        format: r.format.map(str::to_string),
        blkparse_events: r.events.map(str::to_string),
        ..TraceOptions::default()
    }
}

fn check(r: &Row, s: &TraceStats, what: &str) {
    let f = format!("{what} {}", r.file);
    assert_eq!(s.requests, r.records, "{f}: records");
    assert_eq!(
        (s.reads, s.read_bytes),
        r.reads,
        "{f}: reads (count, bytes)"
    );
    assert_eq!(
        (s.writes, s.write_bytes),
        r.writes,
        "{f}: writes (count, bytes)"
    );
    if let Some((lo, hi)) = r.range {
        assert_eq!(
            (s.min_offset, s.max_end),
            (Some(lo), Some(hi)),
            "{f}: address range"
        );
    }
    if let Some(p) = r.pages {
        assert_eq!(s.pages, p, "{f}: distinct 4K pages");
    }
    if let Some(p) = r.pages_written {
        assert_eq!(s.pages_written, p, "{f}: distinct 4K pages written");
    }
}

#[test]
fn stats_agree_with_the_readme() {
    let Some(dir) = traces_dir() else { return };
    for r in ROWS {
        let s = stats(&dir.join(r.file), &opts(r), 4096).unwrap_or_else(|e| panic!("{e}"));
        check(r, &s, "text");
    }
    // FIU: 1,103 written chunks carry 799 distinct written MD5s.
    let s = stats(&dir.join(ROWS[3].file), &TraceOptions::default(), 4096).unwrap();
    let d = s.duplicates.unwrap();
    assert_eq!((d.written_pages_with_hash, d.distinct_hashes), (1_103, 799));
    // apress with D events: 170 requests (78 reads, 92 writes).
    let o = TraceOptions {
        blkparse_events: Some("D".into()),
        ..TraceOptions::default()
    };
    let s = stats(&dir.join(ROWS[7].file), &o, 4096).unwrap();
    assert_eq!(
        (s.requests, s.reads, s.read_bytes, s.writes, s.write_bytes),
        (170, 78, 9_977_856, 92, 31_252_480)
    );
    // tpcc: 16 devices.
    let s = stats(&dir.join(ROWS[2].file), &opts(&ROWS[2]), 4096).unwrap();
    assert_eq!(s.volumes, 16);
    // Tencent: 2,038 volumes.
    let s = stats(&dir.join(ROWS[6].file), &opts(&ROWS[6]), 4096).unwrap();
    assert_eq!(s.volumes, 2_038);
}

#[test]
fn every_trace_file_in_the_folder_is_checked() {
    let Some(dir) = traces_dir() else { return };
    let mut files = Vec::new();
    for sub in std::fs::read_dir(&dir).unwrap() {
        let sub = sub.unwrap().path();
        if !sub.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&sub).unwrap() {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            if name == "README.md" || name.ends_with(".ycsb_summary.txt") {
                continue;
            }
            files.push(f.strip_prefix(&dir).unwrap().to_string_lossy().to_string());
        }
    }
    for f in &files {
        assert!(
            ROWS.iter().any(|r| r.file == f),
            "{f} is not in the README table of this test"
        );
    }
}

#[test]
fn binary_copies_of_real_traces_have_the_same_stats() {
    let Some(dir) = traces_dir() else { return };
    for (i, r) in ROWS.iter().enumerate() {
        let out = std::env::temp_dir().join(format!("flashgc-real-{}-{i}.fgt", std::process::id()));
        let o = opts(r);
        convert(&dir.join(r.file), &o, &out).unwrap_or_else(|e| panic!("{e}"));
        let s = stats(&out, &TraceOptions::default(), 4096).unwrap_or_else(|e| panic!("{e}"));
        check(r, &s, ".fgt of");
        let t = stats(&dir.join(r.file), &o, 4096).unwrap();
        assert_eq!(s.update_intervals, t.update_intervals, "{}", r.file);
        assert_eq!(s.duplicates, t.duplicates, "{}", r.file);
        assert_eq!(s.volumes, t.volumes, "{}", r.file);
        let _ = std::fs::remove_file(&out);
    }
}

/// docs/traces.md's column-map example reads the MSR sample (README row 0) as the native
/// reader does, from its text and from its `.fgt` copy.
#[test]
fn the_docs_column_map_reads_msr_as_the_native_reader() {
    let Some(dir) = traces_dir() else { return };
    let r = Row {
        format: Some(
            "csv:ts=1,op=4,offset=5,size=6,offset_unit=byte,ts_unit=100ns,write=Write,read=Read",
        ),
        ..ROWS[0]
    };
    let s = stats(&dir.join(r.file), &opts(&r), 4096).unwrap_or_else(|e| panic!("{e}"));
    check(&r, &s, "column map of");
    let out = std::env::temp_dir().join(format!("flashgc-real-map-{}.fgt", std::process::id()));
    convert(&dir.join(r.file), &opts(&r), &out).unwrap_or_else(|e| panic!("{e}"));
    let s = stats(&out, &TraceOptions::default(), 4096).unwrap_or_else(|e| panic!("{e}"));
    check(&r, &s, ".fgt of the column map of");
    let _ = std::fs::remove_file(&out);
}
