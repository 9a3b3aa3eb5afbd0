//! `waddle run --target aarch64`: compiles the whole program for AArch64
//! (`waddle_jit::cross`), runs it under qemu-aarch64 with the C loader, and
//! turns the loader's records into exactly what `waddle run` prints on the
//! host: the output (formatted here, with the interpreter's formatting),
//! the runtime error with its location, and the exit code (docs/language.md
//! "Errors": 0, 1 compile error or unavailable tier/tool, 2 runtime error).

use std::panic::{catch_unwind, AssertUnwindSafe};

use waddle_frontend::Prelude;
use waddle_jit::cross::{self, CodeImage, Ending, PrintValue, RunLimits};
use waddle_jit::JitOptions;
use waddle_opt::abi::{Trap, DEFAULT_STACK_BUDGET};
use waddle_opt::ir::{Program, Type};

use std::io::Write;

use crate::driver::{RunOutcome, Tier};
use crate::engine::{compile_source, OptOptions, PassTrace};
use crate::error::{Error, RuntimeError};
use crate::format::{format_float, write_escaped};

/// `--target` values.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Target {
    /// This machine.
    #[default]
    Host,
    /// AArch64 Linux, run under qemu-aarch64.
    Aarch64,
}

/// What to run on AArch64 and how.
#[derive(Clone, PartialEq, Debug)]
pub struct CrossOptions {
    /// The code generator (`opt`; `baseline` once connected).
    pub tier: Tier,
    /// Optimization level of the pass pipeline.
    pub opt_level: u8,
    /// Explicit pass list (overrides `opt_level`).
    pub passes: Option<Vec<String>>,
    /// Execution budget; `None` for unlimited.
    pub fuel: Option<u64>,
    /// Heap limit in bytes (live objects at once).
    pub memory_limit: Option<u64>,
    /// Collect garbage before every allocation (for testing the collector).
    pub gc_stress: bool,
    /// Optimizer diagnostics to print to standard error before the run's.
    pub trace: PassTrace,
}

impl Default for CrossOptions {
    fn default() -> Self {
        CrossOptions {
            tier: Tier::Opt,
            opt_level: 2,
            passes: None,
            fuel: None,
            memory_limit: None,
            gc_stress: false,
            trace: PassTrace::default(),
        }
    }
}

/// Whether `tier` can generate AArch64 images.
pub fn has_aarch64(tier: Tier) -> bool {
    tier.native()
        .is_some_and(waddle_jit::Tier::on_aarch64_images)
}

/// `Ok` when qemu-aarch64 and the cross compiler are installed; else the
/// message naming the missing tool and its package.
pub fn tools_available() -> Result<(), String> {
    cross::check_tools().map_err(|e| e.to_string())
}

/// A failure before the program runs, with its exit code.
fn failure(message: String, exit_code: i32) -> RunOutcome {
    RunOutcome {
        stdout: Vec::new(),
        stderr: format!("error: {message}\n"),
        exit_code,
    }
}

/// The AArch64 image of `program` from the code generator of `options.tier`.
fn compile_image(program: &Program, options: &CrossOptions) -> Result<CodeImage, RunOutcome> {
    let jit = JitOptions {
        optimize: true,
        fuel: options.fuel.is_some(),
        verify_cranelift: cfg!(debug_assertions),
        ..JitOptions::default()
    };
    let generate = || -> Option<Result<CodeImage, String>> {
        match options.tier {
            Tier::Opt | Tier::Full => {
                Some(cross::compile_aarch64(program, &jit).map_err(|e| e.to_string()))
            }
            Tier::Baseline => {
                Some(cross::compile_baseline_aarch64(program, &jit).map_err(|e| e.to_string()))
            }
            _ => None,
        }
    };
    // A panic in a code generator is a bug in Waddle: an internal error,
    // not an unwind through the caller.
    match catch_unwind(AssertUnwindSafe(generate)) {
        Ok(Some(Ok(image))) => Ok(image),
        Ok(Some(Err(e))) => Err(failure(format!("internal error: {e}"), 2)),
        Ok(None) => Err(unavailable(options.tier)),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(failure(
                format!("internal error: the AArch64 code generator panicked: {msg}"),
                2,
            ))
        }
    }
}

/// The error for a tier without an AArch64 code generator.
fn unavailable(tier: Tier) -> RunOutcome {
    failure(
        format!(
            "tier `{tier}` is not available for --target aarch64 yet (available: {})",
            aarch64_names()
        ),
        1,
    )
}

/// The `--tier` names of the tiers with AArch64 images.
fn aarch64_names() -> String {
    let names: Vec<&str> = (waddle_jit::Tier::ALL.iter())
        .filter(|t| t.on_aarch64_images())
        .map(|t| t.name())
        .collect();
    names.join(", ")
}

/// `Ok` when `tier` can generate AArch64 images.
fn check_tier(tier: Tier) -> Result<(), RunOutcome> {
    if has_aarch64(tier) {
        Ok(())
    } else {
        Err(unavailable(tier))
    }
}

/// Compiles and runs `source` (named `file_name` in messages) on AArch64
/// under qemu-aarch64; the result is what `waddle run --target aarch64`
/// prints and its exit code.
pub fn run_source_aarch64(file_name: &str, source: &str, options: &CrossOptions) -> RunOutcome {
    let mut stdout = Vec::new();
    let (stderr, exit_code) = run_streaming(file_name, source, options, false, &mut |bytes| {
        stdout.extend_from_slice(bytes)
    });
    RunOutcome {
        stdout,
        stderr,
        exit_code,
    }
}

/// [`run_source_aarch64`] handing the program's output to `out` as it
/// arrives (what `waddle run --target aarch64` uses) (after every print with `flush_each_print`); returns standard
/// error's text and the exit code.
pub fn run_streaming(
    file_name: &str,
    source: &str,
    options: &CrossOptions,
    flush_each_print: bool,
    out: &mut dyn FnMut(&[u8]),
) -> (String, i32) {
    let outcome = |o: RunOutcome| (o.stderr, o.exit_code);
    // `auto` has one AArch64 code generator to choose from.
    let options = &CrossOptions {
        tier: match options.tier {
            Tier::Auto => Tier::Opt,
            t => t,
        },
        ..options.clone()
    };
    if let Err(e) = check_tier(options.tier) {
        return outcome(e);
    }
    if let Err(e) = cross::check_tools() {
        return outcome(failure(e.to_string(), 1));
    }
    let opt = OptOptions {
        vsdg: options.tier == Tier::Full,
        opt_level: options.opt_level,
        passes: options.passes.clone(),
        trace: options.trace.clone(),
    };
    let (program, log) = match compile_source(file_name, source, Prelude::default(), false, &opt) {
        Ok(c) => (c.optimized, c.log.render()),
        Err(e) => return (e.render(), e.exit_code()),
    };
    let outcome = |o: RunOutcome| (log.clone() + &o.stderr, o.exit_code);
    let Some(main) = program.main else {
        return (log, 0);
    };
    let image = match compile_image(&program, options) {
        Ok(image) => image,
        Err(e) => return outcome(e),
    };
    let limits = RunLimits {
        stack_budget: DEFAULT_STACK_BUDGET as u64,
        memory_limit: options
            .memory_limit
            .unwrap_or(cross::DEFAULT_CROSS_MEMORY_LIMIT),
        fuel: options.fuel,
        gc_stress: options.gc_stress,
        flush_each_print,
    };
    let mut text = Vec::new();
    let ending = cross::run_image_with(&image, &limits, &mut |ty, value| {
        text.clear();
        format_print(&mut text, ty, &value, false);
        text.push(b'\n');
        out(&text);
    });
    match ending {
        Err(e) => outcome(failure(format!("internal error: {e}"), 2)),
        Ok(Ending::Finished) => (log, 0),
        Ok(Ending::Trap { code, loc, trace }) => {
            let loc = loc.unwrap_or(program.funcs[main].loc());
            let e =
                RuntimeError::from_trap(Trap { code, loc }, &program).with_trace(&trace, &program);
            let e = Error::Runtime(e);
            (log + &e.render(), e.exit_code())
        }
    }
}

/// Appends the text `print` writes for `value` (without the newline), as
/// [`crate::format::format_value`] does for a heap value.
pub fn format_print(out: &mut Vec<u8>, ty: Type, value: &PrintValue, quoted: bool) {
    match value {
        PrintValue::Unit => {}
        PrintValue::Int(i) => {
            let _ = write!(out, "{i}");
        }
        PrintValue::Float(bits) => {
            out.extend_from_slice(format_float(f64::from_bits(*bits)).as_bytes())
        }
        PrintValue::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        PrintValue::Str(bytes) => {
            if quoted {
                write_escaped(out, bytes);
            } else {
                out.extend_from_slice(bytes);
            }
        }
        PrintValue::Array(elems) => {
            let elem = ty.element().unwrap_or(Type::Unit);
            out.push(b'[');
            for (i, e) in elems.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                format_print(out, elem, e, true);
            }
            out.push(b']');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(ty: Type, v: PrintValue) -> String {
        let mut out = Vec::new();
        format_print(&mut out, ty, &v, false);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn formats_like_the_interpreter() {
        assert_eq!(text(Type::Int, PrintValue::Int(-3)), "-3");
        assert_eq!(
            text(Type::Float, PrintValue::Float(1e16f64.to_bits())),
            "1e16"
        );
        assert_eq!(text(Type::Str, PrintValue::Str(b"a\"b".to_vec())), "a\"b");
        let strs = Type::Str.array_of().unwrap();
        assert_eq!(
            text(
                strs,
                PrintValue::Array(vec![
                    PrintValue::Str(b"a\"b".to_vec()),
                    PrintValue::Str(b"\x01".to_vec())
                ])
            ),
            "[\"a\\\"b\", \"\\u{1}\"]"
        );
        let nested = Type::Bool.array_of().unwrap().array_of().unwrap();
        assert_eq!(
            text(
                nested,
                PrintValue::Array(vec![
                    PrintValue::Array(vec![PrintValue::Bool(true)]),
                    PrintValue::Array(vec![])
                ])
            ),
            "[[true], []]"
        );
    }

    #[test]
    fn unavailable_tier_is_a_clear_error() {
        let options = CrossOptions {
            tier: Tier::Interp,
            ..CrossOptions::default()
        };
        let outcome = run_source_aarch64("x.wdl", "print(1);", &options);
        assert_eq!(outcome.exit_code, 1);
        assert!(
            outcome
                .stderr
                .contains("tier `interp` is not available for --target aarch64"),
            "{}",
            outcome.stderr
        );
    }
}
