//! Inputs the `cargo fuzz` targets (`fuzz/`, docs/fuzzing.md) found bugs
//! with, and a few hand-picked seeds, replayed on stable through the same
//! checks ([`waddle_lang_tests::fuzz`]): every file under
//! `tests/fuzz/<target>/` must pass its target's check.

use std::path::Path;

use waddle_lang_tests::fuzz;

/// Runs every input saved for `target` through `check`; the names of those
/// that panicked, with the message.
fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz")
        .join(target);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    assert!(!entries.is_empty(), "no inputs in {}", dir.display());
    let mut failures = Vec::new();
    for path in &entries {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Err(p) = std::panic::catch_unwind(|| check(&data)) {
            failures.push(format!(
                "{}: {}",
                path.display(),
                waddle_lang_tests::difftest::panic_message(p.as_ref())
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn frontend_inputs() {
    replay("frontend", fuzz::frontend);
}

#[test]
fn ir_text_inputs() {
    replay("ir_text", fuzz::ir_text);
}

#[test]
fn pipeline_inputs() {
    replay("pipeline", fuzz::pipeline);
}
