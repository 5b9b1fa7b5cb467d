//! The NoC model's time series (paper Figs. 7-8): host requests, GC tasks, copy-backs and
//! pending work per window of simulated time.

/// Growable time series of per-window counters and pending-count deltas.
#[derive(Debug, Clone, Default)]
pub(crate) struct Series {
    pub(crate) window_ns: u64,
    pub(crate) host_requests: Vec<u64>,
    pub(crate) gc_tasks: Vec<u64>,
    pub(crate) copybacks: Vec<u64>,
    pub(crate) pending_host: Vec<i64>,
    pub(crate) pending_gc: Vec<i64>,
}

const MAX_WINDOWS: usize = 1 << 16;

impl Series {
    pub(crate) fn bucket(&mut self, t: u64) -> usize {
        let mut b = (t / self.window_ns) as usize;
        while b >= MAX_WINDOWS {
            self.coarsen();
            b = (t / self.window_ns) as usize;
        }
        if b >= self.host_requests.len() {
            let n = b + 1;
            self.host_requests.resize(n, 0);
            self.gc_tasks.resize(n, 0);
            self.copybacks.resize(n, 0);
            self.pending_host.resize(n, 0);
            self.pending_gc.resize(n, 0);
        }
        b
    }

    /// Doubles the window (sums of counts and of deltas stay exact).
    fn coarsen(&mut self) {
        fn halve<T: Copy + std::ops::Add<Output = T> + Default>(v: &mut Vec<T>) {
            let n = v.len().div_ceil(2);
            for i in 0..n {
                let a = v[2 * i];
                let b = v.get(2 * i + 1).copied().unwrap_or_default();
                v[i] = a + b;
            }
            v.truncate(n);
        }
        self.window_ns *= 2;
        halve(&mut self.host_requests);
        halve(&mut self.gc_tasks);
        halve(&mut self.copybacks);
        halve(&mut self.pending_host);
        halve(&mut self.pending_gc);
    }

    /// A job pending over [start, end): counted in every window whose end it outlives.
    pub(crate) fn pending(&mut self, gc: bool, start: u64, end: u64) {
        let a = self.bucket(start);
        let b = self.bucket(end);
        let v = if gc {
            &mut self.pending_gc
        } else {
            &mut self.pending_host
        };
        v[a] += 1;
        v[b] -= 1;
    }
}
