//! Errors reported to embedders and printed by the CLI.
//!
//! Rendering follows docs/language.md "Errors": compile errors are the
//! frontend's diagnostics (each starting with `error`), a runtime error is
//! `error: runtime error: MESSAGE` followed by `  --> file:line:col`.

use std::fmt;

use waddle_opt::abi::{Trap, TrapCode};
use waddle_opt::ir::Program;

use crate::driver::Tier;

/// What [`Program::describe_loc`] says of a trap without a source location.
const UNKNOWN_LOCATION: &str = "<unknown>";

/// A runtime error raised by running Waddle code.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RuntimeError {
    /// Which error.
    pub code: TrapCode,
    /// The message (docs/language.md "Errors"), e.g. `division by zero`.
    pub message: String,
    /// Where: `file:line:col`, or `<unknown>`.
    pub location: String,
}

impl RuntimeError {
    /// The error for a trap raised while running `program`.
    pub fn from_trap(trap: Trap, program: &Program) -> RuntimeError {
        RuntimeError {
            code: trap.code,
            message: trap.code.message().to_string(),
            location: program.describe_loc(trap.loc),
        }
    }

    /// The text printed to standard error (ends with a newline). An error
    /// without a source location (an execution budget running out between
    /// two statements) has no `-->` line.
    pub fn render(&self) -> String {
        if self.location == UNKNOWN_LOCATION {
            return format!("error: runtime error: {}\n", self.message);
        }
        format!(
            "error: runtime error: {}\n  --> {}\n",
            self.message, self.location
        )
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "runtime error: {} at {}", self.message, self.location)
    }
}

impl std::error::Error for RuntimeError {}

/// Everything that can go wrong when compiling or running Waddle code
/// through the embedding API.
#[derive(Clone, PartialEq, Debug)]
pub enum Error {
    /// The source does not compile; `rendered` holds the diagnostics as
    /// text (file, line, column, source line and caret for each).
    Compile {
        /// Rendered diagnostics.
        rendered: String,
        /// Number of diagnostics.
        count: usize,
    },
    /// Running the code raised a runtime error.
    Runtime(RuntimeError),
    /// The requested tier is not part of this build.
    UnsupportedTier(Tier),
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
            Error::Compile { rendered, count } => {
                write!(f, "{count} compile error(s):\n{rendered}")
            }
            Error::Runtime(e) => e.fmt(f),
            Error::UnsupportedTier(t) => write!(
                f,
                "tier `{t}` is not available in this build (available: {})",
                crate::engine::AVAILABLE_TIERS.join(", ")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_without_a_location_have_no_arrow_line() {
        let mut e = RuntimeError {
            code: TrapCode::OutOfFuel,
            message: "out of fuel".to_string(),
            location: UNKNOWN_LOCATION.to_string(),
        };
        assert_eq!(e.render(), "error: runtime error: out of fuel\n");
        e.location = "a.wdl:1:2".to_string();
        assert_eq!(
            e.render(),
            "error: runtime error: out of fuel\n  --> a.wdl:1:2\n"
        );
    }
}
