//! Checking canonical form from scratch (Fritz ch. 4).

use cranelift_entity::SecondaryMap;

use super::simplify::{edge_count, is_plain_jump};
use crate::analysis::loops::LoopForest;
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{Block, Function, Value, ValueDef};

/// Recomputes the CFG, dominator tree and loop nesting forest of `func` and
/// checks that it is canonical:
/// - every block of the layout is reachable and the CFG is reducible;
/// - SSA (§4.1): every use is dominated by its definition;
/// - Property 4.3.1: every loop has one latch with a single backedge;
/// - Property 4.3.2: every loop has a dedicated preheader that ends in a
///   plain jump to the header (so the entry block is no loop header);
/// - Property 4.3.3: every exit of a loop has predecessors only in the loop;
/// - LCSSA (§4.2): every use of a value defined in a loop is in that loop.
///
/// Returns the first violation found, naming the function and blocks.
pub fn check_canonical(func: &Function) -> Result<(), String> {
    if func.is_declaration() {
        return Ok(());
    }
    let name = &func.name;
    let cfg = ControlFlowGraph::compute(func);
    let dom = DomTree::compute(func, &cfg);
    for &b in &func.layout {
        if !dom.is_reachable(b) {
            return Err(format!("{name}: {b} is unreachable"));
        }
    }
    let forest = LoopForest::compute(func, &cfg, &dom);
    if !forest.is_reducible() {
        return Err(format!("{name}: the CFG is irreducible"));
    }
    check_ssa(func, &dom)?;
    for l in forest.loops() {
        let h = forest.header(l);
        let outside: Vec<Block> = cfg
            .preds(h)
            .iter()
            .copied()
            .filter(|&p| !forest.contains(l, p))
            .collect();
        match outside.as_slice() {
            [p] if is_plain_jump(&func.blocks[*p].term, h) => {}
            [p] => {
                return Err(format!(
                    "{name}: preheader {p} of the loop at {h} does not end in a plain jump to it"
                ))
            }
            ps => {
                return Err(format!(
                    "{name}: the loop at {h} has {} entering blocks, not one preheader",
                    ps.len()
                ))
            }
        }
        match forest.latches(l) {
            [t] if edge_count(&func.blocks[*t].term, h) == 1 => {}
            [t] => return Err(format!("{name}: latch {t} has several edges to {h}")),
            ts => {
                return Err(format!(
                    "{name}: the loop at {h} has {} latches, not one",
                    ts.len()
                ))
            }
        }
        for &e in forest.exits(l) {
            if let Some(p) = cfg.preds(e).iter().find(|&&p| !forest.contains(l, p)) {
                return Err(format!(
                    "{name}: exit {e} of the loop at {h} is not dedicated: it has predecessor {p} outside the loop"
                ));
            }
        }
    }
    check_lcssa(func, &forest)
}

/// The block defining every value of the layout.
pub(super) fn def_blocks(func: &Function) -> SecondaryMap<Value, Option<Block>> {
    let mut def = SecondaryMap::new();
    def.resize(func.values.len());
    for &b in &func.layout {
        for &p in &func.blocks[b].params {
            def[p] = Some(b);
        }
        for &i in &func.blocks[b].insts {
            if let Some(r) = func.insts[i].result {
                def[r] = Some(b);
            }
        }
    }
    def
}

/// Calls `f(block, index, value)` for every use; `index` is the position of
/// the using instruction in its block (`usize::MAX` for the terminator).
fn for_each_use(func: &Function, mut f: impl FnMut(Block, usize, Value)) {
    for &b in &func.layout {
        for (i, &inst) in func.blocks[b].insts.iter().enumerate() {
            func.insts[inst].kind.for_each_arg(|v| f(b, i, v));
        }
        func.blocks[b].term.for_each_arg(|v| f(b, usize::MAX, v));
    }
}

/// SSA: every use is dominated by its (unique, in-layout) definition.
fn check_ssa(func: &Function, dom: &DomTree) -> Result<(), String> {
    let def = def_blocks(func);
    let mut pos = SecondaryMap::<Value, usize>::new();
    for &b in &func.layout {
        for (i, &inst) in func.blocks[b].insts.iter().enumerate() {
            if let Some(r) = func.insts[inst].result {
                pos[r] = i;
            }
        }
    }
    let mut err = None;
    for_each_use(func, |b, i, v| {
        if err.is_some() {
            return;
        }
        let ok = match def[v] {
            None => false,
            Some(d) if d == b => match func.values[v].def {
                ValueDef::Param(..) => true,
                ValueDef::Inst(_) => pos[v] < i,
            },
            Some(d) => dom.dominates(d, b),
        };
        if !ok {
            err = Some(format!(
                "{}: use of {v} in {b} is not dominated by its definition",
                func.name
            ));
        }
    });
    err.map_or(Ok(()), Err)
}

/// LCSSA: a value defined in a loop is used only inside that loop.
fn check_lcssa(func: &Function, forest: &LoopForest) -> Result<(), String> {
    let def = def_blocks(func);
    let mut err = None;
    for_each_use(func, |b, _, v| {
        if err.is_some() {
            return;
        }
        let Some(d) = def[v] else { return };
        if let Some(l) = forest.innermost(d) {
            if !forest.contains(l, b) {
                err = Some(format!(
                    "{}: {v} is defined in the loop at {} but used outside it in {b} (not LCSSA)",
                    func.name,
                    forest.header(l)
                ));
            }
        }
    });
    err.map_or(Ok(()), Err)
}
