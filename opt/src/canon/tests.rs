//! Canonicalization tests on loop shapes written in the IR text format.

use super::*;
use crate::analysis::loops::LoopForest;
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{parse_program, print_program, verify_program, Block, FuncId, InstKind, Program};

/// Parses `text` (one function), canonicalizes it and checks the result
/// with [`check_canonical`] and the verifier. Returns the program.
fn canon(text: &str) -> Program {
    let mut p = parse_program(text).unwrap_or_else(|e| panic!("parse: {e}\n{text}"));
    verify_program(&p).unwrap_or_else(|e| panic!("input does not verify: {e:?}"));
    canonicalize_program(&mut p);
    let printed = print_program(&p);
    for (_, f) in p.funcs.iter() {
        check_canonical(f).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    }
    verify_program(&p).unwrap_or_else(|e| panic!("verifier: {e:?}\n{printed}"));
    // Canonicalizing again changes nothing.
    let mut again = p.clone();
    canonicalize_program(&mut again);
    assert_eq!(print_program(&again), printed, "not idempotent");
    p
}

fn forest(p: &Program) -> (LoopForest, ControlFlowGraph) {
    let f = &p.funcs[FuncId::from_u32(0)];
    let cfg = ControlFlowGraph::compute(f);
    let dom = DomTree::compute(f, &cfg);
    (LoopForest::compute(f, &cfg, &dom), cfg)
}

fn not_canonical(text: &str) -> String {
    let p = parse_program(text).unwrap();
    check_canonical(&p.funcs[FuncId::from_u32(0)]).unwrap_err()
}

/// A `while` loop with two latches (a `continue` and the fall-through), a
/// `break` and a value of the header used after the loop.
const MULTI_LATCH: &str = "
fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1)
block1(v2: int):
    v3: bool = icmp lt v2, v0
    br v3, block2, block5
block2:
    v4: int = iconst 1
    v5: int = iadd v2, v4
    v6: bool = icmp eq v5, v0
    br v6, block3, block4
block3:
    jump block1(v5)
block4:
    v7: bool = icmp gt v5, v4
    br v7, block5, block1(v5)
block5:
    return v2
}
";

#[test]
fn multiple_latches_and_live_out() {
    assert!(not_canonical(MULTI_LATCH).contains("latches"));
    let p = canon(MULTI_LATCH);
    let (lf, cfg) = forest(&p);
    assert_eq!(lf.len(), 1);
    let l = lf.loops().next().unwrap();
    assert_eq!(lf.latches(l).len(), 1);
    // The exit block now receives the header's value as a parameter.
    let f = &p.funcs[FuncId::from_u32(0)];
    let exit = lf.exits(l)[0];
    assert_eq!(f.blocks[exit].params.len(), 1);
    assert_eq!(cfg.preds(exit).len(), 2);
}

/// The entry block is a loop header (self loop), and its value is used after
/// the loop.
const ENTRY_HEADER: &str = "
fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 1
    v2: int = isub v0, v1
    v3: bool = icmp gt v2, v1
    br v3, block0(v2), block1
block1:
    return v2
}
";

#[test]
fn entry_header_gets_new_entry() {
    assert!(not_canonical(ENTRY_HEADER).contains("entering blocks"));
    let p = canon(ENTRY_HEADER);
    let f = &p.funcs[FuncId::from_u32(0)];
    let (lf, cfg) = forest(&p);
    assert!(cfg.preds(f.entry()).is_empty());
    assert_eq!(f.blocks[f.entry()].params.len(), 1);
    let l = lf.loops().next().unwrap();
    assert_ne!(lf.header(l), f.entry());
}

/// Nested loops: the inner loop exits to a block also reached from inside
/// the outer loop only (undedicated exit), returns from inside both loops,
/// and a value of the inner header is used in the outer loop.
const NESTED: &str = "
fn fn0 \"g\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1, v1)
block1(v2: int, v3: int):
    v4: bool = icmp lt v2, v0
    br v4, block2(v1), block6
block2(v5: int):
    v13: int = imul v5, v5
    v6: bool = icmp lt v5, v2
    br v6, block3, block4
block3:
    v7: int = iadd v3, v5
    v8: int = iconst 1
    v9: int = iadd v5, v8
    v10: bool = icmp gt v7, v0
    br v10, block7, block8
block8:
    v14: bool = icmp eq v9, v0
    br v14, block5, block2(v9)
block4:
    jump block5
block5:
    v11: int = iconst 1
    v12: int = iadd v2, v11
    v15: int = iadd v3, v13
    jump block1(v12, v15)
block6:
    return v3
block7:
    return v13
}
";

#[test]
fn nested_loops_with_shared_exit_and_return() {
    let err = not_canonical(NESTED);
    assert!(
        err.contains("not dedicated")
            || err.contains("LCSSA")
            || err.contains("preheader")
            || err.contains("entering"),
        "{err}"
    );
    let p = canon(NESTED);
    let (lf, _) = forest(&p);
    assert_eq!(lf.len(), 2);
}

/// A loop with two exits dominated by the definition, both leading to one
/// use after a join: the join gets a parameter fed by the two exit
/// parameters (Fritz Fig. 7.21).
const TWO_EXITS: &str = "
fn fn0 \"h\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1)
block1(v2: int):
    v3: int = iconst 1
    v4: int = iadd v2, v3
    v5: bool = icmp gt v4, v0
    br v5, block2, block3
block3:
    v6: bool = icmp eq v4, v3
    br v6, block4, block1(v4)
block2:
    jump block5
block4:
    jump block5
block5:
    v7: int = imul v4, v4
    return v7
}
";

#[test]
fn two_exits_join_after_loop() {
    let p = canon(TWO_EXITS);
    let f = &p.funcs[FuncId::from_u32(0)];
    // Both exits and the join got one parameter each.
    let with_params = f
        .layout
        .iter()
        .filter(|&&b| b != f.entry() && !f.blocks[b].params.is_empty())
        .count();
    assert_eq!(with_params, 4, "{}", print_program(&p));
    // The use after the loop reads the join parameter.
    let join = f
        .layout
        .iter()
        .copied()
        .find(|&b| {
            f.blocks[b].insts.iter().any(|&i| {
                matches!(
                    f.insts[i].kind,
                    InstKind::Binary(crate::ir::BinaryOp::IMul, ..)
                )
            })
        })
        .unwrap();
    let param = f.blocks[join].params[0];
    let mul = f.blocks[join].insts[0];
    assert_eq!(
        f.insts[mul].kind,
        InstKind::Binary(crate::ir::BinaryOp::IMul, param, param)
    );
}

/// An exit that leads to no use of the value gets no parameter.
#[test]
fn exit_without_use_gets_no_param() {
    let text = "
fn fn0 \"k\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1)
block1(v2: int):
    v3: int = iconst 1
    v4: int = iadd v2, v3
    v5: bool = icmp gt v4, v0
    br v5, block2, block3
block3:
    v6: bool = icmp eq v4, v3
    br v6, block4, block1(v4)
block2:
    return v4
block4:
    return v1
}
";
    let p = canon(text);
    let f = &p.funcs[FuncId::from_u32(0)];
    let param_blocks: Vec<Block> = f
        .layout
        .iter()
        .copied()
        .filter(|&b| b != f.entry() && !f.blocks[b].params.is_empty())
        .collect();
    // The header and the one exit that returns the value.
    assert_eq!(param_blocks.len(), 2, "{}", print_program(&p));
}

#[test]
fn unreachable_blocks_are_removed() {
    let text = "
fn fn0 \"u\"() -> int {
block0:
    v0: int = iconst 1
    return v0
block1:
    jump block1
}
";
    let mut p = parse_program(text).unwrap();
    let f = &mut p.funcs[FuncId::from_u32(0)];
    assert!(check_canonical(f).unwrap_err().contains("unreachable"));
    canonicalize(f);
    assert_eq!(f.layout.len(), 1);
    check_canonical(f).unwrap();
}

#[test]
fn switch_with_two_edges_to_header_and_exit() {
    // The latch reaches the header through two switch cases, and the loop
    // exit is also the target of an edge from before the loop.
    let text = "
fn fn0 \"s\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v9: bool = icmp eq v0, v1
    br v9, block3(v1), block1(v1)
block1(v2: int):
    v3: int = iconst 1
    v4: int = iadd v2, v3
    switch v4 [1: block1(v4), 2: block1(v3), 3: block3(v4)] default block2
block2:
    jump block3(v2)
block3(v5: int):
    return v5
}
";
    let p = canon(text);
    let (lf, _) = forest(&p);
    assert_eq!(lf.len(), 1);
}
