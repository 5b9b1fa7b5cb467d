//! The NoC model's time series (paper Figs. 7-8): host requests, GC tasks, copy-backs and
//! pending work per window of simulated time.

/// Growable time series of per-window counters and pending-count deltas.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Series {
    pub(crate) window_ns: u64,
    pub(crate) host_requests: Vec<u64>,
    pub(crate) gc_tasks: Vec<u64>,
    pub(crate) copybacks: Vec<u64>,
    pub(crate) pending_host: Vec<i64>,
    pub(crate) pending_gc: Vec<i64>,
    /// The window the last lookup fell into: [start, start + window_ns) is index `last`
    /// (times mostly advance slowly, so most lookups hit it without a division).
    last_start: u64,
    last: usize,
}

/// Windows a series holds at most (it coarsens beyond).
pub(crate) const MAX_WINDOWS: usize = 1 << 16;

impl Series {
    /// An empty series of windows of `window_ns`.
    pub(crate) fn new(window_ns: u64) -> Series {
        Series {
            window_ns,
            ..Default::default()
        }
    }

    /// Whether a restored series is one this model could have built: at most
    /// [`MAX_WINDOWS`] windows, counts and pending deltas far from overflowing.
    pub(crate) fn plausible(&self) -> bool {
        let big = 1u64 << 60;
        self.host_requests.len() <= MAX_WINDOWS
            && self.window_ns < big
            && self
                .host_requests
                .iter()
                .chain(&self.gc_tasks)
                .chain(&self.copybacks)
                .all(|&c| c < big)
            && self
                .pending_host
                .iter()
                .chain(&self.pending_gc)
                .all(|&d| d.unsigned_abs() < big)
    }

    #[inline]
    pub(crate) fn bucket(&mut self, t: u64) -> usize {
        if t >= self.last_start
            && t - self.last_start < self.window_ns
            && self.last < self.host_requests.len()
        {
            return self.last;
        }
        let b = self.bucket_slow(t);
        self.last = b;
        self.last_start = b as u64 * self.window_ns;
        b
    }

    fn bucket_slow(&mut self, t: u64) -> usize {
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

    /// Grows every vector's capacity to `cap` (a restored series reports the memory the
    /// original held).
    pub(crate) fn reserve_to(&mut self, cap: usize) {
        let n = self.host_requests.len();
        let extra = cap.saturating_sub(n);
        self.host_requests.reserve_exact(extra);
        self.gc_tasks.reserve_exact(extra);
        self.copybacks.reserve_exact(extra);
        self.pending_host.reserve_exact(extra);
        self.pending_gc.reserve_exact(extra);
    }

    /// Doubles the window (sums of counts and of deltas stay exact).
    #[cold]
    fn coarsen(&mut self) {
        // The cached window is stale once windows double.
        self.last = usize::MAX;
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
        // The later time first: if it coarsens the windows, the earlier one's index is
        // taken in the new width (taken first, it could point past the halved series).
        let b = self.bucket(end);
        let a = self.bucket(start);
        let v = if gc {
            &mut self.pending_gc
        } else {
            &mut self.pending_host
        };
        v[a] += 1;
        v[b] -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job ending far beyond the last window coarsens the series while its start is
    /// being counted (reported by `flashgc noc --rate 10`: an index past the halved series).
    #[test]
    fn a_long_pending_job_coarsens_consistently() {
        let mut s = Series::new(1_000);
        s.pending(false, 5_000, 6_000);
        s.pending(true, 60_000_000, 200_000_000);
        let sum: i64 = s.pending_gc.iter().sum();
        assert_eq!(sum, 0, "every start has its end");
        assert_eq!(s.pending_host.iter().sum::<i64>(), 0);
        assert!(s.host_requests.len() <= MAX_WINDOWS);
        assert!(s.window_ns > 1_000);
    }
}
