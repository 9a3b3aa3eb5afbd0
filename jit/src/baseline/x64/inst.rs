//! x86-64 lowering of each Waddle instruction (semantics bit for bit as
//! the interpreter's and T2's, `crate::cranelift::translate::inst`).

use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};
use waddle_opt::abi::{
    TrapCode, ARRAY_DATA_OFFSET, ARRAY_LEN_OFFSET, STR_LEN_OFFSET, VMCTX_ENTRIES_OFFSET,
    VMCTX_GLOBALS_OFFSET, VMCTX_STRINGS_OFFSET,
};
use waddle_opt::ir::{BinaryOp, Cmp, FuncId, InstData, InstKind, SrcLoc, Type, UnaryOp, Value};

use super::{arg_locs, disp, ArgLoc, Cond, X64};
use crate::abi::encode_type;
use crate::baseline::cold::ColdPaths;
use crate::baseline::driver::FnCx;
use crate::baseline::magic::{magic, Magic};
use crate::baseline::plan::{int_const, slot};
use crate::baseline::rt;
use crate::helpers::{cmp_code, Helper};

/// `v` when it is an integer constant that fits a sign-extended imm32.
fn imm32(cx: &FnCx<'_>, v: Value) -> Option<i32> {
    int_const(cx.func, v).and_then(|k| i32::try_from(k).ok())
}

/// Signed integer condition of a comparison.
fn int_cond(c: Cmp) -> Cond {
    match c {
        Cmp::Eq => Cond::E,
        Cmp::Ne => Cond::Ne,
        Cmp::Lt => Cond::L,
        Cmp::Le => Cond::Le,
        Cmp::Gt => Cond::G,
        Cmp::Ge => Cond::Ge,
    }
}

impl X64 {
    /// Lowers one instruction.
    pub(super) fn lower(
        &mut self,
        cx: &FnCx<'_>,
        data: &InstData,
        cold: &mut ColdPaths<DynamicLabel>,
    ) {
        let loc = data.loc;
        let r = data.result;
        match &data.kind {
            // Written once in the prologue (`FuncPlan::consts`).
            InstKind::IConst(_) | InstKind::FConst(_) | InstKind::BConst(_) => {}
            InstKind::SConst(s) => {
                let idx = cx.env.string_index.get(s).copied().unwrap_or(0);
                let off = 8 * idx as i32;
                dynasm!(self.ops ; .arch x64
                    ; mov rax, QWORD [rbx + VMCTX_STRINGS_OFFSET]
                    ; mov rax, QWORD [rax + off]
                );
                self.st_opt(r, 0);
            }
            InstKind::Copy(a) => {
                self.ld(0, *a);
                self.st_opt(r, 0);
            }
            InstKind::Unary(op, a) => self.unary(*op, *a, r),
            InstKind::Binary(op, a, b) => self.binary(cx, *op, *a, *b, r, loc, cold),
            InstKind::Call(callee, args) => self.call(cx, *callee, args, r, loc, cold),
            InstKind::GlobalGet(g) => {
                let off = 8 * g.as_u32() as i32;
                dynasm!(self.ops ; .arch x64
                    ; mov rax, QWORD [rbx + VMCTX_GLOBALS_OFFSET]
                    ; mov rax, QWORD [rax + off]
                );
                self.st_opt(r, 0);
            }
            InstKind::GlobalSet(g, v) => {
                let off = 8 * g.as_u32() as i32;
                self.ld(1, *v);
                dynasm!(self.ops ; .arch x64
                    ; mov rax, QWORD [rbx + VMCTX_GLOBALS_OFFSET]
                    ; mov QWORD [rax + off], rcx
                );
            }
            InstKind::ArrayLit(elems) => {
                let elem_ty = r
                    .map(|r| cx.func.value_type(r))
                    .and_then(Type::element)
                    .unwrap_or(Type::Int);
                let base = -8 - 8 * cx.plan.frame_words() as i32;
                for (k, &e) in elems.iter().enumerate() {
                    let off = base + 8 * k as i32;
                    self.ld(0, e);
                    dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + off], rax);
                }
                let code = encode_type(elem_ty) as i32;
                let n = elems.len() as i32;
                dynasm!(self.ops ; .arch x64
                    ; mov rdi, rbx
                    ; mov esi, code
                    ; lea rdx, [rbp + base]
                    ; mov ecx, n
                );
                self.call_helper(Helper::ArrayNew);
                self.check_trap_at(loc, cold);
                self.st_opt(r, 0);
            }
            InstKind::ArrayRepeat(v, n) => {
                let code = encode_type(cx.func.value_type(*v)) as i32;
                self.ld(2, *v);
                self.ld(1, *n);
                dynasm!(self.ops ; .arch x64 ; mov rdi, rbx ; mov esi, code);
                self.call_helper(Helper::ArrayRepeat);
                self.check_trap_at(loc, cold);
                self.st_opt(r, 0);
            }
            InstKind::ArrayLen(a) | InstKind::StrLen(a) => {
                let off = if matches!(data.kind, InstKind::ArrayLen(_)) {
                    ARRAY_LEN_OFFSET
                } else {
                    STR_LEN_OFFSET
                };
                self.ld(0, *a);
                dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [rax + off]);
                self.st_opt(r, 0);
            }
            InstKind::BoundsCheck(a, i) => {
                let l = self.trap_label(TrapCode::IndexOutOfBounds, loc, cold);
                self.ld(0, *a);
                self.ld(1, *i);
                dynasm!(self.ops ; .arch x64
                    ; cmp rcx, QWORD [rax + ARRAY_LEN_OFFSET]
                    ; jae =>l
                );
            }
            InstKind::ArrayGet(a, i) => {
                self.ld(0, *a);
                self.ld(1, *i);
                dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [rax + ARRAY_DATA_OFFSET]);
                if r.is_some_and(|r| cx.func.value_type(r) == Type::Float) {
                    dynasm!(self.ops ; .arch x64 ; movsd xmm0, QWORD [rax + rcx * 8]);
                    self.stf_opt(r);
                } else {
                    dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [rax + rcx * 8]);
                    self.st_opt(r, 0);
                }
            }
            InstKind::ArraySet(a, i, v) => {
                self.ld(0, *a);
                self.ld(1, *i);
                self.ld(2, *v);
                dynasm!(self.ops ; .arch x64
                    ; mov rax, QWORD [rax + ARRAY_DATA_OFFSET]
                    ; mov QWORD [rax + rcx * 8], rdx
                );
            }
            InstKind::ArrayPush(a, v) => {
                self.ld(6, *a);
                self.ld(2, *v);
                dynasm!(self.ops ; .arch x64 ; mov rdi, rbx);
                self.call_helper(Helper::ArrayPush);
                self.check_trap_at(loc, cold);
            }
            InstKind::ArrayPop(a) => {
                let l = self.trap_label(TrapCode::PopEmpty, loc, cold);
                self.ld(0, *a);
                dynasm!(self.ops ; .arch x64
                    ; mov rcx, QWORD [rax + ARRAY_LEN_OFFSET]
                    ; test rcx, rcx
                    ; je =>l
                    ; sub rcx, 1
                    ; mov QWORD [rax + ARRAY_LEN_OFFSET], rcx
                    ; mov rax, QWORD [rax + ARRAY_DATA_OFFSET]
                    ; mov rax, QWORD [rax + rcx * 8]
                );
                self.st_opt(r, 0);
            }
            InstKind::StrConcat(a, b) => {
                self.ld(6, *a);
                self.ld(2, *b);
                dynasm!(self.ops ; .arch x64 ; mov rdi, rbx);
                self.call_helper(Helper::StrConcat);
                self.check_trap_at(loc, cold);
                self.st_opt(r, 0);
            }
            InstKind::StrCmp(c, a, b) => {
                let cc = cmp_code(*c) as i32;
                self.ld(7, *a);
                self.ld(6, *b);
                dynasm!(self.ops ; .arch x64 ; mov edx, cc);
                self.call_helper(Helper::StrCmp);
                dynasm!(self.ops ; .arch x64 ; movzx eax, al);
                self.st_opt(r, 0);
            }
            InstKind::ToStr(v) | InstKind::Print(v) => {
                let code = encode_type(cx.func.value_type(*v)) as i32;
                self.ld(2, *v);
                dynasm!(self.ops ; .arch x64 ; mov rdi, rbx ; mov esi, code);
                self.call_helper(if matches!(data.kind, InstKind::ToStr(_)) {
                    Helper::ToStr
                } else {
                    Helper::Print
                });
                self.check_trap_at(loc, cold);
                self.st_opt(r, 0);
            }
            InstKind::Assert(c) => {
                let l = self.trap_label(TrapCode::AssertionFailed, loc, cold);
                let d = disp(*c);
                dynasm!(self.ops ; .arch x64
                    ; cmp QWORD [rbp + d], 0
                    ; je =>l
                );
            }
            InstKind::Clock => {
                dynasm!(self.ops ; .arch x64 ; mov rdi, rbx);
                self.call_helper(Helper::Clock);
                self.check_trap_at(loc, cold);
                self.stf_opt(r);
            }
        }
    }

    /// Stores `Rq(reg)` into the result slot, if there is a result.
    fn st_opt(&mut self, r: Option<Value>, reg: u8) {
        if let Some(r) = r {
            self.st(r, reg);
        }
    }

    /// The bool result of an integer comparison whose flags are live: kept
    /// in the flags only when the branch right after is its one use.
    fn set_bool(&mut self, cx: &FnCx<'_>, r: Option<Value>, cond: Cond) {
        let Some(r) = r else { return };
        if !cx.plan.fused[r] {
            self.setcc(cond);
            dynasm!(self.ops ; .arch x64 ; movzx eax, al);
            self.st(r, 0);
        }
        self.flags = Some((r, cond));
    }

    /// Stores `xmm0` into the result slot, if there is a result.
    fn stf_opt(&mut self, r: Option<Value>) {
        if let Some(r) = r {
            self.stf(r, 0);
        }
    }

    /// A constant word into the result slot.
    pub(super) fn const_word(&mut self, r: Option<Value>, k: i64) {
        let Some(r) = r else { return };
        let d = disp(r);
        match i32::try_from(k) {
            Ok(k32) => {
                dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], k32);
                self.forget_slot(slot(r));
            }
            Err(_) => {
                dynasm!(self.ops ; .arch x64 ; mov rax, QWORD k);
                self.st(r, 0);
            }
        }
    }

    /// A unary operation.
    fn unary(&mut self, op: UnaryOp, a: Value, r: Option<Value>) {
        match op {
            UnaryOp::INeg => {
                self.ld(0, a);
                dynasm!(self.ops ; .arch x64 ; neg rax);
            }
            UnaryOp::FNeg => {
                self.ld(0, a);
                dynasm!(self.ops ; .arch x64 ; btc rax, 63);
            }
            UnaryOp::FAbs => {
                self.ld(0, a);
                dynasm!(self.ops ; .arch x64 ; btr rax, 63);
            }
            UnaryOp::BNot => {
                self.ld(0, a);
                dynasm!(self.ops ; .arch x64 ; xor rax, 1);
            }
            UnaryOp::IAbs => {
                self.ld(0, a);
                dynasm!(self.ops ; .arch x64
                    ; mov rcx, rax
                    ; sar rcx, 63
                    ; xor rax, rcx
                    ; sub rax, rcx
                );
            }
            UnaryOp::IToF => {
                let d = disp(a);
                dynasm!(self.ops ; .arch x64
                    ; xorps xmm0, xmm0
                    ; cvtsi2sd xmm0, QWORD [rbp + d]
                );
                return self.stf_opt(r);
            }
            UnaryOp::FToI => {
                // cvttsd2si gives i64::MIN for NaN and out-of-range inputs;
                // fix those up to 0 and saturation.
                self.ldf(0, a);
                dynasm!(self.ops ; .arch x64
                    ; cvttsd2si rax, xmm0
                    ; cmp rax, 1
                    ; jno >done
                    ; ucomisd xmm0, xmm0
                    ; jp >nan
                    ; xorps xmm1, xmm1
                    ; ucomisd xmm0, xmm1
                    ; jb >done
                    ; mov rax, QWORD i64::MAX
                    ; jmp >done
                    ; nan:
                    ; xor eax, eax
                    ; done:
                );
            }
            UnaryOp::FSqrt => {
                let d = disp(a);
                dynasm!(self.ops ; .arch x64
                    ; sqrtsd xmm0, QWORD [rbp + d]
                );
                return self.stf_opt(r);
            }
            UnaryOp::FFloor | UnaryOp::FCeil => {
                self.ldf(0, a);
                let floor = op == UnaryOp::FFloor;
                if self.sse41 {
                    if floor {
                        dynasm!(self.ops ; .arch x64 ; roundsd xmm0, xmm0, 9);
                    } else {
                        dynasm!(self.ops ; .arch x64 ; roundsd xmm0, xmm0, 10);
                    }
                } else {
                    self.call_addr(if floor {
                        rt::floor_addr()
                    } else {
                        rt::ceil_addr()
                    });
                }
                return self.stf_opt(r);
            }
            UnaryOp::FSin | UnaryOp::FCos | UnaryOp::FTan | UnaryOp::FExp | UnaryOp::FLog => {
                let h = match op {
                    UnaryOp::FSin => Helper::Sin,
                    UnaryOp::FCos => Helper::Cos,
                    UnaryOp::FTan => Helper::Tan,
                    UnaryOp::FExp => Helper::Exp,
                    _ => Helper::Log,
                };
                self.ldf(0, a);
                self.call_helper(h);
                return self.stf_opt(r);
            }
        }
        self.st_opt(r, 0);
    }

    /// `rax = a; rax OP= b` for a commutative-or-not two-operand ALU op,
    /// with an immediate when `b` is a small constant.
    fn alu(&mut self, cx: &FnCx<'_>, op: BinaryOp, a: Value, b: Value) {
        self.ld(0, a);
        if let Some(k) = imm32(cx, b) {
            match op {
                BinaryOp::IAdd => dynasm!(self.ops ; .arch x64 ; add rax, k),
                BinaryOp::ISub => dynasm!(self.ops ; .arch x64 ; sub rax, k),
                BinaryOp::IMul => dynasm!(self.ops ; .arch x64 ; imul rax, rax, k),
                BinaryOp::IAnd => dynasm!(self.ops ; .arch x64 ; and rax, k),
                BinaryOp::IOr => dynasm!(self.ops ; .arch x64 ; or rax, k),
                _ => dynasm!(self.ops ; .arch x64 ; xor rax, k),
            }
            return;
        }
        if let Some(c) = self.icached(b) {
            match op {
                BinaryOp::IAdd => dynasm!(self.ops ; .arch x64 ; add rax, Rq(c)),
                BinaryOp::ISub => dynasm!(self.ops ; .arch x64 ; sub rax, Rq(c)),
                BinaryOp::IMul => dynasm!(self.ops ; .arch x64 ; imul rax, Rq(c)),
                BinaryOp::IAnd => dynasm!(self.ops ; .arch x64 ; and rax, Rq(c)),
                BinaryOp::IOr => dynasm!(self.ops ; .arch x64 ; or rax, Rq(c)),
                _ => dynasm!(self.ops ; .arch x64 ; xor rax, Rq(c)),
            }
            return;
        }
        let d = disp(b);
        match op {
            BinaryOp::IAdd => dynasm!(self.ops ; .arch x64 ; add rax, QWORD [rbp + d]),
            BinaryOp::ISub => dynasm!(self.ops ; .arch x64 ; sub rax, QWORD [rbp + d]),
            BinaryOp::IMul => dynasm!(self.ops ; .arch x64 ; imul rax, QWORD [rbp + d]),
            BinaryOp::IAnd => dynasm!(self.ops ; .arch x64 ; and rax, QWORD [rbp + d]),
            BinaryOp::IOr => dynasm!(self.ops ; .arch x64 ; or rax, QWORD [rbp + d]),
            _ => dynasm!(self.ops ; .arch x64 ; xor rax, QWORD [rbp + d]),
        }
    }

    /// `xmm0 = a OP b` for the four IEEE arithmetic operations.
    fn farith(&mut self, op: BinaryOp, a: Value, b: Value) {
        self.ldf(0, a);
        if let Some(c) = self.fcached(b) {
            match op {
                BinaryOp::FAdd => dynasm!(self.ops ; .arch x64 ; addsd xmm0, Rx(c)),
                BinaryOp::FSub => dynasm!(self.ops ; .arch x64 ; subsd xmm0, Rx(c)),
                BinaryOp::FMul => dynasm!(self.ops ; .arch x64 ; mulsd xmm0, Rx(c)),
                _ => dynasm!(self.ops ; .arch x64 ; divsd xmm0, Rx(c)),
            }
            return;
        }
        let d = disp(b);
        match op {
            BinaryOp::FAdd => dynasm!(self.ops ; .arch x64 ; addsd xmm0, QWORD [rbp + d]),
            BinaryOp::FSub => dynasm!(self.ops ; .arch x64 ; subsd xmm0, QWORD [rbp + d]),
            BinaryOp::FMul => dynasm!(self.ops ; .arch x64 ; mulsd xmm0, QWORD [rbp + d]),
            _ => dynasm!(self.ops ; .arch x64 ; divsd xmm0, QWORD [rbp + d]),
        }
    }

    /// A binary operation.
    #[allow(clippy::too_many_arguments)]
    fn binary(
        &mut self,
        cx: &FnCx<'_>,
        op: BinaryOp,
        a: Value,
        b: Value,
        r: Option<Value>,
        loc: SrcLoc,
        cold: &mut ColdPaths<DynamicLabel>,
    ) {
        match op {
            BinaryOp::IAdd
            | BinaryOp::ISub
            | BinaryOp::IMul
            | BinaryOp::IAnd
            | BinaryOp::IOr
            | BinaryOp::IXor => self.alu(cx, op, a, b),
            BinaryOp::IShl | BinaryOp::IShr => {
                self.ld(0, a);
                let shl = op == BinaryOp::IShl;
                match int_const(cx.func, b) {
                    Some(k) => {
                        let k = (k & 63) as i8;
                        if shl {
                            dynasm!(self.ops ; .arch x64 ; shl rax, k);
                        } else {
                            dynasm!(self.ops ; .arch x64 ; sar rax, k);
                        }
                    }
                    None => {
                        self.ld(1, b);
                        if shl {
                            dynasm!(self.ops ; .arch x64 ; shl rax, cl);
                        } else {
                            dynasm!(self.ops ; .arch x64 ; sar rax, cl);
                        }
                    }
                }
            }
            BinaryOp::IMin | BinaryOp::IMax => {
                self.ld(0, a);
                self.ld(1, b);
                dynasm!(self.ops ; .arch x64 ; cmp rax, rcx);
                if op == BinaryOp::IMin {
                    dynasm!(self.ops ; .arch x64 ; cmovg rax, rcx);
                } else {
                    dynasm!(self.ops ; .arch x64 ; cmovl rax, rcx);
                }
            }
            BinaryOp::IDiv | BinaryOp::IRem => {
                self.div_rem(cx, op == BinaryOp::IDiv, a, b, loc, cold)
            }
            BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv => {
                self.farith(op, a, b);
                if let Some(r) = r {
                    self.stf(r, 0);
                }
                return;
            }
            BinaryOp::FRem => {
                self.ldf(0, a);
                self.ldf(1, b);
                self.call_helper(Helper::Fmod);
                return self.stf_opt(r);
            }
            BinaryOp::FMin | BinaryOp::FMax => {
                // Rust's f64::min/max: a NaN operand yields the other one;
                // equal operands (±0) combine their sign bits.
                self.ldf(0, a);
                self.ldf(1, b);
                dynasm!(self.ops ; .arch x64
                    ; ucomisd xmm0, xmm1
                    ; jp >unordered
                    ; je >equal
                );
                if op == BinaryOp::FMin {
                    dynasm!(self.ops ; .arch x64 ; minsd xmm0, xmm1 ; jmp >done ; equal: ; orpd xmm0, xmm1);
                } else {
                    dynasm!(self.ops ; .arch x64 ; maxsd xmm0, xmm1 ; jmp >done ; equal: ; andpd xmm0, xmm1);
                }
                dynasm!(self.ops ; .arch x64
                    ; jmp >done
                    ; unordered:
                    ; ucomisd xmm0, xmm0
                    ; jnp >done
                    ; movapd xmm0, xmm1
                    ; done:
                );
                return self.stf_opt(r);
            }
            BinaryOp::ICmp(c) | BinaryOp::BCmp(c) => {
                self.ld(0, a);
                match (imm32(cx, b), self.icached(b)) {
                    (Some(k), _) => dynasm!(self.ops ; .arch x64 ; cmp rax, k),
                    (None, Some(c)) => dynasm!(self.ops ; .arch x64 ; cmp rax, Rq(c)),
                    (None, None) => {
                        let d = disp(b);
                        dynasm!(self.ops ; .arch x64 ; cmp rax, QWORD [rbp + d]);
                    }
                }
                let cond = int_cond(c);
                self.set_bool(cx, r, cond);
                return;
            }
            BinaryOp::FCmp(c) => {
                let (x, y, cond) = match c {
                    Cmp::Lt => (b, a, Some(Cond::A)),
                    Cmp::Le => (b, a, Some(Cond::Ae)),
                    Cmp::Gt => (a, b, Some(Cond::A)),
                    Cmp::Ge => (a, b, Some(Cond::Ae)),
                    Cmp::Eq | Cmp::Ne => (a, b, None),
                };
                self.ldf(0, x);
                match self.fcached(y) {
                    Some(c) => dynasm!(self.ops ; .arch x64 ; ucomisd xmm0, Rx(c)),
                    None => {
                        let d = disp(y);
                        dynasm!(self.ops ; .arch x64 ; ucomisd xmm0, QWORD [rbp + d]);
                    }
                }
                if let (Some(cond), Some(rv)) = (cond, r) {
                    if cx.plan.fused[rv] {
                        self.flags = Some((rv, cond));
                        return;
                    }
                }
                match (c, cond) {
                    (_, Some(cond)) => self.setcc(cond),
                    (Cmp::Eq, None) => {
                        dynasm!(self.ops ; .arch x64 ; sete al ; setnp cl ; and al, cl)
                    }
                    _ => dynasm!(self.ops ; .arch x64 ; setne al ; setp cl ; or al, cl),
                }
                dynasm!(self.ops ; .arch x64 ; movzx eax, al);
                self.st_opt(r, 0);
                self.flags = cond.and_then(|c| r.map(|r| (r, c)));
                return;
            }
        }
        self.st_opt(r, 0);
    }

    /// Integer `/` or `%`: a zero divisor traps; `MIN / -1` wraps and
    /// `MIN % -1` is 0 without a hardware fault. Result in `rax`.
    fn div_rem(
        &mut self,
        cx: &FnCx<'_>,
        div: bool,
        a: Value,
        b: Value,
        loc: SrcLoc,
        cold: &mut ColdPaths<DynamicLabel>,
    ) {
        let known = int_const(cx.func, b);
        if known == Some(0) {
            let l = self.trap_label(TrapCode::DivisionByZero, loc, cold);
            dynasm!(self.ops ; .arch x64 ; jmp =>l);
            return;
        }
        if let Some((d, m)) = known.and_then(|d| magic(d).map(|m| (d, m))) {
            self.div_const(div, a, d, m);
            return;
        }
        self.ld(0, a);
        self.ld(1, b);
        if known.is_none() {
            let l = self.trap_label(TrapCode::DivisionByZero, loc, cold);
            dynasm!(self.ops ; .arch x64 ; test rcx, rcx ; je =>l);
        }
        if known.is_none() || known == Some(-1) {
            dynasm!(self.ops ; .arch x64
                ; cmp rcx, -1
                ; jne >normal
            );
            if div {
                dynasm!(self.ops ; .arch x64 ; neg rax);
            } else {
                dynasm!(self.ops ; .arch x64 ; xor eax, eax);
            }
            dynasm!(self.ops ; .arch x64 ; jmp >done ; normal:);
        }
        dynasm!(self.ops ; .arch x64 ; cqo ; idiv rcx);
        if !div {
            dynasm!(self.ops ; .arch x64 ; mov rax, rdx);
        }
        dynasm!(self.ops ; .arch x64 ; done:);
    }

    /// `a / d` or `a % d` for a constant `d` outside `{-1, 0, 1}` by a
    /// magic multiplication (see [`crate::baseline::magic`]). Result in `rax`.
    fn div_const(&mut self, div: bool, a: Value, d: i64, m: Magic) {
        self.ld(1, a);
        let (mul, shift) = (m.mul, m.shift as i8);
        dynasm!(self.ops ; .arch x64
            ; mov rax, QWORD mul
            ; imul rcx
        );
        if d > 0 && mul < 0 {
            dynasm!(self.ops ; .arch x64 ; add rdx, rcx);
        } else if d < 0 && mul > 0 {
            dynasm!(self.ops ; .arch x64 ; sub rdx, rcx);
        }
        if shift > 0 {
            dynasm!(self.ops ; .arch x64 ; sar rdx, shift);
        }
        dynasm!(self.ops ; .arch x64
            ; mov rax, rdx
            ; shr rax, 63
            ; add rax, rdx
        );
        if !div {
            match i32::try_from(d) {
                Ok(d32) => dynasm!(self.ops ; .arch x64 ; imul rax, rax, d32),
                Err(_) => dynasm!(self.ops ; .arch x64 ; mov rdx, QWORD d ; imul rax, rdx),
            }
            dynasm!(self.ops ; .arch x64
                ; sub rcx, rax
                ; mov rax, rcx
            );
        }
    }

    /// A direct call through the callee's entry slot, then the trap check.
    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        cx: &FnCx<'_>,
        callee: FuncId,
        args: &[Value],
        r: Option<Value>,
        loc: SrcLoc,
        cold: &mut ColdPaths<DynamicLabel>,
    ) {
        let f = cx.env.program.funcs.get(callee);
        let Some(f) = f.filter(|f| f.sig.params.len() == args.len()) else {
            let l = self.trap_label(TrapCode::AssertionFailed, loc, cold);
            dynasm!(self.ops ; .arch x64 ; jmp =>l);
            return;
        };
        // A callee without a body here is defined in another compilation
        // unit: its slot is filled when the units are linked, and calling a
        // still-empty slot is the interpreter's error for a bodiless call.
        let unlinked = f
            .is_declaration()
            .then(|| self.trap_label(TrapCode::AssertionFailed, loc, cold));
        let (locs, nstack) = arg_locs(&f.sig.params);
        let area = (8 * (nstack + nstack % 2)) as i32;
        if area > 0 {
            dynasm!(self.ops ; .arch x64 ; sub rsp, area);
        }
        for (&a, &l) in args.iter().zip(&locs) {
            match l {
                ArgLoc::Stack(k) => {
                    let off = 8 * k as i32;
                    self.ld(0, a);
                    dynasm!(self.ops ; .arch x64 ; mov QWORD [rsp + off], rax);
                }
                ArgLoc::Int(reg) => self.ld(reg, a),
                ArgLoc::Float(x) => self.ldf(x, a),
            }
        }
        let off = 8 * callee.as_u32() as i32;
        if let Some(l) = unlinked {
            dynasm!(self.ops ; .arch x64
                ; mov rdi, rbx
                ; mov rax, QWORD [rbx + VMCTX_ENTRIES_OFFSET]
                ; mov rax, QWORD [rax + off]
                ; test rax, rax
                ; jz =>l
                ; call rax
            );
        } else {
            dynasm!(self.ops ; .arch x64
                ; mov rdi, rbx
                ; mov rax, QWORD [rbx + VMCTX_ENTRIES_OFFSET]
                ; call QWORD [rax + off]
            );
        }
        self.forget_all();
        if area > 0 {
            dynasm!(self.ops ; .arch x64 ; add rsp, area);
        }
        self.check_trap_at(loc, cold);
        if let Some(r) = r {
            match f.sig.ret {
                Type::Float => self.stf(r, 0),
                Type::Bool => {
                    dynasm!(self.ops ; .arch x64 ; movzx eax, al);
                    self.st(r, 0);
                }
                _ => self.st(r, 0),
            }
        }
    }
}
