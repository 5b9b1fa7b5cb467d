//! The analytic cross-check of a WAF-only run: Desnoyers' closed forms for the workloads
//! and victim policies they model (docs/core.md), set beside the measured WAF.

use super::Simulation;
use crate::metrics::result::{ModelCheck, PhaseCounts};
use crate::workload::WorkloadSpec;

impl Simulation {
    /// Desnoyers' model for this run, when its assumptions hold: single stream, uniform or
    /// hot/cold writes without reads mixed in, FIFO/greedy/random victims.
    pub(super) fn model_check(&self, workload: &str, ss: &PhaseCounts) -> Option<ModelCheck> {
        use crate::model::*;
        let alpha = ss.effective_alpha?;
        if self.ftl.placement().name() != "single"
            || self.cfg.run.request_pages != 1
            || ss.user_writes == 0
        {
            return None;
        }
        let np = self.layout.pages_per_segment as f64;
        let victim = self.ftl.victim_policy().name();
        let spec = WorkloadSpec::parse("run.workload", workload).ok()?;
        let (name, waf) = match (spec, victim) {
            (WorkloadSpec::Synthetic(crate::workload::SyntheticKind::Uniform), "fifo") => {
                ("Desnoyers Eq. 4 (FIFO)".to_string(), waf_fifo(alpha))
            }
            (WorkloadSpec::Synthetic(crate::workload::SyntheticKind::Uniform), "greedy") => (
                format!("Desnoyers Eq. 12 (greedy, Np={np})"),
                waf_greedy(alpha, np),
            ),
            (WorkloadSpec::Synthetic(crate::workload::SyntheticKind::Uniform), "random") => (
                "random victim alpha/(alpha-1)".to_string(),
                waf_random(alpha),
            ),
            (
                WorkloadSpec::Synthetic(crate::workload::SyntheticKind::HotCold {
                    write_share,
                    space_share,
                }),
                "fifo",
            ) => (
                "Desnoyers Eq. 14 (hot/cold FIFO)".to_string(),
                waf_hotcold_fifo(alpha, write_share, space_share),
            ),
            (
                WorkloadSpec::Synthetic(crate::workload::SyntheticKind::HotCold {
                    write_share,
                    space_share,
                }),
                "greedy",
            ) => (
                format!("Desnoyers Eq. 16 (hot/cold greedy, Np={np})"),
                waf_hotcold_greedy(alpha, write_share, space_share, np),
            ),
            _ => return None,
        };
        Some(ModelCheck {
            model: name,
            alpha,
            waf,
            relative_error: (ss.waf - waf) / waf,
        })
    }
}
