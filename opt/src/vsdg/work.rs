//! A count of the round trip's elementary steps, for the compile-time
//! scaling check (issue 11: near-linear growth on functions of 100 to
//! 10 000 blocks). The steps counted are the ones whose number is not
//! obviously linear in the function's size: walks up the region tree
//! (`lca`, `is_within`, the sequentializer's `child_of`), recursive
//! placement (`sink`), the postdominator fixpoint, and one per lifted block
//! and per emitted item. The counter is per thread, so tests running in
//! parallel do not disturb each other.

use std::cell::Cell;

thread_local! {
    static STEPS: Cell<u64> = const { Cell::new(0) };
}

/// Counts `n` steps.
#[inline]
pub(crate) fn tick(n: u64) {
    STEPS.with(|s| s.set(s.get().wrapping_add(n)));
}

/// Steps counted on this thread so far.
pub fn steps() -> u64 {
    STEPS.with(Cell::get)
}
