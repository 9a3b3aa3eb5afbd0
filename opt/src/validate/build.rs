//! From a canonical Waddle function to its denotation in the shared value
//! graph: Monadic Gated SSA built straight from block parameters
//! (Govereau §2.2 steps 1–3, §2.3; the construction of ch. 6 simplified by
//! canonical form as digest §5.3 describes).
//!
//! - **Effects** (§2.3.1, §3.3): one token is threaded through every
//!   block in order; each store, call, host call, print, allocation and
//!   possible trap is an [`EffKind`] on it, each read a [`LoadKind`].
//! - **Gated φ** (§2.3.2, §6.2 Def. 12 and Thm. 2): the parameters of a
//!   join block `b` with several incoming arcs are `φ{gate_i → arg_i}`
//!   with `gate_i = pc_{idom(b)}(p_i) ∧ e(p_i→b)`, where `pc_d(x)` is the
//!   disjunction over the forward paths from `d` to `x` of the
//!   conjunction of their edge conditions (`evalEdge` of §6.3.1: a jump is
//!   true, a switch case `c == k`, the default the conjunction of the
//!   negated cases). Paths are taken in the acyclic graph of the region
//!   (loop body) with inner loops collapsed; one topological sweep per
//!   dominator computes them (digest §5.3 step 3) instead of Tarjan's
//!   path expressions (§6.4–6.5).
//! - **Loops** (§2.3.3, §4.0.3): a header parameter is `μ_d(init, next)`
//!   with `d` the nesting depth (digest §5.3 step 7: depth, not header
//!   label, so equal loops in both functions share); `cont_L =
//!   pc_h(latch) ∧ e(latch→h)`; an exit block's parameter is
//!   `η_d(cont_L, φ{pc_h(x) ∧ e(x→e) → arg})`, and reaching the exit at
//!   all is `η_d(cont_L, ⋁ pc_h(x) ∧ e(x→e))`. Exits of several loops at
//!   once (a `return` in a nested loop) nest the η's, innermost first.
//! - **Result** (digest §5.2): the denotation is `(ret, eff)`, the gated
//!   φ over the return blocks of the returned values and of the final
//!   tokens, gated from the nearest common dominator of the returns.
//! - **Calls** ([`super::unfold`]): with a [`Callees`] context, a call of a
//!   non-recursive function is unfolded: the callee is built in place with
//!   its parameters, entry token and loop depths taken from the call site.

use cranelift_entity::SecondaryMap;
use rustc_hash::{FxHashMap, FxHashSet};

use super::cfg::{Cfg, Edge, LoopId, RNode};
use super::graph::{EffKind, Graph, Id, LoadKind, Op, Origin, Side};
use super::unfold::Callees;
use crate::ir::{Block, Function, Inst, InstKind, Terminator, Type, UnaryOp, Value};

mod split;

/// The meaning of a function: its result and its final effect token.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Denotation {
    /// The returned value (a `Unit` constant for `void` functions).
    pub ret: Id,
    /// The final token.
    pub eff: Id,
}

/// An arc of a region's acyclic graph: a CFG edge out of a block, or all
/// the exit edges of a collapsed loop that reach one block.
#[derive(Copy, Clone, Debug)]
struct Arc {
    src: RNode,
    /// The CFG edge for a block source; one of the exit edges for a loop.
    edge: Edge,
}

/// The acyclic graph of one region (a loop body or the function body).
struct Region {
    members: Vec<RNode>,
    pos: FxHashMap<RNode, usize>,
    /// Incoming arcs of each member (loop sources once per target block).
    ins: Vec<Vec<Arc>>,
    /// Immediate dominator of each member in the region graph.
    idom: Vec<usize>,
    /// Successors of each member in the region graph (positions).
    succ: Vec<Vec<usize>>,
    /// Whether control may leave the region at each member: a return, a
    /// back edge, an edge out of the region, or a collapsed loop (whose
    /// exits are gated by η's).
    leaves: Vec<bool>,
    /// Memo of [`Builder::sure_from_idom`] per member.
    sure: Vec<Option<bool>>,
    /// Path conditions from a member to a member (positions), `None`
    /// for a member not reachable from the first ([`Builder::pc`]).
    pc: FxHashMap<(usize, usize), Option<Id>>,
}

/// Builds the denotation of `f` into `g`, or says why `f` is not supported.
pub fn build(g: &mut Graph, f: &Function, side: Side) -> Result<Denotation, String> {
    build_with(g, f, side, None)
}

/// Builds the denotation of `f` into `g`, unfolding the calls `callees`
/// allows (see [`super::unfold`]).
pub fn build_with(
    g: &mut Graph,
    f: &Function,
    side: Side,
    callees: Option<&Callees>,
) -> Result<Denotation, String> {
    let entry = Entry {
        params: None,
        tok: None,
        depth: 0,
    };
    build_at(g, f, side, callees, entry)
}

/// Where a denotation is built: at the top (parameters and token are the
/// shared `Param`/`Tok0` nodes) or at a call site being unfolded.
struct Entry {
    /// The nodes bound to the parameters (the call's arguments).
    params: Option<Vec<Id>>,
    /// The token on entry (the call's token).
    tok: Option<Id>,
    /// The loop depth of the call site, added to every loop's depth.
    depth: u16,
}

fn build_at(
    g: &mut Graph,
    f: &Function,
    side: Side,
    callees: Option<&Callees>,
    entry: Entry,
) -> Result<Denotation, String> {
    if f.is_declaration() {
        return Err("function without a body".into());
    }
    let cfg = Cfg::new(f)?;
    let mut b = Builder {
        g,
        f,
        cfg,
        side,
        callees,
        entry,
        vals: FxHashMap::default(),
        def_block: SecondaryMap::new(),
        tok_out: FxHashMap::default(),
        regions: FxHashMap::default(),
        cont: FxHashMap::default(),
    };
    b.run()
}

struct Builder<'a> {
    g: &'a mut Graph,
    f: &'a Function,
    cfg: Cfg,
    side: Side,
    callees: Option<&'a Callees>,
    entry: Entry,
    vals: FxHashMap<Value, Id>,
    def_block: SecondaryMap<Value, Option<Block>>,
    tok_out: FxHashMap<Block, Id>,
    regions: FxHashMap<Option<LoopId>, Region>,
    cont: FxHashMap<LoopId, Id>,
}

/// Which incoming quantity of a block: a parameter or the token.
#[derive(Copy, Clone)]
enum Slot {
    Param(usize),
    Token,
}

impl Builder<'_> {
    fn run(&mut self) -> Result<Denotation, String> {
        for &b in &self.cfg.rpo {
            for &p in &self.f.blocks[b].params {
                self.def_block[p] = Some(b);
            }
            for &i in &self.f.blocks[b].insts {
                if let Some(r) = self.f.insts[i].result {
                    self.def_block[r] = Some(b);
                }
            }
        }
        let order = self.cfg.nested_order();
        let mut mus: Vec<(Id, LoopId, Slot)> = Vec::new();
        for &b in &order {
            let tok = self.enter_block(b, &mut mus)?;
            let mut tok = tok;
            for &i in &self.f.blocks[b].insts {
                tok = self.inst(b, i, tok)?;
            }
            let mut err = None;
            self.f.blocks[b].term.for_each_arg(|v| {
                if err.is_none() {
                    err = self.check_use(v, b).err();
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
            self.tok_out.insert(b, tok);
        }
        for (mu, l, slot) in mus {
            let back = self.cfg.loops[l].back;
            let next = self.along_edge(back, slot)?;
            self.g.patch_mu(mu, next);
            // Recorded for R8 (`range`); a loop without one gets no facts.
            if let Ok(c) = self.cont(l) {
                self.g.set_loop_cont(mu, c);
            }
        }
        self.result()
    }

    fn check_use(&self, v: Value, at: Block) -> Result<(), String> {
        let Some(d) = self.def_block.get(v).copied().flatten() else {
            return Err(format!("{v} is not defined in a reachable block"));
        };
        if !self.cfg.contains(self.cfg.loop_of[d], at) {
            return Err(format!("{v} is used outside its loop (not LCSSA)"));
        }
        Ok(())
    }

    fn val(&self, v: Value) -> Result<Id, String> {
        self.vals
            .get(&v)
            .copied()
            .ok_or_else(|| format!("{v} is used before it is defined"))
    }

    /// The operand `v` of an instruction in block `at`.
    fn operand(&self, v: Value, at: Block) -> Result<Id, String> {
        self.check_use(v, at)?;
        self.val(v)
    }

    fn origin(&mut self, id: Id, what: String, inst: Option<Inst>) {
        let loc = inst.map_or(self.f.loc, |i| self.f.insts[i].loc);
        self.g.set_origin(
            id,
            Origin {
                side: self.side,
                what,
                loc,
            },
        );
    }

    /// Defines the parameters of `b`; returns its incoming token.
    fn enter_block(&mut self, b: Block, mus: &mut Vec<(Id, LoopId, Slot)>) -> Result<Id, String> {
        let params = self.f.blocks[b].params.clone();
        let slots = params
            .iter()
            .enumerate()
            .map(|(k, &p)| (Slot::Param(k), Some(p)))
            .chain(std::iter::once((Slot::Token, None)));
        let mut tok = None;
        let header = self.cfg.loop_of[b].filter(|&l| self.cfg.loops[l].header == b);
        let incoming = if b == self.f.entry() || header.is_some() {
            Vec::new()
        } else {
            self.arcs_into(b)?
        };
        for (slot, p) in slots {
            let ty = p.map_or(Type::Unit, |p| self.f.value_type(p));
            let node = if b == self.f.entry() {
                match (slot, &self.entry.params, self.entry.tok) {
                    (Slot::Param(k), Some(args), _) => *args
                        .get(k)
                        .ok_or("a call passes fewer arguments than the callee takes")?,
                    (Slot::Param(k), None, _) => self.g.intern(Op::Param(k as u32), ty, Vec::new()),
                    (Slot::Token, _, Some(t)) => t,
                    (Slot::Token, _, None) => self.g.intern(Op::Tok0, Type::Unit, Vec::new()),
                }
            } else if let Some(l) = header {
                let entry = self.cfg.loops[l].entry;
                let init = self.along_edge(entry, slot)?;
                let d = self.depth(l);
                let mu = self.g.open_mu(d, ty, init);
                mus.push((mu, l, slot));
                mu
            } else {
                self.join(b, &incoming, slot, ty)?
            };
            match p {
                Some(p) => {
                    self.vals.insert(p, node);
                    self.origin(node, format!("{b} param {p}"), None);
                }
                None => tok = Some(node),
            }
        }
        Ok(tok.expect("the token slot is last"))
    }

    /// The arcs entering block `b` in its region, with the region.
    fn arcs_into(&mut self, b: Block) -> Result<Vec<Arc>, String> {
        let r = self.cfg.loop_of[b];
        self.region(r);
        let reg = &self.regions[&r];
        let at = reg.pos[&RNode::Block(b)];
        Ok(reg.ins[at].clone())
    }

    /// The value of `slot` of block `b` from its incoming arcs.
    fn join(&mut self, b: Block, arcs: &[Arc], slot: Slot, ty: Type) -> Result<Id, String> {
        if arcs.len() == 1 {
            let v = self.arc_value(arcs[0], b, slot, ty)?;
            return self.split_phi(arcs[0].src, arcs[0].edge, v, ty);
        }
        let r = self.cfg.loop_of[b];
        let at = self.regions[&r].pos[&RNode::Block(b)];
        let d = self.regions[&r].idom[at];
        let mut branches = Vec::with_capacity(arcs.len());
        for &arc in arcs {
            let pc = self.pc(r, d, arc.src)?;
            let e = self.arc_cond(arc, b)?;
            let gate = self.g.and(&[pc, e]);
            let v = self.arc_value(arc, b, slot, ty)?;
            branches.push((gate, v));
        }
        Ok(self.g.phi(ty, &branches))
    }

    /// The value of `slot` of `target` along a region arc.
    fn arc_value(&mut self, arc: Arc, target: Block, slot: Slot, ty: Type) -> Result<Id, String> {
        match arc.src {
            RNode::Block(_) => self.along_edge(arc.edge, slot),
            RNode::Loop(c) => self.exit_value(c, target, slot, ty),
        }
    }

    /// The argument for `slot` passed along a CFG edge (the source's
    /// outgoing token for the token).
    fn along_edge(&mut self, e: Edge, slot: Slot) -> Result<Id, String> {
        match slot {
            Slot::Token => self
                .tok_out
                .get(&e.from)
                .copied()
                .ok_or_else(|| format!("token of {} used before it is built", e.from)),
            Slot::Param(k) => {
                let bc = self.f.blocks[e.from]
                    .term
                    .successors()
                    .nth(e.index)
                    .ok_or("edge index out of range")?;
                let v = *bc.args.get(k).ok_or_else(|| {
                    format!("edge {} -> {} passes too few arguments", e.from, e.to)
                })?;
                self.val(v)
            }
        }
    }

    /// The condition under which CFG edge `e` is taken once its source runs.
    fn edge_cond(&mut self, e: Edge) -> Result<Id, String> {
        let Terminator::Switch { value, .. } = &self.f.blocks[e.from].term else {
            return Err("edge out of a return".into());
        };
        let Some(c) = *value else {
            return Ok(self.g.boolean(true));
        };
        let cv = self.val(c)?;
        self.switch_cond(e, c, cv)
    }

    /// The condition of edge `e` of a switch on `c` when `c` is `cv`.
    fn switch_cond(&mut self, e: Edge, c: Value, cv: Id) -> Result<Id, String> {
        let f = self.f;
        let Terminator::Switch { cases, .. } = &f.blocks[e.from].term else {
            return Err("edge out of a return".into());
        };
        let is_bool = self.f.value_type(c) == Type::Bool;
        let case = |g: &mut Graph, k: i64| -> Id {
            if is_bool {
                match k {
                    1 => cv,
                    0 => g.not(cv),
                    _ => g.boolean(false),
                }
            } else {
                let kk = g.konst(Type::Int, k as u64);
                g.cmp(crate::ir::BinaryOp::ICmp(crate::ir::Cmp::Eq), cv, kk)
            }
        };
        if e.index < cases.len() {
            Ok(case(self.g, cases[e.index].0))
        } else {
            let negs: Vec<Id> = cases
                .iter()
                .map(|&(k, _)| {
                    let c = case(self.g, k);
                    self.g.not(c)
                })
                .collect();
            Ok(self.g.and(&negs))
        }
    }

    /// The condition of a region arc into `target`: the edge's own
    /// condition, or for a collapsed loop `η_d(cont, ⋁ exit conditions)`.
    fn arc_cond(&mut self, arc: Arc, target: Block) -> Result<Id, String> {
        match arc.src {
            RNode::Block(_) => self.edge_cond(arc.edge),
            RNode::Loop(c) => {
                let exits = self.exit_arcs(c, target);
                let mut terms = Vec::with_capacity(exits.len());
                for (arc, pc) in exits {
                    let pc = self.pc(Some(c), 0, pc)?;
                    let e = self.arc_cond(arc, target)?;
                    terms.push(self.g.and(&[pc, e]));
                }
                let inner = self.g.or(&terms);
                let cont = self.cont(c)?;
                let d = self.depth(c);
                Ok(self.g.intern(Op::Eta(d), Type::Bool, vec![cont, inner]))
            }
        }
    }

    /// The arcs of loop `c`'s region that leave it towards `target`, each
    /// with its source member (for the path condition from the header).
    fn exit_arcs(&mut self, c: LoopId, target: Block) -> Vec<(Arc, RNode)> {
        let r = Some(c);
        self.region(r);
        let members = self.regions[&r].members.clone();
        let mut out = Vec::new();
        for n in members {
            let mut seen_loop = false;
            for e in self.cfg.out_edges(r, n) {
                if e.to != target {
                    continue;
                }
                if matches!(n, RNode::Loop(_)) {
                    // A collapsed loop contributes one arc per target.
                    if seen_loop {
                        continue;
                    }
                    seen_loop = true;
                }
                out.push((Arc { src: n, edge: e }, n));
            }
        }
        out
    }

    /// The value of `slot` of exit block `target` out of loop `c`.
    fn exit_value(&mut self, c: LoopId, target: Block, slot: Slot, ty: Type) -> Result<Id, String> {
        let exits = self.exit_arcs(c, target);
        let mut branches = Vec::with_capacity(exits.len());
        for (arc, src) in exits {
            let pc = self.pc(Some(c), 0, src)?;
            let e = self.arc_cond(arc, target)?;
            let gate = self.g.and(&[pc, e]);
            let v = self.arc_value(arc, target, slot, ty)?;
            branches.push((gate, v));
        }
        let inner = self.g.phi(ty, &branches);
        let cont = self.cont(c)?;
        let d = self.depth(c);
        Ok(self.g.intern(Op::Eta(d), ty, vec![cont, inner]))
    }

    /// The μ/η depth of loop `l`: its nesting depth below the call site.
    fn depth(&self, l: LoopId) -> u16 {
        self.cfg.loops[l].depth + self.entry.depth
    }

    /// The denotation of a call of `callee` in block `b` on `args` and
    /// `tok`, unfolded, or `None` when the call stays uninterpreted.
    fn unfold(
        &mut self,
        b: Block,
        callee: crate::ir::FuncId,
        args: &[Id],
        tok: Id,
    ) -> Option<Denotation> {
        let callees = self.callees?;
        let body = callees.body(callee)?;
        if body.sig.params.len() != args.len() {
            return None;
        }
        let entry = Entry {
            params: Some(args.to_vec()),
            tok: Some(tok),
            depth: self.cfg.depth(b) + self.entry.depth,
        };
        build_at(self.g, &body, self.side, Some(callees), entry).ok()
    }

    /// `cont_L = pc_h(latch) ∧ e(latch→h)`.
    fn cont(&mut self, l: LoopId) -> Result<Id, String> {
        if let Some(&c) = self.cont.get(&l) {
            return Ok(c);
        }
        let lp = &self.cfg.loops[l];
        let (latch, back) = (lp.latch, lp.back);
        let pc = self.pc(Some(l), 0, RNode::Block(latch))?;
        let e = self.edge_cond(back)?;
        let c = self.g.and(&[pc, e]);
        self.cont.insert(l, c);
        Ok(c)
    }

    /// The acyclic graph of region `r`, computed once.
    fn region(&mut self, r: Option<LoopId>) {
        if self.regions.contains_key(&r) {
            return;
        }
        let members = self.cfg.members(r);
        let pos: FxHashMap<RNode, usize> =
            members.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        let mut ins: Vec<Vec<Arc>> = vec![Vec::new(); members.len()];
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
        let mut leaves = vec![false; members.len()];
        for &n in &members {
            let mut loop_targets: Vec<Block> = Vec::new();
            let out = self.cfg.out_edges(r, n);
            leaves[pos[&n]] = match n {
                RNode::Block(b) => out.is_empty() || out.len() != self.cfg.succs[b].len(),
                RNode::Loop(_) => true,
            };
            for e in out {
                let Some(t) = self.cfg.rnode_at(r, e.to) else {
                    leaves[pos[&n]] = true;
                    continue; // leaves the region
                };
                succ[pos[&n]].push(pos[&t]);
                if matches!(n, RNode::Loop(_)) {
                    if loop_targets.contains(&e.to) {
                        continue;
                    }
                    loop_targets.push(e.to);
                }
                ins[pos[&t]].push(Arc { src: n, edge: e });
            }
        }
        let mut idom = vec![usize::MAX; members.len()];
        for i in 1..members.len() {
            let mut d = usize::MAX;
            for a in &ins[i] {
                let p = pos[&a.src];
                d = if d == usize::MAX {
                    p
                } else {
                    let (mut x, mut y) = (p, d);
                    while x != y {
                        if x > y {
                            x = idom[x];
                        } else {
                            y = idom[y];
                        }
                    }
                    x
                };
            }
            idom[i] = if d == usize::MAX { 0 } else { d };
        }
        self.regions.insert(
            r,
            Region {
                members,
                pos,
                ins,
                idom,
                sure: vec![None; succ.len()],
                succ,
                leaves,
                pc: FxHashMap::default(),
            },
        );
    }

    /// `pc_d(x)`: the path condition from member `d` (a position) to member
    /// `x` of region `r`: the disjunction over `x`'s incoming arcs from
    /// members at or after `d` of their source's condition and the arc's.
    /// Computed on demand, for the members `x` depends on only, and
    /// memoized per `(d, member)`; a member that control reaches for sure
    /// from its immediate dominator `p` ([`Builder::sure_from_idom`]) has
    /// `p`'s condition. Without that, each join of an `else if` chain of
    /// `n` arms got the disjunction of the paths through all inner arms,
    /// and a sweep over every member after each dominator the conjunction
    /// of the path to each (`n³/6` argument slots for the chain).
    fn pc(&mut self, r: Option<LoopId>, d: usize, x: RNode) -> Result<Id, String> {
        self.region(r);
        let target = self.regions[&r].pos[&x];
        if target < d {
            return Err("path condition against the topological order".into());
        }
        // The members `target` depends on, then each in topological order
        // (the order of the sweep this replaces: nodes are made in the
        // same relative order, and the rules' outcome can depend on it).
        let mut need: Vec<usize> = Vec::new();
        let mut stack = vec![target];
        let mut seen: FxHashSet<usize> = FxHashSet::default();
        while let Some(i) = stack.pop() {
            if self.regions[&r].pc.contains_key(&(d, i)) || !seen.insert(i) {
                continue;
            }
            need.push(i);
            if i == d {
                continue;
            }
            let p = self.regions[&r].idom[i];
            if p >= d && p < i && self.sure_from_idom(r, i) {
                stack.push(p);
            } else {
                let reg = &self.regions[&r];
                stack.extend(
                    reg.ins[i]
                        .iter()
                        .map(|a| reg.pos[&a.src])
                        .filter(|&q| q >= d),
                );
            }
        }
        need.sort_unstable();
        for i in need {
            if i == d {
                let t = self.g.boolean(true);
                self.regions.get_mut(&r).unwrap().pc.insert((d, i), Some(t));
                continue;
            }
            let p = self.regions[&r].idom[i];
            if p >= d && p < i && self.sure_from_idom(r, i) {
                let reg = self.regions.get_mut(&r).unwrap();
                let v = reg.pc[&(d, p)];
                reg.pc.insert((d, i), v);
                continue;
            }
            let arcs = self.regions[&r].ins[i].clone();
            let mut terms = Vec::new();
            for arc in arcs {
                let q = self.regions[&r].pos[&arc.src];
                if q < d {
                    continue;
                }
                let Some(pcq) = self.regions[&r].pc[&(d, q)] else {
                    continue;
                };
                let target_block = arc.edge.to;
                let e = self.arc_cond(arc, target_block)?;
                terms.push(self.g.and(&[pcq, e]));
            }
            let v = (!terms.is_empty()).then(|| self.g.or(&terms));
            self.regions.get_mut(&r).unwrap().pc.insert((d, i), v);
        }
        self.regions[&r].pc[&(d, target)]
            .ok_or_else(|| "member not reachable from its dominator".into())
    }

    /// Whether every path of region `r` from the immediate dominator of
    /// member `i` reaches `i`: no member on the way lets control leave the
    /// region (a return, a back edge, an exit, a collapsed loop whose exit
    /// gates are η's). Then the disjunction of the path conditions from
    /// the dominator to `i` is a tautology (each block's edge conditions
    /// are exhaustive). Memoized per member; a walk of the members between
    /// the two.
    fn sure_from_idom(&mut self, r: Option<LoopId>, i: usize) -> bool {
        let reg = &self.regions[&r];
        if let Some(s) = reg.sure[i] {
            return s;
        }
        let p = reg.idom[i];
        let mut seen = vec![false; reg.members.len()];
        let mut work = vec![p];
        let mut sure = true;
        while let Some(m) = work.pop() {
            if m == i || std::mem::replace(&mut seen[m], true) {
                continue;
            }
            if reg.leaves[m] || m > i {
                sure = false;
                break;
            }
            work.extend(reg.succ[m].iter().copied());
        }
        self.regions.get_mut(&r).unwrap().sure[i] = Some(sure);
        sure
    }

    /// The denotation from the return blocks.
    fn result(&mut self) -> Result<Denotation, String> {
        let rets: Vec<Block> = self
            .cfg
            .rpo
            .iter()
            .copied()
            .filter(|&b| matches!(self.f.blocks[b].term, Terminator::Return(_)))
            .collect();
        let ty = self.f.sig.ret;
        let value = |s: &mut Self, b: Block| -> Result<Id, String> {
            match s.f.blocks[b].term {
                Terminator::Return(Some(v)) => s.val(v),
                _ => Ok(s.g.konst(Type::Unit, 0)),
            }
        };
        if rets.len() == 1 {
            let ret = value(self, rets[0])?;
            return Ok(Denotation {
                ret,
                eff: self.tok_out[&rets[0]],
            });
        }
        self.region(None);
        let mut d = usize::MAX;
        for &b in &rets {
            let p = self.regions[&None].pos[&RNode::Block(b)];
            d = if d == usize::MAX {
                p
            } else {
                let reg = &self.regions[&None];
                let (mut x, mut y) = (p, d);
                while x != y {
                    if x > y {
                        x = reg.idom[x];
                    } else {
                        y = reg.idom[y];
                    }
                }
                x
            };
        }
        let mut vals = Vec::new();
        let mut toks = Vec::new();
        for &b in &rets {
            let gate = self.pc(None, d, RNode::Block(b))?;
            vals.push((gate, value(self, b)?));
            toks.push((gate, self.tok_out[&b]));
        }
        let ret = self.g.phi(ty, &vals);
        let eff = self.g.phi(Type::Unit, &toks);
        Ok(Denotation { ret, eff })
    }

    /// Adds instruction `i` of block `b` on token `tok`; returns the next token.
    fn inst(&mut self, b: Block, i: Inst, tok: Id) -> Result<Id, String> {
        let f = self.f;
        let data = &f.insts[i];
        let mut args = Vec::new();
        let mut err = None;
        data.kind.for_each_arg(|v| match self.operand(v, b) {
            Ok(n) => args.push(n),
            Err(e) => err = err.take().or(Some(e)),
        });
        if let Some(e) = err {
            return Err(e);
        }
        if let InstKind::Call(fid, _) = data.kind {
            if let Some(d) = self.unfold(b, fid, &args, tok) {
                if let Some(r) = data.result {
                    self.vals.insert(r, d.ret);
                    self.origin(d.ret, format!("{r}"), Some(i));
                }
                return Ok(d.eff);
            }
        }
        let rty = data.result.map_or(Type::Unit, |r| self.f.value_type(r));
        let arg_ty = |k: usize| -> Type {
            let mut tys = Vec::new();
            data.kind.for_each_arg(|v| tys.push(self.f.value_type(v)));
            tys.get(k).copied().unwrap_or(Type::Unit)
        };
        let g = &mut *self.g;
        let mut tok = tok;
        let eff = |g: &mut Graph, kind: EffKind, mut a: Vec<Id>, tok: &mut Id| -> Id {
            a.push(*tok);
            let e = g.intern(Op::Eff(kind), Type::Unit, a);
            *tok = g.intern(Op::Proj(1), Type::Unit, vec![e]);
            g.intern(Op::Proj(0), rty, vec![e])
        };
        let value = match &data.kind {
            InstKind::IConst(k) => g.konst(Type::Int, *k as u64),
            InstKind::FConst(k) => g.konst(Type::Float, *k),
            InstKind::BConst(k) => g.boolean(*k),
            InstKind::SConst(s) => g.intern(Op::Str(s.clone()), Type::Str, Vec::new()),
            InstKind::Copy(_) => args[0],
            InstKind::Unary(UnaryOp::BNot, _) => g.not(args[0]),
            InstKind::Unary(op, _) => g.intern(Op::Un(*op), rty, args),
            InstKind::Binary(op, _, _) => {
                if op.may_trap() && g.const_of(args[1]).is_none_or(|k| k == 0) {
                    eff(g, EffKind::DivCheck, vec![args[1]], &mut tok);
                }
                g.bin(*op, rty, args[0], args[1])
            }
            InstKind::Call(fid, _) => eff(g, EffKind::Call(*fid), args, &mut tok),
            InstKind::HostCall(h, _) => eff(g, EffKind::HostCall(*h), args, &mut tok),
            InstKind::GlobalGet(gl) => g.intern(Op::Load(LoadKind::Global(*gl)), rty, vec![tok]),
            InstKind::GlobalSet(gl, _) => eff(g, EffKind::GlobalSet(*gl), args, &mut tok),
            InstKind::ArrayLit(_) => {
                let elem = rty.element().unwrap_or(Type::Unit);
                eff(g, EffKind::ArrayLit(elem), args, &mut tok)
            }
            InstKind::ArrayRepeat(..) => eff(g, EffKind::ArrayRepeat, args, &mut tok),
            InstKind::ArrayLen(_) => {
                args.push(tok);
                g.intern(Op::Load(LoadKind::Len), rty, args)
            }
            InstKind::BoundsCheck(..) => eff(g, EffKind::BoundsCheck, args, &mut tok),
            InstKind::ArrayGet(..) => {
                args.push(tok);
                g.intern(Op::Load(LoadKind::Elem), rty, args)
            }
            InstKind::ArraySet(..) => eff(g, EffKind::ArraySet, args, &mut tok),
            InstKind::ArrayPush(..) => eff(g, EffKind::ArrayPush, args, &mut tok),
            InstKind::ArrayPop(_) => eff(g, EffKind::ArrayPop, args, &mut tok),
            InstKind::StrLen(_) => g.intern(Op::StrLen, rty, args),
            InstKind::StrConcat(..) => eff(g, EffKind::StrConcat, args, &mut tok),
            InstKind::StrCmp(cc, _, _) => {
                let (op, a, b) = match cc {
                    crate::ir::Cmp::Gt => (crate::ir::Cmp::Lt, args[1], args[0]),
                    crate::ir::Cmp::Ge => (crate::ir::Cmp::Le, args[1], args[0]),
                    c => (*c, args[0], args[1]),
                };
                g.intern(Op::StrCmp(op), Type::Bool, vec![a, b])
            }
            InstKind::ToStr(_) => eff(g, EffKind::ToStr(arg_ty(0)), args, &mut tok),
            InstKind::Print(_) => eff(g, EffKind::Print(arg_ty(0)), args, &mut tok),
            InstKind::Assert(_) => eff(g, EffKind::Assert, args, &mut tok),
            InstKind::Clock => eff(g, EffKind::Clock, args, &mut tok),
        };
        if let Some(r) = data.result {
            self.vals.insert(r, value);
            self.origin(value, format!("{r}"), Some(i));
        }
        Ok(tok)
    }
}
