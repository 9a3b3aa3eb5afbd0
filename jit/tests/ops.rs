//! Compiled code against the interpreter: arithmetic, floats, control flow,
//! calls, globals, every trap.

mod common;

use common::{check_same, HostSetup};
use waddle_opt::abi::{Trap, TrapCode};
use waddle_opt::ir::SrcLoc;

include!("suites/ops.rs");
