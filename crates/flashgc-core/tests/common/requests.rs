//! Workloads built from explicit request lists.

use flashgc_core::workload::{Request, Workload};

/// Replays a list of requests once, in order, with their own timestamps.
pub struct Requests {
    reqs: Vec<Request>,
    pos: usize,
    may_flush: bool,
}

impl Requests {
    /// A workload of `reqs`.
    pub fn new(reqs: Vec<Request>) -> Requests {
        Requests {
            reqs,
            pos: 0,
            may_flush: true,
        }
    }

    /// A workload of `reqs` that says it hands out no flushes or FUA writes
    /// ([`Workload::may_flush`] false: the driver's batch loop without their tests).
    pub fn without_flushes(reqs: Vec<Request>) -> Requests {
        Requests {
            may_flush: false,
            ..Requests::new(reqs)
        }
    }
}

impl Workload for Requests {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> flashgc_core::Result<()> {
        let n = (self.reqs.len() - self.pos).min(max);
        buf.extend_from_slice(&self.reqs[self.pos..self.pos + n]);
        self.pos += n;
        Ok(())
    }
    fn describe(&self) -> String {
        format!("{} listed requests", self.reqs.len())
    }
    fn may_flush(&self) -> bool {
        self.may_flush
    }
}
