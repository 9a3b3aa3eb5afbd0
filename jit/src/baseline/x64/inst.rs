//! x86-64 encodings of the arithmetic the shared instruction selection
//! ([`crate::baseline::isel`]) leaves to the back end: unary and binary
//! operations, comparisons (into the flags), integer division (semantics
//! bit for bit as the interpreter's and T2's,
//! `crate::cranelift::translate::inst`).

use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};
use waddle_opt::abi::TrapCode;
use waddle_opt::ir::{BinaryOp, Cmp, SrcLoc, UnaryOp, Value};

use super::X64;
use crate::baseline::cold::ColdPaths;
use crate::baseline::driver::{Arith, Backend, FnCx};
use crate::baseline::isel::{self, Binary, Cond};
use crate::baseline::plan::int_const;
use crate::baseline::rt;
use crate::helpers::Helper;
use waddle_opt::magic::{magic, Magic};

/// `v` when it is an integer constant that fits a sign-extended imm32.
fn imm32(cx: &FnCx<'_>, v: Value) -> Option<i32> {
    int_const(cx.func, v).and_then(|k| i32::try_from(k).ok())
}

impl Arith for X64 {
    type Label = DynamicLabel;

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
                dynasm!(self.ops ; .arch x64 ; xorps xmm0, xmm0);
                match self.icached(a) {
                    Some(c) => dynasm!(self.ops ; .arch x64 ; cvtsi2sd xmm0, Rq(c)),
                    None => {
                        let d = self.disp(a);
                        dynasm!(self.ops ; .arch x64 ; cvtsi2sd xmm0, QWORD [rbp + d]);
                    }
                }
                return self.stf_opt(r, 0);
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
                match self.fcached(a) {
                    Some(c) => dynasm!(self.ops ; .arch x64 ; sqrtsd xmm0, Rx(c)),
                    None => {
                        let d = self.disp(a);
                        dynasm!(self.ops ; .arch x64 ; sqrtsd xmm0, QWORD [rbp + d]);
                    }
                }
                return self.stf_opt(r, 0);
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
                return self.stf_opt(r, 0);
            }
            UnaryOp::FSin | UnaryOp::FCos | UnaryOp::FTan | UnaryOp::FExp | UnaryOp::FLog => {
                unreachable!("isel::lower calls libm for {op:?}")
            }
        }
        self.st_opt(r, 0);
    }

    fn binary(&mut self, cx: &FnCx<'_>, inst: Binary, cold: &mut ColdPaths<DynamicLabel>) {
        let Binary { op, a, b, r, loc } = inst;
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
            BinaryOp::FRem => return isel::float_call(self, Helper::Fmod, &[a, b], r),
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
                return self.stf_opt(r, 0);
            }
            BinaryOp::ICmp(c) | BinaryOp::BCmp(c) => {
                let ra = self.ireg(a, 0);
                match (imm32(cx, b), self.icached(b)) {
                    (Some(k), _) => dynasm!(self.ops ; .arch x64 ; cmp Rq(ra), k),
                    (None, Some(c)) => dynasm!(self.ops ; .arch x64 ; cmp Rq(ra), Rq(c)),
                    (None, None) => {
                        let d = self.disp(b);
                        dynasm!(self.ops ; .arch x64 ; cmp Rq(ra), QWORD [rbp + d]);
                    }
                }
                isel::set_bool(self, cx, r, Cond::int(c));
                return;
            }
            BinaryOp::FCmp(c) => {
                let (x, y, cond) = match c {
                    Cmp::Lt => (b, a, Some(Cond::Above)),
                    Cmp::Le => (b, a, Some(Cond::AboveEq)),
                    Cmp::Gt => (a, b, Some(Cond::Above)),
                    Cmp::Ge => (a, b, Some(Cond::AboveEq)),
                    Cmp::Eq | Cmp::Ne => (a, b, None),
                };
                self.ldf(0, x);
                match self.fcached(y) {
                    Some(c) => dynasm!(self.ops ; .arch x64 ; ucomisd xmm0, Rx(c)),
                    None => {
                        let d = self.disp(y);
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
}

impl X64 {
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
        let d = self.disp(b);
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
        let d = self.disp(b);
        match op {
            BinaryOp::FAdd => dynasm!(self.ops ; .arch x64 ; addsd xmm0, QWORD [rbp + d]),
            BinaryOp::FSub => dynasm!(self.ops ; .arch x64 ; subsd xmm0, QWORD [rbp + d]),
            BinaryOp::FMul => dynasm!(self.ops ; .arch x64 ; mulsd xmm0, QWORD [rbp + d]),
            _ => dynasm!(self.ops ; .arch x64 ; divsd xmm0, QWORD [rbp + d]),
        }
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
            let l = isel::trap_label(self, TrapCode::DivisionByZero, loc, cold);
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
            let l = isel::trap_label(self, TrapCode::DivisionByZero, loc, cold);
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
    /// magic multiplication (see [`waddle_opt::magic`]). Result in `rax`.
    fn div_const(&mut self, div: bool, a: Value, d: i64, m: Magic) {
        self.ld(1, a);
        let (mul, shift) = (m.mul, m.shift as i8);
        dynasm!(self.ops ; .arch x64
            ; mov rax, QWORD mul
            ; imul rcx
        );
        match m.fix(d) {
            1 => dynasm!(self.ops ; .arch x64 ; add rdx, rcx),
            -1 => dynasm!(self.ops ; .arch x64 ; sub rdx, rcx),
            _ => {}
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

    /// `Rq(r) = k`.
    pub(super) fn mov_imm(&mut self, r: u8, k: i64) {
        match i32::try_from(k) {
            Ok(k32) => dynasm!(self.ops ; .arch x64 ; mov Rq(r), k32),
            Err(_) => dynasm!(self.ops ; .arch x64 ; mov Rq(r), QWORD k),
        }
    }

    /// `jcc l`.
    pub(super) fn jcc(&mut self, c: Cond, l: DynamicLabel) {
        match c {
            Cond::Eq => dynasm!(self.ops ; .arch x64 ; je =>l),
            Cond::Ne => dynasm!(self.ops ; .arch x64 ; jne =>l),
            Cond::Lt => dynasm!(self.ops ; .arch x64 ; jl =>l),
            Cond::Le => dynasm!(self.ops ; .arch x64 ; jle =>l),
            Cond::Gt => dynasm!(self.ops ; .arch x64 ; jg =>l),
            Cond::Ge => dynasm!(self.ops ; .arch x64 ; jge =>l),
            Cond::Above => dynasm!(self.ops ; .arch x64 ; ja =>l),
            Cond::AboveEq => dynasm!(self.ops ; .arch x64 ; jae =>l),
            Cond::Below => dynasm!(self.ops ; .arch x64 ; jb =>l),
            Cond::BelowEq => dynasm!(self.ops ; .arch x64 ; jbe =>l),
        }
    }

    /// `al = cond ? 1 : 0`.
    pub(super) fn setcc(&mut self, c: Cond) {
        match c {
            Cond::Eq => dynasm!(self.ops ; .arch x64 ; sete al),
            Cond::Ne => dynasm!(self.ops ; .arch x64 ; setne al),
            Cond::Lt => dynasm!(self.ops ; .arch x64 ; setl al),
            Cond::Le => dynasm!(self.ops ; .arch x64 ; setle al),
            Cond::Gt => dynasm!(self.ops ; .arch x64 ; setg al),
            Cond::Ge => dynasm!(self.ops ; .arch x64 ; setge al),
            Cond::Above => dynasm!(self.ops ; .arch x64 ; seta al),
            Cond::AboveEq => dynasm!(self.ops ; .arch x64 ; setae al),
            Cond::Below => dynasm!(self.ops ; .arch x64 ; setb al),
            Cond::BelowEq => dynasm!(self.ops ; .arch x64 ; setbe al),
        }
    }
}
