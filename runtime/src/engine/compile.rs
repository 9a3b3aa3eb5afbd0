//! Source → IR for the engine and the CLI: frontend, then the pass
//! pipeline (an `-O` level or an explicit pass list), then the verifier in
//! debug builds. Panics inside the compiler become internal errors.

use std::panic::{catch_unwind, AssertUnwindSafe};

use waddle_frontend::check::Typed;
#[cfg(feature = "tooling")]
use waddle_frontend::Prelude;
use waddle_frontend::{CompileOptions, Compiled, SourceFile, SourceMap};
use waddle_opt::ir::Program;
use waddle_opt::passes::PassReport;

use super::backend;
use crate::error::Error;

/// How to optimize.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OptOptions {
    /// Optimization level 0, 1 or 2 (used when `passes` is `None`).
    pub opt_level: u8,
    /// An explicit pass list, overriding `opt_level`.
    pub passes: Option<Vec<String>>,
    /// Run the VSDG round trip after the level pipeline (tier T3, `full`).
    pub vsdg: bool,
    /// What the optimizer reports while it runs.
    pub trace: PassTrace,
}

/// Optimizer diagnostics to collect (`waddle run --time-passes`,
/// `--print-after PASS`); they come back as a [`PassLog`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PassTrace {
    /// Measure the time of every pass.
    pub time: bool,
    /// Print every function after each of these passes.
    pub print_after: Vec<String>,
    /// Translation validation of the optimized functions.
    pub validate: Validation,
}

/// Translation validation after the pipeline (`waddle run --validate`,
/// `waddle_opt::validate`): each optimized function is checked against
/// its unoptimized, canonical original.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Validation {
    /// No validation.
    #[default]
    Off,
    /// Validate and report (`validated N of M functions` and each alarm).
    Report,
    /// Validated tier-up: as `Report`, and a function that does not
    /// validate keeps its unoptimized IR.
    Guard,
}

/// What translation validation found (see [`Validation`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValidationLog {
    /// Functions compared.
    pub total: u32,
    /// Functions validated.
    pub validated: u32,
    /// Of those, the functions whose single before/after comparison
    /// failed and whose per-pass chain validated
    /// (`waddle_opt::validate::validate_pipeline`).
    pub chained: u32,
    /// One line per function that did not validate (and, in
    /// [`Validation::Guard`] mode, was kept unoptimized).
    pub findings: Vec<String>,
}

/// What the optimizer reported besides the IR (see [`PassTrace`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassLog {
    /// Time per pass, summed over every optimization run (with
    /// [`PassTrace::time`]); shown by [`PassLog::render`].
    pub(crate) report: Option<PassReport>,
    /// The functions printed after the passes of
    /// [`PassTrace::print_after`], each under a `; after PASS` line.
    pub printed: String,
    /// What validation found ([`PassTrace::validate`]).
    pub validation: Option<ValidationLog>,
}

impl PassLog {
    /// Appends `other` (a later optimization run) to this log.
    pub fn merge(&mut self, other: PassLog) {
        self.printed.push_str(&other.printed);
        match (&mut self.validation, other.validation) {
            (Some(mine), Some(theirs)) => {
                mine.total += theirs.total;
                mine.validated += theirs.validated;
                mine.chained += theirs.chained;
                mine.findings.extend(theirs.findings);
            }
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
        match (&mut self.report, other.report) {
            (Some(mine), Some(theirs)) => mine.merge(&theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
    }

    /// The log as text: the printed functions, then the time table.
    pub fn render(&self) -> String {
        let mut out = self.printed.clone();
        if let Some(r) = &self.report {
            out.push_str(&r.to_string());
        }
        if let Some(v) = &self.validation {
            for f in &v.findings {
                out.push_str(f);
                out.push('\n');
            }
            out.push_str(&format!(
                "validated {} of {} functions",
                v.validated, v.total
            ));
            if v.chained > 0 {
                out.push_str(&format!(" ({} by per-pass chain)", v.chained));
            }
            out.push('\n');
        }
        out
    }
}

impl OptOptions {
    /// Whether these options may inline one function into another (then a
    /// redefinition must re-optimize the callers).
    pub fn may_inline(&self) -> bool {
        match &self.passes {
            Some(passes) => passes.iter().any(|p| p == "inline"),
            None => self.opt_level >= 1,
        }
    }
}

/// The IR of a compiled source, before and after optimization.
#[derive(Clone, Debug)]
pub struct CompiledIr {
    /// The frontend's result (AST, checker tables, IR before passes).
    pub frontend: Compiled,
    /// The IR after the pipeline or pass list.
    pub optimized: Program,
    /// What the optimizer reported ([`OptOptions::trace`]).
    pub log: PassLog,
}

/// Turns a caught panic payload into an internal error.
pub(crate) fn panic_error(what: &str, payload: Box<dyn std::any::Any + Send>) -> Error {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    Error::Internal(format!("{what} panicked: {msg}"))
}

/// Checks an explicit pass list against the passes that exist.
pub fn check_passes(passes: &[String]) -> Result<(), Error> {
    let known = backend::pass_names();
    for p in passes {
        if !known.iter().any(|k| k == p) {
            return Err(Error::Passes(format!(
                "unknown pass `{p}` (available: {})",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

/// Compiles `source` (shown as `name` in messages) against `prelude` and
/// optimizes it.
#[cfg(feature = "tooling")]
pub fn compile_source(
    name: &str,
    source: &str,
    prelude: Prelude,
    repl: bool,
    opt: &OptOptions,
) -> Result<CompiledIr, Error> {
    let options = CompileOptions {
        prelude,
        repl,
        allow_ffi: false,
    };
    compile_with_options(name, source, options, opt)
}

/// A whole program (no prelude) with `extern` declarations allowed when
/// `allow_ffi` is set (`waddle run --allow-ffi --emit ir`). The externs are
/// checked, not loaded.
#[cfg(feature = "tooling")]
pub fn compile_source_with_ffi(
    name: &str,
    source: &str,
    allow_ffi: bool,
    opt: &OptOptions,
) -> Result<CompiledIr, Error> {
    let options = CompileOptions {
        allow_ffi,
        ..CompileOptions::default()
    };
    compile_with_options(name, source, options, opt)
}

/// Compiles and optimizes `source` with every frontend option.
pub(crate) fn compile_with_options(
    name: &str,
    source: &str,
    options: CompileOptions,
    opt: &OptOptions,
) -> Result<CompiledIr, Error> {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new(name, source));
    let frontend = frontend(&sources, &options)?;
    let mut optimized = frontend.program.clone();
    let log = optimize(&mut optimized, opt)?;
    Ok(CompiledIr {
        frontend,
        optimized,
        log,
    })
}

/// What [`compile_program`] keeps of a compilation: only what a
/// [`crate::Module`] needs.
#[derive(Debug)]
pub(crate) struct CompiledProgram {
    /// The checker's tables (the `extern` declarations to load).
    pub typed: Typed,
    /// The IR after the pipeline or pass list.
    pub optimized: Program,
    /// What the optimizer reported ([`OptOptions::trace`]).
    pub log: PassLog,
}

/// [`compile_with_options`] for a caller that needs neither the syntax tree
/// nor the unoptimized IR: the tree is dropped before the passes run and
/// the lowered program is optimized in place instead of a copy, so a large
/// program's compile holds one IR and no tree while the passes and the code
/// generator run (peak memory).
pub(crate) fn compile_program(
    name: &str,
    source: &str,
    options: CompileOptions,
    opt: &OptOptions,
) -> Result<CompiledProgram, Error> {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new(name, source));
    let Compiled {
        module,
        typed,
        program: mut optimized,
    } = frontend(&sources, &options)?;
    drop(module);
    drop(sources);
    let log = optimize(&mut optimized, opt)?;
    Ok(CompiledProgram {
        typed,
        optimized,
        log,
    })
}

/// Runs the frontend on `sources`; compile errors come back rendered.
fn frontend(sources: &SourceMap, options: &CompileOptions) -> Result<Compiled, Error> {
    let frontend = catch_unwind(AssertUnwindSafe(|| {
        waddle_frontend::compile(sources, options)
    }))
    .map_err(|p| panic_error("the frontend", p))?;
    frontend.map_err(|diags| {
        let rendered = catch_unwind(AssertUnwindSafe(|| {
            waddle_frontend::diag::render(&diags, sources)
        }))
        .unwrap_or_else(|_| {
            diags
                .iter()
                .map(|d| format!("error: {}\n", d.message))
                .collect()
        });
        Error::Compile {
            rendered,
            diagnostics: crate::error::diagnostics(&diags, sources),
        }
    })
}

/// A compile error `message` (with `note`) at `loc` of the one-file
/// program `source` (named `name`), rendered like the frontend's: the span
/// is the identifier (or character) at that line and column.
#[cfg(feature = "cross")]
pub(crate) fn error_at(
    name: &str,
    source: &str,
    loc: waddle_opt::ir::SrcLoc,
    message: &str,
    note: &str,
) -> Error {
    use waddle_frontend::{ast::Span, diag::Diagnostic};
    let mut sources = SourceMap::default();
    let file = sources.add(SourceFile::new(name, source));
    let start = byte_offset(source, loc.line, loc.col);
    let rest = &source[start..];
    let len = match rest.find(|c: char| !(c.is_alphanumeric() || c == '_')) {
        Some(0) | None => rest.chars().next().map_or(0, char::len_utf8),
        Some(n) => n,
    };
    let span = Span {
        file,
        start: start as u32,
        end: (start + len) as u32,
    };
    let diags = [Diagnostic::error(message, span).with_note(note)];
    let rendered = catch_unwind(AssertUnwindSafe(|| {
        waddle_frontend::diag::render(&diags, &sources)
    }))
    .unwrap_or_else(|_| format!("error: {message}\n"));
    Error::Compile {
        rendered,
        diagnostics: crate::error::diagnostics(&diags, &sources),
    }
}

/// The byte offset of 1-based `line` and `col` (in characters) in `text`,
/// clamped to the text.
#[cfg(feature = "cross")]
fn byte_offset(text: &str, line: u32, col: u32) -> usize {
    let mut start = 0;
    for _ in 1..line.max(1) {
        match text[start..].find('\n') {
            Some(n) => start += n + 1,
            None => return text.len(),
        }
    }
    let line_text = &text[start..];
    let skip = col.max(1) as usize - 1;
    start + (line_text.char_indices().nth(skip)).map_or(line_text.len(), |(i, _)| i)
}

/// Runs the requested passes on `program` (and the verifier in debug
/// builds); returns what [`OptOptions::trace`] asked for.
pub fn optimize(program: &mut Program, opt: &OptOptions) -> Result<PassLog, Error> {
    if let Some(passes) = &opt.passes {
        check_passes(passes)?;
    }
    check_passes(&opt.trace.print_after)?;
    let result = catch_unwind(AssertUnwindSafe(|| {
        backend::run_pipeline(
            program,
            opt.opt_level,
            opt.vsdg,
            opt.passes.as_deref(),
            &opt.trace,
        )
    }))
    .map_err(|p| panic_error("the optimizer", p))?;
    let log = result.map_err(|e| Error::Passes(e.to_string()))?;
    if cfg!(debug_assertions) {
        let verified = catch_unwind(AssertUnwindSafe(|| backend::verify(program)))
            .map_err(|p| panic_error("the verifier", p))?;
        verified.map_err(|e| Error::Internal(format!("IR verification failed: {e}")))?;
    }
    Ok(log)
}
