//! Compile time and speed of the Cranelift tier against the interpreter on
//! a few kernels: `cargo run -p waddle-jit --example speed [--release]`.
//! Prints one line per kernel: interpreter time, compiled time (median of
//! five runs each), their ratio, and Cranelift's compile time per function;
//! then the compile latency (frontend excluded, median of five) of the
//! larger programs of the lang-test corpus.

use std::time::{Duration, Instant};

use waddle_frontend::{compile as frontend_compile, CompileOptions, SourceFile, SourceMap};
use waddle_jit::{cranelift::compile, JitOptions};
use waddle_opt::abi::DEFAULT_STACK_BUDGET;
use waddle_opt::interp::Interpreter;
use waddle_opt::ir::Program;
use waddle_test_support::TestHost;

const KERNELS: [(&str, &str); 4] = [
    (
        "fib",
        "fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }
         print(fib(30));",
    ),
    (
        "loop",
        "fn kernel(n: int) -> int {
             var s = 0; var i = 0;
             while i < n { s = (s + i * i) % 1000003; i += 1; }
             return s;
         }
         print(kernel(20000000));",
    ),
    (
        "sieve",
        "fn sieve(n: int) -> int {
             let flags = [true; n + 1];
             var count = 0;
             for i in 2..n + 1 {
                 if flags[i] {
                     count += 1;
                     var j = i * i;
                     while j <= n { flags[j] = false; j += i; }
                 }
             }
             return count;
         }
         var total = 0;
         for k in 0..10 { total += sieve(1000000); }
         print(total);",
    ),
    (
        "floats",
        "fn mandel(n: int) -> int {
             var inside = 0;
             for py in 0..n { for px in 0..n {
                 let cx = float(px) * 3.0 / float(n) - 2.0;
                 let cy = float(py) * 2.0 / float(n) - 1.0;
                 var x = 0.0; var y = 0.0; var k = 0;
                 while k < 50 && x * x + y * y <= 4.0 {
                     let t = x * x - y * y + cx; y = 2.0 * x * y + cy; x = t; k += 1;
                 }
                 if k == 50 { inside += 1; }
             } }
             return inside;
         }
         print(mandel(600));",
    ),
];

fn frontend(name: &str, src: &str) -> Program {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new(format!("{name}.wdl"), src));
    match frontend_compile(&sources, &CompileOptions::default()) {
        Ok(c) => c.program,
        Err(d) => panic!("{name}: {d:?}"),
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn host(p: &Program) -> TestHost {
    let mut h = TestHost::new(p.globals.len());
    h.init_globals(p);
    h.gc_every = Some(10_000);
    h
}

fn main() {
    if let Some(k) = std::env::args().nth(1) {
        dump(&k);
        return;
    }
    let work = std::thread::Builder::new()
        .stack_size(DEFAULT_STACK_BUDGET + (16 << 20))
        .spawn(run)
        .expect("spawn");
    work.join().expect("benchmark thread");
}

/// Compile latency of the corpus's `classic/` programs and of all of them
/// in one unit per file, the way `waddle run --tier opt` compiles a file.
fn latency() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../lang-tests/tests/programs/classic");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut files: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    let opts = JitOptions {
        verify_cranelift: false,
        ..JitOptions::default()
    };
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "wdl"))
    {
        let Ok(src) = std::fs::read_to_string(f) else {
            continue;
        };
        let name = f
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().into_owned());
        let p = frontend(&name, &src);
        let insts: usize = p.funcs.values().map(|f| f.inst_count()).sum();
        let times: Vec<Duration> = (0..5)
            .map(|_| {
                let t0 = Instant::now();
                let cp = compile(&p, &opts).expect("compile");
                let t = t0.elapsed();
                drop(cp);
                t
            })
            .collect();
        println!(
            "latency {name:16} {:>4} lines {:>5} IR insts {:>3} funcs: compile {:>9.2?}",
            src.lines().count(),
            insts,
            p.funcs.len(),
            median(times)
        );
    }
}

fn run() {
    latency();
    let opts = JitOptions {
        verify_cranelift: false,
        fuel: false,
        ..JitOptions::default()
    };
    for (name, src) in KERNELS {
        let p = frontend(name, src);
        let main = p.main.expect("main");
        let mut t_interp = Vec::new();
        let mut t_jit = Vec::new();
        let mut out = (String::new(), String::new());
        let mut stats = None;
        for _ in 0..5 {
            let mut h = host(&p);
            let t0 = Instant::now();
            let it = Interpreter::new(&p, &mut h);
            it.call(&mut h, main, &[]).expect("interp");
            t_interp.push(t0.elapsed());
            out.0 = std::mem::take(&mut h.out);

            let mut h = host(&p);
            let mut cp = compile(&p, &opts).expect("compile");
            let t0 = Instant::now();
            cp.call(&mut h, main, &[]).expect("jit");
            t_jit.push(t0.elapsed());
            out.1 = std::mem::take(&mut h.out);
            stats = Some(cp.stats().clone());
        }
        assert_eq!(out.0, out.1, "{name}: outputs differ");
        let (ti, tj) = (median(t_interp), median(t_jit));
        println!(
            "{name:7} interp {:>10.3?}  jit {:>10.3?}  speedup {:>6.1}x  output {}",
            ti,
            tj,
            ti.as_secs_f64() / tj.as_secs_f64(),
            out.1.trim()
        );
        if let Some(s) = stats {
            for f in &s.funcs {
                println!(
                    "        compile {:12} {:>4} IR insts: translate {:>9.1?} cranelift {:>9.1?} -> {:>5} bytes",
                    f.name, f.ir_insts, f.translate, f.codegen, f.code_size
                );
            }
            println!(
                "        unit total {:.1?} (trampolines {:.1?})",
                s.total, s.trampolines
            );
        }
    }
}

/// Prints Cranelift's disassembly of every function of kernel `name`.
#[allow(dead_code)]
/// Prints the T2 machine code (without fuel ticks, as `waddle bench` runs)
/// of a kernel of [`KERNELS`], or of a `.wdl` file after the `-O2` passes.
pub fn dump(name: &str) {
    let p = if name.ends_with(".wdl") {
        let src = std::fs::read_to_string(name).expect("read the program");
        let mut p = frontend(name, &src);
        waddle_opt::passes::run_pipeline(&mut p, 2);
        p
    } else {
        let (_, src) = KERNELS.iter().find(|k| k.0 == name).expect("kernel");
        frontend(name, src)
    };
    let opts = JitOptions {
        disasm: true,
        fuel: false,
        ..JitOptions::default()
    };
    let cp = compile(&p, &opts).expect("compile");
    for id in p.funcs.keys() {
        if let Some(d) = cp.disasm(id) {
            println!("{}:\n{d}", p.funcs[id].name());
        }
    }
}
