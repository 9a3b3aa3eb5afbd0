//! Runs every program of the corpus (`tests/programs/**/*.wdl`) on every
//! selected tier configuration and compares standard output byte for byte,
//! the exit code and the expected standard-error fragments. All failures are
//! collected and reported together at the end.
//!
//! Environment: `WADDLE_TEST_FILTER=SUBSTR` runs only programs whose relative
//! path contains `SUBSTR`; `WADDLE_TEST_TIERS=interp-O0,...` narrows the
//! configurations; `WADDLE_BLESS=1` rewrites `.out` files from the actual
//! output of the first configuration (check the diffs by hand first!).

use std::any::Any;
use std::fmt::Write as _;
use std::fs;
use std::panic::{self, AssertUnwindSafe};

use waddle::tooling::{run_source, RunOutcome};
use waddle_lang_tests::corpus::{self, Expectation, Program};
use waddle_lang_tests::diff::diff_lines;
use waddle_lang_tests::tiers::{self, TierConfig};

/// Native stack for the thread that runs the corpus: deep (but bounded)
/// recursion tests need more than a test thread's default.
const RUNNER_STACK_BYTES: usize = 512 << 20;

/// Fewest programs the whole corpus must hold.
const MIN_CORPUS_SIZE: usize = 100;

fn load_corpus() -> Vec<Program> {
    let filter = corpus::env_nonempty("WADDLE_TEST_FILTER");
    let programs = corpus::discover(&corpus::programs_dir(), filter.as_deref())
        .unwrap_or_else(|e| panic!("cannot read the corpus: {e}"));
    assert!(
        !programs.is_empty(),
        "no corpus program matches WADDLE_TEST_FILTER={filter:?}"
    );
    programs
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// Compares one outcome with its expectation; `None` when it matches.
fn compare(expected: &Expectation, actual: &RunOutcome) -> Option<String> {
    let mut problems = String::new();
    if actual.exit_code != expected.exit_code {
        let _ = writeln!(
            problems,
            "exit code: expected {}, got {}",
            expected.exit_code, actual.exit_code
        );
    }
    if actual.stdout != expected.stdout {
        let want = String::from_utf8_lossy(&expected.stdout);
        let got = String::from_utf8_lossy(&actual.stdout);
        let _ = writeln!(
            problems,
            "stdout differs (- expected, + actual):\n{}",
            diff_lines(&want, &got)
        );
    }
    for frag in &expected.stderr {
        if !actual.stderr.contains(frag.as_str()) {
            let _ = writeln!(problems, "stderr lacks `{frag}`");
        }
    }
    if !problems.is_empty() && !actual.stderr.is_empty() {
        let _ = writeln!(problems, "stderr was:\n{}", actual.stderr.trim_end());
    }
    (!problems.is_empty()).then_some(problems)
}

fn run_one(config: &TierConfig, program: &Program) -> Result<RunOutcome, String> {
    let options = config.options(None);
    panic::catch_unwind(AssertUnwindSafe(|| {
        run_source(&program.name, &program.source, &options)
    }))
    .map_err(|p| format!("panicked: {}", panic_message(p.as_ref())))
}

fn run_corpus() -> Result<String, String> {
    let programs = load_corpus();
    let configs = tiers::selected();
    assert!(
        !configs.is_empty(),
        "WADDLE_TEST_TIERS selects no available configuration"
    );
    let bless = corpus::env_nonempty("WADDLE_BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    let mut summary = String::new();
    for (k, config) in configs.iter().enumerate() {
        let (mut passed, mut failed) = (0usize, 0usize);
        for program in &programs {
            let failure = match (program.expectation(), run_one(config, program)) {
                (Err(e), _) => Some(format!("corpus error: {e}")),
                (Ok(_), Err(panicked)) => Some(panicked),
                (Ok(expected), Ok(actual)) => {
                    if bless && k == 0 && actual.stdout != expected.stdout {
                        fs::write(&program.out_path, &actual.stdout).unwrap_or_else(|e| {
                            panic!("cannot bless {}: {e}", program.out_path.display())
                        });
                        eprintln!("blessed {}", program.out_path.display());
                    }
                    compare(&expected, &actual)
                }
            };
            match failure {
                None => passed += 1,
                Some(text) => {
                    failed += 1;
                    failures.push(format!("=== {} [{}]\n{}", program.name, config.name, text));
                }
            }
        }
        let _ = writeln!(
            summary,
            "{:<12} ran {} programs: {} passed, {} failed",
            config.name,
            programs.len(),
            passed,
            failed
        );
    }
    if failures.is_empty() {
        Ok(summary)
    } else {
        Err(format!(
            "{}\n{} failure(s):\n{}",
            summary,
            failures.len(),
            failures.join("\n")
        ))
    }
}

#[test]
fn corpus_runs_on_every_tier() {
    // Silence the default hook while programs run: panics are caught and
    // reported with the program's name instead.
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = std::thread::Builder::new()
        .name("lang-corpus".into())
        .stack_size(RUNNER_STACK_BYTES)
        .spawn(run_corpus)
        .expect("spawn corpus thread")
        .join();
    panic::set_hook(hook);
    match result {
        Ok(Ok(summary)) => println!("{summary}"),
        Ok(Err(report)) => panic!("{report}"),
        Err(p) => panic!("corpus runner panicked: {}", panic_message(p.as_ref())),
    }
}

/// The corpus itself is well formed: every program has an expected output,
/// a valid header, failing programs name what they expect on stderr, and
/// compile errors print nothing.
#[test]
fn corpus_is_well_formed() {
    let all = corpus::discover(&corpus::programs_dir(), None).expect("read corpus");
    assert!(
        all.len() >= MIN_CORPUS_SIZE,
        "corpus has {} programs, expected at least {MIN_CORPUS_SIZE}",
        all.len()
    );
    let mut problems = Vec::new();
    for program in &all {
        match program.expectation() {
            Err(e) => problems.push(e.to_string()),
            Ok(exp) => {
                if exp.exit_code != 0 && exp.stderr.is_empty() {
                    problems.push(format!(
                        "{}: failing program without `// stderr:`",
                        program.name
                    ));
                }
                if exp.exit_code == 1 && !exp.stdout.is_empty() {
                    problems.push(format!(
                        "{}: compile error with non-empty .out",
                        program.name
                    ));
                }
                let located = exp.stderr.iter().any(|f| f.starts_with(&program.name));
                if exp.exit_code != 0 && !located {
                    problems.push(format!(
                        "{}: no `// stderr: {}:LINE:COL`",
                        program.name, program.name
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "corpus problems:\n{}",
        problems.join("\n")
    );
}

/// An execution budget stops an endless loop with the `out of fuel` runtime
/// error on every configuration (the corpus runs without a budget, so this
/// is checked here).
#[test]
fn fuel_budget_stops_endless_loop() {
    let source = "print(\"start\");\nvar n = 0;\nwhile true { n += 1; }\n";
    let mut problems = Vec::new();
    for config in tiers::selected() {
        let options = config.options(Some(100_000));
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            run_source("fuel.wdl", source, &options)
        }));
        match outcome {
            Err(p) => problems.push(format!(
                "{}: panicked: {}",
                config.name,
                panic_message(p.as_ref())
            )),
            Ok(o) => {
                if o.exit_code != 2
                    || o.stdout != b"start\n"
                    || !o.stderr.contains("runtime error: out of fuel")
                {
                    problems.push(format!("{}: unexpected outcome {o:?}", config.name));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
