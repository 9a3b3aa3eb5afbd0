//! Compile-time diagnostics and their rendering with `ariadne`.

use crate::ast::Span;
use crate::SourceMap;
use ariadne::{CharSet, Config, IndexType, Label, LabelAttach, Report, ReportKind};

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
/// `error: MESSAGE`, then `,-[ file:line:col ]`, the source line and a caret.
pub fn render(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let mut cache = Files {
        sources: sources
            .files
            .iter()
            .map(|f| ariadne::Source::from(f.text.clone()))
            .collect(),
        names: sources.files.iter().map(|f| f.name.clone()).collect(),
    };
    let mut out = String::new();
    for d in diags {
        out.push_str(&render_one(d, sources, &mut cache));
    }
    out
}

/// Renders one diagnostic (ends with a newline).
fn render_one(d: &Diagnostic, sources: &SourceMap, cache: &mut Files) -> String {
    let Some(file) = sources.files.get(d.span.file.0 as usize) else {
        // A span outside the source map: header only.
        let mut s = format!("error: {}\n", d.message);
        for n in &d.notes {
            s.push_str(&format!("  = note: {n}\n"));
        }
        return s;
    };
    // Clamps a span to its file and widens an empty one to the character
    // at (or, at the end of the file, before) it so a caret is drawn.
    let clamp = |sp: Span| -> (u32, std::ops::Range<usize>) {
        let text = sources
            .files
            .get(sp.file.0 as usize)
            .map_or("", |f| f.text.as_str());
        let len = text.len();
        let mut start = (sp.start as usize).min(len);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (sp.end as usize).clamp(start, len);
        while !text.is_char_boundary(end) {
            end += 1;
        }
        if start == end {
            if let Some(c) = text[start..].chars().next() {
                end = start + c.len_utf8();
            } else if let Some(c) = text[..start].chars().next_back() {
                start -= c.len_utf8();
            }
        }
        (sp.file.0, start..end)
    };
    let config = Config::default()
        .with_color(false)
        .with_char_set(CharSet::Ascii)
        .with_index_type(IndexType::Byte)
        .with_label_attach(LabelAttach::Start);
    let primary = clamp(d.span);
    let mut report = Report::build(ReportKind::Error, primary.clone())
        .with_config(config)
        .with_message(&d.message)
        .with_label(labelled(Label::new(primary), &d.label).with_order(0));
    for (i, (sp, text)) in d.secondary.iter().enumerate() {
        if (sp.file.0 as usize) < sources.files.len() {
            report =
                report.with_label(labelled(Label::new(clamp(*sp)), text).with_order(i as i32 + 1));
        }
    }
    for n in &d.notes {
        report = report.with_note(n);
    }
    let mut buf = Vec::new();
    if report.finish().write(&mut *cache, &mut buf).is_err() {
        let (line, col) = file.line_col(d.span.start);
        return format!("error: {}\n --> {}:{line}:{col}\n", d.message, file.name);
    }
    let text = caretize(&String::from_utf8_lossy(&buf));
    // ariadne spells the kind `Error`; the language contract wants `error`.
    match text.strip_prefix("Error:") {
        Some(rest) => format!("error:{rest}"),
        None => text,
    }
}

/// In the row right under each quoted source line, turns ariadne's ASCII
/// label stems (`|`) into carets, so a one-character span shows `^` like a
/// longer one shows `^^^`.
fn caretize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut after_source = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let is_source = trimmed
            .split_once(" | ")
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if after_source {
            if let Some(bar) = line.find('|') {
                let (margin, rest) = line.split_at(bar + 1);
                out.push_str(margin);
                out.push_str(&rest.replace('|', "^"));
                after_source = is_source;
                continue;
            }
        }
        out.push_str(line);
        after_source = is_source;
    }
    out
}

/// Attaches a message to a label unless it is empty (then only the
/// underline is drawn).
fn labelled(
    l: Label<(u32, std::ops::Range<usize>)>,
    text: &str,
) -> Label<(u32, std::ops::Range<usize>)> {
    // ariadne draws no underline for a label without a message.
    l.with_message(if text.is_empty() { "here" } else { text })
}

/// An `ariadne` source cache over the files of a [`SourceMap`], keyed by
/// file index and displayed by file name.
struct Files {
    sources: Vec<ariadne::Source<String>>,
    names: Vec<String>,
}

impl ariadne::Cache<u32> for Files {
    type Storage = String;

    fn fetch(&mut self, id: &u32) -> Result<&ariadne::Source<String>, impl std::fmt::Debug> {
        self.sources
            .get(*id as usize)
            .ok_or_else(|| format!("no source file {id}"))
    }

    fn display<'a>(&self, id: &'a u32) -> Option<impl std::fmt::Display + 'a> {
        self.names.get(*id as usize).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::FileId;
    use crate::SourceFile;

    fn map(text: &str) -> SourceMap {
        let mut sm = SourceMap::default();
        sm.add(SourceFile::new("prog.wdl", text));
        sm
    }

    fn span(start: u32, end: u32) -> Span {
        Span {
            file: FileId(0),
            start,
            end,
        }
    }

    #[test]
    fn renders_location_line_and_caret() {
        let sm = map("let a = 1;\nlet b = 2;\nlet c = a + 1.5;\n");
        let d = Diagnostic::error(
            "mismatched types: expected `int`, found `float`",
            span(34, 37),
        )
        .with_label("expected `int`")
        .with_note("no implicit conversions");
        let out = render(&[d], &sm);
        assert!(out.starts_with("error: mismatched types"), "{out}");
        assert!(out.contains("prog.wdl:3:13"), "{out}");
        assert!(out.contains("let c = a + 1.5;"), "{out}");
        assert!(out.contains('^'), "{out}");
        assert!(out.contains("no implicit conversions"), "{out}");
        assert!(!out.contains('\u{1b}'), "no color codes: {out}");
    }

    #[test]
    fn columns_count_characters_and_edges_are_safe() {
        let sm = map("let s = \"é\"; x");
        let out = render(
            &[Diagnostic::error("undefined variable `x`", span(14, 15))],
            &sm,
        );
        println!("{out}");
        assert!(out.contains("prog.wdl:1:14"), "{out}");
        assert!(out.contains("|              ^"), "{out}");
        // Empty span at end of file, span past the end, several diagnostics.
        let d1 = Diagnostic::error("expected `;`", span(16, 16));
        let d2 = Diagnostic::error("weird", span(100, 200));
        let out = render(&[d1, d2], &sm);
        println!("{out}");
        assert_eq!(out.matches("error: ").count(), 2, "{out}");
        let empty = map("");
        let out = render(&[Diagnostic::error("empty", span(0, 0))], &empty);
        assert!(out.starts_with("error: empty"), "{out}");
        assert!(out.contains("prog.wdl:1:1"), "{out}");
    }
}
