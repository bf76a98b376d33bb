//! A small, fast, non-cryptographic hasher for integer keys (the FxHash
//! scheme of rustc and Firefox: rotate, xor, multiply).  Instance keys are
//! pids, cpus and pointers that come from a trace, not from an adversary
//! picking collisions, so SipHash's protection is not worth its cost here.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap()));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.add(i as u64);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

pub type FxBuildHasher = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = HashMap<K, V, FxBuildHasher>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn spreads_small_keys() {
        let b = FxBuildHasher::default();
        let h = |k: i64| b.hash_one(k);
        assert_ne!(h(1), h(2));
        // hashbrown takes its control byte from the top 7 bits: they must vary.
        let tops: std::collections::HashSet<u64> = (0..1000).map(|k| h(k) >> 57).collect();
        assert!(tops.len() > 64, "{}", tops.len());
    }

    #[test]
    fn map_works() {
        let mut m: FxHashMap<i64, u32> = FxHashMap::default();
        for k in -500..500 {
            m.insert(k * 7919, k as u32);
        }
        assert_eq!(m.len(), 1000);
        assert_eq!(m.get(&(3 * 7919)), Some(&3));
        assert_eq!(m.get(&1), None);
    }
}
