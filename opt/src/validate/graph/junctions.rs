//! Conjunctions and disjunctions of the shared graph: flattened, with
//! constants folded and complements (`x ∧ ¬x`) found along a chain in
//! linear time, and the conjunction each one extends remembered for the
//! gate diagrams ([`Graph::extension`], [`super::super::gates`]).

use smallvec::SmallVec;

use super::{Args, Graph, Id, Node, Op};
use crate::ir::{BinaryOp, Cmp, Type};

#[cfg(test)]
use super::count_probes;

impl Graph {
    /// Conjunction, flattened, with constants folded.
    pub fn and(&mut self, parts: &[Id]) -> Id {
        self.junction(Op::And, parts)
    }

    /// Disjunction, flattened, with constants folded.
    pub fn or(&mut self, parts: &[Id]) -> Id {
        self.junction(Op::Or, parts)
    }

    fn junction(&mut self, op: Op, parts: &[Id]) -> Id {
        let unit = op == Op::And; // the neutral element
                                  // The largest part of the same operator that is complement-free
                                  // (the path condition a longer one extends): its own arguments
                                  // are not compared with each other again.
        let checked = parts
            .iter()
            .copied()
            .filter(|&p| self.node(p).op == op && self.is_complement_free(p))
            .max_by_key(|&p| self.node(p).args.len());
        let mut out = Args::with_capacity(parts.len());
        let mut fresh = Args::new();
        for &p in parts {
            let n = self.node(p);
            if n.op == op {
                out.extend(n.args.iter().copied());
                if Some(p) != checked {
                    fresh.extend(n.args.iter().copied());
                }
                continue;
            }
            match self.bool_of(p) {
                Some(b) if b == unit => {}
                Some(_) => return self.boolean(!unit),
                None => {
                    out.push(p);
                    fresh.push(p);
                }
            }
        }
        out.sort();
        out.dedup();
        if checked.is_none() && out.len() >= 2 {
            // The same set as a complement-free node (R3 rebuilds every
            // conjunction from its representatives in every round).
            let hash = Self::key_hash(&op, Type::Bool, &out);
            if let Some(id) = self.find(hash, &op, Type::Bool, &out) {
                if self.is_complement_free(id) {
                    return id;
                }
            }
        }
        let complements = match checked {
            Some(_) => fresh.iter().any(|&x| self.negated_in(x, &out)),
            None => self.has_complements(&out),
        };
        if complements {
            return self.boolean(!unit);
        }
        match out.len() {
            0 => self.boolean(unit),
            1 => out[0],
            _ => {
                let id = self.intern(op, Type::Bool, out);
                if !self.frozen.contains_key(&id) {
                    self.complement_free.insert(id);
                    if let Some(base) = checked.filter(|&b| b != id) {
                        self.extends.entry(id).or_insert(base);
                    }
                }
                id
            }
        }
    }

    /// The `And`/`Or` that `id` extends and the arguments `id` adds to
    /// it, when `id` was made by extending it and neither has been edited
    /// since: `id` is the junction of the two (its arguments are the
    /// union), so its gate diagram is that of the base combined with the
    /// new arguments ([`super::gates`]), which costs the new arguments
    /// only along a chain of path conditions.
    pub fn extension(&self, id: Id) -> Option<(Id, SmallVec<[Id; 4]>)> {
        let &base = self.extends.get(&id)?;
        if self.frozen.contains_key(&id) || self.frozen.contains_key(&base) {
            return None;
        }
        let (mine, theirs) = (&self.node(id).args, &self.node(base).args);
        if self.node(base).op != self.node(id).op || theirs.len() >= mine.len() {
            return None;
        }
        // Both sorted: walk them, every argument of the base must occur.
        let mut fresh = SmallVec::new();
        let mut j = 0;
        for &a in mine {
            if theirs.get(j) == Some(&a) {
                j += 1;
            } else {
                fresh.push(a);
            }
        }
        (j == theirs.len()).then_some((base, fresh))
    }

    /// Whether `id` is an `And`/`Or` that [`Graph::junction`] found free
    /// of complements, with its arguments unedited since.
    fn is_complement_free(&self, id: Id) -> bool {
        self.complement_free.contains(&id) && !self.frozen.contains_key(&id)
    }

    /// Whether the sorted set `set` holds the negation of `x`, or `x` is a
    /// negation of a member: `x`'s complement ([`Graph::negation`]) or
    /// `¬x`, or the operand of `x = ¬y`.
    fn negated_in(&self, x: Id, set: &[Id]) -> bool {
        #[cfg(test)]
        count_probes(1);
        let n = self.node(x);
        if n.op == Op::Not {
            return set.binary_search(&n.args[0]).is_ok();
        }
        let in_set = |y: Option<Id>| y.is_some_and(|y| set.binary_search(&y).is_ok());
        let not = Op::Not;
        let args = [x];
        in_set(self.negation(x))
            || in_set(self.find(
                Self::key_hash(&not, Type::Bool, &args),
                &not,
                Type::Bool,
                &args,
            ))
    }

    /// Whether the sorted set `parts` holds a node and its negation: `¬x`
    /// next to `x`, or an integer comparison next to its complement (`a <
    /// b` and `b <= a`, `a == b` and `a != b`), by the nodes' arguments.
    ///
    /// The pairs are found among `parts` alone, with no lookup in the
    /// hash-consing table per part (as [`Graph::negation`] does): the
    /// conjunction of `k` literals a path condition is built from costs
    /// `O(k log k)` comparisons, where `k` table probes made the `n` path
    /// conditions of a long `&&` chain the costliest part of its graph.
    fn has_complements(&self, parts: &[Id]) -> bool {
        #[cfg(test)]
        count_probes(parts.len());
        // (operator, arguments) of the comparisons, by the same codes as
        // the complement below.
        let key = |n: &Node| -> Option<(u8, Id, Id)> {
            let (a, b) = (*n.args.first()?, *n.args.get(1)?);
            match n.op {
                Op::Bin(BinaryOp::ICmp(Cmp::Lt)) => Some((0, a, b)),
                Op::Bin(BinaryOp::ICmp(Cmp::Le)) => Some((1, a, b)),
                Op::Bin(BinaryOp::ICmp(Cmp::Eq)) => Some((2, a, b)),
                Op::Bin(BinaryOp::ICmp(Cmp::Ne)) => Some((3, a, b)),
                _ => None,
            }
        };
        let mut cmps: SmallVec<[(u8, Id, Id); 8]> = SmallVec::new();
        for &x in parts {
            let n = self.node(x);
            if n.op == Op::Not && parts.binary_search(&n.args[0]).is_ok() {
                return true;
            }
            if let Some(k) = key(n) {
                cmps.push(k);
            }
        }
        if cmps.len() < 2 {
            return false;
        }
        cmps.sort_unstable();
        cmps.iter().any(|&(c, a, b)| {
            let complement = match c {
                0 => (1, b, a),
                1 => (0, b, a),
                2 => (3, a, b),
                _ => (2, a, b),
            };
            cmps.binary_search(&complement).is_ok()
        })
    }
}
