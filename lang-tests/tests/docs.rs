//! Keeps the language reference (`docs/language.md`) true: every fenced
//! `waddle` block is a whole program that must compile and run without an
//! error on every selected tier configuration; when the next fenced block
//! is an `output` block, standard output must equal it byte for byte. A
//! `waddle-error` block must be rejected by the compiler (exit status 1).

use std::path::Path;

use waddle::driver::run_source;
use waddle_lang_tests::tiers;

/// A fenced code block: its info string, text and first line (1-based).
struct Fence {
    info: String,
    text: String,
    line: usize,
}

/// The fenced blocks of a Markdown document, in order.
fn fences(doc: &str) -> Vec<Fence> {
    let mut out = Vec::new();
    let mut open: Option<Fence> = None;
    for (n, line) in doc.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Fence {
                    info: info.trim().to_string(),
                    text: String::new(),
                    line: n + 2,
                })
            }
            (Some(_), Some(_)) => out.extend(open.take()),
            (Some(f), None) => {
                f.text.push_str(line);
                f.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "unterminated code block");
    out
}

#[test]
fn language_reference_examples_run_on_every_tier() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/language.md");
    let doc = std::fs::read_to_string(&path).expect("docs/language.md");
    let blocks = fences(&doc);
    let mut failures = Vec::new();
    let (mut programs, mut errors) = (0, 0);
    for (i, block) in blocks.iter().enumerate() {
        let name = format!("language.md:{}", block.line);
        match block.info.as_str() {
            "waddle" => {
                programs += 1;
                let expected = blocks
                    .get(i + 1)
                    .filter(|b| b.info == "output")
                    .map(|b| b.text.as_bytes());
                for config in tiers::selected() {
                    let o = run_source(&name, &block.text, &config.options(None));
                    if o.exit_code != 0 {
                        failures.push(format!("{name} on {}: {}", config.name, o.stderr));
                    } else if expected.is_some_and(|e| e != o.stdout) {
                        failures.push(format!(
                            "{name} on {}: printed\n{}",
                            config.name,
                            String::from_utf8_lossy(&o.stdout)
                        ));
                    }
                }
            }
            "waddle-error" => {
                errors += 1;
                let o = run_source(&name, &block.text, &Default::default());
                if o.exit_code != 1 || !o.stderr.starts_with("error") {
                    failures.push(format!("{name}: expected a compile error, got {o:?}"));
                }
            }
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        programs >= 9 && errors >= 1,
        "the reference lost its examples"
    );
}
