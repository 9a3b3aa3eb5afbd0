//! The VSDG tier (T3): canonical Waddle IR → regionalized value state
//! dependence graph → canonical Waddle IR.
//!
//! After Lawrence, *Optimizing compilation with the Value State Dependence
//! Graph* (UCAM-CL-TR-705, 2007; digest `seeds/digests/vsdg.md`). The
//! thesis (Abstract, ch. 8) is that control flow can be thrown away and
//! rebuilt from the dataflow alone. One module per phase:
//!
//! | module | phase | report |
//! | --- | --- | --- |
//! | [`graph`] | node and region arenas, ports, tails | §2.6 |
//! | [`build`] | the canonicalizing constructor: hash-consing, folding, `γ(p,x,x)→x` | §2.7.3, §3.2.3 |
//! | [`lift`] | Waddle IR → VSDG: γ from postdominators, θ from the loop forest, one state | §2.2, App. B.4 |
//! | `split` | at lift time: predicate normalization, γ-tupling, node distribution | Fig 3.6, ch. 7 |
//! | [`dne`] | dead node elimination | §2.7.2 |
//! | [`seq`] | sequentialization: call-by-need placement, emission | ch. 3, §6.2 |
//! | [`sched`] | node scheduling under register pressure (depth-first, cloning) | ch. 6, §6.4 |
//! | [`tails`] | tail sharing (cross-jumping) of the emitted code | §3.2.2, §3.4.2, §6.2.2 |
//! | [`dot`] | Graphviz rendering, regions as clusters | |
//!
//! [`round_trip`] runs lift → sequentialize on one function; the `vsdg`
//! pass of [`crate::passes`] wraps it, and the `-O3` pipeline (tier T3,
//! `--tier full`) runs it after the `-O1` passes, followed by the `-O1`
//! cleanup. A function the lifter cannot represent (irreducible control
//! flow, too much tail duplication) is left unchanged, as tier T2 made it.

pub mod build;
pub mod dne;
pub mod dot;
pub mod graph;
pub mod lift;
pub mod sched;
pub mod seq;
mod split;
pub mod tails;
pub mod work;

pub use graph::{Graph, Node, Op, Port, Region, Sort, Tail};
pub use lift::lift;
pub use seq::sequentialize;

use std::fmt;

use crate::ir::Function;

/// Why a function cannot take the VSDG round trip; it stays on tier T2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// What the lifter or sequentializer met.
    pub reason: String,
}

impl Unsupported {
    /// An error with this reason.
    pub fn new(reason: impl Into<String>) -> Unsupported {
        Unsupported {
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not lifted to the VSDG: {}", self.reason)
    }
}

impl std::error::Error for Unsupported {}

/// Lifts canonical `func` into a VSDG and sequentializes it back, replacing
/// `func` with the canonical result. On [`Unsupported`], `func` is left
/// unchanged.
pub fn round_trip(func: &mut Function) -> Result<(), Unsupported> {
    round_trip_with(func, sched::REGISTERS)
}

/// [`round_trip`] with the scheduler fitting each region's live values in
/// `registers` registers instead of [`sched::REGISTERS`].
pub fn round_trip_with(func: &mut Function, registers: usize) -> Result<(), Unsupported> {
    let g = lift(func)?;
    let out = seq::sequentialize_with(&g, &func.name, &func.sig, func.loc, registers)?;
    *func = out;
    Ok(())
}

#[cfg(test)]
mod tests;
