//! Tests of the reference interpreter (`waddle_opt::interp`): every
//! instruction, every trap with its location, block-parameter moves, calls
//! and recursion depth, fuel, GC roots, and a no-panic property test on
//! random programs.

#[path = "../common/mod.rs"]
mod common;

mod build;
mod calls;
mod control;
mod heap;
mod ops;
mod random;
