//! Differential runs: a program on the reference interpreter and on every
//! native tier this host can run, each with an identical fresh
//! [`TestHost`], compared by result (word or trap) and printed output.

use waddle_jit::abi::HELPER_STACK_RESERVE;
use waddle_jit::{compile, JitOptions, Tier};
use waddle_opt::abi::{Trap, Word, DEFAULT_STACK_BUDGET};
use waddle_opt::interp::Interpreter;
use waddle_opt::ir::{parse_program, Program};

use crate::TestHost;

/// What one engine did.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    /// Result word or trap.
    pub result: Result<Word, Trap>,
    /// Captured output.
    pub out: String,
}

/// Host settings for a run.
#[derive(Clone, Copy, Default, Debug)]
pub struct HostSetup {
    /// Fuel budget.
    pub fuel: Option<u64>,
    /// Collect every this many allocations.
    pub gc_every: Option<usize>,
}

/// No fuel limit, no collections.
pub const NONE: HostSetup = HostSetup {
    fuel: None,
    gc_every: None,
};

/// The native tiers whose code differs, that this host runs: T1 and T2
/// (T3 hands Cranelift other IR, not another code generator).
pub fn native_tiers() -> Vec<Tier> {
    Tier::host_tiers().filter(|&t| t != Tier::Full).collect()
}

/// The option sets a differential run compares for `tier`: Cranelift with
/// and without optimization, with the single-pass register allocator
/// huge functions get, and with the settings of giant functions (that
/// allocator, no Cranelift optimizer, and segments of one or two
/// instructions, so every run of pure instructions is a call); the
/// baseline with and without fuel counting (only with it when the run has
/// a fuel budget).
pub fn configs(tier: Tier, setup: HostSetup) -> Vec<JitOptions> {
    let base = JitOptions::default();
    let (huge, giant) = (base.huge_function_insts, base.giant_function_insts);
    let segment = base.segment_insts;
    match tier {
        Tier::Opt | Tier::Full => [
            (true, huge, giant, segment),
            (false, huge, giant, segment),
            (true, 0, giant, segment),
            (true, 0, 0, 2),
        ]
        .into_iter()
        .map(
            |(optimize, huge_function_insts, giant_function_insts, segment_insts)| JitOptions {
                optimize,
                huge_function_insts,
                giant_function_insts,
                segment_insts,
                ..base.clone()
            },
        )
        .collect(),
        Tier::Baseline => [true, false]
            .into_iter()
            .filter(|&fuel| fuel || setup.fuel.is_none())
            .map(|fuel| JitOptions {
                fuel,
                disasm: true,
                ..base.clone()
            })
            .collect(),
    }
}

/// A fresh host for `p` with `setup`.
pub fn host_for(p: &Program, setup: HostSetup) -> TestHost {
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

/// Compiles `p` with `tier` and runs function `name` (on the current
/// thread).
pub fn run_native(
    tier: Tier,
    p: &Program,
    name: &str,
    args: &[Word],
    setup: HostSetup,
    opts: &JitOptions,
) -> (Outcome, TestHost) {
    let mut host = host_for(p, setup);
    let mut code = compile(tier, p, opts).unwrap_or_else(|e| panic!("{tier} compile failed: {e}"));
    let f = p.func_by_name(name).expect("function");
    let result = code.call(&mut host, f, args);
    let out = std::mem::take(&mut host.out);
    (Outcome { result, out }, host)
}

/// Runs `name` of IR text `text` on the interpreter and, on a big stack,
/// on every tier of [`native_tiers`] in each of its [`configs`];
/// asserts identical outcomes and returns the interpreter's.
pub fn check_same(text: &str, name: &str, args: &[Word], setup: HostSetup) -> Outcome {
    let p = parse(text);
    let (expected, _) = run_interp(&p, name, args, setup);
    for tier in native_tiers() {
        for opts in configs(tier, setup) {
            let (p2, name2, args2) = (p.clone(), name.to_string(), args.to_vec());
            let what = format!("{} {opts:?}", tier.name());
            let got = on_big_stack(move || run_native(tier, &p2, &name2, &args2, setup, &opts).0);
            assert_eq!(got, expected, "{what}\n{text}");
        }
    }
    expected
}
