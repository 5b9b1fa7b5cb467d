//! How many requests a fio job of one block size issues, pass by pass, as fio 3.x counts
//! them: a job transfers its volume (`io_size`, else `size`) in passes over its region,
//! and the last request of a pass or of the job may run past a byte count but never
//! starts after it.
//!
//! fio's sources: `do_io` (backend.c) ends a pass once it has issued `size` bytes, or when
//! no next block exists (the random map is full, or a sequential block would run past the
//! device's end); `keep_running` starts another pass while `io_size` is not reached, unless
//! what is left is less than a block; `io_issue_bytes_exceeded` ends the job mid-pass at
//! `io_size`. Checked against fio 3.33's own logs (`write_iolog`) in the tests below and in
//! the command line's `fio_passes_cli` test.

use super::{CloneRegion, JobSpec};
use crate::workload::fio::Dist;

impl JobSpec {
    /// Requests in one of fio's passes over the clone's region `r` when a pass ends before
    /// the volume does (a job of one block size): a sequential job's blocks (its region
    /// already holds a last block past `size` where the device has room,
    /// [`JobSpec::clone_region`]), a random-map job's whole blocks. None when a pass runs
    /// to the volume: random offsets drawn with replacement (`norandommap`, non-uniform
    /// distributions) on a synchronous engine, and block-size mixes. With an asynchronous
    /// engine fio ends a with-replacement pass once it has issued `size` bytes (a job that
    /// writes: the larger of `size` and `io_size`), as it counts issued bytes only for
    /// queued requests ([`JobSpec::with_replacement_pass`]).
    pub fn pass_requests(&self, r: &CloneRegion) -> Option<u64> {
        if self.block_sizes.is_some() {
            return None;
        }
        let bs = self.bs.max(1);
        if let Some(p) = self.with_replacement_pass(r) {
            return Some(p);
        }
        if let Some(p) = self.holed_pass(r) {
            return p;
        }
        (self.rw.sequential()
            || matches!(
                self.dist,
                Dist::RandomMap | Dist::RandomMapFresh | Dist::Lfsr | Dist::LfsrFresh
            ))
        .then(|| (r.size / bs).max(1))
    }

    /// Requests in an asynchronous engine's pass of a random job of one block size that
    /// draws with replacement (fio's backend.c `do_io`: `bytes_issued >= total_bytes`,
    /// `total_bytes` = `size`, or for a `norandommap` random job that writes the larger of
    /// `size` and `io_size`); None for other jobs. Not `time_based` (its bytes end nothing).
    pub fn with_replacement_pass(&self, r: &CloneRegion) -> Option<u64> {
        let with_replacement = !matches!(
            self.dist,
            Dist::RandomMap | Dist::RandomMapFresh | Dist::Lfsr | Dist::LfsrFresh
        );
        if self.engine != super::EngineKind::Async
            || self.time_based
            || self.rw.sequential()
            || !with_replacement
            || self.block_sizes.is_some()
            || self.has_seq_mix()
        {
            return None;
        }
        let writes = !matches!(self.rw, super::Rw::RandRead);
        let total = if writes {
            r.size.max(self.io_size.map_or(0, |_| r.io_bytes))
        } else {
            r.size
        };
        Some(total.div_ceil(self.bs.max(1)).max(1))
    }

    /// Requests after which the clone on region `r` starts its draws over, when that
    /// comes before the job ends: an asynchronous engine's with-replacement pass
    /// ([`JobSpec::with_replacement_pass`]) reseeds fio's generators (`randrepeat=1`), which
    /// repeats uniform (`norandommap`) and zoned offsets and the directions; zipf, pareto
    /// and normal keep their own generator state across passes (fio 3.33's logs).
    pub fn repeat_every(&self, r: &CloneRegion) -> Option<u64> {
        let reseeded = matches!(self.dist, Dist::Uniform | Dist::Zoned(_));
        let p = match self.holed_repeat(r) {
            Some(p) => p,
            None => self
                .with_replacement_pass(r)
                .filter(|_| reseeded && self.randrepeat)?,
        };
        (self.plain_requests(r) > p).then_some(p)
    }

    /// Requests in each of the clone's passes when fio drains its queue between them
    /// (module `flows::drain`): a job of one block size with more than one pass (`loops`,
    /// or `io_size` beyond a pass), a queue deeper than 1 and no `time_based` (whose
    /// offsets wrap inside one pass). A trim-then-write job's pass holds a trim and a
    /// write per block (approximate, as its request count). None otherwise: block-size
    /// mixes and sequential picks, whose passes flashgc does not follow, run on without a
    /// drain (approximate; docs/flows.md).
    pub fn drain_every(&self, r: &CloneRegion) -> Option<u64> {
        // At depth 1 a drain changes nothing, but a flushing job's passes matter: fio syncs
        // at each pass's end (`end_fsync`, `fsync_on_close`) and a new pass forgets that
        // the last completion was a sync (`clear_io_state`; module `flows::flush`).
        let flushes_per_pass = self.flushes();
        if (self.iodepth <= 1 && !flushes_per_pass) || self.time_based || self.has_seq_mix() {
            return None;
        }
        let pass = self
            .pass_requests(r)?
            .saturating_mul(self.rw.trim_mode().per_block());
        (self.plain_requests(r) > pass).then_some(pass)
    }

    /// Requests clone region `r` of a job of one block size issues: its passes
    /// ([`fio_requests`]), at most `number_ios` per loop (fio's `exceeds_number_ios`
    /// multiplies by the loops too).
    ///
    /// Trim-then-write jobs issue a trim and a write per block. A random-map one does so
    /// for each block of its passes; a sequential one ends its pass at twice `size` bytes,
    /// so a region that is not a whole number of blocks ends on a lone trim (fio 3.33's
    /// logs). With `io_size`, `number_ios` or `loops` fio counts their trims and writes by rules of
    /// their own (writes alone against `io_size` within a pass, both between passes), which
    /// flashgc does not follow: there they issue twice the requests of the volume, and the
    /// run's notes say so ([`super::JobFile::notes`]).
    pub fn plain_requests(&self, r: &CloneRegion) -> u64 {
        if let Some(n) = self.holed_requests(r) {
            return n;
        }
        let bs = self.bs.max(1);
        let n = if self.rw.trim_mode().per_block() == 1 {
            fio_requests(r.io_bytes, bs, self.pass_requests(r), self.loops)
        } else if matches!(
            self.dist,
            Dist::RandomMap | Dist::RandomMapFresh | Dist::Lfsr | Dist::LfsrFresh
        ) {
            fio_requests(r.io_bytes, bs, self.pass_requests(r), self.loops).saturating_mul(2)
        } else {
            r.io_bytes
                .saturating_mul(2 * self.loops.max(1) as u64)
                .div_ceil(bs)
                .max(1)
        };
        let twice = self.rw.trim_mode().per_block();
        self.number_ios
            .map_or(n, |k| {
                n.min(k.saturating_mul(twice * self.loops.max(1) as u64))
            })
            .max(1)
    }
}

/// Requests a clone issues to transfer `io_bytes` (per loop) in requests of `bs` bytes, in
/// passes of `pass` requests (None: one pass to the volume), `loops` times over.
///
/// Mid-pass the job ends at the request that reaches `loops` x `io_bytes`
/// (`io_issue_bytes_exceeded` multiplies by the loops). The first `loops` passes always
/// run (`keep_running` counts the loops down first); after them another pass starts while
/// what is left of `io_bytes` (once, not per loop) is at least a block. A job with no
/// volume issues one request.
pub fn fio_requests(io_bytes: u64, bs: u64, pass: Option<u64>, loops: u32) -> u64 {
    let bs = bs.max(1);
    let cap = io_bytes
        .saturating_mul(loops.max(1) as u64)
        .div_ceil(bs)
        .max(1);
    let Some(p) = pass else {
        return cap;
    };
    let p = p.max(1);
    let forced = p.saturating_mul(loops.max(1) as u64).min(cap);
    // Less than a block is left once `floor(io_bytes / bs)` requests are done.
    let whole = io_bytes / bs;
    if forced >= whole {
        forced
    } else {
        whole.div_ceil(p).saturating_mul(p).min(cap)
    }
}

#[cfg(test)]
mod tests {
    use super::fio_requests;

    const K: u64 = 1024;

    /// fio 3.33's request counts, read from its `write_iolog` on a 1 MiB file
    /// (`--rw=R --size=S --bs=B [--io_size=I] [--norandommap]`), against the model with
    /// each job's pass: sequential `ceil(S / B)` blocks, random map `floor(S / B)`, none
    /// with replacement.
    #[test]
    fn counts_match_fio_logs() {
        // (size, io_size, bs, pass, fio's count)
        let seq = |s: u64, b: u64| Some(s.div_ceil(b));
        let map = |s: u64, b: u64| Some(s / b);
        let cases = [
            // rw=write, size=10k: w0 w4 w8 (the last block runs past the region).
            (10 * K, 10 * K, 4 * K, seq(10 * K, 4 * K), 3),
            // rw=write, io_size=20k: w0 w4 w8 w0 w4.
            (10 * K, 20 * K, 4 * K, seq(10 * K, 4 * K), 5),
            // rw=write, io_size=13k: one pass of 12k, 1k left is less than a block.
            (10 * K, 13 * K, 4 * K, seq(10 * K, 4 * K), 3),
            // rw=randwrite, size=10k: the map holds two blocks: w0 w4.
            (10 * K, 10 * K, 4 * K, map(10 * K, 4 * K), 2),
            // rw=randwrite, io_size=20k: w0 w4 w0 w4 w0.
            (10 * K, 20 * K, 4 * K, map(10 * K, 4 * K), 5),
            // rw=randwrite, io_size=11k: 8k, then 3k left.
            (10 * K, 11 * K, 4 * K, map(10 * K, 4 * K), 2),
            // rw=randwrite, io_size=13k: 8k, 5k left, another pass to 16k.
            (10 * K, 13 * K, 4 * K, map(10 * K, 4 * K), 4),
            // rw=randwrite, size=14k, bs=8k, io_size=18k: passes of one block, 16k, 2k left.
            (14 * K, 18 * K, 8 * K, map(14 * K, 8 * K), 2),
            // rw=randwrite --norandommap, size=10k: w0 w4 w4.
            (10 * K, 10 * K, 4 * K, None, 3),
            // rw=randread --norandommap, size=8k, io_size=9k: r r r.
            (8 * K, 9 * K, 4 * K, None, 3),
        ];
        for (size, io, bs, pass, want) in cases {
            assert_eq!(
                fio_requests(io, bs, pass, 1),
                want,
                "size {size} io_size {io} bs {bs} pass {pass:?}"
            );
        }
    }

    #[test]
    fn whole_volumes_are_whole_passes() {
        for pass in [None, Some(1), Some(3), Some(7)] {
            assert_eq!(fio_requests(12 * K, 4 * K, pass, 1), 3);
        }
        assert_eq!(fio_requests(0, 4 * K, Some(2), 1), 1);
    }

    /// fio 3.33 with `loops` (`write_iolog` on a 1 MiB file): each loop is a pass, the
    /// volume and `number_ios` are per loop.
    #[test]
    fn loops_are_passes() {
        let cases = [
            // rw=write size=10k loops=2: w0 w4 w8 w0 w4 (the volume, 20k, ends loop 2).
            (10 * K, 4 * K, Some(3), 2, 5),
            // rw=randwrite size=10k loops=2 / 3: two blocks a loop.
            (10 * K, 4 * K, Some(2), 2, 4),
            (10 * K, 4 * K, Some(2), 3, 6),
            // rw=randwrite size=10k io_size=21k loops=2: two loops of two blocks leave
            // 5k of 21k, so a third pass runs.
            (21 * K, 4 * K, Some(2), 2, 6),
            // rw=randwrite size=10k io_size=11k norandommap loops=2: 22k.
            (11 * K, 4 * K, None, 2, 6),
        ];
        for (io, bs, pass, loops, want) in cases {
            assert_eq!(
                fio_requests(io, bs, pass, loops),
                want,
                "io_size {io} bs {bs} pass {pass:?} loops {loops}"
            );
        }
    }
}
