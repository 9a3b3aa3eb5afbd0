//! Compiled code against the interpreter: arrays, strings, heap traps,
//! deep and unbounded recursion, garbage collection with compiled frames,
//! host panics.

mod common;

use common::{check_same, on_big_stack, parse, run_jit, HostSetup, TestHost};
use waddle_jit::{cranelift::compile, JitOptions};
use waddle_opt::abi::{Trap, TrapCode, Word};
use waddle_opt::interp::Host;
use waddle_opt::ir::{SrcLoc, Type};

include!("suites/heap.rs");
