//! Baseline tier (T1) speed report: compile time per IR instruction against
//! T2 (Cranelift), and run time against the interpreter and T2 on fib,
//! loops, sieve and nbody.
//!
//! `cargo run --release -p waddle-jit --example baseline_speed`

use std::time::{Duration, Instant};

use waddle_frontend::{compile as frontend_compile, CompileOptions, SourceFile, SourceMap};
use waddle_jit::abi::HELPER_STACK_RESERVE;
use waddle_jit::{baseline, cranelift::compile, JitOptions};
use waddle_opt::abi::DEFAULT_STACK_BUDGET;
use waddle_opt::interp::Interpreter;
use waddle_opt::ir::Program;
use waddle_test_support::TestHost;

const FIB: &str = "
fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }
print(fib(30));
";

const LOOPS: &str = "
var total = 0;
for i in 0..3000 {
    var j = 0;
    while j < 1000 {
        total = total + (i ^ j) % 7;
        j += 1;
    }
}
print(total);
";

const SIEVE: &str = "
fn sieve(flags: [bool], n: int) -> int {
    for i in 0..n { flags[i] = true; }
    var count = 0;
    for i in 2..n {
        if flags[i] {
            count += 1;
            var k = i + i;
            while k < n { flags[k] = false; k += i; }
        }
    }
    return count;
}
let flags = [true; 60000];
var c = 0;
for r in 0..100 { c = sieve(flags, 60000); }
print(c);
";

const NBODY: &str = "
fn energy(x: [float], y: [float], z: [float], vx: [float], vy: [float], vz: [float], m: [float]) -> float {
    var e = 0.0;
    for i in 0..5 {
        e = e + 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
        for j in i + 1..5 {
            let dx = x[i] - x[j];
            let dy = y[i] - y[j];
            let dz = z[i] - z[j];
            e = e - m[i] * m[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}
fn advance(x: [float], y: [float], z: [float], vx: [float], vy: [float], vz: [float], m: [float], dt: float) {
    for i in 0..5 {
        for j in i + 1..5 {
            let dx = x[i] - x[j];
            let dy = y[i] - y[j];
            let dz = z[i] - z[j];
            let d2 = dx * dx + dy * dy + dz * dz;
            let mag = dt / (d2 * sqrt(d2));
            vx[i] = vx[i] - dx * m[j] * mag;
            vy[i] = vy[i] - dy * m[j] * mag;
            vz[i] = vz[i] - dz * m[j] * mag;
            vx[j] = vx[j] + dx * m[i] * mag;
            vy[j] = vy[j] + dy * m[i] * mag;
            vz[j] = vz[j] + dz * m[i] * mag;
        }
    }
    for i in 0..5 {
        x[i] = x[i] + dt * vx[i];
        y[i] = y[i] + dt * vy[i];
        z[i] = z[i] + dt * vz[i];
    }
}
let x = [0.0, 4.84, 8.34, 12.89, 15.37];
let y = [0.0, -1.16, 4.12, -15.11, -25.91];
let z = [0.0, -0.10, -0.40, -0.22, 0.17];
let vx = [0.0, 0.60, -1.01, 1.08, 0.97];
let vy = [0.0, 2.81, 1.82, 0.86, 0.59];
let vz = [0.0, -0.02, 0.008, -0.01, -0.03];
let m = [39.47, 0.037, 0.011, 0.0017, 0.002];
print(energy(x, y, z, vx, vy, vz, m));
for s in 0..200000 { advance(x, y, z, vx, vy, vz, m, 0.01); }
print(energy(x, y, z, vx, vy, vz, m));
";

fn frontend(name: &str, src: &str) -> Program {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new(name.to_string(), src.to_string()));
    match frontend_compile(&sources, &CompileOptions::default()) {
        Ok(c) => c.program,
        Err(d) => panic!("{name}: {d:?}"),
    }
}

fn host(p: &Program) -> TestHost {
    let mut h = TestHost::new(p.globals.len());
    h.init_globals(p);
    h
}

/// Best of `n` runs of `f`, returning the time and the output.
fn best(n: usize, mut f: impl FnMut() -> String) -> (Duration, String) {
    let mut t = Duration::MAX;
    let mut out = String::new();
    for _ in 0..n {
        let t0 = Instant::now();
        out = f();
        t = t.min(t0.elapsed());
    }
    (t, out)
}

fn report() {
    let opts = JitOptions {
        fuel: false,
        ..JitOptions::default()
    };
    println!(
        "{:<8} {:>10} {:>10} {:>10} {:>9} {:>9}",
        "program", "interp", "baseline", "T2", "interp/T1", "T1/T2"
    );
    let mut ir = 0usize;
    let (mut t1_compile, mut t2_compile) = (Duration::ZERO, Duration::ZERO);
    for (name, src) in [
        ("fib", FIB),
        ("loops", LOOPS),
        ("sieve", SIEVE),
        ("nbody", NBODY),
    ] {
        let p = frontend(name, src);
        let main = p.main.expect("main");
        let (ti, oi) = best(1, || {
            let mut h = host(&p);
            let it = Interpreter::new(&p, &mut h);
            it.call(&mut h, main, &[]).expect("interp");
            std::mem::take(&mut h.out)
        });
        let mut bp = baseline::compile(&p, &opts).expect("baseline");
        let (tb, ob) = best(3, || {
            let mut h = host(&p);
            bp.call(&mut h, main, &[]).expect("baseline run");
            std::mem::take(&mut h.out)
        });
        let mut cp = compile(&p, &opts).expect("T2");
        let (tc, oc) = best(3, || {
            let mut h = host(&p);
            cp.call(&mut h, main, &[]).expect("T2 run");
            std::mem::take(&mut h.out)
        });
        assert_eq!(oi, ob, "{name}: baseline output differs");
        assert_eq!(oi, oc, "{name}: T2 output differs");
        println!(
            "{name:<8} {:>8.1}ms {:>8.1}ms {:>8.1}ms {:>8.1}x {:>8.2}x",
            ti.as_secs_f64() * 1e3,
            tb.as_secs_f64() * 1e3,
            tc.as_secs_f64() * 1e3,
            ti.as_secs_f64() / tb.as_secs_f64(),
            tb.as_secs_f64() / tc.as_secs_f64()
        );
        // Compile time: the fastest of many repetitions of each compiler
        // (translation and code generation of every function; the machine
        // is shared, so the minimum is the least noisy figure).
        let (mut b_min, mut c_min) = (Duration::MAX, Duration::MAX);
        for _ in 0..30 {
            let b = baseline::compile(&p, &opts).expect("baseline");
            let c = compile(&p, &opts).expect("T2");
            let sum = |s: &waddle_jit::CompileStats| {
                s.funcs
                    .iter()
                    .map(|f| f.translate + f.codegen)
                    .sum::<Duration>()
            };
            b_min = b_min.min(sum(b.stats()));
            c_min = c_min.min(sum(c.stats()));
        }
        ir += p.funcs.values().map(|f| f.inst_count()).sum::<usize>();
        t1_compile += b_min;
        t2_compile += c_min;
    }
    let per = |t: Duration| t.as_secs_f64() * 1e9 / ir as f64;
    println!(
        "compile per IR instruction: baseline {:.0} ns, T2 {:.0} ns ({:.1}x faster)",
        per(t1_compile),
        per(t2_compile),
        t2_compile.as_secs_f64() / t1_compile.as_secs_f64()
    );
}

fn main() {
    // `--asm PROGRAM` prints the baseline code of the program's functions.
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag] = args.as_slice() {
        if flag == "--compile" {
            // For profiling the baseline compiler alone.
            let p = frontend("nbody", NBODY);
            let opts = JitOptions::default();
            let t0 = Instant::now();
            for _ in 0..20_000 {
                std::hint::black_box(baseline::compile(&p, &opts).expect("baseline"));
            }
            println!("{:?} per compile", t0.elapsed() / 20_000);
            return;
        }
    }
    if let [_, flag, name] = args.as_slice() {
        if flag == "--asm" {
            let src = match name.as_str() {
                "fib" => FIB,
                "loops" => LOOPS,
                "sieve" => SIEVE,
                _ => NBODY,
            };
            let p = frontend(name, src);
            let opts = JitOptions {
                disasm: true,
                ..JitOptions::default()
            };
            let bp = baseline::compile(&p, &opts).expect("baseline");
            for (fid, f) in p.funcs.iter() {
                println!("{}:\n{}", f.name(), bp.disasm(fid).unwrap_or_default());
            }
            return;
        }
    }
    std::thread::Builder::new()
        .stack_size(DEFAULT_STACK_BUDGET + HELPER_STACK_RESERVE + (8 << 20))
        .spawn(report)
        .expect("spawn")
        .join()
        .expect("report");
}
