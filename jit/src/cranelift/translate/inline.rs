//! One level of inlining of a small recursive function's calls of itself,
//! done while translating (T2 only, where self calls are direct; see
//! `Translator::run`).
//!
//! The IR inliner (`waddle_opt::passes::inline`) never inlines a recursive
//! function: the recursion depth counts exactly the frames of recursive
//! functions on every tier. Here the inlined copy keeps its frame's
//! observable effects, so nothing changes but the native frames:
//! - its entry takes a frame of `VmCtx::depth_left` (a `stack overflow`
//!   when none is left, located at the call, as a failing callee prologue
//!   is after the caller's trap check) and charges one unit of fuel (a
//!   failure located at the call), like a real callee's prologue;
//! - its returns give the frame back and continue after the call;
//! - its traps record their own locations, as in the callee, and report
//!   two frames to the stack trace, the copy's and the caller's at the
//!   call (`Translator::inline_sites`);
//! - its own self calls are real (direct) calls, so one level only, or
//!   guarded calls ([`super::guard`]).
//!
//! The native stack check is the caller's: the copy lives in the caller's
//! frame. The recursion depth, not the native stack, is what bounds
//! recursion on every tier (`VmCtx::depth_left`).
//!
//! Every other level of the call tree runs inline, so a function like
//! `fib` makes about half the calls and sets up half the frames.
//!
//! # In a tail loop
//! A function whose tail self call is a loop ([`super::tail`]) inlines its
//! other self calls into the loop's body the same way, with two changes
//! that keep the loop's frame accounting:
//! - the copy's frame is the iteration's counter (`left`) minus one, kept
//!   in no register of its own: its entry checks that `left` has a frame
//!   (which the block's tail jump then need not check again), its own self
//!   calls are guarded ([`super::guard`]) against `left - 1`, and it stores
//!   `left - 1` in `VmCtx::depth_left` only right before each call it
//!   makes (whatever may read the counter). Its returns store nothing: the
//!   iteration stores `left` again after the copy, unless the counter is
//!   stored anyway before anything reads it (the block's tail jump or a
//!   return comes first);
//! - a trap in the copy reports the copy's frame, the iteration's at the
//!   call, then the iterations' frames; the unwinder
//!   ([`super::super::unwind`]) counts the iterations of a frame suspended
//!   at a call in a copy as one fewer than the callee's counter suggests
//!   (the copy's frame).
//!
//! The copy's own tail call is a real call (one level only), so the
//! copies of `fib(n - 1)` and the loop over `fib(n - 2)` leave the real
//! calls at every other level of the call tree: fib(40) makes 63 million
//! real calls instead of 102 million and runs about 30 % faster.

use cranelift_codegen::ir::{self, BlockArg, InstBuilder};
use waddle_opt::abi::TrapCode;
use waddle_opt::ir::{FuncId, Function, InstKind, SrcLoc};

use super::Translator;
use crate::abi::native_type;

/// The call sites of the inlined copies an instruction is translated in,
/// innermost first: a trap there reports one more frame of the function
/// for each. At most two (a guarded copy inside an inlined copy).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug)]
pub(crate) struct Sites {
    /// The first `len` entries are the sites.
    locs: [SrcLoc; 2],
    /// How many sites there are.
    len: u8,
}

impl Sites {
    /// These sites inside one more copy, inlined at `loc` (the new
    /// innermost site).
    pub(super) fn inside(self, loc: SrcLoc) -> Sites {
        assert!(
            self.len < 2,
            "self calls are inlined at most one level, then guarded"
        );
        let mut locs = [loc; 2];
        locs[1] = self.locs[0];
        Sites {
            locs,
            len: self.len + 1,
        }
    }

    /// The sites, innermost first.
    pub(crate) fn iter(self) -> impl Iterator<Item = SrcLoc> {
        self.locs.into_iter().take(usize::from(self.len))
    }
}

/// Largest function (in instructions and terminators) whose self calls are
/// inlined.
const MAX_INSTS: usize = 40;
/// Most self calls a function may have for them to be inlined: the
/// function's code grows by one copy per call.
const MAX_CALLS: usize = 4;

/// The self calls of `func` (`self_call` names it) in its body.
pub(super) fn self_calls(func: &Function, self_call: Option<(FuncId, ir::FuncRef)>) -> usize {
    let Some((me, _)) = self_call else {
        return 0;
    };
    func.layout()
        .iter()
        .flat_map(|&bl| func.blocks()[bl].insts.iter())
        .filter(|&&i| matches!(func.inst(i).kind, InstKind::Call(c, _) if c == me))
        .count()
}

/// Whether the self calls of `func` (`self_call` names it) are inlined one
/// level: the function is small, and has at least one and at most
/// [`MAX_CALLS`] self calls.
pub(super) fn worth_inlining(func: &Function, self_call: Option<(FuncId, ir::FuncRef)>) -> bool {
    func.inst_count() <= MAX_INSTS && (1..=MAX_CALLS).contains(&self_calls(func, self_call))
}

impl Translator<'_, '_> {
    /// Whether `callee` is the function being translated, called directly.
    pub(super) fn is_self(&self, callee: FuncId) -> bool {
        self.self_call.is_some_and(|(me, _)| me == callee)
    }

    /// Translates a self call with native arguments `args` (without the
    /// context) at `loc` as an inlined copy of the function (see the module
    /// docs); returns the result.
    pub(super) fn inline_self_call(
        &mut self,
        args: &[ir::Value],
        loc: SrcLoc,
    ) -> Option<ir::Value> {
        if self.tail.is_some() {
            return self.inline_self_call_in_loop(args, loc);
        }
        let cont = self.b.create_block();
        let result = native_type(self.func.sig().ret).map(|t| self.b.append_block_param(cont, t));
        let vals = std::mem::take(&mut self.vals);
        let blocks = std::mem::take(&mut self.blocks);
        let depth = self.depth_on_entry.take();
        let outer_cont = self.inlined.replace(cont);
        let overflow = self.trap_block(TrapCode::StackOverflow, loc);
        // The counter now holds the caller's entry value minus its own frame.
        let known = depth.map(|(d, k)| (d, k + 1));
        self.take_depth(overflow, known);
        self.fuel_tick(Some(loc));
        // From here on a trap leaves the copy's frame and the caller's.
        let outer_sites = self.inline_sites;
        self.inline_sites = outer_sites.inside(loc);
        self.create_blocks();
        let first = self.block_of(self.func.entry());
        let bargs: Vec<BlockArg> = args.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().jump(first, &bargs);
        self.translate_blocks();
        self.inline_sites = outer_sites;
        self.vals = vals;
        self.blocks = blocks;
        self.depth_on_entry = depth;
        self.inlined = outer_cont;
        self.b.switch_to_block(cont);
        result
    }

    /// Translates a self call with native arguments `args` at `loc` in an
    /// iteration of a tail loop as an inlined copy of the function (see the
    /// module docs, "In a tail loop"); returns the result.
    fn inline_self_call_in_loop(&mut self, args: &[ir::Value], loc: SrcLoc) -> Option<ir::Value> {
        // The copy's frame: the iteration's counter must have one left (a
        // check the tail jump of this block then need not repeat).
        let overflow = self.trap_block(TrapCode::StackOverflow, loc);
        let none_left = self.tail_none_left(self.current_block)?;
        let go = self.b.create_block();
        self.b.ins().brif(none_left, overflow, &[], go, &[]);
        self.b.switch_to_block(go);
        self.fuel_tick(Some(loc));
        let restore = self.counter_read_after_call();
        let cont = self.b.create_block();
        let result = native_type(self.func.sig().ret).map(|t| self.b.append_block_param(cont, t));
        let vals = std::mem::take(&mut self.vals);
        let blocks = std::mem::take(&mut self.blocks);
        let outer_cont = self.inlined.replace(cont);
        let outer_sites = self.inline_sites;
        self.inline_sites = outer_sites.inside(loc);
        self.loop_copy = true;
        self.create_blocks();
        let first = self.block_of(self.func.entry());
        let bargs: Vec<BlockArg> = args.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().jump(first, &bargs);
        self.translate_blocks();
        self.loop_copy = false;
        self.inline_sites = outer_sites;
        self.vals = vals;
        self.blocks = blocks;
        self.inlined = outer_cont;
        self.b.switch_to_block(cont);
        if restore {
            self.store_iteration_depth(0);
        }
        result
    }
}
