//! Maximal sharing as the coarsest congruence, by partition refinement
//! (digest §5.4 step 3; Govereau §8.0.4 reports trying Hopcroft
//! partitioning for cycle matching, and §5.1's `bisim` is the equivalence
//! this computes).
//!
//! Start with one class per (operator, payload, type, arity) and split
//! classes by the classes of their arguments until nothing splits (Moore's
//! algorithm). Refinement computes the *greatest* fixpoint, so two
//! isomorphic μ-cycles (the loops of both functions) end in one class,
//! which plain hash-consing, a least fixpoint, cannot do (test P10).
//! Commutative operators use the sorted argument classes, `And`/`Or` the
//! sorted set, and φ the sorted multiset of (gate, value) pairs; this
//! subsumes the thesis's commuting rules and φ-branch sorting (R0).

use rustc_hash::FxHashMap;

use super::graph::{Graph, Id, Op};

/// The class of every node reachable from the roots.
pub struct Classes {
    /// Class per node index (`u32::MAX` for nodes not reached).
    pub class: Vec<u32>,
    /// Number of classes.
    pub count: u32,
    /// The nodes reachable from the roots, arguments before users where
    /// the graph is acyclic.
    pub reached: Vec<Id>,
}

impl Classes {
    /// The class of `id`.
    pub fn of(&self, id: Id) -> u32 {
        self.class[id.index()]
    }

    /// Whether `a` and `b` are in one class.
    pub fn same(&self, a: Id, b: Id) -> bool {
        self.of(a) == self.of(b)
    }
}

/// The nodes reachable from `roots`, in post-order.
pub fn reachable(g: &Graph, roots: &[Id]) -> Vec<Id> {
    let mut seen = vec![false; g.len()];
    let mut out = Vec::new();
    let mut stack: Vec<(Id, usize)> = Vec::new();
    for &r in roots {
        if seen[r.index()] {
            continue;
        }
        seen[r.index()] = true;
        stack.push((r, 0));
        while let Some(&mut (n, ref mut i)) = stack.last_mut() {
            let args = &g.node(n).args;
            if *i < args.len() {
                let a = args[*i];
                *i += 1;
                if !seen[a.index()] {
                    seen[a.index()] = true;
                    stack.push((a, 0));
                }
            } else {
                out.push(n);
                stack.pop();
            }
        }
    }
    out
}

/// The coarsest partition of the nodes reachable from `roots` that is a
/// congruence.
pub fn refine(g: &Graph, roots: &[Id]) -> Classes {
    let reached = reachable(g, roots);
    let mut class = vec![u32::MAX; g.len()];
    let mut table: FxHashMap<(&Op, crate::ir::Type, usize), u32> = FxHashMap::default();
    for &n in &reached {
        let node = g.node(n);
        let arity = if node.op.is_set() { 0 } else { node.args.len() };
        let next = table.len() as u32;
        class[n.index()] = *table.entry((&node.op, node.ty, arity)).or_insert(next);
    }
    let mut count = table.len() as u32;
    drop(table);
    let mut sigs: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
    let mut next_class = vec![0u32; g.len()];
    let mut sig = Vec::new();
    loop {
        sigs.clear();
        for &n in &reached {
            signature(g, &class, n, &mut sig);
            let fresh = sigs.len() as u32;
            next_class[n.index()] = match sigs.get(&sig) {
                Some(&c) => c,
                None => {
                    sigs.insert(sig.clone(), fresh);
                    fresh
                }
            };
        }
        let new_count = sigs.len() as u32;
        for &n in &reached {
            class[n.index()] = next_class[n.index()];
        }
        if new_count == count {
            break;
        }
        count = new_count;
    }
    Classes {
        class,
        count,
        reached,
    }
}

/// `(own class, canonical argument classes)` of `n` into `out`.
fn signature(g: &Graph, class: &[u32], n: Id, out: &mut Vec<u32>) {
    out.clear();
    let node = g.node(n);
    out.push(class[n.index()]);
    let start = out.len();
    out.extend(node.args.iter().map(|a| class[a.index()]));
    if node.op.is_set() {
        out[start..].sort_unstable();
        let mut v: Vec<u32> = out[start..].to_vec();
        v.dedup();
        out.truncate(start);
        out.extend(v);
    } else if node.op == Op::Phi {
        let mut pairs: Vec<(u32, u32)> = out[start..].chunks(2).map(|c| (c[0], c[1])).collect();
        pairs.sort_unstable();
        out.truncate(start);
        for (a, b) in pairs {
            out.push(a);
            out.push(b);
        }
    } else if node.op.commutative() && node.args.len() == 2 && out[start] > out[start + 1] {
        out.swap(start, start + 1);
    }
}
