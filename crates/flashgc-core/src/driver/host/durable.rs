//! What a host flow makes durable: its flushes (`fsync`, docs/flows.md "Flushes") and its
//! `sync=1` writes, through the write cache when there is one.

use super::Core;
use crate::device::{DeviceModel, ReadGroup};
use crate::error::Result;
use crate::sim::Simulation;
use crate::workload::Request;

impl<D: DeviceModel> Core<D> {
    /// A host flow's flush at `t` (docs/flows.md, "Flushes"): when the device has made
    /// every write it holds durable. With the write cache its dirty pages are programmed
    /// (least recently used first) and stay cached, clean; the flush completes when the
    /// last program ends. Without one the device holds nothing (a write completes when its
    /// program does), so `t`. No flush command overhead is added.
    pub(in crate::driver) fn flush_at(&mut self, sim: &mut Simulation, t: u64) -> Result<u64> {
        let Some(c) = &mut self.cache else {
            return Ok(t);
        };
        let dirty = c.take_dirty();
        let (mut done, mut host_ready) = (t, t);
        let mut rg = ReadGroup::default();
        for lpn in dirty {
            sim.ftl_mut().write(lpn)?;
            let e = self.schedule(sim, t, &mut host_ready, &mut rg);
            done = done.max(e);
        }
        self.host_busy_until = self.host_busy_until.max(done);
        Ok(done)
    }

    /// A `sync=1` write (O_SYNC) served at `t`: with the write cache, the pages it left
    /// dirty are programmed now (least recently used first, as a flush would) and stay
    /// cached, clean; returns when the last program ends (`t` without a cache, where the
    /// write completed on flash already). Like a write with FUA: only the write's own
    /// pages (a device without FUA would flush its whole cache; docs/flows.md).
    pub(in crate::driver) fn write_through(
        &mut self,
        sim: &mut Simulation,
        req: &Request,
        t: u64,
    ) -> Result<u64> {
        let Some(c) = &mut self.cache else {
            return Ok(t);
        };
        let end = req.lpn + req.pages as u64;
        let dirty: Vec<u32> = (req.lpn..end)
            .map(|l| l as u32)
            .filter(|&l| c.clean(l))
            .collect();
        let (mut done, mut host_ready) = (t, t);
        let mut rg = ReadGroup::default();
        for lpn in dirty {
            sim.ftl_mut().write(lpn)?;
            let e = self.schedule(sim, t, &mut host_ready, &mut rg);
            done = done.max(e);
        }
        self.host_busy_until = self.host_busy_until.max(done);
        Ok(done)
    }
}
