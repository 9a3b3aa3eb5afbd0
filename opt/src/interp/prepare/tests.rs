//! Which ops [`prepare`](super::prepare) picks for a branch on a masked
//! value, and that they mean what the IR means.

use cranelift_entity::EntityRef;

use crate::abi::Word;
use crate::interp::code::Op;
use crate::interp::Interpreter;
use crate::ir::{parse_program, FuncId};
use crate::validate::fold::PureHost;

/// `fn f(x) { return if OP(x) CC 0 { 10 } else { 20 } }`, with the
/// remainder also printed when `shared`.
fn masked_branch(op: &str, k: i64, cc: &str, zero_left: bool, shared: bool) -> String {
    let cmp = if zero_left { "v3, v2" } else { "v2, v3" };
    let print = if shared { "    print v2\n" } else { "" };
    format!(
        "fn fn0 \"f\"(int) -> int {{\n\
         block0(v0: int):\n\
         \x20   v1: int = iconst {k}\n\
         \x20   v3: int = iconst 0\n\
         \x20   v5: int = iconst 10\n\
         \x20   v6: int = iconst 20\n\
         \x20   v2: int = {op} v0, v1\n\
         {print}\
         \x20   v4: bool = icmp {cc} {cmp}\n\
         \x20   br v4, block1, block2\n\
         block1:\n\
         \x20   return v5\n\
         block2:\n\
         \x20   return v6\n\
         }}\n"
    )
}

fn ops_of(text: &str) -> Vec<Op> {
    let p = parse_program(text).expect("parses");
    super::prepare(&p, FuncId::new(0), &mut PureHost)
        .expect("has a body")
        .ops
}

fn run(text: &str, x: i64) -> Word {
    let p = parse_program(text).expect("parses");
    let interp = Interpreter::new(&p, &mut PureHost);
    interp
        .call(&mut PureHost, FuncId::new(0), &[x as Word])
        .expect("runs")
}

const XS: [i64; 9] = [0, 1, -1, 6, -6, 8, -8, i64::MIN, i64::MAX];

#[test]
fn remainder_by_a_power_of_two_against_zero_is_one_mask_branch() {
    for (op, k) in [
        ("irem", 2),
        ("irem", 8),
        ("irem", 1 << 30),
        ("iand", 6),
        ("iand", -8),
    ] {
        for cc in ["eq", "ne"] {
            for zero_left in [false, true] {
                let text = masked_branch(op, k, cc, zero_left, false);
                let ops = ops_of(&text);
                let masks = ops
                    .iter()
                    .filter(|o| matches!(o, Op::BrMaskZero { .. } | Op::BrMaskNonZero { .. }))
                    .count();
                assert_eq!(masks, 1, "{text}{ops:?}");
                assert!(
                    !ops.iter().any(|o| matches!(
                        o,
                        Op::IRemPow2 { .. }
                            | Op::IAnd { .. }
                            | Op::BrIEqImm { .. }
                            | Op::BrINeImm { .. }
                    )),
                    "{text}{ops:?}"
                );
                for x in XS {
                    let r = if op == "irem" {
                        x.wrapping_rem(k)
                    } else {
                        x & k
                    };
                    let holds = (r == 0) == (cc == "eq");
                    assert_eq!(run(&text, x), if holds { 10 } else { 20 }, "{text}x = {x}");
                }
            }
        }
    }
}

#[test]
fn a_remainder_used_elsewhere_or_compared_with_non_zero_is_not_fused() {
    let shared = masked_branch("irem", 4, "eq", false, true);
    assert!(ops_of(&shared)
        .iter()
        .any(|o| matches!(o, Op::IRemPow2 { .. })));
    let odd_divisor = masked_branch("irem", 6, "eq", false, false);
    assert!(!ops_of(&odd_divisor)
        .iter()
        .any(|o| matches!(o, Op::BrMaskZero { .. } | Op::BrMaskNonZero { .. })));
    let lt = masked_branch("irem", 4, "lt", false, false);
    assert!(!ops_of(&lt)
        .iter()
        .any(|o| matches!(o, Op::BrMaskZero { .. } | Op::BrMaskNonZero { .. })));
    for x in XS {
        assert_eq!(
            run(&odd_divisor, x),
            if x.wrapping_rem(6) == 0 { 10 } else { 20 }
        );
        assert_eq!(run(&lt, x), if x.wrapping_rem(4) < 0 { 10 } else { 20 });
    }
}
