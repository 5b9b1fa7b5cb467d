//! flashgc simulator core.
//!
//! The layering follows the data path of an SSD:
//!
//! ```text
//! workload (host requests) -> ftl (mapping, placement, victim selection, GC) -> metrics
//! ```
//!
//! * [`workload`]: synthetic host request generators and the [`workload::Workload`] trait
//!   that trace readers implement.
//! * [`ftl`]: the page-mapped FTL: L2P/P2L mapping, segments, write streams, GC.
//! * [`placement`]: where user writes and GC relocations go (one file per scheme).
//! * [`victim`]: which segment GC reclaims (one file per policy).
//! * [`scheme`]: placement/victim pairs (each scheme with its paper's victim policy).
//! * [`segment`]: the read-only view of segments that policies see; it sits below both
//!   the FTL and the policies so that policies never call back into the FTL.
//! * [`metrics`], [`model`] (analytic WAF models), [`sim`] (runs a configuration end to end).
//! * [`checkpoint`]: versioned, CRC-checked checkpoint files of a whole run (resume).
//!
//! No I/O happens in this crate's hot path; trace files are read by `flashgc-trace`.

pub mod checkpoint;
pub mod config;
pub mod dedup;
pub mod error;
pub mod ftl;
pub mod metrics;
pub mod model;
pub mod noc;
pub mod placement;
pub mod scheme;
pub mod segment;
pub mod sim;
pub mod spec;
pub mod timing;
pub mod types;
pub mod victim;
pub mod workload;

pub use config::{Config, DeviceConfig, FtlConfig, RunConfig};
pub use error::{Error, Result};
pub use sim::{RunResult, Simulation};
pub use types::{Lpn, Ppn, SegmentId, StreamId};
