//! Test support shared by the tests of every Waddle crate (not published).
//!
//! - [`host`]: [`TestHost`], the one test implementation of the
//!   interpreter's and compiled code's [`waddle_opt::interp::Host`]: heap
//!   objects in the `abi` layouts, captured output, fuel, allocation limits,
//!   a record of GC roots, and a poisoning collector.
//! - [`tiers`] (feature `jit`): running a program on the interpreter and on
//!   every native tier with identical fresh hosts and comparing outcomes.

pub mod host;
#[cfg(feature = "jit")]
pub mod tiers;

pub use host::TestHost;
