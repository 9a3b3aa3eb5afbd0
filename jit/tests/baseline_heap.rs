//! Baseline (T1) code against the interpreter: arrays, strings, heap traps,
//! deep and unbounded recursion, garbage collection with compiled frames,
//! host panics.

mod baseline_support;
mod common;

use baseline_support::{check_same, run_baseline as run_jit};
use common::{on_big_stack, parse, HostSetup, TestHost};
use waddle_jit::baseline::compile;
use waddle_jit::JitOptions;
use waddle_opt::abi::{Trap, TrapCode, Word};
use waddle_opt::interp::Host;
use waddle_opt::ir::{SrcLoc, Type};

include!("suites/heap.rs");
