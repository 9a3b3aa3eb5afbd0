//! Running a whole program from source, as `waddle run` does, with its
//! output captured: used by the CLI and the lang-test runner.

use std::fmt;
use std::str::FromStr;

/// Execution tiers (DESIGN.md, "Tiers").
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Tier {
    /// T0: the IR interpreter.
    Interp,
    /// T1: the dynasmrt baseline compiler.
    Baseline,
    /// T2: always-canonical passes + Cranelift.
    Opt,
    /// T3: T2 plus the VSDG round trip.
    Full,
    /// Tiering controller picks.
    Auto,
}

impl Tier {
    /// Every tier with its `--tier` name.
    pub const ALL: [(&'static str, Tier); 5] = [
        ("interp", Tier::Interp),
        ("baseline", Tier::Baseline),
        ("opt", Tier::Opt),
        ("full", Tier::Full),
        ("auto", Tier::Auto),
    ];

    /// The `--tier` name.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|&&(_, t)| t == self).unwrap().0
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Tier {
    type Err = String;
    fn from_str(s: &str) -> Result<Tier, String> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == s)
            .map(|&(_, t)| t)
            .ok_or_else(|| {
                format!("unknown tier `{s}` (expected interp, baseline, opt, full or auto)")
            })
    }
}

/// What to run and how.
#[derive(Clone, PartialEq, Debug)]
pub struct RunOptions {
    /// Which tier executes the program.
    pub tier: Tier,
    /// Optimization level 0, 1 or 2.
    pub opt_level: u8,
    /// Explicit pass list (overrides `opt_level`), e.g. `["sccp", "dce"]`.
    pub passes: Option<Vec<String>>,
    /// Execution budget; `None` for unlimited.
    pub fuel: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            tier: Tier::Interp,
            opt_level: 0,
            passes: None,
            fuel: None,
        }
    }
}

/// What a run produced: exactly what `waddle run` writes and its exit code.
#[derive(Clone, PartialEq, Debug)]
pub struct RunOutcome {
    /// Standard output bytes.
    pub stdout: Vec<u8>,
    /// Standard error text (diagnostics or the runtime error).
    pub stderr: String,
    /// 0 success, 1 compile error (or unavailable tier), 2 runtime error.
    pub exit_code: i32,
}

/// Compiles and runs `source` (named `file_name` in messages) with output
/// captured in memory.
pub fn run_source(file_name: &str, source: &str, options: &RunOptions) -> RunOutcome {
    let _ = (file_name, source, options);
    unimplemented!("driver: assigned to the runtime helper")
}
