//! Bounds-check elimination for counted loops over an array
//! (`for i in 0..len(a) { ... a[i] ... }`).
//!
//! Canonical form makes the shape easy to recognise: the loop header `h`
//! has an induction parameter `i` that enters from the dedicated preheader
//! as a non-negative constant and comes back from the unique latch as
//! `i + 1`; `h` ends in `br (i < n), t, exit` where `n = len(a)` is
//! computed outside the loop and the body neither resizes arrays (push,
//! pop) nor calls functions. A `bounds_check a, i` in a block dominated by
//! `t` (whose only predecessor is `h`) then always passes: `0 <= i < n =
//! len(a)`. The check is removed; the unchecked access stays.
//!
//! `len(a)` must also be unchanged between its computation and the loop:
//! the blocks on the dominator-tree path from its definition to the
//! preheader each have a single predecessor and contain no pop or call
//! (of a Waddle or a host function).
//!
//! Other checks indexed by `i` (`for j in 0..n { c[j] += x * b[j]; }`, the
//! inner loop of a matrix multiply) are removed by *loop versioning*: the
//! preheader computes `n <= min(len(c), len(b))`, a test that holds for
//! the whole loop because nothing in it changes an array's length, and
//! branches to a copy of the loop without those checks when it holds and to
//! the original, checks and all, when it does not (so an out-of-bounds
//! index still traps at the same iteration). Only innermost loops of at
//! most [`MAX_VERSION_INSTS`] instructions are versioned, at most
//! [`MAX_VERSIONS`] per function and run; the duplication is
//! [`Editor::version_loop`], the unswitching construction of Fritz §9.5.
//!
//! Independently of loops, a `bounds_check a, i` dominated by the same
//! check goes when no instruction of the function can shrink an array (no
//! `pop`, no Waddle or host call; `push` only grows one): the first check
//! passed, and `len(a)` can only have grown since. So `a[i] += x` checks
//! its index once.

use rustc_hash::FxHashSet;

use crate::editor::{Editor, LoopId};
use crate::ir::{BinaryOp, Block, Cmp, InstKind, Terminator, Type, Value, ValueDef};

/// Whether a block contains an instruction that can shrink an array: a
/// pop, or a call of a Waddle or a host function (either may pop).
fn may_shrink(ed: &Editor, b: Block, after: usize) -> bool {
    ed.insts(b)[after..].iter().any(|&i| {
        matches!(
            ed.inst(i).kind,
            InstKind::ArrayPop(_) | InstKind::Call(..) | InstKind::HostCall(..)
        )
    })
}

/// A counted loop: its header `h` ends in `br (i < n), t, exit`, where `i`
/// is a parameter of `h` that enters as a constant `>= 0` and comes back
/// from the latch as `i + 1`, `n` is defined outside the loop, `t` is
/// entered only from `h`, and the body resizes no array and calls nothing.
/// Inside blocks dominated by `t`, `0 <= i < n` holds.
struct Counted {
    /// The induction parameter.
    i: Value,
    /// Its index among the header's parameters.
    idx: usize,
    /// The bound.
    n: Value,
    /// The body block entered when `i < n`.
    t: Block,
}

/// Whether an instruction can change an array's length (or do anything,
/// like a call, that might).
fn resizes(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::ArrayPop(_)
            | InstKind::ArrayPush(..)
            | InstKind::Call(..)
            | InstKind::HostCall(..)
    )
}

/// Recognises a counted loop (see [`Counted`]).
fn counted(ed: &Editor, l: LoopId) -> Option<Counted> {
    let h = ed.header(l);
    let Terminator::Switch {
        value: Some(c),
        cases,
        default,
    } = ed.term(h)
    else {
        return None;
    };
    if cases.len() != 1 || cases[0].0 != 1 || !cases[0].1.args.is_empty() {
        return None;
    }
    let t = cases[0].1.block;
    if t == default.block || ed.preds(t).len() != 1 || !ed.loop_contains(l, t) {
        return None;
    }
    let ValueDef::Inst(ci) = ed.func().values[*c].def else {
        return None;
    };
    let InstKind::Binary(BinaryOp::ICmp(Cmp::Lt), i, n) = ed.inst(ci).kind else {
        return None;
    };
    let ValueDef::Param(pb, idx) = ed.func().values[i].def else {
        return None;
    };
    if pb != h || ed.def_block(n).is_none_or(|d| ed.loop_contains(l, d)) {
        return None;
    }
    // i enters as a constant >= 0 and steps by +1 along the backedge.
    let ph = ed.preheader(l);
    let latch = ed.latch(l);
    let entry_arg = edge_arg(ed, ph, h, idx as usize)?;
    if ed.int_const(entry_arg).is_none_or(|k| k < 0) {
        return None;
    }
    let back = edge_arg(ed, latch, h, idx as usize)?;
    let ValueDef::Inst(bi) = ed.func().values[back].def else {
        return None;
    };
    let InstKind::Binary(BinaryOp::IAdd, x, one) = ed.inst(bi).kind else {
        return None;
    };
    if x != i || ed.int_const(one) != Some(1) {
        return None;
    }
    let quiet = ed
        .body(l)
        .into_iter()
        .all(|b| ed.insts(b).iter().all(|&ins| !resizes(&ed.inst(ins).kind)));
    quiet.then_some(Counted {
        i,
        idx: idx as usize,
        n,
        t,
    })
}

/// The array `a` when the bound of the counted loop `c` is `len(a)`,
/// computed outside the loop and unchanged from there to the preheader:
/// the blocks on the dominator-tree path from its definition to the
/// preheader each have a single predecessor and contain no pop or call.
fn len_bound(ed: &Editor, l: LoopId, c: &Counted) -> Option<Value> {
    let ValueDef::Inst(ni) = ed.func().values[c.n].def else {
        return None;
    };
    let InstKind::ArrayLen(a) = ed.inst(ni).kind else {
        return None;
    };
    let nb = ed.inst_block(ni)?;
    let pos = ed.insts(nb).iter().position(|&x| x == ni)? + 1;
    let mut cur = ed.preheader(l);
    loop {
        if cur == nb {
            if may_shrink(ed, nb, pos) {
                return None;
            }
            break;
        }
        if ed.preds(cur).len() != 1 || may_shrink(ed, cur, 0) {
            return None;
        }
        cur = ed.idom(cur)?;
    }
    Some(a)
}

/// The `idx`-th argument of the (single) edge from `from` to `to`.
fn edge_arg(ed: &Editor, from: Block, to: Block, idx: usize) -> Option<Value> {
    let mut found = None;
    for c in ed.term(from).successors() {
        if c.block == to {
            if found.is_some() {
                return None;
            }
            found = c.args.get(idx).copied();
        }
    }
    found
}

/// The checks `bounds_check x, i` of loop `l` in blocks dominated by `c.t`
/// (as block and position) whose array `x` is defined outside the loop and
/// is not `skip`.
fn index_checks(
    ed: &Editor,
    l: LoopId,
    c: &Counted,
    skip: Option<Value>,
) -> Vec<(Block, usize, Value)> {
    let mut out = Vec::new();
    for b in ed.body(l) {
        if !ed.dominates(c.t, b) {
            continue;
        }
        for (pos, &ins) in ed.insts(b).iter().enumerate() {
            if let InstKind::BoundsCheck(x, i) = ed.inst(ins).kind {
                let outside = ed.def_block(x).is_some_and(|d| !ed.loop_contains(l, d));
                if i == c.i && outside && Some(x) != skip {
                    out.push((b, pos, x));
                }
            }
        }
    }
    out
}

/// Largest loop body (instructions) that is versioned.
pub const MAX_VERSION_INSTS: usize = 200;
/// Most loops versioned per function and run.
pub const MAX_VERSIONS: usize = 4;

/// Versions the innermost counted loop `l`, whose checks `checks` index
/// arrays defined outside it by `i`: the preheader tests `n <= len(x)` for
/// every such array `x` (the lengths cannot change in the loop), and the
/// copy it enters when that holds has none of these checks, since there
/// `0 <= i < n <= len(x)`. Returns the number of checks removed.
fn version(ed: &mut Editor, l: LoopId, c: &Counted, checks: &[(Block, usize, Value)]) -> usize {
    let ph = ed.preheader(l);
    let loc = ed.inst(ed.insts(checks[0].0)[checks[0].1]).loc;
    let mut arrays: Vec<Value> = checks.iter().map(|&(_, _, x)| x).collect();
    arrays.sort_unstable();
    arrays.dedup();
    let mut min_len = None;
    for x in arrays {
        let end = ed.insts(ph).len();
        let (_, len) = ed.insert_inst(ph, end, InstKind::ArrayLen(x), Type::Int, loc);
        let len = len.expect("array_len has a result");
        min_len = Some(match min_len {
            None => len,
            Some(m) => {
                let end = ed.insts(ph).len();
                let kind = InstKind::Binary(BinaryOp::IMin, m, len);
                ed.insert_inst(ph, end, kind, Type::Int, loc)
                    .1
                    .expect("result")
            }
        });
    }
    let Some(min_len) = min_len else {
        return 0;
    };
    let end = ed.insts(ph).len();
    let fits = InstKind::Binary(BinaryOp::ICmp(Cmp::Le), c.n, min_len);
    let fits = ed
        .insert_inst(ph, end, fits, Type::Bool, loc)
        .1
        .expect("result");
    let h = ed.header(l);
    let Some(bmap) = ed.version_loop(l, fits) else {
        return 0;
    };
    let Some(h2) = bmap[h] else {
        return 0;
    };
    let i2 = ed.params(h2)[c.idx];
    // The copy has the same instructions in the same order.
    let copies: Vec<_> = checks
        .iter()
        .filter_map(|&(b, pos, x)| {
            let ins = *ed.insts(bmap[b]?).get(pos)?;
            (ed.inst(ins).kind == InstKind::BoundsCheck(x, i2)).then_some(ins)
        })
        .collect();
    ed.remove_insts(&copies)
}

/// Removes the provably redundant bounds checks; returns how many.
///
/// In a counted loop bounded by `len(a)`, the checks of `a[i]` go. In an
/// innermost counted loop with another bound, or with checks of other
/// arrays indexed by `i`, the loop is versioned (see [`version`]) so that
/// the common case runs without them.
pub fn bce(ed: &mut Editor) -> usize {
    let mut n = dominated_checks(ed);
    let mut versions = 0;
    ed.refresh_numbers();
    for l in ed.loops() {
        let Some(c) = counted(ed, l) else {
            continue;
        };
        let a = len_bound(ed, l, &c);
        if let Some(a) = a {
            for b in ed.body(l) {
                if !ed.dominates(c.t, b) {
                    continue;
                }
                let checks: Vec<_> = (ed.insts(b).iter())
                    .copied()
                    .filter(|&ins| ed.inst(ins).kind == InstKind::BoundsCheck(a, c.i))
                    .collect();
                n += ed.remove_insts(&checks);
            }
        }
        let body = ed.body(l);
        let innermost = body
            .iter()
            .all(|&b| b == ed.header(l) || ed.loop_headed_by(b).is_none());
        let size: usize = body.iter().map(|&b| ed.insts(b).len() + 1).sum();
        if versions >= MAX_VERSIONS || !innermost || size > MAX_VERSION_INSTS {
            continue;
        }
        let checks = index_checks(ed, l, &c, a);
        if !checks.is_empty() {
            n += version(ed, l, &c, &checks);
            versions += 1;
            ed.refresh_numbers();
        }
    }
    n
}

/// Removes every `bounds_check` dominated by the same check (see the module
/// docs) when no instruction of the function can shrink an array; returns
/// how many. A pre-order walk of the dominator tree with a scoped set of
/// the checks seen on the way: linear in the function's size.
fn dominated_checks(ed: &mut Editor) -> usize {
    let blocks = ed.blocks();
    let shrinks = blocks.iter().any(|&b| {
        ed.insts(b).iter().any(|&i| {
            matches!(
                ed.inst(i).kind,
                InstKind::ArrayPop(_) | InstKind::Call(..) | InstKind::HostCall(..)
            )
        })
    });
    if shrinks {
        return 0;
    }
    let mut seen: FxHashSet<(Value, Value)> = FxHashSet::default();
    let mut redundant = Vec::new();
    // (block, entering?) events; `added` records the checks each block added.
    let mut stack: Vec<(Block, bool)> = vec![(ed.entry(), true)];
    let mut added: Vec<Vec<(Value, Value)>> = Vec::new();
    while let Some((b, enter)) = stack.pop() {
        if !enter {
            for k in added.pop().unwrap_or_default() {
                seen.remove(&k);
            }
            continue;
        }
        let mut mine = Vec::new();
        for &i in ed.insts(b) {
            if let InstKind::BoundsCheck(a, x) = ed.inst(i).kind {
                if seen.insert((a, x)) {
                    mine.push((a, x));
                } else {
                    redundant.push(i);
                }
            }
        }
        added.push(mine);
        stack.push((b, false));
        for &c in ed.dom_children(b).iter().rev() {
            stack.push((c, true));
        }
    }
    ed.remove_insts(&redundant)
}
