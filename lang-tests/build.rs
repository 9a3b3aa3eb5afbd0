//! Generates one test function per IR filetest (`tests/filetests/*.wir`),
//! so `cargo test` reports, filters and times every file on its own.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn main() {
    let dir =
        Path::new(&env::var("CARGO_MANIFEST_DIR").expect("manifest dir")).join("tests/filetests");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".wir"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/// Number of filetests found when this was generated."
    );
    let _ = writeln!(out, "pub const FILETEST_COUNT: usize = {};", names.len());
    for name in &names {
        let stem = name.trim_end_matches(".wir");
        let ident: String = stem
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let _ = writeln!(out, "#[test]\nfn {ident}() {{\n    run({name:?});\n}}");
    }
    let dest = Path::new(&env::var("OUT_DIR").expect("out dir")).join("filetests.rs");
    fs::write(dest, out).expect("write generated filetests");
}
