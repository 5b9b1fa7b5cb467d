//! Helpers shared by the integration tests (each test file declares `mod common;` and uses
//! the modules it needs).
#![allow(dead_code)]

pub mod ckpt;
pub mod configs;
pub mod dedup;
pub mod flows;
pub mod golden;
pub mod identity;
pub mod requests;
pub mod resume;
pub mod traces;
