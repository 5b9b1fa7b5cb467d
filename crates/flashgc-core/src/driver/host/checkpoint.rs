//! The driver's part of a timed run's checkpoint: device model, write cache, GC mode,
//! host statistics, firmware CPU and the requests in flight under deferred commit; and
//! the checks that a restored state fits the run before it goes on.

use super::{Core, HostStats};
use crate::device::cpu::Cpu;
use crate::device::DeviceModel;
use crate::driver::cache::WriteCache;
use crate::error::{Error, Result};
use crate::sim::Simulation;
use crate::timing::Host;

/// The driver's part of a checkpoint (a timed run's: device, cache, GC mode, statistics).
#[derive(serde::Serialize, serde::Deserialize)]
struct CoreState {
    device: Vec<u8>,
    cache: Option<WriteCache>,
    proactive: u64,
    host_busy_until: u64,
    stats: HostStats,
    /// The firmware CPU's state (None when its cost model is off).
    cpu: Option<Cpu>,
    /// Requests in flight under deferred commit (a priority scheduler or suspend).
    deferred: Option<super::deferred::Deferred>,
    /// A replayed trace's flushes and FUA writes so far (since format version 9).
    flushes: super::flush::HostFlushes,
}

impl<D: DeviceModel> Core<D> {
    /// The driver's state for a checkpoint (None for the null device: WAF-only
    /// checkpoints hold the simulation only).
    pub(crate) fn checkpoint_state(&self) -> Result<Option<Vec<u8>>> {
        if !D::TIMED {
            return Ok(None);
        }
        crate::checkpoint::encode(&CoreState {
            device: self.dev.save_state()?,
            cache: self.cache.clone(),
            proactive: self.gc.proactive,
            host_busy_until: self.host_busy_until,
            stats: self.stats.clone(),
            cpu: self.cpu.clone(),
            deferred: self.deferred.as_ref().map(|d| d.for_checkpoint()),
            flushes: self.flushes.clone(),
        })
        .map(Some)
    }

    /// Restores [`Core::checkpoint_state`]'s bytes into a driver built from the same
    /// configuration and timing parameters; the simulation was restored before.
    pub(crate) fn load_checkpoint_state(
        &mut self,
        sim: &mut Simulation,
        state: &[u8],
    ) -> Result<()> {
        let st: CoreState = crate::checkpoint::decode(state)?;
        self.dev.load_state(&st.device)?;
        self.dev
            .check_restored(sim.layout())
            .map_err(Error::Input)?;
        // Times, volumes and the counters the results subtract: what the driver adds to
        // or subtracts from must be where a run could have left it.
        let s = &st.stats;
        let now = &sim.ftl().counters;
        let times = crate::checkpoint::times_ok(
            [
                st.host_busy_until,
                s.last_arrival,
                s.first_t,
                s.first_arrival.unwrap_or(0),
                s.win.t0,
                s.data_bytes,
                s.requests,
            ]
            .into_iter()
            .chain(s.heap.iter().map(|r| r.0)),
        );
        let next_point = match self.p.checkpoint_bytes {
            0 => s.next_point == u64::MAX,
            b => s.next_point > s.data_bytes && s.next_point - s.data_bytes <= b,
        };
        let counters = s.start.not_after(now);
        if !(times && next_point && counters && s.reads.saturating_add(s.writes) <= s.requests) {
            return Err(Error::Input(
                "the host statistics do not fit the run (times, volumes or counters)".into(),
            ));
        }
        let logical = sim.layout().logical_pages as usize;
        if st.cache.is_some() != self.cache.is_some()
            || st
                .cache
                .as_ref()
                .is_some_and(|c| !c.consistent(logical, self.p.cache_pages as usize))
        {
            return Err(Error::Input(
                "the write cache state does not match the timing parameters".into(),
            ));
        }
        if st.deferred.is_some() != self.deferred.is_some() {
            return Err(Error::Input(
                "the checkpoint's scheduler (priority or suspend) does not match the timing parameters".into(),
            ));
        }
        if let Some(d) = &st.deferred {
            d.check(None)
                .and_then(|()| {
                    // The device's request slots are the driver's.
                    (d.slot_count() == self.dev.slots())
                        .then_some(())
                        .ok_or_else(|| "request slots differ from the device's".to_string())
                })
                .map_err(|e| {
                    Error::Input(format!("the requests in flight are inconsistent: {e}"))
                })?;
        }
        if let Host::ClosedLoop { queue_depth } = self.p.host {
            // Under deferred commit, outstanding requests wait in flight instead.
            let outstanding = st.deferred.as_ref().map_or(0, |d| d.inflight_single());
            if st.stats.heap.len() + outstanding != queue_depth as usize {
                return Err(Error::Input(
                    "the closed-loop state does not match the queue depth".into(),
                ));
            }
        }
        match (&self.cpu, &st.cpu) {
            (None, None) => {}
            (Some(c), Some(r)) if r.consistent(c.cores(), c.costs()) => {}
            _ => {
                return Err(Error::Input(
                    "the firmware CPU state does not match the timing parameters".into(),
                ))
            }
        }
        self.cpu = st.cpu;
        if st.deferred.is_some() {
            self.deferred = st.deferred;
        }
        if !crate::checkpoint::times_ok([st.flushes.writes_done]) {
            return Err(Error::Input(
                "the flush statistics do not fit the run (times or counts)".into(),
            ));
        }
        self.flushes = st.flushes;
        self.cache = st.cache;
        self.gc.proactive = st.proactive;
        self.host_busy_until = st.host_busy_until;
        self.stats = st.stats;
        self.started = true;
        sim.ftl_mut().set_op_log(D::TIMED);
        Ok(())
    }
}
