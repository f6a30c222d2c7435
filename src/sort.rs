//! Sorting off the hot paths, in one compiled copy of the standard library's stable sort.
//!
//! Each `sort_by` call with its own element type and closure compiles to its own copy of the
//! standard sort (driftsort and its quicksort, ~5–8 KB of wasm each, ~25 of them in the
//! module). These helpers sort the *positions* of the elements instead — always a `usize`
//! slice with one comparator type, so a single copy serves every caller — then move the
//! elements into that order. Stable, `O(n log n)`, one allocation of positions more than
//! `sort_by`: for doctor, history, the keepers and the memory tool's small lists, not for the
//! scan's or the lexical selector's sorts, which keep the standard sort.

use std::cmp::Ordering;

/// The positions `0..len` in the stable order `cmp` gives (compared by position).
#[inline(never)]
fn sorted_positions(len: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|a, b| cmp(*a, *b));
    order
}

/// `items.sort_by(cmp)`, stable, with the one shared copy of the sort.
pub fn sort_by<T>(items: &mut Vec<T>, mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let order = {
        let view: &[T] = items;
        sorted_positions(view.len(), &mut |a, b| match (view.get(a), view.get(b)) {
            (Some(x), Some(y)) => cmp(x, y),
            _ => Ordering::Equal,
        })
    };
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(
        order
            .iter()
            .filter_map(|&i| slots.get_mut(i).and_then(Option::take)),
    );
}

/// `items.sort_by_key(key)`, stable, with the one shared copy of the sort.
pub fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// `items.sort()`, stable, with the one shared copy of the sort.
pub fn sort<T: Ord>(items: &mut Vec<T>) {
    sort_by(items, |a, b| a.cmp(b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_as_the_standard_sort() {
        let mut pairs: Vec<(u8, usize)> = [3, 1, 2, 1, 3, 0, 2, 1]
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, i))
            .collect();
        let mut expected = pairs.clone();
        expected.sort_by_key(|p| p.0);
        sort_by_key(&mut pairs, |p| p.0);
        assert_eq!(pairs, expected);
        let mut words = vec![
            "b".to_owned(),
            "a".to_owned(),
            "c".to_owned(),
            "a".to_owned(),
        ];
        sort(&mut words);
        assert_eq!(words, ["a", "a", "b", "c"]);
        let mut none: Vec<u8> = Vec::new();
        sort(&mut none);
        assert!(none.is_empty());
    }
}
