//! Every optimization pass on the whole corpus (`tests/programs/**`):
//!
//! 1. IR level: each program is lowered, and every registered pass runs
//!    alone on it, then the `-O1` pipeline pass by pass; after every pass
//!    the program must pass `verify_program` and every function
//!    `check_canonical` (SSA, LCSSA, loop-simplified form). In debug builds
//!    the editor additionally compares its maintained analyses with a
//!    from-scratch computation after every mutation primitive.
//! 2. Execution: every program runs on the interpreter after each single
//!    pass and at `-O1`, and must print exactly its expected output (the
//!    same as `-O0`), with the same exit code and error messages.
//!
//! 3. The level pipelines as `waddle run` runs them (one editor per
//!    function across all passes) on the corpus and on the compile-only
//!    programs of `tests/optimizer/` (optimizer regressions whose programs
//!    need not terminate), checked the same way.
//!
//! `WADDLE_TEST_FILTER=SUBSTR` narrows the programs.

use std::panic::{self, AssertUnwindSafe};

use waddle::tooling::{run_source, RunOptions};
use waddle::Tier;
use waddle_frontend::{CompileOptions, SourceFile, SourceMap};
use waddle_lang_tests::corpus::{self, Program};
use waddle_opt::canon::check_canonical;
use waddle_opt::ir::{verify_program, Program as IrProgram};
use waddle_opt::passes::{pass_names, run_passes, run_pipeline, O1_PIPELINE};

fn load() -> Vec<Program> {
    let filter = corpus::env_nonempty("WADDLE_TEST_FILTER");
    corpus::discover(&corpus::programs_dir(), filter.as_deref())
        .unwrap_or_else(|e| panic!("cannot read the corpus: {e}"))
}

fn lower(p: &Program) -> Option<IrProgram> {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new(p.name.clone(), p.source.clone()));
    let options = CompileOptions {
        prelude: Default::default(),
        repl: false,
        allow_ffi: false,
    };
    waddle_frontend::compile(&sources, &options)
        .ok()
        .map(|c| c.program)
}

fn check_after(ir: &IrProgram, what: &str) -> Result<(), String> {
    verify_program(ir).map_err(|e| format!("after {what}: verifier: {:?}", e[0]))?;
    for (_, f) in ir.funcs.iter() {
        check_canonical(f).map_err(|e| format!("after {what}: {e}"))?;
    }
    Ok(())
}

fn message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn every_pass_keeps_canonical_form() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for prog in load() {
        let Some(base) = lower(&prog) else { continue };
        checked += 1;
        let mut one = |name: &str, list: &[&str]| {
            let mut ir = base.clone();
            let mut res = Ok(());
            for &pass in list {
                let r = panic::catch_unwind(AssertUnwindSafe(|| {
                    run_passes(&mut ir, &[pass]).map_err(|e| e.to_string())
                }));
                res = match r {
                    Ok(Ok(())) => check_after(&ir, pass),
                    Ok(Err(e)) => Err(e),
                    Err(p) => Err(format!("{pass} panicked: {}", message(p))),
                };
                if res.is_err() {
                    break;
                }
            }
            if let Err(e) = res {
                failures.push(format!("{} [{name}]: {e}", prog.name));
            }
        };
        for pass in pass_names() {
            one(pass, &["canon", pass]);
        }
        one("O1", O1_PIPELINE);
    }
    assert!(checked > 0, "no program compiled");
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn level_pipelines_keep_canonical_form() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/optimizer");
    let mut programs = load();
    let extra = corpus::discover(&dir, None).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    assert!(!extra.is_empty(), "no program in {}", dir.display());
    programs.extend(extra);
    let mut failures = Vec::new();
    for prog in &programs {
        let Some(base) = lower(prog) else { continue };
        for level in 1..=2 {
            let mut ir = base.clone();
            let r = panic::catch_unwind(AssertUnwindSafe(|| run_pipeline(&mut ir, level)));
            let res = match r {
                Ok(()) => check_after(&ir, &format!("-O{level}")),
                Err(p) => Err(format!("-O{level} panicked: {}", message(p))),
            };
            if let Err(e) = res {
                failures.push(format!("{}: {e}", prog.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_pass_preserves_output() {
    let mut failures = Vec::new();
    let mut configs: Vec<(String, RunOptions)> = pass_names()
        .map(|p| {
            (
                p.to_string(),
                RunOptions {
                    tier: Tier::Interp,
                    opt_level: 0,
                    passes: Some(vec![p.to_string()]),
                    fuel: None,
                    memory_limit: None,
                    allow_ffi: false,
                    tier_chaos: None,
                    tier_thresholds: None,
                    jit_sync: false,
                },
            )
        })
        .collect();
    configs.push((
        "O1".into(),
        RunOptions {
            tier: Tier::Interp,
            opt_level: 1,
            passes: None,
            fuel: None,
            memory_limit: None,
            allow_ffi: false,
            tier_chaos: None,
            tier_thresholds: None,
            jit_sync: false,
        },
    ));
    for prog in load() {
        let expected = prog
            .expectation()
            .unwrap_or_else(|e| panic!("corpus error: {e}"));
        for (name, options) in &configs {
            let out = run_source(&prog.name, &prog.source, options);
            let mut problems = Vec::new();
            if out.exit_code != expected.exit_code {
                problems.push(format!(
                    "exit code {} instead of {}",
                    out.exit_code, expected.exit_code
                ));
            }
            if out.stdout != expected.stdout {
                problems.push("stdout differs".to_string());
            }
            for frag in &expected.stderr {
                if !out.stderr.contains(frag.as_str()) {
                    problems.push(format!("stderr lacks `{frag}`"));
                }
            }
            if !problems.is_empty() {
                failures.push(format!(
                    "{} [{name}]: {}; stderr: {}",
                    prog.name,
                    problems.join(", "),
                    out.stderr.trim_end()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
