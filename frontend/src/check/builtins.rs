//! The built-in functions and their overloads (docs/language.md "Built-in
//! functions", detail #9).

use super::ctx::{Checker, Ty};
use crate::ast::Expr;
use crate::diag::Diagnostic;
use crate::Builtin;
use waddle_opt::ir::Type;

/// Number of arguments of a builtin.
fn arity(b: Builtin) -> usize {
    match b {
        Builtin::Clock => 0,
        Builtin::Push | Builtin::Min | Builtin::Max => 2,
        _ => 1,
    }
}

/// The result type of a builtin when it does not depend on the arguments.
fn fixed_result(b: Builtin) -> Ty {
    match b {
        Builtin::Print | Builtin::Push | Builtin::Assert => Some(Type::Unit),
        Builtin::Len | Builtin::Int => Some(Type::Int),
        Builtin::Str => Some(Type::Str),
        Builtin::Pop | Builtin::Abs | Builtin::Min | Builtin::Max => None,
        _ => Some(Type::Float),
    }
}

impl<'m> Checker<'m> {
    /// Checks a builtin call and returns its result type.
    pub fn builtin(&mut self, b: Builtin, e: &'m Expr, args: &'m [Expr]) -> Ty {
        let name = b.name();
        if !self.check_arity(name, arity(b), e, args) {
            for a in args {
                if !super::expr::needs_context(a) {
                    self.expr(a, None);
                }
            }
            return fixed_result(b);
        }
        match b {
            Builtin::Print | Builtin::Str => {
                self.value(&args[0], None);
                fixed_result(b)
            }
            Builtin::Len => {
                let t = self.value(&args[0], None);
                if let Some(t) = t.filter(|t| !t.is_array() && *t != Type::Str) {
                    self.bad_arg(name, "an array or a `str`", t, &args[0]);
                }
                Some(Type::Int)
            }
            Builtin::Push => {
                let at = self.value(&args[0], None);
                let elem = match at {
                    Some(t) if t.is_array() => t.element(),
                    Some(t) => {
                        self.bad_arg(name, "an array", t, &args[0]);
                        None
                    }
                    None => None,
                };
                let xt = if elem.is_none() && super::expr::needs_context(&args[1]) {
                    None
                } else {
                    self.value(&args[1], elem)
                };
                self.coerce(xt, elem, args[1].span);
                Some(Type::Unit)
            }
            Builtin::Pop => match self.value(&args[0], None) {
                Some(t) if t.is_array() => t.element(),
                Some(t) => {
                    self.bad_arg(name, "an array", t, &args[0]);
                    None
                }
                None => None,
            },
            Builtin::Float => {
                self.exact_arg(name, Type::Int, &args[0]);
                Some(Type::Float)
            }
            Builtin::Int => {
                self.exact_arg(name, Type::Float, &args[0]);
                Some(Type::Int)
            }
            Builtin::Assert => {
                self.exact_arg(name, Type::Bool, &args[0]);
                Some(Type::Unit)
            }
            Builtin::Clock => Some(Type::Float),
            Builtin::Abs => match self.value(&args[0], None) {
                Some(t @ (Type::Int | Type::Float)) => Some(t),
                Some(t) => {
                    self.bad_arg(name, "an `int` or a `float`", t, &args[0]);
                    None
                }
                None => None,
            },
            Builtin::Min | Builtin::Max => {
                let a = self.value(&args[0], None);
                let bt = self.value(&args[1], a);
                match a {
                    Some(Type::Int | Type::Float) => {
                        self.coerce(bt, a, args[1].span).then_some(a).flatten()
                    }
                    Some(t) => {
                        self.bad_arg(name, "an `int` or a `float`", t, &args[0]);
                        None
                    }
                    None => None,
                }
            }
            Builtin::Sqrt
            | Builtin::Sin
            | Builtin::Cos
            | Builtin::Tan
            | Builtin::Exp
            | Builtin::Log
            | Builtin::Floor
            | Builtin::Ceil => {
                self.exact_arg(name, Type::Float, &args[0]);
                Some(Type::Float)
            }
        }
    }

    fn exact_arg(&mut self, name: &str, want: Type, arg: &'m Expr) {
        let t = self.value(arg, Some(want));
        if let Some(t) = t.filter(|&t| t != want) {
            let mut d = Diagnostic::error(
                format!("mismatched types: expected `{want}`, found `{t}`"),
                arg.span,
            )
            .with_label(format!("`{name}` takes a `{want}`"));
            if name == "int" || name == "float" {
                d = d.with_note(
                    "`int(x)` converts a `float` to `int`; `float(x)` converts an `int` to `float`",
                );
            }
            self.err(d);
        }
    }

    fn bad_arg(&mut self, name: &str, want: &str, found: Type, arg: &Expr) {
        self.err(
            Diagnostic::error(
                format!("`{name}` expects {want}, found `{found}`"),
                arg.span,
            )
            .with_label(format!("this has type `{found}`")),
        );
    }
}
