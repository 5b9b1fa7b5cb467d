//! Errors. Every user-facing error names what is wrong and where.

use thiserror::Error;

/// Result alias for the core.
pub type Result<T> = std::result::Result<T, Error>;

/// Errors of the simulator core.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A configuration field is missing, out of range or inconsistent.
    #[error("invalid configuration: `{field}`: {message}")]
    Config {
        /// Dotted path of the field, e.g. `device.pages_per_block` or `placement.levels`.
        field: String,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// A policy, preset or workload name that is not registered.
    #[error("unknown {kind} `{name}`; known: {known}")]
    Unknown {
        /// The configuration field that gave the name (`run.placement`), so that a front
        /// end can point at the line of a file that sets it; empty when there is none.
        field: String,
        /// What kind of name (placement, victim, preset, workload).
        kind: &'static str,
        /// The name given.
        name: String,
        /// Comma-separated list of known names.
        known: String,
    },
    /// The workload cannot run on this device (e.g. an LPN beyond the logical capacity).
    #[error("workload error: {0}")]
    Workload(String),
    /// The device ran out of space: GC found no victim that frees anything.
    #[error("device full: {0}")]
    DeviceFull(String),
    /// Input file problems (config files, traces), with the file, line and field.
    #[error("{0}")]
    Input(String),
}

impl Error {
    /// Shorthand for a configuration error.
    pub fn config(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Config {
            field: field.into(),
            message: message.into(),
        }
    }
}
