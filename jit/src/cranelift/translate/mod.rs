//! Translation of one Waddle IR function into Cranelift IR.
//!
//! Waddle blocks become Cranelift blocks with the same parameters (native
//! types per [`crate::abi::native_type`]); blocks are translated in reverse
//! postorder so every value's definition is translated before its uses.
//! A separate Cranelift entry block holds the prologue (stack-limit check,
//! fuel tick) and jumps to the Waddle entry block, which may be a loop
//! header. Edges that need code of their own (fuel on back edges, switch
//! cases with arguments) go through small edge blocks. Trap paths are cold
//! blocks that write the trap record and jump to one shared exit block that
//! returns a zero result (the protocol of [`crate::abi`]).
//! Instructions are in [`inst`].

mod branch;
mod gc_live;
mod guard;
mod inline;
mod inst;
pub(crate) mod segment;
mod tail;

pub(crate) use inline::Sites;

use std::collections::HashMap;

use cranelift_codegen::ir::{
    self, condcodes::IntCC, types, AbiParam, BlockArg, InstBuilder, MemFlagsData, SigRef,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, SecondaryMap};
use cranelift_frontend::{FunctionBuilder, Switch};
use waddle_opt::abi::{
    TrapCode, VMCTX_DEPTH_LEFT_OFFSET, VMCTX_FUEL_OFFSET, VMCTX_HELPERS_OFFSET,
    VMCTX_STACK_LIMIT_OFFSET, VMCTX_TRAP_CODE_OFFSET,
};
use waddle_opt::ir::{
    Block, BlockCall, FuncId, Function, InstKind, Program, SrcLoc, Terminator, Type, Value,
};

use crate::abi::native_type;
use crate::helpers::Helper;

/// Memory flags for the runtime's own data (context, headers, elements):
/// never trapping, aligned.
pub(super) fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// Memory flags for a header field no instruction of the function can
/// change while it runs (`fixed`): also `readonly` and `can_move`, which
/// make the load a pure value for Cranelift (merged, hoisted out of loops).
/// Array values are always valid objects, so moving the load earlier
/// never reads an invalid address.
pub(super) fn header_flags(fixed: bool) -> MemFlagsData {
    if fixed {
        flags().with_readonly().with_can_move()
    } else {
        flags()
    }
}

/// The native signature of a Waddle function under the calling convention.
pub(crate) fn native_signature(params: &[Type], ret: Type, call_conv: CallConv) -> ir::Signature {
    let mut sig = ir::Signature::new(call_conv);
    sig.params.push(AbiParam::new(types::I64));
    for &p in params {
        if let Some(t) = native_type(p) {
            sig.params.push(AbiParam::new(t));
        }
    }
    if let Some(t) = native_type(ret) {
        sig.returns.push(AbiParam::new(t));
    }
    sig
}

/// Program-wide facts the translation of one function needs.
pub(crate) struct Env<'a> {
    /// The program being compiled.
    pub program: &'a Program,
    /// The calling convention of the target.
    pub call_conv: CallConv,
    /// Address of the interned-string table (one word per string constant).
    pub string_table: usize,
    /// Index in the string table of each string constant's text.
    pub string_index: &'a HashMap<Box<str>, usize>,
    /// Whether to count fuel.
    pub fuel: bool,
    /// Which functions are recursive: their frames count against the
    /// recursion depth (`VmCtx::depth_left`).
    pub recursive: cranelift_entity::SecondaryMap<waddle_opt::ir::FuncId, bool>,
    /// Target facts the frontend needs (pointer width, ...).
    pub frontend: TargetFrontendConfig,
    /// How code reaches helpers and string constants.
    pub addressing: Addressing,
    /// Load string constants through `VmCtx::strings` even under
    /// [`Addressing::Absolute`] (`JitOptions::strings_from_ctx`).
    pub strings_from_ctx: bool,
    /// Address of the tiering counters (`JitOptions::tier_counters`, see
    /// `crate::tables::tier_counter_cells`), `None` without counters.
    pub counters: Option<usize>,
    /// Keep the context pointer in Cranelift's pinned register (the ISA
    /// has `enable_pinned_reg`): each function saves the register on entry,
    /// sets it to its context argument, reads it wherever it needs the
    /// context and restores it before returning, so to every caller it is
    /// callee-saved. The register allocator never spills the context then:
    /// a context spilled across calls and reloaded before each store
    /// through it made `fib` 2x slower (the reload delays the address of
    /// the counter store that the callee's prologue loads from).
    pub pinned_ctx: bool,
}

/// How generated code finds runtime helpers and string constants.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Addressing {
    /// Absolute addresses embedded as constants (in-process JIT).
    Absolute,
    /// Loaded through `VmCtx::helpers` and `VmCtx::strings`: the code is
    /// position independent (cross-target images, see `crate::cross`;
    /// only those build it).
    #[cfg_attr(not(feature = "cross"), allow(dead_code))]
    Tables,
}

/// The layout position of each block of a function (dense: the
/// translation consults it for every edge, and a generated function has
/// millions of blocks, which a hash map made a cache miss each).
#[derive(Clone)]
pub(crate) struct BlockPos(SecondaryMap<Block, u32>);

impl BlockPos {
    /// The positions of the blocks of `layout`.
    pub(crate) fn of_layout(layout: &[Block]) -> BlockPos {
        let mut map = SecondaryMap::with_default(u32::MAX);
        map.resize(layout.len());
        for (i, &b) in layout.iter().enumerate() {
            map[b] = i as u32;
        }
        BlockPos(map)
    }

    /// The position of `b`, `None` for a block not in the layout.
    pub(crate) fn get(&self, b: Block) -> Option<usize> {
        let p = self.0[b];
        (p != u32::MAX).then_some(p as usize)
    }
}

/// A block to fill once the current block is finished.
/// The last field of each is the inline sites the block belongs to
/// (`Translator::inline_sites`).
enum Pending {
    /// Record a trap with a known location and exit.
    Trap(ir::Block, TrapCode, SrcLoc, Sites),
    /// Report the frame (the location unless one is set), then exit.
    Propagate(ir::Block, SrcLoc, Sites),
    /// An edge block: on a back edge (the flag) tick fuel and the tiering
    /// counter (each if the unit has it), then jump with arguments.
    Edge(ir::Block, ir::Block, Vec<BlockArg>, bool, Sites),
}

/// Translates one function; the builder's function must have the native
/// signature of `fid`.
pub(crate) struct Translator<'a, 'b> {
    env: &'a Env<'a>,
    /// The function's index (reported with every frame a trap leaves).
    fid: FuncId,
    func: &'a Function,
    b: FunctionBuilder<'b>,
    /// The context argument (read through [`Translator::ctx`]).
    vmctx: ir::Value,
    /// Under [`Env::pinned_ctx`]: the pinned register's value on entry,
    /// restored before every return.
    saved_pinned: Option<ir::Value>,
    /// Cranelift block of each reachable Waddle block (dense: a generated
    /// function has millions of values and blocks, and this is consulted
    /// for every operand and edge).
    blocks: SecondaryMap<Block, PackedOption<ir::Block>>,
    /// Layout position of each Waddle block (for back-edge detection).
    pos: BlockPos,
    /// Cranelift value of each translated Waddle value (dense, as `blocks`).
    vals: SecondaryMap<Value, PackedOption<ir::Value>>,
    /// The shared exit that returns a zero result after a trap.
    exit: ir::Block,
    /// Cold blocks recording a trap with a known location, by (code, loc).
    trap_blocks: HashMap<(u32, SrcLoc, Sites), ir::Block>,
    /// Cold blocks that set the location if unset and exit, by location.
    propagate_blocks: HashMap<(SrcLoc, Sites), ir::Block>,
    /// Blocks created while another block was being filled, filled at the end.
    pending: Vec<Pending>,
    /// Imported signatures of helpers and callees.
    helper_sigs: HashMap<Helper, SigRef>,
    callee_sigs: HashMap<FuncId, SigRef>,
    /// References live across an instruction that may collect
    /// ([`gc_live`]): only these get stack maps.
    stack_mapped: std::collections::HashSet<Value>,
    /// Whether the function is recursive: its prologue takes a frame from
    /// `VmCtx::depth_left` and its returns give it back.
    recursive: bool,
    /// `VmCtx::depth_left` as the prologue of a recursive function read it:
    /// its returns store this value back (calls in between are balanced),
    /// so a return does not wait for a load of the counter.
    /// As `(d, k)`: the value is `d - k` (see [`Translator::take_depth`]).
    depth_on_entry: Option<(ir::Value, i64)>,
    /// This function's id and a reference for calling its own code
    /// directly (see [`Translator::run`]).
    self_call: Option<(FuncId, ir::FuncRef)>,
    /// The address of this function's [`super::unwind::UnwindTable`] when
    /// its traps unwind its self calls: self calls are then not followed by
    /// a test of the trap record, and the trap exit unwinds.
    unwind: Option<usize>,
    /// The self calls emitted under `unwind`, by their source-location tag
    /// (`ir::SourceLoc` bits = index): the call's location and, in an
    /// inlined copy, the copy's call site.
    unwind_sites: Vec<(SrcLoc, Sites)>,
    /// No instruction of the function can move an array's elements (no
    /// push, no Waddle or host call): loads of an array's data pointer are
    /// `readonly`, so Cranelift merges them and hoists them out of loops.
    data_fixed: bool,
    /// Neither can any change an array's length (no pop either): length
    /// loads are `readonly` too.
    len_fixed: bool,
    /// No instruction of the function may collect garbage, so the result of
    /// an `array_len`/`str_len` may be loaded later than the instruction's
    /// place: Cranelift computes a movable (pure) load where its value is
    /// used, and the array or string cannot die and be collected (its memory
    /// reused) in between. Where something may collect, those loads keep
    /// their place: the object can be dead after the `len` (its last use)
    /// and freed by a collection before a sunk load would run. The loads of
    /// bounds checks and data pointers are used at once, where the object
    /// is an operand and so still alive.
    len_results_movable: bool,
    /// The function's loops: a two-way branch names its deeper-nested
    /// target second ([`branch`]).
    loops: waddle_opt::analysis::loops::LoopForest,
    /// The reachable Waddle blocks in reverse postorder (shared with the
    /// loops that translate them, which may translate them again inline).
    order: std::rc::Rc<[Block]>,
    /// Whether self calls are inlined one level ([`inline`]).
    inline_self: bool,
    /// While a self call's inlined copy is translated: the block its
    /// returns jump to (with the result as parameter).
    inlined: Option<ir::Block>,
    /// While a self call's inlined copy is translated: the call's location
    /// (and, for a guarded copy inside an inlined one, that copy's call
    /// site). A trap in the copy leaves a frame of the function for each,
    /// after the copy's own, so the stack trace matches every tier's.
    inline_sites: Sites,
    /// The part of the function a guarded self call runs inline ([`guard`]),
    /// when its self calls are guarded.
    guard: Option<guard::Region>,
    /// While a guarded copy is translated: the block that makes the real
    /// call, where every edge leaving the region goes.
    guard_exit: Option<ir::Block>,
    /// The function's tail self call, translated as a loop ([`tail`]).
    tail: Option<tail::TailLoop>,
    /// The function's [`segment`]s (in layout order of their blocks) with
    /// references for calling them.
    segments: &'a [(segment::Segment, ir::FuncRef)],
    /// The range of `segments` in each block that has some.
    segments_in: HashMap<Block, (usize, usize)>,
    /// The Waddle block of the function body being translated (`None` in
    /// inlined and guarded copies).
    current_block: Option<Block>,
    /// The instruction of `current_block` being translated.
    current_inst: Option<waddle_opt::ir::Inst>,
    /// While an inlined copy of a self call in a tail loop is translated
    /// ([`inline`]): its frame of recursion depth is the iteration's
    /// counter minus one, stored only before the copy's calls.
    loop_copy: bool,
    /// The block of the function body in which a guarded self call checked
    /// the tail loop's recursion depth last.
    tail_checked: Option<Block>,
}

/// What the translation of a function tells the unwinder
/// ([`super::unwind`]).
#[derive(Default)]
pub(crate) struct Translated {
    /// The self calls emitted under `unwind`, by their source-location tag
    /// (see `Translator::unwind_sites`).
    pub sites: Vec<(SrcLoc, Sites)>,
    /// With a tail loop: the frame's slot holding the iterations taken,
    /// and the tail call's location.
    pub tail: Option<(ir::StackSlot, SrcLoc)>,
}

impl<'a, 'b> Translator<'a, 'b> {
    /// Translates `func` into `b`'s function and finalizes the builder.
    ///
    /// `self_call`, when given, is this function's id and a reference to
    /// its own code: its calls of itself are then direct calls of this code
    /// instead of loads of its entry slot. A slot swap (a redefinition, a
    /// tier change) is therefore seen by the next call from outside, while
    /// a running recursion finishes in the code it started in. The T2 unit
    /// passes it (a function is redefined only when no Waddle code runs)
    /// unless the unit counts calls for `auto`: a recursion in counting T2
    /// code then moves to T3 once it is installed. The baseline tier keeps
    /// slot calls, so a recursion that started on T1 moves to T2 once
    /// promoted.
    ///
    /// `unwind` (with `self_call` only): the address of the function's
    /// unwinding table; its self calls are then untested and its traps
    /// unwind to its shell ([`super::unwind`]). Returns the self-call
    /// sites by source-location tag (empty without `unwind`) and the tail
    /// loop's slot ([`tail`]).
    ///
    /// `segments` (of a function without `self_call`): runs of
    /// instructions compiled as functions of their own, which the body
    /// calls instead of translating them ([`segment`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        env: &'a Env<'a>,
        fid: FuncId,
        func: &'a Function,
        recursive: bool,
        self_call: Option<(FuncId, ir::FuncRef)>,
        unwind: Option<usize>,
        segments: &'a [(segment::Segment, ir::FuncRef)],
        mut b: FunctionBuilder<'b>,
    ) -> Translated {
        assert!(
            segments.is_empty() || self_call.is_none(),
            "a function whose self calls are direct is not segmented"
        );
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let vmctx = b.block_params(entry)[0];
        let saved_pinned = env.pinned_ctx.then(|| {
            let old = b.ins().get_pinned_reg(types::I64);
            b.ins().set_pinned_reg(vmctx);
            old
        });
        let exit = b.create_block();
        b.set_cold_block(exit);
        let mut t = Translator {
            env,
            fid,
            func,
            b,
            vmctx,
            saved_pinned,
            blocks: SecondaryMap::with_capacity(func.blocks().len()),
            pos: BlockPos::of_layout(func.layout()),
            vals: SecondaryMap::with_capacity(func.values().len()),
            exit,
            trap_blocks: HashMap::new(),
            propagate_blocks: HashMap::new(),
            pending: Vec::new(),
            helper_sigs: HashMap::new(),
            callee_sigs: HashMap::new(),
            stack_mapped: Default::default(),
            recursive,
            depth_on_entry: None,
            self_call,
            unwind: unwind.filter(|_| self_call.is_some()),
            unwind_sites: Vec::new(),
            data_fixed: false,
            len_fixed: false,
            len_results_movable: false,
            loops: branch::loops(func),
            order: std::rc::Rc::from([]),
            inline_self: false,
            inlined: None,
            inline_sites: Sites::default(),
            guard: None,
            guard_exit: None,
            tail: None,
            segments,
            segments_in: HashMap::new(),
            current_block: None,
            current_inst: None,
            loop_copy: false,
            tail_checked: None,
        };
        for (k, (seg, _)) in segments.iter().enumerate() {
            let range = t.segments_in.entry(seg.block).or_insert((k, k));
            range.1 = k + 1;
        }
        (t.data_fixed, t.len_fixed) = arrays_fixed(func);
        t.len_results_movable = !gc_live::any_may_collect(func);
        t.order = t.reverse_postorder().into();
        if t.self_call.is_some() && !env.fuel {
            let calls = inline::self_calls(func, t.self_call);
            t.guard = guard::Region::of(func, &t.order, &t.pos, calls);
        }
        // Guarded calls, where they apply, instead of inlined copies, unless
        // the function has a tail loop (see [`guard`] for why).
        if let Some((me, _)) = t.self_call.filter(|_| recursive) {
            if let Some(site) = tail::find(func, me, &t.order) {
                let slot = t.b.create_sized_stack_slot(ir::StackSlotData::new(
                    ir::StackSlotKind::ExplicitSlot,
                    16,
                    3,
                ));
                let acc = site.combine.map(|_| t.b.declare_var(types::I64));
                let left = t.b.declare_var(types::I64);
                t.tail = Some(tail::TailLoop {
                    loc: func.inst(site.call).loc,
                    site,
                    acc,
                    slot,
                    left,
                });
            }
        }
        // Self calls are inlined one level where no guards are, or in a
        // tail loop (where the copy's own self calls are guarded).
        if t.guard.is_none() || t.tail.is_some() {
            t.inline_self = inline::worth_inlining(func, t.self_call);
        }
        t.stack_mapped = gc_live::needs_stack_map(func, &t.order);
        t.create_blocks();
        t.prologue(entry);
        t.translate_blocks();
        t.fill_pending();
        t.finish_exit();
        t.b.seal_all_blocks();
        t.b.finalize(env.frontend);
        Translated {
            tail: t.tail.as_ref().map(|l| (l.slot, l.loc)),
            sites: t.unwind_sites,
        }
    }

    /// The context pointer here: a read of the pinned register under
    /// [`Env::pinned_ctx`] (no instruction of its own, and never kept in an
    /// allocated register), else the argument.
    fn ctx(&mut self) -> ir::Value {
        if self.saved_pinned.is_some() {
            self.b.ins().get_pinned_reg(types::I64)
        } else {
            self.vmctx
        }
    }

    /// Gives the caller its pinned register back (before a return).
    fn restore_pinned(&mut self) {
        if let Some(old) = self.saved_pinned {
            self.b.ins().set_pinned_reg(old);
        }
    }

    /// Creates a Cranelift block (with parameters) for every reachable
    /// Waddle block, in `blocks`.
    fn create_blocks(&mut self) {
        let order = std::rc::Rc::clone(&self.order);
        self.create_blocks_of(&order);
    }

    /// Creates a Cranelift block (with parameters) for each of `list`, in
    /// `blocks`.
    fn create_blocks_of(&mut self, list: &[Block]) {
        for &bl in list {
            let cb = self.b.create_block();
            for &p in &self.func.blocks()[bl].params {
                let ty = self.func.value_type(p);
                let v = (self.b).append_block_param(cb, native_type(ty).unwrap_or(types::I64));
                self.def(p, v);
            }
            self.blocks[bl] = cb.into();
        }
    }

    /// Translates every reachable block into the blocks of `blocks`.
    fn translate_blocks(&mut self) {
        let order = std::rc::Rc::clone(&self.order);
        self.translate_blocks_of(&order);
    }

    /// Translates each block of `list` (in that order).
    fn translate_blocks_of(&mut self, list: &[Block]) {
        for &bl in list {
            self.block(bl);
        }
    }

    /// Blocks reachable from the entry, in reverse postorder.
    fn reverse_postorder(&self) -> Vec<Block> {
        let f = self.func;
        let Some(&entry) = f.layout().first() else {
            return Vec::new();
        };
        let mut seen: SecondaryMap<Block, bool> = SecondaryMap::with_capacity(f.blocks().len());
        let mut post = Vec::new();
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        seen[entry] = true;
        while let Some(&mut (bl, ref mut i)) = stack.last_mut() {
            let succ = f.blocks()[bl].term.successors().nth(*i).map(|c| c.block);
            *i += 1;
            match succ {
                Some(s) => {
                    if self.pos.get(s).is_some() && !std::mem::replace(&mut seen[s], true) {
                        stack.push((s, 0));
                    }
                }
                None => {
                    post.push(bl);
                    stack.pop();
                }
            }
        }
        post.reverse();
        post
    }

    /// Records the Cranelift value of a Waddle value; references live
    /// across a call that may collect get stack maps, so they are on the
    /// stack at every call (see [`crate::abi`] and [`gc_live`]).
    fn def(&mut self, v: Value, cv: ir::Value) {
        if self.stack_mapped.contains(&v) {
            self.b.declare_value_needs_stack_map(cv);
        }
        self.vals[v] = cv.into();
    }

    /// The Cranelift block of a reachable Waddle block.
    fn block_of(&self, bl: Block) -> ir::Block {
        self.blocks[bl].expect("a reachable block")
    }

    /// The Cranelift value of a Waddle operand.
    fn val(&self, v: Value) -> ir::Value {
        self.vals[v].expect("a value is translated before its uses")
    }

    /// Stack-limit check, entry fuel tick, jump to the Waddle entry block.
    fn prologue(&mut self, entry: ir::Block) {
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
    fn take_depth(&mut self, overflow: ir::Block, known: Option<(ir::Value, i64)>) {
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
    fn depth_none_left(&mut self, d: ir::Value, k: i64) -> ir::Value {
        self.b
            .ins()
            .icmp_imm_s(IntCC::SignedLessThan, d, k.saturating_add(1))
    }

    /// Charges one unit of fuel; when the batch runs out, calls the fuel
    /// helper. A failure points at `loc` when given, else at the caller.
    fn fuel_tick(&mut self, loc: Option<SrcLoc>) {
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
    fn counter_tick(&mut self, back_edge: bool) {
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

    /// Writes `code` into the trap record.
    fn store_trap_code(&mut self, code: u32) {
        let c = self.b.ins().iconst(types::I32, i64::from(code));
        let ctx = self.ctx();
        self.b.ins().store(flags(), c, ctx, VMCTX_TRAP_CODE_OFFSET);
    }

    /// Reports this frame, stopped at `loc`, to the trap record: the
    /// [`Helper::TrapFrame`] helper takes `loc` as the trap's location when
    /// none is set yet and adds the frame to the stack trace (trap paths
    /// only, so the normal path pays nothing).
    fn trap_frame(&mut self, loc: SrcLoc) {
        let fields = [self.fid.as_u32(), loc.file, loc.line, loc.col];
        let ctx = self.ctx();
        let mut args = vec![ctx];
        for v in fields {
            args.push(self.b.ins().iconst(types::I32, i64::from(v)));
        }
        self.call_helper(Helper::TrapFrame, &args, None);
    }

    /// Reports the frame stopped at `loc` and, in inlined self calls
    /// (`sites`, innermost first), the caller's frame at each call.
    /// With a tail loop, then the frames of its iterations ([`tail`]).
    fn trap_frames(&mut self, loc: SrcLoc, sites: Sites) {
        self.trap_frame(loc);
        for site in sites.iter() {
            self.trap_frame(site);
        }
        self.tail_frames();
    }

    /// The cold block that raises `code` at `loc`.
    fn trap_block(&mut self, code: TrapCode, loc: SrcLoc) -> ir::Block {
        let key = (code as u32, loc, self.inline_sites);
        if let Some(&bl) = self.trap_blocks.get(&key) {
            return bl;
        }
        let bl = self.b.create_block();
        self.b.set_cold_block(bl);
        self.pending
            .push(Pending::Trap(bl, code, loc, self.inline_sites));
        self.trap_blocks.insert(key, bl);
        bl
    }

    /// Branches to a trap raising `code` at `loc` when `cond` is non-zero;
    /// continues in a fresh block otherwise.
    fn trap_if(&mut self, cond: ir::Value, code: TrapCode, loc: SrcLoc) {
        let tb = self.trap_block(code, loc);
        let cont = self.b.create_block();
        self.b.ins().brif(cond, tb, &[], cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Raises `code` at `loc` unconditionally; later instructions of the
    /// block are translated into an unreachable block.
    fn trap_always(&mut self, code: TrapCode, loc: SrcLoc) {
        let tb = self.trap_block(code, loc);
        self.b.ins().jump(tb, &[]);
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
    }

    /// After a call that may have recorded a trap: returns (setting `loc`
    /// if no location is recorded yet, or leaving it for the caller when
    /// `loc` is `None`) when the record holds one.
    fn check_trap(&mut self, loc: Option<SrcLoc>) {
        let ctx = self.ctx();
        let code = self
            .b
            .ins()
            .load(types::I32, flags(), ctx, VMCTX_TRAP_CODE_OFFSET);
        let target = match loc {
            None => self.exit,
            Some(loc) => self.propagate_block(loc),
        };
        let cont = self.b.create_block();
        self.b.ins().brif(code, target, &[], cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// The cold block that reports this frame at `loc` to the trap record
    /// (which takes `loc` unless a location is already set), then exits.
    fn propagate_block(&mut self, loc: SrcLoc) -> ir::Block {
        let key = (loc, self.inline_sites);
        if let Some(&bl) = self.propagate_blocks.get(&key) {
            return bl;
        }
        let bl = self.b.create_block();
        self.b.set_cold_block(bl);
        self.pending
            .push(Pending::Propagate(bl, loc, self.inline_sites));
        self.propagate_blocks.insert(key, bl);
        bl
    }

    /// Calls a runtime helper; helpers that can fail are followed by a trap
    /// check pointing at `loc` (or at the caller when `None`).
    fn call_helper(
        &mut self,
        h: Helper,
        args: &[ir::Value],
        loc: Option<SrcLoc>,
    ) -> Option<ir::Value> {
        let sig = match self.helper_sigs.get(&h) {
            Some(&s) => s,
            None => {
                let hs = h.sig();
                let mut sig = ir::Signature::new(self.env.call_conv);
                sig.params
                    .extend(hs.params.iter().map(|&t| AbiParam::new(t)));
                sig.returns.extend(hs.ret.map(AbiParam::new));
                let s = self.b.import_signature(sig);
                self.helper_sigs.insert(h, s);
                s
            }
        };
        let addr = self.helper_addr(h);
        let call = self.b.ins().call_indirect(sig, addr, args);
        let result = self.b.inst_results(call).first().copied();
        if h.may_trap() {
            self.check_trap(loc);
        }
        result
    }

    /// The code address of helper `h`: a constant, or entry `h` of the
    /// context's helper table under [`Addressing::Tables`].
    fn helper_addr(&mut self, h: Helper) -> ir::Value {
        match self.env.addressing {
            Addressing::Absolute => self.b.ins().iconst(types::I64, h.addr() as i64),
            Addressing::Tables => {
                let ctx = self.ctx();
                let table = self
                    .b
                    .ins()
                    .load(types::I64, flags(), ctx, VMCTX_HELPERS_OFFSET);
                let off = word_offset(h as usize).unwrap_or(i32::MAX);
                self.b
                    .ins()
                    .load(types::I64, flags().with_readonly(), table, off)
            }
        }
    }

    /// The zero value of native type `t`.
    fn zero(&mut self, t: types::Type) -> ir::Value {
        if t == types::F64 {
            self.b.ins().f64const(0.0)
        } else {
            self.b.ins().iconst(t, 0)
        }
    }

    /// Fills the blocks queued in `pending` (filling one may queue more).
    fn fill_pending(&mut self) {
        while let Some(p) = self.pending.pop() {
            match p {
                Pending::Trap(bl, code, loc, site) => {
                    self.b.switch_to_block(bl);
                    self.store_trap_code(code as u32);
                    self.trap_frames(loc, site);
                    self.b.ins().jump(self.exit, &[]);
                }
                Pending::Propagate(bl, loc, site) => {
                    self.b.switch_to_block(bl);
                    self.trap_frames(loc, site);
                    self.b.ins().jump(self.exit, &[]);
                }
                Pending::Edge(bl, target, args, tick, site) => {
                    self.b.switch_to_block(bl);
                    if tick {
                        let outer = std::mem::replace(&mut self.inline_sites, site);
                        self.fuel_tick(Some(self.func.loc()));
                        self.inline_sites = outer;
                        self.counter_tick(true);
                    }
                    self.b.ins().jump(target, &args);
                }
            }
        }
    }

    /// Fills the shared exit block: return a zero result (after unwinding
    /// the self calls to the shell, which never returns here, under
    /// `unwind`).
    fn finish_exit(&mut self) {
        self.b.switch_to_block(self.exit);
        if let Some(table) = self.unwind {
            let mut sig = ir::Signature::new(self.env.call_conv);
            sig.params
                .extend([AbiParam::new(types::I64), AbiParam::new(types::I64)]);
            let sig = self.b.import_signature(sig);
            let addr = self
                .b
                .ins()
                .iconst(types::I64, super::unwind::entry_addr() as i64);
            let table = self.b.ins().iconst(types::I64, table as i64);
            let ctx = self.ctx();
            self.b.ins().call_indirect(sig, addr, &[ctx, table]);
        }
        self.restore_pinned();
        match native_type(self.func.sig().ret) {
            Some(t) => {
                let z = self.zero(t);
                self.b.ins().return_(&[z]);
            }
            None => {
                self.b.ins().return_(&[]);
            }
        }
    }

    /// Translates one Waddle block: instructions, then the terminator.
    fn block(&mut self, bl: Block) {
        let cb = self.block_of(bl);
        self.b.switch_to_block(cb);
        let tail_call = self.tail_block(bl);
        let outer_block = self.current_block;
        self.current_block = (self.inlined.is_none() && self.guard_exit.is_none()).then_some(bl);
        let outer_inst = self.current_inst;
        if let Some(&(from, to)) = self.segments_in.get(&bl) {
            self.block_with_segments(bl, from, to);
            self.terminator(bl);
            self.current_block = outer_block;
            self.current_inst = outer_inst;
            return;
        }
        for &i in &self.func.blocks()[bl].insts {
            self.current_inst = Some(i);
            if Some(i) == tail_call {
                if let InstKind::Call(_, args) = &self.func.inst(i).kind {
                    self.tail_jump(args);
                    self.current_block = outer_block;
                    self.current_inst = outer_inst;
                    return;
                }
            }
            self.inst(i);
        }
        self.terminator(bl);
        self.current_block = outer_block;
        self.current_inst = outer_inst;
    }

    /// The instructions of `bl`, whose segments are `segments[from..to]`:
    /// each segment is one call, whose results define the segment's
    /// outputs.
    fn block_with_segments(&mut self, bl: Block, from: usize, to: usize) {
        let segments = self.segments;
        let insts = &self.func.blocks()[bl].insts;
        let mut next = from;
        let mut idx = 0;
        while idx < insts.len() {
            match segments
                .get(next)
                .filter(|(s, _)| next < to && s.start == idx)
            {
                Some((seg, fref)) => {
                    let args: Vec<ir::Value> = seg.inputs.iter().map(|&v| self.val(v)).collect();
                    let call = self.b.ins().call(*fref, &args);
                    for (k, &out) in seg.outputs.iter().enumerate() {
                        let r = self.b.inst_results(call)[k];
                        self.def(out, r);
                    }
                    idx = seg.end;
                    next += 1;
                }
                None => {
                    self.inst(insts[idx]);
                    idx += 1;
                }
            }
        }
    }

    /// The Cranelift target and arguments of edge `bc` leaving `from`;
    /// back edges (to a block at the same or an earlier layout position) get
    /// an edge block that ticks fuel and the tiering counter.
    fn edge(
        &mut self,
        from: Block,
        bc: &BlockCall,
        force_block: bool,
    ) -> (ir::Block, Vec<BlockArg>) {
        if let Some(exit) = self.guard_exit {
            if !self
                .guard
                .as_ref()
                .is_some_and(|g| g.allows(from, bc.block))
            {
                return (exit, Vec::new());
            }
        }
        let target = self.block_of(bc.block);
        let args: Vec<BlockArg> = bc
            .args
            .iter()
            .map(|&a| BlockArg::Value(self.val(a)))
            .collect();
        let back = (self.env.fuel || self.env.counters.is_some())
            && self.pos.get(bc.block) <= self.pos.get(from);
        let needs_block = back || (force_block && !args.is_empty());
        if !needs_block {
            return (target, args);
        }
        let eb = self.b.create_block();
        self.pending
            .push(Pending::Edge(eb, target, args, back, self.inline_sites));
        (eb, Vec::new())
    }

    /// Translates the terminator of `bl`.
    fn terminator(&mut self, bl: Block) {
        match &self.func.blocks()[bl].term {
            Terminator::Return(v) => {
                let rets: Vec<ir::Value> = v.iter().map(|&v| self.val(v)).collect();
                let rets: Vec<ir::Value> = rets.into_iter().map(|v| self.tail_result(v)).collect();
                // An inlined copy in a tail loop gives its frame back by
                // leaving it out of the counter's later stores.
                if let Some((d, k)) = self.depth_on_entry.filter(|_| !self.loop_copy) {
                    // Give the frame back: every call in between returned
                    // the counter to the value after the prologue's
                    // decrement, so this is that value plus one (in a tail
                    // loop, the prologue's: the iterations' frames too).
                    let d = if let Some(d) = self.tail_depth_on_entry() {
                        d
                    } else if k == 0 {
                        d
                    } else {
                        self.b.ins().iadd_imm_s(d, -k)
                    };
                    let ctx = self.ctx();
                    self.b.ins().store(flags(), d, ctx, VMCTX_DEPTH_LEFT_OFFSET);
                }
                match self.inlined {
                    Some(cont) => {
                        let args: Vec<BlockArg> = rets.into_iter().map(BlockArg::Value).collect();
                        self.b.ins().jump(cont, &args);
                    }
                    None => {
                        self.restore_pinned();
                        self.b.ins().return_(&rets);
                    }
                }
            }
            Terminator::Switch {
                value,
                cases,
                default,
            } => match (value, cases.as_slice()) {
                (None, _) | (Some(_), []) => {
                    let (t, args) = self.edge(bl, default, false);
                    self.b.ins().jump(t, &args);
                }
                (Some(v), [(k, case)]) if matches!(*k, 0 | 1) && self.is_bool(*v) => {
                    let mut c = self.val(*v);
                    let (mut on_true, mut on_false) = match k {
                        1 => (case, default),
                        _ => (default, case),
                    };
                    if self.loops.nesting(on_true.block) > self.loops.nesting(on_false.block) {
                        c = branch::negated(&mut self.b, c);
                        (on_true, on_false) = (on_false, on_true);
                    }
                    let (tt, targs) = self.edge(bl, on_true, false);
                    let (ft, fargs) = self.edge(bl, on_false, false);
                    self.b.ins().brif(c, tt, &targs, ft, &fargs);
                }
                (Some(v), cases) => {
                    let mut c = self.val(*v);
                    if self.is_bool(*v) {
                        c = self.b.ins().uextend(types::I64, c);
                    }
                    let mut sw = Switch::new();
                    for (k, case) in cases {
                        let (t, _) = self.edge(bl, case, true);
                        sw.set_entry(u128::from(*k as u64), t);
                    }
                    let (dt, _) = self.edge(bl, default, true);
                    sw.emit(&mut self.b, c, dt);
                }
            },
        }
    }

    /// Whether Waddle value `v` is a `bool`.
    fn is_bool(&self, v: Value) -> bool {
        self.func.value_type(v) == Type::Bool
    }

    /// The signature reference for calling `callee` indirectly.
    fn callee_sig(&mut self, callee: FuncId) -> SigRef {
        if let Some(&s) = self.callee_sigs.get(&callee) {
            return s;
        }
        let f = &self.env.program.funcs[callee];
        let sig = native_signature(&f.sig().params, f.sig().ret, self.env.call_conv);
        let s = self.b.import_signature(sig);
        self.callee_sigs.insert(callee, s);
        s
    }
}

/// Whether no instruction of `func` can move any array's elements, and
/// whether none can change any array's length (see `Translator::data_fixed`).
/// A Waddle or host call may run code that resizes any array it can reach;
/// `push` may move the elements; `pop` changes the length only.
fn arrays_fixed(func: &Function) -> (bool, bool) {
    let mut len = true;
    for bl in func.layout() {
        for &i in &func.blocks()[*bl].insts {
            match func.inst(i).kind {
                InstKind::Call(..) | InstKind::HostCall(..) | InstKind::ArrayPush(..) => {
                    return (false, false)
                }
                InstKind::ArrayPop(_) => len = false,
                _ => {}
            }
        }
    }
    (true, len)
}

/// Byte offset of entry `i` of a word table, if it fits an `i32`.
pub(super) fn word_offset(i: usize) -> Option<i32> {
    i.checked_mul(8).and_then(|o| i32::try_from(o).ok())
}

/// Keeps `EntityRef` in use for index conversions of ids.
pub(super) fn index_of<E: EntityRef>(e: E) -> usize {
    e.index()
}
