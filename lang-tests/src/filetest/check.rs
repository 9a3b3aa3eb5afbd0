//! Matching an output section against its `check:`/`nextln:`/`not:`
//! directives, in the manner of LLVM's FileCheck and Cranelift's
//! `filecheck`: each directive's pattern is literal text matched as a
//! substring of one output line, with runs of whitespace on both sides
//! treated as one space.
//!
//! - `check: P` — the first line at or after the line following the previous
//!   match that contains `P`;
//! - `nextln: P` — the line right after the previous match must contain `P`;
//! - `not: P` — no line between the previous match and the next one (or the
//!   end of the section) contains `P`.

use std::fmt;

/// The kind of a directive.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum DirectiveKind {
    /// `check:`
    Check,
    /// `nextln:`
    Nextln,
    /// `not:`
    Not,
}

impl DirectiveKind {
    /// The directive's keyword with its colon.
    pub fn keyword(self) -> &'static str {
        match self {
            DirectiveKind::Check => "check:",
            DirectiveKind::Nextln => "nextln:",
            DirectiveKind::Not => "not:",
        }
    }

    /// Recognizes a `; keyword: pattern` comment line.
    pub fn parse(line: &str) -> Option<(DirectiveKind, &str)> {
        let body = line.trim_start().strip_prefix(';')?.trim_start();
        [
            DirectiveKind::Check,
            DirectiveKind::Nextln,
            DirectiveKind::Not,
        ]
        .into_iter()
        .find_map(|k| Some((k, body.strip_prefix(k.keyword())?.trim())))
    }
}

/// One directive with its line in the test file (1-based).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Directive {
    /// What it asks.
    pub kind: DirectiveKind,
    /// The text to look for.
    pub pattern: String,
    /// Its line in the test file.
    pub line: usize,
}

/// Why a section does not match its directives.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Mismatch {
    /// The directive that failed.
    pub directive: Directive,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: `{} {}`: {}",
            self.directive.line,
            self.directive.kind.keyword(),
            self.directive.pattern,
            self.message
        )
    }
}

/// Collapses runs of whitespace into one space and trims.
fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Matches `output` against `directives` in order.
pub fn check(output: &str, directives: &[Directive]) -> Result<(), Mismatch> {
    let lines: Vec<String> = output.lines().map(normalize).collect();
    // Next line a `check:` may match, the last matched line, pending `not:`s.
    let mut pos = 0;
    let mut last: Option<usize> = None;
    let mut nots: Vec<&Directive> = Vec::new();
    let fail = |d: &Directive, message: String| Mismatch {
        directive: d.clone(),
        message,
    };
    let check_nots = |nots: &mut Vec<&Directive>, range: std::ops::Range<usize>| {
        for d in nots.drain(..) {
            let pat = normalize(&d.pattern);
            if let Some(i) = range.clone().find(|&i| lines[i].contains(&pat)) {
                return Err(fail(
                    d,
                    format!("found on output line {}: {}", i + 1, lines[i]),
                ));
            }
        }
        Ok(())
    };
    for d in directives {
        let pat = normalize(&d.pattern);
        let found = match d.kind {
            DirectiveKind::Not => {
                nots.push(d);
                continue;
            }
            DirectiveKind::Check => (pos..lines.len()).find(|&i| lines[i].contains(&pat)),
            DirectiveKind::Nextln => {
                let Some(prev) = last else {
                    return Err(fail(d, "`nextln:` needs a previous match".into()));
                };
                Some(prev + 1).filter(|&i| i < lines.len() && lines[i].contains(&pat))
            }
        };
        let Some(i) = found else {
            let near = match d.kind {
                DirectiveKind::Nextln => lines.get(pos).cloned().unwrap_or_default(),
                _ => String::new(),
            };
            let message = if near.is_empty() {
                "not found".to_string()
            } else {
                format!("next line is: {near}")
            };
            return Err(fail(d, message));
        };
        check_nots(&mut nots, pos..i)?;
        last = Some(i);
        pos = i + 1;
    }
    check_nots(&mut nots, pos..lines.len())
}

/// The directives that match `output` exactly: its first line as
/// `check:`, every other line as `nextln:` (what bless mode writes).
pub fn precise(output: &str) -> Vec<(DirectiveKind, String)> {
    output
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let kind = if i == 0 {
                DirectiveKind::Check
            } else {
                DirectiveKind::Nextln
            };
            (kind, l.trim_end().to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(text: &str) -> Vec<Directive> {
        text.lines()
            .enumerate()
            .filter_map(|(i, l)| {
                let (kind, p) = DirectiveKind::parse(l)?;
                Some(Directive {
                    kind,
                    pattern: p.to_string(),
                    line: i + 1,
                })
            })
            .collect()
    }

    const OUT: &str = "a = 1\n  b  =   2\nc = 3\nd = 4\n";

    #[test]
    fn check_nextln_not() {
        assert!(check(OUT, &dirs("; check: b = 2\n; nextln: c = 3")).is_ok());
        assert!(check(OUT, &dirs("; check: a\n; not: x\n; check: d")).is_ok());
        assert!(check(OUT, &dirs("; check: a\n; not: c\n; check: d")).is_err());
        assert!(check(OUT, &dirs("; check: a\n; nextln: c")).is_err());
        assert!(check(OUT, &dirs("; check: c\n; check: a")).is_err());
        assert!(check(OUT, &dirs("; check: d\n; not: =")).is_ok());
        assert!(check(OUT, &dirs("; check: a\n; not: d")).is_err());
        assert!(check(OUT, &dirs("; nextln: a")).is_err());
        assert!(check(OUT, &dirs("; check: zzz")).is_err());
    }

    #[test]
    fn precise_directives_match_their_output() {
        let text: String = precise(OUT)
            .into_iter()
            .map(|(k, p)| format!("; {} {p}\n", k.keyword()))
            .collect();
        assert!(check(OUT, &dirs(&text)).is_ok());
        assert!(check("a = 1\nx\n", &dirs(&text)).is_err());
    }
}
