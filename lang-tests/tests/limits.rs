//! Input limits on every tier (issue 13, defect 5): flat left-associative
//! chains of [`TERMS`] operands (integer sums, `+`/`-` mixes, string
//! concatenation, `||` and `&&` chains) compile and run the same on every
//! configuration of `waddle_lang_tests::tiers`, with output checked
//! against values computed here; a chain must not make the optimizer or a
//! code generator recurse once per operand.
//!
//! The `||`/`&&` chains have [`LOGIC_TERMS`] operands: each operand is a
//! branch, and jump threading is quadratic in the depth of the dominator
//! tree (its nearest-common-ancestor walk), and debug builds re-check the
//! analyses after every edit: a chain of a few thousand branches already
//! takes minutes at `-O2` in a debug build (a known limit, not fixed yet;
//! the frontend itself handles 100 000, see `frontend/tests/limits.rs`).

use waddle::tooling::run_source;
use waddle_lang_tests::diff::diff_lines;
use waddle_lang_tests::tiers;

/// Operands of the arithmetic and string chains: 100 000 in release
/// builds; 10 000 in debug builds, where compiling a 100 000-operand
/// function on every tier takes over ten minutes (the frontend alone is
/// tested with 100 000 in debug builds too, `frontend/tests/limits.rs`).
const TERMS: usize = if cfg!(debug_assertions) {
    10_000
} else {
    100_000
};
/// Operands of the short-circuit chains (see the module comment).
const LOGIC_TERMS: usize = 200;

/// The program and the output it must print.
fn chains() -> (String, String) {
    let mut src = String::from(
        "var one = 1;\nvar x = 7;\nvar t = true;\nvar calls = 0;\n\
         fn f() -> bool { calls += 1; return false; }\n",
    );
    let mut out = String::new();

    src += &format!("print({});\n", vec!["one"; TERMS].join(" + "));
    out += &format!("{TERMS}\n");

    let (mut pm, mut value) = ("x".to_string(), 7i64);
    for i in 1..TERMS {
        let (term, v) = if i % 2 == 0 {
            ("x".to_string(), 7)
        } else {
            let k = (i % 5) as i64;
            (k.to_string(), k)
        };
        if i % 3 == 0 {
            pm += " - ";
            value = value.wrapping_sub(v);
        } else {
            pm += " + ";
            value = value.wrapping_add(v);
        }
        pm += &term;
    }
    src += &format!("print({pm});\n");
    out += &format!("{value}\n");

    let pieces: Vec<&str> = (0..TERMS)
        .map(|i| if i % 1000 == 999 { "\"ab\"" } else { "\"\"" })
        .collect();
    src += &format!("let s = \"<\" + {};\nprint(len(s));\n", pieces.join(" + "));
    out += &format!("{}\n", 1 + 2 * (TERMS / 1000));

    src += &format!(
        "print({});\nprint(calls);\n",
        vec!["f()"; LOGIC_TERMS].join(" || ")
    );
    out += &format!("false\n{LOGIC_TERMS}\n");

    src += &format!("print({});\n", vec!["t"; LOGIC_TERMS].join(" && "));
    out += "true\n";
    (src, out)
}

#[test]
fn flat_chains_of_100000_terms_run_on_every_tier() {
    let (src, want) = chains();
    let mut failures = Vec::new();
    for config in tiers::selected() {
        let got = run_source("chains.wdl", &src, &config.options(None));
        let stdout = String::from_utf8_lossy(&got.stdout);
        if got.exit_code != 0 || stdout != want {
            failures.push(format!(
                "=== {} (exit {})\n{}\nstdout (- expected, + actual):\n{}",
                config.name,
                got.exit_code,
                got.stderr.trim_end(),
                diff_lines(&want, &stdout)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
