//! Device configurations several test files use.

use flashgc_core::Config;

/// The NoC paper's device (`noc-ssdc`: 8 channels x 4 planes, 64-page blocks) with 16
/// blocks per plane (512 segments, 32 Ki pages) and over-provisioning `op`: small enough
/// that a few thousand requests keep GC busy.
pub fn noc_small(op: f64) -> Config {
    let mut c = Config::load(Some("noc-ssdc"), None).unwrap();
    c.device.blocks_per_plane = 16;
    c.ftl.op = Some(op);
    c
}

/// The timing table of the hand-computed schedules: read 50 us, program 500 us, erase
/// 3 ms, 409.6 MB/s channels (10 us per 4 KiB transfer), no SRAM time, no copyback.
pub fn hand_timing() -> flashgc_core::config::TimingConfig {
    flashgc_core::config::TimingConfig {
        read_us: 50.0,
        program_us: 500.0,
        erase_us: 3000.0,
        channel_mb_s: 409.6,
        sram_us: 0.0,
        copyback: false,
    }
}

/// 64 MiB logical (filled) on one plane of one chip on one channel, with the hand timing
/// ([`hand_timing`]): a read holds the plane 60 us (50 us + 10 us to move 4 KiB over the
/// channel), a write 510 us; requests take turns. The flow-drain and flush tests' device.
pub fn one_plane_hand() -> Config {
    let text = "[device]\npages_per_block = 32\nchannels = 1\nchips_per_channel = 1\n\
                dies_per_chip = 1\nplanes_per_die = 1\n\
                [device.timing]\nread_us = 50.0\nprogram_us = 500.0\nerase_us = 3000.0\n\
                channel_mb_s = 409.6\nsram_us = 0.0\ncopyback = false\n\
                [ftl]\nlogical_gib = 0.0625\nop = 0.15\n\
                [run]\nwrite_volume = 2.0\nmax_memory_gib = 64.0\n\
                [[flow]]\nrw = \"randwrite\"\nrequests = 10\n";
    Config::load(None, Some(("test.toml", text))).unwrap()
}

/// The flush tests' timing: a write cache of `cache_pages` pages, the host model `host`,
/// and the read-first scheduler (deferred commit) when `read_first`, else fcfs.
pub fn cached_timing(
    cache_pages: u64,
    host: flashgc_core::timing::Host,
    read_first: bool,
) -> flashgc_core::timing::TimingParams {
    let mut p = flashgc_core::timing::TimingParams {
        cache_pages,
        host,
        ..flashgc_core::timing::TimingParams::default()
    };
    if read_first {
        p.controller.scheduler = flashgc_core::device::policy::Scheduler::ReadFirst;
    }
    p
}
