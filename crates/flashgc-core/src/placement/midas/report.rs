//! MiDAS's report in a run's result: configuration, history, per-group victims.

use super::{Midas, Mode};
use serde_json::json;

impl Midas {
    /// The `placement_report` of a run.
    pub(super) fn report_json(&self) -> serde_json::Value {
        let measured_v: Vec<Option<f64>> = (0..self.streams())
            .map(|s| {
                (self.total_victims[s] > 0).then(|| {
                    self.total_reloc[s] as f64 / (self.total_victims[s] as f64 * self.pps as f64)
                })
            })
            .collect();
        json!({
            "scheme": "midas",
            "params": self.p,
            "mode": self.mode_name(),
            "config": self.cfg.sizes,
            "threshold": self.threshold,
            "prediction": self.pred,
            "adoptions": self.adoptions,
            "fallbacks": self.fallbacks,
            "stalled_gc_picks": self.stalls,
            "relabelled_segments": self.relabelled,
            "victims_per_stream": self.total_victims,
            "measured_valid_ratio_per_stream": measured_v,
            "history": self.history,
            "notes": [
                "victims inside a group come from the run's victim policy; MiDAS assumes fifo",
                "MCAM's HOT admission model is params.hot_model: joint (flashgc: the hot filter's statistic, pages may survive HOT) or paper (Sec. 4.4: HOT admits the writes whose own interval is below the threshold, all die in HOT)",
                "UID interval counts: params.uid_counts_all = true counts every user write's interval (flashgc), false only the sampled LPNs' (the paper)",
                "epochs count every user write, the precondition fill included"
            ],
        })
    }

    /// The mode's name in the report and the history.
    pub(super) fn mode_name(&self) -> String {
        match self.mode {
            Mode::Mida => "mida".into(),
            Mode::Configured => "configured".into(),
            Mode::Fallback(k) => format!("fallback(G{k}..G{} merged)", self.cfg.groups()),
        }
    }

    /// [`crate::placement::Placement::memory_bytes`] for MiDAS.
    pub(super) fn memory_estimate(&self) -> u64 {
        (self.ts.len() * 4 + self.hot_ctr.len()) as u64
            + self.uid.memory_bytes()
            // The UID built at each epoch end exists next to the builder for a moment.
            + self.uid.finish_working_bytes()
            + (self.hot_open.capacity() + self.residences.capacity()) as u64 * 8
            + self.seg_open.len() as u64 * 8
            + self
                .sealed_q
                .iter()
                .map(|q| q.capacity() as u64 * 4)
                .sum::<u64>()
            + self.streams() as u64 * 48
    }
}
