//! Support code for the language test corpus (see `tests/` and the crate's
//! README): discovering corpus programs, reading their expectations, the
//! tier configurations every program runs on, and text diffs for reports.

#![forbid(unsafe_code)]

pub mod corpus;
pub mod cross;
pub mod diff;
pub mod difftest;
pub mod filetest;
pub mod fuzz;
pub mod gen;
pub mod tiers;
pub mod validate_gen;
