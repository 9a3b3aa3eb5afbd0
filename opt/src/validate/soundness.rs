//! Validator soundness by property tests (digest §5.7 T1 and T2).
//!
//! Random pure functions (integer and boolean operators over the
//! parameters and constants, a diamond, a bounded counted loop) are
//! transformed either by random pipelines of the real passes or by random
//! mutations (swapped operands, changed constants and comparisons). Every
//! pair the validator calls `Equal` is run on the interpreter on random
//! inputs: results and traps must agree. So every rule that fired on the
//! way (folding, identities, φ, gate, μ/η rules) is checked against the
//! interpreter's semantics on concrete values (T1), and the whole verdict
//! against execution (T2). Mutants that change the meaning must also be
//! caught often enough that the property is not vacuous.

use proptest::prelude::*;

use super::fold::PureHost;
use super::{validate, Verdict};
use crate::abi::TrapCode;
use crate::interp::Interpreter;
use crate::ir::{parse_function, FuncId, Function, Program};
use crate::passes::{Pipeline, PipelineOptions};

pub(super) const BIN: &[&str] = &[
    "iadd", "isub", "imul", "iand", "ior", "ixor", "ishl", "ishr", "imin", "imax", "idiv", "irem",
];
pub(super) const CMP: &[&str] = &["lt", "le", "gt", "ge", "eq", "ne"];

/// One instruction: operator index and two operand picks (value indices
/// modulo what is defined), or a constant.
#[derive(Clone, Debug)]
enum Gen {
    Bin(usize, usize, usize),
    Const(i64),
}

fn gen_inst() -> impl Strategy<Value = Gen> {
    prop_oneof![
        3 => (0..BIN.len(), any::<usize>(), any::<usize>()).prop_map(|(o, a, b)| Gen::Bin(o, a, b)),
        1 => prop_oneof![Just(0i64), Just(1), Just(-1), Just(2), Just(i64::MAX), -8i64..8]
            .prop_map(Gen::Const),
    ]
}

/// A function `(int, int) -> int`: `head` in the entry, a branch on a
/// comparison `cmp`, `then`/`else` arms, a loop adding `body` to an
/// accumulator `n & 3` times, and a return.
#[derive(Clone, Debug)]
struct Shape {
    head: Vec<Gen>,
    cmp: usize,
    then: Vec<Gen>,
    els: Vec<Gen>,
    body: Vec<Gen>,
}

fn gen_shape() -> impl Strategy<Value = Shape> {
    (
        prop::collection::vec(gen_inst(), 1..6),
        0..CMP.len(),
        prop::collection::vec(gen_inst(), 1..4),
        prop::collection::vec(gen_inst(), 1..4),
        prop::collection::vec(gen_inst(), 1..4),
    )
        .prop_map(|(head, cmp, then, els, body)| Shape {
            head,
            cmp,
            then,
            els,
            body,
        })
}

/// Emits `insts` into `out`, defining values after `vals`; returns the
/// last value defined.
fn emit(insts: &[Gen], vals: &mut Vec<String>, next: &mut u32, out: &mut String) -> String {
    for g in insts {
        let v = format!("v{next}");
        *next += 1;
        match *g {
            Gen::Const(k) => out.push_str(&format!("    {v}: int = iconst {k}\n")),
            Gen::Bin(o, a, b) => {
                let (a, b) = (&vals[a % vals.len()], &vals[b % vals.len()]);
                out.push_str(&format!("    {v}: int = {} {a}, {b}\n", BIN[o]));
            }
        }
        vals.push(v);
    }
    vals.last().cloned().unwrap_or_default()
}

fn render(s: &Shape) -> String {
    render_as(s, None)
}

/// Kinds of change to the second copy of a loop unrolled by two by hand
/// (`render_as`): none, its exit test `le` instead of `lt`, no exit test,
/// one of its body instructions changed, its accumulation a subtraction,
/// its increment 3 instead of 1.
const UNROLL_MUTATIONS: usize = 6;

/// The function of `s`; with `unrolled = Some((m, k))`, its loop unrolled
/// by two by hand (the copy's exit test kept, as the unroll pass does),
/// changed by mutation `m` (`k` picks the body instruction).
fn render_as(s: &Shape, unrolled: Option<(usize, usize)>) -> String {
    let mut o = String::from("fn fn0 \"f\"(int, int) -> int {\nblock0(v0: int, v1: int):\n");
    let mut next = 2;
    let mut vals = vec!["v0".to_string(), "v1".to_string()];
    let h = emit(&s.head, &mut vals, &mut next, &mut o);
    let c = format!("v{next}");
    next += 1;
    o.push_str(&format!("    {c}: bool = icmp {} {h}, v1\n", CMP[s.cmp]));
    o.push_str(&format!("    br {c}, block1, block2\nblock1:\n"));
    let mut tv = vals.clone();
    let t = emit(&s.then, &mut tv, &mut next, &mut o);
    o.push_str(&format!("    jump block3({t})\nblock2:\n"));
    let mut ev = vals.clone();
    let e = emit(&s.els, &mut ev, &mut next, &mut o);
    let j = format!("v{next}");
    next += 1;
    o.push_str(&format!("    jump block3({e})\nblock3({j}: int):\n"));
    // for i in 0..(v0 & 3): acc = acc + body
    let (zero, one, three, n) = (next, next + 1, next + 2, next + 3);
    next += 4;
    o.push_str(&format!(
        "    v{zero}: int = iconst 0\n    v{one}: int = iconst 1\n    v{three}: int = iconst 3\n    v{n}: int = iand v0, v{three}\n    jump block4(v{zero}, {j})\n"
    ));
    let (i, acc, lc) = (next, next + 1, next + 2);
    next += 3;
    o.push_str(&format!(
        "block4(v{i}: int, v{acc}: int):\n    v{lc}: bool = icmp lt v{i}, v{n}\n    br v{lc}, block5, block6(v{acc})\nblock5:\n"
    ));
    let mut bv = vals.clone();
    bv.push(format!("v{i}"));
    bv.push(format!("v{acc}"));
    let b = emit(&s.body, &mut bv, &mut next, &mut o);
    let (sum, inc, r) = (next, next + 1, next + 2);
    next += 3;
    let Some((m, k)) = unrolled else {
        o.push_str(&format!(
            "    v{sum}: int = iadd v{acc}, {b}\n    v{inc}: int = iadd v{i}, v{one}\n    jump block4(v{inc}, v{sum})\nblock6(v{r}: int):\n    return v{r}\n}}\n"
        ));
        return o;
    };
    // The copy: block7 (header-like, not a loop), block8 its body, block9
    // its exit; both exits join in block10.
    let (i2, acc2, lc2) = (next, next + 1, next + 2);
    next += 3;
    let test = match m {
        1 => format!("icmp le v{i2}, v{n}"),
        2 => "bconst true".to_string(),
        _ => format!("icmp lt v{i2}, v{n}"),
    };
    o.push_str(&format!(
        "    v{sum}: int = iadd v{acc}, {b}\n    v{inc}: int = iadd v{i}, v{one}\n    jump block7(v{inc}, v{sum})\nblock7(v{i2}: int, v{acc2}: int):\n    v{lc2}: bool = {test}\n    br v{lc2}, block8, block9(v{acc2})\nblock8:\n"
    ));
    let mut body = s.body.clone();
    if m == 3 {
        let j = k % body.len();
        body[j] = match body[j] {
            Gen::Bin(op, a, b) => Gen::Bin((op + 1) % BIN.len(), a, b),
            Gen::Const(c) => Gen::Const(c.wrapping_add(1)),
        };
    }
    let mut bv = vals.clone();
    bv.push(format!("v{i2}"));
    bv.push(format!("v{acc2}"));
    let b2 = emit(&body, &mut bv, &mut next, &mut o);
    let (sum2, inc2, r2, r3) = (next, next + 1, next + 2, next + 3);
    let acc_op = if m == 4 { "isub" } else { "iadd" };
    let step = if m == 5 { three } else { one };
    o.push_str(&format!(
        "    v{sum2}: int = {acc_op} v{acc2}, {b2}\n    v{inc2}: int = iadd v{i2}, v{step}\n    jump block4(v{inc2}, v{sum2})\nblock6(v{r}: int):\n    jump block10(v{r})\nblock9(v{r2}: int):\n    jump block10(v{r2})\nblock10(v{r3}: int):\n    return v{r3}\n}}\n"
    ));
    o
}

/// Runs `f` on `args` on the interpreter.
pub(super) fn run(f: &Function, args: [i64; 2]) -> Result<u64, TrapCode> {
    let mut p = Program::default();
    p.funcs.push(f.clone());
    let interp = Interpreter::new(&p, &mut PureHost);
    interp
        .call(
            &mut PureHost,
            FuncId::from_u32(0),
            &[args[0] as u64, args[1] as u64],
        )
        .map_err(|t| t.code)
}

const INPUTS: &[[i64; 2]] = &[
    [0, 0],
    [1, 2],
    [-3, 5],
    [7, -1],
    [i64::MAX, 1],
    [i64::MIN, -1],
    [3, 3],
    [-2, 0],
    [100, 7],
    [5, 64],
];

/// Runs function `id` of `p` on `args` on the interpreter.
fn run_in(p: &Program, id: FuncId, args: [i64; 2]) -> Result<u64, TrapCode> {
    let interp = Interpreter::new(p, &mut PureHost);
    interp
        .call(&mut PureHost, id, &[args[0] as u64, args[1] as u64])
        .map_err(|t| t.code)
}

/// A program of the generated function as `g` (fn0) and a caller `f`
/// (fn1) that calls it twice, once inside a loop.
fn with_caller(callee: &str) -> String {
    let g = callee.replacen("fn fn0 \"f\"", "fn fn0 \"g\"", 1);
    g + "fn fn1 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = call fn0 \"g\"(v0, v1)
    v3: int = iconst 0
    v4: int = iconst 2
    jump block1(v3, v2)
block1(v5: int, v6: int):
    v7: bool = icmp lt v5, v4
    br v7, block2, block3
block2:
    v8: int = call fn0 \"g\"(v6, v5)
    v9: int = iconst 1
    v10: int = iadd v5, v9
    jump block1(v10, v8)
block3:
    return v6
}
"
}

/// Whether `a` and `b` behave the same on [`INPUTS`].
pub(super) fn agree(a: &Function, b: &Function) -> Result<(), String> {
    for &x in INPUTS {
        let (ra, rb) = (run(a, x), run(b, x));
        if ra != rb {
            return Err(format!("on {x:?}: {ra:?} vs {rb:?}"));
        }
    }
    Ok(())
}

const PASSES: &[&str] = &[
    "unroll",
    "sccp",
    "copyprop",
    "dce",
    "gvn",
    "licm",
    "straighten",
    "js",
    "jt",
    "is",
    "unswitch",
    "reassoc",
];

/// A random mutation of the text: swap the operands of the `k`-th binary
/// instruction, change its operator, or bump a constant.
fn mutate(text: &str, k: usize, how: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    // Only the generated instructions, not the bounded loop's scaffolding
    // (a changed trip count could run for a very long time).
    let end = all
        .iter()
        .position(|l| l.starts_with("block3("))
        .unwrap_or(all.len());
    let lines = &all[..end];
    let candidates: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(" = i") && lines[i].contains(", "))
        .chain((0..lines.len()).filter(|&i| lines[i].contains("iconst ")))
        .collect();
    if candidates.is_empty() {
        return text.to_string();
    }
    let i = candidates[k % candidates.len()];
    let line = lines[i];
    let new = if let Some(pos) = line.find("iconst ") {
        let k: i64 = line[pos + 7..].trim().parse().unwrap_or(0);
        format!("{}iconst {}", &line[..pos], k.wrapping_add(1))
    } else {
        let (lhs, rhs) = line.split_once(" = ").expect("instruction");
        let mut parts: Vec<&str> = rhs.splitn(2, ' ').collect();
        let ops: Vec<&str> = parts[1].split(", ").collect();
        match how % 2 {
            0 => format!("{lhs} = {} {}, {}", parts[0], ops[1], ops[0]),
            _ => {
                let op = if parts[0] == "icmp" {
                    parts[1] = ops[0];
                    "icmp"
                } else {
                    BIN[(BIN.iter().position(|b| *b == parts[0]).unwrap_or(0) + 1) % BIN.len()]
                };
                format!("{lhs} = {op} {}", rhs.split_once(' ').map_or("", |x| x.1))
            }
        }
    };
    let mut out: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    out[i] = new;
    out.join("\n") + "\n"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// T2: random pipelines of the real passes; every `Equal` agrees on
    /// the interpreter.
    #[test]
    fn equal_verdicts_of_real_passes_agree(
        shape in gen_shape(),
        pipeline in prop::collection::vec(0..PASSES.len(), 1..6),
    ) {
        let text = render(&shape);
        let before = parse_function(&text).expect("generated IR parses");
        let mut program = Program::default();
        program.funcs.push(before.clone());
        let names: Vec<&str> = pipeline.iter().map(|&i| PASSES[i]).collect();
        let opts = PipelineOptions { verify: false, time: false };
        Pipeline::from_names(&names).unwrap().run(&mut program, &opts, &mut ()).unwrap();
        let after = &program.funcs[FuncId::from_u32(0)];
        let mut canonical = before.clone();
        crate::canon::canonicalize(&mut canonical);
        if validate(&canonical, after) == Verdict::Equal {
            prop_assert!(agree(&before, after).is_ok(), "{text}\n{names:?}: {:?}", agree(&before, after));
        }
    }

    /// T1: random mutations; an `Equal` verdict on a mutant means the
    /// mutation did not change the meaning on any tried input.
    #[test]
    fn equal_verdicts_of_mutants_agree(shape in gen_shape(), k in any::<usize>(), how in any::<usize>()) {
        let text = render(&shape);
        let mutated = mutate(&text, k, how);
        let (Ok(mut a), Ok(mut b)) = (parse_function(&text), parse_function(&mutated)) else {
            return Ok(());
        };
        crate::canon::canonicalize(&mut a);
        crate::canon::canonicalize(&mut b);
        if validate(&a, &b) == Verdict::Equal {
            prop_assert!(agree(&a, &b).is_ok(), "{text}\n---\n{mutated}\n{:?}", agree(&a, &b));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// T1 for loop doubling (`unroll`): the loop unrolled by two by hand,
    /// unchanged or with its second copy changed; every `Equal` agrees on
    /// the interpreter.
    #[test]
    fn equal_verdicts_of_unrolled_loops_agree(
        shape in gen_shape(),
        m in 0..UNROLL_MUTATIONS,
        k in any::<usize>(),
    ) {
        let text = render(&shape);
        let unrolled = render_as(&shape, Some((m, k)));
        let (mut a, mut b) = (parse_function(&text).unwrap(), parse_function(&unrolled).unwrap());
        crate::canon::canonicalize(&mut a);
        crate::canon::canonicalize(&mut b);
        if validate(&a, &b) == Verdict::Equal {
            prop_assert!(agree(&a, &b).is_ok(), "{text}\n---\n{unrolled}\n{:?}", agree(&a, &b));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// T1/T2 for call unfolding: the callee of the optimized program is
    /// the original or a mutant, it is inlined (when small enough) and the
    /// program optimized; when the caller and the callee both validate
    /// against the original program (the modular argument of
    /// `unfold`), the callers agree on the interpreter.
    #[test]
    fn equal_verdicts_with_unfolded_calls_agree(
        shape in gen_shape(),
        k in any::<usize>(),
        how in any::<usize>(),
        pipeline in prop::collection::vec(0..PASSES.len(), 0..4),
    ) {
        let text = render(&shape);
        let callee = if how % 3 == 0 { text.clone() } else { mutate(&text, k, how) };
        let (Ok(before), Ok(mut after)) = (
            crate::ir::parse_program(&with_caller(&text)),
            crate::ir::parse_program(&with_caller(&callee)),
        ) else {
            return Ok(());
        };
        let mut names = vec!["inline"];
        names.extend(pipeline.iter().map(|&i| PASSES[i]));
        let opts = PipelineOptions { verify: false, time: false };
        Pipeline::from_names(&names).unwrap().run(&mut after, &opts, &mut ()).unwrap();
        let mut canonical = before.clone();
        for f in canonical.funcs.values_mut() {
            crate::canon::canonicalize(f);
        }
        let whole = super::validate_program(&canonical, &after, &super::Options::default());
        if whole.equal == whole.total {
            let (f, g) = (FuncId::from_u32(1), FuncId::from_u32(0));
            for &x in INPUTS {
                let (rb, ra) = (run_in(&before, f, x), run_in(&after, f, x));
                prop_assert_eq!(rb, ra, "{}\n---\n{}\n{:?} on {:?}", with_caller(&text), with_caller(&callee), names, x);
                prop_assert_eq!(run_in(&before, g, x), run_in(&after, g, x));
            }
        }
    }
}

/// The mutation property is not vacuous: most mutants that behave
/// differently are alarms, and unmutated functions validate.
#[test]
fn mutants_are_mostly_caught_and_originals_validate() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut differing, mut caught, mut originals) = (0, 0, 0);
    for n in 0..200usize {
        let shape = gen_shape().new_tree(&mut runner).unwrap().current();
        let text = render(&shape);
        let mut a = parse_function(&text).unwrap();
        crate::canon::canonicalize(&mut a);
        if validate(&a, &a) == Verdict::Equal {
            originals += 1;
        }
        let Ok(mut b) = parse_function(&mutate(&text, n * 7, n)) else {
            continue;
        };
        crate::canon::canonicalize(&mut b);
        if agree(&a, &b).is_err() {
            differing += 1;
            if validate(&a, &b) != Verdict::Equal {
                caught += 1;
            }
        }
    }
    assert_eq!(originals, 200);
    assert!(differing > 50, "{differing}");
    assert_eq!(caught, differing, "a differing mutant validated");
}

/// The doubling property is not vacuous: the loop unrolled by hand
/// validates (unless its body divides, see below), and copies changed so
/// that they behave differently alarm.
#[test]
fn unrolled_loops_validate_and_changed_copies_are_caught() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut equal, mut unexplained, mut differing, mut caught) = (0, 0, 0, 0);
    for n in 0..100usize {
        let shape = gen_shape().new_tree(&mut runner).unwrap().current();
        let mut a = parse_function(&render(&shape)).unwrap();
        crate::canon::canonicalize(&mut a);
        let mut b = parse_function(&render_as(&shape, Some((0, 0)))).unwrap();
        crate::canon::canonicalize(&mut b);
        let divides = shape
            .body
            .iter()
            .any(|g| matches!(g, Gen::Bin(o, ..) if matches!(BIN[*o], "idiv" | "irem")));
        if validate(&a, &b) == Verdict::Equal {
            equal += 1;
        } else if !divides {
            unexplained += 1;
        }
        let m = 1 + n % (UNROLL_MUTATIONS - 1);
        let mut c = parse_function(&render_as(&shape, Some((m, n * 7)))).unwrap();
        crate::canon::canonicalize(&mut c);
        if agree(&a, &c).is_err() {
            differing += 1;
            if validate(&a, &c) != Verdict::Equal {
                caught += 1;
            }
        }
    }
    // Documented incompleteness: a loop whose body divides (a trap check
    // on the effect token) may still alarm; every other one validates.
    assert_eq!(
        unexplained, 0,
        "unrolled loops without a division that alarm"
    );
    assert!(equal >= 80, "{equal}");
    assert!(differing > 30, "{differing}");
    assert_eq!(caught, differing, "a differing copy validated");
}
