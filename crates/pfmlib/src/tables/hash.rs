//! The hash of the name indexes, shared by the generator (`build/main.rs`
//! includes this file, which builds the indexes) and the readers (which probe
//! them). This file may only use `core`.

/// Hash of a name that ignores ASCII case: names equal but for case
/// hash alike, since bit 5 (the only bit in which a letter's two cases differ)
/// is cleared in every byte. Eight bytes at a time, one multiply each.
pub fn name_hash(name: &[u8]) -> u32 {
    const FOLD: u64 = !0x2020_2020_2020_2020;
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h: u64 = name.len() as u64;
    let mut chunks = name.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        h = (h ^ (w & FOLD)).wrapping_mul(K).rotate_left(29);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // Byte by byte: no call to copy a variable number of bytes.
        let mut w = 0u64;
        for (k, &b) in rest.iter().enumerate() {
            w |= (b as u64) << (8 * k);
        }
        h = (h ^ (w & FOLD)).wrapping_mul(K).rotate_left(29);
    }
    (h ^ (h >> 32)) as u32
}
