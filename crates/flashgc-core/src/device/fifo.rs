//! A first-in-first-out queue kept as one contiguous vector with a read position: the
//! scheduler's queues (the GC queue, the ends of committed move reads, each resource's
//! waiting host operations) push at the back and take from the front once per flash
//! operation, and a `VecDeque`'s wrap-around index arithmetic on every access was a
//! measurable part of deferred commit (docs/controller-speed.md). The waiting entries
//! are one slice, so scans run over plain memory too.

/// A FIFO of `T`: `v[head..]` are the entries, oldest first. The taken prefix is dropped
/// when the queue empties, or moved out when it is at least three quarters of the vector
/// and the vector is full: at most one entry is copied per three taken, and memory stays
/// within about four times the most entries held at once. (A power-of-two ring measured
/// no better than `VecDeque`: the reset when the queue empties is what pays here, as the
/// queues empty often.)
#[derive(Debug, Clone)]
pub(crate) struct Fifo<T> {
    v: Vec<T>,
    head: usize,
    /// Entries taken from the front so far: the position in push order of the entry at
    /// the front, so that it names that entry for as long as it is there.
    taken: u64,
}

impl<T> Default for Fifo<T> {
    fn default() -> Fifo<T> {
        Fifo {
            v: Vec::new(),
            head: 0,
            taken: 0,
        }
    }
}

impl<T: Copy> Fifo<T> {
    /// An empty queue.
    pub(crate) fn new() -> Fifo<T> {
        Fifo::default()
    }

    /// Entries taken from the front so far (a queue restored from a list starts at 0):
    /// while the queue is not empty, the front entry's position in push order, which no
    /// other entry of this queue shares.
    #[inline(always)]
    pub(crate) fn taken(&self) -> u64 {
        self.taken
    }

    /// Entries held.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.v.len() - self.head
    }

    /// Whether no entry is held.
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.head == self.v.len()
    }

    /// The entries, oldest first.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[T] {
        &self.v[self.head..]
    }

    /// The oldest entry.
    #[inline(always)]
    pub(crate) fn front(&self) -> Option<&T> {
        self.v.get(self.head)
    }

    /// The newest entry.
    #[inline(always)]
    pub(crate) fn back(&self) -> Option<&T> {
        if self.is_empty() {
            None
        } else {
            self.v.last()
        }
    }

    /// Entry `i` from the front.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        self.v.get(self.head + i)
    }

    /// Appends `x` at the back.
    #[inline(always)]
    pub(crate) fn push_back(&mut self, x: T) {
        if self.v.len() == self.v.capacity() && self.head > 0 && 4 * self.head >= 3 * self.v.len() {
            self.compact();
        }
        self.v.push(x);
    }

    /// Drops the taken prefix (out of line: rare).
    #[inline(never)]
    fn compact(&mut self) {
        self.v.drain(..self.head);
        self.head = 0;
    }

    /// Takes the oldest entry.
    #[inline(always)]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        let x = *self.v.get(self.head)?;
        self.head += 1;
        self.taken += 1;
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
        }
        Some(x)
    }

    /// Takes entry `i` from the front, keeping the order of the rest.
    pub(crate) fn remove(&mut self, i: usize) -> Option<T> {
        if i == 0 {
            return self.pop_front();
        }
        if i >= self.len() {
            return None;
        }
        let x = self.v.remove(self.head + i);
        Some(x)
    }

    /// Appends every entry of `it`.
    pub(crate) fn extend(&mut self, it: impl IntoIterator<Item = T>) {
        for x in it {
            self.push_back(x);
        }
    }

    /// The entries, oldest first.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, T> {
        self.as_slice().iter()
    }

    /// The entries, oldest first, mutable.
    pub(crate) fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        let h = self.head;
        self.v[h..].iter_mut()
    }
}

impl<T> From<Vec<T>> for Fifo<T> {
    fn from(v: Vec<T>) -> Fifo<T> {
        Fifo {
            v,
            head: 0,
            taken: 0,
        }
    }
}

impl<'a, T: Copy> IntoIterator for &'a Fifo<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::Fifo;
    use std::collections::VecDeque;

    /// Against `VecDeque` on a random sequence of pushes, pops and removals: the same
    /// entries in the same order, and memory within a small multiple of the most held.
    #[test]
    fn matches_vecdeque() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let (mut f, mut d) = (Fifo::new(), VecDeque::new());
        let mut most = 0;
        for i in 0..200_000u64 {
            match next() % 7 {
                0..=2 => {
                    f.push_back(i);
                    d.push_back(i);
                }
                3..=4 => assert_eq!(f.pop_front(), d.pop_front()),
                5 if !d.is_empty() => {
                    let k = (next() % d.len() as u64) as usize;
                    assert_eq!(f.remove(k), d.remove(k));
                }
                _ => assert_eq!(f.front(), d.front()),
            }
            most = most.max(d.len());
            assert_eq!(f.len(), d.len());
            assert_eq!(f.back(), d.back());
            assert!(
                f.v.capacity() <= 8 * most.max(4),
                "{} held, {} kept",
                most,
                f.v.len()
            );
        }
        assert!(f.iter().eq(d.iter()));
    }

    /// `taken` names the front entry by its position in push order, across the vector's
    /// resets and compactions (what the GC queue's floor relies on: the GC queue is only
    /// pushed at the back and taken from the front).
    #[test]
    fn taken_names_the_front_entry() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut f = Fifo::new();
        let mut pushed = 0u64;
        for _ in 0..100_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            // Pushes a little more often than pops: the queue grows, empties and refills.
            if rng % 9 < 5 || f.is_empty() {
                f.push_back(pushed);
                pushed += 1;
            } else {
                let x = f.pop_front();
                assert_eq!(x, Some(f.taken() - 1));
            }
            if rng % 1000 == 0 {
                while f.pop_front().is_some() {}
            }
            if let Some(&x) = f.front() {
                assert_eq!(f.taken(), x);
            }
            assert_eq!(f.taken() + f.len() as u64, pushed);
        }
    }
}
