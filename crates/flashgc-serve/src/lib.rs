//! `flashgc serve`: the simulated SSD as an NBD block device. Any NBD client (fio's `nbd`
//! engine, `qemu-io`, `qemu-img`, `nbdcopy`, the Linux `nbd` driver) attaches to it; every
//! request goes through the whole simulator (placement, victim, dedup, timing), the bytes
//! live in a data store, and the served stream is recorded as a `.fgt` trace with content
//! hashes so that every scheme can later replay exactly the same real workload.
//!
//! ```text
//! client --NBD--> connection thread: protocol (nbd), data store (store), content hashes
//!                      |  requests in arrival order
//!                      v
//!                 engine thread: simulator (engine), recording (record), live view (live)
//!                      |  pace real: replies at the simulated completion time
//!                      v
//!                 reply thread (per connection)
//! ```
//!
//! No I/O happens in the simulator core: this crate drives it through its per-request
//! steps. See docs/serve.md.

#![deny(missing_docs)]

pub mod conn;
pub mod engine;
pub mod live;
pub mod nbd;
pub mod record;
pub mod server;
pub mod store;

pub use engine::{Backend, LiveCounters, ServeResult};
pub use server::{serve, Durability, Endpoint, Pace, ServeOptions, ServeOutcome, SessionStats};
pub use store::DataMode;
