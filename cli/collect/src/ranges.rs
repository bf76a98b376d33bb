//! Sets of batch numbers as sorted, disjoint, non-adjacent ranges: which
//! batches of a stream are stored (the collector stores each once).

/// Inclusive ranges `[first, last]`, sorted, never touching.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: Vec<(i64, i64)>,
}

impl RangeSet {
    pub fn new() -> RangeSet {
        RangeSet::default()
    }

    pub fn from_ranges(mut ranges: Vec<(i64, i64)>) -> RangeSet {
        ranges.sort_unstable();
        let mut s = RangeSet::new();
        for (a, b) in ranges {
            s.insert_range(a, b);
        }
        s
    }

    pub fn contains(&self, v: i64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 < v);
        self.ranges.get(i).is_some_and(|r| r.0 <= v)
    }

    pub fn insert(&mut self, v: i64) {
        self.insert_range(v, v)
    }

    pub fn insert_range(&mut self, a: i64, b: i64) {
        debug_assert!(a <= b);
        // The first range that ends at a - 1 or later may merge.
        let i = self.ranges.partition_point(|r| r.1.saturating_add(1) < a);
        let mut j = i;
        let (mut lo, mut hi) = (a, b);
        while j < self.ranges.len() && self.ranges[j].0 <= b.saturating_add(1) {
            lo = lo.min(self.ranges[j].0);
            hi = hi.max(self.ranges[j].1);
            j += 1;
        }
        self.ranges.splice(i..j, [(lo, hi)]);
    }

    pub fn extend(&mut self, other: &RangeSet) {
        for &(a, b) in &other.ranges {
            self.insert_range(a, b);
        }
    }

    pub fn max(&self) -> Option<i64> {
        self.ranges.last().map(|r| r.1)
    }

    pub fn count(&self) -> i64 {
        self.ranges.iter().map(|r| r.1 - r.0 + 1).sum()
    }

    pub fn ranges(&self) -> &[(i64, i64)] {
        &self.ranges
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges of `[0, end)` not in the set.
    pub fn gaps_below(&self, end: i64) -> Vec<(i64, i64)> {
        let mut gaps = Vec::new();
        let mut next = 0;
        for &(a, b) in &self.ranges {
            if a >= end {
                break;
            }
            if a > next {
                gaps.push((next, a - 1));
            }
            next = b + 1;
        }
        if next < end {
            gaps.push((next, end - 1));
        }
        gaps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_and_finds() {
        let mut s = RangeSet::new();
        for v in [5, 3, 4, 10, 12, 11, 0] {
            s.insert(v);
        }
        assert_eq!(s.ranges(), &[(0, 0), (3, 5), (10, 12)]);
        assert!(s.contains(4) && s.contains(12) && !s.contains(6) && !s.contains(-1));
        s.insert_range(1, 2);
        assert_eq!(s.ranges(), &[(0, 5), (10, 12)]);
        s.insert_range(6, 9);
        assert_eq!(s.ranges(), &[(0, 12)]);
        assert_eq!((s.max(), s.count()), (Some(12), 13));
        s.insert(12);
        assert_eq!(s.count(), 13);
    }

    #[test]
    fn gaps() {
        let s = RangeSet::from_ranges(vec![(2, 3), (7, 7)]);
        assert_eq!(s.gaps_below(10), vec![(0, 1), (4, 6), (8, 9)]);
        assert_eq!(s.gaps_below(3), vec![(0, 1)]);
        assert_eq!(RangeSet::new().gaps_below(2), vec![(0, 1)]);
        assert!(RangeSet::from_ranges(vec![(0, 4)]).gaps_below(5).is_empty());
    }

    /// Against a plain set, on random inserts.
    #[test]
    fn random_against_a_set() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut s = RangeSet::new();
        let mut b = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = (x % 300) as i64;
            let len = ((x >> 20) % 5) as i64;
            s.insert_range(a, a + len);
            b.extend(a..=a + len);
            let w = s.ranges();
            assert!(w.windows(2).all(|p| p[0].1 + 1 < p[1].0), "{w:?}");
        }
        assert_eq!(s.count() as usize, b.len());
        for v in -1..310 {
            assert_eq!(s.contains(v), b.contains(&v), "{v}");
        }
    }
}
