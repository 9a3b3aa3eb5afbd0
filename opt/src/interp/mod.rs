//! The reference interpreter: the meaning of Waddle IR.
//!
//! Not a tree walker: each function is translated once (`prepare`) into a
//! compact register-machine code (`code`) whose operands are
//! pre-resolved slot indices into a flat per-frame array of words, with
//! constants materialized into slots, block parameters passed by
//! sequentialized parallel moves on the edges (`moves`), and
//! superinstructions for compare-and-branch, add-immediate and
//! bounds-checked element access. `exec` runs it in one dispatch loop with
//! an explicit frame stack, so deep Waddle recursion never overflows the
//! native stack; call depth is bounded by the stack budget in bytes.
//!
//! Semantics follow docs/language.md through the IR's instruction definitions
//! (`ir::instructions`); heap objects are read and written directly through
//! the [`crate::abi`] layouts, and everything that allocates, prints or
//! reads the clock goes through the [`Host`].
//!
//! # Input requirements
//! The program should pass the IR verifier. Functions that fail the
//! interpreter's own structural checks (dangling blocks, values or
//! instructions, values defined twice, edges with the wrong number of
//! arguments, unknown globals, non-array allocation results) still prepare:
//! calling them traps `assertion failed` at the function's location. A call
//! that cannot be executed (to a function without a body, or with the wrong
//! number of arguments) traps `assertion failed` at the call. No new
//! [`TrapCode`] exists for these internal errors since verified IR never
//! reaches them. Element loads and stores check bounds even without a
//! preceding `BoundsCheck` (trapping `index out of bounds` at their own
//! location), so IR that drops a check wrongly cannot corrupt memory; heap
//! operations do trust the verified value types.
//!
//! Block parameters (in place of φ nodes, Fritz ch. 3) become parallel
//! copies on the edges; a result whose only use is the argument of its
//! block's jump is computed straight into the parameter's slot.
//!
//! Fuel: one unit per function entry and per loop back edge, charged to the
//! host in batches of 1024 and flushed when [`Interpreter::call`] returns; an
//! exhausted budget found at that flush turns the result into `out of fuel`.
//!
//! # Mixed tiers
//! A function can be marked *external* ([`Interpreter::set_external`]):
//! calls of it go to [`Host::call_func`], which runs it on another tier,
//! with the value stack up to the caller's frame as GC roots. Another tier
//! can call back into the interpreter at any depth: [`Interpreter::call`]
//! takes `&self` and each activation runs on its own value and frame
//! stacks (from a pool), charged against what is left of the stack budget
//! after the activations below it. Each function has a call counter and a
//! loop back-edge counter ([`Interpreter::set_counters`]) that count down
//! on every call and back edge; when one runs out the interpreter tells
//! [`Host::hot`], which decides about promotion. A fresh interpreter's
//! counters never run out.

mod code;
mod divisor;
mod exec;
mod host;
pub mod moves;
mod prepare;

pub use host::{Host, LoopFrame};

use std::cell::{Cell, RefCell};

use cranelift_entity::EntityRef;

use crate::abi::{carry, max_call_depth, Trap, TrapCode, Word, DEFAULT_STACK_BUDGET};
use crate::ir::{FuncId, Program, SrcLoc};
use code::Code;
use exec::{Frame, FRAME_OVERHEAD, FUEL_BATCH};

/// Executes the functions of a program (the T0 tier).
pub struct Interpreter {
    /// Prepared code by function index; `None` for declarations.
    funcs: Vec<Option<Box<Code>>>,
    /// Each function's declaration location (for traps raised on entry).
    locs: Vec<SrcLoc>,
    /// Value and frame stacks for activations, reused between calls (one
    /// pair per nesting level in use).
    pool: RefCell<Vec<(Vec<u64>, Vec<Frame>)>>,
    /// Stack-budget bytes used by the activations below the running one.
    outer_used: Cell<usize>,
    /// Stack budget in bytes.
    budget: usize,
    /// The highest global index any prepared code uses.
    max_global: Option<u32>,
}

impl Interpreter {
    /// Prepares (pre-resolves) every function of `program` that has a body;
    /// interns string constants through `host`.
    pub fn new(program: &Program, host: &mut dyn Host) -> Interpreter {
        let mut interp = Interpreter {
            funcs: Vec::new(),
            locs: Vec::new(),
            pool: RefCell::new(Vec::new()),
            outer_used: Cell::new(0),
            budget: DEFAULT_STACK_BUDGET,
            max_global: None,
        };
        let recursive = crate::analysis::callgraph::recursive_functions(program);
        for id in program.funcs.keys() {
            interp.prepare_one(program, id, host);
        }
        interp.mark_recursive(&recursive);
        interp
    }

    /// Sets every prepared function's `recursive` flag.
    fn mark_recursive(&mut self, recursive: &cranelift_entity::SecondaryMap<FuncId, bool>) {
        for (i, code) in self.funcs.iter_mut().enumerate() {
            if let Some(code) = code {
                code.recursive = recursive[FuncId::new(i)];
            }
        }
    }

    /// Re-prepares one function after it was added or its body changed
    /// (REPL redefinition); the program may have grown (new functions or
    /// globals).
    pub fn update(&mut self, program: &Program, func: FuncId, host: &mut dyn Host) {
        self.update_many(program, &[func], host);
    }

    /// [`Interpreter::update`] for several functions at once: the cycles
    /// of calls are found once, not once per function (an entry that
    /// defines many functions stays linear in their number).
    pub fn update_many(&mut self, program: &Program, funcs: &[FuncId], host: &mut dyn Host) {
        for &func in funcs {
            self.prepare_one(program, func, host);
        }
        // A new body may close or open a cycle of calls.
        let recursive = crate::analysis::callgraph::recursive_functions(program);
        self.mark_recursive(&recursive);
    }

    fn prepare_one(&mut self, program: &Program, func: FuncId, host: &mut dyn Host) {
        let n = program.funcs.len();
        if self.funcs.len() < n {
            self.funcs.resize_with(n, || None);
            self.locs.resize(n, SrcLoc::NONE);
        }
        let i = func.index();
        if i < self.funcs.len() {
            let old = self.funcs[i].take();
            let old_max = old.as_ref().and_then(|c| c.max_global);
            self.funcs[i] = prepare::prepare(program, func, host).map(|mut c| {
                c.func = i as u32;
                if let Some(old) = old {
                    // Redefinition keeps the counters (the host decides).
                    c.tier = old.tier.clone();
                }
                Box::new(c)
            });
            self.locs[i] = program.funcs.get(func).map_or(SrcLoc::NONE, |f| f.loc);
            let new_max = self.funcs[i].as_ref().and_then(|c| c.max_global);
            if old_max.is_some() && old_max == self.max_global && new_max < old_max {
                // The replaced code held the maximum: recount (rare: a
                // redefinition that reads fewer globals).
                self.max_global = self
                    .funcs
                    .iter()
                    .flatten()
                    .filter_map(|c| c.max_global)
                    .max();
            } else {
                // Preparing every function of a program one by one stays
                // linear in their number.
                self.max_global = self.max_global.max(new_max);
            }
        }
    }

    /// Sets the stack budget in bytes (default [`DEFAULT_STACK_BUDGET`]).
    pub fn set_stack_budget(&mut self, bytes: usize) {
        self.budget = bytes;
    }

    /// Makes calls of `func` from interpreted code go to
    /// [`Host::call_func`] (`true`: it runs on another tier now) or run on
    /// the interpreter again (`false`). Allowed while code runs.
    pub fn set_external(&self, func: FuncId, external: bool) {
        if let Some(Some(c)) = self.funcs.get(func.index()) {
            c.tier.external.set(external);
            if external {
                c.tier.calls.set(0);
            } else if c.tier.calls.get() <= 0 {
                c.tier.calls.set(i32::MAX);
            }
        }
    }

    /// Whether calls of `func` go to another tier.
    pub fn is_external(&self, func: FuncId) -> bool {
        matches!(self.funcs.get(func.index()), Some(Some(c)) if c.tier.external.get())
    }

    /// Re-arms `func`'s counters: [`Host::hot`] hears about it after
    /// `calls` more calls or `edges` more loop back edges (`i32::MAX`:
    /// practically never). No effect on the call counter of an external
    /// function. Allowed while code runs.
    pub fn set_counters(&self, func: FuncId, calls: i32, edges: i32) {
        if let Some(Some(c)) = self.funcs.get(func.index()) {
            if !c.tier.external.get() {
                c.tier.calls.set(calls.max(1));
            }
            c.tier.edges.set(edges.max(1));
        }
    }

    /// `func`'s counters: calls and back edges left before [`Host::hot`].
    pub fn counters(&self, func: FuncId) -> Option<(i32, i32)> {
        let c = self.funcs.get(func.index())?.as_ref()?;
        Some((c.tier.calls.get(), c.tier.edges.get()))
    }

    /// Runs `func` with `args` (one word per parameter); returns the result
    /// word (0 for `void`). Re-entrant: another tier may call back into the
    /// interpreter while it runs (see the module docs).
    pub fn call(&self, host: &mut dyn Host, func: FuncId, args: &[Word]) -> Result<Word, Trap> {
        let loc = self.locs.get(func.index()).copied().unwrap_or(SrcLoc::NONE);
        self.call_at(host, func, args, loc)
    }

    /// [`Interpreter::call`], reporting traps raised before the function's
    /// first instruction (stack overflow, wrong arguments) at `entry_loc`
    /// (the declaration for a call from Rust, [`SrcLoc::NONE`] for a call
    /// from compiled code, which then reports its call site).
    pub fn call_at(
        &self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
        entry_loc: SrcLoc,
    ) -> Result<Word, Trap> {
        let loc = entry_loc;
        let fail = |code| Err(Trap { code, loc });
        let Some(Some(entry)) = self.funcs.get(func.index()) else {
            return fail(TrapCode::AssertionFailed);
        };
        if args.len() != entry.nparams as usize {
            return fail(TrapCode::AssertionFailed);
        }
        if self
            .max_global
            .is_some_and(|g| g as usize >= host.globals().len())
        {
            return fail(TrapCode::AssertionFailed);
        }
        let top = entry.nslots as usize;
        let outer = self.outer_used.get();
        let budget = self.budget.saturating_sub(outer);
        // The byte safety net (`abi::stack_byte_limit`), with what the
        // activations below use taken off.
        let bytes = crate::abi::stack_byte_limit(self.budget).saturating_sub(outer);
        // A call from another tier goes on with the depth its caller had
        // left (so a mixed chain allows the depth of a single tier); a call
        // from Rust starts from the budget.
        // It also goes on with its caller's fuel batch: the entry's unit
        // is charged to it here (as the interpreter's own call op does,
        // before the stack checks), and what is left of the batch goes
        // back when this activation ends, so batches end at the same unit
        // as on a single tier and fuel runs out at the same place.
        let (carried, carried_fuel) = carry::carry_in();
        let batch = match carried_fuel {
            None => None,
            Some(b) => match exec::take_entry_unit(host, b) {
                Ok(left) => Some(left),
                Err(c) => {
                    carry::fuel_back(FUEL_BATCH);
                    return fail(c);
                }
            },
        };
        let fail = |code| {
            if let Some(left) = batch {
                carry::fuel_back(left);
            }
            fail(code)
        };
        let depth_left =
            carried.unwrap_or_else(|| max_call_depth(budget)) - i64::from(entry.recursive);
        if depth_left < 0 {
            return fail(TrapCode::StackOverflow);
        }
        let mut bufs = self.pool.borrow_mut().pop().unwrap_or_default();
        if top * 8 + FRAME_OVERHEAD > bytes
            || (bufs.0.len() < top && bufs.0.try_reserve(top).is_err())
        {
            self.pool.borrow_mut().push(bufs);
            return fail(TrapCode::StackOverflow);
        }
        let r = exec::run(
            &self.funcs,
            &mut bufs,
            (bytes, depth_left),
            &self.outer_used,
            host,
            (entry, batch),
            args,
        );
        self.pool.borrow_mut().push(bufs);
        r
    }
}
