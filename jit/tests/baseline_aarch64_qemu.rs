//! Runs AArch64 baseline images for real: a tiny C loader (cross-compiled
//! with `aarch64-linux-gnu-gcc -static`, run under `qemu-aarch64`) maps the
//! image, fills a `VmCtx` with the entry table, a helper table (print and
//! fuel implemented in C) and a stack limit, calls `.main`'s trampoline and
//! reports the trap record. The output must equal the interpreter's.
//! Skipped (passing) when the cross tools are not installed.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use waddle_frontend::{compile as frontend_compile, CompileOptions, SourceFile, SourceMap};
use waddle_jit::baseline::{compile_aarch64_image, BaselineImage};
use waddle_jit::JitOptions;
use waddle_opt::ir::Program;
use waddle_test_support::tiers::{run_interp, HostSetup};

const LOADER: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/mman.h>
#include "image.h"

typedef struct {
    uint64_t *globals; const uintptr_t *entries; uintptr_t stack_limit;
    uintptr_t stack_base; int64_t fuel; uint32_t trap_code, trap_loc_set,
    trap_file, trap_line, trap_col, reserved; void *host;
    const uintptr_t *helpers; const uint64_t *strings;
} VmCtx;

static void unsupported(void) { fprintf(stderr, "unsupported helper\n"); exit(3); }
static void print(VmCtx *ctx, uint32_t ty, uint64_t v) {
    (void)ctx;
    if (ty == 1) printf("%s\n", v ? "true" : "false");
    else if (ty == 2) printf("%lld\n", (long long)v);
    else unsupported();
}
static void fuel(VmCtx *ctx) { ctx->fuel = 1024; }
typedef struct { uint8_t kind, marked, refs, pinned, bytes, reserved[3];
                 uint64_t len, cap; uint8_t *data; } Array;
/* One byte per element for [bool] (element type code 1), else a word. */
static void set(Array *a, uint64_t i, uint64_t v) {
    if (a->bytes) a->data[i] = (uint8_t)v; else ((uint64_t *)a->data)[i] = v;
}
static uint64_t array_new(VmCtx *ctx, uint32_t ty, const uint64_t *elems, uint64_t n) {
    (void)ctx;
    Array *a = calloc(1, sizeof *a);
    a->kind = 2; a->len = n; a->cap = n + 4; a->bytes = (ty & 0xff) == 1;
    a->data = calloc(a->cap, 8);
    for (uint64_t i = 0; i < n; i++) set(a, i, elems[i]);
    return (uint64_t)(uintptr_t)a;
}
static void array_push(VmCtx *ctx, uint64_t arr, uint64_t v) {
    (void)ctx;
    Array *a = (Array *)(uintptr_t)arr;
    if (a->len == a->cap) { a->cap *= 2; a->data = realloc(a->data, 8 * a->cap); }
    set(a, a->len++, v);
}
static double fmod_(double x, double y) { return fmod(x, y); }
/* A trap leaves a frame: its location is the trap's unless one is set. */
static void trap_frame(VmCtx *ctx, uint32_t func, uint32_t file, uint32_t line, uint32_t col) {
    (void)func;
    if (!ctx->trap_loc_set && line) {
        ctx->trap_loc_set = 1;
        ctx->trap_file = file; ctx->trap_line = line; ctx->trap_col = col;
    }
}

int main(void) {
    void *mem = mmap(0, sizeof code, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memcpy(mem, code, sizeof code);
    mprotect(mem, sizeof code, PROT_READ | PROT_EXEC);
    __builtin___clear_cache((char *)mem, (char *)mem + sizeof code);
    uintptr_t entries[NFUNCS];
    for (int i = 0; i < NFUNCS; i++)
        entries[i] = offsets[i] < 0 ? 0 : (uintptr_t)mem + offsets[i];
    uintptr_t helpers[16];
    for (int i = 0; i < 16; i++) helpers[i] = (uintptr_t)unsupported;
    helpers[0] = (uintptr_t)array_new;
    helpers[2] = (uintptr_t)array_push;
    helpers[5] = (uintptr_t)print;
    helpers[7] = (uintptr_t)fuel;
    helpers[9] = (uintptr_t)sin; helpers[10] = (uintptr_t)cos;
    helpers[11] = (uintptr_t)tan; helpers[12] = (uintptr_t)exp;
    helpers[13] = (uintptr_t)log; helpers[14] = (uintptr_t)fmod_;
    helpers[15] = (uintptr_t)trap_frame;
    static uint64_t globals[NGLOBALS + 1];
    static uint64_t strings[1];
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    VmCtx ctx = { globals, entries, sp - (2u << 20), sp, 1024, 0, 0, 0, 0, 0, 0,
                  0, helpers, strings };
    uint64_t ret = 0;
    void (*tramp)(VmCtx *, const uint64_t *, uint64_t *) =
        (void (*)(VmCtx *, const uint64_t *, uint64_t *))((uintptr_t)mem + MAIN_TRAMP);
    tramp(&ctx, 0, &ret);
    if (ctx.trap_code)
        printf("trap %u %u:%u set=%u\n", ctx.trap_code, ctx.trap_line, ctx.trap_col, ctx.trap_loc_set);
    return 0;
}
"#;

fn frontend(src: &str) -> Program {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("q.wdl".to_string(), src.to_string()));
    frontend_compile(&sources, &CompileOptions::default())
        .unwrap_or_else(|d| panic!("{d:?}"))
        .program
}

/// The C header describing `image` for the loader.
fn header(image: &BaselineImage, main: usize) -> String {
    let mut h = String::from("static const unsigned char code[] = {");
    for b in &image.code {
        let _ = write!(h, "{b},");
    }
    h += "};\nstatic const long offsets[] = {";
    for f in &image.funcs {
        let _ = write!(h, "{},", f.offset.map_or(-1, |o| o as i64));
    }
    let _ = write!(
        h,
        "}};\n#define NFUNCS {}\n#define NGLOBALS {}\n#define MAIN_TRAMP {}\n",
        image.funcs.len(),
        image.globals_used,
        image.funcs[main].trampoline.expect("main has a body")
    );
    h
}

/// Compiles `src`, runs it under qemu and on the interpreter; compares.
fn run_both(name: &str, src: &str) {
    let p = frontend(src);
    let main = p.main.expect("main");
    let image = compile_aarch64_image(&p, &JitOptions::default()).expect("image");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("aarch64-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("image.h"), header(&image, main.as_u32() as usize)).unwrap();
    std::fs::write(dir.join("loader.c"), LOADER).unwrap();
    let exe = dir.join("loader");
    let cc = Command::new(waddle_jit::cross::toolchain::cross_cc().expect("checked"))
        .args(["-O1", "-static", "-o"])
        .arg(&exe)
        .arg(dir.join("loader.c"))
        .arg("-lm")
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let run = Command::new(waddle_jit::cross::toolchain::qemu().expect("checked"))
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let got = String::from_utf8_lossy(&run.stdout).into_owned();
    let setup = HostSetup {
        fuel: None,
        gc_every: None,
    };
    let (want, _) = run_interp(&p, p.funcs[main].name(), &[], setup);
    let mut expected = want.out.clone();
    if let Err(t) = want.result {
        let _ = writeln!(
            expected,
            "trap {} {}:{} set=1",
            t.code as u32, t.loc.line, t.loc.col
        );
    }
    assert_eq!(got, expected, "{name}");
}

/// More than 4095 functions (entry-slot offsets beyond immediates) and a
/// frame of more than 4095 slots (slot offsets beyond immediates).
pub fn big_program() -> String {
    let mut src = String::from("fn f0() -> int { return 1; }\n");
    for i in 1..4200 {
        src += &format!("fn f{i}() -> int {{ return f{}() + {i} % 5; }}\n", i - 1);
    }
    src += "fn wide(a: int) -> int {\n    var x = a;\n";
    for i in 0..2500 {
        src += &format!("    x = x + {} * a;\n", i % 7);
    }
    src += "    return x;\n}\nprint(f4199());\nprint(wide(3));\n";
    src
}

#[test]
fn arithmetic_calls_and_traps_under_qemu() {
    if waddle_jit::cross::skip_test_without_tools("arithmetic_calls_and_traps_under_qemu") {
        return;
    }
    run_both(
        "arith",
        "fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }
fn mix(a: int, b: float, c: bool, d: int, e: int, f: int, g: int, h: int, i: int, j: int) -> int {
    if c { return a + int(b) + d + e + f + g + h + i + j; }
    return 0;
}
fn fl(x: float) -> bool { return min(x, -0.0) < max(sqrt(x), floor(x)); }
var g = 0;
for i in 0..100 { g = g + i % 7 + (i * 3) / 4 - (-i) / 3 + (i << 2 >> 1); }
print(fib(20));
print(mix(1, 2.5, true, 4, 5, 6, 7, 8, 9, 10));
print(g);
print(fl(2.0));
print(int(-2.5e30) + int(7.9));
var arr = [1, 2, 3];
push(arr, 4);
print(pop(arr) + arr[2] + len(arr));
print(10 / (g - g));
",
    );
    run_both(
        "floats",
        "fn many(a: float, b: float, c: float, d: float, e: float, f: float, g: float,
        h: float, i: float, j: float, k: int, l: bool) -> float {
    if l { return a + b * 2.0 + c * 3.0 + d + e + f + g + h + i * 5.0 + j * 7.0 + float(k); }
    return 0.0;
}
fn show(x: float) { print(int(x * 1000.0)); }
let nan = 0.0 / 0.0;
show(many(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11, true));
show(min(nan, 2.5)); show(max(3.5, nan)); show(min(-1.5, 1.5)); show(max(-1.5, 1.5));
print(1.0 / min(-0.0, 0.0) < 0.0); print(1.0 / max(-0.0, 0.0) > 0.0);
show(floor(-2.5)); show(ceil(-2.5)); show(sqrt(2.0)); show(-abs(-3.25)); show(7.5 % 2.0);
print(int(nan)); print(int(1e300)); print(int(-1e300)); print(int(-7.9));
print(nan == nan); print(nan != nan); print(nan < 1.0); print(nan >= 1.0);
print(1.0 < 2.0); print(2.0 <= 2.0); print(3.0 > 2.0); print(1.0 >= 2.0);
var s = 0.0;
var x = 0.5;
while x < 100.0 { s = s + x * x; x = x * 1.5; }
show(s);
print(abs(-9223372036854775807 - 1));
print((-9223372036854775807 - 1) / -1);
print((-9223372036854775807 - 1) % -1);
print(-7 / 2); print(-7 % 2); print(7 % -2);
",
    );
    run_both("big", &big_program());
    run_both(
        "overflow",
        "fn down(n: int) -> int { return down(n + 1) + 1; }
print(1);
print(down(0));
",
    );
}
