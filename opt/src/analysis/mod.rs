//! Analyses over Waddle IR functions: the control-flow graph ([`cfg`]) and the
//! dominator tree ([`domtree`]).
//!
//! Both are computed from scratch here; the optimizer keeps them correct
//! across mutations (Fritz ch. 5) and the verifier recomputes them to check.

pub mod cfg;
pub mod domtree;
pub mod loops;

pub use cfg::ControlFlowGraph;
pub use domtree::DomTree;
