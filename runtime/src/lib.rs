//! The Waddle runtime: embedding API, heap with garbage collector, builtins,
//! runtime errors, the CLI driver and the REPL.

pub mod driver;
