//! GC scheduling modes and idle-time background work: what the driver does before each
//! host arrival.

use crate::device::cpu::Cpu;
use crate::device::{DeviceModel, GcPolicy};
use crate::error::Result;
use crate::ftl::Ftl;
use crate::ops::FlashOp;
use crate::sim::Simulation;
use crate::timing::{GcMode, TimingParams};

/// Background work the driver runs while the host is idle (read scrub, deferred
/// migration of a dedup FTL, ...).
///
/// Idle detection: once no host request has been outstanding for `idle_us` (the timing
/// parameter), the driver calls [`IdleWork::step`] repeatedly until the next arrival. Each
/// step does one small unit of work on the FTL; the operations it issues (origin
/// `Background` or `Gc`) go to the FTL's op stream, and the driver schedules all of them at
/// once, issued when the step starts: a step that starts before the next arrival runs to
/// its end (host requests never preempt background work already started). Steps continue
/// from the end of the previous step's last operation. Works with every device model and
/// GC mode; WAF-only runs never call it (there is no idle time).
pub trait IdleWork: Send {
    /// Does one unit of work; false when there is nothing left to do (the driver stops
    /// calling until the next idle period).
    fn step(&mut self, ftl: &mut Ftl) -> Result<bool>;
}

impl<F: FnMut(&mut Ftl) -> Result<bool> + Send> IdleWork for F {
    fn step(&mut self, ftl: &mut Ftl) -> Result<bool> {
        self(ftl)
    }
}

/// Where GC work issued before a host arrival goes: the op buffer, and the firmware CPU
/// (None when its cost model is off).
pub(super) struct Issue<'a> {
    pub(super) ops: &'a mut Vec<FlashOp>,
    pub(super) cpu: &'a mut Option<Cpu>,
}

/// The GC scheduling mode and its state.
pub(super) struct GcSched {
    mode: GcMode,
    pace: usize,
    bg_free: u32,
    idle_ns: u64,
    /// Victims collected ahead of need (background and idle modes).
    pub(super) proactive: u64,
}

impl GcSched {
    pub(super) fn new(p: &TimingParams, gc_high: u32) -> GcSched {
        GcSched {
            mode: p.gc_mode,
            pace: p.gc_pace as usize,
            bg_free: p.bg_free.unwrap_or(gc_high + 2),
            idle_ns: (p.idle_us * 1000.0).round() as u64,
            proactive: 0,
        }
    }

    /// How the device schedules GC work the FTL issues during host operations.
    #[inline(always)]
    pub(super) fn policy(&self) -> GcPolicy {
        GcPolicy {
            now: self.mode.immediate(),
            barrier: self.mode == GcMode::Foreground,
        }
    }

    /// Whether FTL decisions depend on simulated time in this mode.
    pub(super) fn timing_dependent(&self) -> bool {
        matches!(self.mode, GcMode::Background | GcMode::Idle)
    }

    /// Drains the FTL's op stream into the device's queue, issued at `t` (their CPU work
    /// occupies a firmware core when the CPU model is on).
    fn enqueue<D: DeviceModel>(sim: &mut Simulation, dev: &mut D, out: &mut Issue<'_>, t: u64) {
        let ops = &mut *out.ops;
        ops.clear();
        sim.ftl_mut().drain_ops(ops);
        if let Some(c) = out.cpu.as_mut() {
            c.internal(ops, t);
        }
        dev.enqueue(ops, t);
    }

    /// GC (and background) work due before a host arrival at `t`; the host was last busy
    /// until `busy_until`.
    #[inline]
    pub(super) fn before_arrival<D: DeviceModel>(
        &mut self,
        sim: &mut Simulation,
        dev: &mut D,
        out: &mut Issue<'_>,
        busy_until: u64,
        t: u64,
        idle_work: &mut Option<Box<dyn IdleWork>>,
    ) -> Result<()> {
        let mut idle_from = busy_until.saturating_add(self.idle_ns);
        match self.mode {
            GcMode::Foreground | GcMode::PerDie => {}
            GcMode::Preemptible => {
                dev.pump(Some(t), usize::MAX);
                dev.pump(None, self.pace);
            }
            GcMode::Background => {
                dev.pump(Some(t), usize::MAX);
                dev.pump(None, self.pace);
                if !dev.queued() && sim.ftl_mut().collect_if_below(self.bg_free)? {
                    self.proactive += 1;
                    Self::enqueue(sim, dev, out, t);
                    dev.pump(Some(t), usize::MAX);
                }
            }
            GcMode::Idle => {
                let mut at = idle_from;
                while at < t && !dev.queued() {
                    if !sim.ftl_mut().collect_if_below(self.bg_free)? {
                        break;
                    }
                    self.proactive += 1;
                    Self::enqueue(sim, dev, out, at);
                    let end = dev.pump(Some(t), usize::MAX);
                    at = at.max(end);
                }
                idle_from = at;
                dev.pump(Some(t), usize::MAX);
                dev.pump(None, self.pace);
            }
        }
        if let Some(w) = idle_work.as_mut() {
            let mut at = idle_from;
            while at < t {
                if !w.step(sim.ftl_mut())? {
                    break;
                }
                Self::enqueue(sim, dev, out, at);
                let end = dev.pump(None, usize::MAX);
                at = at.max(end);
            }
        }
        Ok(())
    }
}
