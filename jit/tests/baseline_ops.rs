//! Baseline (T1) code against the interpreter: arithmetic, floats, control flow,
//! calls, globals, every trap.

mod baseline_support;
mod common;

use baseline_support::check_same;
use common::HostSetup;
use waddle_opt::abi::{Trap, TrapCode};
use waddle_opt::ir::SrcLoc;

include!("suites/ops.rs");
