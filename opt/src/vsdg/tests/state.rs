//! T9 (digest §6.5; Lawrence §2.6.7 rule 5, App. B.4): stateful operations
//! keep their order and their path, with a program's globals and a host
//! function as the memory and the call.

use crate::canon::{canonicalize, check_canonical};
use crate::ir::{parse_program, print_function, verify_function, FuncId, Function};

use super::super::round_trip;
use super::{assignments, same_and_no_worse, show, static_copies};

/// `store(p,1); store(q,2); let y = load(p); if c { f() }; y + load(q)`.
const T9: &str = "global g0 \"p\": int
global g1 \"q\": int
host h0 \"f\"() -> void

fn fn0 \"t9\"(bool) -> int {
block0(v0: bool):
    v1: int = iconst 1
    global_set g0, v1 @100:1
    v2: int = iconst 2
    global_set g1, v2 @101:1
    v3: int = global_get g0 @102:1
    br v0, block1, block2
block1:
    host_call h0 \"f\"() @103:1
    jump block2
block2:
    v4: int = global_get g1 @104:1
    v5: int = iadd v3, v4
    return v5
}
";

/// Round-trips function 0 of `text` and checks it against its program.
fn trip_program(text: &str) -> (Function, Function) {
    let mut p = parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let id = FuncId::from_u32(0);
    canonicalize(&mut p.funcs[id]);
    let before = p.funcs[id].clone();
    round_trip(&mut p.funcs[id]).unwrap_or_else(|e| panic!("{e}"));
    verify_function(&p, id).unwrap_or_else(|e| panic!("{e:?}\n{}", print_function(&p, id)));
    check_canonical(&p.funcs[id]).unwrap_or_else(|e| panic!("{e:?}"));
    (before, p.funcs[id].clone())
}

/// T9: both stores and the loads stay in order (the evaluator's call
/// changes the globals, so a read moved across it or above a store gives
/// another sum); the call runs only when `c`; nothing runs twice; one
/// static copy of each.
#[test]
fn t9_state_order_is_kept() {
    let (before, after) = trip_program(T9);
    for args in assignments(1, &[]) {
        let (b, a) = same_and_no_worse(&before, &after, &args);
        let c = args[0] == 1;
        assert_eq!(a.result, Ok(if c { 13 } else { 3 }), "{}", show(&after));
        let want = ["set g0 1", "set g1 2", "call h0"];
        assert_eq!(a.effects, want[..2 + c as usize], "{}", show(&after));
        assert_eq!(b.effects, a.effects);
        assert_eq!(a.evals.get(&103).copied().unwrap_or(0), c as usize);
        for line in [100, 101, 102, 104] {
            assert!(a.evals.get(&line).copied().unwrap_or(0) <= 1);
        }
    }
    for line in 100..=104 {
        assert!(static_copies(&after, line) <= 1, "{}", show(&after));
    }
}
