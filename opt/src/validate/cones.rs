//! Unions over cones: every node's bit row becomes the union of the rows
//! of every node it reaches (itself included), in one pass over the
//! strongly connected components (Tarjan's algorithm, iterative) instead
//! of rounds over every node until nothing changes.
//!
//! R8's relevance sets ([`super::relevance`]) are such unions over the
//! value graph, whose μ's make it cyclic; the least fixpoint of
//! `row(x) ⊇ row(y)` for every edge `x → y` is the union over what `x`
//! reaches, which is the same for every node of a component. Components
//! complete in reverse topological order, so the rows a component reads
//! outside itself are final when it completes.

/// A graph as adjacency lists in one array: the successors of node `x`
/// are `edges[start[x]..start[x + 1]]`.
#[derive(Default)]
pub(super) struct Adjacency {
    /// Where each node's successors start (one more entry at the end).
    pub start: Vec<u32>,
    /// The successors, node after node.
    pub edges: Vec<u32>,
}

impl Adjacency {
    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// The successors of `x`.
    fn of(&self, x: usize) -> &[u32] {
        &self.edges[self.start[x] as usize..self.start[x + 1] as usize]
    }
}

/// Makes each `width`-word row of `bits` (one per node of `adj`) the union
/// of the rows of every node it reaches in `adj`, itself included.
pub(super) fn union_over_cones(adj: &Adjacency, bits: &mut [u64], width: usize) {
    const UNSEEN: u32 = u32::MAX;
    let n = adj.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    // The depth-first path: (node, next successor to visit).
    let mut path: Vec<(u32, u32)> = Vec::new();
    let mut next = 0u32;
    let mut row = vec![0u64; width];
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        path.push((root as u32, 0));
        while let Some(&mut (v, ref mut k)) = path.last_mut() {
            let v = v as usize;
            if let Some(&w) = adj.of(v).get(*k as usize) {
                *k += 1;
                let w = w as usize;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w as u32);
                    on_stack[w] = true;
                    path.push((w as u32, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            path.pop();
            if let Some(&(u, _)) = path.last() {
                low[u as usize] = low[u as usize].min(low[v]);
            }
            if low[v] != index[v] {
                continue;
            }
            // `v` roots a component: the nodes above it on the stack. An
            // edge leaving it ends in a completed component (its row is
            // final); one ending on the stack stays inside it.
            let from = stack.iter().rposition(|&x| x as usize == v).unwrap_or(0);
            row.iter_mut().for_each(|w| *w = 0);
            for &m in &stack[from..] {
                let m = m as usize;
                for (w, b) in row.iter_mut().zip(&bits[m * width..(m + 1) * width]) {
                    *w |= b;
                }
                for &y in adj.of(m) {
                    let y = y as usize;
                    if !on_stack[y] {
                        for (w, b) in row.iter_mut().zip(&bits[y * width..(y + 1) * width]) {
                            *w |= b;
                        }
                    }
                }
            }
            for &m in &stack[from..] {
                let m = m as usize;
                bits[m * width..(m + 1) * width].copy_from_slice(&row);
                on_stack[m] = false;
            }
            stack.truncate(from);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The rows by rounds over every node until nothing changes (what
    /// R8's relevance computed before).
    fn by_rounds(adj: &Adjacency, bits: &mut [u64], width: usize) {
        loop {
            let mut changed = false;
            for x in 0..adj.len() {
                for &a in adj.of(x) {
                    let a = a as usize;
                    for w in 0..width {
                        let add = bits[a * width + w] & !bits[x * width + w];
                        if add != 0 {
                            bits[x * width + w] |= add;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    proptest! {
        /// On random graphs (cycles, self-loops, shared successors) the
        /// component pass gives the rows of the rounds.
        #[test]
        fn unions_are_the_least_fixpoint(
            n in 1usize..40,
            edges in proptest::collection::vec((any::<u8>(), any::<u8>()), 0..80),
            own in proptest::collection::vec((any::<u8>(), 0u32..100), 0..30),
        ) {
            let width = 2;
            let mut lists = vec![Vec::new(); n];
            for (x, y) in edges {
                lists[x as usize % n].push(y as u32 % n as u32);
            }
            let mut adj = Adjacency::default();
            for l in &lists {
                adj.start.push(adj.edges.len() as u32);
                adj.edges.extend(l);
            }
            adj.start.push(adj.edges.len() as u32);
            let mut bits = vec![0u64; n * width];
            for (x, b) in own {
                let x = x as usize % n;
                bits[x * width + (b / 64) as usize] |= 1 << (b % 64);
            }
            let mut expect = bits.clone();
            by_rounds(&adj, &mut expect, width);
            union_over_cones(&adj, &mut bits, width);
            prop_assert_eq!(bits, expect);
        }
    }
}
