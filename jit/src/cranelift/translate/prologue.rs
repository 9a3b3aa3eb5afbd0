//! The function's entry checks and counters: the native stack limit, the
//! recursion depth counter (`VmCtx::depth_left`), fuel and the tiering
//! counter of adaptive tier-up (the protocol of [`crate::abi`]).

use cranelift_codegen::ir::{self, condcodes::IntCC, types, BlockArg, InstBuilder};
use cranelift_entity::EntityRef;
use waddle_opt::abi::{
    TrapCode, VMCTX_DEPTH_LEFT_OFFSET, VMCTX_FUEL_OFFSET, VMCTX_STACK_LIMIT_OFFSET,
};
use waddle_opt::ir::SrcLoc;

use super::{flags, Translator};
use crate::helpers::Helper;

impl Translator<'_, '_> {
    /// Stack-limit check, entry fuel tick, jump to the Waddle entry block.
    pub(super) fn prologue(&mut self, entry: ir::Block) {
        let tail_depth = self.tail_prologue();
        let sp = self.b.ins().get_stack_pointer(types::I64);
        let ctx = self.ctx();
        let limit = self
            .b
            .ins()
            .load(types::I64, flags(), ctx, VMCTX_STACK_LIMIT_OFFSET);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThan, sp, limit);
        let overflow = self.b.create_block();
        self.b.set_cold_block(overflow);
        let body = self.b.create_block();
        self.b.ins().brif(below, overflow, &[], body, &[]);
        self.b.switch_to_block(overflow);
        self.store_trap_code(TrapCode::StackOverflow as u32);
        self.b.ins().jump(self.exit, &[]);
        self.b.switch_to_block(body);
        if self.recursive {
            self.take_depth(overflow, tail_depth.map(|d| (d, 0)));
        }
        self.fuel_tick(None);
        self.counter_tick(false);
        self.start_tail_loop();
        let params: Vec<BlockArg> = self.b.block_params(entry)[1..]
            .iter()
            .map(|&v| BlockArg::Value(v))
            .collect();
        let first = self.block_of(self.func.entry());
        self.b.ins().jump(first, &params);
    }

    /// Takes one frame from `VmCtx::depth_left` (remembered in
    /// `depth_on_entry` for the returns), branching to `overflow` when none
    /// is left.
    ///
    /// `known`: the counter's value when the caller knows it, as a value
    /// `d` and an offset `k` (the counter is `d - k`): an inlined copy's
    /// caller's value after its prologue minus the frames of the copies it
    /// is in, since every call in between gave back what it took. Checks
    /// compare `d` with a constant and stores compute `d - k` where they
    /// are, so only `d` stays live across calls (Cranelift would otherwise
    /// keep one `d - k` per copy in a register through the calls).
    pub(super) fn take_depth(&mut self, overflow: ir::Block, known: Option<(ir::Value, i64)>) {
        let (d, k) = match known {
            Some(dk) => dk,
            None => {
                let ctx = self.ctx();
                let d = self
                    .b
                    .ins()
                    .load(types::I64, flags(), ctx, VMCTX_DEPTH_LEFT_OFFSET);
                (d, 0)
            }
        };
        let none_left = self.depth_none_left(d, k);
        let take = self.b.create_block();
        self.b.ins().brif(none_left, overflow, &[], take, &[]);
        self.b.switch_to_block(take);
        let d1 = self.b.ins().iadd_imm_s(d, -(k + 1));
        let ctx = self.ctx();
        self.b
            .ins()
            .store(flags(), d1, ctx, VMCTX_DEPTH_LEFT_OFFSET);
        self.depth_on_entry = Some((d, k));
    }

    /// Whether a counter of `d - k` has no frame left (`d - k < 1`).
    pub(super) fn depth_none_left(&mut self, d: ir::Value, k: i64) -> ir::Value {
        self.b
            .ins()
            .icmp_imm_s(IntCC::SignedLessThan, d, k.saturating_add(1))
    }

    /// Charges one unit of fuel; when the batch runs out, calls the fuel
    /// helper. A failure points at `loc` when given, else at the caller.
    pub(super) fn fuel_tick(&mut self, loc: Option<SrcLoc>) {
        if !self.env.fuel {
            return;
        }
        let ctx = self.ctx();
        let f = self
            .b
            .ins()
            .load(types::I64, flags(), ctx, VMCTX_FUEL_OFFSET);
        let f1 = self.b.ins().iadd_imm_s(f, -1);
        let ctx = self.ctx();
        self.b.ins().store(flags(), f1, ctx, VMCTX_FUEL_OFFSET);
        let refill = self.b.create_block();
        self.b.set_cold_block(refill);
        let cont = self.b.create_block();
        self.b.ins().brif(f1, cont, &[], refill, &[]);
        self.b.switch_to_block(refill);
        let ctx = self.ctx();
        self.call_helper(Helper::Fuel, &[ctx], loc);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Counts a call (`back_edge` false, in the prologue) or a loop back
    /// edge of the function in its tiering counter, if the unit has
    /// counters: a load, a decrement, a store and a branch; when the
    /// counter runs out, a cold call of [`Helper::TierUp`], which tells the
    /// host (it may promote the function; this frame goes on here) and
    /// re-arms the counter.
    pub(super) fn counter_tick(&mut self, back_edge: bool) {
        let Some(base) = self.env.counters else {
            return;
        };
        let cell = crate::tables::tier_counter_cell(base, self.fid.index(), back_edge);
        let addr = self.b.ins().iconst(types::I64, cell as i64);
        let c = self.b.ins().load(types::I64, flags(), addr, 0);
        let c1 = self.b.ins().iadd_imm_s(c, -1);
        self.b.ins().store(flags(), c1, addr, 0);
        let slow = self.b.create_block();
        self.b.set_cold_block(slow);
        let cont = self.b.create_block();
        self.b.ins().brif(c1, cont, &[], slow, &[]);
        self.b.switch_to_block(slow);
        let func = self
            .b
            .ins()
            .iconst(types::I32, i64::from(self.fid.as_u32()));
        let back = self.b.ins().iconst(types::I32, i64::from(back_edge));
        let ctx = self.ctx();
        self.call_helper(Helper::TierUp, &[ctx, func, back, addr], None);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }
}
