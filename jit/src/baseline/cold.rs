//! Out-of-line paths of a function: trap records, trap propagation after
//! calls, fuel refills. The generators request a label for a path while
//! emitting the hot code and emit all paths after the function body, each
//! kind once per (code, location).

use std::collections::HashMap;

use waddle_opt::abi::TrapCode;
use waddle_opt::ir::SrcLoc;

/// One out-of-line path.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Cold<L> {
    /// Record `code` at `loc` and leave through the exit.
    Trap {
        /// The path's label.
        label: L,
        /// The trap.
        code: TrapCode,
        /// Where it points.
        loc: SrcLoc,
    },
    /// A call recorded a trap: set `loc` unless a location is set, leave.
    Propagate {
        /// The path's label.
        label: L,
        /// The caller's location.
        loc: SrcLoc,
    },
    /// The fuel batch is empty: call the fuel helper, leave on a trap
    /// (pointing at `loc`, or at the caller when `None`), else resume.
    Fuel {
        /// The path's label.
        label: L,
        /// Where to continue.
        resume: L,
        /// Where an `out of fuel` trap points.
        loc: Option<SrcLoc>,
    },
    /// A tiering counter ran out: tell the host, re-arm, resume.
    Counter {
        /// The path's label.
        label: L,
        /// Where to continue.
        resume: L,
        /// The function's id.
        func: u32,
        /// Whether it counts back edges (else calls).
        back_edge: bool,
        /// The counter's address.
        cell: usize,
    },
    /// The back-edge counter of a loop header ran out in code whose host
    /// may continue the activation at the header on a higher tier
    /// ([`crate::helpers::Helper::LoopTierUp`]): resume, or return its
    /// result, or leave with its trap.
    LoopCounter {
        /// The path's label.
        label: L,
        /// Where to continue when the activation stays.
        resume: L,
        /// The function's id.
        func: u32,
        /// The loop header.
        header: u32,
        /// The counter's address.
        cell: usize,
    },
}

/// The out-of-line paths requested so far for one function.
pub(crate) struct ColdPaths<L> {
    /// In request order.
    pub list: Vec<Cold<L>>,
    traps: HashMap<(u32, SrcLoc), L>,
    propagates: HashMap<SrcLoc, L>,
}

impl<L: Copy> ColdPaths<L> {
    /// No paths.
    pub fn new() -> Self {
        ColdPaths {
            list: Vec::new(),
            traps: HashMap::new(),
            propagates: HashMap::new(),
        }
    }

    /// The label of the path raising `code` at `loc`.
    pub fn trap(&mut self, code: TrapCode, loc: SrcLoc, new: impl FnOnce() -> L) -> L {
        *self.traps.entry((code as u32, loc)).or_insert_with(|| {
            let label = new();
            self.list.push(Cold::Trap { label, code, loc });
            label
        })
    }

    /// The label of the path propagating a callee's trap with location `loc`.
    pub fn propagate(&mut self, loc: SrcLoc, new: impl FnOnce() -> L) -> L {
        *self.propagates.entry(loc).or_insert_with(|| {
            let label = new();
            self.list.push(Cold::Propagate { label, loc });
            label
        })
    }

    /// A fresh fuel-refill path resuming at `resume`.
    pub fn fuel(&mut self, resume: L, loc: Option<SrcLoc>, label: L) -> L {
        self.list.push(Cold::Fuel { label, resume, loc });
        label
    }
}
