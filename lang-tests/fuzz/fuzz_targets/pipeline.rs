//! The whole pipeline per tier: the input picks a generated program (the
//! first 8 bytes are a `waddle_lang_tests::gen` seed) or is Waddle source
//! itself (when it is UTF-8 and starts with `//`); it runs on every host
//! configuration with a fuel budget, and every outcome must equal the
//! interpreter's (stdout, stderr, exit status).
#![no_main]

use libfuzzer_sys::fuzz_target;
use waddle_lang_tests::difftest::{check, host_configs, Limits};
use waddle_lang_tests::gen::{generate, GenConfig};

fuzz_target!(|data: &[u8]| {
    let source = match std::str::from_utf8(data) {
        Ok(text) if text.starts_with("//") => text.to_string(),
        _ => {
            let mut seed = [0u8; 8];
            for (i, b) in data.iter().take(8).enumerate() {
                seed[i] = *b;
            }
            generate(u64::from_le_bytes(seed), &GenConfig::small())
        }
    };
    let limits = Limits {
        fuel: Some(2_000_000),
        memory_limit: Some(64 << 20),
    };
    let mismatches = check("fuzz.wdl", &source, &host_configs(), limits);
    if !mismatches.is_empty() {
        let report: String = mismatches.iter().map(|m| m.report()).collect();
        panic!("tiers disagree:\n{report}\n--- program ---\n{source}");
    }
});
