//! Lowering from the checked AST to Waddle IR.

use crate::ast::Module;
use crate::check::Typed;
use crate::{CompileOptions, SourceMap};
use waddle_opt::ir::Program;

/// Lowers a checked module to an IR program in SSA form.
pub fn lower(
    module: &Module,
    typed: &Typed,
    sources: &SourceMap,
    options: &CompileOptions,
) -> Program {
    let _ = (module, typed, sources, options);
    unimplemented!("lowering: assigned to the lowering helper")
}
