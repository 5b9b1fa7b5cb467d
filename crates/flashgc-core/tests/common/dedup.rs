//! Dedup-aware GC test helpers: small devices, tiny hand-built FTLs, counter snapshots.

use flashgc_core::content::{ContentGen, ContentParams};
use flashgc_core::ftl::{ContentLayer, Ftl, FtlParams};
use flashgc_core::gc_action::{self, ActionInit};
use flashgc_core::placement::{self, PlacementInit};
use flashgc_core::types::Lpn;
use flashgc_core::victim::{self, VictimInit};
use flashgc_core::Config;

/// A small device on the paper's preset: 2 ch x 1 chip x 1 die x 2 planes x 64 blocks x
/// 64 pages (256 segments of 64 pages), op 0.15, GC watermark 3, fill 0.9, seed 11.
pub fn small_cfg() -> Config {
    let mut c = Config::load(Some("ssdsim-splitgc"), None).unwrap();
    c.device.channels = 2;
    c.device.chips_per_channel = 1;
    c.device.dies_per_chip = 1;
    c.device.planes_per_die = 2;
    c.device.blocks_per_plane = 64;
    c.device.pages_per_block = 64;
    c.ftl.op_of_physical = None;
    c.ftl.op = Some(0.15);
    c.ftl.gc_low = flashgc_core::config::Watermark::Segments(3);
    c.run.fill = 0.9;
    c.run.seed = 11;
    c
}

/// The retired dedup FTL's counters (migrated, erases, victims, deferred queued, written
/// back, remapped, reused, scrub pages, user programs) and a hash of every LPN's content.
pub fn snapshot(f: &Ftl) -> ([u64; 9], u64) {
    let c = &f.counters;
    let cc = f
        .content()
        .map(|c| c.counters().clone())
        .unwrap_or_default();
    let mut h: u64 = 0;
    let logical = f.params().logical_pages as Lpn;
    for lpn in 0..logical {
        let v = match f.content() {
            Some(cl) => f
                .resolve(lpn)
                .map(|p| cl.store().content_of(p))
                .unwrap_or(0),
            None => 0,
        };
        h = h.wrapping_mul(0x100000001b3) ^ v;
    }
    (
        [
            c.gc_writes,
            c.erases,
            c.gc_victims,
            cc.deferred_queued,
            cc.deferred_written,
            cc.remapped,
            cc.revived + cc.shared,
            cc.scrub_pages,
            c.user_writes - c.absorbed_writes,
        ],
        h,
    )
}

/// A tiny FTL in content mode, built by hand (no reserve rules): `segments` of `pps` pages,
/// `logical` LPNs, GC below `gc_low` free segments up to `gc_high`, placement `single`.
pub fn tiny(
    action: &str,
    victim: &str,
    logical: u64,
    segments: u32,
    pps: u32,
    gc: (u32, u32),
) -> Ftl {
    let pl = placement::build(
        "placement",
        "single",
        PlacementInit {
            logical_pages: logical,
            segments,
            pages_per_segment: pps,
            seed: 1,
        },
    )
    .unwrap();
    let a = gc_action::build(
        "gc_action",
        action,
        ActionInit {
            logical_pages: logical,
            segments,
            pages_per_segment: pps,
            seed: 1,
        },
    )
    .unwrap()
    .expect("a content-aware action");
    let v = victim::build(
        "victim",
        victim,
        VictimInit {
            segments,
            pages_per_segment: pps,
            groups: pl.streams() + a.extra_streams(),
            seed: 1,
        },
    )
    .unwrap();
    let mut f = Ftl::new(
        FtlParams {
            logical_pages: logical,
            segments,
            pages_per_segment: pps,
            gc_low: gc.0,
            gc_high: gc.1,
            gc_garbage: None,
        },
        pl,
        v,
    );
    let gen = ContentGen::new(ContentParams::default(), 1);
    f.enable_content(ContentLayer::new(
        logical,
        segments as u64 * pps as u64,
        a,
        gen,
    ));
    f.set_victim_log(true);
    f
}

/// Content of the page serving `lpn`.
pub fn peek(f: &Ftl, lpn: Lpn) -> Option<u64> {
    let cl = f.content()?;
    f.resolve(lpn).map(|p| cl.store().content_of(p))
}
