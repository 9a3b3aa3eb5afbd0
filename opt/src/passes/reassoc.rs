//! Constant reassociation: an integer `+` or `-` of a constant whose other
//! operand is itself `x + k1` or `x - k1` becomes one operation on `x`:
//! `(x + 1) + 1` becomes `x + 2`, `(x - 3) + 1` becomes `x - 2`.
//!
//! `int` arithmetic wraps (two's complement), and wrapping addition is
//! associative and commutative, so the rewrite is exact for every `x`; the
//! combined constant is computed with the same wrapping addition. Only a
//! link that nothing else reads is folded away (dead code elimination then
//! removes it), so every rewrite saves an instruction and a value another
//! instruction shares keeps its shape.
//!
//! Why: inlining a chain of small functions (`fn f(x) { return g(x) + 1 }`)
//! leaves a chain of constant additions as long as the call chain, and
//! every later pass and both code generators pay for each link (Cranelift's
//! e-graph rewrites such a chain in time super-linear in its length). One
//! forward walk folds every chain to one instruction per value.
//!
//! Only code outside loops is rewritten: there the chains of inlining
//! are, and inside a loop body the translation validator matches the two
//! copies `unroll` makes by their shape, which a folded chain would hide
//! (this pass runs before `unroll`, once inlined bodies are straightened into their callers; a chain inlined into a loop stays).
//!
//! The walk visits blocks in dominator-tree preorder, so an operand's
//! definition is rewritten before its users are looked at, and each
//! rewrite reads one definition (no chain is walked twice). The new
//! constants are inserted at the top of the entry block in one splice and
//! the operands changed in one batch ([`Editor::set_inst_kinds`]): a block
//! of a million links with one shared `iconst 1` stays linear.
//!
//! The translation validator mirrors the rewrite (its rule R7), so
//! reassociated functions validate.

use rustc_hash::FxHashMap;

use crate::editor::Editor;
use crate::ir::{BinaryOp, Inst, InstKind, SrcLoc, Type, Value, ValueDef};

/// `i` as `x + k` when it is an `int` `x + k`, `k + x` or `x - k` of a
/// constant `k` and a non-constant `x`.
fn offset_of(ed: &Editor, i: Inst) -> Option<(Value, i64)> {
    let data = ed.inst(i);
    if ed.value_type(data.result?) != Type::Int {
        return None;
    }
    match data.kind {
        InstKind::Binary(BinaryOp::IAdd, a, b) => match (ed.int_const(a), ed.int_const(b)) {
            (None, Some(k)) => Some((a, k)),
            (Some(k), None) => Some((b, k)),
            _ => None,
        },
        InstKind::Binary(BinaryOp::ISub, a, b) => match (ed.int_const(a), ed.int_const(b)) {
            (None, Some(k)) => Some((a, k.wrapping_neg())),
            _ => None,
        },
        _ => None,
    }
}

/// Rewrites every constant `+`/`-` of a constant `+`/`-` to one operation
/// on the chain's first operand; returns how many instructions changed.
pub fn reassociate(ed: &mut Editor) -> usize {
    // (instruction, x, k): the instruction becomes `x + k`.
    let mut plan: Vec<(Inst, Value, i64)> = Vec::new();
    let mut planned: FxHashMap<Inst, (Value, i64)> = FxHashMap::default();
    for b in ed.dom_preorder() {
        if ed.innermost(b).is_some() {
            continue;
        }
        for &i in ed.insts(b) {
            let Some((a, k2)) = offset_of(ed, i) else {
                continue;
            };
            // Only a link no other instruction reads: the rewrite then
            // removes an instruction (the link dies) instead of keeping both.
            let ValueDef::Inst(d) = ed.func().values[a].def else {
                continue;
            };
            if ed.uses(a).len() != 1 {
                continue;
            }
            let Some((x, k1)) = planned.get(&d).copied().or_else(|| offset_of(ed, d)) else {
                continue;
            };
            let k = k1.wrapping_add(k2);
            planned.insert(i, (x, k));
            plan.push((i, x, k));
        }
    }
    if plan.is_empty() {
        return 0;
    }
    // `x + 0` is `x`; a negative sum reads as a subtraction, as the
    // frontend writes `x - k`.
    let operand = |k: i64| if k < 0 && k != i64::MIN { -k } else { k };
    let mut konsts: Vec<i64> = plan
        .iter()
        .filter(|&&(_, _, k)| k != 0)
        .map(|&(_, _, k)| operand(k))
        .collect();
    konsts.sort_unstable();
    konsts.dedup();
    let made = ed.insert_insts(
        ed.entry(),
        0,
        konsts
            .iter()
            .map(|&k| (InstKind::IConst(k), Type::Int, SrcLoc::NONE))
            .collect(),
    );
    let value_of: FxHashMap<i64, Value> = konsts
        .iter()
        .zip(&made)
        .filter_map(|(&k, &(_, v))| Some((k, v?)))
        .collect();
    let mut kinds = Vec::new();
    let mut same = Vec::new();
    for &(i, x, k) in &plan {
        if k == 0 {
            if let Some(r) = ed.inst(i).result {
                same.push((r, x));
            }
            continue;
        }
        let c = value_of[&operand(k)];
        let op = if k < 0 && k != i64::MIN {
            BinaryOp::ISub
        } else {
            BinaryOp::IAdd
        };
        kinds.push((i, InstKind::Binary(op, x, c)));
    }
    ed.set_inst_kinds(kinds);
    if !same.is_empty() {
        ed.replace_all_uses_batch(&same);
    }
    plan.len()
}
