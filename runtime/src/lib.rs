//! The Waddle runtime: embedding API, heap with garbage collector, builtins,
//! runtime errors, and the driver that runs a whole program. The command
//! line, REPL and benchmark harness live in the `waddle-cli` crate.
//!
//! Embedding in short:
//! ```
//! use waddle::{Engine, Val};
//! let mut engine = Engine::new();
//! engine.eval("fn add(a: int, b: int) -> int { return a + b; }").unwrap();
//! let sum: i64 = engine.call_typed("add", (1i64, 2i64)).unwrap();
//! assert_eq!(sum, 3);
//! assert_eq!(engine.call("add", &[Val::Int(2), Val::Int(3)]).unwrap(), Val::Int(5));
//! ```

#![warn(missing_docs)]

#[cfg(feature = "cross")]
pub mod cross;
pub mod driver;
pub mod engine;
pub mod error;
pub mod format;
pub mod heap;
pub mod host;
pub mod hostfn;
pub mod output;

pub use driver::{run_source, RunOptions, RunOutcome, Tier};
pub use engine::{Engine, EngineConfig, FunctionInfo, GlobalInfo, HostFunctionInfo, Val};
pub use error::{Error, RuntimeError};
pub use hostfn::{Caller, HostArg, HostResult, HostRet};
pub use output::OutputSink;
