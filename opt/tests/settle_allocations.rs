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

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use waddle_opt::ir::{parse_program, FuncId, Function};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the thread-local may already be gone while a thread exits.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every method forwards to `System` with the same arguments and
// only adds to a thread-local counter, which does not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract for `alloc`, passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with `layout` (every allocation
        // of this allocator is `System`'s).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    // `realloc` (shrinking in place) is not a fresh allocation: not counted.
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

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
