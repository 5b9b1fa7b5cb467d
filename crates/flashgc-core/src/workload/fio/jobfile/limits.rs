//! The bounds a job file's jobs share: how many flows their clones make and how many
//! requests they keep outstanding together, checked where the file can name a line (the
//! flows check the same bounds again without one; docs/flows.md).

use super::values::err;
use super::JobSpec;
use crate::error::Result;
use crate::workload::flows::{MAX_FLOWS, MAX_OUTSTANDING};

/// Refuses a file whose jobs' clones (`numjobs`, summed) exceed [`MAX_FLOWS`] flows, or
/// whose requests outstanding (`numjobs x iodepth`, summed, after a synchronous engine's
/// cap) exceed [`MAX_OUTSTANDING`]; the error names the line of the job that crosses it.
pub(super) fn check_totals(file: &str, jobs: &[JobSpec]) -> Result<()> {
    let (mut flows, mut outstanding) = (0u64, 0u64);
    for j in jobs {
        flows += j.numjobs as u64;
        if flows > MAX_FLOWS as u64 {
            return Err(err(
                file,
                j.line_of("numjobs"),
                "numjobs",
                format!(
                    "job `{}`: {} here makes {flows} jobs in the file (numjobs, summed over \
                     the sections); at most {MAX_FLOWS}",
                    j.name, j.numjobs
                ),
            ));
        }
        outstanding += j.numjobs as u64 * j.iodepth as u64;
        if outstanding > MAX_OUTSTANDING {
            let option = if j.lines.iter().any(|(o, _)| o == "iodepth") {
                "iodepth"
            } else {
                "numjobs"
            };
            return Err(err(
                file,
                j.line_of(option),
                option,
                format!(
                    "job `{}` (numjobs {} x iodepth {}) makes {outstanding} requests \
                     outstanding in the file (numjobs x iodepth, summed); at most \
                     {MAX_OUTSTANDING}",
                    j.name, j.numjobs, j.iodepth
                ),
            ));
        }
    }
    Ok(())
}
