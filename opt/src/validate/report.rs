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

fn first_difference(g: &Graph, cls: &Classes, mut a: Id, mut b: Id) -> (Id, Id) {
    for _ in 0..10_000 {
        let (na, nb) = (g.node(a), g.node(b));
        if na.op != nb.op || na.ty != nb.ty || na.args.len() != nb.args.len() {
            return (a, b);
        }
        let (xa, xb) = (aligned(g, cls, a), aligned(g, cls, b));
        match xa.iter().zip(&xb).find(|(p, q)| !cls.same(**p, **q)) {
            Some((&p, &q)) => {
                a = p;
                b = q;
            }
            None => return (a, b),
        }
    }
    (a, b)
}
