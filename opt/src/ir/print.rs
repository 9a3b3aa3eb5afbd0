//! The IR text format: printer.
//!
//! The format follows Cranelift's CLIF in spirit. A program prints as
//!
//! ```text
//! file 0 "fib.wdl"
//! global g0 "calls": int
//! host h0 "emit"(int) -> void
//! main fn1
//!
//! fn fn0 "fib"(int) -> int @1:1 {
//! block0(v0: int):
//!     v1: int = iconst 2
//!     v2: bool = icmp lt v0, v1
//!     br v2, block1, block2
//! block1:
//!     return v0
//! block2:
//!     v3: int = iconst 1
//!     v4: int = isub v0, v3
//!     v5: int = call fn0 "fib"(v4) @3:12
//!     return v5
//! }
//!
//! fn fn1 ".main"() -> void
//! ```
//!
//! Rules (the parser in [`super::parse`] accepts exactly this):
//! - Files, globals and functions carry their arena index (`file 0`, `g0`,
//!   `fn0`) and are printed in index order. Names are string literals, so they
//!   may contain any character (`.main`) and need not be unique: calls name
//!   their callee by id (`call fn0 "fib"(v4)`); the quoted name after the id
//!   is for readers and the parser checks it matches.
//! - Host functions (`host h0 "name"(params) -> ret`) are declarations
//!   the program calls with `host_call h0 "name"(v1)`.
//! - A function without blocks is a declaration and prints without a body.
//! - Blocks print in layout order (entry first) and values and blocks with
//!   their arena numbers, so parsing recreates the same numbering.
//!   Instruction ids are not printed: the parser numbers instructions in text
//!   order. Arena entries not reachable from the layout are not printed.
//! - Every instruction result is printed with its type (`v1: int = ...`), so
//!   the text is faithful even for ill-typed IR and needs no type inference.
//! - A known source location prints after the instruction as `@line:col`
//!   (file 0) or `@fN:line:col`; `SrcLoc::NONE` prints nothing.
//! - Floats print in Rust's shortest round-trip form (`1.5`, `-0.0`, `inf`,
//!   `1e300`); NaNs print their exact bits as `0x` and 16 hex digits.
//! - Strings print with Rust's `escape_debug` escapes inside double quotes.
//! - Terminators: `return`, `return v1`, `jump block1(v2)`,
//!   `br v0, block1, block2(v3)` (a switch on a bool-typed value whose only
//!   case is key 1), and the general
//!   `switch v0 [0: block1, 7: block2(v4)] default block3` (`switch _ ...`
//!   when there is no scrutinee but there are cases).
//! - `;` starts a comment that runs to the end of the line.

use std::fmt::Write;

use super::entities::{FuncId, GlobalId, HostFnId, Inst, Value};
use super::function::{Function, Program};
use super::inst_table::{inst_table, operand, table_mnemonic, OperandKind};
use super::instructions::{BinaryOp, BlockCall, Cmp, InstKind, SrcLoc, Terminator, UnaryOp};

/// Every unary operation, for parsers and generators.
pub(crate) const ALL_UNARY: [UnaryOp; 15] = [
    UnaryOp::INeg,
    UnaryOp::FNeg,
    UnaryOp::BNot,
    UnaryOp::IToF,
    UnaryOp::FToI,
    UnaryOp::IAbs,
    UnaryOp::FAbs,
    UnaryOp::FSqrt,
    UnaryOp::FFloor,
    UnaryOp::FCeil,
    UnaryOp::FSin,
    UnaryOp::FCos,
    UnaryOp::FTan,
    UnaryOp::FExp,
    UnaryOp::FLog,
];

/// Every binary operation that is not a comparison.
pub(crate) const ALL_ARITH: [BinaryOp; 19] = [
    BinaryOp::IAdd,
    BinaryOp::ISub,
    BinaryOp::IMul,
    BinaryOp::IDiv,
    BinaryOp::IRem,
    BinaryOp::IAnd,
    BinaryOp::IOr,
    BinaryOp::IXor,
    BinaryOp::IShl,
    BinaryOp::IShr,
    BinaryOp::IMin,
    BinaryOp::IMax,
    BinaryOp::FAdd,
    BinaryOp::FSub,
    BinaryOp::FMul,
    BinaryOp::FDiv,
    BinaryOp::FRem,
    BinaryOp::FMin,
    BinaryOp::FMax,
];

/// Every comparison condition.
pub(crate) const ALL_CMP: [Cmp; 6] = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];

/// Text name of a unary operation.
pub(crate) fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::INeg => "ineg",
        UnaryOp::FNeg => "fneg",
        UnaryOp::BNot => "bnot",
        UnaryOp::IToF => "itof",
        UnaryOp::FToI => "ftoi",
        UnaryOp::IAbs => "iabs",
        UnaryOp::FAbs => "fabs",
        UnaryOp::FSqrt => "fsqrt",
        UnaryOp::FFloor => "ffloor",
        UnaryOp::FCeil => "fceil",
        UnaryOp::FSin => "fsin",
        UnaryOp::FCos => "fcos",
        UnaryOp::FTan => "ftan",
        UnaryOp::FExp => "fexp",
        UnaryOp::FLog => "flog",
    }
}

/// Text name of a binary operation (comparisons: `icmp`/`fcmp`/`bcmp`; the
/// condition prints separately).
pub(crate) fn binary_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::IAdd => "iadd",
        BinaryOp::ISub => "isub",
        BinaryOp::IMul => "imul",
        BinaryOp::IDiv => "idiv",
        BinaryOp::IRem => "irem",
        BinaryOp::IAnd => "iand",
        BinaryOp::IOr => "ior",
        BinaryOp::IXor => "ixor",
        BinaryOp::IShl => "ishl",
        BinaryOp::IShr => "ishr",
        BinaryOp::IMin => "imin",
        BinaryOp::IMax => "imax",
        BinaryOp::FAdd => "fadd",
        BinaryOp::FSub => "fsub",
        BinaryOp::FMul => "fmul",
        BinaryOp::FDiv => "fdiv",
        BinaryOp::FRem => "frem",
        BinaryOp::FMin => "fmin",
        BinaryOp::FMax => "fmax",
        BinaryOp::ICmp(_) => "icmp",
        BinaryOp::FCmp(_) => "fcmp",
        BinaryOp::BCmp(_) => "bcmp",
    }
}

/// Text name of a comparison condition.
pub(crate) fn cmp_name(c: Cmp) -> &'static str {
    match c {
        Cmp::Eq => "eq",
        Cmp::Ne => "ne",
        Cmp::Lt => "lt",
        Cmp::Le => "le",
        Cmp::Gt => "gt",
        Cmp::Ge => "ge",
    }
}

/// A string literal: `s` escaped with `escape_debug`, in double quotes.
pub fn quote(s: &str) -> String {
    format!("\"{}\"", s.escape_debug())
}

/// A float constant given by its IEEE bits: shortest round-trip decimal form,
/// or `0x` and the 16 hex digits of the bits for NaNs.
pub fn format_float_bits(bits: u64) -> String {
    let f = f64::from_bits(bits);
    if f.is_nan() {
        format!("0x{bits:016x}")
    } else {
        format!("{f:?}")
    }
}

/// ` @line:col` / ` @fN:line:col`, or nothing for `SrcLoc::NONE`.
fn format_loc(loc: SrcLoc) -> String {
    if loc == SrcLoc::NONE {
        String::new()
    } else if loc.file == 0 {
        format!(" @{}:{}", loc.line, loc.col)
    } else {
        format!(" @f{}:{}:{}", loc.file, loc.line, loc.col)
    }
}

/// `v1, v2, v3`
fn value_list(vals: &[super::Value]) -> String {
    vals.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// How the printer writes an operand of the instruction table.
trait FormatOperand: OperandKind {
    /// Appends the text of `field` to `out`.
    fn format(field: &Self::Field, p: &Program, out: &mut String);
}

impl FormatOperand for operand::Val {
    fn format(field: &Value, _: &Program, out: &mut String) {
        let _ = write!(out, "{field}");
    }
}
impl FormatOperand for operand::Vals {
    fn format(field: &Vec<Value>, _: &Program, out: &mut String) {
        let _ = write!(out, "[{}]", value_list(field));
    }
}
impl FormatOperand for operand::Args {
    fn format(field: &Vec<Value>, _: &Program, out: &mut String) {
        let _ = write!(out, "({})", value_list(field));
    }
}
impl FormatOperand for operand::Int {
    fn format(field: &i64, _: &Program, out: &mut String) {
        let _ = write!(out, "{field}");
    }
}
impl FormatOperand for operand::FloatBits {
    fn format(field: &u64, _: &Program, out: &mut String) {
        out.push_str(&format_float_bits(*field));
    }
}
impl FormatOperand for operand::BoolLit {
    fn format(field: &bool, _: &Program, out: &mut String) {
        let _ = write!(out, "{field}");
    }
}
impl FormatOperand for operand::StrLit {
    fn format(field: &Box<str>, _: &Program, out: &mut String) {
        out.push_str(&quote(field));
    }
}
impl FormatOperand for operand::Cond {
    fn format(field: &Cmp, _: &Program, out: &mut String) {
        out.push_str(cmp_name(*field));
    }
}
impl FormatOperand for operand::UnOp {
    fn format(field: &UnaryOp, _: &Program, out: &mut String) {
        out.push_str(unary_name(*field));
    }
}
impl FormatOperand for operand::BinOp {
    fn format(field: &BinaryOp, _: &Program, out: &mut String) {
        out.push_str(binary_name(*field));
        if let BinaryOp::ICmp(c) | BinaryOp::FCmp(c) | BinaryOp::BCmp(c) = field {
            let _ = write!(out, " {}", cmp_name(*c));
        }
    }
}
impl FormatOperand for operand::Callee {
    fn format(field: &FuncId, p: &Program, out: &mut String) {
        let _ = write!(out, "{field}");
        if let Some(cf) = p.funcs.get(*field) {
            let _ = write!(out, " {}", quote(&cf.name));
        }
    }
}
impl FormatOperand for operand::HostFn {
    fn format(field: &HostFnId, p: &Program, out: &mut String) {
        let _ = write!(out, "{field}");
        if let Some(hf) = p.host_fns.get(*field) {
            let _ = write!(out, " {}", quote(&hf.name));
        }
    }
}
impl FormatOperand for operand::Global {
    fn format(field: &GlobalId, _: &Program, out: &mut String) {
        let _ = write!(out, "{field}");
    }
}

macro_rules! gen_format_kind {
    (typing($($ctx:ident),*);
     $($name:tt $v:ident $(($($op:ident: $kind:ident),*))?
        { $($effects:tt)* } => $typing:block;)*) => {
        /// The body of an instruction (mnemonic and operands) without
        /// result or location, from its table row.
        #[allow(unused_assignments, unused_mut, unused_variables)]
        fn format_kind(p: &Program, kind: &InstKind) -> String {
            match kind {
                $(InstKind::$v $(($($op),*))? => {
                    let mut s = String::new();
                    let mut sep = match table_mnemonic!($name) {
                        Some(name) => {
                            s.push_str(name);
                            " "
                        }
                        None => "",
                    };
                    $($(
                        s.push_str(sep);
                        <operand::$kind as FormatOperand>::format($op, p, &mut s);
                        sep = <operand::$kind as OperandKind>::SEP_AFTER;
                    )*)?
                    s
                })*
            }
        }
    };
}
inst_table!(gen_format_kind);

/// One instruction of `f` in text form (`v3: int = iadd v1, v2 @4:7`),
/// without indentation or newline. Tolerates malformed IR (ids outside the
/// arenas print as `?`).
pub fn print_inst(p: &Program, f: &Function, inst: Inst) -> String {
    let Some(data) = f.insts.get(inst) else {
        return format!("<{inst} is not in the instruction arena>");
    };
    let mut s = String::new();
    if let Some(r) = data.result {
        match f.values.get(r) {
            Some(vd) => {
                let _ = write!(s, "{r}: {} = ", vd.ty);
            }
            None => {
                let _ = write!(s, "{r}: ? = ");
            }
        }
    }
    s.push_str(&format_kind(p, &data.kind));
    s.push_str(&format_loc(data.loc));
    s
}

/// `block3(v1, v2)`, or `block3` without arguments.
fn format_call(c: &BlockCall) -> String {
    if c.args.is_empty() {
        c.block.to_string()
    } else {
        format!("{}({})", c.block, value_list(&c.args))
    }
}

/// A terminator of `f` in text form (`br v2, block1, block2(v3)`), without
/// indentation or newline.
pub fn print_terminator(f: &Function, term: &Terminator) -> String {
    match term {
        Terminator::Return(None) => "return".to_string(),
        Terminator::Return(Some(v)) => format!("return {v}"),
        Terminator::Switch {
            value: None,
            cases,
            default,
        } if cases.is_empty() => format!("jump {}", format_call(default)),
        Terminator::Switch {
            value: Some(v),
            cases,
            default,
        } if cases.len() == 1
            && cases[0].0 == 1
            && f.values.get(*v).is_some_and(|d| d.ty == super::Type::Bool) =>
        {
            format!(
                "br {v}, {}, {}",
                format_call(&cases[0].1),
                format_call(default)
            )
        }
        Terminator::Switch {
            value,
            cases,
            default,
        } => {
            let scrut = value.map_or("_".to_string(), |v| v.to_string());
            let cases = cases
                .iter()
                .map(|(k, c)| format!("{k}: {}", format_call(c)))
                .collect::<Vec<_>>()
                .join(", ");
            format!("switch {scrut} [{cases}] default {}", format_call(default))
        }
    }
}

/// The header line of a function without the trailing ` {`.
fn format_header(id: FuncId, f: &Function) -> String {
    let params = f
        .sig
        .params
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "fn {id} {}({params}) -> {}{}",
        quote(&f.name),
        f.sig.ret,
        format_loc(f.loc)
    )
}

/// Appends function `id` of `p` to `out`.
fn write_function(out: &mut String, p: &Program, id: FuncId) {
    let Some(f) = p.funcs.get(id) else {
        let _ = writeln!(out, "; {id} is not in the function arena");
        return;
    };
    write_function_body(out, p, id, f);
}

/// Appends `f`, printed as function `id` of `p`, to `out`.
fn write_function_body(out: &mut String, p: &Program, id: FuncId, f: &Function) {
    out.push_str(&format_header(id, f));
    if f.is_declaration() {
        out.push('\n');
        return;
    }
    out.push_str(" {\n");
    for &b in &f.layout {
        let Some(bd) = f.blocks.get(b) else {
            let _ = writeln!(out, "; {b} is not in the block arena");
            continue;
        };
        out.push_str(&b.to_string());
        if !bd.params.is_empty() {
            let params = bd
                .params
                .iter()
                .map(|&v| match f.values.get(v) {
                    Some(d) => format!("{v}: {}", d.ty),
                    None => format!("{v}: ?"),
                })
                .collect::<Vec<_>>()
                .join(", ");
            let _ = write!(out, "({params})");
        }
        out.push_str(":\n");
        for &inst in &bd.insts {
            let _ = writeln!(out, "    {}", print_inst(p, f, inst));
        }
        let _ = writeln!(out, "    {}", print_terminator(f, &bd.term));
    }
    out.push_str("}\n");
}

/// Function `id` of `p` in text form (callee names come from `p`).
pub fn print_function(p: &Program, id: FuncId) -> String {
    let mut out = String::new();
    write_function(&mut out, p, id);
    out
}

/// `f` in text form as function `id` of `p`, whether or not `p` holds it
/// (a pass pipeline prints a function while it is being edited; callee
/// names come from `p`).
pub fn print_function_as(p: &Program, id: FuncId, f: &Function) -> String {
    let mut out = String::new();
    write_function_body(&mut out, p, id, f);
    out
}

/// The whole program in text form: file table, globals, `main`, then every
/// function in id order separated by blank lines.
pub fn print_program(p: &Program) -> String {
    let mut out = String::new();
    for (i, name) in p.files.iter().enumerate() {
        let _ = writeln!(out, "file {i} {}", quote(name));
    }
    for (g, gd) in p.globals.iter() {
        let _ = writeln!(out, "global {g} {}: {}", quote(&gd.name), gd.ty);
    }
    for (h, hf) in p.host_fns.iter() {
        let params: Vec<String> = hf.sig.params.iter().map(|t| t.to_string()).collect();
        let _ = writeln!(
            out,
            "host {h} {}({}) -> {}",
            quote(&hf.name),
            params.join(", "),
            hf.sig.ret
        );
    }
    if let Some(m) = p.main {
        let _ = writeln!(out, "main {m}");
    }
    for id in p.funcs.keys() {
        if !out.is_empty() {
            out.push('\n');
        }
        write_function(&mut out, p, id);
    }
    out
}
