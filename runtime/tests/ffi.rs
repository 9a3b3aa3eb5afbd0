//! FFI (`extern "lib" fn`, `Engine::allow_ffi`) on every tier this build
//! runs: int/float arguments in any order through libm/libc, resolution
//! errors at the declaration, and the compile error without the opt-in.
#![cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]

use waddle::{Config, Error, OutputSink, Session as Engine, Tier};

fn tiers() -> Vec<Tier> {
    Tier::available()
}

fn engine(tier: Tier, allow_ffi: bool) -> Engine {
    Engine::with_config(
        &Config::new().tier(tier).allow_ffi(allow_ffi),
        OutputSink::Capture,
    )
    .unwrap()
}

fn compile_error(r: Result<(), Error>) -> String {
    match r {
        Err(Error::Compile { rendered, .. }) => rendered,
        other => panic!("expected a compile error, got {other:?}"),
    }
}

const DECLS: &str = "\
extern \"libm.so.6\" fn cbrt(x: float) -> float;
extern \"libm.so.6\" fn ldexp(x: float, e: int) -> float;
extern \"libm.so.6\" fn fma(a: float, b: float, c: float) -> float;
extern \"libc.so.6\" fn llabs(x: int) -> int;
extern \"libc.so.6\" fn getpid() -> int;
";

#[test]
fn foreign_calls_on_every_tier() {
    let src = format!(
        "{DECLS}\
fn go(n: int) -> float {{
    var t = 0.0;
    for i in 0..n {{ t = t + ldexp(cbrt(8.0), llabs(0 - i)); }}
    return t;
}}
print(cbrt(8.0));
print(ldexp(1.5, 4));
print(fma(2.0, 3.0, 1.0));
print(llabs(-7));
print(getpid() > 0);
print(go(4));
"
    );
    for tier in tiers() {
        let mut e = engine(tier, true);
        e.run("ffi.wdl", &src)
            .unwrap_or_else(|err| panic!("{tier:?}: {err}"));
        let out = String::from_utf8(e.take_output()).unwrap();
        assert_eq!(out, "2.0\n24.0\n7.0\n7\ntrue\n30.0\n", "tier {tier:?}");
        // Running again re-declares the same functions.
        e.run("ffi.wdl", &src).unwrap();
        // A REPL entry sees the earlier declaration.
        assert_eq!(e.eval_as::<f64>("ldexp(1.0, 2)").unwrap(), 4.0);
        let names: Vec<String> = e.host_functions().into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["cbrt", "ldexp", "fma", "llabs", "getpid"]);
    }
}

#[test]
fn without_the_opt_in_extern_is_a_compile_error_naming_the_flag() {
    let mut e = engine(Tier::Interp, false);
    let msg = compile_error(e.run(
        "no.wdl",
        "extern \"libm.so.6\" fn cbrt(x: float) -> float;\n",
    ));
    assert!(
        msg.contains("`extern` functions need FFI, which is disabled"),
        "{msg}"
    );
    assert!(msg.contains("--allow-ffi"), "{msg}");
    assert!(msg.contains("no.wdl:1:"), "{msg}");
    e.allow_ffi(true);
    e.run(
        "yes.wdl",
        "extern \"libm.so.6\" fn cbrt(x: float) -> float;\nprint(cbrt(1.0));",
    )
    .unwrap();
}

#[test]
fn resolution_and_type_errors_point_at_the_declaration() {
    let mut e = engine(Tier::Interp, true);
    let cases = [
        (
            "print(1);\nextern \"libwaddle-nope.so\" fn f(x: int) -> int;\n",
            "cannot load library `libwaddle-nope.so`",
            "bad.wdl:2:1",
        ),
        (
            "extern \"libm.so.6\" fn waddle_nope(x: int) -> int;\n",
            "library `libm.so.6` has no function `waddle_nope`",
            "bad.wdl:1:1",
        ),
        (
            "extern \"libc.so.6\" fn puts(s: str) -> int;\n",
            "an `extern` function cannot have a `str` parameter",
            "bad.wdl:1:",
        ),
        (
            "extern \"libm.so.6\" fn cos(x: float) -> float;\n",
            "cannot declare `extern fn cos`",
            "bad.wdl:1:",
        ),
        (
            "extern \"libm.so.6\" fn f(a: int, b: int, c: int, d: int, e: int, f: int, g: int) -> int;\n",
            "too many parameters",
            "bad.wdl:1:",
        ),
        (
            "extern \"libm.so.6\" fn cbrt(x: float) -> float { return x; }\n",
            "an `extern` function has no body",
            "bad.wdl:1:",
        ),
    ];
    for (src, want, at) in cases {
        let msg = compile_error(e.run("bad.wdl", src));
        assert!(msg.contains(want), "{src}: {msg}");
        assert!(msg.contains(at), "{src}: {msg}");
    }
    // `extern` stays an ordinary name elsewhere.
    e.run("ok.wdl", "let extern = 3;\nprint(extern + 1);")
        .unwrap();
    assert_eq!(String::from_utf8(e.take_output()).unwrap(), "4\n");
}
