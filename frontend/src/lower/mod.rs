//! Lowering from the checked AST to Waddle IR in SSA form.
//!
//! SSA is built on the fly while walking the AST, with Braun et al.'s
//! algorithm (Fritz §5.3; see [`ssa`]): the checker's locals are SSA
//! variables, joins get block parameters instead of φ nodes, loop headers
//! stay unsealed until their backedges exist, and trivial parameters are
//! removed, so the result has no redundant parameters. Globals are read and
//! written with `global_get` / `global_set`.
//!
//! Program shape: `FuncId(i)` is the checker's `FuncIdx(i)` (prelude
//! functions that this module does not redefine become bodiless
//! declarations), `GlobalId(i)` is `GlobalIdx(i)`, and the top-level
//! statements become a last function `.main` (`() -> void`) recorded in
//! [`Program::main`].
//!
//! Semantics follow docs/language.md: left-to-right evaluation ("Evaluation order"),
//! short-circuit `&&`/`||` as control flow, `for` bounds evaluated once,
//! trapping instructions located per detail 15. Code after `return`,
//! `break` or `continue` is not emitted, and blocks that end up without a
//! path from the entry are removed, so every block of the output is
//! reachable.

mod expr;
#[cfg(test)]
mod gen_tests;
mod ssa;
mod stmt;
#[cfg(test)]
mod tests;

use crate::ast::{FnDecl, Item, Module, Span};
use crate::check::{Typed, Var};
use crate::{CompileOptions, SourceMap};
use waddle_opt::ir::{
    Block, Function, FunctionBuilder, GlobalData, GlobalId, HostFnDecl, InstKind, Program,
    Signature, SrcLoc, Type, Value,
};

use ssa::SsaBuilder;

/// Lowers a checked module to an IR program in SSA form (not yet canonical:
/// see `waddle_opt::canon`).
pub fn lower(
    module: &Module,
    typed: &Typed,
    sources: &SourceMap,
    options: &CompileOptions,
) -> Program {
    let mut program = Program {
        files: sources.files.iter().map(|f| f.name.clone()).collect(),
        ..Program::default()
    };
    for h in &typed.host_fns {
        program.host_fns.push(HostFnDecl {
            name: h.name.clone(),
            sig: h.sig.clone(),
        });
    }
    for g in &typed.globals {
        program.globals.push(GlobalData {
            name: g.name.clone(),
            ty: g.ty,
        });
    }
    // One table for the whole program: each function's builder borrows it
    // (a copy per function made lowering quadratic in the function count).
    let var_types: Vec<Type> = typed.locals.iter().map(|l| l.ty).collect();
    let cx = Shared {
        typed,
        sources,
        options,
        var_types: &var_types,
    };
    for info in &typed.funcs {
        let decl = info.item.and_then(|i| match module.items.get(i) {
            Some(Item::Fn(f)) => Some(f),
            _ => None,
        });
        let func = match decl {
            Some(f) => lower_fn(f, info.sig.clone(), &cx),
            None => Function::new(info.name.clone(), info.sig.clone()),
        };
        program.funcs.push(func);
    }
    let main = lower_main(module, &cx);
    program.main = Some(program.funcs.push(main));
    program
}

/// What lowering every function shares.
struct Shared<'a> {
    typed: &'a Typed,
    sources: &'a SourceMap,
    options: &'a CompileOptions,
    /// The type of every checker local.
    var_types: &'a [Type],
}

/// Lowers one `fn` item.
fn lower_fn(decl: &FnDecl, sig: Signature, shared: &Shared) -> Function {
    let ret = sig.ret;
    let typed = shared.typed;
    let mut func = Function::new(decl.name.name.to_string(), sig.clone());
    FunctionBuilder::new(&mut func).set_loc(source_loc(shared.sources, decl.name.span));
    let mut cx = FnLower::new(func, ret, shared);
    let entry = cx.ssa.create_block();
    cx.ssa.seal(entry);
    cx.cur = Some(entry);
    for (param, &ty) in decl.params.iter().zip(&sig.params) {
        let v = cx.ssa.add_param(entry, ty);
        cx.bind(typed.decls.get(param.decl.0 as usize).copied().flatten(), v);
    }
    cx.block(&decl.body);
    cx.finish()
}

/// Lowers the top-level statements into `.main`.
fn lower_main(module: &Module, shared: &Shared) -> Function {
    let sig = Signature {
        params: Vec::new(),
        ret: Type::Unit,
    };
    let func = Function::new(".main", sig);
    let mut cx = FnLower::new(func, Type::Unit, shared);
    let entry = cx.ssa.create_block();
    cx.ssa.seal(entry);
    cx.cur = Some(entry);
    for item in &module.items {
        if let Item::Stmt(s) = item {
            cx.stmt(s);
        }
    }
    cx.finish()
}

/// Where `break` and `continue` of the innermost loop go.
#[derive(Copy, Clone)]
struct LoopTargets {
    /// The block after the loop.
    break_to: Block,
    /// The block that starts the next iteration (the increment of a `for`,
    /// the condition of a `while`).
    continue_to: Block,
}

/// The state of lowering one function body.
struct FnLower<'a> {
    /// The checker's tables.
    typed: &'a Typed,
    /// For source locations.
    sources: &'a SourceMap,
    /// REPL mode and prelude.
    options: &'a CompileOptions,
    /// The function under construction.
    ssa: SsaBuilder<'a>,
    /// The block code is appended to; `None` after `return`/`break`/`continue`
    /// (the code that follows is unreachable and not emitted).
    cur: Option<Block>,
    /// Enclosing loops, innermost last.
    loops: Vec<LoopTargets>,
    /// The function's result type.
    ret: Type,
}

impl<'a> FnLower<'a> {
    fn new(func: Function, ret: Type, shared: &Shared<'a>) -> Self {
        FnLower {
            typed: shared.typed,
            sources: shared.sources,
            options: shared.options,
            ssa: SsaBuilder::new(func, shared.var_types),
            cur: None,
            loops: Vec::new(),
            ret,
        }
    }

    /// Ends the function: a body that falls off its end returns (`void`),
    /// or returns a zero value where the checker proved the end unreachable
    /// at run time (e.g. after `while true` without `break`).
    fn finish(mut self) -> Function {
        if let Some(b) = self.cur.take() {
            let v =
                (self.ret != Type::Unit).then(|| ssa::zero_value(&mut self.ssa.func, b, self.ret));
            self.ssa.ret(b, v);
        }
        self.ssa.finish()
    }

    /// The current block. Expressions are only lowered in reachable code;
    /// should that ever not hold, a fresh block (dropped later as
    /// unreachable) takes the code.
    fn cur_block(&mut self) -> Block {
        match self.cur {
            Some(b) => b,
            None => {
                let b = self.ssa.create_block();
                self.ssa.seal(b);
                self.cur = Some(b);
                b
            }
        }
    }

    /// The IR location of the start of `span`.
    fn loc(&self, span: Span) -> SrcLoc {
        source_loc(self.sources, span)
    }

    /// Appends an instruction to the current block.
    fn emit(&mut self, kind: InstKind, ty: Type, loc: SrcLoc) -> Option<Value> {
        let b = self.cur_block();
        self.ssa.append(b, kind, ty, loc)
    }

    /// Appends a value-producing instruction (a zero of `ty` stands in if
    /// `ty` is `void`, which only ill-typed input could cause).
    fn emit_value(&mut self, kind: InstKind, ty: Type, loc: SrcLoc) -> Value {
        match self.emit(kind, ty, loc) {
            Some(v) => v,
            None => self.zero(Type::Int),
        }
    }

    /// The zero value of `ty` in the current block.
    fn zero(&mut self, ty: Type) -> Value {
        let b = self.cur_block();
        ssa::zero_value(&mut self.ssa.func, b, ty)
    }

    /// Makes a declared variable hold `v` (a local: SSA write; a global:
    /// `global_set`).
    fn bind(&mut self, var: Option<Var>, v: Value) {
        match var {
            Some(Var::Local(l)) => {
                let b = self.cur_block();
                self.ssa.write(l.0, b, v);
            }
            Some(Var::Global(g)) => {
                self.emit(
                    InstKind::GlobalSet(GlobalId::from_u32(g.0), v),
                    Type::Unit,
                    SrcLoc::NONE,
                );
            }
            None => {}
        }
    }

    /// Starts emitting into `block`, which must be sealed or get all its
    /// predecessors before it is sealed. A block without predecessors is
    /// unreachable: nothing is emitted until the next reachable block.
    fn switch_to(&mut self, block: Block) {
        self.cur = (self.ssa.pred_count(block) > 0).then_some(block);
    }
}

/// The IR location of the start of `span`, or the unknown location if the
/// span names no file of `sources`.
fn source_loc(sources: &SourceMap, span: Span) -> SrcLoc {
    if (span.file.0 as usize) < sources.files.len() {
        sources.loc(span)
    } else {
        SrcLoc::NONE
    }
}
