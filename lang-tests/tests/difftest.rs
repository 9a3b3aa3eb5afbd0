//! Differential testing in CI: a bounded number of generated programs
//! ([`waddle_lang_tests::gen`], [`GenConfig::small`] so that the debug
//! build stays fast) run on every host configuration and, with the cross
//! tools, on AArch64; every outcome must equal the interpreter's (stdout,
//! stderr, exit status).
//!
//! Environment: `WADDLE_DIFFTEST_COUNT` (host programs, default
//! [`HOST_PROGRAMS`]), `WADDLE_DIFFTEST_AARCH64_COUNT` (default
//! [`AARCH64_PROGRAMS`]), `WADDLE_DIFFTEST_SEED` (first seed, default 1).
//! For large runs and minimized reproducers use the `difftest` binary.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use waddle_lang_tests::corpus::env_nonempty;
use waddle_lang_tests::difftest::{aarch64_configs, check, host_configs, Config, Limits};
use waddle_lang_tests::gen::{generate, GenConfig};

/// Programs run on the host configurations by default.
const HOST_PROGRAMS: u64 = 150;
/// Programs run on AArch64 by default (each is a qemu process per code
/// generator).
const AARCH64_PROGRAMS: u64 = 24;

fn env_u64(name: &str, default: u64) -> u64 {
    env_nonempty(name).map_or(default, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name} must be a number, not {v:?}"))
    })
}

/// Runs `count` programs from `seed` on `configs` in parallel; the
/// reports of the mismatching ones.
fn run_many(seed: u64, count: u64, configs: &[Config], gen: &GenConfig) -> Vec<String> {
    let next = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= count {
                    break;
                }
                let s = seed + k;
                let source = generate(s, gen);
                let mismatches = check(&format!("gen-{s}.wdl"), &source, configs, Limits::default());
                if !mismatches.is_empty() {
                    let mut text = format!(
                        "=== seed {s} (reproduce and minimize: cargo run -p waddle-lang-tests --bin difftest -- --seed {s} --count 1)\n"
                    );
                    for m in &mismatches {
                        text.push_str(&m.report());
                    }
                    failures.lock().unwrap().push((s, text));
                }
            });
        }
    });
    let mut f = failures.into_inner().unwrap();
    f.sort();
    f.into_iter().map(|(_, t)| t).collect()
}

#[test]
fn generated_programs_agree_on_every_tier() {
    let seed = env_u64("WADDLE_DIFFTEST_SEED", 1);
    let count = env_u64("WADDLE_DIFFTEST_COUNT", HOST_PROGRAMS);
    let configs = host_configs();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let failures = run_many(seed, count, &configs, &GenConfig::small());
    std::panic::set_hook(hook);
    let names: Vec<&str> = configs.iter().map(|c| c.name.as_str()).collect();
    println!(
        "{count} generated programs on {}: {} mismatching",
        names.join(" "),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} generated programs mismatch:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn generated_programs_agree_on_aarch64() {
    if waddle_lang_tests::cross::skip_without_cross_tools("generated_programs_agree_on_aarch64") {
        return;
    }
    let seed = env_u64("WADDLE_DIFFTEST_SEED", 1);
    let count = env_u64("WADDLE_DIFFTEST_AARCH64_COUNT", AARCH64_PROGRAMS);
    let mut configs = vec![Config::host(waddle::Tier::Interp, 0)];
    configs.extend(aarch64_configs());
    let failures = run_many(seed, count, &configs, &GenConfig::small());
    println!(
        "{count} generated programs on AArch64: {} mismatching",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} generated programs mismatch on AArch64:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
