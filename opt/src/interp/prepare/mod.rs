//! Translating one IR function into interpreter [`Code`].
//!
//! 1. **Structural checks**: every block, instruction and value the layout
//!    reaches exists, each value is defined once, and every edge passes one
//!    argument per target parameter. A function failing them gets code that
//!    traps (see [`Code::malformed`]); the IR verifier is the real gate.
//! 2. **Slot assignment**: the entry block's parameters take slots
//!    `0..nparams` (the caller writes the arguments there), then one slot per
//!    distinct constant (filled on frame entry, so constants cost nothing in
//!    loops), then one slot per remaining value.
//! 3. **Coalescing**: an instruction result whose only use is an argument of
//!    its block's unconditional jump is written straight into the target
//!    parameter's slot when that parameter is not read later in the block,
//!    so `i = i + 1` at a loop latch is one op and no move.
//! 4. **Emission** ([`emit`]): one op per instruction, with compare-and-
//!    branch and add-immediate superinstructions, `BoundsCheck` folded into
//!    the following element access, block-parameter moves on edges
//!    sequentialized ([`super::moves`]), and fall-through between adjacent
//!    blocks; before each safepoint, an [`super::code::Op::Clear`] of the
//!    slots holding dead references ([`crate::analysis::gc_slots`]).

mod cond;
mod emit;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::EntityRef;

use super::code::{Code, Slot};
use super::host::Host;
use crate::analysis::gc_slots::dead_ref_clears;
use crate::ir::{Block, FuncId, Function, InstKind, Program, Terminator, Value, ValueDef};

use super::code::NO_SLOT;

/// Prepares `func`: `None` for a declaration without body; code that traps
/// when called for a function failing the structural checks.
pub(crate) fn prepare(program: &Program, func: FuncId, host: &mut dyn Host) -> Option<Code> {
    let f = program.funcs.get(func)?;
    if f.is_declaration() {
        return None;
    }
    let nparams = f
        .layout
        .first()
        .and_then(|&b| f.blocks.get(b))
        .map_or(f.sig.params.len(), |bd| bd.params.len());
    let code = Prep::new(program, f).and_then(|p| p.build(host));
    match code {
        Some(code) if code.validate() => Some(code),
        _ => Some(Code::malformed(u32::try_from(nparams).unwrap_or(0), f.loc)),
    }
}

/// Per-function facts gathered before emission.
pub(super) struct Prep<'p> {
    pub(super) program: &'p Program,
    pub(super) func: &'p Function,
    /// Layout position of each block (by block index), `u32::MAX` if absent.
    pub(super) block_pos: Vec<u32>,
    /// Number of uses of each value (with multiplicity).
    pub(super) uses: Vec<u32>,
    /// Constant word of each constant-defined value.
    pub(super) const_word: Vec<Option<ConstKind>>,
    /// Slot of each value.
    pub(super) slot_of: Vec<Slot>,
    /// Coalesced results: value → the block parameter whose slot it uses,
    /// by value index (a function of a million joins coalesces millions of
    /// results, and a hash map of them cost a cache miss per entry).
    alias: Vec<PackedOption<Value>>,
    /// Loop headers by block index: back edges to them are
    /// [`super::code::Op::JumpBackOsr`].
    pub(super) osr_head: Vec<bool>,
}

/// A constant-defined value.
#[derive(Copy, Clone, Debug)]
pub(super) enum ConstKind {
    /// An `int` constant (immediates are made from these).
    Int(i64),
    /// Any other constant, as its word (strings are interned first).
    Other,
}

impl<'p> Prep<'p> {
    /// Runs the structural checks and gathers use counts and constants.
    fn new(program: &'p Program, func: &'p Function) -> Option<Prep<'p>> {
        let nvalues = func.values.len();
        let mut block_pos = vec![u32::MAX; func.blocks.len()];
        for (pos, &b) in func.layout.iter().enumerate() {
            let slot = block_pos.get_mut(b.index())?;
            if *slot != u32::MAX {
                return None; // a block laid out twice
            }
            *slot = u32::try_from(pos).ok()?;
        }
        let mut defined = vec![false; nvalues];
        let mut define = |v: Value| -> Option<()> {
            let d = defined.get_mut(v.index())?;
            if *d {
                return None;
            }
            *d = true;
            Some(())
        };
        let mut seen_inst = vec![false; func.insts.len()];
        let mut uses = vec![0u32; nvalues];
        let mut const_word = vec![None; nvalues];
        let mut ok = true;
        let mut use_value = |v: Value, uses: &mut Vec<u32>| match uses.get_mut(v.index()) {
            Some(n) => *n = n.saturating_add(1),
            None => ok = false,
        };
        for &b in &func.layout {
            let bd = &func.blocks[b];
            for &p in &bd.params {
                define(p)?;
            }
            for &inst in &bd.insts {
                let seen = seen_inst.get_mut(inst.index())?;
                if *seen {
                    return None;
                }
                *seen = true;
                let data = &func.insts[inst];
                if let Some(r) = data.result {
                    define(r)?;
                    const_word[r.index()] = match data.kind {
                        InstKind::IConst(k) => Some(ConstKind::Int(k)),
                        InstKind::FConst(_) | InstKind::BConst(_) | InstKind::SConst(_) => {
                            Some(ConstKind::Other)
                        }
                        _ => None,
                    };
                }
                data.kind.for_each_arg(|v| use_value(v, &mut uses));
            }
            bd.term.for_each_arg(|v| use_value(v, &mut uses));
            for bc in bd.term.successors() {
                let pos = *block_pos.get(bc.block.index())?;
                if pos == u32::MAX || func.blocks[bc.block].params.len() != bc.args.len() {
                    return None;
                }
            }
            if let Terminator::Switch {
                value: None, cases, ..
            } = &bd.term
            {
                if !cases.is_empty() {
                    return None;
                }
            }
        }
        // Every used value must be defined by the laid-out code.
        if !ok || uses.iter().zip(&defined).any(|(&n, &d)| n > 0 && !d) {
            return None;
        }
        let mut prep = Prep {
            program,
            func,
            block_pos,
            uses,
            const_word,
            slot_of: vec![NO_SLOT; nvalues],
            alias: vec![PackedOption::default(); nvalues],
            osr_head: Vec::new(),
        };
        prep.plan_coalescing();
        let back_edge = func.layout.iter().enumerate().any(|(i, &b)| {
            (func.blocks[b].term.successors())
                .any(|s| prep.block_pos[s.block.index()] as usize <= i)
        });
        if back_edge {
            prep.osr_head = loop_headers(func);
        }
        Some(prep)
    }

    /// Finds latch-style results that can be written straight into the
    /// parameter slot of their block's jump target (see the module docs).
    fn plan_coalescing(&mut self) {
        let f = self.func;
        // Per block, by value index: the position of the instruction
        // defining it, the last position reading it (+ 1; 0: none) and how
        // often the jump passes it. Filled for one block at a time and
        // reset through `touched`, so each block costs its own size (a
        // latch passing thousands of values to a block of thousands of
        // instructions stays linear).
        let n = f.values.len();
        let mut def_at = vec![u32::MAX; n];
        let mut read_until = vec![0u32; n];
        let mut passed = vec![0u32; n];
        let mut touched: Vec<Value> = Vec::new();
        for &b in &f.layout {
            let bd = &f.blocks[b];
            let Terminator::Switch {
                value: None,
                default,
                ..
            } = &bd.term
            else {
                continue;
            };
            if default.args.is_empty() {
                continue;
            }
            for (at, &i) in bd.insts.iter().enumerate() {
                let at = at as u32;
                let data = &f.insts[i];
                data.kind.for_each_arg(|x| {
                    if let Some(r) = read_until.get_mut(x.index()) {
                        *r = at + 1;
                        touched.push(x);
                    }
                });
                if let Some(r) = data.result {
                    if let Some(d) = def_at.get_mut(r.index()) {
                        // The first definition, as a search from the start
                        // finds it.
                        *d = (*d).min(at);
                        touched.push(r);
                    }
                }
            }
            for &x in &default.args {
                if let Some(c) = passed.get_mut(x.index()) {
                    *c += 1;
                    touched.push(x);
                }
            }
            let params = &f.blocks[default.block].params;
            for (&v, &p) in default.args.iter().zip(params) {
                if self.uses[v.index()] != 1 || self.const_word[v.index()].is_some() {
                    continue;
                }
                let ValueDef::Inst(def) = f.values[v].def else {
                    continue;
                };
                // `v`'s definition in this block (`def` defines `v`).
                let at = def_at.get(v.index()).copied().unwrap_or(u32::MAX);
                if at == u32::MAX || bd.insts[at as usize] != def {
                    continue;
                }
                let pi = p.index();
                if pi >= n {
                    continue;
                }
                // Read by an instruction after `v`'s definition, or passed
                // by the jump at another position.
                let read_later = read_until[pi] > at + 1 || passed[pi] > u32::from(v == p);
                if !read_later {
                    self.alias[v.index()] = p.into();
                }
            }
            for x in touched.drain(..) {
                def_at[x.index()] = u32::MAX;
                read_until[x.index()] = 0;
                passed[x.index()] = 0;
            }
        }
    }

    /// Assigns slots: parameters, constants, then everything else. Returns
    /// `(const_base, consts, next free slot)`.
    fn assign_slots(&mut self, host: &mut dyn Host) -> Option<(u32, Vec<u64>, u32)> {
        let f = self.func;
        let mut next: u32 = 0;
        let entry = *f.layout.first()?;
        for &p in &f.blocks[entry].params {
            self.slot_of[p.index()] = next;
            next = next.checked_add(1)?;
        }
        let const_base = next;
        let mut consts: Vec<u64> = Vec::new();
        let mut const_slot: HashMap<u64, Slot> = HashMap::new();
        let mut interned: HashMap<&str, u64> = HashMap::new();
        for &b in &f.layout {
            for &inst in &f.blocks[b].insts {
                let data = &f.insts[inst];
                let Some(r) = data.result else { continue };
                let word = match &data.kind {
                    InstKind::IConst(k) => *k as u64,
                    InstKind::FConst(bits) => *bits,
                    InstKind::BConst(x) => u64::from(*x),
                    InstKind::SConst(s) => *interned.entry(s).or_insert_with(|| host.intern_str(s)),
                    _ => continue,
                };
                let slot = *const_slot.entry(word).or_insert_with(|| {
                    consts.push(word);
                    const_base + consts.len() as u32 - 1
                });
                self.slot_of[r.index()] = slot;
            }
        }
        next = next.checked_add(u32::try_from(consts.len()).ok()?)?;
        for &b in &f.layout[1..] {
            for &p in &f.blocks[b].params {
                self.slot_of[p.index()] = next;
                next = next.checked_add(1)?;
            }
        }
        for &b in &f.layout {
            for &inst in &f.blocks[b].insts {
                let Some(r) = f.insts[inst].result else {
                    continue;
                };
                if self.slot_of[r.index()] != NO_SLOT {
                    continue;
                }
                if let Some(p) = self.alias[r.index()].expand() {
                    self.slot_of[r.index()] = self.slot_of[p.index()];
                } else {
                    self.slot_of[r.index()] = next;
                    next = next.checked_add(1)?;
                }
            }
        }
        Some((const_base, consts, next))
    }

    /// Assigns slots and emits the code.
    fn build(mut self, host: &mut dyn Host) -> Option<Code> {
        let frame = self.assign_slots(host)?;
        // Constants are filled on entry and never cleared.
        let clears = dead_ref_clears(self.func, &self.func.layout, |v| {
            let constant = self.const_word.get(v.index()).is_some_and(|c| c.is_some());
            if constant {
                None
            } else {
                self.slot(v)
            }
        });
        emit::Emitter::new(self, frame, clears).run()
    }

    /// The slot of a value (`None` when it has none: malformed IR).
    pub(super) fn slot(&self, v: Value) -> Option<Slot> {
        self.slot_of
            .get(v.index())
            .copied()
            .filter(|&s| s != NO_SLOT)
    }

    /// Whether `b` heads a loop (an OSR point).
    pub(super) fn is_osr_head(&self, b: Block) -> bool {
        self.osr_head.get(b.index()).copied().unwrap_or(false)
    }

    /// The layout position of a block.
    pub(super) fn pos(&self, b: Block) -> u32 {
        self.block_pos[b.index()]
    }

    /// The value of an `int` constant that fits an `i32` immediate.
    pub(super) fn imm(&self, v: Value) -> Option<i32> {
        match self.const_word.get(v.index()) {
            Some(Some(ConstKind::Int(k))) => i32::try_from(*k).ok(),
            _ => None,
        }
    }
}

/// The headers of `func`'s loops (nested ones too), by block index: where
/// the interpreter may hand a running activation over to compiled code
/// ([`crate::osr`]; the host checks [`crate::osr::is_osr_point`] again).
fn loop_headers(func: &Function) -> Vec<bool> {
    use crate::analysis::{loops::LoopForest, ControlFlowGraph, DomTree};
    let mut heads = Vec::new();
    let cfg = ControlFlowGraph::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let forest = LoopForest::compute(func, &cfg, &dom);
    heads.resize(func.blocks.len(), false);
    for l in forest.loops() {
        let h = forest.header(l);
        if h != func.entry() {
            heads[h.index()] = true;
        }
    }
    heads
}
