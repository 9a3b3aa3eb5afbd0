//! AArch64 code images: Cranelift's AArch64 back end produces relocation-free
//! position-independent code for whole programs, and the image format
//! round-trips. (Running images needs qemu; that is `lang-tests`' aarch64
//! test.)

use waddle_frontend::{CompileOptions, SourceFile, SourceMap};
use waddle_jit::cross::{compile_aarch64, Arch, CodeImage, ImageBuilder};
use waddle_jit::JitOptions;
use waddle_opt::ir::{FuncId, Program};

fn program(source: &str) -> Program {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("t.wdl", source));
    waddle_frontend::compile(&sources, &CompileOptions::default())
        .unwrap_or_else(|d| panic!("{d:?}"))
        .program
}

const SOURCE: &str = r#"
var g = "";
var arr: [[float]] = [];
fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }
fn pick(k: int) -> str {
    if k == 0 { return "zero"; } else if k == 1 { return "one"; } else if k == 7 { return "seven"; }
    return "many";
}
g = pick(fib(5)) + str(2.5) + str(sin(1.0) % 0.5);
arr = [[1.0, floor(-0.5)]; 3];
print(g);
print(arr);
print(10 / fib(1));
"#;

#[test]
fn whole_programs_compile_for_aarch64_without_relocations() {
    let p = program(SOURCE);
    for optimize in [false, true] {
        let opts = JitOptions {
            optimize,
            fuel: optimize,
            verify_cranelift: true,
            ..JitOptions::default()
        };
        let image = compile_aarch64(&p, &opts).expect("compiles for AArch64");
        assert_eq!(image.arch, Arch::Aarch64);
        assert_eq!(Some(image.main), p.main);
        assert_eq!(image.globals.len(), p.globals.len());
        assert!(image.strings.iter().any(|s| &**s == "zero"));
        for (i, off) in image.funcs.iter().enumerate() {
            let has_body = !p.funcs[FuncId::from_u32(i as u32)].is_declaration();
            assert_eq!(off.is_some(), has_body, "function {i}");
            if let Some(off) = off {
                assert!(*off < image.code.len() as u64 && off % 4 == 0);
            }
        }
        let bytes = image.to_bytes().expect("serializes");
        assert_eq!(CodeImage::from_bytes(&bytes).expect("reads back"), image);
    }
}

#[test]
fn image_builder_checks_its_input() {
    let p = program("fn f() -> int { return 1; }\nprint(f());\n");
    let main = p.main.expect("main");
    let mut b = ImageBuilder::new(Arch::Aarch64, &p, vec!["s".into()], false);
    assert!(
        b.add_function(main, &[0; 8], 8, 16).is_err(),
        "entry outside code"
    );
    assert!(b.add_function(main, &[0; 8], 0, 12).is_err(), "alignment");
    assert!(b
        .add_function(FuncId::from_u32(99), &[0; 8], 0, 16)
        .is_err());
    let base = b.add_function(main, &[1; 6], 4, 4).expect("adds");
    assert_eq!(base, 0);
    let image = b.finish().expect("finishes");
    assert_eq!(image.funcs[main.as_u32() as usize], Some(4));
    let bytes = image.to_bytes().unwrap();
    for cut in [0, 7, 20, bytes.len() - 1] {
        assert!(
            CodeImage::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let without_main = ImageBuilder::new(Arch::Aarch64, &p, Vec::new(), false);
    assert!(without_main.finish().is_err(), "main has no code");
}
