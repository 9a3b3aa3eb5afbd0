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
//! Instructions are in [`inst`], the entry checks and counters in
//! [`prologue`], trap paths, helper calls and the exit in [`trap`].

mod branch;
mod gc_live;
mod guard;
mod inline;
mod inst;
mod prologue;
pub(crate) mod segment;
mod tail;
mod trap;

pub(crate) use inline::Sites;

use std::collections::HashMap;

use cranelift_codegen::ir::{self, types, AbiParam, BlockArg, InstBuilder, MemFlagsData, SigRef};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, SecondaryMap};
use cranelift_frontend::{FunctionBuilder, Switch};
use waddle_opt::abi::{TrapCode, VMCTX_DEPTH_LEFT_OFFSET};
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

    /// The zero value of native type `t`.
    fn zero(&mut self, t: types::Type) -> ir::Value {
        if t == types::F64 {
            self.b.ins().f64const(0.0)
        } else {
            self.b.ins().iconst(t, 0)
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
