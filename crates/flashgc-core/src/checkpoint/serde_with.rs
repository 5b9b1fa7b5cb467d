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

/// `#[serde(with = "raw")]` for a large `Vec<u8|u32|u64>` (per-LPN tables): stored as its
/// element count and then little-endian byte strings of at most [`RAW_CHUNK`] elements
/// (several times faster than element by element). The chunks bound the scratch memory of
/// a checkpoint streamed to or from its file: a table is never held twice (BENCHMARKS.md,
/// "Checkpoint and resume").
pub(crate) mod raw {
    use super::*;
    use serde::de::{DeserializeSeed, SeqAccess, Visitor};
    use serde::ser::{SerializeSeq, SerializeTuple};
    use std::marker::PhantomData;

    /// One chunk of a table, converted to little-endian bytes as it is written.
    struct Chunk<'a, T>(&'a [T]);
    impl<T: RawInt> Serialize for Chunk<'_, T> {
        fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            let mut b = vec![0u8; self.0.len() * T::SIZE];
            for (x, o) in self.0.iter().zip(b.chunks_exact_mut(T::SIZE)) {
                x.to_le(o);
            }
            s.serialize_bytes(&b)
        }
    }
    struct Chunks<'a, T>(&'a [T]);
    impl<T: RawInt> Serialize for Chunks<'_, T> {
        fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            let mut q = s.serialize_seq(Some(self.0.len().div_ceil(RAW_CHUNK)))?;
            for c in self.0.chunks(RAW_CHUNK) {
                q.serialize_element(&Chunk(c))?;
            }
            q.end()
        }
    }

    pub fn serialize<S: Serializer, T: RawInt>(
        v: &[T],
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&(v.len() as u64))?;
        t.serialize_element(&Chunks(v))?;
        t.end()
    }

    /// Appends one chunk's elements to the table (which announced `.1` elements).
    struct ChunkInto<'a, T>(&'a mut Vec<T>, u64);
    impl<'de, T: RawInt> DeserializeSeed<'de> for ChunkInto<'_, T> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
            d.deserialize_bytes(self)
        }
    }
    impl<T: RawInt> Visitor<'_> for ChunkInto<'_, T> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a byte string of {}-byte integers", T::SIZE)
        }
        fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> std::result::Result<(), E> {
            if b.len() % T::SIZE != 0 || b.len() / T::SIZE > RAW_CHUNK {
                return Err(E::custom(
                    "raw table chunk is not a whole number of elements, or too long",
                ));
            }
            if (self.0.len() + b.len() / T::SIZE) as u64 > self.1 {
                return Err(E::custom("raw table holds more elements than it announced"));
            }
            self.0.extend(b.chunks_exact(T::SIZE).map(T::from_le));
            Ok(())
        }
    }
    /// All chunks, into a table of the announced count.
    struct ChunksInto<T>(Vec<T>, u64);
    impl<'de, T: RawInt> DeserializeSeed<'de> for ChunksInto<T> {
        type Value = Vec<T>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Vec<T>, D::Error> {
            d.deserialize_seq(self)
        }
    }
    impl<'de, T: RawInt> Visitor<'de> for ChunksInto<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "chunks of a raw table")
        }
        fn visit_seq<A: SeqAccess<'de>>(
            mut self,
            mut a: A,
        ) -> std::result::Result<Vec<T>, A::Error> {
            while let Some(()) = a.next_element_seed(ChunkInto(&mut self.0, self.1))? {}
            Ok(self.0)
        }
    }
    struct Table<T>(PhantomData<T>);
    impl<'de, T: RawInt> Visitor<'de> for Table<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a raw table: its length, then its chunks")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Vec<T>, A::Error> {
            use serde::de::Error;
            let n: u64 = a
                .next_element()?
                .ok_or_else(|| A::Error::invalid_length(0, &self))?;
            check_cap::<A::Error>(n)?;
            // Reserved whole (a table grown chunk by chunk left its earlier blocks behind
            // as allocator slack: +15 % peak RSS on a resumed BF-GC run), but fallibly: a
            // damaged count gets an error, not an abort. An untouched reservation costs no
            // memory, and the count is checked against the chunks below.
            let mut v = Vec::new();
            v.try_reserve_exact(n as usize)
                .map_err(|e| A::Error::custom(format!("raw table of {n} elements: {e}")))?;
            let v = a
                .next_element_seed(ChunksInto(v, n))?
                .ok_or_else(|| A::Error::invalid_length(1, &self))?;
            if v.len() as u64 != n {
                return Err(A::Error::custom(format!(
                    "raw table announced {n} elements but holds {}",
                    v.len()
                )));
            }
            Ok(v)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: RawInt>(
        d: D,
    ) -> std::result::Result<Vec<T>, D::Error> {
        d.deserialize_tuple(2, Table(PhantomData))
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

/// `#[serde(default, deserialize_with = "opt_f64_or_inf")]` for a JSON-stored `Option<f64>`
/// written with `skip_serializing_if = "Option::is_none"`: None is absent, so a present null
/// was a non-finite value (JSON writes null for it). Decoding that null as None would drop
/// the field from the resumed run's report, which the uninterrupted run shows as null.
pub(crate) fn opt_f64_or_inf<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<f64>, D::Error> {
    Ok(Some(
        Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY),
    ))
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

/// A pair (MiDAS's UID keeps two intervals per sampled page).
impl RawInt for [u64; 2] {
    const SIZE: usize = 16;
    fn to_le(self, out: &mut [u8]) {
        RawInt::to_le(self[0], &mut out[..8]);
        RawInt::to_le(self[1], &mut out[8..]);
    }
    fn from_le(b: &[u8]) -> Self {
        [
            <u64 as RawInt>::from_le(&b[..8]),
            <u64 as RawInt>::from_le(&b[8..]),
        ]
    }
}

/// Chunk of elements converted at a time (bounded scratch memory).
pub(crate) const RAW_CHUNK: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::{decode, encode, StateIn, StateOut};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Tables {
        #[serde(with = "raw")]
        a: Vec<u8>,
        #[serde(with = "raw")]
        b: Vec<u32>,
        #[serde(with = "raw")]
        c: Vec<u64>,
        #[serde(with = "raw")]
        d: Vec<[u64; 2]>,
    }

    #[test]
    fn raw_tables_round_trip_across_chunk_boundaries_at_their_exact_length() {
        for n in [0, 1, RAW_CHUNK - 1, RAW_CHUNK, 2 * RAW_CHUNK + 3] {
            let t = Tables {
                a: (0..n).map(|i| i as u8).collect(),
                b: (0..n)
                    .map(|i| (i as u32).wrapping_mul(2_654_435_761))
                    .collect(),
                c: (0..n).map(|i| (i as u64) << 40 | 7).collect(),
                d: (0..n).map(|i| [i as u64, !(i as u64)]).collect(),
            };
            let bytes = encode(&t).unwrap();
            let back: Tables = decode(&bytes).unwrap();
            assert_eq!(back, t, "n = {n}");
            assert_eq!(back.c.capacity(), n, "n = {n}: capacity");
            // The same bytes through the policy interface.
            let mut buf = Vec::new();
            StateOut::buffer(&mut buf).put(&t).unwrap();
            assert_eq!(buf, bytes);
            let back: Tables = StateIn::bytes(&buf).get().unwrap();
            assert_eq!(back, t);
        }
    }

    /// The raw encoding of a `Vec<u64>`: count, chunks, then (length, bytes) per chunk.
    fn table(count: u64, chunks: &[&[u64]]) -> Vec<u8> {
        let mut b = count.to_le_bytes().to_vec();
        b.extend((chunks.len() as u64).to_le_bytes());
        for c in chunks {
            b.extend((c.len() as u64 * 8).to_le_bytes());
            for x in *c {
                b.extend(x.to_le_bytes());
            }
        }
        b
    }

    #[derive(Debug, Deserialize)]
    struct One(#[serde(with = "raw")] Vec<u64>);

    #[test]
    fn damaged_raw_tables_are_errors_not_aborts() {
        assert_eq!(decode::<One>(&table(2, &[&[1, 2]])).unwrap().0, [1, 2]);
        // More elements than announced, fewer, an absurd count, a count whose reservation
        // is huge but no bytes follow, and a chunk that is not whole elements.
        for (bytes, what) in [
            (table(1, &[&[1, 2]]), "more elements than it announced"),
            (table(3, &[&[1, 2]]), "announced 3 elements"),
            (table(1 << 40, &[]), "not plausible"),
            (table(1 << 32, &[]), "4294967296"),
        ] {
            let e = decode::<One>(&bytes).unwrap_err().to_string();
            assert!(e.contains(what), "{what}: {e}");
        }
        let mut odd = table(1, &[]);
        odd[8..16].copy_from_slice(&1u64.to_le_bytes());
        odd.extend(3u64.to_le_bytes());
        odd.extend([0u8; 3]);
        let e = decode::<One>(&odd).unwrap_err().to_string();
        assert!(e.contains("whole number of elements"), "{e}");
    }
}
