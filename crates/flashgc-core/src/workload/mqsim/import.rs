//! One scenario of a parsed MQSim workload file as `[[flow]]` sections on a device of a
//! given logical size, with notes for what flashgc approximates or ignores
//! ([`MqsimWorkload::import`]; the mapping table is in docs/flows.md).

use super::{
    AddressDist, FlowDef, Generator, Imported, MqsimWorkload, SizeDist, SyntheticFlow, SECTOR_BYTES,
};
use crate::config::{ByteSize, DeviceConfig, FlowConfig};
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// A flow's resource lists, in [`SyntheticFlow::resources`] order.
const NAMES: [&str; 4] = ["Channel_IDs", "Chip_IDs", "Die_IDs", "Plane_IDs"];

/// Notes of one scenario, merged: one line per distinct remark, naming its flows.
#[derive(Default)]
struct Notes(Vec<(String, Vec<String>)>);

impl Notes {
    fn add(&mut self, flow: &str, msg: String) {
        match self.0.iter_mut().find(|(m, _)| *m == msg) {
            Some((_, who)) => who.push(flow.to_string()),
            None => self.0.push((msg, vec![flow.to_string()])),
        }
    }
}

/// The least common multiple, None past u64.
fn lcm(a: u64, b: u64) -> Option<u64> {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x).checked_mul(b)
}

impl MqsimWorkload {
    /// Scenario `scenario` (from 1; None: the only one) as flows on a device of
    /// `logical_pages` LPNs of `lpn_size` bytes.
    pub fn import(
        &self,
        scenario: Option<usize>,
        logical_pages: u64,
        lpn_size: u32,
    ) -> Result<Imported> {
        let n = self.scenarios.len();
        let k = match scenario {
            None if n == 1 => 1,
            None => {
                return Err(Error::Input(format!(
                    "{}: holds {n} <IO_Scenario> elements (lines {}): choose one with --scenario N (Python: scenario=N), N in 1..{n}",
                    self.file,
                    self.scenarios
                        .iter()
                        .map(|s| s.line.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
            Some(k) if (1..=n).contains(&k) => k,
            Some(k) => {
                return Err(Error::Input(format!(
                    "{}: scenario {k} does not exist: the file holds {n} <IO_Scenario> elements (1..{n})",
                    self.file
                )))
            }
        };
        let sc = &self.scenarios[k - 1];
        let mut flows = Vec::new();
        for d in &sc.flows {
            match d {
                FlowDef::Synthetic(f) => flows.push(f.as_ref()),
                FlowDef::TraceBased(line) => {
                    return Err(Error::Input(format!(
                        "{}:{line}: <IO_Flow_Parameter_Set_Trace_Based>: scenario {k} has a \
                         trace-based flow, which flashgc does not import as a host flow: \
                         replay the trace as the run's workload (--workload trace:PATH)",
                        self.file
                    )))
                }
            }
        }
        let weights = self.shares(&flows)?;
        let total: u128 = weights.iter().sum();
        let mut notes = Notes::default();
        let mut out = Vec::new();
        let mut cum: u128 = 0;
        for (i, f) in flows.iter().enumerate() {
            let name = format!("flow{i}");
            let start = (logical_pages as u128 * cum / total) as u64;
            cum += weights[i];
            let end = (logical_pages as u128 * cum / total) as u64;
            out.push(self.flow(f, &name, start, end - start, lpn_size, &mut notes)?);
        }
        // Scenario-wide remarks.
        let classes: Vec<&str> = flows
            .iter()
            .map(|f| {
                f.priority_class
                    .as_ref()
                    .map_or("HIGH", |c| c.value.as_str())
            })
            .collect();
        if classes.iter().any(|c| *c != classes[0]) {
            notes.0.push((
                format!(
                    "Priority_Class ignored: the flows' classes differ ({}), and MQSim's NVMe \
                     streams carry their class to its schedulers (Host_System.cpp:119-122, \
                     Host_Interface_NVMe.cpp:21-33); flashgc serves every flow alike (the earliest \
                     arrival first; --scheduler orders reads and writes, not flows)",
                    classes.join(", ")
                ),
                Vec::new(),
            ));
        }
        let planes = |f: &SyntheticFlow| -> Vec<Option<Vec<u32>>> {
            f.resources
                .iter()
                .map(|r| r.as_ref().map(|r| r.value.clone()))
                .collect()
        };
        if flows.iter().any(|f| planes(f) != planes(flows[0])) {
            notes.0.push((
                "Channel_IDs/Chip_IDs/Die_IDs/Plane_IDs: the flows are given different flash \
                 resources; their logical ranges follow MQSim's partitioning \
                 (Logical_Address_Partitioning_Unit.cpp:134-157), but flashgc's flows share all \
                 channels, dies and planes: their data and GC mix on the device (no physical \
                 isolation)"
                    .into(),
                Vec::new(),
            ));
        }
        let prefix = format!("MQSim {} scenario {k}", self.file);
        Ok(Imported {
            scenario: k,
            flows: out,
            notes: notes
                .0
                .into_iter()
                .map(|(m, who)| match who.len() {
                    0 => format!("{prefix}: {m}"),
                    _ => format!("{prefix}, {}: {m}", who.join(", ")),
                })
                .collect(),
        })
    }

    /// Refuses a flow of scenario `k` (from 1, as [`Imported::scenario`]) that names a
    /// channel, chip, die or plane `device` does not have. MQSim stops on one ("Invalid
    /// channel ID specified for I/O flow N", Address_Mapping_Unit_Page_Level.cpp:346-377):
    /// the file was written for another device, and its partitioning means nothing here.
    pub fn check_device(&self, k: usize, device: &DeviceConfig) -> Result<()> {
        let Some(sc) = k.checked_sub(1).and_then(|i| self.scenarios.get(i)) else {
            return Ok(());
        };
        let have = [
            (device.channels, "channel", "device.channels"),
            (device.chips_per_channel, "chip", "device.chips_per_channel"),
            (device.dies_per_chip, "die", "device.dies_per_chip"),
            (device.planes_per_die, "plane", "device.planes_per_die"),
        ];
        for (i, d) in sc.flows.iter().enumerate() {
            let FlowDef::Synthetic(f) = d else { continue };
            for (j, r) in f.resources.iter().enumerate() {
                let (n, what, key) = have[j];
                let Some((r, id)) = r
                    .as_ref()
                    .and_then(|r| r.value.iter().find(|&&id| id >= n).map(|&id| (r, id)))
                else {
                    continue;
                };
                let plural = if n == 1 { "" } else { "s" };
                return Err(Error::Input(format!(
                    "{}:{}: <{}>: {what} ID {id} is out of range: the device has {n} {what}{plural}{} \
                     (IDs 0..={}, {key}); MQSim refuses it too (\"Invalid {what} ID specified \
                     for I/O flow {i}\")",
                    self.file,
                    r.line,
                    NAMES[j],
                    ["", " per channel", " per chip", " per die"][j],
                    n - 1
                )));
            }
        }
        Ok(())
    }

    /// Each flow's share of the logical space, as integers over a common denominator:
    /// MQSim gives a flow, for each plane it may use (the product of its channel, chip,
    /// die and plane ids), the plane's capacity divided by the number of flows using it,
    /// and lays the flows' ranges out one after another
    /// (Logical_Address_Partitioning_Unit.cpp:79-157).
    fn shares(&self, flows: &[&SyntheticFlow]) -> Result<Vec<u128>> {
        let given = |f: &SyntheticFlow| f.resources.iter().filter(|r| r.is_some()).count();
        if flows.iter().all(|f| given(f) == 0) {
            // Not given at all (MQSim would read uninitialised lists): every flow on every
            // resource, i.e. equal ranges.
            return Ok(vec![1; flows.len()]);
        }
        let mut sets = Vec::new();
        for f in flows {
            if let Some(j) = f.resources.iter().position(|r| r.is_none()) {
                return Err(Error::Input(format!(
                    "{}:{}: <IO_Flow_Parameter_Set_Synthetic>: missing <{}>: MQSim partitions \
                     the logical space by the flows' resources and needs all four lists of \
                     every flow once one flow gives them",
                    self.file, f.line, NAMES[j]
                )));
            }
            let r: Vec<&Vec<u32>> = f
                .resources
                .iter()
                .map(|r| &r.as_ref().expect("given").value)
                .collect();
            let count: u64 = r.iter().map(|v| v.len() as u64).product();
            if count > 1 << 20 {
                return Err(Error::Input(format!(
                    "{}:{}: <IO_Flow_Parameter_Set_Synthetic>: {count} planes (channels x chips \
                     x dies x planes): at most 1048576",
                    self.file, f.line
                )));
            }
            let mut planes = Vec::with_capacity(count as usize);
            for &c in r[0] {
                for &h in r[1] {
                    for &d in r[2] {
                        for &p in r[3] {
                            planes.push((c, h, d, p));
                        }
                    }
                }
            }
            sets.push(planes);
        }
        let mut sharers: BTreeMap<(u32, u32, u32, u32), u64> = BTreeMap::new();
        for s in &sets {
            for p in s {
                *sharers.entry(*p).or_default() += 1;
            }
        }
        let mut den = 1u64;
        for &k in sharers.values() {
            den = lcm(den, k).ok_or_else(|| {
                Error::Input(format!(
                    "{}: the flows share their planes in too many different ways to divide \
                     the logical space exactly",
                    self.file
                ))
            })?;
        }
        Ok(sets
            .iter()
            .map(|s| s.iter().map(|p| (den / sharers[p]) as u128).sum())
            .collect())
    }

    /// One synthetic flow on logical pages `[start, start + pages)` (its MQSim range).
    fn flow(
        &self,
        f: &SyntheticFlow,
        name: &str,
        start: u64,
        pages: u64,
        lpn_size: u32,
        notes: &mut Notes,
    ) -> Result<FlowConfig> {
        let err = |line: u32, el: &str, msg: String| {
            Error::Input(format!("{}:{line}: <{el}>: {msg}", self.file))
        };
        let lpn = lpn_size as u64;
        let mut note = |m: String| notes.add(name, m);
        for ig in &f.ignored {
            note(format!(
                "<{}> ignored: MQSim does not read it (IO_Flow_Parameter_Set.cpp:323-402)",
                ig.value
            ));
        }
        // Request size (IO_Flow_Synthetic.cpp:93-108).
        let sectors = f.average_request_size.value as u64;
        let mut bs = sectors * SECTOR_BYTES;
        if bs % lpn != 0 {
            let up = bs.div_ceil(lpn) * lpn;
            note(format!(
                "Average_Request_Size {sectors} sectors = {bs} bytes is not a multiple of the \
                 LPN size {lpn}: requests of {up} bytes"
            ));
            bs = up;
        }
        if bs / lpn > 1 << 16 {
            return Err(err(
                f.average_request_size.line,
                "Average_Request_Size",
                format!("{sectors} sectors is more than 65536 LPNs of {lpn} bytes"),
            ));
        }
        if f.size_distribution.value == SizeDist::Normal
            && f.variance_request_size
                .as_ref()
                .is_some_and(|v| v.value > 0)
        {
            note(format!(
                "Request_Size_Distribution NORMAL (mean {sectors}, deviation {} sectors; \
                 IO_Flow_Synthetic.cpp:97-105): flashgc's flows have one request size, the \
                 mean",
                f.variance_request_size.as_ref().map_or(0, |v| v.value)
            ));
        }
        // Working set (Host_System.cpp:48-50; IO_Flow_Synthetic.cpp:16).
        // Parsing refused a percentage outside [1, 100].
        let wsp = f.working_set_percentage.value;
        let ws_pages = pages * wsp as u64 / 100;
        if ws_pages < bs / lpn || ws_pages == 0 {
            return Err(err(
                f.working_set_percentage.line,
                "Working_Set_Percentage",
                format!(
                    "{wsp} % of the flow's {pages} logical pages ({ws_pages}) is smaller than \
                     one request ({} pages): use a larger device or working set",
                    bs / lpn
                ),
            ));
        }
        // Reads and writes (IO_Flow_Synthetic.cpp:23-27, 85-91).
        let read = f.read_percentage.value;
        let streaming = f.address_distribution.value == AddressDist::Streaming;
        let (rw, rwmixwrite) = match (read, streaming) {
            (0, false) => ("randwrite", None),
            (100, false) => ("randread", None),
            (_, false) => ("randrw", Some((100 - read) as f64)),
            (0, true) => ("write", None),
            (100, true) => ("read", None),
            (_, true) => {
                return Err(err(
                    f.read_percentage.line,
                    "Read_Percentage",
                    format!(
                        "{read} with STREAMING addresses: flashgc's sequential flows only read \
                         or only write; split the flow into a reading and a writing one"
                    ),
                ))
            }
        };
        // Addresses (IO_Flow_Synthetic.cpp:110-161, 201-206).
        let align = f
            .aligned
            .as_ref()
            .is_none_or(|a| a.value)
            .then(|| f.alignment_unit.as_ref().map_or(1, |u| u.value as u64));
        let distribution = match f.address_distribution.value {
            AddressDist::Streaming => {
                note(
                    "STREAMING starts at a random address of the working set \
                     (IO_Flow_Synthetic.cpp:201-206); flashgc's sequential flow starts at its \
                     first byte, then sweeps the same range, wrapping"
                        .into(),
                );
                None
            }
            AddressDist::RandomUniform => Some("uniform".to_string()),
            AddressDist::RandomHotCold => {
                let h = f.hot_region_percentage.as_ref().expect("checked");
                if !(1..=99).contains(&h.value) {
                    return Err(err(
                        h.line,
                        "Percentage_of_Hot_Region",
                        format!(
                            "{} leaves no hot or no cold region (MQSim then draws from an \
                             empty range): use 1 to 99",
                            h.value
                        ),
                    ));
                }
                Some(format!("hotcold:{}/{}", 100 - h.value, h.value))
            }
        };
        match align {
            Some(a) if a == sectors => {}
            Some(a) => note(format!(
                "Generated_Aligned_Addresses: MQSim starts requests on {a}-sector boundaries \
                 ({} bytes) with {sectors}-sector requests{}; flashgc's start on request-size \
                 ({bs}-byte) boundaries of the region",
                a * SECTOR_BYTES,
                if a > sectors {
                    format!(
                        ", so it touches only {sectors} of every {a} sectors of the working set"
                    )
                } else {
                    String::new()
                }
            )),
            None => note(format!(
                "Generated_Aligned_Addresses false: MQSim starts requests on any sector; \
                 flashgc's start on request-size ({bs}-byte) boundaries of the region"
            )),
        }
        // Arrivals (Host_System.cpp:57; IO_Flow_Synthetic.cpp:197-232).
        let (iodepth, rate_iops, start_ns) = match f.generator.value {
            Generator::QueueDepth => {
                let q = f.queue_depth.as_ref().expect("checked");
                if q.value > 1 << 16 {
                    return Err(err(
                        q.line,
                        "Average_No_of_Reqs_in_Queue",
                        format!("{} is more than 65536", q.value),
                    ));
                }
                // MQSim submits the first requests at 1 ns (IO_Flow_Synthetic.cpp:211).
                (Some(q.value), None, 1u64)
            }
            Generator::Bandwidth => {
                let b = f.bandwidth.as_ref().expect("checked");
                // MQSim's integer arithmetic (Host_System.cpp:57).
                let per_s = (b.value as u64 / SECTOR_BYTES) / sectors;
                if per_s == 0 {
                    return Err(err(
                        b.line,
                        "Bandwidth",
                        format!(
                            "{} bytes/s is less than one {sectors}-sector request per second \
                             (MQSim would divide by zero)",
                            b.value
                        ),
                    ));
                }
                let mean_ns = 1_000_000_000 / per_s;
                note(format!(
                    "BANDWIDTH: MQSim draws exponential inter-arrival times of mean {mean_ns} \
                     ns (IO_Flow_Synthetic.cpp:209, 225); flashgc's rate flow spaces them \
                     evenly at that mean, its first arrival at the mean"
                ));
                (None, Some(1e9 / mean_ns as f64), mean_ns)
            }
        };
        // End (IO_Flow_Synthetic.cpp:76-82): Stop_Time wins when above 0.
        let stop = f.stop_time.as_ref().map_or(0, |s| s.value);
        let total = f.total_requests.as_ref().map_or(0, |t| t.value);
        let (requests, runtime_ns) = if stop > 0 {
            if stop < start_ns {
                return Err(err(
                    f.stop_time.as_ref().expect("given").line,
                    "Stop_Time",
                    format!("{stop} ns is before the flow's first arrival ({start_ns} ns)"),
                ));
            }
            if total > 0 {
                note(format!(
                    "Total_Requests_To_Generate {total} ignored: Stop_Time is above 0, and \
                     MQSim then stops by time alone (IO_Flow_Synthetic.cpp:76-82)"
                ));
            }
            // MQSim issues while now <= Stop_Time; flashgc while now < first + runtime.
            (None, Some(stop + 1 - start_ns))
        } else if total > 0 {
            (Some(total as u64), None)
        } else {
            return Err(err(
                f.line,
                "IO_Flow_Parameter_Set_Synthetic",
                "neither <Stop_Time> nor <Total_Requests_To_Generate> is above 0: the flow \
                 would issue no request"
                    .into(),
            ));
        };
        // What flashgc does not model.
        if let Some(m) = f.caching_mode.as_ref().filter(|m| m.value != "TURNED_OFF") {
            note(format!(
                "Device_Level_Data_Caching_Mode {} not modelled per flow \
                 (SSD_Device.cpp:318-322): flashgc's DRAM write cache is the timing model's \
                 own, one for all flows (--cache-mib; none by default)",
                m.value
            ));
        }
        if let Some(o) = f.initial_occupancy.as_ref().filter(|o| o.value > 0) {
            note(format!(
                "Initial_Occupancy_Percentage {} not applied: MQSim preconditions each flow's \
                 range to it before the run (SSD_Device.cpp:401-412); flashgc's device starts \
                 as configured (run.fill, --fill: a sequential fill of a share of the whole \
                 logical space)",
                o.value
            ));
        }
        Ok(FlowConfig {
            name: Some(name.to_string()),
            rw: Some(rw.to_string()),
            rwmixwrite,
            bs: Some(ByteSize::Bytes(bs)),
            bssplit: None,
            offset: Some(ByteSize::Bytes(start * lpn)),
            size: Some(ByteSize::Bytes(ws_pages * lpn)),
            distribution,
            iodepth,
            rate_iops,
            thinktime_us: None,
            thinktime_blocks: None,
            thinktime_blocks_type: None,
            start_ms: Some(start_ns as f64 / 1e6),
            requests,
            runtime_ms: runtime_ns.map(|r| r as f64 / 1e6),
            ramp_ms: None,
            numjobs: None,
            // MQSim's int seed (parsing refused a negative one).
            seed: Some(f.seed.value as u64),
        })
    }
}
