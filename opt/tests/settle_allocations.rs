//! Settling a large function after its passes (issue 12, `--scaling
//! locals`). The pipeline replaced every optimized function by a copy of
//! itself, which is right for many small functions (their arenas must not
//! stay behind as islands among freed scratch) but, on one function of
//! 1 000 000 statements, copied its whole arenas into freshly mapped pages:
//! about 15 % of the page faults of `waddle run`. A function whose arenas
//! reach `Function::SETTLE_COPY_LIMIT` is shrunk in place instead. The work
//! is counted, not timed: fresh allocations while settling.
//!
//! This file is its own test binary because it installs a counting global
//! allocator; the count is per thread, so the harness's other threads do
//! not disturb it.

use waddle_opt::ir::{parse_program, FuncId, Function};

#[path = "alloc/counting.rs"]
mod counting;

// Fresh allocations only: `realloc` (shrinking in place) is not one.
use counting::allocations;

/// One block of `n` chained additions: a straight-line function like
/// `--scaling locals`.
fn function(n: usize) -> Function {
    let mut s = String::from("fn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n");
    for k in 1..=n {
        s += &format!("    v{k}: int = iadd v{}, v0\n", k - 1);
    }
    s += &format!("    return v{n}\n}}\n");
    let p = parse_program(&s).expect("the function parses");
    p.funcs[FuncId::from_u32(0)].clone()
}

/// Fresh allocations made by settling `f`, and `f`'s block lists after.
fn settle(mut f: Function) -> (u64, Function) {
    let before = allocations();
    f.settle();
    (allocations() - before, f)
}

#[test]
fn a_large_function_is_settled_in_place() {
    let (made, f) = settle(function(20_000));
    assert_eq!(made, 0, "settling a large function copied it");
    for &b in f.layout() {
        let data = &f.blocks()[b];
        assert_eq!(data.insts.capacity(), data.insts.len());
    }
    assert_eq!(f.inst_count(), 20_001, "the instructions and the return");
}

#[test]
fn a_small_function_is_settled_by_a_copy() {
    let (made, f) = settle(function(20));
    assert!(made >= 4, "a small function is copied ({made} allocations)");
    assert_eq!(f.inst_count(), 21);
}
