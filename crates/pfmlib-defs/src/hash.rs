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
    let mut rest = name;
    while let Some((c, tail)) = rest.split_first_chunk::<8>() {
        h = (h ^ (u64::from_le_bytes(*c) & FOLD))
            .wrapping_mul(K)
            .rotate_left(29);
        rest = tail;
    }
    let n = rest.len();
    if n > 0 {
        // The tail in a few loads whatever its length: 4 to 7 bytes as two
        // overlapping 4-byte reads, 1 to 3 as the first, middle and last
        // byte (the length, mixed in above, tells the cases apart).
        let w = if let (Some(lo), Some(hi)) = (rest.first_chunk::<4>(), rest.last_chunk::<4>()) {
            u64::from(u32::from_le_bytes(*lo)) | u64::from(u32::from_le_bytes(*hi)) << 32
        } else {
            u64::from(rest[0]) | u64::from(rest[n / 2]) << 8 | u64::from(rest[n - 1]) << 16
        };
        h = (h ^ (w & FOLD)).wrapping_mul(K).rotate_left(29);
    }
    (h ^ (h >> 32)) as u32
}
