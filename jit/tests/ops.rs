//! Compiled code of every native tier (baseline and Cranelift) against the
//! interpreter: arithmetic, floats, control flow, calls, globals, every
//! trap.

use waddle_opt::abi::{Trap, TrapCode};
use waddle_opt::ir::SrcLoc;
use waddle_test_support::tiers::{check_same, HostSetup, NONE};

fn at(line: u32, col: u32) -> SrcLoc {
    SrcLoc { file: 0, line, col }
}

/// A `.main` printing the result of applying `op` to each pair of ints.
fn int_binop_program(op: &str) -> String {
    let vals = [
        0i64,
        1,
        -1,
        2,
        -2,
        3,
        7,
        -7,
        63,
        64,
        65,
        -64,
        i64::MAX,
        i64::MIN,
        1 << 40,
    ];
    let mut body = String::new();
    let mut v = 0;
    for &a in &vals {
        for &b in &vals {
            if matches!(op, "idiv" | "irem") && b == 0 {
                continue;
            }
            body += &format!(
                "    v{v}: int = iconst {a}\n    v{}: int = iconst {b}\n    v{}: int = {op} v{v}, v{}\n    print v{}\n",
                v + 1,
                v + 2,
                v + 1,
                v + 2
            );
            v += 3;
        }
    }
    format!("fn fn0 \"main\"() -> void {{\nblock0:\n{body}    return\n}}\n")
}

#[test]
fn integer_binops_match() {
    for op in [
        "iadd", "isub", "imul", "idiv", "irem", "iand", "ior", "ixor", "ishl", "ishr", "imin",
        "imax",
    ] {
        let out = check_same(&int_binop_program(op), "main", &[], NONE);
        assert!(out.result.is_ok());
    }
}

/// Division with operands unknown to the compiler (passed as parameters).
#[test]
fn division_by_parameters() {
    let text = r#"
fn fn0 "div"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = idiv v0, v1 @4:9
    v3: int = irem v0, v1 @4:12
    v4: int = iadd v2, v3
    return v4
}
"#;
    for (a, b) in [
        (7i64, 2i64),
        (-7, 2),
        (7, -2),
        (i64::MIN, -1),
        (i64::MIN, 1),
        (5, -1),
        (0, 3),
    ] {
        let o = check_same(text, "div", &[a as u64, b as u64], NONE);
        assert_eq!(
            o.result,
            Ok(a.wrapping_div(b).wrapping_add(a.wrapping_rem(b)) as u64)
        );
    }
    let o = check_same(text, "div", &[5, 0], NONE);
    assert_eq!(
        o.result,
        Err(Trap {
            code: TrapCode::DivisionByZero,
            loc: at(4, 9)
        })
    );
}

#[test]
fn constant_divisors() {
    let text = r#"
fn fn0 "f"(int) -> int {
block0(v0: int):
    v1: int = iconst -1
    v2: int = idiv v0, v1 @1:1
    v3: int = iconst 7
    v4: int = irem v0, v3 @1:2
    v5: int = irem v0, v1 @1:3
    v6: int = iadd v2, v4
    v7: int = iadd v6, v5
    v8: int = iconst 0
    v9: int = irem v7, v8 @9:9
    return v9
}
"#;
    let o = check_same(text, "f", &[i64::MIN as u64], NONE);
    assert_eq!(
        o.result,
        Err(Trap {
            code: TrapCode::DivisionByZero,
            loc: at(9, 9)
        })
    );
}

#[test]
fn unary_and_float_ops_match() {
    let floats = [
        0.0f64,
        -0.0,
        1.5,
        -2.5,
        1e300,
        -1e-300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        9.3e18,
        -9.3e18,
        0.49999999999999994,
        3.0,
    ];
    let mut body = String::new();
    let mut v = 0;
    for &a in &floats {
        let abits = a.to_bits();
        body += &format!("    v{v}: float = fconst 0x{abits:016x}\n");
        let av = v;
        v += 1;
        for op in [
            "fneg", "fabs", "fsqrt", "ffloor", "fceil", "fsin", "fcos", "ftan", "fexp", "flog",
        ] {
            body += &format!("    v{v}: float = {op} v{av}\n    print v{v}\n");
            v += 1;
        }
        body += &format!("    v{v}: int = ftoi v{av}\n    print v{v}\n");
        v += 1;
        for &b in &floats {
            body += &format!("    v{v}: float = fconst 0x{:016x}\n", b.to_bits());
            let bv = v;
            v += 1;
            for op in ["fadd", "fsub", "fmul", "fdiv", "frem", "fmin", "fmax"] {
                body += &format!("    v{v}: float = {op} v{av}, v{bv}\n    print v{v}\n");
                v += 1;
            }
            for cc in ["eq", "ne", "lt", "le", "gt", "ge"] {
                body += &format!("    v{v}: bool = fcmp {cc} v{av}, v{bv}\n    print v{v}\n");
                v += 1;
            }
        }
    }
    for &i in &[0i64, -1, i64::MIN, i64::MAX, 1 << 53, (1 << 53) + 1] {
        body += &format!(
            "    v{v}: int = iconst {i}\n    v{}: float = itof v{v}\n    print v{}\n    v{}: int = ineg v{v}\n    print v{}\n    v{}: int = iabs v{v}\n    print v{}\n",
            v + 1,
            v + 1,
            v + 2,
            v + 2,
            v + 3,
            v + 3
        );
        v += 4;
    }
    for (a, b) in [(true, false), (false, false), (true, true)] {
        body += &format!(
            "    v{v}: bool = bconst {a}\n    v{}: bool = bconst {b}\n    v{}: bool = bcmp eq v{v}, v{}\n    print v{}\n    v{}: bool = bnot v{v}\n    print v{}\n",
            v + 1,
            v + 2,
            v + 1,
            v + 2,
            v + 3,
            v + 3
        );
        v += 4;
    }
    let text = format!("fn fn0 \"main\"() -> void {{\nblock0:\n{body}    return\n}}\n");
    let o = check_same(&text, "main", &[], NONE);
    assert!(o.out.contains("NaN") && o.out.contains("-0.0"));
}

const FIB: &str = r#"
fn fn0 "fib"(int) -> int @1:1 {
block0(v0: int):
    v1: int = iconst 2
    v2: bool = icmp lt v0, v1
    br v2, block1, block2
block1:
    return v0
block2:
    v4: int = iconst 1
    v6: int = isub v0, v4
    v7: int = call fn0 "fib"(v6) @3:12
    v8: int = isub v0, v1
    v9: int = call fn0 "fib"(v8) @3:24
    v10: int = iadd v7, v9
    return v10
}
"#;

#[test]
fn fib_matches() {
    let o = check_same(FIB, "fib", &[20], NONE);
    assert_eq!(o.result, Ok(6765));
}

/// Block parameters swapped on a back edge (parallel-move semantics) and a
/// loop whose header is the entry block.
#[test]
fn block_param_swaps_and_entry_loop() {
    let text = r#"
fn fn0 "swap"(int, int, int) -> int {
block0(v0: int, v1: int, v2: int):
    v3: int = iconst 0
    v4: bool = icmp le v2, v3
    br v4, block1, block2
block2:
    v5: int = iconst 1
    v6: int = isub v2, v5
    v7: int = iconst 10
    v8: int = imul v0, v7
    v9: int = iadd v8, v1
    jump block0(v1, v9, v6)
block1:
    v10: int = iconst 1000
    v11: int = imul v0, v10
    v12: int = iadd v11, v1
    return v12
}
"#;
    for n in 0..6 {
        check_same(text, "swap", &[1, 2, n], NONE);
    }
}

#[test]
fn switch_with_arguments_and_negative_keys() {
    let text = r#"
fn fn0 "sw"(int) -> int {
block0(v0: int):
    v1: int = iconst 100
    v2: int = iconst 200
    switch v0 [0: block1(v1), -5: block1(v2), 7: block2, 9223372036854775807: block1(v0)] default block1(v0)
block1(v3: int):
    return v3
block2:
    v4: int = iconst 7777
    return v4
}
fn fn1 "bsw"(bool) -> int {
block0(v0: bool):
    v1: int = iconst 1
    v2: int = iconst 2
    switch v0 [0: block1(v1)] default block1(v2)
block1(v3: int):
    return v3
}
"#;
    for k in [0i64, -5, 7, 3, i64::MAX, i64::MIN] {
        check_same(text, "sw", &[k as u64], NONE);
    }
    for b in [0, 1] {
        check_same(text, "bsw", &[b], NONE);
    }
}

#[test]
fn globals_and_bool_results() {
    let text = r#"
global g0 "count": int
global g1 "flag": bool
global g2 "x": float
fn fn0 "bump"(bool) -> bool {
block0(v0: bool):
    v1: int = global_get g0
    v2: int = iconst 3
    v3: int = iadd v1, v2
    global_set g0, v3
    global_set g1, v0
    v4: float = global_get g2
    v5: float = fconst 0.25
    v6: float = fadd v4, v5
    global_set g2, v6
    v7: bool = bnot v0
    return v7
}
fn fn1 "main"() -> bool {
block0:
    v0: bool = bconst true
    v1: bool = call fn0 "bump"(v0) @1:1
    v2: bool = call fn0 "bump"(v1) @1:2
    v3: int = global_get g0
    print v3
    v4: bool = global_get g1
    print v4
    v5: float = global_get g2
    print v5
    return v2
}
"#;
    let o = check_same(text, "main", &[], NONE);
    assert_eq!(o.result, Ok(1));
    assert_eq!(o.out, "6\nfalse\n0.5\n");
}

#[test]
fn assert_and_bad_calls_trap() {
    let text = r#"
fn fn0 "chk"(bool) -> int {
block0(v0: bool):
    assert v0 @2:5
    v1: int = iconst 1
    return v1
}
fn fn1 "decl"(int) -> int
fn fn2 "calls_decl"() -> int {
block0:
    v0: int = iconst 1
    v1: int = call fn1 "decl"(v0) @7:3
    return v1
}
"#;
    assert_eq!(check_same(text, "chk", &[1], NONE).result, Ok(1));
    assert_eq!(
        check_same(text, "chk", &[0], NONE).result,
        Err(Trap {
            code: TrapCode::AssertionFailed,
            loc: at(2, 5)
        })
    );
    assert_eq!(
        check_same(text, "calls_decl", &[], NONE).result,
        Err(Trap {
            code: TrapCode::AssertionFailed,
            loc: at(7, 3)
        })
    );
}

/// Fuel: same charges as the interpreter, so the same output before
/// `out of fuel`.
#[test]
fn fuel_runs_out_identically() {
    let text = r#"
fn fn0 "spin"(int) -> void @1:1 {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1)
block1(v2: int):
    v3: bool = icmp lt v2, v0
    br v3, block2, block3
block2:
    print v2
    v4: int = iconst 1
    v5: int = iadd v2, v4
    jump block1(v5)
block3:
    return
}
"#;
    for fuel in [0u64, 1, 1023, 1024, 1025, 3000, 5000] {
        let o = check_same(
            text,
            "spin",
            &[4000],
            HostSetup {
                fuel: Some(fuel),
                gc_every: None,
            },
        );
        if fuel < 4000 {
            assert!(matches!(
                o.result,
                Err(Trap {
                    code: TrapCode::OutOfFuel,
                    ..
                })
            ));
        }
    }
}
