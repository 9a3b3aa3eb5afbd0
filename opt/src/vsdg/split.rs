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
use crate::ir::{BinaryOp, Block, Inst, InstKind, Terminator, Type, Value, ValueDef};

use super::build::{is_stateful, template};
use super::graph::{Node, Port, Ports, Region, Tail};
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

/// Most instructions (a join block and the arms of its branch) duplicated
/// into the arms of the branch before it to order the two (γ-ordering).
const MAX_ORDERED_INSTS: usize = 16;

/// Most blocks scanned per branch when looking for a γ-ordering.
const MAX_ORDER_SCAN: usize = 24;

/// Least estimated cost of the pure values a γ-ordering stops speculating
/// (an integer add costs 1, a multiplication 3): below it, one speculated
/// cheap node costs less than the duplicated branch.
const MIN_ORDER_GAIN: u32 = 2;

/// Where each value of the function being lifted is used and defined.
pub(super) struct UseDef {
    /// The blocks using each value (once per use).
    uses: SecondaryMap<Value, Vec<Block>>,
    /// The block defining each instruction result.
    def: SecondaryMap<Value, Option<Block>>,
}

/// Where the γ of a branch joins ([`Lifter::extended_join`]).
pub(super) struct Join {
    /// The join block (`None`: the paths only meet at the context's exit).
    pub(super) block: Option<Block>,
    /// Values defined in the join blocks passed on the way that are used
    /// past the join: extra γ outputs.
    pub(super) carry: Vec<Value>,
    /// The γ-ordering of the later branches under this one, if any.
    pub(super) order: Option<Order>,
}

/// A γ-ordering decided for one branch ([`Lifter::ordering`]).
pub(super) struct Order {
    /// The joins whose branches are lifted into each arm, in order.
    chain: Vec<Block>,
    /// The pure values whose speculation the ordering avoids.
    values: Vec<Value>,
    /// The blocks of each arm of the ordered branch, per outgoing edge.
    arms: Vec<Vec<Block>>,
}

/// Estimated cost of evaluating a pure instruction once, for
/// [`MIN_ORDER_GAIN`].
fn cost(kind: &InstKind) -> u32 {
    match kind {
        InstKind::Binary(
            BinaryOp::IMul
            | BinaryOp::IDiv
            | BinaryOp::IRem
            | BinaryOp::FMul
            | BinaryOp::FDiv
            | BinaryOp::FRem,
            ..,
        ) => 3,
        _ => 1,
    }
}

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
    ///   some edge sets to a constant, or to `v` itself (known on the arm
    ///   it leaves by, as the frontend lowers `p || q`: the `p` arm passes
    ///   `p`) — the short-circuit shape `γ(γ(P,true,Q),A,B)`. Lifting `j`
    ///   into each arm folds the constant test, giving `γ(P, A, γ(Q,A,B))`
    ///   with no boolean materialized;
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
    ) -> Result<Join, Unsupported> {
        let mut join = self.ipdom(lp, b)?;
        let mut passed = Vec::new();
        let mut order = None;
        for _ in 0..MAX_CHAIN {
            let Some(j) = join else { break };
            if stop.is_some_and(|(s, _)| s == j) {
                break;
            }
            if self.retests(j, v) {
                passed.push(j);
                join = self.ipdom(lp, j)?;
                continue;
            }
            if passed.is_empty() {
                order = match self.forced.remove(&b) {
                    Some((chain, values)) => self.arm_blocks(lp, b, j, true).map(|arms| Order {
                        chain,
                        values,
                        arms,
                    }),
                    None => self.ordering(lp, b, j, stop)?,
                };
                if let Some(o) = &order {
                    passed.extend_from_slice(&o.chain);
                    join = self.ipdom(lp, *o.chain.last().expect("a join"))?;
                }
            }
            break;
        }
        let mut carry = Vec::new();
        if let Some(next) = join {
            for j in passed {
                self.used_past(j, next, &mut carry);
            }
        }
        Ok(Join {
            block: join,
            carry,
            order,
        })
    }

    /// Before lifting arm `i` of a branch ordered by `order`: when that
    /// arm does not demand some of the ordered values, the next branch of
    /// the chain, copied into the arm, is ordered before the rest in turn
    /// (the recursive `link` into `P_d.false` with gating condition
    /// `c_d^f ∪ ⟨?⟩(g_s, …)`, Lawrence §3.4.1). Returns the block to
    /// un-force after the arm.
    pub(super) fn force_order(&mut self, order: &Option<Order>, i: usize) -> Option<Block> {
        let o = order.as_ref()?;
        if o.chain.len() < 2 {
            return None;
        }
        let ud = self.use_blocks.as_ref()?;
        let arm = o.arms.get(i)?;
        let rest: Vec<Value> = o
            .values
            .iter()
            .copied()
            .filter(|&n| !ud.uses[n].iter().any(|u| arm.contains(u)))
            .collect();
        if rest.is_empty() {
            return None;
        }
        self.forced
            .insert(o.chain[0], (o.chain[1..].to_vec(), rest));
        Some(o.chain[0])
    }

    /// The blocks using and defining each value (computed on first use).
    fn uses(&mut self) -> &UseDef {
        let func = self.func;
        self.use_blocks.get_or_insert_with(|| {
            let mut m: SecondaryMap<Value, Vec<Block>> = SecondaryMap::new();
            let mut def: SecondaryMap<Value, Option<Block>> = SecondaryMap::new();
            m.resize(func.values.len());
            def.resize(func.values.len());
            for &b in &func.layout {
                let data = &func.blocks[b];
                for &i in &data.insts {
                    func.inst(i).kind.for_each_arg(|v| m[v].push(b));
                    if let Some(r) = func.inst(i).result {
                        def[r] = Some(b);
                    }
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
            UseDef { uses: m, def }
        })
    }

    /// Pushes onto `out` the values `j` defines that are used in blocks
    /// dominated by `next`.
    fn used_past(&mut self, j: Block, next: Block, out: &mut Vec<Value>) {
        let func = self.func;
        self.uses();
        let uses = &self.use_blocks.as_ref().expect("computed").uses;
        let data = &func.blocks[j];
        let defs = data
            .params
            .iter()
            .copied()
            .chain(data.insts.iter().filter_map(|&i| func.inst(i).result));
        let dom = &self.dom;
        out.extend(defs.filter(|&v| uses[v].iter().any(|&u| dom.dominates(next, u))));
    }

    /// γ-ordering (Lawrence §3.4.1, Figs 3.2, 3.10, 4.5; digest §6.1 step 4,
    /// T3): the joins `j, ipdom(j), …` whose branches should be lifted into
    /// each arm of the branch ending `b` (whose join is `j`), in order;
    /// empty when none should.
    ///
    /// That pays when a pure value `N` computed before `b` is demanded in
    /// some but not all arms of `b`'s branch and of each following branch
    /// up to some join, and nowhere else: its gating condition is
    /// `⟨?⟩(γ1,…) ⊕ ⟨?⟩(γ2,…) ⊕ …`, and without an order the
    /// sequentializer must speculate `N` before `b` (Table 3.1's
    /// call-by-value column). With `b`'s predicate dominant (the earliest
    /// in source order, digest §6.3), each arm of `b` gets its own copy of
    /// the later branches (`P_s` and its clone `P'_s`): an arm that
    /// computed `N` reuses it, the others compute it only in the arms of
    /// their copies that need it. So `N` runs at most once, never when no
    /// branch demands it, and each predicate is still tested once per
    /// path. The code on DDG paths between the tests (the join blocks' own
    /// instructions, Fig 3.10(b)) is duplicated with them.
    ///
    /// Capped (digest §6.4): at most [`MAX_CHAIN`] branches, whose join
    /// blocks and arms hold at most [`MAX_ORDERED_INSTS`] instructions in
    /// all and no loop, and the speculation saved must cost at least
    /// [`MIN_ORDER_GAIN`]. Past the cap, the cheap pure node is speculated.
    fn ordering(
        &mut self,
        lp: Option<Loop>,
        b: Block,
        j: Block,
        stop: Stop<'_>,
    ) -> Result<Option<Order>, Unsupported> {
        let Some(arms1) = self.arm_blocks(lp, b, j, true) else {
            return Ok(None);
        };
        // The candidate chain: each join that branches, with the arms of
        // its branch, while the duplicated code stays under the cap.
        let mut chain: Vec<(Block, Vec<Vec<Block>>)> = Vec::new();
        let mut dup = 0;
        let mut cur = j;
        while chain.len() < MAX_CHAIN {
            if stop.is_some_and(|(s, _)| s == cur) || self.loops.loop_headed_by(cur).is_some() {
                break;
            }
            let Terminator::Switch { value: Some(_), .. } = self.func.blocks[cur].term else {
                break;
            };
            let Some(k) = self.ipdom(lp, cur)? else { break };
            let Some(arms) = self.arm_blocks(lp, cur, k, false) else {
                break;
            };
            dup += self.func.blocks[cur].insts.len();
            let mut seen: Vec<Block> = Vec::new();
            for &x in arms.iter().flatten() {
                if !seen.contains(&x) {
                    seen.push(x);
                    dup += self.func.blocks[x].insts.len();
                }
            }
            if dup > MAX_ORDERED_INSTS {
                break;
            }
            chain.push((cur, arms));
            cur = k;
        }
        // The longest profitable prefix of the chain.
        while !chain.is_empty() {
            let (gain, values) = self.order_gain(b, &arms1, &chain);
            if gain >= MIN_ORDER_GAIN {
                return Ok(Some(Order {
                    chain: chain.into_iter().map(|(j, _)| j).collect(),
                    values,
                    arms: arms1,
                }));
            }
            chain.pop();
        }
        Ok(None)
    }

    /// The cost of the pure values computed before `b` whose every use
    /// lies in the arms of `b`'s branch (`arms1`, at least one use) and of
    /// the branches of `chain`, with some arm of each branch not using
    /// them: what ordering the branches stops speculating, and the values.
    fn order_gain(
        &mut self,
        b: Block,
        arms1: &[Vec<Block>],
        chain: &[(Block, Vec<Vec<Block>>)],
    ) -> (u32, Vec<Value>) {
        // Candidate values: operands used in the arms of the later branches.
        let mut cands: Vec<Value> = Vec::new();
        for &x in chain.iter().flat_map(|(_, arms)| arms.iter().flatten()) {
            let data = &self.func.blocks[x];
            for &i in &data.insts {
                self.func.inst(i).kind.for_each_arg(|v| cands.push(v));
            }
            data.term.for_each_arg(|v| cands.push(v));
        }
        cands.sort();
        cands.dedup();
        self.uses();
        let ud = self.use_blocks.as_ref().expect("computed");
        let branches = || std::iter::once(arms1).chain(chain.iter().map(|(_, a)| a.as_slice()));
        let mut gain = 0;
        let mut values = Vec::new();
        for v in cands {
            let ValueDef::Inst(i) = self.func.values[v].def else {
                continue;
            };
            let kind = template(&self.func.inst(i).kind);
            if !matches!(kind, InstKind::Binary(..) | InstKind::Unary(..))
                || is_stateful(&kind, |_| None)
            {
                continue;
            }
            let Some(d) = ud.def[v] else { continue };
            if !self.dom.dominates(d, b) {
                continue;
            }
            let us = &ud.uses[v];
            let used_in = |arm: &Vec<Block>| us.iter().any(|u| arm.contains(u));
            let ok = us
                .iter()
                .all(|&u| branches().any(|arms| arms.iter().any(|a| a.contains(&u))))
                && arms1.iter().any(used_in)
                && branches().all(|arms| !arms.iter().all(used_in));
            if ok {
                gain += cost(&kind);
                values.push(v);
            }
        }
        (gain, values)
    }

    /// The blocks of each arm of the branch ending `b`, up to its join
    /// `j` (exclusive): one list per outgoing edge, in edge order (empty
    /// for an edge straight to `j`). `None` when an arm is too big to
    /// scan, leaves the context of `lp`, or (unless `loops`) holds a loop.
    fn arm_blocks(
        &self,
        lp: Option<Loop>,
        b: Block,
        j: Block,
        loops: bool,
    ) -> Option<Vec<Vec<Block>>> {
        let mut out = Vec::new();
        let mut budget = MAX_ORDER_SCAN;
        for e in self.func.blocks[b].term.successors() {
            let mut arm: Vec<Block> = Vec::new();
            let mut stack = vec![e.block];
            while let Some(x) = stack.pop() {
                if x == j || arm.contains(&x) {
                    continue;
                }
                if let Some(l) = lp {
                    if x == self.loops.header(l) || !self.loops.contains(l, x) {
                        return None;
                    }
                }
                if !loops && self.loops.loop_headed_by(x).is_some() {
                    return None;
                }
                budget = budget.checked_sub(1)?;
                arm.push(x);
                stack.extend(self.cfg.succs(x).iter().copied());
            }
            out.push(arm);
        }
        Some(out)
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
                    .any(|e| self.is_const(e.args[k]) || e.args[k] == v)
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
                let inputs: Ports = ops
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
