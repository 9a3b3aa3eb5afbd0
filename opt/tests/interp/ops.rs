//! Scalar instructions: integer, float and bool operations, conversions,
//! comparisons, with operands from parameters and from constants.

use waddle_opt::abi::{Trap, TrapCode, Word};
use waddle_opt::ir::{BinaryOp, Cmp, InstKind, Program, Type, UnaryOp};

use crate::build::{func, loc, run};
use waddle_test_support::host::TestHost;

fn ty_of(op: BinaryOp) -> Type {
    use BinaryOp::*;
    match op {
        FAdd | FSub | FMul | FDiv | FRem | FMin | FMax | FCmp(_) => Type::Float,
        BCmp(_) => Type::Bool,
        _ => Type::Int,
    }
}

/// `op(x, y)` three ways: both operands parameters, `y` a constant, `x` a
/// constant; all must agree.
fn binary(op: BinaryOp, x: Word, y: Word) -> Result<Word, Trap> {
    let t = ty_of(op);
    let konst = |b: &mut crate::build::B<'_>, w: Word| match t {
        Type::Int => b.i(w as i64),
        Type::Float => b.ins(InstKind::FConst(w), Type::Float),
        _ => b.bool(w != 0),
    };
    let mut p = Program::default();
    let both = func(&mut p, "both", &[t, t], Type::Int, |b, v| {
        let r = b.bin_at(op, v[0], v[1], loc(3, 4));
        b.ret(Some(r));
    });
    let kb = func(&mut p, "kb", &[t], Type::Int, |b, v| {
        let k = konst(b, y);
        let r = b.bin_at(op, v[0], k, loc(3, 4));
        b.ret(Some(r));
    });
    let ka = func(&mut p, "ka", &[t], Type::Int, |b, v| {
        let k = konst(b, x);
        let r = b.bin_at(op, k, v[0], loc(3, 4));
        b.ret(Some(r));
    });
    let mut h = TestHost::new(0);
    let r1 = run(&p, &mut h, both, &[x, y]);
    let r2 = run(&p, &mut h, kb, &[x]);
    let r3 = run(&p, &mut h, ka, &[y]);
    assert_eq!(r1, r2, "{op:?} {x:#x} {y:#x}: const rhs");
    assert_eq!(r1, r3, "{op:?} {x:#x} {y:#x}: const lhs");
    r1
}

fn int(op: BinaryOp, x: i64, y: i64) -> i64 {
    binary(op, x as Word, y as Word).expect("no trap") as i64
}

fn fl(op: BinaryOp, x: f64, y: f64) -> f64 {
    f64::from_bits(binary(op, x.to_bits(), y.to_bits()).expect("no trap"))
}

fn fcmp(cc: Cmp, x: f64, y: f64) -> bool {
    binary(BinaryOp::FCmp(cc), x.to_bits(), y.to_bits()).expect("no trap") != 0
}

const MIN: i64 = i64::MIN;
const MAX: i64 = i64::MAX;

#[test]
fn int_arithmetic_wraps() {
    use BinaryOp::*;
    assert_eq!(int(IAdd, 2, 3), 5);
    assert_eq!(int(IAdd, MAX, 1), MIN);
    assert_eq!(int(IAdd, 5, -7), -2);
    assert_eq!(int(IAdd, 1 << 40, 1 << 40), 1 << 41);
    assert_eq!(int(ISub, MIN, 1), MAX);
    assert_eq!(int(ISub, 3, -2147483648), 2147483651);
    assert_eq!(int(ISub, 10, 3), 7);
    assert_eq!(int(IMul, MAX, 2), -2);
    assert_eq!(int(IMul, -6, 7), -42);
}

#[test]
fn int_division() {
    use BinaryOp::*;
    assert_eq!(int(IDiv, 7, 2), 3);
    assert_eq!(int(IDiv, -7, 2), -3);
    assert_eq!(int(IDiv, 7, -2), -3);
    assert_eq!(int(IDiv, MIN, -1), MIN);
    assert_eq!(int(IRem, 7, 3), 1);
    assert_eq!(int(IRem, -7, 3), -1);
    assert_eq!(int(IRem, 7, -3), 1);
    assert_eq!(int(IRem, MIN, -1), 0);
    for op in [IDiv, IRem] {
        let e = binary(op, 5, 0).expect_err("division by zero");
        assert_eq!(e.code, TrapCode::DivisionByZero);
        assert_eq!(e.loc, loc(3, 4));
    }
}

#[test]
fn int_bits_and_shifts() {
    use BinaryOp::*;
    assert_eq!(int(IAnd, 0b1100, 0b1010), 0b1000);
    assert_eq!(int(IOr, 0b1100, 0b1010), 0b1110);
    assert_eq!(int(IXor, 0b1100, 0b1010), 0b0110);
    assert_eq!(int(IShl, 1, 3), 8);
    assert_eq!(int(IShl, 1, 64), 1);
    assert_eq!(int(IShl, 1, 65), 2);
    assert_eq!(int(IShl, 1, -1), MIN);
    assert_eq!(int(IShl, 3, 63), MIN);
    assert_eq!(int(IShr, -16, 2), -4);
    assert_eq!(int(IShr, MIN, 63), -1);
    assert_eq!(int(IShr, 256, 68), 16);
    assert_eq!(int(IMin, -3, 2), -3);
    assert_eq!(int(IMax, -3, 2), 2);
    assert_eq!(int(IMin, MIN, MAX), MIN);
}

#[test]
fn int_and_bool_comparisons() {
    use Cmp::*;
    let cases = [(1, 2), (2, 1), (5, 5), (MIN, MAX), (-1, 0)];
    for (x, y) in cases {
        let want = [x == y, x != y, x < y, x <= y, x > y, x >= y];
        for (cc, w) in [Eq, Ne, Lt, Le, Gt, Ge].into_iter().zip(want) {
            assert_eq!(
                int(BinaryOp::ICmp(cc), x, y),
                i64::from(w),
                "{x} {cc:?} {y}"
            );
        }
    }
    for x in [false, true] {
        for y in [false, true] {
            let eq = binary(BinaryOp::BCmp(Eq), x as Word, y as Word).unwrap();
            let ne = binary(BinaryOp::BCmp(Ne), x as Word, y as Word).unwrap();
            assert_eq!((eq, ne), (u64::from(x == y), u64::from(x != y)));
        }
    }
}

#[test]
fn float_arithmetic() {
    use BinaryOp::*;
    assert_eq!(fl(FAdd, 0.1, 0.2), 0.1 + 0.2);
    assert_eq!(fl(FSub, 1.0, 0.25), 0.75);
    assert_eq!(fl(FMul, 1.5, -2.0), -3.0);
    assert_eq!(fl(FDiv, 1.0, 0.0), f64::INFINITY);
    assert!(fl(FDiv, 0.0, 0.0).is_nan());
    assert_eq!(fl(FRem, 5.5, 2.0), 1.5);
    assert_eq!(fl(FRem, -5.5, 2.0), -1.5);
    assert_eq!(fl(FRem, 5.5, -2.0), 1.5);
    assert!(fl(FRem, 1.0, 0.0).is_nan());
    assert_eq!(fl(FRem, -0.0, 1.0).to_bits(), (-0.0f64).to_bits());
}

#[test]
fn float_min_max_and_signed_zero() {
    use BinaryOp::*;
    let bits = |x: f64| x.to_bits();
    assert_eq!(fl(FMin, 1.0, 2.0), 1.0);
    assert_eq!(fl(FMax, 1.0, 2.0), 2.0);
    assert_eq!(fl(FMin, f64::NAN, 2.0), 2.0);
    assert_eq!(fl(FMin, 2.0, f64::NAN), 2.0);
    assert_eq!(fl(FMax, f64::NAN, -2.0), -2.0);
    assert!(fl(FMax, f64::NAN, f64::NAN).is_nan());
    assert_eq!(bits(fl(FMin, -0.0, 0.0)), bits(-0.0));
    assert_eq!(bits(fl(FMin, 0.0, -0.0)), bits(-0.0));
    assert_eq!(bits(fl(FMax, -0.0, 0.0)), bits(0.0));
    assert_eq!(bits(fl(FMax, 0.0, -0.0)), bits(0.0));
    assert_eq!(bits(fl(FMax, -0.0, -0.0)), bits(-0.0));
    assert_eq!(fl(FMin, f64::NEG_INFINITY, 0.0), f64::NEG_INFINITY);
}

#[test]
fn float_comparisons_are_ieee() {
    use Cmp::*;
    let nan = f64::NAN;
    for (x, y) in [
        (1.0, 2.0),
        (2.0, 1.0),
        (0.0, -0.0),
        (nan, 1.0),
        (1.0, nan),
        (nan, nan),
    ] {
        let want = [x == y, x != y, x < y, x <= y, x > y, x >= y];
        for (cc, w) in [Eq, Ne, Lt, Le, Gt, Ge].into_iter().zip(want) {
            assert_eq!(fcmp(cc, x, y), w, "{x} {cc:?} {y}");
        }
    }
}

fn unary(op: UnaryOp, arg: Type, res: Type, x: Word) -> Word {
    let mut p = Program::default();
    let f = func(&mut p, "u", &[arg], res, |b, v| {
        let r = b.un(op, v[0], res);
        b.ret(Some(r));
    });
    let g = func(&mut p, "k", &[], res, |b, _| {
        let k = match arg {
            Type::Int => b.i(x as i64),
            Type::Bool => b.bool(x != 0),
            _ => b.ins(InstKind::FConst(x), Type::Float),
        };
        let r = b.un(op, k, res);
        b.ret(Some(r));
    });
    let mut h = TestHost::new(0);
    let r = run(&p, &mut h, f, &[x]).expect("no trap");
    assert_eq!(run(&p, &mut h, g, &[]), Ok(r));
    r
}

fn fun(op: UnaryOp, x: f64) -> f64 {
    f64::from_bits(unary(op, Type::Float, Type::Float, x.to_bits()))
}

#[test]
fn unary_int_and_bool() {
    let i = |op, x: i64| unary(op, Type::Int, Type::Int, x as Word) as i64;
    assert_eq!(i(UnaryOp::INeg, 5), -5);
    assert_eq!(i(UnaryOp::INeg, MIN), MIN);
    assert_eq!(i(UnaryOp::IAbs, -5), 5);
    assert_eq!(i(UnaryOp::IAbs, MIN), MIN);
    assert_eq!(unary(UnaryOp::BNot, Type::Bool, Type::Bool, 1), 0);
    assert_eq!(unary(UnaryOp::BNot, Type::Bool, Type::Bool, 0), 1);
}

#[test]
fn conversions() {
    let ftoi = |x: f64| unary(UnaryOp::FToI, Type::Float, Type::Int, x.to_bits()) as i64;
    assert_eq!(ftoi(2.9), 2);
    assert_eq!(ftoi(-2.9), -2);
    assert_eq!(ftoi(f64::NAN), 0);
    assert_eq!(ftoi(1e300), MAX);
    assert_eq!(ftoi(-1e300), MIN);
    assert_eq!(ftoi(f64::INFINITY), MAX);
    let itof = |x: i64| f64::from_bits(unary(UnaryOp::IToF, Type::Int, Type::Float, x as Word));
    assert_eq!(itof(-3), -3.0);
    assert_eq!(itof(MAX), 9223372036854775807.0);
}

#[test]
fn float_functions() {
    let bits = |x: f64| x.to_bits();
    assert_eq!(fun(UnaryOp::FNeg, 1.5), -1.5);
    assert_eq!(bits(fun(UnaryOp::FNeg, 0.0)), bits(-0.0));
    assert_eq!(fun(UnaryOp::FAbs, -2.5), 2.5);
    assert_eq!(fun(UnaryOp::FSqrt, 2.0), 2f64.sqrt());
    assert!(fun(UnaryOp::FSqrt, -1.0).is_nan());
    assert_eq!(fun(UnaryOp::FFloor, -1.5), -2.0);
    assert_eq!(fun(UnaryOp::FCeil, 1.2), 2.0);
    assert_eq!(bits(fun(UnaryOp::FFloor, -0.0)), bits(-0.0));
    assert_eq!(bits(fun(UnaryOp::FCeil, -0.5)), bits(-0.0));
    assert_eq!(bits(fun(UnaryOp::FCeil, -0.0)), bits(-0.0));
    assert_eq!(fun(UnaryOp::FSin, 0.5), 0.5f64.sin());
    assert_eq!(fun(UnaryOp::FCos, 0.5), 0.5f64.cos());
    assert_eq!(fun(UnaryOp::FTan, 0.5), 0.5f64.tan());
    assert_eq!(fun(UnaryOp::FExp, 1.0), 1f64.exp());
    assert_eq!(fun(UnaryOp::FLog, 10.0), 10f64.ln());
    assert_eq!(fun(UnaryOp::FLog, 0.0), f64::NEG_INFINITY);
}

#[test]
fn copy_and_constants() {
    let mut p = Program::default();
    let f = func(&mut p, "c", &[], Type::Unit, |b, _| {
        let vals = [b.i(-7), b.f(2.5), b.bool(true), b.s("hi"), b.i(-7)];
        for v in vals {
            let c = b.ins(InstKind::Copy(v), b.b.func.value_type(v));
            b.print(c);
        }
        b.ret(None);
    });
    let mut h = TestHost::new(0);
    assert_eq!(run(&p, &mut h, f, &[]), Ok(0));
    assert_eq!(h.lines(), ["-7", "2.5", "true", "hi", "-7"]);
}
