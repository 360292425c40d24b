//! The hash of the name indexes: the generator builds the indexes with it,
//! the readers probe them with it.

/// Hash of a name that ignores ASCII case: names equal but for case
/// hash alike, since bit 5 (the only bit in which a letter's two cases differ)
/// is cleared in every byte. Eight bytes at a time, one multiply each, and
/// one more for the tail.
#[inline]
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
    let n = rest.len();
    if n > 0 {
        // The tail in a few loads whatever its length: 4 to 7 bytes as two
        // overlapping 4-byte reads, 1 to 3 as the first, middle and last
        // byte (the length, mixed in above, tells the cases apart).
        let w = if n >= 4 {
            let lo = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
            let hi = u32::from_le_bytes([rest[n - 4], rest[n - 3], rest[n - 2], rest[n - 1]]);
            u64::from(lo) | u64::from(hi) << 32
        } else {
            u64::from(rest[0]) | u64::from(rest[n / 2]) << 8 | u64::from(rest[n - 1]) << 16
        };
        h = (h ^ (w & FOLD)).wrapping_mul(K).rotate_left(29);
    }
    (h ^ (h >> 32)) as u32
}
