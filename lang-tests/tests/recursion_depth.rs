//! Recursion depth is the same on every tier and on AArch64 (issue 13,
//! defect 3): a stack budget of `B` bytes allows exactly
//! `B / STACK_BYTES_PER_CALL` nested frames of recursive functions
//! (`waddle_opt::abi::max_call_depth`, 65 536 for the default budget); the
//! call that would go deeper raises `stack overflow` at its location.
//! Frames of non-recursive functions do not count, so inlining them (as
//! the optimizing tiers do) cannot change where the limit is reached, and
//! recursive functions are never inlined.

use waddle::cross::{has_aarch64, run_source_aarch64, CrossOptions};
use waddle::driver::{run_source, RunOutcome, Tier};
use waddle_lang_tests::tiers::{self, TierConfig};
use waddle_opt::abi::{max_call_depth, DEFAULT_STACK_BUDGET};

/// `down(n)` nests `n + 1` frames of `down`; a non-recursive helper is
/// called at every level (inlined on the optimizing tiers), and a mutual
/// recursion `even`/`odd` nests one frame per step.
fn program(n: i64) -> String {
    format!(
        "fn leaf(x: int) -> int {{ return x * 2 - x; }}\n\
         fn down(n: int) -> int {{\n\
             if n == 0 {{ return 0; }}\n\
             return leaf(1) + down(n - 1);\n\
         }}\n\
         fn even(n: int) -> bool {{ if n == 0 {{ return true; }} return odd(n - 1); }}\n\
         fn odd(n: int) -> bool {{ if n == 0 {{ return false; }} return even(n - 1); }}\n\
         print(even({n} - 1));\n\
         print(down({n} - 1));\n\
         print(down({n}));\n"
    )
}

fn text(o: &RunOutcome) -> String {
    format!(
        "exit {}\n{}{}",
        o.exit_code,
        String::from_utf8_lossy(&o.stdout),
        o.stderr
    )
}

#[test]
fn the_same_depth_is_allowed_on_every_tier() {
    let depth = max_call_depth(DEFAULT_STACK_BUDGET);
    assert_eq!(depth, 65_536);
    // `even(depth - 1)` and `down(depth - 1)` use exactly `depth` frames;
    // `down(depth)` needs one more.
    let want_stdout = format!("false\n{}\n", depth - 1);
    check_every_tier(&program(depth), &want_stdout, "depth.wdl:4:18");
}

/// A recursive function whose frame is larger than
/// `STACK_BYTES_PER_CALL` on the interpreter and the baseline tier (a slot
/// or word per value, about 2.5 KiB) and small on Cranelift's: `big(n)`
/// nests `n + 1` frames.
fn big_frames(n: i64) -> String {
    let mut s = String::from(
        "fn big(n: int) -> int {\n\
         if n == 0 { return 0; }\n\
         let r = big(n - 1);\n\
         let a0 = r * 3 + n;\n",
    );
    for k in 1..160 {
        s.push_str(&format!("let a{k} = a{} * 7 - n;\n", k - 1));
    }
    s.push_str("return r + a159 % 2;\n}\n");
    s.push_str(&format!("print(big({} - 1) * 0);\nprint(big({n}));\n", n));
    s
}

#[test]
fn large_frames_reach_the_same_depth_on_every_tier() {
    // The byte safety net allows 8 times the budget
    // (`waddle_opt::abi::stack_byte_limit`), so the depth limit is what
    // stops this recursion on every tier (the 10 000-program differential
    // run found tiers stopping at 54 457 and 61 227 frames before).
    let depth = max_call_depth(DEFAULT_STACK_BUDGET);
    check_every_tier(&big_frames(depth), "0\n", "depth.wdl:3:9");
}

/// A recursive function that calls a small non-recursive helper 240
/// times with constant arguments: the optimizing levels inline every call
/// and fold it away, leaving thousands of dead values in the function's
/// value arena and a handful live. `deep(n)` nests `n + 1` frames.
fn inlined_helpers(n: i64) -> String {
    let mut s = String::from(
        "fn h(x: int) -> int { let y = x * x + 3; if y > 50 { return y % 7 - x; } return y + x * 2; }\n\
         fn deep(n: int) -> int {\n\
         if n == 0 { return 0; }\n\
         let r = deep(n - 1);\n\
         var acc = r;\n",
    );
    for k in 0..240 {
        s.push_str(&format!("acc = acc + h({});\n", k % 17));
    }
    s.push_str("return acc - r + n % 2;\n}\n");
    s.push_str(&format!("print(deep({} - 1) * 0);\nprint(deep({n}));\n", n));
    s
}

#[test]
fn dead_values_of_inlined_calls_take_no_frame_space() {
    // The baseline tier at -O2 sized its frame by the value arena, dead
    // values included: about 15 KiB per frame here, so the byte safety
    // net stopped this recursion near 35 000 frames (the 10 000-program
    // differential run found a generated program stopping at 51 148).
    // Frames now hold the values of the emitted blocks only.
    let depth = max_call_depth(DEFAULT_STACK_BUDGET);
    check_every_tier(&inlined_helpers(depth), "0\n", "depth.wdl:4:9");
}

/// The baseline tier with the `-O2` pipeline, which the corpus
/// configurations leave out (its IR is the optimizing tiers' IR) but
/// whose frames are the largest: a word per value of the inlined IR.
const BASELINE_O2: TierConfig = TierConfig {
    name: "baseline-O2",
    tier: Tier::Baseline,
    opt_level: 2,
    chaos: None,
    eager: None,
};

/// Runs `source` on every tier and on AArch64: it must print
/// `want_stdout`, then raise `stack overflow` at `loc`.
fn check_every_tier(source: &str, want_stdout: &str, loc: &str) {
    let mut failures = Vec::new();
    let mut check = |name: &str, out: &RunOutcome| {
        let ok = out.exit_code == 2
            && String::from_utf8_lossy(&out.stdout) == want_stdout
            && out.stderr.contains("runtime error: stack overflow")
            && out.stderr.contains(loc);
        if !ok {
            failures.push(format!("{name}:\n{}", text(out)));
        }
    };
    // Chaos configurations mix tiers within one recursion: every tier
    // entry goes on with the depth its caller had left
    // (`waddle_opt::abi::carry`), so a mixed chain allows the same depth.
    let mut configs = tiers::selected();
    if BASELINE_O2.available() {
        configs.push(&BASELINE_O2);
    }
    for config in configs {
        let out = run_source("depth.wdl", source, &config.options(None));
        check(config.name, &out);
    }
    if !waddle_lang_tests::cross::skip_without_cross_tools(
        "the_same_depth_is_allowed_on_every_tier (aarch64 part)",
    ) {
        for (tier, level) in [
            (Tier::Baseline, 0),
            (Tier::Baseline, 2),
            (Tier::Opt, 2),
            (Tier::Full, 2),
        ] {
            assert!(has_aarch64(tier));
            let options = CrossOptions {
                tier,
                opt_level: level,
                ..CrossOptions::default()
            };
            let out = run_source_aarch64("depth.wdl", source, &options);
            check(&format!("aarch64-{}-O{level}", tier.name()), &out);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
