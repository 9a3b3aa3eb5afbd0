//! The baseline tier against the shared calling convention: many mixed
//! arguments (register and stack, ints, floats, bools), bool results, and
//! programs whose functions run partly on T2 and partly on T1 through the
//! shared entry-slot table.

use waddle_frontend::{compile as frontend_compile, CompileOptions, SourceFile, SourceMap};
use waddle_jit::{baseline, cranelift::compile, JitOptions, Tier};
use waddle_opt::ir::Program;
use waddle_test_support::tiers::{host_for, on_big_stack, run_interp, run_native, HostSetup};

const SETUP: HostSetup = HostSetup {
    fuel: None,
    gc_every: Some(3),
};

fn frontend(src: &str) -> Program {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("t.wdl".to_string(), src.to_string()));
    match frontend_compile(&sources, &CompileOptions::default()) {
        Ok(c) => c.program,
        Err(d) => panic!("frontend: {d:?}"),
    }
}

/// Runs `p`'s main on the interpreter and on T1; both must succeed alike.
fn baseline_matches_interpreter(p: Program) {
    let main = p.funcs[p.main.unwrap()].name().to_string();
    let (want, _) = run_interp(&p, &main, &[], SETUP);
    assert!(want.result.is_ok(), "{want:?}");
    let opts = JitOptions::default();
    let got = on_big_stack(move || run_native(Tier::Baseline, &p, &main, &[], SETUP, &opts).0);
    assert_eq!(got, want);
}

const MIXED: &str = r#"
fn mix(a: int, b: float, c: bool, d: int, e: float, f: int, g: bool, h: int,
       i: float, j: int, k: float, l: float, m: float, n: float, o: float,
       p: float, q: float, r: int, s: bool, t: str, u: [int]) -> float {
    print(a); print(b); print(c); print(d); print(e); print(f); print(g);
    print(h); print(i); print(j); print(k); print(l); print(m); print(n);
    print(o); print(p); print(q); print(r); print(s); print(t); print(u);
    return float(a + d + f + h + j + r) + b + e + i + k + l + m + n + o + p + q;
}
fn flip(c: bool, x: int) -> bool {
    if x > 0 { return !c; }
    return c;
}
fn swap_loop(n: int) -> int {
    var a = 1;
    var b = 2;
    var i = 0;
    while i < n {
        let t = a;
        a = b;
        b = t + a;
        i += 1;
    }
    return a * 1000 + b;
}
let arr = [1, 2, 3];
print(mix(1, 2.5, true, 4, 5.5, 6, false, 8, 9.5, 10, 11.5, 12.5, 13.5,
          14.5, 15.5, 16.5, 17.5, 18, true, "s" + str(19), arr));
print(flip(true, 1));
print(flip(false, -1));
print(swap_loop(10));
print([flip(true, 0), flip(true, 5)]);
"#;

#[test]
fn mixed_arguments_match_interpreter() {
    baseline_matches_interpreter(frontend(MIXED));
}

/// Every function but `.main` on T2 (Cranelift), `.main` on T1, and the
/// other way round: calls cross tiers through the entry slots.
#[test]
fn tiers_call_each_other() {
    let p = frontend(MIXED);
    let main_id = p.main.unwrap();
    let main = p.funcs[main_id].name().to_string();
    let (want, _) = run_interp(&p, &main, &[], SETUP);
    let got = on_big_stack(move || {
        let mut outs = Vec::new();
        for t1_main in [true, false] {
            let mut host = host_for(&p, SETUP);
            let mut bp = baseline::compile(&p, &JitOptions::default()).unwrap();
            let mut cp = compile(&p, &JitOptions::default()).unwrap();
            cp.bind_strings(&mut host);
            bp.bind_strings(&mut host);
            for (fid, _) in p.funcs.iter() {
                if (fid == main_id) != t1_main {
                    let code = cp.code(fid).unwrap().as_ptr();
                    // SAFETY: T2 code of the same function of the same
                    // program, same calling convention; `cp` outlives the call.
                    unsafe { bp.set_entry(fid, code) };
                }
            }
            let result = bp.call(&mut host, main_id, &[]);
            outs.push((result, std::mem::take(&mut host.out)));
            drop(cp);
        }
        outs
    });
    for (result, out) in got {
        assert_eq!(result, want.result);
        assert_eq!(out, want.out);
    }
}

#[test]
fn disassembly_and_stats() {
    let p = frontend(MIXED);
    let opts = JitOptions {
        disasm: true,
        ..JitOptions::default()
    };
    let bp = baseline::compile(&p, &opts).unwrap();
    let f = p.func_by_name("swap_loop").unwrap();
    let text = bp.disasm(f).unwrap();
    assert!(text.contains("push rbp") && text.contains("ret"), "{text}");
    assert_eq!(bp.func_name(f), Some("swap_loop"));
    assert!(!bp.code(f).unwrap().is_empty());
    let s = bp.stats();
    assert_eq!(s.funcs.len(), p.funcs.len());
    assert!(s.funcs.iter().all(|f| f.ir_insts > 0 && f.code_size > 0));
}

/// More than 4095 functions and a frame of more than 4095 slots on x86-64.
#[test]
fn large_programs_and_frames() {
    let mut src = String::from("fn f0() -> int { return 1; }\n");
    for i in 1..4200 {
        src += &format!("fn f{i}() -> int {{ return f{}() + {i} % 5; }}\n", i - 1);
    }
    src += "fn wide(a: int) -> int {\n    var x = a;\n";
    for i in 0..2500 {
        src += &format!("    x = x + {} * a;\n", i % 7);
    }
    src += "    return x;\n}\nprint(f4199());\nprint(wide(3));\n";
    baseline_matches_interpreter(frontend(&src));
}
