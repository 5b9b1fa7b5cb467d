#![no_main]
//! The `.fgt` binary reader from memory (optional checksum fix-ups), statistics and replay.
libfuzzer_sys::fuzz_target!(|data: &[u8]| flashgc_trace::fuzzing::fgt(data));
