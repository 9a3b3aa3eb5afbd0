//! The abstract syntax tree, with spans, produced by the parser.
//!
//! Every expression carries an [`ExprId`] and every binding declaration a
//! [`DeclId`], dense per compilation, so that the checker's results
//! ([`crate::check::Typed`]) are plain vectors indexed by them.

pub use crate::name::Name;
pub use waddle_opt::ir::Type;

/// A source file of a compilation (index into [`crate::SourceMap`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one source file.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The smallest span covering both (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// Dense id of an expression node within one compilation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct ExprId(pub u32);

/// Dense id of a binding declaration (`let`, `var`, `for` variable,
/// function parameter) within one compilation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct DeclId(pub u32);

/// A name with its span.
#[derive(Clone, PartialEq, Debug)]
pub struct Ident {
    /// The identifier text.
    pub name: Name,
    /// Where it is written.
    pub span: Span,
}

/// A parsed program (all items of all files, in order).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Module {
    /// Items in source order.
    pub items: Vec<Item>,
    /// Number of expression ids handed out (`ExprId(0..expr_count)`).
    pub expr_count: u32,
    /// Number of declaration ids handed out.
    pub decl_count: u32,
}

/// A top-level item.
#[derive(Clone, PartialEq, Debug)]
pub enum Item {
    /// `fn name(params) -> ret { body }`
    Fn(FnDecl),
    /// A top-level statement (part of the program's body).
    Stmt(Stmt),
    /// `extern "library" fn name(params) -> ret;` (FFI, opt-in).
    Extern(ExternFn),
}

/// A C function declared with `extern` (docs/language.md, "Extension: FFI").
#[derive(Clone, PartialEq, Debug)]
pub struct ExternFn {
    /// The shared library to load it from, as written (`"libm.so.6"`).
    pub lib: String,
    /// The library string's span.
    pub lib_span: Span,
    /// Function (and symbol) name.
    pub name: Ident,
    /// Parameters (names are documentation only).
    pub params: Vec<Param>,
    /// Written result type; `None` means `void`.
    pub ret: Option<TypeExpr>,
    /// The whole declaration.
    pub span: Span,
}

/// A function declaration.
#[derive(Clone, PartialEq, Debug)]
pub struct FnDecl {
    /// Function name.
    pub name: Ident,
    /// Parameters.
    pub params: Vec<Param>,
    /// Written result type; `None` means `void`.
    pub ret: Option<TypeExpr>,
    /// The body.
    pub body: Block,
    /// The whole declaration.
    pub span: Span,
}

/// A function parameter (an immutable binding).
#[derive(Clone, PartialEq, Debug)]
pub struct Param {
    /// Parameter name.
    pub name: Ident,
    /// Its type.
    pub ty: TypeExpr,
    /// Declaration id of the binding.
    pub decl: DeclId,
}

/// A written type.
#[derive(Clone, PartialEq, Debug)]
pub struct TypeExpr {
    /// What was written.
    pub kind: TypeExprKind,
    /// Where.
    pub span: Span,
}

/// The forms of a written type.
#[derive(Clone, PartialEq, Debug)]
pub enum TypeExprKind {
    /// `int`
    Int,
    /// `float`
    Float,
    /// `bool`
    Bool,
    /// `str`
    Str,
    /// `void`
    Void,
    /// `[T]`
    Array(Box<TypeExpr>),
}

/// A `{ ... }` block.
#[derive(Clone, PartialEq, Debug)]
pub struct Block {
    /// Statements in order.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement.
#[derive(Clone, PartialEq, Debug)]
pub struct Stmt {
    /// What kind.
    pub kind: StmtKind,
    /// The whole statement.
    pub span: Span,
}

/// One `else if cond { ... }` arm of an `if` statement. A chain of them is
/// a list, not a nesting, so its length is not bounded by the nesting limit
/// and no compiler phase recurses along it.
#[derive(Clone, PartialEq, Debug)]
pub struct ElseIf {
    /// The arm's condition.
    pub cond: Expr,
    /// The arm's block.
    pub block: Block,
    /// From the arm's `if` to the end of its block.
    pub span: Span,
}

/// The `else if` arms of an `if`, in source order. One pointer wide and
/// no allocation without arms, so an `if` keeps `Stmt` at its size; reads
/// as a slice.
#[derive(Clone, PartialEq, Debug, Default)]
// The box is the point: a thin pointer instead of a 24-byte `Vec` in every
// `if` (`syntax_tree_nodes_stay_small`).
#[allow(clippy::box_collection)]
pub struct ElseIfs(Option<Box<Vec<ElseIf>>>);

impl ElseIfs {
    /// Appends an arm.
    pub fn push(&mut self, arm: ElseIf) {
        self.0.get_or_insert_with(Box::default).push(arm);
    }
}

impl std::ops::Deref for ElseIfs {
    type Target = [ElseIf];

    fn deref(&self) -> &[ElseIf] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

/// Assignment operators: `=` is `None`, `op=` is `Some(op)`.
pub type AssignOp = Option<BinOp>;

/// Statement forms.
#[derive(Clone, PartialEq, Debug)]
pub enum StmtKind {
    /// `let`/`var NAME (: TYPE)? = EXPR;`
    Let {
        /// `true` for `var`.
        mutable: bool,
        /// The bound name.
        name: Ident,
        /// Written type, if any.
        ty: Option<TypeExpr>,
        /// Initializer.
        init: Expr,
        /// Declaration id.
        decl: DeclId,
    },
    /// `PLACE = EXPR;` or `PLACE op= EXPR;` (`PLACE` is a `Name` or `Index`).
    Assign {
        /// The place assigned.
        target: Expr,
        /// `None` for `=`.
        op: AssignOp,
        /// Span of the operator token (`/=` errors point here).
        op_span: Span,
        /// Right-hand side.
        value: Expr,
    },
    /// `if cond { } else if cond { } ... else { }`
    If {
        /// Condition.
        cond: Expr,
        /// Then block.
        then_block: Block,
        /// The `else if` arms, in source order.
        else_ifs: ElseIfs,
        /// The final `else` block.
        else_block: Option<Block>,
    },
    /// `while cond { }`
    While {
        /// Condition.
        cond: Expr,
        /// Body.
        body: Block,
    },
    /// `for var in lo..hi { }` (boxed: the largest form, it would make
    /// every statement node 50 bytes larger).
    For(Box<ForLoop>),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return;` / `return EXPR;`
    Return(Option<Expr>),
    /// `EXPR;` — `semi` is false only for a REPL entry's final bare expression.
    Expr {
        /// The expression.
        expr: Expr,
        /// Whether a `;` followed.
        semi: bool,
    },
    /// A nested `{ ... }`.
    Block(Block),
    /// A lone `;`.
    Empty,
}

/// An expression.
#[derive(Clone, PartialEq, Debug)]
pub struct Expr {
    /// Dense id for the checker's tables.
    pub id: ExprId,
    /// What kind.
    pub kind: ExprKind,
    /// The whole expression.
    pub span: Span,
}

impl Drop for Expr {
    /// Takes a binary expression's left spine apart iteratively: the
    /// derived drop would recurse once per operand of a flat chain such as
    /// `1 + 1 + ... + 1`, which may be arbitrarily long.
    fn drop(&mut self) {
        fn take_lhs(e: &mut Expr) -> Option<Expr> {
            match &mut e.kind {
                ExprKind::Binary { lhs, .. } => {
                    let (id, span) = (lhs.id, lhs.span);
                    Some(std::mem::replace(
                        &mut **lhs,
                        Expr {
                            id,
                            kind: ExprKind::Error,
                            span,
                        },
                    ))
                }
                _ => None,
            }
        }
        let mut next = take_lhs(self);
        while let Some(mut e) = next {
            next = take_lhs(&mut e);
        }
    }
}

/// A call's callee and arguments ([`ExprKind::Call`]).
#[derive(Clone, PartialEq, Debug)]
pub struct Call {
    /// The called name (runtime errors of `pop`/`assert`/overflow point here).
    pub callee: Ident,
    /// Arguments.
    pub args: Vec<Expr>,
}

/// Unary operators.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum UnOp {
    /// `-`
    Neg,
    /// `!`
    Not,
}

/// Binary operators (including the short-circuit ones).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum BinOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

/// A `for` loop ([`StmtKind::For`]).
#[derive(Clone, PartialEq, Debug)]
pub struct ForLoop {
    /// Loop variable (immutable int).
    pub var: Ident,
    /// Its declaration id.
    pub decl: DeclId,
    /// Lower bound (inclusive), evaluated first.
    pub lo: Expr,
    /// Upper bound (exclusive), evaluated second.
    pub hi: Expr,
    /// Body.
    pub body: Block,
}

/// Expression forms.
#[derive(Clone, PartialEq, Debug)]
pub enum ExprKind {
    /// Integer literal (already range-checked by the lexer/parser).
    Int(i64),
    /// Float literal.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// String literal, escapes decoded.
    Str(String),
    /// A variable reference.
    Name(Ident),
    /// `op operand`
    Unary {
        /// Operator.
        op: UnOp,
        /// Operand.
        operand: Box<Expr>,
    },
    /// `lhs op rhs`
    Binary {
        /// Operator.
        op: BinOp,
        /// Span of the operator token (division errors point here).
        op_span: Span,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `callee(args)`: a user function or a builtin (boxed: the largest
    /// form, it would make every expression node 16 bytes larger).
    Call(Box<Call>),
    /// `base[index]`
    Index {
        /// The array.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
        /// Span of the `[` (bounds errors point here).
        bracket: Span,
    },
    /// `[e1, e2, ...]`
    ArrayLit(Vec<Expr>),
    /// `[value; count]`
    ArrayRepeat {
        /// Element value (evaluated once, first).
        value: Box<Expr>,
        /// Count (evaluated second).
        count: Box<Expr>,
        /// Span of the `[` (negative-length errors point here).
        bracket: Span,
    },
    /// Placeholder produced by error recovery; never reaches lowering.
    Error,
}

#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use super::*;

    /// The node sizes the generated million-statement programs were
    /// measured with: a statement's tree was ~700 bytes in allocations
    /// before (`Expr` 80 bytes, `Stmt` 264, a `String` per identifier).
    #[test]
    fn syntax_tree_nodes_stay_small() {
        assert!(std::mem::size_of::<Expr>() <= 56);
        assert!(std::mem::size_of::<Stmt>() <= 160);
        assert!(std::mem::size_of::<Ident>() <= 40);
    }
}
