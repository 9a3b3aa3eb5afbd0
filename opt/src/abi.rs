//! Data layouts shared by the runtime and every execution tier.
//!
//! Values travel as raw 64-bit words ([`Word`]): `int` as two's complement,
//! `float` as IEEE bits, `bool` as 0/1, `str` and arrays as the address of a
//! heap object laid out as below. Compiled code reads array and string
//! headers at these offsets; the runtime allocates objects with these
//! layouts. Changing a layout here changes it for everyone.
//!
//! Array elements are laid out by type ([`ElemLayout`]): one byte per
//! element for `[bool]`, one word for every other element type. Slots,
//! globals, helper arguments and the host's element lists stay words; only
//! the array buffer is narrower.

use crate::ir::{SrcLoc, Type};

/// A value as stored in interpreter slots, globals and array elements.
pub type Word = u64;

/// Heap object kinds, stored in [`ObjHeader::kind`].
pub mod obj_kind {
    /// A [`super::StrObj`].
    pub const STR: u8 = 1;
    /// An [`super::ArrayObj`].
    pub const ARRAY: u8 = 2;
}

/// Header common to every heap object.
#[repr(C)]
#[derive(Debug)]
pub struct ObjHeader {
    /// One of [`obj_kind`].
    pub kind: u8,
    /// Mark bit for the collector.
    pub marked: u8,
    /// For arrays: 1 when the elements are heap references, else 0.
    pub elems_are_refs: u8,
    /// 1 for objects that are never freed (interned string constants).
    pub pinned: u8,
    /// For arrays: 1 when each element is one byte ([`ElemLayout::Byte`],
    /// `[bool]`), 0 when it is a [`Word`].
    pub byte_elems: u8,
    /// Reserved, zero.
    pub reserved: [u8; 3],
}

/// How an array stores its elements, decided by the element type alone
/// (every tier derives it from the static type of the array value; the
/// runtime reads it back from [`ObjHeader`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ElemLayout {
    /// One [`Word`] per element that is not a heap reference (`int`, `float`).
    Word,
    /// One [`Word`] per element, each the address of a heap object (`str`,
    /// arrays): the collector traces them.
    Ref,
    /// One byte per element, 0 or 1 (`bool`).
    Byte,
}

impl ElemLayout {
    /// The layout of an array whose elements have type `elem`.
    pub fn of(elem: Type) -> ElemLayout {
        match elem {
            Type::Bool => ElemLayout::Byte,
            t if t.is_ref() => ElemLayout::Ref,
            _ => ElemLayout::Word,
        }
    }

    /// The layout of the array type `array` (`[int]` for a non-array type).
    pub fn of_array(array: Type) -> ElemLayout {
        array.element().map_or(ElemLayout::Word, ElemLayout::of)
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElemLayout::Byte => 1,
            ElemLayout::Word | ElemLayout::Ref => 8,
        }
    }

    /// log2 of [`ElemLayout::size`]: the shift that turns an index into a
    /// byte offset.
    pub fn shift(self) -> u8 {
        match self {
            ElemLayout::Byte => 0,
            ElemLayout::Word | ElemLayout::Ref => 3,
        }
    }

    /// Bytes of `n` elements, `None` on overflow.
    pub fn bytes_for(self, n: usize) -> Option<usize> {
        n.checked_mul(self.size())
    }

    /// The header of a new array with this layout.
    pub fn header(self) -> ObjHeader {
        ObjHeader {
            kind: obj_kind::ARRAY,
            marked: 0,
            elems_are_refs: u8::from(self == ElemLayout::Ref),
            pinned: 0,
            byte_elems: u8::from(self == ElemLayout::Byte),
            reserved: [0; 3],
        }
    }

    /// The layout recorded in an array's header.
    pub fn of_header(h: &ObjHeader) -> ElemLayout {
        if h.byte_elems != 0 {
            ElemLayout::Byte
        } else if h.elems_are_refs != 0 {
            ElemLayout::Ref
        } else {
            ElemLayout::Word
        }
    }
}

/// An immutable UTF-8 string.
#[repr(C)]
#[derive(Debug)]
pub struct StrObj {
    /// Common header, `kind == STR`.
    pub header: ObjHeader,
    /// Byte length.
    pub len: u64,
    /// Pointer to `len` bytes (owned by the object).
    pub ptr: *const u8,
}

/// A growable array; its elements are laid out by [`ElemLayout`].
#[repr(C)]
#[derive(Debug)]
pub struct ArrayObj {
    /// Common header, `kind == ARRAY`.
    pub header: ObjHeader,
    /// Number of elements.
    pub len: u64,
    /// Allocated capacity of `data`, in elements.
    pub cap: u64,
    /// Pointer to `cap` elements of [`ElemLayout::size`] bytes each, the
    /// first `len` initialized (owned by the object).
    pub data: *mut u8,
}

/// Byte offset of [`StrObj::len`].
pub const STR_LEN_OFFSET: i32 = 8;
/// Byte offset of [`StrObj::ptr`].
pub const STR_PTR_OFFSET: i32 = 16;
/// Byte offset of [`ArrayObj::len`].
pub const ARRAY_LEN_OFFSET: i32 = 8;
/// Byte offset of [`ArrayObj::cap`].
pub const ARRAY_CAP_OFFSET: i32 = 16;
/// Byte offset of [`ArrayObj::data`].
pub const ARRAY_DATA_OFFSET: i32 = 24;

const _: () = {
    assert!(std::mem::offset_of!(StrObj, len) == STR_LEN_OFFSET as usize);
    assert!(std::mem::offset_of!(StrObj, ptr) == STR_PTR_OFFSET as usize);
    assert!(std::mem::offset_of!(ArrayObj, len) == ARRAY_LEN_OFFSET as usize);
    assert!(std::mem::offset_of!(ArrayObj, cap) == ARRAY_CAP_OFFSET as usize);
    assert!(std::mem::offset_of!(ArrayObj, data) == ARRAY_DATA_OFFSET as usize);
    assert!(std::mem::size_of::<ObjHeader>() == 8);
    assert!(std::mem::offset_of!(ObjHeader, byte_elems) == 4);
};

/// The runtime errors of docs/language.md ("Errors"), shared by every tier.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[repr(u32)]
pub enum TrapCode {
    /// Integer `/` or `%` by zero.
    DivisionByZero = 1,
    /// Array index outside `0..len`.
    IndexOutOfBounds = 2,
    /// Repeat literal with a negative count.
    NegativeLength = 3,
    /// `pop` on an empty array.
    PopEmpty = 4,
    /// `assert(false)`.
    AssertionFailed = 5,
    /// The call-depth (stack byte) budget is exhausted.
    StackOverflow = 6,
    /// The embedder's execution budget is exhausted.
    OutOfFuel = 7,
    /// An allocation the host cannot satisfy.
    OutOfMemory = 8,
    /// A host function returned an error or panicked (the host keeps the
    /// detailed message).
    HostError = 9,
    /// The embedder interrupted the run (an interrupt handle or a deadline);
    /// raised where fuel is charged (function entries and loop back edges).
    Interrupted = 10,
}

impl TrapCode {
    /// The message printed after `error: runtime error: `.
    pub fn message(self) -> &'static str {
        match self {
            TrapCode::DivisionByZero => "division by zero",
            TrapCode::IndexOutOfBounds => "index out of bounds",
            TrapCode::NegativeLength => "negative array length",
            TrapCode::PopEmpty => "pop from empty array",
            TrapCode::AssertionFailed => "assertion failed",
            TrapCode::StackOverflow => "stack overflow",
            TrapCode::OutOfFuel => "out of fuel",
            TrapCode::OutOfMemory => "out of memory",
            TrapCode::HostError => "host function failed",
            TrapCode::Interrupted => "interrupted",
        }
    }
}

/// A runtime error raised by executing code: what went wrong and where.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Trap {
    /// Which error.
    pub code: TrapCode,
    /// The source location the error points at (docs/language.md "Errors").
    pub loc: SrcLoc,
}

/// Default budget of stack bytes for nested Waddle calls, shared by all
/// tiers (like wasmtime's `max_wasm_stack`). Each tier charges its frames
/// against it; exhausting it is the `stack overflow` runtime error.
pub const DEFAULT_STACK_BUDGET: usize = 64 << 20;

/// Stack bytes the budget reserves per recursive call: a budget of `B`
/// bytes allows `B / STACK_BYTES_PER_CALL` nested frames of recursive
/// functions on every tier ([`max_call_depth`]; 65 536 for the default
/// budget). The byte check against the stack limit stays as a safety net
/// for deep chains of non-recursive calls and for frames larger than
/// [`STACK_BYTES_FACTOR`] times this; it allows [`stack_byte_limit`] bytes.
pub const STACK_BYTES_PER_CALL: usize = 1024;

/// How many times the budget the byte safety net allows: each tier sizes
/// its frames differently (an interpreter frame is a slot per value, a
/// baseline frame a word per IR value, Cranelift's what its allocator
/// needs), so with the net at the budget itself a recursive function
/// whose frame is larger than [`STACK_BYTES_PER_CALL`] on one tier
/// overflowed there at a smaller depth than on the others. With the net
/// at 8 times the budget, frames of up to 8 KiB reach the same depth on
/// every tier. The memory is virtual until frames that large touch it.
pub const STACK_BYTES_FACTOR: usize = 8;

/// The stack bytes nested Waddle calls may use under a budget of
/// `stack_budget` bytes (the byte safety net, see [`STACK_BYTES_FACTOR`];
/// native code gets less when its thread's stack is smaller).
pub fn stack_byte_limit(stack_budget: usize) -> usize {
    stack_budget.saturating_mul(STACK_BYTES_FACTOR)
}

/// The recursion depth every tier allows under a stack budget of
/// `stack_budget` bytes: nested frames of recursive functions.
pub fn max_call_depth(stack_budget: usize) -> i64 {
    (stack_budget / STACK_BYTES_PER_CALL) as i64
}

/// Reads the bytes of a string object.
///
/// # Safety
/// `w` must be the address of a live [`StrObj`].
pub unsafe fn str_bytes<'a>(w: Word) -> &'a [u8] {
    // SAFETY: the caller promises `w` is a live `StrObj`.
    let s = unsafe { &*(w as *const StrObj) };
    if s.len == 0 {
        &[]
    } else {
        // SAFETY: a live string owns `len` initialized bytes at `ptr`.
        unsafe { std::slice::from_raw_parts(s.ptr, s.len as usize) }
    }
}

/// The element layout of an array object.
///
/// # Safety
/// `w` must be the address of a live [`ArrayObj`].
pub unsafe fn array_layout(w: Word) -> ElemLayout {
    // SAFETY: the caller promises `w` is a live `ArrayObj`.
    ElemLayout::of_header(unsafe { &(*(w as *const ArrayObj)).header })
}

/// The length of an array object.
///
/// # Safety
/// `w` must be the address of a live [`ArrayObj`].
pub unsafe fn array_len(w: Word) -> usize {
    // SAFETY: the caller promises `w` is a live `ArrayObj`.
    unsafe { (*(w as *const ArrayObj)).len as usize }
}

/// Reads element `i` of an array object as a word (a `bool` as 0/1).
///
/// # Safety
/// `w` must be the address of a live [`ArrayObj`] and `i < len`.
pub unsafe fn array_get(w: Word, i: usize) -> Word {
    // SAFETY: the caller promises a live array and an index below `len`,
    // so the element lies in the initialized part of the buffer.
    unsafe {
        let a = &*(w as *const ArrayObj);
        debug_assert!((i as u64) < a.len);
        if a.header.byte_elems != 0 {
            Word::from(*a.data.add(i))
        } else {
            *(a.data as *const Word).add(i)
        }
    }
}

/// Writes element `i` of an array object (a `bool` element keeps the low byte).
///
/// # Safety
/// `w` must be the address of a live [`ArrayObj`] and `i < cap`.
pub unsafe fn array_set(w: Word, i: usize, v: Word) {
    // SAFETY: the caller promises a live array and an index below `cap`.
    unsafe {
        let a = &*(w as *const ArrayObj);
        debug_assert!((i as u64) < a.cap);
        if a.header.byte_elems != 0 {
            *a.data.add(i) = v as u8;
        } else {
            *(a.data as *mut Word).add(i) = v;
        }
    }
}

/// The initialized elements of an array object as words (bools widened).
///
/// # Safety
/// `w` must be the address of a live [`ArrayObj`].
pub unsafe fn array_to_vec(w: Word) -> Vec<Word> {
    // SAFETY: the caller promises a live array; `array_get` stays below `len`.
    unsafe { (0..array_len(w)).map(|i| array_get(w, i)).collect() }
}

/// The initialized elements of an array object with word elements
/// ([`ElemLayout::Word`] or [`ElemLayout::Ref`]); empty for a byte array.
///
/// # Safety
/// `w` must be the address of a live [`ArrayObj`], and nothing may resize
/// it while the slice is alive.
pub unsafe fn array_words<'a>(w: Word) -> &'a mut [Word] {
    // SAFETY: the caller promises `w` is a live `ArrayObj`.
    let a = unsafe { &mut *(w as *mut ArrayObj) };
    debug_assert!(a.header.byte_elems == 0, "array_words on a [bool]");
    if a.len == 0 || a.header.byte_elems != 0 {
        &mut []
    } else {
        // SAFETY: a live word array holds `len` initialized words at `data`
        // (word aligned), and the caller promises nothing resizes it while
        // the slice lives.
        unsafe { std::slice::from_raw_parts_mut(a.data as *mut Word, a.len as usize) }
    }
}

/// The initialized elements of a `[bool]` array object, one byte each;
/// empty for a word array.
///
/// # Safety
/// `w` must be the address of a live [`ArrayObj`], and nothing may resize
/// it while the slice is alive.
pub unsafe fn array_bytes<'a>(w: Word) -> &'a mut [u8] {
    // SAFETY: the caller promises `w` is a live `ArrayObj`.
    let a = unsafe { &mut *(w as *mut ArrayObj) };
    if a.len == 0 || a.header.byte_elems == 0 {
        &mut []
    } else {
        // SAFETY: a live byte array holds `len` initialized bytes at `data`.
        unsafe { std::slice::from_raw_parts_mut(a.data, a.len as usize) }
    }
}

/// The runtime context every compiled Waddle function receives as its first
/// argument (the calling convention is documented in `waddle-jit`'s `abi`
/// module). Compiled code reads and writes it at the `VMCTX_*` offsets below;
/// the runtime helpers reach the host through [`VmCtx::host`].
#[repr(C)]
#[derive(Debug)]
pub struct VmCtx {
    /// Base of the globals area: one [`Word`] per [`crate::ir::GlobalId`].
    pub globals: *mut Word,
    /// The entry-slot table: the current code address of every function of
    /// the program, indexed by [`crate::ir::FuncId`]. Calls between Waddle
    /// functions load the callee's address from here, so code can be swapped.
    pub entries: *const usize,
    /// Lowest stack address compiled code may run at: every prologue compares
    /// the stack pointer against it and traps `stack overflow` below it.
    pub stack_limit: usize,
    /// Highest stack address of the native region holding Waddle frames:
    /// the stack pointer at the call of the outermost compiled frame (set
    /// by the entry shim, `waddle-jit`'s `entry::ENTRY_SHIM`, so no word of
    /// the entering Rust frames is in the region). The collector scans
    /// conservatively from the allocating helper's caller up to here.
    pub stack_base: usize,
    /// Fuel units left in the current batch; a tick that reaches zero asks
    /// the host for the next batch.
    pub fuel: i64,
    /// Pending trap: 0 when none, else a [`TrapCode`] value (or a tier's
    /// private code above 0xFFFF, e.g. a host panic being carried out).
    pub trap_code: u32,
    /// 1 once the trap location below has been written.
    pub trap_loc_set: u32,
    /// Trap location: [`SrcLoc::file`].
    pub trap_file: u32,
    /// Trap location: [`SrcLoc::line`].
    pub trap_line: u32,
    /// Trap location: [`SrcLoc::col`].
    pub trap_col: u32,
    /// Reserved, zero.
    pub reserved: u32,
    /// Opaque pointer the tier's runtime helpers use to reach the host.
    pub host: *mut std::ffi::c_void,
    /// Table of runtime-helper code addresses, indexed by the helper's
    /// number (`waddle-jit`'s `Helper` enum order). Position-independent
    /// code (baseline code, cross-target images) calls helpers through it
    /// instead of absolute addresses; the host tiers always fill it.
    pub helpers: *const usize,
    /// Table of interned string-constant objects, indexed by the program's
    /// string-constant number. Position-independent code loads string
    /// constants through it; null when the tier embeds the table address.
    pub strings: *const Word,
    /// Frames of recursive functions ([`crate::analysis::callgraph`]) that
    /// may still be entered: the prologue of a recursive function
    /// decrements it and traps `stack overflow` when it would go below
    /// zero, its return increments it. Set at each entry from Rust to
    /// [`max_call_depth`] of the stack budget, so every tier allows the
    /// same recursion depth (the interpreter counts the same frames).
    pub depth_left: i64,
    /// The stack pointer of the compiled code that called the allocating
    /// runtime helper now running (set by the helper's entry, read and
    /// reset to 0 by the helper): the conservative scan starts there, so
    /// stale words in the helper's own Rust frames are not roots. 0 when
    /// unknown (the scan then starts at the helper's frame).
    pub caller_sp: usize,
    /// The code the entry shim jumps to once it has recorded
    /// [`VmCtx::stack_base`] (a trampoline or a function's code).
    pub entry_code: usize,
    /// Tiering counters of position-independent code (AArch64 images
    /// compiled with `waddle-jit`'s `JitOptions::tier_counters`): two
    /// `i64` cells per function, calls at `16 * index` and back edges at
    /// `16 * index + 8` bytes from here. Null for the host tiers, whose code
    /// embeds the address of its unit's cells.
    pub tier_counters: *mut i64,
}

/// Byte offset of [`VmCtx::globals`].
pub const VMCTX_GLOBALS_OFFSET: i32 = 0;
/// Byte offset of [`VmCtx::entries`].
pub const VMCTX_ENTRIES_OFFSET: i32 = 8;
/// Byte offset of [`VmCtx::stack_limit`].
pub const VMCTX_STACK_LIMIT_OFFSET: i32 = 16;
/// Byte offset of [`VmCtx::stack_base`].
pub const VMCTX_STACK_BASE_OFFSET: i32 = 24;
/// Byte offset of [`VmCtx::fuel`].
pub const VMCTX_FUEL_OFFSET: i32 = 32;
/// Byte offset of [`VmCtx::trap_code`].
pub const VMCTX_TRAP_CODE_OFFSET: i32 = 40;
/// Byte offset of [`VmCtx::trap_loc_set`].
pub const VMCTX_TRAP_LOC_SET_OFFSET: i32 = 44;
/// Byte offset of [`VmCtx::trap_file`].
pub const VMCTX_TRAP_FILE_OFFSET: i32 = 48;
/// Byte offset of [`VmCtx::trap_line`].
pub const VMCTX_TRAP_LINE_OFFSET: i32 = 52;
/// Byte offset of [`VmCtx::trap_col`].
pub const VMCTX_TRAP_COL_OFFSET: i32 = 56;
/// Byte offset of [`VmCtx::host`].
pub const VMCTX_HOST_OFFSET: i32 = 64;
/// Byte offset of [`VmCtx::helpers`].
pub const VMCTX_HELPERS_OFFSET: i32 = 72;
/// Byte offset of [`VmCtx::strings`].
pub const VMCTX_STRINGS_OFFSET: i32 = 80;
/// Byte offset of [`VmCtx::depth_left`].
pub const VMCTX_DEPTH_LEFT_OFFSET: i32 = 88;
/// Byte offset of [`VmCtx::caller_sp`].
pub const VMCTX_CALLER_SP_OFFSET: i32 = 96;
/// Byte offset of [`VmCtx::entry_code`].
pub const VMCTX_ENTRY_CODE_OFFSET: i32 = 104;
/// Byte offset of [`VmCtx::tier_counters`].
pub const VMCTX_TIER_COUNTERS_OFFSET: i32 = 112;

const _: () = {
    assert!(std::mem::offset_of!(VmCtx, globals) == VMCTX_GLOBALS_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, entries) == VMCTX_ENTRIES_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, stack_limit) == VMCTX_STACK_LIMIT_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, depth_left) == VMCTX_DEPTH_LEFT_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, caller_sp) == VMCTX_CALLER_SP_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, entry_code) == VMCTX_ENTRY_CODE_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, tier_counters) == VMCTX_TIER_COUNTERS_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, stack_base) == VMCTX_STACK_BASE_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, fuel) == VMCTX_FUEL_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, trap_code) == VMCTX_TRAP_CODE_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, trap_loc_set) == VMCTX_TRAP_LOC_SET_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, trap_file) == VMCTX_TRAP_FILE_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, trap_line) == VMCTX_TRAP_LINE_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, trap_col) == VMCTX_TRAP_COL_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, host) == VMCTX_HOST_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, helpers) == VMCTX_HELPERS_OFFSET as usize);
    assert!(std::mem::offset_of!(VmCtx, strings) == VMCTX_STRINGS_OFFSET as usize);
};

/// Fuel units a compiled tier charges the host at once (as the interpreter
/// does: one unit per function entry and loop back edge, paid per batch,
/// the remainder paid when the outermost call returns).
pub const FUEL_BATCH: i64 = 1024;

impl TrapCode {
    /// The trap code with numeric value `v` (as stored in [`VmCtx::trap_code`]).
    pub fn from_u32(v: u32) -> Option<TrapCode> {
        Some(match v {
            1 => TrapCode::DivisionByZero,
            2 => TrapCode::IndexOutOfBounds,
            3 => TrapCode::NegativeLength,
            4 => TrapCode::PopEmpty,
            5 => TrapCode::AssertionFailed,
            6 => TrapCode::StackOverflow,
            7 => TrapCode::OutOfFuel,
            8 => TrapCode::OutOfMemory,
            9 => TrapCode::HostError,
            10 => TrapCode::Interrupted,
            _ => return None,
        })
    }
}

/// What one tier's activation hands to the next *tier entry* on the same
/// thread (the interpreter calling compiled code, compiled code calling
/// the interpreter through a stub, an on-stack replacement), so counts
/// that span tiers go on where the caller left them instead of starting
/// over at every entry. The caller [`carry_out`]s just before it calls the
/// host, the next entry takes it with [`carry_in`], and the caller takes
/// back what is left with [`carry_back`] after the call (leftovers of an
/// entry that did not happen are dropped there too).
pub mod carry {
    use std::cell::Cell;

    thread_local! {
        /// Frames of recursive functions the next entry may still enter.
        static DEPTH: Cell<Option<i64>> = const { Cell::new(None) };
        /// Fuel units left in the caller's current batch, handed to the
        /// next entry (a call or an on-stack replacement), and back.
        static FUEL: Cell<Option<u32>> = const { Cell::new(None) };
        static FUEL_BACK: Cell<Option<u32>> = const { Cell::new(None) };
    }

    /// Hands the recursion depth left (`VmCtx::depth_left`) and the units
    /// left in the current fuel batch (when fuel is counted) to the next
    /// entry, which charges its own unit to that batch first.
    pub fn carry_out(depth_left: i64, fuel_batch_left: Option<u32>) {
        DEPTH.set(Some(depth_left));
        FUEL.set(fuel_batch_left);
        FUEL_BACK.set(None);
    }

    /// Taken by an entry: the depth left and fuel batch handed over, if
    /// the caller was another tier.
    pub fn carry_in() -> (Option<i64>, Option<u32>) {
        (DEPTH.take(), FUEL.take())
    }

    /// Set by an entry that took a fuel batch: the units left of it when
    /// it returns (it charged only the batches it completed).
    pub fn fuel_back(left: u32) {
        FUEL_BACK.set(Some(left));
    }

    /// Taken by the caller after the call: the fuel batch units left, when
    /// the entry took the batch (`None`: no entry took it).
    pub fn carry_back() -> Option<u32> {
        DEPTH.set(None);
        FUEL.set(None);
        FUEL_BACK.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ScalarType;

    #[test]
    fn element_layout_follows_the_element_type() {
        let arr = |elem, depth| Type::Array { elem, depth };
        assert_eq!(ElemLayout::of(Type::Bool), ElemLayout::Byte);
        assert_eq!(ElemLayout::of(Type::Int), ElemLayout::Word);
        assert_eq!(ElemLayout::of(Type::Float), ElemLayout::Word);
        assert_eq!(ElemLayout::of(Type::Str), ElemLayout::Ref);
        assert_eq!(
            ElemLayout::of_array(arr(ScalarType::Bool, 1)),
            ElemLayout::Byte
        );
        // `[[bool]]` holds references to `[bool]` arrays.
        assert_eq!(
            ElemLayout::of_array(arr(ScalarType::Bool, 2)),
            ElemLayout::Ref
        );
        for l in [ElemLayout::Word, ElemLayout::Ref, ElemLayout::Byte] {
            assert_eq!(ElemLayout::of_header(&l.header()), l);
            assert_eq!(l.size(), 1 << l.shift());
        }
        assert_eq!(ElemLayout::Byte.bytes_for(9), Some(9));
        assert_eq!(ElemLayout::Word.bytes_for(9), Some(72));
        assert_eq!(ElemLayout::Word.bytes_for(usize::MAX), None);
    }

    #[test]
    fn byte_elements_read_and_write_one_byte() {
        let mut buf = [0u8; 16];
        let mut a = ArrayObj {
            header: ElemLayout::Byte.header(),
            len: 9,
            cap: 16,
            data: buf.as_mut_ptr(),
        };
        let w = &mut a as *mut ArrayObj as Word;
        // SAFETY: `a` is a live array over `buf`, indices below its length.
        unsafe {
            array_set(w, 8, 1);
            array_set(w, 3, 0x101);
            assert_eq!(array_to_vec(w), [0, 0, 0, 1, 0, 0, 0, 0, 1]);
            assert_eq!(array_bytes(w).len(), 9);
        }
        assert_eq!(buf[..10], [0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
    }
}
