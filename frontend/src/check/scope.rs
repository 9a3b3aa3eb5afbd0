//! Lexical scopes and name lookup (docs/language.md "Programs and scopes"): locals
//! innermost first, then globals; functions live in their own namespace.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::ctx::{BindKind, Checker, LocalSlot, Ty};
use super::{LocalIdx, Var};
use crate::ast::Ident;
use crate::diag::Diagnostic;

/// One lexical scope: its names, each to the local it declares. The table
/// holds only the locals' indices (4 bytes an entry); a name is read from
/// its local ([`LocalSlot::name`], borrowed from the module). A map keyed
/// by `&str` took 24 bytes an entry, and a block declaring a million names
/// paid a cache miss or two in its 25 MB table per declaration.
#[derive(Default)]
pub(crate) struct Scope {
    table: HashTable<LocalIdx>,
}

/// A name's hash (of its bytes: an inline [`crate::ast::Name`] reads as
/// bytes without the UTF-8 check of reading it as a `str`).
fn hash(name: &[u8]) -> u64 {
    FxBuildHasher.hash_one(name)
}

impl Scope {
    /// The local `name` declares in this scope.
    pub fn get(&self, name: &[u8], locals: &[LocalSlot<'_>]) -> Option<LocalIdx> {
        self.table
            .find(hash(name), |l| locals[l.0 as usize].name.as_bytes() == name)
            .copied()
    }

    /// Whether this scope declares `name`.
    pub fn contains(&self, name: &[u8], locals: &[LocalSlot<'_>]) -> bool {
        self.get(name, locals).is_some()
    }

    /// Makes `name` declare local `l` (already in `locals`); returns the
    /// local it declared before, if any.
    fn insert(&mut self, name: &[u8], l: LocalIdx, locals: &[LocalSlot<'_>]) -> Option<LocalIdx> {
        let rehash = |x: &LocalIdx| hash(locals[x.0 as usize].name.as_bytes());
        match self.table.entry(
            hash(name),
            |x| locals[x.0 as usize].name.as_bytes() == name,
            rehash,
        ) {
            hashbrown::hash_table::Entry::Occupied(mut e) => {
                Some(std::mem::replace(e.get_mut(), l))
            }
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(l);
                None
            }
        }
    }

    /// Makes room for `n` more names.
    pub fn reserve(&mut self, n: usize, locals: &[LocalSlot<'_>]) {
        self.table
            .reserve(n, |x| hash(locals[x.0 as usize].name.as_bytes()));
    }
}

impl<'m> Checker<'m> {
    /// Opens a scope.
    pub fn push_scope(&mut self) {
        self.body.scopes.push(Default::default());
    }

    /// Closes the innermost scope.
    pub fn pop_scope(&mut self) {
        self.body.scopes.pop();
    }

    /// Declares a local in the innermost scope (reporting a duplicate in the
    /// same scope) and returns its index.
    pub fn declare(&mut self, name: &'m Ident, ty: Ty, kind: BindKind) -> LocalIdx {
        let idx = LocalIdx(self.locals.len() as u32);
        self.locals.push(LocalSlot {
            name: &name.name,
            ty,
            kind,
            span: name.span,
        });
        if self.body.scopes.is_empty() {
            self.push_scope();
        }
        let scope = self
            .body
            .scopes
            .last_mut()
            .expect("a scope was just ensured");
        if let Some(old) = scope.insert(name.name.as_bytes(), idx, &self.locals) {
            let first = self.locals[old.0 as usize].span;
            self.err(
                Diagnostic::error(
                    format!("`{}` is already declared in this scope", name.name),
                    name.span,
                )
                .with_secondary(first, "first declared here")
                .with_note("a nested block `{ ... }` may shadow an outer name"),
            );
        }
        idx
    }

    /// Resolves a variable name: the variable and its type, or `None` after
    /// reporting "undefined variable".
    pub fn lookup(&mut self, name: &Ident) -> Option<(Var, Ty)> {
        for scope in self.body.scopes.iter().rev() {
            if let Some(l) = scope.get(name.name.as_bytes(), &self.locals) {
                return Some((Var::Local(l), self.locals[l.0 as usize].ty));
            }
        }
        if let Some(&g) = self.global_by_name.get(name.name.as_str()) {
            let (g, t) = self.global_ref(g, name.span);
            return Some((Var::Global(g), t));
        }
        let mut d = Diagnostic::error(format!("undefined variable `{}`", name.name), name.span)
            .with_label("not found in this scope");
        if self.func_by_name.contains_key(name.name.as_str())
            || crate::Builtin::from_name(&name.name).is_some()
        {
            d = d.with_note(format!(
                "`{}` is a function; functions are not values and can only be called",
                name.name
            ));
        }
        self.err(d);
        None
    }
}
