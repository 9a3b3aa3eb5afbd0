//! Compile-time diagnostics and their rendering with `ariadne`.

use crate::ast::Span;
use crate::SourceMap;

/// A compile error: a message at a primary span, with optional secondary
/// labels and notes.
#[derive(Clone, PartialEq, Debug)]
pub struct Diagnostic {
    /// The headline, e.g. "mismatched types: expected `int`, found `float`".
    pub message: String,
    /// Where the error is.
    pub span: Span,
    /// Text attached to the primary span (may be empty).
    pub label: String,
    /// Secondary spans with their texts.
    pub secondary: Vec<(Span, String)>,
    /// Extra notes printed after the snippet.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error with a message at a span.
    pub fn error(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds the primary label text.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Adds a secondary labelled span.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

/// Renders diagnostics as text without colors: each starts with
/// `error: MESSAGE`, then `--> file:line:col`, the source line and a caret.
pub fn render(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let _ = (diags, sources);
    unimplemented!("assigned to the frontend helper")
}
