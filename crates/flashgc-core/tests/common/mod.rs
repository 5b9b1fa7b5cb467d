//! Helpers shared by the integration tests (each test file declares `mod common;`).
#![allow(dead_code)]

pub mod dedup;
