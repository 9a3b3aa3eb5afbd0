//! [`TypedFunc`]: a Waddle function checked once against Rust parameter
//! and result types, then called without name lookup or allocation
//! (wasmtime's `TypedFunc`), and the conversion traits behind it.

use std::marker::PhantomData;

use waddle_opt::abi::Word;
use waddle_opt::ir::{FuncId, ScalarType, Signature, Type};

use super::handle::{ArrayRef, HeapElem, StrRef};
use super::store::Store;
use crate::engine::val::{from_word, to_word};
use crate::engine::{FromVal, IntoVal, Val};
use crate::error::Error;
use crate::host::Runtime;

/// Most parameters a [`TypedFunc`] takes (tuples up to this length).
pub const MAX_TYPED_PARAMS: usize = 8;

/// A Rust type a Waddle parameter can be passed as: `i64` (`int`), `f64`
/// (`float`), `bool`, `&str`/`String` (`str`, copied), `Vec<T>` (`[T]`,
/// copied), [`ArrayRef`]/[`StrRef`] (by value or reference: the object
/// itself, not copied) and [`Val`] (checked when called).
pub trait TypedParam: TypedParamImpl {}

/// The machinery of [`TypedParam`] (private: it names IR and runtime types).
pub trait TypedParamImpl {
    /// Whether a parameter of Waddle type `ty` accepts this Rust type.
    fn accepts(ty: Type) -> bool;
    /// The word for the parameter (allocating strings and arrays in the
    /// store's heap; `roots` keeps earlier arguments alive).
    fn to_word(self, ty: Type, rt: &mut Runtime, roots: &mut ArgRoots) -> Result<Word, Error>;
}

/// A Rust type a Waddle result can be read as: `()` (`void`), `i64`,
/// `f64`, `bool`, `String`, `Vec<T>` (copied), [`ArrayRef`]/[`StrRef`]
/// (a handle to the object, not copied) and [`Val`] (any type).
pub trait TypedResult: TypedResultImpl {}

/// The machinery of [`TypedResult`] (private: it names IR and runtime types).
pub trait TypedResultImpl: Sized {
    /// Whether a result of Waddle type `ty` converts to this Rust type.
    fn accepts(ty: Type) -> bool;
    /// The Rust value of the result word `w` of type `ty` (handles root
    /// it in `rt`).
    ///
    /// # Safety
    /// `w` must be a live value of type `ty`, which `accepts`, of the heap
    /// of `rt`.
    unsafe fn from_word(ty: Type, w: Word, rt: &mut Runtime) -> Self;
}

/// The words of a call's arguments converted so far that later
/// conversions must keep alive (strings and arrays made for the call, and
/// handles passed by value): on the stack, since a call takes at most
/// [`MAX_TYPED_PARAMS`] arguments, so a call with scalar arguments
/// neither allocates nor frees a vector.
pub struct ArgRoots {
    words: [Word; MAX_TYPED_PARAMS],
    len: usize,
}

impl ArgRoots {
    /// No roots.
    #[inline]
    fn new() -> ArgRoots {
        ArgRoots {
            words: [0; MAX_TYPED_PARAMS],
            len: 0,
        }
    }

    /// Keeps `w` alive for the rest of the conversion (one word per
    /// argument at most).
    #[inline]
    fn push(&mut self, w: Word) {
        if let Some(slot) = self.words.get_mut(self.len) {
            *slot = w;
            self.len += 1;
        }
    }

    /// The words kept alive.
    #[inline]
    fn as_slice(&self) -> &[Word] {
        &self.words[..self.len]
    }

    /// `v` converted by [`to_word`], with these words kept alive across
    /// its allocations (a copying conversion: it allocates anyway).
    fn convert(&mut self, rt: &mut Runtime, ty: Type, v: &Val) -> Result<Word, Error> {
        let mut all = self.as_slice().to_vec();
        let w = to_word(rt, ty, v, &mut all)?;
        self.push(w);
        Ok(w)
    }
}

macro_rules! scalar {
    ($t:ty, $ty:expr, |$v:ident| $to:expr, |$w:ident| $from:expr) => {
        impl TypedParam for $t {}
        impl TypedParamImpl for $t {
            fn accepts(ty: Type) -> bool {
                ty == $ty
            }
            #[inline]
            fn to_word(self, _: Type, _: &mut Runtime, _: &mut ArgRoots) -> Result<Word, Error> {
                let $v = self;
                Ok($to)
            }
        }
        impl TypedResult for $t {}
        impl TypedResultImpl for $t {
            fn accepts(ty: Type) -> bool {
                ty == $ty
            }
            #[inline]
            unsafe fn from_word(_: Type, $w: Word, _: &mut Runtime) -> Self {
                $from
            }
        }
    };
}
scalar!(i64, Type::Int, |v| v as Word, |w| w as i64);
scalar!(f64, Type::Float, |v| v.to_bits(), |w| f64::from_bits(w));
scalar!(bool, Type::Bool, |v| Word::from(v), |w| w != 0);

impl TypedResult for () {}
impl TypedResultImpl for () {
    fn accepts(ty: Type) -> bool {
        ty == Type::Unit
    }
    unsafe fn from_word(_: Type, _: Word, _: &mut Runtime) -> Self {}
}

impl TypedParam for &str {}
impl TypedParamImpl for &str {
    fn accepts(ty: Type) -> bool {
        ty == Type::Str
    }
    fn to_word(self, _: Type, rt: &mut Runtime, roots: &mut ArgRoots) -> Result<Word, Error> {
        let w = rt
            .new_str(self.as_bytes(), roots.as_slice())
            .map_err(crate::engine::val::trap_error)?;
        roots.push(w);
        Ok(w)
    }
}

impl TypedParam for String {}
impl TypedParamImpl for String {
    fn accepts(ty: Type) -> bool {
        ty == Type::Str
    }
    fn to_word(self, ty: Type, rt: &mut Runtime, roots: &mut ArgRoots) -> Result<Word, Error> {
        self.as_str().to_word(ty, rt, roots)
    }
}

impl TypedResult for String {}
impl TypedResultImpl for String {
    fn accepts(ty: Type) -> bool {
        ty == Type::Str
    }
    unsafe fn from_word(ty: Type, w: Word, _: &mut Runtime) -> Self {
        // SAFETY: forwarded contract.
        match unsafe { from_word(ty, w) } {
            Val::Str(s) => s,
            _ => String::new(),
        }
    }
}

/// Rust element types of arrays passed to and from typed functions as
/// `Vec<T>`: `i64`, `f64`, `bool`, `String`, and `Vec<T>` of these for
/// nested arrays (`Vec<Vec<f64>>` is `[[float]]`).
pub trait ArrayElem: ArrayElemImpl + IntoVal + FromVal {}

/// The machinery of [`ArrayElem`] (private: it names IR and runtime types).
pub trait ArrayElemImpl: IntoVal + FromVal {
    /// The Waddle element type.
    fn elem_type() -> Type;
}

impl ArrayElem for i64 {}
impl ArrayElemImpl for i64 {
    fn elem_type() -> Type {
        Type::Int
    }
}
impl ArrayElem for f64 {}
impl ArrayElemImpl for f64 {
    fn elem_type() -> Type {
        Type::Float
    }
}
impl ArrayElem for bool {}
impl ArrayElemImpl for bool {
    fn elem_type() -> Type {
        Type::Bool
    }
}
impl ArrayElem for String {}
impl ArrayElemImpl for String {
    fn elem_type() -> Type {
        Type::Str
    }
}
impl<T: ArrayElem> ArrayElem for Vec<T> {}
impl<T: ArrayElem> ArrayElemImpl for Vec<T> {
    fn elem_type() -> Type {
        array_of(T::elem_type())
    }
}

/// The array type with elements of type `elem`.
pub(crate) fn array_of(elem: Type) -> Type {
    let scalar = |t| match t {
        Type::Int => Some(ScalarType::Int),
        Type::Float => Some(ScalarType::Float),
        Type::Bool => Some(ScalarType::Bool),
        Type::Str => Some(ScalarType::Str),
        _ => None,
    };
    match elem {
        Type::Array { elem, depth } => Type::Array {
            elem,
            depth: depth.saturating_add(1),
        },
        t => Type::Array {
            elem: scalar(t).unwrap_or(ScalarType::Int),
            depth: 1,
        },
    }
}

impl<T: ArrayElem> TypedParam for Vec<T> {}
impl<T: ArrayElem> TypedParamImpl for Vec<T> {
    fn accepts(ty: Type) -> bool {
        ty == array_of(T::elem_type())
    }
    fn to_word(self, ty: Type, rt: &mut Runtime, roots: &mut ArgRoots) -> Result<Word, Error> {
        roots.convert(rt, ty, &self.into_val())
    }
}

impl<T: ArrayElem> TypedResult for Vec<T> {}
impl<T: ArrayElem> TypedResultImpl for Vec<T> {
    fn accepts(ty: Type) -> bool {
        ty == array_of(T::elem_type())
    }
    unsafe fn from_word(ty: Type, w: Word, _: &mut Runtime) -> Self {
        // SAFETY: forwarded contract.
        FromVal::from_val(unsafe { from_word(ty, w) }).unwrap_or_default()
    }
}

impl TypedParam for Val {}
impl TypedParamImpl for Val {
    fn accepts(_: Type) -> bool {
        true
    }
    fn to_word(self, ty: Type, rt: &mut Runtime, roots: &mut ArgRoots) -> Result<Word, Error> {
        roots.convert(rt, ty, &self)
    }
}

impl TypedResult for Val {}
impl TypedResultImpl for Val {
    fn accepts(_: Type) -> bool {
        true
    }
    unsafe fn from_word(ty: Type, w: Word, _: &mut Runtime) -> Self {
        // SAFETY: forwarded contract.
        unsafe { from_word(ty, w) }
    }
}

impl<T: HeapElem> TypedParam for &ArrayRef<T> {}
impl<T: HeapElem> TypedParamImpl for &ArrayRef<T> {
    fn accepts(ty: Type) -> bool {
        ty == ArrayRef::<T>::waddle_type()
    }
    #[inline]
    fn to_word(self, _: Type, rt: &mut Runtime, _: &mut ArgRoots) -> Result<Word, Error> {
        // Rooted by the handle, which outlives the call.
        self.word_in(rt)
    }
}

impl<T: HeapElem> TypedParam for ArrayRef<T> {}
impl<T: HeapElem> TypedParamImpl for ArrayRef<T> {
    fn accepts(ty: Type) -> bool {
        ty == ArrayRef::<T>::waddle_type()
    }
    #[inline]
    fn to_word(self, _: Type, rt: &mut Runtime, roots: &mut ArgRoots) -> Result<Word, Error> {
        // The handle ends here: later arguments' allocations must see it.
        let w = self.word_in(rt)?;
        roots.push(w);
        Ok(w)
    }
}

impl<T: HeapElem> TypedResult for ArrayRef<T> {}
impl<T: HeapElem> TypedResultImpl for ArrayRef<T> {
    fn accepts(ty: Type) -> bool {
        ty == ArrayRef::<T>::waddle_type()
    }
    unsafe fn from_word(_: Type, w: Word, rt: &mut Runtime) -> Self {
        ArrayRef::from_root(rt, w)
    }
}

impl TypedParam for &StrRef {}
impl TypedParamImpl for &StrRef {
    fn accepts(ty: Type) -> bool {
        ty == Type::Str
    }
    #[inline]
    fn to_word(self, _: Type, rt: &mut Runtime, _: &mut ArgRoots) -> Result<Word, Error> {
        self.word_in(rt)
    }
}

impl TypedParam for StrRef {}
impl TypedParamImpl for StrRef {
    fn accepts(ty: Type) -> bool {
        ty == Type::Str
    }
    #[inline]
    fn to_word(self, _: Type, rt: &mut Runtime, roots: &mut ArgRoots) -> Result<Word, Error> {
        let w = self.word_in(rt)?;
        roots.push(w);
        Ok(w)
    }
}

impl TypedResult for StrRef {}
impl TypedResultImpl for StrRef {
    fn accepts(ty: Type) -> bool {
        ty == Type::Str
    }
    unsafe fn from_word(_: Type, w: Word, rt: &mut Runtime) -> Self {
        StrRef::from_root(rt, w)
    }
}

/// Parameter lists of typed functions: tuples of up to
/// [`MAX_TYPED_PARAMS`] [`TypedParam`]s (`()` for none).
pub trait TypedParams: TypedParamsImpl {}

impl<T: TypedParamsImpl> TypedParams for T {}

/// The machinery of [`TypedParams`] (private: it names IR and runtime
/// types).
pub trait TypedParamsImpl {
    /// Number of parameters.
    const COUNT: usize;
    /// Whether Waddle parameters of types `tys` accept these Rust types.
    fn accepts(tys: &[Type]) -> bool;
    /// Writes the parameter words into `out` (`COUNT` words).
    fn write(self, tys: &[Type], rt: &mut Runtime, out: &mut [Word]) -> Result<(), Error>;
}

macro_rules! tuple_params {
    ($n:expr; $($name:ident $i:tt),*) => {
        impl<$($name: TypedParam),*> TypedParamsImpl for ($($name,)*) {
            const COUNT: usize = $n;
            #[allow(unused_variables)]
            fn accepts(tys: &[Type]) -> bool {
                tys.len() == $n $(&& $name::accepts(tys[$i]))*
            }
            #[allow(unused_variables, unused_mut)]
            #[inline]
            fn write(self, tys: &[Type], rt: &mut Runtime, out: &mut [Word]) -> Result<(), Error> {
                let mut roots = ArgRoots::new();
                $(out[$i] = self.$i.to_word(tys[$i], rt, &mut roots)?;)*
                Ok(())
            }
        }
    };
}
tuple_params!(0;);
tuple_params!(1; A 0);
tuple_params!(2; A 0, B 1);
tuple_params!(3; A 0, B 1, C 2);
tuple_params!(4; A 0, B 1, C 2, D 3);
tuple_params!(5; A 0, B 1, C 2, D 3, E 4);
tuple_params!(6; A 0, B 1, C 2, D 3, E 4, F 5);
tuple_params!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_params!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// A function of an [`crate::Instance`] whose signature was checked once
/// against `P` (a tuple of [`TypedParam`]s) and `R` (a [`TypedResult`]);
/// from [`crate::Instance::typed_func`].
///
/// A call goes straight to the function's entry: no name lookup, no
/// signature check and, for scalar parameters and results, no allocation.
/// `Clone + Send + Sync`; it belongs to the store it was made for (a call
/// with another store is an error).
///
/// ```
/// use waddle::{Engine, Module, Store};
/// let engine = Engine::default();
/// let module = Module::new(&engine, "m.wdl",
///     "fn add(a: int, b: int) -> int { return a + b; }
///      fn greet(name: str) -> str { return \"hi \" + name; }")?;
/// let mut store = Store::new(&engine);
/// let instance = store.instantiate(&module)?;
/// let add = instance.typed_func::<(i64, i64), i64>(&store, "add")?;
/// assert_eq!(add.call(&mut store, (2, 3))?, 5);
/// let greet = instance.typed_func::<(&str,), String>(&store, "greet")?;
/// assert_eq!(greet.call(&mut store, ("bob",))?, "hi bob");
/// assert!(instance.typed_func::<(f64,), i64>(&store, "add").is_err());
/// # Ok::<(), waddle::Error>(())
/// ```
pub struct TypedFunc<P, R> {
    pub(crate) store_id: u64,
    pub(crate) params: Box<[Type]>,
    pub(crate) ret: Type,
    /// How the function is called.
    pub(crate) plan: CallPlan,
    /// Covariant in `P`, so a `TypedFunc<(&str,), _>` takes strings of any
    /// lifetime; `Send + Sync` whatever `P` and `R` are.
    pub(crate) _sig: PhantomData<fn() -> (P, R)>,
}

impl<P, R> Clone for TypedFunc<P, R> {
    fn clone(&self) -> Self {
        TypedFunc {
            store_id: self.store_id,
            params: self.params.clone(),
            ret: self.ret,
            plan: self.plan,
            _sig: PhantomData,
        }
    }
}

/// How a function of an instance is called from Rust, worked out once
/// (when a [`TypedFunc`] is made, or per dynamic call from the module's
/// table): straight to its entry in the module's shared native unit when
/// it runs there, through [`Store::invoke`] otherwise.
#[derive(Copy, Clone, Debug)]
pub(crate) struct CallPlan {
    pub(crate) func: FuncId,
    /// The function's entry in the instance's shared native unit, when it
    /// runs there: calls go straight to it ([`Store::invoke_native`]).
    native: Option<waddle_jit::NativeEntry>,
    /// Whether `native` is called without its trampoline
    /// ([`waddle_jit::call_entry_direct`]: no `float` parameter, at most
    /// [`waddle_jit::DIRECT_ARGS`]).
    direct: bool,
    /// Whether the result is a `float` (read from the floating-point
    /// result register by a direct call).
    float_ret: bool,
    /// Whether the result is a `bool` (compiled code sets only the low
    /// byte of the result register).
    bool_ret: bool,
}

impl CallPlan {
    /// The plan for `func`, whose signature is `sig` and whose entry in
    /// its module's native unit is `native` (if it runs there).
    pub(crate) fn new(
        func: FuncId,
        sig: &Signature,
        native: Option<waddle_jit::NativeEntry>,
    ) -> CallPlan {
        CallPlan {
            func,
            native,
            direct: waddle_jit::direct_call_supported(&sig.params),
            float_ret: sig.ret == Type::Float,
            bool_ret: sig.ret == Type::Bool,
        }
    }

    /// Calls the function in `store` with the argument words `words[..n]`
    /// (one per parameter; the words after them are zeros); returns the
    /// result word.
    ///
    /// # Safety
    /// `store` must hold the instance of the module the plan was made
    /// from, and the arguments be live words of the function's parameter
    /// types (rooted across the call by the caller where they are objects).
    #[inline]
    pub(crate) unsafe fn call(
        &self,
        store: &mut Store,
        words: &[Word; MAX_TYPED_PARAMS],
        n: usize,
    ) -> Result<Word, Error> {
        match &self.native {
            Some(entry) if self.direct => {
                let [a, b, c, d, e, ..] = *words;
                let float = self.float_ret;
                // SAFETY: `entry` is `self.func`'s in the unit of the
                // store's instance (the caller's promise); its parameters
                // passed `direct_call_supported` when `self` was made, and
                // `call_entry_direct` traps unless `n` is their number.
                let w = unsafe {
                    store.invoke_native(self.func, |rt, env| {
                        waddle_jit::call_entry_direct(entry, rt, env, &[a, b, c, d, e], n, float)
                    })
                }?;
                // Compiled code returns a `bool` in the low byte only.
                Ok(if self.bool_ret { w & 0xff } else { w })
            }
            // SAFETY: forwarded.
            _ => unsafe { self.call_slice(store, words.get(..n).unwrap_or(words)) },
        }
    }

    /// [`CallPlan::call`] with any number of argument words, through the
    /// trampoline (or the interpreter).
    ///
    /// # Safety
    /// As for [`CallPlan::call`].
    #[inline]
    pub(crate) unsafe fn call_slice(
        &self,
        store: &mut Store,
        args: &[Word],
    ) -> Result<Word, Error> {
        match &self.native {
            Some(entry) => {
                // SAFETY: `entry` is `self.func`'s in the unit of the
                // store's instance (the caller's promise); the trampoline
                // takes the words, and `call_entry` traps unless there are
                // as many as the function has parameters.
                unsafe {
                    store.invoke_native(self.func, |rt, env| {
                        waddle_jit::call_entry(entry, rt, env, args)
                    })
                }
            }
            None => store.invoke(self.func, args),
        }
    }
}

impl<P, R> std::fmt::Debug for TypedFunc<P, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedFunc")
            .field("params", &self.params)
            .field("ret", &self.ret)
            .finish()
    }
}

impl<P: TypedParams, R: TypedResult> TypedFunc<P, R> {
    /// Calls the function in `store` with `params`.
    #[inline]
    pub fn call(&self, store: &mut Store, params: P) -> Result<R, Error> {
        if store.id() != self.store_id {
            return Err(Error::Instance(
                "a typed function was called with a store it does not belong to".to_string(),
            ));
        }
        let mut words = [0 as Word; MAX_TYPED_PARAMS];
        params.write(&self.params, store.runtime_mut(), &mut words[..P::COUNT])?;
        // SAFETY: the plan is for this store's instance (same store,
        // checked above); `write` made words of the parameter types, which
        // `P` has exactly as many of, rooted by their handles or by the
        // call (strings and arrays made for it are reachable from the
        // arguments the callee holds).
        let w = unsafe { self.plan.call(store, &words, P::COUNT) }?;
        // SAFETY: `w` is the function's result, of type `self.ret`, which
        // `R` accepts (checked when `self` was made), in the store's heap;
        // nothing allocated since the call returned.
        Ok(unsafe { R::from_word(self.ret, w, store.runtime_mut()) })
    }
}
