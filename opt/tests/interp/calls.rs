//! Calls: recursion, void calls, deep recursion and the stack budget,
//! unexecutable calls, and REPL-style redefinition through `update`.

use waddle_opt::abi::{TrapCode, Word, DEFAULT_STACK_BUDGET};
use waddle_opt::interp::Interpreter;
use waddle_opt::ir::{BinaryOp, Cmp, FuncId, InstKind, Program, Type};

use crate::build::{declare, define, func, loc, run};
use waddle_test_support::host::TestHost;

/// `fib(n)` the recursive way.
pub fn fib_program() -> (Program, FuncId) {
    let mut p = Program::default();
    let fib = declare(&mut p, "fib", &[Type::Int], Type::Int);
    define(&mut p, fib, |b, v| {
        let (small, _) = b.block(&[]);
        let (big, _) = b.block(&[]);
        let two = b.i(2);
        let c = b.bin(BinaryOp::ICmp(Cmp::Lt), v[0], two);
        b.br(c, small, vec![], big, vec![]);
        b.at(small);
        b.ret(Some(v[0]));
        b.at(big);
        let one = b.i(1);
        let n1 = b.bin(BinaryOp::ISub, v[0], one);
        let a = b.call(fib, vec![n1], Type::Int).unwrap();
        let two = b.i(2);
        let n2 = b.bin(BinaryOp::ISub, v[0], two);
        let c = b.call(fib, vec![n2], Type::Int).unwrap();
        let r = b.bin(BinaryOp::IAdd, a, c);
        b.ret(Some(r));
    });
    (p, fib)
}

#[test]
fn recursive_fib() {
    let (p, fib) = fib_program();
    let mut h = TestHost::new(0);
    let it = Interpreter::new(&p, &mut h);
    for (n, want) in [(0, 0), (1, 1), (2, 1), (10, 55), (20, 6765)] {
        assert_eq!(it.call(&mut h, fib, &[n]), Ok(want));
    }
}

/// `depth(n) = n == 0 ? 0 : 1 + depth(n - 1)`, the call at line 7 col 9.
fn depth_program() -> (Program, FuncId) {
    let mut p = Program::default();
    let d = declare(&mut p, "depth", &[Type::Int], Type::Int);
    define(&mut p, d, |b, v| {
        let (base, _) = b.block(&[]);
        let (rec, _) = b.block(&[]);
        let zero = b.i(0);
        let c = b.bin(BinaryOp::ICmp(Cmp::Eq), v[0], zero);
        b.br(c, base, vec![], rec, vec![]);
        b.at(base);
        b.ret(Some(zero));
        b.at(rec);
        let one = b.i(1);
        let m = b.bin(BinaryOp::ISub, v[0], one);
        let r = b.call_at(d, vec![m], Type::Int, loc(7, 9)).unwrap();
        let s = b.bin(BinaryOp::IAdd, r, one);
        b.ret(Some(s));
    });
    (p, d)
}

#[test]
fn deep_recursion_within_default_budget() {
    let (p, d) = depth_program();
    let mut h = TestHost::new(0);
    let it = Interpreter::new(&p, &mut h);
    assert_eq!(it.call(&mut h, d, &[10_000]), Ok(10_000));
    // Exactly `max_call_depth` frames of the recursive function: `d(n)`
    // nests `n + 1` of them.
    let max = waddle_opt::abi::max_call_depth(DEFAULT_STACK_BUDGET);
    assert_eq!(
        it.call(&mut h, d, &[(max - 1) as Word]),
        Ok((max - 1) as Word)
    );
    let e = it.call(&mut h, d, &[max as Word]).unwrap_err();
    assert_eq!((e.code, e.loc), (TrapCode::StackOverflow, loc(7, 9)));
}

#[test]
fn very_deep_recursion_with_large_budget() {
    let (p, d) = depth_program();
    let mut h = TestHost::new(0);
    let mut it = Interpreter::new(&p, &mut h);
    it.set_stack_budget(1 << 30);
    assert_eq!(it.call(&mut h, d, &[300_000]), Ok(300_000));
}

#[test]
fn unbounded_recursion_overflows_at_the_call() {
    let (p, d) = depth_program();
    let mut h = TestHost::new(0);
    let mut it = Interpreter::new(&p, &mut h);
    let e = it.call(&mut h, d, &[-1i64 as Word]).unwrap_err();
    assert_eq!(e.code, TrapCode::StackOverflow);
    assert_eq!(e.loc, loc(7, 9));
    // The interpreter is reusable after a trap, and a small budget limits
    // the depth.
    assert_eq!(it.call(&mut h, d, &[50]), Ok(50));
    it.set_stack_budget(4096);
    let e = it.call(&mut h, d, &[1000]).unwrap_err();
    assert_eq!(e.code, TrapCode::StackOverflow);
    it.set_stack_budget(8);
    let e = it.call(&mut h, d, &[0]).unwrap_err();
    assert_eq!(e.code, TrapCode::StackOverflow);
}

#[test]
fn void_calls_and_arguments() {
    let mut p = Program::default();
    let show = func(
        &mut p,
        "show",
        &[Type::Int, Type::Str, Type::Float],
        Type::Unit,
        |b, v| {
            b.print(v[1]);
            b.print(v[0]);
            b.print(v[2]);
            b.ret(None);
        },
    );
    let main = func(&mut p, "main", &[], Type::Int, |b, _| {
        let x = b.i(3);
        let s = b.s("three");
        let f = b.f(3.5);
        assert!(b.call(show, vec![x, s, f], Type::Unit).is_none());
        let r = b.call(show, vec![x, s, f], Type::Unit);
        assert!(r.is_none());
        b.ret(Some(x));
    });
    let mut h = TestHost::new(0);
    assert_eq!(run(&p, &mut h, main, &[]), Ok(3));
    assert_eq!(h.lines(), ["three", "3", "3.5", "three", "3", "3.5"]);
    assert_eq!(
        run(
            &p,
            &mut h,
            show,
            &[1, waddle_test_support::host::new_str("x"), 0]
        ),
        Ok(0)
    );
}

#[test]
fn unexecutable_calls_trap_instead_of_panicking() {
    let mut p = Program::default();
    let decl = declare(&mut p, "decl", &[Type::Int], Type::Int);
    let caller = func(&mut p, "caller", &[], Type::Int, |b, _| {
        let one = b.i(1);
        let r = b.call_at(decl, vec![one], Type::Int, loc(4, 2)).unwrap();
        b.ret(Some(r));
    });
    let wrong_arity = func(&mut p, "wrong", &[], Type::Int, |b, _| {
        let one = b.i(1);
        let r = b.call_at(caller, vec![one], Type::Int, loc(5, 3));
        b.ret(r);
    });
    let mut h = TestHost::new(0);
    let it = Interpreter::new(&p, &mut h);
    let e = it.call(&mut h, caller, &[]).unwrap_err();
    assert_eq!((e.code, e.loc), (TrapCode::AssertionFailed, loc(4, 2)));
    let e = it.call(&mut h, wrong_arity, &[]).unwrap_err();
    assert_eq!((e.code, e.loc), (TrapCode::AssertionFailed, loc(5, 3)));
    // Direct calls: a declaration, a wrong argument count, an unknown id.
    assert_eq!(
        it.call(&mut h, decl, &[1]).unwrap_err().code,
        TrapCode::AssertionFailed
    );
    assert_eq!(
        it.call(&mut h, caller, &[1]).unwrap_err().code,
        TrapCode::AssertionFailed
    );
    let unknown = FuncId::from_u32(99);
    assert_eq!(
        it.call(&mut h, unknown, &[]).unwrap_err().code,
        TrapCode::AssertionFailed
    );
}

#[test]
fn update_redefines_and_adds_functions() {
    let mut p = Program::default();
    let f = func(&mut p, "f", &[], Type::Int, |b, _| {
        let r = b.i(1);
        b.ret(Some(r));
    });
    let g = func(&mut p, "g", &[], Type::Int, |b, _| {
        let r = b.call(f, vec![], Type::Int).unwrap();
        b.ret(Some(r));
    });
    let mut h = TestHost::new(0);
    let mut it = Interpreter::new(&p, &mut h);
    assert_eq!(it.call(&mut h, g, &[]), Ok(1));
    define(&mut p, f, |b, _| {
        let r = b.i(2);
        b.ret(Some(r));
    });
    it.update(&p, f, &mut h);
    assert_eq!(it.call(&mut h, g, &[]), Ok(2));
    // A new function and a new global, added after the interpreter was made.
    p.globals.push(waddle_opt::ir::GlobalData {
        name: "x".into(),
        ty: Type::Int,
    });
    let gl = p.global_by_name("x").unwrap();
    let k = func(&mut p, "k", &[], Type::Int, |b, _| {
        let v = b.ins(InstKind::GlobalGet(gl), Type::Int);
        b.ret(Some(v));
    });
    it.update(&p, k, &mut h);
    // The host's globals area is still too small: refused, no panic.
    assert_eq!(
        it.call(&mut h, k, &[]).unwrap_err().code,
        TrapCode::AssertionFailed
    );
    h.globals.push(42);
    assert_eq!(it.call(&mut h, k, &[]), Ok(42));
}
