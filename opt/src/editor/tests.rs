//! Unit tests of the mutation primitives: each runs with the checker on,
//! so every primitive is compared with a from-scratch recomputation of
//! dominators, loops, use lists and canonical form; the tests also check
//! the specific repairs.

use super::*;
use crate::canon::canonicalize;
use crate::ir::{parse_program, print_function, verify_program, FuncId, InstKind, Program};

fn program(text: &str) -> Program {
    let mut p = parse_program(text).unwrap_or_else(|e| panic!("parse: {e}"));
    for (_, f) in p.funcs.iter_mut() {
        canonicalize(f);
    }
    p
}

fn f0() -> FuncId {
    FuncId::from_u32(0)
}

/// Two nested loops; the inner body branches on a parameter `v1`.
const NESTED: &str = "
file 0 \"t.wdl\"
main fn0

fn fn0 \"f\"(bool, int) -> int {
block0(v0: bool, v1: int):
    v2: int = iconst 0
    v3: int = iconst 1
    jump block1(v2, v2)
block1(v4: int, v5: int):
    v6: bool = icmp lt v4, v1
    br v6, block2(v2, v5), block6
block2(v7: int, v8: int):
    v9: bool = icmp lt v7, v1
    br v9, block3, block5
block3:
    br v0, block4(v3), block7
block7:
    jump block4(v7)
block4(v10: int):
    v11: int = iadd v8, v10
    v12: int = iadd v7, v3
    jump block2(v12, v11)
block5:
    v13: int = iadd v4, v3
    jump block1(v13, v8)
block6:
    return v5
}
";

#[test]
fn maintained_analyses_match_scratch() {
    let mut p = program(NESTED);
    let f = &mut p.funcs[f0()];
    let mut ed = Editor::new(f);
    ed.check().unwrap();
    assert_eq!(ed.loops().len(), 2);
    let inner = ed.loops()[0];
    let outer = ed.loop_parent(inner).expect("nested");
    assert!(ed.loop_contains(outer, ed.header(inner)));
    assert_eq!(ed.loop_depth(inner), 1);
    let ph = ed.preheader(inner);
    assert!(ed.loop_contains(outer, ph) && !ed.loop_contains(inner, ph));
    // Dominance with stale and fresh numbers agree.
    let blocks = ed.blocks();
    let slow: Vec<bool> = blocks
        .iter()
        .flat_map(|&a| blocks.iter().map(move |&b| (a, b)))
        .map(|(a, b)| ed.dominates(a, b))
        .collect();
    ed.refresh_numbers();
    let fast: Vec<bool> = blocks
        .iter()
        .flat_map(|&a| blocks.iter().map(move |&b| (a, b)))
        .map(|(a, b)| ed.dominates(a, b))
        .collect();
    assert_eq!(slow, fast);
}

#[test]
fn fold_switch_kills_the_inner_loop() {
    let mut p = program(NESTED);
    let f = &mut p.funcs[f0()];
    let mut ed = Editor::new(f);
    let inner = ed.loops()[0];
    let h = ed.header(inner);
    // Make the inner loop's test always exit: the body and latch die.
    ed.fold_switch(h, 1);
    ed.check().unwrap();
    assert_eq!(ed.loops().len(), 1);
    assert!(ed.loop_headed_by(h).is_none());
    drop(ed);
    verify_program(&p).unwrap();
}

#[test]
fn fold_switch_backedge_kills_the_outer_loop() {
    let mut p = program(NESTED);
    let f = &mut p.funcs[f0()];
    let mut ed = Editor::new(f);
    let outer = *ed.loops().last().unwrap();
    let h = ed.header(outer);
    ed.fold_switch(h, 0); // always enter the body: the loop never exits
    ed.check().unwrap();
    drop(ed);
    verify_program(&p).unwrap();
}

/// A loop whose body has an early exit path: folding the branch that
/// leads back to the latch ejects the block from the loop.
const EJECT: &str = "
file 0 \"t.wdl\"
main fn0

fn fn0 \"f\"(bool, int) -> int {
block0(v0: bool, v1: int):
    v2: int = iconst 0
    v3: int = iconst 1
    jump block1(v2)
block1(v4: int):
    v5: bool = icmp lt v4, v1
    br v5, block2, block5(v4)
block2:
    v6: int = iadd v4, v3
    br v0, block3, block4
block3:
    v7: bool = icmp gt v6, v1
    br v7, block4, block5(v6)
block4:
    jump block1(v6)
block5(v8: int):
    return v8
}
";

#[test]
fn ejection_dedicates_exits_and_repairs_lcssa() {
    let mut p = program(EJECT);
    let f = &mut p.funcs[f0()];
    let mut ed = Editor::new(f);
    // Find block3 (the one testing v7): make it always leave the loop.
    let b3 = ed
        .blocks()
        .into_iter()
        .find(|&b| {
            ed.insts(b).iter().any(|&i| {
                matches!(
                    ed.inst(i).kind,
                    InstKind::Binary(crate::ir::BinaryOp::ICmp(crate::ir::Cmp::Gt), ..)
                )
            })
        })
        .unwrap();
    let l = ed.loops()[0];
    let n_before = ed.body(l).len();
    let exit_edge = ed
        .term(b3)
        .successors()
        .position(|c| !ed.loop_contains(l, c.block))
        .unwrap();
    ed.fold_switch(b3, exit_edge);
    ed.check().unwrap();
    assert!(ed.body(l).len() < n_before);
    assert!(!ed.loop_contains(l, b3), "{}", ed.func().name);
    drop(ed);
    verify_program(&p).unwrap();
}

#[test]
fn split_straighten_thread_keep_everything() {
    let mut p = program(NESTED);
    let f = &mut p.funcs[f0()];
    let mut ed = Editor::new(f);
    let inner = ed.loops()[0];
    let h = ed.header(inner);
    let latch = ed.latch(inner);
    let nb = ed.split_edge_set(h, &[latch]);
    assert_eq!(ed.latch(inner), nb);
    assert_eq!(ed.idom(nb), Some(latch));
    // The new latch is a forwarding block: straighten the old latch into it.
    assert!(ed.straighten(latch));
    ed.check().unwrap();
    drop(ed);
    verify_program(&p).unwrap();
}

#[test]
fn unswitch_makes_two_loops() {
    let mut p = program(NESTED);
    let f = &mut p.funcs[f0()];
    let mut ed = Editor::new(f);
    // The inner loop, then the outer one (the condition is invariant in both).
    assert_eq!(crate::passes::unswitch(&mut ed), 2);
    ed.check().unwrap();
    assert_eq!(ed.loops().len(), 4);
    drop(ed);
    verify_program(&p).unwrap();
}

#[test]
fn inline_splices_callee_and_loops() {
    let text = "
file 0 \"t.wdl\"
main fn1

fn fn0 \"sum\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 1
    jump block1(v1, v1)
block1(v3: int, v4: int):
    v5: bool = icmp lt v3, v0
    br v5, block2, block3
block2:
    v6: int = iadd v4, v3
    v7: int = iadd v3, v2
    jump block1(v7, v6)
block3:
    return v4
}

fn fn1 \".main\"() -> int {
block0:
    v0: int = iconst 5
    jump block1(v0)
block1(v1: int):
    v2: int = call fn0 \"sum\"(v1)
    v3: bool = icmp gt v2, v0
    br v3, block2, block3
block2:
    v4: int = iconst 1
    v5: int = isub v1, v4
    jump block1(v5)
block3:
    return v2
}
";
    let mut p = program(text);
    let callee = p.funcs[f0()].clone();
    let main = FuncId::from_u32(1);
    let f = &mut p.funcs[main];
    let mut ed = Editor::new(f);
    let call = ed
        .blocks()
        .into_iter()
        .flat_map(|b| ed.insts(b).to_vec())
        .find(|&i| matches!(ed.inst(i).kind, InstKind::Call(..)))
        .unwrap();
    assert!(ed.inline_call(call, &callee));
    ed.check().unwrap();
    // The callee's loop is nested in the caller's loop.
    assert_eq!(ed.loops().len(), 2);
    assert_eq!(ed.loop_depth(ed.loops()[0]), 1);
    drop(ed);
    verify_program(&p).unwrap();
    let text = print_function(&p, main);
    assert!(!text.contains("call"), "{text}");
}

#[test]
fn rebuild_mode_gives_canonical_results() {
    let mut p = program(NESTED);
    let f = &mut p.funcs[f0()];
    let mut ed = Editor::new(f);
    ed.set_mode(Mode::Rebuild);
    assert_eq!(crate::passes::unswitch(&mut ed), 2);
    crate::passes::if_simplify(&mut ed);
    crate::passes::straighten(&mut ed);
    ed.check().unwrap();
    drop(ed);
    verify_program(&p).unwrap();
}

#[test]
fn checker_names_the_primitive_that_broke_an_analysis() {
    let mut p = program(NESTED);
    let f = &mut p.funcs[f0()];
    let mut ed = Editor::new(f);
    ed.set_checking(true);
    let inner = ed.loops()[0];
    let h = ed.header(inner);
    // An edit that does not repair the dominator tree or loops: retarget
    // the header's exit edge to its body without any repair.
    let Terminator::Switch { cases, .. } = ed.term(h).clone() else {
        panic!("header ends in a branch")
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ed.raw_set_term(h, Terminator::jump(cases[0].1.clone()));
        ed.finish("broken_edit");
    }));
    let msg = result.expect_err("the checker must object");
    let text = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("broken_edit"), "{text}");
}

/// `k` copies of `v0 + v1` (`v2`..), each used once by a running sum.
fn copies(k: usize) -> String {
    let mut s = String::from(
        "file 0 \"t.wdl\"\nmain fn0\n\nfn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n    v1: int = iconst 1\n",
    );
    for j in 0..k {
        s.push_str(&format!("    v{}: int = iadd v0, v1\n", 2 + j));
    }
    let mut acc = 2;
    for j in 1..k {
        let next = 2 + k + j - 1;
        s.push_str(&format!("    v{next}: int = iadd v{acc}, v{}\n", 2 + j));
        acc = next;
    }
    s.push_str(&format!("    return v{acc}\n}}\n"));
    s
}

/// The batch primitives index a batch that is a large share of the
/// function densely and a small one by hashing: both agree with the
/// one-at-a-time primitives, and the checker finds every analysis repaired.
#[test]
fn batch_replacement_and_removal_agree_with_single_edits_at_every_batch_size() {
    let k = 64;
    for replaced in [1, 3, k - 1] {
        let value = |j: usize| Value::from_u32((2 + j) as u32);
        let pairs: Vec<(Value, Value)> = (1..=replaced).map(|j| (value(j), value(0))).collect();
        let insts = |ed: &Editor| -> Vec<Inst> {
            let b = ed.entry();
            ed.insts(b)[2..2 + replaced].to_vec()
        };
        let mut batch = program(&copies(k));
        let mut ed = Editor::new(&mut batch.funcs[f0()]);
        ed.set_checking(true);
        let gone = insts(&ed);
        ed.replace_all_uses_batch(&pairs);
        assert_eq!(ed.remove_insts(&gone), replaced);
        drop(ed);
        let mut single = program(&copies(k));
        let mut ed = Editor::new(&mut single.funcs[f0()]);
        ed.set_checking(true);
        let gone = insts(&ed);
        for &(old, new) in &pairs {
            ed.replace_all_uses(old, new);
        }
        for i in gone {
            assert!(ed.remove_inst(i));
        }
        drop(ed);
        assert_eq!(
            print_function(&batch, f0()),
            print_function(&single, f0()),
            "{replaced} replaced"
        );
        verify_program(&batch).unwrap();
    }
}

#[test]
fn inlining_a_one_block_callee_adds_no_block() {
    // `inc` is one block: its body replaces the call where it stands, so
    // the caller keeps its blocks and a callee inlined through many levels
    // (a chain of such calls) does not bring a block per level.
    let text = "
file 0 \"t.wdl\"
main fn1

fn fn0 \"inc\"(int) -> int {
block0(v0: int):
    v1: int = iconst 1
    v2: int = iadd v0, v1
    return v2
}

fn fn1 \".main\"(int) -> int {
block0(v0: int):
    v1: int = call fn0 \"inc\"(v0)
    v2: int = imul v1, v1
    v3: bool = icmp gt v2, v0
    br v3, block1, block2
block1:
    return v1
block2:
    return v2
}
";
    let mut p = program(text);
    let callee = p.funcs[f0()].clone();
    let main = FuncId::from_u32(1);
    let f = &mut p.funcs[main];
    let mut ed = Editor::new(f);
    let call = ed.insts(ed.entry())[0];
    assert!(ed.inline_call(call, &callee));
    ed.check().unwrap();
    assert_eq!(ed.blocks().len(), 3, "the call's block was split");
    assert!(ed.inst_block(call).is_none());
    drop(ed);
    verify_program(&p).unwrap();
    let text = print_function(&p, main);
    assert!(!text.contains("call"), "{text}");
    assert!(text.contains("iadd v0, v"), "{text}");
}

#[test]
fn preds_of_a_large_join_are_distinct_in_first_edge_order() {
    // block0 switches to 40 arms; arm k jumps to the join, and the switch
    // also reaches the join directly through duplicate cases, so the join
    // has repeated edges past the short-list threshold.
    let arms = 40;
    let mut text = String::from("fn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n    switch v0 [");
    let cases: Vec<String> = (0..arms)
        .map(|k| format!("{k}: block{}", k + 2))
        .chain((arms..arms + 3).map(|k| format!("{k}: block1")))
        .collect();
    text += &cases.join(", ");
    text += "] default block1\nblock1:\n    return v0\n";
    for k in 0..arms {
        text += &format!("block{}:\n    jump block1\n", k + 2);
    }
    text += "}\n";
    let mut p = program(&text);
    let f = &mut p.funcs[f0()];
    let ed = Editor::new(f);
    let join = Block::from_u32(1);
    let preds = ed.preds(join);
    let mut distinct = preds.to_vec();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), preds.len(), "{preds:?}");
    assert_eq!(preds.len(), arms + 1);
    assert!(ed.has_several_preds(join));
    assert!(!ed.has_several_preds(Block::from_u32(2)));
    assert!(!ed.has_several_preds(ed.entry()));
    // First-edge order: the switch block comes first, as its edges do.
    assert_eq!(preds[0], ed.entry());
}
