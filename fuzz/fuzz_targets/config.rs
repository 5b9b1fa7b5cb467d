#![no_main]
//! The config loader (TOML -> Config -> validation -> policies -> a short run).
libfuzzer_sys::fuzz_target!(|data: &[u8]| flashgc_trace::fuzzing::config(data));
