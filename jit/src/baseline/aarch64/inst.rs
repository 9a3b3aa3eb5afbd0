//! AArch64 encodings of the arithmetic the shared instruction selection
//! ([`crate::baseline::isel`]) leaves to the back end (semantics bit for
//! bit as the interpreter's). `sdiv` never faults (`MIN / -1` wraps, `x / 0` is
//! 0), so only the zero check is needed; `fcvtzs` saturates and maps NaN to
//! 0 exactly as Rust's `as i64`; `frintm`/`frintp` keep the sign of zero.

use dynasmrt::{dynasm, DynamicLabel, DynasmLabelApi};
use waddle_opt::abi::TrapCode;
use waddle_opt::ir::{BinaryOp, Cmp, UnaryOp, Value};

use super::Aarch64;
use crate::baseline::cold::ColdPaths;
use crate::baseline::driver::{Arith, Backend, FnCx};
use crate::baseline::isel::{self, Binary, Cond};
use crate::baseline::plan::int_const;
use crate::helpers::Helper;

impl Arith for Aarch64 {
    type Label = DynamicLabel;

    fn unary(&mut self, op: UnaryOp, a: Value, r: Option<Value>) {
        match op {
            UnaryOp::INeg => {
                self.ld(8, a);
                dynasm!(self.ops ; .arch aarch64 ; neg x8, x8);
            }
            UnaryOp::BNot => {
                self.ld(8, a);
                dynasm!(self.ops ; .arch aarch64 ; eor x8, x8, #1);
            }
            UnaryOp::IAbs => {
                self.ld(8, a);
                dynasm!(self.ops ; .arch aarch64 ; cmp x8, #0 ; cneg x8, x8, lt);
            }
            UnaryOp::IToF => {
                self.ld(8, a);
                dynasm!(self.ops ; .arch aarch64 ; scvtf d0, x8);
                return self.stf_opt(r, 0);
            }
            UnaryOp::FToI => {
                self.ldf(0, a);
                dynasm!(self.ops ; .arch aarch64 ; fcvtzs x8, d0);
            }
            UnaryOp::FNeg | UnaryOp::FAbs | UnaryOp::FSqrt | UnaryOp::FFloor | UnaryOp::FCeil => {
                self.ldf(0, a);
                match op {
                    UnaryOp::FNeg => dynasm!(self.ops ; .arch aarch64 ; fneg d0, d0),
                    UnaryOp::FAbs => dynasm!(self.ops ; .arch aarch64 ; fabs d0, d0),
                    UnaryOp::FSqrt => dynasm!(self.ops ; .arch aarch64 ; fsqrt d0, d0),
                    UnaryOp::FFloor => dynasm!(self.ops ; .arch aarch64 ; frintm d0, d0),
                    _ => dynasm!(self.ops ; .arch aarch64 ; frintp d0, d0),
                }
                return self.stf_opt(r, 0);
            }
            UnaryOp::FSin | UnaryOp::FCos | UnaryOp::FTan | UnaryOp::FExp | UnaryOp::FLog => {
                unreachable!("isel::lower calls libm for {op:?}")
            }
        }
        self.st_opt(r, 8);
    }

    fn binary(&mut self, cx: &FnCx<'_>, inst: Binary, cold: &mut ColdPaths<DynamicLabel>) {
        let Binary { op, a, b, r, loc } = inst;
        match op {
            BinaryOp::FAdd
            | BinaryOp::FSub
            | BinaryOp::FMul
            | BinaryOp::FDiv
            | BinaryOp::FMin
            | BinaryOp::FMax => {
                self.ldf(0, a);
                self.ldf(1, b);
                match op {
                    BinaryOp::FAdd => dynasm!(self.ops ; .arch aarch64 ; fadd d0, d0, d1),
                    BinaryOp::FSub => dynasm!(self.ops ; .arch aarch64 ; fsub d0, d0, d1),
                    BinaryOp::FMul => dynasm!(self.ops ; .arch aarch64 ; fmul d0, d0, d1),
                    BinaryOp::FDiv => dynasm!(self.ops ; .arch aarch64 ; fdiv d0, d0, d1),
                    _ => {
                        // Rust's f64::min/max: a NaN operand yields the other
                        // one (also for signalling NaNs, unlike fminnm alone).
                        dynasm!(self.ops ; .arch aarch64
                            ; fcmp d0, d0
                            ; b.vs >x_nan
                            ; fcmp d1, d1
                            ; b.vs >done
                        );
                        if op == BinaryOp::FMin {
                            dynasm!(self.ops ; .arch aarch64 ; fminnm d0, d0, d1);
                        } else {
                            dynasm!(self.ops ; .arch aarch64 ; fmaxnm d0, d0, d1);
                        }
                        dynasm!(self.ops ; .arch aarch64
                            ; b >done
                            ; x_nan:
                            ; fmov d0, d1
                            ; done:
                        );
                    }
                }
                return self.stf_opt(r, 0);
            }
            BinaryOp::FCmp(c) => {
                // `<`/`<=` as `>`/`>=` with the operands swapped: GT and GE
                // are false when unordered, their inverses true.
                let (x, y, cond) = match c {
                    Cmp::Lt => (b, a, Cond::Gt),
                    Cmp::Le => (b, a, Cond::Ge),
                    _ => (a, b, Cond::int(c)),
                };
                self.ldf(0, x);
                self.ldf(1, y);
                dynasm!(self.ops ; .arch aarch64 ; fcmp d0, d1);
                isel::set_bool(self, cx, r, cond);
                return;
            }
            BinaryOp::FRem => return isel::float_call(self, Helper::Fmod, &[a, b], r),
            _ => {}
        }
        self.ld(8, a);
        self.ld(9, b);
        match op {
            BinaryOp::IAdd => dynasm!(self.ops ; .arch aarch64 ; add x8, x8, x9),
            BinaryOp::ISub => dynasm!(self.ops ; .arch aarch64 ; sub x8, x8, x9),
            BinaryOp::IMul => dynasm!(self.ops ; .arch aarch64 ; mul x8, x8, x9),
            BinaryOp::IAnd => dynasm!(self.ops ; .arch aarch64 ; and x8, x8, x9),
            BinaryOp::IOr => dynasm!(self.ops ; .arch aarch64 ; orr x8, x8, x9),
            BinaryOp::IXor => dynasm!(self.ops ; .arch aarch64 ; eor x8, x8, x9),
            // The register shifts take the count modulo 64.
            BinaryOp::IShl => dynasm!(self.ops ; .arch aarch64 ; lsl x8, x8, x9),
            BinaryOp::IShr => dynasm!(self.ops ; .arch aarch64 ; asr x8, x8, x9),
            BinaryOp::IMin => dynasm!(self.ops ; .arch aarch64 ; cmp x8, x9 ; csel x8, x8, x9, lt),
            BinaryOp::IMax => dynasm!(self.ops ; .arch aarch64 ; cmp x8, x9 ; csel x8, x8, x9, gt),
            BinaryOp::IDiv | BinaryOp::IRem => {
                if int_const(cx.func, b).is_none_or(|k| k == 0) {
                    let l = isel::trap_label(self, TrapCode::DivisionByZero, loc, cold);
                    dynasm!(self.ops ; .arch aarch64 ; cbz x9, =>l);
                }
                dynasm!(self.ops ; .arch aarch64 ; sdiv x10, x8, x9);
                if op == BinaryOp::IDiv {
                    dynasm!(self.ops ; .arch aarch64 ; mov x8, x10);
                } else {
                    dynasm!(self.ops ; .arch aarch64 ; msub x8, x10, x9, x8);
                }
            }
            BinaryOp::ICmp(c) | BinaryOp::BCmp(c) => {
                dynasm!(self.ops ; .arch aarch64 ; cmp x8, x9);
                isel::set_bool(self, cx, r, Cond::int(c));
                return;
            }
            _ => unreachable!("float operations are handled above"),
        }
        self.st_opt(r, 8);
    }
}
