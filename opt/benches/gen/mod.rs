//! A generator of large structured functions for the canonical-form
//! benchmark and the randomized editor test: ifs (data-dependent,
//! loop-invariant and constant conditions, empty arms), loops nested up
//! to depth 4, and calls of a small function, with a few SSA variables
//! threaded through every join as block parameters.

use waddle_opt::canon::canonicalize;
use waddle_opt::ir::{
    BinaryOp, Block, BlockCall, Cmp, FuncId, Function, FunctionBuilder, InstKind, Program,
    Signature, SrcLoc, Terminator, Type, Value,
};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Number of SSA "variables" threaded through every join.
const VARS: usize = 3;

struct Gen<'a> {
    b: FunctionBuilder<'a>,
    rng: Rng,
    /// The function's int and bool parameters.
    n: Value,
    flag: Value,
    callee: FuncId,
    budget: usize,
}

impl Gen<'_> {
    fn iconst(&mut self, blk: Block, k: i64) -> Value {
        self.b
            .ins(blk, InstKind::IConst(k), Type::Int, SrcLoc::NONE)
    }

    fn join(&mut self, vars: &[Value]) -> (Block, Vec<Value>) {
        let j = self.b.create_block();
        let ps = vars
            .iter()
            .map(|_| self.b.append_block_param(j, Type::Int))
            .collect();
        (j, ps)
    }

    /// Emits statements into `blk` (open, no terminator yet); returns the
    /// block left open and the variables' values there.
    fn stmts(&mut self, mut blk: Block, mut vars: Vec<Value>, depth: u32) -> (Block, Vec<Value>) {
        let count = 1 + self.rng.below(4);
        for _ in 0..count {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            let choice = self.rng.below(10);
            let i = self.rng.below(VARS as u64) as usize;
            let j = self.rng.below(VARS as u64) as usize;
            match choice {
                0..=2 => {
                    let k = self.rng.below(7) as i64;
                    let c = self.iconst(blk, k);
                    let op = [BinaryOp::IAdd, BinaryOp::IMul, BinaryOp::IXor]
                        [self.rng.below(3) as usize];
                    vars[i] = self.b.ins(
                        blk,
                        InstKind::Binary(op, vars[j], c),
                        Type::Int,
                        SrcLoc::NONE,
                    );
                }
                3 => {
                    vars[i] = self.b.ins(
                        blk,
                        InstKind::Call(self.callee, vec![vars[j]]),
                        Type::Int,
                        SrcLoc::NONE,
                    );
                }
                4..=6 => {
                    // if: a data-dependent, invariant or constant condition.
                    let cond = match self.rng.below(3) {
                        0 => self.flag,
                        1 => {
                            let k = self.rng.below(2) == 0;
                            self.b
                                .ins(blk, InstKind::BConst(k), Type::Bool, SrcLoc::NONE)
                        }
                        _ => self.b.ins(
                            blk,
                            InstKind::Binary(BinaryOp::ICmp(Cmp::Lt), vars[i], vars[j]),
                            Type::Bool,
                            SrcLoc::NONE,
                        ),
                    };
                    let t = self.b.create_block();
                    let e = self.b.create_block();
                    self.b.set_terminator(
                        blk,
                        Terminator::branch(
                            cond,
                            BlockCall::new(t, vec![]),
                            BlockCall::new(e, vec![]),
                        ),
                    );
                    let (t_end, t_vars) = self.stmts(t, vars.clone(), depth);
                    let (e_end, e_vars) = if self.rng.below(2) == 0 {
                        self.stmts(e, vars.clone(), depth)
                    } else {
                        (e, vars.clone()) // an empty arm: a forwarding block
                    };
                    let (j, ps) = self.join(&vars);
                    self.b
                        .set_terminator(t_end, Terminator::jump(BlockCall::new(j, t_vars)));
                    self.b
                        .set_terminator(e_end, Terminator::jump(BlockCall::new(j, e_vars)));
                    blk = j;
                    vars = ps;
                }
                _ if depth < 4 => {
                    // for k in 0..n { body }
                    let zero = self.iconst(blk, 0);
                    let h = self.b.create_block();
                    let k = self.b.append_block_param(h, Type::Int);
                    let hv: Vec<Value> = vars
                        .iter()
                        .map(|_| self.b.append_block_param(h, Type::Int))
                        .collect();
                    let mut args = vec![zero];
                    args.extend(vars.iter().copied());
                    self.b
                        .set_terminator(blk, Terminator::jump(BlockCall::new(h, args)));
                    let cond = self.b.ins(
                        h,
                        InstKind::Binary(BinaryOp::ICmp(Cmp::Lt), k, self.n),
                        Type::Bool,
                        SrcLoc::NONE,
                    );
                    let body = self.b.create_block();
                    let exit = self.b.create_block();
                    self.b.set_terminator(
                        h,
                        Terminator::branch(
                            cond,
                            BlockCall::new(body, vec![]),
                            BlockCall::new(exit, vec![]),
                        ),
                    );
                    let (end, bv) = self.stmts(body, hv.clone(), depth + 1);
                    let one = self.iconst(end, 1);
                    let k2 = self.b.ins(
                        end,
                        InstKind::Binary(BinaryOp::IAdd, k, one),
                        Type::Int,
                        SrcLoc::NONE,
                    );
                    let mut back = vec![k2];
                    back.extend(bv);
                    self.b
                        .set_terminator(end, Terminator::jump(BlockCall::new(h, back)));
                    blk = exit;
                    vars = hv;
                }
                _ => {}
            }
        }
        (blk, vars)
    }
}

/// A program with a small callee and one large function of about `size`
/// statements.
pub fn generate(size: usize, seed: u64) -> Program {
    let mut p = Program::default();
    let sig = Signature {
        params: vec![Type::Int],
        ret: Type::Int,
    };
    let mut small = Function::new("small", sig);
    {
        let mut b = FunctionBuilder::new(&mut small);
        let e = b.create_block();
        let x = b.append_block_param(e, Type::Int);
        let c = b.ins(e, InstKind::IConst(3), Type::Int, SrcLoc::NONE);
        let r = b.ins(
            e,
            InstKind::Binary(BinaryOp::IMul, x, c),
            Type::Int,
            SrcLoc::NONE,
        );
        b.set_terminator(e, Terminator::Return(Some(r)));
    }
    let callee = p.funcs.push(small);
    let sig = Signature {
        params: vec![Type::Int, Type::Bool],
        ret: Type::Int,
    };
    let mut big = Function::new("big", sig);
    {
        let b = FunctionBuilder::new(&mut big);
        let mut g = Gen {
            b,
            rng: Rng(seed | 1),
            n: Value::from_u32(0),
            flag: Value::from_u32(0),
            callee,
            budget: size,
        };
        let e = g.b.create_block();
        g.n = g.b.append_block_param(e, Type::Int);
        g.flag = g.b.append_block_param(e, Type::Bool);
        let vars = vec![g.n; VARS];
        let mut blk = e;
        let mut vars = vars;
        while g.budget > 0 {
            (blk, vars) = g.stmts(blk, vars, 0);
        }
        let mut acc = vars[0];
        for &v in &vars[1..] {
            acc = g.b.ins(
                blk,
                InstKind::Binary(BinaryOp::IAdd, acc, v),
                Type::Int,
                SrcLoc::NONE,
            );
        }
        g.b.set_terminator(blk, Terminator::Return(Some(acc)));
    }
    p.funcs.push(big);
    for (_, f) in p.funcs.iter_mut() {
        canonicalize(f);
    }
    p
}
