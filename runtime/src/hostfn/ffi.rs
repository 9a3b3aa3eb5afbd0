//! FFI: `extern "lib" fn name(...)` declarations resolved with libloading
//! into host functions (docs/language.md, "Extension: FFI").
//!
//! Only `int`, `float` and `bool` cross the boundary, at most six
//! integer-class and eight float parameters. Under both C calling
//! conventions this runtime targets (x86-64 System V and AArch64 AAPCS64,
//! non-variadic) integer-class arguments take the integer argument registers
//! in order and floats the float argument registers in order, independently
//! of how they interleave. So every foreign function is called through one
//! of two fixed shapes, `fn(i64 × 6, f64 × 8) -> i64` or `-> f64`, with its
//! integer-class arguments first in the integer slots and its floats in the
//! float slots; the callee reads the registers it declares and ignores the
//! rest. `int` is C's `int64_t`, `bool` C's `bool` (passed as 0/1, read from
//! the low byte of the result).

use std::sync::Arc;

use libloading::Library;
use waddle_frontend::check::Typed;
use waddle_opt::ir::{Signature, Type};

use super::{HostFailure, HostFn};
use crate::error::Error;

/// The register shape every foreign function is called through: six
/// integer-class and eight float arguments, returning `$ret`.
macro_rules! shape {
    ($ret:ty) => {
        unsafe extern "C" fn(i64, i64, i64, i64, i64, i64, f64, f64, f64, f64, f64, f64, f64, f64) -> $ret
    };
}
/// The integer-result shape.
type IntShape = shape!(i64);
/// The float-result shape.
type FloatShape = shape!(f64);

/// Resolves every `extern` declaration of `compiled` (source `source`,
/// named `name`), returning each one's host id and callable function. A
/// missing library or symbol is a compile error at its declaration.
pub(crate) fn load_externs(
    typed: &Typed,
    name: &str,
    source: &str,
) -> Result<Vec<(u32, HostFn)>, Error> {
    let mut diags = Vec::new();
    let mut loaded = Vec::new();
    for x in &typed.externs {
        let Some(info) = typed.host_fns.get(x.host as usize) else {
            return Err(Error::Internal(format!(
                "extern `{}` has no host id",
                x.symbol
            )));
        };
        match resolve(&x.lib, &x.symbol, &info.sig) {
            Ok(f) => loaded.push((x.host, f)),
            Err(msg) => diags.push(
                waddle_frontend::diag::Diagnostic::error(msg, x.span).with_label("declared here"),
            ),
        }
    }
    if !diags.is_empty() {
        let mut sources = waddle_frontend::SourceMap::default();
        sources.add(waddle_frontend::SourceFile::new(name, source));
        return Err(Error::Compile {
            rendered: waddle_frontend::diag::render(&diags, &sources),
            diagnostics: crate::error::diagnostics(&diags, &sources),
        });
    }
    Ok(loaded)
}

/// Loads `lib` and looks up `symbol`, returning a host function `name` with
/// signature `sig` that calls it. The error says which of the two failed.
pub(crate) fn resolve(lib: &str, symbol: &str, sig: &Signature) -> Result<HostFn, String> {
    if !cfg!(all(
        unix,
        any(target_arch = "x86_64", target_arch = "aarch64")
    )) {
        return Err("FFI is supported on x86-64 and AArch64 Unix systems only".to_string());
    }
    // SAFETY: loading a library runs its initializers; the embedder opted in
    // to FFI (`Engine::allow_ffi`), which hands scripts this power.
    let library =
        unsafe { Library::new(lib) }.map_err(|e| format!("cannot load library `{lib}`: {e}"))?;
    // SAFETY: the symbol's address is only called through the shapes above,
    // with the declared signature's arguments.
    let addr = unsafe { library.get::<*const ()>(symbol.as_bytes()) }
        .map(|s| *s)
        .map_err(|e| format!("library `{lib}` has no function `{symbol}`: {e}"))?;
    if addr.is_null() {
        return Err(format!("library `{lib}` has no function `{symbol}`"));
    }
    let library = Arc::new(library);
    let params = sig.params.clone();
    let ret = sig.ret;
    let addr = addr as usize;
    let call = move |_: &mut super::Caller<'_>, args: &[u64]| {
        // Keeps the library mapped as long as the function exists.
        let _lib = &library;
        let (mut ints, mut floats) = ([0i64; 6], [0f64; 8]);
        let (mut ni, mut nf) = (0, 0);
        for (&t, &w) in params.iter().zip(args) {
            if t == Type::Float {
                let slot = floats.get_mut(nf).ok_or_else(too_many)?;
                *slot = f64::from_bits(w);
                nf += 1;
            } else {
                let slot = ints.get_mut(ni).ok_or_else(too_many)?;
                // `bool` words are 0/1 already.
                *slot = w as i64;
                ni += 1;
            }
        }
        let [i0, i1, i2, i3, i4, i5] = ints;
        let [f0, f1, f2, f3, f4, f5, f6, f7] = floats;
        Ok(if ret == Type::Float {
            // SAFETY: `addr` is the symbol the script declared with this
            // signature; the shape passes its arguments where C expects them.
            let f: FloatShape = unsafe { std::mem::transmute::<usize, FloatShape>(addr) };
            // SAFETY: as above.
            unsafe { f(i0, i1, i2, i3, i4, i5, f0, f1, f2, f3, f4, f5, f6, f7) }.to_bits()
        } else {
            // SAFETY: as above.
            let f: IntShape = unsafe { std::mem::transmute::<usize, IntShape>(addr) };
            // SAFETY: as above.
            let r = unsafe { f(i0, i1, i2, i3, i4, i5, f0, f1, f2, f3, f4, f5, f6, f7) };
            match ret {
                Type::Bool => u64::from(r & 0xff != 0),
                Type::Unit => 0,
                _ => r as u64,
            }
        })
    };
    Ok(HostFn {
        name: symbol.to_string(),
        sig: sig.clone(),
        call: Box::new(call),
    })
}

fn too_many() -> HostFailure {
    HostFailure::Error("too many arguments for a foreign function".to_string())
}
