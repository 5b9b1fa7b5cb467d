#![no_main]
//! Every text trace reader (format picked by the first byte, or auto-detected), compressed
//! streams, statistics, `.fgt` conversion and replay with the `--remap`/loop/time options.
libfuzzer_sys::fuzz_target!(|data: &[u8]| flashgc_trace::fuzzing::trace(data));
