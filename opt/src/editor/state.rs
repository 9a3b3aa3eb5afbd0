//! The analyses an [`Editor`](super::Editor) keeps with a function, and
//! their from-scratch construction and comparison (the checker).
//!
//! What is stored (Fritz ch. 6, the `(f, D, H_F, L_F, X_F)` signature):
//! - `preds`: CFG predecessors with multiplicity (one entry per edge);
//! - `D`: immediate dominators and dominator-tree children, plus DFS
//!   pre/post numbers for O(1) dominance queries. The numbers are repaired
//!   lazily: a structural primitive marks them stale, and queries then walk
//!   the tree upwards (O(depth)) until the next [`Editor::refresh_numbers`]
//!   (one O(n) numbering serves every query of a batch). This is the
//!   documented alternative to renumbering after each edit;
//! - `H_F` (loop parents) and `L_F` (innermost loop per block). A loop is
//!   identified by its header; latch and preheader are the two
//!   predecessors of the header (canonical form), and exits `X_F` are
//!   derived from the body on demand, so only `H_F`/`L_F` need repair;
//! - use lists: every operand occurrence of every value, and the block of
//!   every instruction (so the block defining a value is O(1)).
//!
//! [`Editor::refresh_numbers`]: super::Editor::refresh_numbers

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};

use crate::analysis::loops::LoopForest;
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{Block, Function, Inst, User, Value, ValueDef};

/// A loop of the maintained forest.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(u32);
entity_impl!(LoopId, "loop");

/// One loop of the maintained forest.
#[derive(Clone, Debug)]
pub(super) struct LoopData {
    pub(super) header: Block,
    pub(super) parent: Option<LoopId>,
    /// False once the loop was destroyed (its backedge deleted, unrolled...).
    pub(super) alive: bool,
}

const NONE: u32 = u32::MAX;

/// The uses of one value (see [`State::uses`]).
pub(super) type UseList = smallvec::SmallVec<[User; 2]>;

/// The predecessors or dominator-tree children of one block: inline up to
/// four (as large as a `Vec`), so the maintained analyses of a function of
/// a million blocks allocate nothing per block for them.
pub type BlockList = smallvec::SmallVec<[Block; 4]>;

/// The maintained analyses of one function.
#[derive(Clone, Debug, Default)]
pub(super) struct State {
    pub(super) in_layout: SecondaryMap<Block, bool>,
    pub(super) preds: SecondaryMap<Block, BlockList>,
    pub(super) idom: SecondaryMap<Block, PackedOption<Block>>,
    pub(super) children: SecondaryMap<Block, BlockList>,
    pub(super) pre: SecondaryMap<Block, u32>,
    pub(super) post: SecondaryMap<Block, u32>,
    pub(super) numbers_valid: bool,
    /// The dominator tree (`idom`, `children`, numbers) is out of date:
    /// set only inside a deferred batch ([`super::Editor::with_deferred_dominators`]),
    /// where primitives skip their dominator repairs; [`State::recompute_dom`]
    /// clears it.
    pub(super) dom_stale: bool,
    /// Work done on the dominator tree: blocks visited by `nca` walks,
    /// `dominates` walks and renumbering. Tests bound it to catch
    /// super-linear repairs without timing anything.
    pub(super) dom_steps: std::cell::Cell<u64>,
    /// Work done on the loop forest by ejection: blocks visited by walks
    /// of a claimed loop body ([`super::Editor::loop_steps`]).
    pub(super) loop_steps: std::cell::Cell<u64>,
    pub(super) loops: PrimaryMap<LoopId, LoopData>,
    pub(super) innermost: SecondaryMap<Block, PackedOption<LoopId>>,
    pub(super) header_of: SecondaryMap<Block, PackedOption<LoopId>>,
    /// Use lists inline up to two uses (most values have one or two), so
    /// building them allocates only for the few values used more often.
    pub(super) uses: SecondaryMap<Value, UseList>,
    pub(super) inst_block: SecondaryMap<Inst, PackedOption<Block>>,
}

impl State {
    /// Computes every analysis of `func` from scratch.
    pub(super) fn compute(func: &Function) -> State {
        if func.is_declaration() {
            return State::default();
        }
        let cfg = ControlFlowGraph::compute(func);
        let dom = DomTree::compute(func, &cfg);
        let forest = LoopForest::compute(func, &cfg, &dom);
        State::compute_with(func, &dom, &forest)
    }

    /// Computes every analysis of `func` from its dominator tree and loop
    /// forest (which must be `func`'s).
    pub(super) fn compute_with(func: &Function, dom: &DomTree, forest: &LoopForest) -> State {
        let mut s = State::default();
        if func.is_declaration() {
            return s;
        }
        // Every map sized once: growing them one index at a time (and
        // moving the per-block and per-value lists on each growth) was most
        // of an editor's set-up on small functions.
        let blocks = func.blocks.len();
        s.in_layout.resize(blocks);
        s.preds.resize(blocks);
        s.idom.resize(blocks);
        s.children.resize(blocks);
        s.pre.resize(blocks);
        s.post.resize(blocks);
        s.innermost.resize(blocks);
        s.header_of.resize(blocks);
        s.uses.resize(func.values.len());
        s.inst_block.resize(func.insts.len());
        for &b in &func.layout {
            s.in_layout[b] = true;
        }
        for &b in &func.layout {
            for call in func.blocks[b].term.successors() {
                s.preds[call.block].push(b);
            }
            for &i in &func.blocks[b].insts {
                s.inst_block[i] = b.into();
                func.insts[i]
                    .kind
                    .for_each_arg(|v| s.uses[v].push(User::Inst(i)));
            }
            func.blocks[b]
                .term
                .for_each_arg(|v| s.uses[v].push(User::Term(b)));
        }
        for &b in dom.rpo() {
            s.idom[b] = dom.idom(b).into();
            s.children[b] = BlockList::from_slice(dom.children(b));
        }
        let mut map = SecondaryMap::<crate::analysis::loops::Loop, PackedOption<LoopId>>::new();
        // Parents are created after children in the from-scratch forest, so
        // create ours in reverse to know the parent ids.
        let order: Vec<_> = forest.loops().collect();
        for &l in order.iter().rev() {
            let parent = forest.parent(l).and_then(|p| map[p].expand());
            let id = s.loops.push(LoopData {
                header: forest.header(l),
                parent,
                alive: true,
            });
            map[l] = id.into();
            s.header_of[forest.header(l)] = id.into();
        }
        for &b in &func.layout {
            s.innermost[b] = forest.innermost(b).and_then(|l| map[l].expand()).into();
        }
        s.renumber(func);
        s
    }

    /// Recomputes the dominator tree of `func` (whose layout must be
    /// compact) from scratch, numbered, and counts one step per block: the
    /// end of a deferred batch.
    pub(super) fn recompute_dom(&mut self, func: &Function) {
        let cfg = ControlFlowGraph::compute(func);
        let dom = DomTree::compute(func, &cfg);
        let blocks = func.blocks.len();
        self.idom.resize(blocks);
        self.children.resize(blocks);
        for b in func.blocks.keys() {
            self.idom[b] = None.into();
            self.children[b].clear();
        }
        for &b in dom.rpo() {
            self.idom[b] = dom.idom(b).into();
            self.children[b] = BlockList::from_slice(dom.children(b));
        }
        self.dom_steps
            .set(self.dom_steps.get() + dom.rpo().len() as u64);
        self.dom_stale = false;
        self.renumber(func);
    }

    /// Recomputes the DFS pre/post numbers of the dominator tree.
    pub(super) fn renumber(&mut self, func: &Function) {
        let Some(&entry) = func.layout.first() else {
            return;
        };
        let mut counter = 0u32;
        let mut steps = 0u64;
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        self.pre[entry] = counter;
        counter += 1;
        while let Some(top) = stack.last_mut() {
            let (b, i) = *top;
            steps += 1;
            if let Some(&c) = self.children[b].get(i) {
                top.1 += 1;
                self.pre[c] = counter;
                counter += 1;
                stack.push((c, 0));
            } else {
                self.post[b] = counter;
                counter += 1;
                stack.pop();
            }
        }
        self.numbers_valid = true;
        self.dom_steps.set(self.dom_steps.get() + steps);
    }

    /// Whether `a` dominates `b` (reflexive).
    pub(super) fn dominates(&self, a: Block, b: Block) -> bool {
        if self.numbers_valid {
            let (pa, pb) = (self.pre[a], self.pre[b]);
            return pa != NONE && pb != NONE && pa <= pb && self.post[b] <= self.post[a];
        }
        let mut cur = Some(b);
        while let Some(c) = cur {
            self.step();
            if c == a {
                return true;
            }
            cur = self.idom[c].expand();
        }
        false
    }

    /// Nearest common dominator of `a` and `b`. With stale numbers the
    /// two blocks walk up alternately, marking what they visit, so the cost
    /// is proportional to their distance to the answer, not to the depth.
    pub(super) fn nca(&self, a: Block, b: Block) -> Block {
        if self.numbers_valid {
            let mut cur = Some(a);
            while let Some(c) = cur {
                self.step();
                if self.dominates(c, b) {
                    return c;
                }
                cur = self.idom[c].expand();
            }
            return a;
        }
        let mut seen = rustc_hash::FxHashSet::default();
        let (mut ca, mut cb) = (Some(a), Some(b));
        while ca.is_some() || cb.is_some() {
            self.step();
            if let Some(x) = ca {
                if !seen.insert(x) {
                    return x;
                }
                ca = self.idom[x].expand();
            }
            if let Some(y) = cb {
                if !seen.insert(y) {
                    return y;
                }
                cb = self.idom[y].expand();
            }
        }
        a
    }

    /// Counts one unit of dominator-tree work.
    fn step(&self) {
        self.dom_steps.set(self.dom_steps.get() + 1);
    }

    /// Whether the edge `p -> b` is a backedge: `b` heads a live loop that
    /// contains `p` (in a reducible CFG exactly when `b` dominates `p`, but
    /// O(loop depth) instead of a walk up the dominator tree).
    pub(super) fn is_backedge(&self, p: Block, b: Block) -> bool {
        self.header_of[b]
            .expand()
            .is_some_and(|l| self.loops[l].alive && self.loop_contains(l, p))
    }

    /// Re-parents `b` under `new` in the dominator tree.
    pub(super) fn set_idom(&mut self, b: Block, new: Option<Block>) {
        if self.idom[b].expand() == new {
            return;
        }
        if let Some(old) = self.idom[b].expand() {
            self.children[old].retain(|c| *c != b);
        }
        self.idom[b] = new.into();
        if let Some(n) = new {
            self.children[n].push(b);
        }
        self.numbers_valid = false;
    }

    /// Whether loop `l` contains block `b` (directly or nested).
    pub(super) fn loop_contains(&self, l: LoopId, b: Block) -> bool {
        let mut cur = self.innermost[b].expand();
        while let Some(c) = cur {
            if c == l {
                return true;
            }
            cur = self.loops[c].parent;
        }
        false
    }

    /// Whether loop `l` (None = the phony root loop) contains `b`.
    pub(super) fn opt_loop_contains(&self, l: Option<LoopId>, b: Block) -> bool {
        l.is_none_or(|l| self.loop_contains(l, b))
    }

    /// Nearest common ancestor of two loops (None = the phony root).
    pub(super) fn loop_nca(&self, a: Option<LoopId>, b: Option<LoopId>) -> Option<LoopId> {
        let (a, b) = (a?, b?);
        let mut cur = Some(a);
        while let Some(c) = cur {
            if self.loop_within(b, c) {
                return Some(c);
            }
            cur = self.loops[c].parent;
        }
        None
    }

    /// Whether `inner` is `outer` or nested in it.
    pub(super) fn loop_within(&self, inner: LoopId, outer: LoopId) -> bool {
        let mut cur = Some(inner);
        while let Some(c) = cur {
            if c == outer {
                return true;
            }
            cur = self.loops[c].parent;
        }
        false
    }

    /// The block that defines `v`.
    pub(super) fn def_block(&self, func: &Function, v: Value) -> Option<Block> {
        match func.values[v].def {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Inst(i) => self.inst_block[i].expand(),
        }
    }
}

/// Compares maintained analyses with freshly computed ones; the first
/// difference, described.
pub(super) fn compare(func: &Function, kept: &State) -> Result<(), String> {
    let fresh = State::compute(func);
    let name = &func.name;
    for &b in &func.layout {
        if !kept.in_layout[b] {
            return Err(format!("{name}: {b} is in the layout but not marked"));
        }
        let mut a = kept.preds[b].clone();
        let mut c = fresh.preds[b].clone();
        a.sort();
        c.sort();
        if a != c {
            return Err(format!("{name}: preds of {b}: kept {a:?}, actual {c:?}"));
        }
        if !kept.dom_stale && kept.idom[b] != fresh.idom[b] {
            return Err(format!(
                "{name}: idom of {b}: kept {:?}, actual {:?}",
                kept.idom[b].expand(),
                fresh.idom[b].expand()
            ));
        }
        let kh = kept.innermost[b].expand().map(|l| kept.loops[l].header);
        let fh = fresh.innermost[b].expand().map(|l| fresh.loops[l].header);
        if kh != fh {
            return Err(format!(
                "{name}: innermost loop of {b}: kept header {kh:?}, actual {fh:?}"
            ));
        }
        let kl = kept.header_of[b].expand().filter(|&l| kept.loops[l].alive);
        let fl = fresh.header_of[b].expand();
        match (kl, fl) {
            (None, None) => {}
            (Some(k), Some(f)) => {
                let kp = kept.loops[k].parent.map(|p| kept.loops[p].header);
                let fp = fresh.loops[f].parent.map(|p| fresh.loops[p].header);
                if kp != fp {
                    return Err(format!(
                        "{name}: parent of the loop at {b}: kept header {kp:?}, actual {fp:?}"
                    ));
                }
            }
            _ => {
                return Err(format!(
                    "{name}: {b} heads a loop: kept {}, actual {}",
                    kl.is_some(),
                    fl.is_some()
                ))
            }
        }
        for &i in &func.blocks[b].insts {
            if kept.inst_block[i] != fresh.inst_block[i] {
                return Err(format!("{name}: block of {i} is stale"));
            }
        }
    }
    for (v, _) in func.values.iter() {
        let mut a = kept.uses.get(v).cloned().unwrap_or_default();
        let mut c = fresh.uses.get(v).cloned().unwrap_or_default();
        a.sort_by_key(user_key);
        c.sort_by_key(user_key);
        if a != c {
            return Err(format!("{name}: uses of {v}: kept {a:?}, actual {c:?}"));
        }
    }
    Ok(())
}

fn user_key(u: &User) -> (u8, u32) {
    use cranelift_entity::EntityRef;
    match *u {
        User::Inst(i) => (0, i.index() as u32),
        User::Term(b) => (1, b.index() as u32),
    }
}
