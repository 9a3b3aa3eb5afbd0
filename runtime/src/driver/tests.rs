//! `run_source`: what `waddle run` prints, captured.

use super::{run_source, RunOptions};
use crate::Tier;

fn run(src: &str) -> (String, String, i32) {
    let o = run_source("prog.wdl", src, &RunOptions::default());
    (String::from_utf8(o.stdout).unwrap(), o.stderr, o.exit_code)
}

#[test]
fn success() {
    assert_eq!(
        run("var calls = 0;\nfn bump() { calls += 1; }\nbump(); bump();\nprint(calls);\nprint([[1, 2], [3]]);"),
        ("2\n[[1, 2], [3]]\n".into(), String::new(), 0)
    );
}

#[test]
fn runtime_error() {
    let (out, err, code) = run("print(1);\nlet a = [1, 2];\nprint(a[5]);");
    assert_eq!((out.as_str(), code), ("1\n", 2));
    assert_eq!(
        err,
        "error: runtime error: index out of bounds\n  --> prog.wdl:3:8\n"
    );
    let (_, err, code) = run("assert(1 > 2);");
    assert_eq!(
        (err.as_str(), code),
        (
            "error: runtime error: assertion failed\n  --> prog.wdl:1:1\n",
            2
        )
    );
}

#[test]
fn compile_error() {
    let (out, err, code) = run("print(1);\nprint(undefined_name);");
    assert_eq!((out.as_str(), code), ("", 1));
    assert!(err.starts_with("error"), "{err}");
}

#[test]
fn every_tier_runs_or_is_unavailable() {
    for tier in [Tier::Baseline, Tier::Opt, Tier::Full] {
        let o = run_source(
            "p.wdl",
            "print(1);",
            &RunOptions {
                tier,
                ..RunOptions::default()
            },
        );
        if tier.is_available() {
            assert_eq!(o.exit_code, 0, "{tier}: {}", o.stderr);
        } else {
            assert_eq!(o.exit_code, 1);
            assert!(o
                .stderr
                .contains(&format!("tier `{tier}` is not available")));
        }
    }
}

#[test]
fn fuel_and_stack_overflow() {
    let o = run_source(
        "p.wdl",
        "while true {}",
        &RunOptions {
            fuel: Some(500),
            ..RunOptions::default()
        },
    );
    assert_eq!(o.exit_code, 2);
    assert!(o.stderr.starts_with("error: runtime error: out of fuel"));
    let (_, err, code) = run("fn down(n: int) -> int { return down(n + 1); }\nprint(down(0));");
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: runtime error: stack overflow\n  --> prog.wdl:1:33"),
        "{err}"
    );
}

#[test]
fn out_of_memory() {
    let (_, err, code) = run("let a = [0; 1000000000000];");
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: runtime error: out of memory\n  --> prog.wdl:1:9"),
        "{err}"
    );
}
