//! On-stack replacement entries: a function that starts at a loop header.
//!
//! A loop that runs hot on the interpreter (a program's top-level loop, a
//! kernel called once, the inner loop of a nest whose outer loop turns a
//! few times) continues in compiled code through an *OSR entry*: a new
//! function made from the original, whose entry block takes the loop's live
//! state as parameters and jumps to the loop header. The state is
//! - the header's block parameters (the loop-carried values: in Waddle IR
//!   they replace φ nodes, Fritz ch. 3), then
//! - every other value the code from the header on uses but defines
//!   outside it (values computed before the loop: array and string
//!   references, bounds, accumulators the loop only reads), then
//! - for a loop nested in other loops, the values of the enclosing loops'
//!   blocks above the header (blocks that dominate it and that the code
//!   from the header reaches again) that are live at the header: the outer
//!   induction variables, a row reference taken before the inner loop.
//!
//! Constants among these are not state: the entry block recomputes them,
//! so the optimizer still sees them as constants.
//!
//! The entry function keeps only the blocks reachable from the header (the
//! loop and everything after it, enclosing loops included); the rest of
//! the original is dropped. For an outermost loop every value the kept
//! code uses is then either defined in it or state, and each definition
//! still dominates its uses (the new entry block dominates everything). In
//! a nested loop a value of the third kind has two definitions in the
//! entry function: the entry block's parameter, and its own instruction
//! (or block parameter) in the enclosing loop, which the next outer
//! iteration runs again. Its uses are rewritten to the definition reaching
//! them, with new block parameters where the two meet (the header first):
//! SSA reconstruction in the shape of Braun et al.'s `readVariable`
//! (Fritz §7.1, as in `crate::editor`'s `rewrite uses`). The result is
//! verified SSA; its loop structure changes (the enclosing loops are now
//! entered at the header), so it is not canonical form, which the code
//! generators do not need.
//!
//! That reconstructed form is the fallback: a nested entry is normally
//! *peeled* instead ([`peel`]): the rest of the current iterations of the
//! enclosing loops runs in copies of their code, where the outer values
//! are the entry's parameters, and then the original code from the
//! outermost enclosing header on, where they are their own definitions, so
//! no inner loop carries outer values as block parameters.

use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;

use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{
    Block, BlockCall, Function, FunctionBuilder, Inst, InstKind, Terminator, Type, Value, ValueDef,
};

mod peel;

/// An OSR entry of a function at one loop header (see the module docs).
#[derive(Clone, Debug)]
pub struct OsrEntry {
    /// The entry function: its parameters are [`OsrEntry::state`]'s words,
    /// in order; it returns what the original returns.
    pub func: Function,
    /// The values of the original function whose words, read from the
    /// running frame at the header, are the entry's arguments.
    pub state: Vec<Value>,
}

/// Blocks reachable from `from` (inclusive), not going through `stop`.
fn reachable(f: &Function, from: Block, stop: Option<Block>) -> SecondaryMap<Block, bool> {
    let mut seen: SecondaryMap<Block, bool> = SecondaryMap::with_capacity(f.blocks().len());
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(b) = stack.pop() {
        for s in f.blocks()[b].term.successors() {
            if !seen[s.block] && Some(s.block) != stop {
                seen[s.block] = true;
                stack.push(s.block);
            }
        }
    }
    seen
}

/// Whether `header` is a loop header where an OSR entry is sound: a
/// reachable block other than the entry with a back edge into it (a
/// predecessor it dominates) and an edge from outside the loop.
pub fn is_osr_point(f: &Function, header: Block) -> bool {
    if f.is_declaration() || !f.layout().contains(&header) || header == f.entry() {
        return false;
    }
    let cfg = ControlFlowGraph::compute(f);
    let dom = DomTree::compute(f, &cfg);
    is_header(&cfg, &dom, header)
}

fn is_header(cfg: &ControlFlowGraph, dom: &DomTree, header: Block) -> bool {
    let preds = cfg.preds(header);
    dom.is_reachable(header)
        && preds.iter().any(|&p| dom.dominates(header, p))
        && preds.iter().any(|&p| !dom.dominates(header, p))
}

/// Whether `kind` is a constant the entry block recomputes.
fn is_const(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::IConst(_) | InstKind::FConst(_) | InstKind::BConst(_) | InstKind::SConst(_)
    )
}

/// The OSR entry of `f` at loop header `header`, or `None` where an entry
/// is not sound (see the module docs).
pub fn osr_entry(f: &Function, header: Block) -> Option<OsrEntry> {
    if f.is_declaration() || !f.layout().contains(&header) || header == f.entry() {
        return None;
    }
    let cfg = ControlFlowGraph::compute(f);
    let dom = DomTree::compute(f, &cfg);
    if !is_header(&cfg, &dom, header) {
        return None;
    }
    let kept = reachable(f, header, None);
    let layout: Vec<Block> = f.layout().iter().copied().filter(|&b| kept[b]).collect();
    let mut inst_block: SecondaryMap<Inst, Option<Block>> = SecondaryMap::new();
    for &b in f.layout() {
        for &i in &f.blocks()[b].insts {
            inst_block[i] = Some(b);
        }
    }
    let def_block = |v: Value| -> Option<Block> {
        match f.values()[v].def {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Inst(i) => inst_block[i],
        }
    };
    // Values used by kept code but defined outside it, and the blocks
    // where each value is used (for liveness of the nested kind).
    let mut live_in: Vec<Value> = Vec::new();
    let mut seen: SecondaryMap<Value, bool> = SecondaryMap::with_capacity(f.values().len());
    let mut used_in: FxHashMap<Value, Vec<Block>> = FxHashMap::default();
    for &b in &layout {
        let bd = &f.blocks()[b];
        let mut note = |v: Value| {
            let users = used_in.entry(v).or_default();
            if users.last() != Some(&b) {
                users.push(b);
            }
            if !seen[v] && def_block(v).is_none_or(|d| !kept[d]) {
                seen[v] = true;
                live_in.push(v);
            }
        };
        for &i in &bd.insts {
            f.insts()[i].kind.for_each_arg(&mut note);
        }
        bd.term.for_each_arg(&mut note);
    }
    // The nested kind: values of kept blocks strictly dominating the
    // header that some path from the header uses before their block
    // runs again.
    let mut nested: Vec<(Value, Block)> = Vec::new();
    let mut d = dom.idom(header);
    while let Some(db) = d {
        if kept[db] {
            let before = reachable(f, header, Some(db));
            let mut defs: Vec<Value> = f.blocks()[db].params.clone();
            defs.extend(
                f.blocks()[db]
                    .insts
                    .iter()
                    .filter_map(|&i| f.inst(i).result),
            );
            for v in defs {
                let live = used_in
                    .get(&v)
                    .is_some_and(|bs| bs.iter().any(|&u| u != db && before[u]));
                if live {
                    nested.push((v, db));
                }
            }
        }
        d = dom.idom(db);
    }
    // Nested loops: the peeled entry (`peel`), unless it does not apply.
    if let Some(plan) = peel::Plan::new(f, &cfg, &dom, header, &nested) {
        let mut g = f.clone();
        let mut b = FunctionBuilder::new(&mut g);
        let start = Start::new(&mut b, f, header, &live_in, &nested);
        if plan.build(&mut b, f, &start) {
            b.sig_mut().params = start.state.iter().map(|&v| f.value_type(v)).collect();
            return Some(OsrEntry {
                func: g,
                state: start.state,
            });
        }
    }
    let mut g = f.clone();
    let mut b = FunctionBuilder::new(&mut g);
    let Start {
        entry,
        header_args,
        state,
        subst,
        fresh,
    } = Start::new(&mut b, f, header, &live_in, &nested);
    b.set_terminator(entry, Terminator::jump(BlockCall::new(header, header_args)));
    for &blk in &layout {
        let insts = b.func.blocks[blk].insts.clone();
        for i in insts {
            b.inst_mut(i).kind.for_each_arg_mut(|v| {
                if let Some(n) = subst[*v] {
                    *v = n;
                }
            });
        }
        b.block_mut(blk).term.for_each_arg_mut(|v| {
            if let Some(n) = subst[*v] {
                *v = n;
            }
        });
    }
    let mut order = vec![entry];
    order.extend(layout.iter().copied());
    b.set_layout(order);
    let params: Vec<Type> = state.iter().map(|&v| f.value_type(v)).collect();
    b.sig_mut().params = params;
    // SSA reconstruction of the nested kind.
    let mut preds: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    preds.entry(header).or_default().push(entry);
    for &p in &layout {
        for s in f.blocks()[p].term.successors() {
            let ps = preds.entry(s.block).or_default();
            if !ps.contains(&p) {
                ps.push(p);
            }
        }
    }
    for (v, db, new) in fresh {
        let mut r = Repair {
            orig: v,
            def: db,
            entry,
            new,
            ty: f.value_type(v),
            preds: &preds,
            at_start: FxHashMap::default(),
        };
        // The replacements first (they add block parameters and edge
        // arguments), then the rewrite of the original uses.
        let mut inst_uses: Vec<(Inst, Value)> = Vec::new();
        let mut term_uses: Vec<(Block, Value)> = Vec::new();
        for &blk in &layout {
            let uses = |k: &InstKind| {
                let mut u = false;
                k.for_each_arg(|x| u |= x == v);
                u
            };
            let insts = b.func.blocks[blk].insts.clone();
            if blk != db {
                for i in insts {
                    if uses(&b.func.insts[i].kind) {
                        let to = r.at_start(&mut b, blk);
                        inst_uses.push((i, to));
                    }
                }
            }
            let mut term_use = false;
            b.func.blocks[blk].term.for_each_arg(|x| term_use |= x == v);
            if term_use {
                let to = r.at_end(&mut b, blk);
                term_uses.push((blk, to));
            }
        }
        for (i, to) in inst_uses {
            b.inst_mut(i).kind.for_each_arg_mut(|x| {
                if *x == v {
                    *x = to;
                }
            });
        }
        for (blk, to) in term_uses {
            b.block_mut(blk).term.for_each_arg_mut(|x| {
                if *x == v {
                    *x = to;
                }
            });
        }
    }
    Some(OsrEntry { func: g, state })
}

/// The entry block of an OSR entry under construction, shared by the
/// peeled and the reconstructed forms: its parameters (the state) and the
/// constants it recomputes.
struct Start {
    /// The new entry block.
    entry: Block,
    /// Its parameters that stand for the header's block parameters.
    header_args: Vec<Value>,
    /// The original values the entry's parameters stand for, in order.
    state: Vec<Value>,
    /// Values defined before the loop nest: their parameter or recomputed
    /// constant in the entry block.
    subst: SecondaryMap<Value, Option<Value>>,
    /// Values of the nested kind with their defining block and their
    /// parameter or recomputed constant in the entry block.
    fresh: Vec<(Value, Block, Value)>,
}

impl Start {
    /// Creates the entry block of `f`'s entry at `header` with its
    /// parameters: the header's, then the non-constant `live_in` values,
    /// then the non-constant `nested` ones (constants are recomputed).
    fn new(
        b: &mut FunctionBuilder<'_>,
        f: &Function,
        header: Block,
        live_in: &[Value],
        nested: &[(Value, Block)],
    ) -> Start {
        let mut state: Vec<Value> = f.blocks()[header].params.clone();
        let mut subst: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
        let entry = b.create_block();
        let mut header_args = Vec::new();
        for &p in &f.blocks()[header].params {
            header_args.push(b.append_block_param(entry, f.value_type(p)));
        }
        let recompute = |b: &mut FunctionBuilder<'_>, v: Value| -> Option<Value> {
            let ValueDef::Inst(i) = f.values()[v].def else {
                return None;
            };
            let data = f.inst(i);
            is_const(&data.kind).then(|| b.ins(entry, data.kind.clone(), f.value_type(v), data.loc))
        };
        for &v in live_in {
            subst[v] = recompute(b, v);
        }
        for &v in live_in {
            if subst[v].is_none() {
                subst[v] = Some(b.append_block_param(entry, f.value_type(v)));
                state.push(v);
            }
        }
        let mut fresh: Vec<(Value, Block, Value)> = Vec::new();
        for &(v, db) in nested {
            let new = match recompute(b, v) {
                Some(c) => c,
                None => {
                    state.push(v);
                    b.append_block_param(entry, f.value_type(v))
                }
            };
            fresh.push((v, db, new));
        }
        Start {
            entry,
            header_args,
            state,
            subst,
            fresh,
        }
    }
}

/// SSA reconstruction of one value of the nested kind (see the module
/// docs): `orig`, defined in block `def`, and `new`, its definition in the
/// entry block.
struct Repair<'a> {
    orig: Value,
    def: Block,
    entry: Block,
    new: Value,
    ty: Type,
    /// Predecessors of every kept block in the entry function.
    preds: &'a FxHashMap<Block, Vec<Block>>,
    /// The definition reaching the start of a block (memo; a block
    /// parameter is recorded before its arguments are looked up, so
    /// cycles end).
    at_start: FxHashMap<Block, Value>,
}

impl Repair<'_> {
    /// The definition reaching the end of `blk`.
    fn at_end(&mut self, b: &mut FunctionBuilder<'_>, blk: Block) -> Value {
        if blk == self.entry {
            self.new
        } else if blk == self.def {
            self.orig
        } else {
            self.at_start(b, blk)
        }
    }

    /// The definition reaching the start of `blk` (not the entry block).
    fn at_start(&mut self, b: &mut FunctionBuilder<'_>, blk: Block) -> Value {
        if let Some(&v) = self.at_start.get(&blk) {
            return v;
        }
        let preds = self.preds.get(&blk).cloned().unwrap_or_default();
        if let [p] = preds[..] {
            let v = self.at_end(b, p);
            self.at_start.insert(blk, v);
            return v;
        }
        let param = b.append_block_param(blk, self.ty);
        self.at_start.insert(blk, param);
        for p in preds {
            let arg = self.at_end(b, p);
            for bc in b.block_mut(p).term.successors_mut() {
                if bc.block == blk {
                    bc.args.push(arg);
                }
            }
        }
        param
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_function, verify_function_as, FuncId, Program};
    use cranelift_entity::EntityRef;

    fn verify(f: &Function) {
        verify_function_as(&Program::default(), FuncId::new(0), f).unwrap();
    }

    const NESTED: &str = "fn fn0 \"f\"([int], int, int) -> int @1:4 {
block0(v0: [int], v1: int, v2: int):
    v3: int = iconst 0
    v4: int = iconst 0
    v5: int = array_len v0
    jump block1(v4, v3)
block1(v6: int, v24: int):
    v7: bool = icmp lt v6, v5
    br v7, block2, block4
block2:
    v8: int = iconst 0
    v9: int = iconst 3
    jump block5(v8, v24)
block5(v10: int, v12: int):
    v11: bool = icmp lt v10, v9
    br v11, block6, block8
block6:
    bounds_check v0, v6 @5:19
    v15: int = array_get v0, v6
    v18: int = imul v1, v2
    v19: int = imul v15, v18
    v20: int = iadd v19, v10
    v21: int = iadd v12, v20
    jump block7
block7:
    v22: int = iconst 1
    v23: int = iadd v10, v22
    jump block5(v23, v21)
block8:
    jump block3
block3:
    v28: int = iconst 1
    v29: int = iadd v6, v28
    jump block1(v29, v12)
block4:
    return v24
}
";

    #[test]
    fn outer_loop_entry_takes_header_params_then_live_ins() {
        let f = parse_function(NESTED).unwrap();
        let e = osr_entry(&f, Block::new(1)).expect("outermost loop");
        verify(&e.func);
        let names: Vec<usize> = e.state.iter().map(|v| v.index()).collect();
        // v6, v24 (header parameters), then v5, v0, v1, v2 by first use.
        assert_eq!(names, vec![6, 24, 5, 0, 1, 2]);
        assert_eq!(e.func.sig.params.len(), 6);
        assert_eq!(e.func.sig.ret, f.sig.ret);
        // The code before the loop is gone.
        assert!(!e.func.layout().contains(&Block::new(0)));
    }

    #[test]
    fn no_entry_at_the_entry_block_or_at_non_headers() {
        let f = parse_function(NESTED).unwrap();
        assert!(osr_entry(&f, Block::new(0)).is_none(), "entry block");
        assert!(osr_entry(&f, Block::new(6)).is_none(), "not a header");
        assert!(osr_entry(&f, Block::new(4)).is_none(), "after the loops");
        assert!(is_osr_point(&f, Block::new(1)));
        assert!(is_osr_point(&f, Block::new(5)));
        assert!(!is_osr_point(&f, Block::new(7)), "a latch");
    }

    #[test]
    fn inner_loop_entry_also_takes_the_outer_values_live_at_its_header() {
        let f = parse_function(NESTED).unwrap();
        let e = osr_entry(&f, Block::new(5)).expect("nested loop");
        verify(&e.func);
        let names: Vec<usize> = e.state.iter().map(|v| v.index()).collect();
        // v10, v12 (header parameters), v5, v0, v1, v2 (defined before
        // the loops), then v6 (the outer induction variable). v9 (a
        // constant of the outer body) is recomputed; v24 is dead while
        // the inner loop runs (v12 carries it).
        assert_eq!(names, vec![10, 12, 5, 0, 1, 2, 6]);
        assert_eq!(e.func.sig.params.len(), 7);
    }

    /// `sum over i < n, j < m of 7 i + j`, a nest whose outer body
    /// defines a value (`t = 7 i`) the inner loop reads.
    const SUM: &str = "fn fn0 \"g\"(int, int) -> int @1:1 {
block0(v0: int, v1: int):
    v2: int = iconst 0
    jump block1(v2, v2)
block1(v3: int, v4: int):
    v5: bool = icmp lt v3, v0
    br v5, block2, block6
block2:
    v6: int = iconst 7
    v7: int = imul v3, v6
    v8: int = iconst 0
    jump block3(v8, v4)
block3(v9: int, v10: int):
    v11: bool = icmp lt v9, v1
    br v11, block4, block5
block4:
    v12: int = iadd v10, v7
    v13: int = iadd v12, v9
    v14: int = iconst 1
    v15: int = iadd v9, v14
    jump block3(v15, v13)
block5:
    v16: int = iconst 1
    v17: int = iadd v3, v16
    jump block1(v17, v10)
block6:
    return v4
}
";

    /// Runs `f` and its entry at `header` with the frame values `frame`
    /// (by value index) on the interpreter; both results.
    fn run_both(f: &Function, header: Block, args: &[i64], frame: &[(usize, i64)]) -> (i64, i64) {
        use crate::interp::Interpreter;
        use crate::validate::fold::PureHost;
        let e = osr_entry(f, header).expect("an entry");
        verify(&e.func);
        let mut p = Program::default();
        let orig = p.funcs.push(f.clone());
        let entry = p.funcs.push(e.func.clone());
        let words: Vec<u64> = e
            .state
            .iter()
            .map(|v| {
                let (_, w) = frame
                    .iter()
                    .find(|(i, _)| *i == v.index())
                    .expect("state value");
                *w as u64
            })
            .collect();
        let mut host = PureHost;
        let interp = Interpreter::new(&p, &mut host);
        let args: Vec<u64> = args.iter().map(|&a| a as u64).collect();
        let a = interp.call(&mut host, orig, &args).unwrap() as i64;
        let b = interp.call(&mut host, entry, &words).unwrap() as i64;
        (a, b)
    }

    #[test]
    fn nested_entry_continues_the_computation() {
        let f = parse_function(SUM).unwrap();
        // At the inner header with i = 2, j = 1: the sum so far is
        // 6 (i = 0) + 34 (i = 1) + 14 (i = 2, j = 0) = 54, t = 14.
        let frame = [(9, 1), (10, 54), (0, 5), (1, 4), (7, 14), (3, 2)];
        let e = osr_entry(&f, Block::new(3)).unwrap();
        let names: Vec<usize> = e.state.iter().map(|v| v.index()).collect();
        assert_eq!(names, vec![9, 10, 0, 1, 7, 3]);
        assert_eq!(run_both(&f, Block::new(3), &[5, 4], &frame), (310, 310));
        // At the inner header with i = 4, j = 4 (the last inner exit).
        let frame = [(9, 4), (10, 310), (0, 5), (1, 4), (7, 28), (3, 4)];
        assert_eq!(run_both(&f, Block::new(3), &[5, 4], &frame), (310, 310));
        // The outer header: i = 3 with the sum of i < 3.
        let e = osr_entry(&f, Block::new(1)).unwrap();
        let names: Vec<usize> = e.state.iter().map(|v| v.index()).collect();
        assert_eq!(names, vec![3, 4, 0, 1]);
        let frame = [(3, 3), (4, 6 + 34 + 62), (0, 5), (1, 4)];
        let (a, b) = run_both(&f, Block::new(1), &[5, 4], &frame);
        assert_eq!((a, b), (310, 310));
    }

    /// `sum over i, j, l < n of 100 i + 10 j + l`: a nest of depth 2
    /// whose outer bodies define values (`t = 100 i`, `u = t + 10 j`) the
    /// inner loops read.
    const DEPTH2: &str = "fn fn0 \"h\"(int) -> int @1:1 {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1, v1)
block1(v2: int, v3: int):
    v4: bool = icmp lt v2, v0
    br v4, block2, block9
block2:
    v5: int = iconst 100
    v6: int = imul v2, v5
    v7: int = iconst 0
    jump block3(v7, v3)
block3(v8: int, v9: int):
    v10: bool = icmp lt v8, v0
    br v10, block4, block8
block4:
    v11: int = iconst 10
    v12: int = imul v8, v11
    v13: int = iadd v6, v12
    v14: int = iconst 0
    jump block5(v14, v9)
block5(v15: int, v16: int):
    v17: bool = icmp lt v15, v0
    br v17, block6, block7
block6:
    v18: int = iadd v13, v15
    v19: int = iadd v16, v18
    v20: int = iconst 1
    v21: int = iadd v15, v20
    jump block5(v21, v19)
block7:
    v22: int = iconst 1
    v23: int = iadd v8, v22
    jump block3(v23, v16)
block8:
    v24: int = iconst 1
    v25: int = iadd v2, v24
    jump block1(v25, v9)
block9:
    return v3
}
";

    /// The most parameters any block of `f` other than the entry has.
    fn max_params(f: &Function) -> usize {
        (f.layout().iter().skip(1))
            .map(|&b| f.blocks()[b].params.len())
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn a_depth_two_entry_is_peeled_and_continues_the_computation() {
        let f = parse_function(DEPTH2).unwrap();
        let e = osr_entry(&f, Block::new(5)).unwrap();
        let names: Vec<usize> = e.state.iter().map(|v| v.index()).collect();
        assert_eq!(names, vec![15, 16, 0, 13, 8, 6, 2]);
        // Peeled: the outer values are not carried around the inner
        // loops (no block gets a parameter the original lacks), and the
        // inner loop has a copy per level.
        assert_eq!(max_params(&e.func), max_params(&f));
        assert!(e.func.layout().len() > f.layout().len());
        // n = 3: the whole sum is 2997. At l = 1 of (i, j) = (1, 2) the
        // sum so far is 99 + 303 + 333 + 120 = 855.
        let frame = [
            (15, 1),
            (16, 855),
            (0, 3),
            (13, 120),
            (8, 2),
            (6, 100),
            (2, 1),
        ];
        assert_eq!(run_both(&f, Block::new(5), &[3], &frame), (2997, 2997));
        let frame = [(15, 0), (16, 0), (0, 3), (13, 0), (8, 0), (6, 0), (2, 0)];
        assert_eq!(run_both(&f, Block::new(5), &[3], &frame), (2997, 2997));
        let frame = [
            (15, 2),
            (16, 2775),
            (0, 3),
            (13, 220),
            (8, 2),
            (6, 200),
            (2, 2),
        ];
        assert_eq!(run_both(&f, Block::new(5), &[3], &frame), (2997, 2997));
        // The middle header: (i, j) = (1, 1), sum so far 99 + 303.
        let e = osr_entry(&f, Block::new(3)).unwrap();
        let names: Vec<usize> = e.state.iter().map(|v| v.index()).collect();
        assert_eq!(names, vec![8, 9, 0, 6, 2]);
        assert_eq!(max_params(&e.func), max_params(&f));
        let frame = [(8, 1), (9, 402), (0, 3), (6, 100), (2, 1)];
        assert_eq!(run_both(&f, Block::new(3), &[3], &frame), (2997, 2997));
    }

    #[test]
    fn a_latch_laid_out_before_its_header_gets_the_reconstructed_entry() {
        // SUM with the outer latch (block5) laid out before the outer
        // header: peeling would turn that forward edge into a backward
        // one (fuel is charged on backward edges), so the entry carries
        // the outer values through new block parameters instead.
        let (head, rest) = SUM.split_once("\nblock1(").unwrap();
        let (outer, latch) = rest.split_once("\nblock5:").unwrap();
        let (latch, tail) = latch.split_once("\nblock6:").unwrap();
        let text = format!("{head}\nblock5:{latch}\nblock1({outer}\nblock6:{tail}");
        let f = parse_function(&text).unwrap();
        let e = osr_entry(&f, Block::new(3)).unwrap();
        assert!(max_params(&e.func) > max_params(&f));
        let frame = [(9, 1), (10, 54), (0, 5), (1, 4), (7, 14), (3, 2)];
        assert_eq!(run_both(&f, Block::new(3), &[5, 4], &frame), (310, 310));
    }

    #[test]
    fn constants_are_recomputed_not_transferred() {
        let text = "fn fn0 \"g\"(int) -> int @1:1 {
block0(v0: int):
    v1: int = iconst 7
    v2: int = iconst 0
    jump block1(v2)
block1(v3: int):
    v4: bool = icmp lt v3, v0
    br v4, block2, block3
block2:
    v5: int = iadd v3, v1
    jump block1(v5)
block3:
    return v3
}
";
        let f = parse_function(text).unwrap();
        let e = osr_entry(&f, Block::new(1)).unwrap();
        verify(&e.func);
        let names: Vec<usize> = e.state.iter().map(|v| v.index()).collect();
        assert_eq!(names, vec![3, 0]);
    }
}
