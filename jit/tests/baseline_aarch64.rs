//! The AArch64 baseline back end: every corpus program compiles to a
//! position-independent image whose every instruction decodes (yaxpeax-arm),
//! with a prologue, a stack-limit check and returns in every function.
//! Execution under qemu is in `baseline_aarch64_qemu.rs`.

use std::path::{Path, PathBuf};

use waddle_frontend::{compile as frontend_compile, CompileOptions, SourceFile, SourceMap};
use waddle_jit::baseline::compile_aarch64_image;
use waddle_jit::JitOptions;

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "wdl") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_images_decode() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lang-tests/tests/programs");
    let mut files = Vec::new();
    collect(&root, &mut files);
    let mut compiled = 0;
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap_or_default();
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new(path.display().to_string(), src));
        let Ok(c) = frontend_compile(&sources, &CompileOptions::default()) else {
            continue;
        };
        let p = c.program;
        let image = compile_aarch64_image(&p, &JitOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(image.code.len() % 4, 0);
        for (fid, f) in p.funcs.iter() {
            if f.is_declaration() {
                continue;
            }
            let text = image.disasm(fid).expect("code");
            assert!(!text.contains("(bad)"), "{}:\n{text}", path.display());
            assert!(text.contains("stp x29, x30"), "{text}");
            assert!(text.contains("ret"), "{text}");
            // The stack-limit check: compare and branch on `lo`.
            assert!(text.contains("b.lo") || text.contains("b.cc"), "{text}");
        }
        compiled += 1;
    }
    assert!(compiled > 100, "only {compiled} programs compiled");
}

#[test]
fn fib_image_disassembly_reads_well() {
    let src = "fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }\nprint(fib(10));\n";
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("fib.wdl".to_string(), src.to_string()));
    let p = frontend_compile(&sources, &CompileOptions::default())
        .unwrap()
        .program;
    let image = compile_aarch64_image(&p, &JitOptions::default()).unwrap();
    let f = p.func_by_name("fib").unwrap();
    let text = image.disasm(f).unwrap();
    if std::env::var_os("WADDLE_SHOW_ASM").is_some() {
        eprintln!("{text}");
    }
    // Calls go through the entry table and the result is checked for traps.
    assert!(text.contains("blr x16"), "{text}");
    assert!(
        text.contains("sub x8, x8, x9") || text.contains("sub x8, x8"),
        "{text}"
    );
}

#[test]
fn host_calls_select_to_a_helper_call() {
    // Host calls share the isel path with every back end: the arguments go
    // to the frame's scratch area and one helper call carries id and count.
    let src = "fn f(x: int, y: float) -> float { return emit(x, y, x > 1) + emit(0, 0.5, false); }\nprint(f(2, 1.5));\n";
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("host.wdl".to_string(), src.to_string()));
    let sig = waddle_opt::ir::Signature {
        params: vec![
            waddle_opt::ir::Type::Int,
            waddle_opt::ir::Type::Float,
            waddle_opt::ir::Type::Bool,
        ],
        ret: waddle_opt::ir::Type::Float,
    };
    let options = CompileOptions {
        prelude: waddle_frontend::Prelude {
            host_functions: vec![("emit".to_string(), sig)],
            ..Default::default()
        },
        ..CompileOptions::default()
    };
    let p = frontend_compile(&sources, &options).unwrap().program;
    let image = compile_aarch64_image(&p, &JitOptions::default()).unwrap();
    let f = p.func_by_name("f").unwrap();
    let text = image.disasm(f).unwrap();
    assert!(!text.contains("(bad)"), "{text}");
    assert!(text.matches("blr").count() >= 2, "{text}");
    // Scalar host functions go into cross-execution images (the loader
    // forwards the call); a `str` one cannot cross and is refused.
    waddle_jit::cross::compile_baseline_aarch64(&p, &JitOptions::default()).expect("image");
    waddle_jit::cross::compile_aarch64(&p, &JitOptions::default()).expect("image");
    let src = "print(shout(\"hi\"));\n";
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("str.wdl".to_string(), src.to_string()));
    let sig = waddle_opt::ir::Signature {
        params: vec![waddle_opt::ir::Type::Str],
        ret: waddle_opt::ir::Type::Int,
    };
    let options = CompileOptions {
        prelude: waddle_frontend::Prelude {
            host_functions: vec![("shout".to_string(), sig)],
            ..Default::default()
        },
        ..CompileOptions::default()
    };
    let p = frontend_compile(&sources, &options).unwrap().program;
    for r in [
        waddle_jit::cross::compile_baseline_aarch64(&p, &JitOptions::default()).map(|_| ()),
        waddle_jit::cross::compile_aarch64(&p, &JitOptions::default()).map(|_| ()),
    ] {
        let e = r.unwrap_err().to_string();
        assert!(
            e.contains("host function `shout` takes or returns a `str`: only int, float and bool"),
            "{e}"
        );
    }
}
