//! A job's sequential picks (`percentage_random`, `percentage_sequential`, `rw=randX:N`):
//! what is modelled is checked where the file is read, and each clone gets its
//! [`SeqMix`] (module `seq_mix` has fio's rules).

use super::{err, CloneRegion, EngineKind, JobSpec};
use crate::error::Result;
use crate::workload::fio::{Dist, Rw, SeqMix};

impl JobSpec {
    /// Whether the job mixes sequential offsets into random ones.
    pub fn has_seq_mix(&self) -> bool {
        !self.rw.sequential() && (self.random_pct != [100, 100] || self.seq_every > 1)
    }

    /// The option that asked for sequential picks (for messages).
    pub(super) fn seq_option(&self) -> &'static str {
        if self.random_pct == [100, 100] {
            "rw"
        } else if self.line_of("percentage_sequential") > self.line_of("percentage_random") {
            "percentage_sequential"
        } else {
            "percentage_random"
        }
    }

    /// Refuses sequential picks where flashgc does not model them: trim patterns, several
    /// block sizes and non-uniform offsets. fio ignores them on sequential patterns, and
    /// so does flashgc.
    pub(super) fn check_seq_mix(&self, file: &str) -> Result<()> {
        if !self.has_seq_mix() {
            return Ok(());
        }
        let o = self.seq_option();
        let refuse = |why: String| Err(err(file, self.line_of(o), o, why));
        if matches!(self.rw, Rw::RandTrim | Rw::RandTrimWrite) {
            return refuse(format!(
                "job `{}` trims: sequential picks are modelled on randrw, randread and randwrite",
                self.name
            ));
        }
        if let Some(m) = &self.block_sizes {
            return refuse(format!(
                "job `{}` varies its block size ({}): sequential picks are modelled with one block size",
                self.name,
                m.describe()
            ));
        }
        if self.realigned() {
            return refuse(format!(
                "job `{}` sets blockalign: sequential picks are modelled with random offsets on the block size's                  grid",
                self.name
            ));
        }
        if !matches!(
            self.dist,
            Dist::Uniform | Dist::RandomMap | Dist::RandomMapFresh | Dist::Lfsr | Dist::LfsrFresh
        ) {
            return refuse(format!(
                "job `{}`: sequential picks are modelled with uniform random offsets (the random map, \
                 norandommap or lfsr), not random_distribution={}",
                self.name,
                self.dist.describe()
            ));
        }
        Ok(())
    }

    /// The sequential picks of the clone on region `r` of a device of `capacity` bytes
    /// (None: the job has none). Errors when the region is not a whole number of blocks.
    pub(super) fn seq_mix_of(
        &self,
        file: &str,
        r: &CloneRegion,
        capacity: u64,
    ) -> Result<Option<SeqMix>> {
        if !self.has_seq_mix() {
            return Ok(None);
        }
        if r.size % self.bs != 0 {
            return Err(err(
                file,
                self.line_of("size"),
                "size",
                format!(
                    "job `{}` has sequential picks ({}): its region of {} bytes must be a whole number of \
                     {}-byte blocks",
                    self.name,
                    self.seq_option(),
                    r.size,
                    self.bs
                ),
            ));
        }
        // fio counts issued bytes against `size` only for what an asynchronous engine
        // queues; a `norandommap` job that writes may go to `io_size` (backend.c do_io).
        let writes = self.rw != Rw::RandRead;
        let pass_bytes = (self.engine == EngineKind::Async && !self.time_based).then(|| {
            if self.norandommap && writes {
                r.size.max(r.io_bytes)
            } else {
                r.size
            }
        });
        Ok(Some(SeqMix {
            random_pct: self.random_pct,
            every: self.seq_every,
            pass_bytes,
            region_at_end: r.offset.saturating_add(r.size) >= capacity,
            reseed: self.randrepeat && !self.time_based,
            time_based: self.time_based,
            identical: self.rw_identical,
        }))
    }
}
