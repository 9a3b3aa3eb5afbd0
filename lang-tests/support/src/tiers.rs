//! Differential runs: a program on the reference interpreter and on every
//! native tier this host can run, each with an identical fresh
//! [`TestHost`], compared by result (word or trap) and printed output.

use waddle_jit::abi::HELPER_STACK_RESERVE;
use waddle_jit::{baseline, cranelift, JitOptions, NativeProgram};
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

/// A native tier.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Tier {
    /// T1, the one-pass dynasmrt generator (x86-64 hosts).
    Baseline,
    /// T2's code generator, Cranelift.
    Opt,
}

impl Tier {
    /// The native tiers this host can run (the baseline runs natively on
    /// x86-64 only, Cranelift on x86-64 and AArch64).
    pub fn available() -> Vec<Tier> {
        let mut tiers = Vec::new();
        if cfg!(target_arch = "x86_64") {
            tiers.push(Tier::Baseline);
        }
        if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
            tiers.push(Tier::Opt);
        }
        tiers
    }

    /// The `--tier` name.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Baseline => "baseline",
            Tier::Opt => "opt",
        }
    }

    /// Compiles `p` with this tier.
    pub fn compile(
        self,
        p: &Program,
        opts: &JitOptions,
    ) -> Result<Box<dyn NativeProgram>, waddle_jit::CompileError> {
        Ok(match self {
            Tier::Baseline => Box::new(baseline::compile(p, opts)?),
            Tier::Opt => Box::new(cranelift::compile(p, opts)?),
        })
    }

    /// The option sets a differential run compares for this tier: Cranelift
    /// with and without optimization and with the single-pass register
    /// allocator huge functions get; the baseline with and without fuel
    /// counting (only with it when the run has a fuel budget).
    pub fn configs(self, setup: HostSetup) -> Vec<JitOptions> {
        let base = JitOptions::default();
        match self {
            Tier::Opt => [
                (true, base.huge_function_insts),
                (false, base.huge_function_insts),
                (true, 0),
            ]
            .into_iter()
            .map(|(optimize, huge_function_insts)| JitOptions {
                optimize,
                huge_function_insts,
                ..base.clone()
            })
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
    let mut code = tier
        .compile(p, opts)
        .unwrap_or_else(|e| panic!("{} compile failed: {e}", tier.name()));
    let f = p.func_by_name(name).expect("function");
    let result = code.call(&mut host, f, args);
    let out = std::mem::take(&mut host.out);
    (Outcome { result, out }, host)
}

/// Runs `name` of IR text `text` on the interpreter and, on a big stack,
/// on every available native tier in each of its [`Tier::configs`];
/// asserts identical outcomes and returns the interpreter's.
pub fn check_same(text: &str, name: &str, args: &[Word], setup: HostSetup) -> Outcome {
    let p = parse(text);
    let (expected, _) = run_interp(&p, name, args, setup);
    for tier in Tier::available() {
        for opts in tier.configs(setup) {
            let (p2, name2, args2) = (p.clone(), name.to_string(), args.to_vec());
            let what = format!("{} {opts:?}", tier.name());
            let got = on_big_stack(move || run_native(tier, &p2, &name2, &args2, setup, &opts).0);
            assert_eq!(got, expected, "{what}\n{text}");
        }
    }
    expected
}
