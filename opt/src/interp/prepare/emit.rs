//! Emitting ops for instructions, terminators and edges.

use cranelift_entity::EntityRef;

use super::cond::{swap, Cond};
use super::Prep;
use crate::abi::ElemLayout;
use crate::interp::code::{Code, Op, Slot, Target, UnKind, NO_SLOT};
use crate::interp::divisor::ConstDivisor;
use crate::interp::moves::sequentialize;
use crate::ir::{
    BinaryOp, BlockCall, BlockData, Cmp, Inst, InstKind, SrcLoc, Terminator, Type, UnaryOp, Value,
};

/// "Label not placed yet".
const UNPLACED: u32 = u32::MAX;

/// Builds the [`Code`] of one function from its [`Prep`].
pub(super) struct Emitter<'p> {
    prep: Prep<'p>,
    code: Code,
    /// Next free slot.
    next_slot: u32,
    /// Scratch slot for breaking move cycles.
    temp: Option<Slot>,
    /// Slots to zero before each safepoint ([`crate::analysis::gc_slots`]).
    clears: rustc_hash::FxHashMap<Inst, Vec<u32>>,
    /// Slot receiving results nobody reads (void calls).
    sink: Option<Slot>,
    /// Op index of each label: labels `0..layout.len()` are the blocks in
    /// layout order, later ones are edge stubs.
    labels: Vec<u32>,
    /// Edge stubs still to emit: label, source block position, edge.
    stubs: Vec<(Target, u32, &'p BlockCall)>,
}

/// The instructions ending a block that its branch tests directly
/// ([`Emitter::fusable_cmp`]); they emit no op of their own.
#[derive(Copy, Clone, Debug)]
struct Fused {
    /// The compare the branch tests.
    cmp: Inst,
    /// `(x, mask)` when the compare tests `x % 2^k` or `x & m`, computed by
    /// the instruction right before it, against zero.
    mask: Option<(Value, i32)>,
}

impl<'p> Emitter<'p> {
    /// An emitter whose frame already has slots `0..next_slot`.
    pub(super) fn new(
        prep: Prep<'p>,
        (const_base, consts, next_slot): (u32, Vec<u64>, u32),
        clears: rustc_hash::FxHashMap<Inst, Vec<u32>>,
    ) -> Self {
        let nparams = const_base;
        let nblocks = prep.func.layout.len();
        let decl = prep.func.loc;
        Emitter {
            prep,
            code: Code {
                ops: Vec::new(),
                locs: Vec::new(),
                aux: Vec::new(),
                cases: Vec::new(),
                magics: Vec::new(),
                types: Vec::new(),
                consts,
                const_base,
                nparams,
                nslots: 0,
                max_global: None,
                recursive: false,
                collects: false,
                func: 0,
                decl,
                tier: Default::default(),
                value_slots: Vec::new(),
                osr_heads: Vec::new(),
            },
            next_slot,
            temp: None,
            clears,
            sink: None,
            labels: vec![UNPLACED; nblocks],
            stubs: Vec::new(),
        }
    }

    /// Emits every block, then the edge stubs, and resolves the labels.
    pub(super) fn run(mut self) -> Option<Code> {
        let f = self.prep.func;
        for (pos, &b) in f.layout.iter().enumerate() {
            self.labels[pos] = self.pc()?;
            self.block(pos as u32, &f.blocks[b])?;
        }
        let mut i = 0;
        while let Some(&(label, pos, edge)) = self.stubs.get(i) {
            self.labels[label as usize] = self.pc()?;
            self.edge_inline(edge, pos, false)?;
            i += 1;
        }
        let labels = self.labels;
        if labels.contains(&UNPLACED) {
            return None;
        }
        let mut code = self.code;
        code.value_slots = self.prep.slot_of;
        code.for_each_target_mut(|l| *l = labels.get(*l as usize).copied().unwrap_or(UNPLACED));
        code.nslots = self.next_slot;
        drop_unused_consts(&mut code);
        code.collects = code.has_safepoint();
        Some(code)
    }

    fn pc(&self) -> Option<u32> {
        u32::try_from(self.code.ops.len()).ok()
    }

    fn push(&mut self, op: Op, loc: SrcLoc) {
        self.code.ops.push(op);
        self.code.locs.push(loc);
    }

    fn new_slot(&mut self) -> Option<Slot> {
        let s = self.next_slot;
        self.next_slot = s.checked_add(1)?;
        Some(s)
    }

    fn s(&self, v: Value) -> Option<Slot> {
        self.prep.slot(v)
    }

    /// Whether the array value `a` has one-byte elements (its static type
    /// is `[bool]`).
    fn byte_elems(&self, a: Value) -> bool {
        ElemLayout::of_array(self.prep.func.value_type(a)) == ElemLayout::Byte
    }

    /// The slot receiving `inst`'s result (the sink when it has none).
    fn dst(&mut self, inst: Inst) -> Option<Slot> {
        match self.prep.func.insts[inst].result {
            Some(r) => self.s(r),
            None => {
                if self.sink.is_none() {
                    self.sink = Some(self.new_slot()?);
                }
                self.sink
            }
        }
    }

    fn ty(&mut self, t: Type) -> u32 {
        match self.code.types.iter().position(|&x| x == t) {
            Some(i) => i as u32,
            None => {
                self.code.types.push(t);
                self.code.types.len() as u32 - 1
            }
        }
    }

    fn aux_start(&self) -> Option<u32> {
        u32::try_from(self.code.aux.len()).ok()
    }

    /// The instructions ending `bd` that its branch can test directly: a
    /// compare whose result is used only by that branch, and before it an
    /// `x % 2^k` or `x & m` that only this compare, against zero, uses.
    fn fusable_cmp(&self, bd: &BlockData) -> Option<Fused> {
        let f = self.prep.func;
        let Terminator::Switch {
            value: Some(c),
            cases,
            ..
        } = &bd.term
        else {
            return None;
        };
        let last = *bd.insts.last()?;
        let is_cmp = matches!(
            f.insts[last].kind,
            InstKind::Binary(
                BinaryOp::ICmp(_) | BinaryOp::FCmp(_) | BinaryOp::BCmp(_),
                _,
                _
            )
        );
        let fits = cases.len() == 1 && matches!(cases[0].0, 0 | 1);
        let cmp = (is_cmp
            && fits
            && f.insts[last].result == Some(*c)
            && f.value_type(*c) == Type::Bool
            && self.prep.uses[c.index()] == 1)
            .then_some(last)?;
        let mask = bd
            .insts
            .len()
            .checked_sub(2)
            .and_then(|i| self.fusable_mask(bd.insts[i], cmp));
        Some(Fused { cmp, mask })
    }

    /// The `(x, mask)` when `cmp` is `r == 0` or `r != 0` and `r` is `x %
    /// 2^k` or `x & m`, computed by `prev` and used only by `cmp`: then
    /// `r == 0` is `x & mask == 0` (for `%`, whatever the sign of `x`).
    fn fusable_mask(&self, prev: Inst, cmp: Inst) -> Option<(Value, i32)> {
        let f = self.prep.func;
        let InstKind::Binary(BinaryOp::ICmp(Cmp::Eq | Cmp::Ne), a, b) = f.insts[cmp].kind else {
            return None;
        };
        let r = match (self.prep.imm(a), self.prep.imm(b)) {
            (_, Some(0)) => a,
            (Some(0), _) => b,
            _ => return None,
        };
        if f.insts[prev].result != Some(r)
            || self.prep.uses[r.index()] != 1
            || self.clears.contains_key(&prev)
        {
            return None;
        }
        match f.insts[prev].kind {
            InstKind::Binary(BinaryOp::IRem, x, d) => {
                let d = self.prep.imm(d)?;
                (d >= 2 && d.count_ones() == 1).then_some((x, d - 1))
            }
            InstKind::Binary(BinaryOp::IAnd, x, y) => match (self.prep.imm(x), self.prep.imm(y)) {
                (_, Some(m)) => Some((x, m)),
                (Some(m), None) => Some((y, m)),
                (None, None) => None,
            },
            _ => None,
        }
    }

    fn block(&mut self, pos: u32, bd: &'p BlockData) -> Option<()> {
        let f = self.prep.func;
        let fused = self.fusable_cmp(bd);
        let n = bd.insts.len() - fused.map_or(0, |u| 1 + usize::from(u.mask.is_some()));
        let mut i = 0;
        while i < n {
            let inst = bd.insts[i];
            // A bounds check right before the access it guards folds into
            // it: element accesses check bounds themselves.
            if let InstKind::BoundsCheck(a, x) = f.insts[inst].kind {
                if let Some(&next) = bd.insts[..n].get(i + 1) {
                    let folds = match f.insts[next].kind {
                        InstKind::ArrayGet(a2, x2) | InstKind::ArraySet(a2, x2, _) => {
                            a2 == a && x2 == x
                        }
                        _ => false,
                    };
                    if folds {
                        self.inst(next, f.insts[inst].loc)?;
                        i += 2;
                        continue;
                    }
                }
            }
            self.inst(inst, f.insts[inst].loc)?;
            i += 1;
        }
        self.terminator(pos, &bd.term, fused)
    }

    /// Emits an [`Op::Clear`] of `slots` (none when empty).
    fn clear(&mut self, slots: &[u32], loc: SrcLoc) -> Option<()> {
        if !slots.is_empty() {
            let aux = self.aux_start()?;
            self.code.aux.push(u32::try_from(slots.len()).ok()?);
            self.code.aux.extend_from_slice(slots);
            self.push(Op::Clear { aux }, loc);
        }
        Some(())
    }

    fn inst(&mut self, inst: Inst, loc: SrcLoc) -> Option<()> {
        let f = self.prep.func;
        if let Some(slots) = self.clears.remove(&inst) {
            self.clear(&slots, loc)?;
        }
        let data = &f.insts[inst];
        let op = match &data.kind {
            // Constants live in slots filled on frame entry.
            InstKind::IConst(_)
            | InstKind::FConst(_)
            | InstKind::BConst(_)
            | InstKind::SConst(_) => return Some(()),
            InstKind::Copy(a) => Op::Mov {
                dst: self.dst(inst)?,
                src: self.s(*a)?,
            },
            InstKind::Unary(op, a) => Op::Unary {
                dst: self.dst(inst)?,
                a: self.s(*a)?,
                kind: unary_kind(*op),
            },
            InstKind::Binary(op, a, b) => self.binary(inst, *op, *a, *b)?,
            InstKind::Call(func, args) => {
                let aux = self.aux_start()?;
                self.code.aux.push(u32::try_from(args.len()).ok()?);
                for &a in args {
                    let s = self.s(a)?;
                    self.code.aux.push(s);
                }
                Op::Call {
                    dst: self.dst(inst)?,
                    func: func.as_u32(),
                    aux,
                }
            }
            InstKind::HostCall(h, args) => {
                let decl = self.prep.program.host_fns.get(*h)?;
                if decl.sig.params.len() != args.len() {
                    return None;
                }
                let aux = self.aux_start()?;
                self.code.aux.push(u32::try_from(args.len()).ok()?);
                for &a in args {
                    let s = self.s(a)?;
                    self.code.aux.push(s);
                }
                Op::HostCall {
                    dst: self.dst(inst)?,
                    func: h.as_u32(),
                    aux,
                }
            }
            InstKind::GlobalGet(g) => Op::GlobalGet {
                dst: self.dst(inst)?,
                g: self.global(g.as_u32())?,
            },
            InstKind::GlobalSet(g, v) => Op::GlobalSet {
                g: self.global(g.as_u32())?,
                src: self.s(*v)?,
            },
            InstKind::ArrayLit(elems) => {
                let elem = self.result_elem(inst)?;
                let aux = self.aux_start()?;
                let ty = self.ty(elem);
                self.code.aux.push(ty);
                self.code.aux.push(u32::try_from(elems.len()).ok()?);
                for &e in elems {
                    let s = self.s(e)?;
                    self.code.aux.push(s);
                }
                Op::ArrayLit {
                    dst: self.dst(inst)?,
                    aux,
                }
            }
            InstKind::ArrayRepeat(v, n) => {
                let elem = self.result_elem(inst)?;
                let aux = self.aux_start()?;
                let ty = self.ty(elem);
                let (v, n) = (self.s(*v)?, self.s(*n)?);
                self.code.aux.extend([ty, v, n]);
                Op::ArrayRepeat {
                    dst: self.dst(inst)?,
                    aux,
                }
            }
            InstKind::ArrayLen(a) => Op::ArrayLen {
                dst: self.dst(inst)?,
                a: self.s(*a)?,
            },
            InstKind::BoundsCheck(a, i) => Op::BoundsCheck {
                arr: self.s(*a)?,
                idx: self.s(*i)?,
            },
            InstKind::ArrayGet(a, i) if self.byte_elems(*a) => Op::ArrayGetB {
                dst: self.dst(inst)?,
                arr: self.s(*a)?,
                idx: self.s(*i)?,
            },
            InstKind::ArrayGet(a, i) => Op::ArrayGet {
                dst: self.dst(inst)?,
                arr: self.s(*a)?,
                idx: self.s(*i)?,
            },
            InstKind::ArraySet(a, i, v) if self.byte_elems(*a) => Op::ArraySetB {
                arr: self.s(*a)?,
                idx: self.s(*i)?,
                val: self.s(*v)?,
            },
            InstKind::ArraySet(a, i, v) => Op::ArraySet {
                arr: self.s(*a)?,
                idx: self.s(*i)?,
                val: self.s(*v)?,
            },
            InstKind::ArrayPush(a, v) => Op::ArrayPush {
                arr: self.s(*a)?,
                val: self.s(*v)?,
            },
            InstKind::ArrayPop(a) => Op::ArrayPop {
                dst: self.dst(inst)?,
                arr: self.s(*a)?,
            },
            InstKind::StrLen(a) => Op::StrLen {
                dst: self.dst(inst)?,
                a: self.s(*a)?,
            },
            InstKind::StrConcat(a, b) => Op::StrConcat {
                dst: self.dst(inst)?,
                a: self.s(*a)?,
                b: self.s(*b)?,
            },
            InstKind::StrCmp(cc, a, b) => Op::StrCmp {
                dst: self.dst(inst)?,
                a: self.s(*a)?,
                b: self.s(*b)?,
                cc: *cc,
            },
            InstKind::ToStr(a) => {
                let ty = self.ty(f.value_type(*a));
                Op::ToStr {
                    dst: self.dst(inst)?,
                    a: self.s(*a)?,
                    ty,
                }
            }
            InstKind::Print(a) => {
                let ty = self.ty(f.value_type(*a));
                Op::Print { a: self.s(*a)?, ty }
            }
            InstKind::Assert(a) => Op::Assert { a: self.s(*a)? },
            InstKind::Clock => Op::Clock {
                dst: self.dst(inst)?,
            },
        };
        self.push(op, loc);
        Some(())
    }

    /// Checks a global index against the program and records it.
    fn global(&mut self, g: u32) -> Option<u32> {
        if g as usize >= self.prep.program.globals.len() {
            return None;
        }
        self.code.max_global = Some(self.code.max_global.map_or(g, |m| m.max(g)));
        Some(g)
    }

    /// The element type of an allocating instruction's (array) result.
    fn result_elem(&self, inst: Inst) -> Option<Type> {
        let r = self.prep.func.insts[inst].result?;
        self.prep.func.value_type(r).element()
    }

    /// How to divide by `b` ([`Divisor`]); adds its magic numbers to the
    /// code when it takes them.
    fn divisor(&mut self, b: Value) -> Divisor {
        let Some(d) = self.prep.imm(b) else {
            return Divisor::Other;
        };
        if d >= 2 && d.count_ones() == 1 {
            return Divisor::Pow2(d.trailing_zeros());
        }
        let (Some(magic), Ok(m)) = (
            ConstDivisor::new(i64::from(d)),
            u32::try_from(self.code.magics.len()),
        ) else {
            return Divisor::Other;
        };
        self.code.magics.push(magic);
        Divisor::Magic(m)
    }

    fn binary(&mut self, inst: Inst, op: BinaryOp, a: Value, b: Value) -> Option<Op> {
        let dst = self.dst(inst)?;
        let (sa, sb) = (self.s(a)?, self.s(b)?);
        Some(match op {
            BinaryOp::IAdd => match (self.prep.imm(a), self.prep.imm(b)) {
                (_, Some(imm)) => Op::IAddImm { dst, a: sa, imm },
                (Some(imm), None) => Op::IAddImm { dst, a: sb, imm },
                (None, None) => Op::IAdd { dst, a: sa, b: sb },
            },
            BinaryOp::ISub => match self.prep.imm(b).and_then(|k| k.checked_neg()) {
                Some(imm) => Op::IAddImm { dst, a: sa, imm },
                None => Op::ISub { dst, a: sa, b: sb },
            },
            BinaryOp::IMul => match (self.prep.imm(a), self.prep.imm(b)) {
                (_, Some(imm)) => Op::IMulImm { dst, a: sa, imm },
                (Some(imm), None) => Op::IMulImm { dst, a: sb, imm },
                (None, None) => Op::IMul { dst, a: sa, b: sb },
            },
            BinaryOp::IDiv => match self.divisor(b) {
                Divisor::Pow2(k) => Op::IDivPow2 { dst, a: sa, k },
                Divisor::Magic(m) => Op::IDivMagic { dst, a: sa, m },
                Divisor::Other => Op::IDiv { dst, a: sa, b: sb },
            },
            BinaryOp::IRem => match self.divisor(b) {
                Divisor::Pow2(k) => Op::IRemPow2 { dst, a: sa, k },
                Divisor::Magic(m) => Op::IRemMagic { dst, a: sa, m },
                Divisor::Other => Op::IRem { dst, a: sa, b: sb },
            },
            BinaryOp::IAnd => Op::IAnd { dst, a: sa, b: sb },
            BinaryOp::IOr => Op::IOr { dst, a: sa, b: sb },
            BinaryOp::IXor => Op::IXor { dst, a: sa, b: sb },
            BinaryOp::IShl => Op::IShl { dst, a: sa, b: sb },
            BinaryOp::IShr => Op::IShr { dst, a: sa, b: sb },
            BinaryOp::IMin => Op::IMin { dst, a: sa, b: sb },
            BinaryOp::IMax => Op::IMax { dst, a: sa, b: sb },
            BinaryOp::FAdd => Op::FAdd { dst, a: sa, b: sb },
            BinaryOp::FSub => Op::FSub { dst, a: sa, b: sb },
            BinaryOp::FMul => Op::FMul { dst, a: sa, b: sb },
            BinaryOp::FDiv => Op::FDiv { dst, a: sa, b: sb },
            BinaryOp::FRem => Op::FRem { dst, a: sa, b: sb },
            BinaryOp::FMin => Op::FMin { dst, a: sa, b: sb },
            BinaryOp::FMax => Op::FMax { dst, a: sa, b: sb },
            BinaryOp::ICmp(cc) | BinaryOp::BCmp(cc) => match cc {
                Cmp::Eq => Op::IEq { dst, a: sa, b: sb },
                Cmp::Ne => Op::INe { dst, a: sa, b: sb },
                Cmp::Lt => Op::ILt { dst, a: sa, b: sb },
                Cmp::Le => Op::ILe { dst, a: sa, b: sb },
                Cmp::Gt => Op::ILt { dst, a: sb, b: sa },
                Cmp::Ge => Op::ILe { dst, a: sb, b: sa },
            },
            BinaryOp::FCmp(cc) => match cc {
                Cmp::Eq => Op::FEq { dst, a: sa, b: sb },
                Cmp::Ne => Op::FNe { dst, a: sa, b: sb },
                Cmp::Lt => Op::FLt { dst, a: sa, b: sb },
                Cmp::Le => Op::FLe { dst, a: sa, b: sb },
                Cmp::Gt => Op::FLt { dst, a: sb, b: sa },
                Cmp::Ge => Op::FLe { dst, a: sb, b: sa },
            },
        })
    }

    /// The condition "`c` is true", reading through a fused compare.
    fn cond_of(&self, c: Value, fused: Option<Fused>) -> Option<Cond> {
        let f = self.prep.func;
        let Some(Fused { cmp: inst, mask }) = fused else {
            return Some(Cond::Bool {
                c: self.s(c)?,
                want: true,
            });
        };
        if let (Some((x, mask)), InstKind::Binary(BinaryOp::ICmp(cc), ..)) =
            (mask, &f.insts[inst].kind)
        {
            return Some(Cond::Mask {
                a: self.s(x)?,
                mask,
                zero: *cc == Cmp::Eq,
            });
        }
        let InstKind::Binary(op, a, b) = f.insts[inst].kind else {
            return None;
        };
        let (sa, sb) = (self.s(a)?, self.s(b)?);
        Some(match op {
            BinaryOp::ICmp(cc) | BinaryOp::BCmp(cc) => match (self.prep.imm(a), self.prep.imm(b)) {
                (_, Some(imm)) => Cond::IntImm { cc, a: sa, imm },
                (Some(imm), None) => Cond::IntImm {
                    cc: swap(cc),
                    a: sb,
                    imm,
                },
                (None, None) => Cond::Int { cc, a: sa, b: sb },
            },
            BinaryOp::FCmp(cc) => Cond::Float {
                cc,
                a: sa,
                b: sb,
                neg: false,
            },
            _ => return None,
        })
    }

    fn terminator(&mut self, pos: u32, term: &'p Terminator, fused: Option<Fused>) -> Option<()> {
        let f = self.prep.func;
        match term {
            Terminator::Return(Some(v)) => {
                let src = self.s(*v)?;
                self.push(Op::Ret { src }, SrcLoc::NONE);
            }
            Terminator::Return(None) => self.push(Op::RetVoid, SrcLoc::NONE),
            Terminator::Switch {
                value: None,
                default,
                ..
            } => self.edge_inline(default, pos, true)?,
            Terminator::Switch {
                value: Some(c),
                cases,
                default,
            } => {
                if let [(key, edge)] = cases.as_slice() {
                    let two_way = if f.value_type(*c) == Type::Bool {
                        let cond = self.cond_of(*c, fused)?;
                        match key {
                            1 => Some((cond, edge, default)),
                            0 => Some((cond, default, edge)),
                            _ => None,
                        }
                    } else {
                        i32::try_from(*key).ok().and_then(|imm| {
                            let a = self.s(*c)?;
                            Some((
                                Cond::IntImm {
                                    cc: Cmp::Eq,
                                    a,
                                    imm,
                                },
                                edge,
                                default,
                            ))
                        })
                    };
                    if let Some((cond, then, otherwise)) = two_way {
                        return self.cond_branch(cond, then, otherwise, pos);
                    }
                }
                if fused.is_some() {
                    return None;
                }
                let v = self.s(*c)?;
                let start = u32::try_from(self.code.cases.len()).ok()?;
                for (key, edge) in cases {
                    let t = self.edge_target(edge, pos)?;
                    self.code.cases.push((*key, t));
                }
                let n = u32::try_from(cases.len()).ok()?;
                self.push(Op::Switch { v, start, n }, SrcLoc::NONE);
                self.edge_inline(default, pos, true)?;
            }
        }
        Some(())
    }

    /// Emits a two-way branch: to `then` when `cond` holds, else `otherwise`.
    fn cond_branch(
        &mut self,
        cond: Cond,
        then: &'p BlockCall,
        otherwise: &'p BlockCall,
        pos: u32,
    ) -> Option<()> {
        let t_simple = self.is_simple(then, pos)?;
        let f_simple = self.is_simple(otherwise, pos)?;
        let then_next = self.prep.pos(then.block) == pos + 1;
        if t_simple && !(f_simple && then_next) {
            let t = self.prep.pos(then.block);
            self.push(cond.branch(t), SrcLoc::NONE);
            self.edge_inline(otherwise, pos, true)
        } else if f_simple {
            let t = self.prep.pos(otherwise.block);
            self.push(cond.not().branch(t), SrcLoc::NONE);
            self.edge_inline(then, pos, true)
        } else {
            let t = self.stub(then, pos)?;
            self.push(cond.branch(t), SrcLoc::NONE);
            self.edge_inline(otherwise, pos, true)
        }
    }

    /// The moves an edge performs (destination, source), identities removed.
    fn edge_moves(&self, edge: &BlockCall) -> Option<Vec<(Slot, Slot)>> {
        let params = &self.prep.func.blocks[edge.block].params;
        let mut moves = Vec::new();
        for (&p, &a) in params.iter().zip(&edge.args) {
            let (d, s) = (self.s(p)?, self.s(a)?);
            if d != s {
                moves.push((d, s));
            }
        }
        Some(moves)
    }

    /// Whether taking `edge` from block position `pos` is a bare forward
    /// jump (no moves, no fuel), so a branch can target the block directly.
    fn is_simple(&self, edge: &BlockCall, pos: u32) -> Option<bool> {
        Some(self.prep.pos(edge.block) > pos && self.edge_moves(edge)?.is_empty())
    }

    /// The label a branch from `pos` uses to take `edge`.
    fn edge_target(&mut self, edge: &'p BlockCall, pos: u32) -> Option<Target> {
        if self.is_simple(edge, pos)? {
            Some(self.prep.pos(edge.block))
        } else {
            self.stub(edge, pos)
        }
    }

    /// A new label for a stub performing `edge` (emitted after the blocks).
    fn stub(&mut self, edge: &'p BlockCall, pos: u32) -> Option<Target> {
        let label = u32::try_from(self.labels.len()).ok()?;
        self.labels.push(UNPLACED);
        self.stubs.push((label, pos, edge));
        Some(label)
    }

    /// Emits the moves of `edge` and the jump to its block (nothing when the
    /// block comes next and `may_fall` allows falling through). Backward
    /// edges use [`Op::JumpBack`], which charges fuel.
    fn edge_inline(&mut self, edge: &BlockCall, pos: u32, may_fall: bool) -> Option<()> {
        let moves = self.edge_moves(edge)?;
        if !moves.is_empty() {
            let temp = match self.temp {
                Some(t) => t,
                None => self.next_slot,
            };
            let (seq, used) = sequentialize(&moves, temp);
            if used && self.temp.is_none() {
                self.temp = Some(self.new_slot()?);
            }
            for (dst, src) in seq {
                self.push(Op::Mov { dst, src }, SrcLoc::NONE);
            }
            if used {
                // The scratch copy must not keep an object alive.
                self.clear(&[temp], SrcLoc::NONE)?;
            }
        }
        let target = self.prep.pos(edge.block);
        if target <= pos && self.prep.is_osr_head(edge.block) {
            let head = (target, edge.block.index() as u32);
            if !self.code.osr_heads.contains(&head) {
                self.code.osr_heads.push(head);
            }
            self.push(Op::JumpBackOsr { t: target }, self.prep.func.loc);
        } else if target <= pos {
            self.push(Op::JumpBack { t: target }, self.prep.func.loc);
        } else if !(may_fall && target == pos + 1) {
            self.push(Op::Jump { t: target }, SrcLoc::NONE);
        }
        Some(())
    }
}

fn unary_kind(op: UnaryOp) -> UnKind {
    match op {
        UnaryOp::INeg => UnKind::INeg,
        UnaryOp::FNeg => UnKind::FNeg,
        UnaryOp::BNot => UnKind::BNot,
        UnaryOp::IToF => UnKind::IToF,
        UnaryOp::FToI => UnKind::FToI,
        UnaryOp::IAbs => UnKind::IAbs,
        UnaryOp::FAbs => UnKind::FAbs,
        UnaryOp::FSqrt => UnKind::FSqrt,
        UnaryOp::FFloor => UnKind::FFloor,
        UnaryOp::FCeil => UnKind::FCeil,
        UnaryOp::FSin => UnKind::FSin,
        UnaryOp::FCos => UnKind::FCos,
        UnaryOp::FTan => UnKind::FTan,
        UnaryOp::FExp => UnKind::FExp,
        UnaryOp::FLog => UnKind::FLog,
    }
}

/// Removes constant slots no op reads (constants that only ever became
/// immediates), renumbering the slots after them, so calls copy fewer
/// constants and frames shrink.
fn drop_unused_consts(code: &mut Code) {
    let base = code.const_base as usize;
    let nconsts = code.consts.len();
    let mut used = vec![false; nconsts];
    code.for_each_slot_mut(|s| {
        if let Some(u) = (*s as usize)
            .checked_sub(base)
            .and_then(|i| used.get_mut(i))
        {
            *u = true;
        }
    });
    if used.iter().all(|&u| u) {
        return;
    }
    // New index of each constant slot, and how many were removed before it.
    let mut remap = vec![0u32; nconsts];
    let mut kept = 0u32;
    for (i, &u) in used.iter().enumerate() {
        remap[i] = code.const_base + kept;
        kept += u32::from(u);
    }
    let removed = nconsts as u32 - kept;
    let end = base + nconsts;
    code.for_each_slot_mut(|s| {
        let i = *s as usize;
        if i >= end {
            *s -= removed;
        } else if i >= base {
            *s = remap[i - base];
        }
    });
    for s in &mut code.value_slots {
        let i = *s as usize;
        match *s {
            NO_SLOT => {}
            _ if i >= end => *s -= removed,
            // A constant: gone when no op reads it.
            _ if i >= base => {
                *s = if used[i - base] {
                    remap[i - base]
                } else {
                    NO_SLOT
                }
            }
            _ => {}
        }
    }
    let mut k = 0;
    code.consts.retain(|_| {
        k += 1;
        used[k - 1]
    });
    code.nslots -= removed;
}

/// How the interpreter divides by a divisor value.
enum Divisor {
    /// A constant `2^k` with `k >= 1`: shifts ([`Op::IDivPow2`]).
    Pow2(u32),
    /// Another constant with `|d| >= 2`: the multiplier `magics[m]`
    /// ([`Op::IDivMagic`]).
    Magic(u32),
    /// Anything else (a variable, 0, ±1): the divide instruction.
    Other,
}
