//! Terse helpers for building test functions with `FunctionBuilder`.

use waddle_opt::abi::{Trap, Word};
use waddle_opt::interp::Interpreter;
use waddle_opt::ir::{
    BinaryOp, Block, BlockCall, FuncId, Function, FunctionBuilder, InstKind, Program, Signature,
    SrcLoc, Terminator, Type, UnaryOp, Value,
};

use waddle_test_support::TestHost;

/// A location on line `line`, column `col` of file 0.
pub fn loc(line: u32, col: u32) -> SrcLoc {
    SrcLoc { file: 0, line, col }
}

/// Adds a declaration-only function and returns its id.
pub fn declare(p: &mut Program, name: &str, params: &[Type], ret: Type) -> FuncId {
    let mut f = Function::new(
        name,
        Signature {
            params: params.to_vec(),
            ret,
        },
    );
    FunctionBuilder::new(&mut f).set_loc(loc(1, 1));
    p.funcs.push(f)
}

/// Builds the body of declared function `id` with `body(builder, params)`.
pub fn define(p: &mut Program, id: FuncId, body: impl FnOnce(&mut B<'_>, Vec<Value>)) {
    let f = &mut p.funcs[id];
    let params = f.sig().params.clone();
    let mut b = B {
        b: FunctionBuilder::new(f),
        blk: Block::from_u32(0),
    };
    b.b.set_layout(Vec::new());
    let entry = b.b.create_block();
    b.blk = entry;
    let vals = params
        .iter()
        .map(|&t| b.b.append_block_param(entry, t))
        .collect();
    body(&mut b, vals);
}

/// Declares and defines a function.
pub fn func(
    p: &mut Program,
    name: &str,
    params: &[Type],
    ret: Type,
    body: impl FnOnce(&mut B<'_>, Vec<Value>),
) -> FuncId {
    let id = declare(p, name, params, ret);
    define(p, id, body);
    id
}

/// Runs `f(args)` on a fresh interpreter.
pub fn run(p: &Program, host: &mut TestHost, f: FuncId, args: &[Word]) -> Result<Word, Trap> {
    let it = Interpreter::new(p, host);
    it.call(host, f, args)
}

/// A builder positioned at a block.
pub struct B<'a> {
    /// The underlying builder.
    pub b: FunctionBuilder<'a>,
    /// The block instructions are appended to.
    pub blk: Block,
}

fn result_type(op: BinaryOp) -> Type {
    use BinaryOp::*;
    match op {
        ICmp(_) | FCmp(_) | BCmp(_) => Type::Bool,
        FAdd | FSub | FMul | FDiv | FRem | FMin | FMax => Type::Float,
        _ => Type::Int,
    }
}

impl B<'_> {
    /// A new block with parameters of the given types.
    pub fn block(&mut self, tys: &[Type]) -> (Block, Vec<Value>) {
        let blk = self.b.create_block();
        let vals = tys
            .iter()
            .map(|&t| self.b.append_block_param(blk, t))
            .collect();
        (blk, vals)
    }

    /// Continues appending at `blk`.
    pub fn at(&mut self, blk: Block) {
        self.blk = blk;
    }

    /// A value-producing instruction.
    pub fn ins(&mut self, kind: InstKind, ty: Type) -> Value {
        self.ins_at(kind, ty, SrcLoc::NONE)
    }

    /// A value-producing instruction with a location.
    pub fn ins_at(&mut self, kind: InstKind, ty: Type, l: SrcLoc) -> Value {
        self.b.ins(self.blk, kind, ty, l)
    }

    /// An instruction without result.
    pub fn eff(&mut self, kind: InstKind) {
        self.eff_at(kind, SrcLoc::NONE);
    }

    /// An instruction without result, with a location.
    pub fn eff_at(&mut self, kind: InstKind, l: SrcLoc) {
        self.b.effect(self.blk, kind, l);
    }

    /// `int` constant.
    pub fn i(&mut self, k: i64) -> Value {
        self.ins(InstKind::IConst(k), Type::Int)
    }

    /// `float` constant.
    pub fn f(&mut self, x: f64) -> Value {
        self.ins(InstKind::FConst(x.to_bits()), Type::Float)
    }

    /// `bool` constant.
    pub fn bool(&mut self, x: bool) -> Value {
        self.ins(InstKind::BConst(x), Type::Bool)
    }

    /// `str` constant.
    pub fn s(&mut self, x: &str) -> Value {
        self.ins(InstKind::SConst(x.into()), Type::Str)
    }

    /// Binary operation (result type from the op).
    pub fn bin(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        self.ins(InstKind::Binary(op, a, b), result_type(op))
    }

    /// Binary operation with a location.
    pub fn bin_at(&mut self, op: BinaryOp, a: Value, b: Value, l: SrcLoc) -> Value {
        self.ins_at(InstKind::Binary(op, a, b), result_type(op), l)
    }

    /// Unary operation producing `ty`.
    pub fn un(&mut self, op: UnaryOp, a: Value, ty: Type) -> Value {
        self.ins(InstKind::Unary(op, a), ty)
    }

    /// `print v`.
    pub fn print(&mut self, v: Value) {
        self.eff(InstKind::Print(v));
    }

    /// A call; `None` for void callees.
    pub fn call(&mut self, f: FuncId, args: Vec<Value>, ret: Type) -> Option<Value> {
        self.call_at(f, args, ret, SrcLoc::NONE)
    }

    /// A call with a location.
    pub fn call_at(&mut self, f: FuncId, args: Vec<Value>, ret: Type, l: SrcLoc) -> Option<Value> {
        self.b
            .append_inst(self.blk, InstKind::Call(f, args), ret, l)
            .1
    }

    /// Ends the block with a jump.
    pub fn jump(&mut self, to: Block, args: Vec<Value>) {
        self.b
            .set_terminator(self.blk, Terminator::jump(BlockCall::new(to, args)));
    }

    /// Ends the block with a two-way branch.
    pub fn br(&mut self, c: Value, t: Block, targs: Vec<Value>, e: Block, eargs: Vec<Value>) {
        let term = Terminator::branch(c, BlockCall::new(t, targs), BlockCall::new(e, eargs));
        self.b.set_terminator(self.blk, term);
    }

    /// Ends the block with a return.
    pub fn ret(&mut self, v: Option<Value>) {
        self.b.set_terminator(self.blk, Terminator::Return(v));
    }
}
