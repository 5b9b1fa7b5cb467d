//! MQSim workload files (`workload.xml`: `<MQSim_IO_Scenarios>` of `<IO_Scenario>`s, each
//! a list of `<IO_Flow_Parameter_Set_Synthetic>` flows) as host flows (`[[flow]]`
//! sections, [`FlowConfig`]; docs/flows.md, "MQSim IO scenarios").
//!
//! [`MqsimWorkload::parse`] reads the XML (every scenario, every value checked);
//! [`MqsimWorkload::import`] turns one scenario into flows on a device of a given logical
//! size, with notes for what flashgc approximates or ignores. Each field is read as
//! MQSim reads it (src/exec/IO_Flow_Parameter_Set.cpp, src/exec/Host_System.cpp,
//! src/host/IO_Flow_Synthetic.cpp, src/utils/Logical_Address_Partitioning_Unit.cpp); the
//! mapping table with line references is in docs/flows.md. Trace-based flows are refused
//! (replay the trace as the run's workload instead). Errors name the file, the line and
//! the element.

use crate::config::{ByteSize, FlowConfig};
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// MQSim's sector, the unit of `Average_Request_Size` and of its logical addresses
/// (src/ssd/SSD_Defs.h: `SECTOR_SIZE_IN_BYTE`).
pub const SECTOR_BYTES: u64 = 512;

/// A value and the line of the element it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct At<T> {
    /// The value.
    pub value: T,
    /// 1-based line of its element.
    pub line: u32,
}

/// `Synthetic_Generator_Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generator {
    /// `QUEUE_DEPTH`: `Average_No_of_Reqs_in_Queue` requests outstanding.
    QueueDepth,
    /// `BANDWIDTH`: arrivals at `Bandwidth` bytes/s.
    Bandwidth,
}

/// `Address_Distribution`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressDist {
    /// `STREAMING`: sequential, wrapping.
    Streaming,
    /// `RANDOM_UNIFORM`.
    RandomUniform,
    /// `RANDOM_HOTCOLD` with `Percentage_of_Hot_Region`.
    RandomHotCold,
}

/// `Request_Size_Distribution`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeDist {
    /// `FIXED`.
    Fixed,
    /// `NORMAL` with `Variance_Request_Size` (used as the standard deviation).
    Normal,
}

/// An `IO_Flow_Parameter_Set_Synthetic`, in MQSim's units.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticFlow {
    /// Line of the flow's element.
    pub line: u32,
    /// `Priority_Class` (upper case).
    pub priority_class: Option<At<String>>,
    /// `Device_Level_Data_Caching_Mode` (upper case).
    pub caching_mode: Option<At<String>>,
    /// `Channel_IDs`, `Chip_IDs`, `Die_IDs`, `Plane_IDs` (sorted, without repeats, as
    /// MQSim's `std::set`); None where not given.
    pub resources: [Option<At<Vec<u32>>>; 4],
    /// `Initial_Occupancy_Percentage`.
    pub initial_occupancy: Option<At<u32>>,
    /// `Working_Set_Percentage`.
    pub working_set_percentage: At<u32>,
    /// `Synthetic_Generator_Type`.
    pub generator: At<Generator>,
    /// `Read_Percentage`.
    pub read_percentage: At<u32>,
    /// `Address_Distribution`.
    pub address_distribution: At<AddressDist>,
    /// `Percentage_of_Hot_Region`.
    pub hot_region_percentage: Option<At<u32>>,
    /// `Generated_Aligned_Addresses`.
    pub aligned: Option<At<bool>>,
    /// `Address_Alignment_Unit`, sectors.
    pub alignment_unit: Option<At<u32>>,
    /// `Request_Size_Distribution`.
    pub size_distribution: At<SizeDist>,
    /// `Average_Request_Size`, sectors.
    pub average_request_size: At<u32>,
    /// `Variance_Request_Size`, sectors.
    pub variance_request_size: Option<At<u32>>,
    /// `Seed`.
    pub seed: At<i32>,
    /// `Average_No_of_Reqs_in_Queue`.
    pub queue_depth: Option<At<u32>>,
    /// `Bandwidth`, bytes per second.
    pub bandwidth: Option<At<u32>>,
    /// `Stop_Time`, ns (0: `Total_Requests_To_Generate` ends the flow).
    pub stop_time: Option<At<u64>>,
    /// `Total_Requests_To_Generate`.
    pub total_requests: Option<At<u32>>,
    /// Elements MQSim does not read (e.g. `Intensity` in its own example), by name.
    pub ignored: Vec<At<String>>,
}

/// One flow of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum FlowDef {
    /// A synthetic flow.
    Synthetic(Box<SyntheticFlow>),
    /// An `IO_Flow_Parameter_Set_Trace_Based` (at this line): not importable.
    TraceBased(u32),
}

/// One `<IO_Scenario>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Line of the element.
    pub line: u32,
    /// Its flows, in order (MQSim's flow ids 0, 1, ...).
    pub flows: Vec<FlowDef>,
}

/// A parsed MQSim workload file.
#[derive(Debug, Clone, PartialEq)]
pub struct MqsimWorkload {
    /// The file as messages name it.
    pub file: String,
    /// The scenarios, in order (MQSim runs them one after another, numbering them from 1).
    pub scenarios: Vec<Scenario>,
}

/// One scenario as host flows.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The scenario, numbered from 1.
    pub scenario: usize,
    /// One `[[flow]]` section per MQSim flow, named `flow0`, `flow1`, ... (MQSim's ids).
    pub flows: Vec<FlowConfig>,
    /// What is approximated or ignored, one line each (for the run's notes).
    pub notes: Vec<String>,
}

/// The text of an element, trimmed.
fn text<'a>(n: roxmltree::Node<'a, 'a>) -> &'a str {
    n.text().unwrap_or("").trim()
}

/// Parsing context: the file name and the document (for line numbers).
struct Ctx<'a> {
    file: &'a str,
    doc: &'a roxmltree::Document<'a>,
}

impl Ctx<'_> {
    fn line(&self, n: roxmltree::Node) -> u32 {
        self.doc.text_pos_at(n.range().start).row
    }

    fn err(&self, line: u32, element: &str, msg: impl std::fmt::Display) -> Error {
        Error::Input(format!("{}:{line}: <{element}>: {msg}", self.file))
    }

    /// A whole number of MQSim type `ty` in `[lo, hi]`.
    fn number(&self, n: roxmltree::Node, lo: u64, hi: u64, ty: &str) -> Result<At<u64>> {
        let line = self.line(n);
        let t = text(n);
        let v: u64 = t.parse().map_err(|_| {
            self.err(
                line,
                n.tag_name().name(),
                format!("`{t}` is not a whole number >= 0 (MQSim reads an {ty})"),
            )
        })?;
        if !(lo..=hi).contains(&v) {
            return Err(self.err(
                line,
                n.tag_name().name(),
                format!("{v} must be in [{lo}, {hi}]"),
            ));
        }
        Ok(At { value: v, line })
    }

    /// One of `allowed` (case-insensitive, as MQSim upper-cases values).
    fn choice<T: Copy>(&self, n: roxmltree::Node, allowed: &[(&str, T)]) -> Result<At<T>> {
        let line = self.line(n);
        let t = text(n).to_ascii_uppercase();
        match allowed.iter().find(|(name, _)| *name == t) {
            Some((_, v)) => Ok(At { value: *v, line }),
            None => Err(self.err(
                line,
                n.tag_name().name(),
                format!(
                    "`{}` is not one of {}",
                    text(n),
                    allowed.iter().map(|a| a.0).collect::<Vec<_>>().join(", ")
                ),
            )),
        }
    }

    /// A comma-separated list of ids (`0,1,2`), without repeats.
    fn ids(&self, n: roxmltree::Node) -> Result<At<Vec<u32>>> {
        let line = self.line(n);
        let mut v = Vec::new();
        for part in text(n).split(',') {
            let p = part.trim();
            let id: u32 = p.parse().map_err(|_| {
                self.err(
                    line,
                    n.tag_name().name(),
                    format!(
                        "`{p}` is not an id (a whole number >= 0; the list is comma-separated)"
                    ),
                )
            })?;
            v.push(id);
        }
        v.sort_unstable();
        v.dedup();
        Ok(At { value: v, line })
    }
}

const INT_MAX: u64 = i32::MAX as u64;

impl MqsimWorkload {
    /// Reads the file at `path` (messages name it as given).
    pub fn load(path: &str) -> Result<MqsimWorkload> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Input(format!("{path}: cannot read the MQSim workload: {e}")))?;
        MqsimWorkload::parse(path, &text)
    }

    /// Parses a workload file's text (`file` names it in errors).
    pub fn parse(file: &str, xml: &str) -> Result<MqsimWorkload> {
        let doc = roxmltree::Document::parse(xml).map_err(|e| {
            Error::Input(format!("{file}:{}: not well-formed XML: {e}", e.pos().row))
        })?;
        let cx = Ctx { file, doc: &doc };
        let root = doc.root_element();
        if root.tag_name().name() != "MQSim_IO_Scenarios" {
            return Err(cx.err(
                cx.line(root),
                root.tag_name().name(),
                "the root element of an MQSim workload file is <MQSim_IO_Scenarios>",
            ));
        }
        let mut scenarios = Vec::new();
        for s in root.children().filter(|n| n.is_element()) {
            if s.tag_name().name() != "IO_Scenario" {
                return Err(cx.err(
                    cx.line(s),
                    s.tag_name().name(),
                    "<MQSim_IO_Scenarios> holds <IO_Scenario> elements only",
                ));
            }
            let mut flows = Vec::new();
            for f in s.children().filter(|n| n.is_element()) {
                flows.push(match f.tag_name().name() {
                    "IO_Flow_Parameter_Set_Synthetic" => {
                        FlowDef::Synthetic(Box::new(cx.synthetic(f)?))
                    }
                    "IO_Flow_Parameter_Set_Trace_Based" => FlowDef::TraceBased(cx.line(f)),
                    other => {
                        return Err(cx.err(
                            cx.line(f),
                            other,
                            "not an MQSim flow: an <IO_Scenario> holds \
                             <IO_Flow_Parameter_Set_Synthetic> and \
                             <IO_Flow_Parameter_Set_Trace_Based> elements",
                        ))
                    }
                });
            }
            if flows.is_empty() {
                return Err(cx.err(cx.line(s), "IO_Scenario", "has no flow"));
            }
            scenarios.push(Scenario {
                line: cx.line(s),
                flows,
            });
        }
        if scenarios.is_empty() {
            return Err(cx.err(cx.line(root), "MQSim_IO_Scenarios", "has no <IO_Scenario>"));
        }
        Ok(MqsimWorkload {
            file: file.to_string(),
            scenarios,
        })
    }
}

impl Ctx<'_> {
    /// One `IO_Flow_Parameter_Set_Synthetic` (IO_Flow_Parameter_Set.cpp:93-219, 323-402).
    fn synthetic(&self, f: roxmltree::Node) -> Result<SyntheticFlow> {
        let fline = self.line(f);
        let mut seen: BTreeMap<&str, u32> = BTreeMap::new();
        let mut by: BTreeMap<&str, roxmltree::Node> = BTreeMap::new();
        let mut ignored = Vec::new();
        for p in f.children().filter(|n| n.is_element()) {
            let name = p.tag_name().name();
            if let Some(first) = seen.insert(name, self.line(p)) {
                return Err(self.err(
                    self.line(p),
                    name,
                    format!("given twice in one flow (first at line {first})"),
                ));
            }
            if KNOWN.contains(&name) {
                by.insert(name, p);
            } else {
                ignored.push(At {
                    value: name.to_string(),
                    line: self.line(p),
                });
            }
        }
        let need = |name: &str| {
            by.get(name).copied().ok_or_else(|| {
                self.err(
                    fline,
                    "IO_Flow_Parameter_Set_Synthetic",
                    format!("missing <{name}>"),
                )
            })
        };
        let num = |name: &str, lo: u64, hi: u64, ty: &str| -> Result<Option<At<u64>>> {
            by.get(name)
                .map(|n| self.number(*n, lo, hi, ty))
                .transpose()
        };
        let u32_of = |a: Option<At<u64>>| {
            a.map(|a| At {
                value: a.value as u32,
                line: a.line,
            })
        };
        let generator = self.choice(
            need("Synthetic_Generator_Type")?,
            &[
                ("QUEUE_DEPTH", Generator::QueueDepth),
                ("BANDWIDTH", Generator::Bandwidth),
            ],
        )?;
        let address_distribution = self.choice(
            need("Address_Distribution")?,
            &[
                ("STREAMING", AddressDist::Streaming),
                ("RANDOM_UNIFORM", AddressDist::RandomUniform),
                ("RANDOM_HOTCOLD", AddressDist::RandomHotCold),
            ],
        )?;
        let size_distribution = self.choice(
            need("Request_Size_Distribution")?,
            &[("FIXED", SizeDist::Fixed), ("NORMAL", SizeDist::Normal)],
        )?;
        let word = |name: &str, allowed: &[&'static str]| -> Result<Option<At<String>>> {
            by.get(name)
                .map(|n| {
                    let pairs: Vec<(&str, &str)> = allowed.iter().map(|a| (*a, *a)).collect();
                    self.choice(*n, &pairs).map(|a| At {
                        value: a.value.to_string(),
                        line: a.line,
                    })
                })
                .transpose()
        };
        let aligned = by
            .get("Generated_Aligned_Addresses")
            .map(|n| self.choice(*n, &[("TRUE", true), ("FALSE", false)]))
            .transpose()?;
        let seed_node = need("Seed")?;
        let seed_line = self.line(seed_node);
        let seed: i32 = text(seed_node).parse().map_err(|_| {
            self.err(
                seed_line,
                "Seed",
                format!(
                    "`{}` is not a whole number (MQSim reads an int)",
                    text(seed_node)
                ),
            )
        })?;
        let flow = SyntheticFlow {
            line: fline,
            priority_class: word("Priority_Class", &["URGENT", "HIGH", "MEDIUM", "LOW"])?,
            caching_mode: word(
                "Device_Level_Data_Caching_Mode",
                &[
                    "TURNED_OFF",
                    "WRITE_CACHE",
                    "READ_CACHE",
                    "WRITE_READ_CACHE",
                ],
            )?,
            resources: [
                by.get("Channel_IDs").map(|n| self.ids(*n)).transpose()?,
                by.get("Chip_IDs").map(|n| self.ids(*n)).transpose()?,
                by.get("Die_IDs").map(|n| self.ids(*n)).transpose()?,
                by.get("Plane_IDs").map(|n| self.ids(*n)).transpose()?,
            ],
            initial_occupancy: u32_of(num("Initial_Occupancy_Percentage", 0, 100, "unsigned int")?),
            working_set_percentage: u32_of(Some(self.number(
                need("Working_Set_Percentage")?,
                0,
                INT_MAX,
                "int",
            )?))
            .expect("given"),
            generator,
            read_percentage: u32_of(Some(self.number(
                need("Read_Percentage")?,
                0,
                100,
                "int",
            )?))
            .expect("given"),
            address_distribution,
            hot_region_percentage: u32_of(num("Percentage_of_Hot_Region", 0, 100, "int")?),
            aligned,
            alignment_unit: u32_of(num("Address_Alignment_Unit", 1, INT_MAX, "int")?),
            size_distribution,
            average_request_size: u32_of(Some(self.number(
                need("Average_Request_Size")?,
                1,
                INT_MAX,
                "int",
            )?))
            .expect("given"),
            variance_request_size: u32_of(num("Variance_Request_Size", 0, INT_MAX, "int")?),
            seed: At {
                value: seed,
                line: seed_line,
            },
            queue_depth: u32_of(num("Average_No_of_Reqs_in_Queue", 1, INT_MAX, "int")?),
            bandwidth: u32_of(num("Bandwidth", 1, INT_MAX, "int")?),
            stop_time: num("Stop_Time", 0, i64::MAX as u64, "long long")?,
            total_requests: u32_of(num("Total_Requests_To_Generate", 0, INT_MAX, "int")?),
            ignored,
        };
        // What the flow's generator needs (MQSim reads whatever was left in memory).
        let f = &flow;
        let missing = |name: &str| {
            self.err(
                fline,
                "IO_Flow_Parameter_Set_Synthetic",
                format!("missing <{name}>, which {} needs", why(name)),
            )
        };
        if f.generator.value == Generator::QueueDepth && f.queue_depth.is_none() {
            return Err(missing("Average_No_of_Reqs_in_Queue"));
        }
        if f.generator.value == Generator::Bandwidth && f.bandwidth.is_none() {
            return Err(missing("Bandwidth"));
        }
        if f.address_distribution.value == AddressDist::RandomHotCold
            && f.hot_region_percentage.is_none()
        {
            return Err(missing("Percentage_of_Hot_Region"));
        }
        if f.size_distribution.value == SizeDist::Normal && f.variance_request_size.is_none() {
            return Err(missing("Variance_Request_Size"));
        }
        if f.aligned.as_ref().is_some_and(|a| a.value) && f.alignment_unit.is_none() {
            return Err(missing("Address_Alignment_Unit"));
        }
        Ok(flow)
    }
}

/// Why a conditionally required element is needed (for "missing" errors).
fn why(name: &str) -> &'static str {
    match name {
        "Average_No_of_Reqs_in_Queue" => "a QUEUE_DEPTH generator",
        "Bandwidth" => "a BANDWIDTH generator",
        "Percentage_of_Hot_Region" => "RANDOM_HOTCOLD",
        "Variance_Request_Size" => "a NORMAL request size",
        _ => "Generated_Aligned_Addresses true",
    }
}

/// The elements MQSim reads from a synthetic flow (IO_Flow_Parameter_Set.cpp:97-213 and
/// 328-396).
const KNOWN: &[&str] = &[
    "Priority_Class",
    "Device_Level_Data_Caching_Mode",
    "Channel_IDs",
    "Chip_IDs",
    "Die_IDs",
    "Plane_IDs",
    "Initial_Occupancy_Percentage",
    "Working_Set_Percentage",
    "Synthetic_Generator_Type",
    "Read_Percentage",
    "Address_Distribution",
    "Percentage_of_Hot_Region",
    "Generated_Aligned_Addresses",
    "Address_Alignment_Unit",
    "Request_Size_Distribution",
    "Average_Request_Size",
    "Variance_Request_Size",
    "Seed",
    "Average_No_of_Reqs_in_Queue",
    "Bandwidth",
    "Stop_Time",
    "Total_Requests_To_Generate",
];

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
                    "{}: holds {n} <IO_Scenario> elements (lines {}): choose one with --scenario 1..{n}",
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
                     host interface arbitrates its queues by class (SSD_Device.cpp:163, \
                     Host_System.cpp:119-122); flashgc serves every flow alike (the earliest \
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

    /// Each flow's share of the logical space, as integers over a common denominator:
    /// MQSim gives a flow, for each plane it may use (the product of its channel, chip,
    /// die and plane ids), the plane's capacity divided by the number of flows using it,
    /// and lays the flows' ranges out one after another
    /// (Logical_Address_Partitioning_Unit.cpp:79-157).
    fn shares(&self, flows: &[&SyntheticFlow]) -> Result<Vec<u128>> {
        const NAMES: [&str; 4] = ["Channel_IDs", "Chip_IDs", "Die_IDs", "Plane_IDs"];
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
        let mut wsp = f.working_set_percentage.value;
        if !(1..=100).contains(&wsp) {
            note(format!(
                "Working_Set_Percentage {wsp} is outside [1, 100]: 100, as MQSim takes it \
                 (Host_System.cpp:48-50)"
            ));
            wsp = 100;
        }
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
            offset: Some(ByteSize::Bytes(start * lpn)),
            size: Some(ByteSize::Bytes(ws_pages * lpn)),
            distribution,
            iodepth,
            rate_iops,
            start_ms: Some(start_ns as f64 / 1e6),
            requests,
            runtime_ms: runtime_ns.map(|r| r as f64 / 1e6),
            ramp_ms: None,
            numjobs: None,
            // MQSim's int seed, as the same bits of a u64 (a negative seed wraps).
            seed: Some(f.seed.value as i64 as u64),
        })
    }
}
