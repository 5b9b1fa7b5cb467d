//! `dac`: Dynamic dAta Clustering (Chiang, Lee & Chang, "Using data clustering to improve
//! cleaning performance for flash memory", Software: Practice and Experience 1999). The
//! flash is divided into regions from cold to hot, each written by its own stream: a page
//! moves one region hotter each time it is updated and one region colder each time GC
//! relocates it (it survived a cleaning, so it is colder than its neighbours). New data
//! starts in the coldest region.
//!
//! Parameters (spec `dac:key=value,...`):
//! * `regions` (default 4; flashgc's choice, the paper evaluates several). Range 2..=16.
//!
//! Memory: 1 B region number per LPN.

use super::common::check_streams;
use super::{Placement, PlacementInit};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, SegmentId, StreamId};

/// Marks an LPN never written (its first write goes to the coldest region).
const UNWRITTEN: u8 = u8::MAX;

/// DAC placement. Stream 0 is the coldest region.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Dac {
    #[serde(with = "crate::checkpoint::raw")]
    region: Vec<u8>,
    regions: u8,
    writes: Vec<u64>,
}

pub(super) fn build(spec: &Spec, init: PlacementInit) -> Result<Box<dyn Placement>> {
    let regions = spec.num::<u8>("regions", 4, 2, 16)?;
    check_streams(spec, "regions", regions as usize, init.segments)?;
    Ok(Box::new(Dac {
        region: spec.table("", "per-page regions", init.logical_pages, UNWRITTEN)?,
        regions,
        writes: vec![0; regions as usize],
    }))
}

/// Classifier work per user write on the simulation host beyond a no-op call, ns: DAC's
/// region promotion. `driver::calibrate::classifier_host_ns` (1 Mi LPNs, 200 k zipf(1.0)
/// writes, median of three runs of `--example cpu_calibrate`, AMD EPYC, 2026-11-24); the
/// firmware-CPU model scales it (docs/cpu.md).
const CLASSIFIER_NS: f64 = 2.7;

impl Placement for Dac {
    fn name(&self) -> &'static str {
        "dac"
    }
    fn classifier_ns(&self) -> f64 {
        CLASSIFIER_NS
    }
    crate::checkpoint::serde_state!(same: [regions], len: [region, writes]);
    fn check_restored(
        &self,
        dev: &crate::segment::RestoredDevice,
    ) -> std::result::Result<(), String> {
        if let Some(r) = self
            .region
            .iter()
            .find(|&&r| r != UNWRITTEN && r >= self.regions)
        {
            return Err(format!("region {r} of {}", self.regions));
        }
        // GC relocates mapped LPNs only, and demotes their region: it must be a region.
        match (0..self.region.len())
            .find(|&l| self.region[l] == UNWRITTEN && (dev.mapped)(l as Lpn))
        {
            Some(l) => Err(format!(
                "LPN {l} holds data but its region says never written"
            )),
            None => Ok(()),
        }
    }
    fn streams(&self) -> usize {
        self.regions as usize
    }
    fn stream_name(&self, s: StreamId) -> String {
        format!("R{s}")
    }
    #[inline]
    fn user_stream(&mut self, lpn: Lpn, _now: u64) -> StreamId {
        let r = &mut self.region[lpn as usize];
        *r = if *r == UNWRITTEN {
            0
        } else {
            (*r + 1).min(self.regions - 1)
        };
        self.writes[*r as usize] += 1;
        *r as StreamId
    }
    #[inline]
    fn gc_stream(&mut self, lpn: Lpn, _victim: SegmentId, _view: &SegmentView) -> StreamId {
        let r = &mut self.region[lpn as usize];
        *r = r.saturating_sub(1);
        *r as StreamId
    }
    fn on_trim(&mut self, lpn: Lpn) {
        self.region[lpn as usize] = UNWRITTEN;
    }
    fn memory_bytes(&self) -> u64 {
        self.region.len() as u64
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({ "user_writes_per_region": self.writes }))
    }
}
