//! `waddle run --target aarch64`: compiles the whole program for AArch64
//! (`waddle_jit::cross`), runs it under qemu-aarch64 with the C loader, and
//! turns the loader's records into exactly what `waddle run` prints on the
//! host: the output (formatted here, with the interpreter's formatting),
//! the runtime error with its location, and the exit code (docs/language.md
//! "Errors": 0, 1 compile error or unavailable tier/tool, 2 runtime error).
//! [`run_store_aarch64`] adds the host functions of an embedder's engine:
//! the loader sends each call back to this process (`waddle_jit::cross`,
//! "Host calls"), where it runs in the embedder's store.

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use cranelift_entity::EntityRef;
use waddle_frontend::{diag::Diagnostic, CompileOptions, Prelude, SourceFile, SourceMap};
use waddle_jit::cross::{self, CodeImage, Ending, PrintValue, RunLimits};
use waddle_jit::JitOptions;
use waddle_opt::abi::{Trap, TrapCode, DEFAULT_STACK_BUDGET};
use waddle_opt::ir::{HostFnId, InstKind, Program, Type};

use crate::api::Store;
use crate::driver::RunOutcome;
use crate::engine::{compile_with_options, error_at, CompiledIr, OptOptions, PassTrace};
use crate::error::{Error, RuntimeError};
use crate::format::{format_float, write_escaped};
use crate::hostfn::{call_from, HostFn};
use crate::Tier;

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
    /// Accept `extern` declarations (CLI `--allow-ffi`), so that a program
    /// declaring one gets the AArch64 target's own error for it (FFI does
    /// not run on this target, see [`check_source_aarch64`]) instead of the
    /// frontend's "needs `--allow-ffi`".
    pub allow_ffi: bool,
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
            allow_ffi: false,
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

/// [`run_source_aarch64`] for a program that calls the host functions
/// registered on `store`'s engine ([`crate::Engine::register_fn`]).
///
/// The AArch64 code runs under qemu in another process; each host call is
/// sent back here and runs on this thread in `store` (its data is what
/// [`crate::Caller::data`] returns) while that code waits. Only words
/// cross, so a program may call only host functions whose parameters and
/// result are `int`, `float` or `bool` (or a `void` result); calling
/// another is a compile error at the call saying why. A failing or
/// panicking host function is a runtime error at the call, as on the host
/// tiers. The program's output is in the outcome (not the store's sink);
/// the store's instance, if any, is not touched.
pub fn run_store_aarch64(
    store: &mut Store,
    file_name: &str,
    source: &str,
    options: &CrossOptions,
) -> RunOutcome {
    let mut stdout = Vec::new();
    let (stderr, exit_code) = run_hosted(
        file_name,
        source,
        options,
        false,
        &mut |bytes| stdout.extend_from_slice(bytes),
        Some(store),
    );
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
    run_hosted(file_name, source, options, flush_each_print, out, None)
}

/// Compiles `source` (named `file_name`) as `waddle run --target aarch64`
/// would, against the host functions registered on `store`'s engine (none
/// without a store), and checks that everything it uses can run on that
/// target, without running it.
///
/// The errors are [`Error::Compile`] with a located diagnostic:
/// - the frontend's errors (an `extern` declaration without
///   [`CrossOptions::allow_ffi`] or the engine's `allow_ffi` names the flag);
/// - a call of a host function taking or returning a `str` or array (only
///   `int`, `float` and `bool` words cross between AArch64 code and the
///   host);
/// - any `extern` declaration (FFI): the AArch64 code runs under
///   qemu-aarch64 with a static loader that cannot load shared libraries,
///   and calling this machine's library in its place would not be the
///   AArch64 library the declaration names.
pub fn check_source_aarch64(
    store: Option<&Store>,
    file_name: &str,
    source: &str,
    options: &CrossOptions,
) -> Result<(), Error> {
    let host_fns = store.map_or_else(Vec::new, |s| s.engine().host_fns());
    let c = compile(file_name, source, options, &host_fns, store)?;
    check_aarch64(&c, file_name, source)
}

/// Compiles against `host_fns`, accepting `extern` declarations when
/// `options` or `store`'s engine allows FFI.
fn compile(
    file_name: &str,
    source: &str,
    options: &CrossOptions,
    host_fns: &[Arc<HostFn>],
    store: Option<&Store>,
) -> Result<CompiledIr, Error> {
    let opt = OptOptions {
        vsdg: options.tier == Tier::Full,
        opt_level: options.opt_level,
        passes: options.passes.clone(),
        trace: options.trace.clone(),
    };
    let allow_ffi = options.allow_ffi || store.is_some_and(|s| s.engine().config().allow_ffi);
    let frontend = CompileOptions {
        prelude: Prelude {
            host_functions: (host_fns.iter())
                .map(|f| (f.name.clone(), f.sig.clone()))
                .collect(),
            ..Prelude::default()
        },
        repl: false,
        allow_ffi,
    };
    compile_with_options(file_name, source, frontend, &opt)
}

/// The first obstacle to running `compiled` on AArch64
/// ([`check_source_aarch64`]).
fn check_aarch64(compiled: &CompiledIr, file_name: &str, source: &str) -> Result<(), Error> {
    check_externs(compiled, file_name, source)?;
    check_host_calls(&compiled.frontend.program, file_name, source)
}

/// The compile error for the first `extern` declaration of `compiled`:
/// FFI does not run on AArch64 images.
fn check_externs(compiled: &CompiledIr, file_name: &str, source: &str) -> Result<(), Error> {
    let Some(x) = compiled.frontend.typed.externs.first() else {
        return Ok(());
    };
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new(file_name, source));
    let diags = [Diagnostic::error(
        format!(
            "`extern` function `{}` cannot be called on --target aarch64",
            x.symbol
        ),
        x.span,
    )
    .with_label("declared here")
    .with_note(format!(
        "FFI runs on the host target only: AArch64 code runs under qemu-aarch64 with a \
         static loader that cannot load `{}`, and calling this machine's copy instead \
         would not run the AArch64 library the declaration names",
        x.lib
    ))];
    let rendered = catch_unwind(AssertUnwindSafe(|| {
        waddle_frontend::diag::render(&diags, &sources)
    }))
    .unwrap_or_else(|_| format!("error: {}\n", diags[0].message));
    Err(Error::Compile {
        rendered,
        diagnostics: crate::error::diagnostics(&diags, &sources),
    })
}

/// The compile error for the first call in `program` of a host function
/// that cannot be called from AArch64 code (a `str` or array in its
/// signature).
fn check_host_calls(program: &Program, file_name: &str, source: &str) -> Result<(), Error> {
    for f in program.funcs.values() {
        for &b in f.layout() {
            for &i in &f.blocks()[b].insts {
                let inst = f.inst(i);
                let InstKind::HostCall(h, _) = &inst.kind else {
                    continue;
                };
                let Some(decl) = program.host_fns.get(*h) else {
                    continue;
                };
                if let Some(why) = cross::host_fn_obstacle(decl) {
                    return Err(error_at(
                        file_name,
                        source,
                        inst.loc,
                        &format!(
                            "host function `{}` cannot be called on --target aarch64",
                            decl.name
                        ),
                        &why,
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Compiles and runs, with the host functions of `host`'s engine when a
/// store is given.
fn run_hosted(
    file_name: &str,
    source: &str,
    options: &CrossOptions,
    flush_each_print: bool,
    out: &mut dyn FnMut(&[u8]),
    mut host: Option<&mut Store>,
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
    let host_fns: Vec<Arc<HostFn>> = host
        .as_ref()
        .map_or_else(Vec::new, |s| s.engine().host_fns());
    let (program, log) = match compile(file_name, source, options, &host_fns, host.as_deref()) {
        Ok(c) => match check_aarch64(&c, file_name, source) {
            Ok(()) => (c.optimized, c.log.render()),
            Err(e) => return (c.log.render() + &e.render(), e.exit_code()),
        },
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
    if let Some(store) = host.as_deref_mut() {
        store.runtime_mut().hostfns.error = None;
    }
    let mut text = Vec::new();
    let ending = cross::run_image_hosted(
        &image,
        &limits,
        &mut |ty, value| {
            text.clear();
            format_print(&mut text, ty, &value, false);
            text.push(b'\n');
            out(&text);
        },
        &mut |id, args| {
            let Some(store) = host.as_deref_mut() else {
                return Err(TrapCode::HostError);
            };
            let id = HostFnId::new(id as usize);
            call_from(&host_fns, store.runtime_mut(), id, args, &[])
        },
    );
    match ending {
        Err(e) => outcome(failure(format!("internal error: {e}"), 2)),
        Ok(Ending::Finished) => (log, 0),
        Ok(Ending::Trap { code, loc, trace }) => {
            let loc = loc.unwrap_or(program.funcs[main].loc());
            let mut e =
                RuntimeError::from_trap(Trap { code, loc }, &program).with_trace(&trace, &program);
            if code == TrapCode::HostError {
                let message = host.and_then(|s| s.runtime_mut().hostfns.error.take());
                if let Some(m) = message {
                    e.message = m;
                }
            }
            let e = Error::Runtime(e);
            (log + &e.render(), e.exit_code())
        }
    }
}

/// Appends the text `print` writes for `value` (without the newline), as
/// [`crate::format::format_value`] does for a heap value.
pub(crate) fn format_print(out: &mut Vec<u8>, ty: Type, value: &PrintValue, quoted: bool) {
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
