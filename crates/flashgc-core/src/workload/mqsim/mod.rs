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

use crate::config::{Config, FlowConfig};
use crate::error::{Error, Result};
use std::collections::BTreeMap;

mod import;

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

/// The 1-based line of each byte offset of a text, found by binary search: roxmltree's
/// `text_pos_at` counts the newlines from the start of the file on every call, which made
/// naming the line of every element quadratic in the file's size.
struct LineIndex {
    /// Byte offsets of the text's newlines, ascending.
    newlines: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        LineIndex {
            newlines: text
                .bytes()
                .enumerate()
                .filter(|&(_, c)| c == b'\n')
                .map(|(i, _)| i)
                .collect(),
        }
    }

    /// The line of byte `pos`, as `text_pos_at(pos).row` counts it (1 + newlines before).
    fn row(&self, pos: usize) -> u32 {
        let before = self.newlines.partition_point(|&i| i < pos);
        u32::try_from(before + 1).unwrap_or(u32::MAX)
    }
}

/// Parsing context: the file name and where its lines start (for line numbers).
struct Ctx<'a> {
    file: &'a str,
    lines: LineIndex,
}

impl Ctx<'_> {
    fn line(&self, n: roxmltree::Node) -> u32 {
        self.lines.row(n.range().start)
    }

    fn err(&self, line: u32, element: &str, msg: impl std::fmt::Display) -> Error {
        Error::Input(format!("{}:{line}: <{element}>: {msg}", self.file))
    }

    /// An error about element `n` itself.
    fn at(&self, n: roxmltree::Node, msg: impl std::fmt::Display) -> Error {
        self.err(self.line(n), n.tag_name().name(), msg)
    }

    /// A whole number of MQSim type `ty` in `[lo, hi]`.
    fn number(&self, n: roxmltree::Node, lo: u64, hi: u64, ty: &str) -> Result<At<u64>> {
        let line = self.line(n);
        let t = text(n);
        let v: u64 = t.parse().map_err(|_| {
            // A negative or too long whole number is out of range, not malformed (MQSim's
            // own parse would wrap it).
            let digits = t.strip_prefix('-').unwrap_or(t);
            let msg = if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
                format!("{t} is out of range: must be in [{lo}, {hi}] (MQSim reads an {ty})")
            } else {
                format!("`{t}` is not a whole number in [{lo}, {hi}] (MQSim reads an {ty})")
            };
            self.err(line, n.tag_name().name(), msg)
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
        let text = crate::text_file::read(path)
            .map_err(|e| Error::Input(format!("{path}: cannot read the MQSim workload: {e}")))?;
        MqsimWorkload::parse(path, &text)
    }

    /// Reads the file at `path` and puts scenario `scenario`'s flows and notes into `cfg`,
    /// sized to its layout: what the CLI's `--mqsim-workload FILE --scenario N` and the
    /// Python package's `mqsim_workload=` / `scenario=` do. Callers refuse a `cfg` that
    /// already has `[[flow]]` sections first, naming their own option.
    pub fn apply(cfg: &mut Config, path: &str, scenario: Option<usize>) -> Result<()> {
        let l = cfg.layout()?;
        let w = MqsimWorkload::load(path)?;
        let imported = w.import(scenario, l.logical_pages, l.lpn_size)?;
        w.check_device(imported.scenario, &cfg.device)?;
        cfg.flow = imported.flows;
        cfg.notes.extend(imported.notes);
        Ok(())
    }

    /// Parses a workload file's text (`file` names it in errors).
    pub fn parse(file: &str, xml: &str) -> Result<MqsimWorkload> {
        let doc = roxmltree::Document::parse(xml).map_err(|e| {
            Error::Input(format!("{file}:{}: not well-formed XML: {e}", e.pos().row))
        })?;
        let cx = Ctx {
            file,
            lines: LineIndex::new(doc.input_text()),
        };
        let root = doc.root_element();
        if root.tag_name().name() != "MQSim_IO_Scenarios" {
            return Err(cx.at(
                root,
                "the root element of an MQSim workload file is <MQSim_IO_Scenarios>",
            ));
        }
        let mut scenarios = Vec::new();
        for s in root.children().filter(|n| n.is_element()) {
            if s.tag_name().name() != "IO_Scenario" {
                return Err(cx.at(s, "<MQSim_IO_Scenarios> holds <IO_Scenario> elements only"));
            }
            let mut flows = Vec::new();
            for f in s.children().filter(|n| n.is_element()) {
                flows.push(match f.tag_name().name() {
                    "IO_Flow_Parameter_Set_Synthetic" => {
                        FlowDef::Synthetic(Box::new(cx.synthetic(f)?))
                    }
                    "IO_Flow_Parameter_Set_Trace_Based" => FlowDef::TraceBased(cx.line(f)),
                    _ => {
                        return Err(cx.at(
                            f,
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
        // MQSim's int seed: a negative one would reach flashgc's u64 seed wrapped.
        let seed = self.number(need("Seed")?, 0, INT_MAX, "int")?;
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
            // MQSim silently takes 100 outside (0, 100] (Host_System.cpp:48-50); a
            // percentage of 0 or 200 is a mistake in the file, so it is refused.
            working_set_percentage: u32_of(Some(self.number(
                need("Working_Set_Percentage")?,
                1,
                100,
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
                value: seed.value as i32,
                line: seed.line,
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

#[cfg(test)]
mod tests {
    use super::LineIndex;

    /// The line index names the same line as roxmltree's `text_pos_at` at every byte,
    /// including newlines themselves, CRLF line ends, an empty first line and the end.
    #[test]
    fn line_index_matches_text_pos_at() {
        let xml = "\n<MQSim_IO_Scenarios>\r\n  <IO_Scenario>\n\n<a/><b>\u{e9}\n</b>\n  </IO_Scenario>\n</MQSim_IO_Scenarios>";
        let doc = roxmltree::Document::parse(xml).unwrap();
        let idx = LineIndex::new(doc.input_text());
        let boundaries = (0..=xml.len()).filter(|&p| xml.is_char_boundary(p));
        for pos in boundaries.chain([xml.len() + 2]) {
            assert_eq!(idx.row(pos), doc.text_pos_at(pos).row, "byte {pos}");
        }
        for n in doc.descendants() {
            let p = n.range().start;
            assert_eq!(idx.row(p), doc.text_pos_at(p).row, "node at byte {p}");
        }
    }
}
