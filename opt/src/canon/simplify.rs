//! Loop-simplified form by edge set splitting (Fritz §7.3, §7.4).
//!
//! Splitting a set of edges `E` that share a target `b'` inserts an empty
//! block `b''` whose parameters mirror `b'`'s and which forwards them to
//! `b'`; the edges of `E` are redirected to `b''` with their arguments
//! unchanged (Fig. 7.32). The new block belongs to the innermost loop common
//! to the sources and the target, except that a split of the edges entering
//! a header from outside puts it outside that header's loop (§7.3). The
//! loop nesting structure itself never changes, so the forest computed once
//! stays valid when the new blocks are recorded in it.
//!
//! Each loop is repaired in turn, inner loops first:
//! - Property 4.3.2 (§7.4.2): the edges entering the header from outside are
//!   split unless they come from a single block ending in a plain jump to
//!   the header; a header that is the entry block gets a new entry block.
//! - Property 4.3.1 (§7.4.1): the backedges are split unless there is
//!   exactly one (one latch block with one edge to the header).
//! - Property 4.3.3 (§7.4.3): for every exit with a predecessor outside the
//!   loop, the edges from inside the loop are split.

use cranelift_entity::{EntitySet, SecondaryMap};

use crate::analysis::loops::{Loop, LoopForest};
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{Block, BlockCall, BlockData, Function, Terminator, ValueData, ValueDef};

/// Removes the blocks that cannot be reached from the entry (per `dom`,
/// computed on `func`) from the layout. Returns whether any was removed.
pub(super) fn remove_unreachable(func: &mut Function, dom: &DomTree) -> bool {
    let before = func.layout.len();
    func.layout.retain(|&b| dom.is_reachable(b));
    func.layout.len() != before
}

/// The function being edited with the CFG predecessors and the loop forest
/// kept up to date across splits.
struct Editor<'f> {
    func: &'f mut Function,
    preds: SecondaryMap<Block, Vec<Block>>,
    forest: LoopForest,
}

/// Gives every loop of `func` a dedicated preheader, a single latch and
/// dedicated exits. `func` must have no unreachable blocks; `cfg` and
/// `forest` are its analyses (a reducible forest: an irreducible cycle is
/// no loop and is left alone). Returns whether `func` changed, which
/// invalidates the analyses.
pub(super) fn simplify_loops(
    func: &mut Function,
    cfg: &ControlFlowGraph,
    forest: &LoopForest,
) -> bool {
    if forest.is_empty() {
        return false;
    }
    let before = func.blocks.len();
    let mut preds = SecondaryMap::new();
    preds.resize(func.blocks.len());
    for &b in &func.layout {
        preds[b] = cfg.preds(b).to_vec();
    }
    let mut ed = Editor {
        func,
        preds,
        forest: forest.clone(),
    };
    let loops: Vec<Loop> = ed.forest.loops().collect();
    for l in loops {
        ed.dedicate_preheader(l);
        ed.unique_latch(l);
        ed.dedicate_exits(l);
    }
    // Every repair adds a block ([`Editor::mirror_block`]).
    ed.func.blocks.len() != before
}

impl Editor<'_> {
    /// Property 4.3.2.
    fn dedicate_preheader(&mut self, l: Loop) {
        let h = self.forest.header(l);
        if h == self.func.layout[0] {
            self.new_entry(h);
            return;
        }
        let outside: Vec<Block> = self.preds[h]
            .iter()
            .copied()
            .filter(|&p| !self.forest.contains(l, p))
            .collect();
        let dedicated = match outside.as_slice() {
            [p] => is_plain_jump(&self.func.blocks[*p].term, h),
            _ => false,
        };
        if dedicated || outside.is_empty() {
            return;
        }
        let mut lp = self.forest.parent(l);
        for &p in &outside {
            lp = self.forest.nca(lp, self.forest.innermost(p));
        }
        let x = self.split_edges(&outside, h, lp);
        self.move_before(x, h);
    }

    /// Property 4.3.1.
    fn unique_latch(&mut self, l: Loop) {
        let h = self.forest.header(l);
        let latches: Vec<Block> = self.preds[h]
            .iter()
            .copied()
            .filter(|&p| self.forest.contains(l, p))
            .collect();
        let unique = match latches.as_slice() {
            [p] => edge_count(&self.func.blocks[*p].term, h) == 1,
            _ => false,
        };
        if unique || latches.is_empty() {
            return;
        }
        let last = latches
            .iter()
            .copied()
            .max_by_key(|&b| self.layout_pos(b))
            .unwrap_or(h);
        let x = self.split_edges(&latches, h, Some(l));
        self.move_after(x, last);
    }

    /// Property 4.3.3.
    fn dedicate_exits(&mut self, l: Loop) {
        let body = self.forest.body(l).to_vec();
        let mut exits = Vec::new();
        for &b in &body {
            for call in self.func.blocks[b].term.successors() {
                let s = call.block;
                if !self.forest.contains(l, s) && !exits.contains(&s) {
                    exits.push(s);
                }
            }
        }
        for e in exits {
            let inside: Vec<Block> = self.preds[e]
                .iter()
                .copied()
                .filter(|&p| self.forest.contains(l, p))
                .collect();
            if inside.len() == self.preds[e].len() {
                continue;
            }
            let mut lp = self.forest.innermost(e);
            for &p in &inside {
                lp = self.forest.nca(lp, self.forest.innermost(p));
            }
            let x = self.split_edges(&inside, e, lp);
            self.move_before(x, e);
        }
    }

    /// Makes a new entry block that jumps to the old one (a loop header),
    /// forwarding the function's parameters (§7.4.2, second case).
    fn new_entry(&mut self, old: Block) {
        let x = self.mirror_block(old);
        self.func.layout.retain(|&b| b != x);
        self.func.layout.insert(0, x);
        self.preds[old].push(x);
        self.forest.insert_block(x, None);
    }

    /// Position of `b` in the layout (the end if absent).
    fn layout_pos(&self, b: Block) -> usize {
        let layout = &self.func.layout;
        layout.iter().position(|&x| x == b).unwrap_or(layout.len())
    }

    /// Moves block `x` to just before `anchor` in the layout (print order).
    fn move_before(&mut self, x: Block, anchor: Block) {
        self.func.layout.retain(|&b| b != x);
        let at = self.layout_pos(anchor);
        self.func.layout.insert(at, x);
    }

    /// Moves block `x` to just after `anchor` in the layout.
    fn move_after(&mut self, x: Block, anchor: Block) {
        self.func.layout.retain(|&b| b != x);
        let at = (self.layout_pos(anchor) + 1).min(self.func.layout.len());
        self.func.layout.insert(at, x);
    }

    /// Splits the edges from `sources` to `target` (Fig. 7.32): a new block
    /// in loop `lp` (appended to the layout) receives them and jumps to
    /// `target`.
    fn split_edges(&mut self, sources: &[Block], target: Block, lp: Option<Loop>) -> Block {
        let x = self.mirror_block(target);
        let mut moved = EntitySet::<Block>::new();
        for &s in sources {
            moved.insert(s);
            for call in self.func.blocks[s].term.successors_mut() {
                if call.block == target {
                    call.block = x;
                }
            }
        }
        self.preds[target].retain(|&p| !moved.contains(p));
        self.preds[target].push(x);
        self.preds[x] = sources.to_vec();
        self.forest.insert_block(x, lp);
        x
    }

    /// A new block (appended to the layout) with parameters of the same
    /// types as `target`'s that jumps to `target` forwarding them.
    fn mirror_block(&mut self, target: Block) -> Block {
        let x = self.func.blocks.push(BlockData {
            params: Vec::new(),
            insts: Vec::new(),
            term: Terminator::Return(None),
        });
        let tys: Vec<_> = self.func.blocks[target]
            .params
            .iter()
            .map(|&p| self.func.values[p].ty)
            .collect();
        let params: Vec<_> = tys
            .into_iter()
            .enumerate()
            .map(|(i, ty)| {
                self.func.values.push(ValueData {
                    ty,
                    def: ValueDef::Param(x, i as u32),
                })
            })
            .collect();
        self.func.blocks[x].params = params.clone();
        self.func.blocks[x].term = Terminator::jump(BlockCall::new(target, params));
        self.func.layout.push(x);
        x
    }
}

/// Whether `term` is an unconditional jump to `target`.
pub(super) fn is_plain_jump(term: &Terminator, target: Block) -> bool {
    matches!(term, Terminator::Switch { value: None, cases, default } if cases.is_empty() && default.block == target)
}

/// How many edges of `term` go to `target`.
pub(super) fn edge_count(term: &Terminator, target: Block) -> usize {
    term.successors().filter(|c| c.block == target).count()
}
