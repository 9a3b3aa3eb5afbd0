//! The Waddle runtime: embedding API, heap with garbage collector, builtins,
//! runtime errors, and the driver that runs a whole program. The command
//! line, REPL and benchmark harness live in the `waddle-cli` crate.
//!
//! Embedding in short ([`api`] has the whole picture): compile a
//! [`Module`] once with an [`Engine`], instantiate it in a [`Store`] per
//! user or thread, and call its functions through [`TypedFunc`]s.
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
//! store (what the REPL does):
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
//! All off by default (the library then depends on no disassembler and no
//! AArch64 back end):
//! - `cross`: the `cross` module, compiling whole programs for AArch64 and running
//!   them under qemu-aarch64 (`waddle run --target aarch64`);
//! - `disasm`: the disassemblers behind [`Session::function_asm`] (the
//!   REPL's `:asm`); without it that call is [`Error::MissingFeature`].
//! - `tooling`: the compiler entry points of [`engine`] that take or return
//!   Waddle IR (`compile_source`, `optimize`, `print_program`, ...), for
//!   the CLI's `--emit` and benchmark harness.
//!
//! Types that will grow (errors, values, tiers, the information structs)
//! are `#[non_exhaustive]`; the heap and the host runtime are private.

#![warn(missing_docs)]

pub mod api;
#[cfg(feature = "cross")]
pub mod cross;
pub mod driver;
pub mod engine;
pub mod error;
pub mod format;
mod heap;
mod host;
pub mod hostfn;
pub mod output;
mod types;

pub use api::{
    ArrayElem, ArrayRef, CallState, Config, Engine, HeapElem, Instance, InterruptHandle, Module,
    NumericElem, PausedCall, ResourceLimiter, Store, StrRef, TypedFunc, TypedParam, TypedParams,
    TypedResult,
};
pub use driver::{run_source, RunOptions, RunOutcome, Tier};
pub use engine::{
    FunctionInfo, GlobalInfo, HostFunctionInfo, Session, TierEvent, TierHook, TierOptions,
    TierThresholds, Val,
};
pub use error::{Diagnostic, Error, Frame, Location, RuntimeError, Severity};
pub use heap::HeapStats;
pub use hostfn::{Caller, HostArg, HostResult, HostRet};
pub use output::OutputSink;
pub use types::{FuncType, ValType};
pub use waddle_opt::abi::TrapCode;
