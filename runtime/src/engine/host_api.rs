//! The host-function part of the [`Session`] API: registering Rust closures
//! scripts can call ([`crate::hostfn`]), the embedder's data host functions
//! reach through [`crate::Caller`], and typed access to globals.

use std::any::Any;

use cranelift_entity::EntityRef;
use waddle_opt::abi::{Trap, TrapCode};
use waddle_opt::ir::Signature;

use super::compile::{compile_with_options, CompiledIr};
use super::val::{self, FromVal, IntoVal};
use super::Session;
use crate::error::{Error, RuntimeError};
use crate::hostfn::{ffi, HostFn, IntoHostFn, IntoHostFnWithCaller};
use crate::types::FuncType;

/// A host function registered with an engine (REPL `:funcs`).
#[derive(Clone, PartialEq, Debug)]
#[non_exhaustive]
pub struct HostFunctionInfo {
    /// The name scripts call it by.
    pub name: String,
    /// Parameter and result types.
    pub sig: FuncType,
}

impl Session {
    /// Registers `f` as the host function `name`, callable from scripts
    /// compiled from now on like a builtin:
    ///
    /// ```
    /// let mut engine = waddle::Session::new(&waddle::Engine::default());
    /// engine.register_fn("shout", |s: &str, n: i64| s.to_uppercase().repeat(n as usize)).unwrap();
    /// engine.register_fn("checked_div", |a: i64, b: i64| {
    ///     if b == 0 { Err("divide by zero") } else { Ok(a / b) }
    /// }).unwrap();
    /// assert_eq!(engine.eval_as::<String>("shout(\"ab\", 2)").unwrap(), "ABAB");
    /// assert_eq!(engine.eval_as::<i64>("checked_div(7, 2)").unwrap(), 3);
    /// let err = engine.eval("checked_div(1, 0);").unwrap_err().to_string();
    /// assert!(err.contains("host function `checked_div` failed: divide by zero"), "{err}");
    /// ```
    ///
    /// Parameters: `i64`, `f64`, `bool`, `&str`, `String`, `&[i64]`,
    /// `&[f64]`, `Vec<i64>`, `Vec<f64>`, and [`crate::ArrayRef`] (the script's
    /// array itself, which a `_with_caller` function may resize through
    /// [`crate::Caller::array_push`]/[`crate::Caller::array_pop`]) (at most
    /// six). Results: those
    /// (owned) and `()`, or `Result<T, E: Display>`, whose `Err` is a runtime
    /// error at the call. A panic is caught and reported the same way.
    /// Registering a name again with the same signature replaces the body
    /// for code compiled earlier too. Fails for a name that is not an
    /// identifier, is reserved (keywords, builtins) or names a function of
    /// the program.
    pub fn register_fn<P>(&mut self, name: &str, f: impl IntoHostFn<P>) -> Result<(), Error> {
        let (sig, call) = f.into_parts();
        self.add_host_fn(name, sig, call.0)
    }

    /// [`Session::register_fn`] for a closure taking a [`crate::Caller`]
    /// first, which reaches the data set with [`Session::set_data`]:
    ///
    /// ```
    /// let mut engine = waddle::Session::new(&waddle::Engine::default());
    /// engine.set_data(Vec::<i64>::new());
    /// engine.register_fn_with_caller("record", |c: &mut waddle::Caller<'_>, x: i64| {
    ///     c.data_mut::<Vec<i64>>().expect("data").push(x);
    /// }).unwrap();
    /// engine.eval("record(1); record(2);").unwrap();
    /// assert_eq!(engine.data::<Vec<i64>>().unwrap(), &vec![1, 2]);
    /// ```
    pub fn register_fn_with_caller<P>(
        &mut self,
        name: &str,
        f: impl IntoHostFnWithCaller<P>,
    ) -> Result<(), Error> {
        let (sig, call) = f.into_parts();
        self.add_host_fn(name, sig, call.0)
    }

    pub(crate) fn add_host_fn(
        &mut self,
        name: &str,
        sig: Signature,
        call: Box<crate::hostfn::ErasedFn>,
    ) -> Result<(), Error> {
        check_host_name(name)?;
        if self.program.func_by_name(name).is_some() {
            return Err(Error::Signature(format!(
                "cannot register host function `{name}`: the program defines a function of that name"
            )));
        }
        let f = HostFn {
            name: name.to_string(),
            sig,
            call,
        };
        self.store.runtime.hostfns.register(f);
        Ok(())
    }

    /// Lets scripts declare C functions with `extern "lib" fn name(..);`
    /// (docs/language.md, "Extension: FFI"): the library and symbol are
    /// resolved when the code is loaded. Off by default; a declaration
    /// without it is a compile error. A script with FFI can do anything the
    /// process can, so enable it only for trusted scripts.
    ///
    /// ```
    /// # #[cfg(target_os = "linux")] {
    /// let mut engine = waddle::Session::new(&waddle::Engine::default());
    /// engine.allow_ffi(true);
    /// engine.eval("extern \"libm.so.6\" fn cbrt(x: float) -> float;").unwrap();
    /// assert_eq!(engine.eval_as::<f64>("cbrt(8.0)").unwrap(), 2.0);
    /// # }
    /// ```
    pub fn allow_ffi(&mut self, allow: bool) {
        self.store.runtime.hostfns.allow_ffi = allow;
    }

    /// Compiles one entry against the engine's prelude, then loads its
    /// `extern` declarations as host functions (an unloadable library or a
    /// missing symbol is a compile error at the declaration).
    pub(crate) fn compile_entry(
        &mut self,
        name: &str,
        source: &str,
        repl: bool,
    ) -> Result<CompiledIr, Error> {
        self.sync_host_fns();
        let options = waddle_frontend::CompileOptions {
            prelude: self.prelude(),
            repl,
            allow_ffi: self.store.runtime.hostfns.allow_ffi,
        };
        let compiled = compile_with_options(name, source, options, &self.opt)?;
        let loaded = ffi::load_externs(&compiled.frontend.typed, name, source)?;
        for (want, f) in loaded {
            let got = self.store.runtime.hostfns.register(f);
            if got.index() != want as usize {
                return Err(Error::Internal(format!(
                    "extern function got host id {got}, the frontend expected h{want}"
                )));
            }
        }
        Ok(compiled)
    }

    /// The host functions entries can call, in registration order (a name
    /// registered again with a new signature appears once per signature):
    /// the session's own and `extern` ones, and the engine's, including
    /// those registered with it since the last entry.
    pub fn host_functions(&self) -> Vec<HostFunctionInfo> {
        let table = &self.store.runtime.hostfns.table;
        let engine_fns = self.engine.host_fns();
        let pending = (engine_fns.iter())
            .filter(|f| !table.iter().any(|g| g.name == f.name && g.sig == f.sig));
        (table.iter().chain(pending))
            .map(|f| HostFunctionInfo {
                name: f.name.clone(),
                sig: FuncType::of(&f.sig),
            })
            .collect()
    }

    /// Sets the data host functions reach with [`crate::Caller::data`]
    /// (replacing earlier data of any type).
    pub fn set_data<T: Any + Send>(&mut self, data: T) {
        self.store.runtime.hostfns.data = Some(Box::new(data));
    }

    /// The data set with [`Session::set_data`], if it has type `T`.
    pub fn data<T: Any>(&self) -> Option<&T> {
        self.store.runtime.hostfns.data.as_ref()?.downcast_ref()
    }

    /// The data set with [`Session::set_data`], mutably.
    pub fn data_mut<T: Any>(&mut self) -> Option<&mut T> {
        self.store.runtime.hostfns.data.as_mut()?.downcast_mut()
    }

    /// Assigns `value` to the global `name` (the latest declaration; `let`
    /// globals too: the host may set what scripts may not). The value must
    /// have the global's type.
    ///
    /// ```
    /// let mut engine = waddle::Session::new(&waddle::Engine::default());
    /// engine.eval("var limit = 10; fn twice() -> int { return limit * 2; }").unwrap();
    /// engine.set_global("limit", 21i64).unwrap();
    /// assert_eq!(engine.call_typed::<(), i64>("twice", ()).unwrap(), 42);
    /// assert_eq!(engine.get_global::<i64>("limit").unwrap(), 21);
    /// ```
    pub fn set_global<T: IntoVal>(&mut self, name: &str, value: T) -> Result<(), Error> {
        let id = (self.program.global_by_name(name))
            .ok_or_else(|| Error::Signature(format!("no global named `{name}`")))?;
        let ty = self.program.globals[id].ty;
        let v = value.into_val();
        if !v.fits(ty) {
            return Err(Error::Signature(format!(
                "global `{name}` has type `{ty}`, cannot assign {}",
                v.kind()
            )));
        }
        let mut roots = Vec::new();
        let w = val::to_word(&mut self.store.runtime, ty, &v, &mut roots)?;
        self.store.runtime.set_global_word(id.index(), w);
        Ok(())
    }

    /// The value of the global `name` (the latest declaration) as a `T`.
    pub fn get_global<T: FromVal>(&self, name: &str) -> Result<T, Error> {
        let v = (self.global(name))
            .ok_or_else(|| Error::Signature(format!("no global named `{name}`")))?;
        let kind = v.kind();
        T::from_val(v).ok_or_else(|| {
            Error::Signature(format!(
                "global `{name}` holds {kind}, not the requested `{}`",
                std::any::type_name::<T>()
            ))
        })
    }

    /// The runtime error for `trap`, with a host function's own message for
    /// `host error` traps.
    pub(crate) fn trap_error(&mut self, trap: Trap) -> RuntimeError {
        let mut e = RuntimeError::from_trap(trap, &self.program);
        if trap.code == TrapCode::HostError {
            if let Some(m) = self.store.runtime.hostfns.error.take() {
                e.message = m;
            }
        }
        e
    }
}

/// `Ok` for a name scripts can call: an identifier that is not reserved.
pub(crate) fn check_host_name(name: &str) -> Result<(), Error> {
    let mut chars = name.chars();
    let ident = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    let why = if !ident {
        "not an identifier"
    } else if waddle_frontend::lexer::is_keyword(name) {
        "a keyword"
    } else if waddle_frontend::Builtin::from_name(name).is_some() {
        "a builtin function"
    } else {
        return Ok(());
    };
    Err(Error::Signature(format!(
        "cannot register host function `{name}`: {why}"
    )))
}
