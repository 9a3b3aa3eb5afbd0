//! The frontend on arbitrary text: parsing, checking, lowering and
//! rendering the diagnostics must never panic, and a program it accepts
//! must lower to IR that verifies.
#![no_main]

use libfuzzer_sys::fuzz_target;
use waddle_frontend::{compile, diag, CompileOptions, SourceFile, SourceMap};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("fuzz.wdl", text));
    let repl = data.first().is_some_and(|b| b & 1 == 1);
    let options = CompileOptions {
        repl,
        ..CompileOptions::default()
    };
    match compile(&sources, &options) {
        Ok(compiled) => {
            let mut program = compiled.program;
            waddle_opt::canon::canonicalize_program(&mut program);
            if let Err(e) = waddle_opt::ir::verify_program(&program) {
                panic!("accepted program lowers to invalid IR: {e:?}\n{text}");
            }
        }
        Err(diags) => {
            let _ = diag::render(&diags, &sources);
        }
    }
});
