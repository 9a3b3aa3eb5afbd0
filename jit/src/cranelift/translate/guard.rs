//! Guarded self calls: a self call that is not inlined runs the callee's
//! quiet prefix inline and makes the real call only when that prefix
//! leaves it (T2/T3 only, where self calls are direct; see
//! `Translator::run`): partial inlining of the callee's entry region.
//!
//! The *region* of a recursive function is the part from its entry that
//! no call, store, allocation or output can happen in: blocks of "quiet"
//! instructions (arithmetic, comparisons, loads, bounds checks, asserts)
//! reached from the entry along forward edges. For `fib`, the test
//! `n < 2` and `return n`; for `tak`, `y >= x` and `return z`. A guarded
//! call translates the region with the call's arguments; a `return` in it
//! continues after the call with its value, and every edge that leaves the
//! region goes to one block that makes the real (direct) call with the same
//! arguments. The callee runs its region again there: nothing in it has an
//! effect, so running it twice is running it once, and a trap in it would
//! have been raised by the inline run.
//!
//! What a frame of the function would show is kept:
//! - the copy takes no native frame but a frame of recursion depth: it
//!   raises `stack overflow` at the call, as the callee's prologue would,
//!   when `VmCtx::depth_left` has no frame left (checked only: the counter
//!   in memory is not changed, since nothing the copy runs reads it, and
//!   the real call takes its own frame);
//! - a trap in the region reports the copy's frame at its location and the
//!   caller's at the call (`Translator::inline_sites`), as the inlined
//!   copies of [`super::inline`] do;
//! - functions that count fuel are not guarded (the region's entry charge
//!   and the real callee's would both be paid).
//!
//! The copy does not check the native stack (it takes none): where a
//! small native stack, not the depth budget, ends a recursion, T2 and T3
//! recurse somewhat deeper than the other tiers before `stack overflow`,
//! as with the inlined copies of [`super::inline`]; where native stack
//! runs out depends on the tier's frame sizes already (the `waddle`
//! crate's `engine` module documents the stack limit).
//!
//! Real calls of `fib` that would only return `n` (half of its calls) run
//! as a compare and a branch instead of a frame set up and torn down; `tak`
//! runs 2.8x faster (most of its calls return `z` at once).
//!
//! A function whose self calls are guarded is not also inlined into itself
//! ([`super::inline`]) unless it has a tail loop: with both and no loop,
//! each copy's returns store the counter and its frame's partial results
//! and the guards' tests keep more values live across calls than x86-64
//! has callee-saved registers, the context pointer spills, and fib ran
//! 1.7x slower than with either alone. In a tail loop the copy's frame
//! lives in the iteration's counter ([`super::inline`]), and fib runs
//! about 30 % faster than with guards alone.

use std::collections::HashSet;

use super::BlockPos;

use cranelift_codegen::ir::{self, BlockArg, InstBuilder};
use waddle_opt::abi::TrapCode;
use waddle_opt::ir::{Block, Function, InstKind, SrcLoc, Terminator};

use super::Translator;
use crate::abi::native_type;

/// Largest region (in instructions and terminators) a guarded call copies.
const MAX_REGION: usize = 16;
/// Most instructions all guarded copies of one function may add.
const MAX_GROWTH: usize = 512;

/// The quiet entry region of a function (see the module docs).
pub(super) struct Region {
    /// The region's blocks.
    member: HashSet<Block>,
    /// The region's blocks in reverse postorder.
    order: Vec<Block>,
    /// Layout position of every block (an edge in the region goes forward).
    pos: BlockPos,
}

/// Whether `kind` is quiet: it has no effect but a possible trap, so
/// running it again in the real call changes nothing.
fn quiet(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::IConst(_)
            | InstKind::FConst(_)
            | InstKind::BConst(_)
            | InstKind::Copy(_)
            | InstKind::Unary(..)
            | InstKind::Binary(..)
            | InstKind::GlobalGet(_)
            | InstKind::ArrayLen(_)
            | InstKind::BoundsCheck(..)
            | InstKind::ArrayGet(..)
            | InstKind::StrLen(_)
            | InstKind::StrCmp(..)
            | InstKind::Assert(_)
    )
}

impl Region {
    /// The region of `func` (blocks in reverse postorder `order`, layout
    /// positions `pos`) when guarding its self calls pays: the region
    /// returns somewhere, is small, and its copies at the `calls` self
    /// calls together stay small.
    pub(super) fn of(
        func: &Function,
        order: &[Block],
        pos: &BlockPos,
        calls: usize,
    ) -> Option<Region> {
        let entry = *order.first()?;
        let is_quiet = |b: Block| {
            func.blocks()[b]
                .insts
                .iter()
                .all(|&i| quiet(&func.inst(i).kind))
        };
        if !is_quiet(entry) {
            return None;
        }
        let mut member = HashSet::new();
        member.insert(entry);
        let mut work = vec![entry];
        while let Some(b) = work.pop() {
            for c in func.blocks()[b].term.successors() {
                let t = c.block;
                let forward = matches!((pos.get(b), pos.get(t)), (Some(x), Some(y)) if y > x);
                if forward && !member.contains(&t) && is_quiet(t) {
                    member.insert(t);
                    work.push(t);
                }
            }
        }
        let returns = member
            .iter()
            .any(|&b| matches!(func.blocks()[b].term, Terminator::Return(_)));
        let size: usize = member
            .iter()
            .map(|&b| func.blocks()[b].insts.len() + 1)
            .sum();
        if calls == 0 || !returns || size > MAX_REGION || calls * size > MAX_GROWTH {
            return None;
        }
        let order = order
            .iter()
            .copied()
            .filter(|b| member.contains(b))
            .collect();
        Some(Region {
            member,
            order,
            pos: pos.clone(),
        })
    }

    /// Whether the edge `from` → `to` stays in the region (a forward edge
    /// between two of its blocks).
    pub(super) fn allows(&self, from: Block, to: Block) -> bool {
        self.member.contains(&to)
            && matches!((self.pos.get(from), self.pos.get(to)), (Some(x), Some(y)) if y > x)
    }
}

impl Translator<'_, '_> {
    /// Whether a self call here is translated as a guarded call: the
    /// function has a region, the counter's value here is known, and this
    /// is not inside a guarded copy already.
    pub(super) fn guards_here(&self) -> bool {
        self.guard.is_some() && self.guard_exit.is_none() && self.depth_on_entry.is_some()
    }

    /// Translates a self call with native arguments `args` (without the
    /// context) at `loc` as a guarded call (see the module docs); returns
    /// the result. `real` makes the real call (with the context and
    /// `args`) in the current block and returns its result.
    pub(super) fn guarded_self_call(
        &mut self,
        args: &[ir::Value],
        loc: SrcLoc,
        real: impl FnOnce(&mut Self) -> Option<ir::Value>,
    ) -> Option<ir::Value> {
        let region = self.guard.take().expect("guards_here");
        let cont = self.b.create_block();
        let result = native_type(self.func.sig().ret).map(|t| self.b.append_block_param(cont, t));
        let exit = self.b.create_block();
        // The copy's frame of recursion depth: the counter holds the
        // caller's entry value minus the caller's own frame.
        let overflow = self.trap_block(TrapCode::StackOverflow, loc);
        let depth = self.depth_on_entry.take().expect("guards_here");
        // In a tail loop the counter is the iteration's.
        let none_left = match self.tail_none_left(self.current_block) {
            Some(c) => c,
            None => self.depth_none_left(depth.0, depth.1 + 1),
        };
        let go = self.b.create_block();
        self.b.ins().brif(none_left, overflow, &[], go, &[]);
        self.b.switch_to_block(go);
        let vals = std::mem::take(&mut self.vals);
        let blocks = std::mem::take(&mut self.blocks);
        let outer_cont = self.inlined.replace(cont);
        let outer_sites = self.inline_sites;
        self.inline_sites = outer_sites.inside(loc);
        self.guard_exit = Some(exit);
        self.guard = Some(region);
        let order = self
            .guard
            .as_ref()
            .map(|r| r.order.clone())
            .unwrap_or_default();
        self.create_blocks_of(&order);
        let first = self.block_of(self.func.entry());
        let bargs: Vec<BlockArg> = args.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().jump(first, &bargs);
        self.translate_blocks_of(&order);
        self.guard_exit = None;
        self.inline_sites = outer_sites;
        self.inlined = outer_cont;
        self.vals = vals;
        self.blocks = blocks;
        self.depth_on_entry = Some(depth);
        // Leaving the region: the real call, as if not guarded.
        self.b.switch_to_block(exit);
        let r = real(self);
        let rargs: Vec<BlockArg> = r.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(cont, &rargs);
        self.b.switch_to_block(cont);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};

    /// The region of function `name` of `src`: (blocks, instructions).
    fn region(src: &str, name: &str) -> Option<(usize, usize)> {
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new("g.wdl".to_string(), src));
        let p = compile(&sources, &CompileOptions::default())
            .expect("compiles")
            .program;
        let f = p
            .funcs
            .values()
            .find(|f| f.name() == name)
            .expect("the function");
        let order = f.layout().to_vec();
        let pos = BlockPos::of_layout(&order);
        Region::of(f, &order, &pos, 2).map(|r| {
            let insts = r.order.iter().map(|&b| f.blocks()[b].insts.len()).sum();
            (r.order.len(), insts)
        })
    }

    #[test]
    fn the_region_is_the_quiet_entry_part_that_returns() {
        let fib =
            "fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }";
        let (blocks, _) = region(fib, "fib").expect("fib has a region");
        assert_eq!(blocks, 2, "the test and `return n`");
        // Loads, bounds checks and division are quiet.
        let reads = "fn r(a: [int], n: int) -> int { if n < 2 { return a[n] / a[0]; } return r(a, n - 1); }";
        assert!(region(reads, "r").is_some());
    }

    #[test]
    fn effects_allocation_and_loops_end_the_region() {
        // An effect before any return: no region.
        let noisy = "fn f(n: int) -> int { print(n); if n < 2 { return n; } return f(n - 1); }";
        assert_eq!(region(noisy, "f"), None);
        // The base case allocates (a string): its return is outside.
        let path = "fn p(n: int) -> str { if n == 0 { return \".\"; } return str(n) + p(n - 1); }";
        assert_eq!(region(path, "p"), None);
        // A loop in the base case: its back edge leaves the region (the
        // copy returns inline only when the loop runs no iteration).
        let looped = "fn l(n: int) -> int { if n < 3 { var s = 0; for i in 0..n { s += i; } return s; } return l(n - 1); }";
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new("g.wdl".to_string(), looped));
        let p = compile(&sources, &CompileOptions::default())
            .unwrap()
            .program;
        let f = p.funcs.values().find(|f| f.name() == "l").unwrap();
        let order = f.layout().to_vec();
        let pos = BlockPos::of_layout(&order);
        let r = Region::of(f, &order, &pos, 1).expect("the zero-iteration path returns");
        for &b in &r.order {
            for c in f.blocks()[b].term.successors() {
                if pos.get(c.block) <= pos.get(b) {
                    assert!(!r.allows(b, c.block), "a back edge stays in the region");
                }
            }
        }
        // A global read is quiet, a write is not.
        let globals =
            "var g = 1;\nfn h(n: int) -> int { if n < g { return n; } g += 1; return h(n - 1); }";
        assert_eq!(region(globals, "h").map(|r| r.0), Some(2));
    }
}
