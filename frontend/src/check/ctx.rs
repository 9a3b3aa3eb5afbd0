//! Checker state, written-type resolution, diagnostics helpers and the
//! assembly of the final [`Typed`] tables.

use super::{Callee, FuncIdx, FuncInfo, GlobalIdx, GlobalInfo, LocalInfo, Typed, Var};
use crate::ast::{Expr, ExprId, Item, Module, Name, Span, TypeExpr, TypeExprKind};
use crate::diag::Diagnostic;
use crate::Prelude;
use rustc_hash::FxHashMap;
use waddle_opt::ir::Type;

/// A type during checking: `None` is the error type (already reported),
/// which is compatible with everything so errors do not cascade.
pub(crate) type Ty = Option<Type>;

/// What kind of binding a local is (for mutability messages).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum BindKind {
    /// `let`
    Let,
    /// `var`
    Var,
    /// A function parameter.
    Param,
    /// A `for` loop variable.
    ForVar,
}

/// A local variable during checking.
#[derive(Clone, Debug)]
pub(crate) struct LocalSlot<'m> {
    /// Its name, borrowed from the module.
    pub name: &'m Name,
    pub ty: Ty,
    pub kind: BindKind,
    pub span: Span,
}

/// A global during checking, with the state of its lazy type inference.
#[derive(Clone, Debug)]
pub(crate) struct GlobalSlot<'m> {
    pub name: String,
    /// Known type: `None` while not yet inferred, `Some(None)` after an error.
    pub ty: Option<Ty>,
    pub mutable: bool,
    /// Declaration site (`None` for prelude globals).
    pub span: Option<Span>,
    /// Initializer of a module global.
    pub init: Option<&'m Expr>,
    /// The initializer is being checked right now.
    pub in_progress: bool,
    /// The initializer was checked.
    pub checked: bool,
    /// For a prelude global: where this REPL entry redeclares it (the
    /// redeclaration assigns the one existing global).
    pub redeclared_at: Option<Span>,
}

/// A REPL entry's `let`/`var` of a name that an earlier entry declared as a
/// global: it keeps that one global (same type required) and assigns it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Redeclaration<'m> {
    /// The prelude global.
    pub global: GlobalIdx,
    /// The written type, if any (`Some(None)` when it did not resolve).
    pub written: Option<Ty>,
    /// The initializer.
    pub init: &'m Expr,
    /// The declared name.
    pub name_span: Span,
}

/// A function during checking.
#[derive(Clone, Debug)]
pub(crate) struct FuncSlot {
    pub name: String,
    pub params: Vec<Ty>,
    pub ret: Ty,
    pub item: Option<usize>,
    pub span: Option<Span>,
}

/// The per-body context: lexical scopes, result type, loop nesting.
#[derive(Default)]
pub(crate) struct BodyCtx {
    /// Innermost scope last; empty for top-level code outside blocks.
    pub scopes: Vec<super::scope::Scope>,
    /// Result type of the enclosing function; `None` for top-level code.
    pub ret: Option<Ty>,
    /// Name of the enclosing function.
    pub fn_name: String,
    /// Number of enclosing loops.
    pub loops: u32,
}

/// The type checker.
pub(crate) struct Checker<'m> {
    pub module: &'m Module,
    pub repl: bool,
    pub diags: Vec<Diagnostic>,
    pub expr_types: Vec<Ty>,
    pub names: Vec<Option<Var>>,
    pub calls: Vec<Option<Callee>>,
    pub decls: Vec<Option<Var>>,
    pub funcs: Vec<FuncSlot>,
    pub func_by_name: FxHashMap<String, FuncIdx>,
    pub hosts: Vec<super::HostFnInfo>,
    pub host_by_name: FxHashMap<String, u32>,
    pub externs: Vec<super::ExternInfo>,
    pub fn_of_item: FxHashMap<usize, FuncIdx>,
    pub globals: Vec<GlobalSlot<'m>>,
    pub global_by_name: FxHashMap<String, GlobalIdx>,
    /// Global introduced by each top-level `let`/`var` declaration id.
    pub global_of_decl: FxHashMap<u32, GlobalIdx>,
    /// REPL redeclarations of prelude globals, by declaration id.
    pub redeclarations: FxHashMap<u32, Redeclaration<'m>>,
    pub locals: Vec<LocalSlot<'m>>,
    pub body: BodyCtx,
}

impl<'m> Checker<'m> {
    /// Checks a module; see [`super::check`].
    pub fn run(
        module: &'m Module,
        prelude: &Prelude,
        repl: bool,
        allow_ffi: bool,
    ) -> Result<Typed, Vec<Diagnostic>> {
        let n = module.expr_count as usize;
        let mut c = Checker {
            module,
            repl,
            diags: Vec::new(),
            expr_types: vec![None; n],
            names: vec![None; n],
            calls: vec![None; n],
            decls: vec![None; module.decl_count as usize],
            funcs: Vec::new(),
            func_by_name: FxHashMap::default(),
            hosts: Vec::new(),
            host_by_name: FxHashMap::default(),
            externs: Vec::new(),
            fn_of_item: FxHashMap::default(),
            globals: Vec::new(),
            global_by_name: FxHashMap::default(),
            global_of_decl: FxHashMap::default(),
            redeclarations: FxHashMap::default(),
            locals: Vec::new(),
            body: BodyCtx::default(),
        };
        c.collect_functions(prelude);
        c.collect_externs(allow_ffi);
        c.collect_globals(prelude);
        for (i, item) in module.items.iter().enumerate() {
            match item {
                Item::Fn(f) => c.check_fn(i, f),
                Item::Stmt(s) => c.top_stmt(s),
                Item::Extern(_) => {}
            }
        }
        c.finish()
    }

    fn finish(mut self) -> Result<Typed, Vec<Diagnostic>> {
        if !self.diags.is_empty() {
            self.diags
                .sort_by_key(|d| (d.span.file.0, d.span.start, d.span.end));
            return Err(self.diags);
        }
        let unit = |t: Ty| t.unwrap_or(Type::Unit);
        Ok(Typed {
            expr_types: self.expr_types.into_iter().map(unit).collect(),
            names: self.names,
            calls: self.calls,
            decls: self.decls,
            funcs: self
                .funcs
                .into_iter()
                .map(|f| FuncInfo {
                    name: f.name,
                    sig: waddle_opt::ir::Signature {
                        params: f.params.into_iter().map(unit).collect(),
                        ret: unit(f.ret),
                    },
                    item: f.item,
                })
                .collect(),
            host_fns: self.hosts,
            externs: self.externs,
            globals: self
                .globals
                .into_iter()
                .map(|g| GlobalInfo {
                    name: g.name,
                    ty: unit(g.ty.flatten()),
                    mutable: g.mutable,
                })
                .collect(),
            locals: self
                .locals
                .into_iter()
                .map(|l| LocalInfo {
                    name_span: l.span,
                    ty: unit(l.ty),
                    mutable: l.kind == BindKind::Var,
                })
                .collect(),
        })
    }

    /// Records an error.
    pub fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Records the type of an expression and returns it.
    pub fn set_ty(&mut self, id: ExprId, t: Ty) -> Ty {
        if let Some(slot) = self.expr_types.get_mut(id.0 as usize) {
            *slot = t;
        }
        t
    }

    /// Reports a mismatch unless `found` is `want` (or either is an error).
    /// Returns whether the types are compatible.
    pub fn coerce(&mut self, found: Ty, want: Ty, span: Span) -> bool {
        match (found, want) {
            (Some(f), Some(w)) if f != w => {
                self.err(mismatch(w, f, span));
                false
            }
            _ => true,
        }
    }

    /// Resolves a written type. `void` is only accepted when `allow_void`
    /// (a function's result type).
    pub fn resolve_ty(&mut self, t: &TypeExpr, allow_void: bool) -> Ty {
        let mut depth = 0usize;
        let mut cur = t;
        while let TypeExprKind::Array(inner) = &cur.kind {
            depth += 1;
            cur = inner;
        }
        let base = match cur.kind {
            TypeExprKind::Int => Type::Int,
            TypeExprKind::Float => Type::Float,
            TypeExprKind::Bool => Type::Bool,
            TypeExprKind::Str => Type::Str,
            TypeExprKind::Void if depth == 0 && allow_void => return Some(Type::Unit),
            TypeExprKind::Void => {
                let msg = if depth > 0 {
                    "arrays of `void` are not allowed: `void` is not a value"
                } else {
                    "`void` is not a value type: only a function's result type may be `void`"
                };
                self.err(Diagnostic::error(msg, cur.span));
                return None;
            }
            TypeExprKind::Array(_) => return None,
        };
        let mut ty = base;
        for _ in 0..depth {
            match ty.array_of() {
                Some(t2) => ty = t2,
                None => {
                    self.err(Diagnostic::error(
                        format!(
                            "array type is nested too deeply (at most {} levels)",
                            Type::MAX_ARRAY_DEPTH
                        ),
                        t.span,
                    ));
                    return None;
                }
            }
        }
        Some(ty)
    }
}

/// "mismatched types: expected `want`, found `found`".
pub(crate) fn mismatch(want: Type, found: Type, span: Span) -> Diagnostic {
    Diagnostic::error(
        format!("mismatched types: expected `{want}`, found `{found}`"),
        span,
    )
    .with_label(format!("expected `{want}`"))
}
