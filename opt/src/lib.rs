//! Waddle IR and everything that works on it without generating machine code.
//!
//! - [`ir`]: the data model (Fritz ch. 3, extended with `float`, `str`, arrays,
//!   globals and intrinsics), builder, text format and verifier.
//! - [`analysis`]: control-flow graph and dominator tree.
//! - [`abi`]: the data layouts that the runtime and every tier agree on.
//! - [`interp`]: the reference interpreter, the meaning of the IR.
//! - [`osr`]: on-stack replacement entries (a function entered at a loop header).
//! - [`canon`]: establishing canonical form (loop-simplified, LCSSA).
//! - [`editor`]: the always-canonical editor: maintained dominator tree,
//!   loop forest and use lists, repaired locally by mutation primitives
//!   (Fritz ch. 6–9), with a from-scratch checker.
//! - [`passes`]: optimization passes and per-level pipelines.
//! - [`vsdg`]: the VSDG round trip of tier T3 (Lawrence 2007).
//! - [`validate`]: translation validation of optimizations (Govereau 2012).

pub mod abi;
pub mod analysis;
pub mod canon;
pub mod editor;
pub mod interp;
pub mod ir;
pub mod magic;
pub mod osr;
pub mod passes;
pub mod validate;
pub mod vsdg;
