//! Bounded splitting at lift time (Lawrence ch. 7; digest §6.1 step 3,
//! §4.9, §6.4): the rewrites that move code from a γ's join into its arms,
//! each only where it removes a test, a materialized predicate, or an
//! evaluation, and each capped.
//!
//! - [`Lifter::assume`]: inside the arm of a branch on `p`, `p` is known,
//!   so a second test of the same predicate folds (the nested case of
//!   γ-tupling, Fig 7.9).
//! - [`Lifter::extended_join`]: predicate normalization
//!   `γ(γ(P,t,Q),A,B) → γ(P,A,γ(Q,A,B))` (Fig 3.6) and γ-tupling of two
//!   consecutive γs on one predicate (§7.2), by lifting the join block
//!   that tests again into each arm, where its test folds.
//! - [`Lifter::distribute`]: node distribution across a γ where it
//!   enables a hash-cons or a fold (Weise's PRE through φ, Fig 4.12, §7.1).
//!
//! The lifter applies them while it builds each γ, so the graph the
//! constructor sees is already normalized; the growth they cause is
//! charged to the lifter's duplication budget, and none duplicates a γ
//! that is not re-tested (§7.4.2's control-flow preservation).

use cranelift_entity::SecondaryMap;

use crate::analysis::loops::Loop;
use crate::ir::{Block, Inst, InstKind, Terminator, Type, Value, ValueDef};

use super::build::{is_stateful, template};
use super::graph::{Node, Port, Region, Tail};
use super::lift::{Lifter, Stop};
use super::Unsupported;

/// Most join blocks one branch's arms are extended through
/// ([`Lifter::extended_join`]).
const MAX_CHAIN: usize = 4;

/// Most instructions at the start of a join block considered for
/// distribution into the arms of the γ before it.
const MAX_DISTRIBUTED: usize = 4;

/// Most instructions of a join block duplicated into the arms of a branch
/// to tuple it with the next test of the same predicate.
const MAX_TUPLED_INSTS: usize = 8;

impl Lifter<'_> {
    /// Records that `pred` has the value selecting arm `i` (of a branch with
    /// case `keys`) while that arm is lifted; returns what to restore.
    pub(super) fn assume(
        &mut self,
        pred: Port,
        keys: &[i64],
        i: usize,
        boolean: bool,
    ) -> Option<i64> {
        let k = match keys.get(i) {
            Some(&k) => Some(k),
            // The default arm of a two-way boolean branch.
            None if boolean && keys.len() == 1 => Some(1 - keys[0]),
            None => None,
        };
        match k {
            Some(k) => self.known.insert(pred, k),
            None => self.known.get(&pred).copied(),
        }
    }

    /// Undoes [`Lifter::assume`].
    pub(super) fn restore(&mut self, pred: Port, saved: Option<i64>) {
        match saved {
            Some(k) => self.known.insert(pred, k),
            None => self.known.remove(&pred),
        };
    }

    /// The join of the branch ending `b` on predicate `v`: its immediate
    /// postdominator, moved past a join block `j` that only tests again
    /// (`stop`, the enclosing join, is never passed):
    /// - *predicate normalization* (Lawrence Fig 3.6, digest §6.1 step 2):
    ///   `j` has no instructions and branches on one of its parameters that
    ///   some edge sets to a constant — the short-circuit shape
    ///   `γ(γ(P,true,Q),A,B)`. Lifting `j` into each arm folds the constant
    ///   test, giving `γ(P, A, γ(Q,A,B))` with no boolean materialized;
    /// - *γ-tupling* (Lawrence §7.2, Fig 7.9; digest §4.9, T11): `j` has a
    ///   few instructions and branches on `v` again. Lifting `j` into each
    ///   arm, where `v` is known, folds the second test: one test selects
    ///   the components of both γs.
    ///
    /// Each step duplicates `j`'s instructions into the arms, bounded by
    /// [`MAX_CHAIN`] steps, [`MAX_TUPLED_INSTS`] and the lifter's budget.
    ///
    /// Also returns the values defined in the passed join blocks that are
    /// used past the final join: lifted once per arm, they leave the arms
    /// as extra γ outputs.
    pub(super) fn extended_join(
        &mut self,
        lp: Option<Loop>,
        b: Block,
        v: Value,
        stop: Stop<'_>,
    ) -> Result<(Option<Block>, Vec<Value>), Unsupported> {
        let mut join = self.ipdom(lp, b)?;
        let mut passed = Vec::new();
        for _ in 0..MAX_CHAIN {
            let Some(j) = join else { break };
            if stop.is_some_and(|(s, _)| s == j) || !self.retests(j, v) {
                break;
            }
            passed.push(j);
            join = self.ipdom(lp, j)?;
        }
        let mut carry = Vec::new();
        if let Some(next) = join {
            for j in passed {
                self.used_past(j, next, &mut carry);
            }
        }
        Ok((join, carry))
    }

    /// Pushes onto `out` the values `j` defines that are used in blocks
    /// dominated by `next`.
    fn used_past(&mut self, j: Block, next: Block, out: &mut Vec<Value>) {
        let func = self.func;
        let uses = self.use_blocks.get_or_insert_with(|| {
            let mut m: SecondaryMap<Value, Vec<Block>> = SecondaryMap::new();
            for &b in &func.layout {
                let data = &func.blocks[b];
                for &i in &data.insts {
                    func.inst(i).kind.for_each_arg(|v| m[v].push(b));
                }
                for e in data.term.successors() {
                    e.args.iter().for_each(|&v| m[v].push(b));
                }
                if let Terminator::Switch { value: Some(v), .. } | Terminator::Return(Some(v)) =
                    data.term
                {
                    m[v].push(b);
                }
            }
            m
        });
        let data = &func.blocks[j];
        let defs = data
            .params
            .iter()
            .copied()
            .chain(data.insts.iter().filter_map(|&i| func.inst(i).result));
        let dom = &self.dom;
        out.extend(defs.filter(|&v| uses[v].iter().any(|&u| dom.dominates(next, u))));
    }

    /// Whether join block `j` only tests again: see [`Lifter::extended_join`].
    fn retests(&self, j: Block, v: Value) -> bool {
        if self.loops.loop_headed_by(j).is_some() {
            return false;
        }
        let data = &self.func.blocks[j];
        let Terminator::Switch { value: Some(w), .. } = &data.term else {
            return false;
        };
        if *w == v {
            return data.insts.len() <= MAX_TUPLED_INSTS;
        }
        let Some(k) = data.params.iter().position(|p| p == w) else {
            return false;
        };
        data.insts.is_empty()
            && self.cfg.preds(j).iter().any(|&p| {
                self.func.blocks[p]
                    .term
                    .successors()
                    .filter(|e| e.block == j)
                    .any(|e| self.is_const(e.args[k]))
            })
    }

    /// Node distribution across γ-node `gm` whose join is `j` (Lawrence
    /// §7.1, Fig 4.12: Weise's PRE through φ; digest §4.9, T6): a pure
    /// instruction at the start of `j` whose operands are `j`'s parameters
    /// (the γ's outputs) or values from before the γ is computed in every
    /// arm on that arm's yielded values instead, when in some arm that copy
    /// hash-conses with an existing node or folds. The copies become extra
    /// yields (appended before the state); returns the distributed
    /// instructions and their types. Bounded: at most
    /// [`MAX_DISTRIBUTED`] instructions, never a stateful or trapping one,
    /// never out of a loop header.
    pub(super) fn distribute(
        &mut self,
        gm: Node,
        j: Block,
        stop: Stop<'_>,
    ) -> Result<Vec<(Inst, Type)>, Unsupported> {
        let mut out = Vec::new();
        // Entries are consumed when `j` is lifted right after the γ; none
        // may survive to another join.
        self.distributed.clear();
        if self.loops.loop_headed_by(j).is_some() || stop.is_some_and(|(s, _)| s == j) {
            // `j` is lifted next only when it is not the enclosing join.
            return Ok(out);
        }
        let params = &self.func.blocks[j].params;
        let leaves: Vec<Region> = self
            .g
            .arms(gm)
            .to_vec()
            .into_iter()
            .flat_map(|a| self.g.yield_leaves(a))
            .collect();
        for &inst in self.func.blocks[j].insts.iter().take(MAX_DISTRIBUTED) {
            let data = self.func.inst(inst);
            let kind = template(&data.kind);
            let (InstKind::Binary(..) | InstKind::Unary(..)) = kind else {
                continue;
            };
            let Some(r) = data.result else { continue };
            if is_stateful(&kind, |_| None) {
                continue;
            }
            // Each operand: a parameter of `j`, or a port from before the γ.
            let mut ops: Vec<Result<usize, Port>> = Vec::new();
            let mut ok = true;
            data.kind
                .for_each_arg(|v| match params.iter().position(|&p| p == v) {
                    Some(k) => ops.push(Ok(k)),
                    None => match self.env.get(v).copied().flatten() {
                        Some(p) => ops.push(Err(p)),
                        None => ok = false,
                    },
                });
            if !ok || !ops.iter().any(Result::is_ok) {
                continue;
            }
            let ty = self.func.value_type(r);
            let before = self.g.nodes.len();
            let mut copies = Vec::new();
            for &leaf in &leaves {
                let Tail::Yield(ys) = &self.g.regions[leaf].tail else {
                    return Err(Unsupported::new("internal: yield leaf"));
                };
                let inputs: Vec<Port> = ops
                    .iter()
                    .map(|o| match *o {
                        Ok(k) => ys[k],
                        Err(p) => p,
                    })
                    .collect();
                copies.push(self.g.pure(leaf, kind.clone(), inputs, ty, data.loc));
            }
            let gain = |p: &Port| p.node.as_u32() < before as u32 || self.g.const_int(*p).is_some();
            if !copies.iter().any(gain) {
                continue;
            }
            for (&leaf, p) in leaves.iter().zip(copies) {
                if let Tail::Yield(ys) = &mut self.g.regions[leaf].tail {
                    let at = ys.len() - 1;
                    ys.insert(at, p);
                }
            }
            out.push((inst, ty));
        }
        Ok(out)
    }

    /// Whether `v` is defined by a constant instruction.
    fn is_const(&self, v: Value) -> bool {
        match self.func.values[v].def {
            ValueDef::Inst(i) => matches!(
                self.func.inst(i).kind,
                InstKind::IConst(_) | InstKind::BConst(_)
            ),
            ValueDef::Param(..) => false,
        }
    }
}
