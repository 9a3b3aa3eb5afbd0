//! The lang-test corpus (`lang-tests/tests/programs/**/*.wdl`) through the
//! frontend, then through the interpreter and every native tier (baseline
//! and Cranelift) with identical test hosts: all must agree exactly
//! (result, output, trap and location), and match the corpus expectation
//! (`.out` stdout, `// exit:` code and the `// stderr:` fragments of runtime
//! errors). Each program runs twice: with a collector every 1000
//! allocations, and again with a small fuel budget (so `out of fuel` must
//! hit at the same point on every engine). Compile errors are skipped.
//! `WADDLE_TEST_FILTER=SUBSTR` narrows the programs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use waddle_frontend::{compile as frontend_compile, CompileOptions, SourceFile, SourceMap};
use waddle_jit::{JitOptions, Tier};
use waddle_opt::abi::TrapCode;
use waddle_opt::ir::Program;
use waddle_test_support::tiers::{
    native_tiers, on_big_stack, run_interp, run_native, HostSetup, Outcome,
};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../lang-tests/tests/programs")
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "wdl") {
            out.push(p);
        }
    }
}

/// `// exit:` code and `// stderr:` fragments of a source.
fn header(src: &str) -> (i32, Vec<String>) {
    let mut exit = 0;
    let mut frags = Vec::new();
    for line in src.lines() {
        if let Some(r) = line.trim().strip_prefix("// exit:") {
            exit = r.trim().parse().unwrap_or(-1);
        } else if let Some(r) = line.trim().strip_prefix("// stderr:") {
            frags.push(r.trim().to_string());
        }
    }
    (exit, frags)
}

/// Compares one engine's outcome with the corpus expectation.
fn matches_expectation(
    p: &Program,
    o: &Outcome,
    want_out: &str,
    exit: i32,
    frags: &[String],
) -> Result<(), String> {
    if o.out != want_out {
        return Err(format!(
            "stdout:\n--- expected\n{want_out}--- got\n{}",
            o.out
        ));
    }
    match (&o.result, exit) {
        (Ok(_), 0) => Ok(()),
        (Err(t), 2) => {
            let stderr = format!(
                "error: runtime error: {}\n  --> {}\n",
                t.code.message(),
                p.describe_loc(t.loc)
            );
            match frags.iter().find(|f| !stderr.contains(f.as_str())) {
                Some(f) => Err(format!("stderr lacks `{f}`:\n{stderr}")),
                None => Ok(()),
            }
        }
        (r, e) => Err(format!("expected exit {e}, got {r:?}")),
    }
}

/// Runs the interpreter and every native tier with `setup`; reports
/// differences into `failures` and returns the interpreter's outcome when
/// all agree.
fn compare(
    failures: &mut String,
    rel: &str,
    program: &Program,
    name: &str,
    setup: HostSetup,
) -> Option<Outcome> {
    let (interp, _) = run_interp(program, name, &[], setup);
    let mut agree = true;
    // T2 also with every function treated as giant and cut into segments
    // of one or two instructions (`waddle_jit::cranelift::SEGMENT_INSTS`),
    // so every run of pure instructions in the corpus is a call.
    let segmented = JitOptions {
        huge_function_insts: 0,
        giant_function_insts: 0,
        segment_insts: 2,
        ..JitOptions::default()
    };
    let runs = native_tiers().into_iter().flat_map(|tier| {
        let extra = (tier == Tier::Opt).then(|| (tier, segmented.clone()));
        std::iter::once((tier, JitOptions::default())).chain(extra)
    });
    for (tier, opts) in runs {
        let (native, _) = run_native(tier, program, name, &[], setup, &opts);
        if native == interp {
            continue;
        }
        agree = false;
        let _ = writeln!(
            failures,
            "{rel} (fuel {:?}): engines differ\n  interp: {:?}\n  {}: {:?}",
            setup.fuel, interp.result, tier, native.result
        );
        if native.out != interp.out {
            let _ = writeln!(
                failures,
                "  interp out:\n{}\n  {} out:\n{}",
                interp.out, tier, native.out
            );
        }
    }
    agree.then_some(interp)
}

#[test]
fn corpus_agrees_with_interpreter_and_expectations() {
    let root = corpus_dir();
    let mut files = Vec::new();
    collect(&root, &mut files);
    let filter = std::env::var("WADDLE_TEST_FILTER")
        .ok()
        .filter(|f| !f.is_empty());
    let failures = on_big_stack(move || {
        let mut failures = String::new();
        let (mut ran, mut out_of_fuel) = (0, 0);
        for path in files {
            let rel = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            if filter.as_ref().is_some_and(|f| !rel.contains(f.as_str())) {
                continue;
            }
            let src = std::fs::read_to_string(&path).unwrap_or_default();
            let (exit, frags) = header(&src);
            if exit == 1 {
                continue;
            }
            let want_out = std::fs::read_to_string(path.with_extension("out")).unwrap_or_default();
            let mut sources = SourceMap::default();
            sources.add(SourceFile::new(rel.clone(), src));
            let program = match frontend_compile(&sources, &CompileOptions::default()) {
                Ok(c) => c.program,
                Err(d) => {
                    let _ = writeln!(failures, "{rel}: frontend failed: {d:?}");
                    continue;
                }
            };
            let Some(main) = program.main else {
                let _ = writeln!(failures, "{rel}: no main");
                continue;
            };
            let name = program.funcs[main].name().to_string();
            ran += 1;
            let gc = HostSetup {
                fuel: None,
                gc_every: Some(1000),
            };
            if let Some(o) = compare(&mut failures, &rel, &program, &name, gc) {
                if let Err(e) = matches_expectation(&program, &o, &want_out, exit, &frags) {
                    let _ = writeln!(failures, "{rel}: {e}");
                }
            }
            let fuel = HostSetup {
                fuel: Some(3000),
                gc_every: Some(7),
            };
            if let Some(o) = compare(&mut failures, &rel, &program, &name, fuel) {
                out_of_fuel += usize::from(o.result.is_err_and(|t| t.code == TrapCode::OutOfFuel));
            }
        }
        assert!(ran > 0, "no corpus program ran");
        eprintln!(
            "corpus: {ran} programs on {:?}, {out_of_fuel} ran out of fuel at 3000",
            native_tiers()
        );
        failures
    });
    assert!(failures.is_empty(), "{failures}");
}
