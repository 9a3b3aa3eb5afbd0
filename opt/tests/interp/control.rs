//! Control flow: two-way branches (fused compares in every form), switches,
//! block-parameter moves including cycles, loops, and fuel accounting.

use waddle_opt::abi::{TrapCode, Word};
use waddle_opt::ir::{BinaryOp, BlockCall, Cmp, InstKind, Program, Terminator, Type};

use crate::build::{func, loc, run, B};
use waddle_test_support::host::TestHost;

const CMPS: [Cmp; 6] = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];

fn holds<T: PartialOrd>(cc: Cmp, x: T, y: T) -> bool {
    match cc {
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
    }
}

/// How the compare feeding a branch is built.
#[derive(Copy, Clone, Debug)]
enum Shape {
    /// `c = cmp a, b; br c` with both operands parameters.
    Regs,
    /// Right operand a small constant.
    ImmRhs,
    /// Left operand a small constant.
    ImmLhs,
    /// The compare result also printed (not fusable).
    Shared,
    /// Branch with the `then` target laid out next (negated branch).
    ThenNext,
    /// Both edges pass arguments (stubs / inline moves).
    WithArgs,
}

/// Returns 10 when `x cc y` holds, else 20, built in `shape`.
fn branch_fn(
    p: &mut Program,
    op: BinaryOp,
    t: Type,
    shape: Shape,
    k: Word,
) -> waddle_opt::ir::FuncId {
    let params: &[Type] = match shape {
        Shape::ImmRhs | Shape::ImmLhs => &[t],
        _ => &[t, t],
    };
    func(p, "br", params, Type::Int, |b: &mut B<'_>, v| {
        let konst = |b: &mut B<'_>| {
            if t == Type::Int {
                b.i(k as i64)
            } else {
                b.ins(InstKind::FConst(k), Type::Float)
            }
        };
        let c = match shape {
            Shape::ImmRhs => {
                let kv = konst(b);
                b.bin(op, v[0], kv)
            }
            Shape::ImmLhs => {
                let kv = konst(b);
                b.bin(op, kv, v[0])
            }
            _ => b.bin(op, v[0], v[1]),
        };
        if let Shape::Shared = shape {
            b.print(c);
        }
        let ten = b.i(10);
        let twenty = b.i(20);
        match shape {
            Shape::ThenNext => {
                let (then, _) = b.block(&[]);
                let (other, _) = b.block(&[]);
                b.br(c, then, vec![], other, vec![]);
                b.at(then);
                b.ret(Some(ten));
                b.at(other);
                b.ret(Some(twenty));
            }
            Shape::WithArgs => {
                let (other, _) = b.block(&[]);
                let (exit, r) = b.block(&[Type::Int]);
                b.br(c, exit, vec![ten], exit, vec![twenty]);
                b.at(other);
                b.ret(Some(twenty));
                b.at(exit);
                b.ret(Some(r[0]));
            }
            _ => {
                let (other, _) = b.block(&[]);
                let (then, _) = b.block(&[]);
                b.br(c, then, vec![], other, vec![]);
                b.at(other);
                b.ret(Some(twenty));
                b.at(then);
                b.ret(Some(ten));
            }
        }
    })
}

fn check_branches<T: PartialOrd + Copy + std::fmt::Debug>(
    t: Type,
    mk: fn(Cmp) -> BinaryOp,
    vals: &[T],
    word: fn(T) -> Word,
) {
    let shapes = [
        Shape::Regs,
        Shape::ImmRhs,
        Shape::ImmLhs,
        Shape::Shared,
        Shape::ThenNext,
        Shape::WithArgs,
    ];
    for cc in CMPS {
        for shape in shapes {
            for &x in vals {
                for &y in vals {
                    let mut p = Program::default();
                    let f = branch_fn(&mut p, mk(cc), t, shape, word(y));
                    let mut h = TestHost::new(0);
                    let args: Vec<Word> = match shape {
                        Shape::ImmRhs => vec![word(x)],
                        Shape::ImmLhs => vec![word(x)],
                        _ => vec![word(x), word(y)],
                    };
                    let want = match shape {
                        Shape::ImmLhs => holds(cc, y, x),
                        _ => holds(cc, x, y),
                    };
                    let got = run(&p, &mut h, f, &args).unwrap();
                    assert_eq!(
                        got,
                        if want { 10 } else { 20 },
                        "{x:?} {cc:?} {y:?} {shape:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn int_compare_and_branch() {
    let vals = [
        -3i64,
        0,
        7,
        i64::MIN,
        1 << 40,
        i32::MAX as i64,
        i32::MIN as i64,
    ];
    check_branches(Type::Int, BinaryOp::ICmp, &vals, |x| x as Word);
}

#[test]
fn float_compare_and_branch() {
    let vals = [-1.5f64, 0.0, -0.0, 2.0, f64::NAN, f64::INFINITY];
    check_branches(Type::Float, BinaryOp::FCmp, &vals, f64::to_bits);
}

#[test]
fn bool_branches_and_bcmp() {
    let mut p = Program::default();
    // Branch on a parameter directly, in both layouts, and on `a == b`.
    let f = func(&mut p, "b", &[Type::Bool, Type::Bool], Type::Int, |b, v| {
        let (t1, _) = b.block(&[]);
        let (e1, _) = b.block(&[]);
        let (join, acc) = b.block(&[Type::Int]);
        let (t2, _) = b.block(&[]);
        let (e2, _) = b.block(&[]);
        b.br(v[0], t1, vec![], e1, vec![]);
        b.at(t1);
        let one = b.i(1);
        b.jump(join, vec![one]);
        b.at(e1);
        let zero = b.i(0);
        b.jump(join, vec![zero]);
        b.at(join);
        let c = b.bin(BinaryOp::BCmp(Cmp::Eq), v[0], v[1]);
        b.br(c, t2, vec![], e2, vec![]);
        b.at(e2);
        b.ret(Some(acc[0]));
        b.at(t2);
        let hundred = b.i(100);
        let r = b.bin(BinaryOp::IAdd, acc[0], hundred);
        b.ret(Some(r));
    });
    let mut h = TestHost::new(0);
    assert_eq!(run(&p, &mut h, f, &[1, 1]), Ok(101));
    assert_eq!(run(&p, &mut h, f, &[1, 0]), Ok(1));
    assert_eq!(run(&p, &mut h, f, &[0, 0]), Ok(100));
    assert_eq!(run(&p, &mut h, f, &[0, 1]), Ok(0));
}

#[test]
fn switches() {
    let mut p = Program::default();
    // switch x [0 → a(x), 5 → b, 1<<40 → c, -1 → a(-1)] default d; plus a
    // bool switch keyed on false.
    let f = func(&mut p, "sw", &[Type::Int], Type::Int, |b, v| {
        let (ba, pa) = b.block(&[Type::Int]);
        let (bb, _) = b.block(&[]);
        let (bc, _) = b.block(&[]);
        let (bd, _) = b.block(&[]);
        let (bt, _) = b.block(&[]);
        let (bf, _) = b.block(&[]);
        let m1 = b.i(-1);
        let term = Terminator::Switch {
            value: Some(v[0]),
            cases: vec![
                (0, BlockCall::new(ba, vec![v[0]])),
                (5, BlockCall::new(bb, vec![])),
                (1 << 40, BlockCall::new(bc, vec![])),
                (-1, BlockCall::new(ba, vec![m1])),
            ],
            default: BlockCall::new(bd, vec![]),
        };
        b.b.set_terminator(b.blk, term);
        b.at(ba);
        let k = b.i(1000);
        let r = b.bin(BinaryOp::IAdd, pa[0], k);
        b.ret(Some(r));
        b.at(bb);
        let r = b.i(2);
        b.ret(Some(r));
        b.at(bc);
        let r = b.i(3);
        b.ret(Some(r));
        b.at(bd);
        let z = b.i(7);
        let c = b.bin(BinaryOp::ICmp(Cmp::Gt), v[0], z);
        let term = Terminator::Switch {
            value: Some(c),
            cases: vec![(0, BlockCall::new(bf, vec![]))],
            default: BlockCall::new(bt, vec![]),
        };
        b.b.set_terminator(b.blk, term);
        b.at(bt);
        let r = b.i(4);
        b.ret(Some(r));
        b.at(bf);
        let r = b.i(5);
        b.ret(Some(r));
    });
    // A single-case int switch with a key that does not fit an immediate.
    let g = func(&mut p, "sw1", &[Type::Int], Type::Int, |b, v| {
        let (hit, _) = b.block(&[]);
        let (miss, _) = b.block(&[]);
        let term = Terminator::Switch {
            value: Some(v[0]),
            cases: vec![(1 << 40, BlockCall::new(hit, vec![]))],
            default: BlockCall::new(miss, vec![]),
        };
        b.b.set_terminator(b.blk, term);
        b.at(hit);
        let r = b.i(1);
        b.ret(Some(r));
        b.at(miss);
        let r = b.i(0);
        b.ret(Some(r));
    });
    let mut h = TestHost::new(0);
    let cases: [(i64, i64); 7] = [
        (0, 1000),
        (5, 2),
        (1 << 40, 3),
        (-1, 999),
        (8, 4),
        (6, 5),
        (-9, 5),
    ];
    for (x, want) in cases {
        assert_eq!(
            run(&p, &mut h, f, &[x as Word]),
            Ok(want as Word),
            "switch {x}"
        );
    }
    assert_eq!(run(&p, &mut h, g, &[1 << 40]), Ok(1));
    assert_eq!(run(&p, &mut h, g, &[5]), Ok(0));
}

/// A loop running `n` times that permutes its parameters each iteration
/// with `perm` (new param i = old param perm[i]) and returns them as
/// `p0 * 10^(k-1) + ... + p(k-1)`.
fn permute_loop(perm: &[usize], n: i64) -> i64 {
    let k = perm.len();
    let mut p = Program::default();
    let f = func(&mut p, "perm", &[Type::Int], Type::Int, |b, v| {
        let mut tys = vec![Type::Int; k];
        tys.push(Type::Int);
        let (head, hp) = b.block(&tys);
        let (body, _) = b.block(&[]);
        let (exit, _) = b.block(&[]);
        let mut init: Vec<_> = (1..=k as i64).map(|d| b.i(d)).collect();
        init.push(v[0]);
        b.jump(head, init);
        b.at(head);
        let zero = b.i(0);
        let c = b.bin(BinaryOp::ICmp(Cmp::Gt), hp[k], zero);
        b.br(c, body, vec![], exit, vec![]);
        b.at(body);
        let one = b.i(1);
        let m = b.bin(BinaryOp::ISub, hp[k], one);
        let mut args: Vec<_> = perm.iter().map(|&i| hp[i]).collect();
        args.push(m);
        b.jump(head, args);
        b.at(exit);
        let ten = b.i(10);
        let mut acc = b.i(0);
        for &x in &hp[..k] {
            let t = b.bin(BinaryOp::IMul, acc, ten);
            acc = b.bin(BinaryOp::IAdd, t, x);
        }
        b.ret(Some(acc));
    });
    let mut h = TestHost::new(0);
    run(&p, &mut h, f, &[n as Word]).unwrap() as i64
}

fn permute_model(perm: &[usize], n: i64) -> i64 {
    let mut regs: Vec<i64> = (1..=perm.len() as i64).collect();
    for _ in 0..n {
        regs = perm.iter().map(|&i| regs[i]).collect();
    }
    regs.iter().fold(0, |acc, &x| acc * 10 + x)
}

#[test]
fn block_param_cycles() {
    let perms: [&[usize]; 7] = [
        &[1, 0],       // swap
        &[1, 2, 0],    // 3-cycle
        &[2, 0, 1],    // other direction
        &[1, 0, 3, 2], // two swaps
        &[0, 0, 1],    // fan-out + chain
        &[1, 2, 0, 0], // cycle with a reader
        &[3, 2, 1, 0],
    ];
    for perm in perms {
        for n in [0, 1, 2, 3, 7] {
            assert_eq!(
                permute_loop(perm, n),
                permute_model(perm, n),
                "{perm:?} x{n}"
            );
        }
    }
}

/// `sum = 0; for i in 0..n { sum += i; print-free }`, with the latch value
/// read after its definition in one variant (must not be coalesced).
fn sum_loop(read_after: bool, n: i64) -> (Word, Vec<String>, u64) {
    let mut p = Program::default();
    let f = func(&mut p, "sum", &[Type::Int], Type::Int, |b, v| {
        let (head, hp) = b.block(&[Type::Int, Type::Int]);
        let (body, _) = b.block(&[]);
        let (exit, _) = b.block(&[]);
        let z = b.i(0);
        b.jump(head, vec![z, z]);
        b.at(head);
        let c = b.bin(BinaryOp::ICmp(Cmp::Lt), hp[0], v[0]);
        b.br(c, body, vec![], exit, vec![]);
        b.at(body);
        let s = b.bin(BinaryOp::IAdd, hp[1], hp[0]);
        let one = b.i(1);
        let i2 = b.bin(BinaryOp::IAdd, hp[0], one);
        if read_after {
            b.print(hp[0]);
        }
        b.jump(head, vec![i2, s]);
        b.at(exit);
        b.ret(Some(hp[1]));
    });
    let mut h = TestHost::new(0);
    let r = run(&p, &mut h, f, &[n as Word]).unwrap();
    let out = h.lines().into_iter().map(String::from).collect();
    (r, out, h.fuel_charged)
}

#[test]
fn loops_and_latch_coalescing() {
    let (r, out, fuel) = sum_loop(false, 100);
    assert_eq!(r, 4950);
    assert!(out.is_empty());
    // One unit for the entry, one per back edge.
    assert_eq!(fuel, 101);
    let (r, out, _) = sum_loop(true, 4);
    assert_eq!(r, 6);
    assert_eq!(out, ["0", "1", "2", "3"]);
}

#[test]
fn backward_conditional_branch_and_swap_on_branch() {
    // do { (a, b) = (b, a + b); n -= 1 } while n > 0 — the back edge is the
    // conditional branch itself and passes swapped arguments.
    let mut p = Program::default();
    let f = func(&mut p, "fibloop", &[Type::Int], Type::Int, |b, v| {
        let (body, bp) = b.block(&[Type::Int, Type::Int, Type::Int]);
        let (exit, ep) = b.block(&[Type::Int]);
        let zero = b.i(0);
        let one = b.i(1);
        b.jump(body, vec![zero, one, v[0]]);
        b.at(body);
        let s = b.bin(BinaryOp::IAdd, bp[0], bp[1]);
        let one = b.i(1);
        let n2 = b.bin(BinaryOp::ISub, bp[2], one);
        let zero = b.i(0);
        let c = b.bin(BinaryOp::ICmp(Cmp::Gt), n2, zero);
        b.br(c, body, vec![bp[1], s, n2], exit, vec![bp[1]]);
        b.at(exit);
        b.ret(Some(ep[0]));
    });
    let mut h = TestHost::new(0);
    assert_eq!(run(&p, &mut h, f, &[10]), Ok(55));
    assert_eq!(run(&p, &mut h, f, &[1]), Ok(1));
    assert_eq!(h.fuel_charged, 1 + 9 + 1);
}

#[test]
fn fuel_runs_out_in_an_infinite_loop() {
    let mut p = Program::default();
    let f = func(&mut p, "spin", &[], Type::Unit, |b, _| {
        let (head, _) = b.block(&[]);
        b.jump(head, vec![]);
        b.at(head);
        b.jump(head, vec![]);
    });
    let mut h = TestHost::new(0);
    h.fuel = Some(100_000);
    let e = run(&p, &mut h, f, &[]).unwrap_err();
    assert_eq!(e.code, TrapCode::OutOfFuel);
    assert_eq!(e.loc, loc(1, 1));
    assert!(h.fuel_charged >= 100_000 && h.fuel_charged <= 100_000 + 2048);
    // Batched: far fewer host calls than units.
    assert!(h.fuel_calls < 200, "{} fuel calls", h.fuel_calls);
}

#[test]
fn fuel_flush_at_exit_reports_exhaustion() {
    let mut p = Program::default();
    let f = func(&mut p, "one", &[], Type::Unit, |b, _| b.ret(None));
    let mut h = TestHost::new(0);
    h.fuel = Some(0);
    let e = run(&p, &mut h, f, &[]).unwrap_err();
    assert_eq!(e.code, TrapCode::OutOfFuel);
    h.fuel = Some(1);
    assert_eq!(run(&p, &mut h, f, &[]), Ok(0));
}
