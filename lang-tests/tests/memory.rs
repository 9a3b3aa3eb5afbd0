//! The memory limit on every tier and on AArch64 (issue 13, defects 2
//! and 3): programs that run into `--memory-limit` end the same way
//! everywhere, at the same point, because every tier counts the same
//! objects with the same sizes (header, buffer and the per-object
//! overhead, `heap::object::OBJECT_OVERHEAD` / the loader's
//! `OBJ_OVERHEAD`) and collects by the same rule. Each program prints its
//! progress, so the line where it stops shows the accounting.

use waddle::cross::{has_aarch64, run_source_aarch64, CrossOptions};
use waddle::tooling::{run_source, RunOutcome};
use waddle::Tier;
use waddle_lang_tests::tiers;

/// (name, source, memory limit in bytes).
const PROGRAMS: &[(&str, &str, usize)] = &[
    (
        // Small live strings until the limit: the count reached depends on
        // the bytes accounted per object.
        "small_strings.wdl",
        "var a: [str] = [];\n\
         var i = 0;\n\
         while true {\n\
             push(a, str(i));\n\
             i = i + 1;\n\
             if i % 500 == 0 { print(i); }\n\
         }\n",
        1 << 20,
    ),
    (
        // A string doubled until it no longer fits.
        "doubling.wdl",
        "var s = \"ab\";\n\
         while true { s = s + s; print(len(s)); }\n",
        1 << 20,
    ),
    (
        // Arrays grown by `push`, three of them alive at once; each growth
        // needs the new buffer while the old one still exists.
        "push_growth.wdl",
        "var a: [int] = [1, 2, 3];\n\
         var b: [float] = [];\n\
         var c: [bool] = [true];\n\
         var n = 0;\n\
         while true {\n\
             push(a, n); push(b, 1.5); push(c, false);\n\
             n = n + 1;\n\
             if n % 1024 == 0 { print(n); }\n\
         }\n",
        1 << 20,
    ),
    (
        // `str` of a growing array: each string is dead once its length is
        // printed, so only one is alive at the next allocation on every
        // tier (defect 3: the interpreter and baseline kept dead slots and
        // the native tiers stale words of the helpers' frames alive, so
        // they stopped at different lengths).
        "str_of_array.wdl",
        "var a: [int] = [];\n\
         var i = 0;\n\
         while true {\n\
             push(a, i * 1000003);\n\
             let s = str(a);\n\
             if i % 10 == 0 { print(len(s)); }\n\
             i += 1;\n\
         }\n",
        60_000,
    ),
];

/// Programs that fit their memory limit only when dead references are not
/// roots: every tier must run them to the end (before, `binary_trees` was
/// `out of memory` on interp and baseline and succeeded on opt).
const FITTING: &[(&str, &str, usize)] = &[
    (
        "binary_trees.wdl",
        include_str!("programs/classic/binary_trees.wdl"),
        30_000,
    ),
    (
        // The old array is dead when the new one is made.
        "replace.wdl",
        "fn step(n: int) -> int {\n\
             var a = [0; n];\n\
             let k = len(a);\n\
             a = [];\n\
             let b = [1; n];\n\
             return k + len(b);\n\
         }\n\
         var i = 1;\n\
         while i <= 40 { print(step(i * 1000)); i += 1; }\n",
        400_000,
    ),
];

#[test]
fn dead_references_are_not_roots_on_any_tier() {
    let mut failures = Vec::new();
    for &(name, source, limit) in FITTING {
        let free = run_source(name, source, &tiers::selected()[0].options(None));
        assert_eq!(free.exit_code, 0, "{name} without a limit: {}", free.stderr);
        let want = outcome_text(&free);
        for config in tiers::selected() {
            let options = waddle::tooling::RunOptions {
                memory_limit: Some(limit),
                // Compiles land at points drawn from the chaos seed, not
                // when a background thread happens to finish: which frames
                // are on which tier at the failing allocation (and so which
                // stale words the conservative scan sees) is reproducible.
                jit_sync: true,
                ..config.options(None)
            };
            let text = outcome_text(&run_source(name, source, &options));
            if text != want {
                failures.push(format!("{name} on {}:\n{text}", config.name));
            }
        }
        if waddle_lang_tests::cross::skip_without_cross_tools(
            "dead_references_are_not_roots_on_any_tier (aarch64 part)",
        ) {
            continue;
        }
        for tier in [Tier::Baseline, Tier::Opt] {
            let options = CrossOptions {
                tier,
                opt_level: if tier == Tier::Baseline { 0 } else { 2 },
                memory_limit: Some(limit as u64),
                ..CrossOptions::default()
            };
            let text = outcome_text(&run_source_aarch64(name, source, &options));
            if text != want {
                failures.push(format!("{name} on aarch64-{}:\n{text}", tier.name()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn outcome_text(o: &RunOutcome) -> String {
    format!(
        "exit {}\n--- stdout\n{}--- stderr\n{}",
        o.exit_code,
        String::from_utf8_lossy(&o.stdout),
        o.stderr
    )
}

#[test]
fn out_of_memory_is_reached_at_the_same_point_on_every_tier() {
    let mut failures = Vec::new();
    for &(name, source, limit) in PROGRAMS {
        let mut reference: Option<(String, String)> = None;
        for config in tiers::selected() {
            let options = waddle::tooling::RunOptions {
                memory_limit: Some(limit),
                // Compiles land at points drawn from the chaos seed, not
                // when a background thread happens to finish: which frames
                // are on which tier at the failing allocation (and so which
                // stale words the conservative scan sees) is reproducible.
                jit_sync: true,
                ..config.options(None)
            };
            let out = run_source(name, source, &options);
            assert_eq!(
                out.exit_code, 2,
                "{name} on {}: {}",
                config.name, out.stderr
            );
            assert!(
                out.stderr.contains("out of memory"),
                "{name} on {}: {}",
                config.name,
                out.stderr
            );
            let text = outcome_text(&out);
            match &reference {
                None => reference = Some((config.name.to_string(), text)),
                Some((ref_name, ref_text)) if *ref_text != text => failures.push(format!(
                    "{name}: {} differs from {ref_name}:\n{text}\nvs\n{ref_text}",
                    config.name
                )),
                Some(_) => {}
            }
        }
        if waddle_lang_tests::cross::skip_without_cross_tools(
            "out_of_memory_is_reached_at_the_same_point_on_every_tier (aarch64 part)",
        ) {
            continue;
        }
        let (ref_name, ref_text) = reference.expect("at least one host configuration");
        for tier in [Tier::Baseline, Tier::Opt] {
            assert!(has_aarch64(tier));
            let options = CrossOptions {
                tier,
                opt_level: if tier == Tier::Baseline { 0 } else { 2 },
                memory_limit: Some(limit as u64),
                ..CrossOptions::default()
            };
            let out = run_source_aarch64(name, source, &options);
            let text = outcome_text(&out);
            if text != ref_text {
                failures.push(format!(
                    "{name}: aarch64-{} differs from {ref_name}:\n{text}\nvs\n{ref_text}",
                    tier.name()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
