//! Reference implementations: C (`cc -O2`, compiled once into a cache
//! directory), Lua 5.4, LuaJIT and Python 3, each when installed. LuaJIT
//! speaks Lua 5.1 (no integer subtype, `//` or `~`), so it runs a
//! program's `<name>.luajit.lua` when there is one.
//!
//! C is built with `-ffp-contract=off` so the compiler cannot fuse
//! multiply-adds, which would change float results (and the checksums)
//! compared with Waddle's separately rounded operations. Python is run
//! through its real executable (`sys.executable`), not a version-manager
//! shim, so start-up is not inflated.
//!
//! When a C compiler is present, every reference runs under a tiny launcher
//! (`launch.c`) that reports the program's own peak memory; otherwise the
//! process is spawned directly and its peak includes the harness's
//! footprint at spawn time (a note says so).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::report::{Measurement, ReferenceInfo, C_NAME};
use super::suite::BenchProgram;
use super::{process, secs};

/// Flags the C references are compiled with (before the source).
pub const CC_FLAGS: [&str; 2] = ["-O2", "-ffp-contract=off"];

/// The reference toolchains found on this machine.
#[derive(Clone, Debug, Default)]
pub struct Toolchains {
    launcher: Option<PathBuf>,
    cc: Option<Tool>,
    lua: Option<Tool>,
    luajit: Option<Tool>,
    python: Option<Tool>,
}

#[derive(Clone, Debug)]
struct Tool {
    command: PathBuf,
    version: String,
}

/// The first line of `cmd args` output (stdout, else stderr), if it ran
/// successfully.
fn probe(cmd: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = if out.stdout.is_empty() {
        out.stderr
    } else {
        out.stdout
    };
    Some(
        String::from_utf8_lossy(&text)
            .lines()
            .next()?
            .trim()
            .to_string(),
    )
}

impl Toolchains {
    /// No references (`--no-ref`).
    pub fn none() -> Toolchains {
        Toolchains::default()
    }

    /// Looks for `$CC` or `cc`, `lua5.4` (or a `lua` that is 5.4) and
    /// `python3`; notes the missing ones.
    pub fn detect(notes: &mut Vec<String>) -> Toolchains {
        let cc_cmd = PathBuf::from(std::env::var("CC").unwrap_or_else(|_| "cc".to_string()));
        let cc = probe(&cc_cmd, &["--version"]).map(|version| Tool {
            command: cc_cmd.clone(),
            version,
        });
        let lua = ["lua5.4", "lua"].iter().find_map(|c| {
            let version = probe(Path::new(c), &["-v"])?;
            version.contains("5.4").then(|| Tool {
                command: PathBuf::from(c),
                version,
            })
        });
        let luajit = probe(Path::new("luajit"), &["-v"]).map(|version| Tool {
            command: PathBuf::from("luajit"),
            version,
        });
        let python = probe(
            Path::new("python3"),
            &["-c", "import sys; print(sys.executable)"],
        )
        .map(PathBuf::from)
        .and_then(|exe| {
            let version = probe(&exe, &["--version"])?;
            Some(Tool {
                command: exe,
                version,
            })
        });
        let launcher = cc.as_ref().and_then(|t| match build_launcher(&t.command) {
            Ok(p) => Some(p),
            Err(e) => {
                notes.push(format!("cannot build the reference launcher ({e}): reference peak memory includes the harness"));
                None
            }
        });
        if cc.is_none() {
            notes.push("no C compiler for the reference launcher: reference peak memory includes the harness".to_string());
        }
        for (tool, what) in [
            (&cc, format!("no C compiler (`{}`)", cc_cmd.display())),
            (&lua, "no `lua5.4`".to_string()),
            (&luajit, "no `luajit`".to_string()),
            (&python, "no `python3`".to_string()),
        ] {
            if tool.is_none() {
                notes.push(format!("{what}: that reference column is skipped"));
            }
        }
        Toolchains {
            launcher,
            cc,
            lua,
            luajit,
            python,
        }
    }

    /// Drops every reference not named in `names` (column names: `C`,
    /// `lua5.4`, `luajit`, `python3`, case-insensitive); `Err` for an
    /// unknown name.
    pub fn keep_only(&mut self, names: &[String]) -> Result<(), String> {
        const KNOWN: [&str; 4] = [C_NAME, "lua5.4", "luajit", "python3"];
        for n in names {
            if !KNOWN.iter().any(|k| k.eq_ignore_ascii_case(n)) {
                return Err(format!(
                    "unknown reference `{n}` (known: {})",
                    KNOWN.join(", ")
                ));
            }
        }
        let wanted = |k: &str| names.iter().any(|n| n.eq_ignore_ascii_case(k));
        for (name, tool) in [
            (C_NAME, &mut self.cc),
            ("lua5.4", &mut self.lua),
            ("luajit", &mut self.luajit),
            ("python3", &mut self.python),
        ] {
            if !wanted(name) {
                *tool = None;
            }
        }
        Ok(())
    }

    /// Every reference with its command (`None` when missing).
    pub fn describe(&self) -> Vec<ReferenceInfo> {
        [
            (C_NAME, &self.cc),
            ("lua5.4", &self.lua),
            ("luajit", &self.luajit),
            ("python3", &self.python),
        ]
        .into_iter()
        .map(|(name, t)| ReferenceInfo {
            name: name.to_string(),
            command: t.as_ref().map(|t| t.command.display().to_string()),
            version: t.as_ref().map(|t| t.version.clone()),
        })
        .collect()
    }

    /// The references `program` has and this machine can run.
    pub fn for_program(&self, program: &BenchProgram) -> Vec<Reference> {
        let mut out = Vec::new();
        if let (Some(t), Some(src)) = (&self.cc, &program.c) {
            out.push(Reference {
                lang: Lang::C,
                tool: t.command.clone(),
                source: src.clone(),
                launcher: self.launcher.clone(),
            });
        }
        if let (Some(t), Some(src)) = (&self.lua, &program.lua) {
            out.push(Reference {
                lang: Lang::Lua,
                tool: t.command.clone(),
                source: src.clone(),
                launcher: self.launcher.clone(),
            });
        }
        if let (Some(t), Some(src)) = (&self.luajit, &program.luajit) {
            out.push(Reference {
                lang: Lang::LuaJit,
                tool: t.command.clone(),
                source: src.clone(),
                launcher: self.launcher.clone(),
            });
        }
        if let (Some(t), Some(src)) = (&self.python, &program.py) {
            out.push(Reference {
                lang: Lang::Python,
                tool: t.command.clone(),
                source: src.clone(),
                launcher: self.launcher.clone(),
            });
        }
        out
    }
}

/// Reference languages.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Lang {
    /// C, compiled.
    C,
    /// Lua 5.4.
    Lua,
    /// LuaJIT (a tracing JIT for Lua 5.1).
    LuaJit,
    /// Python 3.
    Python,
}

/// One reference implementation of one program.
#[derive(Clone, Debug)]
pub struct Reference {
    /// Its language.
    pub lang: Lang,
    /// Compiler or interpreter.
    pub tool: PathBuf,
    /// The source file.
    pub source: PathBuf,
    /// The memory-reporting launcher, when built.
    pub launcher: Option<PathBuf>,
}

/// A reference ready to run.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Program and leading arguments.
    argv: Vec<PathBuf>,
    /// The memory-reporting launcher, when built.
    launcher: Option<PathBuf>,
    /// Seconds `cc` took (recorded when the binary was built).
    pub compile_time: Option<f64>,
}

impl Reference {
    /// The column name.
    pub fn label(&self) -> String {
        match self.lang {
            Lang::C => C_NAME.to_string(),
            Lang::Lua => "lua5.4".to_string(),
            Lang::LuaJit => "luajit".to_string(),
            Lang::Python => "python3".to_string(),
        }
    }

    /// Compiles C (unless cached); interpreters need nothing.
    pub fn prepare(&self) -> Result<Prepared, String> {
        match self.lang {
            Lang::C => {
                let (exe, compile_time) = compile_c(&self.tool, &self.source)?;
                Ok(Prepared {
                    argv: vec![exe],
                    launcher: self.launcher.clone(),
                    compile_time,
                })
            }
            Lang::Lua | Lang::LuaJit | Lang::Python => Ok(Prepared {
                argv: vec![self.tool.clone(), self.source.clone()],
                launcher: self.launcher.clone(),
                compile_time: None,
            }),
        }
    }
}

impl Prepared {
    /// Runs it once with problem size `size` (compared by CPU time when
    /// `cpu_time`).
    pub fn run(&self, size: i64, cpu_time: bool) -> Measurement {
        let mut argv = self.argv.clone();
        argv.push(PathBuf::from(size.to_string()));
        let ran = match &self.launcher {
            Some(launcher) => process::run_launched(launcher, &argv),
            None => {
                let mut cmd = Command::new(&argv[0]);
                cmd.args(&argv[1..]);
                process::run(cmd)
            }
        };
        match ran {
            Err(e) => Measurement::failed(e),
            Ok(run) => Measurement {
                ok: run.success(),
                error: (!run.success()).then(|| run.failure()),
                output: String::from_utf8_lossy(&run.stdout).into_owned(),
                time_s: match (cpu_time, run.cpu) {
                    (true, Some(cpu)) => secs(cpu),
                    _ => secs(run.wall),
                },
                wall_s: secs(run.wall),
                cpu_s: run.cpu.map(secs),
                peak_rss_kib: run.peak_rss_kib,
                whole_s: None,
                phases: None,
            },
        }
    }
}

/// The cache directory for compiled C references.
pub fn cache_dir() -> PathBuf {
    std::env::temp_dir().join("waddle-bench-cc")
}

/// The launcher's source (see its header comment).
const LAUNCHER_SOURCE: &str = include_str!("launch.c");

/// Compiles the launcher into the cache.
fn build_launcher(cc: &Path) -> Result<PathBuf, String> {
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let src = dir.join("waddle_bench_launch.c");
    if std::fs::read_to_string(&src).ok().as_deref() != Some(LAUNCHER_SOURCE) {
        let tmp = dir.join(format!("launch.{}.tmp.c", std::process::id()));
        std::fs::write(&tmp, LAUNCHER_SOURCE)
            .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, &src).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    }
    compile_c(cc, &src).map(|(exe, _)| exe)
}

/// Compiles `source` with `cc` into the cache, keyed by the source text,
/// the compiler and the flags; reuses an earlier build. Returns the
/// executable and how long `cc` took to build it (when recorded).
fn compile_c(cc: &Path, source: &Path) -> Result<(PathBuf, Option<f64>), String> {
    let text =
        std::fs::read(source).map_err(|e| format!("cannot read {}: {e}", source.display()))?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    cc.hash(&mut h);
    CC_FLAGS.hash(&mut h);
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("prog");
    let dir = cache_dir();
    let exe = dir.join(format!("{stem}-{:016x}", h.finish()));
    // `cc`'s time is kept beside the cached binary, so the table can show
    // it on later runs too.
    let time_file = exe.with_extension("secs");
    if exe.is_file() {
        let recorded = std::fs::read_to_string(&time_file)
            .ok()
            .and_then(|t| t.trim().parse::<f64>().ok());
        return Ok((exe, recorded));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = dir.join(format!("{stem}.{}.tmp", std::process::id()));
    let start = Instant::now();
    let out = Command::new(cc)
        .args(CC_FLAGS)
        .arg("-o")
        .arg(&tmp)
        .arg(source)
        .arg("-lm")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cc.display()))?;
    let elapsed = start.elapsed();
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp);
        let msg = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "cc failed: {}",
            msg.lines().next().unwrap_or("(no message)")
        ));
    }
    let _ = std::fs::write(&time_file, format!("{}\n", secs(elapsed)));
    std::fs::rename(&tmp, &exe).map_err(|e| format!("cannot store {}: {e}", exe.display()))?;
    Ok((exe, Some(secs(elapsed))))
}
