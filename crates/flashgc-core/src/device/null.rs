//! The null device model: WAF-only runs. Nothing is timed; the driver never turns the
//! FTL's op log on for it and compiles its timed paths away ([`DeviceModel::TIMED`]).

use super::{DeviceModel, DeviceReport, GcPolicy, ReadGroup};
use crate::ops::FlashOp;
use crate::types::Ppn;

/// The device model of WAF-only runs: every operation takes no time.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullDevice;

impl DeviceModel for NullDevice {
    const TIMED: bool = false;

    fn name(&self) -> &'static str {
        "null"
    }

    #[inline(always)]
    fn schedule(
        &mut self,
        _ops: &[FlashOp],
        t: u64,
        _host_ready: &mut u64,
        _rg: &mut ReadGroup,
        _gc: GcPolicy,
    ) -> u64 {
        t
    }

    #[inline(always)]
    fn enqueue(&mut self, _ops: &[FlashOp], _t: u64) {}

    #[inline(always)]
    fn pump(&mut self, _limit: Option<u64>, _max_ops: usize) -> u64 {
        0
    }

    #[inline(always)]
    fn queued(&self) -> bool {
        false
    }

    #[inline(always)]
    fn read_unmapped(&mut self, t: u64) -> u64 {
        t
    }

    fn memory_access_ns(&self) -> u64 {
        0
    }

    fn collecting(&self, _ppn: Ppn, _t: u64) -> bool {
        false
    }

    fn makespan(&self) -> u64 {
        0
    }

    fn memory_bytes(&self) -> u64 {
        0
    }

    fn report(&self, _span_ns: u64) -> Option<DeviceReport> {
        None
    }

    fn describe(&self) -> String {
        "WAF only (no timing)".into()
    }

    fn save_state(&self) -> crate::error::Result<Vec<u8>> {
        Ok(Vec::new())
    }

    fn load_state(&mut self, _state: &[u8]) -> crate::error::Result<()> {
        Ok(())
    }
}
