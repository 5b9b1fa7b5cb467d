//! Serde adapters for checkpointed state: containers that keep their capacity (a resumed
//! run must report the same bytes as an uninterrupted one), raw little-endian tables,
//! labels and JSON-stored report structures.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::VecDeque;
// ---- serde helpers that keep a container's capacity (memory reports read capacities, and a
// resumed run must report the same bytes as an uninterrupted one) ----

/// Refuses absurd capacities (the CRC has been checked, so only a crafted file has them).
fn check_cap<E: serde::de::Error>(cap: u64) -> std::result::Result<(), E> {
    if cap > 1 << 32 {
        return Err(E::custom(format!(
            "container capacity {cap} is not plausible"
        )));
    }
    Ok(())
}

/// `#[serde(with = "cap_deque")]` for a `VecDeque<T>`.
pub(crate) mod cap_deque {
    use super::*;
    pub fn serialize<S: Serializer, T: Serialize>(
        v: &VecDeque<T>,
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        (v.capacity() as u64, v).serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> std::result::Result<VecDeque<T>, D::Error> {
        let (cap, items): (u64, Vec<T>) = Deserialize::deserialize(d)?;
        check_cap::<D::Error>(cap)?;
        let mut q = VecDeque::with_capacity((cap as usize).max(items.len()));
        q.extend(items);
        Ok(q)
    }
}

/// `#[serde(with = "cap_vecs")]` for a `Vec<Vec<T>>` (each inner capacity kept).
pub(crate) mod cap_vecs {
    use super::*;
    pub fn serialize<S: Serializer, T: Serialize>(
        v: &[Vec<T>],
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let parts: Vec<(u64, &Vec<T>)> = v.iter().map(|g| (g.capacity() as u64, g)).collect();
        parts.serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> std::result::Result<Vec<Vec<T>>, D::Error> {
        let parts: Vec<(u64, Vec<T>)> = Deserialize::deserialize(d)?;
        parts
            .into_iter()
            .map(|(cap, mut g)| {
                check_cap::<D::Error>(cap)?;
                g.reserve_exact((cap as usize).saturating_sub(g.len()));
                Ok(g)
            })
            .collect()
    }
}

/// `#[serde(with = "cap_deques")]` for a `Vec<VecDeque<T>>` (each inner capacity kept).
pub(crate) mod cap_deques {
    use super::*;
    pub fn serialize<S: Serializer, T: Serialize>(
        v: &[VecDeque<T>],
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let parts: Vec<(u64, &VecDeque<T>)> = v.iter().map(|g| (g.capacity() as u64, g)).collect();
        parts.serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> std::result::Result<Vec<VecDeque<T>>, D::Error> {
        let parts: Vec<(u64, Vec<T>)> = Deserialize::deserialize(d)?;
        parts
            .into_iter()
            .map(|(cap, g)| {
                check_cap::<D::Error>(cap)?;
                let mut q = VecDeque::with_capacity(cap as usize);
                q.extend(g);
                Ok(q)
            })
            .collect()
    }
}

/// `#[serde(with = "raw")]` for a large `Vec<u8|u32|u64>` (per-LPN tables): stored as one
/// little-endian byte string instead of element by element (several times faster).
pub(crate) mod raw {
    use super::*;
    pub fn serialize<S: Serializer, T: RawInt>(
        v: &[T],
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let mut b = vec![0u8; v.len() * T::SIZE];
        for (x, o) in v.iter().zip(b.chunks_exact_mut(T::SIZE)) {
            x.to_le(o);
        }
        s.serialize_bytes(&b)
    }
    pub fn deserialize<'de, D: Deserializer<'de>, T: RawInt>(
        d: D,
    ) -> std::result::Result<Vec<T>, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<T: RawInt> serde::de::Visitor<'_> for V<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a byte string of {}-byte integers", T::SIZE)
            }
            fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> std::result::Result<Vec<T>, E> {
                if b.len() % T::SIZE != 0 {
                    return Err(E::custom(
                        "raw table length is not a whole number of elements",
                    ));
                }
                Ok(b.chunks_exact(T::SIZE).map(T::from_le).collect())
            }
        }
        d.deserialize_bytes(V(std::marker::PhantomData))
    }
}

/// `#[serde(deserialize_with = "leak_str")]` for a `&'static str` label (e.g. an event
/// name in a report): a resumed run allocates the few bytes once.
pub(crate) fn leak_str<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    Ok(Box::leak(s.into_boxed_str()))
}

/// `#[serde(with = "json_text")]`: a value stored as JSON text (for report structures
/// with `serde_json::Value`s or skipped fields, which bincode cannot round-trip). Floats
/// survive exactly (serde_json's `float_roundtrip`); non-finite floats become null, as in
/// the report itself.
pub(crate) mod json_text {
    use super::*;
    pub fn serialize<S: Serializer, T: Serialize>(
        v: &T,
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serde_json::to_string(v)
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'static>>(
        d: D,
    ) -> std::result::Result<T, D::Error> {
        // Through a `Value` (a deserializer for any lifetime), so structures with
        // `&'static str` labels (see `leak_str`) decode too.
        let s = String::deserialize(d)?;
        let v: serde_json::Value = serde_json::from_str(&s).map_err(serde::de::Error::custom)?;
        T::deserialize(v).map_err(serde::de::Error::custom)
    }
}

/// `#[serde(deserialize_with = "f64_or_inf")]` for a JSON-stored `f64` that may have been
/// infinite (JSON writes null for it).
pub(crate) fn f64_or_inf<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

// ---- raw little-endian slices ----

/// Plain integer element of a raw table.
pub trait RawInt: Copy + Default {
    /// Bytes of one value.
    const SIZE: usize;
    /// Writes the value little-endian into `out` (`SIZE` bytes).
    fn to_le(self, out: &mut [u8]);
    /// Reads a value from `SIZE` little-endian bytes.
    fn from_le(b: &[u8]) -> Self;
}
impl RawInt for u8 {
    const SIZE: usize = 1;
    fn to_le(self, out: &mut [u8]) {
        out[0] = self;
    }
    fn from_le(b: &[u8]) -> Self {
        b[0]
    }
}
impl RawInt for u32 {
    const SIZE: usize = 4;
    fn to_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn from_le(b: &[u8]) -> Self {
        u32::from_le_bytes(b.try_into().expect("4 bytes"))
    }
}
impl RawInt for u64 {
    const SIZE: usize = 8;
    fn to_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn from_le(b: &[u8]) -> Self {
        u64::from_le_bytes(b.try_into().expect("8 bytes"))
    }
}

/// Chunk of elements converted at a time (bounded scratch memory).
pub(crate) const RAW_CHUNK: usize = 1 << 16;
