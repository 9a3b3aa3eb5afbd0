//! The Waddle frontend: source text → checked AST → Waddle IR.
//!
//! Pipeline: [`lexer`] → [`parser`] (an [`ast::Module`] with spans) →
//! [`check`] (names and types, every rule of docs/language.md) → [`lower`]
//! (SSA construction straight from the AST, Braun et al.; Fritz §5.3).
//! Errors are [`diag::Diagnostic`]s rendered with `ariadne`.

#![forbid(unsafe_code)]

pub mod ast;
pub mod check;
pub mod diag;
pub mod lexer;
pub mod lower;
pub mod name;
pub mod parser;

pub use parser::{MAX_DEPTH, MAX_SOURCE_BYTES};

use waddle_opt::ir::{self, Signature, Type};

/// Builtin functions of docs/language.md. Their names are reserved for functions.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Builtin {
    /// `print(x)`
    Print,
    /// `len(a)` for arrays and strings
    Len,
    /// `push(a, x)`
    Push,
    /// `pop(a)`
    Pop,
    /// `float(i)`
    Float,
    /// `int(f)`
    Int,
    /// `str(x)`
    Str,
    /// `sqrt(x)`
    Sqrt,
    /// `sin(x)`
    Sin,
    /// `cos(x)`
    Cos,
    /// `tan(x)`
    Tan,
    /// `exp(x)`
    Exp,
    /// `log(x)`
    Log,
    /// `floor(x)`
    Floor,
    /// `ceil(x)`
    Ceil,
    /// `abs(x)` for int or float
    Abs,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
    /// `assert(c)`
    Assert,
    /// `clock()`
    Clock,
}

impl Builtin {
    /// Every builtin with its source name.
    pub const ALL: [(&'static str, Builtin); 20] = [
        ("print", Builtin::Print),
        ("len", Builtin::Len),
        ("push", Builtin::Push),
        ("pop", Builtin::Pop),
        ("float", Builtin::Float),
        ("int", Builtin::Int),
        ("str", Builtin::Str),
        ("sqrt", Builtin::Sqrt),
        ("sin", Builtin::Sin),
        ("cos", Builtin::Cos),
        ("tan", Builtin::Tan),
        ("exp", Builtin::Exp),
        ("log", Builtin::Log),
        ("floor", Builtin::Floor),
        ("ceil", Builtin::Ceil),
        ("abs", Builtin::Abs),
        ("min", Builtin::Min),
        ("max", Builtin::Max),
        ("assert", Builtin::Assert),
        ("clock", Builtin::Clock),
    ];

    /// The builtin called `name`, if any.
    pub fn from_name(name: &str) -> Option<Builtin> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|&(_, b)| b)
    }

    /// The builtin's source name.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|&&(_, b)| b == self).unwrap().0
    }
}

/// Symbols that exist before this compilation: the REPL's functions and
/// globals from earlier entries. In the resulting [`ir::Program`], prelude
/// functions keep their indices (`FuncId(i)` for `functions[i]`, as bodiless
/// declarations unless redefined) and prelude globals theirs.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Prelude {
    /// Functions by name and signature.
    pub functions: Vec<(String, Signature)>,
    /// Globals by name, type and mutability (`true` for `var`).
    pub globals: Vec<PreludeGlobal>,
    /// Host functions by name and signature, in host-function id order
    /// (`waddle_opt::ir::HostFnId`): callable like builtins, type-checked
    /// against their signature; no `fn` item may take their names.
    pub host_functions: Vec<(String, Signature)>,
}

/// A global declared by an earlier REPL entry.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PreludeGlobal {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: Type,
    /// `true` for `var`: later entries may assign it.
    pub mutable: bool,
}

/// How to compile.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct CompileOptions {
    /// Earlier REPL state.
    pub prelude: Prelude,
    /// REPL mode: a final expression statement without `;` is allowed and its
    /// non-`void` value is printed; top-level `let`/`var` may shadow prelude
    /// globals; `fn` items may redefine prelude functions with the same signature.
    pub repl: bool,
    /// Whether `extern` declarations (FFI) are allowed.
    pub allow_ffi: bool,
}

/// A source file: its name (as shown in diagnostics) and text.
#[derive(Clone, PartialEq, Debug)]
pub struct SourceFile {
    /// Display name, e.g. `examples/fib.wdl` or `<repl:3>`.
    pub name: String,
    /// UTF-8 text (a leading byte-order mark is skipped by the lexer).
    pub text: String,
    /// Byte offsets of line starts.
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// A source file from its name and text.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        // `match_indices` of one ASCII character searches with `memchr`.
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of byte offset `pos`.
    pub fn line_col(&self, pos: u32) -> (u32, u32) {
        let line = match self.line_starts.binary_search(&pos) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let end = (pos as usize).min(self.text.len());
        let col = self
            .text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(end - start);
        (line as u32 + 1, col as u32 + 1)
    }
}

/// The files of one compilation; spans index into it by [`ast::FileId`].
#[derive(Clone, PartialEq, Debug, Default)]
pub struct SourceMap {
    /// Files in id order.
    pub files: Vec<SourceFile>,
}

impl SourceMap {
    /// Adds a file and returns its id.
    pub fn add(&mut self, file: SourceFile) -> ast::FileId {
        self.files.push(file);
        ast::FileId(self.files.len() as u32 - 1)
    }

    /// The file with id `id`.
    pub fn file(&self, id: ast::FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The IR source location of the start of `span`.
    pub fn loc(&self, span: ast::Span) -> ir::SrcLoc {
        let (line, col) = self.file(span.file).line_col(span.start);
        ir::SrcLoc {
            file: span.file.0,
            line,
            col,
        }
    }
}

/// The result of compiling source text: the parsed module, the checker's
/// tables, and the IR program (in SSA form, not yet canonical).
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The parsed module.
    pub module: ast::Module,
    /// The checker's tables.
    pub typed: check::Typed,
    /// The lowered program. `program.files` names the source files.
    pub program: ir::Program,
}

/// Parses, checks and lowers every file of `sources` as one program (the
/// top-level statements of all files run in order). On failure returns all
/// diagnostics found.
pub fn compile(
    sources: &SourceMap,
    options: &CompileOptions,
) -> Result<Compiled, Vec<diag::Diagnostic>> {
    let module = parser::parse(sources, options.repl)?;
    let typed = check::check_with_ffi(&module, &options.prelude, options.repl, options.allow_ffi)?;
    let program = lower::lower(&module, &typed, sources, options);
    Ok(Compiled {
        module,
        typed,
        program,
    })
}

/// Parses only (for `--emit ast`): the module or the syntax errors.
pub fn parse_only(sources: &SourceMap, repl: bool) -> Result<ast::Module, Vec<diag::Diagnostic>> {
    parser::parse(sources, repl)
}
