//! Deterministic mutation fuzzing of the frontend: every corpus program is
//! mutated many times (seeded; token and byte edits, truncation) and fed to
//! `waddle_frontend::compile`, which must never panic. Mutants that compile
//! and look harmless are also run on the interpreter with a small fuel
//! budget: the run must not panic and must exit with 0, 1 or 2.
//!
//! `WADDLE_FUZZ_SEED` changes the seed; `WADDLE_FUZZ_MUTANTS` the number of
//! mutants per program; `WADDLE_TEST_FILTER` narrows the programs.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

use waddle::tooling::{run_source, RunOptions};
use waddle::Tier;
use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};
use waddle_lang_tests::corpus;

/// Mutants generated from each corpus program by default.
const MUTANTS_PER_PROGRAM: usize = 64;
/// Fuel for running a mutant.
const RUN_FUEL: u64 = 100_000;
/// Failures listed in full in the report.
const MAX_REPORTED: usize = 20;

/// SplitMix64: small, seedable, good enough for choosing mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Tokens spliced into mutants: every keyword and operator, tricky literals.
const POOL: &[&str] = &[
    "fn",
    "let",
    "var",
    "if",
    "else",
    "while",
    "for",
    "in",
    "break",
    "continue",
    "return",
    "true",
    "false",
    "int",
    "float",
    "bool",
    "str",
    "void",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    ":",
    "->",
    "..",
    "=",
    "+=",
    "<<=",
    "==",
    "<",
    "&&",
    "||",
    "!",
    "-",
    "+",
    "*",
    "/",
    "%",
    "<<",
    ">>",
    "&",
    "|",
    "^",
    "0",
    "1",
    "-1",
    "9223372036854775807",
    "9223372036854775808",
    "0x",
    "1_",
    "1e",
    "1.5",
    ".5",
    "\"",
    "\"s\"",
    "\"\\q\"",
    "/*",
    "*/",
    "//",
    "[]",
    "[0; 3]",
    "x",
    "print",
    "len",
    "push",
    "pop",
    "main",
    "\u{feff}",
    "é",
    "\0",
    "\n",
];

/// Bytes written by byte-level edits.
const EDIT_BYTES: &[u8] = b" \n;{}()[]=+-*/%<>!&|^.,:\"_0159aez";

/// Splits source text into rough tokens (words, numbers, strings, single
/// punctuation characters, whitespace runs), keeping every byte.
fn tokenize(src: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(c) = rest.chars().next() {
        let len = if c.is_alphanumeric() || c == '_' {
            rest.find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '.'))
                .unwrap_or(rest.len())
        } else if c.is_whitespace() {
            rest.find(|ch: char| !ch.is_whitespace())
                .unwrap_or(rest.len())
        } else if c == '"' {
            rest[1..].find('"').map_or(rest.len(), |i| i + 2)
        } else {
            c.len_utf8()
        };
        out.push(&rest[..len]);
        rest = &rest[len..];
    }
    out
}

/// One seeded mutation of `src`.
fn mutate(src: &str, rng: &mut Rng) -> String {
    let tokens = tokenize(src);
    if tokens.is_empty() {
        return POOL[rng.below(POOL.len())].to_string();
    }
    let mut toks: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
    let edits = 1 + rng.below(3);
    for _ in 0..edits {
        let n = toks.len().max(1);
        let i = rng.below(n);
        match rng.below(8) {
            0 if !toks.is_empty() => {
                toks.remove(i);
            }
            1 if !toks.is_empty() => {
                let t = toks[i].clone();
                toks.insert(i, t);
            }
            2 if !toks.is_empty() => {
                toks[i] = POOL[rng.below(POOL.len())].to_string();
            }
            3 => {
                let at = i.min(toks.len());
                toks.insert(at, POOL[rng.below(POOL.len())].to_string());
            }
            4 if toks.len() > 1 => {
                let j = rng.below(toks.len());
                toks.swap(i, j);
            }
            5 => {
                let keep = rng.below(toks.len() + 1);
                toks.truncate(keep);
            }
            6 if !toks.is_empty() => {
                // Duplicate a whole range (e.g. a statement) elsewhere.
                let j = (i + 1 + rng.below(8)).min(toks.len());
                let range: Vec<String> = toks[i..j].to_vec();
                let at = rng.below(toks.len() + 1);
                toks.splice(at..at, range);
            }
            _ => {
                // A byte-level edit: replace one byte with a random ASCII byte.
                let mut bytes = toks.concat().into_bytes();
                if !bytes.is_empty() {
                    let k = rng.below(bytes.len());
                    bytes[k] = EDIT_BYTES[rng.below(EDIT_BYTES.len())];
                }
                let text = String::from_utf8_lossy(&bytes).into_owned();
                toks = tokenize(&text).iter().map(|t| t.to_string()).collect();
            }
        }
    }
    toks.concat()
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

/// Whether a compiled mutant is safe to run quickly: no long digit runs
/// (which could ask for enormous arrays or loop bounds).
fn harmless(src: &str) -> bool {
    let mut run = 0;
    for b in src.bytes() {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        if run >= 6 {
            return false;
        }
    }
    true
}

struct Stats {
    compiled: usize,
    rejected: usize,
    ran: usize,
    failures: Vec<String>,
}

fn check_mutant(name: &str, src: &str, stats: &mut Stats) {
    let compiled = panic::catch_unwind(AssertUnwindSafe(|| {
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new(name, src));
        compile(&sources, &CompileOptions::default()).is_ok()
    }));
    match compiled {
        Err(p) => {
            stats.failures.push(format!(
                "compile panicked: {}\n--- mutant of {name}:\n{src}",
                panic_message(p.as_ref())
            ));
            return;
        }
        Ok(false) => {
            stats.rejected += 1;
            return;
        }
        Ok(true) => stats.compiled += 1,
    }
    if !harmless(src) {
        return;
    }
    let options = RunOptions {
        tier: Tier::Interp,
        opt_level: 0,
        passes: None,
        fuel: Some(RUN_FUEL),
        memory_limit: None,
        allow_ffi: false,
        tier_chaos: None,
        tier_thresholds: None,
        jit_sync: false,
    };
    stats.ran += 1;
    match panic::catch_unwind(AssertUnwindSafe(|| run_source(name, src, &options))) {
        Err(p) => stats.failures.push(format!(
            "run panicked: {}\n--- mutant of {name}:\n{src}",
            panic_message(p.as_ref())
        )),
        Ok(outcome) if !matches!(outcome.exit_code, 0..=2) => stats.failures.push(format!(
            "run exited with {}\n--- mutant of {name}:\n{src}",
            outcome.exit_code
        )),
        Ok(_) => {}
    }
}

fn fuzz() -> Result<String, String> {
    let filter = corpus::env_nonempty("WADDLE_TEST_FILTER");
    let programs = corpus::discover(&corpus::programs_dir(), filter.as_deref())
        .map_err(|e| format!("cannot read the corpus: {e}"))?;
    let seed = corpus::env_nonempty("WADDLE_FUZZ_SEED")
        .map(|s| {
            s.parse::<u64>()
                .map_err(|e| format!("WADDLE_FUZZ_SEED: {e}"))
        })
        .transpose()?
        .unwrap_or(0x5eed_2024);
    let per_program = corpus::env_nonempty("WADDLE_FUZZ_MUTANTS")
        .map(|s| {
            s.parse::<usize>()
                .map_err(|e| format!("WADDLE_FUZZ_MUTANTS: {e}"))
        })
        .transpose()?
        .unwrap_or(MUTANTS_PER_PROGRAM);
    let mut stats = Stats {
        compiled: 0,
        rejected: 0,
        ran: 0,
        failures: Vec::new(),
    };
    for (k, program) in programs.iter().enumerate() {
        let mut rng = Rng(seed ^ (k as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
        for _ in 0..per_program {
            let mutant = mutate(&program.source, &mut rng);
            check_mutant(&program.name, &mutant, &mut stats);
        }
    }
    let total = programs.len() * per_program;
    let summary = format!(
        "{total} mutants of {} programs: {} compiled ({} run on interp), {} rejected with diagnostics",
        programs.len(),
        stats.compiled,
        stats.ran,
        stats.rejected
    );
    if stats.failures.is_empty() {
        Ok(summary)
    } else {
        let n = stats.failures.len();
        stats.failures.truncate(MAX_REPORTED);
        Err(format!(
            "{summary}\n{n} failure(s); the first {}:\n\n{}",
            stats.failures.len(),
            stats.failures.join("\n\n")
        ))
    }
}

#[test]
fn mutated_corpus_never_panics() {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = std::thread::Builder::new()
        .name("fuzz-frontend".into())
        .stack_size(256 << 20)
        .spawn(fuzz)
        .expect("spawn fuzz thread")
        .join();
    panic::set_hook(hook);
    match result {
        Ok(Ok(summary)) => println!("{summary}"),
        Ok(Err(report)) => panic!("{report}"),
        Err(p) => panic!("fuzz runner panicked: {}", panic_message(p.as_ref())),
    }
}

#[test]
fn mutation_is_deterministic_and_changes_text() {
    let src = "fn f(a: int) -> int { return a + 1; }\nprint(f(2));\n";
    let a: Vec<String> = {
        let mut rng = Rng(7);
        (0..50).map(|_| mutate(src, &mut rng)).collect()
    };
    let b: Vec<String> = {
        let mut rng = Rng(7);
        (0..50).map(|_| mutate(src, &mut rng)).collect()
    };
    assert_eq!(a, b);
    assert!(a.iter().filter(|m| m.as_str() != src).count() > 40);
    assert_eq!(tokenize(src).concat(), src);
}
