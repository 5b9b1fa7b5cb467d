//! The merged model: a job file whose jobs differ only in `numjobs` and volume, run as
//! one closed-loop stream ([`FioJob`]).

use super::values::err;
use super::JobFile;
use crate::error::Result;
use crate::workload::fio::FioJob;

/// A job file mapped onto today's closed-loop fio model ([`FioJob`]): one group of jobs
/// with the same pattern, merged into one stream with their clones summed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MergedJob {
    /// The merged job.
    pub job: FioJob,
    /// Host data to transfer (reads + writes), bytes: the jobs' volumes summed.
    pub data_bytes: u64,
    /// Run time limit, simulated ns.
    pub runtime_ns: Option<u64>,
    /// Ramp time excluded from latency and IOPS, simulated ns.
    pub ramp_ns: Option<u64>,
}

impl JobFile {
    /// Maps the jobs onto one [`FioJob`] on a device of `capacity` bytes. Errors (naming
    /// the file, line and option) for what the merged model cannot represent: several
    /// groups, a non-zero offset, clones at different offsets or sequential clones (fio
    /// runs each over the whole region), or jobs that differ in anything but `numjobs` and
    /// their volume. Per-job statistics and differing jobs need per-flow host models.
    pub fn merge(&self, capacity: u64, seed: u64) -> Result<MergedJob> {
        let f = &self.file;
        let first = &self.jobs[0];
        if let Some(j) = self.jobs.iter().find(|j| j.group > 0) {
            return Err(err(
                f,
                j.line_of("stonewall").max(j.line_of("new_group")).max(j.line_of("wait_for_previous")),
                "stonewall",
                format!(
                    "job `{}` starts a second group; groups run one after another, which needs per-flow host models \
                     (today's model runs one group of jobs)",
                    j.name
                ),
            ));
        }
        if let Some(j) = self.jobs.iter().find(|j| j.paced()) {
            let o = ["startdelay", "rate", "rate_iops", "thinktime"]
                .into_iter()
                .max_by_key(|o| j.lines.iter().any(|(x, _)| x == o) as usize * j.line_of(o))
                .unwrap_or("rate");
            return Err(err(
                f,
                j.line_of(o),
                o,
                format!(
                    "job `{}` is paced by its own clock, which needs per-flow host models",
                    j.name
                ),
            ));
        }
        let mut clones = 0u32;
        let mut data = 0u64;
        let region0 = first.clone_region(f, capacity, 0)?;
        for j in &self.jobs {
            if j.clones_spread(capacity) {
                return Err(err(
                    f,
                    j.line_of("offset_increment"),
                    "offset_increment",
                    "clones that start at different offsets need per-flow host models",
                ));
            }
            if j.has_seq_mix() {
                let o = j.seq_option();
                return Err(err(
                    f,
                    j.line_of(o),
                    o,
                    "sequential picks in a random job (fio's passes end where a pick fails) need per-flow host models",
                ));
            }
            if j.numjobs > 1 && j.rw.sequential() {
                return Err(err(
                    f,
                    j.line_of("numjobs"),
                    "numjobs",
                    "fio's sequential clones each run over the whole region from its start (offset_increment \
                     spreads them); that needs per-flow host models (the merged model splits the region)",
                ));
            }
            let region = j.clone_region(f, capacity, 0)?;
            j.check_holes(f, &region)?;
            if region.offset != 0 {
                return Err(err(
                    f,
                    j.line_of("offset"),
                    "offset",
                    "a region that does not start at 0 needs per-flow host models (today's jobs address [0, size))",
                ));
            }
            if let (Some(m), Some(_)) = (&j.block_sizes, j.number_ios) {
                return Err(err(
                    f,
                    j.line_of("number_ios"),
                    "number_ios",
                    format!(
                        "job `{}` counts requests of varying length ({}), which needs per-flow host models",
                        j.name,
                        m.describe()
                    ),
                ));
            }
            let mix_option = j
                .block_sizes
                .as_ref()
                .or(first.block_sizes.as_ref())
                .map_or("bs", |m| m.option.as_str());
            let same: [(&str, bool); 11] = [
                (
                    "rw",
                    j.rw == first.rw
                        && j.seq_skip == first.seq_skip
                        && j.seq_back == first.seq_back,
                ),
                (
                    "blockalign",
                    j.alignment().blockalign == first.alignment().blockalign,
                ),
                ("bs_unaligned", j.bs_unaligned == first.bs_unaligned),
                ("rwmixwrite", j.rwmixwrite == first.rwmixwrite),
                ("bs", j.bs == first.bs),
                (mix_option, j.block_sizes == first.block_sizes),
                ("size", region.size == region0.size),
                ("iodepth", j.iodepth == first.iodepth),
                ("random_distribution", j.dist == first.dist),
                ("runtime", j.runtime_ns == first.runtime_ns),
                ("ramp_time", j.ramp_ns == first.ramp_ns),
            ];
            if let Some((o, _)) = same.iter().find(|s| !s.1) {
                return Err(err(
                    f,
                    j.line_of(o),
                    o,
                    format!(
                        "jobs `{}` (line {}) and `{}` (line {}) differ in `{o}`: jobs with different patterns need per-flow \
                         host models; today's model merges jobs that differ only in numjobs and volume",
                        first.name, first.line, j.name, j.line
                    ),
                ));
            }
            // Trim-then-write issues each byte twice, and fio doubles `number_ios` too.
            // Whole requests for a job of one block size, as fio's passes count them; a
            // mixed job's bytes (it has no `number_ios`, refused above), twice over for
            // trim-then-write and `loops` times.
            let per = match j.block_sizes {
                None => j.plain_requests(&region).saturating_mul(j.bs),
                Some(_) => region
                    .io_bytes
                    .saturating_mul(j.rw.trim_mode().per_block() * j.loops as u64),
            };
            clones = clones.saturating_add(j.numjobs);
            data = data.saturating_add(per.saturating_mul(j.numjobs as u64));
        }
        Ok(MergedJob {
            job: FioJob {
                rw: first.rw,
                rwmixwrite: first.rwmixwrite,
                bs: first.bs,
                block_sizes: first.block_sizes.clone(),
                // The whole device stays `None` (the merged model's default region).
                size: first.size.map(|_| region0.size),
                numjobs: clones,
                iodepth: first.iodepth,
                dist: first.dist.clone(),
                seq_mix: None,
                seed,
                seq_skip: first.seq_skip,
                backwards: first.backwards(&region0),
                align: first.alignment(),
            },
            data_bytes: data,
            runtime_ns: first.runtime_ns,
            ramp_ns: first.ramp_ns,
        })
    }
}
