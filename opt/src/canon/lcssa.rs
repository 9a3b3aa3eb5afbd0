//! Loop-closed SSA form (Fritz §4.2, §7.2).
//!
//! For every loop `l` (inner loops first) and every value `v` defined in `l`
//! with uses outside `l`, the uses outside are rewritten to reaching
//! definitions among new parameters of `l`'s exit blocks (Fig. 7.22, "repair
//! lcssa"). The exits that get a parameter are those dominated by `v`'s
//! definition that lie on a path to an outside use (Fig. 7.21: an exit that
//! leads to no use gets none); each predecessor of such an exit (all in `l`,
//! the exits being dedicated) passes `v`.
//!
//! Reaching definitions for the outside uses are found like in SSA
//! reconstruction (Fritz §7.1, Figs. 7.15–7.17, after Braun et al.): walking
//! backwards from each use, a block with one predecessor takes that
//! predecessor's definition and a block with several gets a tentative
//! parameter; tentative parameters that turn out trivial (only one value
//! besides themselves reaches them) are collapsed before anything is
//! materialized. Since the CFG is complete, the walk is done on side tables
//! and only the surviving parameters are added to the function.
//!
//! The new exit and join parameters are defined outside `l`; if they are
//! used outside an enclosing loop they are closed again when that loop is
//! processed. The CFG does not change, so one set of analyses serves all
//! loops.

use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;

use crate::analysis::loops::{Loop, LoopForest};
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{Block, Function, FunctionBuilder, Inst, Value};

/// Where a value is used: an instruction or a block's terminator.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Site {
    Inst(Inst),
    Term(Block),
}

/// Use lists with the block of every use.
struct Uses {
    sites: SecondaryMap<Value, Vec<Site>>,
    inst_block: SecondaryMap<Inst, Option<Block>>,
}

impl Uses {
    fn compute(func: &Function) -> Uses {
        let mut u = Uses {
            sites: SecondaryMap::new(),
            inst_block: SecondaryMap::new(),
        };
        u.sites.resize(func.values.len());
        u.inst_block.resize(func.insts.len());
        for &b in &func.layout {
            for &inst in &func.blocks[b].insts {
                u.inst_block[inst] = Some(b);
                func.insts[inst]
                    .kind
                    .for_each_arg(|v| add(&mut u.sites, v, Site::Inst(inst)));
            }
            func.blocks[b]
                .term
                .for_each_arg(|v| add(&mut u.sites, v, Site::Term(b)));
        }
        u
    }

    fn block(&self, site: Site) -> Option<Block> {
        match site {
            Site::Inst(i) => self.inst_block[i],
            Site::Term(b) => Some(b),
        }
    }
}

/// Records that `site` uses `v`.
///
/// Only a repeat of the last site recorded for `v` is dropped (an
/// instruction or terminator reading `v` twice records its site once):
/// searching the whole list made a value with thousands of uses quadratic.
/// A site recorded again later (an edge argument appended to a terminator
/// that already passes `v`) is a harmless duplicate: the walks over a
/// value's sites skip blocks they have seen, and rewriting a site twice
/// finds nothing left to rewrite the second time.
fn add(sites: &mut SecondaryMap<Value, Vec<Site>>, v: Value, site: Site) {
    if sites[v].last() != Some(&site) {
        sites[v].push(site);
    }
}

/// The shared analyses.
struct Ctx<'a> {
    cfg: &'a ControlFlowGraph,
    dom: &'a DomTree,
    forest: &'a LoopForest,
}

/// Puts `func` (SSA, loop-simplified, no unreachable blocks) into LCSSA,
/// given its analyses.
pub(super) fn form_lcssa(
    func: &mut Function,
    cfg: &ControlFlowGraph,
    dom: &DomTree,
    forest: &LoopForest,
) {
    if forest.is_empty() || !has_escape(func, forest) {
        return;
    }
    let cx = Ctx { cfg, dom, forest };
    let mut uses = Uses::compute(func);
    for l in forest.loops() {
        for &b in forest.body(l) {
            let mut defs: Vec<Value> = func.blocks[b].params.clone();
            defs.extend(
                func.blocks[b]
                    .insts
                    .iter()
                    .filter_map(|&i| func.insts[i].result),
            );
            for v in defs {
                let outside: Vec<Site> = uses.sites[v]
                    .iter()
                    .copied()
                    .filter(|&s| uses.block(s).is_some_and(|ub| !forest.contains(l, ub)))
                    .collect();
                if !outside.is_empty() {
                    close_value(func, &cx, &mut uses, l, b, v, &outside);
                }
            }
        }
    }
}

/// Whether some value defined in a loop is used outside it. Most functions
/// are in LCSSA already (everything the VSDG tier sequentializes nearly
/// always is), and this check costs one pass without use lists.
fn has_escape(func: &Function, forest: &LoopForest) -> bool {
    let def_block = super::check::def_blocks(func);
    // A use escapes when it lies outside the innermost loop of its
    // definition (inside it, it is inside every enclosing loop too).
    let escapes = |v: Value, at: Block| {
        def_block
            .get(v)
            .copied()
            .flatten()
            .and_then(|d| forest.innermost(d))
            .is_some_and(|l| !forest.contains(l, at))
    };
    func.layout.iter().any(|&b| {
        let mut found = false;
        for &i in &func.blocks[b].insts {
            func.insts[i].kind.for_each_arg(|v| found |= escapes(v, b));
        }
        func.blocks[b].term.for_each_arg(|v| found |= escapes(v, b));
        found
    })
}

/// What provides the value at a block, during the backward walk.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Src {
    /// The (to be created) parameter of this exit block.
    Exit(Block),
    /// Tentative join parameter number `n`.
    Phi(usize),
    /// The original value (only for ill-formed input: a walk that reaches
    /// the loop other than through an exit dominated by the definition).
    Orig,
}

/// A tentative join parameter.
struct Phi {
    block: Block,
    /// One source per distinct predecessor (in `cfg.preds` order).
    args: Vec<Src>,
    /// What the parameter collapsed into, if it was trivial.
    replaced: Option<Src>,
}

/// Rewrites the uses `outside` of `v` (defined in block `def_block` of loop
/// `l`) to go through exit parameters of `l`.
#[allow(clippy::too_many_arguments)]
fn close_value(
    func: &mut Function,
    cx: &Ctx<'_>,
    uses: &mut Uses,
    l: Loop,
    def_block: Block,
    v: Value,
    outside: &[Site],
) {
    // Backward walk from the use blocks: what reaches the top of each block.
    let mut at_top: FxHashMap<Block, Src> = FxHashMap::default();
    let mut single: FxHashMap<Block, Block> = FxHashMap::default();
    let mut phis: Vec<Phi> = Vec::new();
    let mut work: Vec<Block> = outside.iter().filter_map(|&s| uses.block(s)).collect();
    let mut seen = rustc_hash::FxHashSet::default();
    while let Some(b) = work.pop() {
        if !seen.insert(b) {
            continue;
        }
        if cx.forest.contains(l, b) || !cx.dom.is_reachable(b) {
            at_top.insert(b, Src::Orig);
            continue;
        }
        let preds = cx.cfg.preds(b);
        let is_exit = preds.iter().any(|&p| cx.forest.contains(l, p));
        if is_exit {
            let src = if cx.dom.dominates(def_block, b) {
                Src::Exit(b)
            } else {
                Src::Orig
            };
            at_top.insert(b, src);
            continue;
        }
        match preds {
            [] => {
                at_top.insert(b, Src::Orig);
            }
            [p] => {
                single.insert(b, *p);
                work.push(*p);
            }
            _ => {
                at_top.insert(b, Src::Phi(phis.len()));
                phis.push(Phi {
                    block: b,
                    args: Vec::new(),
                    replaced: None,
                });
                work.extend_from_slice(preds);
            }
        }
    }
    // Blocks with one predecessor take the predecessor's source (no block
    // outside the loop defines the value, so top and bottom agree).
    let resolve_single = |mut b: Block| -> Src {
        let mut steps = 0usize;
        loop {
            if let Some(&s) = at_top.get(&b) {
                return s;
            }
            match single.get(&b) {
                Some(&p) if steps <= single.len() => {
                    b = p;
                    steps += 1;
                }
                _ => return Src::Orig,
            }
        }
    };
    for phi in &mut phis {
        phi.args = cx
            .cfg
            .preds(phi.block)
            .iter()
            .map(|&p| resolve_single(p))
            .collect();
    }
    // Collapse trivial tentative parameters until none is left (Fig. 7.17).
    let find = |phis: &[Phi], mut s: Src| -> Src {
        while let Src::Phi(i) = s {
            match phis[i].replaced {
                Some(r) => s = r,
                None => break,
            }
        }
        s
    };
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..phis.len() {
            if phis[i].replaced.is_some() {
                continue;
            }
            let mut same: Option<Src> = None;
            let mut trivial = true;
            for &a in &phis[i].args {
                let a = find(&phis, a);
                if a == Src::Phi(i) || Some(a) == same {
                    continue;
                }
                if same.is_some() {
                    trivial = false;
                    break;
                }
                same = Some(a);
            }
            if trivial {
                phis[i].replaced = Some(same.unwrap_or(Src::Orig));
                changed = true;
            }
        }
    }
    // Materialize exit parameters and surviving join parameters.
    let ty = func.values[v].ty;
    let mut exit_params: FxHashMap<Block, Value> = FxHashMap::default();
    let mut phi_params: FxHashMap<usize, Value> = FxHashMap::default();
    let mut needed_exits: Vec<Block> = Vec::new();
    let mut note_exit = |s: Src| {
        if let Src::Exit(e) = s {
            if !needed_exits.contains(&e) {
                needed_exits.push(e);
            }
        }
    };
    for &site in outside {
        if let Some(b) = uses.block(site) {
            note_exit(find(&phis, resolve_single(b)));
        }
    }
    for phi in phis.iter().filter(|p| p.replaced.is_none()) {
        for &a in &phi.args {
            note_exit(find(&phis, a));
        }
    }
    for &e in &needed_exits {
        let p = FunctionBuilder::new(func).append_block_param(e, ty);
        exit_params.insert(e, p);
    }
    for (i, phi) in phis.iter().enumerate() {
        if phi.replaced.is_none() {
            let p = FunctionBuilder::new(func).append_block_param(phi.block, ty);
            phi_params.insert(i, p);
        }
    }
    let value_of = |s: Src| -> Value {
        match find(&phis, s) {
            Src::Exit(e) => exit_params.get(&e).copied().unwrap_or(v),
            Src::Phi(i) => phi_params.get(&i).copied().unwrap_or(v),
            Src::Orig => v,
        }
    };
    // Edge arguments: `v` into each new exit parameter, sources into joins.
    for &e in &needed_exits {
        for &p in cx.cfg.preds(e) {
            append_arg(func, uses, p, e, v);
        }
    }
    for phi in phis.iter().filter(|p| p.replaced.is_none()) {
        for (&p, &a) in cx.cfg.preds(phi.block).iter().zip(&phi.args) {
            append_arg(func, uses, p, phi.block, value_of(a));
        }
    }
    // Rewrite the outside uses; `v` loses the rewritten sites in one pass
    // over its list at the end, not one per site.
    let mut rewritten = rustc_hash::FxHashSet::default();
    for &site in outside {
        let Some(b) = uses.block(site) else { continue };
        let new = value_of(resolve_single(b));
        if new == v {
            continue;
        }
        let swap = |x: &mut Value| {
            if *x == v {
                *x = new;
            }
        };
        match site {
            Site::Inst(i) => func.insts[i].kind.for_each_arg_mut(swap),
            Site::Term(t) => func.blocks[t].term.for_each_arg_mut(swap),
        }
        rewritten.insert(site);
        add(&mut uses.sites, new, site);
    }
    if !rewritten.is_empty() {
        uses.sites[v].retain(|s| !rewritten.contains(s));
    }
}

/// Appends `arg` to every edge `from → to` and records the use.
fn append_arg(func: &mut Function, uses: &mut Uses, from: Block, to: Block, arg: Value) {
    for call in func.blocks[from].term.successors_mut() {
        if call.block == to {
            call.args.push(arg);
        }
    }
    add(&mut uses.sites, arg, Site::Term(from));
}
