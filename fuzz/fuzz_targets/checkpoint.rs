#![no_main]
//! Checkpoints with a valid CRC and mutated content (structure-aware: byte 0 picks the
//! policy whose checkpoint is mutated, byte 1 the section, the rest are mutations; the CRC
//! is recomputed), resumed from memory and run to the end.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = flashgc_core::fuzzing::checkpoint(data);
});
