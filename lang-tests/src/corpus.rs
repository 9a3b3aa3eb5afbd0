//! The program corpus under `tests/programs/`: finding `.wdl` files and
//! reading what each is expected to do.
//!
//! Every `X.wdl` has a sibling `X.out` with its exact expected standard
//! output. Programs that must fail say so in header comments anywhere in the
//! file (conventionally at the top):
//!
//! ```text
//! // exit: 2
//! // stderr: runtime error: division by zero
//! // stderr: runtime-errors/div_zero.wdl:4:13
//! ```
//!
//! `exit` is the expected exit code (0 when absent); every `stderr` line is a
//! fragment that must occur in standard error, verbatim.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The directory holding the corpus (`lang-tests/tests/programs`).
pub fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

/// What a corpus program is expected to produce.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Expectation {
    /// Exact standard output.
    pub stdout: Vec<u8>,
    /// Exit code: 0 success, 1 compile error, 2 runtime error.
    pub exit_code: i32,
    /// Fragments that must each occur in standard error.
    pub stderr: Vec<String>,
}

/// One program of the corpus.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Program {
    /// Path relative to [`programs_dir`], with `/` separators; this is the
    /// file name passed to the driver, so error locations are stable.
    pub name: String,
    /// Full path of the `.wdl` file.
    pub path: PathBuf,
    /// Path of the `.out` file (it may be missing; see [`Program::load`]).
    pub out_path: PathBuf,
    /// Source text.
    pub source: String,
}

/// A problem with the corpus itself (not with the implementation).
#[derive(Debug)]
pub struct CorpusError {
    /// The file concerned.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for CorpusError {}

impl Program {
    /// Reads the expectation: `X.out` plus the header comments of the source.
    pub fn expectation(&self) -> Result<Expectation, CorpusError> {
        let stdout = fs::read(&self.out_path).map_err(|e| CorpusError {
            path: self.out_path.clone(),
            message: format!("cannot read expected output: {e}"),
        })?;
        let (exit_code, stderr) = parse_header(&self.source).map_err(|message| CorpusError {
            path: self.path.clone(),
            message,
        })?;
        Ok(Expectation {
            stdout,
            exit_code,
            stderr,
        })
    }
}

/// Reads the `// exit:` and `// stderr:` lines of a source text.
pub fn parse_header(source: &str) -> Result<(i32, Vec<String>), String> {
    let mut exit_code = 0;
    let mut stderr = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}').trim_start();
        if let Some(rest) = line.strip_prefix("// exit:") {
            exit_code = rest
                .trim()
                .parse()
                .map_err(|_| format!("line {}: bad `// exit:` value", n + 1))?;
        } else if let Some(rest) = line.strip_prefix("// stderr:") {
            let frag = rest.trim();
            if frag.is_empty() {
                return Err(format!("line {}: empty `// stderr:` fragment", n + 1));
            }
            stderr.push(frag.to_string());
        }
    }
    if !matches!(exit_code, 0..=2) {
        return Err(format!("exit code {exit_code} is not 0, 1 or 2"));
    }
    Ok((exit_code, stderr))
}

/// Every `.wdl` file under `dir`, sorted by relative name, whose name
/// contains `filter` (all when `None`).
pub fn discover(dir: &Path, filter: Option<&str>) -> io::Result<Vec<Program>> {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let name = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        if filter.is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let bytes = fs::read(&path)?;
        let source = String::from_utf8(bytes).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })?;
        out.push(Program {
            name,
            out_path: path.with_extension("out"),
            path,
            source,
        });
    }
    Ok(out)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "wdl") {
            files.push(path);
        }
    }
    Ok(())
}

/// The value of environment variable `name` when set and not empty.
pub fn env_nonempty(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_are_read() {
        let src = "// exit: 2\n// stderr: runtime error: x\nprint(1);\n  // stderr: a.wdl:1:2\n";
        let (code, frags) = parse_header(src).unwrap();
        assert_eq!(code, 2);
        assert_eq!(frags, vec!["runtime error: x", "a.wdl:1:2"]);
    }

    #[test]
    fn bad_headers_are_rejected() {
        assert!(parse_header("// exit: x\n").is_err());
        assert!(parse_header("// exit: 7\n").is_err());
        assert!(parse_header("// stderr:\n").is_err());
        assert_eq!(parse_header("print(1);").unwrap(), (0, vec![]));
    }
}
