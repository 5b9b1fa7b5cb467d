//! Every check a configuration must pass before a run starts, without running it: the
//! sweep client validates a whole grid this way before it submits any run (a bad point
//! fails at once, with its message, instead of after other runs have started).

use crate::config::{Config, Layout};
use crate::error::{Error, Result};
use crate::ftl::CmtParams;
use crate::placement::{self, Placement, PlacementInit};
use crate::victim::{self, VictimInit};
use crate::workload::WorkloadSpec;

/// Validates `cfg` as [`crate::Simulation::new`] would: the layout, the workload spec, the
/// placement and victim specs (built once, then dropped; no FTL tables are allocated and
/// no future-knowledge pre-pass runs) and the segment reserve their streams need.
/// Returns the layout with the watermarks the run would use.
pub fn validate(cfg: &Config) -> Result<Layout> {
    let mut layout = cfg.layout()?;
    let cmt = cmt_params(cfg, &layout)?.is_some();
    WorkloadSpec::parse("run.workload", &cfg.run.workload)?;
    let (pl, _) = placement::build_within(
        "run.placement",
        &cfg.run.placement,
        PlacementInit {
            logical_pages: layout.logical_pages,
            segments: layout.segments,
            pages_per_segment: layout.pages_per_segment,
            seed: cfg.run.seed,
        },
        cfg.run.max_memory_gib,
        crate::sim::memory_estimate(&layout, 0),
    )?;
    victim::build(
        "run.victim",
        &cfg.run.victim,
        VictimInit {
            segments: layout.segments,
            pages_per_segment: layout.pages_per_segment,
            groups: pl.streams() + cmt as usize,
            seed: cfg.run.seed,
        },
    )?;
    reserve_streams(&mut layout, pl.as_ref(), &cfg.run.placement, cmt as usize)?;
    Ok(layout)
}

/// Each stream may need a fresh segment within one victim's relocation, so the reserve
/// must cover all of them: raises the watermarks when the configuration's are too low,
/// and refuses a device whose spare segments cannot hold the reserve plus one open
/// segment per stream (naming the scheme that needs them). `extra_streams` are the FTL's
/// own streams beside the placement's (the mapping cache's translation pages).
pub(crate) fn reserve_streams(
    layout: &mut Layout,
    pl: &dyn Placement,
    spec: &str,
    extra_streams: usize,
) -> Result<()> {
    let streams = pl.streams();
    let min_low = (pl.gc_streams_per_victim().clamp(1, streams) + 1 + extra_streams) as u32;
    let streams = streams + extra_streams;
    if layout.gc_low < min_low {
        layout.gc_high = layout.gc_high.max(min_low) + (layout.gc_high - layout.gc_low);
        layout.gc_low = min_low;
    }
    let used = layout
        .logical_pages
        .div_ceil(layout.pages_per_segment as u64);
    if (layout.segments as u64) < used + layout.gc_high as u64 + streams as u64 + 1 {
        return Err(Error::config(
            "ftl.op",
            format!(
                "placement `{spec}` needs {streams} open streams: {} segments cannot hold {used} segments of data, \
                 {} free segments in reserve and {streams} open streams; raise op, use smaller segments or \
                 a scheme with fewer streams",
                layout.segments, layout.gc_high
            ),
        ));
    }
    Ok(())
}

/// The mapping cache's parameters for `cfg` (None when off).
pub fn cmt_params(cfg: &Config, layout: &Layout) -> Result<Option<CmtParams>> {
    cfg.ftl
        .mapping_cache
        .as_ref()
        .map(|m| {
            let (entries_per_page, pages, capacity) =
                m.shape(layout.logical_pages, layout.lpn_size)?;
            // The table lives on flash, a mapping unit per translation page, beside the
            // data: small translation pages make it as large as the data, and the run
            // would only fail later, with "device full".
            let per_segment = layout.pages_per_segment as u64;
            let data = layout.logical_pages.div_ceil(per_segment);
            let table = (pages as u64).div_ceil(per_segment);
            let reserve = layout.gc_high as u64 + 2;
            if data + table + reserve > layout.segments as u64 {
                return Err(Error::config(
                    "ftl.mapping_cache.translation_page_bytes",
                    format!(
                        "the table's {pages} translation pages ({entries_per_page} entries \
                         each) fill {table} segments of flash; with {data} segments of data \
                         and GC's reserve of {reserve} they do not fit the device's {} \
                         segments: use larger translation pages (default: device.lpn_size) \
                         or raise op",
                        layout.segments
                    ),
                ));
            }
            Ok(CmtParams {
                capacity,
                entries_per_page,
                pages,
            })
        })
        .transpose()
}
