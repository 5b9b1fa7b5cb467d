#![no_main]
//! The config loader (TOML -> Config -> validation -> policies -> a short run), and the
//! workload / placement / victim spec strings (inputs starting with `!`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| flashgc_trace::fuzzing::config(data));
