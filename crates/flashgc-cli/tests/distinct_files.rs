//! A command's files never replace one another: a result (`-o`) or a recording
//! (`--record`) over an input the command reads (the fio job file, the MQSim workload
//! file, the served disk image, the configuration) is refused before anything is written.
//! (Traces and configuration files as `-o` of `run` and friends: robustness.rs.)
//!
//! `cargo test --release -p flashgc-cli --test distinct_files` (under a second).

mod common;

use common::{flashgc, stderr, temp_dir};

/// Runs `args` in `d`, expects exit code 2 with `needle` in the message, and `file` (in
/// `d`) unchanged.
fn refused(d: &std::path::Path, args: &[&str], needle: &str, file: &str) {
    let before = std::fs::read(d.join(file)).unwrap();
    // Bounded: before the fix `serve` served (until a signal) and only then wrote.
    let mut cmd = common::bin();
    cmd.current_dir(d).args(args);
    let o = common::output_within(cmd, std::time::Duration::from_secs(30), &args.join(" "));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert_eq!(std::fs::read(d.join(file)).unwrap(), before, "{args:?}");
}

#[test]
fn a_result_never_replaces_the_fio_job_or_mqsim_workload_file() {
    let d = temp_dir("distinct-files", "fio");
    std::fs::write(
        d.join("j.fio"),
        "[global]\nrw=randwrite\nbs=4k\nsize=1m\n[a]\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("j.fio", d.join("link.fio")).unwrap();
    let small = ["--logical-gib", "0.0625", "--pages-per-block", "32"];
    // Before: the job ran and its result JSON replaced the job file.
    for out in ["j.fio", "./j.fio", "link.fio"] {
        if out == "link.fio" && !cfg!(unix) {
            continue;
        }
        let mut a = vec!["fio", "--job", "j.fio", "-o", out];
        a.extend(small);
        refused(&d, &a, "is the file of --job", "j.fio");
    }
    // `compare` checked its trace and configuration but not an MQSim workload file.
    let flow: String = [
        ("Priority_Class", "HIGH"),
        ("Device_Level_Data_Caching_Mode", "WRITE_CACHE"),
        ("Channel_IDs", "0,1,2,3"),
        ("Chip_IDs", "0,1"),
        ("Die_IDs", "0"),
        ("Plane_IDs", "0"),
        ("Initial_Occupancy_Percentage", "0"),
        ("Working_Set_Percentage", "50"),
        ("Synthetic_Generator_Type", "QUEUE_DEPTH"),
        ("Read_Percentage", "0"),
        ("Address_Distribution", "RANDOM_UNIFORM"),
        ("Percentage_of_Hot_Region", "0"),
        ("Generated_Aligned_Addresses", "true"),
        ("Address_Alignment_Unit", "8"),
        ("Request_Size_Distribution", "FIXED"),
        ("Average_Request_Size", "8"),
        ("Variance_Request_Size", "0"),
        ("Seed", "7"),
        ("Average_No_of_Reqs_in_Queue", "4"),
        ("Intensity", "32768"),
        ("Stop_Time", "1000000000"),
        ("Total_Requests_To_Generate", "100"),
    ]
    .iter()
    .map(|(k, v)| format!("<{k}>{v}</{k}>"))
    .collect();
    let xml = format!(
        "<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Synthetic>{flow}\
         </IO_Flow_Parameter_Set_Synthetic></IO_Scenario></MQSim_IO_Scenarios>"
    );
    std::fs::write(d.join("w.xml"), xml).unwrap();
    let mut a = vec!["compare", "--timing", "--placement", "single"];
    a.extend(small);
    a.extend(["--mqsim-workload", "w.xml", "-o", "w.xml"]);
    refused(&d, &a, "is the MQSim workload file", "w.xml");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn serve_never_writes_one_of_its_files_over_another() {
    let d = temp_dir("distinct-files", "serve");
    std::fs::write(d.join("disk.img"), b"the user's disk image").unwrap();
    std::fs::write(
        d.join("c.toml"),
        "[device]\npages_per_block = 32\n[ftl]\nlogical_gib = 0.0625\n",
    )
    .unwrap();
    std::fs::write(d.join("r.fgt"), b"an earlier recording").unwrap();
    let serve = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut a = vec![
            "serve", "--config", "c.toml", "--socket", "s.sock", "--quiet",
        ];
        a.extend_from_slice(extra);
        a
    };
    // Before, each of these served (until a signal), then replaced the second file with
    // the result, the recording, or the clients' writes.
    for (extra, file) in [
        (
            &["--data", "file:disk.img", "-o", "disk.img"][..],
            "disk.img",
        ),
        (
            &["--data", "file:disk.img", "--record", "./disk.img"][..],
            "disk.img",
        ),
        (&["--data", "file:c.toml"][..], "c.toml"),
        (&["--record", "c.toml"][..], "c.toml"),
        (&["--record", "r.fgt", "-o", "r.fgt"][..], "r.fgt"),
    ] {
        refused(&d, &serve(extra), "is the file of", file);
    }
    // Distinct files are accepted (the check is not a refusal of every file): a config
    // error after it shows the command got past it without serving.
    let o = flashgc(&[
        "serve",
        "--config",
        d.join("c.toml").to_str().unwrap(),
        "--record",
        d.join("new.fgt").to_str().unwrap(),
        "--socket",
        d.join("s.sock").to_str().unwrap(),
        "--pace",
        "bogus",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--pace"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}
