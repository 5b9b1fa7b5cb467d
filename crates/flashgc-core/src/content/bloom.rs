//! The Bloom prefilter of SplitGC's read scrub (m = 4.2 n bits, k = 3 hash functions: BKDR,
//! AP, DJB, as in papers/splitgc.txt Section 3.2).
//!
//! The fingerprint table itself (fingerprint -> group of physical copies) is the
//! [`super::ContentStore`], because a group's id is the SMT's VPN.

/// BKDR string hash (seed 131) over the fingerprint's 8 little-endian bytes.
#[inline]
pub fn bkdr(fp: u64) -> u32 {
    let mut h: u32 = 0;
    for b in fp.to_le_bytes() {
        h = h.wrapping_mul(131).wrapping_add(b as u32);
    }
    h
}

/// Arash Partow's AP hash over the fingerprint's 8 little-endian bytes.
#[inline]
pub fn ap(fp: u64) -> u32 {
    let mut h: u32 = 0xAAAA_AAAA;
    for (i, b) in fp.to_le_bytes().into_iter().enumerate() {
        let c = b as u32;
        if i & 1 == 0 {
            h ^= (h << 7) ^ c.wrapping_mul(h >> 3);
        } else {
            h ^= !((h << 11).wrapping_add(c ^ (h >> 5)));
        }
    }
    h
}

/// Bernstein's DJB hash (h * 33 + c, start 5381) over the fingerprint's 8 little-endian bytes.
#[inline]
pub fn djb(fp: u64) -> u32 {
    let mut h: u32 = 5381;
    for b in fp.to_le_bytes() {
        h = (h << 5).wrapping_add(h).wrapping_add(b as u32);
    }
    h
}

/// A plain Bloom filter of `m` bits with the three hashes above.
///
/// Plain Bloom filters cannot delete, so fingerprints of pages that died stay set until the
/// filter is rebuilt from the fingerprint table (done at the start of every scrub pass and
/// after a power cut: the filter is volatile).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Bloom {
    #[serde(with = "crate::checkpoint::raw")]
    bits: Vec<u64>,
    m: u64,
}

impl Bloom {
    /// A filter sized for `n` elements at `bits_per_element` bits each (paper: 4.2).
    pub fn new(n: u64, bits_per_element: f64) -> Bloom {
        let m = ((n.max(1) as f64 * bits_per_element).ceil() as u64).max(64);
        Bloom {
            bits: vec![0; m.div_ceil(64) as usize],
            m,
        }
    }
    /// Number of bits.
    pub fn bits(&self) -> u64 {
        self.m
    }
    #[inline]
    fn idx(&self, fp: u64) -> [u64; 3] {
        [
            bkdr(fp) as u64 % self.m,
            ap(fp) as u64 % self.m,
            djb(fp) as u64 % self.m,
        ]
    }
    /// Adds `fp`.
    #[inline]
    pub fn insert(&mut self, fp: u64) {
        for i in self.idx(fp) {
            self.bits[(i / 64) as usize] |= 1 << (i % 64);
        }
    }
    /// False: `fp` was certainly never inserted. True: maybe.
    #[inline]
    pub fn maybe_contains(&self, fp: u64) -> bool {
        self.idx(fp)
            .iter()
            .all(|&i| self.bits[(i / 64) as usize] & (1 << (i % 64)) != 0)
    }
    /// Clears every bit.
    pub fn clear(&mut self) {
        self.bits.fill(0);
    }
    /// Bytes of the bit array.
    pub fn memory_bytes(&self) -> u64 {
        self.m.div_ceil(8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_reference_values() {
        // Reference: the classic C implementations run over the bytes 01 00 .. 00.
        let fp = 1u64;
        let mut h: u32 = 0;
        for b in [1u8, 0, 0, 0, 0, 0, 0, 0] {
            h = h.wrapping_mul(131).wrapping_add(b as u32);
        }
        assert_eq!(bkdr(fp), h);
        assert_eq!(djb(0), {
            let mut h: u32 = 5381;
            for _ in 0..8 {
                h = h.wrapping_mul(33);
            }
            h
        });
        assert_ne!(ap(1), ap(2));
    }

    #[test]
    fn bloom_has_no_false_negatives_and_few_false_positives() {
        let n = 20_000u64;
        let mut b = Bloom::new(n, 4.2);
        let key = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5555;
        for i in 0..n {
            b.insert(key(i));
        }
        assert!((0..n).all(|i| b.maybe_contains(key(i))));
        let fp = (n..2 * n).filter(|&i| b.maybe_contains(key(i))).count();
        // Theory for m/n = 4.2, k = 3: (1 - e^{-3/4.2})^3 = 0.146.
        let rate = fp as f64 / n as f64;
        assert!(rate < 0.25, "false positive rate {rate}");
    }
}
