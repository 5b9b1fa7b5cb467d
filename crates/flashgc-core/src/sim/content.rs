//! The content mode's part of building a simulation and its result: the GC action from the
//! configuration, its memory estimate, switching the FTL to content mode, and the result's
//! `dedup` section with its notes.

use crate::config::{Config, Layout};
use crate::content::estimate::{self, ContentEstimate, EstimateInput};
use crate::content::ContentGen;
use crate::error::{Error, Result};
use crate::ftl::{ContentCounters, ContentLayer, ContentReport, Ftl};
use crate::gc_action::{self, ActionInit, GcAction};
use crate::workload::WorkloadSpec;

/// The configured GC action (None for `move`: the FTL's plain path). Checks the `[content]`
/// parameters when it needs them; `mapping_cache`: whether a mapping cache is configured
/// (not modelled together with the content mode).
pub(super) fn action(
    cfg: &Config,
    layout: &Layout,
    mapping_cache: bool,
) -> Result<Option<Box<dyn GcAction>>> {
    let action = gc_action::build(
        "run.gc_action",
        &cfg.run.gc_action,
        ActionInit {
            logical_pages: layout.logical_pages,
            segments: layout.segments,
            pages_per_segment: layout.pages_per_segment,
            seed: cfg.run.seed,
        },
    )?;
    if action.is_none() {
        return Ok(None);
    }
    cfg.content.validate()?;
    if mapping_cache {
        // Both add streams after the placement's, and the content mode's two-level
        // mapping has no translation pages yet.
        return Err(Error::config(
            "ftl.mapping_cache",
            format!(
                "the mapping cache is not modelled in content mode (run.gc_action = `{}`) yet; \
                 use `off`",
                cfg.run.gc_action
            ),
        ));
    }
    Ok(action)
}

/// What the content mode will hold at its peak (None without an action; see
/// [`crate::content::estimate::estimate`]): the synthetic content's duplicate model gives
/// the number of distinct contents, a trace's are unknown before the run.
pub(super) fn memory_estimate(
    action: Option<&dyn GcAction>,
    layout: &Layout,
    cfg: &Config,
) -> Option<ContentEstimate> {
    let a = action?;
    let trace = matches!(
        WorkloadSpec::parse("run.workload", &cfg.run.workload),
        Ok(WorkloadSpec::Trace(_))
    );
    let needs = a.needs();
    Some(estimate::estimate(
        EstimateInput {
            logical_pages: layout.logical_pages,
            physical_pages: layout.physical_pages,
            segments: layout.segments as u64,
            content: (!trace).then_some(cfg.content),
            // A synthetic workload writes `write_volume` x the logical space after the fill.
            written_pages: (!trace && cfg.flow.is_empty()).then(|| {
                let l = layout.logical_pages as f64;
                (l * cfg.run.fill).round() as u64 + (l * cfg.run.write_volume).round() as u64
            }),
        },
        a.grouped(),
        needs.index_capacity,
        needs.defers,
        a.memory_bytes(),
    ))
}

/// Switches `ftl` to content mode with `action`.
pub(super) fn enable(ftl: &mut Ftl, action: Box<dyn GcAction>, layout: &Layout, cfg: &Config) {
    ftl.enable_content(ContentLayer::new(
        layout.logical_pages,
        layout.physical_pages,
        action,
        ContentGen::new(cfg.content, cfg.run.seed),
    ));
}

/// The result's `dedup` section (counters since `base`), the action's streams appended to
/// `streams` and its notes to `notes`; None outside content mode.
pub(super) fn report(
    ftl: &Ftl,
    base: &ContentCounters,
    streams: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Option<ContentReport> {
    let c = ftl.content()?;
    let a = c.action();
    streams.extend((0..a.extra_streams()).map(|k| a.extra_stream_name(k)));
    let d = ftl.content_report(base)?;
    notes.push(format!(
        "GC action {}; content checked on {} reads",
        d.gc_action, d.counters.checked_reads
    ));
    if a.needs().defers && d.counters.scrub_pages == 0 && d.counters.deferred_written == 0 {
        notes.push(
            "no background work ran (no host idle time: a WAF-only run has none, a saturated \
             timed host none either): the read scrub never ran after the prescrub and deferred \
             pages were never written back"
                .into(),
        );
    }
    Some(d)
}
