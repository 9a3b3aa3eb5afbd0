//! The peeled form of an OSR entry at a nested loop header.
//!
//! An entry at the header `H` of a loop nested in loops with headers
//! `O_1` (innermost) … `O_k` must finish the current iterations of the
//! enclosing loops before their code runs as in the original. The
//! reconstructed form (`super::Repair`) does that with one copy of the
//! code and new block parameters where the entry's definitions of the
//! enclosing loops' values meet their own (at `H` first), so the hot inner
//! loop carries the outer induction variables around as loop-carried
//! values it never changes, and the code generator keeps them in registers
//! moved on every back edge (about 1.1–1.3x slower inner loops than the
//! original function's on the `waddle bench` nests).
//!
//! This form peels instead. The entry runs the code reachable from `H` at
//! *levels*: level `ℓ` is the part of the nest reached after passing the
//! headers up to `O_ℓ` (and none further out) since the entry, so it
//! starts at `H` on level 0 and moves to level `j` on an edge into `O_j`
//! (`j > ℓ`). Level `k` is the original code from `O_k` on; every lower
//! level is a copy of the blocks it reaches. A value defined in a block
//! `d` that strictly dominates `H` (the nested kind of `super`'s docs) has
//! run again on a path only once the path passed a header `O_j` that
//! dominates `d` (every path from `H` back to `d` goes through one), so on
//! levels below the innermost such `j` its uses read the entry's
//! parameter, and on the others the copy of the level they are on; every
//! other value is defined on the level of its uses (the last time a path
//! passes its block it is on the level of the use). No value needs a new
//! block parameter: the inner loop of level 0 reads the outer values as
//! the loop invariants they are. It is loop peeling (the first, partial,
//! iterations of the enclosing loops are copies), as in Fritz §7.1's
//! terms a duplication of code instead of a reconstruction of SSA.
//!
//! The layout puts level `k` first and level 0 last, each in the original
//! order, so the edges into `O_j` that change level are backward, as the
//! original's latches are: code generators that charge fuel on backward
//! edges charge the entry exactly where they charge the original. Where
//! that does not hold (a latch laid out before its header), or where the
//! copies would be more than twice the function (deep nests), the plan is
//! refused and the reconstructed form is used.

use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;

use super::{is_header, reachable, Start};
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{Block, BlockCall, Function, FunctionBuilder, Inst, Terminator, Type, Value};

/// Which blocks the peeled entry copies on which level.
pub(super) struct Plan {
    /// The enclosing loop headers `O_1` … `O_k`, innermost first.
    outer: Vec<Block>,
    /// The header the entry starts at.
    header: Block,
    /// Per level `ℓ < k`, the blocks reached on it, in layout order.
    levels: Vec<Vec<Block>>,
    /// The original blocks kept (level `k`: reachable from `O_k`), in
    /// layout order.
    top: Vec<Block>,
    /// Per nested value (the `nested` list of `super::osr_entry`): the
    /// level from which its definition has run again.
    again: FxHashMap<Value, usize>,
}

impl Plan {
    /// The plan for the entry of `f` at `header`, whose values of the
    /// nested kind are `nested`; `None` when `header` is in no other loop
    /// or peeling does not apply (see the module docs).
    pub(super) fn new(
        f: &Function,
        cfg: &ControlFlowGraph,
        dom: &DomTree,
        header: Block,
        nested: &[(Value, Block)],
    ) -> Option<Plan> {
        let from_header = reachable(f, header, None);
        let mut outer = Vec::new();
        let mut d = dom.idom(header);
        while let Some(db) = d {
            if from_header[db] && is_header(cfg, dom, db) {
                outer.push(db);
            }
            d = dom.idom(db);
        }
        let k = outer.len();
        if k == 0 {
            return None;
        }
        let mut pos: SecondaryMap<Block, usize> = SecondaryMap::new();
        for (i, &b) in f.layout().iter().enumerate() {
            pos[b] = i;
        }
        let mut seen: Vec<SecondaryMap<Block, bool>> = vec![SecondaryMap::new(); k];
        seen[0][header] = true;
        let mut stack = vec![(header, 0)];
        let mut copied = 0;
        while let Some((b, level)) = stack.pop() {
            copied += f.blocks()[b].insts.len() + 1;
            for s in f.blocks()[b].term.successors() {
                let to = next_level(&outer, level, s.block);
                if to > level && pos[s.block] > pos[b] {
                    // A level change on a forward edge: the fuel
                    // charges would differ.
                    return None;
                }
                if to < k && !seen[to][s.block] {
                    seen[to][s.block] = true;
                    stack.push((s.block, to));
                }
            }
        }
        let total: usize = (f.layout().iter())
            .map(|&b| f.blocks()[b].insts.len() + 1)
            .sum();
        if copied > 2 * total {
            return None;
        }
        let levels = (seen.iter())
            .map(|s| f.layout().iter().copied().filter(|&b| s[b]).collect())
            .collect();
        let kept = reachable(f, outer[k - 1], None);
        let top = f.layout().iter().copied().filter(|&b| kept[b]).collect();
        let mut again = FxHashMap::default();
        for &(v, db) in nested {
            let j = outer.iter().position(|&o| dom.dominates(o, db))?;
            again.insert(v, j + 1);
        }
        Some(Plan {
            outer,
            header,
            levels,
            top,
            again,
        })
    }

    /// Builds the entry into `b` (a copy of `f` whose entry block `start`
    /// made) and lays it out; `false` when a use has no definition on its
    /// level (not expected; the caller then builds the reconstructed form
    /// from scratch).
    pub(super) fn build(&self, b: &mut FunctionBuilder<'_>, f: &Function, start: &Start) -> bool {
        let k = self.outer.len();
        let fresh: FxHashMap<Value, Value> =
            (start.fresh.iter()).map(|&(v, _, new)| (v, new)).collect();
        // The copies: blocks and their parameters, then the instructions
        // with the original operands (rewritten below).
        let mut node: Vec<FxHashMap<Block, Block>> = vec![FxHashMap::default(); k];
        let mut vmap: Vec<FxHashMap<Value, Value>> = vec![FxHashMap::default(); k];
        for level in 0..k {
            for &blk in &self.levels[level] {
                let nb = b.create_block();
                node[level].insert(blk, nb);
                for &p in &f.blocks()[blk].params {
                    let np = b.append_block_param(nb, f.value_type(p));
                    vmap[level].insert(p, np);
                }
            }
        }
        let mut copies: Vec<(usize, Inst)> = Vec::new();
        for level in 0..k {
            for &blk in &self.levels[level] {
                let nb = node[level][&blk];
                for &i in &f.blocks()[blk].insts {
                    let data = f.inst(i);
                    let ty = data.result.map_or(Type::Unit, |r| f.value_type(r));
                    let (ni, nr) = b.append_inst(nb, data.kind.clone(), ty, data.loc);
                    if let (Some(r), Some(nr)) = (data.result, nr) {
                        vmap[level].insert(r, nr);
                    }
                    copies.push((level, ni));
                }
            }
        }
        let lookup = |v: Value, level: usize| -> Option<Value> {
            if let Some(n) = start.subst[v] {
                return Some(n);
            }
            if let (Some(&n), Some(&j)) = (fresh.get(&v), self.again.get(&v)) {
                if level < j {
                    return Some(n);
                }
            }
            if level == k {
                return Some(v);
            }
            vmap[level].get(&v).copied()
        };
        let mut ok = true;
        let mut map = |v: &mut Value, level: usize| match lookup(*v, level) {
            Some(n) => *v = n,
            None => ok = false,
        };
        for &(level, i) in &copies {
            b.inst_mut(i).kind.for_each_arg_mut(|v| map(v, level));
        }
        for level in 0..k {
            for &blk in &self.levels[level] {
                let mut term = f.blocks()[blk].term.clone();
                term.for_each_arg_mut(|v| map(v, level));
                for bc in term.successors_mut() {
                    let to = next_level(&self.outer, level, bc.block);
                    if to < k {
                        bc.block = node[to][&bc.block];
                    }
                }
                b.set_terminator(node[level][&blk], term);
            }
        }
        for &blk in &self.top {
            for i in f.blocks()[blk].insts.clone() {
                b.inst_mut(i).kind.for_each_arg_mut(|v| map(v, k));
            }
            b.block_mut(blk).term.for_each_arg_mut(|v| map(v, k));
        }
        if !ok {
            return false;
        }
        let to = BlockCall::new(node[0][&self.header], start.header_args.clone());
        b.set_terminator(start.entry, Terminator::jump(to));
        let mut order = vec![start.entry];
        order.extend(self.top.iter().copied());
        for level in (0..k).rev() {
            order.extend(self.levels[level].iter().map(|blk| node[level][blk]));
        }
        b.set_layout(order);
        true
    }
}

/// The level after an edge into `to` from level `level`: `j` when `to` is
/// `O_j` with `j > level`.
fn next_level(outer: &[Block], level: usize, to: Block) -> usize {
    match outer.iter().position(|&o| o == to) {
        Some(j) if j + 1 > level => j + 1,
        _ => level,
    }
}
