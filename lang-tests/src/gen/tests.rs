use super::*;
use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};

fn compiles(src: &str) -> Result<(), String> {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("gen.wdl", src));
    compile(&sources, &CompileOptions::default())
        .map(|_| ())
        .map_err(|d| waddle_frontend::diag::render(&d, &sources))
}

#[test]
fn generation_is_deterministic() {
    let c = GenConfig::default();
    assert_eq!(generate(7, &c), generate(7, &c));
    assert_ne!(generate(7, &c), generate(8, &c));
}

#[test]
fn generated_programs_compile() {
    let c = GenConfig::default();
    let mut bad = Vec::new();
    for seed in 0..1000 {
        let src = generate(seed, &c);
        if let Err(e) = compiles(&src) {
            bad.push(format!(
                "seed {seed}:\n{}",
                e.lines().take(6).collect::<Vec<_>>().join("\n")
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of 1000 do not compile:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
