//! MiDAS's epochs and irregularity checks: a new UID and GCS's configuration at each epoch
//! end, its adoption rule, and the fallback to MiDA when a transition probability is off.

use super::gcs::{self, GcsResult};
use super::mcam;
use super::params::{Adopt, GnModel, IrrError, IrrStart};
use super::{Midas, Mode, MIN_UID_SAMPLES};
use serde_json::json;

/// One entry of the configuration history.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct HistoryEntry {
    user_writes: u64,
    capacity_written: f64,
    #[serde(deserialize_with = "crate::checkpoint::leak_str")]
    event: &'static str,
    mode: String,
    groups: usize,
    sizes: Vec<u32>,
    #[serde(deserialize_with = "crate::checkpoint::f64_or_inf")]
    threshold: f64,
    predicted_waf: Option<f64>,
    measured_waf: Option<f64>,
    /// The configuration in force as MCAM predicts it on the new UID (non-finite when it
    /// is infeasible there: null in the report).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::checkpoint::opt_f64_or_inf"
    )]
    current_on_new_uid: Option<f64>,
    /// WAF measured over the last capacity of user writes (what `adopt=measured` compares
    /// a new configuration's prediction with).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::checkpoint::opt_f64_or_inf"
    )]
    measured_last_capacity: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    irregular: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gcs_choice: Option<serde_json::Value>,
    /// Valid ratio of victims per group over the epoch (HOT, G1, ...; null = no victim).
    #[serde(skip_serializing_if = "Option::is_none")]
    measured_v: Option<Vec<Option<f64>>>,
    /// MCAM's transition probabilities for the configuration in force.
    #[serde(skip_serializing_if = "Option::is_none")]
    predicted_v: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uid_samples: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gcs_evaluations: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    budget_segments: Option<u32>,
    /// On an adoption's entry (`irr_start=collected`): capacities written when every sized
    /// group had given a victim under it, and the irregularity checks started.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::checkpoint::opt_f64_or_inf"
    )]
    checks_from: Option<f64>,
    /// `gn_model=greedy`: the last group's static segments set aside for this epoch's plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    static_segments: Option<u32>,
}

impl Midas {
    pub(super) fn entry(&self, event: &'static str) -> HistoryEntry {
        let (groups, sizes) = match self.mode {
            Mode::Mida => (self.p.mida_groups as usize, Vec::new()),
            _ => (self.cfg.groups(), self.cfg.sizes.clone()),
        };
        HistoryEntry {
            user_writes: self.now,
            capacity_written: self.now as f64 / self.logical as f64,
            event,
            mode: self.mode_name(),
            groups,
            sizes,
            threshold: self.threshold,
            predicted_waf: None,
            measured_waf: None,
            current_on_new_uid: None,
            measured_last_capacity: None,
            irregular: None,
            gcs_choice: None,
            measured_v: None,
            predicted_v: None,
            uid_samples: None,
            gcs_evaluations: None,
            static_segments: (self.p.gn_model == GnModel::Greedy).then_some(self.static_segs),
            budget_segments: None,
            checks_from: None,
        }
    }

    pub(super) fn end_epoch(&mut self) {
        let samples = self.uid.samples();
        let uid = self
            .uid
            .finish(self.now, self.live_pages)
            .with_hot_model(self.p.hot_model);
        let (uid, budget) = self.planning(uid, self.learned_budget());
        let measured =
            (self.ep_user > 0).then(|| (self.ep_user + self.ep_gc) as f64 / self.ep_user as f64);
        let pps = self.pps as f64;
        let measured_v: Vec<Option<f64>> = (0..=self.cfg.groups())
            .map(|s| {
                (self.ep_victims[s] > 0)
                    .then(|| self.ep_reloc[s] as f64 / (self.ep_victims[s] as f64 * pps))
            })
            .collect();
        self.ep_victims.iter_mut().for_each(|c| *c = 0);
        self.ep_reloc.iter_mut().for_each(|c| *c = 0);
        self.ep_user = 0;
        self.ep_gc = 0;
        self.budget_sum = 0;
        self.budget_n = 0;
        if !self.uid_started {
            // The UID warm-up (`uid_skip`): the fill and the first writes after it bias
            // the intervals (docs/midas.md); this epoch's counts are dropped, the
            // timestamps kept, as MiDAS's simulator starts its model after the load.
            self.uid_started = true;
            let mut e = self.entry("UID warm-up over (its intervals are not used)");
            e.measured_waf = measured;
            e.measured_v = Some(measured_v);
            e.uid_samples = Some(samples);
            self.history.push(e);
            return;
        }
        if !self.p.grpconf {
            // Fig. 12 without +GrpConf: no UID-driven configuration, MiDA (+HOT) throughout.
            let mut e = self.entry("epoch (grpconf=off: no configuration search)");
            e.measured_waf = measured;
            e.measured_v = Some(measured_v);
            e.uid_samples = Some(samples);
            self.history.push(e);
            return;
        }
        if self.p.fixed.is_some() {
            let eff = self.effective(&self.cfg, budget);
            let pred = mcam::predict(&uid, &eff, self.pps);
            self.cpu_evals += 1;
            let mut e = self.entry("epoch");
            e.predicted_waf = Some(pred.waf);
            e.measured_waf = measured;
            e.uid_samples = Some(samples);
            e.budget_segments = Some(budget);
            e.measured_v = Some(measured_v);
            e.predicted_v = Some(pred.v.clone());
            self.history.push(e);
            self.pred = Some(pred);
            return;
        }
        let found: GcsResult = gcs::search(&uid, budget, self.pps, &self.p.gcs);
        self.cpu_evals += found.evaluations;
        let current = match self.mode {
            Mode::Configured => {
                self.cpu_evals += 1;
                Some(mcam::predict(&uid, &self.effective(&self.cfg, budget), self.pps).waf)
            }
            _ => None,
        };
        if !found.prediction.waf.is_finite() || samples < MIN_UID_SAMPLES {
            // The UID admits no feasible configuration (typically an epoch straddling a
            // workload change): run MiDA until the next epoch.
            self.mode = Mode::Mida;
            self.apply_layout();
            let mut e = self.entry(if samples < MIN_UID_SAMPLES {
                "too few intervals in the UID: MiDA"
            } else {
                "no feasible configuration: MiDA"
            });
            e.measured_waf = measured;
            e.measured_v = Some(measured_v);
            e.uid_samples = Some(samples);
            e.gcs_evaluations = Some(found.evaluations);
            e.budget_segments = Some(budget);
            self.history.push(e);
            return;
        }
        let new = found.prediction.waf;
        let beats_current = match current {
            None => true,
            Some(c) => !c.is_finite() || new < c * (1.0 - self.p.adopt_gain),
        };
        // MiDAS's simulator adopts only a configuration predicted below the WAF measured
        // over the last capacity (`check_applying_config`), also from a MiDA phase.
        let beats_measured = self.last_cap_waf.is_none_or(|m| new < m);
        let adopt = match self.p.adopt {
            Adopt::Measured => beats_current && beats_measured,
            Adopt::Predicted => beats_current,
        };
        let event = if adopt {
            let ev = match self.mode {
                Mode::Mida if self.adoptions == 0 => "first configuration",
                Mode::Mida | Mode::Fallback(_) => "configuration after fallback",
                Mode::Configured => "reconfiguration",
            };
            self.cfg = found.config.clone();
            // The static segments set aside from the plan (gn_model=greedy; else 0) stay in
            // the last group.
            let n = self.cfg.groups();
            self.cfg.sizes[n] += self.static_segs;
            self.threshold = found.prediction.threshold;
            self.pred = Some(found.prediction.clone());
            self.mode = Mode::Configured;
            self.adoptions += 1;
            self.apply_layout();
            self.relabel_pending = self.p.relabel;
            // This adoption's history entry, pushed below.
            self.adopted_entry = self.history.len();
            self.arm_checks();
            ev
        } else if self.mode == Mode::Configured {
            "keep"
        } else {
            "not adopted (predicted above the measured WAF): the current mode continues"
        };
        let mut e = self.entry(event);
        e.predicted_waf = Some(if adopt {
            found.prediction.waf
        } else {
            self.pred.as_ref().map_or(f64::NAN, |p| p.waf)
        });
        if !adopt {
            // Not adopted: the configuration GCS found is reported next to the kept one.
            e.gcs_choice = Some(
                json!({ "gcs_sizes": found.config.sizes, "gcs_predicted_waf": found.prediction.waf }),
            );
        }
        e.measured_waf = measured;
        e.measured_v = Some(measured_v);
        e.current_on_new_uid = current;
        e.measured_last_capacity = self.last_cap_waf;
        e.uid_samples = Some(samples);
        e.gcs_evaluations = Some(found.evaluations);
        e.budget_segments = Some(budget);
        self.history.push(e);
    }

    /// Sets the irregularity checks up for a configuration just adopted.
    pub(super) fn arm_checks(&mut self) {
        self.uncollected.clear();
        match self.p.irr_start {
            IrrStart::Window => {
                self.next_check = self.now + self.check_len;
                self.check_armed = false;
                self.win_victims.iter_mut().for_each(|c| *c = 0);
                self.win_reloc.iter_mut().for_each(|c| *c = 0);
            }
            IrrStart::Collected => {
                // No window until every group with a size has filled to it and given a
                // victim (`note_collected`); `start_checks` clears the counts then.
                self.next_check = u64::MAX;
                self.check_armed = true;
                self.uncollected = self.cfg.sizes.iter().map(|&s| s > 0).collect();
                if !self.uncollected.contains(&true) {
                    self.start_checks(false);
                }
            }
        }
    }

    /// A victim of stream `s` (`irr_start=collected`): the configuration in force counts as
    /// applied once every sized group has given one, and the first check window opens.
    pub(super) fn note_collected(&mut self, s: usize) {
        if self.mode != Mode::Configured {
            return;
        }
        let Some(u) = self.uncollected.get_mut(s) else {
            return;
        };
        if std::mem::take(u) && !self.uncollected.contains(&true) {
            self.start_checks(true);
        }
    }

    /// Opens the first check window of the configuration in force; `note`: the adoption's
    /// history entry records when.
    fn start_checks(&mut self, note: bool) {
        self.uncollected.clear();
        self.next_check = self.now + self.check_len;
        self.win_victims.iter_mut().for_each(|c| *c = 0);
        self.win_reloc.iter_mut().for_each(|c| *c = 0);
        let at = self.now as f64 / self.logical as f64;
        if let Some(e) = self.history.get_mut(self.adopted_entry).filter(|_| note) {
            e.checks_from = Some(at);
        }
    }

    /// One check window: the first group whose transition is in error merges it and the
    /// groups after it (a fallback); in a fallback at Gk the groups before Gk are still
    /// judged (`irr_after_fallback=check`), so a later window can merge further.
    pub(super) fn check_irregular(&mut self) {
        self.next_check = self.now + self.check_len;
        // The configured groups still judged: G1..G(limit-1).
        let limit = match self.mode {
            Mode::Configured => self.cfg.groups(),
            Mode::Fallback(k) if self.p.irr_recheck => k as usize,
            _ => return,
        };
        if self.p.fixed.is_some() || !self.p.irrhand {
            return;
        }
        let armed = self.check_armed;
        self.check_armed = true;
        let mut hit = None;
        if armed {
            if let Some(pred) = &self.pred {
                for k in 1..limit {
                    let vict = self.win_victims[k];
                    if vict < self.p.irr_min_victims as u64 {
                        continue;
                    }
                    let measured = self.win_reloc[k] as f64 / (vict as f64 * self.pps as f64);
                    let predicted = pred.v[k];
                    let (err, over) = match self.p.irr_error {
                        IrrError::Over => {
                            let d = measured - predicted;
                            (d, d >= self.p.irr_threshold)
                        }
                        IrrError::Relative => {
                            let e = (measured - predicted).abs() / predicted.max(self.p.irr_floor);
                            (e, e > self.p.irr_threshold)
                        }
                    };
                    if over {
                        hit = Some((k, predicted, measured, err, vict));
                        break;
                    }
                }
            }
        }
        self.win_victims.iter_mut().for_each(|c| *c = 0);
        self.win_reloc.iter_mut().for_each(|c| *c = 0);
        if let Some((k, predicted, measured, err, vict)) = hit {
            self.mode = Mode::Fallback(k as u16);
            self.fallbacks += 1;
            self.apply_layout();
            let mut e = self.entry("fallback");
            e.predicted_waf = self.pred.as_ref().map(|p| p.waf);
            e.irregular = Some(json!({
                "transition": format!("G{k}->G{}", k + 1),
                "predicted": predicted,
                "measured": measured,
                "error": err,
                "rule": match self.p.irr_error {
                    IrrError::Over => "measured - predicted (absolute)",
                    IrrError::Relative => "|measured - predicted| / max(predicted, irr_floor)",
                },
                "victims": vict,
            }));
            self.history.push(e);
        }
    }
}
