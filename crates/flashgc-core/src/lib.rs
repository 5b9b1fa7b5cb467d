//! flashgc simulator core.
//!
//! The layering follows the data path of an SSD:
//!
//! ```text
//! workload -> driver (arrivals, cache, GC modes, statistics) -> ftl (mapping, placement,
//!   victims, GC) -> ops (the stream of physical operations) -> device (null, flash, NoC:
//!   times the ops) -> metrics (the result record)
//! ```
//!
//! * [`workload`]: synthetic host request generators, fio-like jobs, the NoC paper's
//!   profiles, and the [`workload::Workload`] trait that trace readers implement.
//! * [`driver`]: the one host driver every run goes through; [`timing`]: its options.
//! * [`ftl`]: the page-mapped FTL: L2P/P2L mapping, segments, write streams, GC.
//! * [`ops`]: the physical operations the FTL emits; [`device`]: the models that time them.
//! * [`placement`]: where user writes and GC relocations go (one file per scheme).
//! * [`victim`]: which segment GC reclaims (one file per policy).
//! * [`gc_action`]: what GC does with each valid page (move, defer, remap; one file per
//!   scheme: SplitGC, CAGC, DAGC), switching the FTL to its content mode.
//! * [`scheme`]: placement/victim pairs (each scheme with its paper's victim policy).
//! * [`segment`], [`content`]: the read-only views of segments and of page content that
//!   policies see; they sit below both the FTL and the policies so that policies never
//!   call back into the FTL.
//! * [`metrics`] (the result record), [`model`] (analytic WAF models), [`sim`] (a configured
//!   simulation: FTL, precondition, checkpoint files).
//! * [`checkpoint`]: versioned, CRC-checked checkpoint files of a whole run (resume).
//! * [`validate`]: every check a run makes before it starts, without running it.
//! * [`trace_file`]: opening trace files by path; a pipe or `-` is read once into a
//!   temporary file that every later open reads.
//! * [`named_pipe`]: an input path that is a FIFO, waited on with a notice instead of
//!   silently; [`notice`]: where such notices go.
//!
//! No I/O happens in this crate's hot path; trace files are read by `flashgc-trace`.

#![deny(missing_docs)]

pub mod checkpoint;
pub mod config;
pub mod content;
pub mod device;
pub mod driver;
pub mod error;
pub mod ftl;
pub mod fuzzing;
pub mod gc_action;
pub(crate) mod mem;
pub mod metrics;
pub mod model;
pub mod named_pipe;
pub mod notice;
pub mod ops;
pub mod placement;
pub mod scheme;
pub mod segment;
pub mod sim;
pub mod spec;
pub mod text_file;
pub mod timing;
pub mod trace_file;
pub mod types;
pub mod validate;
pub mod victim;
pub mod workload;

pub use config::{Config, DeviceConfig, FtlConfig, RunConfig};
pub use error::{Error, Result};
pub use metrics::result::RunResult;
pub use sim::Simulation;
pub use types::{Lpn, Ppn, SegmentId, StreamId};
