//! MQSim workload files as host flows (`workload::mqsim`; docs/flows.md, "MQSim IO
//! scenarios"): MQSim's own example file, flow by flow against values worked by hand from
//! MQSim's definitions; resource partitioning, bandwidth, hot/cold and request-count flows;
//! bad files named by file, line and element.

use flashgc_core::config::{ByteSize, FlowConfig};
use flashgc_core::workload::mqsim::MqsimWorkload;

/// MQSim's example workload file, verbatim: github.com/CMU-SAFARI/MQSim, `workload.xml`
/// (commit 7ec40e3). Line numbers below are its own.
const MQSIM_EXAMPLE: &str = r#"<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios>
	<IO_Scenario>
		<IO_Flow_Parameter_Set_Synthetic>
			<Priority_Class>HIGH</Priority_Class>
			<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
			<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs>
			<Chip_IDs>0,1,2,3</Chip_IDs>
			<Die_IDs>0,1</Die_IDs>
			<Plane_IDs>0,1</Plane_IDs>
			<Initial_Occupancy_Percentage>75</Initial_Occupancy_Percentage>
			<Working_Set_Percentage>50</Working_Set_Percentage>
			<Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>
			<Read_Percentage>0</Read_Percentage>
			<Address_Distribution>RANDOM_UNIFORM</Address_Distribution>
			<Percentage_of_Hot_Region>0</Percentage_of_Hot_Region>
			<Generated_Aligned_Addresses>true</Generated_Aligned_Addresses>
			<Address_Alignment_Unit>16</Address_Alignment_Unit>
			<Request_Size_Distribution>FIXED</Request_Size_Distribution>
			<Average_Request_Size>8</Average_Request_Size>
			<Variance_Request_Size>0</Variance_Request_Size>
			<Seed>798</Seed>
			<Average_No_of_Reqs_in_Queue>16</Average_No_of_Reqs_in_Queue>
			<Intensity>32768</Intensity>
			<Stop_Time>10000000000</Stop_Time>
			<Total_Requests_To_Generate>0</Total_Requests_To_Generate>
		</IO_Flow_Parameter_Set_Synthetic>
		<IO_Flow_Parameter_Set_Synthetic>
			<Priority_Class>HIGH</Priority_Class>
			<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
			<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs>
			<Chip_IDs>0,1,2,3</Chip_IDs>
			<Die_IDs>0,1</Die_IDs>
			<Plane_IDs>0,1</Plane_IDs>
			<Initial_Occupancy_Percentage>75</Initial_Occupancy_Percentage>
			<Working_Set_Percentage>50</Working_Set_Percentage>
			<Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>
			<Read_Percentage>0</Read_Percentage>
			<Address_Distribution>RANDOM_UNIFORM</Address_Distribution>
			<Percentage_of_Hot_Region>0</Percentage_of_Hot_Region>
			<Generated_Aligned_Addresses>true</Generated_Aligned_Addresses>
			<Address_Alignment_Unit>16</Address_Alignment_Unit>
			<Request_Size_Distribution>FIXED</Request_Size_Distribution>
			<Average_Request_Size>8</Average_Request_Size>
			<Variance_Request_Size>0</Variance_Request_Size>
			<Seed>6533</Seed>
			<Average_No_of_Reqs_in_Queue>2</Average_No_of_Reqs_in_Queue>
			<Intensity>32768</Intensity>
			<Stop_Time>10000000000</Stop_Time>
			<Total_Requests_To_Generate>0</Total_Requests_To_Generate>
		</IO_Flow_Parameter_Set_Synthetic>
	</IO_Scenario>

	<IO_Scenario>
		<IO_Flow_Parameter_Set_Synthetic>
			<Priority_Class>URGENT</Priority_Class>
			<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
			<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs>
			<Chip_IDs>0,1,2,3</Chip_IDs>
			<Die_IDs>0,1</Die_IDs>
			<Plane_IDs>0,1</Plane_IDs>
			<Initial_Occupancy_Percentage>75</Initial_Occupancy_Percentage>
			<Working_Set_Percentage>50</Working_Set_Percentage>
			<Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>
			<Read_Percentage>100</Read_Percentage>
			<Address_Distribution>RANDOM_UNIFORM</Address_Distribution>
			<Percentage_of_Hot_Region>0</Percentage_of_Hot_Region>
			<Generated_Aligned_Addresses>true</Generated_Aligned_Addresses>
			<Address_Alignment_Unit>16</Address_Alignment_Unit>
			<Request_Size_Distribution>FIXED</Request_Size_Distribution>
			<Average_Request_Size>8</Average_Request_Size>
			<Variance_Request_Size>0</Variance_Request_Size>
			<Seed>798</Seed>
			<Average_No_of_Reqs_in_Queue>16</Average_No_of_Reqs_in_Queue>
			<Intensity>32768</Intensity>
			<Stop_Time>10000000000</Stop_Time>
			<Total_Requests_To_Generate>0</Total_Requests_To_Generate>
		</IO_Flow_Parameter_Set_Synthetic>
		<IO_Flow_Parameter_Set_Synthetic>
			<Priority_Class>HIGH</Priority_Class>
			<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
			<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs>
			<Chip_IDs>0,1,2,3</Chip_IDs>
			<Die_IDs>0,1</Die_IDs>
			<Plane_IDs>0,1</Plane_IDs>
			<Initial_Occupancy_Percentage>75</Initial_Occupancy_Percentage>
			<Working_Set_Percentage>50</Working_Set_Percentage>
			<Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>
			<Read_Percentage>100</Read_Percentage>
			<Address_Distribution>RANDOM_UNIFORM</Address_Distribution>
			<Percentage_of_Hot_Region>0</Percentage_of_Hot_Region>
			<Generated_Aligned_Addresses>true</Generated_Aligned_Addresses>
			<Address_Alignment_Unit>16</Address_Alignment_Unit>
			<Request_Size_Distribution>FIXED</Request_Size_Distribution>
			<Average_Request_Size>8</Average_Request_Size>
			<Variance_Request_Size>0</Variance_Request_Size>
			<Seed>6533</Seed>
			<Average_No_of_Reqs_in_Queue>16</Average_No_of_Reqs_in_Queue>
			<Intensity>32768</Intensity>
			<Stop_Time>10000000000</Stop_Time>
			<Total_Requests_To_Generate>0</Total_Requests_To_Generate>
		</IO_Flow_Parameter_Set_Synthetic>
	</IO_Scenario>
	<IO_Scenario>
		<IO_Flow_Parameter_Set_Trace_Based>
			<Priority_Class>HIGH</Priority_Class>
			<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
			<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs>
			<Chip_IDs>0,1,2,3</Chip_IDs>
			<Die_IDs>0,1</Die_IDs>
			<Plane_IDs>0,1</Plane_IDs>
			<Initial_Occupancy_Percentage>70</Initial_Occupancy_Percentage>
			<File_Path>traces/tpcc-small.trace</File_Path>
			<Percentage_To_Be_Executed>100</Percentage_To_Be_Executed>
			<Relay_Count>1</Relay_Count>
			<Time_Unit>NANOSECOND</Time_Unit>
		</IO_Flow_Parameter_Set_Trace_Based>
	</IO_Scenario>
</MQSim_IO_Scenarios>"#;

fn b(v: u64) -> Option<ByteSize> {
    Some(ByteSize::Bytes(v))
}

/// The flows MQSim's definitions give, worked by hand (see each field's comment).
fn expected(name: &str, rw: &str, offset: u64, iodepth: u32, seed: u64) -> FlowConfig {
    FlowConfig {
        name: Some(name.into()),
        rw: Some(rw.into()),
        rwmixwrite: None,
        // Average_Request_Size 8 sectors x 512 B.
        bs: b(4096),
        bssplit: None,
        offset: b(offset),
        // 1,000,000 logical pages split over 2 flows that share all 8x4x2x2 planes: 500,000
        // each; Working_Set_Percentage 50: 250,000 pages of 4 KiB.
        size: b(250_000 * 4096),
        distribution: Some("uniform".into()),
        iodepth: Some(iodepth),
        rate_iops: None,
        thinktime_us: None,
        thinktime_blocks: None,
        thinktime_blocks_type: None,
        // QUEUE_DEPTH flows submit their first requests at 1 ns (IO_Flow_Synthetic.cpp:211).
        start_ms: Some(1e-6),
        requests: None,
        // Stop_Time 10,000,000,000 ns: requests while now <= 10 s, i.e. now < 1 ns + 10 s.
        runtime_ms: Some(10_000.0),
        ramp_ms: None,
        numjobs: None,
        seed: Some(seed),
    }
}

const PAGES: u64 = 1_000_000;

#[test]
fn mqsim_example_scenarios_field_by_field() {
    let w = MqsimWorkload::parse("workload.xml", MQSIM_EXAMPLE).unwrap();
    assert_eq!(w.scenarios.len(), 3);
    assert_eq!(
        w.scenarios.iter().map(|s| s.line).collect::<Vec<_>>(),
        [3, 54, 104]
    );
    // Scenario 1: two random writers (Read_Percentage 0), QD 16 and 2.
    let s1 = w.import(Some(1), PAGES, 4096).unwrap();
    assert_eq!(s1.scenario, 1);
    assert_eq!(
        s1.flows,
        [
            expected("flow0", "randwrite", 0, 16, 798),
            expected("flow1", "randwrite", 500_000 * 4096, 2, 6533)
        ]
    );
    // Scenario 2: two random readers (Read_Percentage 100), QD 16 each.
    let s2 = w.import(Some(2), PAGES, 4096).unwrap();
    assert_eq!(
        s2.flows,
        [
            expected("flow0", "randread", 0, 16, 798),
            expected("flow1", "randread", 500_000 * 4096, 16, 6533)
        ]
    );
    let has = |notes: &[String], what: &str| notes.iter().any(|n| n.contains(what));
    for n in [&s1.notes, &s2.notes] {
        for what in [
            "flow0, flow1: <Intensity> ignored",
            "flow0, flow1: Initial_Occupancy_Percentage 75 not applied",
            "flow0, flow1: Device_Level_Data_Caching_Mode WRITE_CACHE",
            "touches only 8 of every 16 sectors",
        ] {
            assert!(has(n, what), "{what}: {n:#?}");
        }
        assert!(n
            .iter()
            .all(|x| x.starts_with("MQSim workload.xml scenario ")));
    }
    // Scenario 2's flows differ in Priority_Class (URGENT, HIGH); scenario 1's do not.
    assert!(has(
        &s2.notes,
        "Priority_Class ignored: the flows' classes differ (URGENT, HIGH)"
    ));
    assert!(!has(&s1.notes, "Priority_Class"));
    // Scenario 2 only reads, with no request count: its flows' run times end it, so a run
    // bounded only by a write volume is not refused as endless.
    let specs: Vec<_> = s2
        .flows
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.specs(i, 1, PAGES * 4096).unwrap())
        .collect();
    let fs = flashgc_core::workload::flows::FlowSet::new(specs, PAGES, 4096).unwrap();
    fs.check_reaches(10 * PAGES).unwrap();
    // Scenario 3 is trace-based.
    let e = w.import(Some(3), PAGES, 4096).unwrap_err().to_string();
    assert!(
        e.starts_with("workload.xml:105: <IO_Flow_Parameter_Set_Trace_Based>:")
            && e.contains("--workload trace:PATH"),
        "{e}"
    );
    // Three scenarios: one must be chosen; 4 does not exist.
    let e = w.import(None, PAGES, 4096).unwrap_err().to_string();
    assert!(
        e.contains("holds 3 <IO_Scenario> elements (lines 3, 54, 104)"),
        "{e}"
    );
    let e = w.import(Some(4), PAGES, 4096).unwrap_err().to_string();
    assert!(e.contains("scenario 4 does not exist"), "{e}");
}

/// A synthetic flow with the given elements (each on a line of its own).
fn flow(elems: &[(&str, &str)]) -> String {
    let mut s = String::from("<IO_Flow_Parameter_Set_Synthetic>\n");
    for (k, v) in elems {
        s.push_str(&format!("<{k}>{v}</{k}>\n"));
    }
    s + "</IO_Flow_Parameter_Set_Synthetic>\n"
}

fn file(flows: &[String]) -> String {
    format!(
        "<MQSim_IO_Scenarios>\n<IO_Scenario>\n{}</IO_Scenario>\n</MQSim_IO_Scenarios>\n",
        flows.concat()
    )
}

fn base(channels: &str) -> Vec<(&'static str, String)> {
    [
        ("Channel_IDs", channels),
        ("Chip_IDs", "0"),
        ("Die_IDs", "0"),
        ("Plane_IDs", "0"),
        ("Working_Set_Percentage", "100"),
        ("Synthetic_Generator_Type", "QUEUE_DEPTH"),
        ("Read_Percentage", "30"),
        ("Address_Distribution", "RANDOM_UNIFORM"),
        ("Generated_Aligned_Addresses", "true"),
        ("Address_Alignment_Unit", "8"),
        ("Request_Size_Distribution", "FIXED"),
        ("Average_Request_Size", "8"),
        ("Seed", "5"),
        ("Average_No_of_Reqs_in_Queue", "4"),
        ("Stop_Time", "0"),
        ("Total_Requests_To_Generate", "1000"),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_string()))
    .collect()
}

fn with(
    mut v: Vec<(&'static str, String)>,
    k: &'static str,
    val: &str,
) -> Vec<(&'static str, String)> {
    match v.iter_mut().find(|e| e.0 == k) {
        Some(e) => e.1 = val.to_string(),
        None => v.push((k, val.to_string())),
    }
    v
}

fn flow_of(v: &[(&'static str, String)]) -> String {
    flow(&v.iter().map(|(k, x)| (*k, x.as_str())).collect::<Vec<_>>())
}

#[test]
fn partitioning_bandwidth_hotcold_and_request_counts() {
    // Flow 0 on channels 0,1, flow 1 on channels 1,2,3 and flow 2 on channel 4 (one chip,
    // die, plane each): channel 1's plane is shared, so flow 0 gets 1 + 1/2, flow 1
    // 1/2 + 1 + 1 and flow 2 one plane's worth: 3/10, 5/10 and 2/10 of the logical space,
    // in order (Logical_Address_Partitioning_Unit.cpp:134-157).
    let f0 = base("0,1,1");
    let f1 = with(
        with(
            with(
                with(
                    with(base("3,2,1"), "Synthetic_Generator_Type", "BANDWIDTH"),
                    "Bandwidth",
                    "1048576",
                ),
                "Address_Distribution",
                "RANDOM_HOTCOLD",
            ),
            "Percentage_of_Hot_Region",
            "20",
        ),
        "Working_Set_Percentage",
        "50",
    );
    let f1 = with(
        with(
            with(f1, "Request_Size_Distribution", "NORMAL"),
            "Variance_Request_Size",
            "2",
        ),
        "Read_Percentage",
        "0",
    );
    let f2 = with(
        with(base("4"), "Address_Distribution", "STREAMING"),
        "Read_Percentage",
        "100",
    );
    let w =
        MqsimWorkload::parse("p.xml", &file(&[flow_of(&f0), flow_of(&f1), flow_of(&f2)])).unwrap();
    let s = w.import(None, 1200, 4096).unwrap();
    assert_eq!(s.flows[0].offset, b(0));
    assert_eq!(s.flows[0].size, b(360 * 4096));
    assert_eq!(s.flows[0].rw.as_deref(), Some("randrw"));
    assert_eq!(s.flows[0].rwmixwrite, Some(70.0));
    assert_eq!(s.flows[0].iodepth, Some(4));
    assert_eq!(s.flows[0].requests, Some(1000));
    assert_eq!(s.flows[0].runtime_ms, None);
    assert_eq!(s.flows[0].seed, Some(5));
    // Flow 1: pages [360, 960), working set 50 %: 300 pages.
    assert_eq!(s.flows[1].offset, b(360 * 4096));
    assert_eq!(s.flows[1].size, b(300 * 4096));
    // (1,048,576 B/s / 512) / 8 sectors = 256 requests/s: mean gap 3,906,250 ns.
    assert_eq!(s.flows[1].rate_iops, Some(1e9 / 3_906_250.0));
    assert_eq!(s.flows[1].iodepth, None);
    assert_eq!(s.flows[1].start_ms, Some(3.90625));
    // (100 - 20) % of the requests to the first 20 % (IO_Flow_Synthetic.cpp:129-144).
    assert_eq!(s.flows[1].distribution.as_deref(), Some("hotcold:80/20"));
    assert_eq!(s.flows[1].rw.as_deref(), Some("randwrite"));
    // Flow 2: the last 240 pages, sequential reads.
    assert_eq!(s.flows[2].offset, b(960 * 4096));
    assert_eq!(s.flows[2].size, b(240 * 4096));
    assert_eq!(s.flows[2].rw.as_deref(), Some("read"));
    assert_eq!(s.flows[2].distribution, None);
    let all = s.notes.join("\n");
    for what in [
        "flow1: BANDWIDTH: MQSim draws exponential inter-arrival times of mean 3906250 ns",
        "flow1: Request_Size_Distribution NORMAL",
        "flow2: STREAMING starts at a random address",
        "different flash resources",
    ] {
        assert!(all.contains(what), "{what}: {all}");
    }
    // Aligned to the request size: no alignment note.
    assert!(!all.contains("Generated_Aligned_Addresses"), "{all}");
    // The flows build and validate on a device of that size.
    let specs: Vec<_> = s
        .flows
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.specs(i, 1, 1200 * 4096).unwrap())
        .collect();
    flashgc_core::workload::flows::FlowSet::new(specs, 1200, 4096).unwrap();
}

/// `file`'s error message for `xml`.
fn err(xml: &str) -> String {
    match MqsimWorkload::parse("bad.xml", xml).and_then(|w| w.import(None, 100_000, 4096)) {
        Ok(_) => panic!("accepted: {xml}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_files_name_file_line_and_element() {
    let ok = base("0");
    // Malformed XML.
    let e = err("<MQSim_IO_Scenarios>\n<IO_Scenario>\n<Seed>1</Sed>\n");
    assert!(e.starts_with("bad.xml:3: not well-formed XML"), "{e}");
    // The lines below: 1 root, 2 scenario, 3 flow, 4.. its elements in `base` order.
    let line = |k: &str| 4 + ok.iter().position(|e| e.0 == k).unwrap();
    // Unknown generator type.
    let e = err(&file(&[flow_of(&with(
        ok.clone(),
        "Synthetic_Generator_Type",
        "POISSON",
    ))]));
    assert_eq!(
        e,
        format!(
            "bad.xml:{}: <Synthetic_Generator_Type>: `POISSON` is not one of QUEUE_DEPTH, BANDWIDTH",
            line("Synthetic_Generator_Type")
        )
    );
    // A bad number; one out of range.
    let e = err(&file(&[flow_of(&with(
        ok.clone(),
        "Average_Request_Size",
        "8k",
    ))]));
    assert!(
        e.starts_with(&format!(
            "bad.xml:{}: <Average_Request_Size>: `8k` is not a whole number",
            line("Average_Request_Size")
        )),
        "{e}"
    );
    let e = err(&file(&[flow_of(&with(
        ok.clone(),
        "Read_Percentage",
        "101",
    ))]));
    assert!(
        e.starts_with(&format!(
            "bad.xml:{}: <Read_Percentage>: 101 must be in [0, 100]",
            line("Read_Percentage")
        )),
        "{e}"
    );
    // A working set outside (0, 100] was taken as 100 with a note, and a negative seed
    // wrapped to a u64 with no file:line; both are refused where they stand.
    for (el, v, want) in [
        ("Working_Set_Percentage", "0", "0 must be in [1, 100]"),
        ("Working_Set_Percentage", "200", "200 must be in [1, 100]"),
        (
            "Seed",
            "-5",
            "-5 is out of range: must be in [0, 2147483647] (MQSim reads an int)",
        ),
        (
            "Seed",
            "2147483648",
            "2147483648 must be in [0, 2147483647]",
        ),
        (
            "Read_Percentage",
            "-1",
            "-1 is out of range: must be in [0, 100]",
        ),
        (
            "Average_No_of_Reqs_in_Queue",
            "99999999999999999999",
            "99999999999999999999 is out of range: must be in [1, 2147483647]",
        ),
        (
            "Initial_Occupancy_Percentage",
            "101",
            "101 must be in [0, 100]",
        ),
    ] {
        let f = with(ok.clone(), el, v);
        let at = 4 + f.iter().position(|e| e.0 == el).unwrap();
        let e = err(&file(&[flow_of(&f)]));
        assert!(
            e.starts_with(&format!("bad.xml:{at}: <{el}>: {want}")),
            "{el} {v}: {e}"
        );
    }
    let e = err(&file(&[flow_of(&with(ok.clone(), "Channel_IDs", "0,x"))]));
    assert!(
        e.starts_with("bad.xml:4: <Channel_IDs>: `x` is not an id"),
        "{e}"
    );
    // Trace-based flow.
    let e = err(
        "<MQSim_IO_Scenarios>\n<IO_Scenario>\n<IO_Flow_Parameter_Set_Trace_Based>\n\
         <File_Path>t.trace</File_Path>\n</IO_Flow_Parameter_Set_Trace_Based>\n</IO_Scenario>\n</MQSim_IO_Scenarios>",
    );
    assert!(
        e.starts_with(
            "bad.xml:3: <IO_Flow_Parameter_Set_Trace_Based>: scenario 1 has a trace-based flow"
        ),
        "{e}"
    );
    // Unknown flow element, wrong root, missing element, no end.
    let e = err("<MQSim_IO_Scenarios>\n<IO_Scenario>\n<IO_Flow_Parameter_Set_Replay/>\n</IO_Scenario>\n</MQSim_IO_Scenarios>");
    assert!(
        e.starts_with("bad.xml:3: <IO_Flow_Parameter_Set_Replay>: not an MQSim flow"),
        "{e}"
    );
    let e = err("<Execution_Parameter_Set/>");
    assert!(
        e.starts_with("bad.xml:1: <Execution_Parameter_Set>: the root element"),
        "{e}"
    );
    let no_seed: Vec<_> = ok.iter().filter(|e| e.0 != "Seed").cloned().collect();
    let e = err(&file(&[flow_of(&no_seed)]));
    assert_eq!(
        e,
        "bad.xml:3: <IO_Flow_Parameter_Set_Synthetic>: missing <Seed>"
    );
    let e = err(&file(&[flow_of(&with(
        ok.clone(),
        "Total_Requests_To_Generate",
        "0",
    ))]));
    assert!(
        e.contains("bad.xml:3: <IO_Flow_Parameter_Set_Synthetic>: neither <Stop_Time> nor"),
        "{e}"
    );
    let e = err(&file(&[flow_of(&with(
        ok.clone(),
        "Percentage_of_Hot_Region",
        "0",
    ))
    .replace("RANDOM_UNIFORM", "RANDOM_HOTCOLD")]));
    assert!(
        e.contains("<Percentage_of_Hot_Region>: 0 leaves no hot or no cold region"),
        "{e}"
    );
    let e = err(&file(&[flow_of(&with(
        with(ok.clone(), "Address_Distribution", "STREAMING"),
        "Read_Percentage",
        "50",
    ))]));
    assert!(
        e.contains("<Read_Percentage>: 50 with STREAMING addresses"),
        "{e}"
    );
    let e = err(&file(&[flow_of(&with(
        with(ok.clone(), "Synthetic_Generator_Type", "BANDWIDTH"),
        "Bandwidth",
        "1000",
    ))]));
    assert!(
        e.contains("<Bandwidth>: 1000 bytes/s is less than one 8-sector request per second"),
        "{e}"
    );
    let twice = flow_of(&ok).replace("<Seed>5</Seed>", "<Seed>5</Seed>\n<Seed>6</Seed>");
    let e = err(&file(&[twice]));
    assert!(
        e.contains("<Seed>: given twice in one flow (first at line"),
        "{e}"
    );
}

#[test]
fn resource_ids_beyond_the_device_are_refused_as_mqsim_does() {
    // They were accepted without a note; MQSim stops on them
    // (Address_Mapping_Unit_Page_Level.cpp: "Invalid channel ID specified for I/O flow N").
    let mut cfg = flashgc_core::config::Config::default();
    cfg.device.channels = 4;
    cfg.device.chips_per_channel = 2;
    cfg.device.dies_per_chip = 1;
    cfg.device.planes_per_die = 2;
    cfg.device.blocks_per_plane = 64;
    let dir = tempfile::tempdir().unwrap();
    let apply = |elem: &'static str, ids: &str| {
        let path = dir.path().join("w.xml");
        let f0 = base("0");
        let f1 = with(base("0,1"), elem, ids);
        std::fs::write(&path, file(&[flow_of(&f0), flow_of(&f1)])).unwrap();
        let p = path.to_str().unwrap().to_string();
        let mut c = cfg.clone();
        MqsimWorkload::apply(&mut c, &p, None)
            .map(|_| c.flow.len())
            .map_err(|e| {
                // The second flow's elements start at line 4 + 18 (the first flow's 16 and
                // its two tags), in `base` order.
                let line = 22 + base("0").iter().position(|e| e.0 == elem).unwrap();
                (e.to_string(), format!("{p}:{line}: <{elem}>: "))
            })
    };
    for (elem, ids, why) in [
        (
            "Channel_IDs",
            "0,99",
            "channel ID 99 is out of range: the device has 4 channels (IDs 0..=3, device.channels)",
        ),
        (
            "Chip_IDs",
            "2",
            "chip ID 2 is out of range: the device has 2 chips per channel (IDs 0..=1",
        ),
        (
            "Die_IDs",
            "0,1",
            "die ID 1 is out of range: the device has 1 die per chip (IDs 0..=0",
        ),
        (
            "Plane_IDs",
            "5",
            "plane ID 5 is out of range: the device has 2 planes per die (IDs 0..=1",
        ),
    ] {
        let (e, at) = apply(elem, ids).unwrap_err();
        assert!(e.starts_with(&at), "{elem}: {e}");
        assert!(e.contains(why) && e.contains("I/O flow 1"), "{elem}: {e}");
    }
    // The device's last IDs are fine.
    assert_eq!(apply("Plane_IDs", "0,1"), Ok(2));
    assert_eq!(apply("Channel_IDs", "3"), Ok(2));
}
