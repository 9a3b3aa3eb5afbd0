//! The embedding API, in wasmtime's shape:
//!
//! - [`Engine`]: configuration and tier policy, shared by everything
//!   (`Clone + Send + Sync`);
//! - [`Module`]: source compiled once (IR optimized, machine code
//!   generated), shareable by any number of stores on any thread;
//! - [`Store`]: a heap, globals, output sink, fuel and interrupt state
//!   (`Send`), holding one [`Instance`] of a module;
//! - [`TypedFunc`]: a function checked once against Rust types, called
//!   without lookup or allocation;
//! - [`InterruptHandle`] and [`Store::set_deadline`]: stopping running
//!   code from outside.
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

mod engine;
mod func;
pub(crate) mod handle;
pub(crate) mod interrupt;
mod limits;
mod module;
pub(crate) mod resumable;
pub(crate) mod store;

pub use engine::{Config, Engine};
pub use func::{ArrayElem, TypedFunc, TypedParam, TypedParams, TypedResult, MAX_TYPED_PARAMS};
pub(crate) use handle::HeapElemImpl;
pub use handle::{ArrayRef, HeapElem, NumericElem, StrRef};
pub use interrupt::InterruptHandle;
pub use limits::{ResourceLimiter, MEMORY_PAGE};
pub use module::Module;
pub use resumable::{CallState, PausedCall, FUEL_BATCH};
pub use store::{Instance, Store};

#[cfg(test)]
mod tests {
    use super::*;

    fn send<T: Send>() {}
    fn sync<T: Sync>() {}

    /// The thread-safety promises of the API, checked at compile time.
    #[test]
    fn thread_safety_of_the_api_types() {
        send::<Engine>();
        sync::<Engine>();
        send::<Module>();
        sync::<Module>();
        send::<Store>();
        send::<Instance>();
        sync::<Instance>();
        send::<TypedFunc<(i64, i64), i64>>();
        sync::<TypedFunc<(i64, i64), i64>>();
        send::<InterruptHandle>();
        sync::<InterruptHandle>();
    }
}
