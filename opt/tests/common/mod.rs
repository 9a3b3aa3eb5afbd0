//! Random well-typed, verifiable programs for property tests.
//!
//! A program is generated from a list of choices (`Vec<u32>`, consumed one at
//! a time, 0 once exhausted), so proptest shrinks programs by shrinking the
//! list. Every block is reachable (a random spanning tree over the layout
//! plus extra edges, back edges included), operands are chosen among values
//! of the right type defined in dominating positions, and instructions are
//! created in layout order so that printing and parsing reproduce the arenas
//! exactly.

#![allow(dead_code)]

use std::collections::HashMap;

use waddle_opt::analysis::{ControlFlowGraph, DomTree};
use waddle_opt::ir::{
    BinaryOp, Block, BlockCall, Cmp, FuncId, Function, FunctionBuilder, GlobalData, InstKind,
    Program, ScalarType, Signature, SrcLoc, Terminator, Type, UnaryOp, Value,
};

/// Consumes choices.
pub struct Gen {
    data: Vec<u32>,
    pos: usize,
}

impl Gen {
    /// A generator over `data`.
    pub fn new(data: Vec<u32>) -> Gen {
        Gen { data, pos: 0 }
    }

    /// A raw choice (0 once exhausted).
    pub fn raw(&mut self) -> u32 {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.raw() as usize % n
    }

    /// True with probability about `1/n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == n - 1
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

const UNARY: [(UnaryOp, Type, Type); 15] = [
    (UnaryOp::INeg, Type::Int, Type::Int),
    (UnaryOp::FNeg, Type::Float, Type::Float),
    (UnaryOp::BNot, Type::Bool, Type::Bool),
    (UnaryOp::IToF, Type::Int, Type::Float),
    (UnaryOp::FToI, Type::Float, Type::Int),
    (UnaryOp::IAbs, Type::Int, Type::Int),
    (UnaryOp::FAbs, Type::Float, Type::Float),
    (UnaryOp::FSqrt, Type::Float, Type::Float),
    (UnaryOp::FFloor, Type::Float, Type::Float),
    (UnaryOp::FCeil, Type::Float, Type::Float),
    (UnaryOp::FSin, Type::Float, Type::Float),
    (UnaryOp::FCos, Type::Float, Type::Float),
    (UnaryOp::FTan, Type::Float, Type::Float),
    (UnaryOp::FExp, Type::Float, Type::Float),
    (UnaryOp::FLog, Type::Float, Type::Float),
];

const INT_OPS: [BinaryOp; 12] = [
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
];

const FLOAT_OPS: [BinaryOp; 7] = [
    BinaryOp::FAdd,
    BinaryOp::FSub,
    BinaryOp::FMul,
    BinaryOp::FDiv,
    BinaryOp::FRem,
    BinaryOp::FMin,
    BinaryOp::FMax,
];

const CMPS: [Cmp; 6] = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];

const INTS: [i64; 8] = [0, 1, -1, 7, i64::MIN, i64::MAX, 1 << 40, -12345];

const FLOATS: [u64; 10] = [
    0,
    0x8000_0000_0000_0000, // -0.0
    0x3ff8_0000_0000_0000, // 1.5
    0x7ff0_0000_0000_0000, // inf
    0xfff0_0000_0000_0000, // -inf
    0x7ff8_0000_0000_0000, // NaN
    0xfff8_0000_0000_0001, // NaN with payload and sign
    0x0000_0000_0000_0001, // smallest subnormal
    0x7fef_ffff_ffff_ffff, // f64::MAX
    0x3fb9_9999_9999_999a, // 0.1
];

const STRINGS: [&str; 8] = [
    "",
    "hello",
    "quote \" backslash \\ newline \n tab \t",
    "nul \0 bell \u{7}",
    "ünïcödé ✓ 🦆",
    "\u{301}combining first",
    "; not a comment @1:2 {}",
    "line\r\nbreak",
];

/// A random value type (scalars mostly, arrays up to depth 3, rarely 64).
pub fn random_type(g: &mut Gen) -> Type {
    let scalar = g.pick(&[
        ScalarType::Int,
        ScalarType::Float,
        ScalarType::Bool,
        ScalarType::Str,
    ]);
    let depth = match g.below(10) {
        0..=5 => 0,
        6 | 7 => 1,
        8 => 2 + g.below(2) as u8,
        _ => {
            if g.one_in(4) {
                Type::MAX_ARRAY_DEPTH
            } else {
                1
            }
        }
    };
    if depth == 0 {
        Type::from(scalar)
    } else {
        Type::Array {
            elem: scalar,
            depth,
        }
    }
}

fn random_loc(g: &mut Gen) -> SrcLoc {
    match g.below(4) {
        0 => SrcLoc::NONE,
        1 => SrcLoc {
            file: g.below(3) as u32,
            line: 1 + g.below(500) as u32,
            col: 1 + g.below(80) as u32,
        },
        2 => SrcLoc {
            file: 0,
            line: 1 + g.below(100) as u32,
            col: 1 + g.below(40) as u32,
        },
        _ => SrcLoc {
            file: g.raw(),
            line: g.raw(),
            col: g.raw(),
        },
    }
}

/// A random program: 0–2 files, 0–3 globals, 1–4 functions (some only
/// declared), bodies with up to 7 blocks and every instruction kind.
pub fn random_program(g: &mut Gen) -> Program {
    let mut p = Program::default();
    for i in 0..g.below(3) {
        p.files.push(format!("{}{i}.wdl", g.pick(&STRINGS)));
    }
    for i in 0..g.below(4) {
        p.globals.push(GlobalData {
            name: format!("{}{i}", g.pick(&STRINGS)),
            ty: random_type(g),
        });
    }
    let nfuncs = 1 + g.below(4);
    let mut bodies = Vec::new();
    for i in 0..nfuncs {
        let params = (0..g.below(4)).map(|_| random_type(g)).collect();
        let ret = if g.one_in(3) {
            Type::Unit
        } else {
            random_type(g)
        };
        let name = match g.below(4) {
            0 => ".main".to_string(),
            1 => "fib".to_string(),
            2 => format!("{}{i}", g.pick(&STRINGS)),
            _ => format!("f{i}"),
        };
        let mut f = Function::new(name, Signature { params, ret });
        FunctionBuilder::new(&mut f).set_loc(random_loc(g));
        let id = p.funcs.push(f);
        if !g.one_in(5) {
            bodies.push(id);
        }
    }
    for id in bodies {
        let mut f = p.funcs[id].clone();
        BodyGen::new(g, &p).build(&mut f);
        p.funcs[id] = f;
    }
    if !g.one_in(3) {
        p.main = Some(FuncId::from_u32(g.below(nfuncs) as u32));
    }
    p
}

/// Generates one function body.
struct BodyGen<'g, 'p> {
    g: &'g mut Gen,
    prog: &'p Program,
    /// Values available at the current point, by type.
    avail: HashMap<Type, Vec<Value>>,
}

impl<'g, 'p> BodyGen<'g, 'p> {
    fn new(g: &'g mut Gen, prog: &'p Program) -> Self {
        BodyGen {
            g,
            prog,
            avail: HashMap::new(),
        }
    }

    fn build(mut self, f: &mut Function) {
        let n = 1 + self.g.below(7);
        let mut b = FunctionBuilder::new(f);
        let blocks: Vec<Block> = (0..n).map(|_| b.create_block()).collect();
        let sig = b.func.sig().clone();
        for &t in &sig.params {
            b.append_block_param(blocks[0], t);
        }
        for &blk in &blocks[1..] {
            for _ in 0..self.g.below(3) {
                let t = random_type(self.g);
                b.append_block_param(blk, t);
            }
        }
        // Edges: a spanning tree (parent < child) plus extras.
        let mut targets: Vec<Vec<usize>> = vec![Vec::new(); n];
        for i in 1..n {
            let parent = self.g.below(i);
            targets[parent].push(i);
        }
        for t in targets.iter_mut() {
            for _ in 0..self.g.below(3).saturating_sub(1) {
                t.push(self.g.below(n));
            }
            // Shuffle a little so tree edges are not always first.
            if t.len() > 1 && self.g.one_in(2) {
                t.rotate_left(1);
            }
        }
        // Skeleton terminators to compute dominators.
        for (i, t) in targets.iter().enumerate() {
            let term = match t.as_slice() {
                [] => Terminator::Return(None),
                [only] => Terminator::jump(BlockCall::new(blocks[*only], vec![])),
                [rest @ .., last] => Terminator::Switch {
                    value: None,
                    cases: rest
                        .iter()
                        .enumerate()
                        .map(|(k, &s)| (k as i64, BlockCall::new(blocks[s], vec![])))
                        .collect(),
                    default: BlockCall::new(blocks[*last], vec![]),
                },
            };
            b.set_terminator(blocks[i], term);
        }
        let cfg = ControlFlowGraph::compute(b.func);
        let dt = DomTree::compute(b.func, &cfg);
        // Values defined by each block (params and results), for dominance.
        let mut defined: Vec<Vec<Value>> = vec![Vec::new(); n];
        for i in 0..n {
            self.avail.clear();
            for j in 0..i {
                if dt.dominates(blocks[j], blocks[i]) {
                    for &v in &defined[j] {
                        self.add(b.func, v);
                    }
                }
            }
            for v in b.func.blocks()[blocks[i]].params.clone() {
                self.add(b.func, v);
            }
            for _ in 0..self.g.below(8) {
                self.random_inst(&mut b, blocks[i]);
            }
            let term = self.terminator(&mut b, blocks[i], &targets[i], &blocks, &sig);
            b.set_terminator(blocks[i], term);
            let mut mine = b.func.blocks()[blocks[i]].params.clone();
            for &inst in &b.func.blocks()[blocks[i]].insts {
                mine.extend(b.func.insts()[inst].result);
            }
            defined[i] = mine;
        }
    }

    fn add(&mut self, f: &Function, v: Value) {
        self.avail.entry(f.value_type(v)).or_default().push(v);
    }

    /// Appends an instruction and makes its result available.
    fn emit(
        &mut self,
        b: &mut FunctionBuilder<'_>,
        blk: Block,
        kind: InstKind,
        ty: Type,
    ) -> Option<Value> {
        let loc = random_loc(self.g);
        let (_, r) = b.append_inst(blk, kind, ty, loc);
        if let Some(v) = r {
            self.add(b.func, v);
        }
        r
    }

    /// A value of type `ty`: an available one, or a fresh constant.
    fn get(&mut self, b: &mut FunctionBuilder<'_>, blk: Block, ty: Type) -> Value {
        if let Some(vs) = self.avail.get(&ty) {
            if !vs.is_empty() && !self.g.one_in(4) {
                let i = self.g.below(vs.len());
                return vs[i];
            }
        }
        let kind = match ty {
            Type::Int => InstKind::IConst(self.g.pick(&INTS)),
            Type::Float => InstKind::FConst(self.g.pick(&FLOATS)),
            Type::Bool => InstKind::BConst(self.g.one_in(2)),
            Type::Str => InstKind::SConst(self.g.pick(&STRINGS).into()),
            Type::Unit => unreachable!("no void values"),
            Type::Array { .. } => InstKind::ArrayLit(Vec::new()),
        };
        self.emit(b, blk, kind, ty).expect("non-void")
    }

    fn array_type(&mut self) -> Type {
        let t = random_type(self.g);
        t.array_of().unwrap_or(t)
    }

    fn random_inst(&mut self, b: &mut FunctionBuilder<'_>, blk: Block) {
        let g = &mut *self.g;
        match g.below(24) {
            0 => {
                let t = random_type(self.g);
                let v = self.get(b, blk, t);
                self.emit(b, blk, InstKind::Copy(v), t);
            }
            1 | 2 => {
                let (op, a, r) = self.g.pick(&UNARY);
                let v = self.get(b, blk, a);
                self.emit(b, blk, InstKind::Unary(op, v), r);
            }
            3 | 4 => {
                let (ops, t): (&[BinaryOp], Type) = if self.g.one_in(2) {
                    (&INT_OPS, Type::Int)
                } else {
                    (&FLOAT_OPS, Type::Float)
                };
                let op = self.g.pick(ops);
                let x = self.get(b, blk, t);
                let y = self.get(b, blk, t);
                self.emit(b, blk, InstKind::Binary(op, x, y), t);
            }
            5 => {
                let c = self.g.pick(&CMPS);
                let (op, t) = match self.g.below(3) {
                    0 => (BinaryOp::ICmp(c), Type::Int),
                    1 => (BinaryOp::FCmp(c), Type::Float),
                    _ => (
                        BinaryOp::BCmp(if self.g.one_in(2) { Cmp::Eq } else { Cmp::Ne }),
                        Type::Bool,
                    ),
                };
                let x = self.get(b, blk, t);
                let y = self.get(b, blk, t);
                self.emit(b, blk, InstKind::Binary(op, x, y), Type::Bool);
            }
            6 => {
                let callee = FuncId::from_u32(self.g.below(self.prog.funcs.len()) as u32);
                let sig = self.prog.funcs[callee].sig().clone();
                let args = sig.params.iter().map(|&t| self.get(b, blk, t)).collect();
                self.emit(b, blk, InstKind::Call(callee, args), sig.ret);
            }
            7 if !self.prog.globals.is_empty() => {
                let gl = self.g.below(self.prog.globals.len());
                let (id, gd) = self.prog.globals.iter().nth(gl).expect("in range");
                if self.g.one_in(2) {
                    self.emit(b, blk, InstKind::GlobalGet(id), gd.ty);
                } else {
                    let v = self.get(b, blk, gd.ty);
                    self.emit(b, blk, InstKind::GlobalSet(id, v), Type::Unit);
                }
            }
            8 => {
                let at = self.array_type();
                let et = at.element().expect("array");
                let elems = (0..self.g.below(4)).map(|_| self.get(b, blk, et)).collect();
                self.emit(b, blk, InstKind::ArrayLit(elems), at);
            }
            9 => {
                let at = self.array_type();
                let v = self.get(b, blk, at.element().expect("array"));
                let n = self.get(b, blk, Type::Int);
                self.emit(b, blk, InstKind::ArrayRepeat(v, n), at);
            }
            10 => {
                let at = self.array_type();
                let a = self.get(b, blk, at);
                self.emit(b, blk, InstKind::ArrayLen(a), Type::Int);
            }
            11 | 12 => {
                let at = self.array_type();
                let a = self.get(b, blk, at);
                let i = self.get(b, blk, Type::Int);
                self.emit(b, blk, InstKind::BoundsCheck(a, i), Type::Unit);
                self.emit(
                    b,
                    blk,
                    InstKind::ArrayGet(a, i),
                    at.element().expect("array"),
                );
            }
            13 => {
                let at = self.array_type();
                let a = self.get(b, blk, at);
                let i = self.get(b, blk, Type::Int);
                let v = self.get(b, blk, at.element().expect("array"));
                self.emit(b, blk, InstKind::ArraySet(a, i, v), Type::Unit);
            }
            14 => {
                let at = self.array_type();
                let a = self.get(b, blk, at);
                let v = self.get(b, blk, at.element().expect("array"));
                self.emit(b, blk, InstKind::ArrayPush(a, v), Type::Unit);
            }
            15 => {
                let at = self.array_type();
                let a = self.get(b, blk, at);
                self.emit(b, blk, InstKind::ArrayPop(a), at.element().expect("array"));
            }
            16 => {
                let s = self.get(b, blk, Type::Str);
                self.emit(b, blk, InstKind::StrLen(s), Type::Int);
            }
            17 => {
                let x = self.get(b, blk, Type::Str);
                let y = self.get(b, blk, Type::Str);
                self.emit(b, blk, InstKind::StrConcat(x, y), Type::Str);
            }
            18 => {
                let c = self.g.pick(&CMPS);
                let x = self.get(b, blk, Type::Str);
                let y = self.get(b, blk, Type::Str);
                self.emit(b, blk, InstKind::StrCmp(c, x, y), Type::Bool);
            }
            19 => {
                let t = random_type(self.g);
                let v = self.get(b, blk, t);
                self.emit(b, blk, InstKind::ToStr(v), Type::Str);
            }
            20 => {
                let t = random_type(self.g);
                let v = self.get(b, blk, t);
                self.emit(b, blk, InstKind::Print(v), Type::Unit);
            }
            21 => {
                let v = self.get(b, blk, Type::Bool);
                self.emit(b, blk, InstKind::Assert(v), Type::Unit);
            }
            22 => {
                self.emit(b, blk, InstKind::Clock, Type::Float);
            }
            _ => {
                let t = random_type(self.g);
                self.get(b, blk, t);
            }
        }
    }

    fn edge(&mut self, b: &mut FunctionBuilder<'_>, blk: Block, target: Block) -> BlockCall {
        let params = b.func.blocks()[target].params.clone();
        let args = params
            .iter()
            .map(|&p| {
                let t = b.func.value_type(p);
                self.get(b, blk, t)
            })
            .collect();
        BlockCall::new(target, args)
    }

    fn terminator(
        &mut self,
        b: &mut FunctionBuilder<'_>,
        blk: Block,
        targets: &[usize],
        blocks: &[Block],
        sig: &Signature,
    ) -> Terminator {
        match targets {
            [] => {
                let v = (sig.ret != Type::Unit).then(|| self.get(b, blk, sig.ret));
                Terminator::Return(v)
            }
            [only] => Terminator::jump(self.edge(b, blk, blocks[*only])),
            [x, y] if self.g.below(3) != 0 => {
                let c = self.get(b, blk, Type::Bool);
                let then = self.edge(b, blk, blocks[*x]);
                let els = self.edge(b, blk, blocks[*y]);
                Terminator::branch(c, then, els)
            }
            [rest @ .., last] => {
                let bool_scrut = rest.len() <= 2 && self.g.one_in(3);
                let ty = if bool_scrut { Type::Bool } else { Type::Int };
                let v = self.get(b, blk, ty);
                let flip = self.g.below(2) as i64;
                let mut keys: Vec<i64> = Vec::new();
                let mut cases = Vec::new();
                for (k, &t) in rest.iter().enumerate() {
                    let mut key = if bool_scrut {
                        (k as i64 + flip) % 2
                    } else {
                        self.g.pick(&INTS)
                    };
                    if keys.contains(&key) {
                        key = 100 + k as i64;
                    }
                    keys.push(key);
                    cases.push((key, self.edge(b, blk, blocks[t])));
                }
                let default = self.edge(b, blk, blocks[*last]);
                Terminator::Switch {
                    value: Some(v),
                    cases,
                    default,
                }
            }
        }
    }
}
