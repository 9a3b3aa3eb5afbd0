//! Lifting canonical Waddle IR into the regionalized VSDG.
//!
//! Lawrence gives no algorithm for building a VSDG from a CFG (digest §2.1:
//! "slightly more expensive to construct, but generally straightforward",
//! §1.4); this follows the digest's recipe §2.2 for reducible SSA, with the
//! SSA ↔ functional correspondence of §2.2.1–2.2.2: a block is a function of
//! its parameters, an instruction a `let`, an edge a call.
//!
//! Per *context* (the function body outside every loop, or the body of one
//! loop with its nested loops collapsed into their headers) the lifter
//! computes postdominators, with every way out of the context (`return`,
//! the backedge, a loop exit) sent to one virtual exit. Walking from the
//! entry:
//! - a branch whose immediate postdominator `J` is a block becomes a γ-node
//!   (§2.6.2): each arm is lifted up to `J`, and `J`'s parameters are the
//!   γ's outputs (Tu–Padua gating, §3.3.2 of the report, on the
//!   postdominator tree); a branch whose paths only meet at the virtual exit
//!   ends the region with a [`Tail::Switch`];
//! - the header of a natural loop from the loop forest becomes a θ-node
//!   (the `iter` of §5.5.2 / the μ unfolding of §2.6.6): its body region
//!   starts at the header with the header's parameters as arguments. A
//!   loop with one (dedicated, LCSSA) exit block is an ordinary node whose
//!   outputs are that block's parameters, and lifting continues at the exit
//!   block in the same region, so sequential loops do not nest; a loop with
//!   several exits gets one exit region per exit block, which (when the
//!   exits' paths meet again) yield to the join like a γ's arms, so the
//!   loop is an ordinary node again, and otherwise end the region;
//! - every instruction with an effect, a memory read, or a possible trap is
//!   threaded on the single state (App. B.4, digest §6.1 step 1); loops are
//!   on the state too, since they may not terminate (§2.6.6).
//!
//! A block reached from two arms whose paths only join later (shared
//! tails of short-circuit code) is lifted once per path — the tree
//! unfolding of the DAG — under a growth budget. Irreducible functions and
//! functions past the budget are [`Unsupported`] and stay on tier T2.

use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;

use crate::analysis::loops::{Loop, LoopForest};
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{Block, Function, Inst, InstKind, Terminator, Type, Value};

use super::build::{is_stateful, template};
use super::graph::{Graph, Op, Owner, Port, Ports, Region, Sort, Sorts, Tail};
use super::Unsupported;

/// Deepest nesting of regions the lifter builds (recursion bound).
const MAX_DEPTH: usize = 400;

/// Where the code being lifted stops: a γ's join block, and the values
/// (besides the join's arguments) the arms yield to it.
pub(super) type Stop<'a> = Option<(Block, &'a [Value])>;

/// Postdominators of one context: `None` is the virtual exit.
pub(super) struct Pdom {
    ipdom: FxHashMap<Block, Option<Block>>,
}

pub(super) struct Lifter<'f> {
    pub(super) func: &'f Function,
    pub(super) cfg: ControlFlowGraph,
    pub(super) loops: LoopForest,
    pub(super) g: Graph,
    pub(super) env: SecondaryMap<Value, Option<Port>>,
    pub(super) undo: Vec<(Value, Option<Port>)>,
    pub(super) pdoms: FxHashMap<Option<Loop>, Pdom>,
    pub(super) budget: usize,
    pub(super) depth: usize,
    /// Predicates whose value is known on the path being lifted: inside
    /// the arm of a branch on `p`, `p` is that arm's key.
    pub(super) known: FxHashMap<Port, i64>,
    /// Instructions of the join block being entered that were distributed
    /// into the arms of the γ just finished, and the γ output they became.
    pub(super) distributed: FxHashMap<Inst, Port>,
    pub(super) dom: DomTree,
    /// γ-orderings imposed on the branch ending a block by the ordering of
    /// an enclosing branch ([`Lifter::force_order`]): the joins to pass and
    /// the values still to protect from speculation.
    pub(super) forced: FxHashMap<Block, (Vec<Block>, Vec<Value>)>,
    /// The blocks using and defining each value (computed when first needed).
    pub(super) use_blocks: Option<super::split::UseDef>,
}

/// Lifts a canonical function into a VSDG.
pub fn lift(func: &Function) -> Result<Graph, Unsupported> {
    if func.is_declaration() {
        return Err(Unsupported::new("a declaration has no body"));
    }
    let cfg = ControlFlowGraph::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let loops = LoopForest::compute(func, &cfg, &dom);
    if !loops.is_reducible() {
        return Err(Unsupported::new("irreducible control flow"));
    }
    for l in loops.loops() {
        if loops.latches(l).len() != 1 {
            return Err(Unsupported::new(
                "loop without a single latch (not canonical)",
            ));
        }
    }
    let mut lifter = Lifter {
        func,
        cfg,
        loops,
        g: Graph::new(&func.sig.params),
        env: SecondaryMap::new(),
        undo: Vec::new(),
        pdoms: FxHashMap::default(),
        budget: 4 * func.inst_count() + 256,
        depth: 0,
        known: FxHashMap::default(),
        distributed: FxHashMap::default(),
        dom,
        forced: FxHashMap::default(),
        use_blocks: None,
    };
    // Sized once (growing them is most of a small function's lifting).
    lifter.env.resize(func.values.len());
    lifter.g.nodes.reserve(func.inst_count() + 8);
    let root = lifter.g.root;
    let mut args = lifter.g.region_args(root);
    let state = args.pop().expect("state");
    let entry = func.entry();
    lifter.run(root, state, entry, args, None, None, false)?;
    Ok(lifter.g)
}

impl Lifter<'_> {
    fn set(&mut self, v: Value, p: Port) {
        let old = self.env[v];
        self.undo.push((v, old));
        self.env[v] = Some(p);
    }

    fn rollback(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let (v, old) = self.undo.pop().expect("undo entry");
            self.env[v] = old;
        }
    }

    fn get(&self, v: Value) -> Result<Port, Unsupported> {
        self.env
            .get(v)
            .copied()
            .flatten()
            .ok_or_else(|| Unsupported::new(format!("{v} is not available where it is used")))
    }

    fn map(&self, vs: &[Value]) -> Result<Vec<Port>, Unsupported> {
        vs.iter().map(|&v| self.get(v)).collect()
    }

    fn param_types(&self, b: Block) -> Vec<Type> {
        self.func.blocks[b]
            .params
            .iter()
            .map(|&v| self.func.value_type(v))
            .collect()
    }

    /// Lifts the code reached by jumping to `target` with `args` into
    /// `region`, whose current state is `state`, until control leaves
    /// `region`: at `stop` (a γ join), or out of loop `lp`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        region: Region,
        mut state: Port,
        mut target: Block,
        mut args: Vec<Port>,
        stop: Stop<'_>,
        lp: Option<Loop>,
        mut entering: bool,
    ) -> Result<(), Unsupported> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Unsupported::new("control structures nested too deeply"));
        }
        self.g.regions[region].source.get_or_insert(target);
        loop {
            let first = std::mem::take(&mut entering);
            if first {
                // The loop header at the start of a body: lift it below.
            } else if let Some(l) = lp {
                if target == self.loops.header(l) {
                    args.push(state);
                    self.g.regions[region].tail = Tail::Continue(args);
                    break;
                }
                if !self.loops.contains(l, target) {
                    let k = self
                        .loops
                        .exits(l)
                        .iter()
                        .position(|&e| e == target)
                        .ok_or_else(|| Unsupported::new("loop exit not in the forest"))?;
                    args.push(state);
                    self.g.regions[region].tail = Tail::Break(k as u32, args);
                    break;
                }
            }
            if let Some((_, carry)) = stop.filter(|&(j, _)| j == target && !first) {
                for &v in carry {
                    args.push(self.get(v)?);
                }
                args.push(state);
                self.g.regions[region].tail = Tail::Yield(args);
                break;
            }
            if let Some(l) = self.loops.loop_headed_by(target).filter(|_| !first) {
                match self.theta(region, state, l, args, stop, lp)? {
                    // A single-exit loop: continue after it in this region.
                    Some((outs, st, exit)) => {
                        args = outs;
                        state = st;
                        target = exit;
                        continue;
                    }
                    None => break,
                }
            }
            // An ordinary block: bind its parameters and lift its body.
            let params = self.func.blocks[target].params.clone();
            if params.len() != args.len() {
                return Err(Unsupported::new("edge arity mismatch"));
            }
            for (v, p) in params.into_iter().zip(args) {
                self.set(v, p);
            }
            let data = &self.func.blocks[target];
            if data.insts.len() + 1 > self.budget {
                return Err(Unsupported::new(
                    "lifting would duplicate too much shared code",
                ));
            }
            self.budget -= data.insts.len() + 1;
            super::work::tick(1 + data.insts.len() as u64);
            for &inst in &data.insts {
                state = self.inst(region, state, inst)?;
            }
            match &self.func.blocks[target].term {
                Terminator::Return(v) => {
                    let v = v.map(|v| self.get(v)).transpose()?;
                    self.g.regions[region].tail = Tail::Return(v, state);
                    break;
                }
                Terminator::Switch {
                    value: None,
                    default,
                    ..
                } => {
                    args = self.map(&default.args)?;
                    target = default.block;
                }
                Terminator::Switch {
                    value: Some(v),
                    cases,
                    default,
                } => {
                    let pred = self.get(*v)?;
                    let known = self.known.get(&pred).copied();
                    if let Some(k) = self.g.const_int(pred).or(known) {
                        // Constant predicate, or one tested on the way
                        // here: only the taken edge exists.
                        let edge = cases
                            .iter()
                            .find(|(key, _)| *key == k)
                            .map_or(default, |(_, e)| e);
                        args = self.map(&edge.args)?;
                        target = edge.block;
                        continue;
                    }
                    let edges: Vec<_> = cases
                        .iter()
                        .map(|(_, e)| e)
                        .chain(std::iter::once(default))
                        .cloned()
                        .collect();
                    let keys: Vec<i64> = cases.iter().map(|(k, _)| *k).collect();
                    let super::split::Join {
                        block: join,
                        carry,
                        order,
                    } = self.extended_join(lp, target, *v, stop)?;
                    let bool_pred = self.g.ty(pred) == Type::Bool;
                    let loc = self.func.loc;
                    match join {
                        Some(j) => {
                            let gm = self.g.begin_gamma(region, pred, state, keys.clone(), loc);
                            let arms = self.g.arms(gm).to_vec();
                            for (i, (arm, e)) in arms.into_iter().zip(&edges).enumerate() {
                                let mark = self.undo.len();
                                let a = self.map(&e.args)?;
                                let s = self.g.region_state(arm);
                                let saved = self.assume(pred, &keys, i, bool_pred);
                                let forced = self.force_order(&order, i);
                                self.run(arm, s, e.block, a, Some((j, &carry)), lp, false)?;
                                if let Some(f) = forced {
                                    self.forced.remove(&f);
                                }
                                self.restore(pred, saved);
                                self.rollback(mark);
                            }
                            let mut tys = self.param_types(j);
                            let n = tys.len();
                            tys.extend(carry.iter().map(|&v| self.func.value_type(v)));
                            let dist = self.distribute(gm, j, stop)?;
                            tys.extend(dist.iter().map(|&(_, t)| t));
                            let (mut outs, st) = self.g.finish_gamma(gm, &tys);
                            let moved = outs.split_off(n + carry.len());
                            for (&v, p) in carry.iter().zip(outs.split_off(n)) {
                                self.set(v, p);
                            }
                            for (&(inst, _), p) in dist.iter().zip(moved) {
                                self.distributed.insert(inst, p);
                            }
                            state = st;
                            args = outs;
                            target = j;
                        }
                        None => {
                            let mut arms = Vec::new();
                            for (i, e) in edges.iter().enumerate() {
                                let arm = self.g.new_region(
                                    Owner::TailArm(region, i as u32),
                                    Some(region),
                                    &[],
                                );
                                let mark = self.undo.len();
                                let a = self.map(&e.args)?;
                                let s = self.g.region_state(arm);
                                let saved = self.assume(pred, &keys, i, bool_pred);
                                self.run(arm, s, e.block, a, stop, lp, false)?;
                                self.restore(pred, saved);
                                self.rollback(mark);
                                arms.push(arm);
                            }
                            self.g.regions[region].tail = Tail::Switch {
                                pred,
                                state,
                                keys,
                                arms,
                            };
                            break;
                        }
                    }
                }
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// Lifts one instruction; returns the next state.
    fn inst(&mut self, region: Region, state: Port, inst: Inst) -> Result<Port, Unsupported> {
        let data = self.func.inst(inst);
        if let Some(p) = self.distributed.remove(&inst) {
            // Computed in the arms of the γ before (`distribute`).
            if let Some(r) = data.result {
                self.set(r, p);
            }
            return Ok(state);
        }
        let mut inputs = Ports::new();
        let mut missing = None;
        data.kind.for_each_arg(|v| match self.get(v) {
            Ok(p) => inputs.push(p),
            Err(e) => missing = missing.take().or(Some(e)),
        });
        if let Some(e) = missing {
            return Err(e);
        }
        let ty = data.result.map_or(Type::Unit, |r| self.func.value_type(r));
        let kind = template(&data.kind);
        let g = &self.g;
        let stateful = is_stateful(&kind, |i| inputs.get(i).and_then(|&p| g.const_int(p)));
        if let InstKind::Copy(_) = kind {
            if let Some(r) = data.result {
                self.set(r, inputs[0]);
            }
            return Ok(state);
        }
        if stateful {
            let (v, s) = self.g.stateful(region, kind, inputs, state, ty, data.loc);
            if let (Some(r), Some(v)) = (data.result, v) {
                self.set(r, v);
            }
            Ok(s)
        } else {
            let v = self.g.pure(region, kind, inputs, ty, data.loc);
            if let Some(r) = data.result {
                self.set(r, v);
            }
            Ok(state)
        }
    }

    /// The immediate postdominator of `b` in the context of loop `lp`
    /// (`None`: the virtual exit).
    pub(super) fn ipdom(
        &mut self,
        lp: Option<Loop>,
        b: Block,
    ) -> Result<Option<Block>, Unsupported> {
        if !self.pdoms.contains_key(&lp) {
            let p = self.compute_pdom(lp)?;
            self.pdoms.insert(lp, p);
        }
        self.pdoms[&lp]
            .ipdom
            .get(&b)
            .copied()
            .ok_or_else(|| Unsupported::new(format!("{b} has no postdominator in its loop")))
    }

    /// Successors of `b` in the context graph of `lp` (`None` is the
    /// virtual exit): inner loops are collapsed into their headers, whose
    /// successors are the loop's exits.
    fn context_succs(&self, lp: Option<Loop>, b: Block) -> Result<Vec<Option<Block>>, Unsupported> {
        let map = |t: Block| -> Result<Option<Block>, Unsupported> {
            if let Some(l) = lp {
                if t == self.loops.header(l) || !self.loops.contains(l, t) {
                    return Ok(None);
                }
            }
            if self.loops.innermost(t) != lp && self.loops.loop_headed_by(t).is_none() {
                return Err(Unsupported::new("loop entered other than at its header"));
            }
            Ok(Some(t))
        };
        let mut out = Vec::new();
        match self.loops.loop_headed_by(b).filter(|&l| Some(l) != lp) {
            Some(inner) => {
                for &e in self.loops.exits(inner) {
                    out.push(map(e)?);
                }
                let returns = self
                    .loops
                    .body(inner)
                    .iter()
                    .any(|&x| matches!(self.func.blocks[x].term, Terminator::Return(_)));
                if returns || out.is_empty() {
                    out.push(None);
                }
            }
            None => {
                if let Terminator::Return(_) = self.func.blocks[b].term {
                    out.push(None);
                }
                for &t in self.cfg.succs(b) {
                    out.push(map(t)?);
                }
            }
        }
        out.dedup();
        Ok(out)
    }

    /// Postdominators of the context of `lp` (Cooper–Harvey–Kennedy on the
    /// reversed context graph).
    fn compute_pdom(&self, lp: Option<Loop>) -> Result<Pdom, Unsupported> {
        let blocks: Vec<Block> = match lp {
            Some(l) => self.loops.body(l).to_vec(),
            None => self.func.layout.clone(),
        };
        let nodes: Vec<Block> = blocks
            .into_iter()
            .filter(|&b| {
                self.loops.innermost(b) == lp
                    || self
                        .loops
                        .loop_headed_by(b)
                        .is_some_and(|l| self.loops.parent(l) == lp)
            })
            .collect();
        // Index 0 is the virtual exit.
        let mut index: FxHashMap<Block, usize> = FxHashMap::default();
        for (i, &b) in nodes.iter().enumerate() {
            index.insert(b, i + 1);
        }
        let n = nodes.len() + 1;
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, &b) in nodes.iter().enumerate() {
            for s in self.context_succs(lp, b)? {
                let j = match s {
                    None => 0,
                    Some(t) => *index
                        .get(&t)
                        .ok_or_else(|| Unsupported::new("edge leaves its context"))?,
                };
                succs[i + 1].push(j);
                preds[j].push(i + 1);
            }
        }
        // Post-order of the reversed graph from the virtual exit.
        let mut order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some(&mut (x, ref mut k)) = stack.last_mut() {
            if *k < preds[x].len() {
                let y = preds[x][*k];
                *k += 1;
                if !seen[y] {
                    seen[y] = true;
                    stack.push((y, 0));
                }
            } else {
                order.push(x);
                stack.pop();
            }
        }
        if order.len() != n {
            return Err(Unsupported::new("a block never leaves its loop"));
        }
        let mut po = vec![0usize; n];
        for (i, &x) in order.iter().enumerate() {
            po[x] = i;
        }
        let mut idom: Vec<Option<usize>> = vec![None; n];
        idom[0] = Some(0);
        let mut changed = true;
        while changed {
            changed = false;
            super::work::tick(n as u64);
            for &x in order.iter().rev() {
                if x == 0 {
                    continue;
                }
                let mut new: Option<usize> = None;
                for &s in &succs[x] {
                    if idom[s].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => s,
                        Some(mut a) => {
                            let mut b = s;
                            while a != b {
                                while po[a] < po[b] {
                                    a = idom[a].expect("processed");
                                }
                                while po[b] < po[a] {
                                    b = idom[b].expect("processed");
                                }
                            }
                            a
                        }
                    });
                }
                if new.is_some() && idom[x] != new {
                    idom[x] = new;
                    changed = true;
                }
            }
        }
        let mut ipdom = FxHashMap::default();
        for (i, &b) in nodes.iter().enumerate() {
            let d = idom[i + 1].ok_or_else(|| Unsupported::new("no postdominator"))?;
            ipdom.insert(b, if d == 0 { None } else { Some(nodes[d - 1]) });
        }
        Ok(Pdom { ipdom })
    }

    /// Builds the θ-node of loop `l` entered with `args` in `region`.
    ///
    /// A loop with exactly one exit block becomes an ordinary node of
    /// `region` whose outputs are the exit block's parameters and the
    /// state; this returns them with the exit block, where lifting goes on
    /// in the same region. So `m` loops in sequence stay at one nesting
    /// depth, and the region-tree walks of lifting and sequentialization
    /// stay short.
    ///
    /// A loop with several exits whose paths meet again at a block `J`
    /// (the loop header's immediate postdominator, with the loop collapsed
    /// into its header) is an ordinary node too: each exit block is lifted
    /// into an exit region of its own up to `J`, where it yields `J`'s
    /// arguments like a γ arm, and the node's outputs are `J`'s parameters
    /// and the state; this returns them with `J`. Without the join, the
    /// code after `J` would be lifted once per exit, doubling it per
    /// sequential early-exit loop (a `return` inside a loop after
    /// inlining) until the lifter's budget rejects the function.
    ///
    /// Any other loop ends `region` ([`Tail::Loop`]): each exit block is
    /// lifted into an exit region of its own, and this returns `None`.
    fn theta(
        &mut self,
        region: Region,
        state: Port,
        l: Loop,
        mut args: Vec<Port>,
        stop: Stop<'_>,
        lp: Option<Loop>,
    ) -> Result<Option<(Vec<Port>, Port, Block)>, Unsupported> {
        let header = self.loops.header(l);
        let exits = self.loops.exits(l).to_vec();
        args.push(state);
        let inline = exits.len() == 1;
        // Where the exits' paths meet, unless that is where `region` ends.
        let join = match exits.len() {
            0 | 1 => None,
            _ => self
                .ipdom(lp, header)?
                .filter(|&j| stop.is_none_or(|(s, _)| s != j)),
        };
        let outputs = if inline {
            let mut o: Sorts = self
                .param_types(exits[0])
                .into_iter()
                .map(Sort::Val)
                .collect();
            o.push(Sort::State);
            o
        } else {
            Sorts::new()
        };
        let theta = self.g.nodes.push(super::graph::NodeData {
            op: Op::Theta {
                body: region,
                exits: Vec::new(),
            },
            inputs: args.into(),
            outputs,
            region,
            scope: region,
            loc: self.func.loc,
        });
        let body = self
            .g
            .new_region(Owner::Body(theta), Some(region), &self.param_types(header));
        let exit_regions: Vec<Region> = if inline {
            Vec::new()
        } else {
            exits
                .iter()
                .enumerate()
                .map(|(i, &e)| {
                    let tys = self.param_types(e);
                    self.g
                        .new_region(Owner::Exit(theta, i as u32), Some(region), &tys)
                })
                .collect()
        };
        self.g.nodes[theta].op = Op::Theta {
            body,
            exits: exit_regions.clone(),
        };
        if !inline && join.is_none() {
            self.g.regions[region].tail = Tail::Loop(theta);
        }
        // The body starts at the header with its parameters bound to the
        // loop-carried arguments (jumping to the header is a Continue).
        let mark = self.undo.len();
        let mut bargs = self.g.region_args(body);
        let bstate = bargs.pop().expect("state");
        self.run(body, bstate, header, bargs, None, Some(l), true)?;
        self.rollback(mark);
        if inline {
            let n = self.g.nodes[theta].outputs.len() as u32;
            let mut outs: Vec<Port> = (0..n).map(|i| Graph::port(theta, i)).collect();
            let st = outs.pop().expect("state");
            return Ok(Some((outs, st, exits[0])));
        }
        let exit_stop = join.map(|j| (j, &[][..])).or(stop);
        for (&e, &r) in exits.iter().zip(&exit_regions) {
            let mark = self.undo.len();
            let mut eargs = self.g.region_args(r);
            let estate = eargs.pop().expect("state");
            self.run(r, estate, e, eargs, exit_stop, lp, false)?;
            self.rollback(mark);
        }
        let Some(j) = join else {
            return Ok(None);
        };
        let tys = self.param_types(j);
        let (outs, st) = self.g.finish_gamma(theta, &tys);
        Ok(Some((outs, st, j)))
    }
}
