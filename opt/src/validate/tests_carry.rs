//! R13 ([`super::carry`]): the `carry` pass validates, also where the
//! loop's exits read the carried value, and a wrong carried value alarms.

use super::*;
use crate::ir::{parse_program, Program};
use crate::passes::{Pipeline, PipelineOptions};

fn f(text: &str) -> Function {
    match crate::ir::parse_function(text) {
        Ok(f) => f,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// `x = x * x + c` until `x * x` passes 4 (mandelbrot's shape), after
/// `gvn`.
const ORBIT: &str = "fn fn0 \"orbit\"(int, float) -> float {
block0(v0: int, v1: float):
    v2: float = fconst 0.0
    v3: int = iconst 0
    jump block1(v3, v2)
block1(v4: int, v7: float):
    v6: bool = icmp lt v4, v0
    br v6, block2, block6(v7)
block2:
    v8: float = fmul v7, v7
    v10: float = fadd v8, v1
    v11: float = fmul v10, v10
    v12: float = fconst 4.0
    v13: bool = fcmp gt v11, v12
    br v13, block5(v7), block4
block5(v17: float):
    return v17
block4:
    v14: int = iconst 1
    v15: int = iadd v4, v14
    jump block1(v15, v10)
block6(v18: float):
    return v18
}";

/// [`ORBIT`] with `x * x` carried: the preheader computes `first`, the
/// latch passes `next`.
fn carried(first: &str, next: &str) -> Function {
    f(&format!(
        "fn fn0 \"orbit\"(int, float) -> float {{
block0(v0: int, v1: float):
    v2: float = fconst 0.0
    v3: int = iconst 0
    v19: float = {first}
    jump block1(v3, v2, v19)
block1(v4: int, v7: float, v20: float):
    v6: bool = icmp lt v4, v0
    br v6, block2, block6(v7)
block2:
    v10: float = fadd v20, v1
    v11: float = fmul v10, v10
    v12: float = fconst 4.0
    v13: bool = fcmp gt v11, v12
    br v13, block5(v7), block4
block5(v17: float):
    return v17
block4:
    v14: int = iconst 1
    v15: int = iadd v4, v14
    jump block1(v15, v10, {next})
block6(v18: float):
    return v18
}}"
    ))
}

#[test]
fn a_carried_square_validates_and_wrong_ones_alarm() {
    let before = f(ORBIT);
    assert_eq!(
        validate(&before, &carried("fmul v2, v2", "v11")),
        Verdict::Equal
    );
    // The first value of another operation, or the next value of
    // another iteration.
    for (first, next) in [("fmul v2, v1", "v11"), ("fmul v2, v2", "v10")] {
        assert!(
            matches!(validate(&before, &carried(first, next)), Verdict::Alarm(_)),
            "{first} / {next} validated"
        );
    }
}

/// Runs `canon, carry` on the function `text` (as `fn0` of a program)
/// with the validator attached: asserts that the pass changed it and that
/// the change validates.
fn assert_carry_validates(text: &str) {
    let mut p: Program = parse_program(&format!("main fn0\n\n{text}")).unwrap();
    let mut v = Validator::default();
    v.set_program(&p);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::from_names(&["canon", "carry"])
        .unwrap()
        .run(&mut p, &opts, &mut v)
        .unwrap();
    let row = v.stats.iter().find(|s| s.name == "carry").unwrap();
    assert_eq!((row.changed, row.equal), (1, 1), "{:#?}", v.findings);
}

#[test]
fn the_carry_pass_validates_on_its_own() {
    assert_carry_validates(ORBIT);
}

/// `for i in 0..n { s += i*i + (i+1)*(i+1) + (i+2)*(i+2) % 7 }` unrolled by
/// two (`inline_chain.wdl`'s `total` after `gvn`): `i * i` is the second
/// copy's `(i+1)*(i+1)` of the iteration before. The loop's exit values read
/// the square, and R4 pushes the exit η's into `i * i` on the original side,
/// where only R13's direction (the carried μ back into `i * i`) meets it.
const TOTAL: &str = "fn fn0 \"total\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v6: int = iconst 1
    v8: int = iconst 2
    v19: int = iconst 7
    jump block1(v1, v1)
block1(v3: int, v5: int):
    v4: bool = icmp lt v3, v0
    br v4, block2, block4(v5)
block2:
    v7: int = iadd v3, v6
    v9: int = iadd v3, v8
    v15: int = imul v3, v3
    v16: int = imul v7, v7
    v17: int = iadd v15, v16
    v18: int = imul v9, v9
    v20: int = irem v18, v19
    v21: int = iadd v17, v20
    v11: int = iadd v5, v21
    v24: bool = icmp lt v7, v0
    br v24, block6, block4(v11)
block4(v14: int):
    return v14
block6:
    v25: int = iadd v7, v6
    v26: int = iadd v7, v8
    v28: int = imul v25, v25
    v29: int = iadd v16, v28
    v30: int = imul v26, v26
    v31: int = irem v30, v19
    v32: int = iadd v29, v31
    v33: int = iadd v11, v32
    jump block1(v25, v33)
}";

#[test]
fn the_carry_pass_validates_on_an_unrolled_loop() {
    assert_carry_validates(TOTAL);
}
