//! Waddle as a scripting engine for Rust applications: compile a script
//! once, run it in as many isolated stores as you like, on any thread, on
//! any of Waddle's tiers. The command line, REPL and benchmark harness
//! live in the `waddle-cli` crate and use only what this crate exports.
//!
//! The API is in wasmtime's shape:
//! - [`Engine`] ([`Config`]): tier policy, optimizer settings, registered
//!   host functions; `Clone + Send + Sync`, an `Arc` clone;
//! - [`Module`]: source compiled once (checked, optimized, machine code
//!   generated), shareable by any number of stores on any thread;
//! - [`Store`]: a heap, globals, output sink ([`OutputSink`]), fuel,
//!   interrupts and limits (`Send`), holding one [`Instance`] of a module;
//! - [`TypedFunc`]: a function checked once against Rust types
//!   ([`TypedParams`], [`TypedResult`]), then called without lookup or
//!   allocation; [`Instance::call`] for dynamic calls with [`Val`]s;
//! - host functions: [`Engine::register_fn`] with [`HostArg`] parameters
//!   and a [`HostResult`]; [`Caller`] gives them the store's data;
//! - values without copies: [`ArrayRef`] and [`StrRef`] handles into the
//!   store's heap;
//! - limits: [`Store::set_fuel`] (and [`TypedFunc::call_resumable`] to pause
//!   and resume), [`InterruptHandle`], [`Store::set_deadline`],
//!   [`Config::memory_limit`], [`Store::set_limiter`] with a [`ResourceLimiter`],
//!   [`Store::set_stack_limit`];
//! - errors: [`Error`] with [`Diagnostic`]s for compile errors and a
//!   [`RuntimeError`] ([`TrapCode`], [`Location`], stack trace of
//!   [`Frame`]s) for runtime errors;
//! - [`Session`]: entries compiled incrementally into one program in a
//!   store, with redefinitions and `eval` (what the REPL runs on).
//!
//! ```
//! use waddle::{Engine, Module, Store};
//! let engine = Engine::default();
//! let module = Module::new(&engine, "add.wdl", "fn add(a: int, b: int) -> int { return a + b; }")?;
//! let mut store = Store::new(&engine);
//! let instance = store.instantiate(&module)?;
//! let add = instance.typed_func::<(i64, i64), i64>(&store, "add")?;
//! assert_eq!(add.call(&mut store, (1, 2))?, 3);
//! # Ok::<(), waddle::Error>(())
//! ```
//!
//! A [`Session`] compiles entries incrementally into one program in a
//! store:
//! ```
//! use waddle::{Engine, Session, Val};
//! let mut session = Session::new(&Engine::default());
//! session.eval("fn add(a: int, b: int) -> int { return a + b; }").unwrap();
//! let sum: i64 = session.call_typed("add", (1i64, 2i64)).unwrap();
//! assert_eq!(sum, 3);
//! assert_eq!(session.call("add", &[Val::Int(2), Val::Int(3)]).unwrap(), Val::Int(5));
//! ```
//!
//! # Features
//! All off by default (the library then depends on no disassembler, no
//! AArch64 back end, and exports nothing but the API above):
//! - `disasm`: the disassemblers behind [`Session::function_asm`] (the
//!   REPL's `:asm`); without it that call is [`Error::MissingFeature`].
//! - `tooling`: the `tooling` module, entry points for Waddle's own tools
//!   (the CLI's `--emit`, the benchmark harness, the language test
//!   runner) that take or return Waddle IR or run whole programs the way
//!   `waddle run` does. Not part of the embedding API: it follows the
//!   compiler's internals.
//! - `cross` (implies `tooling`): the `cross` module, compiling whole
//!   programs for AArch64 and running them under qemu-aarch64
//!   (`waddle run --target aarch64`).
//!
//! Types that will grow (errors, values, tiers, the information structs)
//! are `#[non_exhaustive]`. The conversion traits ([`TypedParam`],
//! [`HostArg`], [`HeapElem`], ...) are sealed: their machinery is private,
//! so no IR or runtime type appears in the API.

#![warn(missing_docs)]

mod api;
#[cfg(feature = "cross")]
pub mod cross;
#[cfg(any(feature = "tooling", test))]
mod driver;
mod engine;
mod error;
mod format;
mod heap;
mod host;
mod hostfn;
mod output;
mod tier;
#[cfg(feature = "tooling")]
pub mod tooling;
mod types;

pub use api::{
    ArrayElem, ArrayRef, CallState, Config, Engine, HeapElem, Instance, InterruptHandle, Module,
    NumericElem, PausedCall, ResourceLimiter, Store, StrRef, TypedFunc, TypedParam, TypedParams,
    TypedResult, FUEL_BATCH, MAX_TYPED_PARAMS, MEMORY_PAGE,
};
pub use engine::{
    Args, FromVal, FunctionInfo, GlobalInfo, HostFunctionInfo, IntoVal, NativeCodeStats, PassLog,
    PassTrace, Session, TierEvent, TierHook, TierOptions, TierThresholds, Val, Validation,
    ValidationLog,
};
pub use error::{Diagnostic, Error, Frame, Location, RuntimeError, Severity};
pub use heap::HeapStats;
pub use hostfn::{Caller, HostArg, HostResult, HostRet, IntoHostFn, IntoHostFnWithCaller};
pub use output::OutputSink;
pub use tier::Tier;
pub use types::{FuncType, ValType};
pub use waddle_opt::abi::TrapCode;
