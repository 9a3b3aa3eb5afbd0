//! Conversions between Rust values and Waddle words at the host-function
//! boundary: [`HostArg`] for parameters, [`HostRet`] for results and
//! [`HostResult`] for the plain-or-`Result` return of a host closure.
//!
//! Parameters are read straight from the argument words. `&str`, `&[i64]`
//! and `&[f64]` borrow the script's heap object for the duration of the
//! call (no copy; the call cannot resize such an array); `String` and
//! `Vec<_>` copy; [`ArrayRef`] is a handle through which the call may read,
//! write and resize the script's array ([`Caller::array_push`]). Results that need the heap
//! (`String`, `&str`, `Vec<_>`) are allocated through the [`Caller`].

use std::fmt::Display;

use waddle_opt::abi::{array_words, str_bytes, TrapCode, Word};
use waddle_opt::ir::{ScalarType, Type};

use super::Caller;
use crate::api::{ArrayRef, HeapElem, HeapElemImpl};

/// A Rust type a host function can take as a parameter: `i64` (`int`),
/// `f64` (`float`), `bool`, `&str` (`str`, borrowed), `String` (copied),
/// `&[i64]`/`&[f64]` (`[int]`/`[float]`, borrowed), `Vec<i64>`/`Vec<f64>`
/// (copied) and [`ArrayRef`] (a handle: the script's array itself).
///
/// A borrowed parameter lives only for the call: registration requires a
/// closure that accepts *every* borrow lifetime (`for<'a> Fn(&'a str)`), so
/// it can never be kept past the call. A closure that wants to keep it
/// does not compile:
///
/// ```compile_fail
/// let mut engine = waddle::Session::new(&waddle::Engine::default());
/// engine.register_fn("keep", |s: &'static str| s.len() as i64).unwrap();
/// ```
pub trait HostArg: HostArgImpl {}

/// The machinery of [`HostArg`] (private: it names IR and runtime types).
/// The lifetime-rebinding associated type `Bound` is what lets the
/// registration demand a closure for every borrow lifetime.
pub trait HostArgImpl {
    /// The Waddle type of the parameter.
    const TYPE: Type;
    /// The same type with its borrow (if any) at lifetime `'a`.
    type Bound<'a>;
    /// Reads the argument from its word; `caller` is the call's context
    /// (handles are rooted there, borrowed arrays recorded there so the call
    /// cannot resize them).
    ///
    /// # Safety
    /// `w` holds a live value of type [`HostArgImpl::TYPE`] that stays alive for
    /// `'a`, and nothing but `caller` may resize it during the call.
    unsafe fn from_word<'a>(w: Word, caller: &mut Caller<'_>) -> Self::Bound<'a>;
}

/// A Rust type a host function can return: `()` (`void`), `i64`, `f64`,
/// `bool`, `String`/`&str` (a new `str` in the store's heap) and
/// `Vec<i64>`/`Vec<f64>` (a new array).
pub trait HostRet: HostRetImpl {}

/// The machinery of [`HostRet`] (private: it names IR and runtime types).
pub trait HostRetImpl {
    /// The Waddle type of the result (`void` for `()`).
    const TYPE: Type;
    /// Converts into a result word, allocating through `caller` if needed.
    fn into_word(self, caller: &mut Caller<'_>) -> Result<Word, TrapCode>;
}

/// What a host closure returns: a [`HostRet`] value, or `Result<T, E>` whose
/// `Err` becomes a Waddle runtime error with `E`'s `Display` text.
pub trait HostResult {
    /// The successful value's type.
    type Ok: HostRet;
    /// The value, or the error message.
    fn into_result(self) -> Result<Self::Ok, String>;
}

impl<T: HostRet> HostResult for T {
    type Ok = T;
    fn into_result(self) -> Result<T, String> {
        Ok(self)
    }
}

impl<T: HostRet, E: Display> HostResult for Result<T, E> {
    type Ok = T;
    fn into_result(self) -> Result<T, String> {
        self.map_err(|e| e.to_string())
    }
}

const fn array_of(elem: ScalarType) -> Type {
    Type::Array { elem, depth: 1 }
}

impl HostArg for i64 {}
impl HostArgImpl for i64 {
    const TYPE: Type = Type::Int;
    type Bound<'a> = i64;
    unsafe fn from_word<'a>(w: Word, _: &mut Caller<'_>) -> Self::Bound<'a> {
        w as i64
    }
}

impl HostArg for f64 {}
impl HostArgImpl for f64 {
    const TYPE: Type = Type::Float;
    type Bound<'a> = f64;
    unsafe fn from_word<'a>(w: Word, _: &mut Caller<'_>) -> Self::Bound<'a> {
        f64::from_bits(w)
    }
}

impl HostArg for bool {}
impl HostArgImpl for bool {
    const TYPE: Type = Type::Bool;
    type Bound<'a> = bool;
    unsafe fn from_word<'a>(w: Word, _: &mut Caller<'_>) -> Self::Bound<'a> {
        w & 0xff != 0
    }
}

impl HostArg for &str {}
impl HostArgImpl for &str {
    const TYPE: Type = Type::Str;
    type Bound<'a> = &'a str;
    unsafe fn from_word<'a>(w: Word, _: &mut Caller<'_>) -> Self::Bound<'a> {
        // SAFETY: the caller guarantees a live string object for 'a.
        let bytes = unsafe { str_bytes(w) };
        // Waddle strings are built from UTF-8 source text and UTF-8
        // conversions only; fall back to an empty string rather than
        // trusting a malformed object.
        std::str::from_utf8(bytes).unwrap_or("")
    }
}

impl HostArg for String {}
impl HostArgImpl for String {
    const TYPE: Type = Type::Str;
    type Bound<'a> = String;
    unsafe fn from_word<'a>(w: Word, _: &mut Caller<'_>) -> Self::Bound<'a> {
        // SAFETY: the caller guarantees a live string object.
        String::from_utf8_lossy(unsafe { str_bytes(w) }).into_owned()
    }
}

impl HostArg for &[i64] {}
impl HostArgImpl for &[i64] {
    const TYPE: Type = array_of(ScalarType::Int);
    type Bound<'a> = &'a [i64];
    unsafe fn from_word<'a>(w: Word, caller: &mut Caller<'_>) -> Self::Bound<'a> {
        // The slice lives for the call: the caller must not resize the array.
        caller.lend(w);
        // SAFETY: a live `[int]` whose words are i64 values; shared for 'a.
        let e: &'a [Word] = unsafe { array_words(w) };
        // SAFETY: `Word` (u64) and i64 have the same size and alignment.
        unsafe { std::slice::from_raw_parts(e.as_ptr().cast::<i64>(), e.len()) }
    }
}

impl HostArg for &[f64] {}
impl HostArgImpl for &[f64] {
    const TYPE: Type = array_of(ScalarType::Float);
    type Bound<'a> = &'a [f64];
    unsafe fn from_word<'a>(w: Word, caller: &mut Caller<'_>) -> Self::Bound<'a> {
        // The slice lives for the call: the caller must not resize the array.
        caller.lend(w);
        // SAFETY: a live `[float]` whose words are f64 bits; shared for 'a.
        let e: &'a [Word] = unsafe { array_words(w) };
        // SAFETY: `Word` (u64) and f64 have the same size and alignment.
        unsafe { std::slice::from_raw_parts(e.as_ptr().cast::<f64>(), e.len()) }
    }
}

impl HostArg for Vec<i64> {}
impl HostArgImpl for Vec<i64> {
    const TYPE: Type = array_of(ScalarType::Int);
    type Bound<'a> = Vec<i64>;
    unsafe fn from_word<'a>(w: Word, _: &mut Caller<'_>) -> Self::Bound<'a> {
        // SAFETY: a live `[i64]` (the caller's promise), copied at once.
        let e: &[Word] = unsafe { array_words(w) };
        e.iter()
            .map(|&x| <i64 as HeapElemImpl>::from_word(x))
            .collect()
    }
}

impl HostArg for Vec<f64> {}
impl HostArgImpl for Vec<f64> {
    const TYPE: Type = array_of(ScalarType::Float);
    type Bound<'a> = Vec<f64>;
    unsafe fn from_word<'a>(w: Word, _: &mut Caller<'_>) -> Self::Bound<'a> {
        // SAFETY: a live `[f64]` (the caller's promise), copied at once.
        let e: &[Word] = unsafe { array_words(w) };
        e.iter()
            .map(|&x| <f64 as HeapElemImpl>::from_word(x))
            .collect()
    }
}

impl<T: HeapElem> HostArg for ArrayRef<T> {}
impl<T: HeapElem> HostArgImpl for ArrayRef<T> {
    const TYPE: Type = array_of(T::SCALAR);
    type Bound<'a> = ArrayRef<T>;
    unsafe fn from_word<'a>(w: Word, caller: &mut Caller<'_>) -> Self::Bound<'a> {
        caller.handle(w)
    }
}

impl HostRet for () {}
impl HostRetImpl for () {
    const TYPE: Type = Type::Unit;
    fn into_word(self, _: &mut Caller<'_>) -> Result<Word, TrapCode> {
        Ok(0)
    }
}

impl HostRet for i64 {}
impl HostRetImpl for i64 {
    const TYPE: Type = Type::Int;
    fn into_word(self, _: &mut Caller<'_>) -> Result<Word, TrapCode> {
        Ok(self as Word)
    }
}

impl HostRet for f64 {}
impl HostRetImpl for f64 {
    const TYPE: Type = Type::Float;
    fn into_word(self, _: &mut Caller<'_>) -> Result<Word, TrapCode> {
        Ok(self.to_bits())
    }
}

impl HostRet for bool {}
impl HostRetImpl for bool {
    const TYPE: Type = Type::Bool;
    fn into_word(self, _: &mut Caller<'_>) -> Result<Word, TrapCode> {
        Ok(Word::from(self))
    }
}

impl HostRet for String {}
impl HostRetImpl for String {
    const TYPE: Type = Type::Str;
    fn into_word(self, caller: &mut Caller<'_>) -> Result<Word, TrapCode> {
        caller.new_str(&self)
    }
}

impl HostRet for &str {}
impl HostRetImpl for &str {
    const TYPE: Type = Type::Str;
    fn into_word(self, caller: &mut Caller<'_>) -> Result<Word, TrapCode> {
        caller.new_str(self)
    }
}

impl HostRet for Vec<i64> {}
impl HostRetImpl for Vec<i64> {
    const TYPE: Type = array_of(ScalarType::Int);
    fn into_word(self, caller: &mut Caller<'_>) -> Result<Word, TrapCode> {
        let words: Vec<Word> = self.into_iter().map(|x| x as Word).collect();
        caller.new_array(Type::Int, &words)
    }
}

impl HostRet for Vec<f64> {}
impl HostRetImpl for Vec<f64> {
    const TYPE: Type = array_of(ScalarType::Float);
    fn into_word(self, caller: &mut Caller<'_>) -> Result<Word, TrapCode> {
        let words: Vec<Word> = self.into_iter().map(f64::to_bits).collect();
        caller.new_array(Type::Float, &words)
    }
}
