//! The mismatch report (Govereau §7.3.3, digest §5.4 step 6): both roots
//! are walked in parallel, position by position, to the first aligned pair
//! of nodes whose operators differ; it is printed with its arguments two
//! levels deep (`173 /= 59` style) and the IR values and source locations
//! the nodes were built from.

use std::fmt;

use super::graph::{Graph, Id, Op, Origin};
use super::refine::Classes;
use crate::ir::{Program, SrcLoc};

/// Where an alarm's differing nodes come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// `result` or `effects`: which part of the denotation differs.
    pub part: &'static str,
    /// The node of the original function, printed two levels deep.
    pub before: String,
    /// The node of the optimized function, printed two levels deep.
    pub after: String,
    /// The IR entity and source location of the original's node.
    pub before_at: Option<(String, SrcLoc)>,
    /// The IR entity and source location of the optimized node.
    pub after_at: Option<(String, SrcLoc)>,
}

impl Report {
    /// The report with file names from `program`'s file table.
    pub fn render(&self, program: Option<&Program>) -> String {
        let at = |x: &Option<(String, SrcLoc)>| match x {
            Some((what, loc)) => {
                let l = match program {
                    Some(p) => p.describe_loc(*loc),
                    None if loc.is_known() => format!("{}:{}", loc.line, loc.col),
                    None => "<unknown>".into(),
                };
                format!("{what} at {l}")
            }
            None => "no IR value".into(),
        };
        format!(
            "the {} differs: {} /= {} (before: {}; after: {})",
            self.part,
            self.before,
            self.after,
            at(&self.before_at),
            at(&self.after_at)
        )
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(None))
    }
}

/// The first differing pair under `roots` (`[ret_b, eff_b, ret_a, eff_a]`).
pub fn explain(g: &Graph, cls: &Classes, roots: &[Id; 4]) -> Report {
    let (part, a, b) = if cls.same(roots[0], roots[2]) {
        ("effects", roots[1], roots[3])
    } else {
        ("result", roots[0], roots[2])
    };
    let (x, y) = first_difference(g, cls, a, b);
    let origin = |n: Id| g.origin(n).map(|o: &Origin| (o.what.clone(), o.loc));
    Report {
        part,
        before: g.show(x, 2),
        after: g.show(y, 2),
        before_at: origin(x),
        after_at: origin(y),
    }
}

/// Arguments in a canonical order (sorted by class where order does not
/// matter), so corresponding positions line up.
fn aligned(g: &Graph, cls: &Classes, n: Id) -> Vec<Id> {
    let node = g.node(n);
    let mut args = node.args.to_vec();
    if node.op.commutative() || node.op.is_set() {
        args.sort_by_key(|&a| cls.of(a));
    } else if node.op == Op::Phi {
        let mut pairs: Vec<(Id, Id)> = args.chunks(2).map(|c| (c[0], c[1])).collect();
        pairs.sort_by_key(|&(gt, v)| (cls.of(gt), cls.of(v)));
        args = pairs.into_iter().flat_map(|(gt, v)| [gt, v]).collect();
    }
    args
}

/// Steps [`first_difference`] walks at most.
const MAX_STEPS: usize = 10_000;

/// The pair the walk from `(a, b)` stops at: the first aligned pair whose
/// operators, types or arities differ, or one whose arguments all share
/// classes, or the pair reached after [`MAX_STEPS`] steps.
///
/// The walk is a function of the pair, so once a pair repeats (a walk
/// around both functions' loops) it is periodic, and the pair after
/// [`MAX_STEPS`] steps is read off the cycle instead of walking it.
fn first_difference(g: &Graph, cls: &Classes, a: Id, b: Id) -> (Id, Id) {
    let mut path: Vec<(Id, Id)> = vec![(a, b)];
    let mut seen: rustc_hash::FxHashMap<(Id, Id), usize> = Default::default();
    seen.insert((a, b), 0);
    for k in 0..MAX_STEPS {
        let (a, b) = path[k];
        let (na, nb) = (g.node(a), g.node(b));
        if na.op != nb.op || na.ty != nb.ty || na.args.len() != nb.args.len() {
            return (a, b);
        }
        let (xa, xb) = (aligned(g, cls, a), aligned(g, cls, b));
        let Some((&p, &q)) = xa.iter().zip(&xb).find(|(p, q)| !cls.same(**p, **q)) else {
            return (a, b);
        };
        if let Some(&j) = seen.get(&(p, q)) {
            // The pair after step `k + 1` is the one after step `j`:
            // the walk repeats with period `k + 1 - j` from there.
            let period = k + 1 - j;
            return path[j + (MAX_STEPS - j) % period];
        }
        seen.insert((p, q), k + 1);
        path.push((p, q));
    }
    path[MAX_STEPS]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, Type};
    use crate::validate::refine::refine;
    use proptest::prelude::*;

    /// The walk step by step to the end, as it was before the cycle
    /// shortcut.
    fn walked(g: &Graph, cls: &Classes, mut a: Id, mut b: Id) -> (Id, Id) {
        for _ in 0..MAX_STEPS {
            let (na, nb) = (g.node(a), g.node(b));
            if na.op != nb.op || na.ty != nb.ty || na.args.len() != nb.args.len() {
                return (a, b);
            }
            let (xa, xb) = (aligned(g, cls, a), aligned(g, cls, b));
            match xa.iter().zip(&xb).find(|(p, q)| !cls.same(**p, **q)) {
                Some((&p, &q)) => (a, b) = (p, q),
                None => return (a, b),
            }
        }
        (a, b)
    }

    /// Two loops that differ only in their steps, `μ(p, μ - 1)` and
    /// `μ(p, μ - 2)`: the walk goes around both forever, and stops after
    /// its last step on the pair of μ's.
    #[test]
    fn walk_around_two_loops() {
        let mut g = Graph::new();
        let p = g.intern(Op::Param(0), Type::Int, Vec::new());
        let mut lp = |k: u64| {
            let m = g.open_mu(1, Type::Int, p);
            let c = g.konst(Type::Int, k);
            let next = g.bin(BinaryOp::ISub, Type::Int, m, c);
            g.patch_mu(m, next);
            m
        };
        let (a, b) = (lp(1), lp(2));
        let cls = refine(&g, &[a, b]);
        assert!(!cls.same(a, b));
        assert_eq!(first_difference(&g, &cls, a, b), (a, b));
        assert_eq!(walked(&g, &cls, a, b), (a, b));
        let (na, nb) = (g.node(a).args[1], g.node(b).args[1]);
        assert_eq!(first_difference(&g, &cls, na, nb), (na, nb));
        assert_eq!(walked(&g, &cls, na, nb), (na, nb));
    }

    proptest! {
        /// On random graphs with μ cycles (walks that go around loops
        /// forever included), the shortcut stops where the walk does.
        #[test]
        fn cycle_shortcut_stops_where_the_walk_does(
            ops in proptest::collection::vec((0u8..4, any::<u8>(), any::<u8>()), 1..30),
            nexts in proptest::collection::vec(any::<u8>(), 0..12),
        ) {
            let mut g = Graph::new();
            let mut nodes = vec![
                g.intern(Op::Param(0), Type::Int, Vec::new()),
                g.konst(Type::Int, 1),
                g.konst(Type::Int, 2),
            ];
            let mut mus = Vec::new();
            for &(k, x, y) in &ops {
                let (x, y) = (nodes[x as usize % nodes.len()], nodes[y as usize % nodes.len()]);
                let n = match k {
                    0 => g.bin(BinaryOp::IAdd, Type::Int, x, y),
                    1 => g.bin(BinaryOp::ISub, Type::Int, x, y),
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
            let cls = refine(&g, &nodes);
            for (i, &a) in nodes.iter().enumerate().rev().take(4) {
                for &b in nodes.iter().skip(i % 3).step_by(5) {
                    prop_assert_eq!(first_difference(&g, &cls, a, b), walked(&g, &cls, a, b));
                }
            }
        }
    }
}
