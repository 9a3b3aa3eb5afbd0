//! Lists of items for the dense keys `0..n`, stored flat: the list of key
//! `i` is `list[start[i]..start[i + 1]]` (compressed sparse row). One
//! allocation per relation instead of one per key, built by one counting
//! sort: the CFG's predecessors and successors, the dominator tree's
//! children, the VSDG scheduler's dependences and the placement's users.

/// Lists of `T` for `n` keys, flat.
#[derive(Clone, Debug)]
pub(crate) struct Adjacency<T = usize> {
    /// Where each key's list starts in `list`; `n + 1` entries.
    pub(crate) start: Vec<u32>,
    /// Every list, key after key.
    pub(crate) list: Vec<T>,
}

impl<T> Default for Adjacency<T> {
    /// No keys.
    fn default() -> Adjacency<T> {
        Adjacency {
            start: Vec::new(),
            list: Vec::new(),
        }
    }
}

impl<T: Copy> Adjacency<T> {
    /// The lists of `n` keys from `(i, x)` pairs: `x` is listed for key
    /// `i`, in the order of the pairs.
    pub(crate) fn new(n: usize, pairs: &[(usize, T)]) -> Adjacency<T> {
        let mut start = vec![0u32; n + 1];
        for &(i, _) in pairs {
            start[i + 1] += 1;
        }
        for i in 1..=n {
            start[i] += start[i - 1];
        }
        let mut next = start.clone();
        let mut list = match pairs.first() {
            Some(&(_, x)) => vec![x; pairs.len()],
            None => Vec::new(),
        };
        for &(i, x) in pairs {
            list[next[i] as usize] = x;
            next[i] += 1;
        }
        Adjacency { start, list }
    }

    /// The list of key `i` (which must be below `n`).
    pub(crate) fn of(&self, i: usize) -> &[T] {
        &self.list[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// The list of key `i`; empty for a key past the end.
    pub(crate) fn get(&self, i: usize) -> &[T] {
        if i + 1 >= self.start.len() {
            return &[];
        }
        self.of(i)
    }
}
