//! Handles to script values that live in a store's heap: [`ArrayRef`]
//! (an array, with typed element access and, for `[int]` and `[float]`,
//! slices) and [`StrRef`] (a string). Passing a handle to a script
//! function, or getting one back, copies nothing: the script and Rust see
//! the same object.
//!
//! # Rooting
//! Shaped after mlua's registry keys and wasmtime's `ManuallyRooted`, but
//! with `Drop` doing the unrooting:
//! - a handle owns an `Arc<RootCell>` holding the object's address; the
//!   store keeps a `Weak` to every cell ([`HandleRoots`]), and every
//!   collection of the store's heap marks the objects of the cells still
//!   alive, so an object lives at least as long as any handle to it;
//! - dropping the last clone of a handle (on any thread) ends the `Arc`;
//!   the store forgets dead cells when it next collects or roots;
//! - every access takes the store (`&Store` to read, `&mut Store` to
//!   write) and checks the store's identity first, so a handle used with
//!   another store, or kept after its store was dropped, is an error, never
//!   a dangling read. While a slice borrows the store no script runs and
//!   no collection can happen, so the slice stays valid (objects never
//!   move; a buffer is only reallocated by a push, which needs `&mut
//!   Store`).

use std::marker::PhantomData;
use std::sync::{Arc, Weak};

use waddle_opt::abi::{
    array_get, array_len, array_set, array_to_vec, array_words, str_bytes, TrapCode, Word,
};
use waddle_opt::interp::Host;
use waddle_opt::ir::{ScalarType, Type};

use super::func::array_of;
use super::store::Store;
use crate::engine::val::trap_error;
use crate::error::Error;
use crate::heap::RootSource;
use crate::host::Runtime;

/// The address of one rooted object, shared by the clones of a handle.
#[derive(Debug)]
pub(crate) struct RootCell {
    word: Word,
}

/// The handle roots of one store: a weak reference to every cell handed
/// out, scanned by each collection (a [`RootSource`]).
#[derive(Debug, Default)]
pub(crate) struct HandleRoots {
    /// The identity of the owning store (0: not a store's runtime; no
    /// handle can be made).
    pub(crate) store_id: u64,
    cells: Vec<Weak<RootCell>>,
    /// Length at which dead cells are swept out before adding one.
    sweep_at: usize,
}

impl HandleRoots {
    /// Roots the object `word` and returns its cell.
    fn root(&mut self, word: Word) -> Arc<RootCell> {
        if self.cells.len() >= self.sweep_at {
            self.cells.retain(|c| c.strong_count() > 0);
            self.sweep_at = (self.cells.len() * 2).max(64);
        }
        let cell = Arc::new(RootCell { word });
        self.cells.push(Arc::downgrade(&cell));
        cell
    }

    /// Number of live handles (clones of one handle count once).
    pub(crate) fn live(&self) -> usize {
        self.cells.iter().filter(|c| c.strong_count() > 0).count()
    }
}

impl RootSource for HandleRoots {
    fn visit_roots(&self, visit: &mut dyn FnMut(Word)) {
        for c in &self.cells {
            if let Some(c) = c.upgrade() {
                visit(c.word);
            }
        }
    }
}

fn wrong_store() -> Error {
    Error::Instance("a handle was used with a store it does not belong to".to_string())
}

/// Element types of [`ArrayRef`]s: `i64` (`int`), `f64` (`float`) and
/// `bool`.
pub trait HeapElem: HeapElemImpl + Copy + 'static {}

/// The machinery of [`HeapElem`] (private: it names IR and runtime types).
pub trait HeapElemImpl: Copy + 'static {
    /// The Waddle element type, as a constant.
    const SCALAR: ScalarType;
    /// The Waddle element type.
    fn elem_type() -> Type;
    /// The element's word.
    fn to_word(self) -> Word;
    /// The element of word `w`.
    fn from_word(w: Word) -> Self;
}

/// Element types whose words are the Rust value's bits (`i64`, `f64`):
/// [`ArrayRef::as_slice`] and [`ArrayRef::as_mut_slice`] view their arrays
/// directly.
pub trait NumericElem: HeapElem {}

impl HeapElem for i64 {}
impl HeapElemImpl for i64 {
    const SCALAR: ScalarType = ScalarType::Int;
    fn elem_type() -> Type {
        Type::Int
    }
    #[inline]
    fn to_word(self) -> Word {
        self as Word
    }
    #[inline]
    fn from_word(w: Word) -> Self {
        w as i64
    }
}
impl HeapElem for f64 {}
impl HeapElemImpl for f64 {
    const SCALAR: ScalarType = ScalarType::Float;
    fn elem_type() -> Type {
        Type::Float
    }
    #[inline]
    fn to_word(self) -> Word {
        self.to_bits()
    }
    #[inline]
    fn from_word(w: Word) -> Self {
        f64::from_bits(w)
    }
}
impl HeapElem for bool {}
impl HeapElemImpl for bool {
    const SCALAR: ScalarType = ScalarType::Bool;
    fn elem_type() -> Type {
        Type::Bool
    }
    #[inline]
    fn to_word(self) -> Word {
        Word::from(self)
    }
    #[inline]
    fn from_word(w: Word) -> Self {
        w != 0
    }
}
impl NumericElem for i64 {}
impl NumericElem for f64 {}

/// A script array of `T`s (`[int]`, `[float]` or `[bool]`) living in a
/// [`Store`]'s heap, kept alive while this handle (or a clone) exists.
///
/// Passing it to a typed function whose parameter is `[T]`, or getting it
/// back as a result, copies nothing; the script and Rust share the
/// object, so changes on either side are seen by the other.
/// `Clone + Send + Sync`; every access takes its store (see the module
/// docs on rooting).
///
/// ```
/// use waddle::{ArrayRef, Engine, Module, Store};
/// let engine = Engine::default();
/// let module = Module::new(&engine, "m.wdl",
///     "fn scale(a: [float], k: float) -> [float] {
///          var i = 0;
///          while i < len(a) { a[i] = a[i] * k; i += 1; }
///          return a;
///      }")?;
/// let mut store = Store::new(&engine);
/// let instance = store.instantiate(&module)?;
/// let scale = instance.typed_func::<(&ArrayRef<f64>, f64), ArrayRef<f64>>(&store, "scale")?;
/// let data = store.array_from_slice(&[1.0, 2.0, 3.0])?;
/// let out = scale.call(&mut store, (&data, 2.0))?;
/// assert_eq!(out.as_slice(&store)?, &[2.0, 4.0, 6.0]);
/// assert!(out.same(&data));                       // the very same array
/// data.as_mut_slice(&mut store)?[0] = 10.0;       // written in place
/// assert_eq!(out.get(&store, 0)?, Some(10.0));
/// # Ok::<(), waddle::Error>(())
/// ```
pub struct ArrayRef<T> {
    store_id: u64,
    root: Arc<RootCell>,
    _elem: PhantomData<fn() -> T>,
}

impl<T> Clone for ArrayRef<T> {
    fn clone(&self) -> Self {
        ArrayRef {
            store_id: self.store_id,
            root: self.root.clone(),
            _elem: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for ArrayRef<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrayRef")
            .field("elem", &std::any::type_name::<T>())
            .finish_non_exhaustive()
    }
}

impl<T: HeapElem> ArrayRef<T> {
    /// The Waddle type of the arrays this handle type refers to.
    pub fn waddle_type() -> Type {
        array_of(T::elem_type())
    }

    /// A handle rooting `word`, a live array of type `[T]` in the heap of
    /// `rt`.
    pub(crate) fn from_root(rt: &mut Runtime, word: Word) -> ArrayRef<T> {
        ArrayRef {
            store_id: rt.handles.store_id,
            root: rt.handles.root(word),
            _elem: PhantomData,
        }
    }

    /// The array's word, after checking it belongs to the runtime `rt`.
    pub(crate) fn word_in(&self, rt: &Runtime) -> Result<Word, Error> {
        if rt.handles.store_id == self.store_id && self.store_id != 0 {
            Ok(self.root.word)
        } else {
            Err(wrong_store())
        }
    }

    /// The array's word and length in `store`.
    fn word_len(&self, store: &Store) -> Result<(Word, usize), Error> {
        let w = self.word_in(store.runtime())?;
        // SAFETY: the handle roots `w`, a live array of this store's heap
        // (checked above).
        Ok((w, unsafe { array_len(w) }))
    }

    /// Whether both handles refer to the same array.
    pub fn same(&self, other: &ArrayRef<T>) -> bool {
        self.store_id == other.store_id && self.root.word == other.root.word
    }

    /// Number of elements.
    pub fn len(&self, store: &Store) -> Result<usize, Error> {
        Ok(self.word_len(store)?.1)
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self, store: &Store) -> Result<bool, Error> {
        Ok(self.len(store)? == 0)
    }

    /// Element `index` (`None` past the end).
    pub fn get(&self, store: &Store, index: usize) -> Result<Option<T>, Error> {
        let (w, len) = self.word_len(store)?;
        // SAFETY: a live array of this store (checked) and `index < len`.
        Ok((index < len).then(|| T::from_word(unsafe { array_get(w, index) })))
    }

    /// Sets element `index` to `value` ([`TrapCode::IndexOutOfBounds`]
    /// past the end).
    pub fn set(&self, store: &mut Store, index: usize, value: T) -> Result<(), Error> {
        let (w, len) = self.word_len(store)?;
        if index >= len {
            return Err(trap_error(TrapCode::IndexOutOfBounds));
        }
        // SAFETY: a live array of this store (checked), `index < len`, and
        // the exclusive borrow of the store makes this the only access to
        // its elements.
        unsafe { array_set(w, index, value.to_word()) };
        Ok(())
    }

    /// Appends `value` like the script's `push` (may collect; the heap's
    /// memory limit applies).
    pub fn push(&self, store: &mut Store, value: T) -> Result<(), Error> {
        let w = self.word_in(store.runtime())?;
        store
            .runtime_mut()
            .array_push(w, value.to_word(), &[])
            .map_err(trap_error)
    }

    /// A copy of the elements.
    pub fn to_vec(&self, store: &Store) -> Result<Vec<T>, Error> {
        let (w, _) = self.word_len(store)?;
        // SAFETY: a live array of this store (checked); the shared borrow
        // of the store keeps scripts and the collector from running.
        let words = unsafe { array_to_vec(w) };
        Ok(words.into_iter().map(T::from_word).collect())
    }
}

impl<T: NumericElem> ArrayRef<T> {
    /// The elements, read in place (no copy). The slice borrows the store,
    /// so no script runs while it is held.
    pub fn as_slice<'s>(&self, store: &'s Store) -> Result<&'s [T], Error> {
        let w = self.word_in(store.runtime())?;
        // SAFETY: the handle roots `w`, a live `[int]` or `[float]` (word
        // elements) of this store's heap (checked above); the shared borrow
        // of the store keeps scripts and the collector from running, so
        // nothing frees or resizes it while the slice lives.
        let words: &[Word] = unsafe { array_words(w) };
        // SAFETY: `T` is `i64` or `f64` (sealed `NumericElem`): 8 bytes,
        // alignment 8, every bit pattern valid, and the array's words are
        // exactly the elements' bits (`HeapElem::to_word`).
        Ok(unsafe { std::slice::from_raw_parts(words.as_ptr() as *const T, words.len()) })
    }

    /// The elements, writable in place (no copy).
    pub fn as_mut_slice<'s>(&self, store: &'s mut Store) -> Result<&'s mut [T], Error> {
        let w = self.word_in(store.runtime())?;
        // SAFETY: as in `as_slice`; the exclusive borrow of the store makes
        // this the only view of the array's elements.
        let words = unsafe { array_words(w) };
        // SAFETY: as in `as_slice`; any `T` written is a valid element word.
        Ok(unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut T, words.len()) })
    }
}

/// A script string living in a [`Store`]'s heap, kept alive while this
/// handle (or a clone) exists; passing it to a `str` parameter or getting
/// it back copies nothing. `Clone + Send + Sync`.
///
/// ```
/// use waddle::{Engine, Module, Store, StrRef};
/// let engine = Engine::default();
/// let module = Module::new(&engine, "m.wdl",
///     "fn pick(a: str, b: str) -> str { if len(a) > len(b) { return a; } return b; }")?;
/// let mut store = Store::new(&engine);
/// let instance = store.instantiate(&module)?;
/// let pick = instance.typed_func::<(&StrRef, &str), StrRef>(&store, "pick")?;
/// let long = store.new_str("a long string")?;
/// let got = pick.call(&mut store, (&long, "short"))?;
/// assert_eq!(got.to_str(&store)?, "a long string");
/// assert!(got.same(&long));
/// # Ok::<(), waddle::Error>(())
/// ```
#[derive(Clone)]
pub struct StrRef {
    store_id: u64,
    root: Arc<RootCell>,
}

impl std::fmt::Debug for StrRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StrRef").finish_non_exhaustive()
    }
}

impl StrRef {
    /// A handle rooting `word`, a live string in the heap of `rt`.
    pub(crate) fn from_root(rt: &mut Runtime, word: Word) -> StrRef {
        StrRef {
            store_id: rt.handles.store_id,
            root: rt.handles.root(word),
        }
    }

    /// The string's word, after checking it belongs to the runtime `rt`.
    pub(crate) fn word_in(&self, rt: &Runtime) -> Result<Word, Error> {
        if rt.handles.store_id == self.store_id && self.store_id != 0 {
            Ok(self.root.word)
        } else {
            Err(wrong_store())
        }
    }

    /// Whether both handles refer to the same string object.
    pub fn same(&self, other: &StrRef) -> bool {
        self.store_id == other.store_id && self.root.word == other.root.word
    }

    /// The string's bytes, in place.
    pub fn as_bytes<'s>(&self, store: &'s Store) -> Result<&'s [u8], Error> {
        let w = self.word_in(store.runtime())?;
        // SAFETY: a rooted, live string of this store's heap (checked);
        // strings are immutable and the borrow keeps the collector away.
        Ok(unsafe { str_bytes(w) })
    }

    /// The string as `&str`, in place ([`Error::Signature`] if its bytes
    /// are not UTF-8, which only host functions or FFI could cause).
    pub fn to_str<'s>(&self, store: &'s Store) -> Result<&'s str, Error> {
        std::str::from_utf8(self.as_bytes(store)?)
            .map_err(|e| Error::Signature(format!("the string is not UTF-8: {e}")))
    }
}

impl Store {
    /// A new script array holding a copy of `items` (one copy, into the
    /// heap; may collect, and the memory limit applies).
    pub fn array_from_slice<T: HeapElem>(&mut self, items: &[T]) -> Result<ArrayRef<T>, Error> {
        let words: Vec<Word> = items.iter().map(|v| v.to_word()).collect();
        let rt = self.runtime_mut();
        let w = rt
            .new_array(T::elem_type(), &words, &[])
            .map_err(trap_error)?;
        Ok(ArrayRef::from_root(rt, w))
    }

    /// A new script array of `len` copies of `fill`, built in the heap
    /// without a Rust-side buffer.
    pub fn array_filled<T: HeapElem>(&mut self, len: usize, fill: T) -> Result<ArrayRef<T>, Error> {
        let count = i64::try_from(len).map_err(|_| trap_error(TrapCode::OutOfMemory))?;
        let rt = self.runtime_mut();
        let w = rt
            .array_repeat(T::elem_type(), fill.to_word(), count, &[])
            .map_err(trap_error)?;
        Ok(ArrayRef::from_root(rt, w))
    }

    /// A new script string with a copy of `s`.
    pub fn new_str(&mut self, s: &str) -> Result<StrRef, Error> {
        let rt = self.runtime_mut();
        let w = rt.new_str(s.as_bytes(), &[]).map_err(trap_error)?;
        Ok(StrRef::from_root(rt, w))
    }

    /// Number of live [`ArrayRef`]/[`StrRef`] handles into this store
    /// (clones count once).
    pub fn live_handles(&self) -> usize {
        self.runtime().handles.live()
    }
}
