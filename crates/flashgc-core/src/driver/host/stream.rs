//! The streaming API's side of the driver (`Driver::start` / `submit` / `finish`): one
//! request at a time with its arrival time, for callers that own the request source (an
//! NBD server). Its flushes are in `flush.rs`.

use super::Core;
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::sim::Simulation;
use crate::workload::Request;

impl<D: DeviceModel> Core<D> {
    /// Streaming: serves `req` at `t` (not before the previous arrival) and records it;
    /// returns its completion, or None under deferred commit (a priority scheduler or
    /// suspend), where it is decided by later arrivals and recorded once final. `fua`: a
    /// write completes only once its pages are programmed (`driver/host/flush.rs`).
    pub(crate) fn submit(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
        t: u64,
        fua: bool,
    ) -> Result<Option<u64>> {
        self.start(sim)?;
        let logical = sim.layout().logical_pages;
        let end = req.lpn.saturating_add(req.pages as u64);
        if req.pages == 0 || end > logical {
            return Err(Error::Workload(format!(
                "request {}: pages {}..{} exceed the logical capacity of {logical} pages",
                self.stats.requests + 1,
                req.lpn,
                end
            )));
        }
        let t = t.max(self.stats.last_arrival);
        self.stats.last_arrival = t;
        let mut rec = self
            .stream_rec
            .take()
            .unwrap_or_else(|| self.new_recorder(sim, None));
        if fua && req.op == crate::workload::Op::Write {
            self.flushes.fua_writes += 1;
        }
        let r = if self.deferred.is_some() {
            // Decided later: recorded once final (at a later arrival or at the end).
            self.submit_stream_deferred(sim, req, t, &mut rec, fua)
                .map(|()| None)
        } else {
            self.record_served(sim, req, t, fua, &mut rec).map(Some)
        };
        self.stream_rec = Some(rec);
        // This request's completion (not the latest of all: an open-loop host has others
        // outstanding that may end later).
        r
    }
}
