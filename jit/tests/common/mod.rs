//! Differential harness: run a program on the interpreter and on compiled
//! code with identical fresh hosts and compare results, output and traps.

#![allow(dead_code)]

pub mod host;

use waddle_jit::abi::HELPER_STACK_RESERVE;
use waddle_jit::{cranelift::compile, JitOptions};
use waddle_opt::abi::{Trap, Word, DEFAULT_STACK_BUDGET};
use waddle_opt::interp::Interpreter;
use waddle_opt::ir::{parse_program, Program};

pub use host::TestHost;

/// What one engine did.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    /// Result word or trap.
    pub result: Result<Word, Trap>,
    /// Captured output.
    pub out: String,
}

/// Host settings for a run.
#[derive(Clone, Copy, Default)]
pub struct HostSetup {
    /// Fuel budget.
    pub fuel: Option<u64>,
    /// Collect every this many allocations.
    pub gc_every: Option<usize>,
}

fn host_for(p: &Program, setup: HostSetup) -> TestHost {
    let mut h = TestHost::new(p.globals.len());
    h.init_globals(p);
    h.fuel = setup.fuel;
    h.gc_every = setup.gc_every;
    h
}

/// Parses IR text, panicking with the parse error.
pub fn parse(text: &str) -> Program {
    match parse_program(text) {
        Ok(p) => p,
        Err(e) => panic!("IR parse error {e}\n{text}"),
    }
}

/// Runs `f` on a thread whose stack holds the default stack budget plus
/// the helper reserve.
pub fn on_big_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(DEFAULT_STACK_BUDGET + HELPER_STACK_RESERVE + (8 << 20))
        .spawn(f)
        .expect("spawn")
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// Runs function `name` of `p` on the interpreter.
pub fn run_interp(p: &Program, name: &str, args: &[Word], setup: HostSetup) -> (Outcome, TestHost) {
    let mut host = host_for(p, setup);
    let it = Interpreter::new(p, &mut host);
    let f = p.func_by_name(name).expect("function");
    let result = it.call(&mut host, f, args);
    let out = std::mem::take(&mut host.out);
    (Outcome { result, out }, host)
}

/// Compiles `p` and runs function `name` (on the current thread).
pub fn run_jit(
    p: &Program,
    name: &str,
    args: &[Word],
    setup: HostSetup,
    opts: &JitOptions,
) -> (Outcome, TestHost) {
    let mut host = host_for(p, setup);
    let mut cp = compile(p, opts).unwrap_or_else(|e| panic!("compile failed: {e}"));
    let f = p.func_by_name(name).expect("function");
    let result = cp.call(&mut host, f, args);
    let out = std::mem::take(&mut host.out);
    (Outcome { result, out }, host)
}

/// Runs `name` on both engines (the compiled one on a big stack, with and
/// without Cranelift optimization, and with the single-pass register
/// allocator that huge functions get) and asserts identical outcomes;
/// returns the interpreter's.
pub fn check_same(text: &str, name: &str, args: &[Word], setup: HostSetup) -> Outcome {
    let p = parse(text);
    let (expected, _) = run_interp(&p, name, args, setup);
    for (optimize, huge_function_insts) in [
        (true, JitOptions::default().huge_function_insts),
        (false, JitOptions::default().huge_function_insts),
        (true, 0),
    ] {
        let p2 = p.clone();
        let name2 = name.to_string();
        let args2 = args.to_vec();
        let opts = JitOptions {
            optimize,
            huge_function_insts,
            ..JitOptions::default()
        };
        let (got, _) = on_big_stack(move || {
            let (o, h) = run_jit(&p2, &name2, &args2, setup, &opts);
            drop(h);
            (o, ())
        });
        assert_eq!(
            got, expected,
            "optimize={optimize} huge_function_insts={huge_function_insts}\n{text}"
        );
    }
    expected
}
