//! "Returns on every path" (docs/language.md "Statements", returning on every path): `return`; a block
//! containing a statement that returns on every path; an `if` with `else`
//! whose branches all do; a `while true` loop with no `break` of its own.
//! `for` and other `while` loops never count.

use crate::ast::{Block, ExprKind, Stmt, StmtKind};

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
            else_ifs,
            else_block: Some(els),
            ..
        } => {
            block_returns(then_block)
                && else_ifs.iter().all(|arm| block_returns(&arm.block))
                && block_returns(els)
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
            else_ifs,
            else_block,
            ..
        } => {
            block_breaks(then_block)
                || else_ifs.iter().any(|arm| block_breaks(&arm.block))
                || else_block.as_ref().is_some_and(block_breaks)
        }
        _ => false,
    }
}
