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

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::graph::{Graph, Id, Op};

/// The signatures of one round, interned: class `c` is the `c`-th distinct
/// signature, stored flat in `words` (no allocation per signature; a round
/// over the whole graph interns one per node).
#[derive(Default)]
struct Signatures {
    /// Every distinct signature, one after the other.
    words: Vec<u32>,
    /// Where each class's signature starts in `words` (one more entry at
    /// the end).
    starts: Vec<u32>,
    /// The classes by the hash of their signature.
    table: HashTable<u32>,
}

impl Signatures {
    /// Room for `n` signatures of about three words each, so a round over
    /// `n` nodes does not grow the table.
    fn with_capacity(n: usize) -> Signatures {
        Signatures {
            words: Vec::with_capacity(3 * n),
            starts: Vec::with_capacity(n + 1),
            table: HashTable::with_capacity(n),
        }
    }

    /// Forgets every signature.
    fn clear(&mut self) {
        self.words.clear();
        self.starts.clear();
        self.starts.push(0);
        self.table.clear();
    }

    /// The number of distinct signatures.
    fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// The class of `sig`: the existing one, or the next number.
    fn class(&mut self, sig: &[u32]) -> u32 {
        let hash = FxBuildHasher.hash_one(sig);
        let (words, starts) = (&self.words, &self.starts);
        let span = |c: u32| &words[starts[c as usize] as usize..starts[c as usize + 1] as usize];
        if let Some(&c) = self.table.find(hash, |&c| span(c) == sig) {
            return c;
        }
        let c = self.len() as u32;
        self.words.extend_from_slice(sig);
        self.starts.push(self.words.len() as u32);
        let (words, starts) = (&self.words, &self.starts);
        self.table.insert_unique(hash, c, |&c| {
            FxBuildHasher
                .hash_one(&words[starts[c as usize] as usize..starts[c as usize + 1] as usize])
        });
        c
    }
}

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
///
/// Moore's algorithm needs as many rounds as the longest chain a
/// difference has to travel up (a token chain of a few hundred effects
/// takes a few hundred rounds over the whole graph). Every cycle of the
/// graph goes through the `next` argument of a μ, so with those arguments
/// cut the graph is acyclic; one round here visits the nodes in that
/// acyclic order and gives every node the class of its own previous class
/// and its arguments' classes *of this round*, except a μ's `next`, which
/// takes its class of the previous round (Gauss–Seidel instead of Jacobi
/// iteration). A difference then travels up the whole graph in one round
/// and around a loop's back edge in the next, so the rounds are about the
/// number of back edges a difference must cross, not the graph's height.
///
/// Correctness, with `~` the coarsest congruence: the first partition
/// (by operator, type and arity) is coarser than `~`, and a round keeps it
/// so (by induction along the order, two equivalent nodes have equal
/// signatures); every round refines the previous partition (the signature
/// starts with the node's previous class); when a round splits nothing,
/// equal signatures make the partition a congruence, hence no finer than
/// `~`. The argument holds for any set of cut arguments that every cycle
/// crosses, as long as it is the same for every node of an operator (two
/// equivalent nodes then read corresponding arguments from the same
/// round). A rewrite can make a cycle that avoids every μ's `next` (R11's
/// new gate of a φ may read the φ, and later rules carry the cycle on);
/// then every argument of the operator that closes such a cycle is cut
/// too, until no cycle is left (Moore's rounds after [`MAX_CUT_KINDS`]
/// operators), and the classes are numbered as Moore's rounds number them.
pub fn refine(g: &Graph, roots: &[Id]) -> Classes {
    refine_with(g, roots, true)
}

/// [`refine`], with [`gauss_seidel_with`]'s early end only when `early`.
fn refine_with(g: &Graph, roots: &[Id], early: bool) -> Classes {
    let mut cut = Cut::default();
    let order = loop {
        match cut_order(g, roots, &cut) {
            Ok(order) => break order,
            Err(op) if cut.kinds.len() < MAX_CUT_KINDS => {
                cut.kinds.push(std::mem::discriminant(op));
            }
            Err(_) => return moore(g, roots),
        }
    };
    let cls = gauss_seidel_with(g, order, &cut, early);
    if cut.kinds.is_empty() {
        cls
    } else {
        renumbered(cls, reachable(g, roots))
    }
}

/// Most operators [`refine`] cuts every argument of before it falls back
/// to Moore's rounds.
const MAX_CUT_KINDS: usize = 8;

/// Which arguments a round of [`gauss_seidel_with`] reads from the previous
/// round (the cut edges: every cycle of the graph must go through one):
/// a μ's `next`, and every argument of an operator of `kinds`.
#[derive(Default)]
struct Cut {
    kinds: Vec<std::mem::Discriminant<Op>>,
}

impl Cut {
    /// Whether argument `i` of an `op` node is cut.
    fn cuts(&self, op: &Op, i: usize) -> bool {
        matches!(op, Op::Mu(_)) && i == 1
            || (!self.kinds.is_empty() && self.kinds.contains(&std::mem::discriminant(op)))
    }
}

/// The rounds of [`refine`] over `order` (from [`cut_order`] with the
/// same `cut`): each node's signature reads the classes of this round,
/// except for its cut arguments, which read the previous round's.
///
/// A round ends the rounds when it splits nothing, or when it is already
/// known that the next one would not ([`stable`]): then the next round
/// would only find the same partition again, numbered alike, which saves
/// the last round of every refinement. Only when `early` (the tests
/// compare both).
fn gauss_seidel_with(g: &Graph, order: Vec<Id>, cut: &Cut, early: bool) -> Classes {
    let mut prev = initial(g, &order);
    let mut count = prev.count;
    let mut cur = vec![u32::MAX; g.len()];
    let mut sigs = Signatures::with_capacity(order.len());
    let mut sig = Vec::new();
    // The nodes that read an argument from the previous round.
    let readers: Vec<Id> = (order.iter().copied())
        .filter(|&n| {
            let node = g.node(n);
            (0..node.args.len()).any(|i| cut.cuts(&node.op, i))
        })
        .collect();
    let mut first = Vec::new();
    let mut other = Vec::new();
    loop {
        sigs.clear();
        for &n in &order {
            let node = g.node(n);
            sig.clear();
            sig.push(prev.class[n.index()]);
            for (i, a) in node.args.iter().enumerate() {
                let from = if cut.cuts(&node.op, i) {
                    &prev.class
                } else {
                    &cur
                };
                sig.push(from[a.index()]);
            }
            canonical_args(&node.op, &mut sig, 1);
            cur[n.index()] = sigs.class(&sig);
        }
        let new_count = sigs.len() as u32;
        std::mem::swap(&mut prev.class, &mut cur);
        if new_count == count {
            break;
        }
        count = new_count;
        if early
            && stable(
                g,
                &prev.class,
                count,
                &readers,
                &mut first,
                &mut sig,
                &mut other,
            )
        {
            break;
        }
    }
    Classes {
        class: prev.class,
        count,
        reached: order,
    }
}

/// Whether the next round of [`gauss_seidel_with`] would split nothing of the
/// partition `class` (of `count` classes): every two `readers` (the
/// nodes with a cut argument) of one class have the same signature over
/// `class` for all their arguments.
///
/// Then `class` is a congruence: a node that reads no cut argument had,
/// in the round that made `class`, a signature over this same partition,
/// so two nodes of one class agree on their arguments' classes already;
/// and a class holds readers only or none, as the cut goes by operator
/// and a class by operator. So the next round finds every signature
/// equal within each class, and numbers the classes alike (by first
/// appearance along the same order). `first`, `a` and `b` are scratch.
#[allow(clippy::too_many_arguments)]
fn stable(
    g: &Graph,
    class: &[u32],
    count: u32,
    readers: &[Id],
    first: &mut Vec<u32>,
    a: &mut Vec<u32>,
    b: &mut Vec<u32>,
) -> bool {
    first.clear();
    first.resize(count as usize, u32::MAX);
    for &n in readers {
        let c = class[n.index()] as usize;
        if first[c] == u32::MAX {
            first[c] = n.0;
            continue;
        }
        signature(g, class, n, a);
        signature(g, class, Id(first[c]), b);
        if a != b {
            return false;
        }
    }
    true
}

/// `cls` with `reached` as its node order and its classes numbered by
/// first appearance along it (how [`moore`] numbers them).
fn renumbered(mut cls: Classes, reached: Vec<Id>) -> Classes {
    let mut new = vec![u32::MAX; cls.count as usize];
    let mut next = 0;
    for &n in &reached {
        let c = &mut cls.class[n.index()];
        if new[*c as usize] == u32::MAX {
            new[*c as usize] = next;
            next += 1;
        }
        *c = new[*c as usize];
    }
    cls.reached = reached;
    cls
}

/// [`refine`] by Moore's rounds over the post-order (the fallback for a
/// graph whose cycles [`refine`]'s cuts do not break, and the reference
/// the tests compare with).
fn moore(g: &Graph, roots: &[Id]) -> Classes {
    let reached = reachable(g, roots);
    let Classes {
        mut class,
        mut count,
        ..
    } = initial(g, &reached);
    let mut sigs = Signatures::default();
    let mut next_class = vec![0u32; g.len()];
    let mut sig = Vec::new();
    loop {
        sigs.clear();
        for &n in &reached {
            signature(g, &class, n, &mut sig);
            next_class[n.index()] = sigs.class(&sig);
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

/// The nodes reachable from `roots` in an order where every node comes
/// after its arguments, except after the arguments `cut` cuts (a μ's
/// `next`); when a cycle avoids every cut argument, the operator of the
/// node whose argument closes it.
fn cut_order<'g>(g: &'g Graph, roots: &[Id], cut: &Cut) -> Result<Vec<Id>, &'g Op> {
    // 0: not seen, 1: on the stack, 2: done.
    let mut state = vec![0u8; g.len()];
    let mut out = Vec::new();
    let mut pending: Vec<Id> = roots.to_vec();
    let mut stack: Vec<(Id, usize)> = Vec::new();
    while let Some(r) = pending.pop() {
        if state[r.index()] != 0 {
            continue;
        }
        state[r.index()] = 1;
        stack.push((r, 0));
        while let Some(&mut (n, ref mut i)) = stack.last_mut() {
            let node = g.node(n);
            if *i < node.args.len() {
                let k = *i;
                *i += 1;
                if cut.cuts(&node.op, k) {
                    continue;
                }
                let a = node.args[k];
                match state[a.index()] {
                    0 => {
                        state[a.index()] = 1;
                        stack.push((a, 0));
                    }
                    1 => return Err(&node.op),
                    _ => {}
                }
            } else {
                for (k, &a) in node.args.iter().enumerate() {
                    if cut.cuts(&node.op, k) {
                        pending.push(a);
                    }
                }
                state[n.index()] = 2;
                out.push(n);
                stack.pop();
            }
        }
    }
    Ok(out)
}

/// The first partition: one class per (operator, payload, type, arity);
/// sets ignore their arity ([`Graph::kind`]). Classes are numbered by
/// first appearance along `order`.
fn initial(g: &Graph, order: &[Id]) -> Classes {
    let mut class = vec![u32::MAX; g.len()];
    let mut of_kind = vec![u32::MAX; g.kind_count()];
    let mut count = 0;
    for &n in order {
        let c = &mut of_kind[g.kind(n) as usize];
        if *c == u32::MAX {
            *c = count;
            count += 1;
        }
        class[n.index()] = *c;
    }
    Classes {
        class,
        count,
        reached: Vec::new(),
    }
}

/// `(own class, canonical argument classes)` of `n` into `out`.
fn signature(g: &Graph, class: &[u32], n: Id, out: &mut Vec<u32>) {
    out.clear();
    let node = g.node(n);
    out.push(class[n.index()]);
    out.extend(node.args.iter().map(|a| class[a.index()]));
    canonical_args(&node.op, out, 1);
}

/// Puts the argument classes `out[start..]` of an `op` node in canonical
/// order: a sorted set for `And`/`Or`, sorted (gate, value) pairs for φ,
/// sorted operands for a commutative binary operator.
fn canonical_args(op: &Op, out: &mut Vec<u32>, start: usize) {
    if op.is_set() {
        out[start..].sort_unstable();
        let mut w = start;
        for r in start..out.len() {
            if w == start || out[r] != out[w - 1] {
                out[w] = out[r];
                w += 1;
            }
        }
        out.truncate(w);
    } else if *op == Op::Phi {
        let mut pairs: smallvec::SmallVec<[(u32, u32); 8]> =
            out[start..].chunks(2).map(|c| (c[0], c[1])).collect();
        pairs.sort_unstable();
        out.truncate(start);
        for (a, b) in pairs {
            out.push(a);
            out.push(b);
        }
    } else if op.commutative() && out.len() == start + 2 && out[start] > out[start + 1] {
        out.swap(start, start + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, Type};
    use proptest::prelude::*;

    /// A random graph: parameters and constants, binary operators over
    /// earlier nodes, and μ's whose `next` is any node (cycles).
    fn build(ops: &[(u8, u8, u8)], nexts: &[u8]) -> (Graph, Vec<Id>) {
        let mut g = Graph::new();
        let mut nodes = vec![
            g.intern(Op::Param(0), Type::Int, Vec::new()),
            g.intern(Op::Param(1), Type::Int, Vec::new()),
            g.konst(Type::Int, 1),
        ];
        let mut mus = Vec::new();
        for &(k, x, y) in ops {
            let (x, y) = (
                nodes[x as usize % nodes.len()],
                nodes[y as usize % nodes.len()],
            );
            let n = match k % 4 {
                0 => g.bin(BinaryOp::IAdd, Type::Int, x, y),
                1 => g.bin(BinaryOp::ISub, Type::Int, x, y),
                2 => g.bin(BinaryOp::IMul, Type::Int, x, y),
                _ => {
                    let m = g.open_mu(1, Type::Int, x);
                    mus.push(m);
                    m
                }
            };
            nodes.push(n);
        }
        for (i, &m) in mus.iter().enumerate() {
            let next = nodes[nexts.get(i).copied().unwrap_or(0) as usize % nodes.len()];
            g.patch_mu(m, next);
        }
        (g, nodes)
    }

    proptest! {
        /// The Gauss–Seidel rounds find the same coarsest congruence as
        /// Moore's rounds.
        #[test]
        fn refine_agrees_with_moore(
            ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..40),
            nexts in proptest::collection::vec(any::<u8>(), 0..16),
        ) {
            let (g, nodes) = build(&ops, &nexts);
            let roots: Vec<Id> = nodes.iter().rev().take(4).copied().collect();
            let a = refine(&g, &roots);
            let b = moore(&g, &roots);
            prop_assert_eq!(a.count, b.count);
            for &x in &b.reached {
                for &y in &b.reached {
                    prop_assert_eq!(a.same(x, y), b.same(x, y));
                }
            }
        }
    }

    /// A random graph as [`build`] makes it, then `back` edges: argument
    /// `i` of a non-leaf node set to any node, so cycles may avoid every
    /// μ (as a rewrite can make them); φ's, sets and η's included.
    fn build_cyclic(ops: &[(u8, u8, u8)], back: &[(u8, u8, u8)]) -> (Graph, Vec<Id>) {
        let mut g = Graph::new();
        let mut nodes = vec![
            g.intern(Op::Param(0), Type::Int, Vec::new()),
            g.intern(Op::Param(1), Type::Int, Vec::new()),
            g.konst(Type::Int, 1),
        ];
        for &(k, x, y) in ops {
            let (x, y) = (
                nodes[x as usize % nodes.len()],
                nodes[y as usize % nodes.len()],
            );
            let n = match k % 6 {
                0 => g.bin(BinaryOp::IAdd, Type::Int, x, y),
                1 => g.bin(BinaryOp::ISub, Type::Int, x, y),
                2 => g.intern(Op::Phi, Type::Int, vec![x, y, y, x]),
                3 => g.intern(Op::And, Type::Bool, vec![x, y]),
                4 => g.intern(Op::Eta(1), Type::Int, vec![x, y]),
                _ => {
                    let m = g.open_mu(1, Type::Int, x);
                    g.patch_mu(m, y);
                    m
                }
            };
            nodes.push(n);
        }
        for &(n, i, to) in back {
            let n = nodes[3 + n as usize % (nodes.len() - 3)];
            let arity = g.node(n).args.len();
            if arity > 0 {
                g.set_arg(n, i as usize % arity, nodes[to as usize % nodes.len()]);
            }
        }
        (g, nodes)
    }

    proptest! {
        /// The first partition, read off the kinds the graph numbers when
        /// it makes nodes (`Graph::kind`), is the one a map over
        /// (operator, type, arity; sets by operator and type) gives,
        /// numbered alike, also after arguments were edited in place.
        #[test]
        fn first_partition_is_by_operator_type_and_arity(
            ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..40),
            back in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..8),
        ) {
            let (mut g, nodes) = build_cyclic(&ops, &back);
            // Sets of other arities than the two `build_cyclic` makes.
            let one = g.intern(Op::And, Type::Bool, vec![nodes[0]]);
            let three = g.intern(Op::And, Type::Bool, vec![nodes[0], nodes[1], nodes[2]]);
            let mut roots: Vec<Id> = nodes.iter().rev().take(4).copied().collect();
            roots.extend([one, three]);
            let order = reachable(&g, &roots);
            let a = initial(&g, &order);
            let mut table: rustc_hash::FxHashMap<(&Op, Type, usize), u32> = Default::default();
            for &n in &order {
                let node = g.node(n);
                let arity = if node.op.is_set() { 0 } else { node.args.len() };
                let next = table.len() as u32;
                let c = *table.entry((&node.op, node.ty, arity)).or_insert(next);
                prop_assert_eq!(a.class[n.index()], c);
            }
            prop_assert_eq!(a.count as usize, table.len());
        }
    }

    proptest! {
        /// With cycles that avoid the μ's, the rounds with more arguments
        /// cut find Moore's coarsest congruence and number it alike.
        #[test]
        fn refine_with_cycles_agrees_with_moore(
            ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..40),
            back in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..8),
        ) {
            let (g, nodes) = build_cyclic(&ops, &back);
            let roots: Vec<Id> = nodes.iter().rev().take(4).copied().collect();
            let a = refine(&g, &roots);
            let b = moore(&g, &roots);
            prop_assert_eq!(a.count, b.count);
            for &x in &b.reached {
                for &y in &b.reached {
                    prop_assert_eq!(a.same(x, y), b.same(x, y));
                }
            }
            if cut_order(&g, &roots, &Cut::default()).is_err() {
                prop_assert_eq!(&a.class, &b.class);
                prop_assert_eq!(&a.reached, &b.reached);
            }
        }
    }

    proptest! {
        /// Ending the rounds once the next one is known to split nothing
        /// gives exactly the classes, numbering and order of running it:
        /// on acyclic graphs, on μ cycles and on cycles through other
        /// operators.
        #[test]
        fn early_end_changes_nothing(
            ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..40),
            nexts in proptest::collection::vec(any::<u8>(), 0..16),
            back in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..8),
        ) {
            for (g, nodes) in [build(&ops, &nexts), build_cyclic(&ops, &back)] {
                for k in [1, 4] {
                    let roots: Vec<Id> = nodes.iter().rev().take(k).copied().collect();
                    let a = refine_with(&g, &roots, true);
                    let b = refine_with(&g, &roots, false);
                    prop_assert_eq!(a.count, b.count);
                    prop_assert_eq!(&a.class, &b.class);
                    prop_assert_eq!(&a.reached, &b.reached);
                }
            }
        }
    }

    /// Two isomorphic loops, one unrolled in its representation, end in
    /// one class; a loop with another step does not.
    #[test]
    fn isomorphic_cycles_merge() {
        let mut g = Graph::new();
        let zero = g.konst(Type::Int, 0);
        let one = g.konst(Type::Int, 1);
        let two = g.konst(Type::Int, 2);
        let lp = |g: &mut Graph, step: Id| {
            let m = g.open_mu(1, Type::Int, zero);
            let n = g.bin(BinaryOp::IAdd, Type::Int, m, step);
            g.patch_mu(m, n);
            m
        };
        let a = lp(&mut g, one);
        let b = lp(&mut g, one);
        let c = lp(&mut g, two);
        let cls = refine(&g, &[a, b, c]);
        assert!(cls.same(a, b));
        assert!(!cls.same(a, c));
    }
}
