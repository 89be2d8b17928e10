//! One stable sort for the whole crate.
//!
//! `slice::sort_by` is generic over the element type and the comparator, so each call site puts
//! its own copy of the sort algorithm into the wasm: about 4 KB each, 29 KB for the seven sorts the
//! app had. [`sort_by`] sorts a list of indices with one non-generic function taking a `dyn`
//! comparator, then moves the elements into place, so the algorithm is in the binary once. The
//! lists sorted here are short (at most a few hundred candidates), so the indirect call costs
//! nothing measurable. Same result as `slice::sort_by`: stable, and total for any comparator.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, exactly as `v.sort_by(cmp)` would.
pub fn sort_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..v.len()).collect();
    {
        let items: &[T] = v;
        sort_indices(&mut order, &|a, b| match (items.get(a), items.get(b)) {
            (Some(x), Some(y)) => cmp(x, y),
            _ => Ordering::Equal,
        });
    }
    permute(v, &mut order);
}

/// The one instance of the standard library's stable sort.
#[inline(never)]
fn sort_indices(order: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| cmp(a, b));
}

/// Rearranges `v` so that position `i` holds the element that was at `order[i]`, following each
/// cycle of the permutation with swaps. `order` is used up (each entry is set to its own index).
fn permute<T>(v: &mut [T], order: &mut [usize]) {
    for start in 0..order.len() {
        let mut cur = start;
        while let Some(slot) = order.get_mut(cur) {
            let next = std::mem::replace(slot, cur);
            if next == start || next == cur || next >= v.len() {
                break;
            }
            v.swap(cur, next);
            cur = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_standard_sort_and_is_stable() {
        // Pairs sorted by the first field only: ties must keep their input order, as
        // `slice::sort_by` (the reference) keeps them.
        let input = [(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (1, 'e'), (3, 'f'), (0, 'g')];
        let mut ours = input;
        sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
        let mut std_sorted = input;
        std_sorted.sort_by_key(|p| p.0);
        assert_eq!(ours, std_sorted);
        assert_eq!(ours.map(|p| p.1), ['g', 'b', 'e', 'd', 'a', 'c', 'f']);
    }

    proptest::proptest! {
        /// Any list, with many ties (keys 0..4): the same order as the standard library's
        /// stable `sort_by`, the reference implementation.
        #[test]
        fn same_as_std(v in proptest::collection::vec((0u8..4, proptest::num::u16::ANY), 0..300)) {
            let mut ours = v.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut reference = v;
            reference.sort_by_key(|p| p.0);
            proptest::prop_assert_eq!(ours, reference);
        }
    }

    #[test]
    fn empty_and_single() {
        let mut e: [u8; 0] = [];
        sort_by(&mut e, u8::cmp);
        let mut one = [7];
        sort_by(&mut one, u8::cmp);
        assert_eq!(one, [7]);
    }
}
