//! A configuration's `[[flow]]` sections ([`FlowConfig`]) as flows: their fio options,
//! arrival process, start, limits and copies checked and turned into [`FlowSpec`]s, errors
//! naming `flow[i].FIELD`.

use super::{flow_error, FlowArrival, FlowConfig, FlowSet, FlowSpec, ThinkCount};
use crate::error::{Error, Result};
use crate::workload::fio::{FioJob, Rw};

impl FlowConfig {
    /// The flows of section `index` (errors name `flow[index].FIELD`).
    pub fn specs(&self, index: usize, run_seed: u64, logical_bytes: u64) -> Result<Vec<FlowSpec>> {
        let f = |x: &str| format!("flow[{index}].{x}");
        let name = self.name.clone().unwrap_or_else(|| format!("flow{index}"));
        let rw = Rw::parse(self.rw.as_deref().unwrap_or("randwrite"))
            .map_err(|e| flow_error(e, |_| f("rw")))?;
        let dist = flow_dist(
            self.distribution.as_deref().unwrap_or("uniform"),
            &f("distribution"),
        )?;
        let bs = self
            .bs
            .as_ref()
            .map(|b| b.bytes(&f("bs")))
            .transpose()?
            .unwrap_or(4096);
        let block_sizes = self
            .bssplit
            .as_deref()
            .map(|v| {
                crate::workload::fio::BlockSizeMix::parse_bssplit(v, bs)
                    .map_err(|m| Error::config(f("bssplit"), m))
            })
            .transpose()?;
        let offset = self
            .offset
            .as_ref()
            .map(|b| b.bytes(&f("offset")))
            .transpose()?
            .unwrap_or(0);
        let size = self
            .size
            .as_ref()
            .map(|b| b.bytes(&f("size")))
            .transpose()?;
        // `rate_iops` alone is an open loop; with `iodepth` it caps the closed loop, as
        // fio's `rate_iops` does.
        let (arrival, rate_cap_iops) = match (self.iodepth, self.rate_iops) {
            (Some(d), cap) => (FlowArrival::Closed { queue_depth: d }, cap),
            (None, Some(iops)) => (FlowArrival::Rate { iops }, None),
            (None, None) => (FlowArrival::Closed { queue_depth: 1 }, None),
        };
        let thinktime_us = self.thinktime_us.unwrap_or(0.0);
        if !(thinktime_us.is_finite() && (0.0..=1e9).contains(&thinktime_us)) {
            return Err(Error::config(
                f("thinktime_us"),
                format!("{thinktime_us} must be in [0, 1e9]"),
            ));
        }
        if thinktime_us > 0.0 && !matches!(arrival, FlowArrival::Closed { .. }) {
            return Err(Error::config(
                f("thinktime_us"),
                "needs a closed loop (an iodepth, not rate_iops alone): an open-loop flow does \
                 not wait for completions",
            ));
        }
        let thinktime_blocks = self.thinktime_blocks.unwrap_or(1);
        if thinktime_blocks == 0 {
            return Err(Error::config(
                f("thinktime_blocks"),
                "must be at least 1 (requests between think times)",
            ));
        }
        let thinktime_count = match &self.thinktime_blocks_type {
            Some(t) => ThinkCount::parse(&f("thinktime_blocks_type"), t)?,
            None => ThinkCount::Complete,
        };
        let start_ms = self.start_ms.unwrap_or(0.0);
        if !(start_ms.is_finite() && (0.0..1e12).contains(&start_ms)) {
            return Err(Error::config(
                f("start_ms"),
                format!("{start_ms} must be in [0, 1e12)"),
            ));
        }
        let numjobs = self.numjobs.unwrap_or(1);
        if numjobs == 0 || numjobs > 1024 {
            return Err(Error::config(
                f("numjobs"),
                format!("{numjobs} must be in [1, 1024]"),
            ));
        }
        let job = FioJob {
            rw,
            rwmixwrite: self.rwmixwrite.unwrap_or(50.0),
            bs,
            block_sizes,
            size,
            numjobs,
            iodepth: match arrival {
                FlowArrival::Closed { queue_depth } => queue_depth,
                FlowArrival::Rate { .. } => 1,
            },
            dist,
            seq_mix: None,
            seed: self
                .seed
                .unwrap_or(run_seed.wrapping_add(1000 * index as u64)),
            seq_skip: 0,
            backwards: None,
            align: Default::default(),
        };
        let runtime_ms = self.runtime_ms.unwrap_or(0.0);
        let ramp_ms = self.ramp_ms.unwrap_or(0.0);
        for (k, v) in [("runtime_ms", runtime_ms), ("ramp_ms", ramp_ms)] {
            if !(v.is_finite() && (0.0..1e12).contains(&v)) {
                return Err(Error::config(f(k), format!("{v} must be in [0, 1e12)")));
            }
        }
        let mut v = FlowSpec::from_fio(&name, &job, offset, logical_bytes);
        for s in &mut v {
            s.arrival = arrival;
            s.start_ns = (start_ms * 1e6).round() as u64;
            s.requests = self.requests;
            // 0 is no limit, as fio's runtime=0.
            s.runtime_ns = Some((runtime_ms * 1e6).round() as u64).filter(|&r| r > 0);
            s.ramp_ns = (ramp_ms * 1e6).round() as u64;
            s.rate_cap_iops = rate_cap_iops;
            s.thinktime_ns = (thinktime_us * 1e3).round() as u64;
            s.thinktime_blocks = thinktime_blocks;
            s.thinktime_count = thinktime_count;
        }
        Ok(v)
    }
}

/// A flow's `distribution`: fio's (`uniform`, `zipf:THETA[:CENTER]`, `pareto:H[:CENTER]`,
/// `normal:DEV[:CENTER]`, `zoned:...`, `zoned_abs:...`; `fio::dist`) or `hotcold:W/S` (W % of the
/// requests to the first S % of the region, as `--workload hotcold:W/S`; MQSim's
/// RANDOM_HOTCOLD).
fn flow_dist(s: &str, field: &str) -> Result<crate::workload::fio::Dist> {
    use crate::workload::fio::Dist;
    use crate::workload::{SyntheticKind, WorkloadSpec};
    if !s.trim().to_ascii_lowercase().starts_with("hotcold") {
        return Dist::parse(s).map_err(|e| match e {
            Error::Config { message, .. } => Error::config(
                field,
                message.replace("zipf:THETA[:CENTER]", "zipf:THETA[:CENTER], hotcold:W/S"),
            ),
            e => e,
        });
    }
    match WorkloadSpec::parse(field, s)? {
        WorkloadSpec::Synthetic(SyntheticKind::HotCold {
            write_share,
            space_share,
        }) => Ok(Dist::HotCold {
            write_share,
            space_share,
        }),
        _ => Err(Error::config(field, format!("`{s}`: expected hotcold:W/S"))),
    }
}

/// The flows of a configuration's `[[flow]]` sections (None without any).
pub fn from_config(cfg: &crate::Config, layout: &crate::config::Layout) -> Result<Option<FlowSet>> {
    if cfg.flow.is_empty() {
        return Ok(None);
    }
    let mut specs = Vec::new();
    // The section each flow comes from (one section gives `numjobs` flows).
    let mut section = Vec::new();
    for (i, f) in cfg.flow.iter().enumerate() {
        let v = f.specs(i, cfg.run.seed, layout.logical_bytes())?;
        // The mix's sizes against the LPN size, named as the section's field.
        if let Some(m) = v.first().and_then(|s| s.job.block_sizes.as_ref()) {
            m.check(layout.lpn_size).map_err(|e| match e {
                Error::Config { message, .. } => {
                    Error::config(format!("flow[{i}].bssplit"), message)
                }
                e => e,
            })?;
        }
        section.extend(std::iter::repeat_n(i, v.len()));
        specs.extend(v);
    }
    // Named by the later section's field, so that the message points at its line.
    let mut seen = std::collections::BTreeMap::new();
    for (s, &i) in specs.iter().zip(&section) {
        if let Some(first) = seen.insert(s.name.clone(), i) {
            return Err(Error::config(
                format!("flow[{i}].name"),
                format!(
                    "`{}` names two flows (sections {} and {} of [[flow]], counted from 1)",
                    s.name,
                    first + 1,
                    i + 1
                ),
            ));
        }
    }
    FlowSet::new(specs, layout.logical_pages, layout.lpn_size).map(Some)
}
