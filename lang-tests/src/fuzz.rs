//! The checks behind the `cargo fuzz` targets in `lang-tests/fuzz/`
//! (issue 13): each takes the fuzzer's bytes and panics when it finds a
//! bug. They live here, in a stable crate, so that every input the fuzzer
//! found a bug with stays a regression test on stable
//! (`tests/fuzz_regressions.rs` replays the inputs saved under
//! `tests/fuzz/<target>/`) and the fuzz crate is three thin
//! `fuzz_target!` wrappers.
//!
//! - [`frontend`]: source text, accepted or not. The frontend must not
//!   panic, its diagnostics must render, and an accepted program must lower
//!   to IR that verifies and survives the IR printer and parser.
//! - [`ir_text`]: IR text. The parser must not panic; a parsed program
//!   must print to text that parses back to the same text; a program that
//!   verifies must still verify after the whole `-O3` pipeline and compile
//!   on both code generators.
//! - [`pipeline`]: a program (generated from a seed by [`crate::gen`], or
//!   source text starting with `//`) run on every tier under a fuel budget and a memory limit;
//!   every tier must agree with the interpreter ([`crate::difftest`]).

use waddle::Tier;
use waddle_frontend::{compile, diag, CompileOptions, SourceFile, SourceMap};
use waddle_jit::cross::compile_functions;
use waddle_jit::disasm::Arch as Isa;
use waddle_jit::JitOptions;
use waddle_opt::ir::{parse_program, print_program, verify_program, Program};
use waddle_opt::passes::{run_passes, FULL_PIPELINE};

use crate::difftest::{self, Config, Limits};
use crate::gen::{generate, GenConfig};

/// Inputs longer than this are ignored: the targets look for logic bugs,
/// not for the cost of huge inputs (the source size cap has its own test).
pub const MAX_INPUT: usize = 64 * 1024;

/// Fuel every pipeline run gets: enough for the generated programs, small
/// enough that a mutated infinite loop ends quickly.
pub const PIPELINE_FUEL: u64 = 200_000;

/// The heap limit of every pipeline run.
pub const PIPELINE_MEMORY: usize = 4 << 20;

/// Frontend check: see the module documentation. The input is the source,
/// invalid UTF-8 replaced; the first byte also picks the mode (bit 0: REPL,
/// bit 1: FFI allowed), so corpus programs are seeds as they are.
pub fn frontend(data: &[u8]) {
    let Some(&mode) = data.first() else {
        return;
    };
    if data.len() > MAX_INPUT {
        return;
    }
    let options = CompileOptions {
        repl: mode & 1 != 0,
        allow_ffi: mode & 2 != 0,
        ..CompileOptions::default()
    };
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("fuzz.wdl", String::from_utf8_lossy(data)));
    match compile(&sources, &options) {
        Err(diags) => {
            assert!(!diags.is_empty(), "rejected without a diagnostic");
            let text = diag::render(&diags, &sources);
            assert!(!text.is_empty(), "diagnostics render to nothing");
        }
        Ok(compiled) => {
            if let Err(errors) = verify_program(&compiled.program) {
                panic!("the frontend's IR does not verify: {errors:?}");
            }
            round_trip(&compiled.program);
        }
    }
}

/// Prints `program`, parses the text back and prints again: both texts
/// must be equal.
fn round_trip(program: &Program) {
    let text = print_program(program);
    let again = match parse_program(&text) {
        Ok(p) => p,
        Err(e) => panic!("printed IR does not parse: {e}\n{text}"),
    };
    assert_eq!(
        print_program(&again),
        text,
        "printed IR does not survive a parse"
    );
}

/// IR text check: see the module documentation. The input is the text,
/// invalid UTF-8 replaced.
pub fn ir_text(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let Ok(mut program) = parse_program(&text) else {
        return;
    };
    if verify_program(&program).is_err() {
        return;
    }
    round_trip(&program);
    let before = print_program(&program);
    if let Err(e) = run_passes(&mut program, FULL_PIPELINE) {
        panic!("the -O3 pipeline failed on verified IR: {e}\n{before}");
    }
    if let Err(errors) = verify_program(&program) {
        panic!(
            "the -O3 pipeline broke verified IR: {errors:?}\nbefore:\n{before}\nafter:\n{}",
            print_program(&program)
        );
    }
    round_trip(&program);
    let options = JitOptions::default();
    for tier in [waddle_jit::Tier::Baseline, waddle_jit::Tier::Opt] {
        if tier.on_host() {
            if let Err(e) = waddle_jit::compile(tier, &program, &options) {
                panic!("{tier} cannot compile verified IR: {e}\n{before}");
            }
        }
    }
    // AArch64 images cannot call host functions (an error, not a bug).
    if program.host_fns.is_empty() {
        if let Err(e) = compile_functions(&program, &options, Isa::Aarch64) {
            panic!("Cranelift (AArch64) cannot compile verified IR: {e}\n{before}");
        }
    }
}

/// The configurations [`pipeline`] compares: every tier at -O0 and -O2
/// that this build has, and `auto` with one chaos seed.
pub fn pipeline_configs() -> Vec<Config> {
    let mut out = vec![Config::host(Tier::Interp, 0), Config::host(Tier::Interp, 2)];
    if Tier::Baseline.is_available() {
        out.push(Config::host(Tier::Baseline, 0));
    }
    if Tier::Opt.is_available() {
        out.push(Config::host(Tier::Opt, 0));
        out.push(Config::host(Tier::Opt, 2));
    }
    if Tier::Full.is_available() {
        out.push(Config::host(Tier::Full, 2));
    }
    out.push(Config::chaos(difftest::CHAOS_SEEDS[0]));
    out
}

/// The program [`pipeline`] runs for `data`: the text itself when it is
/// UTF-8 starting with `//` (a comment, so corpus programs with their
/// header comment are seeds as they are), else a generated program
/// ([`GenConfig::small`]) whose seed is the first 8 bytes (missing bytes
/// are 0).
pub fn pipeline_source(data: &[u8]) -> Option<String> {
    if data.len() > MAX_INPUT {
        return None;
    }
    match std::str::from_utf8(data) {
        Ok(text) if text.starts_with("//") => Some(text.to_string()),
        _ => {
            let mut seed = [0u8; 8];
            let n = data.len().min(8);
            seed[..n].copy_from_slice(&data[..n]);
            Some(generate(u64::from_le_bytes(seed), &GenConfig::small()))
        }
    }
}

/// Whole-pipeline check: see the module documentation. Programs the
/// frontend rejects are skipped (that is [`frontend`]'s job).
pub fn pipeline(data: &[u8]) {
    let Some(source) = pipeline_source(data) else {
        return;
    };
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("fuzz.wdl", &source));
    if compile(&sources, &CompileOptions::default()).is_err() {
        return;
    }
    let limits = Limits {
        fuel: Some(PIPELINE_FUEL),
        memory_limit: Some(PIPELINE_MEMORY),
    };
    let mismatches = difftest::check("fuzz.wdl", &source, &pipeline_configs(), limits);
    if !mismatches.is_empty() {
        let reports: Vec<String> = mismatches.iter().map(|m| m.report()).collect();
        panic!("tiers disagree on\n{source}\n{}", reports.join("\n"));
    }
}
