//! The lang-test programs as a benchmark corpus: every
//! `lang-tests/tests/programs/**/*.wdl` that compiles (the
//! `compile-errors` group and any program the frontend rejects are
//! skipped), lowered by the frontend and canonicalized (Fritz §10.4 asks
//! for real programs next to generated ones).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};
use waddle_opt::canon::{canonicalize, check_canonical};
use waddle_opt::ir::{FuncId, Program};

/// One compiled lang-test program.
pub struct CorpusProgram {
    /// The program's directory under `programs/` (e.g. `control`).
    pub group: String,
    /// Its path relative to `programs/`.
    pub name: String,
    /// The program as the frontend lowered it (before any pass).
    pub lowered: Program,
    /// The lowered program with every function body canonicalized.
    pub program: Program,
    /// The functions with a body in canonical form.
    pub funcs: Vec<FuncId>,
}

/// The lang-test corpus directory.
fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../lang-tests/tests/programs")
}

/// Every `.wdl` file under `dir`.
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

/// Compiles the corpus, sorted by name; returns the programs and the
/// number of files skipped (the `compile-errors` group, and any other
/// program the frontend rejects).
pub fn load() -> io::Result<(Vec<CorpusProgram>, usize)> {
    let dir = programs_dir();
    let mut files = Vec::new();
    walk(&dir, &mut files)?;
    files.sort();
    let (mut out, mut skipped) = (Vec::new(), 0);
    for path in files {
        let rel = path.strip_prefix(&dir).unwrap_or(&path);
        let name = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let group = match name.split_once('/') {
            Some((g, _)) => g.to_string(),
            None => String::from("."),
        };
        if group == "compile-errors" {
            skipped += 1;
            continue;
        }
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new(name.clone(), fs::read_to_string(&path)?));
        let Ok(compiled) = compile(&sources, &CompileOptions::default()) else {
            skipped += 1;
            continue;
        };
        let lowered = compiled.program;
        let mut program = lowered.clone();
        let mut funcs = Vec::new();
        for (id, f) in program.funcs.iter_mut() {
            if f.is_declaration() {
                continue;
            }
            canonicalize(f);
            if check_canonical(f).is_ok() {
                funcs.push(id);
            }
        }
        out.push(CorpusProgram {
            group,
            name,
            lowered,
            program,
            funcs,
        });
    }
    Ok((out, skipped))
}
