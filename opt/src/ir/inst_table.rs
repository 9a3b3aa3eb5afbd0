//! The instruction table: every [`InstKind`] described once, in the manner
//! of LuaJIT's `IRDEF` table (`lj_ir.h`), as a Rust macro.
//!
//! A row gives, for one instruction:
//! - its text-format mnemonic (`_`: the first operand is an operator whose
//!   name is the mnemonic, as for [`InstKind::Unary`] and
//!   [`InstKind::Binary`]);
//! - the variant and its operands, each with an [`operand`] kind that says
//!   how the field is written in the text format and which values it uses;
//! - its effects, expressions over the operands: `trap` (may raise a
//!   runtime error), `effect` (writes state, does I/O or calls), `reads`
//!   (reads mutable state: globals, array contents, or whatever a call
//!   reaches);
//! - its typing rule: given the function `f`, the program `prog` and the
//!   recorded result type `actual`, the result type (`Unit` for none) or,
//!   through `?`, a message for an ill-typed operand. The rule is expanded
//!   in the verifier (`verify/typing.rs`), whose helpers (`want`,
//!   `elem_of`, `unary_types`, `binary_types`, `args_match`, `global_type`)
//!   it calls.
//!
//! `inst_table!(m)` calls macro `m` with the table. Generated from it:
//! operand iteration ([`InstKind::for_each_arg`]), the effect queries
//! ([`InstKind::may_trap`], [`InstKind::has_side_effects`],
//! [`InstKind::reads_memory`]) here, the printer (`print.rs`), the parser
//! (`parse/body.rs`) and the verifier's typing (`verify/typing.rs`). Adding
//! an instruction is a variant in [`InstKind`], one row here, and its
//! meaning where meanings live (see `docs/architecture.md`, "Adding an
//! instruction").

use super::entities::Value;
use super::instructions::InstKind;

/// The operand kinds of the table: one marker type per way an instruction
/// field is written in the text format. Each implements [`OperandKind`]
/// (here), `FormatOperand` (printer) and `ParseOperand` (parser).
pub(crate) mod operand {
    /// A value, `v3`.
    pub(crate) struct Val;
    /// Values in brackets, `[v1, v2]` (array literal elements).
    pub(crate) struct Vals;
    /// Values in parentheses, `(v1, v2)` (call arguments).
    pub(crate) struct Args;
    /// An `int` literal.
    pub(crate) struct Int;
    /// A `float` literal given by its IEEE bits (see `format_float_bits`).
    pub(crate) struct FloatBits;
    /// `true` or `false`.
    pub(crate) struct BoolLit;
    /// A string literal.
    pub(crate) struct StrLit;
    /// A comparison condition, `eq`.
    pub(crate) struct Cond;
    /// A unary operator: the mnemonic itself, `ineg`.
    pub(crate) struct UnOp;
    /// A binary operator: the mnemonic itself, `iadd`, or for comparisons
    /// the mnemonic and the condition, `icmp lt`.
    pub(crate) struct BinOp;
    /// A callee with its name for readers, `fn3 "fib"`.
    pub(crate) struct Callee;
    /// A host function with its name for readers, `h0 "emit"`.
    pub(crate) struct HostFn;
    /// A global, `g2`.
    pub(crate) struct Global;
}

/// What the table knows of an operand kind beyond its text: the field type
/// it stands for, the separator that follows it, and the values it uses.
pub(crate) trait OperandKind {
    /// The type of the [`InstKind`] field.
    type Field;
    /// The text between this operand and the next one.
    const SEP_AFTER: &'static str = ", ";
    /// Calls `f` on the values the field uses, in order.
    fn for_each_value(_field: &Self::Field, _f: &mut impl FnMut(Value)) {}
    /// Calls `f` on mutable references to the values the field uses.
    fn for_each_value_mut(_field: &mut Self::Field, _f: &mut impl FnMut(&mut Value)) {}
}

impl OperandKind for operand::Val {
    type Field = Value;
    fn for_each_value(field: &Value, f: &mut impl FnMut(Value)) {
        f(*field)
    }
    fn for_each_value_mut(field: &mut Value, f: &mut impl FnMut(&mut Value)) {
        f(field)
    }
}

impl OperandKind for operand::Vals {
    type Field = Vec<Value>;
    fn for_each_value(field: &Vec<Value>, f: &mut impl FnMut(Value)) {
        field.iter().copied().for_each(f)
    }
    fn for_each_value_mut(field: &mut Vec<Value>, f: &mut impl FnMut(&mut Value)) {
        field.iter_mut().for_each(f)
    }
}

impl OperandKind for operand::Args {
    type Field = Vec<Value>;
    fn for_each_value(field: &Vec<Value>, f: &mut impl FnMut(Value)) {
        operand::Vals::for_each_value(field, f)
    }
    fn for_each_value_mut(field: &mut Vec<Value>, f: &mut impl FnMut(&mut Value)) {
        operand::Vals::for_each_value_mut(field, f)
    }
}

/// The operand kinds that use no values: their field type and the text
/// that follows them (`, ` unless given).
macro_rules! scalar_operand_kinds {
    ($($kind:ident: $field:ty $(, $sep:literal)?;)*) => {
        $(impl OperandKind for operand::$kind {
            type Field = $field;
            $(const SEP_AFTER: &'static str = $sep;)?
        })*
    };
}
scalar_operand_kinds! {
    Int: i64;
    FloatBits: u64;
    BoolLit: bool;
    StrLit: Box<str>;
    Cond: super::Cmp, " ";
    UnOp: super::UnaryOp, " ";
    BinOp: super::BinaryOp, " ";
    Callee: super::FuncId, "";
    HostFn: super::HostFnId, "";
    Global: super::GlobalId;
}

/// The table (see the module docs). Rows are in [`InstKind`] order.
macro_rules! inst_table {
    ($m:ident) => {
        $m! {
            typing(f, prog, actual);

            "iconst" IConst(n: Int) { trap: false, effect: false, reads: false }
                => { Type::Int };
            "fconst" FConst(bits: FloatBits) { trap: false, effect: false, reads: false }
                => { Type::Float };
            "bconst" BConst(b: BoolLit) { trap: false, effect: false, reads: false }
                => { Type::Bool };
            "sconst" SConst(s: StrLit) { trap: false, effect: false, reads: false }
                => { Type::Str };
            "copy" Copy(a: Val) { trap: false, effect: false, reads: false }
                => { f.value_type(*a) };
            _ Unary(op: UnOp, a: Val) { trap: false, effect: false, reads: false }
                => {
                    let (arg, res) = unary_types(*op);
                    want(f, a, arg, "operand")?;
                    res
                };
            _ Binary(op: BinOp, a: Val, b: Val) { trap: op.may_trap(), effect: false, reads: false }
                => {
                    let (arg, res) = binary_types(*op)?;
                    want(f, a, arg, "left operand")?;
                    want(f, b, arg, "right operand")?;
                    res
                };
            "call" Call(callee: Callee, args: Args) { trap: true, effect: true, reads: true }
                => {
                    let cf = prog
                        .funcs
                        .get(*callee)
                        .ok_or_else(|| format!("callee {callee} does not exist"))?;
                    args_match(f, args, &cf.sig, || format!("{callee} {:?}", cf.name))?;
                    cf.sig.ret
                };
            "host_call" HostCall(h: HostFn, args: Args) { trap: true, effect: true, reads: true }
                => {
                    let hf = prog
                        .host_fns
                        .get(*h)
                        .ok_or_else(|| format!("host function {h} does not exist"))?;
                    args_match(f, args, &hf.sig, || format!("{h} {:?}", hf.name))?;
                    hf.sig.ret
                };
            "global_get" GlobalGet(g: Global) { trap: false, effect: false, reads: true }
                => { global_type(prog, *g)? };
            "global_set" GlobalSet(g: Global, v: Val) { trap: false, effect: true, reads: false }
                => {
                    want(f, v, global_type(prog, *g)?, "stored value")?;
                    Type::Unit
                };
            "array_lit" ArrayLit(elems: Vals) { trap: true, effect: false, reads: false }
                => {
                    let elem = actual.element().ok_or_else(|| {
                        format!("array_lit result has type {actual}, expected an array")
                    })?;
                    for (i, e) in elems.iter().enumerate() {
                        want(f, e, elem, &format!("element {i}"))?;
                    }
                    actual
                };
            "array_repeat" ArrayRepeat(a: Val, n: Val) { trap: true, effect: false, reads: false }
                => {
                    want(f, n, Type::Int, "count")?;
                    let t = f.value_type(*a);
                    t.array_of()
                        .ok_or_else(|| format!("no array type has elements of type {t}"))?
                };
            "array_len" ArrayLen(a: Val) { trap: false, effect: false, reads: true }
                => { elem_of(f, a)?; Type::Int };
            "bounds_check" BoundsCheck(a: Val, i: Val) { trap: true, effect: false, reads: false }
                => { elem_of(f, a)?; want(f, i, Type::Int, "index")?; Type::Unit };
            "array_get" ArrayGet(a: Val, i: Val) { trap: false, effect: false, reads: true }
                => { let e = elem_of(f, a)?; want(f, i, Type::Int, "index")?; e };
            "array_set" ArraySet(a: Val, i: Val, v: Val) { trap: false, effect: true, reads: false }
                => {
                    let e = elem_of(f, a)?;
                    want(f, i, Type::Int, "index")?;
                    want(f, v, e, "stored value")?;
                    Type::Unit
                };
            "array_push" ArrayPush(a: Val, v: Val) { trap: true, effect: false, reads: false }
                => { let e = elem_of(f, a)?; want(f, v, e, "pushed value")?; Type::Unit };
            "array_pop" ArrayPop(a: Val) { trap: true, effect: false, reads: true }
                => { elem_of(f, a)? };
            "str_len" StrLen(a: Val) { trap: false, effect: false, reads: false }
                => { want(f, a, Type::Str, "operand")?; Type::Int };
            "str_concat" StrConcat(a: Val, b: Val) { trap: true, effect: false, reads: false }
                => {
                    want(f, a, Type::Str, "left operand")?;
                    want(f, b, Type::Str, "right operand")?;
                    Type::Str
                };
            "str_cmp" StrCmp(c: Cond, a: Val, b: Val) { trap: false, effect: false, reads: false }
                => {
                    want(f, a, Type::Str, "left operand")?;
                    want(f, b, Type::Str, "right operand")?;
                    Type::Bool
                };
            // Values are never void (checked before typing), so `to_str`
            // and `print` take any operand.
            "to_str" ToStr(a: Val) { trap: true, effect: false, reads: false }
                => { Type::Str };
            "print" Print(a: Val) { trap: false, effect: true, reads: false }
                => { Type::Unit };
            "assert" Assert(a: Val) { trap: true, effect: false, reads: false }
                => { want(f, a, Type::Bool, "condition")?; Type::Unit };
            "clock" Clock { trap: false, effect: true, reads: false }
                => { Type::Float };
        }
    };
}
pub(crate) use inst_table;

/// `Some(mnemonic)` for a row's literal mnemonic, `None` for `_` (the first
/// operand names the instruction).
macro_rules! table_mnemonic {
    (_) => {
        None::<&'static str>
    };
    ($name:literal) => {
        Some($name)
    };
}
pub(crate) use table_mnemonic;

/// What an instruction may do (see the module docs).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
struct Effects {
    trap: bool,
    effect: bool,
    reads: bool,
}

macro_rules! gen_operand_queries {
    (typing($($ctx:ident),*);
     $($name:tt $v:ident $(($($op:ident: $kind:ident),*))?
        { trap: $trap:expr, effect: $eff:expr, reads: $rd:expr }
        => $typing:block;)*) => {
        impl InstKind {
            /// The effects of the instruction, from its table row.
            #[allow(unused_variables)]
            fn effects(&self) -> Effects {
                match self {
                    $(InstKind::$v $(($($op),*))? => Effects {
                        trap: $trap,
                        effect: $eff,
                        reads: $rd,
                    },)*
                }
            }

            /// Calls `f` on every value operand, in order.
            #[allow(unused_variables)]
            pub fn for_each_arg(&self, mut f: impl FnMut(Value)) {
                match self {
                    $(InstKind::$v $(($($op),*))? => {
                        $($(<operand::$kind as OperandKind>::for_each_value($op, &mut f);)*)?
                    })*
                }
            }

            /// Calls `f` on a mutable reference to every value operand, in order.
            #[allow(unused_variables)]
            pub fn for_each_arg_mut(&mut self, mut f: impl FnMut(&mut Value)) {
                match self {
                    $(InstKind::$v $(($($op),*))? => {
                        $($(<operand::$kind as OperandKind>::for_each_value_mut($op, &mut f);)*)?
                    })*
                }
            }
        }
    };
}
inst_table!(gen_operand_queries);

impl InstKind {
    /// Whether the instruction may raise a runtime error.
    pub fn may_trap(&self) -> bool {
        self.effects().trap
    }

    /// Whether the instruction has an effect beyond computing its result
    /// (writes memory or globals, prints, calls, or may trap). Instructions
    /// without side effects may be removed when their result is unused.
    pub fn has_side_effects(&self) -> bool {
        let e = self.effects();
        e.trap || e.effect
    }

    /// Whether the instruction reads mutable state (globals or array
    /// contents, or anything a call reaches), so it cannot be moved across
    /// writes.
    pub fn reads_memory(&self) -> bool {
        self.effects().reads
    }
}
