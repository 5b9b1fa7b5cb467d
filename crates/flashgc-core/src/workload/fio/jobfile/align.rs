//! A job's `blockalign`, `bs_unaligned` and backwards sequential offsets (`rw=write:-SKIP`)
//! as the file gives them, checked where fio checks them and handed to the generator
//! ([`crate::workload::fio::Alignment`], [`Backwards`]; module `fio::align` has fio's
//! rules).

use super::{err, CloneRegion, JobSpec, Rw, SizeSpec};
use crate::error::Result;
use crate::workload::fio::{Alignment, Backwards};

impl JobSpec {
    /// The smallest length of reads (`write` false) or writes, bytes (fio's `min_bs`).
    fn min_bs_of(&self, write: bool) -> u64 {
        match &self.block_sizes {
            None => self.bs,
            Some(m) if write => m.write.min(),
            Some(m) => m.read.min(),
        }
    }

    /// Whether `blockalign` moves a direction's random offsets off the grid of its
    /// smallest length (fio resets it to that grid on sequential patterns).
    pub fn realigned(&self) -> bool {
        !self.rw.sequential()
            && (0..2).any(|d| self.blockalign[d].is_some_and(|a| a != self.min_bs_of(d == 1)))
    }

    /// The generator's alignment for this job.
    pub(super) fn alignment(&self) -> Alignment {
        Alignment {
            blockalign: if self.realigned() {
                self.blockalign
            } else {
                [None, None]
            },
            bs_unaligned: self.bs_unaligned,
        }
    }

    /// fio's `fixup_options` for `blockalign`: a realigned job draws its offsets with
    /// replacement ("Any use of blockalign= turns off randommap"); lfsr and random trims
    /// with it are refused (not modelled).
    pub(super) fn resolve_blockalign(&mut self, file: &str) -> Result<()> {
        if !self.realigned() {
            return Ok(());
        }
        let refuse = |why: String| Err(err(file, self.line_of("blockalign"), "blockalign", why));
        if self.lfsr {
            return refuse(format!(
                "job `{}`: random_generator=lfsr with a blockalign other than the block size is not modelled \
                 (fio's lfsr counts blocks of the block size, its offsets multiply by blockalign)",
                self.name
            ));
        }
        if matches!(self.rw, Rw::RandTrim | Rw::RandTrimWrite) {
            return refuse(format!(
                "job `{}` trims: fio aligns trims by blockalign's third part, which flashgc does not model",
                self.name
            ));
        }
        self.norandommap = true;
        Ok(())
    }

    /// The backwards sequence of the clone on region `r` (None: the job goes forwards).
    pub(super) fn backwards(&self, r: &CloneRegion) -> Option<Backwards> {
        (self.seq_back > 0 && self.rw.sequential()).then(|| Backwards {
            back: self.seq_back,
            first: Backwards::first_of(r.offset, r.size, self.seq_back),
        })
    }

    /// Refuses backwards sequences where they are not modelled: several block sizes, a
    /// region that is not whole blocks, a step smaller than the block (fio then moves
    /// forwards over overlapping requests) and one larger than the region.
    pub(super) fn check_backwards(&self, file: &str, r: &CloneRegion) -> Result<()> {
        if self.seq_back == 0 || !self.rw.sequential() {
            return Ok(());
        }
        let why = if self.block_sizes.is_some() {
            "backwards sequences are modelled with one block size".to_string()
        } else if r.size % self.bs != 0
            || matches!(self.size, Some(SizeSpec::Bytes(b)) if b % self.bs != 0)
        {
            "backwards sequences need a region of whole blocks".to_string()
        } else if self.seq_back < self.bs {
            format!(
                "a backwards skip of {} bytes is smaller than the block size {}: fio then moves forwards over \
                 overlapping requests, which flashgc does not model",
                self.seq_back, self.bs
            )
        } else if self.seq_back > r.size {
            format!(
                "a backwards skip of {} bytes is larger than the region of {} bytes",
                self.seq_back, r.size
            )
        } else {
            return Ok(());
        };
        Err(self.rw_error(file, &why))
    }

    /// The error of an `rw` form this job cannot have, `why`: at the file's `rw` line.
    pub(super) fn rw_error(&self, file: &str, why: &str) -> crate::error::Error {
        err(
            file,
            self.line_of("rw"),
            "rw",
            format!("job `{}`: {why}", self.name),
        )
    }
}
