//! The interpreter's compact register-machine code.
//!
//! Each function is translated once ([`super::prepare`]) into a flat vector
//! of [`Op`]s. Operands are pre-resolved indices into the frame's slot array
//! (one `u64` per slot); constants live in slots that are filled from
//! [`Code::consts`] when the frame is entered; jump targets are indices into
//! [`Code::ops`]. Variable-length operand lists (call arguments, array
//! literal elements, switch tables) live in side tables.
//!
//! [`Code::validate`] checks every index of every op against the frame size
//! and the side tables, so the executor may access slots without bounds
//! checks.

use std::cell::Cell;

use crate::ir::{Cmp, SrcLoc, Type};

/// Index of a frame slot.
pub(crate) type Slot = u32;
/// Index of an op in [`Code::ops`] (a label id while the code is being built).
pub(crate) type Target = u32;

/// One interpreter instruction. `dst`, `a`, `b`, ... are slots; `t` is a
/// jump target; `aux` indexes [`Code::aux`]; `ty` indexes [`Code::types`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Op {
    /// `dst = src`.
    Mov { dst: Slot, src: Slot },
    /// Wrapping int `+`.
    IAdd { dst: Slot, a: Slot, b: Slot },
    /// Wrapping int `+` of a small immediate.
    IAddImm { dst: Slot, a: Slot, imm: i32 },
    /// Wrapping int `-`.
    ISub { dst: Slot, a: Slot, b: Slot },
    /// Wrapping int `*`.
    IMul { dst: Slot, a: Slot, b: Slot },
    /// Wrapping int `*` by a small immediate.
    IMulImm { dst: Slot, a: Slot, imm: i32 },
    /// Truncating int `/`; traps on zero.
    IDiv { dst: Slot, a: Slot, b: Slot },
    /// Int `%` with the sign of the dividend; traps on zero.
    IRem { dst: Slot, a: Slot, b: Slot },
    /// Truncating int `/` by `2^k` (`1 <= k <= 30`): shifts, no divide.
    IDivPow2 { dst: Slot, a: Slot, k: u32 },
    /// Int `%` by `2^k` (`1 <= k <= 30`), with the sign of the dividend.
    IRemPow2 { dst: Slot, a: Slot, k: u32 },
    /// Truncating int `/` by the constant of `magics[m]` (a multiply, no
    /// divide).
    IDivMagic { dst: Slot, a: Slot, m: u32 },
    /// Int `%` by the constant of `magics[m]`.
    IRemMagic { dst: Slot, a: Slot, m: u32 },
    /// Bitwise and.
    IAnd { dst: Slot, a: Slot, b: Slot },
    /// Bitwise or.
    IOr { dst: Slot, a: Slot, b: Slot },
    /// Bitwise xor.
    IXor { dst: Slot, a: Slot, b: Slot },
    /// Shift left, count mod 64.
    IShl { dst: Slot, a: Slot, b: Slot },
    /// Arithmetic shift right, count mod 64.
    IShr { dst: Slot, a: Slot, b: Slot },
    /// Signed minimum.
    IMin { dst: Slot, a: Slot, b: Slot },
    /// Signed maximum.
    IMax { dst: Slot, a: Slot, b: Slot },
    /// Word equality (ints and bools) → bool.
    IEq { dst: Slot, a: Slot, b: Slot },
    /// Word inequality → bool.
    INe { dst: Slot, a: Slot, b: Slot },
    /// Signed `<` → bool.
    ILt { dst: Slot, a: Slot, b: Slot },
    /// Signed `<=` → bool.
    ILe { dst: Slot, a: Slot, b: Slot },
    /// IEEE `==` → bool.
    FEq { dst: Slot, a: Slot, b: Slot },
    /// IEEE `!=` → bool.
    FNe { dst: Slot, a: Slot, b: Slot },
    /// IEEE `<` → bool.
    FLt { dst: Slot, a: Slot, b: Slot },
    /// IEEE `<=` → bool.
    FLe { dst: Slot, a: Slot, b: Slot },
    /// IEEE `+`.
    FAdd { dst: Slot, a: Slot, b: Slot },
    /// IEEE `-`.
    FSub { dst: Slot, a: Slot, b: Slot },
    /// IEEE `*`.
    FMul { dst: Slot, a: Slot, b: Slot },
    /// IEEE `/`.
    FDiv { dst: Slot, a: Slot, b: Slot },
    /// C `fmod`.
    FRem { dst: Slot, a: Slot, b: Slot },
    /// `f64::min` with `min(-0.0, 0.0) = -0.0`.
    FMin { dst: Slot, a: Slot, b: Slot },
    /// `f64::max` with `max(-0.0, 0.0) = 0.0`.
    FMax { dst: Slot, a: Slot, b: Slot },
    /// A one-operand operation (`kind` selects it; none of them traps).
    Unary { dst: Slot, a: Slot, kind: UnKind },
    /// Byte length of a string.
    StrLen { dst: Slot, a: Slot },
    /// Byte-wise string comparison → bool.
    StrCmp {
        dst: Slot,
        a: Slot,
        b: Slot,
        cc: Cmp,
    },
    /// String concatenation (host).
    StrConcat { dst: Slot, a: Slot, b: Slot },
    /// Text of `a` of type `types[ty]` (host).
    ToStr { dst: Slot, a: Slot, ty: u32 },
    /// Prints `a` of type `types[ty]` (host).
    Print { a: Slot, ty: u32 },
    /// Array length.
    ArrayLen { dst: Slot, a: Slot },
    /// Traps unless `0 <= idx < len(arr)`.
    BoundsCheck { arr: Slot, idx: Slot },
    /// Element load; still traps out of bounds (a defensive check: verified
    /// IR dominates it by a [`Op::BoundsCheck`]).
    ArrayGet { dst: Slot, arr: Slot, idx: Slot },
    /// Element store; still traps out of bounds like [`Op::ArrayGet`].
    ArraySet { arr: Slot, idx: Slot, val: Slot },
    /// [`Op::ArrayGet`] of an array with one-byte elements (`[bool]`,
    /// [`crate::abi::ElemLayout::Byte`]), chosen from the static type.
    ArrayGetB { dst: Slot, arr: Slot, idx: Slot },
    /// [`Op::ArraySet`] of an array with one-byte elements.
    ArraySetB { arr: Slot, idx: Slot, val: Slot },
    /// Appends `val` (host).
    ArrayPush { arr: Slot, val: Slot },
    /// Removes the last element; traps on an empty array.
    ArrayPop { dst: Slot, arr: Slot },
    /// New array: `aux[aux] = ty, aux[aux+1] = n`, then `n` element slots (host).
    ArrayLit { dst: Slot, aux: u32 },
    /// `[v; n]`: `aux[aux..aux+3] = [ty, value slot, count slot]` (host).
    ArrayRepeat { dst: Slot, aux: u32 },
    /// Reads global `g`.
    GlobalGet { dst: Slot, g: u32 },
    /// Writes global `g`.
    GlobalSet { g: u32, src: Slot },
    /// Traps when `a` is false.
    Assert { a: Slot },
    /// Host clock → float.
    Clock { dst: Slot },
    /// Calls function `func`: `aux[aux] = n`, then `n` argument slots. The
    /// result goes to `dst` (a scratch slot for void calls).
    Call { dst: Slot, func: u32, aux: u32 },
    /// Calls host function `func` (host): `aux[aux] = n`, then `n`
    /// argument slots; the result goes to `dst` (a scratch slot for void).
    HostCall { dst: Slot, func: u32, aux: u32 },
    /// Stores zero into slots: `aux[aux] = n`, then `n` slots (dead
    /// references before a safepoint, see [`crate::analysis::gc_slots`]).
    Clear { aux: u32 },
    /// Returns `src`.
    Ret { src: Slot },
    /// Returns from a void function (result word 0).
    RetVoid,
    /// Forward jump.
    Jump { t: Target },
    /// Backward jump (a loop back edge): charges one unit of fuel.
    JumpBack { t: Target },
    /// [`Op::JumpBack`] to the header of a loop (nested ones too), where
    /// the host may continue the activation in compiled code (on-stack
    /// replacement, [`crate::osr`]) when the edge counter runs out or
    /// another back edge of the function asked for it ([`TierCell::osr`]).
    JumpBackOsr { t: Target },
    /// Jumps when `c` is true (non-zero).
    BrTrue { c: Slot, t: Target },
    /// Jumps when `c` is false (zero).
    BrFalse { c: Slot, t: Target },
    /// Jumps when the ints are equal.
    BrIEq { a: Slot, b: Slot, t: Target },
    /// Jumps when the ints differ.
    BrINe { a: Slot, b: Slot, t: Target },
    /// Jumps when `a < b` (signed).
    BrILt { a: Slot, b: Slot, t: Target },
    /// Jumps when `a <= b` (signed).
    BrILe { a: Slot, b: Slot, t: Target },
    /// Jumps when `a == imm`.
    BrIEqImm { a: Slot, imm: i32, t: Target },
    /// Jumps when `a != imm`.
    BrINeImm { a: Slot, imm: i32, t: Target },
    /// Jumps when `a < imm`.
    BrILtImm { a: Slot, imm: i32, t: Target },
    /// Jumps when `a <= imm`.
    BrILeImm { a: Slot, imm: i32, t: Target },
    /// Jumps when `a > imm`.
    BrIGtImm { a: Slot, imm: i32, t: Target },
    /// Jumps when `a >= imm`.
    BrIGeImm { a: Slot, imm: i32, t: Target },
    /// Jumps when `a & mask == 0` (`mask` sign-extended): the fused form of
    /// `x % 2^k == 0` and `x & m == 0`.
    BrMaskZero { a: Slot, mask: i32, t: Target },
    /// Jumps when `a & mask != 0` (`mask` sign-extended).
    BrMaskNonZero { a: Slot, mask: i32, t: Target },
    /// Jumps when the floats are equal (IEEE).
    BrFEq { a: Slot, b: Slot, t: Target },
    /// Jumps when the floats are not equal (IEEE, true on NaN).
    BrFNe { a: Slot, b: Slot, t: Target },
    /// Jumps when `a < b` (IEEE).
    BrFLt { a: Slot, b: Slot, t: Target },
    /// Jumps when `a <= b` (IEEE).
    BrFLe { a: Slot, b: Slot, t: Target },
    /// Jumps when `!(a < b)` (IEEE, true on NaN).
    BrFNLt { a: Slot, b: Slot, t: Target },
    /// Jumps when `!(a <= b)` (IEEE, true on NaN).
    BrFNLe { a: Slot, b: Slot, t: Target },
    /// Multi-way branch on `v`: `cases[start..start+n]` are `(key, target)`;
    /// falls through to the next op when no key matches.
    Switch { v: Slot, start: u32, n: u32 },
    /// The function could not be prepared (malformed IR or a call that
    /// cannot be executed): traps `assertion failed` at the op's location.
    Malformed,
}

const _: () = assert!(std::mem::size_of::<Op>() == 16);

/// The one-operand operations of [`Op::Unary`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum UnKind {
    /// Wrapping int negation.
    INeg,
    /// Float negation.
    FNeg,
    /// Bool not.
    BNot,
    /// int → float.
    IToF,
    /// float → int, truncating, saturating, NaN → 0.
    FToI,
    /// Wrapping int absolute value.
    IAbs,
    /// Float absolute value.
    FAbs,
    /// Square root.
    FSqrt,
    /// Floor (keeps the sign of zero).
    FFloor,
    /// Ceiling (keeps the sign of zero).
    FCeil,
    /// Sine.
    FSin,
    /// Cosine.
    FCos,
    /// Tangent.
    FTan,
    /// `e^x`.
    FExp,
    /// Natural logarithm.
    FLog,
}

/// The prepared code of one function.
#[derive(Clone, Debug)]
pub(crate) struct Code {
    /// The ops; the last one never falls through.
    pub ops: Vec<Op>,
    /// The source location of each op (where its runtime error points).
    pub locs: Vec<SrcLoc>,
    /// Operand lists of calls and array literals.
    pub aux: Vec<u32>,
    /// Switch tables: `(key, target)`.
    pub cases: Vec<(i64, Target)>,
    /// Divisors of [`Op::IDivMagic`] and [`Op::IRemMagic`].
    pub magics: Vec<super::divisor::ConstDivisor>,
    /// Types referenced by `ToStr`, `Print`, `ArrayLit`, `ArrayRepeat`.
    pub types: Vec<Type>,
    /// Values copied into slots `const_base..const_base+consts.len()` on entry.
    pub consts: Vec<u64>,
    /// First constant slot.
    pub const_base: u32,
    /// Number of parameters (they occupy slots `0..nparams`).
    pub nparams: u32,
    /// Frame size in slots (at least `nparams + consts.len()`).
    pub nslots: u32,
    /// The highest global index used, if any.
    pub max_global: Option<u32>,
    /// Whether the function is recursive ([`crate::analysis::callgraph`]):
    /// only its frames count against the recursion depth.
    pub recursive: bool,
    /// Whether the function has a safepoint ([`Code::has_safepoint`]):
    /// only then is its frame zeroed on entry. A frame without one is
    /// never below the top of the value stack while the collector scans
    /// it, so the words a finished frame left in its slots are never
    /// taken for roots.
    pub collects: bool,
    /// The function's index in the program (set by the interpreter).
    pub func: u32,
    /// Where the function is declared: where a call from the embedder
    /// reports `out of fuel` when only the last, partial batch cannot be
    /// paid as it returns (as native entries do).
    pub decl: SrcLoc,
    /// Tiering state shared with the host (see [`super::Interpreter::set_external`]).
    pub tier: TierCell,
    /// The slot of each IR value by value index ([`NO_SLOT`]: none, e.g. a
    /// constant only used as an immediate): how the host reads a frame's
    /// live values for on-stack replacement.
    pub value_slots: Vec<Slot>,
    /// The targets of [`Op::JumpBackOsr`] and their IR blocks (by index).
    pub osr_heads: Vec<(Target, u32)>,
}

/// "No slot" in [`Code::value_slots`].
pub(crate) const NO_SLOT: Slot = Slot::MAX;

/// A function's tiering state as the dispatch loop sees it: two counters
/// that count down (a decrement and a branch on the hot paths) and the flag
/// that sends calls to another tier.
#[derive(Clone, Debug)]
pub(crate) struct TierCell {
    /// Calls left until the slow call path runs (it tells the host the
    /// function is hot, or calls it on another tier). Never positive for
    /// an external function, so every call of it takes the slow path.
    pub calls: Cell<i32>,
    /// Loop back edges left until the host hears the function loops hot.
    pub edges: Cell<i32>,
    /// Whether calls run the function on another tier through the host.
    pub external: Cell<bool>,
    /// Whether the next [`Op::JumpBackOsr`] asks the host for on-stack
    /// replacement even if the edge counter has not run out (set when the
    /// counter ran out on a back edge to a block that heads no loop, where
    /// no entry is possible).
    pub osr: Cell<bool>,
}

impl Default for TierCell {
    /// Counters that never run out (no tiering), not external.
    fn default() -> TierCell {
        TierCell {
            calls: Cell::new(i32::MAX),
            edges: Cell::new(i32::MAX),
            external: Cell::new(false),
            osr: Cell::new(false),
        }
    }
}

impl Code {
    /// Code that traps `assertion failed` at `loc` when called.
    pub(crate) fn malformed(nparams: u32, loc: SrcLoc) -> Code {
        Code {
            ops: vec![Op::Malformed],
            locs: vec![loc],
            aux: Vec::new(),
            cases: Vec::new(),
            magics: Vec::new(),
            types: Vec::new(),
            consts: Vec::new(),
            const_base: nparams,
            nparams,
            nslots: nparams,
            max_global: None,
            recursive: false,
            collects: false,
            func: 0,
            decl: loc,
            tier: TierCell::default(),
            value_slots: Vec::new(),
            osr_heads: Vec::new(),
        }
    }

    /// Whether some op may run the collector with this frame among the
    /// roots: a call (the callee's safepoints scan the caller's frame) or
    /// a host operation that receives the value stack as roots (the ops
    /// of [`crate::analysis::gc_slots::may_collect`]). Printing, the clock,
    /// fuel and the tiering paths pass no roots; on-stack replacement
    /// passes only the callers' frames.
    pub(crate) fn has_safepoint(&self) -> bool {
        self.ops.iter().any(|op| {
            matches!(
                op,
                Op::Call { .. }
                    | Op::HostCall { .. }
                    | Op::StrConcat { .. }
                    | Op::ToStr { .. }
                    | Op::ArrayPush { .. }
                    | Op::ArrayLit { .. }
                    | Op::ArrayRepeat { .. }
            )
        })
    }

    /// Whether every slot, target and side-table index is in range and the
    /// last op does not fall through; the executor relies on this.
    pub(crate) fn validate(&self) -> bool {
        let n = self.nslots as usize;
        if self.ops.is_empty()
            || self.locs.len() != self.ops.len()
            || self.nparams > self.nslots
            || self.const_base as usize + self.consts.len() > n
            || self.nslots > u32::MAX / 2
        {
            return false;
        }
        let last_ok = matches!(
            self.ops.last(),
            Some(
                Op::Jump { .. }
                    | Op::JumpBack { .. }
                    | Op::JumpBackOsr { .. }
                    | Op::Ret { .. }
                    | Op::RetVoid
                    | Op::Malformed
            )
        );
        if !last_ok || !self.ops.iter().all(|op| self.aux_ok(op)) {
            return false;
        }
        let mut ok = true;
        let mut copy = self.clone();
        copy.for_each_slot_mut(|s| ok &= (*s as usize) < n);
        let nops = self.ops.len();
        copy.for_each_target_mut(|t| ok &= (*t as usize) < nops);
        ok &= (self.value_slots.iter()).all(|&s| s == NO_SLOT || (s as usize) < n);
        ok
    }

    /// Whether the side-table ranges an op refers to exist.
    fn aux_ok(&self, op: &Op) -> bool {
        let ty = |x: u32| (x as usize) < self.types.len();
        let aux_len = |start: usize, n: usize| {
            start
                .checked_add(n)
                .is_some_and(|end| end <= self.aux.len())
        };
        match *op {
            Op::ToStr { ty: k, .. } | Op::Print { ty: k, .. } => ty(k),
            Op::ArrayLit { aux, .. } => {
                let i = aux as usize;
                self.aux.get(i).is_some_and(|&k| ty(k))
                    && self
                        .aux
                        .get(i + 1)
                        .is_some_and(|&m| aux_len(i + 2, m as usize))
            }
            Op::ArrayRepeat { aux, .. } => {
                let i = aux as usize;
                self.aux.get(i).is_some_and(|&k| ty(k)) && aux_len(i + 1, 2)
            }
            Op::Call { aux, .. } | Op::HostCall { aux, .. } | Op::Clear { aux } => {
                let i = aux as usize;
                self.aux.get(i).is_some_and(|&m| aux_len(i + 1, m as usize))
            }
            Op::Switch { start, n, .. } => (start as usize)
                .checked_add(n as usize)
                .is_some_and(|end| end <= self.cases.len()),
            Op::IDivMagic { m, .. } | Op::IRemMagic { m, .. } => (m as usize) < self.magics.len(),
            Op::IDivPow2 { k, .. } | Op::IRemPow2 { k, .. } => (1..=62).contains(&k),
            _ => true,
        }
    }

    /// Calls `f` on every slot operand of every op, including the slot
    /// lists in [`Code::aux`] (malformed aux ranges are skipped).
    pub(crate) fn for_each_slot_mut(&mut self, mut f: impl FnMut(&mut Slot)) {
        for i in 0..self.ops.len() {
            let mut op = self.ops[i];
            op.for_each_slot_mut(&mut f);
            self.ops[i] = op;
            let (start, count) = match op {
                Op::Call { aux, .. } | Op::HostCall { aux, .. } | Op::Clear { aux } => {
                    let n = self.aux.get(aux as usize).copied().unwrap_or(0);
                    (aux as usize + 1, n as usize)
                }
                Op::ArrayLit { aux, .. } => {
                    let n = self.aux.get(aux as usize + 1).copied().unwrap_or(0);
                    (aux as usize + 2, n as usize)
                }
                Op::ArrayRepeat { aux, .. } => (aux as usize + 1, 2),
                _ => continue,
            };
            let end = start.saturating_add(count).min(self.aux.len());
            if let Some(xs) = self.aux.get_mut(start..end) {
                xs.iter_mut().for_each(&mut f);
            }
        }
    }

    /// Calls `f` on every jump target (ops and switch tables).
    pub(crate) fn for_each_target_mut(&mut self, mut f: impl FnMut(&mut Target)) {
        for op in &mut self.ops {
            match op {
                Op::Jump { t }
                | Op::JumpBack { t }
                | Op::JumpBackOsr { t }
                | Op::BrTrue { t, .. }
                | Op::BrFalse { t, .. }
                | Op::BrIEq { t, .. }
                | Op::BrINe { t, .. }
                | Op::BrILt { t, .. }
                | Op::BrILe { t, .. }
                | Op::BrIEqImm { t, .. }
                | Op::BrINeImm { t, .. }
                | Op::BrILtImm { t, .. }
                | Op::BrILeImm { t, .. }
                | Op::BrIGtImm { t, .. }
                | Op::BrIGeImm { t, .. }
                | Op::BrMaskZero { t, .. }
                | Op::BrMaskNonZero { t, .. }
                | Op::BrFEq { t, .. }
                | Op::BrFNe { t, .. }
                | Op::BrFLt { t, .. }
                | Op::BrFLe { t, .. }
                | Op::BrFNLt { t, .. }
                | Op::BrFNLe { t, .. } => f(t),
                _ => {}
            }
        }
        for (_, t) in &mut self.cases {
            f(t);
        }
        for (t, _) in &mut self.osr_heads {
            f(t);
        }
    }
}

impl Op {
    /// Calls `f` on each slot operand of this op (not the aux lists).
    pub(crate) fn for_each_slot_mut(&mut self, mut f: impl FnMut(&mut Slot)) {
        match self {
            Op::Mov { dst, src: a }
            | Op::Unary { dst, a, .. }
            | Op::IAddImm { dst, a, .. }
            | Op::IMulImm { dst, a, .. }
            | Op::IDivPow2 { dst, a, .. }
            | Op::IRemPow2 { dst, a, .. }
            | Op::IDivMagic { dst, a, .. }
            | Op::IRemMagic { dst, a, .. }
            | Op::StrLen { dst, a }
            | Op::ArrayLen { dst, a }
            | Op::ArrayPop { dst, arr: a }
            | Op::ToStr { dst, a, .. } => {
                f(dst);
                f(a)
            }
            Op::IAdd { dst, a, b }
            | Op::ISub { dst, a, b }
            | Op::IMul { dst, a, b }
            | Op::IDiv { dst, a, b }
            | Op::IRem { dst, a, b }
            | Op::IAnd { dst, a, b }
            | Op::IOr { dst, a, b }
            | Op::IXor { dst, a, b }
            | Op::IShl { dst, a, b }
            | Op::IShr { dst, a, b }
            | Op::IMin { dst, a, b }
            | Op::IMax { dst, a, b }
            | Op::IEq { dst, a, b }
            | Op::INe { dst, a, b }
            | Op::ILt { dst, a, b }
            | Op::ILe { dst, a, b }
            | Op::FEq { dst, a, b }
            | Op::FNe { dst, a, b }
            | Op::FLt { dst, a, b }
            | Op::FLe { dst, a, b }
            | Op::FAdd { dst, a, b }
            | Op::FSub { dst, a, b }
            | Op::FMul { dst, a, b }
            | Op::FDiv { dst, a, b }
            | Op::FRem { dst, a, b }
            | Op::FMin { dst, a, b }
            | Op::FMax { dst, a, b }
            | Op::StrCmp { dst, a, b, .. }
            | Op::StrConcat { dst, a, b }
            | Op::ArrayGet {
                dst,
                arr: a,
                idx: b,
            }
            | Op::ArrayGetB {
                dst,
                arr: a,
                idx: b,
            } => {
                f(dst);
                f(a);
                f(b)
            }
            Op::ArraySet { arr, idx, val } | Op::ArraySetB { arr, idx, val } => {
                f(arr);
                f(idx);
                f(val)
            }
            Op::BoundsCheck { arr: a, idx: b }
            | Op::ArrayPush { arr: a, val: b }
            | Op::BrIEq { a, b, .. }
            | Op::BrINe { a, b, .. }
            | Op::BrILt { a, b, .. }
            | Op::BrILe { a, b, .. }
            | Op::BrFEq { a, b, .. }
            | Op::BrFNe { a, b, .. }
            | Op::BrFLt { a, b, .. }
            | Op::BrFLe { a, b, .. }
            | Op::BrFNLt { a, b, .. }
            | Op::BrFNLe { a, b, .. } => {
                f(a);
                f(b)
            }
            Op::Print { a, .. }
            | Op::ArrayLit { dst: a, .. }
            | Op::ArrayRepeat { dst: a, .. }
            | Op::GlobalGet { dst: a, .. }
            | Op::GlobalSet { src: a, .. }
            | Op::Assert { a }
            | Op::Clock { dst: a }
            | Op::Call { dst: a, .. }
            | Op::HostCall { dst: a, .. }
            | Op::Ret { src: a }
            | Op::BrTrue { c: a, .. }
            | Op::BrFalse { c: a, .. }
            | Op::BrIEqImm { a, .. }
            | Op::BrINeImm { a, .. }
            | Op::BrILtImm { a, .. }
            | Op::BrILeImm { a, .. }
            | Op::BrIGtImm { a, .. }
            | Op::BrIGeImm { a, .. }
            | Op::BrMaskZero { a, .. }
            | Op::BrMaskNonZero { a, .. }
            | Op::Switch { v: a, .. } => f(a),
            Op::RetVoid
            | Op::Jump { .. }
            | Op::JumpBack { .. }
            | Op::Clear { .. }
            | Op::JumpBackOsr { .. }
            | Op::Malformed => {}
        }
    }
}
