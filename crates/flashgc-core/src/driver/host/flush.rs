//! Host flushes and FUA writes: when the device has made writes durable.
//!
//! * A host flow's flush (fio's `fsync=N`, `end_fsync`; docs/flows.md, "Flushes"):
//!   [`Core::flush_at`]; the flow adds the completion of its own earlier writes.
//! * A flush of the streaming API ([`Core::flush`]: `flashgc serve`'s `NBD_CMD_FLUSH`):
//!   the same, waiting for every write or trim served before it; counted, with its latency,
//!   in the timing report.
//! * A FUA write of the streaming API (`NBD_CMD_FLAG_FUA`): the write, then its own pages
//!   programmed if the write cache holds them dirty ([`Core::write_through`]); it
//!   completes when they are.
//! * A replayed trace's flushes ([`crate::workload::Op::Flush`] requests: blkparse `FN`,
//!   fio `sync`) and FUA writes ([`crate::workload::Request::fua`]): the same as the
//!   streaming API's, the flush arriving by the host model as a request would and, in a
//!   closed loop, holding its queue slot until it completes ([`Core::flush_next`]).
//!
//! With the write cache, durable means programmed: a flush programs the cache's dirty
//! pages (least recently used first), which stay cached, clean. Without one the device
//! holds nothing (a write completes when its program does). No command overhead is added.
//! Under deferred commit (a priority scheduler or suspend) completions are decided after
//! later arrivals: a FUA write's programs join its own request, and a flush's programs
//! wait in the scheduler's queues as a request of their own, the flush completing once
//! they and the writes, trims and flushes in flight at its arrival have
//! (`host/deferred.rs`).

use super::Core;
use crate::device::{DeviceModel, ReadGroup};
use crate::error::Result;
use crate::metrics::latency::Latencies;
use crate::sim::Simulation;
use crate::workload::Request;

/// The streaming API's and replayed traces' flushes and FUA writes (in a timed run's
/// checkpoint since format version 9; flows track their own flushes).
#[derive(Default, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct HostFlushes {
    /// The latest completion of a write or trim served so far, or of a program a flush or
    /// FUA write started: what a flush waits for besides its own programs.
    pub(super) writes_done: u64,
    /// Flushes served through [`Core::flush`].
    pub(super) count: u64,
    /// Their latencies, from arrival to completion.
    pub(super) latency: Latencies,
    /// FUA writes served.
    pub(super) fua_writes: u64,
}

impl HostFlushes {
    /// The report's note on the flushes and FUA writes served, when there were any and
    /// no write cache: they then program nothing, which a reader of a recording replayed
    /// without `--cache-mib` should know (`flashgc serve` says the same).
    pub(super) fn note(&self, cache: bool) -> Option<String> {
        (!cache && (self.count > 0 || self.fua_writes > 0)).then(|| {
            format!(
                "{} flushes and {} FUA writes: without a write cache the device holds no data a flush must program (a flush waits for the earlier writes only)",
                self.count, self.fua_writes
            )
        })
    }
}

impl<D: DeviceModel> Core<D> {
    /// A host flow's flush at `t`: programs the write cache's dirty pages; returns when
    /// the last program ends (`t` without a cache, or with nothing dirty).
    pub(in crate::driver) fn flush_at(&mut self, sim: &mut Simulation, t: u64) -> Result<u64> {
        let Some(c) = &mut self.cache else {
            return Ok(t);
        };
        let dirty = c.take_dirty();
        self.program(sim, dirty, t)
    }

    /// Programs `lpns` (taken from the cache, clean now) from `t`; returns when the last
    /// program ends (`t` for none).
    fn program(&mut self, sim: &mut Simulation, lpns: Vec<u32>, t: u64) -> Result<u64> {
        let (mut done, mut host_ready) = (t, t);
        let mut rg = ReadGroup::default();
        for lpn in lpns {
            sim.ftl_mut().write(lpn)?;
            let e = self.schedule(sim, t, &mut host_ready, &mut rg);
            done = done.max(e);
        }
        self.host_busy_until = self.host_busy_until.max(done);
        // Data a later flush covers is durable only once these programs end.
        self.flushes.writes_done = self.flushes.writes_done.max(done);
        Ok(done)
    }

    /// The second half of a FUA write, or of a write of a flow with `sync=1`
    /// (docs/flows.md), `req` that arrived at `t` (and was just served): programs its
    /// pages that the write cache holds dirty; returns when they are programmed (`t`
    /// without a cache). Like a write with FUA, only the write's own pages (a device
    /// without FUA would flush its whole cache).
    pub(super) fn write_through(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
        t: u64,
    ) -> Result<u64> {
        let Some(c) = &mut self.cache else {
            return Ok(t);
        };
        let end = req.lpn + req.pages as u64;
        let lpns: Vec<u32> = (req.lpn..end)
            .map(|l| l as u32)
            .filter(|&l| c.take_dirty_page(l))
            .collect();
        self.program(sim, lpns, t)
    }

    /// Streaming: a host flush arriving at `t` (not before the previous arrival). It
    /// completes when the write cache's dirty pages are programmed and every write or trim
    /// served before it has completed; returns that time, or None under deferred commit,
    /// where that is decided by later arrivals (`Core::flush_stream_deferred`). Counted,
    /// with its latency, in the timing report once complete.
    pub(crate) fn flush(&mut self, sim: &mut Simulation, t: u64) -> Result<Option<u64>> {
        self.host_flush(sim, t, true)
    }

    /// A replayed trace's flush (`req`, an [`crate::workload::Op::Flush`]), arriving by
    /// the host model as a request would (open loop: its trace time; fixed rate: the next
    /// request's time; closed loop: when a queue slot frees), served as a streaming flush.
    /// Closed loop, it holds that slot until it completes, as an NVMe Flush command or a
    /// block-layer flush request holds a submission-queue entry: under fcfs its completion
    /// takes the slot's place in the completion heap at once; under deferred commit the
    /// slot is taken now and given back when the flush completes
    /// (`Core::stream_flush_progress`).
    pub(in crate::driver) fn flush_next(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
    ) -> Result<()> {
        let closed = matches!(self.p.host, crate::timing::Host::ClosedLoop { .. });
        if closed && self.deferred.is_some() {
            self.settle_closed();
        }
        let t = self.arrival(req);
        if closed && self.deferred.is_some() {
            self.stats.heap.pop();
        }
        let done = self.host_flush(sim, t, false)?;
        if let (true, Some(done)) = (closed, done) {
            if let Some(mut top) = self.stats.heap.peek_mut() {
                *top = std::cmp::Reverse(done);
            }
        }
        Ok(())
    }

    /// [`Core::flush`]; `streaming`: it comes through the streaming API (deferred commit
    /// then refills no closed-loop slots).
    fn host_flush(&mut self, sim: &mut Simulation, t: u64, streaming: bool) -> Result<Option<u64>> {
        self.start(sim)?;
        let t = t.max(self.stats.last_arrival);
        self.stats.last_arrival = t;
        if self.deferred.is_some() {
            return self.flush_stream_deferred(sim, t, streaming).map(|()| None);
        }
        let done = self.flush_at(sim, t)?.max(self.flushes.writes_done);
        let f = &mut self.flushes;
        f.count += 1;
        f.latency.record(done - t);
        Ok(Some(done))
    }
}
