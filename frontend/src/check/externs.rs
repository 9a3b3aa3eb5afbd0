//! `extern` declarations (docs/language.md, "Extension: FFI"): allowed only
//! when the embedder enabled FFI; parameters and result `int`, `float` or
//! `bool` (result also `void`); each becomes a host function whose library
//! and symbol the runtime resolves when it loads the program.

use super::ctx::Checker;
use super::{ExternInfo, HostFnInfo};
use crate::ast::{ExternFn, Item};
use crate::diag::Diagnostic;
use crate::Builtin;
use waddle_opt::ir::{Signature, Type};

/// Most integer-class (`int`, `bool`) and float parameters of an `extern`
/// function: what the argument registers of x86-64 SysV and AArch64 AAPCS64
/// hold, so no argument goes on the stack.
pub const MAX_EXTERN_INT_PARAMS: usize = 6;
/// See [`MAX_EXTERN_INT_PARAMS`].
pub const MAX_EXTERN_FLOAT_PARAMS: usize = 8;

impl Checker<'_> {
    /// Registers every `extern` item as a host function (after the
    /// prelude's), or reports why it cannot be.
    pub fn collect_externs(&mut self, allow_ffi: bool) {
        let module = self.module;
        for item in &module.items {
            let Item::Extern(x) = item else { continue };
            if !allow_ffi {
                self.err(
                    Diagnostic::error(
                        "`extern` functions need FFI, which is disabled",
                        x.span,
                    )
                    .with_label("foreign function declared here")
                    .with_note(
                        "enable it with `--allow-ffi` (CLI) or `Engine::allow_ffi(true)` (embedding)",
                    ),
                );
                continue;
            }
            let Some(sig) = self.extern_sig(x) else {
                continue;
            };
            let name = &x.name.name;
            if Builtin::from_name(name).is_some() || self.func_by_name.contains_key(name.as_str()) {
                self.err(
                    Diagnostic::error(
                        format!(
                            "cannot declare `extern fn {name}`: a function of that name exists"
                        ),
                        x.name.span,
                    )
                    .with_label("name already used"),
                );
                continue;
            }
            // Declaring again (a later REPL entry, a re-run) reuses the id.
            let id = match self.host_by_name.get(name.as_str()).copied() {
                Some(h) if self.hosts[h as usize].sig == sig && self.redeclarable(h) => h,
                Some(_) => {
                    self.err(
                        Diagnostic::error(
                            format!(
                                "cannot declare `extern fn {name}`: it is already a host function"
                            ),
                            x.name.span,
                        )
                        .with_label("name already used"),
                    );
                    continue;
                }
                None => {
                    let h = self.hosts.len() as u32;
                    self.hosts.push(HostFnInfo {
                        name: name.to_string(),
                        sig: sig.clone(),
                    });
                    self.host_by_name.insert(name.to_string(), h);
                    h
                }
            };
            self.externs.push(ExternInfo {
                host: id,
                lib: x.lib.clone(),
                symbol: name.to_string(),
                span: x.span,
            });
        }
    }

    /// Whether host function `h` may be declared `extern` again here: a
    /// prelude host function, not one this module already declared.
    fn redeclarable(&self, h: u32) -> bool {
        !self.externs.iter().any(|e| e.host == h)
    }

    /// The signature of an `extern` item, or `None` after reporting a type
    /// FFI cannot pass.
    fn extern_sig(&mut self, x: &ExternFn) -> Option<Signature> {
        let mut ok = true;
        let mut params = Vec::new();
        for p in &x.params {
            match self.resolve_ty(&p.ty, false) {
                Some(t @ (Type::Int | Type::Float | Type::Bool)) => params.push(t),
                Some(t) => {
                    self.ffi_type_error(t, p.ty.span, "parameter");
                    ok = false;
                }
                None => ok = false,
            }
        }
        let ret = match &x.ret {
            None => Type::Unit,
            Some(te) => match self.resolve_ty(te, true) {
                Some(t @ (Type::Int | Type::Float | Type::Bool | Type::Unit)) => t,
                Some(t) => {
                    self.ffi_type_error(t, te.span, "result");
                    ok = false;
                    Type::Unit
                }
                None => return None,
            },
        };
        let floats = params.iter().filter(|&&t| t == Type::Float).count();
        let ints = params.len() - floats;
        if ints > MAX_EXTERN_INT_PARAMS || floats > MAX_EXTERN_FLOAT_PARAMS {
            self.err(
                Diagnostic::error(
                    format!(
                        "`extern fn {}` has too many parameters: at most {MAX_EXTERN_INT_PARAMS} `int`/`bool` and {MAX_EXTERN_FLOAT_PARAMS} `float`",
                        x.name.name
                    ),
                    x.name.span,
                )
                .with_label("too many parameters"),
            );
            ok = false;
        }
        ok.then_some(Signature { params, ret })
    }

    fn ffi_type_error(&mut self, t: Type, span: crate::ast::Span, what: &str) {
        self.err(
            Diagnostic::error(
                format!("an `extern` function cannot have a `{t}` {what}"),
                span,
            )
            .with_label("only `int`, `float` and `bool` cross the FFI boundary"),
        );
    }
}
