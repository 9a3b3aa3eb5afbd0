//! Analyses over Waddle IR functions: the control-flow graph ([`cfg`]) and the
//! dominator tree ([`domtree`]).
//!
//! All are computed from scratch here; the optimizer keeps its own copies
//! correct across mutations ([`crate::editor`], Fritz ch. 5–8) and the
//! checker recomputes them here to compare.

pub(crate) mod adjacency;
pub mod callgraph;
pub mod cfg;
pub mod domtree;
pub mod gc_slots;
pub mod loops;

pub use cfg::ControlFlowGraph;
pub use domtree::DomTree;
