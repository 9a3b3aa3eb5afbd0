//! Incremental repair versus rebuilding every analysis (Fritz §10.4).
//!
//! Runs the fixed pass sequence FI, JT, JS, UNS, IS, S, UNS, UNR, S over
//! generated large functions (structured control flow: ifs, loops nested up
//! to depth 4, calls of small functions, constant and loop-invariant
//! conditions, empty joins) in two modes:
//! - incremental: every primitive repairs the dominator tree, loop forest
//!   and use lists locally (the always-canonical editor);
//! - rebuild: primitives do only the edit (and maintain use lists, as in
//!   Fritz §10.2), then canonical form and every analysis are recomputed
//!   from scratch after each control-flow primitive.
//!
//! Run with `cargo bench -p waddle-opt --bench canon`; set
//! `WADDLE_BENCH_QUICK=1` for one small size, or `WADDLE_BENCH_SIZES=300,1000`;
//! `WADDLE_BENCH_CHECK=1` runs the from-scratch checker after every
//! primitive (to test the repairs on large graphs, not to time them).

use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use waddle_opt::canon::canonicalize;
use waddle_opt::editor::{Editor, Mode};
use waddle_opt::ir::{
    BinaryOp, Block, BlockCall, Cmp, FuncId, Function, FunctionBuilder, InstKind, Program,
    Signature, SrcLoc, Terminator, Type, Value,
};
use waddle_opt::passes;

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
fn generate(size: usize, seed: u64) -> Program {
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

/// The names of the sequence's steps.
const STEPS: [&str; 9] = ["FI", "JT", "JS", "UNS", "IS", "S", "UNS", "UNR", "S"];

/// The §10.4 sequence on the big function; returns the elapsed time, the
/// time of each step, and the number of primitive applications.
fn run_sequence(p: &Program, mode: Mode) -> (Duration, [Duration; 9], u64) {
    let mut p = p.clone();
    let callees: FxHashMap<FuncId, Function> = passes::inline_candidates(&p);
    let big = FuncId::from_u32(1);
    let start = Instant::now();
    let f = &mut p.funcs[big];
    let mut ed = Editor::new(f);
    ed.set_mode(mode);
    // WADDLE_BENCH_CHECK=1 verifies every primitive (slow; for testing).
    ed.set_checking(std::env::var("WADDLE_BENCH_CHECK").is_ok_and(|v| v == "1"));
    let mut steps = [Duration::ZERO; 9];
    let mut t = Instant::now();
    let mut lap = |k: usize, t: &mut Instant| {
        steps[k] = t.elapsed();
        *t = Instant::now();
    };
    passes::inline_calls(&mut ed, big, &callees);
    lap(0, &mut t);
    passes::jump_thread(&mut ed);
    lap(1, &mut t);
    passes::jump_simplify(&mut ed);
    lap(2, &mut t);
    passes::unswitch(&mut ed);
    lap(3, &mut t);
    passes::if_simplify(&mut ed);
    lap(4, &mut t);
    passes::straighten(&mut ed);
    lap(5, &mut t);
    passes::unswitch(&mut ed);
    lap(6, &mut t);
    passes::unroll(&mut ed);
    lap(7, &mut t);
    passes::straighten(&mut ed);
    lap(8, &mut t);
    let edits = ed.stats().edits;
    drop(ed);
    (start.elapsed(), steps, edits)
}

fn main() {
    let quick = std::env::var("WADDLE_BENCH_QUICK").is_ok_and(|v| !v.is_empty());
    let sizes: Vec<usize> = match std::env::var("WADDLE_BENCH_SIZES") {
        Ok(list) => list
            .split(',')
            .filter_map(|s| s.trim().parse().ok())
            .collect(),
        Err(_) if quick => vec![100],
        Err(_) => vec![100, 300, 1000, 3000],
    };
    println!("Fritz §10.4 sequence FI, JT, JS, UNS, IS, S, UNS, UNR, S");
    println!(
        "{:>6} {:>7} {:>7} {:>14} {:>14} {:>8}",
        "size", "blocks", "edits", "incremental", "rebuild", "ratio"
    );
    for &size in &sizes {
        let seeds = if quick { 1 } else { 3 };
        let (mut inc, mut reb) = (Duration::ZERO, Duration::ZERO);
        let (mut blocks, mut edits) = (0, 0);
        let mut inc_steps = [Duration::ZERO; 9];
        let mut reb_steps = [Duration::ZERO; 9];
        for seed in 0..seeds {
            let p = generate(size, 0x9e37_79b9_7f4a_7c15 ^ (seed + size as u64));
            blocks += p.funcs[FuncId::from_u32(1)].layout.len();
            let (t, st, e) = run_sequence(&p, Mode::Incremental);
            inc += t;
            edits += e;
            for k in 0..9 {
                inc_steps[k] += st[k];
            }
            let (t, st, _) = run_sequence(&p, Mode::Rebuild);
            reb += t;
            for k in 0..9 {
                reb_steps[k] += st[k];
            }
        }
        println!(
            "{:>6} {:>7} {:>7} {:>12.2}ms {:>12.2}ms {:>7.1}x",
            size,
            blocks / seeds as usize,
            edits / seeds,
            inc.as_secs_f64() * 1e3 / seeds as f64,
            reb.as_secs_f64() * 1e3 / seeds as f64,
            reb.as_secs_f64() / inc.as_secs_f64().max(1e-9)
        );
        let per_step: Vec<String> = STEPS
            .iter()
            .enumerate()
            .map(|(k, name)| {
                format!(
                    "{name} {:.1}/{:.1}",
                    inc_steps[k].as_secs_f64() * 1e3 / seeds as f64,
                    reb_steps[k].as_secs_f64() * 1e3 / seeds as f64
                )
            })
            .collect();
        println!(
            "        per step, ms incremental/rebuild: {}",
            per_step.join(", ")
        );
    }
}
