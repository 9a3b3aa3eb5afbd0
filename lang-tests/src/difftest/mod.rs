//! Differential testing: run one program on many configurations (tier ×
//! optimization level × architecture) and compare standard output,
//! standard error and the exit status of each with its reference, the
//! interpreter.
//!
//! The reference of a configuration is `interp-O0`, except under a fuel
//! budget or a memory limit: those depend on the IR that runs (inlining
//! changes how much fuel a loop costs, optimization changes what is live),
//! so every configuration is then compared with the interpreter at its own
//! optimization level (`interp-O2` for `opt-O2`), which runs the same IR.
//!
//! The `difftest` binary drives this with generated programs
//! ([`crate::gen`]); [`minimize`] shrinks a program while it still shows a
//! mismatch.

mod minimize;

pub use minimize::minimize;

use std::fmt::{self, Write as _};
use std::panic::{self, AssertUnwindSafe};

use waddle::tooling::{run_source, RunOptions, RunOutcome};
use waddle::Tier;

/// Where a configuration runs.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Arch {
    /// This machine.
    Host,
    /// AArch64 under qemu-aarch64 (`waddle run --target aarch64`).
    Aarch64,
}

/// One way of running a program.
#[derive(Clone, PartialEq, Debug)]
pub struct Config {
    /// Display name, e.g. `opt-O2` or `aarch64-baseline-O0`.
    pub name: String,
    /// Tier.
    pub tier: Tier,
    /// Optimization level.
    pub opt_level: u8,
    /// Architecture.
    pub arch: Arch,
    /// `auto`'s chaos seed (`--tier-chaos`), if any.
    pub chaos: Option<u64>,
    /// `auto`'s thresholds with `--jit-sync` (`auto-eager`), if any.
    pub eager: Option<waddle::TierThresholds>,
}

impl Config {
    /// A host configuration.
    pub fn host(tier: Tier, opt_level: u8) -> Config {
        Config {
            name: format!("{}-O{opt_level}", tier.name()),
            tier,
            opt_level,
            arch: Arch::Host,
            chaos: None,
            eager: None,
        }
    }

    /// `auto` in chaos mode with `seed`: functions promoted at random
    /// points to random tiers, so calls cross tiers everywhere.
    pub fn chaos(seed: u64) -> Config {
        Config {
            name: format!("auto-chaos{seed}-O2"),
            tier: Tier::Auto,
            opt_level: 2,
            arch: Arch::Host,
            chaos: Some(seed),
            eager: None,
        }
    }

    /// `auto` with its lowest thresholds, deterministically
    /// ([`crate::tiers::EAGER`]): every function climbs to T3 at once.
    pub fn eager() -> Config {
        Config {
            name: "auto-eager-O2".to_string(),
            tier: Tier::Auto,
            opt_level: 2,
            arch: Arch::Host,
            chaos: None,
            eager: Some(crate::tiers::EAGER),
        }
    }

    /// An AArch64 configuration.
    pub fn aarch64(tier: Tier, opt_level: u8) -> Config {
        Config {
            name: format!("aarch64-{}-O{opt_level}", tier.name()),
            tier,
            opt_level,
            arch: Arch::Aarch64,
            chaos: None,
            eager: None,
        }
    }

    /// Whether this is an interpreter configuration on the host (the
    /// references are).
    pub fn is_reference(&self) -> bool {
        self.tier == Tier::Interp && self.arch == Arch::Host
    }
}

/// Run-time limits applied to every configuration.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Limits {
    /// Execution budget.
    pub fuel: Option<u64>,
    /// Heap limit in bytes.
    pub memory_limit: Option<usize>,
}

impl Limits {
    /// Whether outcomes depend on the IR that runs (so configurations are
    /// compared per optimization level).
    pub fn ir_dependent(&self) -> bool {
        self.fuel.is_some() || self.memory_limit.is_some()
    }
}

/// The seeds `auto`'s chaos mode runs with in the differential tests and
/// the corpus (`lang-tests/src/tiers.rs`).
pub const CHAOS_SEEDS: [u64; 5] = [1, 2, 3, 5, 8];

/// The host configurations this build can run: every tier at -O0 and -O2
/// (the interpreter at -O0 first: the reference), plus `opt-O1` and
/// `auto-O2`.
pub fn host_configs() -> Vec<Config> {
    let mut out = vec![
        Config::host(Tier::Interp, 0),
        Config::host(Tier::Interp, 1),
        Config::host(Tier::Interp, 2),
    ];
    if Tier::Baseline.is_available() {
        out.push(Config::host(Tier::Baseline, 0));
        out.push(Config::host(Tier::Baseline, 2));
    }
    if Tier::Opt.is_available() {
        out.push(Config::host(Tier::Opt, 0));
        out.push(Config::host(Tier::Opt, 1));
        out.push(Config::host(Tier::Opt, 2));
    }
    if Tier::Full.is_available() {
        out.push(Config::host(Tier::Full, 0));
        out.push(Config::host(Tier::Full, 2));
    }
    out.push(Config::host(Tier::Auto, 2));
    out.push(Config::eager());
    out.extend(CHAOS_SEEDS.iter().map(|&s| Config::chaos(s)));
    out
}

/// The AArch64 configurations (both code generators, and T3).
pub fn aarch64_configs() -> Vec<Config> {
    vec![
        Config::aarch64(Tier::Baseline, 0),
        Config::aarch64(Tier::Opt, 2),
        Config::aarch64(Tier::Full, 2),
    ]
}

/// Runs `source` (named `name`) on `config`; a panic becomes an outcome
/// with exit code 101 and the panic message on stderr.
pub fn run(config: &Config, limits: Limits, name: &str, source: &str) -> RunOutcome {
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| match config.arch {
        Arch::Host => run_source(
            name,
            source,
            &RunOptions {
                tier: config.tier,
                opt_level: config.opt_level,
                passes: None,
                fuel: limits.fuel,
                memory_limit: limits.memory_limit,
                allow_ffi: false,
                tier_chaos: config.chaos,
                tier_thresholds: config.eager,
                jit_sync: config.eager.is_some(),
            },
        ),
        Arch::Aarch64 => waddle::cross::run_source_aarch64(
            name,
            source,
            &waddle::cross::CrossOptions {
                tier: config.tier,
                opt_level: config.opt_level,
                fuel: limits.fuel,
                memory_limit: limits.memory_limit.map(|m| m as u64),
                ..Default::default()
            },
        ),
    }));
    outcome.unwrap_or_else(|p| RunOutcome {
        stdout: Vec::new(),
        stderr: format!("panicked: {}", panic_message(p.as_ref())),
        exit_code: 101,
    })
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// What differs between a configuration's outcome and its reference's.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Aspect {
    /// Exit status.
    Exit,
    /// Standard output bytes.
    Stdout,
    /// Standard error text, without the stack trace.
    Stderr,
    /// The runtime error's stack trace, compared with the interpreter's at
    /// the same optimization level (inlining removes frames, so -O levels
    /// differ).
    Trace,
}

impl fmt::Display for Aspect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Aspect::Exit => "exit",
            Aspect::Stdout => "stdout",
            Aspect::Stderr => "stderr",
            Aspect::Trace => "trace",
        })
    }
}

/// One configuration disagreeing with its reference.
#[derive(Clone, PartialEq, Debug)]
pub struct Mismatch {
    /// The configuration.
    pub config: String,
    /// Its reference.
    pub reference: String,
    /// What differs.
    pub aspects: Vec<Aspect>,
    /// The reference's outcome.
    pub expected: RunOutcome,
    /// The configuration's outcome.
    pub actual: RunOutcome,
}

impl Mismatch {
    /// A short report: what differs, the exit codes, the first differing
    /// lines of output and both standard errors.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let aspects: Vec<String> = self.aspects.iter().map(|a| a.to_string()).collect();
        let _ = writeln!(
            out,
            "{} differs from {} in {} (exit {} vs {})",
            self.config,
            self.reference,
            aspects.join(", "),
            self.actual.exit_code,
            self.expected.exit_code
        );
        if self.aspects.contains(&Aspect::Stdout) {
            let want = String::from_utf8_lossy(&self.expected.stdout);
            let got = String::from_utf8_lossy(&self.actual.stdout);
            let _ = writeln!(
                out,
                "stdout (- {}, + {}):\n{}",
                self.reference,
                self.config,
                crate::diff::diff_lines(&want, &got)
            );
        }
        if [Aspect::Stderr, Aspect::Exit, Aspect::Trace]
            .iter()
            .any(|a| self.aspects.contains(a))
        {
            let _ = writeln!(
                out,
                "stderr of {}: {}\nstderr of {}: {}",
                self.reference,
                self.expected.stderr.trim_end(),
                self.config,
                self.actual.stderr.trim_end()
            );
        }
        out
    }
}

/// The line that starts a runtime error's stack trace on standard error.
const TRACE_HEADER: &str = "stack trace:\n";

/// `stderr` split before its stack trace: (the rest, the trace or "").
pub fn split_trace(stderr: &str) -> (&str, &str) {
    let at = if stderr.starts_with(TRACE_HEADER) {
        Some(0)
    } else {
        stderr.find(&format!("\n{TRACE_HEADER}")).map(|i| i + 1)
    };
    match at {
        Some(i) => stderr.split_at(i),
        None => (stderr, ""),
    }
}

/// The aspects in which `actual` differs from `expected`, the stack trace
/// aside (see [`Aspect::Trace`]).
pub fn differences(expected: &RunOutcome, actual: &RunOutcome) -> Vec<Aspect> {
    let mut out = Vec::new();
    if expected.exit_code != actual.exit_code {
        out.push(Aspect::Exit);
    }
    if expected.stdout != actual.stdout {
        out.push(Aspect::Stdout);
    }
    if split_trace(&expected.stderr).0 != split_trace(&actual.stderr).0 {
        out.push(Aspect::Stderr);
    }
    out
}

/// Which configuration `config` is compared with under `limits`.
fn reference_of(config: &Config, limits: Limits) -> String {
    if limits.ir_dependent() {
        format!("interp-O{}", config.opt_level)
    } else {
        "interp-O0".to_string()
    }
}

/// Runs `source` on every configuration of `configs` (references are added
/// when missing) and returns the mismatches, in configuration order.
pub fn check(name: &str, source: &str, configs: &[Config], limits: Limits) -> Vec<Mismatch> {
    check_with_reference(name, source, configs, limits).0
}

/// How a reference run ended, for statistics: `ok`, the runtime error's
/// message (`division by zero`, ...), or `exit N`.
pub fn ending_kind(outcome: &RunOutcome) -> String {
    match outcome.exit_code {
        0 => "ok".to_string(),
        2 => outcome
            .stderr
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("error: runtime error: "))
            .unwrap_or("runtime error")
            .to_string(),
        n => format!("exit {n}"),
    }
}

/// [`check`], also returning the outcome of the first reference
/// (`interp-O0`, or the first one run).
pub fn check_with_reference(
    name: &str,
    source: &str,
    configs: &[Config],
    limits: Limits,
) -> (Vec<Mismatch>, Option<RunOutcome>) {
    let mut all: Vec<Config> = Vec::new();
    for c in configs {
        let r = reference_of(c, limits);
        for r in [r, format!("interp-O{}", c.opt_level)] {
            if !all.iter().any(|x| x.name == r) {
                let level = r.trim_start_matches("interp-O").parse().unwrap_or(0);
                all.push(Config::host(Tier::Interp, level));
            }
        }
        if !all.iter().any(|x| x.name == c.name) {
            all.push(c.clone());
        }
    }
    let outcomes: Vec<(String, RunOutcome)> = all
        .iter()
        .map(|c| (c.name.clone(), run(c, limits, name, source)))
        .collect();
    let find = |n: &str| outcomes.iter().find(|(x, _)| x == n).map(|(_, o)| o);
    let reference = find("interp-O0")
        .or_else(|| outcomes.first().map(|(_, o)| o))
        .cloned();
    let mut out = Vec::new();
    for c in &all {
        let r = reference_of(c, limits);
        if r == c.name {
            continue;
        }
        let (Some(expected), Some(actual)) = (find(&r), find(&c.name)) else {
            continue;
        };
        let mut aspects = differences(expected, actual);
        let same_level = format!("interp-O{}", c.opt_level);
        if let Some(mine) = find(&same_level).filter(|_| same_level != c.name) {
            if split_trace(&mine.stderr).1 != split_trace(&actual.stderr).1 {
                aspects.push(Aspect::Trace);
            }
        }
        if !aspects.is_empty() {
            out.push(Mismatch {
                config: c.name.clone(),
                reference: r,
                aspects,
                expected: expected.clone(),
                actual: actual.clone(),
            });
        }
    }
    (out, reference)
}

/// A compact description of a set of mismatches (`opt-O2:stdout,exit
/// baseline-O0:stderr`), empty when there are none; used to decide that a
/// smaller program still shows the same problem.
pub fn signature(mismatches: &[Mismatch]) -> String {
    mismatches
        .iter()
        .map(|m| {
            let a: Vec<String> = m.aspects.iter().map(|a| a.to_string()).collect();
            format!("{}:{}", m.config, a.join(","))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether signature `candidate` still shows (part of) the problem of
/// signature `original`: some configuration mismatches in an aspect it
/// mismatched in originally.
pub fn same_problem(original: &str, candidate: &str) -> bool {
    let pairs = |s: &str| -> Vec<(String, String)> {
        s.split_whitespace()
            .filter_map(|m| m.split_once(':'))
            .flat_map(|(c, aspects)| {
                aspects
                    .split(',')
                    .map(move |a| (c.to_string(), a.to_string()))
            })
            .collect()
    };
    let want = pairs(original);
    if original.split_whitespace().any(|w| !w.contains(':')) {
        // A crash or timeout: only the same kind counts.
        return original == candidate;
    }
    pairs(candidate).iter().any(|p| want.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_match_by_config_and_aspect() {
        assert!(same_problem("opt-O2:stdout,exit", "opt-O2:exit"));
        assert!(!same_problem("opt-O2:stdout", "baseline-O0:stdout"));
        assert!(!same_problem("opt-O2:stdout", ""));
        assert!(same_problem("crash", "crash"));
        assert!(!same_problem("crash", "opt-O2:stdout"));
    }

    #[test]
    fn a_correct_program_has_no_mismatch() {
        let configs = host_configs();
        let m = check(
            "ok.wdl",
            "fn f(n: int) -> int { return n * 2; }\nprint(f(21));\n",
            &configs,
            Limits::default(),
        );
        assert!(m.is_empty(), "{}", m[0].report());
    }
}
