//! Name resolution and static type checking (docs/language.md, all rules).
//!
//! The checker walks a [`Module`] and produces [`Typed`]: the type of every
//! expression, what every name and call refers to, and the functions,
//! globals and locals of the program. Lowering reads only these tables and
//! the AST, so it never repeats a scoping or overloading decision.
//!
//! Submodules: `ctx` (checker state, written types, result assembly),
//! `items` (function signatures, globals and their lazy, cycle-checked
//! inference), `scope` (lexical scopes), `stmt`, `expr`, `builtins` (the
//! overloads of the built-in functions) and `returns` ("returns on every
//! path", docs/language.md "Statements", returning on every path).

mod builtins;
pub(crate) mod ctx;
mod expr;
mod externs;
mod items;
mod returns;
mod scope;
mod stmt;
#[cfg(test)]
mod tests;

use crate::ast::{DeclId, ExprId, Module, Span};
use crate::diag::Diagnostic;
use crate::{Builtin, Prelude};
use waddle_opt::ir::{Signature, Type};

/// Index of a function in [`Typed::funcs`].
///
/// Prelude functions come first (same order as [`Prelude::functions`]),
/// then the module's `fn` items in source order. A module function that
/// redefines a prelude function (REPL mode) takes the prelude's index.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct FuncIdx(pub u32);

/// Index of a global in [`Typed::globals`]: prelude globals first, then the
/// module's top-level `let`/`var` in source order.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct GlobalIdx(pub u32);

/// Index of a local variable in [`Typed::locals`] (parameters, locals, `for`
/// variables of every function and of the top-level code).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct LocalIdx(pub u32);

/// What a variable name refers to.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Var {
    /// A local (or parameter, or `for` variable).
    Local(LocalIdx),
    /// A global.
    Global(GlobalIdx),
}

/// What a call refers to.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Callee {
    /// A user function.
    Func(FuncIdx),
    /// A builtin; its overload follows from the argument types in [`Typed::expr_types`].
    Builtin(Builtin),
    /// A host function: its index in [`Typed::host_fns`] (the IR's `HostFnId`).
    Host(u32),
}

/// An `extern` declaration: the host function it defines and where its
/// code comes from (resolved by the runtime when it loads the program).
#[derive(Clone, PartialEq, Debug)]
pub struct ExternInfo {
    /// Index in [`Typed::host_fns`].
    pub host: u32,
    /// The library as written.
    pub lib: String,
    /// The symbol (the declared name).
    pub symbol: String,
    /// The declaration, for errors while resolving it.
    pub span: Span,
}

/// A host function known to the checker: from the prelude (registered by
/// the embedder) or declared by an `extern` item of this module.
#[derive(Clone, PartialEq, Debug)]
pub struct HostFnInfo {
    /// Name scripts call it by.
    pub name: String,
    /// Parameter and result types.
    pub sig: Signature,
}

/// A function known to the checker.
#[derive(Clone, PartialEq, Debug)]
pub struct FuncInfo {
    /// Name.
    pub name: String,
    /// Parameter and result types.
    pub sig: Signature,
    /// Index of its `Item::Fn` in `Module::items`, `None` for a prelude
    /// function not redefined by this module.
    pub item: Option<usize>,
}

/// A global known to the checker.
#[derive(Clone, PartialEq, Debug)]
pub struct GlobalInfo {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: Type,
    /// `true` for `var`.
    pub mutable: bool,
}

/// A local variable.
#[derive(Clone, PartialEq, Debug)]
pub struct LocalInfo {
    /// Where its name is declared (the name is the source text there; not
    /// copied, as a program may declare millions of locals).
    pub name_span: Span,
    /// Type.
    pub ty: Type,
    /// `true` for `var`.
    pub mutable: bool,
}

/// Everything the checker learned about a well-typed module.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Typed {
    /// Type of every expression, indexed by [`ExprId`]. `Type::Unit` for
    /// calls of `void` functions and builtins.
    pub expr_types: Vec<Type>,
    /// For every `ExprKind::Name` (also as an assignment target): what it names.
    /// Indexed by [`ExprId`]; `None` for other expressions.
    pub names: Vec<Option<Var>>,
    /// For every `ExprKind::Call`: its callee. Indexed by [`ExprId`].
    pub calls: Vec<Option<Callee>>,
    /// For every declaration ([`DeclId`]): the variable it introduces
    /// (top-level `let`/`var` outside blocks are globals, all others locals).
    pub decls: Vec<Option<Var>>,
    /// All functions.
    pub funcs: Vec<FuncInfo>,
    /// All host functions, prelude ones first, in `HostFnId` order.
    pub host_fns: Vec<HostFnInfo>,
    /// The module's `extern` declarations, in order.
    pub externs: Vec<ExternInfo>,
    /// All globals.
    pub globals: Vec<GlobalInfo>,
    /// All locals.
    pub locals: Vec<LocalInfo>,
}

impl Typed {
    /// Type of an expression.
    pub fn ty(&self, e: ExprId) -> Type {
        self.expr_types[e.0 as usize]
    }

    /// What a name expression refers to.
    pub fn var(&self, e: ExprId) -> Var {
        self.names[e.0 as usize].expect("name expression resolved by the checker")
    }

    /// What a call expression calls.
    pub fn callee(&self, e: ExprId) -> Callee {
        self.calls[e.0 as usize].expect("call resolved by the checker")
    }

    /// The variable a declaration introduces.
    pub fn decl(&self, d: DeclId) -> Var {
        self.decls[d.0 as usize].expect("declaration resolved by the checker")
    }
}

/// Checks `module` against `prelude`. Returns the tables, or every
/// independent error found (never stops at the first), sorted by position.
pub fn check(module: &Module, prelude: &Prelude, repl: bool) -> Result<Typed, Vec<Diagnostic>> {
    ctx::Checker::run(module, prelude, repl, false)
}

/// [`check`] with `extern` declarations allowed when `allow_ffi` is set.
pub fn check_with_ffi(
    module: &Module,
    prelude: &Prelude,
    repl: bool,
    allow_ffi: bool,
) -> Result<Typed, Vec<Diagnostic>> {
    ctx::Checker::run(module, prelude, repl, allow_ffi)
}

/// Source spelling of a binary operator (e.g. `<<`), for messages and dumps.
pub fn expr_op_text(op: crate::ast::BinOp) -> &'static str {
    expr::op_text(op)
}
