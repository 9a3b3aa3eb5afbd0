//! IR filetests: `tests/filetests/*.wir`, text IR in, text IR out.
//!
//! A filetest is IR text (the format of `waddle_opt::ir::print_program`) with
//! directives in `;` comments, which the IR parser ignores:
//!
//! ```text
//! ; passes: canon          (run these passes, comma-separated, in order)
//! ; verify                 (no passes: the input must verify and print back)
//! <program text>
//! ; check:
//! ; <expected printed program, one line per comment line>
//! ```
//!
//! With `; passes:`, the program is parsed, the passes run, the result must
//! pass `verify_program`, and its printed form must equal the `; check:`
//! section. With `; verify`, the input must verify, and print back to the
//! `; check:` section or, when there is none, to the input text itself
//! (without comment lines). `WADDLE_TEST_FILTER` narrows the files;
//! `WADDLE_BLESS=1` rewrites `; check:` sections from actual output (review
//! the diff by hand before committing!).

use std::fs;
use std::path::{Path, PathBuf};

use waddle_lang_tests::corpus::env_nonempty;
use waddle_lang_tests::diff::diff_lines;
use waddle_opt::ir::{parse_program, print_program, verify_program, Program};
use waddle_opt::passes::run_passes;

/// What a filetest asks for.
#[derive(Debug, PartialEq)]
enum Mode {
    Passes(Vec<String>),
    Verify,
}

struct FileTest {
    mode: Mode,
    /// The text before `; check:`.
    input: String,
    /// The expected output, if the file has a `; check:` section.
    check: Option<String>,
}

fn parse_filetest(text: &str) -> Result<FileTest, String> {
    let mut mode = None;
    let mut input = String::new();
    let mut check: Option<String> = None;
    for line in text.lines() {
        if let Some(c) = check.as_mut() {
            let body = line
                .strip_prefix("; ")
                .or_else(|| line.strip_prefix(';'))
                .ok_or_else(|| format!("check line without `;`: {line:?}"))?;
            c.push_str(body);
            c.push('\n');
            continue;
        }
        let trimmed = line.trim();
        if trimmed == "; check:" {
            check = Some(String::new());
        } else if let Some(list) = trimmed.strip_prefix("; passes:") {
            let passes: Vec<String> = list
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
            if passes.is_empty() {
                return Err("`; passes:` lists no pass".into());
            }
            mode = Some(Mode::Passes(passes));
        } else if trimmed == "; verify" {
            mode = Some(Mode::Verify);
        }
        input.push_str(line);
        input.push('\n');
    }
    let mode = mode.ok_or("missing `; passes: ...` or `; verify` directive")?;
    Ok(FileTest { mode, input, check })
}

/// The input text without comment-only lines (what `; verify` expects to
/// print back when there is no check section).
fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with(';') {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Runs the named passes over `program` through the pass registry.
fn apply_passes(program: &mut Program, passes: &[String]) -> Result<(), String> {
    let names: Vec<&str> = passes.iter().map(String::as_str).collect();
    run_passes(program, &names).map_err(|e| e.to_string())
}

fn verify_text(program: &Program) -> Result<(), String> {
    verify_program(program).map_err(|errors| {
        errors
            .iter()
            .map(|e| format!("{e:?}"))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// Runs one filetest; `Ok(actual)` holds the printed output.
fn run_filetest(test: &FileTest) -> Result<String, String> {
    let mut program =
        parse_program(&test.input).map_err(|e| format!("input does not parse: {e}"))?;
    match &test.mode {
        Mode::Verify => {
            verify_text(&program).map_err(|e| format!("input does not verify:\n{e}"))?;
        }
        Mode::Passes(passes) => {
            apply_passes(&mut program, passes)?;
            verify_text(&program)
                .map_err(|e| format!("output of {passes:?} does not verify:\n{e}"))?;
        }
    }
    Ok(print_program(&program))
}

fn bless(path: &Path, text: &str, actual: &str) -> std::io::Result<()> {
    let head = match text.find("\n; check:") {
        Some(i) => &text[..i + 1],
        None => text,
    };
    let mut out = head.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("; check:\n");
    for line in actual.lines() {
        if line.is_empty() {
            out.push_str(";\n");
        } else {
            out.push_str("; ");
            out.push_str(line);
            out.push('\n');
        }
    }
    fs::write(path, out)
}

fn filetest_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let filter = env_nonempty("WADDLE_TEST_FILTER");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "wir"))
        .filter(|p| {
            filter
                .as_deref()
                .is_none_or(|f| p.to_string_lossy().contains(f))
        })
        .collect();
    files.sort();
    files
}

/// The filetests present when this was written: fewer files without a
/// filter means the directory moved or the extension changed, and the
/// test would pass without testing anything (issue 13, defect 6).
const MIN_FILETESTS: usize = 23;

#[test]
fn ir_filetests() {
    let files = filetest_files();
    if env_nonempty("WADDLE_TEST_FILTER").is_none() {
        assert!(
            files.len() >= MIN_FILETESTS,
            "found {} IR filetests, expected at least {MIN_FILETESTS}",
            files.len()
        );
    } else {
        assert!(
            !files.is_empty(),
            "WADDLE_TEST_FILTER selects no IR filetest"
        );
    }
    let do_bless = env_nonempty("WADDLE_BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let test = match parse_filetest(&text) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("=== {name}\nbad filetest: {e}"));
                continue;
            }
        };
        let actual = match run_filetest(&test) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("=== {name}\n{e}"));
                continue;
            }
        };
        let expected = match (&test.check, &test.mode) {
            (Some(c), _) => c.clone(),
            (None, Mode::Verify) => strip_comments(&test.input),
            (None, Mode::Passes(_)) => String::new(),
        };
        if actual != expected {
            if do_bless {
                bless(path, &text, &actual).unwrap_or_else(|e| panic!("bless {name}: {e}"));
                eprintln!("blessed {name}");
            } else if test.check.is_none() && matches!(test.mode, Mode::Passes(_)) {
                failures.push(format!(
                    "=== {name}\nno `; check:` section; actual output:\n{actual}"
                ));
            } else {
                failures.push(format!(
                    "=== {name}\noutput differs (- expected, + actual):\n{}",
                    diff_lines(&expected, &actual)
                ));
            }
        }
    }
    println!("ran {} IR filetests", files.len());
    assert!(
        failures.is_empty(),
        "{} of {} filetests failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn filetest_format_is_parsed() {
    let t = parse_filetest("; passes: canon, dce\nfn fn0 \"f\"() -> void\n; check:\n; a\n;\n")
        .expect("parses");
    assert_eq!(t.mode, Mode::Passes(vec!["canon".into(), "dce".into()]));
    assert_eq!(t.check.as_deref(), Some("a\n\n"));
    assert!(parse_filetest("fn fn0 \"f\"() -> void\n").is_err());
    assert_eq!(strip_comments("; x\n\nfn a\n  ; y\n"), "\nfn a\n");
}
