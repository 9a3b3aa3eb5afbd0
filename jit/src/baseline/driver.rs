//! The one linear pass shared by every baseline back end: blocks in layout
//! order, instructions in order, terminators as compare-and-branch chains
//! with the edge work (parallel moves of block arguments, back-edge fuel
//! ticks) on the edge itself, then the out-of-line paths. A back end only
//! supplies the machine operations ([`Backend`]).

use std::collections::HashMap;

use cranelift_entity::SecondaryMap;
use waddle_opt::ir::{Block, BlockCall, Function, InstData, Program, SrcLoc, Terminator, Value};

use super::cold::ColdPaths;
use super::moves::{sequentialize, MoveOp};
use super::plan::{slot, FuncPlan};

/// Program-wide facts every function's code needs.
pub(crate) struct Env<'a> {
    /// The program being compiled.
    pub program: &'a Program,
    /// Index in `VmCtx::strings` of each string constant's text.
    pub string_index: &'a HashMap<Box<str>, usize>,
    /// Whether to count fuel.
    pub fuel: bool,
}

/// The function being compiled, with its plan.
pub(crate) struct FnCx<'a> {
    /// Program-wide facts.
    pub env: &'a Env<'a>,
    /// The function.
    pub func: &'a Function,
    /// Its plan (block order, frame).
    pub plan: &'a FuncPlan,
}

/// The machine operations a baseline back end provides.
pub(crate) trait Backend {
    /// A code position that jumps can target (bound once).
    type Label: Copy;
    /// A fresh, unbound label.
    fn new_label(&mut self) -> Self::Label;
    /// Binds `l` to the current position.
    fn bind(&mut self, l: Self::Label);
    /// Frame set-up, stack-limit check, parameters into their slots, the
    /// entry fuel tick; falls through into the entry block.
    fn prologue(&mut self, cx: &FnCx<'_>, cold: &mut ColdPaths<Self::Label>);
    /// One instruction.
    fn inst(&mut self, cx: &FnCx<'_>, data: &InstData, cold: &mut ColdPaths<Self::Label>);
    /// A sequentialized parallel copy between slots.
    fn moves(&mut self, ops: &[MoveOp]);
    /// Charges one unit of fuel; an `out of fuel` trap points at `loc`.
    fn fuel_tick(&mut self, loc: SrcLoc, cold: &mut ColdPaths<Self::Label>);
    /// Unconditional jump.
    fn jump(&mut self, l: Self::Label);
    /// Jumps to `l` when the `int`/`bool` value `v` equals `k` (`eq`) or
    /// differs from it (`!eq`).
    fn branch(&mut self, cx: &FnCx<'_>, v: Value, k: i64, eq: bool, l: Self::Label);
    /// Returns `v` (or nothing).
    fn ret(&mut self, cx: &FnCx<'_>, v: Option<Value>);
    /// Emits the out-of-line paths and the shared trap exit.
    fn finish(&mut self, cx: &FnCx<'_>, cold: ColdPaths<Self::Label>);
}

/// Emits the code of one function (with a body) through `b`.
pub(crate) fn emit_function<B: Backend>(b: &mut B, cx: &FnCx<'_>) {
    let mut cold = ColdPaths::new();
    let mut labels: SecondaryMap<Block, Option<B::Label>> = SecondaryMap::new();
    for &bl in &cx.plan.order {
        labels[bl] = Some(b.new_label());
    }
    let mut e = Driver {
        b,
        cx,
        labels,
        scratch: Vec::new(),
        pairs: Vec::new(),
    };
    e.b.prologue(cx, &mut cold);
    for (i, &bl) in cx.plan.order.iter().enumerate() {
        let next = cx.plan.order.get(i + 1).copied();
        e.b.bind(e.label(bl));
        for &inst in &cx.func.blocks[bl].insts {
            e.b.inst(cx, cx.func.inst(inst), &mut cold);
        }
        e.terminator(bl, next, &mut cold);
    }
    e.b.finish(cx, cold);
}

/// State of the pass over one function.
struct Driver<'a, 'c, B: Backend> {
    b: &'a mut B,
    cx: &'a FnCx<'c>,
    labels: SecondaryMap<Block, Option<B::Label>>,
    scratch: Vec<MoveOp>,
    pairs: Vec<(usize, usize)>,
}

impl<B: Backend> Driver<'_, '_, B> {
    /// The label of a reachable block.
    fn label(&self, bl: Block) -> B::Label {
        self.labels[bl].expect("edge to a block that is not reachable")
    }

    /// Whether taking edge `bc` from `from` needs no code besides the jump.
    fn trivial(&self, from: Block, bc: &BlockCall) -> bool {
        let params = &self.cx.func.blocks[bc.block].params;
        let back = self.cx.env.fuel && self.cx.plan.is_back_edge(from, bc.block);
        !back && bc.args.iter().zip(params).all(|(a, p)| a == p)
    }

    /// The code of edge `bc` from `from`: argument moves, back-edge fuel,
    /// jump (omitted when the target is `next`).
    fn edge(
        &mut self,
        from: Block,
        bc: &BlockCall,
        next: Option<Block>,
        cold: &mut ColdPaths<B::Label>,
    ) {
        let params = &self.cx.func.blocks[bc.block].params;
        self.pairs.clear();
        self.pairs.extend(
            params
                .iter()
                .zip(&bc.args)
                .map(|(&p, &a)| (slot(p), slot(a))),
        );
        self.scratch.clear();
        sequentialize(&self.pairs, &mut self.scratch);
        if !self.scratch.is_empty() {
            self.b.moves(&self.scratch);
        }
        if self.cx.env.fuel && self.cx.plan.is_back_edge(from, bc.block) {
            self.b.fuel_tick(self.cx.func.loc, cold);
        }
        if next != Some(bc.block) {
            self.b.jump(self.label(bc.block));
        }
    }

    /// The terminator of `bl`; `next` is the block emitted after it.
    fn terminator(&mut self, bl: Block, next: Option<Block>, cold: &mut ColdPaths<B::Label>) {
        let cx = self.cx;
        match &cx.func.blocks[bl].term {
            Terminator::Return(v) => self.b.ret(cx, *v),
            Terminator::Switch {
                value,
                cases,
                default,
            } => {
                if let Some(v) = *value {
                    // A two-way branch whose taken case is the next block:
                    // invert it and fall through.
                    if let [(k, case)] = cases.as_slice() {
                        if next == Some(case.block)
                            && self.trivial(bl, case)
                            && self.trivial(bl, default)
                        {
                            self.b.branch(cx, v, *k, false, self.label(default.block));
                            return;
                        }
                    }
                    for (k, case) in cases {
                        if self.trivial(bl, case) {
                            self.b.branch(cx, v, *k, true, self.label(case.block));
                        } else {
                            let skip = self.b.new_label();
                            self.b.branch(cx, v, *k, false, skip);
                            self.edge(bl, case, None, cold);
                            self.b.bind(skip);
                        }
                    }
                }
                self.edge(bl, default, next, cold);
            }
        }
    }
}
