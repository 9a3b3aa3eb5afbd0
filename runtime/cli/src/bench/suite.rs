//! The benchmark suite on disk: `DIR/<name>/<name>.wdl` plus optional
//! `<name>.c`, `<name>.lua`, `<name>.luajit.lua`, `<name>.py`.
//!
//! A program's sizes come from its source: the last non-blank line is
//! `main(N);` (the full size, so `waddle run` runs the real benchmark) and a
//! comment `// bench: quick=Q` gives the `--quick` size.

use std::path::{Path, PathBuf};

/// One program of the suite.
#[derive(Clone, Debug)]
pub struct BenchProgram {
    /// The directory name.
    pub name: String,
    /// The Waddle program.
    pub wdl: PathBuf,
    /// The full problem size (`main(N);`).
    pub size: i64,
    /// The `--quick` size.
    pub quick_size: i64,
    /// The C reference, if present.
    pub c: Option<PathBuf>,
    /// The Lua reference, if present.
    pub lua: Option<PathBuf>,
    /// The LuaJIT reference: `<name>.luajit.lua` (Lua 5.1 dialect), else
    /// the Lua 5.4 one.
    pub luajit: Option<PathBuf>,
    /// The Python reference, if present.
    pub py: Option<PathBuf>,
}

/// The suite directory: `explicit`, else the runtime crate's `bench/`
/// (when the build tree is still there), else `./runtime/cli/bench` or `./bench`.
pub fn find_dir(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(d) = explicit {
        return if d.is_dir() {
            Ok(d.to_path_buf())
        } else {
            Err(format!("suite directory `{}` does not exist", d.display()))
        };
    }
    let candidates = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("bench"),
        PathBuf::from("runtime/cli/bench"),
        PathBuf::from("bench"),
    ];
    candidates
        .into_iter()
        .find(|d| d.is_dir())
        .ok_or_else(|| "cannot find the benchmark suite; pass --dir DIR".to_string())
}

/// The programs named in `names` (all, sorted by name, when empty).
pub fn select(dir: &Path, names: &[String]) -> Result<Vec<BenchProgram>, String> {
    let mut all = Vec::new();
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if path.join(format!("{name}.wdl")).is_file() {
            all.push(name.to_string());
        }
    }
    all.sort();
    let chosen: Vec<String> = if names.is_empty() {
        all
    } else {
        for n in names {
            if !all.contains(n) {
                return Err(format!(
                    "no benchmark named `{n}` in `{}` (available: {})",
                    dir.display(),
                    all.join(", ")
                ));
            }
        }
        names.to_vec()
    };
    chosen.iter().map(|n| load(dir, n)).collect()
}

/// Reads one program's sizes and finds its references.
pub fn load(dir: &Path, name: &str) -> Result<BenchProgram, String> {
    let base = dir.join(name);
    let wdl = base.join(format!("{name}.wdl"));
    let source = std::fs::read_to_string(&wdl)
        .map_err(|e| format!("cannot read `{}`: {e}", wdl.display()))?;
    let (_, size) = split_main_call(&source)
        .ok_or_else(|| format!("`{}` must end with a line `main(N);`", wdl.display()))?;
    let quick_size = quick_size(&source)
        .ok_or_else(|| format!("`{}` lacks a `// bench: quick=N` comment", wdl.display()))?;
    let existing = |ext: &str| {
        let p = base.join(format!("{name}.{ext}"));
        p.is_file().then_some(p)
    };
    Ok(BenchProgram {
        name: name.to_string(),
        size,
        quick_size,
        c: existing("c"),
        lua: existing("lua"),
        luajit: existing("luajit.lua").or_else(|| existing("lua")),
        py: existing("py"),
        wdl,
    })
}

/// Splits a suite program into its declarations and the size of its final
/// `main(N);` line; `None` when the last non-blank line is not such a call.
pub fn split_main_call(source: &str) -> Option<(&str, i64)> {
    let trimmed = source.trim_end();
    let start = trimmed.rfind('\n').map_or(0, |i| i + 1);
    let last = trimmed[start..].trim();
    let arg = last.strip_prefix("main(")?.strip_suffix(");")?;
    let size = arg.trim().replace('_', "").parse::<i64>().ok()?;
    Some((&trimmed[..start], size))
}

/// The `N` of a `// bench: quick=N` comment.
pub fn quick_size(source: &str) -> Option<i64> {
    source.lines().find_map(|line| {
        let rest = line
            .trim()
            .strip_prefix("//")?
            .trim()
            .strip_prefix("bench:")?;
        rest.split_whitespace()
            .find_map(|kv| kv.strip_prefix("quick="))?
            .parse()
            .ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_call_and_quick_size() {
        let src = "// bench: quick=7\nfn main(n: int) { print(n); }\n\nmain(1_000);\n\n";
        let (decls, n) = split_main_call(src).unwrap();
        assert_eq!(n, 1000);
        assert_eq!(
            decls,
            "// bench: quick=7\nfn main(n: int) { print(n); }\n\n"
        );
        assert_eq!(quick_size(src), Some(7));
        assert_eq!(split_main_call("main(x);"), None);
        assert_eq!(split_main_call("fn main(n: int) {}"), None);
        assert_eq!(quick_size("// nothing here"), None);
    }

    #[test]
    fn the_shipped_suite_is_well_formed() {
        let dir = find_dir(None).unwrap();
        let all = select(&dir, &[]).unwrap();
        assert!(all.len() >= 10, "{all:?}");
        for p in &all {
            assert!(p.quick_size > 0 && p.quick_size < p.size, "{p:?}");
            assert!(p.c.is_some() && p.lua.is_some() && p.py.is_some(), "{p:?}");
        }
        assert!(select(&dir, &["no_such_program".to_string()]).is_err());
    }
}
