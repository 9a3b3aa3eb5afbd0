//! The interface through which the interpreter and the native tiers'
//! runtime helpers (`waddle-jit`'s `helpers`) reach the runtime: heap
//! allocation, printing, globals, clock, fuel and host functions.
//!
//! Reading heap objects (lengths, elements, string bytes) needs no host: it
//! follows the layouts of [`crate::abi`] directly, as compiled code does.

use cranelift_entity::EntityRef;

use crate::abi::{Trap, TrapCode, Word};
use crate::ir::{Block, FuncId, HostFnId, SrcLoc, Type, Value};

/// The frame of an interpreted activation standing at a loop header, as
/// [`Host::osr`] sees it: the words of its live IR values.
pub struct LoopFrame<'a> {
    pub(crate) frame: &'a [Word],
    pub(crate) slots: &'a [u32],
}

impl<'a> LoopFrame<'a> {
    /// The frame of another tier: value `v`'s word is `frame[slots[v]]`
    /// (T1 code: its frame by slot number, `slots` the identity, remapped
    /// by the host with [`LoopFrame::with_slots`]).
    pub fn new(frame: &'a [Word], slots: &'a [u32]) -> LoopFrame<'a> {
        LoopFrame { frame, slots }
    }

    /// The same frame words read through another value-to-slot map: T1
    /// code hands its frame over by slot number (`slots` the identity),
    /// and the host, which knows the function, maps its values to the
    /// slots of T1's frame layout.
    pub fn with_slots<'b>(&self, slots: &'b [u32]) -> LoopFrame<'b>
    where
        'a: 'b,
    {
        LoopFrame {
            frame: self.frame,
            slots,
        }
    }

    /// The word of `v` in the frame; `None` when `v` has no slot (a
    /// constant the code only uses as an immediate, or no value of this
    /// function). Only values live at the header hold meaningful words:
    /// the header's parameters and values defined before the loop.
    pub fn value(&self, v: Value) -> Option<Word> {
        let s = *self.slots.get(v.index())?;
        self.frame.get(s as usize).copied()
    }
}

/// Services the runtime provides to executing Waddle code.
///
/// Every method that may allocate receives `roots`: the words of the
/// caller's live frames. The collector treats each word that is the address
/// of a live heap object as a root (conservative scanning, as for native
/// frames), in addition to the globals and pinned objects it knows itself.
pub trait Host {
    /// A pinned (never freed) string object holding `s`, for string constants.
    fn intern_str(&mut self, s: &str) -> Word;

    /// The globals area: one word per [`crate::ir::GlobalId`] of the running
    /// program. Its address must not change while code runs.
    fn globals(&mut self) -> &mut [Word];

    /// A new array with element type `elem` holding `elems`.
    fn array_new(&mut self, elem: Type, elems: &[Word], roots: &[Word]) -> Result<Word, TrapCode>;

    /// `[value; count]` with element type `elem`: `NegativeLength` for a
    /// negative count; array values are deep-copied into every element.
    fn array_repeat(
        &mut self,
        elem: Type,
        value: Word,
        count: i64,
        roots: &[Word],
    ) -> Result<Word, TrapCode>;

    /// Appends `value` to `array` (may reallocate its element buffer).
    fn array_push(&mut self, array: Word, value: Word, roots: &[Word]) -> Result<(), TrapCode>;

    /// Concatenation of two strings.
    fn str_concat(&mut self, a: Word, b: Word, roots: &[Word]) -> Result<Word, TrapCode>;

    /// The text `print` would write for `value` of type `ty`, as a new string.
    fn to_str(&mut self, ty: Type, value: Word, roots: &[Word]) -> Result<Word, TrapCode>;

    /// Writes `value` of type `ty` and a newline to the program's output.
    fn print(&mut self, ty: Type, value: Word);

    /// Calls host function `id` of the running program with `args` (one word
    /// per declared parameter, in order) and returns its result word (0 for
    /// `void`). A failing or panicking host function is `HostError`; the
    /// host keeps its message. The default is a host with no functions.
    fn host_call(&mut self, id: HostFnId, args: &[Word], roots: &[Word]) -> Result<Word, TrapCode> {
        let _ = (id, args, roots);
        Err(TrapCode::HostError)
    }

    /// Runs Waddle function `func` with `args` on the tier that runs it
    /// now and returns its result word: how the interpreter calls a
    /// function it treats as external (compiled), and how compiled code
    /// reaches a function that is still interpreted (through an
    /// interpreter-entry stub). `roots` are the caller's frames (GC roots
    /// for as long as the callee runs). A trap raised before the callee's
    /// first instruction (stack overflow, fuel) has location
    /// [`SrcLoc::NONE`], so the caller reports its call site. The caller
    /// hands its recursion depth and current fuel batch to the code
    /// entered ([`crate::abi::carry`]), whose entry charges its unit to
    /// that batch, so fuel runs out at the same unit as on one tier. The
    /// default is a host with one tier: calling an external function is an
    /// internal error (`assertion failed`).
    fn call_func(&mut self, func: FuncId, args: &[Word], roots: &[Word]) -> Result<Word, Trap> {
        let _ = (func, args, roots);
        Err(Trap {
            code: TrapCode::AssertionFailed,
            loc: SrcLoc::NONE,
        })
    }

    /// A runtime error is leaving a frame of `func`: `loc` is where that
    /// frame stopped (the failing operation in the innermost frame, the
    /// call in every other). Every tier reports each frame the trap passes
    /// through, innermost first, so the host can build the script's stack
    /// trace; frames of different tiers interleave in call order. A frame
    /// whose function had not started (a trap in its entry: stack
    /// overflow, fuel) is not reported: the error points at its caller.
    /// Only runs on the trap path. The default ignores it.
    fn trace_frame(&mut self, func: FuncId, loc: SrcLoc) {
        let _ = (func, loc);
    }

    /// The interpreter's counter of `func` ran out: its call counter, or
    /// its loop back-edge counter when `back_edge`. The host may compile
    /// the function and make it external (the call that ran the counter
    /// out then goes to the new code), or re-arm the counter; a host that
    /// does neither hears about every later call. Called between
    /// instructions, so the interpreter's state is consistent.
    fn hot(&mut self, func: FuncId, back_edge: bool) {
        let _ = (func, back_edge);
    }

    /// On-stack replacement: the running activation of `func` is about to
    /// enter loop header `header` (of any loop, nested ones too) again,
    /// and its edge counter ran out. The host may run the rest
    /// of the activation on another tier, from `header` with the live
    /// values of `frame` ([`crate::osr::osr_entry`]), and return
    /// `Some(result)`: the function's result word, or the trap it raised
    /// (a trap at [`SrcLoc::NONE`] is reported at the back edge). `None`:
    /// the interpreter goes on (the host may have re-armed the counters,
    /// as for [`Host::hot`]). `roots` are the interpreter's frames
    /// below this one (this frame's live values are in `frame`; the entry
    /// roots those it still needs). The default tells [`Host::hot`] and goes on.
    /// The interpreter hands its recursion depth and current fuel batch to
    /// the code entered ([`crate::abi::carry`]), whose entry charges this
    /// back edge, so fuel runs out at the same unit as on the interpreter.
    fn osr(
        &mut self,
        func: FuncId,
        header: Block,
        frame: &LoopFrame<'_>,
        roots: &[Word],
    ) -> Option<Result<Word, Trap>> {
        let _ = (header, frame, roots);
        self.hot(func, true);
        None
    }

    /// On-stack replacement from compiled (T1) code: as [`Host::osr`], for
    /// an activation of `func` running T1 code whose back-edge counter ran
    /// out at the back edge to `header` (after the edge's moves and before
    /// it charged fuel: the code entered charges it). `frame` holds the
    /// activation's values; `roots` are the callers' frames. A trap must
    /// come back located, with this activation's stack-trace frame
    /// reported ([`Host::trace_frame`]), as T1 code leaves at once. The
    /// default tells [`Host::hot`] and goes on.
    fn osr_native(
        &mut self,
        func: FuncId,
        header: Block,
        frame: &LoopFrame<'_>,
        roots: &[Word],
    ) -> Option<Result<Word, Trap>> {
        let _ = (header, frame, roots);
        self.hot(func, true);
        None
    }

    /// Seconds since an arbitrary start.
    fn clock(&mut self) -> f64;

    /// Charges `units` of the embedder's execution budget; `OutOfFuel` once
    /// it is exhausted. Tiers call it on function entry and loop back edges
    /// (batched as they see fit).
    fn consume_fuel(&mut self, units: u64) -> Result<(), TrapCode>;

    /// Whether [`Host::consume_fuel`] can fail or pause: `false` when the
    /// embedder set no budget. An entry from Rust then does not pay the
    /// units its compiled code counted below a batch after the code
    /// returned; that payment could only report an interrupt, which the
    /// entry checked before the call and longer calls notice at batch
    /// boundaries. Default `true` (always pay).
    fn fuel_limited(&self) -> bool {
        true
    }
}
