//! Errors reported to embedders and printed by the CLI.
//!
//! Rendering follows docs/language.md "Errors": compile errors are the
//! frontend's diagnostics (each starting with `error`), a runtime error is
//! `error: runtime error: MESSAGE` followed by `  --> file:line:col` and
//! the script's stack trace (`stack trace:` and one line per frame,
//! innermost first).

use std::fmt;

use waddle_opt::abi::{Trap, TrapCode};
use waddle_opt::ir::{FuncId, Program, SrcLoc};

use crate::Tier;

/// A position in Waddle source: file name, 1-based line and column (in
/// characters).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Location {
    /// The name the source was compiled under (e.g. `main.wdl`, `<entry 3>`).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

impl Location {
    /// The location of `loc` in `program`, `None` when it is unknown.
    pub(crate) fn from_src(loc: SrcLoc, program: &Program) -> Option<Location> {
        if !loc.is_known() {
            return None;
        }
        Some(Location {
            file: program.files.get(loc.file as usize)?.clone(),
            line: loc.line,
            column: loc.col,
        })
    }
}

impl fmt::Display for Location {
    /// `file:line:column`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One frame of a runtime error's stack trace (in the manner of
/// wasmtime's `FrameInfo`): a Waddle function that was running and where it
/// stopped.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub struct Frame {
    /// The function's name; the program's top-level code is `<main>`.
    pub function: String,
    /// Where it stopped: the failing operation in the innermost frame, the
    /// call to the next frame in the others; `None` when unknown.
    pub location: Option<Location>,
}

impl fmt::Display for Frame {
    /// `NAME at file:line:column` (just `NAME` without a location).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(loc) => write!(f, "{} at {loc}", self.function),
            None => write!(f, "{}", self.function),
        }
    }
}

/// A runtime error raised by running Waddle code.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub struct RuntimeError {
    /// Which error ([`TrapCode`] is re-exported as `waddle::TrapCode`).
    pub code: TrapCode,
    /// The message (docs/language.md "Errors"), e.g. `division by zero`.
    pub message: String,
    /// Where, when known (an execution budget running out between two
    /// statements, or a failure outside Waddle code, has no location).
    pub location: Option<Location>,
    /// The script's stack at the error, innermost frame first (every
    /// frame the error left, on every tier; a function the optimizer
    /// inlined into its caller has no frame of its own). Empty when the
    /// error did not come from running Waddle code.
    pub trace: Vec<Frame>,
}

impl RuntimeError {
    /// Frames [`RuntimeError::render`] prints from the innermost end of a
    /// long trace; [`RuntimeError::RENDER_OUTER_FRAMES`] more come from the
    /// outermost end.
    pub const RENDER_INNER_FRAMES: usize = 20;
    /// Frames [`RuntimeError::render`] prints from the outermost end of a
    /// long trace.
    pub const RENDER_OUTER_FRAMES: usize = 5;

    /// The error for a trap raised while running `program`.
    pub(crate) fn from_trap(trap: Trap, program: &Program) -> RuntimeError {
        RuntimeError::new(trap.code, Location::from_src(trap.loc, program))
    }

    /// The error `code` at `location`, with the standard message.
    pub fn new(code: TrapCode, location: Option<Location>) -> RuntimeError {
        RuntimeError {
            code,
            message: code.message().to_string(),
            location,
            trace: Vec::new(),
        }
    }

    /// This error with the stack trace `frames` (function and location of
    /// each frame, innermost first, as [`waddle_opt::interp::Host::trace_frame`]
    /// reported them) of `program`.
    pub(crate) fn with_trace(mut self, frames: &[(FuncId, SrcLoc)], program: &Program) -> Self {
        self.trace = frames
            .iter()
            .map(|&(f, loc)| Frame {
                function: match program.funcs.get(f) {
                    _ if program.main == Some(f) => "<main>".to_string(),
                    Some(func) => func.name().to_string(),
                    None => format!("<function {}>", f.as_u32()),
                },
                location: Location::from_src(loc, program),
            })
            .collect();
        self
    }

    /// The text printed to standard error (ends with a newline): the
    /// message, the `-->` line when the location is known, then the stack
    /// trace when it has more than one frame (one frame says no more than
    /// the `-->` line; a long trace is shortened to its
    /// [`Self::RENDER_INNER_FRAMES`] innermost and
    /// [`Self::RENDER_OUTER_FRAMES`] outermost frames).
    pub fn render(&self) -> String {
        use std::fmt::Write as _;
        let mut out = format!("error: runtime error: {}\n", self.message);
        if let Some(loc) = &self.location {
            let _ = writeln!(out, "  --> {loc}");
        }
        if self.trace.len() < 2 {
            return out;
        }
        out.push_str("stack trace:\n");
        let n = self.trace.len();
        let shown = Self::RENDER_INNER_FRAMES + Self::RENDER_OUTER_FRAMES;
        for (i, frame) in self.trace.iter().enumerate() {
            if n > shown && i == Self::RENDER_INNER_FRAMES {
                let _ = writeln!(out, "  ... {} more frames ...", n - shown);
            }
            if n <= shown || i < Self::RENDER_INNER_FRAMES || i >= n - Self::RENDER_OUTER_FRAMES {
                let _ = writeln!(out, "  {i}: {frame}");
            }
        }
        out
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            None => write!(f, "runtime error: {}", self.message),
            Some(loc) => write!(f, "runtime error: {} at {loc}", self.message),
        }
    }
}

impl std::error::Error for RuntimeError {}

/// How serious a [`Diagnostic`] is.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Severity {
    /// The source does not compile.
    Error,
}

/// One compile-time problem, in structured form (the same facts the
/// rendered text shows).
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// The headline, e.g. `mismatched types: expected `int`, found `float``.
    pub message: String,
    /// Where the problem starts.
    pub location: Location,
    /// Byte range of the primary span in the source text.
    pub span: std::ops::Range<usize>,
    /// Text attached to the primary span (may be empty).
    pub label: String,
    /// Extra notes.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// The file name.
    pub fn file(&self) -> &str {
        &self.location.file
    }

    /// 1-based line.
    pub fn line(&self) -> u32 {
        self.location.line
    }

    /// 1-based column, in characters.
    pub fn column(&self) -> u32 {
        self.location.column
    }
}

/// The structured form of the frontend's diagnostics.
pub(crate) fn diagnostics(
    diags: &[waddle_frontend::diag::Diagnostic],
    sources: &waddle_frontend::SourceMap,
) -> Vec<Diagnostic> {
    diags
        .iter()
        .map(|d| {
            let file = sources.files.get(d.span.file.0 as usize);
            let (line, column) = file.map_or((0, 0), |f| f.line_col(d.span.start));
            Diagnostic {
                severity: Severity::Error,
                message: d.message.clone(),
                location: Location {
                    file: file.map_or_else(String::new, |f| f.name.clone()),
                    line,
                    column,
                },
                span: d.span.start as usize..d.span.end as usize,
                label: d.label.clone(),
                notes: d.notes.clone(),
            }
        })
        .collect()
}

/// Everything that can go wrong when compiling or running Waddle code
/// through the embedding API.
#[derive(Clone, PartialEq, Debug)]
#[non_exhaustive]
pub enum Error {
    /// The source does not compile: the diagnostics, structured and
    /// rendered as text (file, line, column, source line and caret for
    /// each).
    Compile {
        /// Rendered diagnostics.
        rendered: String,
        /// The diagnostics, in order.
        diagnostics: Vec<Diagnostic>,
    },
    /// Running the code raised a runtime error.
    Runtime(RuntimeError),
    /// The requested tier is not part of this build.
    UnsupportedTier(Tier),
    /// The request needs a Cargo feature of the `waddle` crate this build
    /// was compiled without (e.g. `disasm` for [`crate::Session::function_asm`]).
    MissingFeature {
        /// The feature's name.
        feature: &'static str,
        /// What needed it.
        what: &'static str,
    },
    /// An unknown pass name or an invalid pipeline request.
    Passes(String),
    /// No function with this name exists.
    UnknownFunction(String),
    /// A call from Rust whose arguments or result do not match the
    /// function's signature.
    Signature(String),
    /// A store, instance or typed function used with the wrong partner
    /// (another store or engine), or a second instance in one store.
    Instance(String),
    /// A bug in Waddle itself (a caught panic, an IR verification failure):
    /// never the program's fault.
    Internal(String),
}

impl Error {
    /// The text the CLI prints to standard error (ends with a newline).
    pub fn render(&self) -> String {
        match self {
            Error::Compile { rendered, .. } => {
                let mut s = rendered.clone();
                if !s.ends_with('\n') {
                    s.push('\n');
                }
                s
            }
            Error::Runtime(e) => e.render(),
            other => format!("error: {other}\n"),
        }
    }

    /// The process exit status for this error: 1 for compile-time problems
    /// (compile errors, unavailable tiers, bad options), 2 for errors while
    /// running.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Runtime(_) | Error::Internal(_) => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Compile {
                rendered,
                diagnostics,
            } => {
                write!(f, "{} compile error(s):\n{rendered}", diagnostics.len())
            }
            Error::Runtime(e) => e.fmt(f),
            Error::UnsupportedTier(t) => write!(
                f,
                "tier `{t}` is not available in this build (available: {})",
                available_tier_names()
            ),
            Error::MissingFeature { feature, what } => write!(
                f,
                "{what} needs the `{feature}` feature of the `waddle` crate, which this build does not have"
            ),
            Error::Passes(m) => write!(f, "{m}"),
            Error::UnknownFunction(n) => write!(f, "no function named `{n}`"),
            Error::Signature(m) => write!(f, "{m}"),
            Error::Instance(m) => write!(f, "{m}"),
            Error::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// The trap code of a runtime error, `None` for other errors.
    pub fn trap_code(&self) -> Option<TrapCode> {
        match self {
            Error::Runtime(e) => Some(e.code),
            _ => None,
        }
    }
}

impl From<RuntimeError> for Error {
    fn from(e: RuntimeError) -> Error {
        Error::Runtime(e)
    }
}

/// The `--tier` names this build runs, comma-separated.
fn available_tier_names() -> String {
    let names: Vec<&str> = Tier::available().into_iter().map(Tier::name).collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_without_a_location_have_no_arrow_line() {
        let mut e = RuntimeError::new(TrapCode::OutOfFuel, None);
        assert_eq!(e.render(), "error: runtime error: out of fuel\n");
        e.location = Some(Location {
            file: "a.wdl".to_string(),
            line: 1,
            column: 2,
        });
        assert_eq!(
            e.render(),
            "error: runtime error: out of fuel\n  --> a.wdl:1:2\n"
        );
        assert_eq!(e.to_string(), "runtime error: out of fuel at a.wdl:1:2");
    }
}
