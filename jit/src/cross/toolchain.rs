//! The external tools of cross-execution: the emulator (`qemu-aarch64`,
//! Debian/Ubuntu package `qemu-user`) and the cross C compiler
//! (`aarch64-linux-gnu-gcc`, package `gcc-aarch64-linux-gnu`), and the
//! loader built with it on demand, cached by content hash.
//!
//! Environment: `WADDLE_QEMU_AARCH64` and `WADDLE_AARCH64_CC` override the
//! tools, `WADDLE_CROSS_CACHE` the cache directory (default: a
//! `waddle-cross` directory in the system's temporary directory).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The loader/runtime source: one C translation unit in four parts (see
/// the comment at the top of `rt/common.h`).
pub const LOADER_SOURCE: &str = concat!(
    include_str!("rt/common.h"),
    include_str!("rt/heap.c"),
    include_str!("rt/format.c"),
    include_str!("rt/loader.c"),
);

/// Flags the loader is compiled with (part of the cache key).
const CC_FLAGS: &[&str] = &["-static", "-O2", "-std=gnu11"];
/// Libraries linked last.
const CC_LIBS: &[&str] = &["-lm", "-lpthread"];

/// A cross-execution problem outside the program itself.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CrossError {
    /// A required tool is not installed.
    MissingTool {
        /// The program looked for.
        tool: String,
        /// The Debian/Ubuntu package that provides it.
        package: &'static str,
    },
    /// The loader did not compile.
    Build(String),
    /// Running the emulator failed, or its output is not a complete run.
    Run(String),
}

impl fmt::Display for CrossError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CrossError::MissingTool { tool, package } => write!(
                f,
                "`{tool}` was not found; running AArch64 code needs it \
                 (install the `{package}` package, e.g. `apt-get install {package}`)"
            ),
            CrossError::Build(m) => write!(f, "building the AArch64 loader failed: {m}"),
            CrossError::Run(m) => write!(f, "running under qemu-aarch64 failed: {m}"),
        }
    }
}

impl std::error::Error for CrossError {}

/// Finds `name` in `PATH` (or takes `override_var`'s value).
fn find_tool(override_var: &str, name: &str, package: &'static str) -> Result<PathBuf, CrossError> {
    let wanted = std::env::var_os(override_var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(name));
    let missing = || CrossError::MissingTool {
        tool: wanted.display().to_string(),
        package,
    };
    if wanted.components().count() > 1 {
        return if wanted.is_file() {
            Ok(wanted.clone())
        } else {
            Err(missing())
        };
    }
    let path = std::env::var_os("PATH").ok_or_else(missing)?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(&wanted))
        .find(|p| p.is_file())
        .ok_or_else(missing)
}

/// The emulator.
pub fn qemu() -> Result<PathBuf, CrossError> {
    find_tool("WADDLE_QEMU_AARCH64", "qemu-aarch64", "qemu-user")
}

/// The cross C compiler.
pub fn cross_cc() -> Result<PathBuf, CrossError> {
    find_tool(
        "WADDLE_AARCH64_CC",
        "aarch64-linux-gnu-gcc",
        "gcc-aarch64-linux-gnu",
    )
}

/// Both tools, or the first one missing.
pub fn check_tools() -> Result<(), CrossError> {
    qemu()?;
    cross_cc()?;
    Ok(())
}

/// The environment variable that turns a skipped cross test into a failed
/// one: CI sets it to `1` (`.ci/run`), so CI cannot pass without running the
/// AArch64 tests.
pub const REQUIRE_CROSS_ENV: &str = "WADDLE_REQUIRE_CROSS";

/// What a test that needs the cross tools should do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolDecision {
    /// The tools are there: run.
    Run,
    /// The tools are missing and not required: skip, saying why.
    Skip(String),
    /// The tools are missing but [`REQUIRE_CROSS_ENV`] is `1`: fail.
    Fail(String),
}

/// Decides from the tool check and whether the tools are required.
pub fn tool_decision(tools: Result<(), CrossError>, required: bool) -> ToolDecision {
    match tools {
        Ok(()) => ToolDecision::Run,
        Err(why) if required => ToolDecision::Fail(format!(
            "{REQUIRE_CROSS_ENV}=1 but the AArch64 cross tools are missing: {why}"
        )),
        Err(why) => ToolDecision::Skip(format!(
            "{why} (set {REQUIRE_CROSS_ENV}=1 to make this a failure)"
        )),
    }
}

/// For tests that run code under qemu: `true` when `test` must return at
/// once because the tools are missing, after writing a `SKIP` line straight
/// to the process's standard error (the test harness captures only the
/// `print!` macros, so the line shows even for a passing test). Panics
/// instead when [`REQUIRE_CROSS_ENV`] is `1`.
pub fn skip_test_without_tools(test: &str) -> bool {
    use std::io::Write as _;
    let required = std::env::var(REQUIRE_CROSS_ENV).is_ok_and(|v| v.trim() == "1");
    match tool_decision(check_tools(), required) {
        ToolDecision::Run => false,
        ToolDecision::Fail(why) => panic!("{test}: {why}"),
        ToolDecision::Skip(why) => {
            let _ = writeln!(std::io::stderr(), "SKIP {test}: {why}");
            true
        }
    }
}

/// FNV-1a, 64 bits: a hash that is the same in every build (the cache key).
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn cache_dir() -> PathBuf {
    std::env::var_os("WADDLE_CROSS_CACHE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("waddle-cross"))
}

/// Serializes builds within this process (other processes are handled by
/// building under a unique name and renaming).
static BUILD_LOCK: Mutex<()> = Mutex::new(());

/// The loader executable, compiled now unless a build of the same source
/// with the same compiler and flags is cached.
pub fn loader() -> Result<PathBuf, CrossError> {
    let cc = cross_cc()?;
    let cc_text = cc.display().to_string();
    let flags = CC_FLAGS.join(" ") + " " + &CC_LIBS.join(" ");
    let key = fnv1a(&[
        LOADER_SOURCE.as_bytes(),
        cc_text.as_bytes(),
        flags.as_bytes(),
    ]);
    let dir = cache_dir();
    let exe = dir.join(format!("loader-{key:016x}"));
    let _guard = BUILD_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    if exe.is_file() {
        return Ok(exe);
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| CrossError::Build(format!("cannot create {}: {e}", dir.display())))?;
    let unique = format!("{}-{}", std::process::id(), key);
    let src = dir.join(format!("loader-{unique}.c"));
    let tmp = dir.join(format!("loader-{unique}.tmp"));
    std::fs::write(&src, LOADER_SOURCE)
        .map_err(|e| CrossError::Build(format!("cannot write {}: {e}", src.display())))?;
    let result = compile(&cc, &src, &tmp);
    let _ = std::fs::remove_file(&src);
    result?;
    std::fs::rename(&tmp, &exe).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        CrossError::Build(format!("cannot move the loader into place: {e}"))
    })?;
    Ok(exe)
}

fn compile(cc: &Path, src: &Path, out: &Path) -> Result<(), CrossError> {
    let output = Command::new(cc)
        .args(CC_FLAGS)
        .arg("-o")
        .arg(out)
        .arg(src)
        .args(CC_LIBS)
        .output()
        .map_err(|e| CrossError::Build(format!("cannot run {}: {e}", cc.display())))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(CrossError::Build(format!(
            "{} exited with {}:\n{}",
            cc.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_stable_and_separates_parts() {
        assert_eq!(fnv1a(&[b""]), fnv1a(&[b""]));
        assert_ne!(fnv1a(&[b"ab", b"c"]), fnv1a(&[b"a", b"bc"]));
    }

    #[test]
    fn missing_tool_names_the_package() {
        let e = find_tool(
            "WADDLE_TEST_NO_SUCH_VAR",
            "waddle-no-such-tool-xyz",
            "some-pkg",
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("waddle-no-such-tool-xyz"), "{text}");
        assert!(text.contains("apt-get install some-pkg"), "{text}");
    }
}
