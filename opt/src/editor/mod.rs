//! The always-canonical editor: a function together with its maintained
//! analyses, changed only through mutation primitives that repair them
//! locally (Fritz ch. 6–8).
//!
//! Passes receive an [`Editor`], never a `&mut Function`: the function is a
//! private field, so the only way to change it is a primitive of this
//! module, and every primitive leaves the function in SSA, LCSSA and
//! loop-simplified form with a correct dominator tree, loop nesting forest
//! and use lists:
//!
//! - instruction edits ([`insts`]): insert, remove, move (hoist), replace
//!   all uses, drop a block parameter;
//! - control-flow edits ([`edges`]): if simplification with edge deletion
//!   and the Ramalingam–Reps dominator update (Fritz §8.2, §9.2), edge set
//!   splitting (§7.3) and the violation repairs built on it (§7.4);
//! - block ejection with dedicated-exit and LCSSA repair (§8.1, §7.2) in
//!   [`eject`], over SSA reconstruction (§7.1) in [`ssa`];
//! - loop duplication (§8.3) with unswitching (§9.5), unrolling (§9.6)
//!   and peeling (§9.7) in [`unswitch`], [`unroll`] and [`peel`];
//! - straightening (§9.1), jump simplification/threading of forwarding
//!   blocks (§9.3) and function inlining (§9.4) in [`blocks`].
//!
//! **Checking.** With [`Editor::set_checking`] (on by default in debug
//! builds and tests) every primitive ends by recomputing the CFG, dominator
//! tree, loop forest and use lists from scratch, comparing them with the
//! maintained ones and running [`crate::canon::check_canonical`]; the first
//! mismatch panics with the name of the primitive that caused it.
//!
//! **Rebuild mode.** [`Mode::Rebuild`] skips every local repair and instead
//! recomputes all analyses from scratch after each primitive; the benchmark
//! compares the two modes (Fritz §10.2).

mod blocks;
mod edges;
mod eject;
mod insts;
mod peel;
mod ssa;
mod state;
#[cfg(test)]
mod tests;
mod unroll;
mod unswitch;

pub use state::BlockList;
pub use state::LoopId;

use cranelift_entity::EntitySet;
use rustc_hash::FxHashSet;

use crate::ir::{
    Block, Function, Inst, InstData, InstKind, Terminator, Type, User, Value, ValueDef,
};
use state::State;

/// How analyses are kept up to date.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Local repair by each primitive (the always-canonical approach).
    Incremental,
    /// Recompute every analysis from scratch after each primitive (the
    /// baseline the benchmark compares against).
    Rebuild,
}

/// Counts of primitive applications, for reports and the benchmark.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Primitive applications that changed the function.
    pub edits: u64,
    /// Dominator trees recomputed from scratch after a batch deferred its
    /// repairs (0 while every repair stayed local).
    pub dom_recomputations: u64,
}

/// Largest function (in [`Function::inst_count`]) that debug builds
/// re-check from scratch after every primitive; [`Editor::set_checking`]
/// overrides it.
pub const DEBUG_CHECK_MAX_INSTS: usize = 20_000;

/// Dominator-repair steps per block a [`Editor::with_dominator_budget`]
/// batch spends locally before it defers the rest to one recomputation
/// (several passes over the tree's size: ordinary functions never reach it).
pub const BATCH_REPAIR_STEPS_PER_BLOCK: u64 = 8;

/// The smallest such budget, for tiny functions.
const BATCH_REPAIR_MIN_STEPS: u64 = 256;

/// Up to this many incoming edges, [`Editor::preds`] removes duplicates by
/// scanning its short list; past it, through a hash set.
const FEW_PREDS: usize = 16;

/// A function in canonical form with its maintained analyses.
pub struct Editor<'f> {
    func: &'f mut Function,
    st: State,
    mode: Mode,
    checking: bool,
    layout_dirty: bool,
    /// Inside [`Editor::with_deferred_dominators`]: primitives skip their
    /// dominator repairs and mark the tree stale.
    defer_dom: bool,
    /// Inside a batch: the dominator steps after which it defers.
    batch_limit: Option<u64>,
    stats: Stats,
}

impl<'f> Editor<'f> {
    /// Starts editing `func`, which must be canonical (run
    /// [`crate::canon::canonicalize`] first). Computes the analyses once.
    pub fn new(func: &'f mut Function) -> Editor<'f> {
        let st = State::compute(func);
        Editor::with_state(func, st)
    }

    /// [`Editor::new`] for a function [`crate::canon::canonicalize_keeping`]
    /// just returned, from the analyses it returned with it.
    pub(crate) fn with_analyses(
        func: &'f mut Function,
        analyses: &crate::canon::Analyses,
    ) -> Editor<'f> {
        let st = State::compute_with(func, &analyses.dom, &analyses.forest);
        Editor::with_state(func, st)
    }

    fn with_state(func: &'f mut Function, st: State) -> Editor<'f> {
        // The check after every primitive costs a from-scratch analysis, so
        // it is quadratic in the function's size: debug builds skip it on
        // huge functions (a 100 000-operand `||` chain would take hours).
        let checking = cfg!(debug_assertions) && func.inst_count() <= DEBUG_CHECK_MAX_INSTS;
        Editor {
            func,
            st,
            mode: Mode::Incremental,
            checking,
            layout_dirty: false,
            defer_dom: false,
            batch_limit: None,
            stats: Stats::default(),
        }
    }

    /// Chooses incremental repair or rebuild-after-each-primitive.
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
    }

    /// Turns the from-scratch checker after every primitive on or off.
    pub fn set_checking(&mut self, on: bool) {
        self.checking = on;
    }

    /// Primitive counts so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Blocks visited so far by the dominator-tree repairs (`nca` and
    /// `dominates` walks, renumbering): a work count that tests bound to
    /// catch super-linear behaviour without timing anything.
    pub fn dom_steps(&self) -> u64 {
        self.st.dom_steps.get()
    }

    /// Blocks visited so far by the loop forest's ejection walks (claimed
    /// loop bodies after an edge deletion): a work count like
    /// [`Editor::dom_steps`].
    pub fn loop_steps(&self) -> u64 {
        self.st.loop_steps.get()
    }

    /// Runs `f` with the dominator repairs of every primitive deferred to
    /// its end, where the tree is recomputed once (O(n)); the loop forest,
    /// predecessors and use lists stay maintained after each edit.
    ///
    /// For passes whose edits move many dominator children each: jump
    /// threading a long `&&` chain re-parents every threaded copy gathered
    /// so far at every step, Θ(n²) idom changes in all (the tree itself
    /// changes that much, so no local repair can be linear). Inside `f` the
    /// dominator tree must not be read: [`Editor::idom`],
    /// [`Editor::dom_children`], [`Editor::dominates`] and
    /// [`Editor::dom_preorder`] panic while it is stale. Primitives that
    /// need it themselves (ejection's LCSSA repair, loop transforms)
    /// recompute it first, so they stay correct, only slower.
    pub fn with_deferred_dominators<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.batch(0, f)
    }

    /// Runs `f` as a batch that repairs the dominator tree locally, as
    /// every primitive does, while the repairs cost at most
    /// [`BATCH_REPAIR_STEPS_PER_BLOCK`] steps per block of the function;
    /// past that budget the rest of the batch defers its repairs as in
    /// [`Editor::with_deferred_dominators`] and the tree is recomputed once
    /// at the end. Ordinary functions keep their tree repaired locally,
    /// never rebuilt; a long `&&` chain, whose tree changes Θ(n²) times,
    /// costs O(n). Inside `f` the tree must not be read either way.
    pub fn with_dominator_budget<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let budget = BATCH_REPAIR_STEPS_PER_BLOCK * self.func.blocks.len() as u64;
        self.batch(budget.max(BATCH_REPAIR_MIN_STEPS), f)
    }

    /// A batch that defers dominator repairs once they have cost `budget`
    /// steps (0: at once).
    fn batch<R>(&mut self, budget: u64, f: impl FnOnce(&mut Self) -> R) -> R {
        if self.batch_limit.is_some() {
            return f(self); // nested: the outer batch decides
        }
        if self.incremental() {
            self.batch_limit = Some(self.st.dom_steps.get() + budget);
            self.defer_dom = budget == 0;
        }
        let r = f(self);
        self.batch_limit = None;
        self.defer_dom = false;
        self.ensure_dom();
        if self.checking {
            self.finish_check("with_deferred_dominators");
        }
        r
    }

    /// Whether primitives repair the dominator tree (outside a deferred
    /// batch); inside one, marks the tree stale instead.
    fn repairs_dom(&mut self) -> bool {
        if !self.defer_dom
            && self
                .batch_limit
                .is_some_and(|limit| self.st.dom_steps.get() > limit)
        {
            self.defer_dom = true;
        }
        if self.defer_dom {
            self.st.dom_stale = true;
            self.st.numbers_valid = false;
            false
        } else {
            true
        }
    }

    /// Recomputes the dominator tree if a deferred batch left it stale.
    fn ensure_dom(&mut self) {
        if self.st.dom_stale {
            self.stats.dom_recomputations += 1;
            self.compact_layout();
            self.st.recompute_dom(self.func);
        }
    }

    /// Panics when the dominator tree is read inside a deferred batch.
    fn assert_dom_fresh(&self) {
        assert!(
            !self.st.dom_stale,
            "the dominator tree was read inside `with_deferred_dominators`"
        );
    }

    /// The function (read-only). Blocks removed by a primitive may still
    /// be listed in its layout until [`Editor::settled`]; use
    /// [`Editor::blocks`] for the live blocks.
    pub fn func(&self) -> &Function {
        self.func
    }

    /// The function with its layout compacted: exactly what dropping the
    /// editor would leave, for printing or verifying between passes.
    pub fn settled(&mut self) -> &Function {
        self.compact_layout();
        self.func
    }

    /// The blocks of the function, entry first (a snapshot).
    pub fn blocks(&self) -> Vec<Block> {
        self.func
            .layout
            .iter()
            .copied()
            .filter(|&b| self.st.in_layout[b])
            .collect()
    }

    /// Whether `b` is (still) a block of the function.
    pub fn is_live(&self, b: Block) -> bool {
        self.st.in_layout.get(b).copied().unwrap_or(false)
    }

    /// The entry block.
    pub fn entry(&self) -> Block {
        self.func.layout[0]
    }

    /// The distinct predecessors of `b` (inline up to four: passes ask for
    /// them per block, and a heap list per call was a malloc and a free
    /// each time).
    /// A join of many arms (a long `else if` chain assigning a variable)
    /// removes duplicates through a set instead of a scan per edge.
    pub fn preds(&self, b: Block) -> BlockList {
        let edges = &self.st.preds[b];
        let mut out = BlockList::new();
        if edges.len() <= FEW_PREDS {
            for &p in edges {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        } else {
            let mut seen = FxHashSet::default();
            out.extend(edges.iter().copied().filter(|&p| seen.insert(p)));
        }
        out
    }

    /// Whether `b` has two or more distinct predecessors, without listing
    /// them (jump threading asks this of a join once per incoming edge).
    pub fn has_several_preds(&self, b: Block) -> bool {
        let edges = &self.st.preds[b];
        edges
            .first()
            .is_some_and(|&f| edges.iter().any(|&p| p != f))
    }

    /// The distinct successors of `b`.
    pub fn succs(&self, b: Block) -> Vec<Block> {
        let mut out: Vec<Block> = Vec::new();
        for c in self.func.blocks[b].term.successors() {
            if !out.contains(&c.block) {
                out.push(c.block);
            }
        }
        out
    }

    /// Number of edges from `a` to `b`.
    pub fn edge_count(&self, a: Block, b: Block) -> usize {
        self.st.preds[b].iter().filter(|&&p| p == a).count()
    }

    /// The immediate dominator of `b` (None for the entry).
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.assert_dom_fresh();
        self.st.idom[b].expand()
    }

    /// The dominator-tree children of `b`.
    pub fn dom_children(&self, b: Block) -> &[Block] {
        self.assert_dom_fresh();
        &self.st.children[b]
    }

    /// Whether `a` dominates `b`: O(1) after [`Editor::refresh_numbers`],
    /// O(depth) while the numbers are stale.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.assert_dom_fresh();
        self.st.dominates(a, b)
    }

    /// Renumbers the dominator tree so that dominance queries are O(1)
    /// until the next structural edit.
    pub fn refresh_numbers(&mut self) {
        self.assert_dom_fresh();
        if !self.st.numbers_valid {
            self.st.renumber(self.func);
        }
    }

    /// Blocks in a pre-order of the dominator tree (parents before children).
    pub fn dom_preorder(&self) -> Vec<Block> {
        self.assert_dom_fresh();
        let mut out = Vec::new();
        let mut stack = vec![self.entry()];
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(self.st.children[b].iter().rev().copied());
        }
        out
    }

    /// The innermost loop containing `b`.
    pub fn innermost(&self, b: Block) -> Option<LoopId> {
        self.st.innermost[b].expand()
    }

    /// Every live loop, inner loops before outer ones.
    pub fn loops(&self) -> Vec<LoopId> {
        let mut ls: Vec<(u32, LoopId)> = self
            .st
            .loops
            .iter()
            .filter(|(_, d)| d.alive)
            .map(|(l, _)| (self.loop_depth(l), l))
            .collect();
        ls.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        ls.into_iter().map(|(_, l)| l).collect()
    }

    /// The nesting depth of `l` (0 for an outermost loop).
    pub fn loop_depth(&self, l: LoopId) -> u32 {
        let mut d = 0;
        let mut cur = self.st.loops[l].parent;
        while let Some(p) = cur {
            d += 1;
            cur = self.st.loops[p].parent;
        }
        d
    }

    /// The header of `l`.
    pub fn header(&self, l: LoopId) -> Block {
        self.st.loops[l].header
    }

    /// The loop around `l`.
    pub fn loop_parent(&self, l: LoopId) -> Option<LoopId> {
        self.st.loops[l].parent
    }

    /// The loop headed by `b`.
    pub fn loop_headed_by(&self, b: Block) -> Option<LoopId> {
        self.st.header_of[b]
            .expand()
            .filter(|&l| self.st.loops[l].alive)
    }

    /// Whether `l` contains `b`.
    pub fn loop_contains(&self, l: LoopId, b: Block) -> bool {
        self.st.loop_contains(l, b)
    }

    /// The unique latch of `l` (canonical form).
    pub fn latch(&self, l: LoopId) -> Block {
        let h = self.header(l);
        self.st.preds[h]
            .iter()
            .copied()
            .find(|&p| self.st.loop_contains(l, p))
            .expect("a live loop has a latch")
    }

    /// The dedicated preheader of `l` (canonical form).
    pub fn preheader(&self, l: LoopId) -> Block {
        let h = self.header(l);
        self.st.preds[h]
            .iter()
            .copied()
            .find(|&p| !self.st.loop_contains(l, p))
            .expect("a live loop has a preheader")
    }

    /// The blocks of `l`, header first (a forward walk from the header).
    pub fn body(&self, l: LoopId) -> Vec<Block> {
        let h = self.header(l);
        let mut seen = EntitySet::new();
        seen.insert(h);
        let mut out = vec![h];
        let mut i = 0;
        while i < out.len() {
            let b = out[i];
            i += 1;
            for c in self.func.blocks[b].term.successors() {
                let s = c.block;
                if !seen.contains(s) && self.st.loop_contains(l, s) {
                    seen.insert(s);
                    out.push(s);
                }
            }
        }
        out
    }

    /// The exits of `l`: blocks outside it with a predecessor inside.
    pub fn exits(&self, l: LoopId) -> Vec<Block> {
        let mut out = Vec::new();
        for b in self.body(l) {
            for s in self.succs(b) {
                if !self.st.loop_contains(l, s) && !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }

    /// The users of `v`, one entry per operand occurrence.
    pub fn uses(&self, v: Value) -> &[User] {
        self.st.uses.get(v).map_or(&[], |u| u.as_slice())
    }

    /// Whether `v` has no uses.
    pub fn is_unused(&self, v: Value) -> bool {
        self.uses(v).is_empty()
    }

    /// The block defining `v`.
    pub fn def_block(&self, v: Value) -> Option<Block> {
        self.st.def_block(self.func, v)
    }

    /// The block holding instruction `i`.
    pub fn inst_block(&self, i: Inst) -> Option<Block> {
        self.st.inst_block[i].expand()
    }

    /// The data of instruction `i`.
    pub fn inst(&self, i: Inst) -> &InstData {
        &self.func.insts[i]
    }

    /// The integer constant `v` is defined as (`iconst`), if it is one.
    pub fn int_const(&self, v: Value) -> Option<i64> {
        match self.func.values[v].def {
            ValueDef::Inst(i) => match self.func.insts[i].kind {
                InstKind::IConst(k) => Some(k),
                _ => None,
            },
            ValueDef::Param(..) => None,
        }
    }

    /// The instructions of `b`.
    pub fn insts(&self, b: Block) -> &[Inst] {
        &self.func.blocks[b].insts
    }

    /// The parameters of `b`.
    pub fn params(&self, b: Block) -> &[Value] {
        &self.func.blocks[b].params
    }

    /// The terminator of `b`.
    pub fn term(&self, b: Block) -> &Terminator {
        &self.func.blocks[b].term
    }

    /// The type of `v`.
    pub fn value_type(&self, v: Value) -> Type {
        self.func.values[v].ty
    }

    /// Whether a use of `v` in block `b` keeps LCSSA: `v`'s innermost
    /// loop contains `b`.
    pub fn lcssa_ok(&self, v: Value, b: Block) -> bool {
        let Some(d) = self.def_block(v) else {
            return false;
        };
        self.st.opt_loop_contains(self.st.innermost[d].expand(), b)
    }

    /// Whether primitives repair the dominator tree and loop forest locally.
    fn incremental(&self) -> bool {
        self.mode == Mode::Incremental
    }

    /// Rebuild mode after a control-flow edit: re-establish canonical form
    /// and recompute every analysis from scratch.
    fn rebuild(&mut self) {
        self.compact_layout();
        crate::canon::canonicalize(self.func);
        self.st = State::compute(self.func);
    }

    /// Ends a primitive: counts it, and with checking on compares the
    /// maintained analyses with a fresh computation, panicking with the
    /// name of `primitive` on a mismatch.
    fn finish(&mut self, primitive: &str) {
        self.stats.edits += 1;
        if self.checking {
            self.finish_check(primitive);
        }
    }

    /// The check of [`Editor::finish`] (the dominator tree only when it is
    /// not stale).
    fn finish_check(&mut self, primitive: &str) {
        {
            self.compact_layout();
            if let Err(e) = state::compare(self.func, &self.st) {
                panic!("analyses broken by primitive `{primitive}`: {e}");
            }
            if let Err(e) = crate::canon::check_canonical(self.func) {
                panic!("canonical form broken by primitive `{primitive}`: {e}");
            }
        }
    }

    /// Drops removed blocks from the function's layout.
    fn compact_layout(&mut self) {
        if self.layout_dirty {
            let st = &self.st;
            self.func.layout.retain(|&b| st.in_layout[b]);
            self.layout_dirty = false;
        }
    }

    /// Verifies the maintained analyses against a fresh computation (for
    /// tests): the first difference, or canonical-form violation.
    pub fn check(&mut self) -> Result<(), String> {
        self.ensure_dom();
        self.compact_layout();
        state::compare(self.func, &self.st)?;
        crate::canon::check_canonical(self.func)
    }
}

impl Drop for Editor<'_> {
    fn drop(&mut self) {
        self.compact_layout();
    }
}
