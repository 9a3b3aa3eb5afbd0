//! The arch-neutral plan of one function's baseline code: which blocks are
//! emitted and in what order, which edges are loop back edges (fuel), and
//! the frame layout (one 8-byte slot per SSA value of the emitted blocks
//! plus a scratch area for array-literal elements).
//!
//! The frame gives every SSA value defined in a reachable block (block
//! parameters and instruction results) its own word-sized slot, so a value
//! never moves and every reference a frame holds is in memory at every call
//! (the conservative GC scan of [`crate::abi`] sees it). Slots are numbered
//! densely in block order ([`frame_slots`]), not by value number: after
//! optimization most of a function's value arena is dead (inlined and
//! folded values), and a frame sized by the arena was up to three times
//! larger than the values it holds, which cut the recursion depth of
//! large recursive functions short of the depth every tier guarantees
//! (issue 13).

use cranelift_entity::{EntityRef, SecondaryMap};
use waddle_opt::analysis::gc_slots::may_collect;
use waddle_opt::ir::{
    BinaryOp, Block, Cmp, Function, InstKind, Terminator, Type, UnaryOp, Value, ValueDef,
};

/// What the code generator needs to know about a function before emitting it.
pub(crate) struct FuncPlan {
    /// Blocks reachable from the entry, in layout order (entry first).
    pub order: Vec<Block>,
    /// Layout position of every layout block (back-edge test), `u32::MAX`
    /// for blocks not in the layout.
    pub pos: SecondaryMap<Block, u32>,
    /// The slot of each value defined in a reachable block
    /// ([`frame_slots`]); [`NO_SLOT`] for the others.
    pub slot_of: Vec<u32>,
    /// The value of each slot (the inverse of [`FuncPlan::slot_of`]).
    pub slot_values: Vec<Value>,
    /// Words of scratch space for array-literal elements and host-call
    /// arguments.
    pub scratch: usize,
    /// Comparisons whose only use is the two-way branch right after them
    /// (the last instruction of their block): the back end may leave their
    /// result in the condition flags only, never in the slot.
    pub fused: SecondaryMap<Value, bool>,
    /// Constants (`iconst`, `fconst`, `bconst` results) of reachable
    /// blocks: their slots are written once, in the prologue.
    pub consts: Vec<(Value, i64)>,
    /// Values worth a register for the whole function, best first: values
    /// defined or used inside loops (block parameters carried around a
    /// loop above all), ranked by their uses and definitions weighted by
    /// 4^loop depth. Integer constants are left out (immediates). A back
    /// end may give the first few of each register class a *home*
    /// register that mirrors the slot (see [`FuncPlan::homes`]'s users).
    pub homes: Vec<Value>,
    /// Integer constants every use of which is the right operand of an
    /// operation the x86-64 back end encodes with an immediate (`+ - * &
    /// | ^`, comparisons, shifts): that back end never reads their slots,
    /// so it does not write them.
    pub imm_only: SecondaryMap<Value, bool>,
    /// Whether some block inside a loop calls out (a Waddle function, a
    /// host function or a runtime helper other than the fuel refill): a
    /// back end whose caller-saved home registers are reloaded after every
    /// call may then keep to its callee-saved ones.
    pub calls_in_loops: bool,
}

/// Most candidates [`FuncPlan::homes`] lists (more than any back end has
/// home registers for).
const MAX_HOMES: usize = 32;

impl FuncPlan {
    /// Plans `func` (which must have a body).
    pub fn new(func: &Function) -> FuncPlan {
        let (order, pos, scratch) = layout_order(func);
        let (slot_of, slot_values) = number_slots(func, &order);
        let mut uses: SecondaryMap<Value, u32> = SecondaryMap::new();
        let mut consts = Vec::new();
        for &b in &order {
            let data = &func.blocks()[b];
            for &i in &data.insts {
                let inst = func.inst(i);
                inst.kind.for_each_arg(|v| uses[v] += 1);
                let k = match inst.kind {
                    InstKind::IConst(k) => Some(k),
                    InstKind::FConst(bits) => Some(bits as i64),
                    InstKind::BConst(c) => Some(i64::from(c)),
                    _ => None,
                };
                if let (Some(k), Some(r)) = (k, inst.result) {
                    consts.push((r, k));
                }
            }
            data.term.for_each_arg(|v| uses[v] += 1);
        }
        let mut fused = SecondaryMap::new();
        for &b in &order {
            let data = &func.blocks()[b];
            let (
                Some(&last),
                Terminator::Switch {
                    value: Some(v),
                    cases,
                    ..
                },
            ) = (data.insts.last(), &data.term)
            else {
                continue;
            };
            let inst = func.inst(last);
            let single = matches!(cases.as_slice(), [(0 | 1, _)]);
            let cmp = matches!(
                inst.kind,
                InstKind::Binary(BinaryOp::ICmp(_) | BinaryOp::BCmp(_), ..)
                    | InstKind::Binary(BinaryOp::FCmp(Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge), ..)
            );
            if single && cmp && inst.result == Some(*v) && uses[*v] == 1 {
                fused[*v] = true;
            }
        }
        let (homes, calls_in_loops) = rank_homes(func, &order, &pos);
        let imm_only = imm_only_consts(func, &order, &consts);
        FuncPlan {
            order,
            pos,
            slot_of,
            slot_values,
            scratch,
            fused,
            consts,
            homes,
            imm_only,
            calls_in_loops,
        }
    }

    /// Whether the edge `from → to` is a loop back edge for fuel purposes
    /// (the target is at the same or an earlier layout position, the
    /// interpreter's rule).
    pub fn is_back_edge(&self, from: Block, to: Block) -> bool {
        self.pos[to] <= self.pos[from]
    }

    /// The home registers' values of a back end with `I` integer and `F`
    /// float home registers: the best-ranked candidates of each class, in
    /// rank order.
    pub fn assign_homes<const I: usize, const F: usize>(
        &self,
        func: &Function,
    ) -> ([Option<Value>; I], [Option<Value>; F]) {
        let (mut ints, mut floats) = ([None; I], [None; F]);
        let (mut ni, mut nf) = (0, 0);
        for &v in &self.homes {
            if func.value_type(v) == Type::Float {
                if nf < F {
                    floats[nf] = Some(v);
                    nf += 1;
                }
            } else if ni < I {
                ints[ni] = Some(v);
                ni += 1;
            }
        }
        (ints, floats)
    }

    /// Number of value slots.
    pub fn slots(&self) -> usize {
        self.slot_values.len()
    }

    /// Words of frame storage: the value slots, then the scratch area.
    pub fn frame_words(&self) -> usize {
        self.slots() + self.scratch
    }
}

/// The home-register candidates of `func` (see [`FuncPlan::homes`]).
/// Loop depth of each block from the natural loops of the layout back
/// edges (the blocks that reach the latch backwards without passing the
/// header), then one weighted count over the reachable blocks. The loop
/// walks are cut off after a work budget linear in the function's size
/// (blocks not reached by then count as outside those loops), so the
/// planning stays linear even for irreducible or pathological layouts.
fn rank_homes(
    func: &Function,
    order: &[Block],
    pos: &SecondaryMap<Block, u32>,
) -> (Vec<Value>, bool) {
    let n = func.layout().len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut back: Vec<(u32, u32)> = Vec::new();
    for &b in order {
        for s in func.blocks()[b].term.successors() {
            let (h, l) = (pos[s.block], pos[b]);
            if h == u32::MAX {
                continue;
            }
            preds[h as usize].push(l);
            if h <= l {
                back.push((h, l));
            }
        }
    }
    if back.is_empty() {
        return (Vec::new(), false);
    }
    // Back edges of one header count as one loop (sorted together).
    back.sort_unstable();
    let mut depth = vec![0u32; n];
    let mut stamp = vec![u32::MAX; n];
    let mut counted = vec![u32::MAX; n];
    let mut budget = 16 * n + 4096;
    let (mut stack, mut body) = (Vec::new(), Vec::new());
    'edges: for (k, &(h, l)) in back.iter().enumerate() {
        let k = k as u32;
        stamp[h as usize] = k;
        body.clear();
        body.push(h);
        stack.clear();
        stack.push(l);
        let mut natural = true;
        while let Some(x) = stack.pop() {
            if stamp[x as usize] == k {
                continue;
            }
            if x == 0 {
                // The entry reaches the latch around the header: a layout
                // back edge, not a loop.
                natural = false;
                break;
            }
            stamp[x as usize] = k;
            body.push(x);
            for &p in &preds[x as usize] {
                if budget == 0 {
                    break 'edges;
                }
                budget -= 1;
                if stamp[p as usize] != k {
                    stack.push(p);
                }
            }
        }
        if natural {
            for &x in &body {
                if counted[x as usize] != h {
                    counted[x as usize] = h;
                    depth[x as usize] += 1;
                }
            }
        }
    }
    let mut calls = false;
    let mut score: SecondaryMap<Value, u64> = SecondaryMap::new();
    let mut seen = Vec::new();
    let mut add = |v: Value, w: u64, score: &mut SecondaryMap<Value, u64>| {
        if score[v] == 0 {
            seen.push(v);
        }
        score[v] = score[v].saturating_add(w);
    };
    for &b in order {
        let d = depth[pos[b] as usize];
        if d == 0 {
            continue;
        }
        let w = 1u64 << (2 * d.min(20));
        let data = &func.blocks()[b];
        for &p in &data.params {
            add(p, w, &mut score);
        }
        for &i in &data.insts {
            let inst = func.inst(i);
            calls |= calls_out(&inst.kind);
            inst.kind.for_each_arg(|v| add(v, w, &mut score));
            if let Some(r) = inst.result {
                add(r, w, &mut score);
            }
        }
        data.term.for_each_arg(|v| add(v, w, &mut score));
    }
    seen.retain(|&v| {
        let is_int_const = matches!(
            func.values()[v].def,
            ValueDef::Inst(i) if matches!(func.inst(i).kind, InstKind::IConst(_) | InstKind::BConst(_))
        );
        !is_int_const && func.value_type(v) != Type::Unit
    });
    seen.sort_by(|&a, &b| score[b].cmp(&score[a]).then(a.cmp(&b)));
    seen.truncate(MAX_HOMES);
    (seen, calls)
}

/// Whether an instruction of kind `kind` may call out of the function's
/// code in some back end (Waddle and host calls, allocation, strings,
/// printing, the clock, libm functions, float remainder).
fn calls_out(kind: &InstKind) -> bool {
    match kind {
        InstKind::Unary(op, _) => matches!(
            op,
            UnaryOp::FSin
                | UnaryOp::FCos
                | UnaryOp::FTan
                | UnaryOp::FExp
                | UnaryOp::FLog
                | UnaryOp::FFloor
                | UnaryOp::FCeil
        ),
        _ => calls_helper(kind),
    }
}

/// Whether a non-unary instruction of kind `kind` is lowered to a call on
/// every back end: the safepoints ([`may_collect`]), string comparison,
/// printing, the clock and float remainder. (Which unary operations call
/// libm depends on the back end.)
pub(crate) fn calls_helper(kind: &InstKind) -> bool {
    match kind {
        InstKind::Binary(op, ..) => *op == BinaryOp::FRem,
        InstKind::StrCmp(..) | InstKind::Print(..) | InstKind::Clock => true,
        _ => may_collect(kind),
    }
}

/// See [`FuncPlan::imm_only`]: one pass over the uses, clearing the
/// constants used any other way.
fn imm_only_consts(
    func: &Function,
    order: &[Block],
    consts: &[(Value, i64)],
) -> SecondaryMap<Value, bool> {
    let mut imm = SecondaryMap::new();
    for &(v, k) in consts {
        let int = matches!(func.values()[v].def, ValueDef::Inst(i)
            if matches!(func.inst(i).kind, InstKind::IConst(_)));
        imm[v] = int && i32::try_from(k).is_ok();
    }
    for &b in order {
        let data = &func.blocks()[b];
        for &i in &data.insts {
            let kind = &func.inst(i).kind;
            let rhs = match kind {
                InstKind::Binary(
                    BinaryOp::IAdd
                    | BinaryOp::ISub
                    | BinaryOp::IMul
                    | BinaryOp::IAnd
                    | BinaryOp::IOr
                    | BinaryOp::IXor
                    | BinaryOp::IShl
                    | BinaryOp::IShr
                    | BinaryOp::ICmp(_),
                    a,
                    r,
                ) if a != r => Some(*r),
                _ => None,
            };
            kind.for_each_arg(|v| {
                if Some(v) != rhs {
                    imm[v] = false;
                }
            });
        }
        data.term.for_each_arg(|v| imm[v] = false);
    }
    imm
}

/// The integer constant `v` is defined as, if any.
pub(crate) fn int_const(func: &Function, v: Value) -> Option<i64> {
    match func.values().get(v)?.def {
        ValueDef::Inst(i) => match func.insts().get(i)?.kind {
            InstKind::IConst(k) => Some(k),
            _ => None,
        },
        ValueDef::Param(..) => None,
    }
}

/// The slot of a value that has none in [`FuncPlan::slot_of`].
pub const NO_SLOT: u32 = u32::MAX;

impl FuncPlan {
    /// The slot number of value `v`, which must be defined in a reachable
    /// block (every value the emitted code reads or writes is).
    pub fn slot(&self, v: Value) -> usize {
        slot_in(&self.slot_of, v)
    }
}

/// The slot of `v` in the slot map `slot_of` ([`frame_slots`]).
pub(crate) fn slot_in(slot_of: &[u32], v: Value) -> usize {
    let s = slot_of.get(v.index()).copied().unwrap_or(NO_SLOT);
    debug_assert!(s != NO_SLOT, "{v} has no baseline frame slot");
    s as usize
}

/// The baseline frame layout of `func` (which must have a body): the slot
/// of each value by value number, [`NO_SLOT`] for values of unreachable
/// blocks and dead values of the arena. T1 code keeps value `v` in word
/// `frame_slots(func)[v]` of its frame; a host replacing a T1 activation
/// at a loop header reads the live values through this map.
pub fn frame_slots(func: &Function) -> Vec<u32> {
    let (order, _, _) = layout_order(func);
    number_slots(func, &order).0
}

/// The blocks reachable from the entry, in layout order; the layout
/// position of every layout block (`u32::MAX` for the others); and the
/// scratch words the reachable blocks' array literals and host calls need.
fn layout_order(func: &Function) -> (Vec<Block>, SecondaryMap<Block, u32>, usize) {
    let mut pos = SecondaryMap::with_default(u32::MAX);
    for (i, &b) in func.layout().iter().enumerate() {
        pos[b] = i as u32;
    }
    let mut reached: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut stack = Vec::new();
    let mut scratch = 0;
    if let Some(&entry) = func.layout().first() {
        reached[entry] = true;
        stack.push(entry);
    }
    while let Some(b) = stack.pop() {
        let data = &func.blocks()[b];
        for &i in &data.insts {
            if let InstKind::ArrayLit(elems) | InstKind::HostCall(_, elems) = &func.inst(i).kind {
                scratch = scratch.max(elems.len());
            }
        }
        for s in data.term.successors() {
            if pos[s.block] != u32::MAX && !reached[s.block] {
                reached[s.block] = true;
                stack.push(s.block);
            }
        }
    }
    let order = func
        .layout()
        .iter()
        .copied()
        .filter(|&b| reached[b])
        .collect();
    (order, pos, scratch)
}

/// Numbers the values defined in `order`'s blocks densely, block by
/// block (parameters, then instruction results): the slot of each value
/// and the value of each slot.
fn number_slots(func: &Function, order: &[Block]) -> (Vec<u32>, Vec<Value>) {
    let mut slot_of = vec![NO_SLOT; func.values().len()];
    let mut values = Vec::new();
    let mut give = |v: Value| {
        if let Some(s) = slot_of.get_mut(v.index()) {
            if *s == NO_SLOT {
                *s = values.len() as u32;
                values.push(v);
            }
        }
    };
    for &b in order {
        let data = &func.blocks()[b];
        data.params.iter().for_each(|&p| give(p));
        for &i in &data.insts {
            if let Some(r) = func.inst(i).result {
                give(r);
            }
        }
    }
    (slot_of, values)
}
