//! Host functions: Rust closures (and, with FFI enabled, C functions) that
//! scripts call like builtins.
//!
//! Shaped after rhai's `register_fn` and mlua's `create_function` (see
//! `embedding-and-tooling.md`): the closure's parameter and result types
//! give the Waddle signature ([`HostArg`], [`HostRet`]); a closure may
//! return `Result<T, E: Display>` ([`HostResult`]) and may take a
//! [`Caller`] first (the `_with_caller` registrations) to reach the
//! embedder's data. The frontend type-checks calls against the signature;
//! the IR calls them with `host_call`, an effect the optimizer never
//! removes or reorders; every tier dispatches through
//! [`waddle_opt::interp::Host::host_call`] with the function's id and its
//! argument words. A failing or panicking host function becomes the
//! runtime error `host function `NAME` failed: MESSAGE` (or `panicked:`)
//! at the call's location, and the engine stays usable.

mod convert;
pub(crate) mod ffi;

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use cranelift_entity::EntityRef;
use waddle_opt::abi::{array_get, array_len, ArrayObj, TrapCode, Word};
use waddle_opt::interp::Host;
use waddle_opt::ir::{HostFnId, Signature, Type};

pub use convert::{HostArg, HostArgImpl, HostResult, HostRet, HostRetImpl};

use crate::api::{ArrayRef, HeapElem};
use crate::engine::val::trap_error;
use crate::error::Error;
use crate::host::Runtime;

/// Why a host function did not return a value.
pub(crate) enum HostFailure {
    /// The function reported an error (its `Display` text).
    Error(String),
    /// Converting the result failed (e.g. `out of memory`).
    Trap(TrapCode),
}

/// The type-erased body of a host function.
pub(crate) type ErasedFn =
    dyn Fn(&mut Caller<'_>, &[Word]) -> Result<Word, HostFailure> + Send + Sync + 'static;

/// A registered host function.
pub(crate) struct HostFn {
    /// The name scripts call it by.
    pub name: String,
    /// Its Waddle signature.
    pub sig: Signature,
    /// The body.
    pub call: Box<ErasedFn>,
}

/// Host functions of an engine, the embedder's data, and the message of the
/// last host failure.
#[derive(Default)]
pub(crate) struct HostState {
    /// Indexed by [`HostFnId`].
    pub table: Vec<Arc<HostFn>>,
    /// What [`Caller::data`] returns.
    pub data: Option<Box<dyn Any + Send>>,
    /// The message of the last `HostError` trap, taken when it is reported.
    pub error: Option<String>,
    /// Whether scripts may declare `extern` functions.
    pub allow_ffi: bool,
}

impl HostState {
    /// Adds `f`, or replaces the function of the same name and signature (so
    /// code compiled earlier calls the new body). A new signature gets a new
    /// id; code compiled against the old one keeps calling the old body.
    pub fn register(&mut self, f: HostFn) -> HostFnId {
        self.register_shared(Arc::new(f))
    }

    /// [`HostState::register`] for a function shared with an engine's table.
    pub fn register_shared(&mut self, f: Arc<HostFn>) -> HostFnId {
        if let Some(i) = self
            .table
            .iter()
            .rposition(|g| g.name == f.name && g.sig == f.sig)
        {
            self.table[i] = f;
            return HostFnId::new(i);
        }
        self.table.push(f);
        HostFnId::new(self.table.len() - 1)
    }

    /// Names and signatures in id order (the frontend's prelude).
    pub fn signatures(&self) -> Vec<(String, Signature)> {
        (self.table.iter())
            .map(|f| (f.name.clone(), f.sig.clone()))
            .collect()
    }
}

/// What a host function registered `_with_caller` receives first: access to
/// the embedder's data, to the heap for its result, and to the script arrays
/// it was given as [`ArrayRef`] parameters (which it may resize).
pub struct Caller<'a> {
    rt: &'a mut Runtime,
    roots: &'a [Word],
    /// Arrays lent to the call as slices (`&[i64]`, `&[f64]` parameters):
    /// resizing one would leave its slice dangling, so the call may not.
    lent: [Word; MAX_PARAMS],
    n_lent: usize,
}

/// Most parameters a host function takes.
const MAX_PARAMS: usize = 6;

impl Caller<'_> {
    /// The embedder's data set with `Engine::set_data`, if it has type `T`.
    pub fn data<T: Any>(&self) -> Option<&T> {
        self.rt.hostfns.data.as_ref()?.downcast_ref()
    }

    /// The embedder's data, mutably, if it has type `T`.
    pub fn data_mut<T: Any>(&mut self) -> Option<&mut T> {
        self.rt.hostfns.data.as_mut()?.downcast_mut()
    }

    /// The length of the array `a`.
    pub fn array_len<T: HeapElem>(&self, a: &ArrayRef<T>) -> Result<usize, Error> {
        let w = a.word_in(self.rt)?;
        // SAFETY: `a` roots `w`, a live array of this runtime (checked).
        Ok(unsafe { array_len(w) })
    }

    /// Appends `value` to the array `a`, like the script's `push` (may
    /// collect; the memory limit applies). Fails for an array this call
    /// also received as a slice parameter.
    pub fn array_push<T: HeapElem>(&mut self, a: &ArrayRef<T>, value: T) -> Result<(), Error> {
        let w = self.resizable(a)?;
        (self.rt)
            .array_push(w, value.to_word(), self.roots)
            .map_err(trap_error)
    }

    /// Removes and returns the last element of the array `a` (`None` when
    /// it is empty), like the script's `pop`. Fails for an array this call
    /// also received as a slice parameter.
    pub fn array_pop<T: HeapElem>(&mut self, a: &ArrayRef<T>) -> Result<Option<T>, Error> {
        let w = self.resizable(a)?;
        // Only raw accesses here: `array_get` reads the same object, so no
        // `&mut ArrayObj` may be alive across it.
        let arr = w as *mut ArrayObj;
        // SAFETY: `w` is a live array of this runtime (checked), not lent
        // to this call as a slice, and no other reference to it exists
        // while the host function runs.
        let len = unsafe { (*arr).len };
        if len == 0 {
            return Ok(None);
        }
        // SAFETY: index `len - 1` (the last element) is initialized.
        let value = unsafe { array_get(w, len as usize - 1) };
        // SAFETY: as above; no reference to the object is alive.
        unsafe { (*arr).len = len - 1 };
        Ok(Some(T::from_word(value)))
    }

    /// The word of `a`, if it belongs to this runtime and is not lent as a
    /// slice to this call.
    fn resizable<T: HeapElem>(&self, a: &ArrayRef<T>) -> Result<Word, Error> {
        let w = a.word_in(self.rt)?;
        if self.lent[..self.n_lent].contains(&w) {
            return Err(Error::Instance(
                "an array passed to this host function as a slice cannot be resized during the call"
                    .to_string(),
            ));
        }
        Ok(w)
    }

    /// Records that the array `w` is lent to the call as a slice.
    pub(crate) fn lend(&mut self, w: Word) {
        if self.n_lent < MAX_PARAMS {
            self.lent[self.n_lent] = w;
            self.n_lent += 1;
        }
    }

    /// A handle rooting the array argument `w` for the call (and as long as
    /// the host keeps it).
    pub(crate) fn handle<T: HeapElem>(&mut self, w: Word) -> ArrayRef<T> {
        ArrayRef::from_root(self.rt, w)
    }

    /// A new script string (for results).
    pub(crate) fn new_str(&mut self, s: &str) -> Result<Word, TrapCode> {
        self.rt.new_str(s.as_bytes(), self.roots)
    }

    /// A new script array of `elem` values (for results).
    pub(crate) fn new_array(&mut self, elem: Type, words: &[Word]) -> Result<Word, TrapCode> {
        self.rt.new_array(elem, words, self.roots)
    }
}

/// Calls host function `id` for [`waddle_opt::interp::Host::host_call`]:
/// checks the argument count, runs the body under `catch_unwind`, and
/// records the message of a failure for the runtime error.
pub(crate) fn dispatch(
    rt: &mut Runtime,
    id: HostFnId,
    args: &[Word],
    roots: &[Word],
) -> Result<Word, TrapCode> {
    // The table is moved out for the call (three words, no reference
    // counting on the hot path) and always put back: the body runs under
    // `catch_unwind`, and a `Caller` cannot reach the table.
    let table = std::mem::take(&mut rt.hostfns.table);
    let r = call_from(&table, rt, id, args, roots);
    rt.hostfns.table = table;
    r
}

/// Calls host function `id` of `table` (not the runtime's own table) in
/// `rt`, like [`dispatch`]: for code that runs outside the runtime, such as
/// AArch64 images under qemu (`crate::cross`).
pub(crate) fn call_from(
    table: &[Arc<HostFn>],
    rt: &mut Runtime,
    id: HostFnId,
    args: &[Word],
    roots: &[Word],
) -> Result<Word, TrapCode> {
    let Some(f) = table.get(id.index()) else {
        rt.hostfns.error = Some(format!("host function {id} is not registered"));
        return Err(TrapCode::HostError);
    };
    if f.sig.params.len() != args.len() {
        rt.hostfns.error = Some(format!(
            "host function `{}` takes {} argument(s), {} given",
            f.name,
            f.sig.params.len(),
            args.len()
        ));
        return Err(TrapCode::HostError);
    }
    let mut caller = Caller {
        rt,
        roots,
        lent: [0; MAX_PARAMS],
        n_lent: 0,
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| (f.call)(&mut caller, args)));
    let message = match outcome {
        Ok(Ok(w)) => return Ok(w),
        Ok(Err(HostFailure::Trap(code))) => return Err(code),
        Ok(Err(HostFailure::Error(m))) => format!("host function `{}` failed: {m}", f.name),
        Err(payload) => {
            let m = (payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            format!("host function `{}` panicked: {m}", f.name)
        }
    };
    rt.hostfns.error = Some(message);
    Err(TrapCode::HostError)
}

/// Closures that can be registered as host functions: `Fn(A, B, ..) -> R`
/// with up to six [`HostArg`] parameters and a [`HostResult`] result.
/// `Params` is the tuple of parameter types (inferred).
pub trait IntoHostFn<Params>: IntoHostFnImpl<Params> {}

impl<P, F: IntoHostFnImpl<P>> IntoHostFn<P> for F {}

/// Closures taking a [`Caller`] first, then up to six [`HostArg`]
/// parameters, returning a [`HostResult`].
pub trait IntoHostFnWithCaller<Params>: IntoHostFnWithCallerImpl<Params> {}

impl<P, F: IntoHostFnWithCallerImpl<P>> IntoHostFnWithCaller<P> for F {}

/// The machinery of [`IntoHostFn`] (private: it names IR types).
pub trait IntoHostFnImpl<Params>: Send + Sync + 'static {
    /// The Waddle signature and the type-erased body.
    fn into_parts(self) -> (Signature, Box<ErasedFnPublic>);
}

/// The machinery of [`IntoHostFnWithCaller`] (private: it names IR types).
pub trait IntoHostFnWithCallerImpl<Params>: Send + Sync + 'static {
    /// The Waddle signature and the type-erased body.
    fn into_parts(self) -> (Signature, Box<ErasedFnPublic>);
}

/// The erased body as the registration traits produce it.
pub struct ErasedFnPublic(pub(crate) Box<ErasedFn>);

/// Converts a closure's result into a word or a failure.
fn finish<R: HostResult>(r: R, caller: &mut Caller<'_>) -> Result<Word, HostFailure> {
    let v = r.into_result().map_err(HostFailure::Error)?;
    v.into_word(caller).map_err(HostFailure::Trap)
}

macro_rules! host_fn_impls {
    ($($a:ident),*) => {
        impl<F, R, $($a),*> IntoHostFnImpl<($($a,)*)> for F
        where
            F: Fn($($a),*) -> R
                + for<'x> Fn($(<$a as HostArgImpl>::Bound<'x>),*) -> R
                + Send + Sync + 'static,
            $($a: HostArg,)*
            R: HostResult,
        {
            #[allow(
                non_snake_case,
                unused_mut,
                unused_variables,
                clippy::extra_unused_lifetimes,
                clippy::too_many_arguments
            )]
            fn into_parts(self) -> (Signature, Box<ErasedFnPublic>) {
                fn invoke<'y, F, R, $($a: HostArg),*>(f: &F, $($a: <$a as HostArgImpl>::Bound<'y>),*) -> R
                where
                    F: for<'x> Fn($(<$a as HostArgImpl>::Bound<'x>),*) -> R,
                {
                    f($($a),*)
                }
                let sig = Signature {
                    params: vec![$(<$a as HostArgImpl>::TYPE),*],
                    ret: <R::Ok as HostRetImpl>::TYPE,
                };
                let call = move |caller: &mut Caller<'_>, args: &[Word]| {
                    let mut words = args.iter().copied();
                    // SAFETY: `dispatch` checked the count and the frontend the
                    // types; the words are live for the whole call (they sit in
                    // the calling frame, a GC root).
                    $(let $a = unsafe { <$a as HostArgImpl>::from_word(words.next().unwrap_or(0), caller) };)*
                    let r = invoke::<F, R, $($a),*>(&self, $($a),*);
                    finish(r, caller)
                };
                (sig, Box::new(ErasedFnPublic(Box::new(call))))
            }
        }

        impl<F, R, $($a),*> IntoHostFnWithCallerImpl<($($a,)*)> for F
        where
            F: Fn(&mut Caller<'_>, $($a),*) -> R
                + for<'x> Fn(&mut Caller<'_>, $(<$a as HostArgImpl>::Bound<'x>),*) -> R
                + Send + Sync + 'static,
            $($a: HostArg,)*
            R: HostResult,
        {
            #[allow(
                non_snake_case,
                unused_mut,
                unused_variables,
                clippy::extra_unused_lifetimes,
                clippy::too_many_arguments
            )]
            fn into_parts(self) -> (Signature, Box<ErasedFnPublic>) {
                fn invoke<'y, F, R, $($a: HostArg),*>(
                    f: &F,
                    caller: &mut Caller<'_>,
                    $($a: <$a as HostArgImpl>::Bound<'y>),*
                ) -> R
                where
                    F: for<'x> Fn(&mut Caller<'_>, $(<$a as HostArgImpl>::Bound<'x>),*) -> R,
                {
                    f(caller, $($a),*)
                }
                let sig = Signature {
                    params: vec![$(<$a as HostArgImpl>::TYPE),*],
                    ret: <R::Ok as HostRetImpl>::TYPE,
                };
                let call = move |caller: &mut Caller<'_>, args: &[Word]| {
                    let mut words = args.iter().copied();
                    // SAFETY: as for `IntoHostFn`.
                    $(let $a = unsafe { <$a as HostArgImpl>::from_word(words.next().unwrap_or(0), caller) };)*
                    let r = invoke::<F, R, $($a),*>(&self, caller, $($a),*);
                    finish(r, caller)
                };
                (sig, Box::new(ErasedFnPublic(Box::new(call))))
            }
        }
    };
}

host_fn_impls!();
host_fn_impls!(A1);
host_fn_impls!(A1, A2);
host_fn_impls!(A1, A2, A3);
host_fn_impls!(A1, A2, A3, A4);
host_fn_impls!(A1, A2, A3, A4, A5);
host_fn_impls!(A1, A2, A3, A4, A5, A6);
