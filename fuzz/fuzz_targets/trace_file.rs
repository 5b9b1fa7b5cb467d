#![no_main]
//! Every trace reader (format picked by the first byte), compressed and binary inputs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| flashgc_trace::fuzzing::trace_file(data));
