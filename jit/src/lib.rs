//! Native code generation for Waddle IR.
//!
//! - [`abi`]: the calling convention every compiled tier shares (native
//!   arguments plus a `VmCtx`, entry slots, trap protocol, stack limit,
//!   fuel, GC roots).
//! - [`cranelift`]: the optimizing generator (tier T2), Waddle IR →
//!   Cranelift → machine code, and [`CompiledProgram`], which runs it.
//!
//! The baseline generator (T1) does not exist yet. [`available_tiers`] is
//! what the runtime routes to and stays empty until the runtime integrates
//! T2; [`built_tiers`] lists what this crate can already compile.

#![warn(missing_docs)]

pub mod abi;
pub mod baseline;
pub mod cranelift;
pub mod cross;
mod helpers;
mod program;

pub use cranelift::{compile, CompileError, CompileStats, FuncStats, JitOptions};
pub use program::CompiledProgram;

/// Native tiers this build can compile for the host, by `--tier` name.
pub fn available_tiers() -> &'static [&'static str] {
    &[]
}

/// Native tiers implemented by this crate, whether or not the runtime routes
/// to them yet.
pub fn built_tiers() -> &'static [&'static str] {
    &["opt"]
}
