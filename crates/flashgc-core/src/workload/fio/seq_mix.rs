//! Sequential offsets inside a random job: fio's `percentage_random` (and
//! `percentage_sequential`) and the `rw=randX:N` modifier.
//!
//! What follows fio 3.33 (io_u.c `get_next_offset`, `get_next_block`, `should_do_random`,
//! `get_next_seq_offset`, `mark_random_map`; backend.c `do_io`, `keep_running`; checked
//! against its `write_iolog`, tests below and in the command line's tests):
//!
//! * `rw=randX:N`: a job-wide counter, 1 at the start and N after each hit, lets only
//!   every Nth request (the 1st, the N+1st, ...) take a random offset; it is not reset
//!   between passes. The others are sequential.
//! * A request the counter lets through is random with probability `percentage_random`
//!   of its direction (`R,W`), drawn from a generator of its own per direction (fio's
//!   `seq_rand_state`, both seeded alike).
//! * `rw_sequencer=identical` (fio's `RW_SEQ_IDENT`): a request the counter does not let
//!   through starts where the last request of its direction started (random or not; the
//!   region's start when the pass has none yet: `last_start` is -1), so each random offset
//!   is used N times in a row; it is not marked in the random map (`IO_U_F_BUSY_OK`) and
//!   never ends a pass. A request the counter lets through is random or sequential as
//!   `percentage_random` says, as with the default sequencer.
//! * A sequential request starts where the last request of its direction ended (random
//!   or not). It is not marked in the random map, so a later random pick may land there.
//!   Past the region's end it ends the pass (the request is not issued) when the device
//!   goes on; where the region ends at the device's end it takes an unmarked random block
//!   instead. A `time_based` job wraps to the region's start.
//! * A pass ends when a random pick finds the map full (or the LFSR's cycle spent), when a
//!   sequential pick runs off the region, or, with an asynchronous engine, once the pass
//!   has issued `size` bytes (fio counts issued bytes only for requests the engine queues:
//!   `io_queue_event`, `FIO_Q_QUEUED`). A synchronous engine's pass runs on until a pick
//!   fails. A new pass clears the map and the last positions and, with `randrepeat=1`
//!   (fio's default), reseeds every generator, so it repeats the first pass's draws.
//! * The job ends at `io_size x loops` bytes, after `loops` passes when a pass leaves
//!   less than a block of the volume, or when a pass ended on a failed pick and no
//!   `io_size` was given (`keep_running`: the file is done). So a pass that runs off the
//!   region early can end the job early, as in fio.
//!
//! What flashgc chooses: its own seeded generators for the directions, the random blocks
//! and the random-or-sequential draws (fio's Tausworthe numbers are not reproduced), so
//! which requests are sequential and where random ones land differ from fio's log
//! request by request; the rules above do not. Requests are one block size long (a mix
//! of sizes and the non-uniform distributions are refused where the job is parsed).

use super::{BlockCycle, Dist, FioJob, RandomMap, Rw};
use crate::error::{Error, Result};
use crate::workload::{Op, Request, Rng, Workload};

/// How a random job mixes in sequential offsets.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SeqMix {
    /// Percent of the requests the counter lets through that take a random offset, per
    /// direction (reads, writes): fio's `percentage_random=R[,W]` (100: all).
    pub random_pct: [u8; 2],
    /// `rw=randX:N`: only every Nth request may take a random offset (1: every request).
    pub every: u32,
    /// Bytes after which a pass ends (fio's `size`, with an asynchronous engine; for a
    /// `norandommap` job that writes, the larger of `size` and `io_size`). None: a pass
    /// ends only when a pick fails (a synchronous engine).
    pub pass_bytes: Option<u64>,
    /// Whether the job's region ends at the device's end, where a sequential pick past
    /// it takes a random block instead of ending the pass.
    pub region_at_end: bool,
    /// Whether each pass starts from the generators' first state (`randrepeat=1`, not
    /// `time_based`).
    pub reseed: bool,
    /// `time_based`: no pass ends; the map clears when full, sequential picks wrap.
    pub time_based: bool,
    /// `rw_sequencer=identical`: the requests between random ones repeat the last
    /// offset of their direction instead of continuing from it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub identical: bool,
}

impl SeqMix {
    /// Whether the job has sequential picks at all (else it is a plain random job).
    pub fn active(&self) -> bool {
        self.every > 1 || self.random_pct.iter().any(|&p| p < 100)
    }
}

/// Where random picks come from.
#[derive(Debug, Clone)]
enum Picks {
    /// Uniform, with replacement (`norandommap`).
    Free,
    /// fio's random map: each block once per pass.
    Map(RandomMap),
    /// The LFSR's cycle: `taken` of its blocks used this pass.
    Cycle {
        cycle: BlockCycle,
        first: BlockCycle,
        taken: u64,
    },
}

/// The generators a pass restores when it reseeds.
#[derive(Debug, Clone)]
struct Draws {
    /// Directions (fio's `rwmix_state`).
    dir: Rng,
    /// Random blocks (fio's `random_state`).
    block: Rng,
    /// Random or sequential, per direction (fio's `seq_rand_state`).
    seq: [Rng; 2],
}

/// The request stream of a random job with sequential picks (infinite: a new pass
/// follows each; [`SeqMixStream::job_requests`] says where fio would stop).
#[derive(Debug, Clone)]
pub struct SeqMixStream {
    mix: SeqMix,
    picks: Picks,
    draws: Draws,
    first: Draws,
    blocks: u64,
    pages: u32,
    bs: u64,
    read_ratio: f64,
    /// Block after the last request of each direction (reads, writes), this pass.
    last_end: [u64; 2],
    /// Block of the last request of each direction this pass (fio's `last_start`).
    last_start: [Option<u64>; 2],
    /// fio's `td->ddir_seq_nr`.
    countdown: u32,
    pass_bytes: u64,
}

/// Which uniform random order the job's random picks follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickOrder {
    /// With replacement (`norandommap`).
    Free,
    /// fio's random map.
    Map,
    /// `random_generator=lfsr`.
    Lfsr,
}

impl SeqMixStream {
    /// The stream over a region of `blocks` blocks of `pages` pages (`bs` bytes each),
    /// reads with probability `read_ratio`.
    pub fn new(
        mix: SeqMix,
        order: PickOrder,
        blocks: u64,
        pages: u32,
        bs: u64,
        read_ratio: f64,
        seed: u64,
    ) -> SeqMixStream {
        let blocks = blocks.max(1);
        let picks = match order {
            PickOrder::Free => Picks::Free,
            PickOrder::Map => Picks::Map(RandomMap::new(blocks)),
            PickOrder::Lfsr => {
                let c = BlockCycle::new(blocks, seed);
                Picks::Cycle {
                    first: c.clone(),
                    cycle: c,
                    taken: 0,
                }
            }
        };
        let seq = Rng::new(seed ^ 0x7365_7172);
        let draws = Draws {
            dir: Rng::new(seed ^ 0x0064_6972),
            block: Rng::new(seed),
            seq: [seq.clone(), seq],
        };
        SeqMixStream {
            mix,
            picks,
            first: draws.clone(),
            draws,
            blocks,
            pages: pages.max(1),
            bs: bs.max(1),
            read_ratio,
            last_end: [0; 2],
            last_start: [None; 2],
            countdown: 1,
            pass_bytes: 0,
        }
    }

    /// A random block (`mark`: in the map; fio's sequential fallback does not mark);
    /// None when the pass's random order is spent.
    fn random_block(&mut self, mark: bool) -> Option<u64> {
        let b = self.draws.block.below(self.blocks);
        match &mut self.picks {
            Picks::Free => Some(b),
            Picks::Map(m) => {
                if m.free() == 0 {
                    return None;
                }
                let got = m.free_at_or_after(b);
                if mark {
                    m.mark(got);
                }
                Some(got)
            }
            Picks::Cycle { cycle, taken, .. } => {
                if *taken == self.blocks {
                    return None;
                }
                *taken += 1;
                Some(cycle.next_block())
            }
        }
    }

    /// A random block for a `time_based` job: a spent order starts over (fio's
    /// `get_next_rand_block` resets the file and draws again).
    fn random_block_timed(&mut self, mark: bool) -> u64 {
        match self.random_block(mark) {
            Some(b) => b,
            None => {
                self.clear_pass();
                self.random_block(mark).unwrap_or(0)
            }
        }
    }

    /// The next request of this pass, or None where fio's pick fails and the pass ends
    /// (the request is not issued).
    pub fn step(&mut self) -> Option<Request> {
        if self.mix.pass_bytes.is_some_and(|p| self.pass_bytes >= p) {
            return None;
        }
        let op = self.draws.dir.read_or_write(self.read_ratio);
        let d = (op == Op::Write) as usize;
        let hit = if self.mix.every > 1 {
            self.countdown -= 1;
            if self.countdown == 0 {
                self.countdown = self.mix.every;
                true
            } else {
                false
            }
        } else {
            true
        };
        let pct = self.mix.random_pct[d];
        let random = hit && (pct >= 100 || self.draws.seq[d].below(100) < pct as u64);
        let block = if !hit && self.mix.identical {
            // fio: `last_start - file_offset`, or 0 before the pass's first request.
            self.last_start[d].unwrap_or(0)
        } else if random {
            if self.mix.time_based {
                self.random_block_timed(true)
            } else {
                self.random_block(true)?
            }
        } else {
            let pos = self.last_end[d];
            if pos < self.blocks {
                pos
            } else if self.mix.time_based {
                0
            } else if self.mix.region_at_end {
                self.random_block(false)?
            } else {
                return None;
            }
        };
        self.last_end[d] = block + 1;
        self.last_start[d] = Some(block);
        self.pass_bytes += self.bs;
        Some(Request::at_block(op, block, self.pages))
    }

    /// What a new pass clears: the map (or the cycle), the last positions, the pass's
    /// bytes.
    fn clear_pass(&mut self) {
        match &mut self.picks {
            Picks::Free => {}
            Picks::Map(m) => m.clear(),
            Picks::Cycle {
                cycle,
                first,
                taken,
            } => {
                *cycle = first.clone();
                *taken = 0;
            }
        }
        self.last_end = [0; 2];
        self.last_start = [None; 2];
        self.pass_bytes = 0;
    }

    /// Starts the next pass (fio's `clear_io_state` and the file's reopening).
    pub fn new_pass(&mut self) {
        self.clear_pass();
        if self.mix.reseed {
            self.draws = self.first.clone();
        }
    }

    /// Requests fio issues before the job ends (module docs): `io_bytes` per loop
    /// (`io_size`, else `size`; `io_size_given` says which), `loops` times, at most
    /// `number_ios` per loop. Runs a copy of the stream from its start.
    pub fn job_requests(
        &self,
        io_bytes: u64,
        io_size_given: bool,
        loops: u32,
        number_ios: Option<u64>,
    ) -> u64 {
        let mut s = self.clone();
        let bs = self.bs;
        let loops = loops.max(1) as u64;
        let total = io_bytes.saturating_mul(loops);
        let cap = number_ios.map(|n| n.saturating_mul(loops));
        let (mut issued, mut loops_left, mut done, mut first) = (0u64, loops, false, true);
        loop {
            // keep_running
            if loops_left > 0 {
                loops_left -= 1;
            } else {
                let bytes = issued.saturating_mul(bs);
                if cap.is_some_and(|c| issued >= c)
                    || bytes >= io_bytes
                    || io_bytes - bytes < bs
                    || (done && !io_size_given)
                {
                    break;
                }
            }
            if !first {
                s.new_pass();
            }
            first = false;
            // do_io
            done = false;
            loop {
                if issued.saturating_mul(bs) >= total || cap.is_some_and(|c| issued >= c) {
                    break;
                }
                if s.mix.pass_bytes.is_some_and(|p| s.pass_bytes >= p) {
                    break;
                }
                match s.step() {
                    Some(_) => issued += 1,
                    None => {
                        done = true;
                        break;
                    }
                }
            }
        }
        issued.max(1)
    }
}

impl FioJob {
    /// The stream of a random job with sequential picks over `region` LPNs in requests
    /// of `pages` LPNs, reads with probability `read_ratio`; None when the job has none
    /// (fio applies them to random patterns only). Errors name `fio.percentage_random`
    /// for what is not modelled.
    pub(crate) fn seq_mix_stream(
        &self,
        region: u64,
        pages: u64,
        read_ratio: f64,
    ) -> Result<Option<SeqMixStream>> {
        let Some(m) = self.seq_mix.as_ref().filter(|m| m.active()) else {
            return Ok(None);
        };
        if !matches!(self.rw, Rw::RandRw | Rw::RandRead | Rw::RandWrite) {
            return Ok(None);
        }
        let order = match self.dist {
            Dist::RandomMap | Dist::RandomMapFresh => PickOrder::Map,
            Dist::Lfsr | Dist::LfsrFresh => PickOrder::Lfsr,
            Dist::Uniform => PickOrder::Free,
            _ => {
                return Err(Error::config(
                    "fio.percentage_random",
                    format!(
                        "sequential picks are modelled with uniform random offsets (the random map, norandommap \
                         or lfsr), not random_distribution={}",
                        self.dist.describe()
                    ),
                ))
            }
        };
        if self.numjobs > 1 {
            return Err(Error::config(
                "fio.numjobs",
                "each fio job keeps its own sequential positions: run the clones as host flows",
            ));
        }
        Ok(Some(SeqMixStream::new(
            m.clone(),
            order,
            region / pages.max(1),
            pages as u32,
            self.bs,
            read_ratio,
            self.seed,
        )))
    }
}

impl FioJob {
    /// Requests this job (one clone, its `size` its region) issues as fio counts them when
    /// it has sequential picks ([`SeqMixStream::job_requests`]); None without. `io_bytes`
    /// is the volume per loop (`io_size`, else `size`; `io_size_given` says which).
    pub fn seq_mix_requests(
        &self,
        logical_pages: u64,
        lpn_size: u32,
        io_bytes: u64,
        io_size_given: bool,
        loops: u32,
        number_ios: Option<u64>,
    ) -> Result<Option<u64>> {
        let lpn = lpn_size.max(1) as u64;
        let region = self.size.map_or(logical_pages, |b| b / lpn);
        let pages = self.bs / lpn;
        Ok(self
            .seq_mix_stream(region, pages, self.read_ratio())?
            .map(|s| s.job_requests(io_bytes, io_size_given, loops, number_ios)))
    }
}

impl Workload for SeqMixStream {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()> {
        let mut n = 0;
        while n < max {
            match self.step() {
                Some(r) => {
                    buf.push(r);
                    n += 1;
                }
                None => self.new_pass(),
            }
        }
        Ok(())
    }
    fn describe(&self) -> String {
        let m = &self.mix;
        let mut s = format!(
            "random with sequential picks (percentage_random={},{}",
            m.random_pct[0], m.random_pct[1]
        );
        if m.every > 1 {
            s.push_str(&format!(", a random offset every {} requests", m.every));
        }
        if m.identical {
            s.push_str(", rw_sequencer=identical");
        }
        s.push(')');
        s
    }
    fn is_infinite(&self) -> bool {
        true
    }
}

#[cfg(test)]
#[path = "seq_mix_tests.rs"]
mod tests;
