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
        excerpt: None,
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
    let secondary: Vec<_> = d
        .secondary
        .iter()
        .filter(|(sp, _)| (sp.file.0 as usize) < sources.files.len())
        .map(|(sp, text)| (clamp(*sp), text))
        .collect();
    // Long lines are quoted as a window around the labels: ariadne would
    // print a 200 kB line whole.
    let (true_line, true_col) = file.line_col(primary.1.start as u32);
    let excerpt = {
        let mut spans = vec![primary.1.clone()];
        spans.extend(
            secondary
                .iter()
                .filter(|(s, _)| s.0 == primary.0)
                .map(|(s, _)| s.1.clone()),
        );
        Excerpt::new(&file.text, &spans)
    };
    let place = |(f, r): (u32, std::ops::Range<usize>)| match &excerpt {
        Some(x) if f == primary.0 => (f, x.map(r.start)..x.map(r.end)),
        _ => (f, r),
    };
    // A secondary label cut away with its part of the line is left out.
    let secondary: Vec<_> = secondary
        .into_iter()
        .filter(|(s, _)| s.0 != primary.0 || excerpt.as_ref().is_none_or(|x| x.keeps(s.1.start)))
        .collect();
    let mut report = Report::build(ReportKind::Error, place(primary.clone()))
        .with_config(config)
        .with_message(&d.message)
        .with_label(labelled(Label::new(place(primary.clone())), &d.label).with_order(0));
    for (i, (sp, text)) in secondary.into_iter().enumerate() {
        report = report.with_label(labelled(Label::new(place(sp)), text).with_order(i as i32 + 1));
    }
    for n in &d.notes {
        report = report.with_note(n);
    }
    let mut buf = Vec::new();
    cache.excerpt = excerpt
        .as_ref()
        .map(|x| (primary.0, ariadne::Source::from(x.text.clone())));
    let written = report.finish().write(&mut *cache, &mut buf);
    cache.excerpt = None;
    if written.is_err() {
        return format!(
            "error: {}\n --> {}:{true_line}:{true_col}\n",
            d.message, file.name
        );
    }
    let mut text = caretize(&String::from_utf8_lossy(&buf));
    if let Some(x) = &excerpt {
        // The excerpt shifted columns: the headers name the real place.
        let at = x.map(primary.1.start);
        let line_start = x.text[..at].rfind('\n').map_or(0, |i| i + 1);
        let shown_col = x.text[line_start..at].chars().count() + 1;
        text = text.replace(
            &format!("-[ {}:{true_line}:{shown_col} ]", file.name),
            &format!("-[ {}:{true_line}:{true_col} ]", file.name),
        );
    }
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

/// Longest source line quoted whole, in bytes.
const MAX_QUOTED_LINE: usize = 160;
/// Bytes kept on each side of a label on a line longer than that.
const EXCERPT_MARGIN: usize = 60;

/// A copy of a file's text in which every line longer than
/// [`MAX_QUOTED_LINE`] that holds a label start is cut to a window around
/// the first such start, marked with `...`; `map` moves byte offsets of the
/// original into the copy.
struct Excerpt {
    text: String,
    /// Per cut line, in order: the original line `[start, end)`, the kept
    /// window `[from, to)` and where the window starts in the copy.
    cuts: Vec<Cut>,
}

/// One shortened line of an [`Excerpt`].
struct Cut {
    line: std::ops::Range<usize>,
    window: std::ops::Range<usize>,
    copy_at: usize,
}

impl Excerpt {
    /// The excerpt of `text` for labels at `spans` (byte ranges in `text`),
    /// or `None` when no labelled line is too long.
    fn new(text: &str, spans: &[std::ops::Range<usize>]) -> Option<Excerpt> {
        let mut lines: Vec<(std::ops::Range<usize>, usize)> = Vec::new();
        for sp in spans {
            let start = text[..sp.start].rfind('\n').map_or(0, |i| i + 1);
            let end = text[sp.start..]
                .find('\n')
                .map_or(text.len(), |i| sp.start + i);
            if end - start > MAX_QUOTED_LINE && !lines.iter().any(|(l, _)| l.start == start) {
                lines.push((start..end, sp.start));
            }
        }
        if lines.is_empty() {
            return None;
        }
        lines.sort_by_key(|(l, _)| l.start);
        let boundary_down = |mut i: usize| {
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let mut out = String::with_capacity(text.len());
        let mut cuts = Vec::with_capacity(lines.len());
        let mut done = 0;
        for (line, anchor) in lines {
            let from = boundary_down(anchor.saturating_sub(EXCERPT_MARGIN).max(line.start));
            let to = boundary_down((anchor + EXCERPT_MARGIN).min(line.end));
            out.push_str(&text[done..line.start]);
            if from > line.start {
                out.push_str("...");
            }
            let copy_at = out.len();
            out.push_str(&text[from..to]);
            if to < line.end {
                out.push_str("...");
            }
            done = line.end;
            cuts.push(Cut {
                line,
                window: from..to,
                copy_at,
            });
        }
        out.push_str(&text[done..]);
        Some(Excerpt { text: out, cuts })
    }

    /// Whether byte `pos` of the original is quoted (not cut away).
    fn keeps(&self, pos: usize) -> bool {
        self.cuts
            .iter()
            .find(|c| c.line.start <= pos && pos <= c.line.end)
            .is_none_or(|c| c.window.contains(&pos))
    }

    /// Where byte `pos` of the original lands in the copy (clamped into
    /// the window on a cut line).
    fn map(&self, pos: usize) -> usize {
        let mut shift: isize = 0;
        for c in &self.cuts {
            if pos < c.line.start {
                break;
            }
            if pos <= c.line.end {
                return c.copy_at + pos.clamp(c.window.start, c.window.end) - c.window.start;
            }
            let copy_end = c.copy_at
                + (c.window.end - c.window.start)
                + if c.window.end < c.line.end { 3 } else { 0 };
            shift = copy_end as isize - c.line.end as isize;
        }
        (pos as isize + shift) as usize
    }
}

/// An `ariadne` source cache over the files of a [`SourceMap`], keyed by
/// file index and displayed by file name.
struct Files {
    sources: Vec<ariadne::Source<String>>,
    names: Vec<String>,
    /// While one diagnostic is written: a file's text with long lines cut.
    excerpt: Option<(u32, ariadne::Source<String>)>,
}

impl ariadne::Cache<u32> for Files {
    type Storage = String;

    fn fetch(&mut self, id: &u32) -> Result<&ariadne::Source<String>, impl std::fmt::Debug> {
        if let Some((file, source)) = &self.excerpt {
            if file == id {
                return Ok(source);
            }
        }
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

    #[test]
    fn long_lines_are_quoted_as_a_window_with_the_true_position() {
        // A 200 kB line: the error at column 100 001 quotes ~120 bytes.
        let line = format!("let x = {}y{};", "(".repeat(100_000), ")".repeat(100_000));
        let sm = map(&format!("fn main() {{\n{line}\n}}\n"));
        let at = 12 + 8 + 100_000;
        let d = Diagnostic::error("undefined variable `y`", span(at, at + 1))
            .with_secondary(span(12, 15), "this `let`")
            .with_secondary(span(at + 2, at + 3), "near")
            .with_secondary(span(0, 2), "in this function");
        let out = render(&[d], &sm);
        println!("{out}");
        assert!(out.len() < 1200, "{} bytes", out.len());
        assert!(out.contains("prog.wdl:2:100009"), "{out}");
        assert!(
            out.contains(" | ...((((") && out.contains("(((y)))"),
            "{out}"
        );
        assert!(out.trim_end().lines().all(|l| l.len() < 200), "{out}");
        assert!(
            !out.contains(":2:64 ]"),
            "every header names the true column: {out}"
        );
        assert!(out.contains('^'), "{out}");
        assert!(out.contains("fn main"), "{out}");
        assert!(out.contains("near"), "{out}");
        // A label outside the window is left out rather than misplaced.
        assert!(!out.contains("this `let`"), "{out}");
        // Multi-byte characters near the cut and a span running past the
        // line end stay on character boundaries.
        let line = format!("let s = \"{}\"; z", "é".repeat(200));
        let sm = map(&line);
        let z = line.len() as u32 - 1;
        let out = render(
            &[Diagnostic::error("undefined variable `z`", span(z, z + 5))],
            &sm,
        );
        assert!(out.contains("prog.wdl:1:213"), "{out}");
        assert!(out.contains("\"; z"), "{out}");
    }
}
