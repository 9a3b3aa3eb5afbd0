//! The arch-neutral plan of one function's baseline code: which blocks are
//! emitted and in what order, which edges are loop back edges (fuel), and
//! the frame layout (one 8-byte slot per SSA value plus a scratch area for
//! array-literal elements).
//!
//! The frame gives every SSA value of the function's value arena its own
//! word-sized slot, indexed by the value's number, so a value never moves
//! and every reference a frame holds is in memory at every call (the
//! conservative GC scan of [`crate::abi`] sees it).

use cranelift_entity::{EntityRef, SecondaryMap};
use waddle_opt::ir::{Block, Function, InstKind, Value, ValueDef};

/// What the code generator needs to know about a function before emitting it.
pub(crate) struct FuncPlan {
    /// Blocks reachable from the entry, in layout order (entry first).
    pub order: Vec<Block>,
    /// Layout position of every layout block (back-edge test), `u32::MAX`
    /// for blocks not in the layout.
    pub pos: SecondaryMap<Block, u32>,
    /// Number of value slots (the size of the value arena).
    pub slots: usize,
    /// Words of scratch space for array-literal elements.
    pub scratch: usize,
}

impl FuncPlan {
    /// Plans `func` (which must have a body).
    pub fn new(func: &Function) -> FuncPlan {
        let mut pos = SecondaryMap::with_default(u32::MAX);
        for (i, &b) in func.layout.iter().enumerate() {
            pos[b] = i as u32;
        }
        let mut reached: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut stack = Vec::new();
        let mut scratch = 0;
        if let Some(&entry) = func.layout.first() {
            reached[entry] = true;
            stack.push(entry);
        }
        while let Some(b) = stack.pop() {
            let data = &func.blocks[b];
            for &i in &data.insts {
                if let InstKind::ArrayLit(elems) = &func.inst(i).kind {
                    scratch = scratch.max(elems.len());
                }
            }
            for s in data.term.successors() {
                if pos[s.block] != u32::MAX && !reached[s.block] {
                    reached[s.block] = true;
                    stack.push(s.block);
                }
            }
        }
        let order = func
            .layout
            .iter()
            .copied()
            .filter(|&b| reached[b])
            .collect();
        FuncPlan {
            order,
            pos,
            slots: func.values.len(),
            scratch,
        }
    }

    /// Whether the edge `from → to` is a loop back edge for fuel purposes
    /// (the target is at the same or an earlier layout position, the
    /// interpreter's rule).
    pub fn is_back_edge(&self, from: Block, to: Block) -> bool {
        self.pos[to] <= self.pos[from]
    }

    /// Words of frame storage: the value slots, then the scratch area.
    pub fn frame_words(&self) -> usize {
        self.slots + self.scratch
    }
}

/// The integer constant `v` is defined as, if any.
pub(crate) fn int_const(func: &Function, v: Value) -> Option<i64> {
    match func.values.get(v)?.def {
        ValueDef::Inst(i) => match func.insts.get(i)?.kind {
            InstKind::IConst(k) => Some(k),
            _ => None,
        },
        ValueDef::Param(..) => None,
    }
}

/// The slot number of value `v`.
pub(crate) fn slot(v: Value) -> usize {
    v.index()
}
