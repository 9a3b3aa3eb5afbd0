//! Keeps the language reference (`docs/language.md`) true: every fenced
//! `waddle` block is a whole program that must compile and run without an
//! error on every selected tier configuration; when the next fenced block
//! is an `output` block, standard output must equal it byte for byte. A
//! `waddle-error` block must be rejected by the compiler (exit status 1).

use std::path::Path;

use waddle::tooling::run_source;
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

/// The variant names of `InstKind`, read from its definition.
fn inst_kind_variants(root: &Path) -> Vec<String> {
    let src = std::fs::read_to_string(root.join("opt/src/ir/instructions.rs"))
        .expect("opt/src/ir/instructions.rs");
    let start = src.find("pub enum InstKind {").expect("enum InstKind");
    let body = &src[start..];
    let body = &body[..body.find("\n}").expect("end of enum InstKind")];
    body.lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && !l.is_empty())
        .map(|l| {
            l.split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Product source files (`*.rs` under a `src/` directory, not test
/// modules), relative to `root`, with forward slashes.
fn product_sources(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "target" | "tests" | "benches" | ".git") {
                product_sources(root, &path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            let rel = path.strip_prefix(root).unwrap().to_string_lossy();
            let rel = rel.replace('\\', "/");
            if rel.split('/').any(|c| c == "src") {
                out.push(rel);
            }
        }
    }
}

/// The instruction table (`opt/src/ir/inst_table.rs`) generates the
/// printer, parser, operand iteration, effects and typing, so a new
/// instruction is one variant, one table row, and its meaning in the few
/// places that match on every instruction. Those places are listed in
/// `docs/architecture.md` ("Adding an instruction"); this test finds every
/// product file that names at least three quarters of the `InstKind`
/// variants and requires that set to be exactly the documented one, and
/// short.
#[test]
fn instruction_checklist_is_documented_and_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let variants = inst_kind_variants(&root);
    assert!(variants.len() >= 26, "read {variants:?}");
    let mut files = Vec::new();
    product_sources(&root, &root, &mut files);
    let mut found: Vec<String> = files
        .into_iter()
        .filter(|rel| {
            let text = std::fs::read_to_string(root.join(rel)).unwrap_or_default();
            let named = variants
                .iter()
                .filter(|v| text.contains(&format!("InstKind::{v}")))
                .count();
            named * 4 >= variants.len() * 3
        })
        .collect();
    found.sort();

    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).expect("architecture.md");
    let start = doc
        .find("<!-- instruction-checklist -->")
        .expect("the checklist markers in docs/architecture.md");
    let end = doc
        .find("<!-- /instruction-checklist -->")
        .expect("the checklist end marker");
    let mut documented: Vec<String> = doc[start..end]
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    documented.sort();
    assert_eq!(
        found, documented,
        "files that match on every instruction vs. the checklist in docs/architecture.md"
    );
    assert!(
        found.len() <= 6,
        "the new-instruction checklist grew: {found:?}"
    );
}
