//! Phase 2: typing rules of instructions and terminators (see the parent
//! module). Runs only on structurally sound functions, so every value and
//! block referenced exists.

use super::Reporter;
use crate::ir::entities::{Block, GlobalId, Value};
use crate::ir::function::{Function, Program, Signature};
use crate::ir::inst_table::inst_table;
use crate::ir::instructions::{BinaryOp, Cmp, InstKind, Terminator, UnaryOp};
use crate::ir::types::Type;

/// Checks every instruction and terminator of the layout.
pub(super) fn check(r: &mut Reporter<'_>) {
    let f = r.func;
    for &b in &f.layout {
        let bd = &f.blocks[b];
        for &inst in &bd.insts {
            let data = &f.insts[inst];
            let actual = data.result.map_or(Type::Unit, |v| f.value_type(v));
            match result_type(r.prog, f, &data.kind, actual) {
                Err(msg) => r.inst_error(b, inst, msg),
                Ok(expected) if expected != actual => {
                    let msg = match (expected, actual) {
                        (Type::Unit, _) => {
                            "instruction produces no value but has a result".to_string()
                        }
                        (_, Type::Unit) => {
                            format!("instruction produces a {expected} but has no result")
                        }
                        _ => format!("result has type {actual}, expected {expected}"),
                    };
                    r.inst_error(b, inst, msg);
                }
                Ok(_) => {}
            }
        }
        check_terminator(r, b);
    }
}

/// `Err` with a message when `v` does not have type `want`.
fn want(f: &Function, v: &Value, want: Type, what: &str) -> Result<(), String> {
    let t = f.value_type(*v);
    if t == want {
        Ok(())
    } else {
        Err(format!("{what} {v} has type {t}, expected {want}"))
    }
}

/// The element type of array operand `v`, or an error.
fn elem_of(f: &Function, v: &Value) -> Result<Type, String> {
    let t = f.value_type(*v);
    t.element()
        .ok_or_else(|| format!("operand {v} has type {t}, expected an array"))
}

/// `Err` unless `args` match the parameters of `sig` in number and types;
/// `callee` names the callee in the message.
fn args_match(
    f: &Function,
    args: &[Value],
    sig: &Signature,
    callee: impl FnOnce() -> String,
) -> Result<(), String> {
    if args.len() != sig.params.len() {
        return Err(format!(
            "{} takes {} arguments, {} given",
            callee(),
            sig.params.len(),
            args.len()
        ));
    }
    for (i, (a, &t)) in args.iter().zip(&sig.params).enumerate() {
        want(f, a, t, &format!("argument {i}"))?;
    }
    Ok(())
}

/// The type of global `g`, or an error when it does not exist.
fn global_type(prog: &Program, g: GlobalId) -> Result<Type, String> {
    prog.globals
        .get(g)
        .map(|gd| gd.ty)
        .ok_or_else(|| format!("global {g} does not exist"))
}

macro_rules! gen_result_type {
    (typing($f:ident, $prog:ident, $actual:ident);
     $($name:tt $v:ident $(($($op:ident: $kind:ident),*))?
        { $($effects:tt)* } => $typing:block;)*) => {
        /// The type of the instruction's result (`Unit` for none) given
        /// its operands, by its table typing rule, or a message for an
        /// ill-typed operand. `actual` is the recorded result type
        /// (`array_lit` takes its element type from it).
        #[allow(unused_variables)]
        fn result_type(
            $prog: &Program,
            $f: &Function,
            kind: &InstKind,
            $actual: Type,
        ) -> Result<Type, String> {
            Ok(match kind {
                $(InstKind::$v $(($($op),*))? => $typing)*
            })
        }
    };
}
inst_table!(gen_result_type);

/// Operand and result type of a unary operation.
fn unary_types(op: UnaryOp) -> (Type, Type) {
    match op {
        UnaryOp::INeg | UnaryOp::IAbs => (Type::Int, Type::Int),
        UnaryOp::BNot => (Type::Bool, Type::Bool),
        UnaryOp::IToF => (Type::Int, Type::Float),
        UnaryOp::FToI => (Type::Float, Type::Int),
        UnaryOp::FNeg
        | UnaryOp::FAbs
        | UnaryOp::FSqrt
        | UnaryOp::FFloor
        | UnaryOp::FCeil
        | UnaryOp::FSin
        | UnaryOp::FCos
        | UnaryOp::FTan
        | UnaryOp::FExp
        | UnaryOp::FLog => (Type::Float, Type::Float),
    }
}

/// Operand and result type of a binary operation; `BCmp` only allows
/// `Eq`/`Ne`.
fn binary_types(op: BinaryOp) -> Result<(Type, Type), String> {
    Ok(match op {
        BinaryOp::IAdd
        | BinaryOp::ISub
        | BinaryOp::IMul
        | BinaryOp::IDiv
        | BinaryOp::IRem
        | BinaryOp::IAnd
        | BinaryOp::IOr
        | BinaryOp::IXor
        | BinaryOp::IShl
        | BinaryOp::IShr
        | BinaryOp::IMin
        | BinaryOp::IMax => (Type::Int, Type::Int),
        BinaryOp::FAdd
        | BinaryOp::FSub
        | BinaryOp::FMul
        | BinaryOp::FDiv
        | BinaryOp::FRem
        | BinaryOp::FMin
        | BinaryOp::FMax => (Type::Float, Type::Float),
        BinaryOp::ICmp(_) => (Type::Int, Type::Bool),
        BinaryOp::FCmp(_) => (Type::Float, Type::Bool),
        BinaryOp::BCmp(Cmp::Eq | Cmp::Ne) => (Type::Bool, Type::Bool),
        BinaryOp::BCmp(c) => return Err(format!("bcmp supports only eq and ne, not {c:?}")),
    })
}

/// Checks the terminator of `b`: scrutinee, case keys, edges, return value.
fn check_terminator(r: &mut Reporter<'_>, b: Block) {
    let f = r.func;
    let term = &f.blocks[b].term;
    match term {
        Terminator::Return(v) => match (v, f.sig.ret) {
            (None, Type::Unit) => {}
            (Some(v), Type::Unit) => r.term_error(b, format!("returns {v} from a void function")),
            (None, ret) => r.term_error(b, format!("returns nothing, expected a {ret}")),
            (Some(v), ret) => {
                if let Err(msg) = want(f, v, ret, "returned value") {
                    r.term_error(b, msg);
                }
            }
        },
        Terminator::Switch { value, cases, .. } => {
            match value {
                None if !cases.is_empty() => r.term_error(b, "switch has cases but no scrutinee"),
                None => {}
                Some(v) => {
                    let t = f.value_type(*v);
                    if t != Type::Int && t != Type::Bool {
                        r.term_error(
                            b,
                            format!("scrutinee {v} has type {t}, expected int or bool"),
                        );
                    } else if t == Type::Bool {
                        if let Some((k, _)) = cases.iter().find(|(k, _)| *k != 0 && *k != 1) {
                            r.term_error(
                                b,
                                format!("case key {k} on a bool scrutinee (keys are 0 and 1)"),
                            );
                        }
                    }
                }
            }
            for (i, (k, _)) in cases.iter().enumerate() {
                if cases[..i].iter().any(|(k2, _)| k2 == k) {
                    r.term_error(b, format!("duplicate case key {k}"));
                }
            }
            for call in term.successors() {
                let params = &f.blocks[call.block].params;
                if params.len() != call.args.len() {
                    r.term_error(
                        b,
                        format!(
                            "edge to {} passes {} arguments, the block has {} parameters",
                            call.block,
                            call.args.len(),
                            params.len()
                        ),
                    );
                    continue;
                }
                for (&a, &p) in call.args.iter().zip(params) {
                    let (ta, tp) = (f.value_type(a), f.value_type(p));
                    if ta != tp {
                        r.term_error(
                            b,
                            format!(
                                "edge to {} passes {a}: {ta} for parameter {p}: {tp}",
                                call.block
                            ),
                        );
                    }
                }
            }
        }
    }
}
