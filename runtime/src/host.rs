//! [`Runtime`]: the runtime services executing code reaches through
//! [`waddle_opt::interp::Host`]: the heap, interned string constants, the
//! globals area, output, the clock and the fuel budget.
//!
//! Every allocating operation first reserves all the bytes it will need
//! (collecting if necessary, with the caller's frame words, the operation's
//! own operands and the globals as roots) and then allocates without
//! collecting, so intermediate objects never need rooting.

use std::io::Write;
use std::time::Instant;

use rustc_hash::FxHashMap;
use waddle_opt::abi::{
    array_len, array_set, array_to_vec, array_words, str_bytes, ArrayObj, ElemLayout, TrapCode,
    Word,
};
use waddle_opt::interp::Host;
use waddle_opt::ir::{FuncId, HostFnId, SrcLoc, Type};

use crate::api::interrupt::Interrupts;
use crate::format::{format_value, formatted_len};
use crate::heap::{
    array_object_bytes, str_object_bytes, Conservative, Heap, HeapConfig, RootSource, Typed,
};
use crate::output::{Output, OutputSink};

/// The runtime state of one engine: heap, globals, output, fuel.
pub struct Runtime {
    heap: Heap,
    globals: Vec<Word>,
    global_types: Vec<Type>,
    interned: FxHashMap<Box<str>, Word>,
    output: Output,
    fuel: Option<u64>,
    /// Interrupt requests and the deadline, checked with the fuel.
    interrupts: Interrupts,
    start: Instant,
    /// Host functions, the embedder's data and the last host failure.
    pub(crate) hostfns: crate::hostfn::HostState,
    /// Objects the embedder holds handles to (`ArrayRef`, `StrRef`): roots
    /// of every collection.
    pub(crate) handles: crate::api::handle::HandleRoots,
    /// Set while a resumable call runs: running out of fuel pauses.
    pub(crate) fuel_yield: Option<crate::api::resumable::FuelYield>,
    /// Frames of callers suspended in another tier while a nested call
    /// runs (mixed-tier calls): `(address, words)` ranges scanned
    /// conservatively by every collection, pushed and popped in call order
    /// by [`Runtime::push_roots`] and [`Runtime::pop_roots`].
    nested_roots: Vec<(usize, usize)>,
    /// The frames runtime errors left, innermost first
    /// ([`Host::trace_frame`]); each call from Rust takes the frames past
    /// its [`Runtime::trace_mark`] when it fails ([`Runtime::take_trace`]).
    trace: Vec<(FuncId, SrcLoc)>,
}

/// The ranges of [`Runtime::push_roots`], as a root source.
struct NestedRoots<'a>(&'a [(usize, usize)]);

impl RootSource for NestedRoots<'_> {
    fn visit_roots(&self, visit: &mut dyn FnMut(Word)) {
        for &(ptr, len) in self.0 {
            // SAFETY: `push_roots` requires the range to stay valid and
            // unchanged by anyone else until its `pop_roots`.
            let words = unsafe { std::slice::from_raw_parts(ptr as *const Word, len) };
            words.iter().for_each(|&w| visit(w));
        }
    }
}

impl Runtime {
    /// A runtime with an empty heap and no globals.
    pub fn new(heap: HeapConfig, sink: OutputSink, fuel: Option<u64>) -> Runtime {
        Runtime {
            heap: Heap::new(heap),
            globals: Vec::new(),
            global_types: Vec::new(),
            interned: FxHashMap::default(),
            output: Output::new(sink),
            fuel,
            interrupts: Interrupts::default(),
            start: Instant::now(),
            hostfns: crate::hostfn::HostState::default(),
            handles: crate::api::handle::HandleRoots::default(),
            fuel_yield: None,
            nested_roots: Vec::new(),
            trace: Vec::new(),
        }
    }

    /// Where the stack trace of a call from Rust that starts now begins.
    pub(crate) fn trace_mark(&self) -> usize {
        self.trace.len()
    }

    /// Renames the frames of function `from` reported since `mark` to `to`
    /// (an OSR entry's frames are the frames of the function it entered).
    pub(crate) fn retarget_trace(&mut self, mark: usize, from: FuncId, to: FuncId) {
        for frame in self.trace.iter_mut().skip(mark) {
            if frame.0 == from {
                frame.0 = to;
            }
        }
    }

    /// Forgets the frames reported since `mark`.
    #[inline]
    pub(crate) fn truncate_trace(&mut self, mark: usize) {
        self.trace.truncate(mark);
    }

    /// The frames reported since `mark` (innermost first), removed.
    pub(crate) fn take_trace(&mut self, mark: usize) -> Vec<(FuncId, SrcLoc)> {
        if mark >= self.trace.len() {
            self.trace.truncate(mark);
            return Vec::new();
        }
        self.trace.split_off(mark)
    }

    /// The heap.
    pub fn heap(&self) -> &Heap {
        &self.heap
    }

    /// The heap, mutably (to install a limiter).
    pub(crate) fn heap_mut(&mut self) -> &mut Heap {
        &mut self.heap
    }

    /// The output stream.
    pub fn output(&mut self) -> &mut Output {
        &mut self.output
    }

    /// Remaining fuel (`None`: unlimited).
    pub fn fuel(&self) -> Option<u64> {
        self.fuel
    }

    /// Sets the remaining fuel (`None`: unlimited).
    pub fn set_fuel(&mut self, fuel: Option<u64>) {
        self.fuel = fuel;
    }

    /// The interrupt state checked wherever fuel is charged.
    pub(crate) fn interrupts(&self) -> &Interrupts {
        &self.interrupts
    }

    /// The host's side of an entry into a native unit whose string
    /// constants this runtime interned as `strings`, with a stack budget of
    /// `stack_budget` bytes (what `Host::globals` and `Host::fuel_limited`
    /// give, read without a dynamic call).
    #[inline]
    pub(crate) fn host_env(
        &mut self,
        strings: &[Word],
        stack_budget: usize,
    ) -> waddle_jit::HostEnv {
        waddle_jit::HostEnv {
            globals: self.globals.as_mut_ptr(),
            globals_len: self.globals.len(),
            strings: strings.as_ptr(),
            strings_len: strings.len(),
            fuel_limited: self.fuel.is_some(),
            stack_budget: Some(stack_budget),
        }
    }

    /// The interrupt state, to set a deadline.
    pub(crate) fn interrupts_mut(&mut self) -> &mut Interrupts {
        &mut self.interrupts
    }

    /// The types of the globals, in id order.
    pub fn global_types(&self) -> &[Type] {
        &self.global_types
    }

    /// The globals area (read-only view).
    pub fn global_words(&self) -> &[Word] {
        &self.globals
    }

    /// Overwrites global `index` with `w` (a live value of its type).
    pub(crate) fn set_global_word(&mut self, index: usize, w: Word) {
        if let Some(g) = self.globals.get_mut(index) {
            *g = w;
        }
    }

    /// Removes every global (their values become garbage).
    pub fn clear_globals(&mut self) {
        self.truncate_globals(0);
    }

    /// Keeps only the first `n` globals.
    pub fn truncate_globals(&mut self, n: usize) {
        self.globals.truncate(n);
        self.global_types.truncate(n);
    }

    /// Appends globals of the given types, each holding its zero value
    /// (`0`, `0.0`, `false`, `""`, and a fresh empty array per array global).
    pub fn add_globals(&mut self, types: &[Type]) -> Result<(), TrapCode> {
        for &ty in types {
            let zero = match ty {
                Type::Str => self.intern_str(""),
                Type::Array { .. } => {
                    let layout = ElemLayout::of_array(ty);
                    self.reserve_with(array_object_bytes(layout, 0).unwrap_or(0), &[])?;
                    self.heap.alloc_array(&[], 0, layout)?
                }
                _ => 0,
            };
            self.globals.push(zero);
            self.global_types.push(ty);
        }
        Ok(())
    }

    /// Adds `roots` (the frames of a caller suspended while another tier
    /// runs a callee) to the roots of every collection until the matching
    /// [`Runtime::pop_roots`].
    ///
    /// # Safety
    /// `roots` must stay allocated and readable until then (it is read
    /// after the borrow ends).
    pub(crate) unsafe fn push_roots(&mut self, roots: &[Word]) {
        self.nested_roots
            .push((roots.as_ptr() as usize, roots.len()));
    }

    /// Removes the roots of the last [`Runtime::push_roots`].
    pub(crate) fn pop_roots(&mut self) {
        self.nested_roots.pop();
    }

    /// Runs a full collection now, with the globals, pinned objects, the
    /// embedder's handles and
    /// `extra_roots` (scanned conservatively) as roots.
    pub fn collect(&mut self, extra_roots: &[Word]) {
        let globals = Typed {
            words: &self.globals,
            types: &self.global_types,
        };
        let nested = NestedRoots(&self.nested_roots);
        self.heap
            .collect(&[&globals, &self.handles, &Conservative(extra_roots), &nested]);
    }

    /// Reserves `bytes`, with the globals, the embedder's handles and
    /// `roots` as GC roots.
    fn reserve_with(&mut self, bytes: usize, roots: &[&dyn RootSource]) -> Result<(), TrapCode> {
        let globals = Typed {
            words: &self.globals,
            types: &self.global_types,
        };
        let nested = NestedRoots(&self.nested_roots);
        let mut all: Vec<&dyn RootSource> = Vec::with_capacity(roots.len() + 3);
        all.push(&globals);
        all.push(&self.handles);
        all.push(&nested);
        all.extend_from_slice(roots);
        self.heap.reserve(bytes, &all)
    }

    /// Allocates a string (may collect, with `roots` as extra roots).
    pub fn new_str(&mut self, bytes: &[u8], roots: &[Word]) -> Result<Word, TrapCode> {
        let size = str_object_bytes(bytes.len()).ok_or(TrapCode::OutOfMemory)?;
        self.reserve_with(size, &[&Conservative(roots)])?;
        self.heap.alloc_str(bytes)
    }

    /// Allocates an array holding `elems` of type `elem` (may collect; the
    /// elements and `roots` are kept alive).
    pub fn new_array(
        &mut self,
        elem: Type,
        elems: &[Word],
        roots: &[Word],
    ) -> Result<Word, TrapCode> {
        let layout = ElemLayout::of(elem);
        let size = array_object_bytes(layout, elems.len()).ok_or(TrapCode::OutOfMemory)?;
        self.reserve_with(size, &[&Conservative(roots), &Conservative(elems)])?;
        self.heap.alloc_array(elems, elems.len(), layout)
    }
}

/// Bytes of a deep copy of `value` (an array of type `ty`), `None` on overflow.
///
/// # Safety
/// `value` must be a live array of type `ty`.
unsafe fn deep_size(ty: Type, value: Word) -> Option<usize> {
    let elem = ty.element().unwrap_or(Type::Int);
    // SAFETY: caller guarantees a live array.
    let len = unsafe { array_len(value) };
    let mut size = array_object_bytes(ElemLayout::of(elem), len)?;
    if elem.is_array() {
        // SAFETY: an array of arrays has word elements.
        for &e in unsafe { array_words(value) }.iter() {
            // SAFETY: elements of an array of arrays are live arrays.
            size = size.checked_add(unsafe { deep_size(elem, e) }?)?;
        }
    }
    Some(size)
}

/// A fresh deep copy of the array `value` of type `ty` (never collects; the
/// caller reserved [`deep_size`] bytes).
///
/// # Safety
/// `value` must be a live array of type `ty`.
unsafe fn deep_copy(heap: &mut Heap, ty: Type, value: Word) -> Result<Word, TrapCode> {
    let elem = ty.element().unwrap_or(Type::Unit);
    if !elem.is_array() {
        // SAFETY: caller guarantees a live array.
        let elems = unsafe { array_to_vec(value) };
        return heap.alloc_array(&elems, elems.len(), ElemLayout::of(elem));
    }
    // SAFETY: caller guarantees a live array of arrays (word elements);
    // nothing resizes it meanwhile.
    let elems = unsafe { array_words(value) };
    let copy = heap.alloc_array(&[], elems.len(), ElemLayout::Ref)?;
    for &e in elems.iter() {
        // SAFETY: elements are live arrays of type `elem`.
        let child = unsafe { deep_copy(heap, elem, e) }?;
        // SAFETY: `copy` has capacity `elems.len()`; it is unreachable for
        // the collector, which does not run during this operation. Raw
        // accesses only: `array_set` writes the same object.
        unsafe {
            let a = copy as *mut ArrayObj;
            let len = (*a).len;
            array_set(copy, len as usize, child);
            (*a).len = len + 1;
        }
    }
    Ok(copy)
}

impl Host for Runtime {
    fn intern_str(&mut self, s: &str) -> Word {
        if let Some(&w) = self.interned.get(s) {
            return w;
        }
        let w = self.heap.alloc_pinned_str(s.as_bytes());
        self.interned.insert(s.into(), w);
        w
    }

    fn globals(&mut self) -> &mut [Word] {
        &mut self.globals
    }

    fn array_new(&mut self, elem: Type, elems: &[Word], roots: &[Word]) -> Result<Word, TrapCode> {
        self.new_array(elem, elems, roots)
    }

    fn array_repeat(
        &mut self,
        elem: Type,
        value: Word,
        count: i64,
        roots: &[Word],
    ) -> Result<Word, TrapCode> {
        let count = usize::try_from(count).map_err(|_| TrapCode::NegativeLength)?;
        let layout = ElemLayout::of(elem);
        let outer = array_object_bytes(layout, count).ok_or(TrapCode::OutOfMemory)?;
        let copies = elem.is_array() && self.heap.contains(value);
        let total = if copies {
            // SAFETY: `value` is a live array of type `elem`.
            let each = unsafe { deep_size(elem, value) }.ok_or(TrapCode::OutOfMemory)?;
            each.checked_mul(count)
                .and_then(|c| c.checked_add(outer))
                .ok_or(TrapCode::OutOfMemory)?
        } else {
            outer
        };
        self.reserve_with(total, &[&Conservative(roots), &Conservative(&[value])])?;
        if !copies {
            return self.heap.alloc_array_filled(value, count, layout);
        }
        let arr = self.heap.alloc_array(&[], count, layout)?;
        for _ in 0..count {
            // SAFETY: `value` is live (rooted above, and no collection runs now).
            let copy = unsafe { deep_copy(&mut self.heap, elem, value) }?;
            // SAFETY: `arr` has capacity `count`. Raw accesses only:
            // `array_set` writes the same object.
            unsafe {
                let a = arr as *mut ArrayObj;
                let len = (*a).len;
                array_set(arr, len as usize, copy);
                (*a).len = len + 1;
            }
        }
        Ok(arr)
    }

    fn array_push(&mut self, array: Word, value: Word, roots: &[Word]) -> Result<(), TrapCode> {
        if !self.heap.contains(array) {
            return Err(TrapCode::OutOfMemory);
        }
        // SAFETY: `array` is a live array of this heap.
        let cost = unsafe { self.heap.push_cost(array) };
        self.reserve_with(
            cost,
            &[&Conservative(roots), &Conservative(&[array, value])],
        )?;
        self.heap.push(array, value)
    }

    fn str_concat(&mut self, a: Word, b: Word, roots: &[Word]) -> Result<Word, TrapCode> {
        if !self.heap.contains(a) || !self.heap.contains(b) {
            return Err(TrapCode::OutOfMemory);
        }
        // SAFETY: live strings of this heap.
        let len = unsafe { str_bytes(a).len().checked_add(str_bytes(b).len()) }
            .ok_or(TrapCode::OutOfMemory)?;
        let size = str_object_bytes(len).ok_or(TrapCode::OutOfMemory)?;
        // The operands are roots of the reservation; the result is written
        // straight into the new object (no temporary copy of the text).
        self.reserve_with(size, &[&Conservative(roots), &Conservative(&[a, b])])?;
        self.heap.alloc_str_with(len, |out| {
            // SAFETY: `a` and `b` were rooted and nothing ran since.
            let (sa, sb) = unsafe { (str_bytes(a), str_bytes(b)) };
            out[..sa.len()].copy_from_slice(sa);
            out[sa.len()..].copy_from_slice(sb);
        })
    }

    fn to_str(&mut self, ty: Type, value: Word, roots: &[Word]) -> Result<Word, TrapCode> {
        if ty == Type::Str {
            return Ok(value);
        }
        if ty.is_ref() && !self.heap.contains(value) {
            return self.new_str(b"", roots);
        }
        // Measure, reserve, then format straight into the string object:
        // the text never exists anywhere else.
        // SAFETY: scalars, or a live object of this heap of type `ty`.
        let len = unsafe { formatted_len(ty, value) };
        let size = str_object_bytes(len).ok_or(TrapCode::OutOfMemory)?;
        self.reserve_with(size, &[&Conservative(roots), &Conservative(&[value])])?;
        self.heap.alloc_str_with(len, |mut out| {
            // SAFETY: `value` was rooted and nothing ran since; the text
            // has exactly `len` bytes.
            unsafe { format_value(&mut out, ty, value) };
        })
    }

    fn print(&mut self, ty: Type, value: Word) {
        if ty.is_ref() && !self.heap.contains(value) {
            return;
        }
        let mut stream = self.output.stream();
        // SAFETY: scalars, or a live object of this heap of type `ty`. The
        // text is streamed out in blocks, never built whole in memory.
        unsafe { format_value(&mut stream, ty, value) };
        let _ = stream.write_all(b"\n");
        self.output.written();
    }

    fn host_call(&mut self, id: HostFnId, args: &[Word], roots: &[Word]) -> Result<Word, TrapCode> {
        crate::hostfn::dispatch(self, id, args, roots)
    }

    fn clock(&mut self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    fn fuel_limited(&self) -> bool {
        self.fuel.is_some()
    }

    fn consume_fuel(&mut self, units: u64) -> Result<(), TrapCode> {
        self.interrupts.check()?;
        match &mut self.fuel {
            None => Ok(()),
            Some(f) if *f >= units => {
                *f -= units;
                Ok(())
            }
            Some(f) => {
                if let Some(y) = &self.fuel_yield {
                    // A resumable call: wait for the embedder's fuel.
                    let mut have = *f;
                    while let Some(more) = y.pause() {
                        have = have.saturating_add(more);
                        if have >= units {
                            *f = have - units;
                            return self.interrupts.check();
                        }
                    }
                }
                *f = 0;
                Err(TrapCode::OutOfFuel)
            }
        }
    }

    fn trace_frame(&mut self, func: FuncId, loc: SrcLoc) {
        self.trace.push((func, loc));
    }
}

#[cfg(test)]
mod tests;
