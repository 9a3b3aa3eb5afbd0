//! Functions and globals: signature collection, REPL redefinition rules,
//! and the lazy, cycle-checked type inference of globals (docs/language.md
//! "Program structure", details #6–#8).

use super::ctx::{BindKind, BodyCtx, Checker, FuncSlot, GlobalSlot, Ty};
use super::{FuncIdx, GlobalIdx, Var};
use crate::ast::{FnDecl, Item, Span, Stmt, StmtKind};
use crate::diag::Diagnostic;
use crate::{Builtin, Prelude};
use waddle_opt::ir::Type;

impl<'m> Checker<'m> {
    /// Registers prelude functions, then every `fn` item's signature.
    pub fn collect_functions(&mut self, prelude: &Prelude) {
        for (name, sig) in &prelude.host_functions {
            let id = self.hosts.len() as u32;
            self.hosts.push(super::HostFnInfo {
                name: name.clone(),
                sig: sig.clone(),
            });
            self.host_by_name.insert(name.clone(), id);
        }
        for (name, sig) in &prelude.functions {
            let idx = FuncIdx(self.funcs.len() as u32);
            self.funcs.push(FuncSlot {
                name: name.clone(),
                params: sig.params.iter().map(|&t| Some(t)).collect(),
                ret: Some(sig.ret),
                item: None,
                span: None,
            });
            self.func_by_name.insert(name.clone(), idx);
        }
        let prelude_len = self.funcs.len();
        let module = self.module;
        for (i, item) in module.items.iter().enumerate() {
            let Item::Fn(f) = item else { continue };
            let params: Vec<Ty> = f
                .params
                .iter()
                .map(|p| self.resolve_ty(&p.ty, false))
                .collect();
            let ret = match &f.ret {
                Some(t) => self.resolve_ty(t, true),
                None => Some(Type::Unit),
            };
            let name = &f.name.name;
            let slot = FuncSlot {
                name: name.to_string(),
                params,
                ret,
                item: Some(i),
                span: Some(f.name.span),
            };
            let new_idx = FuncIdx(self.funcs.len() as u32);
            if Builtin::from_name(name).is_some() {
                self.err(
                    Diagnostic::error(
                        format!(
                            "cannot define a function named `{name}`: it is a builtin function"
                        ),
                        f.name.span,
                    )
                    .with_label("builtin names are reserved"),
                );
                self.funcs.push(slot);
                self.fn_of_item.insert(i, new_idx);
                continue;
            }
            if self.host_by_name.contains_key(name.as_str()) {
                self.err(
                    Diagnostic::error(
                        format!("cannot define a function named `{name}`: it is a host function"),
                        f.name.span,
                    )
                    .with_label("host function names are reserved"),
                );
                self.funcs.push(slot);
                self.fn_of_item.insert(i, new_idx);
                continue;
            }
            match self.func_by_name.get(name.as_str()).copied() {
                Some(old)
                    if (old.0 as usize) < prelude_len
                        && self.funcs[old.0 as usize].item.is_none() =>
                {
                    let o = &self.funcs[old.0 as usize];
                    let same = o.params == slot.params && o.ret == slot.ret;
                    if self.repl && same {
                        self.funcs[old.0 as usize] = slot;
                        self.fn_of_item.insert(i, old);
                        continue;
                    }
                    let msg = if self.repl {
                        format!("cannot redefine `{name}` with a different signature")
                    } else {
                        format!("function `{name}` is already defined")
                    };
                    self.err(Diagnostic::error(msg, f.name.span));
                }
                Some(old) => {
                    let mut d = Diagnostic::error(
                        format!("function `{name}` is already defined"),
                        f.name.span,
                    )
                    .with_label("second definition");
                    if let Some(sp) = self.funcs[old.0 as usize].span {
                        d = d.with_secondary(sp, "first defined here");
                    }
                    self.err(d);
                }
                None => {
                    self.func_by_name.insert(name.to_string(), new_idx);
                }
            }
            self.funcs.push(slot);
            self.fn_of_item.insert(i, new_idx);
        }
    }

    /// Registers prelude globals, then every top-level `let`/`var`.
    pub fn collect_globals(&mut self, prelude: &Prelude) {
        for g in &prelude.globals {
            let idx = GlobalIdx(self.globals.len() as u32);
            self.globals.push(GlobalSlot {
                name: g.name.clone(),
                ty: Some(Some(g.ty)),
                mutable: g.mutable,
                span: None,
                init: None,
                in_progress: false,
                checked: true,
                redeclared_at: None,
            });
            self.global_by_name.insert(g.name.clone(), idx);
        }
        let module = self.module;
        for item in &module.items {
            let Item::Stmt(Stmt {
                kind:
                    StmtKind::Let {
                        mutable,
                        name,
                        ty,
                        init,
                        decl,
                    },
                ..
            }) = item
            else {
                continue;
            };
            let idx = GlobalIdx(self.globals.len() as u32);
            let written = ty.as_ref().map(|t| self.resolve_ty(t, false));
            match self.global_by_name.get(name.name.as_str()).copied() {
                Some(old)
                    if self.repl
                        && self.globals[old.0 as usize].span.is_none()
                        && self.globals[old.0 as usize].redeclared_at.is_none() =>
                {
                    // A REPL redeclaration keeps the one global (functions
                    // compiled earlier keep using it); the declared
                    // mutability applies from now on.
                    let slot = &mut self.globals[old.0 as usize];
                    slot.redeclared_at = Some(name.span);
                    slot.mutable = *mutable;
                    self.redeclarations.insert(
                        decl.0,
                        super::ctx::Redeclaration {
                            global: old,
                            written,
                            init,
                            name_span: name.span,
                        },
                    );
                    self.global_of_decl.insert(decl.0, old);
                    self.decls[decl.0 as usize] = Some(Var::Global(old));
                    continue;
                }
                Some(old) => {
                    let mut d = Diagnostic::error(
                        format!("`{}` is already declared in this scope", name.name),
                        name.span,
                    );
                    let slot = &self.globals[old.0 as usize];
                    if let Some(sp) = slot.span.or(slot.redeclared_at) {
                        d = d.with_secondary(sp, "first declared here");
                    }
                    self.err(d);
                }
                None => {
                    self.global_by_name.insert(name.name.to_string(), idx);
                }
            }
            self.globals.push(GlobalSlot {
                name: name.name.to_string(),
                ty: written,
                mutable: *mutable,
                span: Some(name.span),
                init: Some(init),
                in_progress: false,
                checked: false,
                redeclared_at: None,
            });
            self.global_of_decl.insert(decl.0, idx);
            self.decls[decl.0 as usize] = Some(Var::Global(idx));
        }
    }

    /// Resolves a reference to global `g` at `at`: its (possibly lazily
    /// inferred) type.
    pub fn global_ref(&mut self, g: GlobalIdx, at: Span) -> (GlobalIdx, Ty) {
        let slot = &self.globals[g.0 as usize];
        if slot.in_progress {
            if let Some(t) = slot.ty {
                return (g, t);
            }
            let name = slot.name.clone();
            let mut d = Diagnostic::error(
                format!(
                    "cannot infer the type of global `{name}`: its initializer depends on itself"
                ),
                at,
            )
            .with_label("cyclic reference")
            .with_note(format!(
                "write the type explicitly, e.g. `var {name}: int = ...;`"
            ));
            if let Some(sp) = slot.span {
                d = d.with_secondary(sp, "global declared here");
            }
            self.err(d);
            self.globals[g.0 as usize].ty = Some(None);
            return (g, None);
        }
        if slot.ty.is_none() {
            self.check_global_init(g);
        }
        (g, self.globals[g.0 as usize].ty.flatten())
    }

    /// Checks a module global's initializer (once) in the top-level context.
    pub fn check_global_init(&mut self, g: GlobalIdx) {
        let slot = &self.globals[g.0 as usize];
        if slot.checked || slot.in_progress {
            return;
        }
        let Some(init) = slot.init else {
            return;
        };
        let annotated = slot.ty;
        self.globals[g.0 as usize].in_progress = true;
        let saved = std::mem::take(&mut self.body);
        let hint = annotated.flatten();
        let skip = annotated == Some(None) && super::expr::needs_context(init);
        let found = if skip { None } else { self.value(init, hint) };
        let ty = match annotated {
            Some(t) => {
                self.coerce(found, t, init.span);
                t
            }
            None => found,
        };
        self.body = saved;
        let slot = &mut self.globals[g.0 as usize];
        slot.in_progress = false;
        slot.checked = true;
        if slot.ty.is_none() {
            slot.ty = Some(ty);
        }
    }

    /// A REPL redeclaration of a prelude global: its initializer (which
    /// still sees the old value) must have the global's type.
    fn check_redeclaration(&mut self, r: super::ctx::Redeclaration<'m>) {
        let old = self.globals[r.global.0 as usize].ty.flatten();
        let saved = std::mem::take(&mut self.body);
        let hint = r.written.flatten().or(old);
        let found = if hint.is_none() && super::expr::needs_context(r.init) {
            None
        } else {
            self.value(r.init, hint)
        };
        self.body = saved;
        let declared = match r.written {
            Some(w) => {
                self.coerce(found, w, r.init.span);
                w
            }
            None => found,
        };
        if let (Some(old), Some(new)) = (old, declared) {
            if old != new {
                let name = &self.globals[r.global.0 as usize].name;
                self.err(
                    Diagnostic::error(
                        format!(
                            "global `{name}` already has type `{old}`: it cannot be redeclared with type `{new}`"
                        ),
                        r.name_span,
                    )
                    .with_label(format!("redeclared here with type `{new}`"))
                    .with_note(
                        "redeclaring a global keeps the one variable, so its type cannot change; choose another name",
                    ),
                );
            }
        }
    }

    /// A top-level statement: a direct `let`/`var` declares a global.
    pub fn top_stmt(&mut self, s: &'m Stmt) {
        if let StmtKind::Let { decl, .. } = &s.kind {
            if let Some(&r) = self.redeclarations.get(&decl.0) {
                self.check_redeclaration(r);
                return;
            }
            if let Some(&g) = self.global_of_decl.get(&decl.0) {
                self.check_global_init(g);
                return;
            }
        }
        self.stmt(s);
    }

    /// Checks a function body against its signature.
    pub fn check_fn(&mut self, item: usize, f: &'m FnDecl) {
        let Some(&idx) = self.fn_of_item.get(&item) else {
            return;
        };
        let slot = self.funcs[idx.0 as usize].clone();
        self.body = BodyCtx {
            scopes: vec![Default::default()],
            ret: Some(slot.ret),
            fn_name: f.name.name.to_string(),
            loops: 0,
        };
        for (p, ty) in f.params.iter().zip(slot.params.iter()) {
            let l = self.declare(&p.name, *ty, BindKind::Param);
            self.decls[p.decl.0 as usize] = Some(Var::Local(l));
        }
        self.block(&f.body);
        if matches!(slot.ret, Some(t) if t != Type::Unit) && !super::returns::block_returns(&f.body)
        {
            let name = &f.name.name;
            self.err(
                Diagnostic::error(
                    format!("function `{name}` must return a value on every path"),
                    f.name.span,
                )
                .with_secondary(
                    end_of(f.body.span),
                    "control can reach the end of the body here",
                )
                .with_note(
                    "a `for` loop or a `while` loop other than `while true` may run zero times",
                ),
            );
        }
        self.body = BodyCtx::default();
    }
}

/// The last byte of a span (the closing `}` of a block).
fn end_of(s: Span) -> Span {
    Span {
        file: s.file,
        start: s.end.saturating_sub(1).max(s.start),
        end: s.end,
    }
}
