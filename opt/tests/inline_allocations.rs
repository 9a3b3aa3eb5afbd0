//! Heap allocations of inlining (issue 12, `--scaling funcs`). On a
//! program of many small functions the allocator was a third of `-O2`, and
//! its share grew with the heap: each allocation that the thread cache
//! cannot serve takes a fragment from free lists spread over the whole
//! heap. Splicing a callee allocated a list per copied instruction (to
//! walk its operands while use lists change) and grew its value map by
//! doubling. The work is counted, not timed: allocations while inlining a
//! one-block callee of `n` instructions, which must not grow with `n`
//! beyond the doublings of the caller's own arenas and use lists.
//!
//! This file is its own test binary because it installs a counting global
//! allocator; the count is per thread, so the harness's other threads do
//! not disturb it.

use waddle_opt::canon::canonicalize;
use waddle_opt::editor::Editor;
use waddle_opt::ir::{parse_program, FuncId, InstKind};

#[path = "alloc/counting.rs"]
mod counting;

/// Allocations and reallocations of this thread so far.
fn allocations() -> u64 {
    counting::allocations() + counting::reallocations()
}

/// A caller of `g`, whose one block adds `n` independent sums of its
/// parameter (each a fresh value with one use: no use list of the callee
/// grows with `n` except the parameter's, which becomes the argument's).
fn program(n: usize) -> String {
    let mut s = String::from("fn fn0 \"g\"(int) -> int {\nblock0(v0: int):\n");
    let mut last = 0;
    for k in 1..=n {
        s += &format!("    v{k}: int = iadd v{last}, v{last}\n");
        last = k;
    }
    s += &format!(
        "    return v{last}\n}}\n\
         fn fn1 \"f\"(int) -> int {{\nblock0(v0: int):\n    v1: int = call fn0 \"g\"(v0)\n    \
         return v1\n}}\n"
    );
    s
}

/// Allocations made by inlining the call of `f` to a callee of `n`
/// instructions.
fn inline_allocations(n: usize) -> u64 {
    let mut p = parse_program(&program(n)).expect("the program parses");
    let mut callee = p.funcs[FuncId::from_u32(0)].clone();
    assert!(canonicalize(&mut callee));
    let f = &mut p.funcs[FuncId::from_u32(1)];
    assert!(canonicalize(f));
    let mut ed = Editor::new(f);
    ed.set_checking(false);
    let call = ed
        .blocks()
        .into_iter()
        .flat_map(|b| ed.insts(b).to_vec())
        .find(|&i| matches!(ed.inst(i).kind, InstKind::Call(..)))
        .expect("f calls g");
    let before = allocations();
    assert!(ed.inline_call(call, &callee));
    let made = allocations() - before;
    assert_eq!(ed.func().inst_count(), n + 1, "every instruction inlined");
    made
}

#[test]
fn splicing_a_callee_allocates_no_list_per_instruction() {
    let small = inline_allocations(64);
    let large = inline_allocations(1024);
    // Sixteen times the instructions: the caller's arenas, block list and
    // use lists grow by doubling (a few reallocations each, a dozen in
    // all); a list per instruction or a map grown one doubling at a time
    // makes it hundreds.
    assert!(
        large <= small + 24,
        "inlining 1024 instructions made {large} allocations, 64 made {small}"
    );
}
