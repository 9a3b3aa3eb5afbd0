//! IR filetests in the manner of Cranelift's: one `.wir` file per test
//! under `tests/filetests/`, Waddle IR text with a `test` line naming what
//! to do with it and, in `;` comments after each function, directives
//! ([`check`]) its output must match.
//!
//! ```text
//! test opt canon, sccp
//! ; SCCP folds the constant branch.
//! fn fn0 "f"(int) -> int {
//! block0(v0: int):
//!     ...
//! }
//! ; check: v3: int = iconst 6
//! ; not: imul
//! ```
//!
//! The `test` line (the first line that is not blank or a comment) is one of
//! - `test verify` — the input must verify; without directives it must
//!   also print back to itself (the text without comment lines);
//! - `test opt PASS, PASS, ...` — run the named passes of
//!   `waddle_opt::passes` in order, verify the result; each function's
//!   printed text is its output;
//! - `test interp [FUNC]` — run `FUNC` (default: the program's `main`) on the
//!   reference interpreter with the test host; the output is what it prints
//!   followed by `return VALUE` or `trap: MESSAGE at LOCATION`, and every
//!   directive in the file applies to it;
//! - `test baseline ARCH` / `test compile ARCH` — compile with the baseline
//!   tier (T1) or the opt tier's Cranelift back end (T2, position-
//!   independent mode) for `x86_64` or `aarch64`; each function's
//!   disassembly (one instruction per line, addresses relative to the
//!   function) is its output.
//!
//! Directives after a function's text (up to the next function) match that
//! function's output; directives before the first function match the
//! program-level output (for `opt` and `verify`, the lines before the first
//! function). Every test but a round-tripping `verify` needs directives.
//!
//! Bless mode (`WADDLE_BLESS=1`) rewrites the directives of every failing
//! section (or, in a file without directives, of every section) as the
//! precise output: the first line as `check:`, the rest as `nextln:`.
//! Review the diff before committing.

pub mod check;
mod run;

use std::fs;
use std::path::{Path, PathBuf};

use check::{Directive, DirectiveKind};
pub use waddle_jit::disasm::Arch;

/// What a filetest does with its IR.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum TestKind {
    /// `test verify`
    Verify,
    /// `test opt PASSES`
    Opt(Vec<String>),
    /// `test interp [FUNC]`
    Interp(Option<String>),
    /// `test baseline ARCH`
    Baseline(Arch),
    /// `test compile ARCH`
    Compile(Arch),
}

/// The part of a file whose directives match one output section.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Section {
    /// The function (its source name), `None` for the program level.
    pub func: Option<String>,
    /// Its lines in the file, `start..end` (0-based).
    pub start: usize,
    /// See `start`.
    pub end: usize,
    /// Its directives, in order.
    pub directives: Vec<Directive>,
}

/// A parsed filetest.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FileTest {
    /// What to do.
    pub kind: TestKind,
    /// The file's lines.
    pub lines: Vec<String>,
    /// The IR text: the file with its `test` line blanked (line numbers of
    /// parse errors stay those of the file).
    pub ir: String,
    /// The sections, in file order.
    pub sections: Vec<Section>,
}

fn parse_arch(word: Option<&str>) -> Result<Arch, String> {
    match word {
        Some("x86_64") => Ok(Arch::X86_64),
        Some("aarch64") => Ok(Arch::Aarch64),
        other => Err(format!(
            "expected `x86_64` or `aarch64` after the test kind, found {other:?}"
        )),
    }
}

fn parse_test_line(rest: &str) -> Result<TestKind, String> {
    let mut words = rest.split_whitespace();
    let kind = words.next().unwrap_or("");
    let args: Vec<&str> = rest
        .trim_start()
        .strip_prefix(kind)
        .unwrap_or("")
        .split([',', ' '])
        .filter(|w| !w.is_empty())
        .collect();
    let kind = match kind {
        "verify" => TestKind::Verify,
        "opt" if args.is_empty() => return Err("`test opt` names no pass".into()),
        "opt" => TestKind::Opt(args.iter().map(|s| s.to_string()).collect()),
        "interp" => TestKind::Interp(args.first().map(|s| s.to_string())),
        "baseline" => TestKind::Baseline(parse_arch(args.first().copied())?),
        "compile" => TestKind::Compile(parse_arch(args.first().copied())?),
        other => {
            return Err(format!(
                "unknown test kind `{other}` (verify, opt, interp, baseline, compile)"
            ))
        }
    };
    let extra = match &kind {
        TestKind::Verify => args.len(),
        TestKind::Opt(_) => 0,
        _ => args.len().saturating_sub(1),
    };
    if extra > 0 {
        return Err(format!("unexpected arguments in `test {rest}`"));
    }
    Ok(kind)
}

/// The source name of the function a `fn` header line declares.
fn header_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix("fn ")?;
    let open = rest.find('"')?;
    let mut name = String::new();
    let mut chars = rest[open + 1..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(name),
            '\\' => name.push(chars.next()?),
            c => name.push(c),
        }
    }
    None
}

impl FileTest {
    /// Parses a filetest's text.
    pub fn parse(text: &str) -> Result<FileTest, String> {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let test_line = lines
            .iter()
            .position(|l| {
                let t = l.trim();
                !t.is_empty() && !t.starts_with(';')
            })
            .filter(|&i| lines[i].starts_with("test "))
            .ok_or("the first line that is not a comment must be `test KIND ...`")?;
        let kind = parse_test_line(&lines[test_line]["test ".len()..])?;
        let mut ir = String::new();
        for (i, l) in lines.iter().enumerate() {
            if i != test_line {
                ir.push_str(l);
            }
            ir.push('\n');
        }
        let mut sections = vec![Section {
            func: None,
            start: 0,
            end: lines.len(),
            directives: Vec::new(),
        }];
        let whole_file = matches!(kind, TestKind::Interp(_));
        for (i, l) in lines.iter().enumerate() {
            if let (false, Some(name)) = (whole_file, header_name(l)) {
                let last = sections.last_mut().expect("a section");
                last.end = i;
                sections.push(Section {
                    func: Some(name),
                    start: i,
                    end: lines.len(),
                    directives: Vec::new(),
                });
            }
            if let Some((kind, pattern)) = DirectiveKind::parse(l) {
                let last = sections.last_mut().expect("a section");
                last.directives.push(Directive {
                    kind,
                    pattern: pattern.to_string(),
                    line: i + 1,
                });
            }
        }
        Ok(FileTest {
            kind,
            lines,
            ir,
            sections,
        })
    }

    /// Whether the file has any directive.
    pub fn has_directives(&self) -> bool {
        self.sections.iter().any(|s| !s.directives.is_empty())
    }

    /// The file with the directives of the sections in `bless` replaced by
    /// `precise` directives for their outputs (see [`check::precise`]).
    pub fn blessed(&self, bless: &[(usize, &str)]) -> String {
        let mut out = String::new();
        for (index, s) in self.sections.iter().enumerate() {
            let new = bless.iter().find(|(i, _)| *i == index).map(|(_, o)| *o);
            let body = &self.lines[s.start..s.end];
            let Some(output) = new else {
                for l in body {
                    out.push_str(l);
                    out.push('\n');
                }
                continue;
            };
            // Directives go after the function's closing brace, or after
            // the section's last line that is not blank or a directive.
            let keep: Vec<&String> = body
                .iter()
                .filter(|l| DirectiveKind::parse(l).is_none())
                .collect();
            let at = keep
                .iter()
                .rposition(|l| l.as_str() == "}")
                .or_else(|| keep.iter().rposition(|l| !l.trim().is_empty()))
                .map_or(0, |i| i + 1);
            for l in &keep[..at] {
                out.push_str(l);
                out.push('\n');
            }
            for (kind, pattern) in check::precise(output) {
                out.push_str(format!("; {} {pattern}", kind.keyword()).trim_end());
                out.push('\n');
            }
            for l in &keep[at..] {
                out.push_str(l);
                out.push('\n');
            }
        }
        out
    }
}

/// Whether bless mode is on (`WADDLE_BLESS=1`).
fn bless_mode() -> bool {
    std::env::var("WADDLE_BLESS").is_ok_and(|v| v == "1")
}

/// Runs the filetest at `path`: `Err` describes every mismatch. In bless
/// mode a failing file is rewritten (see the module documentation) and
/// the test passes.
pub fn run_file(path: &Path) -> Result<(), String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let test = FileTest::parse(&text)?;
    let outputs = run::outputs(&test)?;
    let output_of = |func: &Option<String>| {
        outputs
            .iter()
            .find(|(f, _)| f == func)
            .map(|(_, o)| o.as_str())
    };
    let mut failures = Vec::new();
    let mut to_bless: Vec<(usize, &str)> = Vec::new();
    for (index, s) in test.sections.iter().enumerate() {
        let what = s
            .func
            .as_deref()
            .map_or("the program".to_string(), |f| format!("function {f:?}"));
        let Some(output) = output_of(&s.func) else {
            if !s.directives.is_empty() {
                failures.push(format!("{what} has directives but no output"));
            }
            continue;
        };
        if s.directives.is_empty() {
            let whole = matches!(test.kind, TestKind::Interp(_));
            if !test.has_directives() && !output.is_empty() && (s.func.is_some() || whole) {
                to_bless.push((index, output));
            }
            continue;
        }
        if let Err(m) = check::check(output, &s.directives) {
            failures.push(format!("{what}: {m}\n--- output of {what}:\n{output}"));
            to_bless.push((index, output));
        }
    }
    if !test.has_directives() {
        if test.kind == TestKind::Verify {
            return run::round_trip(&test);
        }
        failures.push("the file has no check directives (WADDLE_BLESS=1 writes them)".into());
    }
    if failures.is_empty() {
        return Ok(());
    }
    if bless_mode() {
        fs::write(path, test.blessed(&to_bless)).map_err(|e| e.to_string())?;
        eprintln!("blessed {}", path.display());
        return Ok(());
    }
    Err(failures.join("\n"))
}

/// The filetest directory (`lang-tests/tests/filetests`).
pub fn filetest_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests")
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "; about\ntest opt canon, dce\nmain fn0\n; check: main\n\nfn fn0 \"a \\\"b\"() -> void {\nblock0:\n    return\n}\n; check: return\n";

    #[test]
    fn parses_kind_sections_and_directives() {
        let t = FileTest::parse(FILE).expect("parses");
        assert_eq!(t.kind, TestKind::Opt(vec!["canon".into(), "dce".into()]));
        assert_eq!(t.sections.len(), 2);
        assert_eq!(t.sections[1].func.as_deref(), Some("a \"b"));
        assert_eq!(t.sections[0].directives[0].pattern, "main");
        assert_eq!(t.sections[1].directives[0].line, 10);
        assert!(t.ir.starts_with("; about\n\nmain fn0\n"));
        assert!(FileTest::parse("fn fn0 \"f\"() -> void\n").is_err());
        assert!(FileTest::parse("test opt\n").is_err());
        assert!(FileTest::parse("test baseline riscv\n").is_err());
        assert!(FileTest::parse("test verify extra\n").is_err());
        assert_eq!(
            FileTest::parse("test compile aarch64\n").map(|t| t.kind),
            Ok(TestKind::Compile(Arch::Aarch64))
        );
    }

    #[test]
    fn bless_replaces_directives_after_the_closing_brace() {
        let t = FileTest::parse(FILE).expect("parses");
        let out = t.blessed(&[(1, "x\ny\n")]);
        assert!(out.ends_with("}\n; check: x\n; nextln: y\n"), "{out}");
        assert!(out.contains("; check: main\n"));
    }
}
