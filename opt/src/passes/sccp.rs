//! Sparse conditional constant propagation (Wegman–Zadeck), with block
//! parameters in place of φ nodes (Fritz ch. 10 "constant propagation").
//!
//! Values start at ⊤ and blocks unreachable; a block becomes executable
//! when an executable edge enters it, and a parameter is the meet of the
//! arguments on its executable incoming edges. A switch on a constant
//! makes only the matching edge executable. Afterwards constant values are
//! materialized (pure instructions become constants; constant parameters
//! get a constant at the top of their block) and every switch on a
//! constant is folded by if simplification (§9.2), which deletes the other
//! edges with the incremental dominator and loop repair of §8.2 and
//! removes the blocks that became unreachable.
//!
//! Only operations whose result the interpreter computes bit-identically
//! are folded; trapping operations (division by zero) are never folded.
//!
//! The propagation is linear in the size of the function, as Wegman and
//! Zadeck's is: a value's lattice cell changes at most twice, and a change
//! costs work proportional to its uses, not to the size of the users. An
//! instruction already at ⊥ is not re-evaluated (it cannot change), and
//! when an edge argument changes only the parameters it is passed to are
//! updated (through a per-terminator index of argument positions for
//! terminators with many arguments), so a call or jump with `k` arguments
//! costs `O(k)` in all, not `O(k)` per argument change.

use cranelift_entity::SecondaryMap;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::editor::Editor;
use crate::ir::{BinaryOp, Block, Cmp, InstKind, Terminator, Type, UnaryOp, User, Value};

/// A constant word of a known type.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Konst {
    Int(i64),
    Float(u64),
    Bool(bool),
}

/// The SCCP lattice.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
enum Lat {
    #[default]
    Top,
    Const(Konst),
    Bottom,
}

fn meet(a: Lat, b: Lat) -> Lat {
    match (a, b) {
        (Lat::Top, x) | (x, Lat::Top) => x,
        (Lat::Const(x), Lat::Const(y)) if x == y => a,
        _ => Lat::Bottom,
    }
}

/// Folds a pure operation on constants; None when not foldable.
pub(crate) fn fold(kind: &InstKind, arg: impl Fn(Value) -> Option<Konst>) -> Option<Konst> {
    use Konst::*;
    Some(match kind {
        InstKind::IConst(k) => Int(*k),
        InstKind::FConst(k) => Float(*k),
        InstKind::BConst(k) => Bool(*k),
        InstKind::Copy(v) => arg(*v)?,
        InstKind::Unary(op, v) => match (op, arg(*v)?) {
            (UnaryOp::INeg, Int(x)) => Int(x.wrapping_neg()),
            (UnaryOp::IAbs, Int(x)) => Int(x.wrapping_abs()),
            (UnaryOp::BNot, Bool(x)) => Bool(!x),
            (UnaryOp::FNeg, Float(x)) => Float((-f64::from_bits(x)).to_bits()),
            (UnaryOp::IToF, Int(x)) => Float((x as f64).to_bits()),
            (UnaryOp::FToI, Float(x)) => Int(f64::from_bits(x) as i64),
            _ => return None,
        },
        InstKind::Binary(op, a, b) => {
            let (x, y) = (arg(*a)?, arg(*b)?);
            match (op, x, y) {
                (BinaryOp::IAdd, Int(x), Int(y))
                    if super::fault::on(super::fault::Fault::FoldsWithoutWrap) =>
                {
                    Int(x.saturating_add(y))
                }
                (BinaryOp::IAdd, Int(x), Int(y)) => Int(x.wrapping_add(y)),
                (BinaryOp::ISub, Int(x), Int(y)) => Int(x.wrapping_sub(y)),
                (BinaryOp::IMul, Int(x), Int(y)) => Int(x.wrapping_mul(y)),
                (BinaryOp::IDiv, Int(x), Int(y)) if y != 0 => Int(x.wrapping_div(y)),
                (BinaryOp::IRem, Int(x), Int(y)) if y != 0 => Int(x.wrapping_rem(y)),
                (BinaryOp::IAnd, Int(x), Int(y)) => Int(x & y),
                (BinaryOp::IOr, Int(x), Int(y)) => Int(x | y),
                (BinaryOp::IXor, Int(x), Int(y)) => Int(x ^ y),
                (BinaryOp::IShl, Int(x), Int(y)) => Int(x.wrapping_shl(y as u32)),
                (BinaryOp::IShr, Int(x), Int(y)) => Int(x.wrapping_shr(y as u32)),
                (BinaryOp::IMin, Int(x), Int(y)) => Int(x.min(y)),
                (BinaryOp::IMax, Int(x), Int(y)) => Int(x.max(y)),
                (BinaryOp::FAdd, Float(x), Float(y)) => {
                    Float((f64::from_bits(x) + f64::from_bits(y)).to_bits())
                }
                (BinaryOp::FSub, Float(x), Float(y)) => {
                    Float((f64::from_bits(x) - f64::from_bits(y)).to_bits())
                }
                (BinaryOp::FMul, Float(x), Float(y)) => {
                    Float((f64::from_bits(x) * f64::from_bits(y)).to_bits())
                }
                (BinaryOp::FDiv, Float(x), Float(y)) => {
                    Float((f64::from_bits(x) / f64::from_bits(y)).to_bits())
                }
                (BinaryOp::ICmp(cc), Int(x), Int(y)) => Bool(cc.holds(x.cmp(&y))),
                (BinaryOp::BCmp(cc), Bool(x), Bool(y)) => Bool(cc.holds(x.cmp(&y))),
                (BinaryOp::FCmp(cc), Float(x), Float(y)) => {
                    match f64::from_bits(x).partial_cmp(&f64::from_bits(y)) {
                        Some(o) => Bool(cc.holds(o)),
                        None => Bool(*cc == Cmp::Ne),
                    }
                }
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// The instruction that produces constant `k`.
pub(crate) fn const_inst(k: Konst) -> (InstKind, Type) {
    match k {
        Konst::Int(x) => (InstKind::IConst(x), Type::Int),
        Konst::Float(x) => (InstKind::FConst(x), Type::Float),
        Konst::Bool(x) => (InstKind::BConst(x), Type::Bool),
    }
}

/// The switch key a constant scrutinee selects.
fn key(k: Konst) -> Option<i64> {
    match k {
        Konst::Int(x) => Some(x),
        Konst::Bool(b) => Some(b as i64),
        Konst::Float(_) => None,
    }
}

/// The index (cases first, then default) of the edge a switch takes on `k`.
pub(crate) fn taken_edge(term: &Terminator, k: i64) -> Option<usize> {
    let Terminator::Switch { cases, .. } = term else {
        return None;
    };
    Some(
        cases
            .iter()
            .position(|(c, _)| *c == k)
            .unwrap_or(cases.len()),
    )
}

/// Terminators with more edge arguments than this get an index of
/// argument positions when one of their arguments changes; smaller ones
/// are scanned.
const SCAN_ARGS: usize = 16;

/// Where each value is passed by one terminator: (edge index, target
/// block, position).
type ArgPositions = FxHashMap<Value, Vec<(usize, Block, usize)>>;

struct Sccp {
    lat: SecondaryMap<Value, Lat>,
    exec: SecondaryMap<Block, bool>,
    /// Executable edges.
    edge_exec: EdgeSet,
    blocks: Vec<Block>,
    values: Vec<Value>,
    /// Argument positions of the terminators with more than [`SCAN_ARGS`]
    /// arguments, built when first needed (SCCP does not edit the function
    /// until propagation ends).
    arg_index: FxHashMap<Block, ArgPositions>,
    /// Operands and edge arguments visited: the work the tests bound.
    work: usize,
    /// Scratch list of [`Sccp::term_use_changed`] (reused: allocating one
    /// per changed value was a third of the pass on branchy code).
    targets: Vec<(usize, Block, usize)>,
}

/// Edge indices below this are kept in a per-block bit mask.
const MASK_EDGES: usize = 64;

/// A set of edges (from, edge index): a bit mask per block for the first
/// [`MASK_EDGES`] edges of each terminator (every two-way branch: a
/// generated function has hundreds of thousands, and a hash set of them
/// cost a cache miss per query), a hash set for the rest of a large
/// switch's.
#[derive(Default)]
struct EdgeSet {
    low: SecondaryMap<Block, u64>,
    high: FxHashSet<(Block, usize)>,
}

impl EdgeSet {
    /// Adds the edge; returns whether it was new.
    fn insert(&mut self, b: Block, i: usize) -> bool {
        if i < MASK_EDGES {
            let bit = 1u64 << i;
            let m = &mut self.low[b];
            let new = *m & bit == 0;
            *m |= bit;
            new
        } else {
            self.high.insert((b, i))
        }
    }

    fn contains(&self, b: Block, i: usize) -> bool {
        if i < MASK_EDGES {
            self.low[b] & (1u64 << i) != 0
        } else {
            self.high.contains(&(b, i))
        }
    }
}

impl Sccp {
    fn set(&mut self, v: Value, l: Lat) {
        let new = meet(self.lat[v], l);
        if new != self.lat[v] {
            self.lat[v] = new;
            self.values.push(v);
        }
    }

    fn konst(&self, v: Value) -> Option<Konst> {
        match self.lat[v] {
            Lat::Const(k) => Some(k),
            _ => None,
        }
    }

    fn eval_inst(&mut self, ed: &Editor, i: crate::ir::Inst) {
        let data = ed.inst(i);
        let Some(r) = data.result else { return };
        if self.lat[r] == Lat::Bottom {
            // The meet with ⊥ is ⊥: nothing an operand does changes it.
            return;
        }
        let foldable_kind = matches!(
            data.kind,
            InstKind::IConst(_)
                | InstKind::FConst(_)
                | InstKind::BConst(_)
                | InstKind::Copy(_)
                | InstKind::Unary(..)
                | InstKind::Binary(..)
        );
        if !foldable_kind {
            self.set(r, Lat::Bottom);
            return;
        }
        let mut any_top = false;
        let mut any_bottom = false;
        let mut work = 0;
        data.kind.for_each_arg(|v| {
            work += 1;
            match self.lat[v] {
                Lat::Top => any_top = true,
                Lat::Bottom => any_bottom = true,
                Lat::Const(_) => {}
            }
        });
        self.work += work;
        let l = if any_bottom {
            Lat::Bottom
        } else if any_top {
            Lat::Top
        } else {
            match fold(&data.kind, |v| self.konst(v)) {
                Some(k) => Lat::Const(k),
                None => Lat::Bottom,
            }
        };
        self.set(r, l);
    }

    fn eval_term(&mut self, ed: &Editor, b: Block) {
        let term = ed.term(b);
        let Terminator::Switch { value, .. } = term else {
            return;
        };
        let only = match value {
            None => None,
            Some(v) => match self.lat[*v] {
                Lat::Top => return,
                Lat::Const(k) => key(k).and_then(|k| taken_edge(term, k)),
                Lat::Bottom => None,
            },
        };
        // (The editor is not changed while propagating: the terminator
        // and parameters are read in place.)
        for (i, c) in term.successors().enumerate() {
            if only.is_some_and(|o| o != i) {
                continue;
            }
            let t = c.block;
            let new_edge = self.edge_exec.insert(b, i);
            self.work += c.args.len();
            for (&p, &a) in ed.params(t).iter().zip(&c.args) {
                let l = self.lat[a];
                self.set(p, l);
            }
            if new_edge && !self.exec[t] {
                self.exec[t] = true;
                self.blocks.push(t);
            }
        }
    }

    /// `v`, used by the terminator of the executable block `b`, changed.
    fn term_use_changed(&mut self, ed: &Editor, b: Block, v: Value) {
        let term = ed.term(b);
        if matches!(term, Terminator::Switch { value: Some(s), .. } if *s == v) {
            // The scrutinee picks the edges (it changes at most twice).
            self.eval_term(ed, b);
            return;
        }
        // An edge that is not executable yet passes every argument when it
        // becomes executable; the executable ones pass `v`'s new value.
        let l = self.lat[v];
        let n: usize = term.successors().map(|c| c.args.len()).sum();
        let mut targets = std::mem::take(&mut self.targets);
        targets.clear();
        if n <= SCAN_ARGS {
            self.work += n;
            for (i, c) in term.successors().enumerate() {
                for (k, &a) in c.args.iter().enumerate() {
                    if a == v {
                        targets.push((i, c.block, k));
                    }
                }
            }
        } else {
            let work = &mut self.work;
            let index = self.arg_index.entry(b).or_insert_with(|| {
                *work += n;
                let mut index = ArgPositions::default();
                for (i, c) in term.successors().enumerate() {
                    for (k, &a) in c.args.iter().enumerate() {
                        index.entry(a).or_default().push((i, c.block, k));
                    }
                }
                index
            });
            targets.extend(index.get(&v).into_iter().flatten().copied());
        }
        for &(i, t, k) in &targets {
            self.work += 1;
            if self.edge_exec.contains(b, i) {
                let p = ed.params(t)[k];
                self.set(p, l);
            }
        }
        self.targets = targets;
    }
}

/// Runs SCCP on the function of `ed`. Returns whether anything changed.
pub fn sccp(ed: &mut Editor) -> bool {
    run(ed).0
}

/// [`sccp`]; also returns the propagation's work (operands and edge
/// arguments visited).
fn run(ed: &mut Editor) -> (bool, usize) {
    let entry = ed.entry();
    let mut s = Sccp {
        lat: SecondaryMap::new(),
        exec: SecondaryMap::new(),
        edge_exec: Default::default(),
        blocks: vec![entry],
        values: Vec::new(),
        arg_index: FxHashMap::default(),
        work: 0,
        targets: Vec::new(),
    };
    s.lat.resize(ed.func().values.len());
    s.exec.resize(ed.func().blocks.len());
    s.edge_exec.low.resize(ed.func().blocks.len());
    s.exec[entry] = true;
    for &p in ed.params(entry) {
        s.lat[p] = Lat::Bottom;
    }
    let mut terms: Vec<Block> = Vec::new();
    loop {
        if let Some(b) = s.blocks.pop() {
            for &i in ed.insts(b) {
                s.eval_inst(ed, i);
            }
            s.eval_term(ed, b);
        } else if let Some(v) = s.values.pop() {
            // A terminator passing `v` several times is updated once.
            terms.clear();
            for &u in ed.uses(v) {
                match u {
                    User::Inst(i) => {
                        if ed.inst_block(i).is_some_and(|b| s.exec[b]) {
                            s.eval_inst(ed, i);
                        }
                    }
                    User::Term(b) => terms.push(b),
                }
            }
            terms.sort_unstable();
            terms.dedup();
            for &b in &terms {
                if s.exec[b] {
                    s.term_use_changed(ed, b, v);
                }
            }
        } else {
            break;
        }
    }
    let mut changed = false;
    // Materialize constants.
    for b in ed.blocks() {
        if !s.exec[b] {
            continue;
        }
        // (Copied only where a parameter is constant: materializing edits
        // the block.)
        let params = if ed.params(b).iter().any(|&p| s.konst(p).is_some()) {
            ed.params(b).to_vec()
        } else {
            Vec::new()
        };
        for p in params {
            if let (Some(k), false) = (s.konst(p), ed.is_unused(p)) {
                let (kind, ty) = const_inst(k);
                let loc = crate::ir::SrcLoc::NONE;
                let (_, c) = ed.insert_inst(b, 0, kind, ty, loc);
                ed.replace_all_uses(p, c.expect("constants have results"));
                changed = true;
            }
        }
        // Changing an instruction's kind leaves the block's list as it is.
        for idx in 0..ed.insts(b).len() {
            let i = ed.insts(b)[idx];
            let data = ed.inst(i);
            let Some(r) = data.result else { continue };
            let Some(k) = s.konst(r) else { continue };
            if data.kind.has_side_effects() {
                continue;
            }
            let (kind, _) = const_inst(k);
            if data.kind != kind {
                ed.set_inst_kind(i, kind);
                changed = true;
            }
        }
    }
    // Fold switches whose scrutinee is constant (if simplification).
    for b in ed.blocks() {
        if !ed.is_live(b) || !s.exec[b] {
            continue;
        }
        let term = ed.term(b);
        let Terminator::Switch { value: Some(v), .. } = term else {
            continue;
        };
        let Some(k) = s.konst(*v).and_then(key) else {
            continue;
        };
        if let Some(mut idx) = taken_edge(term, k) {
            if super::fault::on(super::fault::Fault::SccpWrongEdge) {
                idx = term.successors().count() - 1 - idx;
            }
            ed.fold_switch(b, idx);
            changed = true;
        }
    }
    (changed, s.work)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canon::canonicalize;
    use crate::ir::{parse_program, FuncId};
    use std::fmt::Write as _;

    /// A loop carrying `k` values: the header has `k` parameters and the
    /// back edge passes `k` new values (each changes from ⊤ to ⊥ once), and
    /// the exit calls a function with all `k` of them.
    fn wide_loop(k: usize) -> String {
        let mut s = String::from(
            "file 0 \"t.wdl\"\nmain fn0\n\nfn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n",
        );
        s.push_str("    v1: int = iconst 1\n    jump block1(");
        let list = |from: usize| {
            (0..k)
                .map(|j| format!("v{}", from + j))
                .collect::<Vec<_>>()
                .join(", ")
        };
        s.push_str(&"v0, ".repeat(k - 1));
        s.push_str("v0)\nblock1(");
        let params: Vec<String> = (0..k).map(|j| format!("v{}: int", 10 + j)).collect();
        s.push_str(&params.join(", "));
        let _ = writeln!(
            s,
            "):\n    v2: bool = icmp lt v10, v0\n    br v2, block2, block3\nblock2:"
        );
        for j in 0..k {
            let _ = writeln!(s, "    v{}: int = iadd v{}, v1", 10 + k + j, 10 + j);
        }
        let _ = writeln!(s, "    jump block1({})\nblock3:", list(10 + k));
        let _ = writeln!(
            s,
            "    v3: int = call fn1 \"g\"({})\n    return v3\n}}",
            list(10)
        );
        let sig = vec!["int"; k].join(", ");
        let callee_params: Vec<String> = (0..k).map(|j| format!("v{j}: int")).collect();
        let _ = writeln!(
            s,
            "\nfn fn1 \"g\"({sig}) -> int {{\nblock0({}):\n    return v0\n}}",
            callee_params.join(", ")
        );
        s
    }

    fn work(k: usize) -> usize {
        let mut p = parse_program(&wide_loop(k)).unwrap_or_else(|e| panic!("parse: {e}"));
        let f = &mut p.funcs[FuncId::from_u32(0)];
        assert!(canonicalize(f));
        let mut ed = Editor::new(f);
        run(&mut ed).1
    }

    #[test]
    fn edge_set_holds_edges_on_both_sides_of_the_mask() {
        let mut e = EdgeSet::default();
        let (a, b) = (Block::from_u32(0), Block::from_u32(7));
        for i in [0, 1, MASK_EDGES - 1, MASK_EDGES, MASK_EDGES + 5] {
            assert!(!e.contains(b, i));
            assert!(e.insert(b, i), "edge {i} is new");
            assert!(!e.insert(b, i), "edge {i} is there");
            assert!(e.contains(b, i) && !e.contains(a, i));
        }
        assert!(!e.contains(b, 2) && !e.contains(b, MASK_EDGES + 1));
    }

    #[test]
    fn propagation_is_linear_in_wide_jumps_and_calls() {
        // Re-evaluating the whole back edge or call on each argument change
        // made this quadratic: ~k² = 250 000 visits at k = 500.
        let (small, large) = (work(250), work(500));
        assert!(large <= 20 * 500, "work {large} at k = 500");
        assert!(
            large <= 2 * small + 100,
            "work {small} at k = 250, {large} at k = 500"
        );
    }
}
