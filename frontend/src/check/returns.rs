//! "Returns on every path" (docs/language.md "Statements", returning on every path): `return`; a block
//! containing a statement that returns on every path; an `if` with `else`
//! whose branches all do; a `while true` loop with no `break` of its own.
//! `for` and other `while` loops never count.

use crate::ast::{Block, ElseBranch, ExprKind, Stmt, StmtKind};

/// Whether executing the block always ends in a `return` (or never ends).
pub(crate) fn block_returns(b: &Block) -> bool {
    b.stmts.iter().any(stmt_returns)
}

/// Whether executing the statement always ends in a `return` (or never ends).
pub(crate) fn stmt_returns(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::Block(b) => block_returns(b),
        StmtKind::If {
            then_block,
            else_branch: Some(els),
            ..
        } => {
            block_returns(then_block)
                && match els {
                    ElseBranch::Block(b) => block_returns(b),
                    ElseBranch::If(s) => stmt_returns(s),
                }
        }
        StmtKind::While { cond, body } => {
            matches!(cond.kind, ExprKind::Bool(true)) && !block_breaks(body)
        }
        _ => false,
    }
}

/// Whether the block contains a `break` that leaves the loop whose body it
/// is (breaks of nested loops do not count).
fn block_breaks(b: &Block) -> bool {
    b.stmts.iter().any(stmt_breaks)
}

fn stmt_breaks(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Break => true,
        StmtKind::Block(b) => block_breaks(b),
        StmtKind::If {
            then_block,
            else_branch,
            ..
        } => {
            block_breaks(then_block)
                || match else_branch {
                    Some(ElseBranch::Block(b)) => block_breaks(b),
                    Some(ElseBranch::If(s)) => stmt_breaks(s),
                    None => false,
                }
        }
        _ => false,
    }
}
