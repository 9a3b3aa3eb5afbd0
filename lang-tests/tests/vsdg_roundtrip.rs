//! The VSDG round-trip property (issue 11, digest §6.5): on generated
//! programs, lifting every function to the VSDG and sequentializing it back
//! with no other optimization (`--passes canon,vsdg`, no cleanup) preserves
//! behaviour: the interpreter prints the same output, exits the same way and
//! reports the same error as on the canonical program. Debug builds also
//! verify every function after the pass. The generated programs cover
//! loops, early returns, breaks, traps, calls, strings and arrays; the
//! tiers' own runs of `full` are in `difftest.rs` and the corpus.

use waddle::tooling::{run_source, RunOptions};
use waddle::Tier;
use waddle_lang_tests::corpus::env_nonempty;
use waddle_lang_tests::gen::{generate, GenConfig};

/// Programs checked by default (`WADDLE_VSDG_ROUNDTRIP_COUNT` overrides).
const PROGRAMS: u64 = 150;

fn passes(names: &[&str]) -> RunOptions {
    RunOptions {
        tier: Tier::Interp,
        passes: Some(names.iter().map(|s| s.to_string()).collect()),
        ..RunOptions::default()
    }
}

#[test]
fn round_trip_without_optimization_preserves_behaviour() {
    let count = env_nonempty("WADDLE_VSDG_ROUNDTRIP_COUNT")
        .and_then(|v| v.parse().ok())
        .unwrap_or(PROGRAMS);
    let reference = passes(&["canon"]);
    let tripped = passes(&["canon", "vsdg"]);
    let mut failures = Vec::new();
    for seed in 1..=count {
        let source = generate(seed, &GenConfig::small());
        let name = format!("gen-{seed}.wdl");
        let want = run_source(&name, &source, &reference);
        let got = run_source(&name, &source, &tripped);
        if (&got.stdout, &got.stderr, got.exit_code) != (&want.stdout, &want.stderr, want.exit_code)
        {
            failures.push(format!(
                "seed {seed}: exit {} vs {}\n--- stderr (round trip)\n{}\n--- stderr (reference)\n{}",
                got.exit_code, want.exit_code, got.stderr, want.stderr
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} programs changed behaviour:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
