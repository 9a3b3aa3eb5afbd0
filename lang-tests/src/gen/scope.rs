//! What the generator knows is in scope: variables (with shadowing) and
//! the functions generated so far.

use super::Ty;

/// A variable in scope.
#[derive(Clone, Debug)]
pub(crate) struct Var {
    pub(crate) name: String,
    pub(crate) ty: Ty,
    /// `var` (assignable) rather than `let`, a parameter or a `for` variable.
    pub(crate) mutable: bool,
    /// Not to be assigned by random statements (a `while` counter).
    pub(crate) pinned: bool,
    /// Temporarily invisible (a global whose declaration is being written).
    pub(crate) hidden: bool,
}

/// Nested scopes; frame 0 holds the globals.
#[derive(Default, Debug)]
pub(crate) struct Scope {
    frames: Vec<Vec<Var>>,
}

impl Scope {
    /// Declares a global.
    pub(crate) fn declare_global(&mut self, name: &str, ty: Ty, mutable: bool) {
        if self.frames.is_empty() {
            self.frames.push(Vec::new());
        }
        self.frames[0].push(Var {
            name: name.to_string(),
            ty,
            mutable,
            pinned: false,
            hidden: false,
        });
    }

    /// Hides or shows the global `name`.
    pub(crate) fn set_hidden(&mut self, name: &str, hidden: bool) {
        if let Some(v) = self
            .frames
            .first_mut()
            .and_then(|f| f.iter_mut().find(|v| v.name == name))
        {
            v.hidden = hidden;
        }
    }

    /// Opens a scope.
    pub(crate) fn push(&mut self) {
        if self.frames.is_empty() {
            self.frames.push(Vec::new());
        }
        self.frames.push(Vec::new());
    }

    /// Closes the innermost scope.
    pub(crate) fn pop(&mut self) {
        if self.frames.len() > 1 {
            self.frames.pop();
        }
    }

    /// Declares a variable in the innermost scope.
    pub(crate) fn declare(&mut self, name: &str, ty: Ty, mutable: bool, pinned: bool) {
        if self.frames.is_empty() {
            self.frames.push(Vec::new());
        }
        let frame = self.frames.last_mut().expect("a frame");
        frame.push(Var {
            name: name.to_string(),
            ty,
            mutable,
            pinned,
            hidden: false,
        });
    }

    /// Every visible variable (the innermost binding of each name).
    pub(crate) fn visible(&self) -> Vec<&Var> {
        let mut out: Vec<&Var> = Vec::new();
        for frame in self.frames.iter().rev() {
            for v in frame.iter().rev() {
                if !out.iter().any(|o| o.name == v.name) {
                    out.push(v);
                }
            }
        }
        out.retain(|v| !v.hidden);
        out
    }

    /// Visible variables of type `ty`.
    pub(crate) fn of_type(&self, ty: &Ty) -> Vec<Var> {
        self.visible()
            .into_iter()
            .filter(|v| v.ty == *ty)
            .cloned()
            .collect()
    }

    /// Visible variables random statements may assign.
    pub(crate) fn assignable(&self) -> Vec<Var> {
        self.visible()
            .into_iter()
            .filter(|v| v.mutable && !v.pinned)
            .cloned()
            .collect()
    }

    /// Visible arrays (any element type).
    pub(crate) fn arrays(&self) -> Vec<Var> {
        self.visible()
            .into_iter()
            .filter(|v| v.ty.is_arr())
            .cloned()
            .collect()
    }

    /// Names declared in the innermost scope (they cannot be redeclared
    /// there).
    pub(crate) fn innermost_names(&self) -> Vec<String> {
        self.frames
            .last()
            .map(|f| f.iter().map(|v| v.name.clone()).collect())
            .unwrap_or_default()
    }

    /// Replaces everything but the globals (entering a function body).
    pub(crate) fn reset_to_globals(&mut self) {
        self.frames.truncate(1);
    }
}

/// How a function may be called.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FuncKind {
    /// Any arguments.
    Plain,
    /// Bounded self-recursion: the first parameter is the depth; callers
    /// pass a value masked with this (so at most the mask).
    Recursive(u64),
    /// A tracer `t`/`tb`/`ts`: the first argument is a small literal.
    Tracer,
    /// `ix(i, n)`: not called at random.
    Internal,
}

/// A function that generated code may call.
#[derive(Clone, Debug)]
pub(crate) struct Func {
    pub(crate) name: String,
    pub(crate) params: Vec<Ty>,
    pub(crate) ret: Option<Ty>,
    /// Estimated basic operations of one call.
    pub(crate) cost: u64,
    pub(crate) kind: FuncKind,
}

/// The fixed helpers of [`super::PRELUDE`].
pub(crate) fn prelude_funcs() -> Vec<Func> {
    let tracer = |name: &str, extra: Option<Ty>, ret: Ty| Func {
        name: name.to_string(),
        params: std::iter::once(Ty::Int).chain(extra).collect(),
        ret: Some(ret),
        cost: 3,
        kind: FuncKind::Tracer,
    };
    vec![
        tracer("t", None, Ty::Int),
        tracer("tb", Some(Ty::Bool), Ty::Bool),
        tracer("ts", Some(Ty::Str), Ty::Str),
        Func {
            name: "cap".to_string(),
            params: vec![Ty::Str],
            ret: Some(Ty::Str),
            cost: 4,
            kind: FuncKind::Internal,
        },
        Func {
            name: "ix".to_string(),
            params: vec![Ty::Int, Ty::Int],
            ret: Some(Ty::Int),
            cost: 4,
            kind: FuncKind::Internal,
        },
    ]
}
