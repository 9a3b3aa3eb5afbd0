//! Instruction-level primitives. They never change control flow, so the
//! dominator tree and loop forest stay valid (Fritz §10.8: these passes
//! "do not have an effect on control flow"); only use lists and
//! instruction-to-block links are repaired.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, EntitySet, SecondaryMap};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::{
    Block, Inst, InstData, InstKind, SrcLoc, Terminator, Type, User, ValueData, ValueDef,
};

use super::{Editor, LoopId};
use crate::ir::Value;

/// The operands of one instruction or terminator, inline up to four.
pub(super) type Args = smallvec::SmallVec<[Value; 4]>;

impl Editor<'_> {
    // ----- raw use-list helpers (private: they do not repair D or F) -----

    pub(super) fn add_use(&mut self, v: Value, u: User) {
        self.st.uses[v].push(u);
    }

    pub(super) fn remove_use(&mut self, v: Value, u: User) {
        let list = &mut self.st.uses[v];
        if let Some(pos) = list.iter().position(|&x| x == u) {
            list.swap_remove(pos);
        }
    }

    pub(super) fn add_inst_uses(&mut self, i: Inst) {
        for v in self.inst_args(i) {
            self.add_use(v, User::Inst(i));
        }
    }

    pub(super) fn remove_inst_uses(&mut self, i: Inst) {
        for v in self.inst_args(i) {
            self.remove_use(v, User::Inst(i));
        }
    }

    /// The operands of `i`, copied out so that use lists can be edited
    /// while walking them: inline for the usual few operands, because
    /// every instruction added or removed goes through here and a heap
    /// list per instruction was a tenth of the allocations of `-O2`.
    fn inst_args(&self, i: Inst) -> Args {
        let mut args = Args::new();
        self.func.insts[i].kind.for_each_arg(|v| args.push(v));
        args
    }

    pub(super) fn term_args(&self, b: Block) -> Args {
        let mut args = Args::new();
        self.func.blocks[b].term.for_each_arg(|v| args.push(v));
        args
    }

    /// Replaces the terminator of `b`, repairing use lists and predecessor
    /// lists only (callers repair D and F).
    pub(super) fn raw_set_term(&mut self, b: Block, term: Terminator) {
        for v in self.term_args(b) {
            self.remove_use(v, User::Term(b));
        }
        let same_targets = self.func.blocks[b]
            .term
            .successors()
            .map(|c| c.block)
            .eq(term.successors().map(|c| c.block));
        if same_targets {
            // Only arguments changed (copy propagation, dead parameters):
            // the predecessor lists stay, which matters for a join of
            // thousands of edges, where each removal searched and shifted
            // its whole list.
            self.func.blocks[b].term = term;
            for v in self.term_args(b) {
                self.add_use(v, User::Term(b));
            }
            return;
        }
        let old: Vec<Block> = self.func.blocks[b]
            .term
            .successors()
            .map(|c| c.block)
            .collect();
        for t in old {
            let ps = &mut self.st.preds[t];
            // From the back: the edge that goes is most often one that came
            // last (a threaded copy straightened away), and a long chain's
            // join has thousands of predecessors to scan from the front.
            if let Some(pos) = ps.iter().rposition(|&p| p == b) {
                ps.remove(pos);
            }
        }
        self.func.blocks[b].term = term;
        for v in self.term_args(b) {
            self.add_use(v, User::Term(b));
        }
        let new: Vec<Block> = self.func.blocks[b]
            .term
            .successors()
            .map(|c| c.block)
            .collect();
        for t in new {
            self.st.preds[t].push(b);
        }
    }

    /// Creates a value.
    pub(super) fn new_value(&mut self, ty: Type, def: ValueDef) -> Value {
        self.func.values.push(ValueData { ty, def })
    }

    /// Appends a parameter to `b` without touching incoming edges.
    pub(super) fn raw_add_param(&mut self, b: Block, ty: Type) -> Value {
        let idx = self.func.blocks[b].params.len() as u32;
        let v = self.new_value(ty, ValueDef::Param(b, idx));
        self.func.blocks[b].params.push(v);
        v
    }

    /// Appends `arg` to every edge from `from` to `to`.
    pub(super) fn raw_add_edge_arg(&mut self, from: Block, to: Block, arg: Value) {
        let mut n = 0;
        for c in self.func.blocks[from].term.successors_mut() {
            if c.block == to {
                c.args.push(arg);
                n += 1;
            }
        }
        for _ in 0..n {
            self.add_use(arg, User::Term(from));
        }
    }

    // ----- public primitives -----

    /// Inserts an instruction into `b` before position `pos` (`pos ==
    /// insts(b).len()` appends). `result_ty` is `Type::Unit` for none.
    /// The operands must dominate the position.
    pub fn insert_inst(
        &mut self,
        b: Block,
        pos: usize,
        kind: InstKind,
        result_ty: Type,
        loc: SrcLoc,
    ) -> (Inst, Option<Value>) {
        let (inst, result) = self.new_inst(b, kind, result_ty, loc);
        self.func.blocks[b].insts.insert(pos, inst);
        self.finish("insert_inst");
        (inst, result)
    }

    /// A new instruction with its result value, placed in `b` for the
    /// block links and use lists but not yet in `b`'s instruction list.
    fn new_inst(
        &mut self,
        b: Block,
        kind: InstKind,
        result_ty: Type,
        loc: SrcLoc,
    ) -> (Inst, Option<Value>) {
        let inst = self.func.insts.push(InstData {
            kind,
            result: None,
            loc,
        });
        let result =
            (result_ty != Type::Unit).then(|| self.new_value(result_ty, ValueDef::Inst(inst)));
        self.func.insts[inst].result = result;
        self.st.inst_block[inst] = b.into();
        self.add_inst_uses(inst);
        (inst, result)
    }

    /// Inserts `insts` (kind, result type, location) into `b` before
    /// position `pos`, in order, in one splice: linear in the block's length
    /// once, where as many [`Editor::insert_inst`] calls would move its tail
    /// once per instruction. The operands must dominate the position.
    pub fn insert_insts(
        &mut self,
        b: Block,
        pos: usize,
        insts: Vec<(InstKind, Type, SrcLoc)>,
    ) -> Vec<(Inst, Option<Value>)> {
        let made: Vec<(Inst, Option<Value>)> = insts
            .into_iter()
            .map(|(kind, result_ty, loc)| self.new_inst(b, kind, result_ty, loc))
            .collect();
        self.func.blocks[b]
            .insts
            .splice(pos..pos, made.iter().map(|&(i, _)| i));
        self.finish("insert_insts");
        made
    }

    /// Removes the instructions of `insts` whose results are unused (the
    /// others stay); returns how many were removed. One pass over each
    /// affected block and use list, however many instructions go: the way
    /// to remove many instructions of a large block.
    pub fn remove_insts(&mut self, insts: &[Inst]) -> usize {
        // Hash sets, not entity maps, for a small batch: their size is that
        // of the batch, not of the function, so many small batches stay
        // linear in total. A batch that is a large share of the function
        // gets a bit per instruction instead (`InstSet`).
        let mut gone = InstSet::for_batch(insts.len(), self.func.insts.len());
        let mut gone_list = Vec::new();
        let mut blocks = FxHashSet::<Block>::default();
        for &i in insts {
            if self.func.insts[i]
                .result
                .is_some_and(|r| !self.is_unused(r))
            {
                continue;
            }
            let Some(b) = self.inst_block(i) else {
                continue;
            };
            if gone.insert(i) {
                gone_list.push(i);
                blocks.insert(b);
                self.st.inst_block[i] = None.into();
            }
        }
        let n = gone_list.len();
        if n == 0 {
            return 0;
        }
        self.remove_uses_of(gone_list.into_iter());
        for b in blocks {
            self.func.blocks[b].insts.retain(|x| !gone.contains(x));
        }
        self.finish("remove_insts");
        n
    }

    /// Drops the operand uses of the instructions `gone` from the use
    /// lists, visiting each affected use list once.
    pub(super) fn remove_uses_of(&mut self, gone: impl Iterator<Item = Inst>) {
        let mut by_value: Vec<(Value, Inst)> = Vec::new();
        for i in gone {
            self.func.insts[i]
                .kind
                .for_each_arg(|v| by_value.push((v, i)));
        }
        by_value.sort_unstable();
        let mut k = 0;
        while k < by_value.len() {
            let v = by_value[k].0;
            let end = k + by_value[k..].iter().take_while(|e| e.0 == v).count();
            if end - k == 1 {
                self.remove_use(v, User::Inst(by_value[k].1));
            } else {
                // Several occurrences: one filtering pass over the list,
                // removing each listed occurrence once.
                let mut drop = FxHashMap::<Inst, u32>::default();
                for e in &by_value[k..end] {
                    *drop.entry(e.1).or_default() += 1;
                }
                self.st.uses[v].retain(|u| match u {
                    User::Inst(i) => match drop.get_mut(i) {
                        Some(c) if *c > 0 => {
                            *c -= 1;
                            false
                        }
                        _ => true,
                    },
                    User::Term(_) => true,
                });
            }
            k = end;
        }
    }

    /// Removes instruction `i`, whose result must be unused. Returns false
    /// (and changes nothing) when the result still has uses. Linear in the
    /// size of `i`'s block: use [`Editor::remove_insts`] for many.
    pub fn remove_inst(&mut self, i: Inst) -> bool {
        if let Some(r) = self.func.insts[i].result {
            if !self.is_unused(r) {
                return false;
            }
        }
        let Some(b) = self.inst_block(i) else {
            return false;
        };
        self.remove_inst_uses(i);
        self.func.blocks[b].insts.retain(|&x| x != i);
        self.st.inst_block[i] = None.into();
        self.finish("remove_inst");
        true
    }

    /// Replaces every use of `old` by `new` (SSA reconstruction's last step,
    /// Fritz §7.1 *replace register set*). `new` must dominate every use of
    /// `old` and be usable there under LCSSA; the checker verifies both.
    pub fn replace_all_uses(&mut self, old: Value, new: Value) {
        if old == new {
            return;
        }
        self.raw_replace_all_uses(old, new);
        self.finish("replace_all_uses");
    }

    /// Replaces `old` by `new` in the users `users` only (every operand of
    /// theirs that is `old`); `old`'s other users keep it. `new` must
    /// dominate those users and be usable there under LCSSA.
    pub fn replace_uses_in(&mut self, old: Value, new: Value, users: &[User]) {
        if old == new {
            return;
        }
        self.raw_replace_uses_in(old, new, users);
        self.finish("replace_uses_in");
    }

    /// [`Editor::replace_uses_in`] without the check after the edit (for
    /// primitives that are in the middle of an edit). A user that does not
    /// read `old` is left as it is.
    pub(super) fn raw_replace_uses_in(&mut self, old: Value, new: Value, users: &[User]) {
        let mut distinct = users.to_vec();
        distinct.sort_unstable_by_key(user_key);
        distinct.dedup();
        let swap = |v: &mut Value| {
            if *v == old {
                *v = new;
            }
        };
        for &u in &distinct {
            // One use-list entry per operand occurrence.
            let mut k = 0;
            match u {
                User::Inst(i) => self.func.insts[i]
                    .kind
                    .for_each_arg(|v| k += usize::from(v == old)),
                User::Term(b) => self.func.blocks[b]
                    .term
                    .for_each_arg(|v| k += usize::from(v == old)),
            }
            match u {
                User::Inst(i) => self.func.insts[i].kind.for_each_arg_mut(swap),
                User::Term(b) => self.func.blocks[b].term.for_each_arg_mut(swap),
            }
            for _ in 0..k {
                self.remove_use(old, u);
                self.add_use(new, u);
            }
        }
    }

    /// [`Editor::replace_all_uses`] for many `(old, new)` pairs at once:
    /// every user is rewritten in one pass over its operands, so a call
    /// with `k` arguments costs `O(k)` however many of them are replaced
    /// (one at a time, `O(k)` each). No `new` may be the `old` of another
    /// pair.
    pub fn replace_all_uses_batch(&mut self, pairs: &[(Value, Value)]) {
        let mut map = ValueMap::for_batch(pairs.len(), self.func.values.len());
        let mut users = Vec::new();
        for &(old, new) in pairs {
            if old == new || map.insert(old, new).is_some() {
                continue;
            }
            let moved = std::mem::take(&mut self.st.uses[old]);
            users.extend_from_slice(&moved);
            self.st.uses[new].extend(moved);
        }
        debug_assert!(
            pairs.iter().all(|&(_, new)| map.get(new).is_none()),
            "a replacement is itself replaced"
        );
        users.sort_unstable_by_key(user_key);
        users.dedup();
        let swap = |v: &mut Value| {
            if let Some(n) = map.get(*v) {
                *v = n;
            }
        };
        for u in users {
            match u {
                User::Inst(i) => self.func.insts[i].kind.for_each_arg_mut(swap),
                User::Term(b) => self.func.blocks[b].term.for_each_arg_mut(swap),
            }
        }
        self.finish("replace_all_uses_batch");
    }

    pub(super) fn raw_replace_all_uses(&mut self, old: Value, new: Value) {
        let users = std::mem::take(&mut self.st.uses[old]);
        let swap = |v: &mut Value| {
            if *v == old {
                *v = new;
            }
        };
        let mut distinct = users.clone();
        distinct.sort_unstable_by_key(user_key);
        distinct.dedup();
        for &u in &distinct {
            match u {
                User::Inst(i) => self.func.insts[i].kind.for_each_arg_mut(swap),
                User::Term(b) => self.func.blocks[b].term.for_each_arg_mut(swap),
            }
        }
        self.st.uses[new].extend(users);
    }

    /// Replaces the operation of `i` (its result type must not change).
    pub fn set_inst_kind(&mut self, i: Inst, kind: InstKind) {
        self.remove_inst_uses(i);
        self.func.insts[i].kind = kind;
        self.add_inst_uses(i);
        self.finish("set_inst_kind");
    }

    /// [`Editor::set_inst_kind`] for many instructions at once: each old
    /// operand's use list is filtered once, so a constant that thousands of
    /// the edited instructions read costs one pass over its uses, not one
    /// per edit. Each new kind's operands must dominate its instruction.
    pub fn set_inst_kinds(&mut self, edits: Vec<(Inst, InstKind)>) {
        if edits.is_empty() {
            return;
        }
        let edited: FxHashSet<Inst> = edits.iter().map(|&(i, _)| i).collect();
        let mut operands = Vec::new();
        for &(i, _) in &edits {
            self.func.insts[i].kind.for_each_arg(|v| operands.push(v));
        }
        operands.sort_unstable();
        operands.dedup();
        for v in operands {
            self.st.uses[v].retain(|u| !matches!(u, User::Inst(i) if edited.contains(i)));
        }
        for (i, kind) in edits {
            self.func.insts[i].kind = kind;
            self.add_inst_uses(i);
        }
        self.finish("set_inst_kinds");
    }

    /// Moves instruction `i` to the end of block `to` (before its
    /// terminator): loop-invariant code motion into a dedicated preheader.
    /// Operands must dominate the end of `to`, and `to` must dominate every
    /// use of the result.
    pub fn move_inst_to_end(&mut self, i: Inst, to: Block) {
        self.move_insts_to_end(&[i], to);
    }

    /// Moves the instructions `insts`, in this order, to the end of block
    /// `to` ([`Editor::move_inst_to_end`] for many, one pass over each
    /// block they leave).
    pub fn move_insts_to_end(&mut self, insts: &[Inst], to: Block) {
        let mut moving = FxHashSet::<Inst>::default();
        let mut from = FxHashSet::<Block>::default();
        for &i in insts {
            if let Some(b) = self.inst_block(i) {
                moving.insert(i);
                from.insert(b);
            }
        }
        if moving.is_empty() {
            return;
        }
        for b in from {
            self.func.blocks[b].insts.retain(|x| !moving.contains(x));
        }
        for &i in insts {
            if moving.remove(&i) {
                self.func.blocks[to].insts.push(i);
                self.st.inst_block[i] = to.into();
            }
        }
        self.finish("move_inst");
    }

    /// Appends a parameter of type `ty` to the header of loop `l`, passed
    /// `entry` on the edge from the preheader and `next` on the edge from
    /// the latch: a new loop-carried value (`carry`). `entry` must
    /// dominate the end of the preheader and `next` the end of the latch;
    /// nothing else changes, so every analysis stays valid (the header's
    /// predecessors and the loop's blocks are the same).
    pub fn add_loop_param(&mut self, l: LoopId, ty: Type, entry: Value, next: Value) -> Value {
        let (h, ph, latch) = (self.header(l), self.preheader(l), self.latch(l));
        let p = self.raw_add_param(h, ty);
        self.raw_add_edge_arg(ph, h, entry);
        self.raw_add_edge_arg(latch, h, next);
        self.finish("add_loop_param");
        p
    }

    /// Removes parameter `idx` of `b` (not the entry block) and the
    /// matching argument of every edge into `b`. The parameter must be
    /// unused. Returns false when it is not.
    pub fn remove_block_param(&mut self, b: Block, idx: usize) -> bool {
        let p = self.func.blocks[b].params[idx];
        if !self.is_unused(p) || b == self.entry() {
            return false;
        }
        self.raw_remove_block_param(b, idx);
        self.finish("remove_block_param");
        true
    }

    pub(super) fn raw_remove_block_param(&mut self, b: Block, idx: usize) {
        let mut preds = self.st.preds[b].clone();
        preds.dedup();
        let mut seen = Vec::new();
        for pred in preds {
            if seen.contains(&pred) {
                continue;
            }
            seen.push(pred);
            let mut removed = Vec::new();
            for c in self.func.blocks[pred].term.successors_mut() {
                if c.block == b {
                    removed.push(c.args.remove(idx));
                }
            }
            for v in removed {
                self.remove_use(v, User::Term(pred));
            }
        }
        self.func.blocks[b].params.remove(idx);
        let rest: Vec<Value> = self.func.blocks[b].params[idx..].to_vec();
        for (k, v) in rest.into_iter().enumerate() {
            self.func.values[v].def = ValueDef::Param(b, (idx + k) as u32);
        }
    }
}

impl Editor<'_> {
    /// Removes a set of dead instructions and block parameters at once
    /// (dead code elimination across loop-carried cycles, where a parameter
    /// and the instruction computing its next value use each other). Every
    /// use of a removed value must be in a removed instruction or be the
    /// argument of a removed parameter; otherwise nothing changes and the
    /// result is false. Entry-block parameters cannot be removed.
    pub fn remove_dead(&mut self, insts: &[Inst], params: &[(Block, usize)]) -> bool {
        let inst_set: FxHashSet<Inst> = insts.iter().copied().collect();
        let param_set: FxHashSet<(Block, usize)> = params.iter().copied().collect();
        let mut removed_vals = Vec::new();
        for &i in insts {
            if self.inst_block(i).is_none() {
                return false;
            }
            removed_vals.extend(self.func.insts[i].result);
        }
        for &(b, idx) in params {
            if b == self.entry() || idx >= self.func.blocks[b].params.len() {
                return false;
            }
            removed_vals.push(self.func.blocks[b].params[idx]);
        }
        for &v in &removed_vals {
            for &u in self.uses(v) {
                match u {
                    User::Inst(i) => {
                        if !inst_set.contains(&i) {
                            return false;
                        }
                    }
                    User::Term(b) => {
                        let term = &self.func.blocks[b].term;
                        let bad_scrutinee = match term {
                            Terminator::Switch { value, .. } => *value == Some(v),
                            Terminator::Return(r) => *r == Some(v),
                        };
                        if bad_scrutinee {
                            return false;
                        }
                        for c in term.successors() {
                            for (k, &a) in c.args.iter().enumerate() {
                                if a == v && !param_set.contains(&(c.block, k)) {
                                    return false;
                                }
                            }
                        }
                    }
                }
            }
        }
        let mut by_block: Vec<(Block, usize)> = params.to_vec();
        by_block.sort_by_key(|b| std::cmp::Reverse(b.1));
        by_block.dedup();
        for (b, idx) in by_block {
            self.raw_remove_block_param(b, idx);
        }
        let mut blocks = FxHashSet::<Block>::default();
        for &i in insts {
            if let Some(b) = self.inst_block(i) {
                blocks.insert(b);
            }
            self.st.inst_block[i] = None.into();
        }
        self.remove_uses_of(inst_set.iter().copied());
        for b in blocks {
            self.func.blocks[b].insts.retain(|x| !inst_set.contains(x));
        }
        self.finish("remove_dead");
        true
    }
}

/// A total order on users (for deduplication).
fn user_key(u: &User) -> (u8, usize) {
    match *u {
        User::Inst(i) => (0, i.index()),
        User::Term(b) => (1, b.index()),
    }
}

/// Whether a batch of `batch` entities over a function of `universe` of
/// them is large enough to index densely: a map of the whole function then
/// costs no more than hashing the batch, and is probed without hashing.
fn dense(batch: usize, universe: usize) -> bool {
    batch.saturating_mul(16) >= universe
}

/// A set of instructions of one batch: a hash set the size of the batch,
/// or for a large batch a bit per instruction of the function.
enum InstSet {
    Sparse(FxHashSet<Inst>),
    Dense(EntitySet<Inst>),
}

impl InstSet {
    fn for_batch(batch: usize, universe: usize) -> InstSet {
        if dense(batch, universe) {
            InstSet::Dense(EntitySet::with_capacity(universe))
        } else {
            InstSet::Sparse(FxHashSet::default())
        }
    }

    /// Adds `i`; whether it was new.
    fn insert(&mut self, i: Inst) -> bool {
        match self {
            InstSet::Sparse(s) => s.insert(i),
            InstSet::Dense(s) => s.insert(i),
        }
    }

    fn contains(&self, i: &Inst) -> bool {
        match self {
            InstSet::Sparse(s) => s.contains(i),
            InstSet::Dense(s) => s.contains(*i),
        }
    }
}

/// Replacements of one batch (old → new): a hash map the size of the
/// batch, or for a large batch an entry per value of the function.
enum ValueMap {
    Sparse(FxHashMap<Value, Value>),
    Dense(SecondaryMap<Value, PackedOption<Value>>),
}

impl ValueMap {
    fn for_batch(batch: usize, universe: usize) -> ValueMap {
        if dense(batch, universe) {
            let mut m = SecondaryMap::with_capacity(universe);
            m.resize(universe);
            ValueMap::Dense(m)
        } else {
            ValueMap::Sparse(FxHashMap::default())
        }
    }

    /// Maps `old` to `new`; returns what `old` mapped to before (as
    /// `HashMap::insert`).
    fn insert(&mut self, old: Value, new: Value) -> Option<Value> {
        match self {
            ValueMap::Sparse(m) => m.insert(old, new),
            ValueMap::Dense(m) => {
                let prev = m[old].expand();
                m[old] = new.into();
                prev
            }
        }
    }

    fn get(&self, v: Value) -> Option<Value> {
        match self {
            ValueMap::Sparse(m) => m.get(&v).copied(),
            ValueMap::Dense(m) => m.get(v).and_then(|n| n.expand()),
        }
    }
}
