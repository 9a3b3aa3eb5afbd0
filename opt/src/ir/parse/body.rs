//! Parsing a function body: blocks, instructions and terminators.

use cranelift_entity::{EntityRef, PrimaryMap};

use super::lexer::Tok;
use super::{entity_number, ParseError, Parser, Refs};
use crate::ir::entities::{Block, FuncId, GlobalId, HostFnId, Inst, Value};
use crate::ir::function::{BlockData, Function, ValueData, ValueDef};
use crate::ir::inst_table::{inst_table, operand, OperandKind};
use crate::ir::instructions::{
    BinaryOp, BlockCall, Cmp, InstData, InstKind, SrcLoc, Terminator, UnaryOp,
};
use crate::ir::print::{binary_name, cmp_name, unary_name, ALL_ARITH, ALL_CMP, ALL_UNARY};
use crate::ir::types::Type;

/// A position in the text.
type Pos = (u32, u32);

/// What has been parsed of one function body so far.
#[derive(Default)]
struct Body {
    values: Vec<Option<ValueData>>,
    value_uses: Vec<(Value, Pos)>,
    blocks: Vec<Option<BlockData>>,
    block_refs: Vec<(Block, Pos)>,
    insts: PrimaryMap<Inst, InstData>,
    layout: Vec<Block>,
}

impl Body {
    fn define_value(&mut self, v: Value, data: ValueData, at: Pos) -> Result<(), ParseError> {
        if self.values.len() <= v.index() {
            self.values.resize(v.index() + 1, None);
        }
        if self.values[v.index()].is_some() {
            return Err(ParseError::new(at.0, at.1, format!("{v} is defined twice")));
        }
        self.values[v.index()] = Some(data);
        Ok(())
    }
}

/// Parses blocks up to and including the closing `}` into `f`.
pub(super) fn parse_body(
    p: &mut Parser,
    f: &mut Function,
    refs: &mut Refs,
) -> Result<(), ParseError> {
    let mut body = Body::default();
    loop {
        let t = p.peek().clone();
        match t.tok {
            Tok::RBrace => {
                p.next();
                break;
            }
            Tok::Eof => return Err(p.unexpected(&t, "a block label or `}`")),
            _ => parse_block(p, &mut body, refs)?,
        }
    }
    finish(body, f)
}

/// Whether the next tokens start a block label (`blockN:` / `blockN(`).
fn at_block_label(p: &Parser) -> bool {
    matches!(&p.peek().tok, Tok::Word(w) if entity_number(w, "block").is_some())
        && matches!(p.peek2().tok, Tok::Colon | Tok::LParen)
}

/// One block: label, parameters, instructions, terminator.
fn parse_block(p: &mut Parser, body: &mut Body, refs: &mut Refs) -> Result<(), ParseError> {
    let at = p.peek().clone();
    if !at_block_label(p) {
        return Err(p.unexpected(&at, "a block label `blockN:`"));
    }
    let b = Block::from_u32(p.expect_bounded_entity("block", "block")?);
    if body.blocks.get(b.index()).is_some_and(Option::is_some) {
        return Err(ParseError::new(
            at.line,
            at.col,
            format!("{b} is defined twice"),
        ));
    }
    if body.blocks.len() <= b.index() {
        body.blocks.resize(b.index() + 1, None);
    }
    // Reserve the slot so a duplicate label is caught even mid-block.
    body.blocks[b.index()] = Some(placeholder_block());
    let mut params = Vec::new();
    if p.eat(&Tok::LParen) && !p.eat(&Tok::RParen) {
        loop {
            let vt = p.peek().clone();
            let v = Value::from_u32(p.expect_bounded_entity("value", "v")?);
            p.expect(&Tok::Colon)?;
            let ty = non_void_type(p)?;
            let def = ValueDef::Param(b, params.len() as u32);
            body.define_value(v, ValueData { ty, def }, (vt.line, vt.col))?;
            params.push(v);
            if p.eat(&Tok::RParen) {
                break;
            }
            p.expect(&Tok::Comma)?;
        }
    }
    p.expect(&Tok::Colon)?;
    let mut insts = Vec::new();
    let term = loop {
        let t = p.peek().clone();
        let word = match &t.tok {
            Tok::Word(w) => w.clone(),
            _ => String::new(),
        };
        match word.as_str() {
            "return" | "jump" | "br" | "switch" => break parse_terminator(p, body)?,
            _ if at_block_label(p) || matches!(t.tok, Tok::RBrace | Tok::Eof) => {
                return Err(ParseError::new(
                    t.line,
                    t.col,
                    format!("{b} has no terminator"),
                ))
            }
            _ => insts.push(parse_inst(p, body, refs)?),
        }
    };
    body.blocks[b.index()] = Some(BlockData {
        params,
        insts,
        term,
    });
    body.layout.push(b);
    Ok(())
}

fn placeholder_block() -> BlockData {
    BlockData {
        params: Vec::new(),
        insts: Vec::new(),
        term: Terminator::Return(None),
    }
}

/// A type that must not be `void`.
fn non_void_type(p: &mut Parser) -> Result<Type, ParseError> {
    let at = p.peek().clone();
    let ty = p.parse_type()?;
    if ty == Type::Unit {
        return Err(ParseError::new(
            at.line,
            at.col,
            "a value cannot have type void",
        ));
    }
    Ok(ty)
}

/// A value operand; records the use for the definedness check.
fn value(p: &mut Parser, body: &mut Body) -> Result<Value, ParseError> {
    let at = p.peek().clone();
    let v = Value::from_u32(p.expect_bounded_entity("value", "v")?);
    body.value_uses.push((v, (at.line, at.col)));
    Ok(v)
}

/// Values separated by commas up to the closing token `close` (consumed).
fn value_list(p: &mut Parser, body: &mut Body, close: &Tok) -> Result<Vec<Value>, ParseError> {
    let mut vals = Vec::new();
    if p.eat(close) {
        return Ok(vals);
    }
    loop {
        vals.push(value(p, body)?);
        if p.eat(close) {
            return Ok(vals);
        }
        p.expect(&Tok::Comma)?;
    }
}

/// A comparison condition word.
fn cond(p: &mut Parser) -> Result<Cmp, ParseError> {
    let (w, t) = p.expect_word("a condition (eq, ne, lt, le, gt, ge)")?;
    ALL_CMP
        .into_iter()
        .find(|&c| cmp_name(c) == w)
        .ok_or_else(|| ParseError::new(t.line, t.col, format!("unknown condition `{w}`")))
}

/// `[vN: T =] opcode operands [@loc]`
fn parse_inst(p: &mut Parser, body: &mut Body, refs: &mut Refs) -> Result<Inst, ParseError> {
    let first = p.peek().clone();
    let result = match &first.tok {
        Tok::Word(w) if entity_number(w, "v").is_some() && p.peek2().tok == Tok::Colon => {
            let v = Value::from_u32(p.expect_bounded_entity("value", "v")?);
            p.expect(&Tok::Colon)?;
            let ty = non_void_type(p)?;
            p.expect(&Tok::Eq)?;
            Some((v, ty))
        }
        _ => None,
    };
    let kind = parse_kind(p, body, refs)?;
    let loc = p.parse_loc()?;
    let inst = body.insts.push(InstData {
        kind,
        result: result.map(|r| r.0),
        loc,
    });
    if let Some((v, ty)) = result {
        let def = ValueDef::Inst(inst);
        body.define_value(v, ValueData { ty, def }, (first.line, first.col))?;
    }
    Ok(inst)
}

/// How the parser reads an operand of the instruction table.
trait ParseOperand: OperandKind {
    /// Reads the operand.
    fn parse(p: &mut Parser, body: &mut Body, refs: &mut Refs) -> Result<Self::Field, ParseError>;

    /// For an operator kind, the operator whose mnemonic is `word` (already
    /// read), reading what else the mnemonic needs; `None` when `word`
    /// names no operator of this kind (and for kinds that are not operators).
    fn parse_mnemonic(_word: &str, _p: &mut Parser) -> Result<Option<Self::Field>, ParseError> {
        Ok(None)
    }
}

impl ParseOperand for operand::Val {
    fn parse(p: &mut Parser, body: &mut Body, _: &mut Refs) -> Result<Value, ParseError> {
        value(p, body)
    }
}
impl ParseOperand for operand::Vals {
    fn parse(p: &mut Parser, body: &mut Body, _: &mut Refs) -> Result<Vec<Value>, ParseError> {
        p.expect(&Tok::LBracket)?;
        value_list(p, body, &Tok::RBracket)
    }
}
impl ParseOperand for operand::Args {
    fn parse(p: &mut Parser, body: &mut Body, _: &mut Refs) -> Result<Vec<Value>, ParseError> {
        p.expect(&Tok::LParen)?;
        value_list(p, body, &Tok::RParen)
    }
}
impl ParseOperand for operand::Int {
    fn parse(p: &mut Parser, _: &mut Body, _: &mut Refs) -> Result<i64, ParseError> {
        p.expect_i64()
    }
}
impl ParseOperand for operand::FloatBits {
    fn parse(p: &mut Parser, _: &mut Body, _: &mut Refs) -> Result<u64, ParseError> {
        float_bits(p)
    }
}
impl ParseOperand for operand::BoolLit {
    fn parse(p: &mut Parser, _: &mut Body, _: &mut Refs) -> Result<bool, ParseError> {
        let (w, t) = p.expect_word("`true` or `false`")?;
        match w.as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(ParseError::new(
                t.line,
                t.col,
                format!("expected `true` or `false`, found `{w}`"),
            )),
        }
    }
}
impl ParseOperand for operand::StrLit {
    fn parse(p: &mut Parser, _: &mut Body, _: &mut Refs) -> Result<Box<str>, ParseError> {
        Ok(p.expect_str()?.into_boxed_str())
    }
}
impl ParseOperand for operand::Cond {
    fn parse(p: &mut Parser, _: &mut Body, _: &mut Refs) -> Result<Cmp, ParseError> {
        cond(p)
    }
}
impl ParseOperand for operand::UnOp {
    fn parse(p: &mut Parser, _: &mut Body, _: &mut Refs) -> Result<UnaryOp, ParseError> {
        let (w, t) = p.expect_word("a unary operator")?;
        Self::parse_mnemonic(&w, p)?
            .ok_or_else(|| ParseError::new(t.line, t.col, format!("unknown unary operator `{w}`")))
    }
    fn parse_mnemonic(word: &str, _: &mut Parser) -> Result<Option<UnaryOp>, ParseError> {
        Ok(ALL_UNARY.into_iter().find(|&u| unary_name(u) == word))
    }
}
impl ParseOperand for operand::BinOp {
    fn parse(p: &mut Parser, _: &mut Body, _: &mut Refs) -> Result<BinaryOp, ParseError> {
        let (w, t) = p.expect_word("a binary operator")?;
        Self::parse_mnemonic(&w, p)?
            .ok_or_else(|| ParseError::new(t.line, t.col, format!("unknown binary operator `{w}`")))
    }
    fn parse_mnemonic(word: &str, p: &mut Parser) -> Result<Option<BinaryOp>, ParseError> {
        let cmp: fn(Cmp) -> BinaryOp = match word {
            "icmp" => BinaryOp::ICmp,
            "fcmp" => BinaryOp::FCmp,
            "bcmp" => BinaryOp::BCmp,
            _ => return Ok(ALL_ARITH.into_iter().find(|&b| binary_name(b) == word)),
        };
        Ok(Some(cmp(cond(p)?)))
    }
}
/// `<prefix>N` and an optional name for readers (`fn3 "fib"`): the number,
/// the name and where the reference starts, for the existence check.
fn named_ref(
    p: &mut Parser,
    what: &str,
    prefix: &str,
) -> Result<(u32, Option<String>, Pos), ParseError> {
    let at = p.peek().clone();
    let n = p.expect_entity(what, prefix)?;
    let name = match &p.peek().tok {
        Tok::Str(_) => Some(p.expect_str()?),
        _ => None,
    };
    Ok((n, name, (at.line, at.col)))
}

impl ParseOperand for operand::Callee {
    fn parse(p: &mut Parser, _: &mut Body, refs: &mut Refs) -> Result<FuncId, ParseError> {
        let (n, name, (line, col)) = named_ref(p, "function", "fn")?;
        refs.calls.push((FuncId::from_u32(n), name, line, col));
        Ok(FuncId::from_u32(n))
    }
}
impl ParseOperand for operand::HostFn {
    fn parse(p: &mut Parser, _: &mut Body, refs: &mut Refs) -> Result<HostFnId, ParseError> {
        let (n, name, (line, col)) = named_ref(p, "host function", "h")?;
        refs.hosts.push((HostFnId::from_u32(n), name, line, col));
        Ok(HostFnId::from_u32(n))
    }
}
impl ParseOperand for operand::Global {
    fn parse(p: &mut Parser, _: &mut Body, refs: &mut Refs) -> Result<GlobalId, ParseError> {
        let at = p.peek().clone();
        let g = GlobalId::from_u32(p.expect_entity("global", "g")?);
        refs.globals.push((g, at.line, at.col));
        Ok(g)
    }
}

/// Reads the operands of one table row after its mnemonic into bindings
/// named as in the row, each preceded by the comma its predecessor's kind
/// calls for (`$comma`: whether the first one is).
macro_rules! parse_operands {
    ($p:ident, $body:ident, $refs:ident, $comma:expr; $($op:ident: $kind:ident),*) => {
        #[allow(unused_mut)]
        let mut comma: bool = $comma;
        $(
            if comma {
                $p.expect(&Tok::Comma)?;
            }
            let $op = <operand::$kind as ParseOperand>::parse($p, $body, $refs)?;
            comma = <operand::$kind as OperandKind>::SEP_AFTER.contains(',');
        )*
        let _ = comma;
    };
}

/// Returns one table row's instruction if `word` is its mnemonic.
macro_rules! parse_row {
    ($word:ident, $p:ident, $body:ident, $refs:ident, _, $v:ident,
     $op0:ident: $kind0:ident $(, $op:ident: $kind:ident)*) => {
        if let Some($op0) = <operand::$kind0 as ParseOperand>::parse_mnemonic($word, $p)? {
            let first_comma = <operand::$kind0 as OperandKind>::SEP_AFTER.contains(',');
            parse_operands!($p, $body, $refs, first_comma; $($op: $kind),*);
            return Ok(Some(InstKind::$v($op0 $(, $op)*)));
        }
    };
    ($word:ident, $p:ident, $body:ident, $refs:ident, $name:literal, $v:ident) => {
        if $word == $name {
            return Ok(Some(InstKind::$v));
        }
    };
    ($word:ident, $p:ident, $body:ident, $refs:ident, $name:literal, $v:ident,
     $($op:ident: $kind:ident),*) => {
        if $word == $name {
            parse_operands!($p, $body, $refs, false; $($op: $kind),*);
            return Ok(Some(InstKind::$v($($op),*)));
        }
    };
}

macro_rules! gen_parse_kind {
    (typing($($ctx:ident),*);
     $($name:tt $v:ident $(($($op:ident: $kind:ident),*))?
        { $($effects:tt)* } => $typing:block;)*) => {
        /// The instruction whose mnemonic is `word` (already read) and its
        /// operands, by the table row; `None` for an unknown mnemonic.
        fn parse_table_kind(
            word: &str,
            p: &mut Parser,
            body: &mut Body,
            refs: &mut Refs,
        ) -> Result<Option<InstKind>, ParseError> {
            $(parse_row!(word, p, body, refs, $name, $v $($(, $op: $kind)*)?);)*
            Ok(None)
        }
    };
}
inst_table!(gen_parse_kind);

/// An opcode and its operands.
fn parse_kind(p: &mut Parser, body: &mut Body, refs: &mut Refs) -> Result<InstKind, ParseError> {
    let (op, t) = p.expect_word("an instruction")?;
    parse_table_kind(&op, p, body, refs)?
        .ok_or_else(|| ParseError::new(t.line, t.col, format!("unknown instruction `{op}`")))
}

/// A float literal (Rust syntax, `inf`, `NaN`) or `0x` + hex IEEE bits.
fn float_bits(p: &mut Parser) -> Result<u64, ParseError> {
    let (w, t) = p.expect_word("a float")?;
    let bits = match w.strip_prefix("0x") {
        Some(hex)
            if !hex.is_empty() && hex.len() <= 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            u64::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None => w.parse::<f64>().ok().map(f64::to_bits),
    };
    bits.ok_or_else(|| ParseError::new(t.line, t.col, format!("`{w}` is not a float")))
}

/// `blockN` or `blockN(v, ...)`.
fn block_call(p: &mut Parser, body: &mut Body) -> Result<BlockCall, ParseError> {
    let at = p.peek().clone();
    let b = Block::from_u32(p.expect_bounded_entity("block", "block")?);
    body.block_refs.push((b, (at.line, at.col)));
    let args = if p.eat(&Tok::LParen) {
        value_list(p, body, &Tok::RParen)?
    } else {
        Vec::new()
    };
    Ok(BlockCall::new(b, args))
}

/// `return [v]`, `jump call`, `br v, call, call`,
/// `switch v|_ [k: call, ...] default call`.
fn parse_terminator(p: &mut Parser, body: &mut Body) -> Result<Terminator, ParseError> {
    let (w, t) = p.expect_word("a terminator")?;
    Ok(match w.as_str() {
        "return" => {
            let next = p.peek();
            if next.line == t.line && !matches!(next.tok, Tok::RBrace | Tok::Eof) {
                Terminator::Return(Some(value(p, body)?))
            } else {
                Terminator::Return(None)
            }
        }
        "jump" => Terminator::jump(block_call(p, body)?),
        "br" => {
            let c = value(p, body)?;
            p.expect(&Tok::Comma)?;
            let then = block_call(p, body)?;
            p.expect(&Tok::Comma)?;
            Terminator::branch(c, then, block_call(p, body)?)
        }
        _ => {
            let scrut = if matches!(&p.peek().tok, Tok::Word(w) if w == "_") {
                p.next();
                None
            } else {
                Some(value(p, body)?)
            };
            p.expect(&Tok::LBracket)?;
            let mut cases = Vec::new();
            if !p.eat(&Tok::RBracket) {
                loop {
                    let key = p.expect_i64()?;
                    p.expect(&Tok::Colon)?;
                    cases.push((key, block_call(p, body)?));
                    if p.eat(&Tok::RBracket) {
                        break;
                    }
                    p.expect(&Tok::Comma)?;
                }
            }
            let (d, dt) = p.expect_word("`default`")?;
            if d != "default" {
                return Err(ParseError::new(
                    dt.line,
                    dt.col,
                    format!("expected `default`, found `{d}`"),
                ));
            }
            Terminator::Switch {
                value: scrut,
                cases,
                default: block_call(p, body)?,
            }
        }
    })
}

/// Checks references and moves the parsed body into `f`, filling numbering
/// gaps with detached placeholders.
fn finish(body: Body, f: &mut Function) -> Result<(), ParseError> {
    for &(b, (line, col)) in &body.block_refs {
        if !body.blocks.get(b.index()).is_some_and(Option::is_some) {
            return Err(ParseError::new(line, col, format!("undefined block {b}")));
        }
    }
    for &(v, (line, col)) in &body.value_uses {
        if !body.values.get(v.index()).is_some_and(Option::is_some) {
            return Err(ParseError::new(line, col, format!("undefined value {v}")));
        }
    }
    f.insts = body.insts;
    for data in body.blocks {
        f.blocks.push(data.unwrap_or_else(placeholder_block));
    }
    for (i, data) in body.values.into_iter().enumerate() {
        let data = data.unwrap_or_else(|| {
            let inst = f.insts.push(InstData {
                kind: InstKind::IConst(0),
                result: Some(Value::new(i)),
                loc: SrcLoc::NONE,
            });
            ValueData {
                ty: Type::Int,
                def: ValueDef::Inst(inst),
            }
        });
        f.values.push(data);
    }
    f.layout = body.layout;
    Ok(())
}
