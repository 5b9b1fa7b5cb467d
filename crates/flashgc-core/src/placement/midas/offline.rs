//! MiDAS's models without a simulation (`flashgc model midas`): a UID built from a request
//! stream, MCAM's prediction for a given configuration and GCS's choice.

use super::gcs::{self, GcsParams, GcsResult};
use super::mcam::{self, GroupConfig, Prediction};
use super::uid::{Uid, UidBuilder};
use crate::error::{Error, Result};
use crate::workload::{Op, Request, Workload};

/// How [`uid_from_workload`] builds a UID.
#[derive(Debug, Clone, Copy)]
pub struct UidOptions {
    /// Sequential fill first, fraction of the logical space (a run's precondition).
    pub fill: f64,
    /// User page writes after the fill (or until the workload ends).
    pub writes: u64,
    /// Intervals are counted over the last `epoch` page writes (0 = the whole stream).
    pub epoch: u64,
    /// Interval unit, page writes.
    pub unit: u64,
    /// One LPN in `sample` is tracked.
    pub sample: u32,
    /// Short intervals in a row for HOT admission (the joint HOT model's statistic).
    pub hot_hits: u8,
    /// Count every write's interval (MiDAS's `uid_counts=all`), not only the sampled LPNs'.
    pub all_intervals: bool,
    /// Count a trimmed version's life as an interval (MiDAS's `uid_trims=count`).
    pub count_trims: bool,
}

/// Builds a UID from a request stream: sequentially fills `o.fill` of the logical space (as
/// a run's precondition does), then feeds the workload's writes and trims until `o.writes`
/// user page writes or the workload's end, counting intervals over the last `o.epoch`.
pub fn uid_from_workload(wl: &mut dyn Workload, logical_pages: u64, o: &UidOptions) -> Result<Uid> {
    let UidOptions {
        fill,
        writes,
        epoch,
        unit,
        sample,
        hot_hits,
        all_intervals,
        count_trims,
    } = *o;
    let filled = ((logical_pages as f64 * fill.clamp(0.0, 1.0)).round() as u64).min(logical_pages);
    let total = filled + writes;
    let window = if epoch == 0 { total } else { epoch.min(total) };
    let mut b = UidBuilder::new(logical_pages, unit, sample, window.max(unit), hot_hits);
    if all_intervals {
        b = b.count_all_intervals();
    }
    // Last write time per LPN (0 = not live), for every write's interval.
    let mut last = vec![
        0u64;
        if all_intervals {
            logical_pages as usize
        } else {
            0
        }
    ];
    let mut live = vec![false; logical_pages as usize];
    let mut n_live = 0u64;
    let mut now = 0u64;
    let start = total - window;
    for lpn in 0..filled {
        now += 1;
        b.on_write(lpn, now);
        if all_intervals {
            last[lpn as usize] = now;
        }
        live[lpn as usize] = true;
        n_live += 1;
        if now == start {
            b.finish(now, n_live);
        }
    }
    let mut buf: Vec<Request> = Vec::with_capacity(4096);
    'outer: while now < total {
        buf.clear();
        wl.fill(&mut buf, 4096)?;
        if buf.is_empty() {
            break;
        }
        for r in &buf {
            let end = r.lpn.saturating_add(r.pages as u64);
            if end > logical_pages {
                return Err(Error::Workload(format!(
                    "request at LPN {}..{end} exceeds the logical capacity of {logical_pages} pages",
                    r.lpn
                )));
            }
            for lpn in r.lpn..end {
                match r.op {
                    Op::Write => {
                        now += 1;
                        b.on_write(lpn, now);
                        if all_intervals {
                            let l = &mut last[lpn as usize];
                            if *l != 0 {
                                b.on_interval(now - *l);
                            }
                            *l = now;
                        }
                        if !live[lpn as usize] {
                            live[lpn as usize] = true;
                            n_live += 1;
                        }
                        if now == start {
                            b.finish(now, n_live);
                        }
                        if now >= total {
                            break 'outer;
                        }
                    }
                    Op::Trim => {
                        b.on_trim(lpn, now.max(1), count_trims);
                        if all_intervals {
                            let l = &mut last[lpn as usize];
                            if count_trims && *l != 0 {
                                b.on_interval(now - *l);
                            }
                            *l = 0;
                        }
                        if live[lpn as usize] {
                            live[lpn as usize] = false;
                            n_live -= 1;
                        }
                    }
                    Op::Read | Op::Flush => {}
                }
            }
        }
    }
    Ok(b.finish(now, n_live))
}

/// What `flashgc model midas` prints: the UID's summary, MCAM's prediction for a given
/// configuration, and GCS's choice.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModelReport {
    /// Pages per segment.
    pub pages_per_segment: u32,
    /// Segments the groups share.
    pub budget_segments: u32,
    /// The UID (survival function summary).
    pub uid: UidSummary,
    /// The given configuration and MCAM's prediction for it.
    pub given: Option<(GroupConfig, Prediction)>,
    /// GCS's configuration.
    pub gcs: GcsResult,
}

/// A UID in a few numbers.
#[derive(Debug, Clone, serde::Serialize)]
pub struct UidSummary {
    /// Interval unit, page writes.
    pub unit: f64,
    /// Intervals counted.
    pub samples: u64,
    /// Mean update interval, page writes.
    pub mean: f64,
    /// `P(I < x)` at x = 1, 4, 16, 64, 256 units and 1x, 2x, 4x the budget in pages.
    pub cdf: Vec<(f64, f64)>,
}

/// MCAM's prediction for `given` (GN resized to the budget) and GCS's choice on `uid`.
pub fn model(
    uid: &Uid,
    given: Option<&GroupConfig>,
    budget: u32,
    pps: u32,
    gcs_params: &GcsParams,
) -> ModelReport {
    let given = given.map(|g| {
        let mut c = g.clone();
        let n = c.groups();
        let others: u64 = c.sizes[..n].iter().map(|&s| s as u64).sum();
        c.sizes[n] = (budget as u64).saturating_sub(others).max(1) as u32;
        let p = mcam::predict(uid, &c, pps);
        (c, p)
    });
    let pages = budget as f64 * pps as f64;
    let xs = [1.0, 4.0, 16.0, 64.0, 256.0]
        .map(|k| k * uid.unit)
        .into_iter()
        .chain([pages, 2.0 * pages, 4.0 * pages]);
    ModelReport {
        pages_per_segment: pps,
        budget_segments: budget,
        uid: UidSummary {
            unit: uid.unit,
            samples: uid.samples,
            mean: uid.mean,
            cdf: xs.map(|x| (x, uid.below(x))).collect(),
        },
        given,
        gcs: gcs::search(uid, budget, pps, gcs_params),
    }
}
