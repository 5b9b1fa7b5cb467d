//! fio's trim patterns: `trim` and `randtrim` (trims where `write` and `randwrite` would
//! write), `trimwrite` and `randtrimwrite` (each block trimmed, then written).
//!
//! fio's sources: `set_rw_ddir` (io_u.c) alternates a trimwrite job's direction, trim
//! first, while the write and trim positions agree; the write takes the trim's offset
//! (`get_next_block`: `f->last_start[DDIR_TRIM]` for randtrimwrite, the sequential cursor
//! shared for trimwrite); and `do_io` (backend.c) doubles a trimwrite job's bytes and
//! `number_ios` ("each byte is trimmed and then written"). So a trim pattern is the
//! offsets and lengths of the matching write pattern with its writes replaced, or
//! preceded, by trims of the same blocks.

use super::{Rw, TrimMode};
use crate::error::Result;
use crate::workload::{Op, Request, Workload};
use std::collections::VecDeque;

impl Rw {
    /// The write pattern whose offsets and lengths a trim pattern follows (itself for the
    /// others).
    pub fn base(self) -> Rw {
        match self {
            Rw::Trim | Rw::TrimWrite => Rw::Write,
            Rw::RandTrim | Rw::RandTrimWrite => Rw::RandWrite,
            r => r,
        }
    }

    /// How the pattern trims.
    pub fn trim_mode(self) -> TrimMode {
        match self {
            Rw::Trim | Rw::RandTrim => TrimMode::Only,
            Rw::TrimWrite | Rw::RandTrimWrite => TrimMode::ThenWrite,
            _ => TrimMode::None,
        }
    }

    /// Whether the pattern writes, as fio's `td_write` (its direction has the write bit:
    /// `randrw` whatever its `rwmixwrite`, and trim-then-write).
    pub fn writes(self) -> bool {
        matches!(
            self,
            Rw::Write | Rw::RandWrite | Rw::RandRw | Rw::TrimWrite | Rw::RandTrimWrite
        )
    }

    /// Whether the pattern addresses its region in order (`read`, `write` and their trim
    /// forms).
    pub fn sequential(self) -> bool {
        matches!(self.base(), Rw::Read | Rw::Write)
    }
}

impl TrimMode {
    /// Requests (and bytes) the pattern issues per block of its write pattern: 2 for
    /// trim-then-write, as fio doubles the job's volume and `number_ios`.
    pub fn per_block(self) -> u64 {
        match self {
            TrimMode::ThenWrite => 2,
            _ => 1,
        }
    }
}

/// A trim pattern's requests from its write pattern's stream.
pub(super) struct TrimStream {
    inner: Box<dyn Workload>,
    mode: TrimMode,
    /// Write-pattern requests drawn and not yet issued.
    queue: VecDeque<Request>,
    /// The write that follows a trim already issued.
    pending: Option<Request>,
    tmp: Vec<Request>,
}

impl TrimStream {
    pub(super) fn new(inner: Box<dyn Workload>, mode: TrimMode) -> TrimStream {
        TrimStream {
            inner,
            mode,
            queue: VecDeque::new(),
            pending: None,
            tmp: Vec::new(),
        }
    }

    /// Pushes exactly `max` requests.
    pub(super) fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()> {
        let mut left = max;
        while left > 0 {
            if let Some(w) = self.pending.take() {
                buf.push(w);
                left -= 1;
                continue;
            }
            let Some(r) = self.queue.pop_front() else {
                self.tmp.clear();
                self.inner.fill(&mut self.tmp, max.max(16))?;
                if self.tmp.is_empty() {
                    return Ok(());
                }
                self.queue.extend(self.tmp.drain(..));
                continue;
            };
            buf.push(Request { op: Op::Trim, ..r });
            left -= 1;
            if self.mode == TrimMode::ThenWrite {
                self.pending = Some(Request { op: Op::Write, ..r });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::fio::FioJob;

    fn requests(rw: Rw, n: usize, chunk: usize) -> Vec<Request> {
        let job = FioJob {
            rw,
            bs: 8192,
            size: Some(1 << 20),
            iodepth: 1,
            seed: 9,
            ..FioJob::default()
        };
        let mut w = job.workload(1 << 14, 4096).unwrap();
        let mut out = Vec::new();
        while out.len() < n {
            let before = out.len();
            w.fill(&mut out, chunk).unwrap();
            // Exactly as many as asked, whatever the pairing left over.
            assert_eq!(out.len() - before, chunk);
        }
        out.truncate(n);
        out
    }

    #[test]
    fn trims_follow_the_write_pattern() {
        let w = requests(Rw::RandWrite, 300, 7);
        let t = requests(Rw::RandTrim, 300, 7);
        assert!(t.iter().all(|r| r.op == Op::Trim));
        let at = |v: &[Request]| v.iter().map(|r| (r.lpn, r.pages)).collect::<Vec<_>>();
        assert_eq!(at(&w), at(&t));
        let s = requests(Rw::Trim, 5, 2);
        assert_eq!(at(&s), [(0, 2), (2, 2), (4, 2), (6, 2), (8, 2)]);
    }

    #[test]
    fn trimwrite_trims_each_block_then_writes_it() {
        // Sequential: T0 W0 T1 W1 ... (odd fills split a pair across calls).
        let s = requests(Rw::TrimWrite, 6, 3);
        let got: Vec<(Op, u64)> = s.iter().map(|r| (r.op, r.lpn)).collect();
        assert_eq!(
            got,
            [
                (Op::Trim, 0),
                (Op::Write, 0),
                (Op::Trim, 2),
                (Op::Write, 2),
                (Op::Trim, 4),
                (Op::Write, 4)
            ]
        );
        // Random: pairs on the random write pattern's blocks, in its order.
        let w = requests(Rw::RandWrite, 100, 5);
        let t = requests(Rw::RandTrimWrite, 200, 5);
        for (k, pair) in t.chunks(2).enumerate() {
            assert_eq!((pair[0].op, pair[1].op), (Op::Trim, Op::Write));
            assert_eq!((pair[0].lpn, pair[1].lpn), (w[k].lpn, w[k].lpn));
        }
        assert_eq!(Rw::RandTrimWrite.trim_mode().per_block(), 2);
        assert_eq!(Rw::RandTrim.trim_mode().per_block(), 1);
    }

    #[test]
    fn a_trim_pattern_takes_one_block_size() {
        let job = FioJob {
            rw: Rw::TrimWrite,
            block_sizes: Some(
                crate::workload::fio::BlockSizeMix::parse_bssplit("4k/50:8k/50", 4096).unwrap(),
            ),
            ..FioJob::default()
        };
        let e = job
            .workload(1 << 14, 4096)
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("fio.bs") && e.contains("one block size"), "{e}");
    }
}
