//! On-the-fly SSA construction with block parameters (Braun et al., "Simple
//! and Efficient Construction of Static Single Assignment Form", 2013, as
//! presented in Fritz §5.3 and §5.4).
//!
//! The lowering writes and reads *variables* (the checker's locals, as dense
//! `u32` ids) while it emits code block by block. A read looks for the
//! variable's definition in the current block, then walks predecessors
//! backwards:
//!
//! - a block with one predecessor takes that predecessor's definition;
//! - a block with several gets a fresh block parameter (Fritz's replacement
//!   for a φ node), whose arguments are the predecessors' definitions; the
//!   parameter is recorded as the block's definition *before* the
//!   predecessors are searched, which breaks the recursion around loops;
//! - a block that is not yet *sealed* (more predecessors may still be added,
//!   e.g. a loop header before its backedges exist) gets an *incomplete*
//!   parameter whose arguments are filled in when the block is sealed.
//!
//! After its arguments are known a parameter is checked for triviality (all
//! arguments are itself or one other value `o`); a trivial parameter is
//! replaced by `o` and the parameters that used it are re-checked (Fritz
//! Fig. 7.17, "collapse params"). Replacements are recorded in an alias map
//! and applied to the whole function by [`SsaBuilder::finish`], which also
//! drops the removed parameters with their edge arguments, renumbers the
//! remaining ones, and removes blocks that were never reached.
//!
//! The backward search is iterative (an explicit stack), so long chains of
//! blocks cannot overflow the native stack.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use waddle_opt::ir::{
    Block, BlockCall, Function, FunctionBuilder, InstKind, SrcLoc, Terminator, Type, Value,
    ValueDef,
};

/// A source-level variable that lives in SSA values (a checker local).
pub(super) type Var = u32;

/// One step of the iterative backward search of [`SsaBuilder::read`].
/// The current definition of each variable in each block (Braun et al.'s
/// `currentDef`): the latest block a variable was defined in is kept in a
/// vector indexed by the variable, the blocks it left behind in a hash map.
/// A straight-line function's millions of locals then never touch the map.
///
/// Variables are the checker's locals, numbered over the whole program, and
/// a function's own are contiguous: the vector covers them from the first
/// one the function defines (`base`) up, so its size is the function's
/// local count, not the program's (one vector per function would otherwise
/// make lowering quadratic in the function count). A variable below `base`
/// (top-level code's locals are spread over the program) does without it.
///
/// A definition a variable left behind goes to its block's own slot when
/// that is free or the variable's, and to the hash map only when the block
/// already keeps another variable's: a function of a million `if`s
/// assigning one variable leaves one definition in each of its millions of
/// blocks, and a map of that size cost a cache miss per read and per
/// write, where the slots are read in block order.
#[derive(Default)]
struct Defs {
    /// The first variable defined; `last[i]` is variable `base + i`.
    base: Option<Var>,
    /// Per variable from `base`, its latest (block, value).
    last: Vec<Option<(Block, Value)>>,
    /// Per block, one (variable, value) it defines that is not in `last`.
    in_block: SecondaryMap<Block, Option<(Var, Value)>>,
    /// Every other (variable, block) definition.
    older: FxHashMap<(Var, Block), Value>,
}

impl Defs {
    /// The index of `var` in `last`, if it has one.
    fn slot(&self, var: Var) -> Option<usize> {
        let base = self.base?;
        var.checked_sub(base).map(|i| i as usize)
    }

    fn get(&self, var: Var, block: Block) -> Option<Value> {
        let latest = self
            .slot(var)
            .and_then(|i| self.last.get(i).copied().flatten());
        match latest {
            Some((b, v)) if b == block => Some(v),
            _ => match self.in_block.get(block).copied().flatten() {
                Some((x, v)) if x == var => Some(v),
                // A block whose slot is free never had a definition moved
                // to the map.
                None => None,
                Some(_) => self.older.get(&(var, block)).copied(),
            },
        }
    }

    fn insert(&mut self, var: Var, block: Block, value: Value) {
        let base = *self.base.get_or_insert(var);
        let Some(i) = var.checked_sub(base).map(|i| i as usize) else {
            self.keep(var, block, value);
            return;
        };
        if i >= self.last.len() {
            self.last.resize(i + 1, None);
        }
        if let Some((b, v)) = self.last[i].replace((block, value)) {
            if b != block {
                self.keep(var, b, v);
            }
        }
    }

    /// Records a definition that is not (or no longer) a variable's latest:
    /// in the block's slot if it is free or holds `var`, else in the map.
    /// (A (variable, block) pair is in the map only while the slot holds
    /// another variable, and a slot once taken stays taken.)
    fn keep(&mut self, var: Var, block: Block, value: Value) {
        let slot = &mut self.in_block[block];
        match *slot {
            None => *slot = Some((var, value)),
            Some((x, _)) if x == var => *slot = Some((var, value)),
            Some(_) => {
                self.older.insert((var, block), value);
            }
        }
    }
}

enum Frame {
    /// Find the definition of the variable at the end of this block.
    Start(Block),
    /// The result is the single predecessor's definition; cache it here.
    Single(Block),
    /// Filling the arguments of `param` of `block`; the result belongs to
    /// predecessor number `next`.
    Multi {
        block: Block,
        param: Value,
        next: usize,
    },
}

/// Builds one function in SSA form. Owns the function while it is built.
///
/// The per-block and per-value tables are dense (indexed by the entity):
/// a generated function has hundreds of thousands of blocks and values,
/// and hash maps of that size cost a cache miss per lookup.
pub(super) struct SsaBuilder<'a> {
    /// The function under construction.
    pub func: Function,
    /// Type of every variable (indexed by [`Var`]): the whole program's
    /// table, borrowed, so that starting a function costs nothing per
    /// variable of other functions.
    var_types: &'a [Type],
    /// Distinct predecessors of every block, in edge creation order.
    preds: SecondaryMap<Block, SmallVec<[Block; 4]>>,
    /// Blocks whose predecessor set is final.
    sealed: SecondaryMap<Block, bool>,
    /// Parameters created in unsealed blocks, filled when the block is sealed.
    incomplete: SecondaryMap<Block, SmallVec<[(Var, Value); 2]>>,
    /// The definition of each variable at the end of each block.
    defs: Defs,
    /// Replacement of a removed trivial parameter.
    alias: SecondaryMap<Value, PackedOption<Value>>,
    /// Whether `alias` has any entry (most straight-line code has none, and
    /// [`SsaBuilder::finish`] then has nothing to substitute).
    any_alias: bool,
    /// Parameters removed as trivial.
    removed: SecondaryMap<Value, bool>,
    /// Parameters whose edge arguments are all present.
    filled: SecondaryMap<Value, bool>,
    /// For each value, the parameters that receive it as an edge argument.
    param_users: SecondaryMap<Value, SmallVec<[Value; 4]>>,
    /// Zero constants materialized for reads of undefined variables.
    undef: FxHashMap<Var, Value>,
    /// The backward search's stack, kept between searches (empty between
    /// them) so that a read does not allocate.
    stack: Vec<Frame>,
    /// Scratch list of a parameter's edge arguments ([`Self::trivial_value`]).
    args: Vec<Option<Value>>,
}

impl<'a> SsaBuilder<'a> {
    /// A builder for `func` (which must have no blocks yet) whose variables
    /// have the given types.
    pub fn new(func: Function, var_types: &'a [Type]) -> SsaBuilder<'a> {
        SsaBuilder {
            func,
            var_types,
            preds: SecondaryMap::new(),
            sealed: SecondaryMap::new(),
            incomplete: SecondaryMap::new(),
            defs: Defs::default(),
            alias: SecondaryMap::new(),
            any_alias: false,
            removed: SecondaryMap::new(),
            filled: SecondaryMap::new(),
            param_users: SecondaryMap::new(),
            undef: FxHashMap::default(),
            stack: Vec::new(),
            args: Vec::new(),
        }
    }

    /// Creates a block (the first one is the entry).
    pub fn create_block(&mut self) -> Block {
        FunctionBuilder::new(&mut self.func).create_block()
    }

    /// Adds an explicit parameter to `block`. Must be called before any edge
    /// to `block` exists; the edges pass its argument explicitly.
    pub fn add_param(&mut self, block: Block, ty: Type) -> Value {
        let v = FunctionBuilder::new(&mut self.func).append_block_param(block, ty);
        self.filled[v] = true;
        v
    }

    /// Appends an instruction; returns its result (`None` for `Unit`).
    pub fn append(&mut self, block: Block, kind: InstKind, ty: Type, loc: SrcLoc) -> Option<Value> {
        FunctionBuilder::new(&mut self.func)
            .append_inst(block, kind, ty, loc)
            .1
    }

    /// Ends `block` with a jump to `to` passing `args` (one per explicit
    /// parameter of `to`).
    pub fn jump(&mut self, block: Block, to: Block, args: Vec<Value>) {
        FunctionBuilder::new(&mut self.func)
            .set_terminator(block, Terminator::jump(BlockCall::new(to, args)));
        self.add_pred(to, block);
    }

    /// Ends `block` with a two-way branch on `cond`.
    pub fn branch(&mut self, block: Block, cond: Value, then: BlockCall, otherwise: BlockCall) {
        let (t, e) = (then.block, otherwise.block);
        FunctionBuilder::new(&mut self.func)
            .set_terminator(block, Terminator::branch(cond, then, otherwise));
        self.add_pred(t, block);
        self.add_pred(e, block);
    }

    /// Ends `block` with a return.
    pub fn ret(&mut self, block: Block, value: Option<Value>) {
        FunctionBuilder::new(&mut self.func).set_terminator(block, Terminator::Return(value));
    }

    /// Number of (distinct) predecessors of `block` so far.
    pub fn pred_count(&self, block: Block) -> usize {
        self.preds(block).len()
    }

    /// The distinct predecessors of `block` so far.
    fn preds(&self, block: Block) -> &[Block] {
        &self.preds[block]
    }

    fn add_pred(&mut self, to: Block, from: Block) {
        debug_assert!(!self.sealed[to], "edge into a sealed block");
        let preds = &mut self.preds[to];
        if !preds.contains(&from) {
            preds.push(from);
        }
    }

    /// Records `value` as the definition of `var` at the current end of `block`.
    pub fn write(&mut self, var: Var, block: Block, value: Value) {
        self.defs.insert(var, block, value);
    }

    /// Declares that no more predecessors will be added to `block` and
    /// fills its incomplete parameters.
    pub fn seal(&mut self, block: Block) {
        if std::mem::replace(&mut self.sealed[block], true) {
            return;
        }
        let pending = std::mem::take(&mut self.incomplete[block]);
        for (var, param) in pending {
            let v = self.fill(var, block, param);
            self.defs.insert(var, block, v);
        }
    }

    /// The current value of `var` at the end of `block`.
    pub fn read(&mut self, var: Var, block: Block) -> Value {
        // The common case, a definition in this block, needs no search
        // stack.
        if let Some(v) = self.defs.get(var, block) {
            return self.resolve(v);
        }
        self.search(var, [Frame::Start(block)])
    }

    /// Fills the arguments of `param` (a parameter of sealed `block` for
    /// `var`) and returns the value that stands for it afterwards.
    fn fill(&mut self, var: Var, block: Block, param: Value) -> Value {
        match self.preds(block).first().copied() {
            Some(p) => self.search(
                var,
                [
                    Frame::Multi {
                        block,
                        param,
                        next: 0,
                    },
                    Frame::Start(p),
                ],
            ),
            None => {
                // No predecessors: unreachable (dropped by `finish`).
                self.filled[param] = true;
                param
            }
        }
    }

    /// Runs the backward search from the frames `start` (pushed in order)
    /// until its stack is empty and returns the last result.
    fn search<const N: usize>(&mut self, var: Var, start: [Frame; N]) -> Value {
        let mut stack = std::mem::take(&mut self.stack);
        debug_assert!(stack.is_empty());
        stack.extend(start);
        let ty = self.var_type(var);
        let mut result: Option<Value> = None;
        while let Some(frame) = stack.pop() {
            match frame {
                Frame::Start(b) => {
                    if let Some(v) = self.defs.get(var, b) {
                        result = Some(self.resolve(v));
                    } else if !self.sealed[b] {
                        let p = FunctionBuilder::new(&mut self.func).append_block_param(b, ty);
                        self.incomplete[b].push((var, p));
                        self.defs.insert(var, b, p);
                        result = Some(p);
                    } else {
                        match *self.preds(b) {
                            [] => result = Some(self.undefined(var)),
                            [p] => {
                                stack.push(Frame::Single(b));
                                stack.push(Frame::Start(p));
                            }
                            [p, ..] => {
                                let param =
                                    FunctionBuilder::new(&mut self.func).append_block_param(b, ty);
                                self.defs.insert(var, b, param);
                                stack.push(Frame::Multi {
                                    block: b,
                                    param,
                                    next: 0,
                                });
                                stack.push(Frame::Start(p));
                            }
                        }
                    }
                }
                Frame::Single(b) => {
                    let v = result.unwrap_or_else(|| self.undefined(var));
                    self.defs.insert(var, b, v);
                    result = Some(v);
                }
                Frame::Multi { block, param, next } => {
                    let v = result.unwrap_or_else(|| self.undefined(var));
                    let Some(&pred) = self.preds(block).get(next) else {
                        continue;
                    };
                    self.set_edge_arg(pred, block, param, v);
                    if let Some(&p) = self.preds(block).get(next + 1) {
                        stack.push(Frame::Multi {
                            block,
                            param,
                            next: next + 1,
                        });
                        stack.push(Frame::Start(p));
                    } else {
                        self.filled[param] = true;
                        let v = self.try_remove_trivial(param);
                        self.defs.insert(var, block, v);
                        result = Some(v);
                    }
                }
            }
        }
        self.stack = stack;
        result.unwrap_or_else(|| self.undefined(var))
    }

    fn var_type(&self, var: Var) -> Type {
        self.var_types
            .get(var as usize)
            .copied()
            .unwrap_or(Type::Int)
    }

    /// A zero value for a variable read where no definition reaches (only in
    /// code the checker would have rejected, or unreachable code).
    fn undefined(&mut self, var: Var) -> Value {
        if let Some(&v) = self.undef.get(&var) {
            return v;
        }
        let ty = self.var_type(var);
        let entry = self.func.layout()[0];
        let v = zero_value(&mut self.func, entry, ty);
        self.undef.insert(var, v);
        v
    }

    /// Sets the argument for `param` on every edge `pred → block`.
    fn set_edge_arg(&mut self, pred: Block, block: Block, param: Value, arg: Value) {
        let ValueDef::Param(_, index) = self.func.values()[param].def else {
            return;
        };
        let index = index as usize;
        for call in FunctionBuilder::new(&mut self.func)
            .block_mut(pred)
            .term
            .successors_mut()
        {
            if call.block == block {
                if call.args.len() <= index {
                    call.args.resize(index + 1, arg);
                }
                call.args[index] = arg;
            }
        }
        self.param_users[arg].push(param);
    }

    /// The value `v` stands for after trivial-parameter removal.
    pub fn resolve(&mut self, v: Value) -> Value {
        if !self.any_alias {
            return v;
        }
        let mut root = v;
        while let Some(next) = self.alias[root].expand() {
            root = next;
        }
        // Path compression.
        let mut cur = v;
        while let Some(next) = self.alias[cur].expand() {
            if next != root {
                self.alias[cur] = root.into();
            }
            cur = next;
        }
        root
    }

    /// The single value other than `param` that `param`'s arguments carry,
    /// if there is exactly one (then `param` is trivial).
    fn trivial_value(&mut self, param: Value) -> Option<Value> {
        let ValueDef::Param(block, index) = self.func.values()[param].def else {
            return None;
        };
        let mut args = std::mem::take(&mut self.args);
        args.clear();
        for &pred in self.preds(block) {
            for call in self.func.blocks()[pred].term.successors() {
                if call.block == block {
                    args.push(call.args.get(index as usize).copied());
                }
            }
        }
        let mut same = None;
        let mut trivial = true;
        for &arg in &args {
            let Some(arg) = arg else {
                trivial = false;
                break;
            };
            let arg = self.resolve(arg);
            if arg == param || Some(arg) == same {
                continue;
            }
            if same.is_some() {
                trivial = false;
                break;
            }
            same = Some(arg);
        }
        self.args = args;
        same.filter(|_| trivial)
    }

    /// Removes `param` if trivial, then re-checks the parameters that used
    /// it. Returns what `param` stands for now.
    fn try_remove_trivial(&mut self, param: Value) -> Value {
        let mut work = vec![param];
        while let Some(p) = work.pop() {
            if self.removed[p] || !self.filled[p] {
                continue;
            }
            let Some(same) = self.trivial_value(p) else {
                continue;
            };
            self.alias[p] = same.into();
            self.any_alias = true;
            self.removed[p] = true;
            let users = std::mem::take(&mut self.param_users[p]);
            for &u in &users {
                if u != p {
                    work.push(u);
                }
            }
            self.param_users[same].extend(users);
        }
        self.resolve(param)
    }

    /// Finishes construction: removes every remaining trivial parameter,
    /// applies the replacements, drops removed parameters and their edge
    /// arguments, and removes blocks not reachable from the entry.
    pub fn finish(mut self) -> Function {
        if self.func.layout().is_empty() {
            return self.func;
        }
        let all_blocks: Vec<Block> = self.func.layout().to_vec();
        for &b in &all_blocks {
            self.seal(b);
        }
        let mut params = Vec::new();
        for &b in &all_blocks {
            params.extend_from_slice(&self.func.blocks()[b].params);
        }
        for &p in &params {
            self.filled[p] = true;
        }
        for &p in &params {
            self.try_remove_trivial(p);
        }
        let layout = reverse_postorder(&self.func);
        FunctionBuilder::new(&mut self.func).set_layout(layout.clone());
        // Apply replacements (none to apply without aliases).
        if self.any_alias {
            for &b in &layout {
                for i in 0..self.func.blocks()[b].insts.len() {
                    let inst = self.func.blocks()[b].insts[i];
                    let mut kind = std::mem::replace(
                        &mut FunctionBuilder::new(&mut self.func).inst_mut(inst).kind,
                        InstKind::Clock,
                    );
                    kind.for_each_arg_mut(|v| *v = self.resolve(*v));
                    FunctionBuilder::new(&mut self.func).inst_mut(inst).kind = kind;
                }
                let mut term = std::mem::replace(
                    &mut FunctionBuilder::new(&mut self.func).block_mut(b).term,
                    Terminator::Return(None),
                );
                term.for_each_arg_mut(|v| *v = self.resolve(*v));
                FunctionBuilder::new(&mut self.func).set_terminator(b, term);
            }
        }
        // Drop removed parameters and their arguments: an edge keeps the
        // argument of each parameter of its target that stays (the
        // parameters are still all there while the edges are trimmed).
        let removed = &self.removed;
        let mut builder = FunctionBuilder::new(&mut self.func);
        for &b in &layout {
            let mut term =
                std::mem::replace(&mut builder.block_mut(b).term, Terminator::Return(None));
            for call in term.successors_mut() {
                let params = &builder.block_mut(call.block).params;
                let mut i = 0;
                call.args.retain(|_| {
                    let k = params.get(i).is_some_and(|&p| !removed[p]);
                    i += 1;
                    k
                });
            }
            builder.block_mut(b).term = term;
        }
        for &b in &layout {
            builder.retain_block_params(b, |p| !removed[p]);
        }
        self.func
    }
}

/// The blocks reachable from the entry in reverse post-order, successors
/// visited last-edge-first so that a branch's `then` side prints before its
/// `else` side and a loop body before the loop's exit.
fn reverse_postorder(func: &Function) -> Vec<Block> {
    let entry = func.layout()[0];
    let mut seen: SecondaryMap<Block, bool> = SecondaryMap::with_capacity(func.blocks().len());
    seen[entry] = true;
    let succs = |b: Block| -> Vec<Block> {
        let mut v: Vec<Block> = func.blocks()[b]
            .term
            .successors()
            .map(|c| c.block)
            .collect();
        v.reverse();
        v
    };
    let mut stack = vec![(entry, succs(entry), 0usize)];
    let mut post = Vec::new();
    while let Some((b, ss, i)) = stack.last_mut() {
        if let Some(&s) = ss.get(*i) {
            *i += 1;
            if !std::mem::replace(&mut seen[s], true) {
                let next = succs(s);
                stack.push((s, next, 0));
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// Emits the zero value of `ty` (`0`, `0.0`, `false`, `""`, `[]`) at the end
/// of `block` and returns it. `Unit` gets an `int` zero (never used).
pub(super) fn zero_value(func: &mut Function, block: Block, ty: Type) -> Value {
    let (kind, ty) = match ty {
        Type::Unit | Type::Int => (InstKind::IConst(0), Type::Int),
        Type::Float => (InstKind::FConst(0f64.to_bits()), Type::Float),
        Type::Bool => (InstKind::BConst(false), Type::Bool),
        Type::Str => (InstKind::SConst("".into()), Type::Str),
        Type::Array { .. } => (InstKind::ArrayLit(Vec::new()), ty),
    };
    FunctionBuilder::new(func).ins(block, kind, ty, SrcLoc::NONE)
}

#[cfg(test)]
mod tests {
    use super::Defs;
    use waddle_opt::ir::{Block, Value};

    /// A variable's latest definition lives in the vector, the blocks it
    /// left in the map: every (variable, block) keeps its last value.
    #[test]
    fn defs_keep_the_last_value_of_every_variable_in_every_block() {
        let (a, b) = (Block::from_u32(0), Block::from_u32(1));
        let v = Value::from_u32;
        let mut d = Defs::default();
        assert_eq!(d.get(3, a), None);
        d.insert(3, a, v(1));
        d.insert(3, a, v(2));
        assert_eq!(d.get(3, a), Some(v(2)));
        d.insert(3, b, v(3));
        assert_eq!((d.get(3, a), d.get(3, b)), (Some(v(2)), Some(v(3))));
        d.insert(3, a, v(4));
        assert_eq!((d.get(3, a), d.get(3, b)), (Some(v(4)), Some(v(3))));
        d.insert(3, b, v(5));
        assert_eq!((d.get(3, a), d.get(3, b)), (Some(v(4)), Some(v(5))));
        assert_eq!((d.get(0, a), d.get(7, b)), (None, None));
        // Below the first variable defined: the map alone.
        d.insert(1, a, v(6));
        d.insert(1, b, v(7));
        d.insert(1, a, v(8));
        assert_eq!((d.get(1, a), d.get(1, b)), (Some(v(8)), Some(v(7))));
        assert_eq!(d.last.len(), 1);
        // Blocks `a` and `b` keep variable 3 in their slots, so the old
        // definitions of 1 and 4 there are in the map; a fresh block's go
        // to its slot.
        let c = Block::from_u32(2);
        d.insert(4, a, v(9));
        d.insert(4, b, v(10));
        d.insert(4, c, v(11));
        d.insert(4, a, v(12));
        assert_eq!(
            (d.get(4, a), d.get(4, b), d.get(4, c)),
            (Some(v(12)), Some(v(10)), Some(v(11)))
        );
        assert_eq!((d.get(1, a), d.get(1, b)), (Some(v(8)), Some(v(7))));
        assert_eq!((d.get(3, a), d.get(3, b)), (Some(v(4)), Some(v(5))));
        assert_eq!(d.in_block[c], Some((4, v(11))));
        assert_eq!(d.older.len(), 4, "(1, a), (1, b), (4, a), (4, b)");
        assert_eq!((d.get(5, c), d.get(4, Block::from_u32(3))), (None, None));
    }
}
