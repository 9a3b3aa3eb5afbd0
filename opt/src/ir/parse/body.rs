//! Parsing a function body: blocks, instructions and terminators.

use cranelift_entity::{EntityRef, PrimaryMap};

use super::lexer::Tok;
use super::{entity_number, ParseError, Parser, Refs};
use crate::ir::entities::{Block, FuncId, GlobalId, HostFnId, Inst, Value};
use crate::ir::function::{BlockData, Function, ValueData, ValueDef};
use crate::ir::instructions::{BinaryOp, BlockCall, Cmp, InstData, InstKind, SrcLoc, Terminator};
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

/// `a, b`
fn two_values(p: &mut Parser, body: &mut Body) -> Result<(Value, Value), ParseError> {
    let a = value(p, body)?;
    p.expect(&Tok::Comma)?;
    let b = value(p, body)?;
    Ok((a, b))
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

macro_rules! gen_parse_table_inst {
    ($($v:ident($first:ident $(, $rest:ident)*) $name:literal { $($effects:tt)* }
        ($f:ident) => $typing:block;)*) => {
        /// The operands of the [`crate::ir::instructions::value_insts`]
        /// instruction with mnemonic `op` (already read); `None` for other
        /// mnemonics.
        fn parse_table_inst(
            op: &str,
            p: &mut Parser,
            body: &mut Body,
        ) -> Result<Option<InstKind>, ParseError> {
            Ok(Some(match op {
                $($name => {
                    let $first = value(p, body)?;
                    $(
                        p.expect(&Tok::Comma)?;
                        let $rest = value(p, body)?;
                    )*
                    InstKind::$v($first $(, $rest)*)
                })*
                _ => return Ok(None),
            }))
        }
    };
}
crate::ir::instructions::value_insts!(gen_parse_table_inst);

/// An opcode and its operands.
fn parse_kind(p: &mut Parser, body: &mut Body, refs: &mut Refs) -> Result<InstKind, ParseError> {
    let (op, t) = p.expect_word("an instruction")?;
    if let Some(kind) = parse_table_inst(&op, p, body)? {
        return Ok(kind);
    }
    let kind = match op.as_str() {
        "iconst" => InstKind::IConst(p.expect_i64()?),
        "fconst" => InstKind::FConst(float_bits(p)?),
        "bconst" => {
            let (w, bt) = p.expect_word("`true` or `false`")?;
            match w.as_str() {
                "true" => InstKind::BConst(true),
                "false" => InstKind::BConst(false),
                _ => {
                    return Err(ParseError::new(
                        bt.line,
                        bt.col,
                        format!("expected `true` or `false`, found `{w}`"),
                    ))
                }
            }
        }
        "sconst" => InstKind::SConst(p.expect_str()?.into_boxed_str()),
        "icmp" | "fcmp" | "bcmp" => {
            let c = cond(p)?;
            let (a, b) = two_values(p, body)?;
            let bop = match op.as_str() {
                "icmp" => BinaryOp::ICmp(c),
                "fcmp" => BinaryOp::FCmp(c),
                _ => BinaryOp::BCmp(c),
            };
            InstKind::Binary(bop, a, b)
        }
        "call" => {
            let ct = p.peek().clone();
            let callee = FuncId::from_u32(p.expect_entity("function", "fn")?);
            let name = match &p.peek().tok {
                Tok::Str(_) => Some(p.expect_str()?),
                _ => None,
            };
            refs.calls.push((callee, name, ct.line, ct.col));
            p.expect(&Tok::LParen)?;
            InstKind::Call(callee, value_list(p, body, &Tok::RParen)?)
        }
        "host_call" => {
            let ct = p.peek().clone();
            let h = HostFnId::from_u32(p.expect_entity("host function", "h")?);
            let name = match &p.peek().tok {
                Tok::Str(_) => Some(p.expect_str()?),
                _ => None,
            };
            refs.hosts.push((h, name, ct.line, ct.col));
            p.expect(&Tok::LParen)?;
            InstKind::HostCall(h, value_list(p, body, &Tok::RParen)?)
        }
        "global_get" => InstKind::GlobalGet(global(p, refs)?),
        "global_set" => {
            let g = global(p, refs)?;
            p.expect(&Tok::Comma)?;
            InstKind::GlobalSet(g, value(p, body)?)
        }
        "array_lit" => {
            p.expect(&Tok::LBracket)?;
            InstKind::ArrayLit(value_list(p, body, &Tok::RBracket)?)
        }
        "str_cmp" => {
            let c = cond(p)?;
            let (a, b) = two_values(p, body)?;
            InstKind::StrCmp(c, a, b)
        }
        "clock" => InstKind::Clock,
        _ => {
            if let Some(u) = ALL_UNARY.into_iter().find(|&u| unary_name(u) == op) {
                InstKind::Unary(u, value(p, body)?)
            } else if let Some(b) = ALL_ARITH.into_iter().find(|&b| binary_name(b) == op) {
                let (x, y) = two_values(p, body)?;
                InstKind::Binary(b, x, y)
            } else {
                return Err(ParseError::new(
                    t.line,
                    t.col,
                    format!("unknown instruction `{op}`"),
                ));
            }
        }
    };
    Ok(kind)
}

/// `gN`, recorded for the existence check.
fn global(p: &mut Parser, refs: &mut Refs) -> Result<GlobalId, ParseError> {
    let at = p.peek().clone();
    let g = GlobalId::from_u32(p.expect_entity("global", "g")?);
    refs.globals.push((g, at.line, at.col));
    Ok(g)
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
