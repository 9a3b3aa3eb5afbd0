//! Shapes the VSDG round trip (tier T3, `--tier full`) gives code that the
//! `-O2` pipeline does not, and the rules that validate them: a
//! comparison of a γ output moved into the γ (R12, `phiop`), and an
//! `if .. else { if .. }` nest whose arms each return after the round
//! trip (R10 on a nest deeper than it used to flatten).

use super::*;
use crate::ir::{parse_program, Program};
use crate::passes::{Pipeline, PipelineOptions};

/// `fn f(x: int) { var y = 0; while y < 2 { var c = 1; if x == 0 { c = 0; }
/// if c == 0 { print(y); } y = y + 1; } }` after the `-O2` pipeline (the
/// loop unrolled by two): each copy branches on `c == 0` for the φ `c`.
const COMPARED_PHI: &str = "fn fn0 \"f\"(int) -> void @1:4 {
block0(v0: int):
    v1: int = iconst 0
    v3: int = iconst 2
    v5: int = iconst 1
    v8: bool = icmp eq v0, v1
    jump block1(v1)
block1(v2: int):
    v4: bool = icmp lt v2, v3
    br v4, block2, block3
block2:
    br v8, block5, block4(v5)
block5:
    jump block4(v1)
block4(v10: int):
    v12: bool = icmp eq v10, v1
    br v12, block7, block6
block7:
    print v2
    jump block6
block6:
    v16: int = iadd v2, v5
    v21: bool = icmp lt v16, v3
    br v21, block9, block3
block9:
    br v8, block10, block11(v5)
block10:
    jump block11(v1)
block11(v20: int):
    v22: bool = icmp eq v20, v1
    br v22, block12, block13
block12:
    print v16
    jump block13
block13:
    v23: int = iadd v16, v5
    jump block1(v23)
block3:
    return
}";

/// [`COMPARED_PHI`] as the VSDG round trip returns it: the comparison
/// moved into the γ, whose boolean output (`v10`, `v14`) the branches
/// test. `FIRST` is the first copy's γ, replaced to make wrong variants.
const COMPARED_IN_GAMMA: &str = "fn fn0 \"f\"(int) -> void @1:4 {
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 2
    v3: int = iconst 1
    v4: bool = icmp eq v0, v1
    v5: bool = bconst true
    v6: bool = bconst false
    jump block1(v1)
block1(v7: int):
    v8: bool = icmp lt v7, v2
    br v8, block3, block2
block3:
    FIRST
block7(v9: int, v10: bool):
    br v10, block8, block10
block8:
    print v7
    jump block10
block10:
    v11: int = iadd v7, v3
    v12: bool = icmp lt v11, v2
    br v12, block11, block2
block11:
    br v4, block15(v1, v5), block15(v3, v6)
block15(v13: int, v14: bool):
    br v14, block16, block18
block16:
    print v11
    jump block18
block18:
    v15: int = iadd v11, v3
    jump block1(v15)
block2:
    return
}";

/// The γ of the first copy as the round trip makes it.
const FIRST: &str = "br v4, block7(v1, v5), block7(v3, v6)";

fn program(text: &str) -> Program {
    match parse_program(text) {
        Ok(p) => p,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// The one function of `text`, canonicalized.
fn func(text: &str) -> Function {
    let p = program(text);
    let mut f = p.funcs.values().next().unwrap().clone();
    crate::canon::canonicalize(&mut f);
    f
}

/// The real `vsdg` pass on [`COMPARED_PHI`] validates (per pass, with
/// the validator attached), and makes the boolean γ output.
#[test]
fn a_comparison_moved_into_a_gamma_validates() {
    let mut p = program(COMPARED_PHI);
    let mut v = Validator::default();
    v.set_program(&p);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::from_names(&["vsdg"])
        .unwrap()
        .run(&mut p, &opts, &mut v)
        .unwrap();
    let row = v.stats.iter().find(|s| s.name == "vsdg").unwrap();
    assert_eq!((row.changed, row.equal), (1, 1), "{:?}", v.findings);
    let f = p.funcs.values().next().unwrap();
    let text = crate::ir::print_function_as(&p, p.funcs.keys().next().unwrap(), f);
    assert!(text.contains("bconst true"), "no boolean γ output:\n{text}");
}

/// The same by hand, and wrong variants of it alarm: the γ's boolean
/// output swapped (prints when `x != 0`), or constant.
#[test]
fn a_comparison_moved_into_a_gamma_by_hand_validates_and_wrong_ones_alarm() {
    let before = func(COMPARED_PHI);
    let right = func(&COMPARED_IN_GAMMA.replace("FIRST", FIRST));
    assert_eq!(validate(&before, &right), Verdict::Equal);
    for wrong in [
        "br v4, block7(v1, v6), block7(v3, v5)",
        "br v4, block7(v1, v5), block7(v3, v5)",
        "br v4, block7(v1, v6), block7(v3, v6)",
    ] {
        let after = func(&COMPARED_IN_GAMMA.replace("FIRST", wrong));
        assert!(
            matches!(validate(&before, &after), Verdict::Alarm(_)),
            "{wrong}"
        );
    }
}

/// `fn arm(x: int) -> int { var c = -1; if x == 0 { c = 0; } else { if x
/// == 7 { c = 1; } else { .. } } return c; }` with `n` levels, as the
/// frontend lowers it (one join per level) when `nested`, else as the
/// round trip returns it (each arm returns; the last returns `wrong_last`
/// instead of `-1` when given).
fn arms(n: usize, nested: bool, wrong_last: Option<i64>) -> String {
    // Blocks: level k tests in `block{k}`, sets in `block{n+k}`, joins in
    // `block{2n+k}`. Values: level k `v{3k+1..3k+3}`, `-1` in
    // `v{3n+1}`, the join parameters after it.
    let mut s = String::from("fn fn0 \"arm\"(int) -> int {\n");
    let (minus1, join) = (3 * n + 1, |k: usize| 3 * n + 2 + k);
    for k in 0..n {
        let (c, t, v) = (3 * k + 1, 3 * k + 2, 3 * k + 3);
        if k == 0 {
            s += "block0(v0: int):\n";
        } else {
            s += &format!("block{k}:\n");
        }
        s += &format!("    v{c}: int = iconst {}\n", 7 * k);
        s += &format!("    v{t}: bool = icmp eq v0, v{c}\n");
        let next = if k + 1 < n {
            format!("block{}", k + 1)
        } else {
            let last = if nested {
                format!("block{}(v{minus1})", 2 * n + k)
            } else {
                format!("block{}", 3 * n)
            };
            s += &format!("    v{minus1}: int = iconst {}\n", wrong_last.unwrap_or(-1));
            last
        };
        s += &format!("    br v{t}, block{}, {next}\n", n + k);
        s += &format!("block{}:\n    v{v}: int = iconst {k}\n", n + k);
        if nested {
            s += &format!("    jump block{}(v{v})\n", 2 * n + k);
        } else {
            s += &format!("    return v{v}\n");
        }
    }
    if nested {
        for k in (0..n).rev() {
            let p = join(k);
            s += &format!("block{}(v{p}: int):\n", 2 * n + k);
            if k == 0 {
                s += &format!("    return v{p}\n");
            } else {
                s += &format!("    jump block{}(v{p})\n", 2 * n + k - 1);
            }
        }
    } else {
        s += &format!("block{}:\n    return v{minus1}\n", 3 * n);
    }
    s + "}"
}

/// A 40-level nest against its arms returning one by one: R10 flattens
/// the nest into the other side's one φ of 41 branches (it stopped at 16,
/// and this alarmed from 16 levels on). A wrong last value alarms.
#[test]
fn a_deep_if_else_nest_validates_against_returning_arms() {
    for n in [4, 16, 17, 40] {
        let before = func(&arms(n, true, None));
        let after = func(&arms(n, false, None));
        assert_eq!(validate(&before, &after), Verdict::Equal, "{n} levels");
        let wrong = func(&arms(n, false, Some(5)));
        assert!(
            matches!(validate(&before, &wrong), Verdict::Alarm(_)),
            "{n} levels, wrong last value"
        );
    }
}
