//! Helpers of the checkpoint tests: editing a checkpoint's stored run while keeping its
//! integrity check valid.

/// CRC-32 (IEEE), as the checkpoint's body checksum.
pub fn crc32(b: &[u8]) -> u32 {
    let mut c = !0u32;
    for &x in b {
        c ^= x as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// `ckpt` with its `META` JSON passed through `edit` and the body's CRC recomputed: a
/// checkpoint whose integrity holds but whose stored run was edited.
pub fn edit_meta(ckpt: &[u8], edit: impl Fn(&mut serde_json::Value)) -> Vec<u8> {
    let vlen = u16::from_le_bytes([ckpt[12], ckpt[13]]) as usize;
    let head = 14 + vlen;
    let body = &ckpt[head + 12..];
    assert_eq!(&body[..4], b"META");
    let mlen = u64::from_le_bytes(body[4..12].try_into().unwrap()) as usize;
    let mut meta: serde_json::Value = serde_json::from_slice(&body[12..12 + mlen]).unwrap();
    edit(&mut meta);
    let meta = serde_json::to_vec(&meta).unwrap();
    let mut nb = b"META".to_vec();
    nb.extend((meta.len() as u64).to_le_bytes());
    nb.extend(&meta);
    nb.extend(&body[12 + mlen..]);
    let mut out = ckpt[..head].to_vec();
    out.extend((nb.len() as u64).to_le_bytes());
    out.extend(crc32(&nb).to_le_bytes());
    out.extend(nb);
    out
}

/// The `META` JSON of a checkpoint.
pub fn meta_of(ckpt: &[u8]) -> serde_json::Value {
    let meta = std::cell::RefCell::new(serde_json::Value::Null);
    edit_meta(ckpt, |m| *meta.borrow_mut() = m.clone());
    meta.into_inner()
}
