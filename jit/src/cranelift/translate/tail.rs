//! Tail self calls as loops (T2/T3, where self calls are direct; see
//! `Translator::run`): the accumulator rewrite of a recursive function's
//! one self call in tail position, `return x ⊕ f(args)` for an associative
//! and commutative integer `⊕` (wrapping `+ *`, `& | ^`, `min`, `max`) or a
//! plain `return f(args)`. This is what gcc -O2 does with `fib`: one real
//! call per iteration, the other call a jump.
//!
//! The call becomes `acc = acc ⊕ x` and a jump back to the function's
//! entry block with `args`; a return of `v` returns `acc ⊕ v` (`acc` starts
//! at `⊕`'s identity). Integer arithmetic wraps (LANGUAGE.md), so the
//! combined value is the same in any grouping. Each iteration stands for a
//! frame the call would have taken, and everything that frame would show
//! is kept:
//! - the jump takes a frame of recursion depth (`VmCtx::depth_left`): it
//!   raises `stack overflow` at the call, as the callee's prologue would,
//!   when none is left, and leaves one less in the counter; the return
//!   gives back every frame the loop took (it stores the value the
//!   prologue read); a guarded self call earlier in the tail call's block
//!   checked the same counter value, so the jump does not check again;
//! - it charges one unit of fuel, like a callee's prologue (a failure
//!   located at the call);
//! - a trap in iteration `k` reports, after the frames it reports anyway,
//!   `k` frames of the function at the tail call, the frames of the
//!   iterations it stands for (innermost first, all at that call). A
//!   single tail call per function keeps that one location right for
//!   every iteration.
//!
//! The counter's value for the current iteration is a variable (`left`),
//! so the loop neither reloads the counter nor keeps the prologue's value
//! live across calls: the prologue stores what it leaves in the counter,
//! `D - 1`, in a stack slot of the frame (before anything can trap), and
//! `k` is that minus `left`. Returns give back every frame the loop took
//! by storing the slot's value plus one. The unwinder
//! (`super::super::unwind`) finds `k` of a frame suspended at a self call
//! without `left`: the callee's prologue read `left` from the counter, so
//! `k` is the caller's slot minus the callee's, minus one.
//!
//! Like an inlined copy ([`super::inline`]), an iteration takes no native
//! stack and so does not check it: the recursion depth bounds recursion on
//! every tier.
//!
//! fib(30) makes 832 040 real calls and 1 346 268 iterations instead of
//! 1 346 268 real calls (guarded calls, [`super::guard`], take the leaves).
//!
//! A small function's other self calls are inlined one level into the
//! loop's body ([`super::inline`], "In a tail loop"); the copies' own self
//! calls are real calls (guarded, [`super::guard`], where a region
//! exists).

use cranelift_codegen::ir::{self, condcodes::IntCC, types, BlockArg, InstBuilder};
use cranelift_frontend::Variable;
use waddle_opt::abi::{TrapCode, VMCTX_DEPTH_LEFT_OFFSET};
use waddle_opt::ir::{
    BinaryOp, Block, FuncId, Function, Inst, InstKind, SrcLoc, Terminator, Type, Value,
};

use super::{flags, Translator};

/// The tail self call of a function, as found in its IR.
#[derive(Clone, Debug)]
pub(super) struct TailSite {
    /// The block that ends with the call and the return.
    pub block: Block,
    /// The self call (the block's last instruction, or the one before the
    /// combining operation).
    pub call: Inst,
    /// The combining operation and its other operand (`None`: a plain
    /// `return f(args)`).
    pub combine: Option<(BinaryOp, Value)>,
}

/// A tail loop being translated.
pub(super) struct TailLoop {
    /// The tail call.
    pub site: TailSite,
    /// The call's location (every iteration's frame is reported there).
    pub loc: SrcLoc,
    /// The accumulated value (with a combining operation).
    pub acc: Option<Variable>,
    /// The frame's slot holding the counter's value after the prologue.
    pub slot: ir::StackSlot,
    /// The counter's value in the current iteration.
    pub left: Variable,
}

/// The identity of `op` if it is an associative and commutative integer
/// operation.
fn identity(op: BinaryOp) -> Option<i64> {
    match op {
        BinaryOp::IAdd | BinaryOp::IOr | BinaryOp::IXor => Some(0),
        BinaryOp::IMul => Some(1),
        BinaryOp::IAnd => Some(-1),
        BinaryOp::IMin => Some(i64::MAX),
        BinaryOp::IMax => Some(i64::MIN),
        _ => None,
    }
}

/// The tail self call of `func` (function `me`) among the blocks of
/// `order`, when it has exactly one.
pub(super) fn find(func: &Function, me: FuncId, order: &[Block]) -> Option<TailSite> {
    let mut found = None;
    for &bl in order {
        if let Some(site) = site_in(func, me, bl) {
            if found.is_some() {
                return None;
            }
            found = Some(site);
        }
    }
    found
}

/// The tail self call ending block `bl`, if it ends with one.
fn site_in(func: &Function, me: FuncId, bl: Block) -> Option<TailSite> {
    let data = &func.blocks()[bl];
    let Terminator::Return(ret) = data.term else {
        return None;
    };
    let (&last, rest) = data.insts.split_last()?;
    let is_self_call = |i: Inst| matches!(func.inst(i).kind, InstKind::Call(c, _) if c == me);
    if is_self_call(last) && func.inst(last).result == ret {
        return Some(TailSite {
            block: bl,
            call: last,
            combine: None,
        });
    }
    let &call = rest.last()?;
    let InstKind::Binary(op, a, b) = func.inst(last).kind else {
        return None;
    };
    let r = func.inst(call).result?;
    if !is_self_call(call)
        || ret != func.inst(last).result
        || identity(op).is_none()
        || func.value_type(r) != Type::Int
    {
        return None;
    }
    let other = match (a == r, b == r) {
        (true, false) => b,
        (false, true) => a,
        _ => return None,
    };
    Some(TailSite {
        block: bl,
        call,
        combine: Some((op, other)),
    })
}

impl Translator<'_, '_> {
    /// The prologue's part of the tail loop, first thing in the function:
    /// reads the counter `d` and stores `d - 1` in the slot and in `left`.
    /// Returns `d` for the prologue's depth check.
    pub(super) fn tail_prologue(&mut self) -> Option<ir::Value> {
        let tail = self.tail.as_ref()?;
        let (slot, left) = (tail.slot, tail.left);
        let ctx = self.ctx();
        let d = self
            .b
            .ins()
            .load(types::I64, flags(), ctx, VMCTX_DEPTH_LEFT_OFFSET);
        let d1 = self.b.ins().iadd_imm_s(d, -1);
        self.b.ins().stack_store(types::I64, d1, slot, 0);
        self.b.def_var(left, d1);
        Some(d)
    }

    /// Starts the tail loop at the end of the prologue: the accumulator at
    /// the operation's identity.
    pub(super) fn start_tail_loop(&mut self) {
        let Some(tail) = &self.tail else {
            return;
        };
        let (acc, combine) = (tail.acc, tail.site.combine);
        if let (Some(acc), Some((op, _))) = (acc, combine) {
            let id = self.b.ins().iconst(types::I64, identity(op).unwrap_or(0));
            self.b.def_var(acc, id);
        }
    }

    /// Whether block `bl` of the function body ends with the tail call
    /// (not in an inlined or guarded copy, which never contain it).
    pub(super) fn tail_block(&self, bl: Block) -> Option<Inst> {
        let tail = self.tail.as_ref()?;
        (tail.site.block == bl && self.inlined.is_none() && self.guard_exit.is_none())
            .then_some(tail.site.call)
    }

    /// Translates the tail call with arguments `args` into the loop's next
    /// iteration (see the module docs).
    pub(super) fn tail_jump(&mut self, args: &[Value]) {
        let Some(tail) = &self.tail else {
            return;
        };
        let (loc, left_var, acc, combine) = (tail.loc, tail.left, tail.acc, tail.site.combine);
        let tail_block = tail.site.block;
        let args: Vec<BlockArg> = args.iter().map(|&a| BlockArg::Value(self.val(a))).collect();
        if let (Some(acc), Some((op, other))) = (acc, combine) {
            let a = self.b.use_var(acc);
            let x = self.val(other);
            let a1 = self.combine(op, a, x);
            self.b.def_var(acc, a1);
        }
        // The iteration's frame of recursion depth: the counter holds this
        // iteration's frames left (calls in between gave back what they
        // took).
        let left = self.b.use_var(left_var);
        // A guarded self call of this block checked the same value already
        // (and a failed check did not get here).
        if self.tail_checked != Some(tail_block) {
            let overflow = self.trap_block(TrapCode::StackOverflow, loc);
            let none_left = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, left, 1);
            let take = self.b.create_block();
            self.b.ins().brif(none_left, overflow, &[], take, &[]);
            self.b.switch_to_block(take);
        }
        let left1 = self.b.ins().iadd_imm_s(left, -1);
        let ctx = self.ctx();
        self.b
            .ins()
            .store(flags(), left1, ctx, VMCTX_DEPTH_LEFT_OFFSET);
        self.fuel_tick(Some(loc));
        self.b.def_var(left_var, left1);
        let first = self.block_of(self.func.entry());
        self.b.ins().jump(first, &args);
    }

    /// Whether the callee of a self call here has no frame of recursion
    /// depth left, in a tail loop (`None` without one).
    /// Notes the check for a later [`Translator::tail_jump`] of the block
    /// (`bl`: the Waddle block being translated).
    ///
    /// In an inlined copy ([`super::inline`]) the callee is one frame
    /// deeper: the copy's frame is taken too. A check in a copy (`bl`
    /// `None`) leaves the note alone: the copy's entry check, made in the
    /// body block that holds the copy, is the one the tail jump relies on.
    pub(super) fn tail_none_left(&mut self, bl: Option<Block>) -> Option<ir::Value> {
        let left = self.b.use_var(self.tail.as_ref()?.left);
        if bl.is_some() {
            self.tail_checked = bl;
        }
        let frames = 1 + i64::from(self.loop_copy);
        Some(self.b.ins().icmp_imm_s(IntCC::SignedLessThan, left, frames))
    }

    /// Stores the iteration's counter minus `copies` (the frames of the
    /// inlined copies this code is in) in `VmCtx::depth_left`.
    pub(super) fn store_iteration_depth(&mut self, copies: i64) {
        let Some(tail) = &self.tail else {
            return;
        };
        let left = self.b.use_var(tail.left);
        let v = if copies == 0 {
            left
        } else {
            self.b.ins().iadd_imm_s(left, -copies)
        };
        let ctx = self.ctx();
        self.b.ins().store(flags(), v, ctx, VMCTX_DEPTH_LEFT_OFFSET);
    }

    /// Before a call (a Waddle call, direct or through a slot, or a host
    /// call: whatever may read `VmCtx::depth_left`) in an inlined copy in a
    /// tail loop: the counter the callee reads, the iteration's minus the
    /// copy's frame. The copy keeps its frame in the counter only for its
    /// calls, so a copy that makes none costs no store.
    pub(super) fn store_copy_depth(&mut self) {
        if self.loop_copy {
            self.store_iteration_depth(1);
        }
    }

    /// Whether the iteration may read `VmCtx::depth_left` after the
    /// instruction being translated (a self call that becomes an inlined
    /// copy, which may leave the copy's counter there) before a store of
    /// it: a call later in the block, or a successor block. The tail jump
    /// and a return store the counter themselves.
    pub(super) fn counter_read_after_call(&self) -> bool {
        let (Some(bl), Some(at)) = (self.current_block, self.current_inst) else {
            return true;
        };
        let data = &self.func.blocks()[bl];
        let tail_call = self.tail_block(bl);
        let Some(pos) = data.insts.iter().position(|&i| i == at) else {
            return true;
        };
        for &i in &data.insts[pos + 1..] {
            if Some(i) == tail_call {
                return false;
            }
            if matches!(
                self.func.inst(i).kind,
                InstKind::Call(..) | InstKind::HostCall(..)
            ) {
                return true;
            }
        }
        !matches!(data.term, Terminator::Return(_))
    }

    /// The counter's value a return stores in a tail loop: the prologue's
    /// (`None` without a loop).
    pub(super) fn tail_depth_on_entry(&mut self) -> Option<ir::Value> {
        self.tail.as_ref()?;
        let d1 = self.tail_slot_value();
        Some(self.b.ins().iadd_imm_s(d1, 1))
    }

    /// Loads the slot (the prologue's counter minus one) where it is needed.
    /// Its address is not the prologue's `stack_addr` (that one Cranelift
    /// would compute once and keep in a callee-saved register all through
    /// the function, and the context pointer would spill; a context that
    /// is reloaded before each use made fib 2x slower).
    fn tail_slot_value(&mut self) -> ir::Value {
        let slot = self.tail.as_ref().expect("a tail loop").slot;
        let addr = self.b.ins().stack_addr(types::I64, slot, 8);
        self.b.ins().load(types::I64, flags(), addr, -8)
    }

    /// The value a return of `v` in the body returns: `acc ⊕ v`.
    pub(super) fn tail_result(&mut self, v: ir::Value) -> ir::Value {
        let Some(tail) = &self.tail else {
            return v;
        };
        match (tail.acc, tail.site.combine) {
            (Some(acc), Some((op, _))) if self.inlined.is_none() => {
                let a = self.b.use_var(acc);
                self.combine(op, a, v)
            }
            _ => v,
        }
    }

    /// `a ⊕ b` for a combining operation.
    fn combine(&mut self, op: BinaryOp, a: ir::Value, b: ir::Value) -> ir::Value {
        let ins = self.b.ins();
        match op {
            BinaryOp::IAdd => ins.iadd(a, b),
            BinaryOp::IMul => ins.imul(a, b),
            BinaryOp::IAnd => ins.band(a, b),
            BinaryOp::IOr => ins.bor(a, b),
            BinaryOp::IXor => ins.bxor(a, b),
            BinaryOp::IMin => ins.smin(a, b),
            _ => ins.smax(a, b),
        }
    }

    /// On a trap path: reports the frames of the tail loop's iterations
    /// taken so far, each at the tail call (nothing without a loop).
    pub(super) fn tail_frames(&mut self) {
        let Some(tail) = &self.tail else {
            return;
        };
        let left = tail.left;
        let loc = tail.loc;
        let d1 = self.tail_slot_value();
        let left = self.b.use_var(left);
        let k = self.b.ins().isub(d1, left);
        // One call of a Rust loop: a loop here would keep its counter and
        // the location's constants in callee-saved registers, which every
        // call of the function would then save and restore.
        let mut sig = ir::Signature::new(self.env.call_conv);
        sig.params.extend(
            [
                types::I64,
                types::I32,
                types::I32,
                types::I32,
                types::I32,
                types::I64,
            ]
            .map(ir::AbiParam::new),
        );
        let sig = self.b.import_signature(sig);
        let addr = crate::helpers::trap_frames as *const () as usize;
        let addr = self.b.ins().iconst(types::I64, addr as i64);
        let ctx = self.ctx();
        let mut args = vec![ctx];
        for v in [self.fid.as_u32(), loc.file, loc.line, loc.col] {
            args.push(self.b.ins().iconst(types::I32, i64::from(v)));
        }
        args.push(k);
        self.b.ins().call_indirect(sig, addr, &args);
    }
}
