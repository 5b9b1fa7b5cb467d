//! Small helpers shared by the classifier-based placement schemes: seeded hash functions,
//! list parameters, and a stream-count check.

use crate::error::{Error, Result};
use crate::spec::Spec;

/// SplitMix64's finalizer: a bijective 64-bit mixer with full avalanche. Seeding it with
/// different constants gives the independent hash functions the Bloom-filter schemes need.
#[inline]
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Per-function seeds: `seed(i)` for hash function `i` of a scheme seeded with `base`.
#[inline]
pub(crate) fn hash_seed(base: u64, i: u32) -> u64 {
    mix64(base ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i as u64 + 1)))
}

/// Hash `key` with function seed `seed` into `[0, m)` (multiply-shift range reduction).
#[inline]
pub(crate) fn hash_to(key: u64, seed: u64, m: u64) -> u64 {
    ((mix64(key ^ seed) as u128 * m as u128) >> 64) as u64
}

/// A list parameter `a/b/c` (commas separate parameters in a spec, so lists use `/`).
pub(crate) fn num_list(spec: &Spec, key: &str, accepts: &str) -> Result<Option<Vec<f64>>> {
    let Some(raw) = spec.raw(key) else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for part in raw.split('/') {
        let v: f64 = part.trim().parse().map_err(|_| {
            Error::config(
                spec.path(key),
                format!("`{part}` is not a number; expected {accepts}"),
            )
        })?;
        if !v.is_finite() || v < 0.0 {
            return Err(Error::config(
                spec.path(key),
                format!("{v} is negative or not finite; expected {accepts}"),
            ));
        }
        out.push(v);
    }
    Ok(Some(out))
}

/// Checks that a list is strictly increasing (thresholds and class boundaries).
pub(crate) fn check_increasing(spec: &Spec, key: &str, v: &[f64], accepts: &str) -> Result<()> {
    if v.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::config(
            spec.path(key),
            format!("values must be strictly increasing; expected {accepts}"),
        ));
    }
    Ok(())
}

/// Most streams any placement may open: each stream holds an open segment and needs one
/// free segment in reserve, so more than a quarter of the device is never sensible.
pub(crate) fn check_streams(spec: &Spec, key: &str, streams: usize, segments: u32) -> Result<()> {
    let max = (segments as usize / 4).max(1);
    if streams > max {
        return Err(Error::config(
            spec.path(key),
            format!(
                "{streams} streams cannot be kept open on a device of {segments} segments \
                 (each stream needs an open segment and a reserved free one); allowed 1..={max}"
            ),
        ));
    }
    Ok(())
}
