//! Loop-carried value reuse (predictive commoning, restricted to one
//! iteration of distance): a pure operation on the loop header's
//! parameters whose value for the *next* iteration the body already
//! computes is carried into the next iteration as a new header parameter
//! instead of being computed again.
//!
//! In mandelbrot's inner loop
//!
//! ```text
//! block9(zr, zi): ... zr2 = fmul zr, zr; zi2 = fmul zi, zi; tr = zr2 - zi2 + cr; ti = ...
//!                 t2 = fmul tr, tr; u2 = fmul ti, ti; if t2 + u2 > 4.0 break
//!                 jump block9(tr, ti)
//! ```
//!
//! the exit test squares the values that become `zr` and `zi` on the
//! back edge, so the next iteration's `zr * zr` is this iteration's
//! `tr * tr`. The pass gives the header a parameter `zr2'`, passed
//! `fmul zr₀, zr₀` from the preheader (computed once per entry into the
//! loop, where constant propagation usually folds it) and `t2` from the
//! latch, and replaces `zr2` by it: two multiplications fewer per
//! iteration, as gcc -O2 does.
//!
//! A candidate `e = op(args)` is a pure operation that cannot trap, in a
//! block of the loop itself (not of a loop nested in it), whose operands
//! are header parameters or values defined outside the loop, at least one
//! a header parameter that changes. Its next value `e' = op(args[p :=
//! latch arg of p])` must be an instruction of the same loop whose block
//! dominates the latch: it is computed on every path to the back edge, so
//! carrying adds no computation to an iteration, only the preheader's
//! once per entry. The value is the same bit for bit (the same operation
//! on the same operands), so `float` arithmetic is carried too. A value
//! used outside the loop is used through the exit edges' arguments
//! (LCSSA), so the new parameter keeps canonical form.
//!
//! At most [`MAX_PER_LOOP`] values are carried per loop: each is a
//! register live across the whole loop.
//!
//! The translation validator proves the rewrite by its rule R13
//! (`validate::carry`): `op(μ(a₀, a'), ..) ≡ μ(op(a₀, ..), op(a', ..))`.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::editor::{Editor, LoopId};
use crate::ir::{BinaryOp, Block, Inst, InstKind, Type, Value};

/// Most values carried in one loop (each costs a register across it).
const MAX_PER_LOOP: usize = 4;

/// Runs the pass; returns the number of values carried.
pub fn carry(ed: &mut Editor) -> usize {
    let mut n = 0;
    for l in ed.loops() {
        n += carry_loop(ed, l);
    }
    n
}

/// Whether `kind` is an operation the pass may carry: pure arithmetic
/// that cannot trap and reads no memory (comparisons stay where the
/// instruction selector fuses them into their branch).
fn carriable(kind: &InstKind) -> bool {
    match kind {
        InstKind::Binary(op, _, _) => {
            !op.may_trap()
                && !matches!(
                    op,
                    BinaryOp::ICmp(_) | BinaryOp::FCmp(_) | BinaryOp::BCmp(_)
                )
        }
        InstKind::Unary(..) => true,
        _ => false,
    }
}

/// One value to carry: the instruction `inst` (result `value`, type `ty`),
/// its operation on the loop's entry values `init`, and the instruction
/// result `next` that is its value for the next iteration.
struct Carried {
    inst: Inst,
    value: Value,
    ty: Type,
    init: InstKind,
    next: Value,
}

/// The arguments of the edges from `from` to `to` (`None` when two edges
/// pass different ones).
fn edge_args(ed: &Editor, from: Block, to: Block) -> Option<Vec<Value>> {
    let mut found: Option<Vec<Value>> = None;
    for c in ed.term(from).successors() {
        if c.block != to {
            continue;
        }
        match &found {
            Some(f) if f[..] != c.args[..] => return None,
            Some(_) => {}
            None => found = Some(c.args.to_vec()),
        }
    }
    found
}

/// Carries the values of loop `l`; returns how many.
fn carry_loop(ed: &mut Editor, l: LoopId) -> usize {
    let (h, ph, latch) = (ed.header(l), ed.preheader(l), ed.latch(l));
    let params = ed.params(h).to_vec();
    if params.is_empty() {
        return 0;
    }
    let (Some(entry), Some(back)) = (edge_args(ed, ph, h), edge_args(ed, latch, h)) else {
        return 0;
    };
    let index: FxHashMap<Value, usize> = params.iter().enumerate().map(|(k, &p)| (p, k)).collect();
    // The loop's own blocks (not those of nested loops).
    let own: Vec<Block> = (ed.body(l).into_iter())
        .filter(|&b| ed.innermost(b) == Some(l))
        .collect();
    // The carriable instructions computed on every path to the back edge,
    // by operation.
    let mut at_latch: FxHashMap<&InstKind, Value> = FxHashMap::default();
    for &b in &own {
        if !ed.dominates(b, latch) {
            continue;
        }
        for &i in ed.insts(b) {
            let d = ed.inst(i);
            if let (true, Some(r)) = (carriable(&d.kind), d.result) {
                at_latch.entry(&d.kind).or_insert(r);
            }
        }
    }
    let mut found: Vec<Carried> = Vec::new();
    // Values already taking part (as a carried value or a next value):
    // carrying both ends of a pair would need the other's replacement.
    let mut involved = FxHashSet::<Value>::default();
    'insts: for &b in &own {
        for &i in ed.insts(b) {
            if found.len() == MAX_PER_LOOP {
                break 'insts;
            }
            let d = ed.inst(i);
            let (true, Some(value)) = (carriable(&d.kind), d.result) else {
                continue;
            };
            let (mut next, mut init) = (d.kind.clone(), d.kind.clone());
            let (mut varies, mut ok) = (false, true);
            next.for_each_arg_mut(|v| match index.get(v) {
                Some(&k) => {
                    varies |= back[k] != *v;
                    *v = back[k];
                }
                None => ok &= ed.def_block(*v).is_some_and(|db| !ed.loop_contains(l, db)),
            });
            init.for_each_arg_mut(|v| {
                if let Some(&k) = index.get(v) {
                    *v = entry[k];
                }
            });
            if !ok || !varies {
                continue;
            }
            let Some(&next) = at_latch.get(&next) else {
                continue;
            };
            if next == value || involved.contains(&value) || involved.contains(&next) {
                continue;
            }
            involved.insert(value);
            involved.insert(next);
            let ty = ed.value_type(value);
            found.push(Carried {
                inst: i,
                value,
                ty,
                init,
                next,
            });
        }
    }
    for c in &found {
        let loc = ed.inst(c.inst).loc;
        let at = ed.insts(ph).len();
        let (_, first) = ed.insert_inst(ph, at, c.init.clone(), c.ty, loc);
        let first = first.expect("a carriable operation has a result");
        let q = ed.add_loop_param(l, c.ty, first, c.next);
        ed.replace_all_uses(c.value, q);
        ed.remove_inst(c.inst);
    }
    found.len()
}
