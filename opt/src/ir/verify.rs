//! The IR verifier: well-formedness, types and SSA dominance.
//!
//! [`verify_function`] checks, in three phases (later phases run only when
//! the earlier ones found nothing, so one mistake is reported once):
//!
//! 1. Structure ([`structure`]): non-void signature parameters; a bodied
//!    function has a non-empty layout whose blocks exist and appear once; the
//!    entry block's parameters match the signature; every instruction is in
//!    the arena and in exactly one block; every value is defined exactly once
//!    (its [`ValueDef`](super::ValueDef) agrees with where it appears) and has
//!    a non-void type; every operand is a value defined in the layout; every
//!    edge targets a block of the layout.
//! 2. Typing ([`typing`]): the rules of every [`InstKind`](super::InstKind),
//!    including which instructions have a result, switch scrutinees and case
//!    keys, edge arguments against target parameters, and returned values
//!    against the signature.
//! 3. Control flow and SSA ([`ssa`]): every block is reachable from the entry,
//!    and every use is dominated by its definition (an instruction result
//!    is available after its instruction in the same block and in blocks its
//!    block strictly dominates; a block parameter throughout the blocks its
//!    block dominates; terminator edge arguments are evaluated in the source
//!    block), using [`crate::analysis::DomTree`].

mod ssa;
mod structure;
mod typing;

use std::fmt;

use super::entities::{Block, FuncId, Inst};
use super::function::{Function, Program};
use super::print::{print_inst, print_terminator};

/// One problem found by the verifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The function (`None` for program-level problems such as globals).
    pub func: Option<FuncId>,
    /// The function's name (empty for program-level problems).
    pub func_name: String,
    /// The block where the problem is, if any.
    pub block: Option<Block>,
    /// The offending instruction or terminator in text format, if any.
    pub inst: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    /// `fn3 "fib", block2, `v5: int = iadd v3, v4`: <message>`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.func {
            Some(id) => write!(f, "{id} {:?}", self.func_name)?,
            None => f.write_str("program")?,
        }
        if let Some(b) = self.block {
            write!(f, ", {b}")?;
        }
        if let Some(inst) = &self.inst {
            write!(f, ", `{inst}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Collects errors for one function with the context needed to describe them.
pub(super) struct Reporter<'a> {
    prog: &'a Program,
    id: FuncId,
    func: &'a Function,
    errors: Vec<VerifyError>,
}

impl<'a> Reporter<'a> {
    fn new(prog: &'a Program, id: FuncId, func: &'a Function) -> Self {
        Reporter {
            prog,
            id,
            func,
            errors: Vec::new(),
        }
    }

    fn push(&mut self, block: Option<Block>, inst: Option<String>, message: String) {
        self.errors.push(VerifyError {
            func: Some(self.id),
            func_name: self.func.name.clone(),
            block,
            inst,
            message,
        });
    }

    /// A problem with the function as a whole.
    pub(super) fn func_error(&mut self, message: impl Into<String>) {
        self.push(None, None, message.into());
    }

    /// A problem with a block (its label or parameters).
    pub(super) fn block_error(&mut self, block: Block, message: impl Into<String>) {
        self.push(Some(block), None, message.into());
    }

    /// A problem with an instruction of `block`.
    pub(super) fn inst_error(&mut self, block: Block, inst: Inst, message: impl Into<String>) {
        let text = print_inst(self.prog, self.func, inst);
        self.push(Some(block), Some(text), message.into());
    }

    /// A problem with the terminator of `block`.
    pub(super) fn term_error(&mut self, block: Block, message: impl Into<String>) {
        let text = self
            .func
            .blocks
            .get(block)
            .map(|bd| print_terminator(self.func, &bd.term));
        self.push(Some(block), text, message.into());
    }
}

/// Verifies function `f` of `p`; `Err` lists every problem found.
pub fn verify_function(p: &Program, f: FuncId) -> Result<(), Vec<VerifyError>> {
    let Some(func) = p.funcs.get(f) else {
        return Err(vec![VerifyError {
            func: Some(f),
            func_name: String::new(),
            block: None,
            inst: None,
            message: format!("{f} is not a function of the program"),
        }]);
    };
    verify_function_as(p, f, func)
}

/// Verifies `func` as function `f` of `p`, whether or not `p` holds it (a
/// pass pipeline verifies a function while it is being edited; calls are
/// checked against the signatures in `p`).
pub fn verify_function_as(p: &Program, f: FuncId, func: &Function) -> Result<(), Vec<VerifyError>> {
    let mut r = Reporter::new(p, f, func);
    if let Some(info) = structure::check(&mut r) {
        if r.errors.is_empty() {
            typing::check(&mut r);
        }
        if r.errors.is_empty() {
            ssa::check(&mut r, &info);
        }
    }
    if r.errors.is_empty() {
        Ok(())
    } else {
        Err(r.errors)
    }
}

/// Verifies the program: globals are not void, `main` exists, and every
/// function verifies. `Err` lists every problem found.
pub fn verify_program(p: &Program) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    let program_error = |message: String| VerifyError {
        func: None,
        func_name: String::new(),
        block: None,
        inst: None,
        message,
    };
    for (g, gd) in p.globals.iter() {
        if gd.ty == super::Type::Unit {
            errors.push(program_error(format!(
                "global {g} {:?} has type void",
                gd.name
            )));
        }
    }
    if let Some(m) = p.main {
        if !p.funcs.is_valid(m) {
            errors.push(program_error(format!("main function {m} does not exist")));
        }
    }
    for id in p.funcs.keys() {
        if let Err(mut e) = verify_function(p, id) {
            errors.append(&mut e);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}
