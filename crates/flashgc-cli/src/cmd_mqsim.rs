//! `--mqsim-workload FILE.xml [--scenario N]`: an MQSim workload file's IO scenario as the
//! run's host flows, as `[[flow]]` sections would give them (`flashgc run`, `compare`;
//! `flashgc config` prints the equivalent configuration). A thin layer over
//! `flashgc_core::workload::mqsim` (docs/flows.md, "MQSim IO scenarios").

use crate::Fail;
use clap::Args;
use flashgc_core::workload::mqsim::MqsimWorkload;
use flashgc_core::Config;

/// The MQSim workload flags.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct MqsimFlags {
    /// MQSim workload file (MQSim's workload.xml): the synthetic flows of one IO_Scenario
    /// become the run's host flows (docs/flows.md, "MQSim IO scenarios"); what flashgc
    /// approximates is in the result's notes.
    #[arg(long, value_name = "FILE.xml", conflicts_with = "workload")]
    pub(crate) mqsim_workload: Option<String>,
    /// The IO_Scenario of --mqsim-workload to run, numbered from 1 as MQSim does (default:
    /// the file's only one).
    #[arg(long, value_name = "N", requires = "mqsim_workload")]
    pub(crate) scenario: Option<usize>,
}

/// Puts the scenario's flows and notes into `cfg` (nothing without --mqsim-workload).
pub(crate) fn apply(m: &MqsimFlags, cfg: &mut Config) -> Result<(), Fail> {
    let Some(path) = &m.mqsim_workload else {
        return Ok(());
    };
    if path.trim().is_empty() {
        return Err(Fail(
            2,
            "--mqsim-workload: an empty path; give a file name".into(),
        ));
    }
    if !cfg.flow.is_empty() {
        return Err(Fail(
            2,
            format!(
                "--mqsim-workload {path}: the configuration already has [[flow]] sections; \
                 give the flows one way"
            ),
        ));
    }
    MqsimWorkload::apply(cfg, path, m.scenario)?;
    Ok(())
}
