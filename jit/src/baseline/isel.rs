//! Instruction selection shared by every baseline back end: each Waddle
//! instruction as a sequence of [`Backend`] operations (loads and stores
//! of slots and `VmCtx` tables, helper calls described by
//! [`crate::helpers::Helper::sig`] — LuaJIT's `lj_ir_callinfo` idea —,
//! trap checks, calls through entry slots). Only arithmetic, comparisons
//! and array element access are encoded per architecture. Semantics are bit
//! for bit the interpreter's and T2's
//! (`crate::cranelift::translate::inst`).

use waddle_opt::abi::{
    ElemLayout, TrapCode, ARRAY_LEN_OFFSET, STR_LEN_OFFSET, VMCTX_GLOBALS_OFFSET,
    VMCTX_STRINGS_OFFSET,
};
use waddle_opt::ir::{
    BinaryOp, Cmp, FuncId, InstData, InstKind, Signature, SrcLoc, Type, UnaryOp, Value,
};

use super::cold::ColdPaths;
use super::conv::{HelperArg, RetClass};
use super::driver::{Backend, FnCx};
use crate::abi::encode_type;
use crate::helpers::{cmp_code, Helper};

/// Architecture-neutral condition codes of live flags. Float comparisons
/// are emitted as "greater" tests with the operands swapped for `<`/`<=`,
/// so that the condition is false when unordered and its inverse true:
/// `Above`/`AboveEq` after x86-64 `ucomisd`, `Gt`/`Ge` after AArch64
/// `fcmp`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Cond {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Signed less than.
    Lt,
    /// Signed less or equal.
    Le,
    /// Signed greater than.
    Gt,
    /// Signed greater or equal.
    Ge,
    /// Unsigned above.
    Above,
    /// Unsigned above or equal.
    AboveEq,
    /// Unsigned below.
    Below,
    /// Unsigned below or equal.
    BelowEq,
}

impl Cond {
    /// The condition that holds exactly when `self` does not.
    pub fn invert(self) -> Cond {
        match self {
            Cond::Eq => Cond::Ne,
            Cond::Ne => Cond::Eq,
            Cond::Lt => Cond::Ge,
            Cond::Ge => Cond::Lt,
            Cond::Le => Cond::Gt,
            Cond::Gt => Cond::Le,
            Cond::Above => Cond::BelowEq,
            Cond::BelowEq => Cond::Above,
            Cond::AboveEq => Cond::Below,
            Cond::Below => Cond::AboveEq,
        }
    }

    /// The signed integer condition of a comparison.
    pub fn int(c: Cmp) -> Cond {
        match c {
            Cmp::Eq => Cond::Eq,
            Cmp::Ne => Cond::Ne,
            Cmp::Lt => Cond::Lt,
            Cmp::Le => Cond::Le,
            Cmp::Gt => Cond::Gt,
            Cmp::Ge => Cond::Ge,
        }
    }
}

/// A binary instruction, as handed to [`Backend::binary`].
#[derive(Copy, Clone, Debug)]
pub(crate) struct Binary {
    /// The operation.
    pub op: BinaryOp,
    /// Left operand.
    pub a: Value,
    /// Right operand.
    pub b: Value,
    /// The result, if used.
    pub r: Option<Value>,
    /// Where a trap points.
    pub loc: SrcLoc,
}

/// A call of a Waddle function, as handed to [`Backend::call_function`].
#[derive(Copy, Clone, Debug)]
pub(crate) struct Callee<'a> {
    /// The function called.
    pub id: FuncId,
    /// Its signature.
    pub sig: &'a Signature,
    /// The arguments, one per parameter.
    pub args: &'a [Value],
}

/// The label of the path raising `code` at `loc`.
pub(crate) fn trap_label<B: Backend>(
    b: &mut B,
    code: TrapCode,
    loc: SrcLoc,
    cold: &mut ColdPaths<B::Label>,
) -> B::Label {
    cold.trap(code, loc, || b.new_label())
}

/// After a call that may fail: a trap leaves, pointing at `loc` unless the
/// callee already located it.
pub(crate) fn check_trap_at<B: Backend>(b: &mut B, loc: SrcLoc, cold: &mut ColdPaths<B::Label>) {
    let l = cold.propagate(loc, || b.new_label());
    b.jump_if_trap(l);
}

/// The bool result `r` of a comparison whose flags hold `cond`: kept in the
/// flags only when the branch right after is its one use.
pub(crate) fn set_bool<B: Backend>(b: &mut B, cx: &FnCx<'_>, r: Option<Value>, cond: Cond) {
    let Some(r) = r else { return };
    if !cx.plan.fused[r] {
        b.materialize(r, cond);
    }
    b.set_flags(Some((r, cond)));
}

/// Calls helper `h`, checks the trap record when it may fail, and stores
/// its result into `r`.
fn helper<B: Backend>(
    b: &mut B,
    h: Helper,
    args: &[HelperArg],
    r: Option<Value>,
    loc: SrcLoc,
    cold: &mut ColdPaths<B::Label>,
) {
    b.call_helper(h, args);
    if h.may_trap() {
        check_trap_at(b, loc, cold);
    }
    if let (Some(r), Some(class)) = (r, RetClass::of_helper(h)) {
        take_result(b, r, class);
    }
}

/// Stores the result of the call just made into `r`'s slot.
fn take_result<B: Backend>(b: &mut B, r: Value, class: RetClass) {
    match class {
        RetClass::Float => b.stf(r, 0),
        RetClass::Byte => {
            b.zext_byte(0);
            b.st(r, 0);
        }
        RetClass::Word => b.st(r, 0),
    }
}

/// `r = h(args)` for a float helper that cannot fail (libm functions,
/// `fmod`): what a back end emits for the operations it has no
/// instruction for.
pub(crate) fn float_call<B: Backend>(b: &mut B, h: Helper, args: &[Value], r: Option<Value>) {
    let args: Vec<HelperArg> = args.iter().map(|&v| HelperArg::Val(v)).collect();
    b.call_helper(h, &args);
    b.stf_opt(r, 0);
}

/// The libm helper for the float operations no instruction set here has
/// (`sin cos tan exp log`); `None` for the operations the back ends encode.
fn libm_helper(op: UnaryOp) -> Option<Helper> {
    Some(match op {
        UnaryOp::FSin => Helper::Sin,
        UnaryOp::FCos => Helper::Cos,
        UnaryOp::FTan => Helper::Tan,
        UnaryOp::FExp => Helper::Exp,
        UnaryOp::FLog => Helper::Log,
        _ => return None,
    })
}

/// Lowers one instruction.
pub(crate) fn lower<B: Backend>(
    b: &mut B,
    cx: &FnCx<'_>,
    data: &InstData,
    cold: &mut ColdPaths<B::Label>,
) {
    let loc = data.loc;
    let r = data.result;
    let type_code = |v: Value| i64::from(encode_type(cx.func.value_type(v)));
    match &data.kind {
        // Written once in the prologue (`FuncPlan::consts`).
        InstKind::IConst(_) | InstKind::FConst(_) | InstKind::BConst(_) => {}
        InstKind::SConst(s) => {
            if let Some(r) = r {
                let idx = cx.env.string_index.get(s).copied().unwrap_or(0);
                b.load_ctx_table(VMCTX_STRINGS_OFFSET, idx, r);
            }
        }
        InstKind::Copy(a) => {
            b.ld(B::ACC, *a);
            b.st_opt(r, B::ACC);
        }
        InstKind::Unary(op, a) => match libm_helper(*op) {
            Some(h) => float_call(b, h, &[*a], r),
            None => b.unary(*op, *a, r),
        },
        InstKind::Binary(op, a, c) => {
            let inst = Binary {
                op: *op,
                a: *a,
                b: *c,
                r,
                loc,
            };
            b.binary(cx, inst, cold);
        }
        InstKind::Call(callee, args) => call(b, cx, *callee, args, r, loc, cold),
        InstKind::GlobalGet(g) => {
            if let Some(r) = r {
                b.load_ctx_table(VMCTX_GLOBALS_OFFSET, g.as_u32() as usize, r);
            }
        }
        InstKind::GlobalSet(g, v) => {
            b.store_ctx_table(VMCTX_GLOBALS_OFFSET, g.as_u32() as usize, *v)
        }
        InstKind::ArrayLit(elems) => {
            let elem_ty = r
                .map(|r| cx.func.value_type(r))
                .and_then(Type::element)
                .unwrap_or(Type::Int);
            for (k, &e) in elems.iter().enumerate() {
                b.store_scratch(k, e);
            }
            let args = [
                HelperArg::Ctx,
                HelperArg::Imm(i64::from(encode_type(elem_ty))),
                HelperArg::Scratch,
                HelperArg::Imm(elems.len() as i64),
            ];
            helper(b, Helper::ArrayNew, &args, r, loc, cold);
        }
        InstKind::ArrayRepeat(v, n) => {
            let args = [
                HelperArg::Ctx,
                HelperArg::Imm(type_code(*v)),
                HelperArg::Val(*v),
                HelperArg::Val(*n),
            ];
            helper(b, Helper::ArrayRepeat, &args, r, loc, cold);
        }
        InstKind::ArrayLen(a) => {
            if let Some(r) = r {
                b.load_field(r, *a, ARRAY_LEN_OFFSET);
            }
        }
        InstKind::StrLen(a) => {
            if let Some(r) = r {
                b.load_field(r, *a, STR_LEN_OFFSET);
            }
        }
        InstKind::BoundsCheck(a, i) => {
            let l = trap_label(b, TrapCode::IndexOutOfBounds, loc, cold);
            b.bounds_check(*a, *i, l);
        }
        InstKind::ArrayGet(a, i) => {
            let float = r.is_some_and(|r| cx.func.value_type(r) == Type::Float);
            b.array_get(*a, *i, r, float, byte_elems(cx, *a));
        }
        InstKind::ArraySet(a, i, v) => b.array_set(*a, *i, *v, byte_elems(cx, *a)),
        InstKind::ArrayPush(a, v) => {
            let args = [HelperArg::Ctx, HelperArg::Val(*a), HelperArg::Val(*v)];
            helper(b, Helper::ArrayPush, &args, r, loc, cold);
        }
        InstKind::ArrayPop(a) => {
            let l = trap_label(b, TrapCode::PopEmpty, loc, cold);
            b.array_pop(*a, r, l, byte_elems(cx, *a));
        }
        InstKind::StrConcat(a, c) => {
            let args = [HelperArg::Ctx, HelperArg::Val(*a), HelperArg::Val(*c)];
            helper(b, Helper::StrConcat, &args, r, loc, cold);
        }
        InstKind::StrCmp(c, x, y) => {
            let args = [
                HelperArg::Val(*x),
                HelperArg::Val(*y),
                HelperArg::Imm(i64::from(cmp_code(*c))),
            ];
            helper(b, Helper::StrCmp, &args, r, loc, cold);
        }
        InstKind::ToStr(v) | InstKind::Print(v) => {
            let h = if matches!(data.kind, InstKind::ToStr(_)) {
                Helper::ToStr
            } else {
                Helper::Print
            };
            let args = [
                HelperArg::Ctx,
                HelperArg::Imm(type_code(*v)),
                HelperArg::Val(*v),
            ];
            helper(b, h, &args, r, loc, cold);
        }
        InstKind::Assert(c) => {
            let l = trap_label(b, TrapCode::AssertionFailed, loc, cold);
            b.branch(*c, 0, true, l);
        }
        InstKind::Clock => helper(b, Helper::Clock, &[HelperArg::Ctx], r, loc, cold),
        InstKind::HostCall(h, args) => {
            // Arguments travel as words in the scratch area; the result
            // comes back as a word (float bits, bool 0/1) for every type.
            for (k, &a) in args.iter().enumerate() {
                b.store_scratch(k, a);
            }
            let args = [
                HelperArg::Ctx,
                HelperArg::Imm(i64::from(h.as_u32())),
                HelperArg::Scratch,
                HelperArg::Imm(args.len() as i64),
            ];
            helper(b, Helper::HostCall, &args, r, loc, cold);
        }
    }
}

/// A direct call through the callee's entry slot, then the trap check.
fn call<B: Backend>(
    b: &mut B,
    cx: &FnCx<'_>,
    callee: FuncId,
    args: &[Value],
    r: Option<Value>,
    loc: SrcLoc,
    cold: &mut ColdPaths<B::Label>,
) {
    let f = cx.env.program.funcs.get(callee);
    let Some(f) = f.filter(|f| f.sig().params.len() == args.len()) else {
        let l = trap_label(b, TrapCode::AssertionFailed, loc, cold);
        b.jump(l);
        return;
    };
    // A callee without a body here is defined in another compilation unit:
    // its slot is filled when the units are linked, and calling a
    // still-empty slot is the interpreter's error for a bodiless call.
    let unlinked = f
        .is_declaration()
        .then(|| trap_label(b, TrapCode::AssertionFailed, loc, cold));
    let target = Callee {
        id: callee,
        sig: f.sig(),
        args,
    };
    b.call_function(target, unlinked);
    check_trap_at(b, loc, cold);
    if let Some(r) = r {
        take_result(b, r, RetClass::of_type(f.sig().ret));
    }
}

/// Whether the array value `a` has one-byte elements (`[bool]`).
fn byte_elems(cx: &FnCx<'_>, a: Value) -> bool {
    ElemLayout::of_array(cx.func.value_type(a)) == ElemLayout::Byte
}
